#include "base/utf8.h"

#include <gtest/gtest.h>

namespace omnigraph {
namespace {

TEST(Utf8Test, AcceptsEveryWellFormedSequenceLength) {
  for (std::string ok :
       {std::string(""), std::string("plain ascii text, longer than eight"),
        std::string("caf\xc3\xa9"), std::string("\xe2\x82\xac"), std::string("\xf0\x9f\x98\x80"),
        std::string("\xef\xbf\xbf"), std::string("\xf4\x8f\xbf\xbf"), std::string("\0", 1)}) {
    EXPECT_TRUE(IsValidUtf8(ok)) << testing::PrintToString(ok);
  }
}

TEST(Utf8Test, FindsTheFirstBadByte) {
  struct Case {
    std::string text;
    size_t offset;
  };
  for (const Case& c : {
           Case{"caf\xe9", 3},                   // Latin-1 e-acute.
           Case{"\xff", 0},                      // Never valid.
           Case{"ab\xc3", 2},                    // Truncated two-byte sequence.
           Case{"\xc0\xaf", 0},                  // Overlong '/'.
           Case{"\xed\xa0\x80", 0},              // A surrogate.
           Case{"\xf4\x90\x80\x80", 0},          // Beyond U+10FFFF.
           Case{"\x80", 0},                      // A lone continuation byte.
           Case{"0123456789abcdef\xe9xyz", 16},  // After the eight-byte ASCII fast path.
           Case{"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3", 8},
       }) {
    EXPECT_EQ(FindInvalidUtf8(c.text), std::optional<size_t>(c.offset))
        << testing::PrintToString(c.text);
  }
}

TEST(Utf8Test, CheckNamesTheByteAndItsOffsetWithoutEchoingIt) {
  EXPECT_TRUE(CheckUtf8("fine", "actor").ok());
  Status s = CheckUtf8("caf\xe9", "actor");
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_EQ(s.message(), "actor is not valid UTF-8 (byte 0xe9 at offset 3)");
}

TEST(Utf8Test, PositionCountsLinesAndByteColumns) {
  const std::string text =
      "ab\ncd\xc3\xa9"
      "e\n\xe9";
  TextPosition first = PositionAt(text, 0);
  EXPECT_EQ(first.line, 1u);
  EXPECT_EQ(first.column, 1u);
  TextPosition e = PositionAt(text, 7);
  EXPECT_EQ(e.line, 2u);
  EXPECT_EQ(e.column, 5u);
  TextPosition bad = PositionAt(text, *FindInvalidUtf8(text));
  EXPECT_EQ(bad.line, 3u);
  EXPECT_EQ(bad.column, 1u);
}

TEST(Utf8Test, EscapeWritesBadBytesAsHexAndKeepsGoodOnes) {
  EXPECT_EQ(EscapeInvalidUtf8("caf\xe9 \xc3\xa9\xff"), "caf\\xe9 \xc3\xa9\\xff");
  EXPECT_TRUE(IsValidUtf8(EscapeInvalidUtf8("\xc0\xaf\xed\xa0\x80")));
}

}  // namespace
}  // namespace omnigraph
