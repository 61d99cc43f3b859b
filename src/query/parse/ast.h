// The syntax tree of a `.gq` file (OmniGraph's query grammar and mutations): queries, their
// parameters, match clauses, projections, ordering and mutation statements, each with its source
// span.
//
// The parser (parser.h) builds it; the typechecker (typecheck.h) checks it against a catalog and
// annotates it in side tables; the planner/executor and the mutation engine consume both. The
// tree is immutable after parsing. Variable names are stored without their '$'. Literals are
// schema::Values: strings, I64 integers, F64 floats, bools, Dates (epoch days), DateTimes (epoch
// ms) and lists of those. Plain values; thread-compatible.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "query/parse/diagnostic.h"
#include "schema/ir.h"
#include "schema/value.h"

namespace omnigraph::query {

// The anonymous variable `$_`: each occurrence is distinct and binds nothing.
inline constexpr std::string_view kAnonymousVar = "_";

// A name as written (a variable without its '$', a type, property, edge or alias name).
struct Name {
  std::string text;
  Span span;
};

struct Literal {
  schema::Value value;
  Span span;
};

// Comparison and string operators of filters and mutation predicates.
enum class CompOp : uint8_t { kEq, kNe, kGt, kLt, kGe, kLe, kContains, kStartsWith };

enum class AggFunc : uint8_t { kCount, kSum, kAvg, kMin, kMax };
// "count", "sum", "avg", "min", "max".
const char* AggFuncName(AggFunc func);

enum class ExprKind : uint8_t {
  kNow,        // now()
  kProp,       // $v.prop
  kVariable,   // $v (a parameter or a bound variable)
  kLiteral,    // 42, "x", [1, 2], date("..")
  kAlias,      // a bare identifier naming a return alias
  kAggregate,  // count(e) sum(e) avg(e) min(e) max(e)
  kNearest,    // nearest($v.prop, query)
  kSearch,     // search(field, query)
  kFuzzy,      // fuzzy(field, query[, max_edits])
  kMatchText,  // match_text(field, query)
  kBm25,       // bm25(field, query)
  kRrf,        // rrf(rank, rank[, k])
  kBlock,      // not { }, exists { }, count { } op e, sum($v.p) { } op e as a Boolean operand
  // Boolean expressions (docs/design/query-language.md "Boolean expressions").
  kCompare,  // args[0] op args[1]
  kAnd,      // args[0] and args[1]
  kOr,       // args[0] or args[1]
  kNot,      // not args[0]
  kIsNull,   // args[0] is null (is not null when negated)
  kIn,       // args[0] in args[1] (not in when negated); args[1] a list literal or $list
};

struct Negation;

// An expression. Which members are meaningful depends on kind:
//   kProp, kNearest: var and prop;  kVariable: var;  kLiteral: literal;  kAlias: alias;
//   kAggregate: agg and args = {arg};  kNearest: args = {query};
//   kSearch, kMatchText, kBm25: args = {field, query};  kFuzzy: {field, query[, max_edits]};
//   kRrf: args = {primary, secondary[, k]};  kCompare: op, args = {left, right};
//   kAnd, kOr: args = {left, right};  kNot: args = {operand};  kIsNull, kIn: negated, args;
//   kBlock: block.
// A meta-field (`$p.@id`, `$e.@src`, `$e.@dst`, `$e.@type`) is a kProp whose prop starts
// with '@'; in a mutation `where` a bare property (or `@id`) is a kAlias.
struct Expr {
  ExprKind kind = ExprKind::kNow;
  Span span;
  Name var;
  Name prop;
  Name alias;
  Literal literal;
  AggFunc agg = AggFunc::kCount;
  std::vector<Expr> args;
  CompOp op{};           // kCompare.
  Span op_span;          // kCompare, kAnd, kOr, kIsNull, kIn: the operator.
  bool negated = false;  // kIsNull, kIn.
  // kBlock: the block, shared by every copy of the expression (a Boolean filter keeps its
  // conjuncts as copies), so the side tables the typechecker keys by clause address hold for
  // all of them. Immutable after parsing.
  std::shared_ptr<const Negation> block;

