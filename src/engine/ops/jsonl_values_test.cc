// Values in the NDJSON format: dates, times, base64, integer strings, 64-bit output.
#include "engine/ops/jsonl_values.h"

#include <gtest/gtest.h>

#include <limits>

namespace omnigraph::engine {
namespace {

using schema::PropType;
using schema::ScalarKind;
using schema::Value;

PropType Type(ScalarKind kind, bool list = false) {
  PropType t;
  t.scalar = kind;
  t.list = list;
  t.nullable = true;
  return t;
}

std::string Written(const Value& v, const PropType& type) {
  std::string out;
  JsonWriter w(&out);
  WriteJson(w, v, type);
  return out;
}

TEST(JsonlValuesTest, DatesOutsideFourDigitYearsAreWrittenWithASignAndReadBack) {
  const PropType date = Type(ScalarKind::kDate);
  const PropType datetime = Type(ScalarKind::kDateTime);
  EXPECT_EQ(Written(Value::Date(-800000), date), "\"-0221-09-04\"");
  EXPECT_EQ(Written(Value::DateTime(253402300800000), datetime), "\"+10000-01-01T00:00:00.000Z\"");
  // Export output loads back to the same value over the whole range of both types.
  for (const Value& v : {Value::Date(std::numeric_limits<int32_t>::min()),
                         Value::Date(std::numeric_limits<int32_t>::max()), Value::Date(-719529)}) {
    const std::string text = Written(v, date);
    Result<Value> back = FromJson(Value::String(text.substr(1, text.size() - 2)), date);
    ASSERT_TRUE(back.ok()) << text << ": " << back.status().ToString();
    EXPECT_EQ(*back, v) << text;
  }
  for (const Value& v :
       {Value::DateTime(std::numeric_limits<int64_t>::min()),
        Value::DateTime(std::numeric_limits<int64_t>::max()), Value::DateTime(-62167219200001)}) {
    const std::string text = Written(v, datetime);
    Result<Value> back = FromJson(Value::String(text.substr(1, text.size() - 2)), datetime);
    ASSERT_TRUE(back.ok()) << text << ": " << back.status().ToString();
    EXPECT_EQ(*back, v) << text;
  }
}

TEST(JsonlValuesTest, Base64RoundTripsEveryLength) {
  std::string bytes;
  for (int n = 0; n < 40; ++n) {
    Result<std::string> back = Base64Decode(Base64Encode(bytes));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, bytes);
    bytes.push_back(static_cast<char>(n * 37));
  }
  EXPECT_EQ(Base64Encode("hi"), "aGk=");
  EXPECT_FALSE(Base64Decode("a$==").ok());
  EXPECT_FALSE(Base64Decode("abcde").ok());
}

TEST(JsonlValuesTest, IntegersBeyondTheJsonSafeRangeAreStrings) {
  const PropType u64 = Type(ScalarKind::kU64), i64 = Type(ScalarKind::kI64);
  EXPECT_EQ(Written(Value::UInt(9007199254740991ull), u64), "9007199254740991");
  EXPECT_EQ(Written(Value::UInt(9007199254740992ull), u64), "\"9007199254740992\"");
  EXPECT_EQ(Written(Value::Int(-9007199254740992ll), i64), "\"-9007199254740992\"");
  EXPECT_EQ(Written(Value::Int(-9007199254740991ll), i64), "-9007199254740991");
  EXPECT_EQ(*FromJson(Value::String("-9007199254740992"), i64), Value::Int(-9007199254740992ll));
  EXPECT_EQ(FromJson(Value::String("12x"), i64).status().message(),
            "invalid integer literal '12x'");
}

TEST(JsonlValuesTest, FloatsAreShortestAtTheirWidth) {
  EXPECT_EQ(Written(Value::Float(static_cast<float>(0.1)), Type(ScalarKind::kF32)), "0.1");
  EXPECT_EQ(Written(Value::Float(0.1), Type(ScalarKind::kF64)), "0.1");
  EXPECT_EQ(Written(Value::Float(1e300), Type(ScalarKind::kF64)), "1e+300");
  // Integral floats keep a fraction so that they read back as floats (and -0 keeps its sign).
  EXPECT_EQ(Written(Value::Float(3), Type(ScalarKind::kF64)), "3.0");
  EXPECT_EQ(Written(Value::Float(-0.0), Type(ScalarKind::kF64)), "-0.0");
}

TEST(JsonlValuesTest, ConversionErrorsNameTheLiteral) {
  EXPECT_EQ(FromJson(Value::String("2020-13-01"), Type(ScalarKind::kDate)).status().message(),
            "invalid Date literal '2020-13-01'");
  EXPECT_EQ(
      FromJson(Value::String("2020-01-01T00:00:00Z"), Type(ScalarKind::kDate)).status().message(),
      "invalid Date literal '2020-01-01T00:00:00Z'");
  EXPECT_EQ(FromJson(Value::String("noon"), Type(ScalarKind::kDateTime)).status().message(),
            "invalid DateTime literal 'noon'");
  EXPECT_EQ(FromJson(Value::Int(1ll << 40), Type(ScalarKind::kDate)).status().message(),
            "Date value out of range: 1099511627776");
  EXPECT_EQ(FromJson(Value::String("s3://b/k"), Type(ScalarKind::kBlob)).status().message(),
            "external blob URI 's3://b/k' is not allowed: new external Blob URI ingress is "
            "denied for this graph");
  EXPECT_EQ(FromJson(Value::List({Value::String("bad")}), Type(ScalarKind::kDate, true))
                .status()
                .message(),
            "invalid Date literal 'bad'");
}

}  // namespace
}  // namespace omnigraph::engine
