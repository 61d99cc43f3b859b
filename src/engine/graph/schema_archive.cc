#include "engine/graph/schema_archive.h"

#include <optional>

#include "commit/names.h"

namespace omnigraph::engine {

Result<std::string> StoreSchemaArchive(storage::ObjectStore& store, const std::string& bytes) {
  std::string content_hash = schema::ContentHash(bytes);
  const std::string name = commit::SchemaArchiveName(content_hash);
  OMNIGRAPH_ASSIGN_OR_RETURN(bool created, store.PutIfAbsent(name, bytes));
  if (created) return content_hash;
  OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<commit::BoundedRead> existing,
                             commit::ReadBounded(store, name, commit::kDocumentBytesMax));
  if (!existing || existing->data != bytes) {
    return Status(Code::kCorruption, "schema archive differs from its content hash", name);
  }
  return content_hash;
}

Result<schema::SchemaArchive> LoadSchemaArchive(storage::ObjectStore& store,
                                                const commit::SchemaRef& ref) {
  const std::string name = commit::SchemaArchiveName(ref.content_hash);
  OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<commit::BoundedRead> read,
                             commit::ReadBounded(store, name, commit::kDocumentBytesMax));
  if (!read) return Status(Code::kCorruption, "the schema archive a record names is missing", name);
  if (schema::ContentHash(read->data) != ref.content_hash) {
    return Status(Code::kCorruption, "schema archive does not match its content hash", name);
  }
  Result<schema::SchemaArchive> archive = schema::ParseArchive(read->data);
  if (!archive.ok()) return archive.status().WithObject(name);
  return archive;
}

}  // namespace omnigraph::engine
