// Randomized column batches for the table layer's tests: every type, nulls, empty strings and
// lists, and the extreme values of each type (min, max, zero, ±0.0, ±inf, NaN, subnormals).
// Deterministic for a given Random seed. Not thread-safe (the Random is shared).
#pragma once

#include <cstdint>

#include "base/random.h"
#include "table/column.h"

namespace omnigraph::table {

// One nullable and one non-nullable column of every scalar type, of List<T> for every scalar T,
// and of Vector(1) and Vector(3); field ids are 1, 2, 3, ... in that order.
Schema EveryTypeSchema();

// A batch of `rows` random rows for `schema`: about a quarter of the slots of nullable columns
// are null, and about one value in six is an extreme or empty value.
ColumnBatch RandomBatch(const Schema& schema, uint64_t rows, Random& random);

}  // namespace omnigraph::table
