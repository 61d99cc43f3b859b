#include "base/json.h"

#include <gtest/gtest.h>

namespace omnigraph {
namespace {

TEST(CanonicalJsonTest, SortsKeysAndDropsWhitespace) {
  Result<OrderedJson> doc =
      ParseOrderedJson(R"({ "b": 1, "a": {"z": [1, 2], "y": null}, "é": "ü" })", "test");
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ(CanonicalJson(*doc), R"({"a":{"y":null,"z":[1,2]},"b":1,"é":"ü"})");
  // The ordered document itself keeps its member order.
  EXPECT_EQ(doc->dump(), R"({"b":1,"a":{"z":[1,2],"y":null},"é":"ü"})");
}

TEST(CanonicalJsonTest, SameValueSameBytes) {
  Json a = Json::object({{"x", 1}, {"y", "two"}});
  Json b = Json::object({{"y", "two"}, {"x", 1}});
  EXPECT_EQ(CanonicalJson(a), CanonicalJson(b));
}

TEST(CanonicalJsonTest, KeepsUnsigned64BitIntegers) {
  Result<Json> doc = ParseJson(R"({"v":9223372036854775901})", "test");
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ((*doc)["v"].get<uint64_t>(), 9223372036854775901ULL);
  EXPECT_EQ(CanonicalJson(*doc), R"({"v":9223372036854775901})");
}

TEST(ParseJsonTest, RejectsDuplicateMembers) {
  Result<Json> r = ParseJson(R"({"a":1,"b":{"c":1,"c":2}})", "record 7");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "duplicate member 'c' in record 7");
  // The same name in sibling objects is fine.
  EXPECT_TRUE(ParseJson(R"({"a":{"c":1},"b":{"c":2}})", "x").ok());
}

TEST(ParseJsonTest, SyntaxErrorNamesTheInputAndOffset) {
  Result<Json> r = ParseJson(R"({"a":1,})", "hint", /*as_corruption=*/true);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kCorruption);
  EXPECT_NE(r.status().message().find("invalid JSON in hint at byte 8"), std::string::npos)
      << r.status().message();
  // Damage of a stored object names it as the failure's object (fuzz/regressions/stream_metadata).
  EXPECT_EQ(r.status().object(), "hint");
  // Input that is not a stored object names none: `what` only describes it.
  EXPECT_EQ(ParseJson("{", "--params").status().object(), "");
}

// A number beyond a double's range is not a syntax error: nlohmann throws out_of_range for it,
// which the parse answers as the same typed error (fuzz/regressions/manifest, derived).
TEST(ParseJsonTest, ANumberOutOfRangeIsATypedError) {
  for (const char* text : {R"({"version": 1e999})", "[-1e996]", "11e996"}) {
    Result<Json> r = ParseJson(text, "_versions/1.manifest.json", /*as_corruption=*/true);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.status().code(), Code::kCorruption);
    EXPECT_EQ(r.status().object(), "_versions/1.manifest.json");
    EXPECT_NE(r.status().message().find("invalid JSON in _versions/1.manifest.json"),
              std::string::npos)
        << r.status().message();
    EXPECT_EQ(ParseOrderedJson(text, "--params").status().code(), Code::kInvalidArgument);
  }
  // In range, and a large integer, still parse.
  EXPECT_TRUE(ParseJson("[1e300, 18446744073709551615]", "x").ok());
}

}  // namespace
}  // namespace omnigraph
