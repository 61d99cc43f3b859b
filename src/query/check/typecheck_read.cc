// Filters, projections, ordering, limits and read sets of read queries (typecheck_internal.h).

#include <set>

#include "query/check/typecheck_internal.h"
#include "query/plan/plan.h"

namespace omnigraph::query::internal {
namespace {

bool IsString(const PropType& t) { return !t.list && t.scalar == ScalarKind::kString; }

// Whether `e` contains nearest() outside rrf() (rrf == false) or rrf() (rrf == true), following
// aliases to their projections, as the reference does for T17/T18/T21.
bool ContainsRanking(const Expr& e, bool rrf, const std::map<std::string, const Expr*>& aliases,
                     std::set<std::string>* seen) {
  switch (e.kind) {
    case ExprKind::kNearest: return !rrf;
    case ExprKind::kRrf: return rrf;
    case ExprKind::kAlias: {
      auto it = aliases.find(e.alias.text);
      if (it == aliases.end() || !seen->insert(e.alias.text).second) return false;
      bool found = ContainsRanking(*it->second, rrf, aliases, seen);
      seen->erase(e.alias.text);
      return found;
    }
    case ExprKind::kAggregate:
    case ExprKind::kSearch:
    case ExprKind::kFuzzy:
    case ExprKind::kMatchText:
    case ExprKind::kBm25:
      for (const Expr& a : e.args) {
        if (ContainsRanking(a, rrf, aliases, seen)) return true;
      }
      return false;
    default: return false;
  }
}

// The name of an unaliased projection of `e`. An aggregate is named after its argument, as
// the reference's executor names it (`count($w.since)` is `w.since`, `count($d)` is `d`;
// decision 177).
std::string ExprColumnName(const Expr& e) {
  switch (e.kind) {
    case ExprKind::kProp: return e.var.text + "." + e.prop.text;
    case ExprKind::kVariable: return e.var.text;
    case ExprKind::kAggregate:
      return e.args.empty() ? AggFuncName(e.agg) : ExprColumnName(e.args[0]);
    case ExprKind::kAlias: return e.alias.text;
    case ExprKind::kLiteral: return "literal";
    case ExprKind::kNow: return "now";
    case ExprKind::kNearest: return e.var.text + "._distance";
    case ExprKind::kSearch: return "search";
    case ExprKind::kFuzzy: return "fuzzy";
    case ExprKind::kMatchText: return "match_text";
    case ExprKind::kBm25:  // The score of the field's variable, as nearest's distance.
      return e.args.size() > 0 && e.args[0].kind == ExprKind::kProp ? e.args[0].var.text + "._score"
                                                                    : "bm25";
    case ExprKind::kRrf: return "rrf";
    default: break;  // A Boolean form needs an alias (T43).
  }
  return "?";
}

std::string ColumnName(const Projection& p) {
  return p.alias ? p.alias->text : ExprColumnName(p.expr);
}

}  // namespace

bool Checker::CheckFilter(const Filter& f, const Scope& scope, bool negated) {
  if (f.condition) return CheckBooleanFilter(f, scope, negated);
  CheckedFilter cf{&f, {}, {}, FilterKind::kCompare, negated};
  if (!Resolve(f.left, scope, &cf.left) || !Resolve(f.right, scope, &cf.right)) return false;
  if (!cf.left.is_value() || !cf.right.is_value()) {
    return Fail("T7", f.op_span,
                "filter comparisons require scalar operands, got " + cf.left.DisplayName() +
                    " and " + cf.right.DisplayName(),
                "compare properties ($v.prop), parameters or literals");
  }
  const PropType& l = cf.left.value;
  const PropType& r = cf.right.value;
  std::string op = CompOpName(f.op);
  if (l.scalar == ScalarKind::kBlob || r.scalar == ScalarKind::kBlob) {
    return Fail("T7", f.op_span, "blob comparisons in filters are not supported");
  }
  if (f.op == CompOp::kContains) {
    if (IsString(l)) {
      if (!IsString(r)) {
        return Fail("T7", f.right.span,
                    "string contains requires a String right operand, got " + r.DisplayName());
      }
      cf.kind = FilterKind::kStringContains;
    } else {
      if (!l.list) {
        return Fail("T7", f.left.span,
                    "contains requires a list property (membership) or a String property "
                    "(substring) on the left, got " +
                        l.DisplayName());
      }
      if (r.list) return Fail("T7", f.right.span, "contains requires a scalar right operand");
      if (l.scalar == ScalarKind::kVector || r.scalar == ScalarKind::kVector) {
        return Fail("T7", f.op_span, "vector membership filters are not supported");
      }
      PropType member = l;
      member.list = false;
      member.enum_values.clear();
      if (!TypesCompatible(member, r)) {
        return Fail("T7", f.right.span,
                    "cannot test membership of " + r.DisplayName() + " in " + l.DisplayName());
      }
      cf.kind = FilterKind::kListContains;
    }
  } else if (f.op == CompOp::kStartsWith) {
    if (!IsString(l)) {
      return Fail("T7", f.left.span,
                  op + " requires a String property on the left, got " + l.DisplayName());
    }
    if (!IsString(r)) {
      return Fail("T7", f.right.span,
                  op + " requires a String right operand, got " + r.DisplayName());
    }
    cf.kind = FilterKind::kStartsWith;
  } else {
    if (l.list || r.list) {
      return Fail("T7", f.op_span,
                  "list comparisons in filters are not supported; use `contains` for list "
                  "membership");
    }
    if (l.scalar == ScalarKind::kVector || r.scalar == ScalarKind::kVector) {
      return Fail("T7", f.op_span, "vector comparisons in filters are not supported");
    }
    if (!TypesCompatible(l, r)) {
      std::string fix;
      if (r.scalar == ScalarKind::kString &&
          (l.scalar == ScalarKind::kDate || l.scalar == ScalarKind::kDateTime)) {
        fix = std::string("write the literal as ") + (l.scalar == ScalarKind::kDate
                                                          ? "date(\"YYYY-MM-DD\")"
                                                          : "datetime(\"YYYY-MM-DDTHH:MM:SSZ\")");
      }
      return Fail("T7", f.op_span, "cannot compare " + l.DisplayName() + " with " + r.DisplayName(),
                  fix);
    }
    if (f.text_search) cf.kind = FilterKind::kTextSearch;
  }
  out_->filters.push_back(std::move(cf));
  return true;
}

namespace {

// The first node of `e` (itself included, depth first) whose kind `wanted` accepts, or null.
const Expr* FindIn(const Expr& e, bool (*wanted)(ExprKind)) {
  if (wanted(e.kind)) return &e;
  for (const Expr& arg : e.args) {
    if (const Expr* found = FindIn(arg, wanted)) return found;
  }
  return nullptr;
}

bool IsRetrieval(ExprKind k) {
  return k == ExprKind::kNearest || k == ExprKind::kBm25 || k == ExprKind::kRrf;
}
bool IsTextPredicate(ExprKind k) {
  return k == ExprKind::kSearch || k == ExprKind::kFuzzy || k == ExprKind::kMatchText;
}

}  // namespace

bool Checker::CheckSearchProjection(const Projection& p) {
  // The reference's rules for search forms in `return` (scenario corpus issue_640): a
  // projected score reads the column its retrieval appended, so it must be that retrieval.
  if (p.expr.kind == ExprKind::kAlias) {
    return Fail("T36", p.expr.span, "`" + p.expr.alias.text + "` cannot be projected in `return`",
                "project the expression `" + p.expr.alias.text + "` names, under another alias");
  }
  if (const Expr* text = FindIn(p.expr, IsTextPredicate)) {
    return Fail("T35", text->span,
                std::string("`") + SearchName(text->kind) + "` cannot be projected in `return`",
                "use it in `match` to filter rows, or project `bm25(...)` ordered by itself");
  }
  const Expr* ranking = FindIn(p.expr, IsRetrieval);
  if (ranking == nullptr) return true;
  const std::string name = SearchName(ranking->kind);
  if (const Expr* agg = FindIn(p.expr, [](ExprKind k) { return k == ExprKind::kAggregate; })) {
    return Fail("T32", ranking->span,
                "`" + name + "` under `" + AggFuncName(agg->agg) + "` in `return`",
                "project the score itself, ordered by the same retrieval");
  }
  // The leading key states the retrieval itself, or names this projection by its alias.
  const Expr* lead = query_.orderings.empty() ? nullptr : &query_.orderings.front().expr;
  const bool repeated =
      lead != nullptr && (SameExpr(*lead, p.expr) || (lead->kind == ExprKind::kAlias && p.alias &&
                                                      lead->alias.text == p.alias->text));
  if (!repeated) {
    return Fail("T33", ranking->span,
                "`" + name +
                    "` in `return` must repeat the retrieval stated as the leading "
                    "`order` key",
                "order by `" + ExprText(p.expr) + "` first, or leave the score out of return");
  }
  return true;
}

bool Checker::CheckProjections() {
  for (const Projection& p : query_.projections) {
    ExprType t;
    if (!CheckBooleanProjection(p)) return false;
    if (!Resolve(p.expr, out_->vars, &t) || !RejectBlobRead(t, p.expr)) return false;
    if (!CheckSearchProjection(p)) return false;
    if (p.alias) aliases_[p.alias->text] = t;
    out_->columns.push_back(ColumnOf(p, t));
  }
  if (!CheckDistinctColumns()) return false;
  for (const Projection& p : query_.projections) {
    out_->has_aggregates |= p.expr.kind == ExprKind::kAggregate;
  }
  if (!out_->has_aggregates) return true;
  for (const Projection& p : query_.projections) {
    ExprKind k = p.expr.kind;
    if (k != ExprKind::kAggregate && k != ExprKind::kProp && k != ExprKind::kVariable) {
      return Fail("T9", p.expr.span,
                  "non-aggregate expressions in an aggregate query must be property accesses or "
                  "variables",
                  "group by properties ($v.prop) or variables only");
    }
  }
  return true;
}

bool Checker::CheckDistinctColumns() {
  // A row is an object keyed by column name: a second column of one name would hide the first.
  for (size_t i = 0; i < out_->columns.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (out_->columns[j].name != out_->columns[i].name) continue;
      const Projection& p = query_.projections[i];
      return Fail(
          "T50", p.alias ? p.alias->span : p.expr.span,
          "result column `" + out_->columns[i].name + "` is produced by more than one projection",
          "give each projection its own name with `as <name>`");
    }
  }
  return true;
}

