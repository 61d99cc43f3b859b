// Boolean expressions, meta-fields, Boolean return items and order keys, and Boolean mutation
// `where`s of the typechecker (typecheck_internal.h; docs/design/query-language.md "Boolean
// expressions" and "Meta-fields").

#include "query/check/typecheck_internal.h"
#include "query/plan/plan.h"

namespace omnigraph::query::internal {
namespace {

bool IsBool(const ExprType& t) {
  return t.is_value() && !t.value.list && t.value.scalar == ScalarKind::kBool;
}

bool Nullable(const ExprType& t) { return !t.is_value() || t.value.nullable; }

bool IsTextPredicate(const Expr& e) {
  return e.kind == ExprKind::kSearch || e.kind == ExprKind::kFuzzy ||
         e.kind == ExprKind::kMatchText;
}

// The first aggregate or search call in `e`, for T44.
const Expr* FindNonRowCall(const Expr& e) {
  if (e.kind == ExprKind::kAggregate || e.kind == ExprKind::kNearest || IsTextPredicate(e) ||
      e.kind == ExprKind::kBm25 || e.kind == ExprKind::kRrf) {
    return &e;
  }
  for (const Expr& a : e.args) {
    if (const Expr* found = FindNonRowCall(a)) return found;
  }
  return nullptr;
}

std::string CallName(const Expr& e) {
  if (e.kind == ExprKind::kAggregate) return AggFuncName(e.agg);
  std::string text = ExprText(e);
  return text.substr(0, text.find('('));
}

const char* kMetaHint[] = {"identity", "endpoint", "endpoint"};

// `id`, `src`, `dst`: 0, 1, 2; else -1.
int SystemNameIndex(std::string_view name) {
  return name == "id" ? 0 : name == "src" ? 1 : name == "dst" ? 2 : -1;
}

// The first Bool literal among the operands of `e`.
const Expr* FindBoolLiteral(const Expr& e) {
  if (e.kind == ExprKind::kLiteral && e.literal.value.tag() == schema::Value::Tag::kBool) {
    return &e;
  }
  for (const Expr& a : e.args) {
    if (const Expr* found = FindBoolLiteral(a)) return found;
  }
  return nullptr;
}

}  // namespace

std::string SystemFieldHint(std::string_view name, bool edge, const std::string& var) {
  int i = SystemNameIndex(name);
  if (i < 0 || (i > 0 && !edge)) return {};
  std::string field = var.empty() ? "@" + std::string(name) : "$" + var + ".@" + std::string(name);
  return std::string("; the system ") + kMetaHint[i] + " is `" + field + "`";
}

bool Checker::ResolveMeta(const Expr& e, const BoundVar& var, ExprType* out) {
  const bool edge = var.kind == VarKind::kEdge;
  const std::string& f = e.prop.text;
  if (f == "@id" || (edge && (f == "@src" || f == "@dst" || f == "@type"))) {
    *out = ExprType::Scalar(ScalarKind::kString);
    return true;
  }
  return Fail("T6", e.prop.span,
              "binding `$" + e.var.text + "` has no meta-field `" + f + "`; its meta-fields are " +
                  (edge ? "`@id`, `@src`, `@dst`, `@type`" : "`@id`"));
}

bool Checker::ResolveRowField(const Expr& e, ExprType* out) {
  const TypeDef& type = *row_type_;
  const std::string& name = e.alias.text;
  const bool edge = type.kind == schema::TypeKind::kEdge;
  if (name.starts_with("@")) {
    if (name == "@id" || (edge && (name == "@src" || name == "@dst"))) {
      *out = ExprType::Scalar(ScalarKind::kString);
      return true;
    }
    return Fail("T11", e.span,
                "type `" + type.name + "` has no meta-field `" + name +
                    "`; the meta-fields of this type are " +
                    (edge ? "`@id`, `@src`, `@dst`" : "`@id`"));
  }
  if (edge && (name == "from" || name == "to")) {
    *out = ExprType::Scalar(ScalarKind::kString);
    return true;
  }
  const schema::PropertyDef* prop = type.FindProperty(name);
  if (prop == nullptr) {
    return Fail("T11", e.span,
                "type `" + type.name + "` has no property `" + name + "`" +
                    SystemFieldHint(name, edge, ""));
  }
  if (prop->type.scalar == ScalarKind::kBlob) {
    return Fail("T11", e.span, "blob property `" + name + "` cannot be used in WHERE predicates");
  }
  *out = ExprType::Value(prop->type);
  return true;
}

bool Checker::ResolveBoolean(const Expr& e, const Scope& scope, ExprType* out) {
  if (e.kind == ExprKind::kCompare) {
    Filter f;
    f.left = e.args[0];
    f.op = e.op;
    f.op_span = e.op_span;
    f.right = e.args[1];
    const size_t before = out_->filters.size();
    if (!CheckFilter(f, scope, false)) return false;
    ExprType l = out_->filters.back().left, r = out_->filters.back().right;
    out_->filters.resize(before);  // `f` is a temporary: only its typing is kept.
    *out = ExprType::Scalar(ScalarKind::kBool, Nullable(l) || Nullable(r));
    return true;
  }
  if (e.kind == ExprKind::kNot || e.kind == ExprKind::kOr) {
    for (const Expr& a : e.args) {
      if (IsTextPredicate(a)) {
        return Fail("T38", a.span,
                    "search predicates require a standalone call or `= true`, alone or joined by "
                    "and");
      }
    }
  }
  std::vector<ExprType> args(e.args.size());
  for (size_t i = 0; i < e.args.size(); ++i) {
    if (!Resolve(e.args[i], scope, &args[i]) || !RejectBlobRead(args[i], e.args[i])) return false;
  }
  switch (e.kind) {
    case ExprKind::kAnd:
    case ExprKind::kOr: {
      if (!IsBool(args[0]) || !IsBool(args[1])) {
        return Fail("T41", e.op_span,
                    std::string("`") + (e.kind == ExprKind::kAnd ? "and" : "or") +
                        "` needs Bool operands, got " + args[0].DisplayName() + " and " +
                        args[1].DisplayName());
      }
      *out = ExprType::Scalar(ScalarKind::kBool, Nullable(args[0]) || Nullable(args[1]));
      return true;
    }
    case ExprKind::kNot:
      if (!IsBool(args[0])) {
        return Fail("T41", e.span, "`not` needs a Bool operand, got " + args[0].DisplayName());
      }
      *out = ExprType::Scalar(ScalarKind::kBool, Nullable(args[0]));
      return true;
    case ExprKind::kIsNull:
      if (!args[0].is_value()) {
        return Fail("T7", e.args[0].span, "`is null` needs a value, got " + args[0].DisplayName(),
                    "test a property ($v.prop) or a parameter");
      }
      *out = ExprType::Scalar(ScalarKind::kBool);
      return true;
    default: break;
  }
  // kIn.
  const ExprType& item = args[0];
  const ExprType& list = args[1];
  if (!item.is_value() || item.value.list) {
    return Fail("T7", e.args[0].span, "`in` needs a scalar on the left, got " + item.DisplayName());
  }
  if (!list.is_value() || !list.value.list) {
    return Fail("T7", e.args[1].span,
                "`in` needs a list on the right (a list literal or a list parameter), got " +
                    list.DisplayName());
  }
  PropType member = list.value;
  member.list = false;
  const bool empty_literal =
      e.args[1].kind == ExprKind::kLiteral && e.args[1].literal.value.list_items().empty();
  if (!empty_literal && !TypesCompatible(item.value, member)) {
    return Fail("T7", e.op_span,
                "cannot test membership of " + item.DisplayName() + " in " + list.DisplayName());
  }
  *out = ExprType::Scalar(ScalarKind::kBool, Nullable(item) || Nullable(list));
  return true;
}

bool Checker::CheckBooleanFilter(const Filter& f, const Scope& scope, bool negated) {
  ExprType t;
  if (!Resolve(*f.condition, scope, &t)) return false;
  if (!IsBool(t)) {
    return Fail("T41", f.condition->span, "a filter must be Boolean, got " + t.DisplayName(),
                "compare it, as in `$p.name = \"x\"`, or test it with `is null`");
  }
  for (const Filter& c : f.conjuncts) {
    if (!c.condition) {
      if (!CheckFilter(c, scope, negated)) return false;
      continue;
    }
    ExprType ct;
    if (!Resolve(*c.condition, scope, &ct)) return false;
    out_->filters.push_back(
        CheckedFilter{&c, ct, ExprType::Scalar(ScalarKind::kBool), FilterKind::kBoolean, negated});
  }
  return true;
}

bool Checker::CheckShadowedLiteral(const TypeDef& type, std::string_view word, const Span& span) {
  if (word != "true" && word != "false") return true;
  if (type.FindProperty(std::string(word)) == nullptr) return true;
  const std::string w(word);
  return Fail("T46", span,
              "`" + w + "` is a Boolean literal here; the property named `" + w + "` of `" +
                  type.name +
                  "` cannot be named bare in a mutation `where`; rename it in the schema "
                  "(`@rename_from`)");
}

bool Checker::CheckMutationCondition(const Mutation& m, const TypeDef& type) {
  const Expr& cond = *m.condition;
  if (const Expr* lit = FindBoolLiteral(cond)) {
    if (!CheckShadowedLiteral(type, lit->literal.value.bool_value() ? "true" : "false",
                              lit->span)) {
      return false;
    }
  }
  if (const Expr* call = FindNonRowCall(cond)) {
    return Fail("T44", call->span,
                "`" + CallName(*call) +
                    "` cannot appear in a mutation where; a where compares the row's own "
                    "properties, parameters and now()");
  }
  row_type_ = &type;
  ExprType t;
  bool ok = Resolve(cond, Scope{}, &t);
  row_type_ = nullptr;
  if (!ok) return false;
  if (!IsBool(t)) {
    return Fail("T41", cond.span, "a mutation `where` must be Boolean, got " + t.DisplayName());
  }
  return true;
}

namespace {

// The first leaf of `e` that reads a row (a bare name or `$v.prop`), for T45.
const Expr* FindRowLeaf(const Expr& e) {
  if (e.kind == ExprKind::kAlias || e.kind == ExprKind::kProp) return &e;
  for (const Expr& a : e.args) {
    if (const Expr* found = FindRowLeaf(a)) return found;
  }
  return nullptr;
}

}  // namespace

bool Checker::CheckConstantValue(const MatchValue& v, const PropType& expected,
                                 const std::string& prop) {
  const char* kWhy =
      "` cannot appear in an assignment value; assignments and binding matches are constants "
      "per invocation";
  if (const Expr* call = FindNonRowCall(v.expr)) {
    return Fail("T44", call->span, "`" + CallName(*call) + kWhy);
  }
  if (const Expr* leaf = FindRowLeaf(v.expr)) {
    return Fail("T45", leaf->span,
                "`" + (leaf->kind == ExprKind::kAlias ? leaf->alias.text : ExprText(*leaf)) + kWhy);
  }
  ExprType t;
  if (!Resolve(v.expr, Scope{}, &t)) return false;
  PropType target = expected;
  target.list = expected.list && t.value.list;  // A scalar against a list property: membership.
  if (!t.is_value() || !TypesCompatible(t.value, target)) {
    return Fail("T7", v.span,
                "cannot assign/compare " + t.DisplayName() + " with " + expected.DisplayName() +
                    " for property `" + prop + "`");
  }
  return true;
}

bool Checker::CheckBooleanProjection(const Projection& p) {
  if (p.alias || !p.expr.is_boolean_form()) return true;
  return Fail("T43", p.expr.span, "a comparison in return needs an alias; write `… as <name>`",
              "add `as <name>` after `" + ExprText(p.expr) + "`");
}

bool Checker::CheckOrderKeyProjected(const Ordering& o) {
  if (o.expr.kind == ExprKind::kAggregate) {
    // The reference orders by a property or an alias only; an aggregate key is its executor's
    // "unsupported ordering expression" (decision 179).
    return Fail("T42", o.expr.span,
                "unsupported ordering expression `" + ExprText(o.expr) +
                    "`; an aggregate is ordered by the alias of its return item",
                "write `" + ExprText(o.expr) + " as <name>` in return and order by `<name>`");
  }
  if (!o.expr.is_boolean_form()) return true;
  for (const Projection& p : query_.projections) {
    if (SameExpr(p.expr, o.expr)) return true;
  }
  return Fail("T42", o.expr.span,
              "order key `" + ExprText(o.expr) +
                  "` does not appear in return; add it to return or order by its alias");
}

}  // namespace omnigraph::query::internal
