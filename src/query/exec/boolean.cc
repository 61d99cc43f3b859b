// Boolean forms and meta-fields of compiled expressions (context.h; docs/design/
// query-language.md "Boolean expressions" and "Meta-fields").
#include "query/exec/bool_eval.h"
#include "query/exec/context.h"
#include "table/table_manifest.h"

namespace omnigraph::query::exec {

using schema::Value;

Result<CExpr> ExecContext::CompileBoolean(const Expr& e, const Frame& frame) {
  CExpr out;
  out.kind = CExpr::Kind::kBool;
  out.form = e.kind;
  out.op = e.op;
  out.negated = e.negated;
  for (const Expr& a : e.args) {
    OMNIGRAPH_ASSIGN_OR_RETURN(CExpr arg, Compile(a, frame));
    out.args.push_back(std::move(arg));
  }
  return out;
}

// `$v.@id` is the row id; `$e.@src` / `$e.@dst` the edge's endpoint ids (its src/dst columns);
// `$e.@type` the edge type's name.
Result<CExpr> ExecContext::CompileMeta(const Expr& e, const Frame& frame, int slot) {
  const Slot& s = frame.slots[slot];
  CExpr out;
  out.slot = slot;
  const std::string& f = e.prop.text;
  if (f == "@id") {
    // Evaluated per row, which cannot fail: every id is read now (as a column is).
    OMNIGRAPH_RETURN_IF_ERROR(s.image->LoadIds());
    out.kind = CExpr::Kind::kId;
    return out;
  }
  if (s.kind == SlotKind::kEdge && (f == "@src" || f == "@dst")) {
    out.kind = CExpr::Kind::kProp;
    OMNIGRAPH_ASSIGN_OR_RETURN(
        out.column, s.image->Column(f == "@src" ? table::kSrcFieldId : table::kDstFieldId));
    return out;
  }
  if (s.kind == SlotKind::kEdge && f == "@type") {
    out.kind = CExpr::Kind::kConst;
    out.slot = -1;
    out.constant = Value::String(s.type->name);
    return out;
  }
  return InvalidArgument("`$" + e.var.text + "` has no meta-field `" + f + "`");
}

Result<Value> ExecContext::ConstantValue(const Expr& e) {
  if (!e.is_boolean_form()) return ConstantOf(e);
  // A frame with no rows bound: the expression reads no variable (the typechecker's T45).
  CExpr compiled;
  Frame unit;
  OMNIGRAPH_ASSIGN_OR_RETURN(compiled, Compile(e, unit));
  return Eval(compiled, unit, 0);
}

Value ExecContext::EvalBoolean(const CExpr& e, const Frame& frame, size_t row) const {
  const Value first = Eval(e.args[0], frame, row);
  switch (e.form) {
    case ExprKind::kNot: return NotValue(first);
    case ExprKind::kIsNull: return IsNullValue(first, e.negated);
    case ExprKind::kAnd:
      // False on either side decides; the right side is not evaluated.
      if (!first.is_null() && !first.bool_value()) return first;
      return AndValues(first, Eval(e.args[1], frame, row));
    case ExprKind::kOr:
      if (IsTrue(first)) return first;
      return OrValues(first, Eval(e.args[1], frame, row));
    case ExprKind::kIn: return InValues(first, Eval(e.args[1], frame, row), e.negated);
    default: return CompareValues(e.op, first, Eval(e.args[1], frame, row));
  }
}

}  // namespace omnigraph::query::exec
