// Runs a parsed GQT case (gqt_case.h) through the engine on a fresh graph (docs/design/gqt.md).
//
// The schema initialises the graph, the seed is one merge load on main, then every step runs in
// order: a query through engine::RunRead, a mutation (or a branch statement) through
// engine::Mutate, a restart drops the graph and opens it again from the same store. Each
// expectation is compared honestly: rows by the column's type, shape by name and type, counts,
// merge outcomes, error fragments. Not thread-safe (one case at a time per call).
#pragma once

#include <string>

#include "gqt_case.h"

namespace omnigraph::gqt {

enum class StoreKind { kMemory, kLocal };
const char* StoreKindName(StoreKind kind);

struct RunOutcome {
  bool passed = false;
  // Each failed step, one per line: "line N (step at line M): what differs".
  std::string failure;
};

// Runs `c` on a fresh graph on `kind` (kLocal under `scratch_dir`, which must be empty).
RunOutcome RunCase(const Case& c, StoreKind kind, const std::string& scratch_dir);

}  // namespace omnigraph::gqt
