// Date and DateTime literal text (`date("2024-01-31")`, `datetime("2024-01-31T09:30:00Z")`) to
// schema::Value, and the display of literal values in messages. Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "schema/value.h"

namespace omnigraph::query {

// "YYYY-MM-DD" to days since 1970-01-01; nullopt when malformed or not a real date. A time or
// offset is rejected (SURFACE.md §2.2).
std::optional<int32_t> ParseDateDays(std::string_view text);

// An RFC 3339 / ISO-8601 timestamp, "YYYY-MM-DD[T ]HH:MM[:SS[.fraction]][Z|±HH:MM]" (no offset
// = UTC), or a bare "YYYY-MM-DD" (midnight UTC), to milliseconds since the Unix epoch; fractions
// below a millisecond are truncated. nullopt when malformed.
std::optional<int64_t> ParseDateTimeMs(std::string_view text);

}  // namespace omnigraph::query