ResultColumn Checker::ColumnOf(const Projection& p, const ExprType& resolved) {
  ResultColumn c;
  c.name = ColumnName(p);
  const Expr& e = p.expr;
  if (e.kind == ExprKind::kAggregate) {
    c.aggregate = true;
    c.nullable = true;
    if (e.agg == AggFunc::kCount) {
      c.type = ExprType::Scalar(ScalarKind::kI64, true);
    } else if (e.agg == AggFunc::kSum || e.agg == AggFunc::kAvg) {
      c.type = ExprType::Scalar(ScalarKind::kF64, true);
    } else {
      ExprType arg;
      bool ok = Resolve(e.args[0], out_->vars, &arg);
      OMNIGRAPH_CHECK(ok);  // Resolved once already by the caller.
      c.type = arg;
      if (c.type.is_value()) c.type.value.nullable = true;
    }
    return c;
  }
  switch (resolved.kind) {
    case ExprType::Kind::kValue:
      c.type = resolved;
      c.nullable = resolved.value.nullable;
      // The reference types nearest F64 in its typechecker (rrf requires it) but its executor
      // emits Lance's Float32 `_distance`, which is what its results declare (decision 199).
      if (e.kind == ExprKind::kNearest) c.type.value.scalar = ScalarKind::kF32;
      break;
    case ExprType::Kind::kEntity:
      c.type = resolved;
      c.nullable = false;
      break;
    case ExprType::Kind::kAggregate:
      c.type = ExprType::Scalar(ScalarKind::kI64, true);
      c.nullable = true;
      break;
  }
  return c;
}

