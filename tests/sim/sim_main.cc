// omnigraph-sim: runs simulation scenarios of the commit protocol over a range of seeds
// (docs/design/simulation.md).
//
//   omnigraph-sim --scenario NAME|all --seeds N [--seed S] [--bug NAME] [--verbose]
//   omnigraph-sim --help     (the usage and the scenario names, on stdout; exit status 0)
//
// Seeds S .. S+N-1 run for each scenario (S defaults to $OMNIGRAPH_SIM_SEED, else 1). A failing
// run prints its violations, `OMNIGRAPH_SIM_SEED=<seed>` and a one-line replay command. The last
// line counts the runs that passed and failed; the exit status is 1 when any failed.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "testing/sim_scenarios.h"

namespace {

using omnigraph::testing::PlantedBug;

constexpr const char* kUsage =
    "usage: omnigraph-sim --scenario NAME|all --seeds N [--seed S] [--bug NAME] [--verbose]\n";

int Usage(const char* why) {
  std::fprintf(stderr, "omnigraph-sim: %s\n%s", why, kUsage);
  return 2;
}

int Help() {
  std::printf("%s", kUsage);
  std::printf(
      "\nRuns seeds S .. S+N-1 of each scenario (S defaults to $OMNIGRAPH_SIM_SEED, else 1);\n"
      "a failing run prints its violations and a replay command. Exit status 1 when any run\n"
      "failed, 2 on a usage error.\n\nscenarios:");
  for (const std::string& name : omnigraph::testing::SimScenarioNames()) {
    std::printf(" %s", name.c_str());
  }
  std::printf("\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string scenario = "all";
  uint64_t seeds = 1;
  uint64_t first = 1;
  if (const char* env = std::getenv("OMNIGRAPH_SIM_SEED")) first = std::strtoull(env, nullptr, 10);
  PlantedBug bug = PlantedBug::kNone;
  bool verbose = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    if (arg == "--help" || arg == "-h") {
      return Help();
    } else if (arg == "--scenario") {
      const char* v = value();
      if (!v) return Usage("--scenario needs a name");
      scenario = v;
    } else if (arg == "--seeds") {
      const char* v = value();
      if (!v) return Usage("--seeds needs a count");
      seeds = std::strtoull(v, nullptr, 10);
    } else if (arg == "--seed") {
      const char* v = value();
      if (!v) return Usage("--seed needs a number");
      first = std::strtoull(v, nullptr, 10);
    } else if (arg == "--bug") {
      const char* v = value();
      if (!v) return Usage("--bug needs a name");
      auto parsed = omnigraph::testing::ParsePlantedBug(v);
      if (!parsed.ok()) return Usage(parsed.status().message().c_str());
      bug = *parsed;
    } else if (arg == "--verbose" || arg == "-v") {
      verbose = true;
    } else {
      return Usage(("unknown argument " + arg).c_str());
    }
  }
  std::vector<std::string> scenarios = omnigraph::testing::SimScenarioNames();
  if (scenario != "all") scenarios = {scenario};
  omnigraph::testing::PlantedBugScope planted(bug);
  int passed = 0, failed = 0;
  for (const std::string& name : scenarios) {
    for (uint64_t seed = first; seed < first + seeds; ++seed) {
      auto run = omnigraph::testing::RunSimulation(name, seed);
      if (!run.ok()) return Usage(run.status().ToString().c_str());
      if (run->passed) {
        ++passed;
        if (verbose) std::printf("%s\n", run->Summary().c_str());
        continue;
      }
      ++failed;
      std::printf("%s\n", run->Summary().c_str());
      for (size_t i = 0; i < run->violations.size() && i < 10; ++i) {
        std::printf("  violation: %s\n", run->violations[i].c_str());
      }
      if (verbose) {
        for (const std::string& event : run->trace_tail)
          std::printf("  trace: %s\n", event.c_str());
      }
      std::printf("OMNIGRAPH_SIM_SEED=%llu\n", static_cast<unsigned long long>(seed));
      std::printf("replay: %s\n", omnigraph::testing::ReplayCommand(name, seed, bug).c_str());
    }
  }
  std::printf("omnigraph-sim: %d runs passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
