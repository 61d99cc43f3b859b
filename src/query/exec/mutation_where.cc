#include "query/exec/mutation_where.h"

#include "query/exec/bool_eval.h"

namespace omnigraph::query {

using schema::Value;

namespace {

Result<Value> RowField(const std::string& name, const schema::TypeDef& type, const EntityRow& row) {
  if (name == "@id") return Value::String(row.id);
  if (type.kind == schema::TypeKind::kEdge) {
    if (name == "@src" || name == "from") return Value::String(row.src);
    if (name == "@dst" || name == "to") return Value::String(row.dst);
  }
  for (size_t i = 0; i < type.properties.size(); ++i) {
    if (type.properties[i].name == name && i < row.values.size()) return row.values[i];
  }
  return InvalidArgument("type `" + type.name + "` has no property `" + name + "`");
}

// `type` and `row` are null for a constant expression.
Result<Value> EvalRow(const Expr& e, const schema::TypeDef* type, const EntityRow* row,
                      const MutationContext& context) {
  switch (e.kind) {
    case ExprKind::kLiteral: return e.literal.value;
    case ExprKind::kNow: return Value::DateTime(context.now_ms);
    case ExprKind::kAlias:
      if (type == nullptr) return InvalidArgument("`" + e.alias.text + "` is not a constant");
      return RowField(e.alias.text, *type, *row);
    case ExprKind::kVariable: {
      auto it = context.params.find(e.var.text);
      if (it == context.params.end()) {
        return InvalidArgument("missing parameter `$" + e.var.text + "`");
      }
      return it->second;
    }
    default: break;
  }
  if (!e.is_boolean_form()) {
    return InvalidArgument("expression cannot appear in a mutation where");
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(Value first, EvalRow(e.args[0], type, row, context));
  if (e.kind == ExprKind::kNot) return NotValue(first);
  if (e.kind == ExprKind::kIsNull) return IsNullValue(first, e.negated);
  OMNIGRAPH_ASSIGN_OR_RETURN(Value second, EvalRow(e.args[1], type, row, context));
  switch (e.kind) {
    case ExprKind::kAnd: return AndValues(first, second);
    case ExprKind::kOr: return OrValues(first, second);
    case ExprKind::kIn: return InValues(first, second, e.negated);
    default: return CompareValues(e.op, first, second);
  }
}

}  // namespace

Result<bool> RowMatches(const Expr& condition, const schema::TypeDef& type, const EntityRow& row,
                        const MutationContext& context) {
  OMNIGRAPH_ASSIGN_OR_RETURN(Value v, EvalRow(condition, &type, &row, context));
  return IsTrue(v);
}

Result<Value> EvalConstant(const Expr& e, const MutationContext& context) {
  return EvalRow(e, nullptr, nullptr, context);
}

}  // namespace omnigraph::query
