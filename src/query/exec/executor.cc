// The read-query executor (executor.h; docs/design/query-execution.md): plans the query
// (plan.h) and runs the plan's operators (exec/operators.h) over the view.
#include "query/exec/executor.h"

#include "query/exec/operators.h"

namespace omnigraph::query {

Result<QueryResult> ExecutePlan(const GraphView& view, const Plan& plan,
                                std::span<const schema::Value> params, const ExecOptions& options) {
  const CheckedQuery& q = *plan.query;
  if (options.cache == nullptr) return Internal("ExecOptions::cache is required");
  if (params.size() != q.decl->params.size()) {
    return Internal("parameter values do not match the query's parameters");
  }
  exec::ExecContext ctx(view, plan, params, options);
  exec::Frame frame;
  OMNIGRAPH_RETURN_IF_ERROR(exec::RunScope(ctx, plan.scopes.at(0), frame));
  ctx.stats().rows_matched = frame.rows;
  exec::OutputState out{frame, exec::DenseRange(frame.rows), false, {}};
  for (const OutputStep& step : plan.output) {
    OMNIGRAPH_RETURN_IF_ERROR(
        std::visit([&](const auto& s) { return exec::RunOutput(ctx, out, s); }, step));
  }
  if (!out.materialized) return Internal("the plan has no projection or aggregate");
  QueryResult result;
  result.columns = q.columns;
  for (uint32_t i : out.order) result.rows.push_back(std::move(out.rows[i]));
  result.stats = ctx.stats();
  return result;
}

Result<QueryResult> Execute(const GraphView& view, const CheckedQuery& checked,
                            std::span<const schema::Value> params, const ExecOptions& options) {
  OMNIGRAPH_ASSIGN_OR_RETURN(Plan plan, PlanQuery(checked));
  return ExecutePlan(view, plan, params, options);
}

}  // namespace omnigraph::query