  // Whether this is one of the Boolean forms (kCompare ... kIn).
  bool is_boolean_form() const { return kind >= ExprKind::kCompare; }
};

// Whether two expressions are written the same (spans aside; blocks only when they are one).
bool SameExpr(const Expr& a, const Expr& b);
// Whether `e` is or contains a block operand (kBlock).
bool HasBlock(const Expr& e);
// The block operands of `e`, in source pre-order.
void CollectBlocks(const Expr& e, std::vector<const Negation*>& out);

// "=", "!=", ">", "<", ">=", "<=", "contains", "starts_with".
const char* CompOpName(CompOp op);
// Whether an ordering comparison holds for a three-way result `c` (negative, zero, positive);
// false for contains and starts_with, which are not orderings.
bool CompareHolds(CompOp op, int c);

// A value in a binding's property match, a mutation assignment or a mutation predicate: a
// literal, a parameter, now(), or a constant expression over those (`$age > 30`, `true or
// $flag`), evaluated once per invocation.
struct MatchValue {
  enum class Kind : uint8_t { kLiteral, kVariable, kNow, kExpr };
  Kind kind = Kind::kLiteral;
  Literal literal;  // kLiteral.
  Name variable;    // kVariable.
  Expr expr;        // kExpr.
  Span span;
};

struct PropMatch {
  Name prop;
  MatchValue value;
};

// `$v: Type { prop: value, ... }`.
struct Binding {
  Name var;
  Name type;
  std::vector<PropMatch> props;
};

// `$src [$e:] edge [{min,max}] $dst` or `$src [$e:] <edge> $dst` (undirected).
struct Traversal {
  Name src;
  std::optional<Name> edge_var;
  Name edge;  // As written, lower-case initial (`knows` for edge type Knows), or quoted.
  // Edge alternation `(knows|follows)`: every alternative in order (`edge` is the first);
  // empty for a single edge.
  std::vector<Name> alternatives;
  // The wildcard `*`: every edge type connecting the two ends' node types (`edge` is empty).
  bool wildcard = false;
  bool undirected = false;
  bool has_bounds = false;
  uint32_t min_hops = 1;
  std::optional<uint32_t> max_hops = 1;  // nullopt for `{n,}` (rejected by the typechecker).
  Span bounds_span;                      // Of `{min,max}` when has_bounds.
  Name dst;
};

// `left op right`. A bare `search(..)`, `fuzzy(..)` or `match_text(..)` clause is the filter
// `call = true` with `text_search` set, as in the reference.
//
// A Boolean filter clause (anything but one plain comparison: `and`, `or`, `not`, `in`,
// `is null`, parentheses, a Boolean operand) has `condition` set to the whole expression, and
// `conjuncts` holds its top-level `and` operands as filters of their own: a plain comparison
// as `left op right`, anything else with `condition` set (and no conjuncts). The typechecker
// checks the whole condition; the planner places each conjunct.
struct Filter {
  Expr left;
  CompOp op = CompOp::kEq;
  Span op_span;
  Expr right;
  bool text_search = false;
  std::optional<Expr> condition;
  std::vector<Filter> conjuncts;
};

struct Clause;
// What a block of clauses tests about each outer row: `not { }` (no match), or a subquery
// predicate (docs/design/query-language.md "Subquery predicates"): `exists { }` (a match),
// `count { } op value` (how many inner rows), `sum($v.prop) { } op value` (their sum).
enum class BlockKind : uint8_t { kNot, kExists, kCount, kSum };
// "not", "exists", "count", "sum".
const char* BlockKindName(BlockKind kind);

// `not { clause+ }` or a subquery predicate; both correlate with the outer bindings the same
// way (every variable bound outside is bound inside).
struct Negation {
  std::vector<Clause> clauses;
  BlockKind kind = BlockKind::kNot;
  Span keyword_span;        // Of `not`, `exists`, `count` or `sum(...)`.
  Expr sum_arg;             // kSum: the `$v.prop` summed over the inner rows.
  CompOp op = CompOp::kGt;  // kCount, kSum: `count { } op threshold`.
  Span op_span;
  Expr threshold;  // kCount, kSum.
};

struct Clause {
  Span span;
  std::variant<Binding, Traversal, Filter, Negation> node;

