// Row-level helpers over columns: copying whole columns, gathering rows from the columns of
// several fragments into one new column, and the byte image of a row that diffs compare.
//
// Scans, lookups by id and diffs all produce new, owned batches from columns that the caches
// share, so every result is independent of the cache. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "table/column.h"
#include "table/column_builder.h"

namespace omnigraph::table {

// One row of one source: `source` indexes a list of columns (one per fragment), `row` a slot.
struct RowRef {
  uint32_t source = 0;
  uint32_t row = 0;
  auto operator<=>(const RowRef&) const = default;
};

// Appends slot `row` of `source` (a well-formed column of the builder's type) to `builder`.
void AppendValue(ColumnBuilder& builder, const Column& source, uint64_t row);

// A deep copy of a column.
Column CopyColumn(const Column& column);

// A column of `field` holding, in order, slot r.row of sources[r.source] for each r in `rows`.
// The sources must be well-formed columns of the field's type. InvalidArgument only when the
// result exceeds a column limit.
Result<Column> GatherColumn(const Field& field, std::span<const Column* const> sources,
                            std::span<const RowRef> rows);

// The rows `rows` of one batch (every RowRef's source must be 0), in that order.
Result<ColumnBatch> GatherRows(const ColumnBatch& batch, std::span<const RowRef> rows);
// A batch with `schema` and no rows.
ColumnBatch EmptyBatch(const Schema& schema);

// Appends a self-delimiting byte image of slot `row` (null flag, then the value; floats bitwise),
// so that two slots have equal images exactly when Column::Equals would call them equal.
void AppendValueImage(std::string& out, const Column& column, uint64_t row);

// The image of row `row` over every column of `batch`, in column order.
std::string RowImage(const ColumnBatch& batch, uint64_t row);

}  // namespace omnigraph::table
