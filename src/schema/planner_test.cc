#include "schema/planner.h"

#include <gtest/gtest.h>

#include "schema/identity.h"
#include "schema/ir_json.h"

namespace omnigraph::schema {
namespace {

constexpr std::string_view kBase = R"pg(
interface Named { name: String }
node Person @description("people") implements Named {
  name: String @key
  age: I32?
  status: enum(active, gone)
  email: String? @unique
  v: Vector(2)? @embed("name")
  @range(age, 0..150)
}
node Company { slug: String @key }
edge WorksAt: Person -> Company @card(0..1) { role: String? }
edge Knows: Person -> Person
)pg";

SchemaIr Accept(std::string_view source) {
  auto ir = AcceptInitial(source);
  EXPECT_TRUE(ir.ok()) << ir.status().ToString();
  return ir.ok() ? *ir : SchemaIr{};
}

MigrationPlan Plan(const SchemaIr& accepted, std::string_view source, PlanOptions options = {}) {
  auto plan = PlanMigration(accepted, source, options);
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
  return plan.ok() ? *plan : MigrationPlan{};
}

// Replaces the first occurrence of `from` in kBase.
std::string Edit(std::string_view from, std::string_view to) {
  std::string s(kBase);
  size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

std::vector<std::string> Steps(const MigrationPlan& plan) {
  std::vector<std::string> out;
  for (const MigrationStep& s : plan.steps) out.push_back(CanonicalJson(s.ToJson()));
  return out;
}

// The single unsupported step's rendered message.
std::string Refusal(std::string_view source) {
  SchemaIr base = Accept(kBase);
  MigrationPlan plan = Plan(base, source);
  EXPECT_FALSE(plan.supported);
  std::vector<std::string> messages;
  for (const MigrationStep& s : plan.steps) {
    if (s.kind == StepKind::kUnsupportedChange) messages.push_back(s.UnsupportedMessage());
  }
  EXPECT_EQ(messages.size(), 1u) << testing::PrintToString(Steps(plan));
  auto applied = ApplyPlan(plan);
  EXPECT_FALSE(applied.ok());
  EXPECT_EQ(applied.status().code(), Code::kUnsupported);
  return messages.empty() ? "" : messages[0];
}

TEST(MigrationPlanTest, SameSourceIsANoOp) {
  SchemaIr base = Accept(kBase);
  MigrationPlan plan = Plan(base, kBase);
  EXPECT_TRUE(plan.supported);
  EXPECT_TRUE(plan.is_noop());
  EXPECT_EQ(CanonicalJson(plan.ToJson()), R"({"steps":[],"supported":true})");
  EXPECT_EQ(plan.desired, base);
  // Reordering declarations and reformatting mean the same schema.
  std::string reordered = R"pg(
edge Knows: Person -> Person
node Company { slug: String @key }
edge WorksAt: Person -> Company @card(0..1) { role: String? }
node Person @description("people") implements Named {
  age: I32?   name: String @key  status: enum(gone, active)  email: String? @unique
  v: Vector(2)? @embed("name")
  @range(age, 0..150)
}
interface Named { name: String }
)pg";
  EXPECT_TRUE(Plan(base, reordered).is_noop());
}

TEST(MigrationPlanTest, AdditiveStepsAreSupported) {
  SchemaIr base = Accept(kBase);
  std::string source = std::string(kBase) + R"pg(
interface Tagged { tag: String? }
node Tag { label: String @key }
edge Likes: Person -> Tag
)pg";
  source = source.replace(source.find("age: I32?"), 9, "age: I32?\n  nick: String? @index");
  MigrationPlan plan = Plan(base, source);
  EXPECT_TRUE(plan.supported);
  EXPECT_EQ(Steps(plan),
            (std::vector<std::string>{
                R"({"kind":"add_type","name":"Tagged","type_kind":"interface"})",
                R"({"kind":"add_property","property_name":"nick","property_type":{"enum_values":)"
                R"(null,"list":false,"nullable":true,"scalar":"String"},"type_kind":"node",)"
                R"("type_name":"Person"})",
                R"({"constraint":{"Index":["nick"]},"kind":"add_constraint","type_kind":"node",)"
                R"("type_name":"Person"})",
                R"({"kind":"add_type","name":"Tag","type_kind":"node"})",
                R"({"kind":"add_type","name":"Likes","type_kind":"edge"})",
            }));
  // New ids come from the allocator, after every accepted one.
  auto applied = ApplyPlan(plan);
  ASSERT_TRUE(applied.ok());
  const TypeDef* tag = nullptr;
  for (const TypeDef& n : applied->nodes) {
    if (n.name == "Tag") tag = &n;
  }
  ASSERT_NE(tag, nullptr);
  EXPECT_GE(tag->id, base.allocator.next_type_id);
  EXPECT_GE(tag->incarnation, base.allocator.next_incarnation);
  EXPECT_GE(tag->properties[0].id, base.allocator.next_property_id);
  EXPECT_TRUE(ValidateIr(*applied).ok());
}

