// The recursive-descent parser behind parser.h, shared by parser.cc (declarations, clauses,
// mutations) and parser_expr.cc (expressions, literals, match values). Internal to src/query.
//
// Every Parse* method returns false on failure. A soft failure records what was expected at the
// current token (Expect) and lets the caller try another alternative after restoring pos_; the
// furthest soft failure becomes the error message. A hard failure (Hard) is a definite error
// with its own message and stops the parse.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "query/parse/ast.h"
#include "query/parse/diagnostic.h"
#include "query/parse/lexer.h"

namespace omnigraph::query::internal {

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : toks_(std::move(tokens)) {}

  // Parses the whole token stream; the error when it fails.
  bool ParseFile(QueryFile* file);
  Diagnostic TakeError();

  // Expressions (parser_expr.cc).
  bool ParseExpr(Expr* out);
  bool ParseLiteral(Literal* out);
  bool ParseMatchValue(MatchValue* out);

 private:
  // Declarations and clauses (parser.cc).
  bool ParseQuery(QueryDecl* q);
  bool ParseParam(Param* p);
  bool ParseAnnotations(QueryDecl* q);
  bool ParseReadBody(QueryDecl* q);
  bool ParseClauses(std::vector<Clause>* out);
  bool ParseClause(Clause* out);
  bool ParseBinding(Clause* out);
  bool ParseTraversal(Clause* out);
  bool ParseFilter(Clause* out);
  bool ParseProjection(Projection* out);
  bool ParseOrdering(Ordering* out);
  bool ParseMutation(Mutation* out);
  bool ParseBranchStatement(BranchStatement* out);
  bool ParseBranchName(Name* out);
  bool ParseAssignments(std::vector<Assignment>* out);
  bool ParsePredicate(Predicate* out);
  bool ParseHopBound(uint32_t* out, const char* which);
  // Edge names (parser_block.cc): one name, a quoted name, `(a|b|...)` or `*`.
  bool ParseEdgeNames(Traversal* t);

  // Subquery predicates, file headers and statements (parser_block.cc).
  bool IsSubqueryStart() const;
  // `not {` or a subquery predicate's start.
  bool IsBlockStart() const;
  // `not { ... }`, `exists { ... }`, `count { ... } op e` or `sum($v.p) { ... } op e`.
  bool ParseBlock(Negation* block);
  // A block clause, or a Boolean filter when `and`/`or` follows the block.
  bool ParseBlockClause(Clause* out);
  // A block as an operand of a Boolean expression (ExprKind::kBlock).
  bool ParseBlockOperand(Expr* out);
  bool ParseSettings(std::vector<Setting>* out);
  bool ParseSetting(Setting* out);

  // Boolean expressions (parser_bool.cc): or < and < not < comparison < operand.
  bool ParseCondition(Expr* out);
  bool ParseAndExpr(Expr* out);
  bool ParseNotExpr(Expr* out);
  bool ParseComparison(Expr* out);
  bool ParseOperand(Expr* out);
  bool ParseBooleanFilter(Clause* out);
  // A mutation's `where`: `prop op value`, or a Boolean expression over the row.
  bool ParseMutationWhere(Mutation* out);
  bool mutation_where_ = false;  // Operands are the row's bare properties and meta-fields.
  // A value that an operator follows, or that starts with a name or '(', is a constant
  // expression (MatchValue::kExpr) unless `plain_values_`.
  bool AtConstantOperator() const;
  bool ParseConstantValue(size_t start, MatchValue* out);
  bool plain_values_ = false;

  // Expression helpers (parser_expr.cc).
  bool ParseCall(std::string_view name, Expr* out);
  bool ParseNearest(Expr* out);
  bool ParseArgs(Expr* out, size_t min_args, size_t max_args);
  bool ParseRank(Expr* out);
  bool ParseListLiteral(Literal* out);
  bool ParseDateLiteral(bool datetime, Literal* out);

 public:
  // Token access.
  const Token& Cur() const { return toks_[pos_]; }
  const Token& At(size_t ahead) const {
    return toks_[pos_ + ahead < toks_.size() ? pos_ + ahead : toks_.size() - 1];
  }
  const Token& Prev() const { return toks_[pos_ > 0 ? pos_ - 1 : 0]; }
  bool Is(Tok kind) const { return Cur().kind == kind; }
  bool IsWord(std::string_view word) const { return Is(Tok::kWord) && Cur().text == word; }
  void Advance() {
    if (pos_ + 1 < toks_.size()) ++pos_;
  }
  // Consumes a token of `kind`, or records `what` as expected and fails.
  bool Eat(Tok kind, const char* what);
  bool EatWord(std::string_view word);
  // Consumes a lower-case identifier into *out, or records `what` and fails.
  bool EatIdent(Name* out, const char* what);
  bool EatVariable(Name* out);

  // Records that `what` would have been accepted at the current token.
  void Expect(std::string what);
  // If the furthest failure is at token `start`, replaces what it expected with `what`.
  void Summarize(size_t start, std::string what);
  // A definite error at `span`.
  bool Hard(const Span& span, std::string message, std::string fix = {});
  bool hard_failed() const { return hard_.has_value(); }

  Span SpanFrom(const Pos& begin) const { return Span{begin, Prev().span.end}; }
  Name NameOf(const Token& t) const {
    return Name{t.value.empty() ? std::string(t.text) : t.value, t.span};
  }

  size_t pos_ = 0;

 private:
  std::vector<Token> toks_;
  size_t furthest_ = 0;
  std::vector<std::string> expected_;
  std::optional<Diagnostic> hard_;
};

// `not`, `and`, `or`, `in`, `is`: never an edge name.
bool IsReservedWord(std::string_view w);
// A lower-case identifier word ([a-z_] first).
bool IsIdentToken(const Token& t);
// A capitalized word (a type name).
bool IsTypeNameToken(const Token& t);

}  // namespace omnigraph::query::internal
