// The read-query executor (executor.h; docs/design/query-execution.md).
#include "query/executor.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "query/column_codec.h"
#include "query/table_schema.h"
#include "schema/keys.h"
#include "table/table_manifest.h"

namespace omnigraph::query {

using schema::PropType;
using schema::ScalarKind;
using schema::TypeDef;
using schema::Value;

namespace {

constexpr uint32_t kNoRow = std::numeric_limits<uint32_t>::max();

enum class SlotKind : uint8_t { kNode, kEdge, kOrigin };

// One bound variable of a frame.
struct Slot {
  std::string name;
  SlotKind kind = SlotKind::kNode;
  const TypeDef* type = nullptr;
  const TableImage* image = nullptr;
};

// The rows of a match so far, column-major: cols[slot][row] is a dense index into the slot's
// table image (or, for the origin slot of a not-block, the outer row number).
struct Frame {
  std::vector<Slot> slots;
  std::vector<std::vector<uint32_t>> cols;
  size_t rows = 1;  // The unit frame: one row binding nothing.

  int Find(std::string_view name) const {
    for (size_t i = 0; i < slots.size(); ++i) {
      if (slots[i].name == name) return static_cast<int>(i);
    }
    return -1;
  }
  // Keeps the rows `keep` (ascending or not; duplicates allowed) in that order.
  void Gather(const std::vector<uint32_t>& keep) {
    for (std::vector<uint32_t>& col : cols) {
      std::vector<uint32_t> next(keep.size());
      for (size_t i = 0; i < keep.size(); ++i) next[i] = col[keep[i]];
      col = std::move(next);
    }
    rows = keep.size();
  }
};

bool IsAnonymous(std::string_view var) { return var == kAnonymousVar; }

// A compiled expression over a frame: a constant, a property or id of a bound slot, or a bound
// entity itself.
struct CExpr {
  enum class Kind : uint8_t { kConst, kProp, kId, kEntity };
  Kind kind = Kind::kConst;
  Value constant;
  int slot = -1;
  const TableImage::ChunkedColumn* column = nullptr;
};

// A condition on one frame row: `left op right` as the typechecker resolved it.
struct Cond {
  CExpr left;
  CExpr right;
  FilterKind kind = FilterKind::kCompare;
  CompOp op = CompOp::kEq;
};

bool ListHas(const Value& list, const Value& item) {
  for (const Value& x : list.list_items()) {
    if (!x.is_null() && Value::Compare(x, item) == 0) return true;
  }
  return false;
}

// NULL never matches (OmniGraph's match semantics).
bool CondHolds(const Cond& cond, const Value& l, const Value& r) {
  if (l.is_null() || r.is_null()) return false;
  switch (cond.kind) {
    case FilterKind::kCompare:
      if (l.tag() == Value::Tag::kList && r.tag() != Value::Tag::kList) {
        // A scalar against a list property: membership (binding semantics).
        return cond.op == CompOp::kEq ? ListHas(l, r) : cond.op == CompOp::kNe && !ListHas(l, r);
      }
      return CompareHolds(cond.op, Value::Compare(l, r));
    case FilterKind::kListContains: return l.tag() == Value::Tag::kList && ListHas(l, r);
    case FilterKind::kStringContains:
      return l.tag() == Value::Tag::kString && r.tag() == Value::Tag::kString &&
             l.string_value().find(r.string_value()) != std::string::npos;
    case FilterKind::kStartsWith:
      return l.tag() == Value::Tag::kString && r.tag() == Value::Tag::kString &&
             l.string_value().starts_with(r.string_value());
    case FilterKind::kTextSearch: return false;
  }
  return false;
}

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

// A constraint on one variable being introduced: a property match of a binding, or a filter
// whose only variable it is.
struct VarConstraint {
  const Expr* left = nullptr;   // For filters.
  const Expr* right = nullptr;  // For filters.
  const PropMatch* match = nullptr;
  FilterKind kind = FilterKind::kCompare;
  CompOp op = CompOp::kEq;
};

// What a scope knows about one variable it introduces.
struct VarInfo {
  SlotKind kind = SlotKind::kNode;
  const TypeDef* type = nullptr;
  std::vector<VarConstraint> constraints;
  // Computed on first use: the dense indices that satisfy every constraint, ascending, and a
  // membership bitmap (empty when every row qualifies).
  bool computed = false;
  std::vector<uint32_t> candidates;
  std::vector<bool> allowed;
  bool all =
      false;  // Every row qualifies (candidates filled only when a cross product needs them).
  size_t count = 0;  // How many qualify.
};

struct TravSpec {
  std::string src;
  std::string dst;
  std::optional<std::string> edge_var;
  const CheckedTraversal* checked = nullptr;
};

struct FilterSpec {
  const Filter* filter = nullptr;
  FilterKind kind = FilterKind::kCompare;
  std::vector<std::string> vars;
};

struct BindFilterSpec {  // A binding on a variable the scope did not introduce.
  std::string var;
  const Binding* binding = nullptr;
};

void CollectVars(const Expr& e, std::vector<std::string>& out) {
  if ((e.kind == ExprKind::kProp || e.kind == ExprKind::kVariable) && !e.var.text.empty()) {
    out.push_back(e.var.text);
  }
  for (const Expr& a : e.args) CollectVars(a, out);
}

bool IsSearchExpr(const Expr& e) {
  switch (e.kind) {
    case ExprKind::kNearest:
    case ExprKind::kSearch:
    case ExprKind::kFuzzy:
    case ExprKind::kMatchText:
    case ExprKind::kBm25:
    case ExprKind::kRrf: return true;
    default: break;
  }
  for (const Expr& a : e.args) {
    if (IsSearchExpr(a)) return true;
  }
  return false;
}

Status SearchUnsupported(const Expr& e) {
  (void)e;
  return Unsupported(
      "search is not supported yet: nearest, bm25, rrf, search, fuzzy and match_text need the "
      "vector and full-text indexes, which this version does not build");
}

class Executor {
 public:
  Executor(const GraphView& view, const CheckedQuery& q, std::span<const Value> params,
           const ExecOptions& options)
      : view_(view), q_(q), params_(params), options_(options) {
    for (const CheckedBinding& b : q.bindings) bindings_[b.clause] = &b;
    for (const CheckedTraversal& t : q.traversals) traversals_[t.clause] = &t;
    for (const CheckedFilter& f : q.filters) filters_[f.clause] = &f;
  }

