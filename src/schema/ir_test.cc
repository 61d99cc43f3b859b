#include "schema/ir.h"

#include <gtest/gtest.h>

#include "base/hash.h"
#include "schema/archive.h"
#include "schema/identity.h"
#include "schema/ir_json.h"

namespace omnigraph::schema {
namespace {

constexpr std::string_view kRich = R"pg(
interface Named { name: String @key @description("display name") }
node Person @description("people") @instruction("one per human") @tier(gold) implements Named {
  age: I32? @rename_from("years")
  email: String? @unique
  kind: enum(b, a)?
  embedding: Vector(4)? @embed("name", model = "m1") @index
  @range(age, 0..150) @check(email, "@")
}
node Company { slug: String  region: String  @key(region, slug) }
edge WorksAt: Person -> Company @card(0..1) { role: String? @index  @unique(src, dst) }
edge Knows: Person -> Person
)pg";

SchemaIr Accept(std::string_view source) {
  auto ir = AcceptInitial(source);
  EXPECT_TRUE(ir.ok()) << ir.status().ToString();
  return ir.ok() ? *ir : SchemaIr{};
}

TEST(SchemaIrTest, InitMintsIdsOneToNInSourceOrder) {
  SchemaIr ir = Accept(kRich);
  // Types in declaration order: Named 1, Person 2, Company 3, WorksAt 4, Knows 5.
  EXPECT_EQ(ir.interfaces[0].id, 1u);
  ASSERT_EQ(ir.nodes.size(), 2u);
  EXPECT_EQ(ir.nodes[0].name, "Company");  // Sorted by name in the IR.
  EXPECT_EQ(ir.nodes[0].id, 3u);
  EXPECT_EQ(ir.nodes[1].id, 2u);
  EXPECT_EQ(ir.edges[0].name, "Knows");
  EXPECT_EQ(ir.edges[0].id, 5u);
  EXPECT_EQ(ir.edges[1].id, 4u);
  // Incarnations over nodes and edges in declaration order: Person 1, Company 2, WorksAt 3,
  // Knows 4.
  EXPECT_EQ(ir.nodes[1].incarnation, 1u);
  EXPECT_EQ(ir.nodes[0].incarnation, 2u);
  EXPECT_EQ(ir.edges[1].incarnation, 3u);
  EXPECT_EQ(ir.edges[0].incarnation, 4u);
  EXPECT_EQ(ir.interfaces[0].incarnation, 0u);
  // Properties: Named.name 1; Person age 2, email 3, kind 4, embedding 5, injected name 6;
  // Company slug 7, region 8; WorksAt role 9.
  std::vector<std::pair<std::string, uint64_t>> person;
  for (const PropertyDef& p : ir.nodes[1].properties) person.emplace_back(p.name, p.id);
  EXPECT_EQ(person, (std::vector<std::pair<std::string, uint64_t>>{
                        {"age", 2}, {"email", 3}, {"kind", 4}, {"embedding", 5}, {"name", 6}}));
  EXPECT_EQ(ir.interfaces[0].properties[0].id, 1u);
  EXPECT_EQ(ir.edges[1].properties[0].id, 9u);
  EXPECT_EQ(ir.allocator, (IdAllocator{6, 10, 5}));
  EXPECT_TRUE(ir.retired_types.empty());
}

TEST(SchemaIrTest, CompositeKeyFieldsAreInPropertyIdOrder) {
  SchemaIr ir = Accept(kRich);
  const TypeDef& company = ir.nodes[0];
  std::vector<std::string> key;
  for (const PropertyDef* p : company.KeyProperties()) key.push_back(p->name);
  EXPECT_EQ(key, (std::vector<std::string>{"slug", "region"}));  // Ids 7, 8; not @key order.
  EXPECT_TRUE(company.IsKeyProperty(7));
  EXPECT_FALSE(ir.nodes[1].IsKeyProperty(2));
}

TEST(SchemaIrTest, TableKeysNameKindAndType) {
  SchemaIr ir = Accept(kRich);
  EXPECT_EQ(ir.nodes[1].table_key(), "node:Person");
  EXPECT_EQ(ir.edges[0].table_key(), "edge:Knows");
  EXPECT_EQ(ir.interfaces[0].table_key(), "interface:Named");
  EXPECT_EQ(TableKey(TypeKind::kEdge, "WorksAt"), "edge:WorksAt");
}

TEST(SchemaIrTest, IrCarriesEdgesConstraintsAndMetadata) {
  SchemaIr ir = Accept(kRich);
  const TypeDef& works_at = ir.edges[1];
  EXPECT_EQ(works_at.from, (TypeRef{2, "Person"}));
  EXPECT_EQ(works_at.to, (TypeRef{3, "Company"}));
  EXPECT_EQ(works_at.card, (Cardinality{0, 1}));
  ASSERT_EQ(works_at.constraints.size(), 2u);
  EXPECT_EQ(works_at.constraints[0].DisplayName(), "@index(role)");
  EXPECT_EQ(works_at.constraints[1].DisplayName(), "@unique(src, dst)");
  const TypeDef& person = ir.nodes[1];
  EXPECT_EQ(person.implements, (std::vector<TypeRef>{{1, "Named"}}));
  EXPECT_EQ(person.metadata.instruction, "one per human");
  EXPECT_EQ(person.metadata.other, (std::vector<Annotation>{{"tier", "gold", {}}}));
  EXPECT_EQ(person.FindProperty("age")->metadata.rename_from, "years");
  EXPECT_EQ(person.FindProperty("name")->metadata.description, "display name");
  const PropertyDef* embedding = person.FindProperty("embedding");
  ASSERT_TRUE(embedding->embed.has_value());
  EXPECT_EQ(*embedding->embed, (EmbedSpec{6, "name", "m1"}));
  EXPECT_EQ(person.FindProperty("kind")->type.enum_values, (std::vector<std::string>{"a", "b"}));
}

TEST(SchemaIrTest, JsonRoundTripIsExact) {
  SchemaIr ir = Accept(kRich);
  auto back = IrFromJson(IrToJson(ir));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, ir);
  auto reparsed = ParseJson(IrCanonicalJson(ir), "ir");
  ASSERT_TRUE(reparsed.ok());
  auto again = IrFromJson(*reparsed);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(IrCanonicalJson(*again), IrCanonicalJson(ir));
}

