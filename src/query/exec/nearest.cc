// The nearest operator: squared-L2 ranking of the frame rows (operators.h; plan.h NearestMethod;
// docs/design/query-execution.md "Vector search"). Exact measures every candidate; indexed first
// lets the ANN index pick the k nearest candidates, then measures those exactly, so the
// distances returned are always the exact ones.
#include <algorithm>
#include <optional>

#include "query/exec/executor.h"
#include "query/exec/operators.h"

namespace omnigraph::query {
namespace exec {

namespace {

// Lists an unfiltered search probes at least; the index's calibrated probes
// (AnnIndex::probes_for_recall) raise it. A filter admitting a fraction f of the rows probes 1/f
// times as many (docs/design/decisions.md 50 and 212: measured by omnigraph-bench vector).
constexpr uint32_t kProbesBase = 24;
// When a search returns fewer than it must (the probed lists held too few candidates), it is
// repeated with this many times the probes.
constexpr uint32_t kProbesGrowth = 4;
// A search that would probe at least 1/kExactListShareInverse of the lists scans about that share
// of the rows; measured on 100k x 128 uniform vectors (decision 212), the index then costs about
// what the exact scan does, and the exact scan's answer is exact. So the executor runs the exact
// scan instead.
constexpr uint32_t kExactListShareInverse = 2;

// The candidates of an indexed search: which dense rows the frame holds, how many distinct, and
// how many of those have a vector.
struct Allowed {
  std::vector<bool> rows;
  uint64_t distinct = 0;
  uint64_t with_vector = 0;
};

Allowed AllowedRows(const OutputState& out, int slot, const TableImage::ChunkedColumn& column,
                    uint32_t image_rows) {
  Allowed a;
  a.rows.assign(image_rows, false);
  for (uint32_t r : out.order) {
    const uint32_t dense = out.frame.cols[slot][r];
    if (a.rows[dense]) continue;
    a.rows[dense] = true;
    ++a.distinct;
    if (column.chunk(dense).IsValid(TableImage::ChunkedColumn::row(dense))) ++a.with_vector;
  }
  return a;
}

// Keeps in out.order the frame rows whose node (dense index in `slot`) is one of `found`.
void KeepFound(OutputState& out, int slot, const std::vector<uint32_t>& found, size_t image_rows) {
  std::vector<bool> nearest(image_rows, false);
  for (uint32_t dense : found) nearest[dense] = true;
  size_t w = 0;
  for (uint32_t r : out.order) {
    if (nearest[out.frame.cols[slot][r]]) out.order[w++] = r;
  }
  out.order.resize(w);
}

// An unfiltered search over an index whose lists would not pay (uniform data): the rows whose
// codes are nearest, NearestCodeCandidates(k) of them, which the caller then measures exactly
// (decision 224). Does nothing (exact search follows) if the codes hold fewer than `need` rows.
Status NarrowByCodes(ExecContext& ctx, OutputState& out, const NearestStep& step, int slot,
                     const table::AnnIndex& index, const CExpr& distance, uint64_t need) {
  const Slot& s = out.frame.slots[slot];
  OMNIGRAPH_ASSIGN_OR_RETURN(Executor * threads, ctx.Threads(*s.type));
  ++ctx.stats().index_searches;
  OMNIGRAPH_ASSIGN_OR_RETURN(
      std::vector<uint32_t> found,
      index.SearchCodes(distance.query, NearestCodeCandidates(*step.k), *threads));
  if (found.size() < need) return Status::Ok();
  KeepFound(out, slot, found, s.image->size());
  return Status::Ok();
}

// Narrows out.order to the rows whose node the index ranks among the k nearest candidates; does
// nothing (exact search follows) when the candidates are few, the version has no index, or the
// index would have to scan most of the rows (IndexedNearestProbes) and has no codes or the
// candidates are not every row.
Status NarrowByIndex(ExecContext& ctx, OutputState& out, const NearestStep& step,
                     const CExpr& distance) {
  const uint64_t k = *step.k;
  if (distance.query.empty() || out.order.size() <= ctx.options().nearest_exact_max) {
    return Status::Ok();
  }
  const int slot = out.frame.Find(step.var);
  if (slot < 0) return Internal("nearest variable `$" + step.var + "` is not bound");
  const Slot& s = out.frame.slots[slot];
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::AnnIndex> index,
                             ctx.Ann(*s.type, static_cast<uint32_t>(step.prop->id)));
  if (index == nullptr || index->rows() != s.image->size()) return Status::Ok();
  Allowed allowed = AllowedRows(out, slot, *distance.column, s.image->size());
  if (allowed.distinct <= ctx.options().nearest_exact_max) return Status::Ok();
  const uint64_t need = std::min(k, allowed.with_vector);
  const bool all = allowed.distinct == s.image->size();
  const double fraction = static_cast<double>(allowed.distinct) / s.image->size();
  const std::optional<uint32_t> first =
      IndexedNearestProbes(index->lists(), index->probes_for_recall(), fraction);
  // The index would scan most rows (hard data, or a selective filter): exact is no slower, except
  // that an unfiltered search over codes is (decision 224).
  if (!first) {
    if (!all || !index->has_codes()) return Status::Ok();
    return NarrowByCodes(ctx, out, step, slot, *index, distance, need);
  }
  uint32_t probes = *first;
  std::vector<uint32_t> found;
  const std::vector<bool> none;
  while (true) {
    if (IndexedNearestGoesExact(probes, index->lists())) return Status::Ok();
    ++ctx.stats().index_searches;
    OMNIGRAPH_ASSIGN_OR_RETURN(found,
                               index->Search(distance.query, k, all ? none : allowed.rows, probes));
    if (found.size() >= need) break;
    probes = static_cast<uint32_t>(
        std::min<uint64_t>(index->lists(), static_cast<uint64_t>(probes) * kProbesGrowth));
  }
  KeepFound(out, slot, found, s.image->size());
  return Status::Ok();
}

}  // namespace

Status RunOutput(ExecContext& ctx, OutputState& out, const NearestStep& step) {
  if (out.materialized) return Internal("nearest runs on frame rows, not result rows");
  OMNIGRAPH_ASSIGN_OR_RETURN(CExpr distance, ctx.Compile(*step.expr, out.frame));
  if (step.method == NearestMethod::kIndexed && step.leading && step.k && *step.k > 0) {
    OMNIGRAPH_RETURN_IF_ERROR(NarrowByIndex(ctx, out, step, distance));
  }
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

}  // namespace exec

std::optional<uint32_t> IndexedNearestProbes(uint32_t lists, uint32_t probes_for_recall,
                                             double fraction) {
  const uint32_t base = std::max(exec::kProbesBase, probes_for_recall);
  const uint32_t probes = static_cast<uint32_t>(
      std::min<double>(lists, std::max<double>(1, base / std::max(fraction, 1e-9))));
  if (IndexedNearestGoesExact(probes, lists)) return std::nullopt;
  return probes;
}

uint64_t NearestCodeCandidates(uint64_t k) {
  return std::max(kNearestCodeCandidatesMin, k * kNearestCodeCandidatesPerK);
}

bool IndexedNearestGoesExact(uint64_t probes, uint32_t lists) {
  return probes * exec::kExactListShareInverse >= lists;
}

}  // namespace omnigraph::query
