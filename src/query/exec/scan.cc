// Scan and key lookup: the candidates of a node variable, the cross join that binds variables
// by their candidates, and the filter operator (operators.h; docs/design/query-execution.md).
#include <algorithm>
#include <limits>
#include <optional>
#include <ranges>

#include "query/exec/operators.h"
#include "query/exec/table_schema.h"
#include "schema/keys.h"
#include "table/table_manifest.h"

namespace omnigraph::query::exec {

using schema::Value;

namespace {

// The StatValue of `v` for a scalar column of type `id`, when it converts exactly.
std::optional<table::StatValue> ToStat(const Value& v, table::TypeId id) {
  auto as_i64 = [&]() -> std::optional<int64_t> {
    if (v.tag() == Value::Tag::kInt) return v.int_value();
    if (v.tag() == Value::Tag::kUInt &&
        v.uint_value() <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return static_cast<int64_t>(v.uint_value());
    }
    return std::nullopt;
  };
  auto as_u64 = [&]() -> std::optional<uint64_t> {
    if (v.tag() == Value::Tag::kUInt) return v.uint_value();
    if (v.tag() == Value::Tag::kInt && v.int_value() >= 0) {
      return static_cast<uint64_t>(v.int_value());
    }
    return std::nullopt;
  };
  switch (id) {
    case table::TypeId::kBool:
      if (v.tag() == Value::Tag::kBool) return table::StatValue(v.bool_value());
      break;
    case table::TypeId::kString:
      if (v.tag() == Value::Tag::kString) return table::StatValue(v.string_value());
      break;
    case table::TypeId::kI32: {
      std::optional<int64_t> i = as_i64();
      if (i && *i >= std::numeric_limits<int32_t>::min() &&
          *i <= std::numeric_limits<int32_t>::max()) {
        return table::StatValue(static_cast<int32_t>(*i));
      }
      break;
    }
    case table::TypeId::kI64:
      if (std::optional<int64_t> i = as_i64()) return table::StatValue(*i);
      break;
    case table::TypeId::kU32: {
      std::optional<uint64_t> u = as_u64();
      if (u && *u <= std::numeric_limits<uint32_t>::max()) {
        return table::StatValue(static_cast<uint32_t>(*u));
      }
      break;
    }
    case table::TypeId::kU64:
      if (std::optional<uint64_t> u = as_u64()) return table::StatValue(*u);
      break;
    case table::TypeId::kDate:
      if (v.tag() == Value::Tag::kDate) return table::StatValue(v.date_days());
      break;
    case table::TypeId::kDateTime:
      if (v.tag() == Value::Tag::kDateTime) return table::StatValue(v.datetime_ms());
      break;
    default: break;
  }
  return std::nullopt;
}

// The constant side of constraint `c` (a binding's value, or the right of a filter).
Result<Value> ConstantOfCond(ExecContext& ctx, const PlanCond& c) {
  if (c.match != nullptr) {
    OMNIGRAPH_ASSIGN_OR_RETURN(CExpr v, ctx.CompileMatchValue(c.match->value));
    return v.constant;
  }
  return ctx.ConstantOf(c.filter->right);
}

const schema::PropertyDef& PropOfCond(const NodeAccess& a, const PlanCond& c) {
  return *a.type->FindProperty(c.match != nullptr ? c.match->prop.text : c.filter->left.prop.text);
}

// The table predicate of a pushed-down constraint, when its constant converts exactly.
std::optional<table::Predicate> PredicateOf(const NodeAccess& a, const PlanCond& c,
                                            const Value& constant) {
  const schema::PropertyDef& prop = PropOfCond(a, c);
  std::optional<table::StatValue> stat = ToStat(constant, ColumnTypeOf(prop.type).id);
  if (!stat) return std::nullopt;  // Evaluated row by row instead.
  const uint32_t field = static_cast<uint32_t>(prop.id);
  switch (c.op) {
    case CompOp::kEq: return table::Predicate::Equal(field, *stat);
    case CompOp::kGt: return table::Predicate{field, *stat, false, {}, true};
    case CompOp::kGe: return table::Predicate{field, *stat, true, {}, true};
    case CompOp::kLt: return table::Predicate{field, {}, true, *stat, false};
    case CompOp::kLe: return table::Predicate{field, {}, true, *stat, true};
    default: return std::nullopt;
  }
}

// The rows a key lookup finds: the row whose id the key constants derive, if it is live.
Result<std::vector<uint32_t>> KeyLookup(ExecContext& ctx, const NodeAccess& a,
                                        const std::vector<Value>& constants,
                                        const TableImage& image) {
  std::vector<Value> key_values;
  for (size_t i : a.key_conds) key_values.push_back(constants[i]);
  Result<std::string> id = schema::DeriveNodeId(*a.type, key_values);
  ++ctx.stats().key_lookups;
  std::vector<uint32_t> rows;
  if (id.ok()) {
    OMNIGRAPH_ASSIGN_OR_RETURN(const int64_t dense, image.Find(*id));
    if (dense >= 0) rows.push_back(static_cast<uint32_t>(dense));
  }
  return rows;
}

// The rows of a scan with the predicates (every row when none converts), ascending.
Result<std::vector<uint32_t>> ScanRows(ExecContext& ctx, const NodeAccess& a,
                                       const std::vector<Value>& constants,
                                       const TableImage& image) {
  std::vector<table::Predicate> predicates;
  for (size_t i : a.pushdown) {
    std::optional<table::Predicate> p = PredicateOf(a, a.conds[i], constants[i]);
    if (p) predicates.push_back(std::move(*p));
  }
  std::vector<uint32_t> rows;
  if (predicates.empty()) {
    rows.resize(image.size());
    for (uint32_t i = 0; i < image.size(); ++i) rows[i] = i;
    return rows;
  }
  table::ScanOptions scan;
  scan.field_ids = {table::kIdFieldId};
  scan.predicates = std::move(predicates);
  table::ScanStats scan_stats;
  OMNIGRAPH_RETURN_IF_ERROR(image.version().Scan(
      scan,
      [&](table::ColumnBatch batch) -> Status {
        const table::Column& ids = batch.column(0);
        for (uint64_t i = 0; i < batch.num_rows(); ++i) {
          OMNIGRAPH_ASSIGN_OR_RETURN(const int64_t dense, image.Find(ids.StringAt(i)));
          if (dense >= 0) rows.push_back(static_cast<uint32_t>(dense));
        }
        return Status::Ok();
      },
      &scan_stats));
  ctx.stats().fragments_total += scan_stats.fragments_total;
  ctx.stats().fragments_skipped += scan_stats.fragments_skipped;
  std::sort(rows.begin(), rows.end());
  return rows;
}

// The rows the access method finds, before the constraints are re-checked.
Result<std::vector<uint32_t>> AccessRows(ExecContext& ctx, const NodeAccess& a,
                                         const TableImage& image) {
  // Constants by constraint index; a null one matches nothing.
  std::vector<Value> constants(a.conds.size());
  for (size_t i : a.constants) {
    OMNIGRAPH_ASSIGN_OR_RETURN(constants[i], ConstantOfCond(ctx, a.conds[i]));
    if (constants[i].is_null()) return std::vector<uint32_t>{};
  }
  switch (a.method) {
    case AccessMethod::kKeyLookup: return KeyLookup(ctx, a, constants, image);
    case AccessMethod::kScan: return ScanRows(ctx, a, constants, image);
    case AccessMethod::kAll:
    case AccessMethod::kFilter: break;
  }
  return DenseRange(image.size());
}

}  // namespace

Result<Candidates*> ComputeCandidates(ExecContext& ctx, ScopeState& scope, const std::string& var) {
  auto it = scope.vars.find(var);
  if (it == scope.vars.end()) return Internal("variable `$" + var + "` has no access plan");
  Candidates& c = it->second;
  if (c.computed) return &c;
  c.computed = true;
  const NodeAccess& a = *c.access;
  OMNIGRAPH_ASSIGN_OR_RETURN(const TableImage* image, ctx.Image(*a.type));
  if (a.method == AccessMethod::kAll) {
    c.all = true;  // `rows` stays empty: every row 0..count-1.
    c.count = image->size();
    return &c;
  }
  // Every constraint, checked on the rows found (the pushed-down ones are cheap re-checks) —
  // except the ones a key lookup answered: the id is derived from the key values, so the row
  // it finds holds exactly those values, and re-reading the key column would read every
  // fragment of the table to check one row. A float key keeps its check: NaN equals no value,
  // yet its text derives an id.
  Frame single;
  single.slots.push_back(Slot{var, SlotKind::kNode, a.type, image});
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<uint32_t> rows, AccessRows(ctx, a, *image));
  single.cols.push_back(std::move(rows));
  single.rows = single.cols[0].size();
  std::vector<PlanCond> checks;
  for (size_t i = 0; i < a.conds.size(); ++i) {
    const bool key = a.method == AccessMethod::kKeyLookup &&
                     std::find(a.key_conds.begin(), a.key_conds.end(), i) != a.key_conds.end();
    const schema::ScalarKind kind =
        key ? PropOfCond(a, a.conds[i]).type.scalar : schema::ScalarKind::kF64;
    if (kind == schema::ScalarKind::kF32 || kind == schema::ScalarKind::kF64) {
      checks.push_back(a.conds[i]);
    }
  }
  OMNIGRAPH_RETURN_IF_ERROR(ctx.FilterRows(single, checks));
  c.rows = std::move(single.cols[0]);
  c.count = c.rows.size();
  // `allowed`, a bit per row of the type, is made by the traversal that needs it (expand.cc
  // OtherAllowed), not here: a point lookup would zero a bit per row for nothing (decision 238).
  return &c;
}

