#include "base/ids.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>

namespace omnigraph {
namespace {

TEST(CrockfordTest, KnownVectorsRoundTrip) {
  const std::string bytes("\x00\x01\x02\xfe\xff", 5);
  std::span<const uint8_t> span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  std::string text = CrockfordEncode(span);
  EXPECT_EQ(text, "000G5ZQZ");
  Result<std::string> back = CrockfordDecode(text, bytes.size());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, bytes);
  // Lower case decodes the same.
  EXPECT_EQ(*CrockfordDecode("000g5zqz", 5), bytes);
}

TEST(CrockfordTest, RejectsLettersOutsideTheAlphabet) {
  for (std::string_view bad : {"000G5ZQI", "000G5ZQL", "000G5ZQO", "000G5ZQU", "000G5ZQ-"}) {
    Result<std::string> r = CrockfordDecode(bad, 5);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
    EXPECT_NE(r.status().message().find("position 7"), std::string::npos) << r.status().message();
  }
  EXPECT_FALSE(CrockfordDecode("000G5ZQ", 5).ok());
}

TEST(UlidTest, EncodesTimestampInTheFirstTenCharacters) {
  ManualClock clock(1469918176385LL * 1000);  // The ULID spec's example time.
  Random random(1);
  UlidGenerator gen(clock, random);
  Ulid u = gen.Next();
  EXPECT_EQ(u.timestamp_ms(), 1469918176385ULL);
  EXPECT_EQ(u.ToString().substr(0, 10), "01ARYZ6S41");
  EXPECT_EQ(u.ToString().size(), 26u);
}

TEST(UlidTest, ParseRoundTripsAndRejectsBadInput) {
  ManualClock clock;
  Random random(42);
  UlidGenerator gen(clock, random);
  Ulid u = gen.Next();
  Result<Ulid> parsed = Ulid::Parse(u.ToString());
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(*parsed, u);

  EXPECT_EQ(Ulid::Parse("01ARYZ6S41").status().code(), Code::kInvalidArgument);
  EXPECT_NE(Ulid::Parse("01ARYZ6S41").status().message().find("expected 26"), std::string::npos);
  Result<Ulid> bad_char = Ulid::Parse("01ARYZ6S41TSV4RRFFQ69G5FAU");
  ASSERT_FALSE(bad_char.ok());
  EXPECT_NE(bad_char.status().message().find("position 25"), std::string::npos);
  Result<Ulid> overflow = Ulid::Parse("8ZZZZZZZZZZZZZZZZZZZZZZZZZ");
  ASSERT_FALSE(overflow.ok());
  EXPECT_NE(overflow.status().message().find("larger"), std::string::npos);
  EXPECT_TRUE(Ulid::Parse("7ZZZZZZZZZZZZZZZZZZZZZZZZZ").ok());
  EXPECT_TRUE(Ulid::Parse("01aryz6s41tsv4rrffq69g5fav").ok());
}

// A run minted at once is what as many single calls return, and the generator goes on after it
// as it would after them: the load mints its ids in runs (decision 245), so the ids it stores
// must be those NextAt would have given, whatever the clock does between runs.
TEST(UlidTest, ARunIsWhatAsManyCallsReturnAndItsTextStepsToEachId) {
  ManualClock clock_a, clock_b;
  Random random_a(11), random_b(11);
  UlidGenerator runs(clock_a, random_a), calls(clock_b, random_b);
  // Times that repeat, step back and move on, so runs start both fresh and stepped.
  const uint64_t times[] = {1000, 1000, 999, 1001, 1001, 5000, 4000, 5000};
  const uint32_t lengths[] = {1, 64, 3, 64, 2, 17, 64, 5};
  for (size_t t = 0; t < std::size(times); ++t) {
    const Ulid first = runs.NextRunAt(times[t], lengths[t]);
    std::string text = first.ToString();
    for (uint32_t i = 0; i < lengths[t]; ++i) {
      const Ulid expected = calls.NextAt(times[t]);
      if (i == 0) {
        EXPECT_EQ(first, expected);
      } else {
        ASSERT_TRUE(Ulid::StepText(text));
      }
      ASSERT_EQ(text, expected.ToString()) << "run " << t << " id " << i;
    }
  }
  EXPECT_EQ(runs.NextAt(5000), calls.NextAt(5000));
}

// Stepping the text carries across characters as adding one to the 128-bit value does, into the
// timestamp when the random part overflows; the largest ULID and bad text are refused as they are.
TEST(UlidTest, StepTextCarriesAndRefusesTheLargestUlid) {
  std::string text = "01ARYZ6S41ZZZZZZZZZZZZZZZZ";
  ASSERT_TRUE(Ulid::StepText(text));
  EXPECT_EQ(text, "01ARYZ6S420000000000000000");
  Result<Ulid> parsed = Ulid::Parse(text);
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->timestamp_ms(), Ulid::Parse("01ARYZ6S41ZZZZZZZZZZZZZZZZ")->timestamp_ms() + 1);
  text = "0000000000000000000000000Z";
  ASSERT_TRUE(Ulid::StepText(text));
  EXPECT_EQ(text, "00000000000000000000000010");
  for (std::string bad : {std::string("7ZZZZZZZZZZZZZZZZZZZZZZZZZ"), std::string("01ARYZ6S41"),
                          std::string("01ARYZ6S41TSV4RRFFQ69G5FAU")}) {
    const std::string before = bad;
    EXPECT_FALSE(Ulid::StepText(bad)) << before;
    EXPECT_EQ(bad, before);
  }
}