  Result<QueryResult> Run();

 private:
  Result<const TableImage*> Image(const TypeDef& type);
  Result<const Adjacency*> Adj(const TypeDef& edge);
  const TypeDef* NodeType(const schema::TypeRef& ref) const {
    return view_.catalog().FindById(ref.type_id);
  }

  Status RunScope(const std::vector<Clause>& clauses, Frame& frame);
  Status ComputeCandidates(const std::string& var, VarInfo& info);
  Status BindCrossProduct(Frame& frame, const std::string& var, VarInfo& info);
  Status Expand(Frame& frame, const TravSpec& t, std::map<std::string, VarInfo>& vars);
  Status ApplyNegation(Frame& frame, const Negation& neg);

  // Compiles `e` against the slots of `frame`.
  Result<CExpr> Compile(const Expr& e, const Frame& frame);
  Result<CExpr> CompileMatchValue(const MatchValue& v);
  Result<Value> ConstantOf(const Expr& e);
  Value Eval(const CExpr& e, const Frame& frame, size_t row) const;
  Value EntityValue(const Slot& slot, uint32_t dense) const;
  Status FilterRows(Frame& frame, const std::vector<Cond>& conds);
  Result<Cond> CondOfFilter(const Expr& left, const Expr& right, FilterKind kind, CompOp op,
                            const Frame& frame);
  Result<Cond> CondOfMatch(const PropMatch& m, int slot, const Frame& frame);

  Result<QueryResult> Project(Frame& frame);

  const GraphView& view_;
  const CheckedQuery& q_;
  std::span<const Value> params_;
  ExecOptions options_;
  std::map<const Binding*, const CheckedBinding*> bindings_;
  std::map<const Traversal*, const CheckedTraversal*> traversals_;
  std::map<const Filter*, const CheckedFilter*> filters_;
  std::map<const TypeDef*, std::shared_ptr<const TableImage>> images_;
  std::map<const TypeDef*, std::shared_ptr<const Adjacency>> adjacencies_;
  int anon_ = 0;
  ExecStats stats_;
};

Result<const TableImage*> Executor::Image(const TypeDef& type) {
  auto it = images_.find(&type);
  if (it != images_.end()) return it->second.get();
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::TableVersion> version, view_.Table(type));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const TableImage> image,
                             options_.cache->Image(view_.cache_scope(), version));
  const TableImage* out = image.get();
  images_[&type] = std::move(image);
  return out;
}

