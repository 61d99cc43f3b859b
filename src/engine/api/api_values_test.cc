// The conversions between the engine's values and the public API's (engine/api/api_values.h): every
// code and kind has a public twin with the same name and default kind, statuses survive the
// round trip, and JSON dumps to the same bytes on both sides (what the CLI prints).
#include "engine/api/api_values.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace omnigraph::engine {
namespace {

TEST(ApiValuesTest, EveryCodeAndKindHasAPublicTwinWithItsName) {
  size_t codes = 0;
  for (uint16_t i = 0; CodeName(static_cast<Code>(i)) != "invalid_code"; ++i, ++codes) {
    const Code code = static_cast<Code>(i);
    const api::Code twin = ToApi(code);
    EXPECT_EQ(static_cast<uint16_t>(twin), i);
    EXPECT_EQ(api::CodeName(twin), CodeName(code));
    EXPECT_EQ(FromApi(twin), code);
    EXPECT_EQ(ToApi(KindOf(code)), api::KindOf(twin)) << CodeName(code);
  }
  EXPECT_EQ(codes, static_cast<size_t>(Code::kChangeFeedGap) + 1);
  EXPECT_EQ(api::CodeName(static_cast<api::Code>(codes)), "invalid_code");
  size_t kinds = 0;
  for (uint8_t i = 0; KindName(static_cast<Kind>(i)) != "invalid_kind"; ++i, ++kinds) {
    const Kind kind = static_cast<Kind>(i);
    EXPECT_EQ(static_cast<uint8_t>(ToApi(kind)), i);
    EXPECT_EQ(api::KindName(ToApi(kind)), KindName(kind));
    EXPECT_EQ(FromApi(ToApi(kind)), kind);
  }
  EXPECT_EQ(kinds, static_cast<size_t>(Kind::kInternal) + 1);
}

TEST(ApiValuesTest, EveryListedCodeAndKindIsTheSameOnBothSides) {
  // Walks omnigraph/status_codes.h itself, so an entry the iteration above would stop short of
  // (a gap in the numbers) is still compared.
  size_t codes = 0;
#define OMNIGRAPH_CHECK_CODE_(c, name, kind)                                      \
  EXPECT_EQ(static_cast<uint16_t>(Code::c), static_cast<uint16_t>(api::Code::c)); \
  EXPECT_EQ(ToApi(Code::c), api::Code::c);                                        \
  EXPECT_EQ(FromApi(api::Code::c), Code::c);                                      \
  EXPECT_EQ(CodeName(Code::c), name);                                             \
  EXPECT_EQ(api::CodeName(api::Code::c), name);                                   \
  EXPECT_EQ(KindOf(Code::c), Kind::kind);                                         \
  EXPECT_EQ(api::KindOf(api::Code::c), api::Kind::kind);                          \
  ++codes;
  OMNIGRAPH_STATUS_CODES(OMNIGRAPH_CHECK_CODE_)
#undef OMNIGRAPH_CHECK_CODE_
  EXPECT_EQ(codes, static_cast<size_t>(Code::kChangeFeedGap) + 1);
  size_t kinds = 0;
#define OMNIGRAPH_CHECK_KIND_(k, name)                                          \
  EXPECT_EQ(static_cast<uint8_t>(Kind::k), static_cast<uint8_t>(api::Kind::k)); \
  EXPECT_EQ(ToApi(Kind::k), api::Kind::k);                                      \
  EXPECT_EQ(KindName(Kind::k), name);                                           \
  EXPECT_EQ(api::KindName(api::Kind::k), name);                                 \
  ++kinds;
  OMNIGRAPH_STATUS_KINDS(OMNIGRAPH_CHECK_KIND_)
#undef OMNIGRAPH_CHECK_KIND_
  EXPECT_EQ(kinds, static_cast<size_t>(Kind::kInternal) + 1);
}

TEST(ApiValuesTest, DiagnosticsCrossTheBoundaryAsFields) {
  const Status s = InvalidArgument("2:5: T7: unknown type `Persn`", "query:q")
                       .WithDiagnostic(DiagnosticDetail{"T7", 2, 5, "did you mean `Person`?"});
  const api::Status p = ToApi(s);
  ASSERT_NE(p.diagnostic(), nullptr);
  EXPECT_EQ(p.diagnostic()->code, "T7");
  EXPECT_EQ(p.diagnostic()->line, 2u);
  EXPECT_EQ(p.diagnostic()->column, 5u);
  EXPECT_EQ(p.diagnostic()->fix, "did you mean `Person`?");
  EXPECT_EQ(p.message(), s.message());
  EXPECT_EQ(FromApi(p), s);
  EXPECT_EQ(ToApi(InvalidArgument("plain")).diagnostic(), nullptr);
  // The public side's own copy and equality.
  const api::Status q =
      api::InvalidArgument("x").WithDiagnostic(api::DiagnosticDetail{"Q000", 1, 1, ""});
  EXPECT_EQ(api::Status(q), q);
  EXPECT_FALSE(q == api::InvalidArgument("x"));
}

TEST(ApiValuesTest, StatusesKeepKindCodeMessageAndObject) {
  // A kind other than the code's default survives too.
  const Status s(Kind::kTransient, Code::kNotFound, "gone for now", "a/b.json");
  const api::Status p = ToApi(s);
  EXPECT_EQ(p.kind(), api::Kind::kTransient);
  EXPECT_EQ(p.code(), api::Code::kNotFound);
  EXPECT_EQ(p.message(), "gone for now");
  EXPECT_EQ(p.object(), "a/b.json");
  EXPECT_EQ(p.ToString(), s.ToString());
  EXPECT_EQ(FromApi(p), s);
  EXPECT_TRUE(ToApi(Status::Ok()).ok());
  EXPECT_TRUE(FromApi(api::Status::Ok()).ok());
  EXPECT_EQ(api::Status(api::Code::kKeyConflict, "x").kind(), api::Kind::kConflict);
  EXPECT_EQ(api::InvalidArgument("bad", "f").ToString(), InvalidArgument("bad", "f").ToString());
}

TEST(ApiValuesTest, JsonDumpsTheSameBytesAsTheEngine) {
  Result<OrderedJson> ordered = ParseOrderedJson(R"({
    "z": 1, "a": -7, "big": 18446744073709551615, "min": -9223372036854775808,
    "f": [0.1, 2.0, 1e300, -0.0, 3.5e-7], "s": "tab\t quote\" back\\ nl\n \u0001 é 😀",
    "nested": {"y": [true, false, null, [], {}], "b": {"k": "v"}}, "empty": ""})",
                                                 "test");
  ASSERT_TRUE(ordered.ok()) << ordered.status().ToString();
  const api::Json value = ToApi(*ordered);
  for (int indent : {-1, 0, 2, 4}) {
    EXPECT_EQ(value.dump(indent), ordered->dump(indent)) << indent;
  }
  EXPECT_EQ(FromApiOrdered(value), *ordered);
  // Member order is kept: "z" stays first.
  EXPECT_EQ(value.members().front().first, "z");
  // A sorted Json converts in its (sorted) order and back.
  const Json sorted = Json::parse(ordered->dump());
  EXPECT_EQ(ToApi(sorted).dump(2), sorted.dump(2));
  EXPECT_EQ(FromApi(ToApi(sorted)), sorted);
  // Numbers keep their kind.
  EXPECT_EQ(value["big"].type(), api::Json::Type::kUint);
  EXPECT_EQ(value["a"].type(), api::Json::Type::kInt);
  EXPECT_EQ(value["f"][1].type(), api::Json::Type::kDouble);
  EXPECT_EQ(value["big"].get<uint64_t>(), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(value["min"].get<int64_t>(), std::numeric_limits<int64_t>::min());
}

