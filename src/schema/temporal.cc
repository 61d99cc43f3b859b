#include "schema/temporal.h"

#include <cstdio>
#include <limits>

namespace omnigraph::schema {
namespace {

// A year needs at most this many digits: int64 milliseconds reach about year 292,278,994.
constexpr size_t kYearDigitsMax = 9;

// Reads exactly `n` digits at *i; false when they are not there.
bool Digits(std::string_view s, size_t* i, size_t n, int* out) {
  if (*i + n > s.size()) return false;
  int v = 0;
  for (size_t k = 0; k < n; ++k) {
    const char c = s[*i + k];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *i += n;
  *out = v;
  return true;
}

bool IsLeap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int DaysInMonth(int64_t y, int m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
}

// Days from 1970-01-01 to the civil date y-m-d (Howard Hinnant's days_from_civil).
int64_t DaysFromCivil(int64_t y, int m, int d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

// The civil date of a day count (Howard Hinnant's civil_from_days).
void CivilFromDays(int64_t z, int64_t* y, int* m, int* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  *d = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  *m = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  *y = yoe + era * 400 + (*m <= 2 ? 1 : 0);
}

// Parses "[±]YYYY[Y...]-MM-DD" at the start of `s`, advancing *i.
bool ParseDatePart(std::string_view s, size_t* i, int64_t* days) {
  bool negative = false;
  bool sign = false;
  if (*i < s.size() && (s[*i] == '+' || s[*i] == '-')) {
    sign = true;
    negative = s[*i] == '-';
    ++*i;
  }
  const size_t start = *i;
  int64_t y = 0;
  while (*i < s.size() && s[*i] >= '0' && s[*i] <= '9' && *i - start < kYearDigitsMax) {
    y = y * 10 + (s[*i] - '0');
    ++*i;
  }
  const size_t digits = *i - start;
  if (digits < 4 || (!sign && digits != 4)) return false;
  if (negative) y = -y;
  int m = 0, d = 0;
  if (*i >= s.size() || s[*i] != '-') return false;
  ++*i;
  if (!Digits(s, i, 2, &m) || *i >= s.size() || s[*i] != '-') return false;
  ++*i;
  if (!Digits(s, i, 2, &d)) return false;
  if (m < 1 || m > 12 || d < 1 || d > DaysInMonth(y, m)) return false;
  *days = DaysFromCivil(y, m, d);
  return true;
}

// Parses "HH:MM[:SS][.fraction][Z|z|±HH:MM]" at *i into milliseconds after the day's start in
// UTC (negative or past a day when the offset moves the instant to a neighbouring day).
bool ParseTimePart(std::string_view s, size_t* i, int64_t* ms_out) {
  int hh = 0, mm = 0, ss = 0;
  if (!Digits(s, i, 2, &hh) || *i >= s.size() || s[*i] != ':') return false;
  ++*i;
  if (!Digits(s, i, 2, &mm)) return false;
  if (*i < s.size() && s[*i] == ':') {
    ++*i;
    if (!Digits(s, i, 2, &ss)) return false;
  }
  if (hh > 23 || mm > 59 || ss > 59) return false;
  int64_t ms = 0;
  if (*i < s.size() && s[*i] == '.') {
    ++*i;
    const size_t start = *i;
    int scale = 100;
    while (*i < s.size() && s[*i] >= '0' && s[*i] <= '9') {
      ms += (s[*i] - '0') * scale;
      scale /= 10;
      ++*i;
    }
    if (*i == start) return false;
  }
  int64_t offset_min = 0;
  if (*i < s.size()) {
    const char c = s[*i];
    if (c == 'Z' || c == 'z') {
      ++*i;
    } else if (c == '+' || c == '-') {
      ++*i;
      int oh = 0, om = 0;
      if (!Digits(s, i, 2, &oh) || *i >= s.size() || s[*i] != ':') return false;
      ++*i;
      if (!Digits(s, i, 2, &om) || oh > 23 || om > 59) return false;
      offset_min = (c == '+' ? 1 : -1) * (oh * 60 + om);
    }
  }
  *ms_out = ((hh * 60 + mm - offset_min) * 60 + ss) * 1000 + ms;
  return true;
}

// days * kMsPerDay + within_day_ms, or nullopt outside int64. The time of day is first brought
// into [0, kMsPerDay) so that the first day of the range, whose start lies before INT64_MIN,
// can still be reached from the day after it.
std::optional<int64_t> InstantMs(int64_t days, int64_t within_day_ms) {
  while (within_day_ms < 0) {
    within_day_ms += kMsPerDay;
    --days;
  }
  while (within_day_ms >= kMsPerDay) {
    within_day_ms -= kMsPerDay;
    ++days;
  }
  int64_t out = 0;
  if (!__builtin_mul_overflow(days, kMsPerDay, &out) &&
      !__builtin_add_overflow(out, within_day_ms, &out)) {
    return out;
  }
  if (days < 0 && !__builtin_mul_overflow(days + 1, kMsPerDay, &out) &&
      !__builtin_add_overflow(out, within_day_ms - kMsPerDay, &out)) {
    return out;
  }
  return std::nullopt;
}

// "YYYY-MM-DD" or "±YYYYY-MM-DD" into buf.
int WriteDate(char* buf, size_t size, int64_t days) {
  int64_t y = 0;
  int m = 0, d = 0;
  CivilFromDays(days, &y, &m, &d);
  if (y >= 0 && y <= 9999) {
    return std::snprintf(buf, size, "%04lld-%02d-%02d", static_cast<long long>(y), m, d);
  }
  const unsigned long long magnitude =
      y < 0 ? 0ULL - static_cast<unsigned long long>(y) : static_cast<unsigned long long>(y);
  return std::snprintf(buf, size, "%c%04llu-%02d-%02d", y < 0 ? '-' : '+', magnitude, m, d);
}

}  // namespace

std::optional<int32_t> ParseDate(std::string_view text) {
  size_t i = 0;
  int64_t days = 0;
  if (!ParseDatePart(text, &i, &days) || i != text.size()) return std::nullopt;
  if (days < std::numeric_limits<int32_t>::min() || days > std::numeric_limits<int32_t>::max()) {
    return std::nullopt;
  }
  return static_cast<int32_t>(days);
}

std::optional<int64_t> ParseDateTime(std::string_view text) {
  size_t i = 0;
  int64_t days = 0;
  if (!ParseDatePart(text, &i, &days)) return std::nullopt;
  int64_t within_day_ms = 0;
  if (i < text.size()) {
    if (text[i] != 'T' && text[i] != 't' && text[i] != ' ') return std::nullopt;
    ++i;
    if (!ParseTimePart(text, &i, &within_day_ms) || i != text.size()) return std::nullopt;
  }
  return InstantMs(days, within_day_ms);
}

std::string FormatDate(int32_t days) {
  char buf[32];
  const int n = WriteDate(buf, sizeof buf, days);
  return std::string(buf, static_cast<size_t>(n));
}

std::string FormatDateTime(int64_t ms) {
  // Floor division without overflow at INT64_MIN.
  int64_t days = ms / kMsPerDay;
  int64_t rest = ms % kMsPerDay;
  if (rest < 0) {
    rest += kMsPerDay;
    --days;
  }
  char buf[64];
  const int n = WriteDate(buf, sizeof buf, days);
  const int m = std::snprintf(buf + n, sizeof buf - static_cast<size_t>(n), "T%02d:%02d:%02d.%03dZ",
                              static_cast<int>(rest / 3600000), static_cast<int>(rest / 60000 % 60),
                              static_cast<int>(rest / 1000 % 60), static_cast<int>(rest % 1000));
  return std::string(buf, static_cast<size_t>(n + m));
}

}  // namespace omnigraph::schema