Result<const Adjacency*> Executor::Adj(const TypeDef& edge) {
  auto it = adjacencies_.find(&edge);
  if (it != adjacencies_.end()) return it->second.get();
  const TypeDef* from = NodeType(edge.from);
  const TypeDef* to = NodeType(edge.to);
  if (from == nullptr || to == nullptr) {
    return Internal("edge type " + edge.name + " has an unknown endpoint type");
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(const TableImage* edges, Image(edge));
  OMNIGRAPH_ASSIGN_OR_RETURN(const TableImage* from_image, Image(*from));
  OMNIGRAPH_ASSIGN_OR_RETURN(const TableImage* to_image, Image(*to));
  OMNIGRAPH_ASSIGN_OR_RETURN(
      std::shared_ptr<const Adjacency> adj,
      options_.cache->Adjacent(view_.cache_scope(), *edges, *from_image, *to_image));
  const Adjacency* out = adj.get();
  adjacencies_[&edge] = std::move(adj);
  return out;
}

Result<Value> Executor::ConstantOf(const Expr& e) {
  switch (e.kind) {
    case ExprKind::kNow: return Value::DateTime(options_.now_ms);
    case ExprKind::kLiteral: return e.literal.value;
    case ExprKind::kVariable: {
      const QueryDecl& decl = *q_.decl;
      for (size_t i = 0; i < decl.params.size(); ++i) {
        if (decl.params[i].name.text == e.var.text) return params_[i];
      }
      return InvalidArgument("`$" + e.var.text + "` is neither a parameter nor a bound variable");
    }
    default: break;
  }
  return Internal("expression is not a constant");
}

Result<CExpr> Executor::CompileMatchValue(const MatchValue& v) {
  CExpr out;
  switch (v.kind) {
    case MatchValue::Kind::kLiteral: out.constant = v.literal.value; break;
    case MatchValue::Kind::kNow: out.constant = Value::DateTime(options_.now_ms); break;
    case MatchValue::Kind::kVariable: {
      Expr e;
      e.kind = ExprKind::kVariable;
      e.var = v.variable;
      OMNIGRAPH_ASSIGN_OR_RETURN(out.constant, ConstantOf(e));
      break;
    }
  }
  return out;
}

Result<CExpr> Executor::Compile(const Expr& e, const Frame& frame) {
  if (IsSearchExpr(e)) return SearchUnsupported(e);
  CExpr out;
  switch (e.kind) {
    case ExprKind::kProp: {
      int slot = frame.Find(e.var.text);
      if (slot < 0) return Internal("variable `$" + e.var.text + "` is not bound");
      const Slot& s = frame.slots[slot];
      out.slot = slot;
      const schema::PropertyDef* prop = s.type->FindProperty(e.prop.text);
      if (prop == nullptr) {
        if (e.prop.text == "id") {
          out.kind = CExpr::Kind::kId;
          return out;
        }
        return InvalidArgument("type `" + s.type->name + "` has no property `" + e.prop.text + "`");
      }
      out.kind = CExpr::Kind::kProp;
      OMNIGRAPH_ASSIGN_OR_RETURN(out.column, s.image->Column(static_cast<uint32_t>(prop->id)));
      return out;
    }
    case ExprKind::kVariable: {
      int slot = frame.Find(e.var.text);
      if (slot >= 0) {
        out.kind = CExpr::Kind::kEntity;
        out.slot = slot;
        return out;
      }
      OMNIGRAPH_ASSIGN_OR_RETURN(out.constant, ConstantOf(e));
      return out;
    }
    case ExprKind::kNow:
    case ExprKind::kLiteral: {
      OMNIGRAPH_ASSIGN_OR_RETURN(out.constant, ConstantOf(e));
      return out;
    }
    default: break;
  }
  return Internal("expression cannot be evaluated per row");
}

Value Executor::EntityValue(const Slot& slot, uint32_t dense) const {
  std::vector<Value> items;
  items.push_back(Value::String(slot.image->id(dense)));
  for (const schema::PropertyDef& p : slot.type->properties) {
    if (p.type.scalar == ScalarKind::kBlob) {
      items.push_back(Value::Null());
      continue;
    }
    Result<const TableImage::ChunkedColumn*> col = slot.image->Column(static_cast<uint32_t>(p.id));
    items.push_back(col.ok() ? ValueAt((*col)->chunk(dense), TableImage::ChunkedColumn::row(dense))
                             : Value::Null());
  }
  return Value::List(std::move(items));
}

Value Executor::Eval(const CExpr& e, const Frame& frame, size_t row) const {
  switch (e.kind) {
    case CExpr::Kind::kConst: return e.constant;
    case CExpr::Kind::kProp: {
      uint32_t dense = frame.cols[e.slot][row];
      return ValueAt(e.column->chunk(dense), TableImage::ChunkedColumn::row(dense));
    }
    case CExpr::Kind::kId: {
      const Slot& s = frame.slots[e.slot];
      return Value::String(s.image->id(frame.cols[e.slot][row]));
    }
    case CExpr::Kind::kEntity: return EntityValue(frame.slots[e.slot], frame.cols[e.slot][row]);
  }
  return Value();
}

Status Executor::FilterRows(Frame& frame, const std::vector<Cond>& conds) {
  if (conds.empty()) return Status::Ok();
  std::vector<uint32_t> keep;
  keep.reserve(frame.rows);
  for (size_t r = 0; r < frame.rows; ++r) {
    bool ok = true;
    for (const Cond& c : conds) {
      if (!CondHolds(c, Eval(c.left, frame, r), Eval(c.right, frame, r))) {
        ok = false;
        break;
      }
    }
    if (ok) keep.push_back(static_cast<uint32_t>(r));
  }
  if (keep.size() != frame.rows) frame.Gather(keep);
  return Status::Ok();
}

Result<Cond> Executor::CondOfFilter(const Expr& left, const Expr& right, FilterKind kind, CompOp op,
                                    const Frame& frame) {
  if (kind == FilterKind::kTextSearch) return SearchUnsupported(left);
  Cond c;
  c.kind = kind;
  c.op = op;
  OMNIGRAPH_ASSIGN_OR_RETURN(c.left, Compile(left, frame));
  OMNIGRAPH_ASSIGN_OR_RETURN(c.right, Compile(right, frame));
  return c;
}

Result<Cond> Executor::CondOfMatch(const PropMatch& m, int slot, const Frame& frame) {
  Expr prop;
  prop.kind = ExprKind::kProp;
  prop.var.text = frame.slots[slot].name;
  prop.prop = m.prop;
  Cond c;
  OMNIGRAPH_ASSIGN_OR_RETURN(c.left, Compile(prop, frame));
  OMNIGRAPH_ASSIGN_OR_RETURN(c.right, CompileMatchValue(m.value));
  // A scalar against a list property is membership; CondHolds handles it under kCompare/kEq.
  return c;
}

Status Executor::ComputeCandidates(const std::string& var, VarInfo& info) {
  if (info.computed) return Status::Ok();
  info.computed = true;
  OMNIGRAPH_ASSIGN_OR_RETURN(const TableImage* image, Image(*info.type));
  const uint32_t n = image->size();
  if (info.constraints.empty()) {
    info.all = true;  // `candidates` stays empty: every row 0..count-1.
    info.count = n;
    return Status::Ok();
  }
  // Constants of the constraints (a constraint's variable side is its left; a filter written
  // `constant op $v.p` stays a residual condition).
  std::vector<table::Predicate> predicates;
  std::map<uint64_t, Value> key_equalities;
  bool empty = false;
  for (const VarConstraint& c : info.constraints) {
    const Expr* left = c.left;
    Expr match_left;
    Value constant;
    if (c.match != nullptr) {
      CExpr v;
      OMNIGRAPH_ASSIGN_OR_RETURN(v, CompileMatchValue(c.match->value));
      constant = v.constant;
      match_left.kind = ExprKind::kProp;
      match_left.var.text = var;
      match_left.prop = c.match->prop;
      left = &match_left;
    } else {
      if (c.left->kind != ExprKind::kProp) continue;
      if (c.right->kind != ExprKind::kLiteral && c.right->kind != ExprKind::kNow &&
          c.right->kind != ExprKind::kVariable) {
        continue;
      }
      OMNIGRAPH_ASSIGN_OR_RETURN(constant, ConstantOf(*c.right));
    }
    const schema::PropertyDef* prop = info.type->FindProperty(left->prop.text);
    if (prop == nullptr || prop->type.list || prop->type.scalar == ScalarKind::kVector) continue;
    if (constant.is_null()) {
      empty = true;  // NULL never matches.
      continue;
    }
    if (c.kind != FilterKind::kCompare || c.op == CompOp::kNe) continue;
    if (c.op == CompOp::kEq && info.type->IsKeyProperty(prop->id)) {
      key_equalities[prop->id] = constant;
    }
    table::TypeId column_type = ColumnTypeOf(prop->type).id;
    std::optional<table::StatValue> stat = ToStat(constant, column_type);
    if (!stat) continue;  // Evaluated row by row instead.
    const uint32_t field = static_cast<uint32_t>(prop->id);
    switch (c.op) {
      case CompOp::kEq: predicates.push_back(table::Predicate::Equal(field, *stat)); break;
      case CompOp::kGt:
        predicates.push_back(table::Predicate{field, *stat, false, {}, true});
        break;
      case CompOp::kGe: predicates.push_back(table::Predicate{field, *stat, true, {}, true}); break;
      case CompOp::kLt:
        predicates.push_back(table::Predicate{field, {}, true, *stat, false});
        break;
      case CompOp::kLe: predicates.push_back(table::Predicate{field, {}, true, *stat, true}); break;
      default: break;
    }
  }
  std::vector<uint32_t> rows;
  std::vector<schema::PropertyDef const*> key_props = info.type->KeyProperties();
  if (empty) {
    // Nothing qualifies.
  } else if (!key_props.empty() && key_equalities.size() == key_props.size()) {
    // Every key property is fixed: derive the id and look it up.
    std::vector<Value> key_values;
    for (const schema::PropertyDef* p : key_props) key_values.push_back(key_equalities[p->id]);
    Result<std::string> id = schema::DeriveNodeId(*info.type, key_values);
    ++stats_.key_lookups;
    if (id.ok()) {
      int64_t dense = image->Find(*id);
      if (dense >= 0) rows.push_back(static_cast<uint32_t>(dense));
    }
  } else if (!predicates.empty()) {
    table::ScanOptions scan;
    scan.field_ids = {table::kIdFieldId};
    scan.predicates = std::move(predicates);
    table::ScanStats scan_stats;
    OMNIGRAPH_RETURN_IF_ERROR(image->version().Scan(
        scan,
        [&](table::ColumnBatch batch) -> Status {
          const table::Column& ids = batch.column(0);
          for (uint64_t i = 0; i < batch.num_rows(); ++i) {
            int64_t dense = image->Find(ids.StringAt(i));
            if (dense >= 0) rows.push_back(static_cast<uint32_t>(dense));
          }
          return Status::Ok();
        },
        &scan_stats));
    stats_.fragments_total += scan_stats.fragments_total;
    stats_.fragments_skipped += scan_stats.fragments_skipped;
    std::sort(rows.begin(), rows.end());
  } else {
    rows.resize(n);
    for (uint32_t i = 0; i < n; ++i) rows[i] = i;
  }
  // Every constraint, checked on the surviving rows (the pushed-down ones are cheap re-checks).
  Frame single;
  single.slots.push_back(Slot{var, SlotKind::kNode, info.type, image});
  single.cols.push_back(std::move(rows));
  single.rows = single.cols[0].size();
  std::vector<Cond> conds;
  for (const VarConstraint& c : info.constraints) {
    if (c.match != nullptr) {
      OMNIGRAPH_ASSIGN_OR_RETURN(Cond cond, CondOfMatch(*c.match, 0, single));
      conds.push_back(std::move(cond));
    } else {
      OMNIGRAPH_ASSIGN_OR_RETURN(Cond cond, CondOfFilter(*c.left, *c.right, c.kind, c.op, single));
      conds.push_back(std::move(cond));
    }
  }
  OMNIGRAPH_RETURN_IF_ERROR(FilterRows(single, conds));
  info.candidates = std::move(single.cols[0]);
  info.count = info.candidates.size();
  info.allowed.assign(n, false);
  for (uint32_t d : info.candidates) info.allowed[d] = true;
  return Status::Ok();
}

Status Executor::BindCrossProduct(Frame& frame, const std::string& var, VarInfo& info) {
  OMNIGRAPH_RETURN_IF_ERROR(ComputeCandidates(var, info));
  OMNIGRAPH_ASSIGN_OR_RETURN(const TableImage* image, Image(*info.type));
  if (info.all && info.candidates.size() != info.count) {
    info.candidates.resize(info.count);
    for (uint32_t i = 0; i < info.count; ++i) info.candidates[i] = i;
  }
  const size_t c = info.candidates.size();
  std::vector<uint32_t> outer;
  outer.reserve(frame.rows * c);
  std::vector<uint32_t> col;
  col.reserve(frame.rows * c);
  for (size_t r = 0; r < frame.rows; ++r) {
    for (uint32_t d : info.candidates) {
      outer.push_back(static_cast<uint32_t>(r));
      col.push_back(d);
    }
  }
  frame.Gather(outer);
  frame.slots.push_back(Slot{var, SlotKind::kNode, info.type, image});
  frame.cols.push_back(std::move(col));
  return Status::Ok();
}

// Breadth-first search with the reference's semantics: each node is visited at most once per
// source (at its shortest distance); a node is emitted when reached at a hop within
// [min, max]; a self-edge emits its node without entering the frontier; the source returns
// only through its own self-loop. Edges between two different node types cannot chain, so
// their traversals are single-hop.
// A set of node numbers that is cleared in O(1): an epoch per node when many searches share it,
// or a hash set when only a few searches run over a large graph (allocating and zeroing a
// per-node array would dominate a single small search).
class Marks {
 public:
  Marks(uint32_t nodes, bool dense) : dense_(dense) {
    if (dense_) epochs_.assign(nodes, 0);
  }
  void Clear() {
    if (dense_) {
      ++epoch_;
    } else {
      set_.clear();
    }
  }
  // True when `v` was not in the set (and adds it).
  bool Insert(uint32_t v) {
    if (!dense_) return set_.insert(v).second;
    if (epochs_[v] == epoch_) return false;
    epochs_[v] = epoch_;
    return true;
  }

 private:
  bool dense_;
  uint32_t epoch_ = 1;
  std::vector<uint32_t> epochs_;
  std::unordered_set<uint32_t> set_;
};

// Breadth-first search with the reference's semantics: each node is visited at most once per
// source (at its shortest distance); a node is emitted when reached at a hop within
// [min, max]; a self-edge emits its node without entering the frontier; the source returns
// only through its own self-loop. Edges between two different node types cannot chain, so
// their traversals are single-hop.
class Bfs {
 public:
  // `nodes`: the size of the node numbering the search walks (both ends, for same-type edges;
  // the target side otherwise). `searches`: about how many sources will be searched.
  Bfs(const Adjacency& adj, Direction dir, bool same_type, uint32_t min_hops, uint32_t max_hops,
      uint32_t nodes, size_t searches)
      : adj_(adj),
        dir_(dir),
        same_type_(same_type),
        min_(min_hops),
        max_(same_type ? max_hops : std::min<uint32_t>(max_hops, 1)),
        visited_(nodes, searches > 16 || nodes <= 4096),
        emitted_(nodes, searches > 16 || nodes <= 4096) {}

  // The nodes reached from `start`, in discovery order.
  const std::vector<uint32_t>& Run(uint32_t start) {
    visited_.Clear();
    emitted_.Clear();
    out_.clear();
    frontier_.assign(1, start);
    if (same_type_) visited_.Insert(start);
    for (uint32_t hop = 1; hop <= max_ && !frontier_.empty(); ++hop) {
      next_.clear();
      for (uint32_t node : frontier_) {
        auto visit = [&](uint32_t neighbor) {
          if (same_type_ && neighbor == node) {
            if (hop >= min_ && emitted_.Insert(neighbor)) out_.push_back(neighbor);
            return;
          }
          if (!same_type_ || visited_.Insert(neighbor)) {
            next_.push_back(neighbor);
            if (hop >= min_ && emitted_.Insert(neighbor)) out_.push_back(neighbor);
          }
        };
        if (dir_ == Direction::kOut || dir_ == Direction::kBoth) {
          for (uint32_t n : adj_.out.Targets(node)) visit(n);
        }
        if (dir_ == Direction::kIn || dir_ == Direction::kBoth) {
          for (uint32_t n : adj_.in.Targets(node)) visit(n);
        }
      }
      frontier_.swap(next_);
    }
    return out_;
  }

 private:
  const Adjacency& adj_;
  Direction dir_;
  bool same_type_;
  uint32_t min_;
  uint32_t max_;
  Marks visited_;
  Marks emitted_;
  std::vector<uint32_t> frontier_, next_, out_;
};

Direction Reverse(Direction d) {
  return d == Direction::kOut ? Direction::kIn : d == Direction::kIn ? Direction::kOut : d;
}

Status Executor::Expand(Frame& frame, const TravSpec& t, std::map<std::string, VarInfo>& vars) {
  const CheckedTraversal& ct = *t.checked;
  const TypeDef& edge = *ct.edge;
  OMNIGRAPH_ASSIGN_OR_RETURN(const Adjacency* adj, Adj(edge));
  int src_slot = frame.Find(t.src);
  int dst_slot = frame.Find(t.dst);
  // Restriction of a variable this step introduces to its candidates.
  auto allowed = [&](const std::string& var) -> Result<const std::vector<bool>*> {
    auto it = vars.find(var);
    if (it == vars.end()) return static_cast<const std::vector<bool>*>(nullptr);
    OMNIGRAPH_RETURN_IF_ERROR(ComputeCandidates(var, it->second));
    return it->second.all ? nullptr : &it->second.allowed;
  };

  if (t.edge_var) {
    // One row per edge (single hop), from whichever endpoint is bound.
    bool from_src = src_slot >= 0 || dst_slot < 0;
    if (src_slot < 0 && dst_slot < 0) {
      OMNIGRAPH_RETURN_IF_ERROR(BindCrossProduct(frame, t.src, vars[t.src]));
      src_slot = frame.Find(t.src);
    }
    const int start_slot = from_src ? src_slot : dst_slot;
    const int other_slot = from_src ? dst_slot : src_slot;
    const std::string& other_var = from_src ? t.dst : t.src;
    Direction dir = from_src ? ct.direction : Reverse(ct.direction);
    OMNIGRAPH_ASSIGN_OR_RETURN(const std::vector<bool>* other_allowed, allowed(other_var));
    std::vector<uint32_t> outer, other, edges;
    for (size_t r = 0; r < frame.rows; ++r) {
      uint32_t s = frame.cols[start_slot][r];
      auto emit = [&](uint32_t o, uint32_t e) {
        if (other_slot >= 0 && frame.cols[other_slot][r] != o) return;
        if (other_slot < 0 && other_allowed != nullptr && !(*other_allowed)[o]) return;
        outer.push_back(static_cast<uint32_t>(r));
        other.push_back(o);
        edges.push_back(e);
      };
      if (dir == Direction::kOut || dir == Direction::kBoth) {
        auto ts = adj->out.Targets(s);
        auto es = adj->out.Edges(s);
        for (size_t i = 0; i < ts.size(); ++i) emit(ts[i], es[i]);
      }
      if (dir == Direction::kIn || dir == Direction::kBoth) {
        auto ts = adj->in.Targets(s);
        auto es = adj->in.Edges(s);
        for (size_t i = 0; i < ts.size(); ++i) {
          // Undirected: a self-loop matches through both orientations; emit it once.
          if (dir == Direction::kBoth && adj->edge_src[es[i]] == adj->edge_dst[es[i]]) continue;
          emit(ts[i], es[i]);
        }
      }
    }
    frame.Gather(outer);
    if (other_slot < 0) {
      const TypeDef* other_type = from_src ? ct.dst_type : ct.src_type;
      OMNIGRAPH_ASSIGN_OR_RETURN(const TableImage* image, Image(*other_type));
      frame.slots.push_back(Slot{other_var, SlotKind::kNode, other_type, image});
      frame.cols.push_back(std::move(other));
    }
    OMNIGRAPH_ASSIGN_OR_RETURN(const TableImage* edge_image, Image(edge));
    frame.slots.push_back(Slot{*t.edge_var, SlotKind::kEdge, &edge, edge_image});
    frame.cols.push_back(std::move(edges));
    return Status::Ok();
  }

  const uint32_t min_hops = ct.clause->min_hops;
  const uint32_t max_hops = ct.clause->max_hops.value_or(std::max<uint32_t>(min_hops, 1));
  const TypeDef* from = NodeType(edge.from);
  const TypeDef* to = NodeType(edge.to);
  const bool same_type = from == to;
  // Start from src (the reference's direction); a single-hop traversal whose dst alone is bound
  // is symmetric and may start from dst.
  bool from_src = true;
  if (src_slot < 0 && dst_slot >= 0 && min_hops == 1 && max_hops == 1) from_src = false;
  if (from_src && src_slot < 0) {
    OMNIGRAPH_RETURN_IF_ERROR(BindCrossProduct(frame, t.src, vars[t.src]));
    src_slot = frame.Find(t.src);
  }
  const int start_slot = from_src ? src_slot : dst_slot;
  const int other_slot = from_src ? dst_slot : src_slot;
  const std::string& other_var = from_src ? t.dst : t.src;
  Direction dir = from_src ? ct.direction : Reverse(ct.direction);
  // Reached nodes are numbered on the target side: `to` for kOut, `from` for kIn (both sides
  // are one type for kBoth and for same-type edges).
  const uint32_t reached_nodes = static_cast<uint32_t>(
      (dir == Direction::kOut ? adj->in.offsets.size() : adj->out.offsets.size()) - 1);
  Bfs bfs(*adj, dir, same_type, min_hops, max_hops, std::max<uint32_t>(reached_nodes, 1),
          frame.rows);
  OMNIGRAPH_ASSIGN_OR_RETURN(const std::vector<bool>* other_allowed, allowed(other_var));
  std::unordered_map<uint32_t, std::vector<uint32_t>> memo;
  std::vector<uint32_t> outer, other;
  for (size_t r = 0; r < frame.rows; ++r) {
    uint32_t s = frame.cols[start_slot][r];
    auto it = memo.find(s);
    if (it == memo.end()) {
      std::vector<uint32_t> reached = bfs.Run(s);
      if (other_slot >= 0) std::sort(reached.begin(), reached.end());
      it = memo.emplace(s, std::move(reached)).first;
    }
    const std::vector<uint32_t>& reached = it->second;
    if (other_slot >= 0) {
      if (std::binary_search(reached.begin(), reached.end(), frame.cols[other_slot][r])) {
        outer.push_back(static_cast<uint32_t>(r));
      }
      continue;
    }
    for (uint32_t o : reached) {
      if (other_allowed != nullptr && !(*other_allowed)[o]) continue;
      outer.push_back(static_cast<uint32_t>(r));
      other.push_back(o);
    }
  }
  frame.Gather(outer);
  if (other_slot < 0) {
    const TypeDef* other_type = from_src ? ct.dst_type : ct.src_type;
    OMNIGRAPH_ASSIGN_OR_RETURN(const TableImage* image, Image(*other_type));
    frame.slots.push_back(Slot{other_var, SlotKind::kNode, other_type, image});
    frame.cols.push_back(std::move(other));
  }
  return Status::Ok();
}

Status Executor::ApplyNegation(Frame& frame, const Negation& neg) {
  if (frame.rows == 0) return Status::Ok();
  Frame inner = frame;
  std::vector<uint32_t> origin(frame.rows);
  for (uint32_t r = 0; r < frame.rows; ++r) origin[r] = r;
  // This block's origin column is the one it appends. A nested block's frame already holds the
  // origin columns of the blocks around it (all hidden, all unnamed to queries), so it is found
  // by position, never by name: the first one would number the rows of an outer frame.
  const size_t origin_slot = inner.slots.size();
  inner.slots.push_back(Slot{"#origin", SlotKind::kOrigin, nullptr, nullptr});
  inner.cols.push_back(std::move(origin));
  OMNIGRAPH_RETURN_IF_ERROR(RunScope(neg.clauses, inner));
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

Status Executor::RunScope(const std::vector<Clause>& clauses, Frame& frame) {
  std::map<std::string, VarInfo> vars;  // Introduced by this scope.
  std::vector<std::string> var_order;
  std::vector<TravSpec> travs;
  std::vector<FilterSpec> filters;
  std::vector<BindFilterSpec> outer_bindings;
  std::vector<const Negation*> negations;

  auto introduce = [&](const std::string& name, SlotKind kind, const TypeDef* type) {
    if (frame.Find(name) >= 0) return;
    auto [it, inserted] = vars.try_emplace(name);
    if (inserted) {
      it->second.kind = kind;
      it->second.type = type;
      var_order.push_back(name);
    }
  };
  auto fresh = [&](const std::string& name) {
    return IsAnonymous(name) ? "_#" + std::to_string(anon_++) : name;
  };

  for (const Clause& clause : clauses) {
    if (const Binding* b = clause.binding()) {
      auto it = bindings_.find(b);
      if (it == bindings_.end()) return Internal("binding was not typechecked");
      std::string name = fresh(b->var.text);
      if (frame.Find(name) >= 0) {
        outer_bindings.push_back(BindFilterSpec{name, b});
        continue;
      }
      introduce(name, SlotKind::kNode, it->second->type);
      for (const PropMatch& m : b->props) {
        VarConstraint c;
        c.match = &m;
        vars[name].constraints.push_back(c);
      }
    } else if (const Traversal* t = clause.traversal()) {
      auto it = traversals_.find(t);
      if (it == traversals_.end()) return Internal("traversal was not typechecked");
      TravSpec spec;
      spec.checked = it->second;
      spec.src = fresh(t->src.text);
      spec.dst = fresh(t->dst.text);
      if (t->edge_var) spec.edge_var = fresh(t->edge_var->text);
      introduce(spec.src, SlotKind::kNode, it->second->src_type);
      introduce(spec.dst, SlotKind::kNode, it->second->dst_type);
      travs.push_back(std::move(spec));
    } else if (const Filter* f = clause.filter()) {
      auto it = filters_.find(f);
      if (it == filters_.end()) return Internal("filter was not typechecked");
      if (f->text_search || it->second->kind == FilterKind::kTextSearch) {
        return SearchUnsupported(f->left);
      }
      if (IsSearchExpr(f->left) || IsSearchExpr(f->right)) return SearchUnsupported(f->left);
      FilterSpec spec{f, it->second->kind, {}};
      CollectVars(f->left, spec.vars);
      CollectVars(f->right, spec.vars);
      filters.push_back(std::move(spec));
    } else if (const Negation* n = clause.negation()) {
      negations.push_back(n);
    }
  }
  // Parameters are not variables of the frame.
  auto is_param = [&](const std::string& v) { return q_.decl->FindParam(v) != nullptr; };
  for (FilterSpec& f : filters) {
    std::vector<std::string> vs;
    for (const std::string& v : f.vars) {
      if (!is_param(v) || frame.Find(v) >= 0 || vars.count(v)) vs.push_back(v);
    }
    std::sort(vs.begin(), vs.end());
    vs.erase(std::unique(vs.begin(), vs.end()), vs.end());
    f.vars = std::move(vs);
  }
  // A filter on one introduced node variable, with the variable's property on the left, becomes
  // a constraint of that variable (pushed into its scan).
  std::vector<bool> filter_done(filters.size(), false);
  for (size_t i = 0; i < filters.size(); ++i) {
    const FilterSpec& f = filters[i];
    if (f.vars.size() != 1) continue;
    auto it = vars.find(f.vars[0]);
    if (it == vars.end() || it->second.kind != SlotKind::kNode) continue;
    if (f.filter->left.kind != ExprKind::kProp || f.filter->left.var.text != f.vars[0]) continue;
    VarConstraint c;
    c.left = &f.filter->left;
    c.right = &f.filter->right;
    c.kind = f.kind;
    c.op = f.filter->op;
    it->second.constraints.push_back(c);
    filter_done[i] = true;
  }

  auto apply_ready = [&]() -> Status {
    std::vector<Cond> conds;
    for (size_t i = 0; i < filters.size(); ++i) {
      if (filter_done[i]) continue;
      bool ready = true;
      for (const std::string& v : filters[i].vars) ready = ready && frame.Find(v) >= 0;
      if (!ready) continue;
      filter_done[i] = true;
      OMNIGRAPH_ASSIGN_OR_RETURN(
          Cond c, CondOfFilter(filters[i].filter->left, filters[i].filter->right, filters[i].kind,
                               filters[i].filter->op, frame));
      conds.push_back(std::move(c));
    }
    return FilterRows(frame, conds);
  };

  // Bindings of variables bound outside this scope are conditions on the incoming rows.
  {
    std::vector<Cond> conds;
    for (const BindFilterSpec& b : outer_bindings) {
      int slot = frame.Find(b.var);
      for (const PropMatch& m : b.binding->props) {
        OMNIGRAPH_ASSIGN_OR_RETURN(Cond c, CondOfMatch(m, slot, frame));
        conds.push_back(std::move(c));
      }
    }
    OMNIGRAPH_RETURN_IF_ERROR(FilterRows(frame, conds));
  }
  OMNIGRAPH_RETURN_IF_ERROR(apply_ready());

  std::vector<bool> trav_done(travs.size(), false);
  size_t remaining = travs.size();
  while (remaining > 0) {
    // A traversal with a bound endpoint, else the first one (its source is bound by a scan).
    size_t pick = travs.size();
    for (size_t i = 0; i < travs.size() && pick == travs.size(); ++i) {
      if (!trav_done[i] && (frame.Find(travs[i].src) >= 0 || frame.Find(travs[i].dst) >= 0)) {
        pick = i;
      }
    }
    if (pick == travs.size()) {
      for (size_t i = 0; i < travs.size(); ++i) {
        if (!trav_done[i]) {
          pick = i;
          break;
        }
      }
    }
    OMNIGRAPH_RETURN_IF_ERROR(Expand(frame, travs[pick], vars));
    trav_done[pick] = true;
    --remaining;
    OMNIGRAPH_RETURN_IF_ERROR(apply_ready());
  }
  // Variables bound by bindings alone: smaller candidate sets first.
  std::vector<std::string> unbound;
  for (const std::string& v : var_order) {
    if (frame.Find(v) < 0 && vars[v].kind == SlotKind::kNode) unbound.push_back(v);
  }
  for (const std::string& v : unbound) OMNIGRAPH_RETURN_IF_ERROR(ComputeCandidates(v, vars[v]));
  std::stable_sort(unbound.begin(), unbound.end(), [&](const std::string& a, const std::string& b) {
    return vars[a].count < vars[b].count;
  });
  for (const std::string& v : unbound) {
    OMNIGRAPH_RETURN_IF_ERROR(BindCrossProduct(frame, v, vars[v]));
    OMNIGRAPH_RETURN_IF_ERROR(apply_ready());
  }
  for (size_t i = 0; i < filters.size(); ++i) {
    if (!filter_done[i]) return Internal("a filter references an unbound variable");
  }
  for (const Negation* n : negations) OMNIGRAPH_RETURN_IF_ERROR(ApplyNegation(frame, *n));
  return Status::Ok();
}

// The tie-break slots of the total order: every named entity, by variable name.
std::vector<int> TieSlots(const Frame& frame) {
  std::vector<std::pair<std::string, int>> named;
  for (size_t i = 0; i < frame.slots.size(); ++i) {
    const Slot& s = frame.slots[i];
    if (s.kind == SlotKind::kOrigin || s.name.starts_with("_#")) continue;
    named.emplace_back(s.name, static_cast<int>(i));
  }
  std::sort(named.begin(), named.end());
  std::vector<int> out;
  for (const auto& [name, slot] : named) out.push_back(slot);
  return out;
}

bool IsAggregate(const Expr& e) { return e.kind == ExprKind::kAggregate; }

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

int CompareKeys(const std::vector<Value>& a, const std::vector<Value>& b,
                const std::vector<bool>& descending) {
  for (size_t i = 0; i < a.size(); ++i) {
    int c = Value::Compare(a[i], b[i]);
    if (c != 0) return descending[i] ? -c : c;
  }
  return 0;
}

Result<QueryResult> Executor::Project(Frame& frame) {
  const QueryDecl& decl = *q_.decl;
  QueryResult result;
  result.columns = q_.columns;
  stats_.rows_matched = frame.rows;
  for (const Projection& p : decl.projections) {
    if (IsSearchExpr(p.expr)) return SearchUnsupported(p.expr);
  }
  for (const Ordering& o : decl.orderings) {
    if (IsSearchExpr(o.expr)) return SearchUnsupported(o.expr);
  }
  // Row order before grouping/ordering: by entity ids (deterministic, and the tie-break).
  std::vector<int> ties = TieSlots(frame);
  std::vector<uint32_t> order(frame.rows);
  for (uint32_t r = 0; r < frame.rows; ++r) order[r] = r;
  auto tie_less = [&](uint32_t a, uint32_t b) {
    for (int s : ties) {
      uint32_t x = frame.cols[s][a], y = frame.cols[s][b];
      if (x != y) return x < y;
    }
    return a < b;
  };
  auto alias_index = [&](const std::string& alias) -> int {
    for (size_t i = 0; i < decl.projections.size(); ++i) {
      if (q_.columns[i].name == alias) return static_cast<int>(i);
    }
    return -1;
  };
  std::vector<bool> descending;
  for (const Ordering& o : decl.orderings) descending.push_back(o.descending);
  const uint64_t limit = decl.limit.value_or(std::numeric_limits<uint64_t>::max());

  if (!q_.has_aggregates) {
    std::vector<CExpr> proj;
    for (const Projection& p : decl.projections) {
      OMNIGRAPH_ASSIGN_OR_RETURN(CExpr e, Compile(p.expr, frame));
      proj.push_back(std::move(e));
    }
    std::vector<CExpr> keys;
    for (const Ordering& o : decl.orderings) {
      if (o.expr.kind == ExprKind::kAlias) {
        int i = alias_index(o.expr.alias.text);
        if (i < 0) return InvalidArgument("order by unknown alias `" + o.expr.alias.text + "`");
        keys.push_back(proj[i]);
      } else {
        OMNIGRAPH_ASSIGN_OR_RETURN(CExpr e, Compile(o.expr, frame));
        keys.push_back(std::move(e));
      }
    }
    if (keys.empty()) {
      std::sort(order.begin(), order.end(), tie_less);
    } else {
      std::vector<std::vector<Value>> kv(frame.rows);
      for (uint32_t r = 0; r < frame.rows; ++r) {
        for (const CExpr& k : keys) kv[r].push_back(Eval(k, frame, r));
      }
      auto less = [&](uint32_t a, uint32_t b) {
        int c = CompareKeys(kv[a], kv[b], descending);
        return c != 0 ? c < 0 : tie_less(a, b);
      };
      if (limit < order.size()) {
        std::partial_sort(order.begin(), order.begin() + static_cast<ptrdiff_t>(limit), order.end(),
                          less);
      } else {
        std::sort(order.begin(), order.end(), less);
      }
    }
    const size_t n = std::min<uint64_t>(limit, order.size());
    for (size_t i = 0; i < n; ++i) {
      std::vector<Value> row;
      for (const CExpr& e : proj) row.push_back(Eval(e, frame, order[i]));
      result.rows.push_back(std::move(row));
    }
    result.stats = stats_;
    return result;
  }

  // Aggregates: group by every non-aggregate projection.
  std::sort(order.begin(), order.end(), tie_less);
  struct Col {
    bool aggregate = false;
    AggFunc func = AggFunc::kCount;
    CExpr expr;
  };
  std::vector<Col> cols;
  for (const Projection& p : decl.projections) {
    Col c;
    if (IsAggregate(p.expr)) {
      c.aggregate = true;
      c.func = p.expr.agg;
      OMNIGRAPH_ASSIGN_OR_RETURN(c.expr, Compile(p.expr.args.at(0), frame));
      // An entity argument only needs to be non-null (count): its id will do.
      if (c.expr.kind == CExpr::Kind::kEntity) c.expr.kind = CExpr::Kind::kId;
    } else {
      OMNIGRAPH_ASSIGN_OR_RETURN(c.expr, Compile(p.expr, frame));
    }
    cols.push_back(std::move(c));
  }
  struct Group {
    std::vector<Value> keys;
    std::vector<std::vector<Value>> args;  // Per aggregate column.
  };
  std::vector<Group> groups;
  std::unordered_map<size_t, std::vector<size_t>> by_hash;
  for (uint32_t r : order) {
    std::vector<Value> keys;
    size_t h = 0;
    for (const Col& c : cols) {
      if (c.aggregate) continue;
      keys.push_back(Eval(c.expr, frame, r));
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
      for (const Col& c : cols) {
        if (c.aggregate) ng.args.emplace_back();
      }
      groups.push_back(std::move(ng));
    }
    size_t a = 0;
    for (const Col& c : cols) {
      if (c.aggregate) groups[g].args[a++].push_back(Eval(c.expr, frame, r));
    }
  }
  bool all_aggregate = true;
  for (const Col& c : cols) all_aggregate = all_aggregate && c.aggregate;
  if (groups.empty() && all_aggregate) {
    Group g;
    for (size_t i = 0; i < cols.size(); ++i) g.args.emplace_back();
    groups.push_back(std::move(g));
  }
  std::vector<std::vector<Value>> rows;
  for (Group& g : groups) {
    std::vector<Value> row;
    size_t k = 0, a = 0;
    for (const Col& c : cols) {
      row.push_back(c.aggregate ? Aggregate(c.func, g.args[a++]) : std::move(g.keys[k++]));
    }
    rows.push_back(std::move(row));
  }
  // Ordering over result columns: an alias, or a projected property.
  std::vector<int> key_cols;
  for (const Ordering& o : decl.orderings) {
    int idx = -1;
    if (o.expr.kind == ExprKind::kAlias) {
      idx = alias_index(o.expr.alias.text);
    } else {
      for (size_t i = 0; i < decl.projections.size() && idx < 0; ++i) {
        const Expr& p = decl.projections[i].expr;
        if (p.kind == o.expr.kind && p.var.text == o.expr.var.text &&
            p.prop.text == o.expr.prop.text) {
          idx = static_cast<int>(i);
        }
      }
    }
    if (idx < 0) {
      return InvalidArgument(
          "an aggregate query can only order by its result columns (a projected property or an "
          "alias)");
    }
    key_cols.push_back(idx);
  }
  std::vector<uint32_t> row_order(rows.size());
  for (uint32_t i = 0; i < rows.size(); ++i) row_order[i] = i;
  if (!key_cols.empty()) {
    std::stable_sort(row_order.begin(), row_order.end(), [&](uint32_t a, uint32_t b) {
      for (size_t i = 0; i < key_cols.size(); ++i) {
        int c = Value::Compare(rows[a][key_cols[i]], rows[b][key_cols[i]]);
        if (c != 0) return descending[i] ? c > 0 : c < 0;
      }
      return false;
    });
  }
  const size_t n = std::min<uint64_t>(limit, row_order.size());
  for (size_t i = 0; i < n; ++i) result.rows.push_back(std::move(rows[row_order[i]]));
  result.stats = stats_;
  return result;
}

Result<QueryResult> Executor::Run() {
  if (q_.kind != QueryKind::kRead) {
    return InvalidArgument("query `" + q_.decl->name.text + "` is a mutation, not a read query");
  }
  if (options_.cache == nullptr) return Internal("ExecOptions::cache is required");
  if (params_.size() != q_.decl->params.size()) {
    return Internal("parameter values do not match the query's parameters");
  }
  Frame frame;
  OMNIGRAPH_RETURN_IF_ERROR(RunScope(q_.decl->clauses, frame));
  return Project(frame);
}

}  // namespace

Result<QueryResult> Execute(const GraphView& view, const CheckedQuery& checked,
                            std::span<const Value> params, const ExecOptions& options) {
  Executor executor(view, checked, params, options);
  return executor.Run();
}

}  // namespace omnigraph::query
