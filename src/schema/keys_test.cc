#include "schema/keys.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "schema/identity.h"
#include "schema/planner.h"

namespace omnigraph::schema {
namespace {

PropType Type(ScalarKind kind) {
  PropType t;
  t.scalar = kind;
  return t;
}

std::string Text(const Value& v, ScalarKind kind) {
  auto r = CanonicalKeyText(v, Type(kind));
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : "<error>";
}

TEST(KeyDerivationTest, ScalarsRenderCanonically) {
  EXPECT_EQ(Text(Value::String("acme"), ScalarKind::kString), "acme");
  EXPECT_EQ(Text(Value::Bool(true), ScalarKind::kBool), "true");
  EXPECT_EQ(Text(Value::Bool(false), ScalarKind::kBool), "false");
  EXPECT_EQ(Text(Value::Int(-42), ScalarKind::kI32), "-42");
  EXPECT_EQ(Text(Value::Int(std::numeric_limits<int64_t>::min()), ScalarKind::kI64),
            "-9223372036854775808");
  EXPECT_EQ(Text(Value::UInt(18446744073709551615ULL), ScalarKind::kU64), "18446744073709551615");
  EXPECT_EQ(Text(Value::Int(7), ScalarKind::kU32), "7");
  EXPECT_EQ(Text(Value::UInt(7), ScalarKind::kI64), "7");
  EXPECT_EQ(Text(Value::Date(19000), ScalarKind::kDate), "19000");
  EXPECT_EQ(Text(Value::Date(-1), ScalarKind::kDate), "-1");
  EXPECT_EQ(Text(Value::DateTime(1700000000123), ScalarKind::kDateTime), "1700000000123");
}

TEST(KeyDerivationTest, FloatsUseShortestTextAtStoredWidth) {
  EXPECT_EQ(Text(Value::Float(1.5), ScalarKind::kF64), "1.5");
  EXPECT_EQ(Text(Value::Float(100.0), ScalarKind::kF64), "100");
  EXPECT_EQ(Text(Value::Float(0.1), ScalarKind::kF64), "0.1");
  EXPECT_EQ(Text(Value::Float(1e20), ScalarKind::kF64), "100000000000000000000");
  EXPECT_EQ(Text(Value::Float(1.5e-7), ScalarKind::kF64), "0.00000015");
  EXPECT_EQ(Text(Value::Float(-0.0), ScalarKind::kF64), "0");
  EXPECT_EQ(Text(Value::Float(-0.0), ScalarKind::kF32), "0");
  // 0.1 stored as F32 is 0.100000001490116..., whose shortest float text is "0.1".
  EXPECT_EQ(Text(Value::Float(0.1), ScalarKind::kF32), "0.1");
  // A double that is not a float rounds to the float first.
  EXPECT_EQ(Text(Value::Float(0.30000000000000004), ScalarKind::kF32), "0.3");
  EXPECT_EQ(Text(Value::Float(16777217.0), ScalarKind::kF32), "16777216");
  EXPECT_EQ(Text(Value::Int(3), ScalarKind::kF64), "3");
}

TEST(KeyDerivationTest, InvalidKeyValuesAreRefused) {
  auto bad = [](const Value& v, const PropType& t) {
    auto r = CanonicalKeyText(v, t);
    EXPECT_FALSE(r.ok()) << v.DebugString() << " as " << t.DisplayName();
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
    }
  };
  bad(Value::Float(std::nan("")), Type(ScalarKind::kF64));
  bad(Value::Float(std::numeric_limits<double>::infinity()), Type(ScalarKind::kF64));
  bad(Value::Float(-std::numeric_limits<double>::infinity()), Type(ScalarKind::kF32));
  bad(Value::Float(1e300), Type(ScalarKind::kF32));  // Overflows the stored width.
  bad(Value::Null(), Type(ScalarKind::kString));
  bad(Value::Int(1), Type(ScalarKind::kString));
  bad(Value::String("1"), Type(ScalarKind::kI64));
  bad(Value::Int(1LL << 31), Type(ScalarKind::kI32));
  bad(Value::Int(-1), Type(ScalarKind::kU64));
  bad(Value::UInt(1ULL << 32), Type(ScalarKind::kU32));
  bad(Value::UInt(1ULL << 63), Type(ScalarKind::kI64));
  bad(Value::Int(5), Type(ScalarKind::kDate));
  bad(Value::String("x"), Type(ScalarKind::kBlob));
  PropType list = Type(ScalarKind::kString);
  list.list = true;
  bad(Value::List({Value::String("a")}), list);
}

TEST(KeyDerivationTest, TuplesRenderAsJsonArraysOfStrings) {
  std::vector<std::string> one{"acme"};
  EXPECT_EQ(RenderKeyTuple(one), "acme");
  std::vector<std::string> two{"acme", "42"};
  EXPECT_EQ(RenderKeyTuple(two), R"(["acme","42"])");
  std::vector<std::string> tricky{"a\"b", "c\\d", "line\nbreak", "\xc3\xa9"};
  EXPECT_EQ(RenderKeyTuple(tricky), "[\"a\\\"b\",\"c\\\\d\",\"line\\nbreak\",\"\xc3\xa9\"]");
}

TEST(KeyDerivationTest, SingleKeyIdIsTheScalarText) {
  auto ir = AcceptInitial("node Person { name: String @key  age: I32? }");
  ASSERT_TRUE(ir.ok());
  std::vector<Value> key{Value::String("Ada")};
  auto id = DeriveNodeId(ir->nodes[0], key);
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(*id, "Ada");
}

TEST(KeyDerivationTest, CompositeKeyUsesStablePropertyIdOrder) {
  // `@key(region, code)` lists region first, but code has the smaller property id.
  auto ir = AcceptInitial("node Site { code: I64  region: String  @key(region, code) }");
  ASSERT_TRUE(ir.ok());
  const TypeDef& site = ir->nodes[0];
  ASSERT_EQ(site.KeyProperties().size(), 2u);
  EXPECT_EQ(site.KeyProperties()[0]->name, "code");
  std::vector<Value> key{Value::Int(42), Value::String("acme")};
  EXPECT_EQ(*DeriveNodeId(site, key), R"(["42","acme"])");
  std::map<std::string, Value> row{{"region", Value::String("acme")}, {"code", Value::Int(42)}};
  auto by_name = DeriveNodeId(site, [&](const PropertyDef& p) -> const Value* {
    auto it = row.find(p.name);
    return it == row.end() ? nullptr : &it->second;
  });
  ASSERT_TRUE(by_name.ok());
  EXPECT_EQ(*by_name, R"(["42","acme"])");
}

TEST(KeyDerivationTest, DerivationErrorsNameTheProperty) {
  auto ir = AcceptInitial(
      "node Site { code: I32  region: String  @key(region, code) }\n"
      "node Free { n: String }");
  ASSERT_TRUE(ir.ok());
  const TypeDef& site = ir->nodes[1];
  std::vector<Value> key{Value::Int(1LL << 40), Value::String("acme")};
  auto r = DeriveNodeId(site, key);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "key property Site.code: value 1099511627776 is out of range for I32");
  std::vector<Value> short_key{Value::Int(1)};
  EXPECT_EQ(DeriveNodeId(site, short_key).status().message(),
            "node:Site has 2 key properties, got 1 values");
  auto missing = DeriveNodeId(site, [](const PropertyDef&) -> const Value* { return nullptr; });
  EXPECT_EQ(missing.status().message(), "key property Site.code is missing");
  std::vector<Value> none;
  EXPECT_EQ(DeriveNodeId(ir->nodes[0], none).status().message(),
            "node:Free has no @key; its ids are not derived");
}

