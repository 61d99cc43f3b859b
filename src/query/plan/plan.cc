// The read-query planner (plan.h; docs/design/query-execution.md "The plan").
#include "query/plan/plan.h"

#include <algorithm>
#include <map>
#include <set>

namespace omnigraph::query {

using schema::TypeDef;

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

namespace {

bool IsAnonymous(std::string_view var) { return var == kAnonymousVar; }

void CollectVars(const Expr& e, std::vector<std::string>& out) {
  if ((e.kind == ExprKind::kProp || e.kind == ExprKind::kVariable) && !e.var.text.empty()) {
    out.push_back(e.var.text);
  }
  for (const Expr& a : e.args) CollectVars(a, out);
}

bool IsConstantExpr(const Expr& e) {
  return e.kind == ExprKind::kLiteral || e.kind == ExprKind::kNow || e.kind == ExprKind::kVariable;
}

bool IsFloatKind(schema::ScalarKind k) {
  return k == schema::ScalarKind::kF32 || k == schema::ScalarKind::kF64;
}

bool IsIntegerKind(schema::ScalarKind k) {
  return k == schema::ScalarKind::kI32 || k == schema::ScalarKind::kI64 ||
         k == schema::ScalarKind::kU32 || k == schema::ScalarKind::kU64;
}

// Whether the constant side of `c` is a float (a float literal or an F32/F64 parameter).
bool FloatConstant(const QueryDecl& decl, const PlanCond& c) {
  auto param_is_float = [&](const std::string& name) {
    const Param* p = decl.FindParam(name);
    return p != nullptr && !p->type.list && IsFloatKind(p->type.scalar);
  };
  if (c.match != nullptr) {
    const MatchValue& v = c.match->value;
    if (v.kind == MatchValue::Kind::kVariable) return param_is_float(v.variable.text);
    return v.kind == MatchValue::Kind::kLiteral &&
           v.literal.value.tag() == schema::Value::Tag::kFloat;
  }
  const Expr& r = c.filter->right;
  if (r.kind == ExprKind::kVariable) return param_is_float(r.var.text);
  return r.kind == ExprKind::kLiteral && r.literal.value.tag() == schema::Value::Tag::kFloat;
}

// Sorts out how the candidates of `access` are found (plan.h NodeAccess): which constraints
// compare a scalar property to a constant, which fix a key property, which can be predicates.
// An integer property compared with a float constant compares numerically as F64 (two I64
// values may equal one F64), so it neither derives a key nor becomes an exact table predicate.
void ChooseAccess(const QueryDecl& decl, NodeAccess& access) {
  if (access.conds.empty()) {
    access.method = AccessMethod::kAll;
    return;
  }
  const TypeDef& type = *access.type;
  std::map<uint64_t, size_t> key_equalities;  // Key property id -> constraint (the last wins).
  for (size_t i = 0; i < access.conds.size(); ++i) {
    const PlanCond& c = access.conds[i];
    const std::string* prop_name = nullptr;
    if (c.match != nullptr) {
      prop_name = &c.match->prop.text;
    } else {
      // A constraint's variable side is its left; `constant op $v.p` stays a residual check.
      if (c.filter->condition || c.filter->left.kind != ExprKind::kProp ||
          c.filter->left.prop.text.starts_with("@") || !IsConstantExpr(c.filter->right)) {
        continue;
      }
      prop_name = &c.filter->left.prop.text;
    }
    const schema::PropertyDef* prop = type.FindProperty(*prop_name);
    if (prop == nullptr || prop->type.list || prop->type.scalar == schema::ScalarKind::kVector) {
      continue;
    }
    access.constants.push_back(i);
    if (c.kind != FilterKind::kCompare) continue;
    if (IsIntegerKind(prop->type.scalar) && FloatConstant(decl, c)) continue;
    switch (c.op) {
      case CompOp::kEq:
        if (type.IsKeyProperty(prop->id)) key_equalities[prop->id] = i;
        [[fallthrough]];
      case CompOp::kGt:
      case CompOp::kGe:
      case CompOp::kLt:
      case CompOp::kLe: access.pushdown.push_back(i); break;
      default: break;
    }
  }
  std::vector<const schema::PropertyDef*> key_props = type.KeyProperties();
  if (!key_props.empty() && key_equalities.size() == key_props.size()) {
    access.method = AccessMethod::kKeyLookup;
    for (const schema::PropertyDef* p : key_props)
      access.key_conds.push_back(key_equalities[p->id]);
    access.pushdown.clear();
  } else if (!access.pushdown.empty()) {
    access.method = AccessMethod::kScan;
  } else {
    access.method = AccessMethod::kFilter;
  }
}

// A traversal clause with the frame names of its variables.
struct TravSpec {
  const CheckedTraversal* checked = nullptr;
  std::string src;
  std::string dst;
  std::optional<std::string> edge_var;
};

// Named ReadPlanner, not Planner: the mutation, migration and retention planners have their
// own names too.
class ReadPlanner {
 public:
  explicit ReadPlanner(const CheckedQuery& q) : q_(q) {
    for (const CheckedBinding& b : q.bindings) bindings_[b.clause] = &b;
    for (const CheckedTraversal& t : q.traversals) traversals_[t.clause] = &t;
    for (const CheckedFilter& f : q.filters) filters_[f.clause] = &f;
  }

