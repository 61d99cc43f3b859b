// Unit tests of the parts of src/query the executor consumes: the AST shape and spans, literal
// values, and the typechecker's annotations. Diagnostics are covered by tests/lang/*.test.

#include <gtest/gtest.h>

#include <string>

#include "query/check/lint.h"
#include "query/check/typecheck.h"
#include "query/parse/lexer.h"
#include "query/parse/parser.h"
#include "schema/catalog.h"
#include "schema/identity.h"

namespace omnigraph::query {
namespace {

constexpr const char* kSchema = R"(
node Person { name: String @key  age: I32?  tags: [String]?  bio: String? }
node Company { name: String @key }
edge Knows: Person -> Person { since: Date? }
edge WorksAt: Person -> Company
)";

schema::Catalog MakeCatalog() {
  auto ir = schema::AcceptInitial(kSchema);
  EXPECT_TRUE(ir.ok()) << ir.status().ToString();
  auto catalog = schema::Catalog::Build(std::move(*ir));
  EXPECT_TRUE(catalog.ok()) << catalog.status().ToString();
  return std::move(*catalog);
}

QueryFile Parse(std::string_view source) {
  auto file = ParseQueryFile(source);
  EXPECT_TRUE(file.ok()) << file.status().ToString();
  return file.ok() ? std::move(*file) : QueryFile{};
}

TEST(ParserTest, AstCarriesSpansWithLineColumnAndByteOffset) {
  QueryFile file = Parse(
      "// c\nquery q($n: String?) {\n  match { $p: Person { name: $n } }\n"
      "  return { $p.name as who }\n}\n");
  ASSERT_EQ(file.queries.size(), 1u);
  const QueryDecl& q = file.queries[0];
  EXPECT_EQ(q.name.text, "q");
  EXPECT_EQ(q.span.begin.line, 2u);
  EXPECT_EQ(q.span.begin.column, 1u);
  EXPECT_EQ(q.span.begin.offset, 5u);
  ASSERT_EQ(q.params.size(), 1u);
  EXPECT_TRUE(q.params[0].type.nullable);
  EXPECT_EQ(q.params[0].type.scalar, schema::ScalarKind::kString);
  const Binding* b = q.clauses.at(0).binding();
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->var.text, "p");
  EXPECT_EQ(b->type.span.begin.line, 3u);
  EXPECT_EQ(b->type.span.begin.column, 15u);
  EXPECT_EQ(b->type.span.end - b->type.span.begin.offset, 6u);  // "Person"
  ASSERT_EQ(b->props.size(), 1u);
  EXPECT_EQ(b->props[0].value.kind, MatchValue::Kind::kVariable);
  EXPECT_EQ(b->props[0].value.variable.text, "n");
  ASSERT_EQ(q.projections.size(), 1u);
  ASSERT_TRUE(q.projections[0].alias.has_value());
  EXPECT_EQ(q.projections[0].alias->text, "who");
}

TEST(ParserTest, TraversalsKeepBoundsEdgeBindingsAndDirection) {
  QueryFile file = Parse(
      "query q() { match { $a: Person  $a knows {2,4} $b  $a $w:knows $c  $a <knows> $d  "
      "$a knows {1,} $e } return { $a.name } }");
  const QueryDecl& q = file.queries.at(0);
  const Traversal* t1 = q.clauses.at(1).traversal();
  ASSERT_NE(t1, nullptr);
  EXPECT_TRUE(t1->has_bounds);
  EXPECT_EQ(t1->min_hops, 2u);
  EXPECT_EQ(t1->max_hops, 4u);
  const Traversal* t2 = q.clauses.at(2).traversal();
  ASSERT_TRUE(t2->edge_var.has_value());
  EXPECT_EQ(t2->edge_var->text, "w");
  EXPECT_EQ(t2->min_hops, 1u);
  EXPECT_EQ(t2->max_hops, 1u);
  EXPECT_TRUE(q.clauses.at(3).traversal()->undirected);
  EXPECT_FALSE(q.clauses.at(4).traversal()->max_hops.has_value());
}