TEST(KeyDerivationTest, EdgeIdsAreTheEndpointsThenKeyPropertiesAsAJsonArray) {
  auto ir = AcceptInitial(
      "node P { n: String @key }\n"
      "edge Knows: P -> P { since: I32  @key(@src, @dst) }\n"
      "edge Met: P -> P { at: Date  where: String  @key(where, @dst, at, @src) }\n"
      "edge Free: P -> P");
  ASSERT_TRUE(ir.ok()) << ir.status().ToString();
  const TypeDef& free = ir->edges[0];
  const TypeDef& knows = ir->edges[1];
  const TypeDef& met = ir->edges[2];
  ASSERT_EQ(knows.name, "Knows");
  EXPECT_TRUE(IsKeyedEdge(knows));
  EXPECT_FALSE(IsKeyedEdge(free));
  EXPECT_FALSE(IsKeyedEdge(ir->nodes[0]));
  std::vector<Value> none;
  EXPECT_EQ(*DeriveEdgeId(knows, "alice", "bob", none), R"(["alice","bob"])");
  EXPECT_EQ(*DeriveEdgeId(knows, "bob", "alice", none), R"(["bob","alice"])");
  // The same canonical texts as node keys, in stable property id order (at, then where).
  std::vector<Value> met_key{Value::Date(19000), Value::String("x\"y")};
  EXPECT_EQ(*DeriveEdgeId(met, "a", "b", met_key), R"(["a","b","19000","x\"y"])");
  auto by_name = DeriveEdgeId(met, "a", "b", [&](const PropertyDef& p) -> const Value* {
    return p.name == "at" ? &met_key[0] : &met_key[1];
  });
  EXPECT_EQ(*by_name, R"(["a","b","19000","x\"y"])");
  // Errors: an unkeyed edge, a node, a wrong count, a null key value.
  EXPECT_EQ(DeriveEdgeId(free, "a", "b", none).status().message(),
            "edge:Free has no @key; its ids are not derived");
  EXPECT_EQ(DeriveEdgeId(ir->nodes[0], "a", "b", none).status().message(),
            "node:P is not an edge type");
  EXPECT_EQ(DeriveNodeId(knows, none).status().message(),
            "edge:Knows is an edge type; its key names its endpoints");
  EXPECT_EQ(DeriveEdgeId(met, "a", "b", none).status().message(),
            "edge:Met has 2 key properties, got 0 values");
  std::vector<Value> null_key{Value::Null(), Value::String("x")};
  EXPECT_EQ(DeriveEdgeId(met, "a", "b", null_key).status().message(),
            "key property Met.at: a key value cannot be null");
}

TEST(KeyDerivationTest, RenamingAKeyPropertyDoesNotChangeIds) {
  auto v1 = AcceptInitial("node Site { code: I64  region: String  @key(region, code) }");
  ASSERT_TRUE(v1.ok());
  // Renames that cross the names' lexical order keep ids, so the tuple order stays the same.
  auto plan = PlanMigration(*v1,
                            "node Site { zcode: I64 @rename_from(\"code\")"
                            "  aregion: String @rename_from(\"region\")  @key(aregion, zcode) }");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_TRUE(plan->supported);
  std::vector<Value> key{Value::Int(42), Value::String("acme")};
  const TypeDef& renamed = plan->desired.nodes[0];
  EXPECT_EQ(renamed.KeyProperties()[0]->name, "zcode");
  EXPECT_EQ(*DeriveNodeId(v1->nodes[0], key), *DeriveNodeId(renamed, key));
}

}  // namespace
}  // namespace omnigraph::schema