  Result<Plan> Run();

 private:
  // What PlanScope knows about one scope while it plans it.
  struct ScopeBuild {
    std::set<std::string> bound;  // Variables of the frame so far.
    ScopePlan plan;
    std::map<std::string, size_t> access_index;
    std::vector<TravSpec> travs;
    std::vector<PlanCond> filters;
    std::vector<bool> filter_done;
    std::vector<PlanCond> outer_matches;  // Bindings of variables bound outside the scope.
    std::vector<const Negation*> negations;
    // Filters with a block operand: placed after everything else of the scope.
    std::vector<PlanCond> late;
  };

  std::string Fresh(const std::string& name) {
    return IsAnonymous(name) ? "_#" + std::to_string(anon_++) : name;
  }
  // Plans `clauses` into plan_.scopes[index]; `outer` are the variables bound around them.
  // Returns the variables bound after the scope.
  Result<std::set<std::string>> PlanScope(const std::vector<Clause>& clauses, size_t index,
                                          std::set<std::string> outer);
  Status Collect(const std::vector<Clause>& clauses, ScopeBuild& s);
  // The FilterStep of `s.late` at the end of the scope, and the scopes of its blocks.
  Status PlanLateFilters(ScopeBuild& s);
  void PushDown(ScopeBuild& s);
  void PlanTraversal(ScopeBuild& s, const TravSpec& t);
  // The not-yet-placed filters whose variables are all in `bound`, marked placed.
  std::vector<PlanCond> TakeReady(ScopeBuild& s, const std::set<std::string>& bound);
  void AddFilterStep(ScopeBuild& s);
  Status PlanOutput(const std::set<std::string>& bound);
  Status PlanAggregateOutput(const std::vector<std::string>& ties);
  bool KeysSeparate(const AggregateStep& agg) const;
  void PlanTopGroups(AggregateStep& agg, const SortColumnsStep& sort) const;
  void FuseAdjacencyCount();
  // A NearestStep for every `nearest` order key, before the order that uses it.
  Status PlanNearest();
  // A Bm25Step for every `bm25` order key, before the order (or the aggregate).
  void PlanBm25();