bool Checker::CheckOrderAndLimit() {
  for (const Ordering& o : query_.orderings) {
    ExprType t;
    if (!Resolve(o.expr, out_->vars, &t) || !RejectBlobRead(t, o.expr)) return false;
    if (!CheckOrderKeyProjected(o)) return false;
    out_->order_types.push_back(t);
  }
  std::map<std::string, const Expr*> alias_exprs;
  for (const Projection& p : query_.projections) {
    if (p.alias) alias_exprs[p.alias->text] = &p.expr;
  }
  const Ordering* nearest = nullptr;
  const Ordering* rrf = nullptr;
  for (const Ordering& o : query_.orderings) {
    std::set<std::string> seen;
    if (nearest == nullptr && ContainsRanking(o.expr, false, alias_exprs, &seen)) nearest = &o;
    if (rrf == nullptr && ContainsRanking(o.expr, true, alias_exprs, &seen)) rrf = &o;
  }
  if (rrf != nullptr && !query_.limit) {
    return Fail("T21", rrf->expr.span, "rrf ordering requires a limit clause",
                "add `limit N` after the order clause");
  }
  if (nearest != nullptr && !query_.limit) {
    return Fail("T17", nearest->expr.span, "nearest ordering requires a limit clause",
                "add `limit N` after the order clause");
  }
  if (nearest != nullptr) {
    for (const Ordering& o : query_.orderings) {
      if (o.expr.kind == ExprKind::kAlias) {
        return Fail("T18", o.expr.span,
                    "alias-based ordering is not supported together with nearest in phase 1",
                    "order by the property itself ($v.prop) instead of its alias");
      }
    }
  }
  return true;
}

void Checker::CollectReads() {
  std::set<GraphFact> reads;
  auto node = [](const std::string& name) { return GraphFact{schema::TypeKind::kNode, name}; };
  for (const CheckedBinding& b : out_->bindings) reads.insert(node(b.type->name));
  for (const CheckedTraversal& t : out_->traversals) {
    for (const TypeDef* edge : t.edges) {
      reads.insert(GraphFact{schema::TypeKind::kEdge, edge->name});
      reads.insert(node(edge->from.name));
      reads.insert(node(edge->to.name));
    }
  }
  out_->reads.assign(reads.begin(), reads.end());
}

}  // namespace omnigraph::query::internal
