// The newer forms of the `.gq` parser (see parser_internal.h): subquery predicates
// (`exists { }`, `count { } op e`, `sum($v.p) { } op e`), edge alternation, the edge wildcard and
// quoted edge names, and file headers (`set x = v;`, `reset x;`). docs/design/query-language.md
// describes each.

#include "query/parse/parser_internal.h"

namespace omnigraph::query::internal {
namespace {

bool IsComparisonToken(const Token& t, CompOp* op) {
  static const std::pair<Tok, CompOp> kOps[] = {{Tok::kEq, CompOp::kEq}, {Tok::kNe, CompOp::kNe},
                                                {Tok::kGt, CompOp::kGt}, {Tok::kLt, CompOp::kLt},
                                                {Tok::kGe, CompOp::kGe}, {Tok::kLe, CompOp::kLe}};
  for (const auto& [tok, o] : kOps) {
    if (t.kind == tok) {
      *op = o;
      return true;
    }
  }
  return false;
}

}  // namespace

bool Parser::IsSubqueryStart() const {
  if (IsWord("exists") || IsWord("count")) return At(1).kind == Tok::kLBrace;
  // `sum($v.prop) {`: an aggregate call followed by a block (a filter never is).
  return IsWord("sum") && At(1).kind == Tok::kLParen && At(2).kind == Tok::kVariable &&
         At(3).kind == Tok::kDot && At(4).kind == Tok::kWord && At(5).kind == Tok::kRParen &&
         At(6).kind == Tok::kLBrace;
}

bool Parser::IsBlockStart() const {
  return (IsWord("not") && At(1).kind == Tok::kLBrace) || IsSubqueryStart();
}

bool Parser::ParseBlock(Negation* block) {
  Pos begin = Cur().span.begin;
  if (IsWord("not")) {
    block->kind = BlockKind::kNot;
    block->keyword_span = Cur().span;
    Advance();
    Advance();  // {
    return ParseClauses(&block->clauses);
  }
  if (IsWord("exists")) {
    block->kind = BlockKind::kExists;
    Advance();
  } else if (IsWord("count")) {
    block->kind = BlockKind::kCount;
    Advance();
  } else {
    block->kind = BlockKind::kSum;
    Advance();  // sum
    Advance();  // (
    if (!ParseExpr(&block->sum_arg) || !Eat(Tok::kRParen, "')'")) return false;
  }
  block->keyword_span = SpanFrom(begin);
  if (!Eat(Tok::kLBrace, "'{'") || !ParseClauses(&block->clauses)) return false;
  if (block->kind != BlockKind::kExists) {
    if (!IsComparisonToken(Cur(), &block->op)) {
      Expect(std::string("a comparison operator after `") + BlockKindName(block->kind) +
             " { ... }` (=, !=, <, <=, >, >=)");
      return false;
    }
    block->op_span = Cur().span;
    Advance();
    if (!ParseExpr(&block->threshold)) return false;
  }
  return true;
}

bool Parser::ParseBlockClause(Clause* out) {
  const size_t start = pos_;
  Negation block;
  if (!ParseBlock(&block)) return false;
  if (IsWord("and") || IsWord("or")) {
    // The block is an operand of a Boolean filter (`not { ... } or $p.age > 3`).
    pos_ = start;
    return ParseBooleanFilter(out);
  }
  out->node = std::move(block);
  return true;
}

bool Parser::ParseBlockOperand(Expr* out) {
  Pos begin = Cur().span.begin;
  auto block = std::make_shared<Negation>();
  if (!ParseBlock(block.get())) return false;
  out->kind = ExprKind::kBlock;
  out->block = std::move(block);
  out->span = SpanFrom(begin);
  return true;
}

bool Parser::ParseEdgeNames(Traversal* t) {
  auto one = [&](Name* name) {
    if (Is(Tok::kString)) {
      if (Cur().value.empty()) return Hard(Cur().span, "a quoted edge name cannot be empty");
      *name = NameOf(Cur());
      Advance();
      return true;
    }
    if (!IsIdentToken(Cur()) || IsReservedWord(Cur().text)) {
      // The 0.10 wording: the newer forms are not listed, so its errors read as before.
      Expect("an edge name (lower-case initial, as in knows)");
      return false;
    }
    *name = NameOf(Cur());
    Advance();
    return true;
  };
  if (Is(Tok::kStar)) {
    t->wildcard = true;
    t->edge = Name{"*", Cur().span};
    Advance();
    return true;
  }
  if (!Is(Tok::kLParen)) return one(&t->edge);
  Advance();
  do {
    Name n;
    if (!one(&n)) return false;
    t->alternatives.push_back(std::move(n));
    if (!Is(Tok::kPipe)) break;
    Advance();
  } while (true);
  Expect("'|'");
  if (!Eat(Tok::kRParen, "')'")) return false;
  t->edge = t->alternatives.front();
  if (t->alternatives.size() == 1) t->alternatives.clear();
  return true;
}

bool Parser::ParseSettings(std::vector<Setting>* out) {
  while (IsWord("set") || IsWord("reset")) {
    Setting s;
    if (!ParseSetting(&s)) return false;
    out->push_back(std::move(s));
  }
  return true;
}

bool Parser::ParseSetting(Setting* out) {
  Pos begin = Cur().span.begin;
  out->reset = IsWord("reset");
  Advance();
  if (!EatIdent(&out->name, "a setting name (as in traversal_work_limit)")) return false;
  if (!out->reset) {
    if (!Eat(Tok::kEq, "'='")) return false;
    if (Is(Tok::kWord) && Cur().text != "true" && Cur().text != "false") {
      out->value = Literal{schema::Value::String(std::string(Cur().text)), Cur().span};
      Advance();
    } else {
      Literal lit;
      if (!Is(Tok::kInt) && !Is(Tok::kString) && !Is(Tok::kFloat) && !Is(Tok::kWord)) {
        Expect("a setting value (a number, a string or a word)");
        return false;
      }
      if (!ParseLiteral(&lit)) return false;
      out->value = std::move(lit);
    }
  }
  if (!Eat(Tok::kSemicolon, "';'")) return false;
  out->span = SpanFrom(begin);
  return true;
}

}  // namespace omnigraph::query::internal
