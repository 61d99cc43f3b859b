// Column and ColumnBatch: the in-memory columnar data every scan produces and every fragment
// write consumes, in Apache Arrow's layout (docs/format/fragment.md §Layouts).
//
// A Column holds `length` slots of one DataType in up to three Buffers plus, for nested types,
// one child Column:
//   validity  bit i (LSB first) is 1 when slot i is valid; empty when there are no nulls
//   offsets   int32, length + 1 entries, for String/Binary (into values) and List (into child)
//   values    fixed-width values, bit-packed Bool values, or the bytes of String/Binary
//   child     List<T>: the elements, a non-null column of T; Vector(N): a non-null F32 column
//             of length * N values
// Null slots still occupy space: a zero value, an empty string or list, N zero floats.
// Consumers iterate over raw spans (values<T>(), offsets(), value_bytes()) so a scan costs no
// per-value calls or allocations. Columns are immutable once built and move-only; concurrent
// readers are safe.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "table/buffer.h"
#include "table/types.h"

namespace omnigraph::table {

// A fragment (and so a batch) holds at most this many rows: offsets are int32 and bitmaps are
// indexed with 64-bit arithmetic, so this keeps every derived size far from overflow.
inline constexpr uint64_t kRowsMax = 2147483647;
// The values of one String/Binary column (or the elements of one List column) are addressed by
// int32 offsets, as in Arrow's non-"large" layouts.
inline constexpr uint64_t kOffsetValueMax = 2147483647;

// True when the C++ type T is the physical value type of `id` (int32_t for I32 and Date,
// int64_t for I64 and DateTime, uint32_t, uint64_t, float, double).
template <typename T>
constexpr bool IsPhysicalType(TypeId id) {
  if constexpr (std::is_same_v<T, int32_t>) return id == TypeId::kI32 || id == TypeId::kDate;
  if constexpr (std::is_same_v<T, int64_t>) return id == TypeId::kI64 || id == TypeId::kDateTime;
  if constexpr (std::is_same_v<T, uint32_t>) return id == TypeId::kU32;
  if constexpr (std::is_same_v<T, uint64_t>) return id == TypeId::kU64;
  if constexpr (std::is_same_v<T, float>) return id == TypeId::kF32;
  if constexpr (std::is_same_v<T, double>) return id == TypeId::kF64;
  return false;
}

inline bool GetBit(const uint8_t* bits, uint64_t i) { return (bits[i >> 3] >> (i & 7)) & 1; }
inline uint64_t BitmapBytes(uint64_t bits) { return (bits + 7) / 8; }
// The number of set bits among the first `bits` bits.
uint64_t CountSetBits(const uint8_t* bitmap, uint64_t bits);

class Column {
 public:
  Column() = default;
  // Assembles a column from its parts without checking them; ValidateColumn checks.
  Column(DataType type, uint64_t length, uint64_t null_count, Buffer validity, Buffer offsets,
         Buffer values, std::unique_ptr<Column> child);
  Column(Column&&) noexcept = default;
  Column& operator=(Column&&) noexcept = default;

  const DataType& type() const { return type_; }
  uint64_t length() const { return length_; }
  uint64_t null_count() const { return null_count_; }

  bool IsValid(uint64_t i) const { return validity_.empty() || GetBit(validity_.data(), i); }
  bool IsNull(uint64_t i) const { return !IsValid(i); }

  // Raw buffers (spans over them stay valid while the column lives).
  const Buffer& validity() const { return validity_; }
  const Buffer& offsets_buffer() const { return offsets_; }
  const Buffer& values_buffer() const { return values_; }
  // The child column of a List or Vector; a programmer error otherwise.
  const Column& child() const;
  bool has_child() const { return child_ != nullptr; }

