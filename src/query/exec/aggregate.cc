// The aggregate operator, column at a time (operators.h; docs/design/query-execution.md
// "Projection, aggregation, order, limit").
//
// Rows are first grouped by the dense indices of the entities the group keys refer to (the
// step's `by` variables): a table indexed by dense index for one variable, a hash table of
// index tuples for several, one partial aggregate per entity tuple and per aggregate column —
// no value is built per row except an aggregate's argument that is a property. The entity
// groups are then taken in ascending order of their tuples (ascending ids), their group keys
// evaluated once each, and merged by key value into the result groups, which therefore come in
// the order of the smallest entity tuple among their rows: the tie-break after grouping.
#include <algorithm>
#include <cstring>
#include <limits>
#include <unordered_map>

#include "query/exec/operators.h"

namespace omnigraph::query::exec {

using schema::Value;

namespace {

// One aggregate column's running value over some rows. Integers add exactly (rounded to F64
// once, at the end, unless the sum leaves the I64 range); floats add in row order.
struct Partial {
  int64_t count = 0;  // Non-null numeric values for sum/avg; non-null values for the others.
  int64_t int_sum = 0;
  bool int_overflow = false;
  double float_sum = 0;
  Value best;  // min/max: the best non-null value so far (null when none).

  void AddInt(int64_t v) {
    int64_t sum = 0;
    if (int_overflow || __builtin_add_overflow(int_sum, v, &sum)) {
      if (!int_overflow) float_sum += static_cast<double>(int_sum);
      int_overflow = true;
      int_sum = 0;
      float_sum += static_cast<double>(v);
    } else {
      int_sum = sum;
    }
  }
  void Add(AggFunc func, const Value& v) {
    if (v.is_null()) return;
    switch (func) {
      case AggFunc::kCount: ++count; return;
      case AggFunc::kSum:
      case AggFunc::kAvg:
        switch (v.tag()) {
          case Value::Tag::kInt: AddInt(v.int_value()); break;
          case Value::Tag::kUInt:
            if (v.uint_value() <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
              AddInt(static_cast<int64_t>(v.uint_value()));
            } else {
              float_sum += static_cast<double>(v.uint_value());
            }
            break;
          case Value::Tag::kFloat: float_sum += v.float_value(); break;
          default: return;
        }
        ++count;
        return;
      case AggFunc::kMin:
      case AggFunc::kMax: {
        const int c = best.is_null() ? 0 : Value::Compare(v, best);
        if (best.is_null() || (func == AggFunc::kMin ? c < 0 : c > 0)) best = v;
        ++count;
        return;
      }
    }
  }
  void Merge(AggFunc func, const Partial& o) {
    if (func == AggFunc::kMin || func == AggFunc::kMax) {
      if (!o.best.is_null()) Add(func, o.best);       // Counts it once ...
      count += o.count - (o.best.is_null() ? 0 : 1);  // ... and the rest of its values.
      return;
    }
    count += o.count;
    float_sum += o.float_sum;
    AddInt(o.int_sum);
  }
  Value Result(AggFunc func) const {
    switch (func) {
      case AggFunc::kCount: return Value::Int(count);
      case AggFunc::kSum:
      case AggFunc::kAvg: {
        if (count == 0) return Value::Null();
        const double sum = static_cast<double>(int_sum) + float_sum;
        return Value::Float(func == AggFunc::kSum ? sum : sum / static_cast<double>(count));
      }
      case AggFunc::kMin:
      case AggFunc::kMax: return best;
    }
    return Value::Null();
  }
};

// The entity groups of a frame: per distinct tuple of the `by` slots' dense indices, a row that
// has it and the partial aggregates of its rows.
struct EntityGroups {
  std::vector<std::vector<uint32_t>> tuples;
  std::vector<uint32_t> first_row;
  std::vector<std::vector<Partial>> partials;  // [group][aggregate column]