TEST(ParserTest, LiteralsBecomeValues) {
  QueryFile file = Parse(
      "query q() { match { $p: Person { age: 7, tags: [\"a\", \"b\\n\"] } "
      "$p.age > 1.5  $p.name = date(\"1970-01-03\")  $p.name = datetime(\"1970-01-01T00:00:02Z\") "
      "$p.name = true } return { $p.name } }");
  const QueryDecl& q = file.queries.at(0);
  const Binding* b = q.clauses.at(0).binding();
  EXPECT_EQ(b->props[0].value.literal.value, schema::Value::Int(7));
  EXPECT_EQ(b->props[1].value.literal.value,
            schema::Value::List({schema::Value::String("a"), schema::Value::String("b\n")}));
  EXPECT_EQ(q.clauses.at(1).filter()->right.literal.value, schema::Value::Float(1.5));
  EXPECT_EQ(q.clauses.at(2).filter()->right.literal.value, schema::Value::Date(2));
  EXPECT_EQ(q.clauses.at(3).filter()->right.literal.value, schema::Value::DateTime(2000));
  EXPECT_EQ(q.clauses.at(4).filter()->right.literal.value, schema::Value::Bool(true));
}

TEST(ParserTest, MutationStatementsKeepAssignmentsAndPredicates) {
  QueryFile file =
      Parse("query m($n: String) { update Person set { age: 3, bio: now() } where name != $n }");
  const Mutation& m = file.queries.at(0).mutations.at(0);
  EXPECT_EQ(m.kind, MutationKind::kUpdate);
  EXPECT_EQ(m.type.text, "Person");
  ASSERT_EQ(m.assignments.size(), 2u);
  EXPECT_EQ(m.assignments[1].value.kind, MatchValue::Kind::kNow);
  ASSERT_TRUE(m.where.has_value());
  EXPECT_EQ(m.where->prop.text, "name");
  EXPECT_EQ(m.where->op, CompOp::kNe);
}

TEST(ParserTest, BranchStatementsParseWithQuotedOrBareNames) {
  QueryFile create = Parse("branch create \"review/x\" from b0");
  ASSERT_TRUE(create.statement.has_value());
  EXPECT_TRUE(create.queries.empty());
  EXPECT_EQ(create.statement->op, BranchOp::kCreate);
  EXPECT_EQ(create.statement->branch.text, "review/x");
  ASSERT_TRUE(create.statement->other.has_value());
  EXPECT_EQ(create.statement->other->text, "b0");
  EXPECT_EQ(create.statement->other->span.begin.column, 31u);

  QueryFile merge = Parse("\n  branch merge feature into main");
  ASSERT_TRUE(merge.statement.has_value());
  EXPECT_EQ(merge.statement->op, BranchOp::kMerge);
  EXPECT_EQ(merge.statement->branch.text, "feature");
  EXPECT_EQ(merge.statement->other->text, "main");
  EXPECT_EQ(merge.statement->span.begin.line, 2u);

  QueryFile del = Parse("branch delete b1");
  EXPECT_EQ(del.statement->op, BranchOp::kDelete);
  EXPECT_FALSE(del.statement->other.has_value());
  QueryFile list = Parse("branch list");
  EXPECT_EQ(list.statement->op, BranchOp::kList);
  EXPECT_TRUE(list.statement->is_read());
}

TEST(ParserTest, MalformedBranchStatementsSayWhatWasExpected) {
  auto bad_op = ParseQueryFile("branch rename a b");
  ASSERT_FALSE(bad_op.ok());
  EXPECT_NE(bad_op.status().message().find("1:8: Q000: expected 'create', 'delete', 'merge' or "
                                           "'list', found"),
            std::string::npos)
      << bad_op.status().message();
  auto no_name = ParseQueryFile("branch create");
  ASSERT_FALSE(no_name.ok());
  EXPECT_NE(no_name.status().message().find("a branch name"), std::string::npos);
  auto empty = ParseQueryFile("branch delete \"\"");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("a branch name cannot be empty"), std::string::npos);
  auto trailing =
      ParseQueryFile("branch list query q() { match { $p: Person } return { $p.name } }");
  ASSERT_FALSE(trailing.ok());
  EXPECT_NE(trailing.status().message().find("stands alone"), std::string::npos)
      << trailing.status().message();
  auto neither = ParseQueryFile("merge a");
  ASSERT_FALSE(neither.ok());
  EXPECT_NE(neither.status().message().find("expected 'query', 'branch' or end of input"),
            std::string::npos)
      << neither.status().message();
  auto wrong_word = ParseQueryFile("branch merge a onto b");
  ASSERT_FALSE(wrong_word.ok());
  EXPECT_NE(wrong_word.status().message().find("'into'"), std::string::npos)
      << wrong_word.status().message();
}

