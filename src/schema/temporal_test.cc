// Date and DateTime text over the whole range of both types.
#include "schema/temporal.h"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

namespace omnigraph::schema {
namespace {

constexpr int32_t kDaysMin = std::numeric_limits<int32_t>::min();
constexpr int32_t kDaysMax = std::numeric_limits<int32_t>::max();
constexpr int64_t kMsMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMsMax = std::numeric_limits<int64_t>::max();

TEST(TemporalTest, DatesRenderAsFourDigitYearsOrSignedExpandedYears) {
  EXPECT_EQ(FormatDate(0), "1970-01-01");
  EXPECT_EQ(FormatDate(-1), "1969-12-31");
  EXPECT_EQ(FormatDate(19782), "2024-02-29");
  EXPECT_EQ(FormatDate(-719528), "0000-01-01");
  EXPECT_EQ(FormatDate(-719529), "-0001-12-31");
  EXPECT_EQ(FormatDate(2932896), "9999-12-31");
  EXPECT_EQ(FormatDate(2932897), "+10000-01-01");
  EXPECT_EQ(FormatDate(kDaysMin), "-5877641-06-23");
  EXPECT_EQ(FormatDate(kDaysMax), "+5881580-07-11");
}

TEST(TemporalTest, EveryRenderedDateParsesBackOverTheWholeRange) {
  std::vector<int32_t> days = {kDaysMin, kDaysMin + 1, kDaysMax - 1, kDaysMax, -719529, -719528,
                               2932896,  2932897,      -1,           0,        1};
  for (int32_t d = -800000; d <= 3000000; d += 97) days.push_back(d);
  for (int64_t d = kDaysMin; d <= kDaysMax; d += 9999991) days.push_back(static_cast<int32_t>(d));
  for (int32_t d : days) {
    const std::string text = FormatDate(d);
    EXPECT_EQ(ParseDate(text), std::optional<int32_t>(d)) << text;
  }
}

TEST(TemporalTest, LeapDaysFollowTheProlepticGregorianRules) {
  EXPECT_EQ(ParseDate("2024-02-29"), 19782);
  EXPECT_EQ(ParseDate("2000-02-29"), 11016);
  EXPECT_FALSE(ParseDate("1900-02-29"));
  EXPECT_FALSE(ParseDate("2023-02-29"));
  EXPECT_EQ(FormatDate(*ParseDate("0000-02-29")), "0000-02-29");  // Year 0 is a leap year.
  EXPECT_EQ(FormatDate(*ParseDate("-0004-02-29")), "-0004-02-29");
  EXPECT_FALSE(ParseDate("-0001-02-29"));
  EXPECT_EQ(FormatDate(*ParseDate("+10400-02-29")), "+10400-02-29");
}

TEST(TemporalTest, DateParsingRefusesWhatItCannotRepresent) {
  EXPECT_EQ(ParseDate("+2024-01-31"), ParseDate("2024-01-31"));  // A sign is allowed.
  EXPECT_EQ(ParseDate("-0000-01-01"), ParseDate("0000-01-01"));
  EXPECT_FALSE(ParseDate("24-01-01"));
  EXPECT_FALSE(ParseDate("10000-01-01"));  // Five digits need a sign.
  EXPECT_FALSE(ParseDate("+999-01-01"));   // A sign needs four digits.
  EXPECT_FALSE(ParseDate("2024-13-01"));
  EXPECT_FALSE(ParseDate("2024-01-01T00:00:00Z"));
  EXPECT_FALSE(ParseDate("-5877641-06-22"));  // One day below int32.
  EXPECT_FALSE(ParseDate("+5881580-07-12"));  // One day above int32.
  EXPECT_FALSE(ParseDate("+1234567890-01-01"));
  EXPECT_FALSE(ParseDate(""));
  EXPECT_FALSE(ParseDate("+"));
}

TEST(TemporalTest, DateTimesRenderWithMillisecondsInUtc) {
  EXPECT_EQ(FormatDateTime(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(FormatDateTime(-1), "1969-12-31T23:59:59.999Z");
  EXPECT_EQ(FormatDateTime(1706689800250), "2024-01-31T08:30:00.250Z");
  EXPECT_EQ(FormatDateTime(253402300800000), "+10000-01-01T00:00:00.000Z");
  EXPECT_EQ(FormatDateTime(-62167219200001), "-0001-12-31T23:59:59.999Z");
  EXPECT_EQ(FormatDateTime(kMsMin), "-292275055-05-16T16:47:04.192Z");
  EXPECT_EQ(FormatDateTime(kMsMax), "+292278994-08-17T07:12:55.807Z");
}

TEST(TemporalTest, EveryRenderedDateTimeParsesBackOverTheWholeRange) {
  std::vector<int64_t> values = {kMsMin,
                                 kMsMin + 1,
                                 kMsMax - 1,
                                 kMsMax,
                                 -62167219200001,
                                 -62167219200000,
                                 253402300799999,
                                 253402300800000,
                                 -1,
                                 0,
                                 1,
                                 1709164800000 - 1};
  for (int64_t ms = kMsMin; ms < kMsMax - 2 * 92233720368547758; ms += 92233720368547758 + 12345) {
    values.push_back(ms);
  }
  for (int64_t ms : values) {
    const std::string text = FormatDateTime(ms);
    EXPECT_EQ(ParseDateTime(text), std::optional<int64_t>(ms)) << text;
  }
}

TEST(TemporalTest, DateTimeParsingTakesOffsetsFractionsAndBareDates) {
  EXPECT_EQ(ParseDateTime("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(ParseDateTime("1970-01-01T00:00:01.5Z"), 1500);
  EXPECT_EQ(ParseDateTime("1970-01-01T00:00:01.123456Z"), 1123);
  EXPECT_EQ(ParseDateTime("1970-01-01T01:00:00+01:00"), 0);
  EXPECT_EQ(ParseDateTime("1970-01-01 00:01"), 60000);
  EXPECT_EQ(ParseDateTime("1970-01-02"), 86400000);
  EXPECT_EQ(ParseDateTime("2024-02-29t12:00:00z"), 1709208000000);
  EXPECT_FALSE(ParseDateTime("1970-01-01T25:00:00Z"));
  EXPECT_FALSE(ParseDateTime("1970-01-01T00:00:00Q"));
  EXPECT_FALSE(ParseDateTime("1970-01-01T"));
  EXPECT_FALSE(ParseDateTime("yesterday"));
}

TEST(TemporalTest, DateTimeParsingRefusesInstantsOutsideInt64) {
  // The last representable millisecond, also reached through an offset across the day's start.
  EXPECT_EQ(ParseDateTime("-292275055-05-16T16:47:04.192Z"), kMsMin);
  EXPECT_EQ(ParseDateTime("-292275055-05-17T16:47:04.192+24:00"), std::nullopt);  // Bad offset.
  EXPECT_EQ(ParseDateTime("-292275055-05-17T00:00:00.000+07:12"), kMsMin + 55808);
  EXPECT_FALSE(ParseDateTime("-292275055-05-16T16:47:04.191Z"));
  EXPECT_FALSE(ParseDateTime("+292278994-08-17T07:12:55.808Z"));
  EXPECT_FALSE(ParseDateTime("+292278994-08-17T07:12:55.807-00:01"));
  EXPECT_FALSE(ParseDateTime("-999999999-01-01T00:00:00Z"));
}

}  // namespace
}  // namespace omnigraph::schema
