// Scan predicates: a range (or equality) condition on one scalar column, used twice — to skip
// whole fragments whose footer statistics prove that no row can match, and to filter the rows
// of the fragments that are read.
//
// A row matches when its value is not null, not NaN, and lies within the bounds. Values compare
// as the statistics do: numbers numerically (so -0.0 equals 0.0), strings and bytes as unsigned
// bytes, false < true. Values; pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "table/fragment_format.h"
#include "table/stats.h"

namespace omnigraph::table {

struct Predicate {
  uint32_t field_id = 0;
  // Absent bounds are unbounded. Each bound holds the StatValue alternative of the column's type.
  std::optional<StatValue> lower;
  bool lower_inclusive = true;
  std::optional<StatValue> upper;
  bool upper_inclusive = true;

  static Predicate Equal(uint32_t field_id, StatValue value) {
    return Predicate{field_id, value, true, value, true};
  }
  // lower <= value < upper, either side optional.
  static Predicate HalfOpen(uint32_t field_id, std::optional<StatValue> lower,
                            std::optional<StatValue> upper) {
    return Predicate{field_id, std::move(lower), true, std::move(upper), false};
  }
};

// InvalidArgument unless the field exists in `schema`, is scalar, and each bound holds the
// column's value type and is not NaN.
Status ValidatePredicate(const Predicate& predicate, const Schema& schema);

// False only when the statistics of `column` (a fragment of `rows` rows) prove no row matches:
// every slot is null, or the [min, max] bounds lie outside the predicate's range.
bool StatsMayMatch(const ColumnMeta& column, uint64_t rows, const Predicate& predicate);

// Keeps in `selection` (row numbers, ascending) only the rows of `column` that match.
void FilterRows(const Column& column, const Predicate& predicate, std::vector<uint32_t>& selection);

}  // namespace omnigraph::table
