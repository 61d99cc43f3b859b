// The `merges` simulation scenario (docs/design/simulation.md "Merges"): seeded random branch
// creates and deletes, node and edge inserts, updates and deletes, and merges over up to five
// branches of a real graph, checked after every step against an independent model of three-way
// merge. Not thread-safe (one run at a time).
#pragma once

#include <cstdint>

#include "testing/sim_scenarios.h"

namespace omnigraph::testing {

// Runs seed `seed` of `merges` into `out` (violations, trace hash, counts).
void RunMergeScenario(uint64_t seed, SimRunResult& out);

}  // namespace omnigraph::testing
