// optimize: non-destructive compaction of a branch's tables and coverage of their derived
// indexes (docs/design/engine.md "Optimize").
//
// Per table of the branch head: when the version holds more fragments than its live rows need
// (ceil(live / fragment_rows_max)) or any deletion vector, its live rows are rewritten as full
// fragments. Every table rewritten goes into one commit (a strict write planned on the head it
// read, with an empty change set: no entity changes), none when no table needs it. Then every
// table version of the resulting head gets the derived objects it lacks (engine/
// derived_indexes.h). The old versions stay until cleanup removes them, so time travel to a
// commit before the optimize still works. A write that lands while the optimize prepares wins:
// the optimize sees ReadSetChanged, reads the new head and tries again (kOptimizeAttemptsMax in
// all), so the concurrent write is never lost. Thread-safe as Graph is.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "engine/graph/graph.h"
#include "table/ann_index.h"

namespace omnigraph::engine {

// A compaction whose head moved meanwhile is prepared again at most this many times in all.
inline constexpr int kOptimizeAttemptsMax = 4;

struct OptimizeOptions {
  std::string branch = "main";
  std::optional<std::string> actor;
  table::AnnBuildOptions ann;
  // Runs after each attempt has planned its rewrites and before it commits them: the seam
  // where a test lands a rival write. Unset in production.
  std::function<void()> before_commit;
};

struct OptimizeTableRow {
  std::string type_key;  // The table key (`node:Person`).
  uint64_t fragments_removed = 0;
  uint64_t fragments_added = 0;
  // The table was rewritten by the optimize's commit.
  bool committed = false;
  // The table needed no compaction.
  bool skipped = false;
  // The table's version in the branch head after the optimize.
  uint64_t published_dataset_version = 0;
  // Derived kinds this optimize built, and those still missing (a build failed).
  std::vector<std::string> indexes_built;
  std::vector<std::string> pending_indexes;
};

struct OptimizeReport {
  std::string branch;
  // The commit published, when a table was compacted.
  std::optional<commit::Record> commit;
  std::vector<OptimizeTableRow> tables;  // In table-key order.
};

// Optimizes `options.branch`. BranchNotFound; RetriesExhausted when the head moved during every
// attempt; storage and corruption errors from reading the tables; a failed commit's status.
// Index builds never fail the call (they are reported as pending).
Result<OptimizeReport> Optimize(Graph& graph, const OptimizeOptions& options);

}  // namespace omnigraph::engine
