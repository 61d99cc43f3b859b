// Simulation scenarios of the commit protocol, their model and their oracles
// (docs/design/simulation.md).
//
// A scenario builds a SimWorld from a seed — a fault profile drawn from the seed (swarm testing),
// a genesis, and a few actors: publishers that publish one-pin commits each tagged with a unique
// operation id, a branch admin that creates and deletes branches, retention and repair. After the
// run every deferred write has landed, and the oracles check the store against the model: streams
// contiguous with valid parent chains; every acknowledged commit present exactly once; no commit
// whose publish returned a definite failure visible; a crashed or in-doubt one present at most
// once; reads at every seq equal to the model's fold; every retention plan keeping every pin of
// the fold at every commit it claims to retain; fork checkpoints equal to the parent's fold; and
// PublicationInDoubt only when every conditional create of that record returned Unknown.
//
// Planted bugs (commit/testing_hooks.h) are switched on by PlantedBugScope; one at a time per
// process. Not thread-safe: run one simulation at a time per process.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "testing/sim_world.h"

namespace omnigraph::testing {

// The scenarios `omnigraph-sim --scenario NAME` knows, in the order `all` runs them.
std::vector<std::string> SimScenarioNames();

struct SimRunResult {
  std::string scenario;
  uint64_t seed = 0;
  bool passed = false;
  // What the oracles found, one line each.
  std::vector<std::string> violations;
  uint64_t trace_hash = 0;
  RunStats stats;
  FaultProfile faults;
  int ops_acked = 0;
  int ops_failed = 0;
  int ops_in_doubt = 0;
  int ops_crashed = 0;
  int streams = 0;
  int records = 0;
  int plans_checked = 0;
  // graph_writes: seqs whose tables were compared with the model, and record pins opened.
  int graph_seqs = 0;
  int pins_opened = 0;
  int change_sets = 0;
  // group_commit, idempotency: records of more than one member, members with an idempotency key,
  // and answers replayed from a key's first record.
  int batches = 0;
  int keyed_members = 0;
  int replays = 0;
  // merges: how many merges ended in each outcome (already_up_to_date, fast_forward, ...).
  std::map<std::string, int> outcome_counts;
  std::vector<std::string> trace_tail;

  // One line: scenario, seed, pass/fail, trace hash and counts.
  std::string Summary() const;
};

struct SimModel;

// Runs one (scenario, seed). InvalidArgument for an unknown scenario; oracle failures are
// reported in the result, not as a status. `tamper`, when set, edits the model after the run and
// before the oracles judge it (tests use it to prove that a broken model is caught).
Result<SimRunResult> RunSimulation(std::string_view scenario, uint64_t seed,
                                   const std::function<void(SimModel&)>& tamper = {});

enum class PlantedBug {
  kNone,
  kSkipReadbackOnExists,
  kAbsentAfterUnknownIsNoEffect,
  kUnvalidatedCheckpoint,
  kRetentionRecordPins,
  kGapIsEnd,
  kChangeSetUpsertsAsInserts,
  kMergeBaseFirstParentOnly,
  kMergeSourceWins,
  kMergeAdoptsSourceTable,
  kGroupCommitKeepsFailedMember,
  kKeyFenceIgnoresRecord,
};
std::vector<PlantedBug> AllPlantedBugs();
std::string_view PlantedBugName(PlantedBug bug);
// InvalidArgument for an unknown name ("none" is kNone).
Result<PlantedBug> ParsePlantedBug(std::string_view name);

// Turns one planted bug on for its lifetime (every switch off again afterwards).
class PlantedBugScope {
 public:
  explicit PlantedBugScope(PlantedBug bug);
  ~PlantedBugScope();
  PlantedBugScope(const PlantedBugScope&) = delete;
  PlantedBugScope& operator=(const PlantedBugScope&) = delete;
};

// The one-line command that replays a run.
std::string ReplayCommand(std::string_view scenario, uint64_t seed, PlantedBug bug);

// A seed that once failed (or that a planted-bug test relies on), kept in
// tests/sim/regressions.txt: `scenario seed [bug] # note`. Without a bug the run must pass; with
// one it must be caught.
struct RegressionSeed {
  std::string scenario;
  uint64_t seed = 0;
  PlantedBug bug = PlantedBug::kNone;
};
// Parses the regression list; InvalidArgument naming the line for a malformed entry.
Result<std::vector<RegressionSeed>> ParseRegressionSeeds(std::string_view text);

}  // namespace omnigraph::testing