TEST(MigrationPlanTest, AddIndexOnExistingPropertyIsSupported) {
  MigrationPlan plan = Plan(Accept(kBase), Edit("age: I32?", "age: I32? @index"));
  EXPECT_TRUE(plan.supported);
  EXPECT_EQ(Steps(plan),
            (std::vector<std::string>{R"({"constraint":{"Index":["age"]},"kind":"add_constraint",)"
                                      R"("type_kind":"node","type_name":"Person"})"}));
}

TEST(MigrationPlanTest, RenamesKeepIdsAndIncarnations) {
  SchemaIr base = Accept(kBase);
  std::string source = Edit("node Person @description(\"people\") implements Named {",
                            "node Human @description(\"people\") @rename_from(\"Person\") "
                            "implements Named {");
  source.replace(source.find("age: I32?"), 9, "years: I32? @rename_from(\"age\")");
  source.replace(source.find("@range(age"), 10, "@range(years");
  source.replace(source.find("edge Knows: Person -> Person"), 28,
                 "edge Befriends: Human -> Human @rename_from(\"Knows\")");
  source.replace(source.find("Person -> Company"), 17, "Human -> Company");
  MigrationPlan plan = Plan(base, source);
  ASSERT_TRUE(plan.supported) << testing::PrintToString(Steps(plan));
  EXPECT_EQ(Steps(plan),
            (std::vector<std::string>{
                R"({"from":"Person","kind":"rename_type","to":"Human","type_kind":"node"})",
                R"({"from":"age","kind":"rename_property","to":"years","type_kind":"node",)"
                R"("type_name":"Human"})",
                R"({"from":"Knows","kind":"rename_type","to":"Befriends","type_kind":"edge"})",
            }));
  auto next = ApplyPlan(plan);
  ASSERT_TRUE(next.ok());
  auto find = [](const std::vector<TypeDef>& list, std::string_view name) -> const TypeDef& {
    for (const TypeDef& t : list) {
      if (t.name == name) return t;
    }
    static TypeDef none;
    ADD_FAILURE() << name;
    return none;
  };
  const TypeDef& person = find(base.nodes, "Person");
  const TypeDef& human = find(next->nodes, "Human");
  EXPECT_EQ(human.id, person.id);
  EXPECT_EQ(human.incarnation, person.incarnation);
  EXPECT_EQ(human.FindProperty("years")->id, person.FindProperty("age")->id);
  EXPECT_EQ(find(next->edges, "Befriends").id, find(base.edges, "Knows").id);
  EXPECT_EQ(find(next->edges, "Befriends").incarnation, find(base.edges, "Knows").incarnation);
  // The range constraint follows the renamed property by id.
  bool found_range = false;
  for (const Constraint& c : human.constraints) {
    if (c.kind == ConstraintKind::kRange) {
      found_range = true;
      EXPECT_EQ(c.DisplayName(), "@range(years, 0..150)");
    }
  }
  EXPECT_TRUE(found_range);
  EXPECT_EQ(next->allocator, base.allocator);  // Nothing new was minted.
  EXPECT_TRUE(next->retired_types.empty());
  // Applying the renamed source again is a no-op (the stale hint is ignored).
  EXPECT_TRUE(Plan(*next, source).is_noop());
}

