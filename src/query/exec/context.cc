// Frames, compiled expressions and the run state shared by every operator (context.h, frame.h).
#include "query/exec/context.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <unordered_set>

#include "query/exec/column_codec.h"
#include "query/exec/text.h"
#include "table/table_context.h"

namespace omnigraph::query::exec {

using schema::ScalarKind;
using schema::TypeDef;
using schema::Value;

int Frame::Find(std::string_view name) const {
  for (size_t i = 0; i < slots.size(); ++i) {
    if (slots[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

namespace {

// Counts up from a value: the iterator a vector is filled from in one pass (random access, so the
// vector sizes itself once and writes each element once, without zeroing them first).
struct CountingIterator {
  using iterator_category = std::random_access_iterator_tag;
  using value_type = uint32_t;
  using difference_type = std::ptrdiff_t;
  using pointer = const uint32_t*;
  using reference = uint32_t;
  uint32_t at = 0;
  uint32_t operator*() const { return at; }
  CountingIterator& operator++() {
    ++at;
    return *this;
  }
  CountingIterator operator++(int) { return {at++}; }
  difference_type operator-(const CountingIterator& o) const {
    return static_cast<difference_type>(at) - static_cast<difference_type>(o.at);
  }
  bool operator==(const CountingIterator& o) const { return at == o.at; }
};

}  // namespace

std::vector<uint32_t> DenseRange(size_t n) {
  return std::vector<uint32_t>(CountingIterator{0}, CountingIterator{static_cast<uint32_t>(n)});
}

void Frame::Gather(const std::vector<uint32_t>& keep) {
  for (std::vector<uint32_t>& col : cols) {
    std::vector<uint32_t> next(keep.size());
    for (size_t i = 0; i < keep.size(); ++i) next[i] = col[keep[i]];
    col = std::move(next);
  }
  rows = keep.size();
}

double SquaredL2Distance(std::span<const float> a, std::span<const float> b) {
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double d = static_cast<double>(a[i]) - b[i];
    sum += d * d;
  }
  return static_cast<float>(sum);
}

namespace {

bool ListHas(const Value& list, const Value& item) {
  for (const Value& x : list.list_items()) {
    if (!x.is_null() && Value::Compare(x, item) == 0) return true;
  }
  return false;
}

}  // namespace

// 2^53 + 1 equals the F64 2^53 (frame.h).
int CompareForFilter(const Value& l, const Value& r) {
  auto is_int = [](const Value& v) {
    return v.tag() == Value::Tag::kInt || v.tag() == Value::Tag::kUInt;
  };
  auto as_f64 = [](const Value& v) {
    return v.tag() == Value::Tag::kFloat ? v.float_value()
           : v.tag() == Value::Tag::kInt ? static_cast<double>(v.int_value())
                                         : static_cast<double>(v.uint_value());
  };
  const bool mixed =
      (is_int(l) && r.tag() == Value::Tag::kFloat) || (l.tag() == Value::Tag::kFloat && is_int(r));
  if (!mixed) return Value::Compare(l, r);
  const double a = as_f64(l), b = as_f64(r);
  if (std::isnan(a) || std::isnan(b)) return Value::Compare(l, r);
  return a < b ? -1 : a > b ? 1 : 0;
}

bool CondHolds(const Cond& cond, const Value& l, const Value& r) {
  if (l.is_null() || r.is_null()) return false;
  switch (cond.kind) {
    case FilterKind::kCompare:
      if (l.tag() == Value::Tag::kList && r.tag() != Value::Tag::kList) {
        // A scalar against a list property: membership (binding semantics).
        return cond.op == CompOp::kEq ? ListHas(l, r) : cond.op == CompOp::kNe && !ListHas(l, r);
      }
      return CompareHolds(cond.op, CompareForFilter(l, r));
    case FilterKind::kListContains: return l.tag() == Value::Tag::kList && ListHas(l, r);
    case FilterKind::kStringContains:
      return l.tag() == Value::Tag::kString && r.tag() == Value::Tag::kString &&
             l.string_value().find(r.string_value()) != std::string::npos;
    case FilterKind::kStartsWith:
      return l.tag() == Value::Tag::kString && r.tag() == Value::Tag::kString &&
             l.string_value().starts_with(r.string_value());
    case FilterKind::kTextSearch: return CompareHolds(cond.op, Value::Compare(l, r));
    case FilterKind::kBoolean: return false;
  }
  return false;
}

Status ExecContext::ChargeTraversal(uint64_t units) {
  traversal_work_ += units;
  if (traversal_work_ <= options_.traversal_work_limit) return Status::Ok();
  return Status(Code::kResourceLimit,
                "the query's traversals exceeded traversal_work_limit (" +
                    std::to_string(options_.traversal_work_limit) +
                    " units: edges examined plus rows emitted); narrow the match, lower the hop "
                    "bounds, or raise it with `set traversal_work_limit = N;`");
}

ScopeState::ScopeState(const ScopePlan& scope) : plan(scope) {
  for (const NodeAccess& a : scope.access) vars[a.var].access = &a;
}

bool KeyReadFromIds(const Slot& s, const schema::PropertyDef& prop) {
  return IsIdKey(*s.type, prop) && !s.image->HasColumn(static_cast<uint32_t>(prop.id)) &&
         (prop.type.scalar == schema::ScalarKind::kString || s.image->IdsLoaded());
}

Result<const TableImage*> ExecContext::Image(const TypeDef& type) {
  auto it = images_.find(&type);
  if (it != images_.end()) return it->second.get();
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::TableVersion> version, view_.Table(type));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const TableImage> image,
                             options_.cache->Image(view_.cache_scope(), version));
  const TableImage* out = image.get();
  images_[&type] = std::move(image);
  return out;
}

Result<std::shared_ptr<const table::AnnIndex>> ExecContext::Ann(const TypeDef& type,
                                                                uint32_t field_id) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::TableVersion> version, view_.Table(type));
  // Decoded once and kept in the execution cache's side cache; a version without an index is not
  // remembered (a later load or optimize may store one).
  const std::string key = "annl2." + std::to_string(field_id) + ":" + VersionKey(*version);
  const std::string scope = view_.cache_scope();
  if (auto hit = options_.cache->FindShared(scope, key)) {
    return std::static_pointer_cast<const table::AnnIndex>(hit);
  }
  Result<std::shared_ptr<const table::AnnIndex>> index = table::ReadAnnIndex(*version, field_id);
  // A damaged object or a broken chain of deltas is no index: the query answers exactly, and a
  // load or `optimize` rebuilds it (queries never build one, decision 51).
  if (!index.ok() && index.status().code() == Code::kCorruption) {
    return std::shared_ptr<const table::AnnIndex>();
  }
  if (index.ok() && *index != nullptr) options_.cache->PutShared(scope, key, *index);
  return index;
}

