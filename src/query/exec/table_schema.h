// The columnar schema of the table that holds one node or edge type: the reserved `id` (and
// `src`, `dst` on edges) columns, then one column per property, keyed by its stable property id.
// Pure; thread-safe.
#pragma once

#include "base/status.h"
#include "schema/ir.h"
#include "table/types.h"

namespace omnigraph::query {

// The table column type of a property type: enums are Strings, Blob is Binary, lists are
// List<scalar>, Vector(N) is a fixed-size list of f32.
table::DataType ColumnTypeOf(const schema::PropType& type);

// InvalidArgument when a property id does not fit a column id (stable ids are u64; column ids
// u32 below the reserved range).
Result<table::Schema> TableSchemaFor(const schema::TypeDef& type);

}  // namespace omnigraph::query
