// Schema apply: plans a new .pg schema against main's accepted one and applies it as one commit
// (docs/design/engine.md "Schema apply"): PlanSchema and ApplySchema over the graph handle
// (engine/graph/graph.h); the implementation is engine/ops/schema_apply.cc.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "schema/planner.h"

namespace omnigraph::engine {

// A schema apply (OmniGraph's schema plan and apply; docs/design/engine.md "Schema apply").
struct SchemaApplyOptions {
  // Drops become hard with allow_data_loss (see the planner).
  schema::PlanOptions plan;
  // Schema changes are accepted only on main (docs/design/overview.md "Protocols"); any other
  // branch is refused.
  std::string branch = "main";
  // When set, main's head must be this commit (PreconditionFailed otherwise).
  std::optional<std::string> expected_head;
  std::optional<std::string> actor;
};

struct SchemaApplyResult {
  schema::MigrationPlan plan;
  // False for a no-op plan: nothing was written and no commit was published.
  bool applied = false;
  // The commit the apply published, or main's unchanged head for a no-op.
  std::string commit_id;
  uint64_t seq = 0;
  // Table keys (new names) whose columns changed and were staged as a rewritten version.
  std::vector<std::string> rewritten_tables;
};

class Graph;

// The migration plan from main's accepted schema to `new_source` (reads main's head and its
// schema archive; writes nothing). InvalidArgument when the source does not parse or check.
Result<schema::MigrationPlan> PlanSchema(Graph& graph, std::string_view new_source,
                                         const schema::PlanOptions& options = {});
// Plans and applies `new_source` on main of `graph` as one commit (docs/design/engine.md "Schema
// apply"). Unsupported for another branch or an unsupported plan (the planner's messages), both
// writing nothing; a no-op plan publishes nothing. SchemaBoundary (kind Conflict), writing
// nothing, while any branch but main exists. A strict write: ReadSetChanged when main moves
// while the apply is prepared, PreconditionFailed for a stale expected head.
Result<SchemaApplyResult> ApplySchema(Graph& graph, std::string_view new_source,
                                      const SchemaApplyOptions& options = {});

}  // namespace omnigraph::engine