Result<Executor*> ExecContext::Threads(const TypeDef& type) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::TableVersion> version, view_.Table(type));
  return version->context().runtime().executor.get();
}

Result<const Adjacency*> ExecContext::Adj(const TypeDef& edge) {
  auto it = adjacencies_.find(&edge);
  if (it != adjacencies_.end()) return it->second.get();
  const TypeDef* from = NodeType(edge.from);
  const TypeDef* to = NodeType(edge.to);
  if (from == nullptr || to == nullptr) {
    return Internal("edge type " + edge.name + " has an unknown endpoint type");
  }
  // The edge table's own image (its ids) is not needed: the adjacency comes from the version's
  // stored forward adjacency.
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::TableVersion> edges, view_.Table(edge));
  OMNIGRAPH_ASSIGN_OR_RETURN(const TableImage* from_image, Image(*from));
  OMNIGRAPH_ASSIGN_OR_RETURN(const TableImage* to_image, Image(*to));
  OMNIGRAPH_ASSIGN_OR_RETURN(
      std::shared_ptr<const Adjacency> adj,
      options_.cache->Adjacent(view_.cache_scope(), *edges, *from_image, *to_image));
  const Adjacency* out = adj.get();
  adjacencies_[&edge] = std::move(adj);
  return out;
}

