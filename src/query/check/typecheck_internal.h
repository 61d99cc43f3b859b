// The Checker behind typecheck.h, shared by typecheck.cc (clauses, read queries),
// typecheck_expr.cc (expressions, literals, values) and typecheck_mutation.cc (mutation
// statements). Internal to src/query. Every Check* method returns false after recording the
// query's first error (Fail).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "query/check/typecheck.h"

namespace omnigraph::query::internal {

using schema::PropType;
using schema::ScalarKind;
using schema::TypeDef;

// The reference's compatibility: same list-ness and the same scalar (Vectors of the same
// dimension), or both numeric. Enums are Strings.
bool TypesCompatible(const PropType& a, const PropType& b);
// The type of a literal value; nullopt (with *error set) for nested or mixed list literals.
std::optional<PropType> LiteralType(const schema::Value& v, std::string* error);
// The element count of a non-empty all-numeric list literal (a vector literal), or 0.
size_t NumericVectorLiteralDim(const schema::Value& v);
// "a, b or c" of up to `max` names, for fixes.
std::string ListNames(const std::vector<std::string>& names, size_t max = 8);

class Checker {
 public:
  Checker(const schema::Catalog& catalog, const QueryDecl& query, CheckedQuery* out)
      : catalog_(catalog), query_(query), out_(out) {}

  bool Run();
  Diagnostic TakeError() { return std::move(*error_); }

  bool Fail(const char* code, const Span& span, std::string message, std::string fix = {});

  // typecheck.cc
  bool CheckRead();
  bool CheckClauses(const std::vector<Clause>& clauses, Scope* scope, bool negated);
  bool CheckBinding(const Binding& b, Scope* scope, bool negated);
  bool CheckTraversal(const Traversal& t, Scope* scope, bool negated);
  bool BindEndpoint(const Name& var, const TypeDef* expected, const TypeDef& edge, Scope* scope,
                    const TypeDef** resolved);
  bool CheckFilter(const Filter& f, const Scope& scope, bool negated);
  bool CheckNegation(const Clause& c, Scope* scope);
  // A block (a `not { }` clause, a subquery predicate, or either as a Boolean operand) whose
  // clauses see `outer`; `span` is where T9 points.
  bool CheckBlock(const Negation& block, const Span& span, const Scope& outer);
  bool CheckHopBounds(const Traversal& t);
  bool CheckEdgeVar(const Traversal& t, const TypeDef& edge, Scope* scope);
  bool FindEdgeType(const Name& name, const TypeDef** out);
  // CheckTraversal with the edge type resolved: endpoints, direction, edge binding.
  bool CheckTraversalEdge(const Traversal& t, const TypeDef& edge, Scope* scope, bool negated);
  // typecheck_block.cc: subquery predicates, edge alternation and the edge wildcard.
  bool CheckSubqueryPredicate(const Negation& block, const Scope& outer, const Scope& inner);
  bool CheckEdgeSet(const Traversal& t, Scope* scope, bool negated);
  // A block operand of a Boolean filter: Bool, unknown only when a count or sum compares with
  // null. T44 outside a match filter (return, order, a mutation, a constant value).
  bool ResolveBlock(const Expr& e, const Scope& scope, ExprType* out);
  bool CheckProjections();
  // T32, T33, T35, T36: search forms and aliases in `return`.
  bool CheckSearchProjection(const Projection& p);
  // T50: two projections with one result column name.
  bool CheckDistinctColumns();
  bool CheckOrderAndLimit();
  ResultColumn ColumnOf(const Projection& p, const ExprType& resolved);
  void CollectReads();

  // typecheck_expr.cc
  bool Resolve(const Expr& e, const Scope& scope, ExprType* out);
  bool ResolveProp(const Expr& e, const Scope& scope, ExprType* out);
  bool ResolveNearest(const Expr& e, const Scope& scope, ExprType* out);
  bool ResolveTextCall(const Expr& e, const Scope& scope, ExprType* out);
  bool ResolveRrf(const Expr& e, const Scope& scope, ExprType* out);
  bool ResolveAggregate(const Expr& e, const Scope& scope, ExprType* out);
  bool RejectBlobRead(const ExprType& t, const Expr& e);
  bool CheckLiteral(const Literal& lit, const PropType& expected, const std::string& prop);
  bool CheckBindingValue(const MatchValue& v, const PropType& expected, const std::string& prop);
  bool CheckNow(const PropType& expected, const std::string& prop, const Span& span);
  const PropType* ParamType(std::string_view name) const;

  // typecheck_mutation.cc
  bool CheckMutations();
  bool CheckMutation(const Mutation& m, CheckedMutation* out);
  bool CheckInsert(const Mutation& m, const TypeDef& type);
  bool CheckAssignments(const Mutation& m, const TypeDef& type);
  bool CheckPredicate(const Mutation& m, const TypeDef& type);
  bool CheckMatchValue(const MatchValue& v, const PropType& expected, const std::string& prop);
  bool CheckMixing();

  // typecheck_bool.cc
  bool ResolveBoolean(const Expr& e, const Scope& scope, ExprType* out);
  bool ResolveMeta(const Expr& e, const BoundVar& var, ExprType* out);
  // A bare name or `@id` in a mutation `where` over `row_type_`.
  bool ResolveRowField(const Expr& e, ExprType* out);
  bool CheckBooleanFilter(const Filter& f, const Scope& scope, bool negated);
  bool CheckMutationCondition(const Mutation& m, const TypeDef& type);
  // T46: `true`/`false` in a mutation `where` of a type with a property of that name.
  bool CheckShadowedLiteral(const TypeDef& type, std::string_view word, const Span& span);
  bool CheckBooleanProjection(const Projection& p);
  // A MatchValue::kExpr: constants only (T44, T45), of a type that fits `expected` (T7).
  bool CheckConstantValue(const MatchValue& v, const PropType& expected, const std::string& prop);
  bool CheckOrderKeyProjected(const Ordering& o);

  const schema::Catalog& catalog_;
  const QueryDecl& query_;
  CheckedQuery* out_;
  std::map<std::string, ExprType, std::less<>> aliases_;
  std::optional<Diagnostic> error_;
  const TypeDef* row_type_ = nullptr;  // Set while checking a mutation's Boolean `where`.
  // Set while checking a match clause's filter: the only place a block operand may appear.
  bool in_match_filter_ = false;
  // Block operands already checked, with their types: a Boolean filter's conjuncts are checked
  // again after the whole condition, and a block's clauses are recorded once.
  std::map<const Negation*, ExprType> checked_blocks_;
};

// "; the system identity is `$p.@id`" for a missing property named id (src, dst on edges: the
// system endpoint), else empty. `var` empty names the field bare (`@id`), as a `where` does.
std::string SystemFieldHint(std::string_view name, bool edge, const std::string& var);

}  // namespace omnigraph::query::internal
