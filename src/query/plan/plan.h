// The read-query plan: everything decided about a checked read query before a table is read —
// variable order, which filters are pushed into which variable's candidates, how each variable's
// candidates are found (key lookup, table scan with predicates, every row), the traversal order
// and which end each traversal starts from, where each remaining filter runs, the anti-joins of
// `not { }` blocks, and the output stages (aggregate, order, limit, projection).
// docs/design/query-execution.md "The plan" describes every operator.
//
// PlanQuery builds a Plan from a CheckedQuery; the executor (executor.h) runs it; RenderPlan
// prints it as text (what `explain` prints, and what the golden `.qtest` `plan` sections
// compare). A plan depends only on the query and the schema, never on data or parameter values,
// so its text is stable. The few choices that depend on data are made by the operators at run
// time and the text says so: a cross join binds its variables smallest candidate set first, and
// a scan that can push no predicate (no constant converts to the column type) reads every row.
//
// Operators are plain structs, one per kind, held in a std::variant: a new operator is a new
// struct, a line in the variant, a render case (plan_render.cc) and a run function (exec/),
// without touching the others. Pointers point into the CheckedQuery (and through it the
// QueryDecl and the Catalog) given to PlanQuery, which must outlive the plan. Plain values;
// thread-compatible.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "base/status.h"
#include "query/check/typecheck.h"
#include "query/parse/ast.h"
#include "schema/catalog.h"

