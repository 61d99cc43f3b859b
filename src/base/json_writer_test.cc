#include "base/json_writer.h"

#include <gtest/gtest.h>

namespace omnigraph {
namespace {

TEST(JsonWriterTest, StringsAreEscapedExactlyAsCanonicalJson) {
  const std::vector<std::string> cases = {"",
                                          "plain",
                                          "quote\" backslash\\",
                                          "\b\f\n\r\t",
                                          std::string("\x01\x1f\x7f", 3),
                                          std::string("nul\0inside", 10),
                                          "é ü 日本 🎉",
                                          "/slash/"};
  for (const std::string& s : cases) {
    std::string out;
    JsonWriter w(&out);
    w.String(s);
    ASSERT_TRUE(w.ok());
    EXPECT_EQ(out, CanonicalJson(Json(s))) << testing::PrintToString(s);
  }
}

TEST(JsonWriterTest, ObjectsArraysAndNumbers) {
  std::string out;
  JsonWriter w(&out);
  w.BeginObject();
  w.Key("a");
  w.BeginArray();
  w.Uint(18446744073709551615ULL);
  w.Int(-5);
  w.Null();
  w.Bool(true);
  w.BeginObject();
  w.EndObject();
  w.EndArray();
  w.Key("b");
  w.Value(Json::object({{"y", 1}, {"x", 2}}));
  w.EndObject();
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(out, R"({"a":[18446744073709551615,-5,null,true,{}],"b":{"x":2,"y":1}})");
  EXPECT_EQ(out, CanonicalJson(Json::parse(out)));
}

TEST(JsonWriterTest, InvalidUtf8MarksTheWriterFailed) {
  for (std::string bad : {std::string("\xff"), std::string("\xc3"), std::string("\xed\xa0\x80"),
                          std::string("\xc0\xaf")}) {
    std::string out;
    JsonWriter w(&out);
    w.String(bad);
    EXPECT_FALSE(w.ok()) << testing::PrintToString(bad);
  }
  // CanonicalJson replaces instead of throwing.
  EXPECT_EQ(CanonicalJson(Json(std::string("a\xff"))), "\"a\xef\xbf\xbd\"");
}

}  // namespace
}  // namespace omnigraph