TEST(TypecheckTest, BranchStatementsAreCheckedForTheWayTheyRun) {
  QueryFile list = Parse("branch list");
  EXPECT_TRUE(CheckBranchStatement(*list.statement, false).ok());
  Status as_write = CheckBranchStatement(*list.statement, true);
  EXPECT_EQ(as_write.code(), Code::kInvalidArgument);
  EXPECT_NE(as_write.message().find("1:1: `branch list` is a read; run it with query"),
            std::string::npos)
      << as_write.message();
  QueryFile create = Parse("branch create x");
  EXPECT_TRUE(CheckBranchStatement(*create.statement, true).ok());
  EXPECT_NE(CheckBranchStatement(*create.statement, false).message().find("run it with mutate"),
            std::string::npos);
  Status main = CheckBranchStatement(*Parse("branch delete main").statement, true);
  EXPECT_NE(main.message().find("1:15: `branch delete` cannot name main"), std::string::npos)
      << main.message();
  Status self = CheckBranchStatement(*Parse("branch merge b into b").statement, true);
  EXPECT_NE(self.message().find("1:21: `branch merge` names branch 'b' on both sides"),
            std::string::npos)
      << self.message();
}

TEST(ParserTest, OversizedSourceIsRefused) {
  std::string source(kMaxQuerySourceBytes + 1, ' ');
  ParseOutcome out = ParseQueries(source);
  ASSERT_TRUE(out.error.has_value());
  EXPECT_EQ(out.error->code, kParseErrorCode);
}

TEST(TypecheckTest, TraversalsResolveEdgeTypesEndpointTypesAndDirection) {
  schema::Catalog catalog = MakeCatalog();
  QueryFile file = Parse(
      "query q() { match { $c: Company  $p worksAt $c  $f knows $p  $p <knows> $g } "
      "return { $p.name } }");
  auto checked = TypecheckQuery(catalog, file.queries.at(0));
  ASSERT_TRUE(checked.ok()) << checked.status().ToString();
  ASSERT_EQ(checked->traversals.size(), 3u);
  // `$p worksAt $c` with $c bound: Person -> Company, written in the edge's direction.
  EXPECT_EQ(checked->traversals[0].edge->name, "WorksAt");
  EXPECT_EQ(checked->traversals[0].direction, Direction::kOut);
  EXPECT_EQ(checked->traversals[0].src_type->name, "Person");
  EXPECT_EQ(checked->traversals[0].dst_type->name, "Company");
  // `$f knows $p` with $p bound as the destination: still out from $f.
  EXPECT_EQ(checked->traversals[1].direction, Direction::kOut);
  EXPECT_EQ(checked->traversals[2].direction, Direction::kBoth);
  EXPECT_EQ(checked->vars.at("g").type->name, "Person");
  EXPECT_EQ(checked->vars.at("c").kind, VarKind::kNode);
}

TEST(TypecheckTest, ReversedTraversalWalksTheEdgeInbound) {
  schema::Catalog catalog = MakeCatalog();
  QueryFile file = Parse("query q() { match { $c: Company  $c worksAt $p } return { $p.name } }");
  auto checked = TypecheckQuery(catalog, file.queries.at(0));
  ASSERT_TRUE(checked.ok()) << checked.status().ToString();
  EXPECT_EQ(checked->traversals.at(0).direction, Direction::kIn);
  EXPECT_EQ(checked->traversals.at(0).dst_type->name, "Person");
}

TEST(TypecheckTest, FiltersResolveContainsAndNegationsKeepTheirOwnScope) {
  schema::Catalog catalog = MakeCatalog();
  QueryFile file = Parse(
      "query q() { match { $p: Person  $p.tags contains \"x\"  $p.bio contains \"y\" "
      "not { $p $w:knows $q  $w.since > date(\"2020-01-01\") } } return { $p.name } }");
  auto checked = TypecheckQuery(catalog, file.queries.at(0));
  ASSERT_TRUE(checked.ok()) << checked.status().ToString();
  ASSERT_EQ(checked->filters.size(), 3u);
  EXPECT_EQ(checked->filters[0].kind, FilterKind::kListContains);
  EXPECT_EQ(checked->filters[1].kind, FilterKind::kStringContains);
  EXPECT_TRUE(checked->filters[2].negated);
  EXPECT_EQ(checked->vars.count("q"), 0u);
  ASSERT_EQ(checked->negation_scopes.size(), 1u);
  EXPECT_EQ(checked->negation_scopes[0].at("w").kind, VarKind::kEdge);
  EXPECT_EQ(checked->negation_scopes[0].at("w").type->name, "Knows");
  EXPECT_TRUE(checked->traversals.at(0).negated);
}

