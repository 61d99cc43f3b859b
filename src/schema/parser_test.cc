#include "schema/parser.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "schema/identity.h"
#include "schema/ir_json.h"
#include "schema/validate.h"

namespace omnigraph::schema {
namespace {

const TypeDef& Type(const SchemaIr& ir, std::string_view name) {
  for (const auto* list : {&ir.interfaces, &ir.nodes, &ir.edges}) {
    for (const TypeDef& t : *list) {
      if (t.name == name) return t;
    }
  }
  ADD_FAILURE() << "no type " << name;
  static TypeDef none;
  return none;
}

const PropertyDef& Prop(const SchemaIr& ir, std::string_view type, std::string_view prop) {
  const PropertyDef* p = Type(ir, type).FindProperty(prop);
  if (p == nullptr) {
    ADD_FAILURE() << "no property " << type << "." << prop;
    static PropertyDef none;
    return none;
  }
  return *p;
}

SchemaIr Accept(std::string_view source) {
  auto ir = AcceptInitial(source);
  EXPECT_TRUE(ir.ok()) << ir.status().ToString();
  return ir.ok() ? *ir : SchemaIr{};
}

std::filesystem::path CookbooksDir() {
  if (const char* dir = std::getenv("OMNIGRAPH_COOKBOOKS_DIR")) return dir;
  const char* src = std::getenv("OMNIGRAPH_SOURCE_DIR");
  std::filesystem::path root = src ? src : ".";
  return root / ".." / "shared" / "fixtures" / "cookbooks";
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(SchemaParserTest, EveryCookbookSchemaParsesAndRoundTripsThroughTheIr) {
  std::filesystem::path dir = CookbooksDir();
  ASSERT_TRUE(std::filesystem::is_directory(dir))
      << "cookbook fixtures not found at " << dir << " (set OMNIGRAPH_COOKBOOKS_DIR)";
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::filesystem::path schema = entry.path() / "schema.pg";
    if (!std::filesystem::exists(schema)) continue;
    ++count;
    SCOPED_TRACE(schema.string());
    std::string source = ReadFile(schema);
    auto ir = AcceptInitial(source);
    ASSERT_TRUE(ir.ok()) << ir.status().ToString();
    EXPECT_FALSE(ir->nodes.empty());
    EXPECT_FALSE(ir->edges.empty());
    auto decoded = IrFromJson(IrToJson(*ir));
    ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
    EXPECT_EQ(*decoded, *ir);
    EXPECT_EQ(IrCanonicalJson(*decoded), IrCanonicalJson(*ir));
    // Parsing the same source again yields the same IR and hash.
    auto again = AcceptInitial(source);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(IrHash(*again), IrHash(*ir));
  }
  EXPECT_GE(count, 2);
}

TEST(SchemaParserTest, CookbookDetailsAreCarried) {
  std::string source = ReadFile(CookbooksDir() / "second-brain" / "schema.pg");
  if (source.empty()) GTEST_SKIP() << "second-brain cookbook not present";
  SchemaIr ir = Accept(source);
  // Enum values with '-' are kept, sorted.
  const PropertyDef& relation = Prop(ir, "Person", "relation");
  ASSERT_TRUE(relation.type.is_enum());
  EXPECT_EQ(relation.type.enum_values.front(), "acquaintance");
  EXPECT_NE(
      std::find(relation.type.enum_values.begin(), relation.type.enum_values.end(), "close-friend"),
      relation.type.enum_values.end());
  EXPECT_EQ(Prop(ir, "Artifact", "blob").type.DisplayName(), "Blob?");
  const PropertyDef& embedding = Prop(ir, "Chunk", "embedding");
  EXPECT_EQ(embedding.type.DisplayName(), "Vector(3072)");
  ASSERT_TRUE(embedding.embed.has_value());
  EXPECT_EQ(embedding.embed->source_property, "text");
  EXPECT_EQ(embedding.embed->source_property_id, Prop(ir, "Chunk", "text").id);
  const TypeDef& chunk_of = Type(ir, "ChunkOf");
  EXPECT_EQ(chunk_of.card.min, 1u);
  EXPECT_EQ(chunk_of.card.max, 1u);
  ASSERT_EQ(chunk_of.constraints.size(), 1u);
  EXPECT_EQ(chunk_of.constraints[0].DisplayName(), "@unique(src)");
  EXPECT_TRUE(chunk_of.constraints[0].fields[0].is_system());
  EXPECT_EQ(Type(ir, "Knows").from.name, "Person");
  EXPECT_EQ(Prop(ir, "Habit", "completions").type.DisplayName(), "[Date]?");
}

TEST(SchemaParserTest, SurfaceExampleParses) {
  SchemaIr ir = Accept(R"pg(
interface Named { name: String @key }
node Person implements Named { age: I32?  email: String? @unique  @range(age, 0..150) @check(email, "@") }
node Company { name: String @key  tags: [String]  kind: enum(startup, public) }
edge WorksAt: Person -> Company @card(0..1) { role: String?  @unique(src, dst) }
)pg");
  const TypeDef& person = Type(ir, "Person");
  ASSERT_EQ(person.implements.size(), 1u);
  EXPECT_EQ(person.implements[0].name, "Named");
  // The interface's `name` (and its @key) are injected into Person.
  ASSERT_NE(person.FindProperty("name"), nullptr);
  ASSERT_NE(person.key(), nullptr);
  EXPECT_EQ(person.key()->DisplayName(), "@key(name)");
  std::vector<std::string> constraints;
  for (const Constraint& c : person.constraints) constraints.push_back(c.DisplayName());
  EXPECT_EQ(constraints, (std::vector<std::string>{"@check(email, \"@\")", "@key(name)",
                                                   "@range(age, 0..150)", "@unique(email)"}));
  const TypeDef& works_at = Type(ir, "WorksAt");
  EXPECT_EQ(works_at.card.max, 1u);
  EXPECT_EQ(works_at.constraints[0].DisplayName(), "@unique(src, dst)");
  EXPECT_EQ(Prop(ir, "Company", "kind").type.enum_values,
            (std::vector<std::string>{"public", "startup"}));
}

TEST(SchemaParserTest, EveryScalarTypeListEnumNullableVectorAndBlobParse) {
  SchemaIr ir = Accept(R"pg(
node All {
  s: String  b: Bool  i32: I32  i64: I64  u32: U32  u64: U64  f32: F32  f64: F64
  d: Date  dt: DateTime  blob: Blob?  v: Vector(8)  nv: Vector(2)?
  ls: [String]  li: [I64]?  lf: [F32]  ld: [Date]  lb: [Bool]
  e: enum(zeta, alpha, mid-dle, 3d)?
}
)pg");
  std::vector<std::string> shown;
  for (const PropertyDef& p : Type(ir, "All").properties) shown.push_back(p.type.DisplayName());
  EXPECT_EQ(shown, (std::vector<std::string>{"String", "Bool", "I32", "I64", "U32", "U64", "F32",
                                             "F64", "Date", "DateTime", "Blob?", "Vector(8)",
                                             "Vector(2)?", "[String]", "[I64]?", "[F32]", "[Date]",
                                             "[Bool]", "enum(3d, alpha, mid-dle, zeta)?"}));
}

TEST(SchemaParserTest, CommentsAreIgnoredEverywhere) {
  SchemaIr ir = Accept(R"pg(
// leading comment
/* block
   comment */ node /* inline */ Person // trailing
{
  name: /* before type */ String // after type
  @key(name) /* after constraint */
}
)pg");
  EXPECT_NE(Type(ir, "Person").key(), nullptr);
}

TEST(SchemaParserTest, AnnotationsAreKeptAsMetadata) {
  SchemaIr ir = Accept(R"pg(
node Person @description("A human") @instruction("Use for people") @owner(team, level = 3, tag = "x") {
  name: String @key @description("Full name") @pii @weight(0.5)
}
edge Knows: Person -> Person @description("knows") @card(0..) @audit
)pg");
  const TypeDef& person = Type(ir, "Person");
  EXPECT_EQ(person.metadata.description, "A human");
  EXPECT_EQ(person.metadata.instruction, "Use for people");
  ASSERT_EQ(person.metadata.other.size(), 1u);
  EXPECT_EQ(person.metadata.other[0].name, "owner");
  EXPECT_EQ(person.metadata.other[0].value, "team");
  EXPECT_EQ(person.metadata.other[0].kwargs,
            (std::map<std::string, std::string>{{"level", "3"}, {"tag", "x"}}));
  const PropertyDef& name = Prop(ir, "Person", "name");
  EXPECT_EQ(name.metadata.description, "Full name");
  ASSERT_EQ(name.metadata.other.size(), 2u);
  EXPECT_EQ(name.metadata.other[0].name, "pii");
  EXPECT_FALSE(name.metadata.other[0].value.has_value());
  EXPECT_EQ(name.metadata.other[1].value, "0.5");
  const TypeDef& knows = Type(ir, "Knows");
  EXPECT_TRUE(knows.card.is_default());
  EXPECT_EQ(knows.metadata.description, "knows");
  EXPECT_EQ(knows.metadata.other[0].name, "audit");
}

TEST(SchemaParserTest, RenameFromIsRecordedAndInertAtInit) {
  SchemaIr ir = Accept(R"pg(
node Human @rename_from("Person") { full_name: String @rename_from("name") }
)pg");
  EXPECT_EQ(Type(ir, "Human").metadata.rename_from, "Person");
  EXPECT_EQ(Prop(ir, "Human", "full_name").metadata.rename_from, "name");
  EXPECT_EQ(Type(ir, "Human").id, 1u);
}

TEST(SchemaParserTest, RangeBoundsAndCheckPatternsParse) {
  SchemaIr ir = Accept(R"pg(
node M {
  a: I32  b: F64  c: I64  d: U32  code: String
  @range(a, -5..5) @range(b, 0.5..) @range(c, ..-1) @range(d, 1.25..2)
  @check(code, "^[A-Z]{3}\\d+$") @check(code, "a\"b")
}
)pg");
  std::vector<std::string> shown;
  for (const Constraint& c : Type(ir, "M").constraints) shown.push_back(c.DisplayName());
  EXPECT_EQ(shown,
            (std::vector<std::string>{"@check(code, \"^[A-Z]{3}\\d+$\")", "@check(code, \"a\"b\")",
                                      "@range(a, -5..5)", "@range(b, 0.5..)", "@range(c, ..-1)",
                                      "@range(d, 1.25..2)"}));
}

TEST(SchemaParserTest, PropertyAndBodyConstraintsDesugarToOneForm) {
  SchemaIr a = Accept("node P { name: String @key @unique @index  tag: String? @index }");
  SchemaIr b = Accept(
      "node P { name: String tag: String? @key(name) @unique(name) @index(name) "
      "@index(tag) }");
  EXPECT_EQ(Type(a, "P").constraints, Type(b, "P").constraints);
  EXPECT_EQ(Type(a, "P").constraints.size(), 4u);
}

TEST(SchemaParserTest, ConstraintKeywordWithParenAfterPropertyStartsABodyConstraint) {
  // `name: String @key(name)` is a property followed by a body constraint, as in the reference.
  SchemaIr ir = Accept("node P { name: String @key(name) }");
  ASSERT_NE(Type(ir, "P").key(), nullptr);
}

TEST(SchemaParserTest, EdgeKeysParseInBothSpellingsAndAfterAProperty) {
  // The corpus writes `weight: I64 @key(@src, @dst)`: a property, then a body constraint.
  SchemaIr ir = Accept(
      "node P { name: String @key }\n"
      "edge A: P -> P { weight: I64 @key(@src, @dst) }\n"
      "edge B: P -> P { @key(src, dst)  @unique(@src) }\n"
      "edge C: P -> P { at: Date  @key(@src, @dst, at)  @index(@dst, at) }");
  for (std::string_view name : {"A", "B", "C"}) {
    ASSERT_NE(Type(ir, name).key(), nullptr) << name;
  }
  EXPECT_EQ(Type(ir, "A").key()->DisplayName(), "@key(src, dst)");
  EXPECT_EQ(Type(ir, "A").key()->fields, Type(ir, "B").key()->fields);
  EXPECT_EQ(Type(ir, "C").key()->DisplayName(), "@key(src, dst, at)");
  std::vector<std::string> constraints;
  for (const Constraint& c : Type(ir, "C").constraints) constraints.push_back(c.DisplayName());
  EXPECT_EQ(constraints, (std::vector<std::string>{"@index(dst, at)", "@key(src, dst, at)"}));
  // `@` before anything but src/dst in a constraint is no argument.
  EXPECT_EQ(AcceptInitial("node P { n: String  @key(@id) }").status().message(),
            "line 1, column 26: expected constraint argument (property name, literal or range), "
            "found '@'");
}

TEST(SchemaParserTest, EdgesWithoutBodiesAndEmptyFilesParse) {
  EXPECT_TRUE(AcceptInitial("").ok());
  EXPECT_TRUE(AcceptInitial("  // only a comment\n").ok());
  SchemaIr ir = Accept("node A {} node B {} edge Rel: A -> B edge Back: B -> A @card(2..5)");
  EXPECT_EQ(ir.edges.size(), 2u);
  EXPECT_EQ(Type(ir, "Back").card.min, 2u);
}

TEST(SchemaParserTest, WhitespaceAfterAtIsAccepted) {
  SchemaIr ir = Accept("node A { name: String @ key }");
  EXPECT_NE(Type(ir, "A").key(), nullptr);
}

TEST(SchemaParserTest, SourceOverTheLimitIsRefused) {
  std::string big(kMaxSchemaSourceBytes + 1, ' ');
  auto r = ParseSchemaSyntax(big);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  EXPECT_NE(r.status().message().find("limit"), std::string::npos);
}

TEST(SchemaParserTest, SourceThatIsNotUtf8IsRefusedAtItsFirstBadByte) {
  // A Latin-1 e-acute in a string, in a comment, and a truncated sequence at the very end.
  struct Case {
    std::string source;
    std::string message;
  };
  for (const Case& c : {
           Case{"node A {\n  name: String @description(\"caf\xe9\")\n}",
                "line 2, column 33: the schema text is not valid UTF-8 (byte 0xe9 at offset 41)"},
           Case{"// caf\xe9\nnode A { name: String }",
                "line 1, column 7: the schema text is not valid UTF-8 (byte 0xe9 at offset 6)"},
           Case{"node A { name: String }\xc3",
                "line 1, column 24: the schema text is not valid UTF-8 (byte 0xc3 at offset 23)"},
       }) {
    auto r = ParseSchemaSyntax(c.source);
    ASSERT_FALSE(r.ok()) << c.source;
    EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
    EXPECT_EQ(r.status().message(), c.message);
  }
  EXPECT_TRUE(ParseSchemaSyntax("node A { name: String @description(\"caf\xc3\xa9\") }").ok());
}

}  // namespace
}  // namespace omnigraph::schema