namespace omnigraph::query {

// A condition on rows: a filter clause (`left op right`, resolved to `kind`), or one property
// match `prop: value` of a binding of the variable `var` (an equality, or membership for a list
// property).
struct PlanCond {
  const Filter* filter = nullptr;
  const PropMatch* match = nullptr;
  std::string var;  // The variable a match constrains (its frame name).
  FilterKind kind = FilterKind::kCompare;
  CompOp op = CompOp::kEq;
  std::vector<std::string> vars;  // The frame variables it reads, sorted, without duplicates.
};

// How the candidates of one node variable are found.
enum class AccessMethod : uint8_t {
  kAll,        // No constraint: every row of the type, and no candidate list is kept.
  kKeyLookup,  // Every key property fixed by `=` to a constant: derive the id, look it up.
  kScan,       // Some constraints become table predicates (the scan skips fragments by them).
  kFilter,     // Every row, checked against the constraints.
};

// The candidates of a node variable a scope introduces: the rows of `type` that satisfy every
// constraint (its binding's property matches and the filters on it alone, pushed down), computed
// once per run of the scope, the first time a step needs them. Every constraint is re-checked on
// the rows the method finds, so the method never changes a result.
struct NodeAccess {
  std::string var;
  const schema::TypeDef* type = nullptr;
  std::vector<PlanCond> conds;
  AccessMethod method = AccessMethod::kAll;
  // Constraints comparing a scalar property to a constant: a null constant matches nothing.
  std::vector<size_t> constants;
  // kKeyLookup: per key property (type order), the constraint that fixes it.
  std::vector<size_t> key_conds;
  // kScan: the constraints offered to the scan as predicates (=, <, <=, >, >=); each becomes one
  // when its constant converts exactly to the column type.
  std::vector<size_t> pushdown;
};

// ---- Match operators: each transforms the frame (the rows bound so far, one column per
// variable) of its scope.

// Keeps the rows that satisfy every condition.
struct FilterStep {
  std::vector<PlanCond> conds;
};

// Binds each of `vars` (all unbound) by a cross product with its candidates, the smallest
// candidate set first (decided at run time; ties in `vars` order), applying each of `filters`
// as soon as the variables it reads are bound.
struct CrossJoinStep {
  std::vector<std::string> vars;
  std::vector<PlanCond> filters;
};

// One traversal clause, oriented as it runs: from `start` (bound) to `other`, walking
// `direction` (the checked direction, reversed when it starts from the clause's destination).
// When `bind_other` the other end is introduced, restricted to its candidates; otherwise it is
// bound and only rows whose two ends connect survive.
struct TraversalEnds {
  const CheckedTraversal* traversal = nullptr;
  std::string start;
  std::string other;
  const schema::TypeDef* other_type = nullptr;
  Direction direction = Direction::kOut;
  bool from_src = true;
  bool bind_other = true;
};

// A traversal with an edge variable: one row per edge (parallel edges distinct; an undirected
// walk emits a self-loop once), binding `edge_var` to the edge.
struct ExpandEdgesStep {
  TraversalEnds ends;
  std::string edge_var;
};

// A traversal without an edge variable: the nodes reachable from each start row by the
// breadth-first search of docs/design/query-execution.md, emitted at hops [min_hops, max_hops]
// (set semantics; a single hop when the two end types differ).
struct ReachStep {
  TraversalEnds ends;
  uint32_t min_hops = 1;
  uint32_t max_hops = 1;
};

// `not { }`: runs the block's scope (Plan::scopes[scope]) on a copy of the frame and drops the
// rows for which it found a match. Skipped when the frame has no rows.
struct AntiJoinStep {
  size_t scope = 0;
};

// A subquery predicate (`exists { }`, `count { } op e`, `sum($v.p) { } op e`): runs the block's
// scope on a copy of the frame, correlated as an anti join, and keeps the rows for which it
// found a match (exists), or whose count of inner rows, or sum of `block->sum_arg` over them (0
// for none; nulls add nothing), compares with `block->threshold` (evaluated on the outer row).
struct SubqueryStep {
  size_t scope = 0;
  const Negation* block = nullptr;
};

using MatchStep =
    std::variant<FilterStep, CrossJoinStep, ExpandEdgesStep, ReachStep, AntiJoinStep, SubqueryStep>;

// The match of one scope: the top-level match or one `not { }` block.
struct ScopePlan {
  std::vector<NodeAccess> access;  // The node variables it introduces, in introduction order.
  std::vector<MatchStep> steps;
  // When the scope cannot run (a search form): the error it returns when it runs. A block's
  // scope only runs when its outer frame has rows, so the error cannot be raised earlier.
  Status failure;
};

// ---- Output operators, in order, over the frame of the top-level scope.

// One sort key: an expression over the frame, or (`projection` >= 0) a projected column by alias.
struct SortKey {
  const Expr* expr = nullptr;
  int projection = -1;
  bool descending = false;
};

// Orders the frame rows by `keys`, then by the ids of `ties` (every named variable, by name):
// the total order. `limit`, when set, lets it sort only the first rows.
struct SortStep {
  std::vector<SortKey> keys;
  std::vector<std::string> ties;
  std::optional<uint64_t> limit;
};

// How `nearest` finds its rows. Exact: every frame row is measured (brute force) — the reference
// answer. Indexed (a leading distance with a limit): when the candidates are many
// (ExecOptions::nearest_exact_max) and the version has an ANN index of the property
// (table/ann_index.h), the index, restricted to the candidates by an id selector and probing
// more lists the fewer they are, picks the k nearest rows, which are then measured exactly;
// otherwise exact (docs/design/query-execution.md "Vector search").
enum class NearestMethod : uint8_t { kExact, kIndexed };

// Ranks the frame rows by `nearest($var.prop, query)` (`expr`), the squared L2 distance between the
// row's vector and the query vector (docs/design/query-execution.md "Vector search"). It runs
// after the whole match, so property filters, traversals and negation have already restricted
// the candidates: the result is the k nearest among the matching rows. Rows whose vector is null
// have no distance and are dropped. When the distance is the leading order key (`leading`), it
// keeps only the rows at most as far as the `k`-th nearest (ties at that distance kept, so the
// order that follows still breaks them by id).
struct NearestStep {
  const Expr* expr = nullptr;
  std::string var;
  const schema::PropertyDef* prop = nullptr;
  NearestMethod method = NearestMethod::kExact;
  bool leading = false;
  std::optional<uint64_t> k;
};

// Keeps the frame rows that `bm25(...)` (`expr`, an order key) scores: rows whose text holds
// at least one query term. A text ranking retrieves matching rows, as a nearest ranking drops
// rows without a vector (docs/design/fulltext.md "Ordering").
struct Bm25Step {
  const Expr* expr = nullptr;
};

// Keeps the first `count` rows.
struct LimitStep {
  uint64_t count = 0;
};

// Evaluates the projections on the ordered frame rows: the result rows.
struct ProjectStep {
  std::vector<const Projection*> columns;
};

// One result column of an aggregate query: a group key, or an aggregate of `expr`.
struct AggregateColumn {
  const Projection* projection = nullptr;
  bool aggregate = false;
  AggFunc func = AggFunc::kCount;
  const Expr* expr = nullptr;  // The argument of an aggregate, or the group key.
};

// Groups the frame rows by the non-aggregate columns and computes the aggregates: the result
// rows. Column at a time: rows are grouped first by the dense indices of `by` (the variables
// the group keys refer to, by name), then those entity groups merged by key value; groups come
// in ascending order of the smallest tuple of `by` ids among their rows — the tie-break after
// grouping (an aggregated-away variable takes no part). An all-aggregate query over no rows
// gives one row.
//
// `adjacency`: the whole match was one all-rows start `$a` and one single-hop traversal binding
// every row of `$b`, `by` is [$b] and every aggregate counts `$a`: the counts are the number of
// distinct `$a` neighbours of each `$b` in the adjacency, and no frame row is made (the planner
// removes the match's steps; docs/design/query-execution.md).
//
// `keys_separate`: no two entity groups can share their key values — each `by` variable is a
// key column whole, by its id, or by every @key property of its node type (keys are never null
// and a keyed node's id is derived from them) — so the entity groups are the result groups and
// nothing is merged. `top`: with separate keys, an order whose leading columns are aggregates
// and a limit k, only the groups whose leading aggregates are at least as good as the k-th best
// (ties with it kept, so the order's later columns and the group order still decide) have their
// keys evaluated and become result rows (docs/design/query-execution.md).
struct AggregateTopK {
  std::vector<size_t> columns;  // Indices into AggregateStep::columns, all aggregates.
  std::vector<bool> descending;
  uint64_t k = 0;
};
struct AggregateStep {
  std::vector<AggregateColumn> columns;
  std::vector<std::string> by;
  std::optional<TraversalEnds> adjacency;
  bool keys_separate = false;
  std::optional<AggregateTopK> top;
};

// Orders the result rows of an aggregate by result columns, ties in group order. With `limit`,
// only the first `limit` rows are kept (a bounded heap, not a full sort).
struct SortColumnsStep {
  std::vector<size_t> columns;
  std::vector<bool> descending;
  std::optional<uint64_t> limit;
};

using OutputStep = std::variant<NearestStep, Bm25Step, SortStep, LimitStep, ProjectStep,
                                AggregateStep, SortColumnsStep>;

struct Plan {
  const CheckedQuery* query = nullptr;
  std::vector<ScopePlan> scopes;  // [0] is the top-level match; blocks follow in plan order.
  std::vector<OutputStep> output;
  // The scope of each block operand of a Boolean filter (ExprKind::kBlock). Such a filter runs
  // in a FilterStep after every other step of its scope (a block sees every variable of the
  // scope around it); its blocks run, correlated as an anti join, when the filter compiles
  // against the frame, giving one truth value per frame row.
  std::map<const Negation*, size_t> block_scopes;
};

// Plans a checked read query. InvalidArgument for a mutation query or an order key an aggregate
// query cannot use; Internal
// when `checked` does not annotate every clause of its query.
Result<Plan> PlanQuery(const CheckedQuery& checked);

// The plan as indented text, one operator a line (docs/design/query-execution.md "The plan").
// Deterministic: the same query and schema always give the same text.
std::string RenderPlan(const Plan& plan);

// An expression as written in the query language (`$p.name`, `"x"`, `count($f)`, ...).
std::string ExprText(const Expr& e);
// The function name of a search form (`nearest`, `search`, `fuzzy`, `match_text`, `bm25`,
// `rrf`); "?" for any other kind.
const char* SearchName(ExprKind kind);

// A block as written, its clauses elided: `exists { ... }`, `count { ... } > 2`.
std::string BlockText(const Negation& block);

// Whether `e` is or contains a search form.
bool IsSearchExpr(const Expr& e);

}  // namespace omnigraph::query