TEST(UlidTest, MonotonicWithinOneMillisecond) {
  ManualClock clock;  // Never advances: every id falls in the same millisecond.
  Random random(7);
  UlidGenerator gen(clock, random);
  std::string previous = gen.NextString();
  for (int i = 0; i < 10000; ++i) {
    std::string next = gen.NextString();
    ASSERT_LT(previous, next) << "at " << i;
    ASSERT_EQ(next.substr(0, 10), previous.substr(0, 10));
    previous = next;
  }
}

TEST(UlidTest, MonotonicWhenTheClockStepsBack) {
  ManualClock clock;
  Random random(7);
  UlidGenerator gen(clock, random);
  Ulid a = gen.Next();
  clock.Advance(-5'000'000);
  Ulid b = gen.Next();
  EXPECT_LT(a, b);
  EXPECT_EQ(b.timestamp_ms(), a.timestamp_ms());
}

TEST(UlidTest, NewMillisecondDrawsFreshRandomness) {
  ManualClock clock;
  Random random(7);
  UlidGenerator gen(clock, random);
  Ulid a = gen.Next();
  clock.Advance(1000);
  Ulid b = gen.Next();
  EXPECT_EQ(b.timestamp_ms(), a.timestamp_ms() + 1);
  EXPECT_LT(a, b);
}

// A caller that reads the clock once per batch passes the time: later times start a new
// millisecond, an earlier one counts as the last id's, and the ids ascend throughout.
TEST(UlidTest, NextAtAscendsWhateverTimesItIsGiven) {
  ManualClock clock;
  Random random(7);
  UlidGenerator gen(clock, random);
  const Ulid a = gen.NextAt(1000);
  const Ulid b = gen.NextAt(1000);
  const Ulid c = gen.NextAt(999);
  const Ulid d = gen.NextAt(1005);
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
  EXPECT_LT(c, d);
  EXPECT_EQ(c.timestamp_ms(), 1000u);
  EXPECT_EQ(d.timestamp_ms(), 1005u);
  // Next reads the clock (far earlier here): still after every id so far.
  EXPECT_LT(d, gen.Next());
}

TEST(UuidV7Test, HasVersionAndVariantBits) {
  ManualClock clock;
  Random random(3);
  std::set<std::string> seen;
  const std::regex shape("^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$");
  for (int i = 0; i < 100; ++i) {
    std::string u = NewUuidV7(clock, random);
    EXPECT_TRUE(std::regex_match(u, shape)) << u;
    EXPECT_TRUE(seen.insert(u).second);
  }
}

TEST(RandomCrockfordTest, UsesOnlyTheAlphabet) {
  Random random(9);
  std::string s = RandomCrockford(random, 1000);
  EXPECT_EQ(s.size(), 1000u);
  EXPECT_EQ(s.find_first_not_of(kCrockfordAlphabet), std::string::npos);
}

}  // namespace
}  // namespace omnigraph
