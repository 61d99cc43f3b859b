#include "schema/value.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_set>

namespace omnigraph::schema {
namespace {

TEST(SchemaValueTest, TagsAndAccessors) {
  EXPECT_TRUE(Value().is_null());
  EXPECT_EQ(Value::Bool(true).tag(), Value::Tag::kBool);
  EXPECT_EQ(Value::Int(-3).int_value(), -3);
  EXPECT_EQ(Value::UInt(3).uint_value(), 3u);
  EXPECT_EQ(Value::Float(2.5).float_value(), 2.5);
  EXPECT_EQ(Value::String("x").string_value(), "x");
  EXPECT_EQ(Value::Date(10).date_days(), 10);
  EXPECT_EQ(Value::DateTime(-5).datetime_ms(), -5);
  EXPECT_EQ(Value::List({Value::Int(1)}).list_items().size(), 1u);
  EXPECT_TRUE(Value::UInt(1).is_numeric());
  EXPECT_FALSE(Value::Date(1).is_numeric());
  EXPECT_EQ(ValueTagName(Value::Tag::kDateTime), "datetime");
}

TEST(SchemaValueTest, NumbersCompareByValueAcrossTags) {
  EXPECT_EQ(Value::Int(1), Value::Float(1.0));
  EXPECT_EQ(Value::Int(1), Value::UInt(1));
  EXPECT_EQ(Value::Float(-0.0), Value::Int(0));
  EXPECT_LT(Value::Int(-1), Value::UInt(0));
  EXPECT_LT(Value::Int(std::numeric_limits<int64_t>::max()),
            Value::UInt(static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + 1));
  EXPECT_LT(Value::Float(1.5), Value::Int(2));
  EXPECT_GT(Value::Float(-1.5), Value::Int(-2));
  EXPECT_LT(Value::Float(-1.5), Value::Int(-1));
  // 2^53 + 1 is not a double; the exact comparison still orders it above 2^53.
  EXPECT_LT(Value::Float(9007199254740992.0), Value::Int(9007199254740993));
  EXPECT_GT(Value::Float(1e300), Value::UInt(std::numeric_limits<uint64_t>::max()));
  EXPECT_LT(Value::Float(-std::numeric_limits<double>::infinity()),
            Value::Int(std::numeric_limits<int64_t>::min()));
}

TEST(SchemaValueTest, NanSortsAfterNumbersAndEqualsItself) {
  Value nan = Value::Float(std::nan(""));
  EXPECT_EQ(nan, Value::Float(std::nan("")));
  EXPECT_GT(nan, Value::Float(std::numeric_limits<double>::infinity()));
  EXPECT_GT(nan, Value::UInt(std::numeric_limits<uint64_t>::max()));
  EXPECT_LT(nan, Value::String(""));
}

TEST(SchemaValueTest, TotalOrderAcrossTags) {
  std::vector<Value> values{Value::List({}),    Value::DateTime(0), Value::Date(0),
                            Value::String("a"), Value::Int(5),      Value::Bool(false),
                            Value::Null(),      Value::Float(-1),   Value::String("")};
  std::sort(values.begin(), values.end());
  std::vector<std::string> shown;
  for (const Value& v : values) shown.push_back(v.DebugString());
  EXPECT_EQ(shown, (std::vector<std::string>{"null", "false", "-1", "5", "\"\"", "\"a\"", "date:0",
                                             "datetime:0", "[]"}));
}

TEST(SchemaValueTest, ListsCompareLexicographically) {
  EXPECT_LT(Value::List({Value::Int(1)}), Value::List({Value::Int(1), Value::Int(0)}));
  EXPECT_LT(Value::List({Value::Int(1), Value::Int(2)}), Value::List({Value::Int(2)}));
  EXPECT_EQ(Value::List({Value::Int(1)}), Value::List({Value::Float(1.0)}));
  EXPECT_EQ(Value::List({Value::String("a"), Value::Null()}).DebugString(), "[\"a\", null]");
}

TEST(SchemaValueTest, HashAgreesWithEquality) {
  std::vector<std::pair<Value, Value>> equal{
      {Value::Int(7), Value::UInt(7)},
      {Value::Int(7), Value::Float(7.0)},
      {Value::Float(0.0), Value::Float(-0.0)},
      {Value::Int(-3), Value::Float(-3.0)},
      {Value::Float(std::nan("")), Value::Float(std::nan("1"))},
      {Value::List({Value::Int(1)}), Value::List({Value::UInt(1)})},
  };
  for (const auto& [a, b] : equal) {
    EXPECT_EQ(a, b) << a.DebugString() << " vs " << b.DebugString();
    EXPECT_EQ(a.Hash(), b.Hash()) << a.DebugString();
  }
  std::unordered_set<Value, ValueHash> set{Value::Int(1), Value::Float(1.0), Value::String("1"),
                                           Value::Date(1), Value::Null()};
  EXPECT_EQ(set.size(), 4u);
}

}  // namespace
}  // namespace omnigraph::schema
