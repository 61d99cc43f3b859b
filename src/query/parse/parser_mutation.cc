// Mutation statements of the `.gq` parser (see parser_internal.h): insert, update, delete, and
// the branch statements (create, delete, merge, list) that stand alone in a source.

#include "query/parse/parser_internal.h"

namespace omnigraph::query::internal {

bool Parser::ParseMutation(Mutation* out) {
  Pos begin = Cur().span.begin;
  std::string_view keyword = Cur().text;
  out->kind = keyword == "insert"   ? MutationKind::kInsert
              : keyword == "update" ? MutationKind::kUpdate
                                    : MutationKind::kDelete;
  Advance();
  if (!IsTypeNameToken(Cur())) {
    Expect("a type name (capitalized, as in Person)");
    return false;
  }
  out->type = NameOf(Cur());
  Advance();
  if (out->kind == MutationKind::kUpdate && !EatWord("set")) return false;
  if (out->kind != MutationKind::kDelete) {
    if (!Eat(Tok::kLBrace, "'{'") || !ParseAssignments(&out->assignments)) return false;
  }
  if (out->kind != MutationKind::kInsert) {
    if (!EatWord("where") || !ParseMutationWhere(out)) return false;
  }
  out->span = SpanFrom(begin);
  return true;
}

// (ident ':' mval ','?)+ '}' (consumes the closing brace).
bool Parser::ParseAssignments(std::vector<Assignment>* out) {
  do {
    Assignment a;
    if (!EatIdent(&a.prop, "a property name") || !Eat(Tok::kColon, "':'") ||
        !ParseMatchValue(&a.value)) {
      return false;
    }
    out->push_back(std::move(a));
    if (Is(Tok::kComma)) {
      Advance();
    } else {
      Expect("','");
    }
    Expect("'}'");
  } while (!Is(Tok::kRBrace));
  Advance();
  return true;
}

bool Parser::ParsePredicate(Predicate* out) {
  if (!EatIdent(&out->prop, "a property name")) return false;
  static const std::pair<Tok, CompOp> kOps[] = {{Tok::kEq, CompOp::kEq}, {Tok::kNe, CompOp::kNe},
                                                {Tok::kGt, CompOp::kGt}, {Tok::kLt, CompOp::kLt},
                                                {Tok::kGe, CompOp::kGe}, {Tok::kLe, CompOp::kLe}};
  for (const auto& [tok, op] : kOps) {
    if (Is(tok)) {
      out->op = op;
      out->op_span = Cur().span;
      Advance();
      return ParseMatchValue(&out->value);
    }
  }
  Expect("a comparison operator (=, !=, <, <=, >, >=)");
  return false;
}

// A branch name: a quoted string ("review/x") or a bare word (b0).
bool Parser::ParseBranchName(Name* out) {
  if (Is(Tok::kString) && Cur().value.empty()) {
    return Hard(Cur().span, "a branch name cannot be empty", "name the branch");
  }
  if (Is(Tok::kString) || Is(Tok::kWord)) {
    *out = NameOf(Cur());
    Advance();
    return true;
  }
  Expect("a branch name (a quoted string or an identifier)");
  return false;
}

// 'branch' ('create' name ('from' name)? | 'delete' name | 'merge' name ('into' name)? | 'list').
bool Parser::ParseBranchStatement(BranchStatement* out) {
  Pos begin = Cur().span.begin;
  if (!EatWord("branch")) return false;
  static const std::pair<std::string_view, BranchOp> kOps[] = {{"create", BranchOp::kCreate},
                                                               {"delete", BranchOp::kDelete},
                                                               {"merge", BranchOp::kMerge},
                                                               {"list", BranchOp::kList}};
  bool known = false;
  for (const auto& [word, op] : kOps) {
    if (IsWord(word)) {
      out->op = op;
      known = true;
    }
  }
  if (!known) {
    for (const auto& [word, op] : kOps) Expect("'" + std::string(word) + "'");
    return false;
  }
  Advance();
  if (out->op != BranchOp::kList && !ParseBranchName(&out->branch)) return false;
  const char* other = out->op == BranchOp::kCreate  ? "from"
                      : out->op == BranchOp::kMerge ? "into"
                                                    : nullptr;
  if (other != nullptr) {
    if (IsWord(other)) {
      Advance();
      Name name;
      if (!ParseBranchName(&name)) return false;
      out->other = std::move(name);
    } else {
      Expect(std::string("'") + other + "'");
    }
  }
  out->span = SpanFrom(begin);
  return true;
}

}  // namespace omnigraph::query::internal
