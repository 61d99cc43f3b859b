// The nearest operator: exact (brute-force) cosine ranking of the frame rows (operators.h;
// docs/design/query-execution.md "Vector search").
#include <algorithm>

#include "query/exec/operators.h"

namespace omnigraph::query::exec {

Status RunOutput(ExecContext& ctx, OutputState& out, const NearestStep& step) {
  if (out.materialized) return Internal("nearest runs on frame rows, not result rows");
  OMNIGRAPH_ASSIGN_OR_RETURN(CExpr distance, ctx.Compile(*step.expr, out.frame));
  std::vector<uint32_t> kept;
  std::vector<double> distances;
  kept.reserve(out.order.size());
  distances.reserve(out.order.size());
  for (uint32_t r : out.order) {
    schema::Value d = ctx.Eval(distance, out.frame, r);
    if (d.is_null()) continue;
    kept.push_back(r);
    distances.push_back(d.float_value());
  }
  ctx.stats().vectors_compared += kept.size();
  if (step.leading && step.k && *step.k < kept.size()) {
    // The k-th smallest distance bounds the rows the order can still put first; rows tied at
    // it stay, so the order that follows breaks the tie by id.
    std::vector<double> sorted = distances;
    const auto kth = sorted.begin() + static_cast<ptrdiff_t>(*step.k == 0 ? 0 : *step.k - 1);
    std::nth_element(sorted.begin(), kth, sorted.end());
    const double bound = *step.k == 0 ? -1 : *kth;
    size_t w = 0;
    for (size_t i = 0; i < kept.size(); ++i) {
      if (distances[i] <= bound) kept[w++] = kept[i];
    }
    kept.resize(w);
  }
  out.order = std::move(kept);
  return Status::Ok();
}

}  // namespace omnigraph::query::exec
