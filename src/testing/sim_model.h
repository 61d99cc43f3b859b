// The simulator's model of what the actors did (operation outcomes, retention plans) and the
// oracles that judge the store against it. Internal to src/testing. The model is shared by the
// actors of one world; only the actor holding the turn touches it, so it needs no lock.
#pragma once

#include <string>
#include <vector>

#include "commit/retention.h"
#include "testing/sim_world.h"

namespace omnigraph::testing {

// Checkpoint interval of every simulated stream: small, so runs cross many boundaries.
inline constexpr uint64_t kSimCheckpointInterval = 4;
// The record member that carries an operation id.
inline constexpr const char* kOpIdMember = "sim_op";

enum class OpOutcome { kPending, kAcked, kFailed, kInDoubt, kCrashed };

// One publish an actor attempted: the pin it meant to set and how the publish ended.
struct OpEntry {
  std::string op_id;
  std::string branch;
  uint64_t table = 0;
  uint64_t staged_version = 0;
  OpOutcome outcome = OpOutcome::kPending;
  // Acknowledged commits: where the publisher was told its commit landed.
  std::string stream_key;
  std::string commit_id;
  uint64_t seq = 0;
  std::string status;
};

struct SimModel {
  std::vector<OpEntry> ops;
  std::vector<commit::RetentionPlan> plans;
  // Violations found while the run was going (the in-doubt oracle).
  std::vector<std::string> violations;
};

struct OracleCounts {
  int streams = 0;
  int records = 0;
  int plans_checked = 0;
};

// Runs every end-of-run oracle against the world's backing store (no faults); appends what it
// finds to `violations`.
OracleCounts CheckOracles(SimWorld& world, const SimModel& model,
                          std::vector<std::string>& violations);

commit::StreamOptions SimStreamOptions();

}  // namespace omnigraph::testing
