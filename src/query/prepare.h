// Prepare: the one step that turns a parsed `.gq` file and a query name into what a run needs,
// for reads and mutations alike (docs/design/query-execution.md "Prepared queries"): the query
// selected by name, checked against one catalog, and — for a read query — planned. Everything
// here is pure: no table is read and nothing depends on parameter values, so a prepared query
// may be kept and run any number of times against snapshots with the same catalog
// (engine::PreparedQueries keeps them). A mutation has no read plan: its effects depend on the
// parameters and the rows it finds (plan/mutation.h plans them per run, an update by key as a
// lookup by id), so preparing one selects and checks it.
//
// The phases, each in its folder: parse/ (source text to a QueryFile), check/ (the typechecker),
// plan/ (read plans, mutation effects), exec/ (running a plan), text/ (full-text search).
#pragma once

#include <memory>
#include <optional>
#include <string_view>

#include "base/status.h"
#include "query/check/typecheck.h"
#include "query/parse/ast.h"
#include "query/plan/plan.h"
#include "schema/catalog.h"

namespace omnigraph::query {

// One prepared query. `decl` and `checked` point into `file`, `checked` and `plan` into
// `catalog`, which the entry holds alive: it is made once and never moved (PrepareQuery returns
// it behind a pointer).
struct PreparedQuery {
  std::shared_ptr<const schema::Catalog> catalog;
  QueryFile file;
  const QueryDecl* decl = nullptr;
  CheckedQuery checked;
  // A read query's plan; unset for a mutation, and for a read whose form the planner refuses
  // (the run then plans after binding its parameters, so that its errors come in the order an
  // unprepared run gives them).
  std::optional<Plan> plan;
};

// The query `name` of `file` (the only one when `name` is empty) checked against `catalog`, and
// planned when it is a read query. The errors of SelectQuery (an unknown name) and
// TypecheckQuery; InvalidArgument for a file that is a branch statement or `show all;` (they run
// on the graph or the settings, not as a query).
Result<std::unique_ptr<PreparedQuery>> PrepareQuery(QueryFile file, std::string_view name,
                                                    std::shared_ptr<const schema::Catalog> catalog);

}  // namespace omnigraph::query
