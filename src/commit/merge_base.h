// The merge base of two commits: their nearest common ancestor over first-parent and
// merged-parent links, across streams (docs/design/merge.md "Merge base").
//
// The walk reads records newest generation first from both commits at once, marking each with
// the sides it is reachable from; a record's generation is greater than every ancestor's (D7),
// so when a record is taken from the queue every descendant on the way from either commit has
// been taken already and its marks are final. The first record taken that both sides reach is
// the base: a common ancestor of the highest generation, which is never an ancestor of another
// common ancestor. Among several of that generation (a criss-cross history) the smallest commit
// id wins. The records read are those newer than the base on either side plus the parents met on
// the way — never the history below the base. Pure function of the store; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "commit/documents.h"
#include "storage/object_store.h"

namespace omnigraph::commit {

struct MergeBase {
  Record base;
  // Commit records this search read (one GET each).
  uint64_t records_read = 0;
  // Commits the search took before the base (newer than it in the queue's order) that only `a`
  // reaches, and those only `b` reaches: how far each side is ahead of the other. Exact for the
  // usual history (each side's commits since the base are newer than it); a commit of one side
  // older than the base by generation (a criss-cross history) is not counted.
  uint64_t a_only = 0;
  uint64_t b_only = 0;
};

// The merge base of commits `a` and `b`. CommitNotFound when either (or an ancestor) is missing;
// Corruption when they share no ancestor (every commit descends from genesis).
Result<MergeBase> FindMergeBase(storage::ObjectStore& store, std::string_view a,
                                std::string_view b);

}  // namespace omnigraph::commit