// Json::dump writes its own bytes; they must be the engine serializer's for any string (escapes,
// non-ASCII, invalid UTF-8) and any double.
TEST(ApiValuesTest, JsonDumpMatchesTheEngineOnRandomStringsAndNumbers) {
  std::mt19937_64 rng(20261201);
  const std::string alphabet = std::string("ab\"\\/\x01\x1f\x7f \t\n") + "\xc3\xa9" +
                               "\xf0\x9f\x98\x80" + "\xff\xc3\xe2\x82";
  for (int round = 0; round < 2000; ++round) {
    OrderedJson value = OrderedJson::object();
    std::string s;
    const size_t length = rng() % 12;
    for (size_t i = 0; i < length; ++i) s += alphabet[rng() % alphabet.size()];
    uint64_t bits = rng();
    double d;
    std::memcpy(&d, &bits, sizeof d);
    value[s] = s;
    value["d"] = d;
    value["small"] = static_cast<double>(static_cast<int64_t>(rng() % 2000000) - 1000000) / 1000.0;
    value["i"] = static_cast<int64_t>(rng());
    value["u"] = rng();
    value["a"] = OrderedJson::array({s, nullptr, true, OrderedJson::object()});
    const api::Json converted = ToApi(value);
    for (int indent : {-1, 2}) {
      ASSERT_EQ(converted.dump(indent),
                value.dump(indent, ' ', false, OrderedJson::error_handler_t::replace))
          << "round " << round;
    }
  }
}

