// The schema archive store: the one place schema archives (docs/format/commit-documents.md §8)
// are written to and read from the object store, by init, schema apply and every reader of a
// record's schema.
//
// An archive is content-addressed: its object name is its content hash, so writing is a
// conditional create and an existing object must hold exactly the same bytes. Reading is
// bounded (commit::kDocumentBytesMax), checked against the content hash the record names, then
// parsed. Thread-safe (stateless).
#pragma once

#include <string>

#include "base/status.h"
#include "commit/documents.h"
#include "schema/archive.h"
#include "storage/object_store.h"

namespace omnigraph::engine {

// Creates the archive holding `bytes` (schema::ArchiveBytes) unless it exists and returns its
// content hash. Corruption naming the object when one exists with other bytes.
Result<std::string> StoreSchemaArchive(storage::ObjectStore& store, const std::string& bytes);

// The archive `ref` names. Corruption naming the object when it is missing, larger than the
// bound, not the bytes its hash names, or not a valid archive; FormatTooNew from a newer writer.
Result<schema::SchemaArchive> LoadSchemaArchive(storage::ObjectStore& store,
                                                const commit::SchemaRef& ref);

}  // namespace omnigraph::engine
