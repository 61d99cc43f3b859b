// Per-column statistics of a fragment: null count, and min and max for orderable types, kept in
// the fragment footer so that scans can skip fragments a predicate cannot match.
//
// Min and max are typed (StatValue holds the column's physical type: int32_t for I32 and Date,
// int64_t for I64 and DateTime, std::string for String and Binary, ...). They range over the
// valid slots only; floats ignore NaN and compare numerically; strings compare as unsigned bytes.
// List and Vector columns, columns with no valid value and float columns holding only NaN have
// no min and max. Strings longer than kStatBytesMax are bounded instead of stored: min is a
// prefix (a lower bound) and max a short successor (an upper bound); `*_exact` says which.
// Values; thread-compatible.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>

#include "table/column.h"

namespace omnigraph::table {

// String and Binary min/max are stored in at most this many bytes.
inline constexpr size_t kStatBytesMax = 64;

using StatValue =
    std::variant<bool, int32_t, uint32_t, int64_t, uint64_t, float, double, std::string>;

struct ColumnStats {
  uint64_t null_count = 0;
  std::optional<StatValue> min;
  std::optional<StatValue> max;
  // True when min (max) is a value of the column, false when it is only a bound.
  bool min_exact = false;
  bool max_exact = false;

  bool operator==(const ColumnStats&) const = default;
};

// The statistics of a well-formed column (ValidateColumn).
ColumnStats ComputeStats(const Column& column);

// True when `value` holds the alternative StatValue uses for scalar type `id`.
bool StatValueMatches(const StatValue& value, TypeId id);

}  // namespace omnigraph::table