Status BindCrossProduct(ExecContext& ctx, ScopeState& scope, Frame& frame, const std::string& var) {
  OMNIGRAPH_ASSIGN_OR_RETURN(Candidates * c, ComputeCandidates(ctx, scope, var));
  OMNIGRAPH_ASSIGN_OR_RETURN(const TableImage* image, ctx.Image(*c->access->type));
  // Every row of the type is 0 … count − 1: made in the column itself (a million-row scan would
  // otherwise fill a list of them and copy it, twice the fresh pages).
  std::vector<uint32_t> col;
  if (frame.rows == 1) {
    // The first variable bound (or one outer row): each column repeats its one value, with no
    // row map to build.
    if (c->all) {
      col = DenseRange(c->count);
    } else {
      col = c->rows;
    }
    for (std::vector<uint32_t>& other : frame.cols) other.assign(col.size(), other[0]);
    frame.rows = col.size();
  } else {
    std::vector<uint32_t> outer;
    outer.reserve(frame.rows * c->count);
    col.reserve(frame.rows * c->count);
    const auto cross = [&](const auto& rows) {
      for (size_t r = 0; r < frame.rows; ++r) {
        for (uint32_t d : rows) {
          outer.push_back(static_cast<uint32_t>(r));
          col.push_back(d);
        }
      }
    };
    if (c->all) {
      cross(std::ranges::iota_view<uint32_t, uint32_t>(0, static_cast<uint32_t>(c->count)));
    } else {
      cross(c->rows);
    }
    frame.Gather(outer);
  }
  frame.slots.push_back(Slot{var, SlotKind::kNode, c->access->type, image});
  frame.cols.push_back(std::move(col));
  return Status::Ok();
}