  uint32_t Add(std::vector<uint32_t> tuple, uint32_t row, size_t aggregates) {
    tuples.push_back(std::move(tuple));
    first_row.push_back(row);
    partials.emplace_back(aggregates);
    return static_cast<uint32_t>(tuples.size() - 1);
  }
};

// What each aggregate column needs per row: nothing but the row (a count of an entity or id,
// which is never null), or its argument's value.
struct AggregateArgs {
  std::vector<AggFunc> funcs;
  std::vector<CExpr> exprs;
  std::vector<bool> counts_rows;
};

void Accumulate(const ExecContext& ctx, const Frame& frame, const AggregateArgs& args, uint32_t row,
                std::vector<Partial>& partials) {
  for (size_t a = 0; a < args.funcs.size(); ++a) {
    if (args.counts_rows[a]) {
      ++partials[a].count;
    } else {
      partials[a].Add(args.funcs[a], ctx.Eval(args.exprs[a], frame, row));
    }
  }
}

Result<EntityGroups> GroupByEntities(const ExecContext& ctx, const Frame& frame,
                                     const std::vector<int>& by, const AggregateArgs& args) {
  EntityGroups groups;
  const size_t n_agg = args.funcs.size();
  if (by.empty()) {
    if (frame.rows > 0) groups.Add({}, 0, n_agg);
    for (uint32_t r = 0; r < frame.rows; ++r) Accumulate(ctx, frame, args, r, groups.partials[0]);
  } else if (by.size() == 1) {
    const Slot& slot = frame.slots[by[0]];
    const std::vector<uint32_t>& col = frame.cols[by[0]];
    // A table indexed by dense index (the slot's image numbers its rows 0..n-1).
    std::vector<uint32_t> group_of(slot.image != nullptr ? slot.image->size() : 0, UINT32_MAX);
    for (uint32_t r = 0; r < frame.rows; ++r) {
      const uint32_t d = col[r];
      if (d >= group_of.size()) return Internal("aggregate: a dense index outside its image");
      uint32_t& g = group_of[d];
      if (g == UINT32_MAX) g = groups.Add({d}, r, n_agg);
      Accumulate(ctx, frame, args, r, groups.partials[g]);
    }
  } else {
    std::unordered_map<std::string, uint32_t> group_of;
    std::string key(by.size() * sizeof(uint32_t), '\0');
    for (uint32_t r = 0; r < frame.rows; ++r) {
      std::vector<uint32_t> tuple(by.size());
      for (size_t i = 0; i < by.size(); ++i) tuple[i] = frame.cols[by[i]][r];
      std::memcpy(key.data(), tuple.data(), key.size());
      auto [it, added] = group_of.try_emplace(key, 0);
      if (added) it->second = groups.Add(std::move(tuple), r, n_agg);
      Accumulate(ctx, frame, args, r, groups.partials[it->second]);
    }
  }
  return groups;
}

// The result groups: the entity groups in ascending tuple order, merged by group-key value.
struct ResultGroup {
  std::vector<Value> keys;
  std::vector<Partial> partials;
};

std::vector<ResultGroup> MergeByKeys(const ExecContext& ctx, const Frame& frame,
                                     const std::vector<CExpr>& key_exprs,
                                     const std::vector<AggFunc>& funcs, EntityGroups& groups) {
  std::vector<uint32_t> order(groups.tuples.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](uint32_t a, uint32_t b) { return groups.tuples[a] < groups.tuples[b]; });
  std::vector<ResultGroup> out;
  std::unordered_map<size_t, std::vector<size_t>> by_hash;
  for (uint32_t g : order) {
    std::vector<Value> keys;
    size_t h = 0;
    for (const CExpr& e : key_exprs) {
      keys.push_back(ctx.Eval(e, frame, groups.first_row[g]));
      h = h * 1000003u ^ keys.back().Hash();
    }
    size_t at = out.size();
    for (size_t cand : by_hash[h]) {
      bool same = true;
      for (size_t k = 0; k < keys.size() && same; ++k) {
        same = Value::Compare(out[cand].keys[k], keys[k]) == 0;
      }
      if (same) {
        at = cand;
        break;
      }
    }
    if (at == out.size()) {
      by_hash[h].push_back(at);
      out.push_back(ResultGroup{std::move(keys), std::move(groups.partials[g])});
      continue;
    }
    for (size_t a = 0; a < funcs.size(); ++a) {
      out[at].partials[a].Merge(funcs[a], groups.partials[g][a]);
    }
  }
  return out;
}

// The rows of a fused count (AggregateStep::adjacency), straight from the adjacency: for each
// `$b` with a neighbour, the number of distinct `$a` neighbours (what the single-hop search from
// every `$a` would have emitted: parallel edges reach a node once, a self-loop reaches its own
// start). `frame` gets the one `$b` slot, a row per such `$b` in ascending order, and `groups`
// one entity group per row, every aggregate column at that count. The traversal work charged is
// what the search would have charged: a unit per start, per edge examined and per row emitted.
Status CountFromAdjacency(ExecContext& ctx, const AggregateStep& step, Frame& frame,
                          EntityGroups& groups) {
  const TraversalEnds& ends = *step.adjacency;
  OMNIGRAPH_ASSIGN_OR_RETURN(const Adjacency* adj, ctx.Adj(*ends.traversal->edge));
  OMNIGRAPH_ASSIGN_OR_RETURN(const TableImage* other, ctx.Image(*ends.other_type));
  // One walk of the side the search would walk (`out` from every $a for a forward traversal),
  // counting each $b once per $a however many parallel edges join them: a forward count never
  // builds the adjacency's incoming side.
  const bool forward = ends.direction == Direction::kOut;
  const Csr& forth = forward ? adj->out() : adj->in();
  const uint32_t starts = forward ? adj->from_nodes() : adj->to_nodes();
  const uint32_t others = forward ? adj->to_nodes() : adj->from_nodes();
  if (others != other->size()) return Internal("adjacency and image sizes differ");
  size_t n_agg = 0;
  for (const AggregateColumn& c : step.columns) n_agg += c.aggregate ? 1 : 0;
  std::vector<uint32_t> last_start(others, UINT32_MAX);
  std::vector<int64_t> counts(others, 0);
  for (uint32_t a = 0; a < starts; ++a) {
    for (uint32_t b : forth.Targets(a)) {
      if (last_start[b] != a) {
        last_start[b] = a;
        ++counts[b];
      }
    }
  }
  std::vector<uint32_t> rows;
  uint64_t emitted = 0;
  for (uint32_t b = 0; b < others; ++b) {
    const int64_t count = counts[b];
    if (count == 0) continue;
    emitted += static_cast<uint64_t>(count);
    const uint32_t g = groups.Add({b}, static_cast<uint32_t>(rows.size()), n_agg);
    for (Partial& p : groups.partials[g]) p.count = count;
    rows.push_back(b);
  }
  OMNIGRAPH_RETURN_IF_ERROR(ctx.ChargeTraversal(starts + forth.targets.size() + emitted));
  frame.slots.push_back(Slot{ends.other, SlotKind::kNode, ends.other_type, other});
  frame.rows = rows.size();
  frame.cols.push_back(std::move(rows));
  return Status::Ok();
}

Status RunAdjacencyCount(ExecContext& ctx, OutputState& out, const AggregateStep& step);
void EmitGroups(const AggregateStep& step, const std::vector<AggFunc>& funcs,
                std::vector<ResultGroup> result, OutputState& out);

}  // namespace

