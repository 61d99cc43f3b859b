#include "query/literal.h"

#include <cstdint>

namespace omnigraph::query {
namespace {

// Reads exactly `n` digits at *i; false when they are not there.
bool Digits(std::string_view s, size_t* i, size_t n, int* out) {
  if (*i + n > s.size()) return false;
  int v = 0;
  for (size_t k = 0; k < n; ++k) {
    char c = s[*i + k];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *i += n;
  *out = v;
  return true;
}

bool IsLeap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int DaysInMonth(int y, int m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
}

// Days from 1970-01-01 to the civil date y-m-d (Howard Hinnant's algorithm).
int64_t DaysFromCivil(int64_t y, int m, int d) {
  y -= m <= 2 ? 1 : 0;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

// Parses "YYYY-MM-DD" at the start of `s`, advancing *i.
bool ParseDatePart(std::string_view s, size_t* i, int64_t* days) {
  int y = 0, m = 0, d = 0;
  if (!Digits(s, i, 4, &y) || *i >= s.size() || s[*i] != '-') return false;
  ++*i;
  if (!Digits(s, i, 2, &m) || *i >= s.size() || s[*i] != '-') return false;
  ++*i;
  if (!Digits(s, i, 2, &d)) return false;
  if (m < 1 || m > 12 || d < 1 || d > DaysInMonth(y, m)) return false;
  *days = DaysFromCivil(y, m, d);
  return true;
}

}  // namespace

std::optional<int32_t> ParseDateDays(std::string_view text) {
  size_t i = 0;
  int64_t days = 0;
  if (!ParseDatePart(text, &i, &days) || i != text.size()) return std::nullopt;
  return static_cast<int32_t>(days);
}

std::optional<int64_t> ParseDateTimeMs(std::string_view text) {
  size_t i = 0;
  int64_t days = 0;
  if (!ParseDatePart(text, &i, &days)) return std::nullopt;
  if (i == text.size()) return days * 86400000;
  if (text[i] != 'T' && text[i] != 't' && text[i] != ' ') return std::nullopt;
  ++i;
  int hh = 0, mm = 0, ss = 0;
  if (!Digits(text, &i, 2, &hh) || i >= text.size() || text[i] != ':') return std::nullopt;
  ++i;
  if (!Digits(text, &i, 2, &mm)) return std::nullopt;
  if (i < text.size() && text[i] == ':') {
    ++i;
    if (!Digits(text, &i, 2, &ss)) return std::nullopt;
  }
  if (hh > 23 || mm > 59 || ss > 59) return std::nullopt;
  int64_t ms = 0;
  if (i < text.size() && text[i] == '.') {
    ++i;
    size_t start = i;
    int scale = 100;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      ms += (text[i] - '0') * scale;
      scale /= 10;
      ++i;
    }
    if (i == start) return std::nullopt;
  }
  int64_t offset_min = 0;
  if (i < text.size()) {
    char c = text[i];
    if (c == 'Z' || c == 'z') {
      ++i;
    } else if (c == '+' || c == '-') {
      ++i;
      int oh = 0, om = 0;
      if (!Digits(text, &i, 2, &oh) || i >= text.size() || text[i] != ':') return std::nullopt;
      ++i;
      if (!Digits(text, &i, 2, &om) || oh > 23 || om > 59) return std::nullopt;
      offset_min = (c == '+' ? 1 : -1) * (oh * 60 + om);
    } else {
      return std::nullopt;
    }
  }
  if (i != text.size()) return std::nullopt;
  return days * 86400000 + ((hh * 60 + mm - offset_min) * 60 + ss) * 1000 + ms;
}

}  // namespace omnigraph::query
