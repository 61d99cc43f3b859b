#include "base/string_index.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

namespace omnigraph {
namespace {

TEST(StringIndexTest, NumbersDistinctStringsInFirstSeenOrder) {
  const std::vector<std::string> input = {"b", "a", "b", "", "c", "a", ""};
  StringIndex index;
  std::vector<uint32_t> ordinals;
  std::vector<bool> added;
  for (const std::string& s : input) {
    bool was_added = false;
    ordinals.push_back(index.Insert(s, &was_added));
    added.push_back(was_added);
  }
  EXPECT_EQ(ordinals, (std::vector<uint32_t>{0, 1, 0, 2, 3, 1, 2}));
  EXPECT_EQ(added, (std::vector<bool>{true, true, false, true, true, false, false}));
  ASSERT_EQ(index.size(), 4u);
  EXPECT_EQ(index.At(0), "b");
  EXPECT_EQ(index.At(2), "");
  EXPECT_EQ(index.Find("c"), 3u);
  EXPECT_EQ(index.Find("d"), StringIndex::kAbsent);
  EXPECT_FALSE(index.Contains("ab"));
}

// Growing past its first room many times over, with strings that share long prefixes, the index
// answers as a map does.
TEST(StringIndexTest, AgreesWithAMapAcrossGrowth) {
  std::mt19937_64 rng(7);
  std::vector<std::string> strings;
  for (int i = 0; i < 50000; ++i) {
    strings.push_back("person-with-a-long-shared-prefix-" + std::to_string(rng() % 20000));
  }
  StringIndex index(4);
  std::map<std::string, uint32_t> expected;
  for (const std::string& s : strings) {
    const uint32_t got = index.Insert(s);
    auto [it, fresh] = expected.emplace(s, static_cast<uint32_t>(expected.size()));
    ASSERT_EQ(got, it->second) << s;
  }
  ASSERT_EQ(index.size(), expected.size());
  for (const auto& [s, ordinal] : expected) {
    EXPECT_EQ(index.Find(s), ordinal);
    EXPECT_EQ(index.At(ordinal), s);
  }
  EXPECT_EQ(index.Find("person-with-a-long-shared-prefix-20000"), StringIndex::kAbsent);
}

// Strings a slot's first 8 bytes and length tell apart, and ones they do not: embedded zero
// bytes (a short string's head is zero-padded), the 8/9-byte boundary, shared 8-byte heads of
// longer strings, and lengths of 255 bytes and more (where the tag stops counting).
TEST(StringIndexTest, TellsApartStringsThatShareTheirFirstEightBytes) {
  using namespace std::string_literals;
  using namespace std::string_view_literals;
  const std::vector<std::string> strings = {"",
                                            "\0"s,
                                            "\0\0"s,
                                            "a",
                                            "a\0"s,
                                            "a\0\0"s,
                                            "abcdefgh",
                                            "abcdefgh\0"s,
                                            "abcdefghi",
                                            "abcdefghj",
                                            "abcdefghij",
                                            std::string(255, 'x'),
                                            std::string(256, 'x'),
                                            std::string(255, 'x') + "y",
                                            std::string(300, 'x'),
                                            "12345",
                                            "1234",
                                            "123456"};
  StringIndex index;
  for (size_t i = 0; i < strings.size(); ++i) {
    ASSERT_EQ(index.Insert(strings[i]), i) << i;
  }
  for (size_t i = 0; i < strings.size(); ++i) {
    EXPECT_EQ(index.Find(strings[i]), i) << i;
    bool added = true;
    EXPECT_EQ(index.Insert(strings[i], &added), i) << i;
    EXPECT_FALSE(added) << i;
  }
  EXPECT_EQ(index.Find("abcdefgz"), StringIndex::kAbsent);
  EXPECT_EQ(index.Find("\0\0\0"s), StringIndex::kAbsent);
  EXPECT_EQ(index.Find(std::string(299, 'x')), StringIndex::kAbsent);
  EXPECT_EQ(index.Find(std::string(256, 'x') + "y"), StringIndex::kAbsent);
  // A default view (no data pointer) is the empty string.
  EXPECT_EQ(index.Find(std::string_view()), 0u);
  // FindMany answers as Find, for groups cut anywhere (decision 245).
  std::vector<std::string_view> asked(strings.begin(), strings.end());
  for (std::string_view absent : {"abcdefgz"sv, "zz"sv, std::string_view()})
    asked.push_back(absent);
  for (size_t i = 0; i < 40; ++i) asked.push_back(strings[(i * 7) % strings.size()]);
  for (size_t count : {size_t{0}, size_t{1}, size_t{15}, size_t{16}, size_t{17}, asked.size()}) {
    std::vector<uint32_t> out(count, 12345);
    index.FindMany(std::span(asked).first(count), out);
    for (size_t i = 0; i < count; ++i) EXPECT_EQ(out[i], index.Find(asked[i])) << count << " " << i;
  }
}

}  // namespace
}  // namespace omnigraph