Result<const PointAdjacency*> ExecContext::PointOut(const TypeDef& edge,
                                                    std::span<const uint32_t> nodes,
                                                    bool with_edges) {
  if (adjacencies_.count(&edge) > 0 || no_points_.count(&edge) > 0) return nullptr;
  const auto give_up = [&]() -> const PointAdjacency* {
    no_points_.insert(&edge);
    return nullptr;
  };
  const auto readable_whole = [](const Status& s) {
    return s.kind() == Kind::kNotFound || s.code() == Code::kUnsupported ||
           s.code() == Code::kCorruption;
  };
  auto it = points_.find(&edge);
  PointAdjacency* point = it == points_.end() ? nullptr : it->second.get();
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::TableVersion> edges, view_.Table(edge));
  const TypeDef* from = NodeType(edge.from);
  const TypeDef* to = NodeType(edge.to);
  if (from == nullptr || to == nullptr) return give_up();
  OMNIGRAPH_ASSIGN_OR_RETURN(const TableImage* from_image, Image(*from));
  OMNIGRAPH_ASSIGN_OR_RETURN(const TableImage* to_image, Image(*to));
  const std::string scope = view_.cache_scope();
  if (point == nullptr) {
    // A warm handle has the adjacency: take it for the run (Adj finds it there).
    if (std::shared_ptr<const Adjacency> built =
            options_.cache->FindAdjacent(scope, *edges, *from_image, *to_image)) {
      adjacencies_[&edge] = std::move(built);
      return nullptr;
    }
  }
  // The nodes not read yet, distinct; past kPointFrontierMax the walk reads the whole adjacency.
  std::unordered_set<uint32_t> missing;
  for (uint32_t v : nodes) {
    if (point != nullptr && point->Has(v, with_edges)) continue;
    missing.insert(v);
    if (missing.size() > kPointFrontierMax) return give_up();
  }
  if (missing.empty()) return point;
  if (point == nullptr) {
    if (edges->entity_count() < options_.point_edges_min || edges->IndexKinds().empty()) {
      return give_up();
    }
    Result<std::shared_ptr<const table::CsrPoints>> opened =
        table::CsrPoints::Open(*edges, table::EdgeDirection::kOut);
    if (!opened.ok()) {
      if (readable_whole(opened.status())) return give_up();
      return opened.status();
    }
    auto made = std::make_unique<PointAdjacency>(std::move(*opened), *from_image, *to_image);
    point = made.get();
    points_[&edge] = std::move(made);
  }
  const uint64_t budget = options_.point_budget_bytes.value_or(point->object_bytes());
  if (!options_.cache->PointReadsAllowed(scope, *edges, *from_image, *to_image, budget)) {
    return give_up();
  }
  std::vector<uint32_t> wanted(missing.begin(), missing.end());
  std::sort(wanted.begin(), wanted.end());
  const uint64_t bytes_before = point->bytes();
  if (Status loaded = point->Load(wanted, with_edges); !loaded.ok()) {
    if (readable_whole(loaded)) return give_up();
    return loaded;
  }
  // The rent: the bytes read, and a block's worth per key listed. A key's lookup costs about a
  // block's read even when the reader has every block it needs cached (its window scanned, each
  // target's id found), and without that charge a warm reader whose blocks are cached would
  // never buy the built adjacency however often it walked (decision 225).
  options_.cache->RecordPointReads(
      scope, *edges, *from_image, *to_image, wanted.size(),
      point->bytes() - bytes_before + wanted.size() * point->block_bytes());
  return point;
}

Result<Value> ExecContext::ConstantOf(const Expr& e) {
  switch (e.kind) {
    case ExprKind::kNow: return Value::DateTime(options_.now_ms);
    case ExprKind::kLiteral: return e.literal.value;
    case ExprKind::kVariable: {
      const QueryDecl& decl = *query().decl;
      for (size_t i = 0; i < decl.params.size(); ++i) {
        if (decl.params[i].name.text == e.var.text) return params_[i];
      }
      return InvalidArgument("`$" + e.var.text + "` is neither a parameter nor a bound variable");
    }
    default: break;
  }
  return Internal("expression is not a constant");
}

