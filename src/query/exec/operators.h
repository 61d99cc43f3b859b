// The operators of a read plan (plan.h), one run function per operator kind, each in the file
// of its family: scan.cc (filter, candidates, cross join), expand.cc (expand, BFS),
// anti_join.cc (anti join, and running a scope), subquery.cc (subquery predicates),
// output.cc (aggregate, order, limit, project), nearest.cc (vector ranking), text.cc (text
// ranking).
// A new operator adds its own overload here and its own file; the dispatch (RunScope,
// RunOutput) visits the plan's variants and needs no change for it.
#pragma once

#include <span>
#include <vector>

#include "base/status.h"
#include "query/exec/context.h"
#include "query/exec/frame.h"
#include "query/plan/plan.h"

namespace omnigraph::query::exec {

// Runs every step of `scope` on `frame`.
Status RunScope(ExecContext& ctx, const ScopePlan& scope, Frame& frame);

// Match operators.
Status RunStep(ExecContext& ctx, ScopeState& scope, Frame& frame, const FilterStep& step);
Status RunStep(ExecContext& ctx, ScopeState& scope, Frame& frame, const CrossJoinStep& step);
Status RunStep(ExecContext& ctx, ScopeState& scope, Frame& frame, const ExpandEdgesStep& step);
Status RunStep(ExecContext& ctx, ScopeState& scope, Frame& frame, const ReachStep& step);
Status RunStep(ExecContext& ctx, ScopeState& scope, Frame& frame, const AntiJoinStep& step);
Status RunStep(ExecContext& ctx, ScopeState& scope, Frame& frame,
               const SubqueryStep& step);  // subquery.cc

// Runs the block scope `scope` (Plan::scopes) on `inner`, a copy of `frame` with a hidden
// origin column appended at `origin_slot`: each inner row's value there is the frame row it
// extends. The correlation of every block (anti join, subquery predicates).
Status RunBlock(ExecContext& ctx, const Frame& frame, size_t scope, Frame& inner,
                size_t& origin_slot);

// The truth of `block` (planned as `scope`) for each row of `frame`: Bool, or Null for a count
// or sum whose threshold is null on that row (subquery.cc).
Result<std::vector<schema::Value>> BlockTruth(ExecContext& ctx, const Frame& frame, size_t scope,
                                              const Negation& block);

// The candidates of `var`, a variable `scope` introduces, computed on first use.
Result<Candidates*> ComputeCandidates(ExecContext& ctx, ScopeState& scope, const std::string& var);
// Binds `var` by a cross product of the frame with its candidates.
Status BindCrossProduct(ExecContext& ctx, ScopeState& scope, Frame& frame, const std::string& var);

// The rows an output operator works on: frame rows (`order` indexes the frame) until an
// aggregate or the projection makes result rows (`order` then indexes `rows`).
struct OutputState {
  const Frame& frame;
  std::vector<uint32_t> order;
  bool materialized = false;
  std::vector<std::vector<schema::Value>> rows;
};

// Result rows up to this many read a property column only at their own rows (the fragments
// that hold them) when the column is not loaded yet; more read the whole column once.
constexpr size_t kSparseProjectRowsMax = 4096;

// When `e` is a plain property of a slot of `frame` whose column is not loaded yet and `rows`
// (frame rows) are at most kSparseProjectRowsMax: reads the property at those rows alone into
// `values` (one per row of `rows`) and returns true; otherwise returns false and reads nothing.
// A node type's single String or integer key is its nodes' ids, so it is taken from the id index
// and no fragment is read for it. Storage failures as reported (output.cc).
Result<bool> SparseProperty(const Expr& e, const Frame& frame, std::span<const uint32_t> rows,
                            std::vector<schema::Value>& values);

// Output operators.
Status RunOutput(ExecContext& ctx, OutputState& out, const NearestStep& step);  // nearest.cc
Status RunOutput(ExecContext& ctx, OutputState& out, const Bm25Step& step);     // text.cc
Status RunOutput(ExecContext& ctx, OutputState& out, const SortStep& step);
Status RunOutput(ExecContext& ctx, OutputState& out, const LimitStep& step);
Status RunOutput(ExecContext& ctx, OutputState& out, const ProjectStep& step);
Status RunOutput(ExecContext& ctx, OutputState& out, const AggregateStep& step);
Status RunOutput(ExecContext& ctx, OutputState& out, const SortColumnsStep& step);

}  // namespace omnigraph::query::exec