  // Fixed-width values; T must be the physical type of the column's type (checked).
  template <typename T>
  std::span<const T> values() const {
    OMNIGRAPH_CHECK_MSG(IsPhysicalType<T>(type_.id), "values<T>() of a column of another type");
    return values_.As<T>();
  }
  // String/Binary/List offsets: length() + 1 entries.
  std::span<const int32_t> offsets() const { return offsets_.As<int32_t>(); }
  // The concatenated bytes of a String/Binary column.
  const char* value_bytes() const { return reinterpret_cast<const char*>(values_.data()); }

  bool BoolAt(uint64_t i) const { return GetBit(values_.data(), i); }
  std::string_view StringAt(uint64_t i) const {
    const int32_t* o = offsets_.As<int32_t>().data();
    return {value_bytes() + o[i], static_cast<size_t>(o[i + 1] - o[i])};
  }
  // The element range [begin, end) of list slot i within child().
  std::pair<uint64_t, uint64_t> ListRange(uint64_t i) const {
    const int32_t* o = offsets_.As<int32_t>().data();
    return {static_cast<uint64_t>(o[i]), static_cast<uint64_t>(o[i + 1])};
  }
  // The N floats of vector slot i.
  std::span<const float> VectorAt(uint64_t i) const {
    return child_->values_.As<float>().subspan(i * type_.vector_dim, type_.vector_dim);
  }

  // Logical equality: same type and length, same nulls, and equal values in every valid slot
  // (bytes under null slots are ignored; floats compare bitwise, so NaN equals itself).
  bool Equals(const Column& other) const;

 private:
  DataType type_;
  uint64_t length_ = 0;
  uint64_t null_count_ = 0;
  Buffer validity_;
  Buffer offsets_;
  Buffer values_;
  std::unique_ptr<Column> child_;
};

// InvalidArgument unless `column` is a well-formed column for `field`: the field's type, no
// nulls unless nullable, a null count that matches the bitmap, buffers of exactly the sizes the
// type and length imply, offsets starting at 0, non-decreasing and ending at the values' size,
// and a well-formed non-null child. Runs in time linear in the column's size; after it succeeds,
// every accessor above is in bounds.
Status ValidateColumn(const Column& column, const Field& field);

// InvalidArgument unless every value of a String column, or every element of a List<String>
// column, is valid UTF-8 (base/utf8.h), naming the first bad slot. Other types always pass.
// `column` must have passed ValidateColumn. Writes do not run this check (text is validated
// where it enters the system); fragment reads do, so that stored bytes that are not UTF-8 become
// a Corruption error naming the fragment instead of reaching an output.
Status ValidateUtf8Values(const Column& column, const Field& field);

// Rows of several columns with a schema; columns[i] belongs to schema[i]. Move-only.
class ColumnBatch {
 public:
  ColumnBatch() = default;
  // Checks (as a programmer error) that the counts, lengths and types line up; the contents are
  // checked by ValidateBatch.
  ColumnBatch(Schema schema, std::vector<Column> columns, uint64_t num_rows);
  ColumnBatch(ColumnBatch&&) noexcept = default;
  ColumnBatch& operator=(ColumnBatch&&) noexcept = default;

  const Schema& schema() const { return schema_; }
  uint64_t num_rows() const { return num_rows_; }
  size_t num_columns() const { return columns_.size(); }
  const Column& column(size_t i) const { return columns_[i]; }
  const Field& field(size_t i) const { return schema_[i]; }
  // The column of `field_id`, or null when the batch has none.
  const Column* FindColumn(uint32_t field_id) const;
  // Moves the columns out (the batch is left empty).
  std::vector<Column> ReleaseColumns() { return std::move(columns_); }

 private:
  Schema schema_;
  std::vector<Column> columns_;
  uint64_t num_rows_ = 0;
};

// InvalidArgument unless the schema is valid, the row count is at most kRowsMax and every column
// passes ValidateColumn for its field.
Status ValidateBatch(const ColumnBatch& batch);

}  // namespace omnigraph::table
