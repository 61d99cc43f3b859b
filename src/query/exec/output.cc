// The output operators: order, limit, projection, and the aggregate with its ordering over
// result columns (operators.h; docs/design/query-execution.md "Projection, aggregation, order,
// limit").
#include <algorithm>
#include <unordered_map>

#include "query/column_codec.h"
#include "query/exec/operators.h"

namespace omnigraph::query::exec {

using schema::Value;

namespace {

// Compares rows of a frame by the ids of the tie slots, then by row number.
struct TieLess {
  const Frame& frame;
  std::vector<int> slots;

  bool operator()(uint32_t a, uint32_t b) const {
    for (int s : slots) {
      uint32_t x = frame.cols[s][a], y = frame.cols[s][b];
      if (x != y) return x < y;
    }
    return a < b;
  }
};

Result<TieLess> Ties(const Frame& frame, const std::vector<std::string>& ties) {
  TieLess out{frame, {}};
  for (const std::string& v : ties) {
    int slot = frame.Find(v);
    if (slot < 0) return Internal("tie-break variable `$" + v + "` is not bound");
    out.slots.push_back(slot);
  }
  return out;
}

int CompareKeys(const std::vector<Value>& a, const std::vector<Value>& b,
                const std::vector<bool>& descending) {
  for (size_t i = 0; i < a.size(); ++i) {
    int c = Value::Compare(a[i], b[i]);
    if (c != 0) return descending[i] ? -c : c;
  }
  return 0;
}

Value Aggregate(AggFunc func, const std::vector<Value>& values) {
  switch (func) {
    case AggFunc::kCount: {
      int64_t n = 0;
      for (const Value& v : values) n += v.is_null() ? 0 : 1;
      return Value::Int(n);
    }
    case AggFunc::kSum:
    case AggFunc::kAvg: {
      double sum = 0;
      int64_t n = 0;
      for (const Value& v : values) {
        if (v.is_null()) continue;
        switch (v.tag()) {
          case Value::Tag::kInt: sum += static_cast<double>(v.int_value()); break;
          case Value::Tag::kUInt: sum += static_cast<double>(v.uint_value()); break;
          case Value::Tag::kFloat: sum += v.float_value(); break;
          default: continue;
        }
        ++n;
      }
      if (n == 0) return Value::Null();
      return Value::Float(func == AggFunc::kSum ? sum : sum / static_cast<double>(n));
    }
    case AggFunc::kMin:
    case AggFunc::kMax: {
      const Value* best = nullptr;
      for (const Value& v : values) {
        if (v.is_null()) continue;
        if (best == nullptr ||
            (func == AggFunc::kMin ? Value::Compare(v, *best) < 0 : Value::Compare(v, *best) > 0)) {
          best = &v;
        }
      }
      return best == nullptr ? Value::Null() : *best;
    }
  }
  return Value::Null();
}

// One group of an aggregate: its key values and, per aggregate column, the argument values.
struct Group {
  std::vector<Value> keys;
  std::vector<std::vector<Value>> args;
};

// Groups the rows `order` of `frame` by the non-aggregate columns, in first-appearance order.
std::vector<Group> GroupRows(const ExecContext& ctx, const Frame& frame,
                             const std::vector<uint32_t>& order,
                             const std::vector<AggregateColumn>& columns,
                             const std::vector<CExpr>& exprs) {
  std::vector<Group> groups;
  std::unordered_map<size_t, std::vector<size_t>> by_hash;
  for (uint32_t r : order) {
    std::vector<Value> keys;
    size_t h = 0;
    for (size_t i = 0; i < columns.size(); ++i) {
      if (columns[i].aggregate) continue;
      keys.push_back(ctx.Eval(exprs[i], frame, r));
      h = h * 1000003u ^ keys.back().Hash();
    }
    size_t g = groups.size();
    for (size_t cand : by_hash[h]) {
      if (CompareKeys(groups[cand].keys, keys, std::vector<bool>(keys.size(), false)) == 0) {
        g = cand;
        break;
      }
    }
    if (g == groups.size()) {
      by_hash[h].push_back(g);
      Group ng;
      ng.keys = std::move(keys);
      for (const AggregateColumn& c : columns) {
        if (c.aggregate) ng.args.emplace_back();
      }
      groups.push_back(std::move(ng));
    }
    size_t a = 0;
    for (size_t i = 0; i < columns.size(); ++i) {
      if (columns[i].aggregate) groups[g].args[a++].push_back(ctx.Eval(exprs[i], frame, r));
    }
  }
  return groups;
}

// Result rows up to this many read a property column only at their own rows (the fragments
// that hold them) when the column is not loaded yet; more read the whole column once.
constexpr size_t kSparseProjectRowsMax = 4096;

// When `e` is a plain property whose column is not loaded and the result rows are few: reads
// the property at those rows alone into `values` (one per `out.order` row) and returns true.
Result<bool> SparseProperty(const Expr& e, const OutputState& out, std::vector<Value>& values) {
  if (e.kind != ExprKind::kProp || e.prop.text.starts_with("@") || out.order.empty() ||
      out.order.size() > kSparseProjectRowsMax) {
    return false;
  }
  const int slot = out.frame.Find(e.var.text);
  if (slot < 0) return false;
  const Slot& s = out.frame.slots[slot];
  if (s.type == nullptr || s.image == nullptr) return false;
  const schema::PropertyDef* prop = s.type->FindProperty(e.prop.text);
  if (prop == nullptr) return false;
  const uint32_t field = static_cast<uint32_t>(prop->id);
  if (s.image->HasColumn(field)) return false;
  std::vector<uint32_t> dense;
  dense.reserve(out.order.size());
  for (uint32_t r : out.order) dense.push_back(out.frame.cols[slot][r]);
  OMNIGRAPH_ASSIGN_OR_RETURN(table::Column column, s.image->GatherRows(field, dense));
  values.reserve(dense.size());
  for (size_t k = 0; k < dense.size(); ++k) values.push_back(ValueAt(column, k));
  return true;
}

Status NeedFrameRows(const OutputState& out, const char* op) {
  if (out.materialized) return Internal(std::string(op) + " runs on frame rows, not result rows");
  return Status::Ok();
}

}  // namespace

Status RunOutput(ExecContext& ctx, OutputState& out, const SortStep& step) {
  OMNIGRAPH_RETURN_IF_ERROR(NeedFrameRows(out, "order"));
  const Frame& frame = out.frame;
  OMNIGRAPH_ASSIGN_OR_RETURN(TieLess tie_less, Ties(frame, step.ties));
  if (step.keys.empty()) {
    std::sort(out.order.begin(), out.order.end(), tie_less);
    return Status::Ok();
  }
  const QueryDecl& decl = *ctx.query().decl;
  std::vector<CExpr> keys;
  std::vector<bool> descending;
  for (const SortKey& k : step.keys) {
    const Expr& e = k.projection >= 0 ? decl.projections[k.projection].expr : *k.expr;
    OMNIGRAPH_ASSIGN_OR_RETURN(CExpr c, ctx.Compile(e, frame));
    keys.push_back(std::move(c));
    descending.push_back(k.descending);
  }
  std::vector<std::vector<Value>> kv(frame.rows);
  for (uint32_t r = 0; r < frame.rows; ++r) {
    for (const CExpr& k : keys) kv[r].push_back(ctx.Eval(k, frame, r));
  }
  auto less = [&](uint32_t a, uint32_t b) {
    int c = CompareKeys(kv[a], kv[b], descending);
    return c != 0 ? c < 0 : tie_less(a, b);
  };
  if (step.limit && *step.limit < out.order.size()) {
    std::partial_sort(out.order.begin(), out.order.begin() + static_cast<ptrdiff_t>(*step.limit),
                      out.order.end(), less);
  } else {
    std::sort(out.order.begin(), out.order.end(), less);
  }
  return Status::Ok();
}

Status RunOutput(ExecContext&, OutputState& out, const LimitStep& step) {
  if (step.count < out.order.size()) out.order.resize(step.count);
  return Status::Ok();
}

Status RunOutput(ExecContext& ctx, OutputState& out, const ProjectStep& step) {
  OMNIGRAPH_RETURN_IF_ERROR(NeedFrameRows(out, "project"));
  std::vector<CExpr> proj;
  // Per column: the values of a sparsely read property, one per `out.order` row (else empty).
  std::vector<std::vector<Value>> sparse(step.columns.size());
  for (size_t i = 0; i < step.columns.size(); ++i) {
    OMNIGRAPH_ASSIGN_OR_RETURN(bool read, SparseProperty(step.columns[i]->expr, out, sparse[i]));
    if (read) {
      proj.emplace_back();
      continue;
    }
    OMNIGRAPH_ASSIGN_OR_RETURN(CExpr e, ctx.Compile(step.columns[i]->expr, out.frame));
    proj.push_back(std::move(e));
  }
  for (size_t k = 0; k < out.order.size(); ++k) {
    std::vector<Value> row;
    for (size_t i = 0; i < proj.size(); ++i) {
      row.push_back(sparse[i].empty() ? ctx.Eval(proj[i], out.frame, out.order[k])
                                      : std::move(sparse[i][k]));
    }
    out.rows.push_back(std::move(row));
  }
  out.order.resize(out.rows.size());
  for (uint32_t i = 0; i < out.rows.size(); ++i) out.order[i] = i;
  out.materialized = true;
  return Status::Ok();
}

Status RunOutput(ExecContext& ctx, OutputState& out, const AggregateStep& step) {
  OMNIGRAPH_RETURN_IF_ERROR(NeedFrameRows(out, "aggregate"));
  OMNIGRAPH_ASSIGN_OR_RETURN(TieLess tie_less, Ties(out.frame, step.ties));
  std::sort(out.order.begin(), out.order.end(), tie_less);
  std::vector<CExpr> exprs;
  bool all_aggregate = true;
  for (const AggregateColumn& c : step.columns) {
    OMNIGRAPH_ASSIGN_OR_RETURN(CExpr e, ctx.Compile(*c.expr, out.frame));
    // An entity argument only needs to be non-null (count): its id will do.
    if (c.aggregate && e.kind == CExpr::Kind::kEntity) e.kind = CExpr::Kind::kId;
    exprs.push_back(std::move(e));
    all_aggregate = all_aggregate && c.aggregate;
  }
  std::vector<Group> groups = GroupRows(ctx, out.frame, out.order, step.columns, exprs);
  if (groups.empty() && all_aggregate)
    groups.push_back(Group{{}, std::vector<std::vector<Value>>(step.columns.size())});
  for (Group& g : groups) {
    std::vector<Value> row;
    size_t k = 0, a = 0;
    for (const AggregateColumn& c : step.columns) {
      row.push_back(c.aggregate ? Aggregate(c.func, g.args[a++]) : std::move(g.keys[k++]));
    }
    out.rows.push_back(std::move(row));
  }
  out.order.resize(out.rows.size());
  for (uint32_t i = 0; i < out.rows.size(); ++i) out.order[i] = i;
  out.materialized = true;
  return Status::Ok();
}

Status RunOutput(ExecContext&, OutputState& out, const SortColumnsStep& step) {
  if (!out.materialized) return Internal("order columns runs on result rows");
  const auto& rows = out.rows;
  std::stable_sort(out.order.begin(), out.order.end(), [&](uint32_t a, uint32_t b) {
    for (size_t i = 0; i < step.columns.size(); ++i) {
      int c = Value::Compare(rows[a][step.columns[i]], rows[b][step.columns[i]]);
      if (c != 0) return step.descending[i] ? c > 0 : c < 0;
    }
    return false;
  });
  return Status::Ok();
}

}  // namespace omnigraph::query::exec
