// optimize (optimize.h; docs/design/engine.md "Optimize").
#include "engine/ops/optimize.h"

#include <algorithm>
#include <map>

#include "engine/write/derived_indexes.h"
#include "engine/write/write.h"

namespace omnigraph::engine {

namespace {

// Whether a version holds more fragments than its live rows need, or any deletion vector: what
// a rewrite as full fragments improves. A compacted version never qualifies again.
bool NeedsCompaction(const table::TableManifest& manifest, uint64_t fragment_rows_max) {
  uint64_t live = 0;
  bool deletions = false;
  for (const table::FragmentEntry& f : manifest.fragments) {
    live += f.live_rows();
    deletions = deletions || f.deletion.has_value();
  }
  const uint64_t needed = (live + fragment_rows_max - 1) / fragment_rows_max;
  return deletions || manifest.fragments.size() > needed;
}

// The rewrites one attempt commits: by table key, the live rows, and the fragments they replace.
struct Compaction {
  std::map<std::string, TableChange> changes;
  std::map<std::string, uint64_t> fragments_removed;
};

Result<Compaction> PlanCompaction(Graph& graph, const Snapshot& head) {
  Compaction out;
  const uint64_t rows_max = graph.tables().fragment_rows_max();
  for (const auto& [identity, t] : head.state().tables) {
    OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::TableVersion> version,
                               head.Table(t.pin.table_key));
    if (!NeedsCompaction(version->manifest(), rows_max)) continue;
    TableChange change;
    change.op = TableChange::Op::kOverwrite;
    OMNIGRAPH_ASSIGN_OR_RETURN(change.rows, version->ScanAll(table::ScanOptions{}));
    out.fragments_removed[t.pin.table_key] = version->manifest().fragments.size();
    out.changes.emplace(t.pin.table_key, std::move(change));
  }
  return out;
}

// One attempt: plans on the head it reads and, when a table needs it, commits the rewrites as a
// strict write planned there. nullopt when the head moved before the commit (ReadSetChanged).
Result<std::optional<WriteResult>> TryCompact(Graph& graph, const OptimizeOptions& options,
                                              Compaction& planned) {
  OMNIGRAPH_ASSIGN_OR_RETURN(Snapshot head, graph.SnapshotOfBranch(options.branch));
  OMNIGRAPH_ASSIGN_OR_RETURN(planned, PlanCompaction(graph, head));
  if (planned.changes.empty()) return std::optional<WriteResult>(WriteResult{});
  WriteRequest request;
  request.branch = options.branch;
  request.changes = std::move(planned.changes);
  request.actor = options.actor;
  request.strict = true;
  request.rewrite = true;
  request.planned_schema = head.state().schema;
  request.planned_on = std::move(head);
  request.summary = "optimize";
  if (options.before_commit) options.before_commit();
  Result<WriteResult> written = Write(graph, request);
  if (written.ok()) return std::optional<WriteResult>(std::move(*written));
  if (written.status().code() == Code::kReadSetChanged) return std::optional<WriteResult>();
  return written.status();
}

// The report's row of one table of the final head, building the derived objects it lacks.
Result<OptimizeTableRow> TableRow(const Snapshot& head, const commit::TableState& t,
                                  const std::map<std::string, uint64_t>& compacted,
                                  const table::AnnBuildOptions& ann) {
  OptimizeTableRow row;
  row.type_key = t.pin.table_key;
  row.published_dataset_version = t.pin.target_version;
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::TableVersion> version,
                             head.Table(t.pin.table_key));
  auto it = compacted.find(t.pin.table_key);
  row.committed = it != compacted.end();
  row.skipped = !row.committed;
  if (row.committed) {
    row.fragments_removed = it->second;
    row.fragments_added = version->manifest().fragments.size();
  }
  DerivedBuildOptions build;
  build.ann = ann;
  DerivedBuildOutcome outcome =
      BuildMissingDerived(head.catalog().FindByTableKey(t.pin.table_key), *version, build);
  row.indexes_built = std::move(outcome.built);
  row.pending_indexes = std::move(outcome.pending);
  return row;
}

}  // namespace

Result<OptimizeReport> Optimize(Graph& graph, const OptimizeOptions& options) {
  OptimizeReport report;
  report.branch = options.branch;
  std::optional<WriteResult> written;
  Compaction planned;
  for (int attempt = 1; !written; ++attempt) {
    if (attempt > kOptimizeAttemptsMax) {
      return Status(Code::kRetriesExhausted,
                    "branch '" + options.branch + "' moved during each of " +
                        std::to_string(kOptimizeAttemptsMax) + " optimize attempts");
    }
    OMNIGRAPH_ASSIGN_OR_RETURN(written, TryCompact(graph, options, planned));
  }
  // The head the rows describe: the optimize's own commit when it made one (a later write may
  // have landed since; its versions are that writer's), else the head it found unchanged.
  Result<Snapshot> head = written->commit_id.empty() ? graph.SnapshotOfBranch(options.branch)
                                                     : graph.SnapshotAtCommit(written->commit_id);
  OMNIGRAPH_RETURN_IF_ERROR(head.status());
  if (!written->commit_id.empty()) report.commit = std::move(written->record);
  for (const auto& [identity, t] : head->state().tables) {
    OMNIGRAPH_ASSIGN_OR_RETURN(OptimizeTableRow row,
                               TableRow(*head, t, planned.fragments_removed, options.ann));
    report.tables.push_back(std::move(row));
  }
  std::sort(
      report.tables.begin(), report.tables.end(),
      [](const OptimizeTableRow& a, const OptimizeTableRow& b) { return a.type_key < b.type_key; });
  return report;
}

}  // namespace omnigraph::engine