TEST(SchemaIrTest, CanonicalJsonOfASmallSchemaIsExact) {
  SchemaIr ir = Accept("node P { n: String @key  f: F32? }\nedge E: P -> P @card(1..)");
  EXPECT_EQ(
      IrCanonicalJson(ir),
      R"({"allocator":{"next_incarnation":3,"next_property_id":3,"next_type_id":3},)"
      R"("edges":[{"card":{"min":1},"constraints":[],"from":{"name":"P","type_id":1},)"
      R"("incarnation":2,"kind":"edge","name":"E","properties":[],"to":{"name":"P","type_id":1},)"
      R"("type_id":2}],"interfaces":[],"ir_version":1,"nodes":[{"constraints":[{"fields":)"
      R"([{"name":"n","property_id":1}],"kind":"key"}],"implements":[],"incarnation":1,)"
      R"("kind":"node","name":"P","properties":[{"name":"n","property_id":1,"type":{"list":false,)"
      R"("nullable":false,"scalar":"String"}},{"name":"f","property_id":2,"type":{"list":false,)"
      R"("nullable":true,"scalar":"F32"}}],"type_id":1}],"retired_properties":[],)"
      R"("retired_types":[]})");
}

TEST(SchemaIrTest, SameSourceAlwaysYieldsSameIrHashAndContentHash) {
  SchemaIr a = Accept(kRich);
  SchemaIr b = Accept(kRich);
  EXPECT_EQ(IrHash(a), IrHash(b));
  EXPECT_EQ(IrHash(a).rfind("sha256:", 0), 0u);
  EXPECT_EQ(IrHash(a).size(), 7u + 64u);
  EXPECT_EQ(IrHash(a), "sha256:" + Sha256Hex(IrCanonicalJson(a)));
  std::string bytes_a = ArchiveBytes("01J0000000000000000000000A", 1, kRich, a);
  std::string bytes_b = ArchiveBytes("01J0000000000000000000000A", 1, kRich, b);
  EXPECT_EQ(bytes_a, bytes_b);
  EXPECT_EQ(ContentHash(bytes_a), ContentHash(bytes_b));
  EXPECT_EQ(ContentHash(bytes_a), Sha256Hex(bytes_a));
  EXPECT_EQ(ContentHash(bytes_a).size(), 64u);
  // A different source (even one meaning the same) changes the archive but not the IR.
  std::string reformatted = std::string(kRich) + "\n// trailing comment\n";
  SchemaIr c = Accept(reformatted);
  EXPECT_EQ(IrHash(c), IrHash(a));
  EXPECT_NE(ContentHash(ArchiveBytes("01J0000000000000000000000A", 1, reformatted, c)),
            ContentHash(bytes_a));
  // A semantic change changes the IR hash.
  EXPECT_NE(IrHash(Accept("node P { n: String }")), IrHash(Accept("node P { n: String? }")));
}

