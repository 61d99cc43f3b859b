// The aggregate operator, column at a time (operators.h; docs/design/query-execution.md
// "Projection, aggregation, order, limit").
//
// Rows are first grouped by the dense indices of the entities the group keys refer to (the
// step's `by` variables): a table indexed by dense index for one variable, a hash table of
// index tuples for several, one partial aggregate per entity tuple and per aggregate column —
// no value is built per row except an aggregate's argument that is a property. The entity
// groups are then taken in ascending order of their tuples (ascending ids), their group keys
// evaluated once each, and merged by key value into the result groups, which therefore come in
// the order of the smallest entity tuple among their rows: the tie-break after grouping. When
// the keys are separate (no two entity groups share them) nothing is merged, and an `order …
// limit k` led by aggregates first keeps only the groups that can be among the first k
// (AggregateStep::top), so only those have their keys evaluated — and, cold, read.
#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>
#include <span>
#include <unordered_map>

#include "query/exec/aggregate_parts.h"
#include "query/exec/operators.h"

namespace omnigraph::query::exec {

using schema::Value;

void Partial::Add(AggFunc func, const Value& v) {
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

void Partial::Merge(AggFunc func, const Partial& o) {
  if (func == AggFunc::kMin || func == AggFunc::kMax) {
    if (!o.best.is_null()) Add(func, o.best);       // Counts it once ...
    count += o.count - (o.best.is_null() ? 0 : 1);  // ... and the rest of its values.
    return;
  }
  count += o.count;
  float_sum += o.float_sum;
  AddInt(o.int_sum);
}

Value Partial::Result(AggFunc func) const {
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

namespace {

// The entity groups of a frame, flat: per distinct tuple of the `by` slots' dense indices (`width`
// of them), a row that has it and the partial aggregates of its rows (`n_agg` per group) — or,
// for a count from the adjacency (`counted`), one count that every aggregate column shares.
struct EntityGroups {
  size_t width = 0;
  size_t n_agg = 0;
  std::vector<uint32_t> tuples;  // [group * width + i]
  std::vector<uint32_t> first_row;
  std::vector<Partial> partials;  // [group * n_agg + aggregate column]
  bool counted = false;
  std::span<const int64_t> counts;  // [group] when `counted` (an Adjacency::Reach's).

  size_t size() const { return first_row.size(); }
  uint32_t Add(const uint32_t* tuple, uint32_t row) {
    tuples.insert(tuples.end(), tuple, tuple + width);
    first_row.push_back(row);
    partials.resize(partials.size() + n_agg);
    return static_cast<uint32_t>(first_row.size() - 1);
  }
  Partial* Of(uint32_t g) { return partials.data() + static_cast<size_t>(g) * n_agg; }
  // The partial aggregates of group `g`, one per aggregate column.
  std::vector<Partial> PartialsOf(uint32_t g) const {
    if (!counted) {
      return std::vector<Partial>(partials.begin() + g * n_agg, partials.begin() + (g + 1) * n_agg);
    }
    std::vector<Partial> out(n_agg);
    for (Partial& p : out) p.count = counts[g];
    return out;
  }
  Partial PartialAt(uint32_t g, size_t a) const {
    if (!counted) return partials[g * n_agg + a];
    Partial p;
    p.count = counts[g];
    return p;
  }
  int64_t Count(uint32_t g, size_t a) const {
    return counted ? counts[g] : partials[g * n_agg + a].count;
  }
  bool TupleLess(uint32_t a, uint32_t b) const {
    const uint32_t* x = tuples.data() + a * width;
    const uint32_t* y = tuples.data() + b * width;
    return std::lexicographical_compare(x, x + width, y, y + width);
  }
};

void Accumulate(const ExecContext& ctx, const Frame& frame, const AggregateArgs& args, uint32_t row,
                Partial* partials) {
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
  groups.width = by.size();
  groups.n_agg = args.funcs.size();
  if (by.empty()) {
    if (frame.rows > 0) groups.Add(nullptr, 0);
    for (uint32_t r = 0; r < frame.rows; ++r) Accumulate(ctx, frame, args, r, groups.Of(0));
  } else if (by.size() == 1) {
    const Slot& slot = frame.slots[by[0]];
    const std::vector<uint32_t>& col = frame.cols[by[0]];
    // A table indexed by dense index (the slot's image numbers its rows 0..n-1).
    std::vector<uint32_t> group_of(slot.image != nullptr ? slot.image->size() : 0, UINT32_MAX);
    for (uint32_t r = 0; r < frame.rows; ++r) {
      const uint32_t d = col[r];
      if (d >= group_of.size()) return Internal("aggregate: a dense index outside its image");
      uint32_t& g = group_of[d];
      if (g == UINT32_MAX) g = groups.Add(&d, r);
      Accumulate(ctx, frame, args, r, groups.Of(g));
    }
  } else {
    std::unordered_map<std::string, uint32_t> group_of;
    std::vector<uint32_t> tuple(by.size());
    std::string key(by.size() * sizeof(uint32_t), '\0');
    for (uint32_t r = 0; r < frame.rows; ++r) {
      for (size_t i = 0; i < by.size(); ++i) tuple[i] = frame.cols[by[i]][r];
      std::memcpy(key.data(), tuple.data(), key.size());
      auto [it, added] = group_of.try_emplace(key, 0);
      if (added) it->second = groups.Add(tuple.data(), r);
      Accumulate(ctx, frame, args, r, groups.Of(it->second));
    }
  }
  return groups;
}

// The entity groups in ascending tuple order: the group order.
std::vector<uint32_t> GroupOrder(const EntityGroups& groups) {
  std::vector<uint32_t> order(groups.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  auto less = [&](uint32_t a, uint32_t b) { return groups.TupleLess(a, b); };
  if (!std::is_sorted(order.begin(), order.end(), less)) {
    std::sort(order.begin(), order.end(), less);
  }
  return order;
}

// The order of entity groups by the leading aggregate columns of AggregateStep::top alone, as
// SortColumnsStep compares their values (a count as its integer; any other aggregate by its
// result value, computed once per group).
class TopOrder {
 public:
  TopOrder(const AggregateStep& step, const std::vector<AggFunc>& funcs, const EntityGroups& groups)
      : groups_(groups) {
    for (size_t i = 0; i < step.top->columns.size(); ++i) {
      size_t a = 0;
      for (size_t c = 0; c < step.top->columns[i]; ++c) a += step.columns[c].aggregate ? 1 : 0;
      Key key{a, funcs[a] == AggFunc::kCount, step.top->descending[i], {}};
      if (!key.count) {
        key.values.reserve(groups.size());
        for (uint32_t g = 0; g < groups.size(); ++g) {
          key.values.push_back(groups.partials[g * groups.n_agg + a].Result(funcs[a]));
        }
      }
      keys_.push_back(std::move(key));
    }
  }
  // Negative when group `x` comes before group `y`, zero when the columns tie.
  int Compare(uint32_t x, uint32_t y) const {
    for (const Key& k : keys_) {
      int c = 0;
      if (k.count) {
        const int64_t a = groups_.Count(x, k.aggregate), b = groups_.Count(y, k.aggregate);
        c = a < b ? -1 : (a > b ? 1 : 0);
      } else {
        c = Value::Compare(k.values[x], k.values[y]);
      }
      if (c != 0) return k.descending ? -c : c;
    }
    return 0;
  }

 private:
  struct Key {
    size_t aggregate = 0;
    bool count = false;
    bool descending = false;
    std::vector<Value> values;  // By group, when not a count.
  };
  const EntityGroups& groups_;
  std::vector<Key> keys_;
};

// The candidates of AggregateStep::top among `order` (the group order), kept in that order: the
// groups whose leading aggregates are at least as good as the k-th best group's. A bounded heap
// of the k best finds that group; every group tied with it stays, so the later order columns and
// the group order still choose among them exactly as a sort of every group would.
std::vector<uint32_t> TopCandidates(const AggregateStep& step, const std::vector<AggFunc>& funcs,
                                    const EntityGroups& groups, std::vector<uint32_t> order) {
  const uint64_t k = step.top->k;
  if (k >= order.size()) return order;
  if (k == 0) return {};
  const TopOrder top(step, funcs, groups);
  // A max-heap under "comes before": its front is the worst group kept.
  auto before = [&](uint32_t x, uint32_t y) { return top.Compare(x, y) < 0; };
  std::vector<uint32_t> heap;
  heap.reserve(k);
  for (uint32_t g : order) {
    if (heap.size() < k) {
      heap.push_back(g);
      std::push_heap(heap.begin(), heap.end(), before);
    } else if (before(g, heap.front())) {
      std::pop_heap(heap.begin(), heap.end(), before);
      heap.back() = g;
      std::push_heap(heap.begin(), heap.end(), before);
    }
  }
  const uint32_t kth = heap.front();
  std::vector<uint32_t> out;
  for (uint32_t g : order) {
    if (top.Compare(g, kth) <= 0) out.push_back(g);
  }
  return out;
}

// The group keys of the groups `chosen`, one column of values per group key, in `chosen` order.
// A plain property whose column is not loaded is read at those groups' rows alone when they are
// few (SparseProperty), so an `order … limit k` reads only its candidates' keys.
Result<std::vector<std::vector<Value>>> EvalKeys(ExecContext& ctx, const Frame& frame,
                                                 const AggregateStep& step,
                                                 const EntityGroups& groups,
                                                 const std::vector<uint32_t>& chosen) {
  std::vector<uint32_t> rows;
  rows.reserve(chosen.size());
  for (uint32_t g : chosen) rows.push_back(groups.first_row[g]);
  std::vector<std::vector<Value>> keys;
  for (const AggregateColumn& c : step.columns) {
    if (c.aggregate) continue;
    std::vector<Value>& values = keys.emplace_back();
    OMNIGRAPH_ASSIGN_OR_RETURN(bool sparse, SparseProperty(*c.expr, frame, rows, values));
    if (sparse) continue;
    OMNIGRAPH_ASSIGN_OR_RETURN(CExpr e, ctx.Compile(*c.expr, frame));
    values.reserve(rows.size());
    for (uint32_t r : rows) values.push_back(ctx.Eval(e, frame, r));
  }
  ctx.stats().group_keys_evaluated += chosen.size();
  return keys;
}

std::vector<Value> KeysAt(std::vector<std::vector<Value>>& keys, size_t i) {
  std::vector<Value> out;
  out.reserve(keys.size());
  for (std::vector<Value>& column : keys) out.push_back(std::move(column[i]));
  return out;
}

// Separate keys: each chosen entity group is a result group.
std::vector<ResultGroup> EachGroup(const EntityGroups& groups, const std::vector<uint32_t>& chosen,
                                   std::vector<std::vector<Value>> keys) {
  std::vector<ResultGroup> out;
  out.reserve(chosen.size());
  for (size_t i = 0; i < chosen.size(); ++i) {
    out.push_back(ResultGroup{KeysAt(keys, i), groups.PartialsOf(chosen[i])});
  }
  return out;
}

// The entity groups `chosen` (in group order) merged by group-key value.
std::vector<ResultGroup> MergeByKeys(const std::vector<AggFunc>& funcs, const EntityGroups& groups,
                                     const std::vector<uint32_t>& chosen,
                                     std::vector<std::vector<Value>> key_columns) {
  std::vector<ResultGroup> out;
  std::unordered_map<size_t, std::vector<size_t>> by_hash;
  for (size_t i = 0; i < chosen.size(); ++i) {
    size_t h = 0;
    for (const std::vector<Value>& column : key_columns) h = h * 1000003u ^ column[i].Hash();
    std::vector<size_t>& same_hash = by_hash[h];
    size_t at = out.size();
    for (size_t cand : same_hash) {
      bool same = true;
      for (size_t k = 0; k < key_columns.size() && same; ++k) {
        same = Value::Compare(out[cand].keys[k], key_columns[k][i]) == 0;
      }
      if (same) {
        at = cand;
        break;
      }
    }
    if (at == out.size()) {
      same_hash.push_back(at);
      out.push_back(ResultGroup{KeysAt(key_columns, i), groups.PartialsOf(chosen[i])});
      continue;
    }
    for (size_t a = 0; a < funcs.size(); ++a) {
      out[at].partials[a].Merge(funcs[a], groups.PartialAt(chosen[i], a));
    }
  }
  return out;
}

// The rows of a fused count (AggregateStep::adjacency), straight from the adjacency: for each
// `$b` with a neighbour, the number of distinct `$a` neighbours (what the single-hop search from
// every `$a` would have emitted: parallel edges reach a node once, a self-loop reaches its own
// start). `frame` gets the one `$b` slot, a row per such `$b` in ascending order, and `groups`
// one counted entity group per row. The traversal work charged is what the search would have
// charged: a unit per start, per edge examined and per row emitted.
Status CountFromAdjacency(ExecContext& ctx, const AggregateStep& step, Frame& frame,
                          EntityGroups& groups) {
  const TraversalEnds& ends = *step.adjacency;
  OMNIGRAPH_ASSIGN_OR_RETURN(const Adjacency* adj, ctx.Adj(*ends.traversal->edge));
  OMNIGRAPH_ASSIGN_OR_RETURN(const TableImage* other, ctx.Image(*ends.other_type));
  // Per $b, the distinct $a that reach it: one walk of the side the search would walk (`out`
  // from every $a for a forward traversal; a forward count never builds the incoming side), made
  // once per adjacency and kept with it.
  const bool forward = ends.direction == Direction::kOut;
  const uint32_t starts = forward ? adj->from_nodes() : adj->to_nodes();
  const uint32_t others = forward ? adj->to_nodes() : adj->from_nodes();
  if (others != other->size()) return Internal("adjacency and image sizes differ");
  const Adjacency::Reach& reach = adj->DistinctReach(forward);
  groups.width = 1;
  for (const AggregateColumn& c : step.columns) groups.n_agg += c.aggregate ? 1 : 0;
  groups.counted = true;
  // The counts are the adjacency's own (it outlives the query); the rows are copied once each,
  // at their final size.
  groups.counts = reach.counts;
  groups.tuples = reach.nodes;
  groups.first_row.resize(reach.nodes.size());
  std::iota(groups.first_row.begin(), groups.first_row.end(), 0u);
  OMNIGRAPH_RETURN_IF_ERROR(ctx.ChargeTraversal(starts + adj->out().targets.size() + reach.total));
  std::vector<uint32_t> rows = reach.nodes;
  frame.slots.push_back(Slot{ends.other, SlotKind::kNode, ends.other_type, other});
  frame.rows = rows.size();
  frame.cols.push_back(std::move(rows));
  return Status::Ok();
}

void EmitGroups(const AggregateStep& step, const std::vector<AggFunc>& funcs,
                std::vector<ResultGroup> result, OutputState& out);

// From entity groups to result rows: the group order, the candidates of a top-k, their keys,
// and the result groups (merged by key value unless the keys are separate).
Status FinishGroups(ExecContext& ctx, const AggregateStep& step, const Frame& frame,
                    const std::vector<AggFunc>& funcs, const EntityGroups& groups,
                    OutputState& out) {
  if (step.top && !step.keys_separate) return Internal("a top-k aggregate needs separate keys");
  std::vector<uint32_t> chosen = GroupOrder(groups);
  if (step.top) chosen = TopCandidates(step, funcs, groups, std::move(chosen));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<std::vector<Value>> keys,
                             EvalKeys(ctx, frame, step, groups, chosen));
  EmitGroups(step, funcs,
             step.keys_separate ? EachGroup(groups, chosen, std::move(keys))
                                : MergeByKeys(funcs, groups, chosen, std::move(keys)),
             out);
  return Status::Ok();
}

Status RunAdjacencyCount(ExecContext& ctx, OutputState& out, const AggregateStep& step);

// The slot of `column`'s argument when it is a min or max of a String node key whose column its
// table image has not loaded (AggregateArgs::deferred); -1 otherwise.
int DeferrableKey(const AggregateColumn& column, const Frame& frame) {
  if ((column.func != AggFunc::kMin && column.func != AggFunc::kMax) ||
      column.expr->kind != ExprKind::kProp || column.expr->prop.text.starts_with("@")) {
    return -1;
  }
  const int slot = frame.Find(column.expr->var.text);
  if (slot < 0) return -1;
  const Slot& s = frame.slots[slot];
  if (s.type == nullptr || s.image == nullptr) return -1;
  const schema::PropertyDef* prop = s.type->FindProperty(column.expr->prop.text);
  if (prop == nullptr || prop->type.scalar != schema::ScalarKind::kString ||
      !IsIdKey(*s.type, *prop) || s.image->HasColumn(static_cast<uint32_t>(prop->id))) {
    return -1;
  }
  return slot;
}

// The field of `e` when compiling it would read its slot's column whole from the fragments: a
// plain property of a bound node or edge, not loaded yet and not a node key the compile reads
// back from the ids (ExecContext::Compile); -1 otherwise.
int64_t FragmentColumnOf(const Expr& e, const Frame& frame) {
  if (e.kind != ExprKind::kProp || e.prop.text.starts_with("@")) return -1;
  const int slot = frame.Find(e.var.text);
  if (slot < 0) return -1;
  const Slot& s = frame.slots[slot];
  if (s.type == nullptr || s.image == nullptr) return -1;
  const schema::PropertyDef* prop = s.type->FindProperty(e.prop.text);
  if (prop == nullptr) return -1;
  const auto field = static_cast<uint32_t>(prop->id);
  if (s.image->HasColumn(field) || KeyReadFromIds(s, *prop)) return -1;
  return field;
}

// Reads, in one id-order scan per table, the columns the aggregate is about to read whole one by
// one: its arguments' (but a count of an entity's or a deferred key's) and, when the grouping by
// value will compile it (GroupByValue's KeyOf), its one group key's. Each scan walks the rows'
// references in id order once, however many columns it reads (decision 256).
Status PreloadColumns(ExecContext& ctx, const Frame& frame, const AggregateStep& step,
                      const std::vector<int>& by) {
  std::vector<std::pair<const TableImage*, std::vector<uint32_t>>> loads;
  const auto add = [&](const Expr& e) {
    const int64_t field = FragmentColumnOf(e, frame);
    if (field < 0) return;
    const TableImage* image = frame.slots[frame.Find(e.var.text)].image;
    auto it =
        std::find_if(loads.begin(), loads.end(), [&](const auto& l) { return l.first == image; });
    if (it == loads.end()) it = loads.insert(loads.end(), {image, {}});
    it->second.push_back(static_cast<uint32_t>(field));
  };
  size_t keys = 0;
  for (const AggregateColumn& c : step.columns) {
    keys += c.aggregate ? 0 : 1;
    // An argument that reads every id of its slot (its `@id`, or the entity itself but for a
    // count) reads them first, so the keys then come from them (FragmentColumnOf).
    const Expr& e = *c.expr;
    const bool ids = c.aggregate && ((e.kind == ExprKind::kProp && e.prop.text == "@id") ||
                                     (e.kind == ExprKind::kVariable && c.func != AggFunc::kCount));
    const int slot = ids ? frame.Find(e.var.text) : -1;
    if (slot >= 0 && frame.slots[slot].image != nullptr) {
      OMNIGRAPH_RETURN_IF_ERROR(frame.slots[slot].image->LoadIds());
    }
  }
  for (const AggregateColumn& c : step.columns) {
    if (!c.aggregate) {
      if (ctx.options().value_grouping && !step.keys_separate && keys == 1 && by.size() == 1 &&
          frame.rows > 0 && c.expr->kind == ExprKind::kProp &&
          frame.Find(c.expr->var.text) == by[0]) {
        add(*c.expr);
      }
      continue;
    }
    if (c.func == AggFunc::kCount && c.expr->kind == ExprKind::kVariable) continue;
    if (DeferrableKey(c, frame) >= 0) continue;
    add(*c.expr);
  }
  for (const auto& [image, fields] : loads) {
    if (fields.size() < 2) continue;  // One column is read by its compile.
    OMNIGRAPH_RETURN_IF_ERROR(image->Preload(fields));
    ++ctx.stats().column_scans;
  }
  return Status::Ok();
}

}  // namespace

Status CompileDeferred(ExecContext& ctx, const Frame& frame, AggregateArgs& args, size_t a) {
  if (args.deferred[a] == nullptr) return Status::Ok();
  OMNIGRAPH_ASSIGN_OR_RETURN(args.exprs[a], ctx.Compile(*args.deferred[a], frame));
  args.deferred[a] = nullptr;
  return Status::Ok();
}

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
  OMNIGRAPH_RETURN_IF_ERROR(PreloadColumns(ctx, frame, step, by));
  // The aggregates' arguments; the group keys are compiled once the groups that need them are
  // known (FinishGroups).
  AggregateArgs args;
  for (const AggregateColumn& c : step.columns) {
    if (!c.aggregate) continue;
    // A count of a bound entity counts its rows and reads nothing of it, so it is not compiled
    // (an entity's compile reads every id of its type, for evaluating it per row).
    const int counted = c.func == AggFunc::kCount && c.expr->kind == ExprKind::kVariable
                            ? frame.Find(c.expr->var.text)
                            : -1;
    CExpr e;
    const Expr* deferred = nullptr;
    if (counted >= 0) {
      e.kind = CExpr::Kind::kEntity;
      e.slot = counted;
    } else if (const int key_slot = DeferrableKey(c, frame); key_slot >= 0) {
      e.kind = CExpr::Kind::kProp;
      e.slot = key_slot;
      deferred = c.expr;
    } else {
      OMNIGRAPH_ASSIGN_OR_RETURN(e, ctx.Compile(*c.expr, frame));
    }
    // A count of an entity or its id counts rows: neither is ever null.
    args.counts_rows.push_back(c.func == AggFunc::kCount &&
                               (e.kind == CExpr::Kind::kEntity || e.kind == CExpr::Kind::kId));
    args.funcs.push_back(c.func);
    args.exprs.push_back(std::move(e));
    args.deferred.push_back(deferred);
  }
  // Only the frame rows still in `out.order` count (a window before the aggregate).
  Frame window_frame;
  const Frame* rows = &frame;
  if (out.order.size() != frame.rows) {
    window_frame = frame;
    window_frame.Gather(out.order);
    rows = &window_frame;
  }
  // One group key that is a property of the one `by` variable: grouped by its values, column
  // at a time, when the shape allows (value_groups.cc); otherwise by entities, then by key.
  if (by.size() == 1 && ctx.options().value_grouping) {
    OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<std::vector<ResultGroup>> by_value,
                               GroupByValue(ctx, *rows, step, by[0], args, {}));
    if (by_value) {
      EmitGroups(step, args.funcs, std::move(*by_value), out);
      return Status::Ok();
    }
  }
  for (size_t a = 0; a < args.funcs.size(); ++a) {
    OMNIGRAPH_RETURN_IF_ERROR(CompileDeferred(ctx, *rows, args, a));
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(EntityGroups groups, GroupByEntities(ctx, *rows, by, args));
  return FinishGroups(ctx, step, *rows, args.funcs, groups, out);
}

namespace {

Status RunAdjacencyCount(ExecContext& ctx, OutputState& out, const AggregateStep& step) {
  Frame frame;
  frame.rows = 0;
  EntityGroups groups;
  OMNIGRAPH_RETURN_IF_ERROR(CountFromAdjacency(ctx, step, frame, groups));
  ctx.stats().rows_matched = 0;
  for (int64_t count : groups.counts) ctx.stats().rows_matched += static_cast<uint64_t>(count);
  // Every aggregate is the count; a key that may merge groups the counted nodes by its values,
  // each weighing its count (value_groups.cc).
  AggregateArgs args;
  for (const AggregateColumn& c : step.columns) {
    if (!c.aggregate) continue;
    args.funcs.push_back(c.func);
    args.exprs.emplace_back();
    args.counts_rows.push_back(true);
    args.deferred.push_back(nullptr);
  }
  if (ctx.options().value_grouping) {
    OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<std::vector<ResultGroup>> by_value,
                               GroupByValue(ctx, frame, step, 0, args, groups.counts));
    if (by_value) {
      EmitGroups(step, args.funcs, std::move(*by_value), out);
      return Status::Ok();
    }
  }
  return FinishGroups(ctx, step, frame, args.funcs, groups, out);
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