TEST(MigrationPlanTest, DropThenReAddMintsNewIds) {
  SchemaIr base = Accept(kBase);
  std::string without = Edit("  status: enum(active, gone)\n", "");
  without.replace(without.find("edge Knows: Person -> Person"), 28, "");
  MigrationPlan drop = Plan(base, without);
  ASSERT_TRUE(drop.supported) << testing::PrintToString(Steps(drop));
  EXPECT_EQ(Steps(drop),
            (std::vector<std::string>{
                R"({"kind":"drop_property","mode":"soft","property_name":"status",)"
                R"("type_kind":"node","type_name":"Person"})",
                R"({"kind":"drop_type","mode":"soft","name":"Knows","type_kind":"edge"})",
            }));
  SchemaIr dropped = *ApplyPlan(drop);
  ASSERT_EQ(dropped.retired_types.size(), 1u);
  EXPECT_EQ(dropped.retired_types[0].name, "Knows");
  ASSERT_EQ(dropped.retired_properties.size(), 1u);
  EXPECT_EQ(dropped.retired_properties[0].name, "status");

  // Re-adding under the old names mints new ids (status comes back nullable, as it must).
  std::string readd = Edit("status: enum(active, gone)", "status: enum(active, gone)?");
  MigrationPlan add = Plan(dropped, readd);
  ASSERT_TRUE(add.supported) << testing::PrintToString(Steps(add));
  EXPECT_EQ(Steps(add).size(), 2u);
  SchemaIr again = *ApplyPlan(add);
  const TypeDef* knows_old = nullptr;
  for (const TypeDef& e : base.edges) {
    if (e.name == "Knows") knows_old = &e;
  }
  const TypeDef* knows_new = nullptr;
  for (const TypeDef& e : again.edges) {
    if (e.name == "Knows") knows_new = &e;
  }
  ASSERT_NE(knows_new, nullptr);
  EXPECT_NE(knows_new->id, knows_old->id);
  EXPECT_NE(knows_new->incarnation, knows_old->incarnation);
  EXPECT_GE(knows_new->id, dropped.allocator.next_type_id);
  const PropertyDef* status_old = base.nodes[1].FindProperty("status");
  const PropertyDef* status_new = again.nodes[1].FindProperty("status");
  ASSERT_NE(status_new, nullptr);
  EXPECT_NE(status_new->id, status_old->id);
  EXPECT_GE(status_new->id, dropped.allocator.next_property_id);
  EXPECT_EQ(again.retired_types.size(), 1u);  // The old Knows stays retired.
  EXPECT_TRUE(ValidateIr(again).ok());
  // A hint cannot resurrect a retired identity: only live accepted names are candidates.
  auto resurrect = PlanMigration(dropped, without +
                                              "edge Meets: Person -> Person "
                                              "@rename_from(\"Knows\")");
  ASSERT_FALSE(resurrect.ok());
  EXPECT_NE(resurrect.status().message().find("no accepted declaration has that name"),
            std::string::npos);
}

TEST(MigrationPlanTest, DroppingAConstrainedPropertyIsRefused) {
  // Dropping email drops its @unique, and removing constraints is not supported in v1.
  EXPECT_EQ(Refusal(Edit("  email: String? @unique\n", "")),
            "removing constraints from 'Person' is not supported in schema migration v1");
}

TEST(MigrationPlanTest, AllowDataLossMakesDropsHard) {
  std::string without = Edit("edge Knows: Person -> Person", "");
  PlanOptions options;
  options.allow_data_loss = true;
  MigrationPlan plan = Plan(Accept(kBase), without, options);
  EXPECT_EQ(Steps(plan), (std::vector<std::string>{R"({"kind":"drop_type","mode":"hard",)"
                                                   R"("name":"Knows","type_kind":"edge"})"}));
}

TEST(MigrationPlanTest, EnumWideningIsMetadataOnly) {
  MigrationPlan plan = Plan(Accept(kBase), Edit("enum(active, gone)",
                                                "enum(paused, gone, active, "
                                                "banned)"));
  EXPECT_TRUE(plan.supported);
  EXPECT_EQ(Steps(plan),
            (std::vector<std::string>{
                R"({"added_values":["banned","paused"],"kind":"extend_enum",)"
                R"("property_name":"status","type_kind":"node","type_name":"Person"})"}));
}

TEST(MigrationPlanTest, MetadataChangesAreSupported) {
  std::string source = Edit("@description(\"people\")",
                            "@description(\"humans\") "
                            "@instruction(\"be kind\")");
  source.replace(source.find("age: I32?"), 9, "age: I32? @description(\"years\")");
  MigrationPlan plan = Plan(Accept(kBase), source);
  EXPECT_TRUE(plan.supported);
  EXPECT_EQ(Steps(plan),
            (std::vector<std::string>{
                R"({"annotations":[{"name":"description","value":"humans"},{"name":"instruction",)"
                R"("value":"be kind"}],"kind":"update_type_metadata","name":"Person",)"
                R"("type_kind":"node"})",
                R"({"annotations":[{"name":"description","value":"years"}],)"
                R"("kind":"update_property_metadata","property_name":"age","type_kind":"node",)"
                R"("type_name":"Person"})"}));
}

