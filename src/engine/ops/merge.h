// Three-way graph merge of one branch into another (docs/design/merge.md).
//
// Merge (below), over the graph handle (engine/graph/graph.h), captures the source head once — a
// precondition, not part of the arbitration — and the target head from its warm handle, finds their
// merge base (commit/merge_base.h), and then:
//   already up to date   the source head is an ancestor of the target head: nothing is written;
//   fast-forward         the target head is the base: one record on the target adopting the
//                        source's pins verbatim, with lineage naming the source head;
//   merged               per table — unchanged on the source: keep the target's; changed on the
//                        source only: adopt the source's version; changed on both: the per-entity
//                        three-way classification below, staged as one patch on the target's
//                        version. The source's net changes, as they apply to the target, are
//                        validated against the target head (engine/write/validate.h), and one
//                        record with lineage naming the source head is published.
// Per entity, against the base: changed on one side only → that side; the same change on both →
// it once; else a conflict — absent in the base and inserted on both with different rows
// `divergent_insert`, deleted on one side and updated on the other `delete_vs_update`, updated
// differently `divergent_update`. A validation failure of the merged result is one conflict of
// kind `orphan_edge`, `unique_violation`, `cardinality_violation` or
// `value_constraint_violation`. Any conflict: nothing is published.
// Publishing is the write path's conditional create on the target; a target that moved meanwhile
// is merged again against its new head, at most kMergeAttemptsMax times (then RetriesExhausted).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/status.h"
#include "commit/documents.h"
#include "engine/ops/progress.h"

namespace omnigraph::engine {

class Graph;

// Attempts of a merge whose target keeps moving before RetriesExhausted.
inline constexpr int kMergeAttemptsMax = 32;

struct MergeRequest {
  std::string source;
  std::string target = "main";
  std::optional<std::string> actor;
  // Receives the tables merged of the target's (engine/ops/progress.h).
  ProgressSink progress;
};

enum class MergeOutcome { kAlreadyUpToDate, kFastForward, kMerged, kConflicts };

struct MergeConflict {
  std::string entity_kind;  // "node" or "edge".
  std::string type_name;
  std::optional<std::string> entity_id;
  // divergent_insert, divergent_update, delete_vs_update, orphan_edge, unique_violation,
  // cardinality_violation, value_constraint_violation.
  std::string kind;
  std::string message;
  bool operator==(const MergeConflict&) const = default;
};

struct MergeResult {
  MergeOutcome outcome = MergeOutcome::kAlreadyUpToDate;
  // The record published (fast-forward and merged only).
  std::optional<std::string> commit_id;
  uint64_t seq = 0;
  int attempts = 0;
  std::string base_commit_id;
  // Commit records the merge-base search read, on the attempt that finished.
  uint64_t base_records_read = 0;
  // kConflicts: every conflict found, in table-key order then entity id order.
  std::vector<MergeConflict> conflicts;
  // The record published (fast-forward and merged only), for callers reporting the commit.
  std::optional<commit::Record> record;
  // The heads merged (of the attempt that finished), and the commits each has that the other
  // lacks, newer than the base (commit::MergeBase::a_only, b_only).
  std::string source_commit_id;
  std::string target_commit_id;
  uint64_t source_ahead = 0;
  uint64_t target_ahead = 0;
};

// Merges branch `request.source` into `request.target` of `graph`: already up to date, a
// fast-forward or a three-way merge publishing one record on the target through its warm handle;
// with conflicts (outcome kConflicts, every conflict listed) nothing is published.
// BranchNotFound for either branch; InvalidArgument for a branch merged into itself or a bad
// actor; Unsupported across a schema change, naming the schemas; RetriesExhausted when the
// target moved during every one of kMergeAttemptsMax attempts; VersionsReclaimed when the base's
// tables were reclaimed.
Result<MergeResult> Merge(Graph& graph, const MergeRequest& request);
// What Merge would do now, publishing and staging nothing (docs/design/merge.md "Preview"): the
// outcome against the two heads as they are (kConflicts with every conflict, as Merge finds
// them), the base, and how far each side is ahead. The errors of Merge, but for
// RetriesExhausted (a preview takes the heads once).
Result<MergeResult> PreviewMerge(Graph& graph, const MergeRequest& request);

// "already_up_to_date", "fast_forward", "merged", "conflicts".
const char* MergeOutcomeName(MergeOutcome outcome);

// A merge preview's answer (PreviewMerge): {source, target, dry_run: true, outcome,
// source_commit_id, target_commit_id, base_commit_id, source_ahead, target_ahead, conflicts}.
Json MergePreviewJson(const MergeRequest& request, const MergeResult& result);

// The conflicts as JSON objects {entity_kind, type_name, entity_id?, kind, message}.
Json MergeConflictsJson(const std::vector<MergeConflict>& conflicts);
// MergeConflicts naming the branches, the number of conflicts and each one, one per line.
Status MergeConflictsStatus(const MergeRequest& request,
                            const std::vector<MergeConflict>& conflicts);

}  // namespace omnigraph::engine