  const Binding* binding() const { return std::get_if<Binding>(&node); }
  const Traversal* traversal() const { return std::get_if<Traversal>(&node); }
  const Filter* filter() const { return std::get_if<Filter>(&node); }
  const Negation* negation() const { return std::get_if<Negation>(&node); }
};

struct Projection {
  Expr expr;
  std::optional<Name> alias;
  Span span;
};

struct Ordering {
  Expr expr;
  bool descending = false;
  bool has_direction = false;  // `asc` or `desc` written.
  Span span;
};

struct Assignment {
  Name prop;
  MatchValue value;
};

// `where prop op value` of update and delete (`from`/`to` name an edge's endpoints).
struct Predicate {
  Name prop;
  CompOp op = CompOp::kEq;
  Span op_span;
  MatchValue value;
};

enum class MutationKind : uint8_t { kInsert, kUpdate, kDelete };
// "insert", "update", "delete".
const char* MutationKindName(MutationKind kind);

// A mutation's `where` that is not one `prop op value` (a Boolean expression over the type's
// bare properties, `@id`, `@src`, `@dst`, parameters, literals and now()) is `condition`; then
// `where` is unset.
struct Mutation {
  MutationKind kind = MutationKind::kInsert;
  Span span;  // The whole statement.
  Name type;
  std::vector<Assignment> assignments;  // Insert and update.
  std::optional<Predicate> where;       // Update and delete.
  std::optional<Expr> condition;        // Update and delete, instead of `where`.
};

// `$name: Type`, the type parsed into a PropType (scalar, list or Vector(N); nullable with '?').
struct Param {
  Name name;
  schema::PropType type;
  Span type_span;
};

struct QueryDecl {
  Name name;
  Span span;  // From `query` to the closing '}'.
  // `explain query ...`: running it returns the query's plan instead of its rows.
  bool explain = false;
  std::optional<std::string> description;
  std::optional<std::string> instruction;
  std::vector<Param> params;
  // A read query has clauses and projections (and maybe orderings and a limit); a mutation
  // query has statements only.
  std::vector<Clause> clauses;
  std::vector<Projection> projections;
  std::vector<Ordering> orderings;
  std::optional<uint64_t> limit;
  Span limit_span;
  std::vector<Mutation> mutations;

  bool is_mutation() const { return !mutations.empty(); }
  const Param* FindParam(std::string_view param_name) const;
};

// A branch statement (docs/design/query-language.md "Branch statements"): `branch create "x"
// [from y]`, `branch delete "x"` and `branch merge "x" [into y]` run as mutations, `branch list`
// as a read. A branch name is a quoted string or a bare identifier.
enum class BranchOp : uint8_t { kCreate, kDelete, kMerge, kList };
// "branch create", "branch delete", "branch merge", "branch list".
const char* BranchOpName(BranchOp op);

struct BranchStatement {
  BranchOp op = BranchOp::kList;
  Span span;
  Name branch;                // The branch created, deleted or merged (empty for list).
  std::optional<Name> other;  // `from` of create, `into` of merge.

  bool is_read() const { return op == BranchOp::kList; }
};

// A file header `set name = value;` or `reset name;` (docs/design/query-language.md
// "Settings"). The value is a number, a string, or a bare word (kept as a String).
struct Setting {
  Name name;
  bool reset = false;
  std::optional<Literal> value;  // Unset for reset.
  Span span;
};

// A source holds file headers, then query declarations, or exactly one branch statement or
// `show all;` (then `queries` is empty).
struct QueryFile {
  std::vector<Setting> settings;   // Source order; a later one overrides an earlier one.
  std::vector<QueryDecl> queries;  // Source order; names are unique.
  std::optional<BranchStatement> statement;
  std::optional<Span> show_all;  // `show all;`: the settings in effect, one row each.

  const QueryDecl* Find(std::string_view name) const;
};

}  // namespace omnigraph::query
