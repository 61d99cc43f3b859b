// Test support for the table layer: a table schema covering every column type, random rows
// with chosen ids, and an in-memory model of a table (id -> row image) that every version's scan
// is checked against. Deterministic for a given Random seed. Not thread-safe.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "base/random.h"
#include "table/column.h"

namespace omnigraph::table {

// id, then EveryTypeSchema()'s columns; with `edge`, also src and dst.
Schema ModelSchema(bool edge = false);

// Rows of `schema` (which has the id column, and src/dst when an edge schema) holding `ids` in
// order and random values elsewhere.
ColumnBatch MakeRows(const Schema& schema, const std::vector<std::string>& ids, Random& random);

// id -> RowImage over the whole schema.
using Model = std::map<std::string, std::string>;

// Inserts or replaces every row of `rows` in `model`.
void ApplyRows(Model& model, const ColumnBatch& rows);
// The model of a scan result; duplicate ids are a test failure (checked).
Model ModelOf(const ColumnBatch& rows);

}  // namespace omnigraph::table
