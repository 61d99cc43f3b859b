// First-parent commit history of a stream, newest first, in pages (docs/design/overview.md
// "Protocols" "Time travel"; `commit list`).
//
// The walk starts at (key, seq) and reads records downwards; a branch's walk continues into its
// parent stream at the fork seq (the fork commit is the parent's record there), so a history runs
// back to genesis. Retire records are not commits and are skipped. Each page reads its records
// concurrently, plus one metadata read per stream it enters. Thread-safe (no shared state).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "commit/documents.h"
#include "storage/uri.h"

namespace omnigraph::commit {

inline constexpr size_t kHistoryPageSizeMax = 1000;

struct HistoryPosition {
  std::string key;
  uint64_t seq = 0;
  // "key:seq", the opaque cursor of the next page.
  std::string ToCursor() const;
  static Result<HistoryPosition> FromCursor(std::string_view cursor);
};

struct HistoryPage {
  std::vector<Record> commits;
  // Where the next page starts; nullopt after genesis.
  std::optional<HistoryPosition> next;
};

// One page of at most `page_size` commits starting at `from` (inclusive), newest first.
// InvalidArgument for a page size outside 1..kHistoryPageSizeMax; CommitNotFound when `from` is
// beyond the stream's end; Corruption when a record's parent is not the next record.
Result<HistoryPage> ReadHistory(const storage::Runtime& runtime, const HistoryPosition& from,
                                size_t page_size);

}  // namespace omnigraph::commit
