#include "query/exec/column_codec.h"

#include <gtest/gtest.h>

#include "schema/catalog.h"
#include "schema/identity.h"
#include "table/table_manifest.h"

namespace omnigraph::query {
namespace {

using schema::Value;

constexpr std::string_view kSchema = R"(
node Thing {
  name: String @key
  flag: Bool?
  small: I32?
  big: I64?
  count: U32?
  huge: U64?
  ratio: F32?
  exact: F64?
  born: Date?
  seen: DateTime?
  tags: [String]?
  scores: [I32]?
  kind: enum(a, b)?
  data: Blob?
  emb: Vector(3)?
}
edge Likes: Thing -> Thing { weight: F64 }
)";

class RowsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<schema::SchemaIr> ir = schema::AcceptInitial(kSchema);
    ASSERT_TRUE(ir.ok()) << ir.status().ToString();
    Result<schema::Catalog> catalog = schema::Catalog::Build(*ir);
    ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
    catalog_ = std::make_unique<schema::Catalog>(std::move(*catalog));
    thing_ = catalog_->FindNode("Thing");
    likes_ = catalog_->FindEdge("Likes");
  }
  // The values of a Thing row by property name (others null).
  std::vector<std::optional<Value>> Props(const std::map<std::string, Value>& by_name) {
    std::vector<std::optional<Value>> out(thing_->properties.size());
    for (size_t i = 0; i < out.size(); ++i) {
      auto it = by_name.find(thing_->properties[i].name);
      if (it != by_name.end()) out[i] = it->second;
    }
    return out;
  }
  std::unique_ptr<schema::Catalog> catalog_;
  const schema::TypeDef* thing_ = nullptr;
  const schema::TypeDef* likes_ = nullptr;
};

TEST_F(RowsTest, EveryPropertyTypeRoundTripsThroughColumns) {
  Result<RowsBuilder> b = RowsBuilder::Make(*thing_);
  ASSERT_TRUE(b.ok());
  std::map<std::string, Value> full = {
      {"name", Value::String("x")},
      {"flag", Value::Bool(true)},
      {"small", Value::Int(-5)},
      {"big", Value::UInt(1ull << 40)},
      {"count", Value::Int(7)},
      {"huge", Value::UInt(~0ull)},
      {"ratio", Value::Float(0.5)},
      {"exact", Value::Int(3)},
      {"born", Value::Date(19000)},
      {"seen", Value::DateTime(1700000000123)},
      {"tags", Value::List({Value::String("p"), Value::String("q")})},
      {"scores", Value::List({Value::Int(1), Value::Int(2)})},
      {"kind", Value::String("a")},
      {"data", Value::String(std::string("\0\1", 2))},
      {"emb", Value::List({Value::Float(1), Value::Int(2), Value::Float(3)})},
  };
  ASSERT_TRUE(b->Append("x", "", "", Props(full)).ok());
  ASSERT_TRUE(b->Append("y", "", "", Props({{"name", Value::String("y")}})).ok());
  Result<table::ColumnBatch> batch = b->Finish();
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  ASSERT_EQ(batch->num_rows(), 2u);
  EXPECT_EQ(ValueAt(batch->column(0), 0), Value::String("x"));
  for (size_t i = 0; i < thing_->properties.size(); ++i) {
    const schema::PropertyDef& p = thing_->properties[i];
    const table::Column* c = batch->FindColumn(static_cast<uint32_t>(p.id));
    ASSERT_NE(c, nullptr) << p.name;
    Value expected = full.at(p.name);
    if (p.name == "big") expected = Value::Int(1ll << 40);
    if (p.name == "count") expected = Value::UInt(7);
    if (p.name == "exact") expected = Value::Float(3);
    if (p.name == "emb")
      expected = Value::List({Value::Float(1), Value::Float(2), Value::Float(3)});
    EXPECT_EQ(ValueAt(*c, 0), expected) << p.name << ": " << ValueAt(*c, 0).DebugString();
    EXPECT_EQ(ValueAt(*c, 0).tag(), expected.tag()) << p.name;
    if (p.name != "name") {
      EXPECT_TRUE(ValueAt(*c, 1).is_null()) << p.name;
    }
  }
}

TEST_F(RowsTest, EdgesCarrySrcAndDst) {
  Result<RowsBuilder> b = RowsBuilder::Make(*likes_);
  ASSERT_TRUE(b.ok());
  std::vector<std::optional<Value>> v = {Value::Float(0.25)};
  ASSERT_TRUE(b->Append("e1", "x", "y", v).ok());
  Result<table::ColumnBatch> batch = b->Finish();
  ASSERT_TRUE(batch.ok());
  EXPECT_EQ(ValueAt(*batch->FindColumn(table::kSrcFieldId), 0), Value::String("x"));
  EXPECT_EQ(ValueAt(*batch->FindColumn(table::kDstFieldId), 0), Value::String("y"));
}

TEST_F(RowsTest, ValuesThatDoNotFitAreRejectedNamingTheProperty) {
  Result<RowsBuilder> b = RowsBuilder::Make(*thing_);
  ASSERT_TRUE(b.ok());
  struct Case {
    std::string property;
    Value value;
    std::string message;
  };
  std::vector<Case> cases = {
      {"small", Value::String("1"), "property 'small' of node:Thing: expected I32?, got string"},
      {"small", Value::Int(1ll << 31),
       "property 'small' of node:Thing: value 2147483648 is out "
       "of range for I32"},
      {"count", Value::Int(-1), "out of range for U32"},
      {"huge", Value::Int(-1), "out of range for U64"},
      {"big", Value::UInt(~0ull), "out of range for I64"},
      {"ratio", Value::Float(1e300), "exceeds F32 range"},
      {"flag", Value::Int(1), "expected Bool?, got int"},
      {"born", Value::String("2020-01-01"), "expected Date?, got string"},
      {"tags", Value::String("p"), "expected [String]?, got string"},
      {"scores", Value::List({Value::Int(1), Value::Null()}), "cannot be null"},
      {"emb", Value::List({Value::Float(1)}), "expected 3 numbers for Vector(3)?, got 1"},
      {"exact", Value::String("1"), "expected F64?, got string"},
  };
  for (const Case& c : cases) {
    Status s = b->Append("x", "", "", Props({{"name", Value::String("x")}, {c.property, c.value}}));
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << c.property;
    EXPECT_NE(s.message().find(c.message), std::string::npos) << s.message();
  }
  Status null_key = b->Append("x", "", "", Props({}));
  EXPECT_NE(null_key.message().find("property 'name' of node:Thing: null is not allowed"),
            std::string::npos)
      << null_key.message();
  EXPECT_EQ(b->num_rows(), 0u);  // Nothing half-appended.
  Result<table::ColumnBatch> batch = b->Finish();
  ASSERT_TRUE(batch.ok());
  EXPECT_EQ(batch->num_rows(), 0u);
}

}  // namespace
}  // namespace omnigraph::query