TEST(ApiValuesTest, ParseErrorsReadAsTheEngines) {
  for (std::string_view text : {R"({"n":)", R"({"a":1,"a":2})", "[1,]", "\"\xff\""}) {
    Result<Json> engine = ParseJson(text, "--params");
    api::Result<api::Json> pub = api::ParseJson(text, "--params");
    ASSERT_FALSE(engine.ok());
    ASSERT_FALSE(pub.ok());
    EXPECT_EQ(pub.status().ToString(), engine.status().ToString());
  }
}

// api::ParseJson builds the public Json from the parser's events (decision 231); the oracle is
// what it was: the engine's strict parse into the library's tree, then ToApi. Every text gives
// the same value (member order, number kinds, strings) or the same error, status text included:
// hand-picked documents and errors, then valid documents with random bytes changed, cut or
// inserted, so that errors fall at every kind of position.
api::Result<api::Json> OracleParse(std::string_view text) {
  Result<OrderedJson> parsed = ParseOrderedJson(text, "the request body");
  if (!parsed.ok()) return ToApi(parsed.status());
  return ToApi(*parsed);
}

void ExpectParsedAsTheOracle(std::string_view text) {
  const api::Result<api::Json> oracle = OracleParse(text);
  const api::Result<api::Json> parsed = api::ParseJson(text, "the request body");
  ASSERT_EQ(parsed.ok(), oracle.ok()) << text;
  if (!oracle.ok()) {
    EXPECT_EQ(parsed.status().ToString(), oracle.status().ToString()) << text;
    return;
  }
  EXPECT_EQ(parsed->dump(), oracle->dump()) << text;
  EXPECT_EQ(parsed->dump(2), oracle->dump(2)) << text;
  EXPECT_TRUE(*parsed == *oracle) << text;
}

TEST(ApiValuesTest, ParseJsonGivesTheTreesValueAndErrors) {
  const std::vector<std::string> texts = {
      R"({"query":"query point($name: String) { match { $p: Person { name: $name } } }",)"
      R"("name":"point","params":{"name":"p42"}})",
      R"({"b":[1,2.5,"x",-3,18446744073709551615,-9223372036854775808,1e3,0.0,-0.0],"a":{}})",
      R"([null,true,false,{},[],{"z":{"y":{"x":[[]]}}},"\u00e9\ud83d\ude00\n\t\"\\\/"])",
      R"("just a string")",
      "42",
      "-1",
      "1.5e-300",
      "true",
      "null",
      " \n[ 1 , 2 ]\t ",
      R"({"b":1,"a":2,"c":{"b":1,"a":2}})",
      R"({"a":{"x":1},"b":{"x":2}})",
      R"({"a":1,"a":2})",
      R"({"a":{"b":1,"b":2},"a":3})",
      R"({"a":1,"b":{"c":1},"b":2})",
      R"({"a":1,"a":2,)",
      R"([{"k":1,"k":1}, ])",
      "",
      " ",
      "[1,]",
      "{\"n\":",
      "1e999",
      "-1e999",
      "[1e999]",
      "\"\xff\"",
      "\"\xc3\"",
      "\"a\x01\"",
      R"("\ud800")",
      "[1] [2]",
      "{} x",
      "tru",
      "nul",
      "01",
      "-",
      "1.",
      "[\"a\"",
      R"({"a" 1})",
      R"({1:2})",
      "/* c */ 1",
      R"({"a":[1,{"b":[2,{"c":3}]}],"d":"e"})"};
  for (const std::string& text : texts) ExpectParsedAsTheOracle(text);

  std::mt19937_64 rng(231);
  const std::string alphabet = "{}[]:,\"\\ 0123456789.eE+-abcnrtuxlsf\xc3\xa9\xff\x01";
  for (int round = 0; round < 5000; ++round) {
    std::string text = texts[rng() % 3];
    for (int edits = 1 + static_cast<int>(rng() % 3); edits > 0; --edits) {
      const size_t at = rng() % (text.size() + 1);
      switch (rng() % 3) {
        case 0:
          if (at < text.size()) text[at] = alphabet[rng() % alphabet.size()];
          break;
        case 1: text.insert(at, 1, alphabet[rng() % alphabet.size()]); break;
        default: text.resize(at); break;
      }
    }
    ExpectParsedAsTheOracle(text);
    if (HasFailure()) break;
  }
}

}  // namespace
}  // namespace omnigraph::engine
