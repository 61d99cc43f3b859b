// Golden error messages for malformed schemas, and robustness against arbitrary input.
#include "schema/validate.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>

#include "schema/identity.h"

namespace omnigraph::schema {
namespace {

struct Golden {
  const char* name;
  const char* source;
  const char* message;
};

// Each source is malformed in exactly one way; the message is the complete Status message.
const Golden kGolden[] = {
    // Syntax.
    {"MissingColonAfterProperty", "node Person {\n  name String\n}",
     "line 2, column 8: expected ':' after property name 'name', found 'String'"},
    {"BraceWhereColonExpected", "node Person {\n  age {\n}",
     "line 2, column 7: expected ':' after property name 'age', found '{'"},
    {"UnknownTopLevelKeyword", "nod Person {}",
     "line 1, column 1: expected 'interface', 'node' or 'edge', found 'nod'"},
    {"LowerCaseTypeName", "node person {}",
     "line 1, column 6: expected node type name (starting with an upper-case letter), found "
     "'person'"},
    {"UnknownType", "node P {\n  n: Integer\n}",
     "line 2, column 6: expected a type (String, Bool, I32, I64, U32, U64, F32, F64, Date, "
     "DateTime, Blob, Vector(N), enum(...) or [T]), found 'Integer'"},
    {"UnclosedBody", "node P {\n  n: String\n",
     "line 3, column 1: expected property name, body constraint (@key, @unique, @index, @range, "
     "@check) or '}' in node P, found end of input"},
    {"MissingArrow", "node A {}\nedge E: A => A",
     "line 2, column 11: expected '->' between the endpoint types of edge E, found '='"},
    {"EdgeMissingColon", "node A {}\nedge E A -> A",
     "line 2, column 8: expected ':' after edge name 'E', found 'A'"},
    {"UnterminatedString", "node A @description(\"oops {}",
     "line 1, column 21: unterminated string literal (expected '\"' before end of input)"},
    {"UnterminatedBlockComment", "node A {}\n/* never closed",
     "line 2, column 1: unterminated block comment (expected '*/' before end of input)"},
    {"BadEscape", "node A @description(\"a\\qb\") {}",
     "line 1, column 23: unsupported escape sequence in string literal: expected one of \\\" \\\\ "
     "\\n \\r \\t, found '\\q'"},
    {"EmptyEnum", "node A { e: enum() }",
     "line 1, column 18: enum type must include at least one value"},
    {"DuplicateEnumValue", "node A { e: enum(a, b, a) }",
     "line 1, column 24: enum type cannot include duplicate values: 'a' appears more than once"},
    {"ListOfVector", "node A { v: [Vector(3)] }",
     "line 1, column 14: expected list element type (String, Bool, I32, I64, U32, U64, F32, F64, "
     "Date, DateTime), found 'Vector' (lists hold scalars only)"},
    {"ListOfBlob", "node A { v: [Blob] }", "line 1, column 14: list of Blob is not supported"},
    {"VectorZero", "node A { v: Vector(0) }",
     "line 1, column 20: Vector dimension must be greater than zero"},
    {"VectorTooLarge", "node A { v: Vector(99999999999) }",
     "line 1, column 20: Vector dimension '99999999999' is not an integer between 0 and "
     "4294967295"},
    {"CardMinAboveMax", "node A {}\nedge E: A -> A @card(3..1)",
     "line 2, column 25: cardinality min (3) exceeds max (1)"},
    {"CardTwice", "node A {}\nedge E: A -> A @card(0..1) @card(0..2)",
     "line 2, column 28: edge E declares @card more than once"},
    {"BodyConstraintOnNodeHeader", "node A @key(name) { name: String }",
     "line 1, column 8: @key(...) on node A belongs inside its body: expected '{' or "
     "'implements', found '@key('"},
    {"RangeWithoutBounds", "node A { n: I32 @range(n, 5) }",
     "line 1, column 27: expected range bounds (min..max, min.. or ..max) in @range, found '5'"},
    {"CheckWithoutPattern", "node A { n: String @check(n) }",
     "line 1, column 20: @check takes exactly two arguments: @check(property, \"regex\"), found 1"},
    {"KeyWithLiteral", "node A { n: String @key(\"n\") }",
     "line 1, column 25: expected property name in @key, found string \"n\""},
    {"StrayCharacter", "node A { n: String # }", "line 1, column 20: unexpected character '#'"},
    {"BodyConstraintInInterface", "interface I { n: String @key(n) }",
     "line 1, column 25: expected property name or '}' in interface I, found '@'"},
    // Semantics.
    {"DuplicateNode", "node A {}\nnode A {}",
     "line 2, column 6: duplicate type name 'A': already declared as node at line 1"},
    {"NodeAndEdgeShareAName", "node A {}\nedge A: A -> A",
     "line 2, column 6: duplicate type name 'A': already declared as node at line 1"},
    {"EdgeNamesFoldTogether", "node A {}\nedge Knows: A -> A\nedge KNOWS: A -> A",
     "line 3, column 6: edge name collision after case folding: 'KNOWS' conflicts with 'Knows' "
     "(edge names are looked up case-insensitively)"},
    {"DuplicateProperty", "node A {\n  n: String\n  n: I32\n}",
     "line 3, column 3: duplicate property 'n' in node A"},
    {"UnknownEdgeSource", "node A {}\nedge E: Ghost -> A",
     "line 2, column 9: edge E references unknown source type: Ghost"},
    {"UnknownEdgeTarget", "node A {}\nedge E: A -> Ghost",
     "line 2, column 14: edge E references unknown target type: Ghost"},
    {"EdgeEndpointIsInterface", "interface I { n: String }\nnode A {}\nedge E: A -> I",
     "line 3, column 14: edge E target type I is interface, not a node type"},
    {"UnknownInterface", "node A implements Ghost {}",
     "line 1, column 19: node A implements unknown interface 'Ghost'"},
    {"InterfaceTypeConflict", "interface I { n: String }\nnode A implements I { n: I32 }",
     "line 2, column 23: node A property 'n' has type I32 but interface I declares it as String"},
    {"ReservedStorageColumn", "node A { _rowid: I64 }",
     "line 1, column 10: property name '_rowid' is reserved for a storage system column"},
    {"KeyOnNullable", "node A { n: String? @key }",
     "line 1, column 21: @key property A.n cannot be nullable"},
    {"KeyOnList", "node A { n: [String] @key }",
     "line 1, column 22: @key is not supported on list property A.n"},
    {"BodyKeyOnList", "node A { n: [String]  @key(n) }",
     "line 1, column 28: @key is not supported on list property A.n"},
    {"KeyOnBlob", "node A { n: Blob @key }",
     "line 1, column 18: @key is not supported on blob property A.n"},
    {"KeyOnVector", "node A { n: Vector(3) @key }",
     "line 1, column 23: @key is not supported on vector property A.n"},
    {"TwoKeys", "node A { a: String @key  b: String @key }",
     "line 1, column 36: node type A has multiple @key constraints; only one is supported (use "
     "@key(a, b) for a composite key)"},
    {"KeyUnknownProperty", "node A { a: String  @key(b) }",
     "line 1, column 26: @key on A references unknown property 'b'"},
    {"EdgeKeyWithoutEndpoints", "node A {}\nedge E: A -> A { w: I32  @key(w) }",
     "line 2, column 26: @key on edge E must name both endpoints, e.g. @key(@src, @dst) or "
     "@key(@src, @dst, property)"},
    {"EdgeKeyWithOneEndpoint", "node A {}\nedge E: A -> A { @key(@src) }",
     "line 2, column 18: @key on edge E must name both endpoints, e.g. @key(@src, @dst) or "
     "@key(@src, @dst, property)"},
    {"EdgeKeyUnknownProperty", "node A {}\nedge E: A -> A { @key(@src, @dst, w) }",
     "line 2, column 35: @key on E references unknown property 'w'"},
    {"EdgeKeyNullableProperty", "node A {}\nedge E: A -> A { w: I32?  @key(@src, @dst, w) }",
     "line 2, column 44: @key property E.w cannot be nullable"},
    {"EdgeKeyListProperty", "node A {}\nedge E: A -> A { w: [I32]  @key(@src, @dst, w) }",
     "line 2, column 45: @key is not supported on list property E.w"},
    {"EdgeKeyEndpointTwice", "node A {}\nedge E: A -> A { @key(@src, @dst, src) }",
     "line 2, column 35: @key on E lists endpoint '@src' more than once"},
    {"TwoEdgeKeys", "node A {}\nedge E: A -> A { @key(@src, @dst)  @key(@dst, @src) }",
     "line 2, column 36: edge type E has multiple @key constraints; only one is supported (use "
     "@key(a, b) for a composite key)"},
    {"EndpointOnNodeKey", "node A { n: String  @key(@src) }",
     "line 1, column 26: @src names an edge endpoint; node A has none"},
    {"EndpointInRange", "node A { n: I32  @range(@src, 0..1) }",
     "line 1, column 25: expected property name in @range, found 'src'"},
    {"PropertyKeyOnEdge", "node A {}\nedge E: A -> A { w: I32 @key }",
     "line 2, column 25: @key is not supported on edge properties (edge E.w); an edge key names "
     "its endpoints: @key(@src, @dst, w)"},
    {"RangeOnEdge", "node A {}\nedge E: A -> A { w: I32  @range(w, 0..1) }",
     "line 2, column 26: @range constraint is not supported on edges (edge E); edge bodies allow "
     "only @key, @unique and @index"},
    {"UniqueOnBlob", "node A { b: Blob  @unique(b) }",
     "line 1, column 27: @unique is not supported on blob property A.b"},
    {"IndexUnknownProperty", "node A { a: String  @index(a, zz) }",
     "line 1, column 31: @index on A references unknown property 'zz'"},
    {"SrcOnNodeConstraint", "node A { a: String  @unique(src) }",
     "line 1, column 29: @unique on A references unknown property 'src'"},
    {"RangeOnString", "node A { s: String  @range(s, 0..1) }",
     "line 1, column 28: @range on A.s requires a numeric type, got String"},
    {"RangeMinAboveMax", "node A { n: I32  @range(n, 9..1) }",
     "line 1, column 18: @range on A.n has min greater than max: @range(n, 9..1)"},
    {"CheckOnInteger", "node A { n: I32  @check(n, \"x\") }",
     "line 1, column 25: @check on A.n requires String type, got I32"},
    {"CheckBadRegex", "node A { s: String  @check(s, \"a(b\") }",
     "line 1, column 31: @check on A.s has an invalid regular expression: missing ): a(b"},
    {"DuplicateFieldInConstraint", "node A { a: String  @unique(a, a) }",
     "line 1, column 32: @unique on A lists property 'a' more than once"},
    {"DescriptionTwice", "node A @description(\"x\") @description(\"y\") {}",
     "line 1, column 26: node A declares @description multiple times"},
    {"EmptyDescription", "node A @description(\"  \") {}",
     "line 1, column 8: @description on node A requires a non-empty value, e.g. "
     "@description(\"...\")"},
    {"InstructionOnProperty", "node A { n: String @instruction(\"x\") }",
     "line 1, column 20: @instruction is only supported on node and edge types (property A.n)"},
    {"RenameFromWithoutValue", "node A @rename_from {}",
     "line 1, column 8: @rename_from on node A requires a non-empty value, e.g. "
     "@rename_from(\"...\")"},
    {"UniqueAnnotationOnNode", "node A @unique {}",
     "line 1, column 8: @unique is only supported on node properties or as a body constraint "
     "(node A)"},
    {"CardOnNode", "node A @card {}",
     "line 1, column 8: @card is only supported on edges (node A)"},
    {"EmbedOnString", "node A { t: String  v: String @embed(\"t\") }",
     "line 1, column 31: @embed is only supported on vector properties (A.v)"},
    {"EmbedUnknownSource", "node A { v: Vector(3) @embed(\"t\") }",
     "line 1, column 23: @embed on A.v references unknown source property t"},
    {"EmbedBadKwarg", "node A { t: String  v: Vector(3) @embed(\"t\", size = 3) }",
     "line 1, column 34: @embed on A.v has unknown argument 'size=' (only 'model' is supported)"},
    {"IndexTwiceOnProperty", "node A { n: String @index @index }",
     "line 1, column 27: property A.n declares @index multiple times"},
    {"ImplementsTwice", "interface I { n: String }\nnode A implements I, I {}",
     "line 2, column 22: node A implements interface 'I' more than once"},
};

class SchemaGoldenErrorTest : public testing::TestWithParam<Golden> {};

TEST_P(SchemaGoldenErrorTest, MessageNamesPlaceExpectationAndFinding) {
  const Golden& g = GetParam();
  auto r = AcceptInitial(g.source);
  ASSERT_FALSE(r.ok()) << "accepted: " << g.source;
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(r.status().message(), g.message);
}

INSTANTIATE_TEST_SUITE_P(Malformed, SchemaGoldenErrorTest, testing::ValuesIn(kGolden),
                         [](const testing::TestParamInfo<Golden>& param) {
                           return param.param.name;
                         });

TEST(SchemaValidateTest, GoldenSetIsLargeAndNamesAreUnique) {
  std::set<std::string> names;
  for (const Golden& g : kGolden) EXPECT_TRUE(names.insert(g.name).second) << g.name;
  EXPECT_GE(names.size(), 20u);
}

TEST(SchemaValidateTest, InterfacePropertyDeclaredDirectlyKeepsTheNodesOwnConstraints) {
  // As in the reference: an interface property's constraints apply only when it is injected.
  auto ir = AcceptInitial("interface I { n: String @key }\nnode A implements I { n: String }");
  ASSERT_TRUE(ir.ok()) << ir.status().ToString();
  EXPECT_EQ(ir->nodes[0].key(), nullptr);
  auto injected = AcceptInitial("interface I { n: String @key }\nnode A implements I {}");
  ASSERT_TRUE(injected.ok());
  EXPECT_NE(injected->nodes[0].key(), nullptr);
}

TEST(SchemaValidateTest, PropertiesMayBeNamedIdSrcAndDst) {
  // As in OmniGraph: the identity and endpoints are the meta-fields `@id`, `@src`, `@dst`, so
  // plain names are free for user properties, a key included.
  auto ir = AcceptInitial(
      "node A { id: String @key }\nedge E: A -> A { id: String?  src: String?  dst: I32? }");
  ASSERT_TRUE(ir.ok()) << ir.status().ToString();
  ASSERT_NE(ir->nodes[0].key(), nullptr);
  EXPECT_NE(ir->nodes[0].FindProperty("id"), nullptr);
  EXPECT_NE(ir->edges[0].FindProperty("src"), nullptr);
  EXPECT_NE(ir->edges[0].FindProperty("dst"), nullptr);
}

TEST(SchemaValidateTest, EdgeKeysNameEndpointsFirstThenPropertiesById) {
  // `@src`/`@dst` and the 0.10 spellings `src`/`dst` name the endpoints; the key's fields are in
  // tuple order whatever the source order: src, dst, then properties by stable id.
  auto ir = AcceptInitial(
      "node A { n: String @key }\n"
      "edge E: A -> A { since: I32  kind: String  @key(kind, @dst, since, @src) }\n"
      "edge F: A -> A { @key(src, dst) }");
  ASSERT_TRUE(ir.ok()) << ir.status().ToString();
  const Constraint* key = ir->edges[0].key();
  ASSERT_NE(key, nullptr);
  ASSERT_EQ(key->fields.size(), 4u);
  EXPECT_EQ(key->fields[0], (FieldRef{0, "src"}));
  EXPECT_EQ(key->fields[1], (FieldRef{0, "dst"}));
  EXPECT_EQ(key->fields[2].name, "since");
  EXPECT_EQ(key->fields[3].name, "kind");
  EXPECT_LT(key->fields[2].property_id, key->fields[3].property_id);
  ASSERT_EQ(ir->edges[0].KeyProperties().size(), 2u);
  ASSERT_NE(ir->edges[1].key(), nullptr);
  EXPECT_EQ(ir->edges[1].key()->fields, (std::vector<FieldRef>{{0, "src"}, {0, "dst"}}));
  EXPECT_TRUE(ir->edges[1].KeyProperties().empty());
}

TEST(SchemaValidateTest, EdgeEndpointsAreToldApartFromPropertiesNamedSrc) {
  // A property may be called `src` (decision 74): a plain `src` then names it, `@src` the
  // endpoint.
  auto ir = AcceptInitial(
      "node A { n: String @key }\n"
      "edge E: A -> A { src: String  @key(@src, @dst, src)  @unique(src) }");
  ASSERT_TRUE(ir.ok()) << ir.status().ToString();
  const TypeDef& e = ir->edges[0];
  const PropertyDef* src = e.FindProperty("src");
  ASSERT_NE(src, nullptr);
  EXPECT_EQ(e.key()->fields, (std::vector<FieldRef>{{0, "src"}, {0, "dst"}, {src->id, "src"}}));
  ASSERT_EQ(e.KeyProperties().size(), 1u);
  EXPECT_EQ(e.KeyProperties()[0], src);
  bool unique_names_property = false;
  for (const Constraint& c : e.constraints) {
    if (c.kind == ConstraintKind::kUnique) {
      unique_names_property = c.fields == std::vector<FieldRef>{{src->id, "src"}};
    }
  }
  EXPECT_TRUE(unique_names_property);
}

// Mutates valid schemas byte by byte and checks that nothing crashes and every failure is an
// InvalidArgument with a position.
TEST(SchemaValidateTest, ArbitraryInputNeverCrashes) {
  const std::string base = R"pg(
interface Named { name: String @key @description("n") }
node Person implements Named @description("p") {
  age: I32? email: String? @unique tags: [String]? kind: enum(a, b-c)?
  v: Vector(4) @embed("email")
  @range(age, 0..150) @check(email, "@")
}
edge Knows: Person -> Person @card(0..3) { since: Date? @unique(src, dst) }
edge Likes: Person -> Person { at: Date  @key(@src, @dst, at) }
)pg";
  const std::string alphabet = "{}()[]:,?@.-=\"\\/* \nazAZ09_>";
  std::mt19937 rng(12345);
  int failures = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string s = base;
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      size_t at = rng() % (s.size() + 1);
      switch (rng() % 3) {
        case 0: s.insert(at, 1, alphabet[rng() % alphabet.size()]); break;
        case 1:
          if (at < s.size()) s.erase(at, 1);
          break;
        default:
          if (at < s.size()) s[at] = static_cast<char>(rng() % 256);
      }
    }
    auto r = AcceptInitial(s);
    if (!r.ok()) {
      ++failures;
      EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
      EXPECT_EQ(r.status().message().rfind("line ", 0), 0u) << r.status().message();
    }
  }
  EXPECT_GT(failures, 0);
}

}  // namespace
}  // namespace omnigraph::schema
