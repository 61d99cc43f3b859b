#include "base/json_scan.h"

#include <gtest/gtest.h>

#include "base/json.h"

namespace omnigraph {
namespace {

// Reads {"k": value} with `read` and says whether the scan finished there.
template <typename Fn>
bool ScanOne(std::string_view text, Fn&& read) {
  JsonScan scan(text);
  bool first = true;
  std::string_view name;
  if (!scan.BeginObject() || !scan.NextMember(first, name) || name != "k") return false;
  if (!read(scan)) return false;
  return !scan.NextMember(first, name) && scan.End();
}

TEST(JsonScanTest, ReadsTheValuesParseJsonReads) {
  const std::string text =
      " {\"a\" : [1, 18446744073709551615, 0] ,\"b\":{\"c\":\"p17 é 中\",\"d\":null},"
      "\"e\":-42,\"f\":true,\"g\":false,\"h\":[],\"i\":{}}\n";
  Result<Json> dom = ParseJson(text, "t");
  ASSERT_TRUE(dom.ok());
  JsonScan scan(text);
  ASSERT_TRUE(scan.BeginObject());
  bool first = true;
  std::string_view name;
  ASSERT_TRUE(scan.NextMember(first, name) && name == "a");
  ASSERT_TRUE(scan.BeginArray());
  bool first_element = true;
  for (const Json& expected : (*dom)["a"]) {
    uint64_t v = 0;
    ASSERT_TRUE(scan.NextElement(first_element) && scan.U64(v));
    EXPECT_EQ(v, expected.get<uint64_t>());
  }
  EXPECT_FALSE(scan.NextElement(first_element));
  ASSERT_TRUE(scan.NextMember(first, name) && name == "b" && scan.BeginObject());
  bool first_inner = true;
  std::string_view s;
  ASSERT_TRUE(scan.NextMember(first_inner, name) && name == "c" && scan.String(s));
  EXPECT_EQ(s, (*dom)["b"]["c"].get<std::string>());
  ASSERT_TRUE(scan.NextMember(first_inner, name) && name == "d" && scan.Null());
  EXPECT_FALSE(scan.NextMember(first_inner, name));
  int64_t i = 0;
  ASSERT_TRUE(scan.NextMember(first, name) && name == "e" && scan.I64(i));
  EXPECT_EQ(i, (*dom)["e"].get<int64_t>());
  bool t = false, f = true;
  ASSERT_TRUE(scan.NextMember(first, name) && name == "f" && scan.Bool(t));
  ASSERT_TRUE(scan.NextMember(first, name) && name == "g" && scan.Bool(f));
  EXPECT_TRUE(t);
  EXPECT_FALSE(f);
  ASSERT_TRUE(scan.NextMember(first, name) && name == "h" && scan.BeginArray());
  bool empty = true;
  EXPECT_FALSE(scan.NextElement(empty));
  ASSERT_TRUE(scan.NextMember(first, name) && name == "i" && scan.BeginObject());
  empty = true;
  EXPECT_FALSE(scan.NextMember(empty, name));
  EXPECT_FALSE(scan.NextMember(first, name));
  EXPECT_TRUE(scan.ok());
  EXPECT_TRUE(scan.End());
}

// Every form outside the subset stops the scan, whether or not ParseJson accepts it: the
// caller's ParseJson path then decides.
TEST(JsonScanTest, StopsOutsideItsSubset) {
  auto u64 = [](JsonScan& scan) {
    uint64_t v = 0;
    return scan.U64(v);
  };
  auto i64 = [](JsonScan& scan) {
    int64_t v = 0;
    return scan.I64(v);
  };
  auto str = [](JsonScan& scan) {
    std::string_view v;
    return scan.String(v);
  };
  EXPECT_TRUE(ScanOne(R"({"k":7})", u64));
  EXPECT_TRUE(ScanOne(R"({"k":-7})", i64));
  EXPECT_TRUE(ScanOne(R"({"k":"ab"})", str));
  for (const char* text :
       {R"({"k":1.5})", R"({"k":1e3})", R"({"k":01})", R"({"k":18446744073709551616})",
        R"({"k":-1})", R"({"k":"1"})", R"({"k":1,})", R"({"k":1}x)", R"({"k":1 2})"}) {
    EXPECT_FALSE(ScanOne(text, u64)) << text;
  }
  for (const char* text : {R"({"k":-0})", R"({"k":-9223372036854775808})",
                           R"({"k":9223372036854775808})", R"({"k":-})"}) {
    EXPECT_FALSE(ScanOne(text, i64)) << text;
  }
  for (const std::string& text :
       {std::string(R"({"k":"a\"b"})"), std::string(R"({"k":"a\u0041"})"),
        std::string("{\"k\":\"a\tb\"}"), std::string("{\"k\":\"\xC3\x28\"}"),
        std::string("{\"k\":\"\xED\xA0\x80\"}"), std::string("{\"k\":\"ab}"),
        std::string("{\"k\":\"a\0b\"}", 11)}) {
    EXPECT_FALSE(ScanOne(text, str)) << text;
  }
  // A stopped scan stays stopped.
  JsonScan scan("[x]");
  ASSERT_TRUE(scan.BeginArray());
  bool first = true;
  ASSERT_TRUE(scan.NextElement(first));
  EXPECT_FALSE(scan.Null());
  EXPECT_TRUE(scan.ok());
  bool b = false;
  EXPECT_FALSE(scan.Bool(b));
  EXPECT_FALSE(scan.ok());
  EXPECT_FALSE(scan.NextElement(first));
  EXPECT_FALSE(scan.End());
}

}  // namespace
}  // namespace omnigraph
