// The `sim` label: the CI seed budget over every scenario, the regression seeds, exact replay, and
// proof that each planted bug is caught within the budget (issue [17]).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "testing/sim_scenarios.h"

namespace omnigraph::testing {
namespace {

// Seeds per scenario in CI: 3 scenarios x 700 = 2,100 runs. OMNIGRAPH_SIM_SEEDS overrides.
constexpr uint64_t kCiSeedsPerScenario = 700;

uint64_t SeedsPerScenario() {
  if (const char* env = std::getenv("OMNIGRAPH_SIM_SEEDS")) return std::strtoull(env, nullptr, 10);
  return kCiSeedsPerScenario;
}

std::string FailureReport(const SimRunResult& run, PlantedBug bug) {
  std::string out = run.Summary() + "\n";
  for (size_t i = 0; i < run.violations.size() && i < 10; ++i) {
    out += "  violation: " + run.violations[i] + "\n";
  }
  out += "OMNIGRAPH_SIM_SEED=" + std::to_string(run.seed) + "\n";
  out += "replay: " + ReplayCommand(run.scenario, run.seed, bug);
  return out;
}

void RunSeeds(const std::string& scenario) {
  const uint64_t seeds = SeedsPerScenario();
  int failed = 0;
  for (uint64_t seed = 1; seed <= seeds; ++seed) {
    Result<SimRunResult> run = RunSimulation(scenario, seed);
    ASSERT_TRUE(run.ok()) << run.status().ToString();
    if (!run->passed) {
      ++failed;
      ADD_FAILURE() << FailureReport(*run, PlantedBug::kNone);
    }
  }
  std::printf("%s: %llu runs passed, %d failed\n", scenario.c_str(),
              static_cast<unsigned long long>(seeds - failed), failed);
}

TEST(SimTest, PublishersOnOneStreamLoseAndDuplicateNothing) { RunSeeds("publishers"); }
TEST(SimTest, BranchesRacingCreatesAndDeletesLoseAndDuplicateNothing) { RunSeeds("branches"); }
TEST(SimTest, RetentionAndRepairDuringPublicationKeepWhatCommitsNeed) { RunSeeds("maintenance"); }

TEST(SimTest, ReplayedSeedReproducesItsRunExactly) {
  for (const std::string& scenario : SimScenarioNames()) {
    for (uint64_t seed = 1; seed <= 15; ++seed) {
      Result<SimRunResult> a = RunSimulation(scenario, seed);
      Result<SimRunResult> b = RunSimulation(scenario, seed);
      ASSERT_TRUE(a.ok() && b.ok());
      EXPECT_EQ(a->trace_hash, b->trace_hash) << scenario << " seed " << seed;
      EXPECT_EQ(a->Summary(), b->Summary());
      EXPECT_EQ(a->violations, b->violations);
    }
  }
  // Different seeds explore different runs.
  Result<SimRunResult> one = RunSimulation("publishers", 1);
  Result<SimRunResult> two = RunSimulation("publishers", 2);
  ASSERT_TRUE(one.ok() && two.ok());
  EXPECT_NE(one->trace_hash, two->trace_hash);
}

TEST(SimTest, RegressionSeedsStillBehave) {
  std::ifstream in(OMNIGRAPH_SIM_REGRESSIONS);
  ASSERT_TRUE(in.good()) << OMNIGRAPH_SIM_REGRESSIONS;
  std::stringstream text;
  text << in.rdbuf();
  Result<std::vector<RegressionSeed>> seeds = ParseRegressionSeeds(text.str());
  ASSERT_TRUE(seeds.ok()) << seeds.status().ToString();
  for (const RegressionSeed& r : *seeds) {
    PlantedBugScope planted(r.bug);
    Result<SimRunResult> run = RunSimulation(r.scenario, r.seed);
    ASSERT_TRUE(run.ok()) << run.status().ToString();
    if (r.bug == PlantedBug::kNone) {
      EXPECT_TRUE(run->passed) << FailureReport(*run, r.bug);
    } else {
      EXPECT_FALSE(run->passed) << "planted bug " << PlantedBugName(r.bug) << " not caught by "
                                << r.scenario << " seed " << r.seed;
    }
  }
}

// Each planted bug must be caught within the CI seed budget (all scenarios, seed by seed).
void ExpectCaught(PlantedBug bug) {
  PlantedBugScope planted(bug);
  const uint64_t seeds = SeedsPerScenario();
  int runs = 0;
  for (uint64_t seed = 1; seed <= seeds; ++seed) {
    for (const std::string& scenario : SimScenarioNames()) {
      Result<SimRunResult> run = RunSimulation(scenario, seed);
      ASSERT_TRUE(run.ok()) << run.status().ToString();
      ++runs;
      if (!run->passed) {
        std::printf("planted bug %s caught after %d runs: %s\n  first violation: %s\n  %s\n",
                    std::string(PlantedBugName(bug)).c_str(), runs, run->Summary().c_str(),
                    run->violations.front().c_str(), ReplayCommand(scenario, seed, bug).c_str());
        return;
      }
    }
  }
  ADD_FAILURE() << "planted bug " << PlantedBugName(bug) << " survived " << runs << " runs";
}

TEST(SimPlantedBugTest, SkippingTheReadBackOnExistsIsCaught) {
  ExpectCaught(PlantedBug::kSkipReadbackOnExists);
}
TEST(SimPlantedBugTest, TakingAnAbsentReadAfterUnknownAsNoEffectIsCaught) {
  ExpectCaught(PlantedBug::kAbsentAfterUnknownIsNoEffect);
}
TEST(SimPlantedBugTest, AcceptingACheckpointWithoutValidationIsCaught) {
  ExpectCaught(PlantedBug::kUnvalidatedCheckpoint);
}
TEST(SimPlantedBugTest, RetentionRootingOnlyTheRecordsOwnPinsIsCaught) {
  ExpectCaught(PlantedBug::kRetentionRecordPins);
}

}  // namespace
}  // namespace omnigraph::testing