  const CheckedQuery& q_;
  std::map<const Binding*, const CheckedBinding*> bindings_;
  std::map<const Traversal*, const CheckedTraversal*> traversals_;
  std::map<const Filter*, const CheckedFilter*> filters_;
  int anon_ = 0;
  Plan plan_;
};

Status ReadPlanner::Collect(const std::vector<Clause>& clauses, ScopeBuild& s) {
  auto introduce = [&](const std::string& name, const TypeDef* type) -> NodeAccess* {
    if (s.bound.count(name)) return nullptr;
    auto [it, inserted] = s.access_index.try_emplace(name, s.plan.access.size());
    if (inserted)
      s.plan.access.push_back(NodeAccess{name, type, {}, AccessMethod::kAll, {}, {}, {}});
    return &s.plan.access[it->second];
  };
  for (const Clause& clause : clauses) {
    if (const Binding* b = clause.binding()) {
      auto it = bindings_.find(b);
      if (it == bindings_.end()) return Internal("binding was not typechecked");
      std::string name = Fresh(b->var.text);
      const bool outer = s.bound.count(name) > 0;
      NodeAccess* access = outer ? nullptr : introduce(name, it->second->type);
      for (const PropMatch& m : b->props) {
        PlanCond c;
        c.match = &m;
        c.var = name;
        c.vars = {name};
        (outer ? s.outer_matches : access->conds).push_back(std::move(c));
      }
    } else if (const Traversal* t = clause.traversal()) {
      auto it = traversals_.find(t);
      if (it == traversals_.end()) return Internal("traversal was not typechecked");
      TravSpec spec{it->second, Fresh(t->src.text), Fresh(t->dst.text), std::nullopt};
      if (t->edge_var) spec.edge_var = Fresh(t->edge_var->text);
      introduce(spec.src, it->second->src_type);
      introduce(spec.dst, it->second->dst_type);
      s.travs.push_back(std::move(spec));
    } else if (const Filter* clause_filter = clause.filter()) {
      // A Boolean filter clause is placed conjunct by conjunct.
      std::vector<const Filter*> parts;
      for (const Filter& c : clause_filter->conjuncts) parts.push_back(&c);
      if (parts.empty()) parts.push_back(clause_filter);
      for (const Filter* f : parts) {
        auto it = filters_.find(f);
        if (it == filters_.end()) return Internal("filter was not typechecked");
        PlanCond c;
        c.filter = f;
        c.kind = it->second->kind;
        c.op = f->op;
        CollectVars(f->condition ? *f->condition : f->left, c.vars);
        CollectVars(f->right, c.vars);
        const bool block =
            f->condition ? HasBlock(*f->condition) : HasBlock(f->left) || HasBlock(f->right);
        (block ? s.late : s.filters).push_back(std::move(c));
      }
    } else if (const Negation* n = clause.negation()) {
      s.negations.push_back(n);
    }
  }
  // Parameters are not variables of the frame.
  for (PlanCond& f : s.filters) {
    std::vector<std::string> vs;
    for (const std::string& v : f.vars) {
      if (q_.decl->FindParam(v) == nullptr || s.bound.count(v) || s.access_index.count(v)) {
        vs.push_back(v);
      }
    }
    std::sort(vs.begin(), vs.end());
    vs.erase(std::unique(vs.begin(), vs.end()), vs.end());
    f.vars = std::move(vs);
  }
  s.filter_done.assign(s.filters.size(), false);
  return Status::Ok();
}

// A filter on one introduced node variable, with the variable's property on the left, becomes
// a constraint of that variable (pushed into its candidates).
void ReadPlanner::PushDown(ScopeBuild& s) {
  for (size_t i = 0; i < s.filters.size(); ++i) {
    const PlanCond& f = s.filters[i];
    if (f.vars.size() != 1) continue;
    auto it = s.access_index.find(f.vars[0]);
    if (it == s.access_index.end()) continue;
    if (!f.filter->condition &&
        (f.filter->left.kind != ExprKind::kProp || f.filter->left.var.text != f.vars[0])) {
      continue;
    }
    s.plan.access[it->second].conds.push_back(f);
    s.filter_done[i] = true;
  }
}

std::vector<PlanCond> ReadPlanner::TakeReady(ScopeBuild& s, const std::set<std::string>& bound) {
  std::vector<PlanCond> out;
  for (size_t i = 0; i < s.filters.size(); ++i) {
    if (s.filter_done[i]) continue;
    bool ready = true;
    for (const std::string& v : s.filters[i].vars) ready = ready && bound.count(v) > 0;
    if (!ready) continue;
    s.filter_done[i] = true;
    out.push_back(s.filters[i]);
  }
  return out;
}

void ReadPlanner::AddFilterStep(ScopeBuild& s) {
  std::vector<PlanCond> ready = TakeReady(s, s.bound);
  if (!ready.empty()) s.plan.steps.push_back(FilterStep{std::move(ready)});
}

Direction Reverse(Direction d) {
  return d == Direction::kOut ? Direction::kIn : d == Direction::kIn ? Direction::kOut : d;
}

void ReadPlanner::PlanTraversal(ScopeBuild& s, const TravSpec& t) {
  const CheckedTraversal& ct = *t.checked;
  const bool src_bound = s.bound.count(t.src) > 0;
  const bool dst_bound = s.bound.count(t.dst) > 0;
  const uint32_t min_hops = ct.clause->min_hops;
  const uint32_t max_hops = ct.clause->max_hops.value_or(std::max<uint32_t>(min_hops, 1));
  // Start from src (the reference's direction); a single-hop traversal (or an edge binding)
  // whose dst alone is bound is symmetric and starts from dst.
  bool from_src = src_bound || !dst_bound;
  if (!t.edge_var && !(min_hops == 1 && max_hops == 1)) from_src = true;
  if (from_src && !src_bound) {
    s.plan.steps.push_back(CrossJoinStep{{t.src}, {}});
    s.bound.insert(t.src);
  }
  TraversalEnds ends;
  ends.traversal = &ct;
  ends.from_src = from_src;
  ends.start = from_src ? t.src : t.dst;
  ends.other = from_src ? t.dst : t.src;
  ends.other_type = from_src ? ct.dst_type : ct.src_type;
  ends.direction = from_src ? ct.direction : Reverse(ct.direction);
  ends.bind_other = s.bound.count(ends.other) == 0;
  s.bound.insert(ends.other);
  if (t.edge_var) {
    s.bound.insert(*t.edge_var);
    s.plan.steps.push_back(ExpandEdgesStep{std::move(ends), *t.edge_var});
    return;
  }
  // Edges between two different node types cannot chain (every edge of a set connects the
  // same node types).
  const bool same_type = ct.edge->from.type_id == ct.edge->to.type_id;
  s.plan.steps.push_back(
      ReachStep{std::move(ends), min_hops, same_type ? max_hops : std::min<uint32_t>(max_hops, 1)});
}

Result<std::set<std::string>> ReadPlanner::PlanScope(const std::vector<Clause>& clauses,
                                                     size_t index, std::set<std::string> outer) {
  ScopeBuild s;
  s.bound = std::move(outer);
  OMNIGRAPH_RETURN_IF_ERROR(Collect(clauses, s));
  if (!s.plan.failure.ok()) {
    plan_.scopes[index] = std::move(s.plan);
    return s.bound;
  }
  PushDown(s);
  for (NodeAccess& a : s.plan.access) ChooseAccess(*q_.decl, a);
  {
    FilterStep first{std::move(s.outer_matches)};
    for (PlanCond& c : TakeReady(s, s.bound)) first.conds.push_back(std::move(c));
    if (!first.conds.empty()) s.plan.steps.push_back(std::move(first));
  }
  // Traversals: one with a bound endpoint, else the first left (its source is bound first).
  std::vector<bool> trav_done(s.travs.size(), false);
  for (size_t remaining = s.travs.size(); remaining > 0; --remaining) {
    size_t pick = s.travs.size();
    for (size_t i = 0; i < s.travs.size() && pick == s.travs.size(); ++i) {
      if (!trav_done[i] && (s.bound.count(s.travs[i].src) || s.bound.count(s.travs[i].dst))) {
        pick = i;
      }
    }
    for (size_t i = 0; i < s.travs.size() && pick == s.travs.size(); ++i) {
      if (!trav_done[i]) pick = i;
    }
    PlanTraversal(s, s.travs[pick]);
    trav_done[pick] = true;
    AddFilterStep(s);
  }
  // Variables bound by bindings alone.
  CrossJoinStep join;
  for (const NodeAccess& a : s.plan.access) {
    if (!s.bound.count(a.var)) join.vars.push_back(a.var);
  }
  if (!join.vars.empty()) {
    s.bound.insert(join.vars.begin(), join.vars.end());
    join.filters = TakeReady(s, s.bound);
    s.plan.steps.push_back(std::move(join));
  }
  for (bool done : s.filter_done) {
    if (!done) return Internal("a filter references an unbound variable");
  }
  // Blocks see every variable of this scope; each plans into the next free scope.
  for (const Negation* n : s.negations) {
    const size_t inner = plan_.scopes.size();
    plan_.scopes.emplace_back();
    if (n->kind == BlockKind::kNot) {
      s.plan.steps.push_back(AntiJoinStep{inner});
    } else {
      s.plan.steps.push_back(SubqueryStep{inner, n});
    }
    OMNIGRAPH_RETURN_IF_ERROR(PlanScope(n->clauses, inner, s.bound).status());
  }
  OMNIGRAPH_RETURN_IF_ERROR(PlanLateFilters(s));
  plan_.scopes[index] = std::move(s.plan);
  return s.bound;
}

Status ReadPlanner::PlanLateFilters(ScopeBuild& s) {
  if (s.late.empty()) return Status::Ok();
  for (const PlanCond& c : s.late) {
    std::vector<const Negation*> blocks;
    if (c.filter->condition) {
      CollectBlocks(*c.filter->condition, blocks);
    } else {
      CollectBlocks(c.filter->left, blocks);
      CollectBlocks(c.filter->right, blocks);
    }
    for (const Negation* n : blocks) {
      if (plan_.block_scopes.count(n)) continue;  // A conjunct shares its block with the whole.
      const size_t inner = plan_.scopes.size();
      plan_.scopes.emplace_back();
      plan_.block_scopes[n] = inner;
      OMNIGRAPH_RETURN_IF_ERROR(PlanScope(n->clauses, inner, s.bound).status());
    }
  }
  s.plan.steps.push_back(FilterStep{std::move(s.late)});
  return Status::Ok();
}

Status ReadPlanner::PlanNearest() {
  const QueryDecl& decl = *q_.decl;
  for (size_t i = 0; i < decl.orderings.size(); ++i) {
    const Expr& e = decl.orderings[i].expr;
    if (e.kind != ExprKind::kNearest) continue;
    auto var = q_.vars.find(e.var.text);
    if (var == q_.vars.end() || var->second.type == nullptr) {
      return Internal("nearest variable `$" + e.var.text + "` is not a bound node");
    }
    const schema::PropertyDef* prop = var->second.type->FindProperty(e.prop.text);
    if (prop == nullptr) return Internal("nearest property `" + e.prop.text + "` is unknown");
    const bool indexed = i == 0 && decl.limit.has_value() && *decl.limit > 0;
    plan_.output.push_back(NearestStep{&e, e.var.text, prop,
                                       indexed ? NearestMethod::kIndexed : NearestMethod::kExact,
                                       i == 0, decl.limit});
  }
  return Status::Ok();
}

void ReadPlanner::PlanBm25() {
  for (const Ordering& o : q_.decl->orderings) {
    if (o.expr.kind == ExprKind::kBm25) plan_.output.push_back(Bm25Step{&o.expr});
  }
}

// An aggregate query ordered by `nearest` aggregates the window of the k nearest rows (the
// reference's semantics): nearest, order by distance, limit, then the aggregate.
Status ReadPlanner::PlanAggregateOutput(const std::vector<std::string>& ties) {
  const QueryDecl& decl = *q_.decl;
  if (!decl.orderings.empty() && decl.orderings[0].expr.kind == ExprKind::kNearest) {
    if (decl.orderings.size() > 1 || !decl.limit) {
      return InvalidArgument(
          "an aggregate query ordered by nearest orders by that distance alone, with a limit");
    }
    OMNIGRAPH_RETURN_IF_ERROR(PlanNearest());
    plan_.output.push_back(
        SortStep{{SortKey{&decl.orderings[0].expr, -1, false}}, ties, decl.limit});
    plan_.output.push_back(LimitStep{*decl.limit});
  }
  // Ordered by bm25, it aggregates every matching row: the order cannot change one group's
  // aggregates, and the corpus counts all of them.
  PlanBm25();
  AggregateStep agg;
  // The tie-break after grouping: the variables the group keys refer to.
  std::vector<std::string> key_vars;
  for (const Projection& p : decl.projections) {
    if (p.expr.kind != ExprKind::kAggregate) CollectVars(p.expr, key_vars);
  }
  for (const std::string& v : ties) {
    if (std::find(key_vars.begin(), key_vars.end(), v) != key_vars.end()) agg.by.push_back(v);
  }
  for (const Projection& p : decl.projections) {
    AggregateColumn c;
    c.projection = &p;
    c.aggregate = p.expr.kind == ExprKind::kAggregate;
    c.func = p.expr.agg;
    c.expr = c.aggregate ? &p.expr.args.at(0) : &p.expr;
    agg.columns.push_back(c);
  }
  agg.keys_separate = KeysSeparate(agg);
  const size_t agg_at = plan_.output.size();
  plan_.output.push_back(std::move(agg));
  // Ordering over result columns: an alias, or a projected property.
  SortColumnsStep sort;
  for (const Ordering& o : decl.orderings) {
    if (o.expr.kind == ExprKind::kNearest || o.expr.kind == ExprKind::kBm25) continue;
    int idx = -1;
    for (size_t i = 0; i < decl.projections.size() && idx < 0; ++i) {
      const Expr& p = decl.projections[i].expr;
      if (o.expr.kind == ExprKind::kAlias ? q_.columns[i].name == o.expr.alias.text
                                          : SameExpr(p, o.expr)) {
        idx = static_cast<int>(i);
      }
    }
    if (idx < 0) {
      return InvalidArgument(
          "an aggregate query can only order by its result columns (a projected property or an "
          "alias)");
    }
    sort.columns.push_back(static_cast<size_t>(idx));
    sort.descending.push_back(o.descending);
  }
  const bool windowed =
      !decl.orderings.empty() && decl.orderings[0].expr.kind == ExprKind::kNearest;
  if (!windowed) sort.limit = decl.limit;
  PlanTopGroups(std::get<AggregateStep>(plan_.output[agg_at]), sort);
  if (!sort.columns.empty()) plan_.output.push_back(std::move(sort));
  return Status::Ok();
}

// AggregateStep::keys_separate: every `by` variable is a group key whole (`$v`), by its id
// (`$v.@id`, or `$v.id` when the type has no property `id`), or by every @key property of its
// node type. A keyed node's id is derived from its key tuple and no key value is null, so two
// entities never share those values; float keys are left out (Value order equates -0.0 and 0.0).
bool ReadPlanner::KeysSeparate(const AggregateStep& agg) const {
  for (const std::string& v : agg.by) {
    const auto var = q_.vars.find(v);
    if (var == q_.vars.end() || var->second.type == nullptr) return false;
    const TypeDef& type = *var->second.type;
    bool whole = false;
    std::set<std::string> props;
    for (const AggregateColumn& c : agg.columns) {
      const Expr& e = *c.expr;
      if (c.aggregate || e.var.text != v) continue;
      if (e.kind == ExprKind::kVariable) whole = true;
      if (e.kind != ExprKind::kProp) continue;
      const bool id = e.prop.text == "@id" || (e.prop.text == "id" && !type.FindProperty("id"));
      whole = whole || id;
      props.insert(e.prop.text);
    }
    if (whole) continue;
    const std::vector<const schema::PropertyDef*> keys = type.KeyProperties();
    if (var->second.kind != VarKind::kNode || keys.empty()) return false;
    for (const schema::PropertyDef* k : keys) {
      if (props.count(k->name) == 0 || k->type.list || k->type.scalar == schema::ScalarKind::kF32 ||
          k->type.scalar == schema::ScalarKind::kF64) {
        return false;
      }
    }
  }
  return true;
}

// AggregateStep::top: separate keys, at least one group key, a limit, and an order whose
// leading columns are aggregates (those columns, as far as they are aggregates, pick the
// candidates).
void ReadPlanner::PlanTopGroups(AggregateStep& agg, const SortColumnsStep& sort) const {
  if (!agg.keys_separate || agg.by.empty() || !sort.limit) return;
  AggregateTopK top;
  top.k = *sort.limit;
  for (size_t i = 0; i < sort.columns.size() && agg.columns[sort.columns[i]].aggregate; ++i) {
    top.columns.push_back(sort.columns[i]);
    top.descending.push_back(sort.descending[i]);
  }
  if (!top.columns.empty()) agg.top = std::move(top);
}

// A count of traversal rows from the adjacency alone (AggregateStep::adjacency): the match is
// a cross join of one all-rows variable `$a` and one single-hop traversal from it over one edge
// type that binds every row of `$b`; the aggregate groups by `$b` alone and only counts `$a`.
void ReadPlanner::FuseAdjacencyCount() {
  if (plan_.scopes.size() != 1 || plan_.output.empty()) return;
  ScopePlan& scope = plan_.scopes[0];
  auto* agg = std::get_if<AggregateStep>(&plan_.output[0]);
  if (agg == nullptr || agg->by.size() != 1 || scope.steps.size() != 2 ||
      scope.access.size() != 2) {
    return;
  }
  const auto* join = std::get_if<CrossJoinStep>(&scope.steps[0]);
  const auto* reach = std::get_if<ReachStep>(&scope.steps[1]);
  if (join == nullptr || reach == nullptr || join->vars.size() != 1 || !join->filters.empty()) {
    return;
  }
  const TraversalEnds& ends = reach->ends;
  const std::string& a = join->vars[0];
  if (ends.start != a || ends.other != agg->by[0] || !ends.bind_other ||
      ends.direction == Direction::kBoth || reach->min_hops != 1 || reach->max_hops != 1 ||
      ends.traversal->edges.size() != 1) {
    return;
  }
  for (const NodeAccess& access : scope.access) {
    if (access.method != AccessMethod::kAll || !access.conds.empty()) return;
  }
  for (const AggregateColumn& c : agg->columns) {
    if (c.aggregate && (c.func != AggFunc::kCount || c.expr->kind != ExprKind::kVariable ||
                        c.expr->var.text != a)) {
      return;
    }
  }
  agg->adjacency = ends;
  scope.steps.clear();
}

Status ReadPlanner::PlanOutput(const std::set<std::string>& bound) {
  const QueryDecl& decl = *q_.decl;
  // The tie-break of the total order: every named variable, by name.
  std::vector<std::string> ties;
  for (const std::string& v : bound) {
    if (!v.starts_with("_#")) ties.push_back(v);
  }
  if (q_.has_aggregates) {
    OMNIGRAPH_RETURN_IF_ERROR(PlanAggregateOutput(ties));
  } else {
    OMNIGRAPH_RETURN_IF_ERROR(PlanNearest());
    PlanBm25();
    SortStep sort;
    sort.ties = std::move(ties);
    sort.limit = decl.limit;
    for (const Ordering& o : decl.orderings) {
      SortKey key;
      key.expr = &o.expr;
      // A text score and a fused rank always order best (highest) first, as nearest orders
      // closest first (docs/design/fulltext.md).
      key.descending =
          o.descending || o.expr.kind == ExprKind::kBm25 || o.expr.kind == ExprKind::kRrf;
      if (o.expr.kind == ExprKind::kAlias) {
        for (size_t i = 0; i < decl.projections.size() && key.projection < 0; ++i) {
          if (q_.columns[i].name == o.expr.alias.text) key.projection = static_cast<int>(i);
        }
        if (key.projection < 0) {
          return InvalidArgument("order by unknown alias `" + o.expr.alias.text + "`");
        }
      }
      sort.keys.push_back(key);
    }
    plan_.output.push_back(std::move(sort));
  }
  const bool windowed = q_.has_aggregates && !decl.orderings.empty() &&
                        decl.orderings[0].expr.kind == ExprKind::kNearest;
  if (decl.limit && !windowed) plan_.output.push_back(LimitStep{*decl.limit});
  if (!q_.has_aggregates) {
    ProjectStep project;
    for (const Projection& p : decl.projections) project.columns.push_back(&p);
    plan_.output.push_back(std::move(project));
  }
  return Status::Ok();
}

Result<Plan> ReadPlanner::Run() {
  if (q_.kind != QueryKind::kRead) {
    return InvalidArgument("query `" + q_.decl->name.text + "` is a mutation, not a read query");
  }
  plan_.query = &q_;
  plan_.scopes.emplace_back();
  OMNIGRAPH_ASSIGN_OR_RETURN(std::set<std::string> bound, PlanScope(q_.decl->clauses, 0, {}));
  // The top-level match always runs: its failure is the query's.
  if (!plan_.scopes[0].failure.ok()) return plan_.scopes[0].failure;
  OMNIGRAPH_RETURN_IF_ERROR(PlanOutput(bound));
  FuseAdjacencyCount();
  return std::move(plan_);
}

}  // namespace

Result<Plan> PlanQuery(const CheckedQuery& checked) { return ReadPlanner(checked).Run(); }

}  // namespace omnigraph::query