Result<CExpr> ExecContext::CompileMatchValue(const MatchValue& v) {
  CExpr out;
  switch (v.kind) {
    case MatchValue::Kind::kLiteral: out.constant = v.literal.value; break;
    case MatchValue::Kind::kNow: out.constant = Value::DateTime(options_.now_ms); break;
    case MatchValue::Kind::kExpr: {
      OMNIGRAPH_ASSIGN_OR_RETURN(out.constant, ConstantValue(v.expr));
      break;
    }
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

Result<CExpr> ExecContext::CompileNearest(const Expr& e, const Frame& frame) {
  Expr prop;
  prop.kind = ExprKind::kProp;
  prop.var = e.var;
  prop.prop = e.prop;
  OMNIGRAPH_ASSIGN_OR_RETURN(CExpr out, Compile(prop, frame));
  const schema::PropertyDef* def = out.kind == CExpr::Kind::kProp
                                       ? frame.slots[out.slot].type->FindProperty(e.prop.text)
                                       : nullptr;
  if (def == nullptr || def->type.scalar != ScalarKind::kVector || def->type.list) {
    return Internal("nearest of `$" + e.var.text + "." + e.prop.text + "`, not a Vector property");
  }
  out.kind = CExpr::Kind::kNearest;
  OMNIGRAPH_ASSIGN_OR_RETURN(Value q, ConstantOf(e.args.at(0)));
  if (q.tag() == Value::Tag::kString) {
    if (!options().embed_query) {
      return Status(Code::kConfiguration,
                    "nearest with a String query needs an embedding provider, and this run has "
                    "none; pass the query as a Vector(N) parameter or a list literal");
    }
    const std::string owner = frame.slots[out.slot].type->name;
    OMNIGRAPH_ASSIGN_OR_RETURN(out.query, options().embed_query(*def, owner, q.string_value()));
    return out;
  }
  if (q.is_null()) return out;
  if (q.tag() != Value::Tag::kList) return InvalidArgument("nearest query is not a vector");
  for (const Value& x : q.list_items()) {
    double d = x.tag() == Value::Tag::kFloat  ? x.float_value()
               : x.tag() == Value::Tag::kInt  ? static_cast<double>(x.int_value())
               : x.tag() == Value::Tag::kUInt ? static_cast<double>(x.uint_value())
                                              : std::numeric_limits<double>::quiet_NaN();
    const float f = static_cast<float>(d);
    if (!std::isfinite(f)) {
      return InvalidArgument("nearest query element " + x.DebugString() + " is not a finite F32");
    }
    out.query.push_back(f);
  }
  if (out.query.size() != def->type.vector_dim) {
    return InvalidArgument("nearest query has " + std::to_string(out.query.size()) +
                           " elements; `$" + e.var.text + "." + e.prop.text + "` is " +
                           def->type.DisplayName());
  }
  return out;
}

Result<CExpr> ExecContext::Compile(const Expr& e, const Frame& frame) {
  if (e.kind == ExprKind::kNearest) return CompileNearest(e, frame);
  if (e.kind == ExprKind::kBlock) return CompileBlock(e, frame);
  if (e.is_boolean_form() && !IsSearchExpr(e)) return CompileBoolean(e, frame);
  if (e.kind == ExprKind::kRrf) return CompileRrf(*this, e, frame);
  if (IsSearchExpr(e)) return CompileText(*this, e, frame);
  CExpr out;
  switch (e.kind) {
    case ExprKind::kProp: {
      int slot = frame.Find(e.var.text);
      if (slot < 0) return Internal("variable `$" + e.var.text + "` is not bound");
      const Slot& s = frame.slots[slot];
      out.slot = slot;
      if (e.prop.text.starts_with("@")) return CompileMeta(e, frame, slot);
      const schema::PropertyDef* prop = s.type->FindProperty(e.prop.text);
      if (prop == nullptr) {
        if (e.prop.text == "id") {
          // Evaluated per row, which cannot fail: every id is read now (as a column is).
          OMNIGRAPH_RETURN_IF_ERROR(s.image->LoadIds());
          out.kind = CExpr::Kind::kId;
          return out;
        }
        return InvalidArgument("type `" + s.type->name + "` has no property `" + e.prop.text + "`");
      }
      out.kind = CExpr::Kind::kProp;
      const auto field = static_cast<uint32_t>(prop->id);
      if (KeyReadFromIds(s, *prop)) {
        // A String key is read back from the ids (its values are their bytes, gathered into id
        // order for nothing by a fragment read); an integer key only when every id is in memory
        // already: decoding every id to parse them costs more than its fragments' column, which
        // the id order needs only the rows' references for (decisions 223, 256).
        OMNIGRAPH_ASSIGN_OR_RETURN(const bool from_ids, s.image->ColumnOfIds(field));
        (void)from_ids;
      }
      if (!s.image->HasColumn(field)) ++stats().column_scans;
      OMNIGRAPH_ASSIGN_OR_RETURN(out.column, s.image->Column(field));
      return out;
    }
    case ExprKind::kVariable: {
      int slot = frame.Find(e.var.text);
      if (slot >= 0) {
        if (frame.slots[slot].image != nullptr) {
          OMNIGRAPH_RETURN_IF_ERROR(frame.slots[slot].image->LoadIds());
        }
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

Value ExecContext::EntityValue(const Slot& slot, uint32_t dense) const {
  std::vector<Value> items;
  items.push_back(Value::String(std::string(slot.image->id(dense))));
  for (const schema::PropertyDef& p : slot.type->properties) {
    if (!InBareEntity(p)) {
      items.push_back(Value::Null());
      continue;
    }
    Result<const TableImage::ChunkedColumn*> col = slot.image->Column(static_cast<uint32_t>(p.id));
    items.push_back(col.ok() ? ValueAt((*col)->chunk(dense), TableImage::ChunkedColumn::row(dense))
                             : Value::Null());
  }
  return Value::List(std::move(items));
}

Value ExecContext::Eval(const CExpr& e, const Frame& frame, size_t row) const {
  switch (e.kind) {
    case CExpr::Kind::kConst: return e.constant;
    case CExpr::Kind::kProp: {
      uint32_t dense = frame.cols[e.slot][row];
      return ValueAt(e.column->chunk(dense), TableImage::ChunkedColumn::row(dense));
    }
    case CExpr::Kind::kId: {
      const Slot& s = frame.slots[e.slot];
      return Value::String(std::string(s.image->id(frame.cols[e.slot][row])));
    }
    case CExpr::Kind::kEntity: return EntityValue(frame.slots[e.slot], frame.cols[e.slot][row]);
    case CExpr::Kind::kBool: return EvalBoolean(e, frame, row);
    case CExpr::Kind::kNearest: {
      const uint32_t dense = frame.cols[e.slot][row];
      const table::Column& c = e.column->chunk(dense);
      const uint32_t i = TableImage::ChunkedColumn::row(dense);
      if (e.query.empty() || c.IsNull(i)) return Value::Null();
      return Value::Float(SquaredL2Distance(c.VectorAt(i), e.query));
    }
    case CExpr::Kind::kText: return e.text->Eval(frame.cols[e.slot][row]);
    case CExpr::Kind::kFrameValue: return (*e.frame_values)[row];
  }
  return Value();
}

void ExecContext::FilterRows(Frame& frame, const std::vector<Cond>& conds) const {
  if (conds.empty()) return;
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
}

Status ExecContext::FilterRows(Frame& frame, const std::vector<PlanCond>& conds) {
  std::vector<Cond> compiled;
  for (const PlanCond& c : conds) {
    OMNIGRAPH_ASSIGN_OR_RETURN(Cond cond, CondOf(c, frame));
    compiled.push_back(std::move(cond));
  }
  FilterRows(frame, compiled);
  return Status::Ok();
}

Result<Cond> ExecContext::CondOf(const PlanCond& c, const Frame& frame) {
  Cond out;
  if (c.match != nullptr) {
    // `prop: value` of a binding: an equality (membership for a list property, which CondHolds
    // handles under kCompare/kEq).
    Expr prop;
    prop.kind = ExprKind::kProp;
    prop.var.text = c.var;
    prop.prop = c.match->prop;
    OMNIGRAPH_ASSIGN_OR_RETURN(out.left, Compile(prop, frame));
    OMNIGRAPH_ASSIGN_OR_RETURN(out.right, CompileMatchValue(c.match->value));
    return out;
  }
  if (c.filter->condition) {
    // A Boolean conjunct keeps the rows where it is true: `condition = true`.
    OMNIGRAPH_ASSIGN_OR_RETURN(out.left, Compile(*c.filter->condition, frame));
    out.right.constant = Value::Bool(true);
    return out;
  }
  out.kind = c.kind;
  out.op = c.op;
  OMNIGRAPH_ASSIGN_OR_RETURN(out.left, Compile(c.filter->left, frame));
  OMNIGRAPH_ASSIGN_OR_RETURN(out.right, Compile(c.filter->right, frame));
  return out;
}

}  // namespace omnigraph::query::exec
