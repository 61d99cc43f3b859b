// The local backend of api::Database (engine/api/api_backend.h): the engine over the graph at a
// store URI. Every call runs in this process against the store; writes publish as the backend's
// actor (DatabaseOptions::actor, or WithActor's). WithActor's backends share one runtime, warm
// branch handles, execution cache and change feed. Thread-safe.
#pragma once

#include <memory>
#include <string_view>

#include "engine/api/api_backend.h"

namespace omnigraph::engine {

// Creates a graph at `uri` with `schema_source` (Database::Init's contract).
api::Result<std::shared_ptr<Backend>> InitLocalBackend(std::string_view uri,
                                                       std::string_view schema_source,
                                                       const api::DatabaseOptions& options);
// Opens the graph at `uri` (Database::Open's contract).
api::Result<std::shared_ptr<Backend>> OpenLocalBackend(std::string_view uri,
                                                       const api::DatabaseOptions& options);
// Lints `query_source` against a schema source that no graph holds (Database::LintWithSchema).
api::Result<api::Json> LintWithSchemaSource(std::string_view schema_source,
                                            std::string_view query_source);

// Runs the offline embedding pipeline on the system clock (Database::EmbedFile).
api::Result<api::Json> EmbedFileOffline(const api::EmbedFileRequest& request);

// What this library is: {version, storage_stamp, build} (Database::Version).
api::Json LibraryVersion();
// The system runtime's monotonic clock (api::Database::MonotonicMicros).
int64_t SystemMonotonicMicros();

}  // namespace omnigraph::engine
