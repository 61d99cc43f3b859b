// Boolean expressions of the `.gq` parser (see parser_internal.h; docs/design/query-language.md
// "Boolean expressions"): the ladder `or` < `and` < `not` < comparison < operand, parentheses,
// `in`, `is [not] null`, and the filter clauses and mutation `where`s built from them.

#include "query/parse/parser_internal.h"

namespace omnigraph::query::internal {
namespace {

Expr Binary(ExprKind kind, Expr left, Expr right, const Span& op_span) {
  Expr out;
  out.kind = kind;
  out.op_span = op_span;
  out.span = Span{left.span.begin, right.span.end};
  out.args.push_back(std::move(left));
  out.args.push_back(std::move(right));
  return out;
}

// A comparison of two non-Boolean operands: what the 0.10 grammar calls a filter.
bool IsPlainComparison(const Expr& e) {
  return e.kind == ExprKind::kCompare && !e.args[0].is_boolean_form() &&
         !e.args[1].is_boolean_form();
}

Filter ConjunctFilter(const Expr& e) {
  Filter f;
  if (IsPlainComparison(e)) {
    f.left = e.args[0];
    f.op = e.op;
    f.op_span = e.op_span;
    f.right = e.args[1];
  } else {
    f.condition = e;
  }
  return f;
}

void Flatten(const Expr& e, std::vector<Filter>* out) {
  if (e.kind == ExprKind::kAnd) {
    Flatten(e.args[0], out);
    Flatten(e.args[1], out);
    return;
  }
  out->push_back(ConjunctFilter(e));
}

}  // namespace

bool Parser::ParseCondition(Expr* out) {
  if (!ParseAndExpr(out)) return false;
  while (IsWord("or")) {
    Span op = Cur().span;
    Advance();
    Expr right;
    if (!ParseAndExpr(&right)) return false;
    *out = Binary(ExprKind::kOr, std::move(*out), std::move(right), op);
  }
  return true;
}

bool Parser::ParseAndExpr(Expr* out) {
  if (!ParseNotExpr(out)) return false;
  while (IsWord("and")) {
    Span op = Cur().span;
    Advance();
    Expr right;
    if (!ParseNotExpr(&right)) return false;
    *out = Binary(ExprKind::kAnd, std::move(*out), std::move(right), op);
  }
  return true;
}

bool Parser::ParseNotExpr(Expr* out) {
  if (!IsWord("not") || At(1).kind == Tok::kLBrace) return ParseComparison(out);
  Pos begin = Cur().span.begin;
  out->op_span = Cur().span;
  Advance();
  Expr operand;
  if (!ParseNotExpr(&operand)) return false;
  out->kind = ExprKind::kNot;
  out->args.push_back(std::move(operand));
  out->span = SpanFrom(begin);
  return true;
}

bool Parser::ParseComparison(Expr* out) {
  Pos begin = Cur().span.begin;
  Expr left;
  if (!ParseOperand(&left)) return false;
  static const std::pair<Tok, CompOp> kOps[] = {{Tok::kEq, CompOp::kEq}, {Tok::kNe, CompOp::kNe},
                                                {Tok::kGt, CompOp::kGt}, {Tok::kLt, CompOp::kLt},
                                                {Tok::kGe, CompOp::kGe}, {Tok::kLe, CompOp::kLe}};
  std::optional<CompOp> op;
  for (const auto& [tok, o] : kOps) {
    if (Is(tok)) op = o;
  }
  if (IsWord("contains") || IsWord("starts_with")) {
    op = IsWord("contains") ? CompOp::kContains : CompOp::kStartsWith;
  }
  if (op) {
    Span op_span = Cur().span;
    Advance();
    Expr right;
    if (!ParseOperand(&right)) return false;
    *out = Binary(ExprKind::kCompare, std::move(left), std::move(right), op_span);
    out->op = *op;
    return true;
  }
  if (IsWord("is")) {
    out->op_span = Cur().span;
    Advance();
    if (IsWord("not")) {
      out->negated = true;
      Advance();
    }
    if (!EatWord("null")) return false;
    out->kind = ExprKind::kIsNull;
    out->args.push_back(std::move(left));
    out->span = SpanFrom(begin);
    return true;
  }
  if (IsWord("in") || (IsWord("not") && At(1).kind == Tok::kWord && At(1).text == "in")) {
    out->op_span = Cur().span;
    out->negated = IsWord("not");
    if (out->negated) Advance();
    Advance();
    Expr list;
    if (!ParseOperand(&list)) return false;
    out->kind = ExprKind::kIn;
    out->args.push_back(std::move(left));
    out->args.push_back(std::move(list));
    out->span = SpanFrom(begin);
    return true;
  }
  *out = std::move(left);
  return true;
}

bool Parser::ParseOperand(Expr* out) {
  if (IsBlockStart()) return ParseBlockOperand(out);
  if (Is(Tok::kLParen)) {
    Pos begin = Cur().span.begin;
    Advance();
    if (!ParseCondition(out) || !Eat(Tok::kRParen, "')'")) return false;
    out->span = SpanFrom(begin);
    return true;
  }
  if (mutation_where_ && Is(Tok::kAnnotation)) {
    // `@id`, `@src`, `@dst` of the row a mutation `where` tests.
    out->kind = ExprKind::kAlias;
    out->alias = Name{"@" + Cur().value, Cur().span};
    out->span = Cur().span;
    Advance();
    return true;
  }
  return ParseExpr(out);
}

bool Parser::ParseBooleanFilter(Clause* out) {
  Expr cond;
  if (!ParseCondition(&cond)) return false;
  Filter f;
  ExprKind k = cond.kind;
  if (k == ExprKind::kSearch || k == ExprKind::kFuzzy || k == ExprKind::kMatchText) {
    // A bare text-search call: the reference's `call = true` filter.
    f.text_search = true;
    f.op = CompOp::kEq;
    f.op_span = cond.span;
    f.right.kind = ExprKind::kLiteral;
    f.right.literal = Literal{schema::Value::Bool(true), cond.span};
    f.right.span = cond.span;
    f.left = std::move(cond);
  } else if ((k == ExprKind::kVariable && !Is(Tok::kRBrace) && !Is(Tok::kVariable)) ||
             k == ExprKind::kLiteral || k == ExprKind::kAlias) {
    // A bare variable is a filter only where its clause ends (`$flag }`, `$flag $p: T`): the
    // typechecker then needs it Bool (a Bool parameter). Followed by anything else it is a
    // misspelled traversal (`$p not $q`), and the error asks for an operator.
    Expect("a comparison operator (=, !=, <, <=, >, >=, contains, starts_with)");
    return false;
  } else if (IsPlainComparison(cond)) {
    f = ConjunctFilter(cond);
  } else {
    Flatten(cond, &f.conjuncts);
    f.condition = std::move(cond);
  }
  out->node = std::move(f);
  return true;
}

bool Parser::AtConstantOperator() const {
  static const Tok kOps[] = {Tok::kEq, Tok::kNe, Tok::kGt, Tok::kLt, Tok::kGe, Tok::kLe};
  for (Tok t : kOps) {
    if (Is(t)) return true;
  }
  return IsWord("and") || IsWord("or") || IsWord("is") || IsWord("in") || IsWord("contains") ||
         IsWord("starts_with") || (IsWord("not") && At(1).kind == Tok::kWord && At(1).text == "in");
}

bool Parser::ParseConstantValue(size_t start, MatchValue* out) {
  pos_ = start;
  Pos begin = Cur().span.begin;
  out->kind = MatchValue::Kind::kExpr;
  if (!ParseCondition(&out->expr)) return false;
  out->span = SpanFrom(begin);
  return true;
}

bool Parser::ParseMutationWhere(Mutation* out) {
  size_t start = pos_;
  Predicate p;
  plain_values_ = true;  // `name = $n and ...` is a conjunction, not `name = ($n and ...)`.
  const bool predicate = ParsePredicate(&p);
  plain_values_ = false;
  if (predicate && !IsWord("and") && !IsWord("or") && !IsWord("is") && !IsWord("in")) {
    out->where = std::move(p);
    return true;
  }
  if (hard_failed()) return false;
  pos_ = start;
  mutation_where_ = true;
  Expr cond;
  bool ok = ParseCondition(&cond);
  mutation_where_ = false;
  // `contains` and `starts_with` are not mutation predicates; the failure the comparison
  // recorded at them is the error.
  if (!ok) return false;
  out->condition = std::move(cond);
  return true;
}

}  // namespace omnigraph::query::internal