TEST(MigrationPlanTest, AddingARequiredPropertyIsRefusedWithMf103) {
  EXPECT_EQ(Refusal(Edit("age: I32?", "age: I32?\n  nick: String")),
            "[OG-MF-103] adding required property 'Person.nick' requires a backfill and is not "
            "supported in schema migration v1");
}

TEST(MigrationPlanTest, ChangingAPropertyTypeIsRefusedWithMf106) {
  const std::string expected_age =
      "[OG-MF-106] changing property type for 'Person.age' is not supported in schema migration v1";
  EXPECT_EQ(Refusal(Edit("age: I32?", "age: I64?")), expected_age);
  EXPECT_EQ(Refusal(Edit("age: I32?", "age: I32")), expected_age);  // Tightened nullability.
  EXPECT_EQ(Refusal(Edit("age: I32?", "age: F64?")), expected_age);
  const std::string expected_status =
      "[OG-MF-106] changing property type for 'Person.status' is not supported in schema "
      "migration v1";
  EXPECT_EQ(Refusal(Edit("enum(active, gone)", "enum(active)")), expected_status);  // Narrowing.
  EXPECT_EQ(Refusal(Edit("enum(active, gone)", "enum(active, left)")), expected_status);
  EXPECT_EQ(Refusal(Edit("enum(active, gone)", "String")), expected_status);
  EXPECT_EQ(Refusal(Edit("enum(active, gone)", "enum(active, gone)?")), expected_status);
  auto plan = Plan(Accept(kBase), Edit("age: I32?", "age: I64?"));
  ASSERT_EQ(plan.steps.size(), 1u);
  EXPECT_EQ(CanonicalJson(plan.steps[0].ToJson()),
            R"({"code":"OG-MF-106","entity":"node:Person.age","kind":"unsupported_change",)"
            R"("reason":"changing property type for 'Person.age' is not supported in schema )"
            R"(migration v1"})");
  EXPECT_EQ(CanonicalJson(plan.ToJson()).rfind(R"({"steps":)", 0), 0u);
  EXPECT_FALSE(plan.ToJson()["supported"].get<bool>());
}

TEST(MigrationPlanTest, StructuralChangesAreRefused) {
  EXPECT_EQ(Refusal(Edit("edge Knows: Person -> Person", "edge Knows: Person -> Company")),
            "changing edge endpoints on 'Knows' is not supported in schema migration v1");
  EXPECT_EQ(Refusal(Edit("@card(0..1)", "@card(0..2)")),
            "changing cardinality on edge 'WorksAt' is not supported in schema migration v1");
  EXPECT_EQ(Refusal(Edit("@card(0..1)", "")),
            "changing cardinality on edge 'WorksAt' is not supported in schema migration v1");
  EXPECT_EQ(Refusal(Edit(" implements Named", "")),
            "changing implemented interfaces on node 'Person' is not supported in schema "
            "migration v1");
}

TEST(MigrationPlanTest, InterfaceRemovalAndRenameAreRefused) {
  std::string removed = Edit("interface Named { name: String }", "");
  removed.replace(removed.find(" implements Named"), 17, "");
  MigrationPlan removal = Plan(Accept(kBase), removed);
  EXPECT_FALSE(removal.supported);
  EXPECT_EQ(Steps(removal),
            (std::vector<std::string>{
                R"({"entity":"interface:Named","kind":"unsupported_change","reason":"removing )"
                R"(interface 'Named' is not supported in schema migration v1"})",
                R"({"entity":"node:Person","kind":"unsupported_change","reason":"changing )"
                R"(implemented interfaces on node 'Person' is not supported in schema migration )"
                R"(v1"})"}));
  // An interface cannot carry @rename_from, so a rename is a removal plus an addition.
  std::string renamed = Edit("interface Named", "interface Titled");
  renamed.replace(renamed.find("implements Named"), 16, "implements Titled");
  SchemaIr base = Accept(kBase);
  MigrationPlan plan = Plan(base, renamed);
  EXPECT_FALSE(plan.supported);
  std::vector<std::string> steps = Steps(plan);
  EXPECT_NE(std::find(steps.begin(), steps.end(),
                      R"({"kind":"add_type","name":"Titled","type_kind":"interface"})"),
            steps.end());
}

