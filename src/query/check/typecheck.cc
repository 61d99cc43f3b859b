#include "query/check/typecheck.h"

#include <algorithm>
#include <set>

#include "query/check/typecheck_internal.h"

namespace omnigraph::query {

const char* QueryKindName(QueryKind kind) { return kind == QueryKind::kRead ? "read" : "mutation"; }

ExprType ExprType::Value(schema::PropType type) {
  ExprType t;
  t.value = std::move(type);
  return t;
}

ExprType ExprType::Scalar(schema::ScalarKind scalar, bool nullable) {
  schema::PropType p;
  p.scalar = scalar;
  p.nullable = nullable;
  return Value(std::move(p));
}

ExprType ExprType::Entity(const schema::TypeDef* type) {
  ExprType t;
  t.kind = Kind::kEntity;
  t.entity = type;
  return t;
}

ExprType ExprType::Aggregate() {
  ExprType t;
  t.kind = Kind::kAggregate;
  return t;
}

std::string ExprType::DisplayName() const {
  switch (kind) {
    case Kind::kValue: return value.DisplayName();
    case Kind::kEntity: return "node `" + (entity ? entity->name : std::string("?")) + "`";
    case Kind::kAggregate: return "aggregate";
  }
  return "?";
}

namespace internal {
namespace {

// Whether `e` mentions one of `vars` (the reference's expr_references_any).
bool References(const Expr& e, const Scope& vars) {
  if ((e.kind == ExprKind::kProp || e.kind == ExprKind::kVariable ||
       e.kind == ExprKind::kNearest) &&
      vars.count(e.var.text) > 0) {
    return true;
  }
  if (e.kind == ExprKind::kRrf || e.kind == ExprKind::kAggregate || e.kind == ExprKind::kNearest ||
      e.kind == ExprKind::kSearch || e.kind == ExprKind::kFuzzy || e.kind == ExprKind::kMatchText ||
      e.kind == ExprKind::kBm25 || e.is_boolean_form()) {
    for (const Expr& a : e.args) {
      if (References(a, vars)) return true;
    }
  }
  return false;
}

std::string DisplayEdge(const TypeDef& edge) {
  return edge.name + ": " + edge.from.name + " -> " + edge.to.name;
}

// `Knows` spelled as a traversal writes it: `knows`.
std::string TraversalSpelling(const std::string& name) {
  std::string out = name;
  if (!out.empty() && out[0] >= 'A' && out[0] <= 'Z')
    out[0] = static_cast<char>(out[0] - 'A' + 'a');
  return out;
}

}  // namespace

std::string ListNames(const std::vector<std::string>& names, size_t max) {
  std::string out;
  size_t n = std::min(names.size(), max);
  for (size_t i = 0; i < n; ++i) {
    if (i > 0) out += (i + 1 == n && n == names.size()) ? " or " : ", ";
    out += names[i];
  }
  if (names.size() > n) out += ", ...";
  return out;
}

bool Checker::Fail(const char* code, const Span& span, std::string message, std::string fix) {
  if (!error_) {
    error_ = Diagnostic{Severity::kError, code, std::move(message), span, std::move(fix)};
  }
  return false;
}

bool Checker::Run() {
  out_->decl = &query_;
  for (const Param& p : query_.params) out_->param_types.push_back(p.type);
  if (query_.is_mutation()) {
    out_->kind = QueryKind::kMutation;
    return CheckMutations();
  }
  out_->kind = QueryKind::kRead;
  return CheckRead();
}

bool Checker::CheckRead() {
  if (!CheckClauses(query_.clauses, &out_->vars, false)) return false;
  if (!CheckProjections() || !CheckOrderAndLimit()) return false;
  CollectReads();
  return true;
}

bool Checker::CheckClauses(const std::vector<Clause>& clauses, Scope* scope, bool negated) {
  for (const Clause& c : clauses) {
    bool ok = true;
    if (const Binding* b = c.binding()) {
      ok = CheckBinding(*b, scope, negated);
    } else if (const Traversal* t = c.traversal()) {
      ok = CheckTraversal(*t, scope, negated);
    } else if (const Filter* f = c.filter()) {
      const bool was_in_filter = in_match_filter_;
      in_match_filter_ = true;
      ok = CheckFilter(*f, *scope, negated);
      in_match_filter_ = was_in_filter;
    } else {
      ok = CheckNegation(c, scope);
    }
    if (!ok) return false;
  }
  return true;
}

bool Checker::CheckBinding(const Binding& b, Scope* scope, bool negated) {
  const TypeDef* type = catalog_.FindNode(b.type.text);
  if (type == nullptr) {
    if (std::string gone = catalog_.NotAtSnapshot(b.type.text); !gone.empty()) {
      return Fail("T1", b.type.span, gone);
    }
    std::string fix;
    if (const TypeDef* edge = catalog_.FindTable(b.type.text)) {
      fix = "`" + edge->name + "` is an edge type; traverse it with `$a " +
            TraversalSpelling(edge->name) + " $b`";
    } else if (const TypeDef* iface = catalog_.FindInterface(b.type.text)) {
      std::vector<std::string> names;
      for (const TypeDef* n : catalog_.Implementors(iface->id)) names.push_back(n->name);
      fix = "`" + iface->name + "` is an interface; bind one of its node types (" +
            ListNames(names) + ")";
    } else {
      std::vector<std::string> names;
      for (const TypeDef& n : catalog_.nodes()) names.push_back(n.name);
      fix = "the node types are " + ListNames(names, 12);
    }
    return Fail("T1", b.type.span, "unknown node type `" + b.type.text + "`", fix);
  }
  for (const PropMatch& pm : b.props) {
    const schema::PropertyDef* prop = type->FindProperty(pm.prop.text);
    if (prop == nullptr) {
      std::vector<std::string> names;
      for (const schema::PropertyDef& p : type->properties) names.push_back(p.name);
      // OmniGraph's words for a bare `id`: the identity is a meta-field, filtered in the block.
      const std::string hint = pm.prop.text == "id"
                                   ? "; filter the system identity with `$" + b.var.text +
                                         ".@id = ...` in the match block"
                                   : "";
      return Fail("T2", pm.prop.span,
                  "type `" + type->name + "` has no property `" + pm.prop.text + "`" + hint,
                  "its properties are " + ListNames(names, 12));
    }
    if (prop->type.scalar == ScalarKind::kBlob) {
      return Fail("T3", pm.prop.span,
                  "blob property `" + type->name + "." + pm.prop.text +
                      "` cannot be used in match patterns");
    }
    if (!CheckBindingValue(pm.value, prop->type, pm.prop.text)) return false;
  }
  out_->bindings.push_back(CheckedBinding{&b, type, negated});
  if (b.var.text == kAnonymousVar) return true;
  auto it = scope->find(b.var.text);
  if (it != scope->end()) {
    if (it->second.kind == VarKind::kEdge) {
      return Fail("T23", b.var.span,
                  "variable `$" + b.var.text + "` is bound to edge type `" + it->second.type->name +
                      "` and cannot be rebound as node type `" + type->name + "`",
                  "use a different variable name for the node");
    }
    if (it->second.type != type) {
      return Fail("T5", b.var.span,
                  "variable `$" + b.var.text + "` already bound to type `" + it->second.type->name +
                      "`, cannot rebind to `" + type->name + "`",
                  "use a different variable name");
    }
    return true;
  }
  scope->emplace(b.var.text, BoundVar{VarKind::kNode, type, b.var.span});
  return true;
}

bool Checker::CheckTraversal(const Traversal& t, Scope* scope, bool negated) {
  if (t.wildcard || !t.alternatives.empty()) return CheckEdgeSet(t, scope, negated);
  const TypeDef* edge = nullptr;
  if (!FindEdgeType(t.edge, &edge)) return false;
  return CheckTraversalEdge(t, *edge, scope, negated);
}

bool Checker::FindEdgeType(const Name& name, const TypeDef** out) {
  *out = catalog_.FindEdge(name.text);
  if (*out != nullptr) return true;
  if (std::string gone = catalog_.NotAtSnapshot(name.text); !gone.empty()) {
    return Fail("T4", name.span, gone);
  }
  std::vector<std::string> names;
  for (const TypeDef& e : catalog_.edges()) names.push_back(TraversalSpelling(e.name));
  return Fail("T4", name.span, "unknown edge type `" + name.text + "`",
              "the edge types are " + ListNames(names, 12));
}

bool Checker::CheckTraversalEdge(const Traversal& t, const TypeDef& edge_type, Scope* scope,
                                 bool negated) {
  const TypeDef* edge = &edge_type;
  if (!CheckHopBounds(t)) return false;
  if (t.undirected && edge->from.type_id != edge->to.type_id) {
    return Fail("T22", t.edge.span,
                "undirected traversal `<" + edge->name +
                    ">` requires a same-endpoint-type edge, "
                    "but `" +
                    DisplayEdge(*edge) + "` is asymmetric; use the directional form",
                "write `$a " + TraversalSpelling(edge->name) + " $b` (or swap the variables)");
  }
  if (!CheckEdgeVar(t, *edge, scope)) return false;
  const TypeDef* from = catalog_.FindById(edge->from.type_id);
  const TypeDef* to = catalog_.FindById(edge->to.type_id);
  CheckedTraversal ct{&t, edge, {edge}, Direction::kOut, nullptr, nullptr, negated};
  auto endpoint_type = [&](const Name& var, const TypeDef** type) {
    auto it = scope->find(var.text);
    if (it == scope->end() || var.text == kAnonymousVar) return true;
    if (it->second.kind == VarKind::kEdge) {
      return Fail("T23", var.span,
                  "edge binding `$" + var.text +
                      "` cannot be used as a traversal endpoint; traversal endpoints must be node "
                      "bindings");
    }
    *type = it->second.type;
    return true;
  };
  const TypeDef* src_bound = nullptr;
  const TypeDef* dst_bound = nullptr;
  if (!endpoint_type(t.src, &src_bound)) return false;
  if (src_bound == nullptr && !endpoint_type(t.dst, &dst_bound)) return false;
  auto not_endpoint = [&](const Name& var, const TypeDef* type) {
    return Fail("T5", var.span,
                "variable `$" + var.text + "` has type `" + type->name +
                    "`, which is not an endpoint of edge `" + DisplayEdge(*edge) + "`",
                "`" + edge->name + "` connects " + from->name + " to " + to->name);
  };
  bool ok = true;
  if (src_bound != nullptr) {
    if (src_bound == from) {
      ok = BindEndpoint(t.dst, to, *edge, scope, &ct.dst_type);
    } else if (src_bound == to) {
      ct.direction = Direction::kIn;
      ok = BindEndpoint(t.dst, from, *edge, scope, &ct.dst_type);
    } else {
      return not_endpoint(t.src, src_bound);
    }
    ct.src_type = src_bound;
  } else if (dst_bound != nullptr) {
    if (dst_bound == to) {
      ok = BindEndpoint(t.src, from, *edge, scope, &ct.src_type);
    } else if (dst_bound == from) {
      ct.direction = Direction::kIn;
      ok = BindEndpoint(t.src, to, *edge, scope, &ct.src_type);
    } else {
      return not_endpoint(t.dst, dst_bound);
    }
    ct.dst_type = dst_bound;
  } else {
    ok = BindEndpoint(t.src, from, *edge, scope, &ct.src_type) &&
         BindEndpoint(t.dst, to, *edge, scope, &ct.dst_type);
  }
  if (!ok) return false;
  if (t.undirected) ct.direction = Direction::kBoth;
  out_->traversals.push_back(ct);
  return true;
}

// An edge binding `$w:` of a single-hop traversal: a fresh name, bound to the edge type.
bool Checker::CheckEdgeVar(const Traversal& t, const TypeDef& edge, Scope* scope) {
  if (!t.edge_var) return true;
  const Name& w = *t.edge_var;
  if (t.min_hops != 1 || *t.max_hops != 1) {
    return Fail("T23", w.span,
                "edge binding `$" + w.text +
                    "` cannot be combined with traversal bounds; a multi-hop traversal matches "
                    "a path of edges, not one edge");
  }
  if (w.text != kAnonymousVar) {
    if (w.text == t.src.text || w.text == t.dst.text) {
      return Fail("T23", w.span,
                  "edge binding `$" + w.text +
                      "` cannot reuse a traversal endpoint name; edge bindings and node "
                      "endpoints need distinct names");
    }
    if (scope->count(w.text) > 0) {
      return Fail("T23", w.span,
                  "variable `$" + w.text +
                      "` is already bound; an edge binding needs a fresh "
                      "name");
    }
    scope->emplace(w.text, BoundVar{VarKind::kEdge, &edge, w.span});
  }
  return true;
}

bool Checker::CheckHopBounds(const Traversal& t) {
  if (t.min_hops == 0) {
    return Fail("T15", t.bounds_span, "traversal min hop bound must be >= 1");
  }
  if (!t.max_hops) {
    return Fail("T15", t.bounds_span,
                "unbounded traversal is disabled; use bounded traversal {min,max}",
                "give a maximum, as in {" + std::to_string(t.min_hops) + "," +
                    std::to_string(t.min_hops + 2) + "}");
  }
  if (*t.max_hops < t.min_hops) {
    return Fail("T15", t.bounds_span,
                "invalid traversal bounds {" + std::to_string(t.min_hops) + "," +
                    std::to_string(*t.max_hops) + "}; max must be >= min");
  }
  return true;
}

bool Checker::BindEndpoint(const Name& var, const TypeDef* expected, const TypeDef& edge,
                           Scope* scope, const TypeDef** resolved) {
  *resolved = expected;
  if (var.text == kAnonymousVar) return true;
  auto it = scope->find(var.text);
  if (it == scope->end()) {
    scope->emplace(var.text, BoundVar{VarKind::kNode, expected, var.span});
    return true;
  }
  if (it->second.kind == VarKind::kEdge) {
    return Fail("T23", var.span,
                "edge binding `$" + var.text +
                    "` cannot be used as a traversal endpoint; traversal endpoints must be node "
                    "bindings");
  }
  if (it->second.type != expected) {
    return Fail("T5", var.span,
                "variable `$" + var.text + "` has type `" + it->second.type->name + "` but edge `" +
                    edge.name + "` expects `" + expected->name + "`");
  }
  return true;
}

bool Checker::CheckNegation(const Clause& c, Scope* scope) {
  return CheckBlock(*c.negation(), c.span, *scope);
}

bool Checker::CheckBlock(const Negation& neg, const Span& span, const Scope& outer) {
  Scope inner = outer;
  size_t index = out_->negation_scopes.size();
  out_->negation_scopes.emplace_back();
  // A filter inside the block is a match filter of its own (its block operands allowed).
  const bool was_in_filter = in_match_filter_;
  in_match_filter_ = false;
  const bool clauses_ok = CheckClauses(neg.clauses, &inner, true);
  in_match_filter_ = was_in_filter;
  if (!clauses_ok) return false;
  bool has_outer = false;
  for (const Clause& ic : neg.clauses) {
    if (const Traversal* t = ic.traversal()) {
      has_outer |= outer.count(t->src.text) > 0 || outer.count(t->dst.text) > 0;
    } else if (const Filter* f = ic.filter()) {
      has_outer |= f->condition ? References(*f->condition, outer)
                                : References(f->left, outer) || References(f->right, outer);
    } else if (const Binding* b = ic.binding()) {
      has_outer |= outer.count(b->var.text) > 0;
    }
  }
  if (!has_outer && neg.kind == BlockKind::kNot) {
    return Fail("T9", span, "negation block must reference at least one outer-bound variable",
                "mention a variable bound before the `not` block, as in `not { $p knows $_ }`");
  }
  if (!has_outer) {
    const std::string kind = BlockKindName(neg.kind);
    return Fail("T9", span, kind + " block must reference at least one outer-bound variable",
                "mention a variable bound before the block, as in `" + kind + " { $p knows $_ }`");
  }
  if (neg.kind != BlockKind::kNot && !CheckSubqueryPredicate(neg, outer, inner)) return false;
  out_->negation_scopes[index] = std::move(inner);
  return true;
}

}  // namespace internal

QueryCheck CheckQuery(const schema::Catalog& catalog, const QueryDecl& query) {
  QueryCheck result;
  CheckedQuery checked;
  internal::Checker checker(catalog, query, &checked);
  if (checker.Run()) {
    result.checked = std::move(checked);
  } else {
    result.error = checker.TakeError();
  }
  return result;
}

Result<CheckedQuery> TypecheckQuery(const schema::Catalog& catalog, const QueryDecl& query) {
  QueryCheck result = CheckQuery(catalog, query);
  if (result.error) {
    return DiagnosticError(*result.error, "query:" + query.name.text);
  }
  return std::move(*result.checked);
}

}  // namespace omnigraph::query
