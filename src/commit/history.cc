#include "commit/history.h"

#include <charconv>

#include "base/executor.h"
#include "commit/names.h"

namespace omnigraph::commit {

namespace {

Result<StreamMetadata> LoadMetadata(storage::ObjectStore& store, const std::string& key) {
  const std::string name = StreamMetadataName(key);
  OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<BoundedRead> read,
                             ReadBounded(store, name, kDocumentBytesMax));
  if (!read) return Status(Code::kBranchNotFound, "no stream '" + key + "'", name);
  return DecodeStreamMetadata(read->data, name);
}

}  // namespace

std::string HistoryPosition::ToCursor() const { return key + ":" + std::to_string(seq); }

Result<HistoryPosition> HistoryPosition::FromCursor(std::string_view cursor) {
  size_t colon = cursor.rfind(':');
  HistoryPosition p;
  if (colon == std::string_view::npos) {
    return InvalidArgument("malformed history cursor '" + std::string(cursor) + "'");
  }
  p.key = std::string(cursor.substr(0, colon));
  std::string_view digits = cursor.substr(colon + 1);
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), p.seq);
  if (ec != std::errc() || end != digits.data() + digits.size() || digits.empty() ||
      !ValidateStreamKey(p.key).ok()) {
    return InvalidArgument("malformed history cursor '" + std::string(cursor) + "'");
  }
  return p;
}

Result<HistoryPage> ReadHistory(const storage::Runtime& runtime, const HistoryPosition& from,
                                size_t page_size) {
  if (page_size == 0 || page_size > kHistoryPageSizeMax) {
    return InvalidArgument("history page size " + std::to_string(page_size) + " is outside 1.." +
                           std::to_string(kHistoryPageSizeMax));
  }
  storage::ObjectStore& store = *runtime.store;
  OMNIGRAPH_RETURN_IF_ERROR(ValidateStreamKey(from.key));
  OMNIGRAPH_ASSIGN_OR_RETURN(StreamMetadata meta, LoadMetadata(store, from.key));
  HistoryPage page;
  std::string key = from.key;
  uint64_t seq = from.seq;
  std::optional<std::string> expected_id;  // The parent named by the previous commit.
  while (page.commits.size() < page_size) {
    // On a branch, seqs at or below the fork seq belong to the parent stream.
    if (meta.parent_stream && seq <= meta.base_seq()) {
      key = *meta.parent_stream;
      OMNIGRAPH_ASSIGN_OR_RETURN(meta, LoadMetadata(store, key));
      continue;
    }
    const uint64_t floor = meta.parent_stream ? meta.base_seq() + 1 : 0;
    const uint64_t want = page_size - page.commits.size();
    const uint64_t low = seq - floor + 1 > want ? seq - want + 1 : floor;
    std::vector<std::optional<BoundedRead>> reads(seq - low + 1);
    TaskGroup group(runtime.ReadExecutor());
    for (uint64_t s = low; s <= seq; ++s) {
      group.Add([&, s]() -> Status {
        OMNIGRAPH_ASSIGN_OR_RETURN(reads[s - low],
                                   ReadBounded(store, RecordName(key, s), kRecordBytesMax));
        return Status::Ok();
      });
    }
    OMNIGRAPH_RETURN_IF_ERROR(group.Wait());
    for (uint64_t s = seq + 1; s-- > low;) {
      const std::string name = RecordName(key, s);
      if (!reads[s - low]) {
        return Status(Code::kCommitNotFound, "no record at seq " + std::to_string(s), name);
      }
      OMNIGRAPH_ASSIGN_OR_RETURN(Record r, DecodeRecord(reads[s - low]->data, name));
      if (r.seq != s || r.stream != key) {
        return Status(Code::kCorruption, "record is stored under the wrong name", name);
      }
      if (expected_id && r.commit_id != *expected_id) {
        return Status(Code::kCorruption,
                      "record is '" + r.commit_id + "', but the commit after it names '" +
                          *expected_id + "' as parent",
                      name);
      }
      expected_id = r.parent_commit_id;
      if (r.kind == RecordKind::kCommit) page.commits.push_back(std::move(r));
    }
    if (low == 0 && !meta.parent_stream) return page;  // Reached genesis.
    seq = low - 1;
  }
  page.next = HistoryPosition{key, seq};
  return page;
}

}  // namespace omnigraph::commit
