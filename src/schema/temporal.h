// Date and DateTime text: the one parse and render of the two temporal types, shared by query
// literals (`date("…")`, `datetime("…")`), query parameters, query output and the NDJSON
// load/export format (OmniGraph's value types).
//
// A Date is an int32 count of days since 1970-01-01 and a DateTime an int64 count of
// milliseconds since 1970-01-01T00:00:00Z, both in the proleptic Gregorian calendar with
// astronomical year numbering (year 0 is 1 BC). Every value of either type has a text form and
// parsing it gives the value back:
//   Date      YYYY-MM-DD                     years 0000..9999
//             ±YYYYY-MM-DD                   any other year: a sign and at least four digits
//                                            ("-0001-12-31", "+10000-01-01"), as ISO 8601's
//                                            expanded years
//   DateTime  <date>THH:MM:SS.sssZ           always UTC with milliseconds
// Parsing accepts the rendered forms and, for convenience, a leading '+' on a four-digit year;
// a year without a sign has exactly four digits. DateTime text also takes a space or 't' for
// 'T', an optional seconds part, any number of fraction digits (truncated to milliseconds), 'Z',
// 'z', "±HH:MM" or no offset (UTC), or a bare date (midnight UTC). A result outside the type's
// range is refused like malformed text. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace omnigraph::schema {

inline constexpr int64_t kMsPerDay = 86400000;

// Days since 1970-01-01 of a Date text; nullopt when malformed, not a real date, carrying a
// time or offset, or outside int32.
std::optional<int32_t> ParseDate(std::string_view text);

// Milliseconds since the Unix epoch of a DateTime (or bare date) text; nullopt when malformed or
// outside int64.
std::optional<int64_t> ParseDateTime(std::string_view text);

// The text of a Date ("2024-02-29", "-0001-12-31", "+10000-01-01").
std::string FormatDate(int32_t days);

// The text of a DateTime ("2024-01-31T08:30:00.250Z").
std::string FormatDateTime(int64_t ms);

}  // namespace omnigraph::schema
