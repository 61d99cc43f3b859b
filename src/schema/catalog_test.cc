#include "schema/catalog.h"

#include <gtest/gtest.h>

#include "schema/identity.h"

namespace omnigraph::schema {
namespace {

Catalog Build(std::string_view source) {
  auto ir = AcceptInitial(source);
  EXPECT_TRUE(ir.ok()) << ir.status().ToString();
  auto catalog = Catalog::Build(ir.ok() ? *ir : SchemaIr{});
  EXPECT_TRUE(catalog.ok()) << catalog.status().ToString();
  return std::move(catalog).value();
}

constexpr std::string_view kSchema = R"pg(
interface Named { name: String }
node Person implements Named { name: String @key  age: I32? }
node Company implements Named { name: String @key }
edge Knows: Person -> Person
edge WorksAt: Person -> Company { role: String? }
edge HQ_In: Company -> Company
)pg";

TEST(CatalogTest, FindsTypesByExactName) {
  Catalog c = Build(kSchema);
  ASSERT_NE(c.FindNode("Person"), nullptr);
  EXPECT_EQ(c.FindNode("Person")->kind, TypeKind::kNode);
  EXPECT_EQ(c.FindNode("person"), nullptr);  // Node names are case-sensitive.
  EXPECT_EQ(c.FindNode("Knows"), nullptr);   // An edge is not a node.
  EXPECT_NE(c.FindInterface("Named"), nullptr);
  EXPECT_EQ(c.FindTable("Named"), nullptr);  // Interfaces have no table.
  EXPECT_EQ(c.FindTable("WorksAt")->kind, TypeKind::kEdge);
  EXPECT_EQ(c.nodes().size(), 2u);
  EXPECT_EQ(c.edges().size(), 3u);
  EXPECT_EQ(c.interfaces().size(), 1u);
}

TEST(CatalogTest, EdgeLookupIsCaseInsensitive) {
  Catalog c = Build(kSchema);
  const TypeDef* knows = c.FindEdge("Knows");
  ASSERT_NE(knows, nullptr);
  EXPECT_EQ(c.FindEdge("knows"), knows);
  EXPECT_EQ(c.FindEdge("KNOWS"), knows);
  EXPECT_EQ(c.FindEdge("worksAt"), c.FindEdge("WorksAt"));
  EXPECT_EQ(c.FindEdge("hq_in")->name, "HQ_In");
  EXPECT_EQ(c.FindEdge("Person"), nullptr);
  EXPECT_EQ(c.FindEdge("likes"), nullptr);
}

TEST(CatalogTest, FindsByIdAndTableKey) {
  Catalog c = Build(kSchema);
  const TypeDef* person = c.FindNode("Person");
  EXPECT_EQ(c.FindById(person->id), person);
  EXPECT_EQ(c.FindById(person->incarnation + 1000), nullptr);
  EXPECT_EQ(c.FindByTableKey("node:Person"), person);
  EXPECT_EQ(c.FindByTableKey("edge:Knows"), c.FindEdge("Knows"));
  EXPECT_EQ(c.FindByTableKey("edge:knows"), nullptr);  // Table keys are exact.
  EXPECT_EQ(c.FindByTableKey("node:Knows"), nullptr);
  EXPECT_EQ(c.FindByTableKey("Person"), nullptr);
  for (const TypeDef& t : c.nodes()) EXPECT_EQ(c.FindByTableKey(t.table_key()), &t);
  for (const TypeDef& t : c.edges()) EXPECT_EQ(c.FindByTableKey(t.table_key()), &t);
}

TEST(CatalogTest, PropertyLookupAndErrorsNameTheObject) {
  Catalog c = Build(kSchema);
  auto person = c.Node("Person");
  ASSERT_TRUE(person.ok());
  auto age = Catalog::Property(**person, "age");
  ASSERT_TRUE(age.ok());
  EXPECT_EQ((*age)->type.DisplayName(), "I32?");
  auto missing = Catalog::Property(**person, "nick");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Code::kNotFound);
  EXPECT_EQ(missing.status().message(), "unknown property 'nick' on node:Person");
  EXPECT_EQ(c.Node("Ghost").status().message(), "unknown node type 'Ghost'");
  EXPECT_EQ(c.Edge("likes").status().message(), "unknown edge type 'likes'");
  EXPECT_TRUE(c.Edge("worksat").ok());
}

TEST(CatalogTest, NavigatesEdgesAndInterfaces) {
  Catalog c = Build(kSchema);
  const TypeDef* person = c.FindNode("Person");
  const TypeDef* company = c.FindNode("Company");
  std::vector<std::string> from_person;
  for (const TypeDef* e : c.EdgesFrom(person->id)) from_person.push_back(e->name);
  EXPECT_EQ(from_person, (std::vector<std::string>{"Knows", "WorksAt"}));
  std::vector<std::string> to_company;
  for (const TypeDef* e : c.EdgesTo(company->id)) to_company.push_back(e->name);
  EXPECT_EQ(to_company, (std::vector<std::string>{"HQ_In", "WorksAt"}));
  std::vector<std::string> named;
  for (const TypeDef* n : c.Implementors(c.FindInterface("Named")->id)) named.push_back(n->name);
  EXPECT_EQ(named, (std::vector<std::string>{"Company", "Person"}));
}

TEST(CatalogTest, SurvivesBeingMoved) {
  Catalog a = Build(kSchema);
  const TypeDef* person = a.FindNode("Person");
  Catalog b = std::move(a);
  EXPECT_EQ(b.FindNode("Person"), person);
  EXPECT_EQ(b.FindEdge("knows")->name, "Knows");
}

TEST(CatalogTest, RefusesAnInvalidIr) {
  auto ir = AcceptInitial(kSchema);
  ASSERT_TRUE(ir.ok());
  SchemaIr broken = *ir;
  broken.nodes[0].id = broken.nodes[1].id;
  auto c = Catalog::Build(broken);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), Code::kCorruption);
}

}  // namespace
}  // namespace omnigraph::schema
