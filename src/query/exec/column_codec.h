// The value <-> column codec: typed values in and out of the columns of a node or edge table.
//
// The load, mutation and query layers carry property values as schema::Value; tables hold
// columns (query/exec/table_schema.h). RowsBuilder turns entities into a ColumnBatch in the type's
// table schema, checking that every value fits its property's type (the kind of value, integer
// range, F32 finiteness, vector dimension, nulls); ValueAt reads one slot back as a Value.
//
// What a value of each property type may be when appended:
//   String, enum        kString (enum membership is a constraint, checked by the write path)
//   Bool                kBool
//   I32 I64 U32 U64     kInt or kUInt within the column's range
//   F32 F64             kFloat, kInt or kUInt (F32 must be finite after rounding)
//   Date / DateTime     kDate / kDateTime
//   Blob                kString holding the bytes
//   [T]                 kList of values that fit T
//   Vector(N)           kList of exactly N numbers
// ValueAt returns kInt for I32/I64, kUInt for U32/U64, kFloat for F32/F64 (an F32 widened),
// kString for String and Blob, kDate, kDateTime, kList for lists and vectors, Null for a null
// slot. Pure functions and a single-threaded builder.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "schema/ir.h"
#include "schema/value.h"
#include "table/column.h"
#include "table/column_builder.h"

namespace omnigraph::query {

// The value in slot `row` of `column` (row < column.length()).
schema::Value ValueAt(const table::Column& column, uint64_t row);

// Checks that `value` fits a property of type `type` as described above and returns it in the
// form the column stores (integers in range, floats for float columns, F32 rounded). Null is
// accepted only for nullable types. InvalidArgument otherwise; the message names the expected
// type and the value, and the caller adds which property.
Result<schema::Value> CoerceValue(const schema::Value& value, const schema::PropType& type);

// Builds the rows of one node or edge type.
class RowsBuilder {
 public:
  // InvalidArgument when the type has no table schema (query/exec/table_schema.h). `type` must
  // outlive the builder.
  static Result<RowsBuilder> Make(const schema::TypeDef& type);

  RowsBuilder(RowsBuilder&&) noexcept = default;
  RowsBuilder& operator=(RowsBuilder&&) noexcept = default;

  const schema::TypeDef& type() const { return *type_; }
  uint64_t num_rows() const { return rows_; }

  // Appends one entity. `values` is aligned with type().properties; a missing (nullopt) value
  // is null. `src` and `dst` are used for edges only. On error (InvalidArgument naming the
  // property, e.g. "property 'age' of node:Person: expected I32, got string \"x\"") nothing is
  // appended.
  Status Append(std::string_view id, std::string_view src, std::string_view dst,
                std::span<const std::optional<schema::Value>> values);

  // The batch so far, in the type's table schema; the builder is left empty and reusable.
  Result<table::ColumnBatch> Finish();
  // Reserves room for a batch like `previous` (one this builder finished): a loader filling
  // batch after batch reserves each from the last (ColumnBuilder::ReserveLike).
  void ReserveLike(const table::ColumnBatch& previous);

 private:
  RowsBuilder(const schema::TypeDef& type, table::Schema schema);
  void AppendValue(table::ColumnBuilder& builder, const schema::Value& value);

  const schema::TypeDef* type_;
  table::Schema schema_;
  std::vector<table::ColumnBuilder> builders_;
  uint64_t rows_ = 0;
};

}  // namespace omnigraph::query
