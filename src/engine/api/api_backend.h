// The seam behind api::Database (docs/design/api.md "Backends"): every public call is one call of
// a Backend, chosen when the handle is made — LocalBackend (engine/api/api_local.h: the engine over
// a store URI, from Database::Init and Open) or RemoteBackend (engine/api/api_remote.h: an
// omnigraph-server's routes, from Database::Connect). api::Database forwards and never asks which
// one it has; an operation is added here once, and both backends must then say what it does (the
// methods are pure virtual: a backend that forgets one does not compile). A call the HTTP API
// cannot serve is refused by the remote backend with Unsupported naming it.
//
// Speaks only the public types (omnigraph/omnigraph.h). Thread-safe as api::Database is: every
// method may be called from any number of threads at once.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "omnigraph/omnigraph.h"

namespace omnigraph::engine {

// A sink for streamed output (export, baseline): chunks of whole NDJSON lines.
using ApiSink = std::function<api::Status(std::string_view chunk)>;

// InvalidArgument unless `key` is a valid idempotency key: the engine's rule, which the remote
// backend applies before a header carries the key, so both backends refuse the same keys alike.
api::Status CheckIdempotencyKey(std::string_view key);

class Backend {
 public:
  virtual ~Backend() = default;

  // The store URI (local) or the server URL (remote), as given.
  virtual const std::string& uri() const = 0;
  // Object-store calls made through this backend; zero for a remote one (the server makes them).
  virtual api::StoreCallCounts StoreCalls() const = 0;
  // A backend over the same state whose writes publish as `actor` (api::Database::WithActor).
  virtual std::shared_ptr<Backend> WithActor(std::optional<std::string> actor) const = 0;
  // A backend over the same state, same actor, gated by `options`' policy (api::Database::
  // WithPolicy); null when the backend cannot enforce one (remote).
  virtual std::shared_ptr<Backend> WithPolicy(const api::DatabaseOptions&) const { return nullptr; }
  // What Init found at the root (Database::InitReport); {} for a handle that did not init.
  virtual api::Json InitReport() const = 0;

  // The calls of api::Database, with its contracts (omnigraph/omnigraph.h).
  virtual api::Result<api::Json> CreateBranch(std::string_view name, std::string_view from) = 0;
  virtual api::Result<api::Json> DeleteBranch(std::string_view name) = 0;
  virtual api::Result<api::Json> ListBranches() = 0;
  virtual api::Result<api::Json> Merge(std::string_view source, const api::MergeOptions& options,
                                       api::Json* conflicts) = 0;
  virtual api::Result<api::Json> PreviewMerge(std::string_view source, std::string_view target) = 0;
  virtual api::Result<api::Json> Diff(const api::DiffRequest& request) = 0;
  virtual api::Result<api::Json> CommitHistory(std::string_view branch, size_t limit,
                                               std::string_view page_token,
                                               std::string_view actor) = 0;
  virtual api::Result<api::Json> ShowCommit(std::string_view commit_id) = 0;
  virtual api::Result<api::Json> CommitChanges(std::string_view commit_id,
                                               const api::CommitChangesRequest& request) = 0;
  virtual api::Result<api::Json> Snapshot(const api::ReadTarget& target) = 0;
  virtual api::Result<api::Json> PollChanges(const api::ChangePoll& poll) = 0;
  virtual api::Status ChangesBaseline(std::string_view branch, const api::ChangeFilter& filter,
                                      const ApiSink& sink) = 0;
  virtual api::Result<api::Json> Load(std::string_view ndjson, std::string_view mode,
                                      const api::WriteTarget& target) = 0;
  virtual api::Result<api::Json> LoadFile(const std::string& path, std::string_view mode,
                                          const api::WriteTarget& target) = 0;
  virtual api::Result<api::Json> LoadStream(const api::LoadReader& read, std::string_view mode,
                                            const api::WriteTarget& target) = 0;
  virtual api::Status Export(const api::ReadTarget& target, const std::vector<std::string>& types,
                             const ApiSink& sink) = 0;
  virtual api::Result<std::string> ResolveCommit(const api::ReadTarget& target) = 0;
  virtual api::Result<api::Json> StatBlob(const api::BlobSelector& cell,
                                          const api::ReadTarget& target) = 0;
  virtual api::Result<api::Json> ReadBlob(const api::BlobSelector& cell,
                                          const api::ReadTarget& target,
                                          std::optional<api::BlobRange> range,
                                          const ApiSink& sink) = 0;
  virtual api::Result<api::Json> Mutate(std::string_view source, std::string_view name,
                                        const api::Json& params,
                                        const api::WriteTarget& target) = 0;
  virtual api::Result<api::Json> Query(std::string_view source, std::string_view name,
                                       const api::Json& params, const api::ReadTarget& target) = 0;
  virtual api::Result<api::Json> PlanSchema(std::string_view schema_source,
                                            bool allow_data_loss) = 0;
  virtual api::Result<api::Json> ApplySchema(std::string_view schema_source,
                                             bool allow_data_loss) = 0;
  virtual api::Result<api::Json> ShowSchema(const api::ReadTarget& target) = 0;
  virtual api::Result<api::Json> Cleanup(const api::CleanupRequest& request) = 0;
  virtual api::Result<api::Json> Optimize(std::string_view branch) = 0;
  virtual api::Result<api::Json> Repair(bool confirm) = 0;
  virtual api::Result<api::Json> Lint(std::string_view query_source, std::string_view branch) = 0;
  // Stored queries live on a server: only the remote backend serves them.
  virtual api::Result<api::Json> StoredQueries() {
    return api::Status(api::Code::kUnsupported,
                       "stored queries are served by omnigraph-server: address the graph with "
                       "--server URL (or an http:// URI)");
  }
  virtual api::Result<api::Json> InvokeStoredQuery(std::string_view, const api::Json&,
                                                   const api::ReadTarget&) {
    return StoredQueries();
  }
};

}  // namespace omnigraph::engine
