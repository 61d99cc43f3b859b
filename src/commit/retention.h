// Retention planning over record streams (D9, D10 in docs/design/overview.md;
// docs/design/retention.md).
//
// The plan names what must survive: the root set of table pins (every pin in the fold at each
// retained commit on every live branch, every live branch's fork checkpoint, checkpoint 0, and
// everything of every stream younger than the grace period, named or not) and, per stream, the
// oldest retained seq (the horizon). A branch's retained commits are its own: its fork checkpoint
// stands in for the parent's history, so a branch never holds its parent's horizon down. It also
// names the checkpoints nothing needs any more (never checkpoint 0 or a fork checkpoint). The
// commit layer deletes only those checkpoints; the engine hands the pin set to the table layer,
// which deletes unreachable table objects. Records are never deleted. Thread-safe (no shared
// state).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "commit/branches.h"
#include "commit/stream.h"

namespace omnigraph::commit {

inline constexpr int64_t kDefaultGraceMicros = 3600LL * 1000 * 1000;

struct RetentionOptions {
  // Keep the newest `keep` commits of every live branch, counting only the branch's own commits
  // (a branch with fewer keeps them all and its fork checkpoint, never its parent's records).
  std::optional<uint64_t> keep;
  // Also keep commits created less than this long ago.
  std::optional<int64_t> older_than_micros;
  // Nothing younger than this (by the store's last-modified time) is ever deleted.
  int64_t grace_micros = kDefaultGraceMicros;
  StreamOptions stream;
};

// One table version, as the table layer names it.
struct PinRef {
  TableId table;
  uint64_t staged_version = 0;
  auto operator<=>(const PinRef&) const = default;
};

struct RetentionPlan {
  std::set<PinRef> keep;
  // Per stream key: the oldest retained seq (commits below it may have lost their versions);
  // UINT64_MAX for a stream nothing retains.
  std::map<std::string, uint64_t> horizons;
  // Per stream key: the newest retained seq (the head of a live branch, the end of a young stream).
  std::map<std::string, uint64_t> retained_through;
  // Checkpoint objects no retained commit needs (candidates; ApplyCheckpointRetention re-checks).
  std::vector<std::string> deletable_checkpoints;
  // Streams inside the grace period: everything of theirs is kept.
  std::vector<std::string> young_streams;
  int64_t computed_at_micros = 0;
};

// Computes the plan. InvalidArgument unless `keep` or `older_than_micros` is set (keep >= 1).
Result<RetentionPlan> PlanRetention(const storage::Runtime& runtime,
                                    const RetentionOptions& options);

struct CheckpointCleanup {
  std::vector<std::string> deleted;
  uint64_t bytes_removed = 0;
  // Candidates spared because they were younger than the grace period or needed again after
  // the roots were recomputed.
  std::vector<std::string> spared;
};

// Writes every stream's horizon (before anything is reclaimed, so forks below it are refused),
// then deletes the plan's deletable checkpoints: candidates younger than the grace period are
// dropped, the plan is recomputed, and only candidates still deletable are removed.
Result<CheckpointCleanup> ApplyCheckpointRetention(const storage::Runtime& runtime,
                                                   const RetentionOptions& options,
                                                   const RetentionPlan& plan);

// What became of a table version staged against (stream, seq) (D9).
enum class StagedFate {
  kMayStillPublish,  // Record seq + 1 does not exist yet and the stream is open.
  kPublished,        // Record seq + 1 pins it.
  kNeverPublished,   // The stream is retired, or record seq + 1 exists and pins something else.
};
Result<StagedFate> FateOfStagedVersion(const storage::Runtime& runtime, std::string_view stream_key,
                                       uint64_t staged_against_seq, const PinRef& version);
// D9: an unpublished staged version is provably dead (kNeverPublished).
Result<bool> StagedVersionIsDead(const storage::Runtime& runtime, std::string_view stream_key,
                                 uint64_t staged_against_seq, const PinRef& version);

}  // namespace omnigraph::commit
