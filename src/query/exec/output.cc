// The output operators: order, limit, projection, and the aggregate with its ordering over
// result columns (operators.h; docs/design/query-execution.md "Projection, aggregation, order,
// limit").
#include <algorithm>
#include <charconv>
#include <iterator>
#include <optional>
#include <unordered_map>

#include "query/exec/column_codec.h"
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

Status NeedFrameRows(const OutputState& out, const char* op) {
  if (out.materialized) return Internal(std::string(op) + " runs on frame rows, not result rows");
  return Status::Ok();
}

// Whether `prop` is the one key property of node type `type` and a plain String or integer, so
// that every node's value of it is its id read back: DeriveNodeId renders a single String key as
// the text itself and an integer key in decimal (schema/keys.cc, CanonicalKeyText).
// The key value whose id is `id`, as a column of `prop`'s type reads it (I32/I64 as Int, U32/U64
// as UInt); nullopt when the id is not such a value's text, which the caller then reads from the
// fragment instead.
std::optional<Value> KeyOfId(const schema::PropertyDef& prop, std::string_view id) {
  using schema::ScalarKind;
  const ScalarKind k = prop.type.scalar;
  if (k == ScalarKind::kString) return Value::String(std::string(id));
  const char* end = id.data() + id.size();
  if (k == ScalarKind::kI32 || k == ScalarKind::kI64) {
    int64_t v = 0;
    auto [at, ec] = std::from_chars(id.data(), end, v);
    if (ec != std::errc() || at != end) return std::nullopt;
    return Value::Int(v);
  }
  uint64_t v = 0;
  auto [at, ec] = std::from_chars(id.data(), end, v);
  if (ec != std::errc() || at != end) return std::nullopt;
  return Value::UInt(v);
}

}  // namespace

bool IsIdKey(const schema::TypeDef& type, const schema::PropertyDef& prop) {
  using schema::ScalarKind;
  const ScalarKind k = prop.type.scalar;
  const bool textual = k == ScalarKind::kString || k == ScalarKind::kI32 || k == ScalarKind::kI64 ||
                       k == ScalarKind::kU32 || k == ScalarKind::kU64;
  if (type.kind != schema::TypeKind::kNode || !textual || prop.type.list || prop.type.is_enum()) {
    return false;
  }
  const schema::Constraint* key = type.key();
  return key != nullptr && key->fields.size() == 1 && key->fields[0].property_id == prop.id;
}

Result<bool> SparseProperty(const Expr& e, const Frame& frame, std::span<const uint32_t> rows,
                            std::vector<Value>& values) {
  if (e.kind != ExprKind::kProp || e.prop.text.starts_with("@") || rows.empty() ||
      rows.size() > kSparseProjectRowsMax) {
    return false;
  }
  const int slot = frame.Find(e.var.text);
  if (slot < 0) return false;
  const Slot& s = frame.slots[slot];
  if (s.type == nullptr || s.image == nullptr) return false;
  const schema::PropertyDef* prop = s.type->FindProperty(e.prop.text);
  if (prop == nullptr) return false;
  const uint32_t field = static_cast<uint32_t>(prop->id);
  if (s.image->HasColumn(field)) return false;
  std::vector<uint32_t> dense;
  dense.reserve(rows.size());
  for (uint32_t r : rows) dense.push_back(frame.cols[slot][r]);
  if (IsIdKey(*s.type, *prop)) {
    // The node's id is its key's text (docs/design/schema.md): no fragment is read.
    std::vector<Value> keys;
    keys.reserve(dense.size());
    for (uint32_t d : dense) {
      // Fallible: a damaged block of a blocked id index is Corruption naming it (decision 215).
      OMNIGRAPH_ASSIGN_OR_RETURN(const std::string_view id, s.image->IdAt(d));
      std::optional<Value> v = KeyOfId(*prop, id);
      if (!v) break;
      keys.push_back(std::move(*v));
    }
    if (keys.size() == dense.size()) {
      values.insert(values.end(), std::make_move_iterator(keys.begin()),
                    std::make_move_iterator(keys.end()));
      return true;
    }
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(table::Column column, s.image->GatherRows(field, dense));
  values.reserve(dense.size());
  for (size_t k = 0; k < dense.size(); ++k) values.push_back(ValueAt(column, k));
  return true;
}

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
    OMNIGRAPH_ASSIGN_OR_RETURN(
        bool read, SparseProperty(step.columns[i]->expr, out.frame, out.order, sparse[i]));
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

Status RunOutput(ExecContext&, OutputState& out, const SortColumnsStep& step) {
  if (!out.materialized) return Internal("order columns runs on result rows");
  const auto& rows = out.rows;
  // By the columns, then by result row (the aggregate's group order): a total order, so a
  // bounded heap of the first `limit` rows (partial_sort) gives what a stable sort would.
  auto less = [&](uint32_t a, uint32_t b) {
    for (size_t i = 0; i < step.columns.size(); ++i) {
      int c = Value::Compare(rows[a][step.columns[i]], rows[b][step.columns[i]]);
      if (c != 0) return step.descending[i] ? c > 0 : c < 0;
    }
    return a < b;
  };
  if (step.limit && *step.limit < out.order.size()) {
    const auto top = out.order.begin() + static_cast<ptrdiff_t>(*step.limit);
    std::partial_sort(out.order.begin(), top, out.order.end(), less);
    out.order.erase(top, out.order.end());
  } else {
    std::sort(out.order.begin(), out.order.end(), less);
  }
  return Status::Ok();
}

}  // namespace omnigraph::query::exec