TEST(SchemaIrTest, ArchiveBytesAreCanonicalAndParseBack) {
  SchemaIr ir = Accept(kRich);
  std::string bytes = ArchiveBytes("graph-1", 7, kRich, ir);
  auto doc = ParseJson(bytes, "archive");
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ(CanonicalJson(*doc), bytes);
  EXPECT_EQ((*doc)["format"], 1);
  EXPECT_EQ((*doc)["identity_domain"], "graph-1");
  EXPECT_EQ((*doc)["identity_version"], 7);
  EXPECT_EQ((*doc)["ir_hash"], IrHash(ir));
  EXPECT_EQ((*doc)["source"], std::string(kRich));
  EXPECT_EQ(CanonicalJson((*doc)["ir"]), IrCanonicalJson(ir));
  auto parsed = ParseArchive(bytes);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->identity_domain, "graph-1");
  EXPECT_EQ(parsed->identity_version, 7u);
  EXPECT_EQ(parsed->source, kRich);
  EXPECT_EQ(parsed->ir, ir);
}

TEST(SchemaIrTest, ArchiveWithWrongIrHashOrNewerFormatIsRefused) {
  SchemaIr ir = Accept(kRich);
  Json doc = *ParseJson(ArchiveBytes("g", 1, kRich, ir), "archive");
  Json tampered = doc;
  tampered["ir_hash"] = "sha256:00";
  auto r = ParseArchive(CanonicalJson(tampered));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kCorruption);
  Json newer = doc;
  newer["format"] = 2;
  EXPECT_EQ(ParseArchive(CanonicalJson(newer)).status().code(), Code::kFormatTooNew);
  EXPECT_EQ(ParseArchive("{not json").status().code(), Code::kCorruption);
  EXPECT_EQ(ParseArchive("[]").status().code(), Code::kCorruption);
}

TEST(SchemaIrTest, DecodingRejectsBrokenIdentity) {
  SchemaIr ir = Accept(kRich);
  Json good = IrToJson(ir);
  auto expect_corrupt = [](const Json& j, std::string_view needle) {
    auto r = IrFromJson(j);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), Code::kCorruption);
    EXPECT_NE(r.status().message().find(needle), std::string::npos) << r.status().message();
  };
  Json dup = good;
  dup["nodes"][0]["type_id"] = dup["nodes"][1]["type_id"];
  expect_corrupt(dup, "type id 2 is used twice");
  Json above = good;
  above["allocator"]["next_property_id"] = 3;
  expect_corrupt(above, "outside the allocated range");
  Json zero = good;
  zero["edges"][0]["incarnation"] = 0;
  expect_corrupt(zero, "incarnation outside the allocated range");
  Json negative = good;
  negative["nodes"][0]["type_id"] = -1;
  expect_corrupt(negative, "non-negative integer");
  Json missing = good;
  missing["nodes"][0].erase("properties");
  expect_corrupt(missing, "missing member 'properties'");
  Json endpoint = good;
  endpoint["edges"][0]["from"]["type_id"] = 1;  // The interface.
  expect_corrupt(endpoint, "endpoint that is not a node type");
  Json enums = good;
  enums["nodes"][1]["properties"][2]["type"]["enum_values"] = Json::array({"b", "a"});
  expect_corrupt(enums, "not sorted and unique");
  Json newer = good;
  newer["ir_version"] = 2;
  EXPECT_EQ(IrFromJson(newer).status().code(), Code::kFormatTooNew);
  EXPECT_EQ(IrFromJson(Json::array()).status().code(), Code::kCorruption);
}

TEST(SchemaIrTest, DisplayNamesUseSchemaSpelling) {
  PropType t;
  t.scalar = ScalarKind::kI64;
  t.list = true;
  t.nullable = true;
  EXPECT_EQ(t.DisplayName(), "[I64]?");
  EXPECT_EQ(ScalarKindName(ScalarKind::kDateTime), "DateTime");
  EXPECT_EQ(ParseBaseTypeName("Date"), ScalarKind::kDate);
  EXPECT_FALSE(ParseBaseTypeName("Vector").has_value());
  EXPECT_TRUE(IsNumeric(ScalarKind::kF32));
  EXPECT_FALSE(IsInteger(ScalarKind::kF32));
  Constraint c;
  c.kind = ConstraintKind::kRange;
  c.fields = {{2, "w"}};
  c.min = RangeBound{false, 0, 1.0};
  EXPECT_EQ(c.DisplayName(), "@range(w, 1.0..)");
}

}  // namespace
}  // namespace omnigraph::schema