TEST(MigrationPlanTest, AddingConstraintsOtherThanIndexIsRefused) {
  EXPECT_EQ(Refusal(Edit("age: I32?", "age: I32? @unique")),
            "adding constraint '@unique(age)' to 'Person' is not supported in schema migration v1");
  EXPECT_EQ(Refusal(Edit("@range(age, 0..150)", "@range(age, 0..150) @check(email, \"@\")")),
            "adding constraint '@check(email, \"@\")' to 'Person' is not supported in schema "
            "migration v1");
  EXPECT_EQ(Refusal(Edit("node Company { slug: String @key }",
                         "node Company { slug: String  @key(slug) @unique(slug) }")),
            "adding constraint '@unique(slug)' to 'Company' is not supported in schema "
            "migration v1");
  EXPECT_EQ(Refusal(Edit("{ role: String? }", "{ role: String?  @unique(src, dst) }")),
            "adding constraint '@unique(src, dst)' to 'WorksAt' is not supported in schema "
            "migration v1");
}

TEST(MigrationPlanTest, EdgeKeysFollowTheNodeKeyRules) {
  // Adding or removing an edge key would change the ids of stored edges, as for node keys.
  EXPECT_EQ(
      Refusal(Edit("edge Knows: Person -> Person",
                   "edge Knows: Person -> Person { @key(@src, @dst) }")),
      "adding constraint '@key(src, dst)' to 'Knows' is not supported in schema migration v1");
  SchemaIr keyed = Accept(Edit("{ role: String? }", "{ role: String?  @key(@src, @dst) }"));
  MigrationPlan removed = Plan(keyed, kBase);
  EXPECT_FALSE(removed.supported);
  EXPECT_EQ(Steps(removed), (std::vector<std::string>{
                                R"({"entity":"edge:WorksAt","kind":"unsupported_change","reason":)"
                                R"("removing constraints from 'WorksAt' is not supported in )"
                                R"(schema migration v1"})"}));
  // The same key in either spelling or order is no change; a new keyed edge type is a step.
  EXPECT_TRUE(
      Plan(keyed, Edit("{ role: String? }", "{ role: String?  @key(dst, src) }")).steps.empty());
  MigrationPlan added =
      Plan(Accept(kBase), std::string(kBase) + "edge Likes: Person -> Person { @key(@src, @dst) }");
  EXPECT_TRUE(added.supported);
  EXPECT_EQ(Steps(added),
            (std::vector<std::string>{R"({"kind":"add_type","name":"Likes","type_kind":"edge"})"}));
}

TEST(MigrationPlanTest, RemovingOrChangingConstraintsIsRefused) {
  EXPECT_EQ(Refusal(Edit("email: String? @unique", "email: String?")),
            "removing constraints from 'Person' is not supported in schema migration v1");
  SchemaIr base = Accept(kBase);
  MigrationPlan plan = Plan(base, Edit("@range(age, 0..150)", "@range(age, 0..120)"));
  EXPECT_FALSE(plan.supported);
  EXPECT_EQ(Steps(plan), (std::vector<std::string>{
                             R"({"entity":"node:Person","kind":"unsupported_change","reason":)"
                             R"("removing constraints from 'Person' is not supported in schema )"
                             R"(migration v1"})",
                             R"({"entity":"node:Person","kind":"unsupported_change","reason":)"
                             R"("adding constraint '@range(age, 0..120)' to 'Person' is not )"
                             R"(supported in schema migration v1"})"}));
}

TEST(MigrationPlanTest, ChangingEmbedOrUnknownAnnotationsIsRefused) {
  std::string model = Edit("@embed(\"name\")", "@embed(\"name\", model = \"m2\")");
  EXPECT_EQ(Refusal(model),
            "changing @embed source or model for 'Person.v' is not supported in schema migration "
            "v1; rebuild the graph so stored vectors and their declared embedding space cannot "
            "diverge");
  EXPECT_EQ(Refusal(Edit("age: I32?", "age: I32? @pii")),
            "changing annotations beyond @description/@instruction is not supported in schema "
            "migration v1");
}

