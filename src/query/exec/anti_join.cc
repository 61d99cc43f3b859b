// Running a scope's steps, and the anti join of a `not { }` block (operators.h;
// docs/design/query-execution.md "The plan").
#include "query/exec/operators.h"

namespace omnigraph::query::exec {

Status RunScope(ExecContext& ctx, const ScopePlan& scope, Frame& frame) {
  OMNIGRAPH_RETURN_IF_ERROR(scope.failure);
  ScopeState state(scope);
  for (const MatchStep& step : scope.steps) {
    OMNIGRAPH_RETURN_IF_ERROR(
        std::visit([&](const auto& s) { return RunStep(ctx, state, frame, s); }, step));
  }
  return Status::Ok();
}

Status RunBlock(ExecContext& ctx, const Frame& frame, size_t scope, Frame& inner,
                size_t& origin_slot) {
  inner = frame;
  std::vector<uint32_t> origin(frame.rows);
  for (uint32_t r = 0; r < frame.rows; ++r) origin[r] = r;
  // This block's origin column is the one it appends. A nested block's frame already holds the
  // origin columns of the blocks around it (all hidden, all unnamed to queries), so it is found
  // by position, never by name: the first one would number the rows of an outer frame.
  origin_slot = inner.slots.size();
  inner.slots.push_back(Slot{"#origin", SlotKind::kOrigin, nullptr, nullptr});
  inner.cols.push_back(std::move(origin));
  return RunScope(ctx, ctx.plan().scopes.at(scope), inner);
}

Status RunStep(ExecContext& ctx, ScopeState&, Frame& frame, const AntiJoinStep& step) {
  if (frame.rows == 0) return Status::Ok();
  Frame inner;
  size_t origin_slot = 0;
  OMNIGRAPH_RETURN_IF_ERROR(RunBlock(ctx, frame, step.scope, inner, origin_slot));
  std::vector<bool> matched(frame.rows, false);
  const std::vector<uint32_t>& survivors = inner.cols[origin_slot];
  for (size_t i = 0; i < inner.rows; ++i) matched[survivors[i]] = true;
  std::vector<uint32_t> keep;
  for (uint32_t r = 0; r < frame.rows; ++r) {
    if (!matched[r]) keep.push_back(r);
  }
  frame.Gather(keep);
  return Status::Ok();
}

}  // namespace omnigraph::query::exec