Status RunOutput(ExecContext& ctx, OutputState& out, const AggregateStep& step) {
  if (out.materialized) return Internal("aggregate runs on frame rows, not result rows");
  if (step.adjacency) return RunAdjacencyCount(ctx, out, step);
  const Frame& frame = out.frame;
  std::vector<int> by;
  for (const std::string& v : step.by) {
    const int slot = frame.Find(v);
    if (slot < 0) return Internal("aggregate variable `$" + v + "` is not bound");
    by.push_back(slot);
  }
  AggregateArgs args;
  std::vector<CExpr> key_exprs;
  for (const AggregateColumn& c : step.columns) {
    OMNIGRAPH_ASSIGN_OR_RETURN(CExpr e, ctx.Compile(*c.expr, frame));
    if (!c.aggregate) {
      key_exprs.push_back(std::move(e));
      continue;
    }
    // A count of an entity or its id counts rows: neither is ever null.
    args.counts_rows.push_back(c.func == AggFunc::kCount &&
                               (e.kind == CExpr::Kind::kEntity || e.kind == CExpr::Kind::kId));
    args.funcs.push_back(c.func);
    args.exprs.push_back(std::move(e));
  }
  // Only the frame rows still in `out.order` count (a window before the aggregate).
  Frame window_frame;
  const Frame* rows = &frame;
  if (out.order.size() != frame.rows) {
    window_frame = frame;
    window_frame.Gather(out.order);
    rows = &window_frame;
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(EntityGroups groups, GroupByEntities(ctx, *rows, by, args));
  EmitGroups(step, args.funcs, MergeByKeys(ctx, *rows, key_exprs, args.funcs, groups), out);
  return Status::Ok();
}

namespace {

Status RunAdjacencyCount(ExecContext& ctx, OutputState& out, const AggregateStep& step) {
  Frame frame;
  frame.rows = 0;
  EntityGroups groups;
  OMNIGRAPH_RETURN_IF_ERROR(CountFromAdjacency(ctx, step, frame, groups));
  ctx.stats().rows_matched = 0;
  for (const std::vector<Partial>& p : groups.partials) {
    ctx.stats().rows_matched += static_cast<uint64_t>(p.empty() ? 0 : p[0].count);
  }
  std::vector<CExpr> key_exprs;
  std::vector<AggFunc> funcs;
  for (const AggregateColumn& c : step.columns) {
    if (c.aggregate) {
      funcs.push_back(c.func);
      continue;
    }
    OMNIGRAPH_ASSIGN_OR_RETURN(CExpr e, ctx.Compile(*c.expr, frame));
    key_exprs.push_back(std::move(e));
  }
  EmitGroups(step, funcs, MergeByKeys(ctx, frame, key_exprs, funcs, groups), out);
  return Status::Ok();
}

void EmitGroups(const AggregateStep& step, const std::vector<AggFunc>& funcs,
                std::vector<ResultGroup> result, OutputState& out) {
  // An all-aggregate query over no rows gives one row.
  bool all_aggregate = true;
  for (const AggregateColumn& c : step.columns) all_aggregate = all_aggregate && c.aggregate;
  if (result.empty() && all_aggregate) {
    result.push_back(ResultGroup{{}, std::vector<Partial>(funcs.size())});
  }
  for (ResultGroup& g : result) {
    std::vector<Value> row;
    size_t k = 0, a = 0;
    for (const AggregateColumn& c : step.columns) {
      row.push_back(c.aggregate ? g.partials[a].Result(funcs[a]) : std::move(g.keys[k]));
      a += c.aggregate ? 1 : 0;
      k += c.aggregate ? 0 : 1;
    }
    out.rows.push_back(std::move(row));
  }
  out.order.resize(out.rows.size());
  for (uint32_t i = 0; i < out.rows.size(); ++i) out.order[i] = i;
  out.materialized = true;
}

}  // namespace

}  // namespace omnigraph::query::exec
