#include "commit/change_set.h"

#include "base/hash.h"

namespace omnigraph::commit {

std::string ChangeSetDeltaName(std::string_view stream_key, std::string_view sha256_hex) {
  return "_graph/" + std::string(stream_key) + "/changes/" + std::string(sha256_hex) + ".json";
}

uint64_t InlineIdBytes(const ChangeSet& c) {
  uint64_t n = 0;
  for (const TableChangeSet& t : c.tables) {
    for (const auto* ids : {&t.inserted, &t.updated, &t.deleted}) {
      for (const std::string& id : *ids) n += id.size() + 3;  // Quotes and a comma.
    }
  }
  return n;
}

Result<std::optional<ChangeSet>> SpillChangeSet(storage::ObjectStore& store,
                                                std::string_view stream_key, ChangeSet full) {
  if (InlineIdBytes(full) <= kChangeSetInlineBytesMax) return std::optional<ChangeSet>(full);
  if (InlineIdBytes(full) > kChangeSetDeltaBytesMax) return std::optional<ChangeSet>();
  const std::string bytes = EncodeChangeSetDelta(full.tables);
  if (bytes.size() > kChangeSetDeltaBytesMax) return std::optional<ChangeSet>();
  const std::string sha = Sha256Hex(bytes);
  const std::string name = ChangeSetDeltaName(stream_key, sha);
  OMNIGRAPH_ASSIGN_OR_RETURN(bool created, store.PutIfAbsent(name, bytes));
  if (!created) {
    // Content-addressed: an existing object must be these bytes (a retry of ours, or another
    // commit with the same ids).
    OMNIGRAPH_ASSIGN_OR_RETURN(storage::GetResult existing, store.Get(name));
    if (existing.data != bytes) {
      return Status(Code::kCorruption, "change set delta differs from its content hash", name);
    }
  }
  ChangeSet out = std::move(full);
  for (TableChangeSet& t : out.tables) {
    t.inserted.clear();
    t.updated.clear();
    t.deleted.clear();
  }
  out.delta = ChangeSetDelta{name, sha, bytes.size()};
  return std::optional<ChangeSet>(std::move(out));
}

Result<ChangeSet> LoadChangeSetIds(storage::ObjectStore& store, const ChangeSet& c) {
  if (!c.delta) return c;
  const std::string& name = c.delta->name;
  auto corrupt = [&](const std::string& why) {
    return Status(Code::kCorruption, "change set delta " + why, name);
  };
  OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<BoundedRead> read,
                             ReadBounded(store, name, kChangeSetDeltaBytesMax));
  if (!read) return corrupt("is missing");
  if (read->data.size() != c.delta->size_bytes || Sha256Hex(read->data) != c.delta->sha256) {
    return corrupt("is not the object the record names (size or SHA-256 differ)");
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<TableChangeSet> lists,
                             DecodeChangeSetDelta(read->data, name));
  if (lists.size() != c.tables.size()) return corrupt("lists another number of tables");
  ChangeSet out = c;
  out.delta.reset();
  for (size_t i = 0; i < lists.size(); ++i) {
    TableChangeSet& t = out.tables[i];
    if (lists[i].identity() != t.identity() || lists[i].inserted.size() != t.inserted_count ||
        lists[i].updated.size() != t.updated_count || lists[i].deleted.size() != t.deleted_count) {
      return corrupt("does not match the record's table '" + t.table_key + "'");
    }
    t.inserted = std::move(lists[i].inserted);
    t.updated = std::move(lists[i].updated);
    t.deleted = std::move(lists[i].deleted);
  }
  return out;
}

}  // namespace omnigraph::commit