TEST(MigrationPlanTest, UnclassifiedDifferencesAreRefused) {
  SchemaIr base = Accept(kBase);
  SchemaIr odd = base;
  odd.nodes[1].implements[0].name = "Renamed";  // A name change with no id change.
  MigrationPlan plan = PlanBetween(base, odd);
  EXPECT_FALSE(plan.supported);
  ASSERT_EQ(plan.steps.size(), 1u);
  EXPECT_EQ(plan.steps[0].UnsupportedMessage(),
            "schema migration contains an unclassified semantic IR change");
  EXPECT_EQ(plan.steps[0].entity, "schema");
}

TEST(MigrationPlanTest, BadRenameHintsAreErrors) {
  SchemaIr base = Accept(kBase);
  auto message = [&](const std::string& source) {
    auto r = PlanMigration(base, source);
    EXPECT_FALSE(r.ok());
    if (r.ok()) return std::string();
    EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
    return r.status().message();
  };
  EXPECT_EQ(message(std::string(kBase) + "node Ghost @rename_from(\"Nobody\") {}"),
            "line 14, column 12: node 'Ghost' declares @rename_from(\"Nobody\") but no accepted "
            "declaration has that name");
  EXPECT_EQ(message(std::string(kBase) + "node Other @rename_from(\"Knows\") {}"),
            "line 14, column 12: node 'Other' cannot rename accepted 'Knows' across declaration "
            "kinds");
  EXPECT_EQ(message(std::string(kBase) + "node Clone @rename_from(\"Company\") {}"),
            "line 14, column 12: accepted node 'Company' is consumed by more than one desired "
            "declaration");
  EXPECT_EQ(message(Edit("age: I32?", "age: I32?\n  years: I32? @rename_from(\"ages\")")),
            "line 6, column 15: property 'Person.years' declares @rename_from(\"ages\"): no "
            "accepted property with that name exists under the stable owner");
  EXPECT_EQ(message(Edit("age: I32?", "age: I32?\n  slugged: String? @rename_from(\"slug\")")),
            "line 6, column 20: property 'Person.slugged' declares @rename_from(\"slug\"): "
            "property moves across stable owners are not supported");
  EXPECT_EQ(message(std::string(kBase) + "node Fresh { x: String? @rename_from(\"name\") }"),
            "line 14, column 25: new owner 'node:Fresh' cannot import property identity with "
            "@rename_from(\"name\")");
  EXPECT_EQ(message(Edit("age: I32?", "age: I32?\n  aged: I32? @rename_from(\"name\")")),
            "line 6, column 14: accepted property 'Person.name' is consumed by more than one "
            "desired property");
}

TEST(MigrationPlanTest, InvalidNewSourceIsAnError) {
  auto r = PlanMigration(Accept(kBase), "node {");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "line 1, column 6: expected node type name (starting with an upper-case letter), found "
            "'{'");
}

TEST(MigrationPlanTest, InterfacePropertyAdditionsPropagate) {
  MigrationPlan plan = Plan(
      Accept(kBase),
      Edit("interface Named { name: String }", "interface Named { name: String  alias: String? }"));
  EXPECT_TRUE(plan.supported);
  EXPECT_EQ(Steps(plan),
            (std::vector<std::string>{
                R"({"kind":"add_property","property_name":"alias","property_type":{"enum_values":)"
                R"(null,"list":false,"nullable":true,"scalar":"String"},"type_kind":"interface",)"
                R"("type_name":"Named"})",
                R"({"kind":"add_property","property_name":"alias","property_type":{"enum_values":)"
                R"(null,"list":false,"nullable":true,"scalar":"String"},"type_kind":"node",)"
                R"("type_name":"Person"})"}));
}

TEST(MigrationPlanTest, EveryStepKindHasItsTag) {
  std::vector<std::string> names;
  for (int k = 0; k <= static_cast<int>(StepKind::kUnsupportedChange); ++k) {
    names.emplace_back(StepKindName(static_cast<StepKind>(k)));
  }
  EXPECT_EQ(names, (std::vector<std::string>{"add_type", "rename_type", "add_property",
                                             "rename_property", "add_constraint", "extend_enum",
                                             "update_type_metadata", "update_property_metadata",
                                             "drop_type", "drop_property", "unsupported_change"}));
}

}  // namespace
}  // namespace omnigraph::schema
