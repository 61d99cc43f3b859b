// Typechecker: checks one parsed query against a schema catalog (OmniGraph's query semantics,
// diagnostics and mutations) and annotates it for the planner, executor and mutation engine.
//
// Checking follows the reference's order and stops at the first error of a query, which comes
// back as a Diagnostic with its code (T1..T24, or D2 for a mutation mixing inserts/updates with
// deletes), the reference's message, the span it points at and, where there is one, a fix.
//
// The result, CheckedQuery, is a set of side tables over the AST: parameter types; the variables
// of the top-level scope and of each `not { }` block; every binding, traversal and filter in
// source pre-order (not-blocks included, flagged `negated`) with the node/edge types it resolved
// to, the traversal direction and the filter's resolved operator; the result columns with names
// and types; the order keys' types; the target type of each mutation statement; and the graph
// types read and written. Its pointers point into the QueryDecl and the Catalog given to
// CheckQuery, which must outlive it (moving a QueryFile keeps them valid). Pure; thread-safe.
#pragma once

#include <compare>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "query/parse/ast.h"
#include "query/parse/diagnostic.h"
#include "schema/catalog.h"

namespace omnigraph::query {

enum class QueryKind : uint8_t { kRead, kMutation };
// "read", "mutation".
const char* QueryKindName(QueryKind kind);

// The type of an expression: a value of a PropType, a whole entity (a bare node variable), or
// an aggregate (an aggregate call, or an alias the checker cannot resolve, as in the reference).
struct ExprType {
  enum class Kind : uint8_t { kValue, kEntity, kAggregate };
  Kind kind = Kind::kValue;
  schema::PropType value;                   // kValue.
  const schema::TypeDef* entity = nullptr;  // kEntity.

  static ExprType Value(schema::PropType type);
  static ExprType Scalar(schema::ScalarKind scalar, bool nullable = false);
  static ExprType Entity(const schema::TypeDef* type);
  static ExprType Aggregate();
  bool is_value() const { return kind == Kind::kValue; }
  // "String?", "[I32]", "node `Person`", "aggregate" (the reference's wording).
  std::string DisplayName() const;
};

enum class VarKind : uint8_t { kNode, kEdge };

// What a variable binds: a node of a node type, or one edge of an edge type.
struct BoundVar {
  VarKind kind = VarKind::kNode;
  const schema::TypeDef* type = nullptr;
  Span span;  // Where it was first bound.
};
using Scope = std::map<std::string, BoundVar, std::less<>>;

struct CheckedBinding {
  const Binding* clause = nullptr;
  const schema::TypeDef* type = nullptr;
  bool negated = false;  // Inside a not-block.
};

// Which way a traversal walks its edge type, relative to `src ... dst` as written: kOut means
// src is the edge's source (from) and dst its target (to); kIn the reverse; kBoth either
// (undirected `<edge>`, same-endpoint-type edges only).
enum class Direction : uint8_t { kOut, kIn, kBoth };

struct CheckedTraversal {
  const Traversal* clause = nullptr;
  const schema::TypeDef* edge = nullptr;  // The first of `edges`.
  // Every edge type walked: one, or each alternative of `(a|b)`, or every edge type the
  // wildcard `*` matched (catalog order). All connect the same node types the same way.
  std::vector<const schema::TypeDef*> edges;
  Direction direction = Direction::kOut;
  const schema::TypeDef* src_type = nullptr;  // Node type of clause->src.
  const schema::TypeDef* dst_type = nullptr;  // Node type of clause->dst.
  bool negated = false;
};

// The operator a filter resolved to: `contains` is list membership or String substring
// depending on its left operand; a bare search()/fuzzy()/match_text() clause is kTextSearch.
enum class FilterKind : uint8_t {
  kCompare,
  kListContains,
  kStringContains,
  kStartsWith,
  kTextSearch,
  kBoolean,  // A Boolean conjunct (Filter::condition), true to keep the row.
};

struct CheckedFilter {
  const Filter* clause = nullptr;
  ExprType left;
  ExprType right;
  FilterKind kind = FilterKind::kCompare;
  bool negated = false;
};

struct ResultColumn {
  std::string name;  // `$p.name` -> "p.name", alias -> alias, aggregate -> "count", ...
  ExprType type;     // kValue or kEntity.
  bool nullable = true;
  bool aggregate = false;
};

struct CheckedMutation {
  const Mutation* stmt = nullptr;
  const schema::TypeDef* target = nullptr;  // A node type, or an edge type (insert, delete).
};

// A graph type a query reads or writes.
struct GraphFact {
  schema::TypeKind kind = schema::TypeKind::kNode;  // kNode or kEdge.
  std::string type_name;

  friend auto operator<=>(const GraphFact&, const GraphFact&) = default;
};

struct CheckedQuery {
  const QueryDecl* decl = nullptr;
  QueryKind kind = QueryKind::kRead;
  std::vector<schema::PropType> param_types;  // Parallel to decl->params.
  // Read queries.
  Scope vars;                                // The top-level match scope.
  std::vector<Scope> negation_scopes;        // Per not-block, source pre-order: what it sees.
  std::vector<CheckedBinding> bindings;      // Source pre-order.
  std::vector<CheckedTraversal> traversals;  // Source pre-order.
  std::vector<CheckedFilter> filters;        // Source pre-order.
  std::vector<ResultColumn> columns;         // Parallel to decl->projections.
  std::vector<ExprType> order_types;         // Parallel to decl->orderings.
  bool has_aggregates = false;               // Implicit GROUP BY the other columns.
  // Mutation queries.
  std::vector<CheckedMutation> mutations;  // Parallel to decl->mutations.
  // Sorted (nodes first, then by name) and deduplicated; conservative for reads.
  std::vector<GraphFact> reads;
  std::vector<GraphFact> writes;
};

struct QueryCheck {
  std::optional<CheckedQuery> checked;  // Set when the query is well-typed.
  std::optional<Diagnostic> error;      // The first error otherwise.
};

// Checks `query` against `catalog`.
QueryCheck CheckQuery(const schema::Catalog& catalog, const QueryDecl& query);

// CheckQuery as a Result: InvalidArgument with the rendered diagnostic ("3:14: T1: ...").
Result<CheckedQuery> TypecheckQuery(const schema::Catalog& catalog, const QueryDecl& query);

// Checks a branch statement for the way it is run: `as_mutation` for mutate (create, delete,
// merge), else for a read (list). InvalidArgument with the statement's position for a read
// statement run as a mutation or the reverse, `main` created or deleted, a branch created from
// itself or merged into itself. Whether the names exist is the engine's to say.
Status CheckBranchStatement(const BranchStatement& statement, bool as_mutation);

}  // namespace omnigraph::query