TEST(TypecheckTest, ResultColumnsCarryNamesTypesAndAggregation) {
  schema::Catalog catalog = MakeCatalog();
  QueryFile file = Parse(
      "query q() { match { $p: Person  $p worksAt $c } "
      "return { $c.name, count($p) as staff, $c } order { staff desc } limit 3 }");
  auto checked = TypecheckQuery(catalog, file.queries.at(0));
  ASSERT_TRUE(checked.ok()) << checked.status().ToString();
  EXPECT_TRUE(checked->has_aggregates);
  ASSERT_EQ(checked->columns.size(), 3u);
  EXPECT_EQ(checked->columns[0].name, "c.name");
  EXPECT_FALSE(checked->columns[0].nullable);
  EXPECT_EQ(checked->columns[1].name, "staff");
  EXPECT_TRUE(checked->columns[1].aggregate);
  EXPECT_EQ(checked->columns[1].type.value.scalar, schema::ScalarKind::kI64);
  EXPECT_EQ(checked->columns[2].type.kind, ExprType::Kind::kEntity);
  EXPECT_EQ(checked->columns[2].type.entity->name, "Company");
  ASSERT_EQ(checked->order_types.size(), 1u);
}

TEST(TypecheckTest, MutationTargetsAndParameterTypes) {
  schema::Catalog catalog = MakeCatalog();
  QueryFile file = Parse(
      "query m($a: String, $b: String, $ages: [I32]) { insert Person { name: $a } "
      "insert Knows { from: $a, to: $b } }");
  auto checked = TypecheckQuery(catalog, file.queries.at(0));
  ASSERT_TRUE(checked.ok()) << checked.status().ToString();
  EXPECT_EQ(checked->kind, QueryKind::kMutation);
  ASSERT_EQ(checked->mutations.size(), 2u);
  EXPECT_EQ(checked->mutations[0].target->kind, schema::TypeKind::kNode);
  EXPECT_EQ(checked->mutations[1].target->name, "Knows");
  ASSERT_EQ(checked->param_types.size(), 3u);
  EXPECT_TRUE(checked->param_types[2].list);
  EXPECT_EQ(checked->param_types[2].scalar, schema::ScalarKind::kI32);
}

TEST(TypecheckTest, ErrorsComeBackAsInvalidArgumentWithPosition) {
  schema::Catalog catalog = MakeCatalog();
  QueryFile file = Parse("query q() {\n  match { $p: Persn }\n  return { $p.name }\n}");
  auto checked = TypecheckQuery(catalog, file.queries.at(0));
  ASSERT_FALSE(checked.ok());
  EXPECT_EQ(checked.status().kind(), Kind::kInvalidArgument);
  EXPECT_EQ(checked.status().message(), "2:15: T1: unknown node type `Persn`");
}

TEST(LexerTest, QueryTextThatIsNotUtf8IsAParseErrorAtItsFirstBadByte) {
  const std::string latin1 =
      "query q() {\n  match { $p: Person { name: \"caf\xe9\" } }\n  return { $p.name }\n}";
  Result<QueryFile> r = ParseQueryFile(latin1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(r.status().message(),
            "2:34: Q000: the query text is not valid UTF-8 (byte 0xe9 at offset 45)");
  // In a comment too: nothing of the source may carry bad bytes into a message.
  r = ParseQueryFile("// \xff\nquery q() { match { $p: Person } return { $p.name } }");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "1:4: Q000: the query text is not valid UTF-8 (byte 0xff at offset 3)");
  EXPECT_TRUE(ParseQueryFile("query q() { match { $p: Person { name: \"caf\xc3\xa9\" } } "
                             "return { $p.name } }")
                  .ok());
}

}  // namespace
}  // namespace omnigraph::query
