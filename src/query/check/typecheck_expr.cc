// Expression typing, literal checks and value checks of the typechecker (typecheck_internal.h).

#include <cmath>

#include "query/check/typecheck_internal.h"

namespace omnigraph::query::internal {
namespace {

bool IsStringScalar(const ExprType& t) {
  return t.is_value() && t.value.scalar == ScalarKind::kString && !t.value.list;
}

bool IsIntegerScalar(const ExprType& t) {
  return t.is_value() && !t.value.list && schema::IsInteger(t.value.scalar);
}

std::string PropertyNames(const TypeDef& type) {
  std::vector<std::string> names;
  for (const schema::PropertyDef& p : type.properties) names.push_back(p.name);
  if (names.empty()) return "it has no properties";
  return "its properties are " + ListNames(names, 12);
}

// The first number of `v` (a scalar or a list's items) that an F32 cannot hold: it rounds to
// an infinity. Stored F32s and vector elements are single precision, so such a literal could only
// be stored as an infinity or refused at run time.
std::optional<std::string> BeyondF32(const schema::Value& v) {
  if (v.tag() == schema::Value::Tag::kList) {
    for (const schema::Value& item : v.list_items()) {
      if (std::optional<std::string> bad = BeyondF32(item)) return bad;
    }
    return std::nullopt;
  }
  double d = v.tag() == schema::Value::Tag::kFloat  ? v.float_value()
             : v.tag() == schema::Value::Tag::kInt  ? static_cast<double>(v.int_value())
             : v.tag() == schema::Value::Tag::kUInt ? static_cast<double>(v.uint_value())
                                                    : 0.0;
  if (std::isfinite(static_cast<float>(d))) return std::nullopt;
  return v.DebugString();
}

}  // namespace

bool TypesCompatible(const PropType& a, const PropType& b) {
  if (a.list != b.list) return false;
  if (a.scalar == b.scalar) return a.scalar != ScalarKind::kVector || a.vector_dim == b.vector_dim;
  return schema::IsNumeric(a.scalar) && schema::IsNumeric(b.scalar);
}

std::optional<PropType> LiteralType(const schema::Value& v, std::string* error) {
  PropType t;
  switch (v.tag()) {
    case schema::Value::Tag::kNull: t.nullable = true; return t;
    case schema::Value::Tag::kString: t.scalar = ScalarKind::kString; return t;
    case schema::Value::Tag::kInt: t.scalar = ScalarKind::kI64; return t;
    case schema::Value::Tag::kUInt: t.scalar = ScalarKind::kU64; return t;
    case schema::Value::Tag::kFloat: t.scalar = ScalarKind::kF64; return t;
    case schema::Value::Tag::kBool: t.scalar = ScalarKind::kBool; return t;
    case schema::Value::Tag::kDate: t.scalar = ScalarKind::kDate; return t;
    case schema::Value::Tag::kDateTime: t.scalar = ScalarKind::kDateTime; return t;
    case schema::Value::Tag::kList: break;
  }
  const std::vector<schema::Value>& items = v.list_items();
  t.list = true;
  if (items.empty()) return t;  // An empty list is a [String], as in the reference.
  std::optional<PropType> first = LiteralType(items[0], error);
  if (!first) return std::nullopt;
  if (first->list) {
    *error = "nested list literals are not supported";
    return std::nullopt;
  }
  for (size_t i = 1; i < items.size(); ++i) {
    std::optional<PropType> item = LiteralType(items[i], error);
    if (!item) return std::nullopt;
    if (item->list || !TypesCompatible(*first, *item)) {
      *error = "list literal elements must share a compatible scalar type";
      return std::nullopt;
    }
  }
  t.scalar = first->scalar;
  return t;
}

size_t NumericVectorLiteralDim(const schema::Value& v) {
  if (v.tag() != schema::Value::Tag::kList || v.list_items().empty()) return 0;
  for (const schema::Value& item : v.list_items()) {
    if (item.tag() != schema::Value::Tag::kInt && item.tag() != schema::Value::Tag::kFloat) {
      return 0;
    }
  }
  return v.list_items().size();
}

const PropType* Checker::ParamType(std::string_view name) const {
  for (size_t i = 0; i < query_.params.size(); ++i) {
    if (query_.params[i].name.text == name) return &query_.params[i].type;
  }
  return nullptr;
}

bool Checker::Resolve(const Expr& e, const Scope& scope, ExprType* out) {
  switch (e.kind) {
    case ExprKind::kNow: *out = ExprType::Scalar(ScalarKind::kDateTime); return true;
    case ExprKind::kProp: return ResolveProp(e, scope, out);
    case ExprKind::kNearest: return ResolveNearest(e, scope, out);
    case ExprKind::kSearch:
    case ExprKind::kFuzzy:
    case ExprKind::kMatchText:
    case ExprKind::kBm25: return ResolveTextCall(e, scope, out);
    case ExprKind::kRrf: return ResolveRrf(e, scope, out);
    case ExprKind::kAggregate: return ResolveAggregate(e, scope, out);
    case ExprKind::kCompare:
    case ExprKind::kAnd:
    case ExprKind::kOr:
    case ExprKind::kNot:
    case ExprKind::kIsNull:
    case ExprKind::kIn: return ResolveBoolean(e, scope, out);
    case ExprKind::kBlock: return ResolveBlock(e, scope, out);
    case ExprKind::kVariable: {
      if (const PropType* p = ParamType(e.var.text)) {
        *out = ExprType::Value(*p);
        return true;
      }
      auto it = scope.find(e.var.text);
      if (it == scope.end()) {
        return Fail("T6", e.var.span, "variable `$" + e.var.text + "` is not bound",
                    "bind it in `match` (as in `$" + e.var.text +
                        ": Type`) or declare it as a query parameter");
      }
      if (it->second.kind == VarKind::kEdge) {
        return Fail("T23", e.var.span,
                    "edge binding `$" + e.var.text +
                        "` cannot be used bare; access one of its properties (`$" + e.var.text +
                        ".{prop}`)");
      }
      *out = ExprType::Entity(it->second.type);
      return true;
    }
    case ExprKind::kLiteral: {
      std::string error;
      std::optional<PropType> t = LiteralType(e.literal.value, &error);
      if (!t) return Fail("T3", e.span, error, "write a flat list of values of one type");
      *out = ExprType::Value(*t);
      return true;
    }
    case ExprKind::kAlias: {
      if (row_type_ != nullptr) return ResolveRowField(e, out);
      auto it = aliases_.find(e.alias.text);
      *out = it != aliases_.end() ? it->second : ExprType::Aggregate();
      return true;
    }
  }
  return Fail("T7", e.span, "unsupported expression");
}

bool Checker::ResolveProp(const Expr& e, const Scope& scope, ExprType* out) {
  auto it = scope.find(e.var.text);
  if (it == scope.end()) {
    return Fail("T6", e.var.span, "variable `$" + e.var.text + "` is not bound",
                "bind it in `match` first, as in `$" + e.var.text + ": Type`");
  }
  if (e.prop.text.starts_with("@")) return ResolveMeta(e, it->second, out);
  const TypeDef& type = *it->second.type;
  const schema::PropertyDef* prop = type.FindProperty(e.prop.text);
  if (prop == nullptr) {
    bool edge = it->second.kind == VarKind::kEdge;
    return Fail("T6", e.prop.span,
                std::string(edge ? "edge" : "type") + " `" + type.name + "` has no property `" +
                    e.prop.text + "`" + SystemFieldHint(e.prop.text, edge, e.var.text),
                PropertyNames(type));
  }
  if (prop->type.scalar == ScalarKind::kBlob) {
    return Fail("T24", e.span,
                "Blob property `$" + e.var.text + "." + e.prop.text +
                    "` is not available as a .gq read value; Blob values require a dedicated API");
  }
  *out = ExprType::Value(prop->type);
  return true;
}

bool Checker::ResolveNearest(const Expr& e, const Scope& scope, ExprType* out) {
  auto it = scope.find(e.var.text);
  if (it == scope.end()) {
    return Fail("T15", e.var.span, "variable `$" + e.var.text + "` is not bound",
                "bind it in `match` first");
  }
  if (it->second.kind == VarKind::kEdge) {
    return Fail("T23", e.var.span,
                "nearest cannot target edge binding `$" + e.var.text +
                    "`; vector search runs on node properties");
  }
  const TypeDef& type = *it->second.type;
  const schema::PropertyDef* prop = type.FindProperty(e.prop.text);
  if (prop == nullptr) {
    return Fail("T15", e.prop.span,
                "type `" + type.name + "` has no property `" + e.prop.text + "`",
                PropertyNames(type));
  }
  if (prop->type.scalar != ScalarKind::kVector) {
    return Fail("T15", e.prop.span,
                "nearest requires a Vector property, got " + type.name + "." + e.prop.text + ": " +
                    prop->type.DisplayName());
  }
  if (prop->type.list) {
    return Fail("T15", e.prop.span, "nearest does not support list-wrapped vectors");
  }
  uint32_t dim = prop->type.vector_dim;
  const Expr& query = e.args[0];
  *out = ExprType::Scalar(ScalarKind::kF64);
  if (query.kind == ExprKind::kLiteral) {
    if (size_t n = NumericVectorLiteralDim(query.literal.value); n > 0) {
      if (n != dim) {
        return Fail("T15", query.span,
                    "nearest vector dimension mismatch: property is Vector(" + std::to_string(dim) +
                        "), query literal has " + std::to_string(n) + " elements");
      }
      return true;
    }
  }
  ExprType q;
  if (!Resolve(query, scope, &q)) return false;
  if (!q.is_value()) {
    return Fail("T15", query.span, "nearest query must be a scalar expression");
  }
  if (q.value.scalar == ScalarKind::kVector && !q.value.list) {
    if (q.value.vector_dim != dim) {
      return Fail("T15", query.span,
                  "nearest vector dimension mismatch: property is Vector(" + std::to_string(dim) +
                      "), query is Vector(" + std::to_string(q.value.vector_dim) + ")");
    }
  } else if (!IsStringScalar(q)) {
    return Fail("T15", query.span,
                "nearest query must be Vector(" + std::to_string(dim) + ") or String, got " +
                    q.value.DisplayName());
  }
  return true;
}

bool Checker::ResolveTextCall(const Expr& e, const Scope& scope, ExprType* out) {
  const char* name = e.kind == ExprKind::kSearch      ? "search"
                     : e.kind == ExprKind::kFuzzy     ? "fuzzy"
                     : e.kind == ExprKind::kMatchText ? "match_text"
                                                      : "bm25";
  const char* code = e.kind == ExprKind::kSearch || e.kind == ExprKind::kFuzzy ? "T19" : "T20";
  const Expr& field = e.args[0];
  if (field.kind == ExprKind::kProp) {
    auto it = scope.find(field.var.text);
    if (it != scope.end() && it->second.kind == VarKind::kEdge) {
      return Fail("T23", field.span,
                  std::string(name) + " cannot target edge property `$" + field.var.text + "." +
                      field.prop.text +
                      "`; text/rank search runs on node properties — edge properties support "
                      "comparison filters and projection");
    }
  }
  const char* roles[] = {"field", "query"};
  for (int i = 0; i < 2; ++i) {
    ExprType t;
    if (!Resolve(e.args[i], scope, &t)) return false;
    if (IsStringScalar(t)) continue;
    if (t.is_value()) {
      return Fail(
          code, e.args[i].span,
          std::string(name) + " " + roles[i] + " must be String, got " + t.value.DisplayName());
    }
    return Fail(code, e.args[i].span,
                std::string(name) + " " + roles[i] + " must be a scalar String expression");
  }
  if (e.kind == ExprKind::kFuzzy && e.args.size() == 3) {
    ExprType t;
    if (!Resolve(e.args[2], scope, &t)) return false;
    if (!IsIntegerScalar(t)) {
      if (t.is_value()) {
        return Fail("T19", e.args[2].span,
                    "fuzzy max_edits must be an integer scalar, got " + t.value.DisplayName());
      }
      return Fail("T19", e.args[2].span, "fuzzy max_edits must be an integer scalar expression");
    }
  }
  *out = ExprType::Scalar(e.kind == ExprKind::kBm25 ? ScalarKind::kF64 : ScalarKind::kBool);
  return true;
}

bool Checker::ResolveRrf(const Expr& e, const Scope& scope, ExprType* out) {
  const char* roles[] = {"primary", "secondary"};
  for (int i = 0; i < 2; ++i) {
    ExprKind k = e.args[i].kind;
    if (k != ExprKind::kNearest && k != ExprKind::kBm25) {
      return Fail("T21", e.args[i].span,
                  std::string("rrf ") + roles[i] + " expression must be nearest(...) or bm25(...)");
    }
  }
  for (int i = 0; i < 2; ++i) {
    ExprType t;
    if (!Resolve(e.args[i], scope, &t)) return false;
    if (!t.is_value() || t.value.scalar != ScalarKind::kF64 || t.value.list) {
      return Fail("T21", e.args[i].span,
                  "rrf rank expressions must evaluate to F64, got " + t.DisplayName());
    }
  }
  if (e.args.size() == 3) {
    const Expr& k = e.args[2];
    ExprType t;
    if (!Resolve(k, scope, &t)) return false;
    if (!IsIntegerScalar(t)) {
      if (t.is_value()) {
        return Fail("T21", k.span, "rrf k must be an integer scalar, got " + t.value.DisplayName());
      }
      return Fail("T21", k.span, "rrf k must be an integer scalar expression");
    }
    if (k.kind == ExprKind::kLiteral && k.literal.value.tag() == schema::Value::Tag::kInt &&
        k.literal.value.int_value() <= 0) {
      return Fail("T21", k.span, "rrf k must be greater than 0", "the usual k is 60");
    }
  }
  *out = ExprType::Scalar(ScalarKind::kF64);
  return true;
}

bool Checker::ResolveAggregate(const Expr& e, const Scope& scope, ExprType* out) {
  const Expr& arg = e.args[0];
  ExprType t;
  if (!Resolve(arg, scope, &t)) return false;
  if (!RejectBlobRead(t, arg)) return false;
  std::string func = AggFuncName(e.agg);
  if (t.kind == ExprType::Kind::kAggregate && arg.kind == ExprKind::kAggregate) {
    return Fail("T8", arg.span, "aggregate arguments cannot themselves be aggregates",
                "aggregate a property, as in `" + func + "($p.age)`");
  }
  if (e.agg == AggFunc::kSum || e.agg == AggFunc::kAvg) {
    if (!t.is_value() || t.value.list || !schema::IsNumeric(t.value.scalar)) {
      return Fail("T8", arg.span, func + " requires numeric type, got " + t.DisplayName());
    }
  } else if (e.agg == AggFunc::kMin || e.agg == AggFunc::kMax) {
    // Dates and DateTimes order too: the earliest and the latest (as the newer reference does).
    const ScalarKind k = t.value.scalar;
    if (!t.is_value() || t.value.list ||
        (!schema::IsNumeric(k) && k != ScalarKind::kString && k != ScalarKind::kDate &&
         k != ScalarKind::kDateTime)) {
      return Fail(
          "T8", arg.span,
          func + " requires numeric, string, Date or DateTime type, got " + t.DisplayName());
    }
  }
  *out = ExprType::Aggregate();
  return true;
}

bool Checker::RejectBlobRead(const ExprType& t, const Expr& e) {
  if (!t.is_value() || t.value.scalar != ScalarKind::kBlob) return true;
  std::string subject = e.kind == ExprKind::kVariable ? "Blob parameter `$" + e.var.text + "`"
                        : e.kind == ExprKind::kAlias  ? "Blob alias `" + e.alias.text + "`"
                                                      : "Blob expression";
  return Fail(
      "T24", e.span,
      subject + " is not available as a .gq read value; Blob values require a dedicated API");
}

bool Checker::CheckLiteral(const Literal& lit, const PropType& expected, const std::string& prop) {
  if (lit.value.is_null()) {
    if (expected.nullable) return true;
    return Fail("T3", lit.span, "property `" + prop + "` is non-nullable but got null");
  }
  if (expected.scalar == ScalarKind::kF32 || expected.scalar == ScalarKind::kVector) {
    if (std::optional<std::string> bad = BeyondF32(lit.value)) {
      return Fail("T3", lit.span,
                  "property `" + prop + "` has type " + expected.DisplayName() + " but literal " +
                      *bad + " exceeds F32 range");
    }
  }
  if (!expected.list && expected.scalar == ScalarKind::kVector) {
    if (size_t n = NumericVectorLiteralDim(lit.value); n > 0) {
      if (n == expected.vector_dim) return true;
      return Fail("T3", lit.span,
                  "property `" + prop + "` has type Vector(" + std::to_string(expected.vector_dim) +
                      ") but got vector literal with " + std::to_string(n) + " elements");
    }
  }
  std::string error;
  std::optional<PropType> t = LiteralType(lit.value, &error);
  if (!t) return Fail("T3", lit.span, error, "write a flat list of values of one type");
  if (!TypesCompatible(*t, expected)) {
    return Fail("T3", lit.span,
                "property `" + prop + "` has type " + expected.DisplayName() + " but got " +
                    t->DisplayName());
  }
  if (!expected.is_enum()) return true;
  std::string allowed = ListNames(expected.enum_values, expected.enum_values.size());
  auto check = [&](const schema::Value& v) {
    if (v.tag() != schema::Value::Tag::kString) return true;
    for (const std::string& a : expected.enum_values) {
      if (a == v.string_value()) return true;
    }
    std::string joined;
    for (size_t i = 0; i < expected.enum_values.size(); ++i) {
      joined += (i > 0 ? ", " : "") + expected.enum_values[i];
    }
    return Fail(
        "T3", lit.span,
        "property `" + prop + "` expects one of [" + joined + "], got '" + v.string_value() + "'",
        "use one of " + allowed);
  };
  if (lit.value.tag() == schema::Value::Tag::kList) {
    if (!expected.list) return true;
    for (const schema::Value& item : lit.value.list_items()) {
      if (!check(item)) return false;
    }
    return true;
  }
  return check(lit.value);
}

// A binding's property match: a scalar against a list property means membership (T3 / T7 for
// list equality), otherwise the value must fit the property.
bool Checker::CheckBindingValue(const MatchValue& v, const PropType& expected,
                                const std::string& prop) {
  PropType member = expected;
  member.list = false;
  member.enum_values.clear();
  switch (v.kind) {
    case MatchValue::Kind::kNow: return CheckNow(expected, prop, v.span);
    case MatchValue::Kind::kExpr: return CheckConstantValue(v, expected, prop);
    case MatchValue::Kind::kLiteral: {
      if (!expected.list) return CheckLiteral(v.literal, expected, prop);
      std::string error;
      std::optional<PropType> t = LiteralType(v.literal.value, &error);
      if (!t) return Fail("T3", v.span, error);
      if (t->list) {
        return Fail("T3", v.span,
                    "list equality is not supported for property `" + prop +
                        "`; use a scalar value to match list membership");
      }
      if (!TypesCompatible(*t, member)) {
        return Fail("T3", v.span,
                    "property `" + prop + "` has type " + expected.DisplayName() +
                        " but membership match got " + t->DisplayName());
      }
      return true;
    }
    case MatchValue::Kind::kVariable: break;
  }
  const PropType* actual = ParamType(v.variable.text);
  if (actual == nullptr) {
    return Fail("T6", v.span, "variable `$" + v.variable.text + "` is not bound",
                "declare it as a query parameter, as in `$" + v.variable.text + ": " +
                    member.DisplayName() + "`");
  }
  if (expected.list) {
    if (actual->list) {
      return Fail("T7", v.span,
                  "list equality is not supported for property `" + prop +
                      "`; use a scalar parameter for membership matching");
    }
    if (!TypesCompatible(*actual, member)) {
      return Fail("T7", v.span,
                  "cannot compare " + actual->DisplayName() + " membership against " +
                      expected.DisplayName() + " for property `" + prop + "`");
    }
    return true;
  }
  if (!TypesCompatible(*actual, expected)) {
    return Fail("T7", v.span,
                "cannot assign/compare " + actual->DisplayName() + " with " +
                    expected.DisplayName() + " for property `" + prop + "`",
                "declare `$" + v.variable.text + "` as " + member.DisplayName());
  }
  return true;
}

bool Checker::CheckNow(const PropType& expected, const std::string& prop, const Span& span) {
  if (expected.list || expected.scalar != ScalarKind::kDateTime) {
    return Fail("T7", span,
                "cannot assign/compare DateTime with " + expected.DisplayName() +
                    " for property `" + prop + "`",
                "now() is a DateTime; use it only with DateTime properties");
  }
  return true;
}

}  // namespace omnigraph::query::internal