Status RunStep(ExecContext& ctx, ScopeState&, Frame& frame, const FilterStep& step) {
  return ctx.FilterRows(frame, step.conds);
}

Status RunStep(ExecContext& ctx, ScopeState& scope, Frame& frame, const CrossJoinStep& step) {
  // Smaller candidate sets first (ties in plan order).
  std::vector<std::pair<size_t, std::string>> order;
  for (const std::string& v : step.vars) {
    OMNIGRAPH_ASSIGN_OR_RETURN(Candidates * c, ComputeCandidates(ctx, scope, v));
    order.emplace_back(c->count, v);
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<bool> done(step.filters.size(), false);
  for (const auto& [count, v] : order) {
    OMNIGRAPH_RETURN_IF_ERROR(BindCrossProduct(ctx, scope, frame, v));
    std::vector<PlanCond> ready;
    for (size_t i = 0; i < step.filters.size(); ++i) {
      bool bound = !done[i];
      for (const std::string& fv : step.filters[i].vars) bound = bound && frame.Find(fv) >= 0;
      if (!bound) continue;
      done[i] = true;
      ready.push_back(step.filters[i]);
    }
    OMNIGRAPH_RETURN_IF_ERROR(ctx.FilterRows(frame, ready));
  }
  return Status::Ok();
}

}  // namespace omnigraph::query::exec
