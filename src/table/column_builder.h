// ColumnBuilder: builds a Column one slot at a time (append a value or a null), in amortized
// constant time per value and without per-value allocation.
//
// Appending a value of the wrong C++ type for the column's type is a programmer error
// (checked). Input errors — a null in a non-nullable column, a vector of the wrong dimension,
// more bytes or elements than int32 offsets address, more than kRowsMax rows — are remembered
// and reported by Finish() as InvalidArgument, so hot loops need not check every call.
// Lists: append the elements to list_child() and then call EndList(), or use AppendList().
// Not thread-safe.
#pragma once

#include <memory>
#include <span>
#include <string_view>

#include "table/column.h"

namespace omnigraph::table {

class ColumnBuilder {
 public:
  // `type` must be valid (ValidateDataType; checked).
  ColumnBuilder(DataType type, bool nullable);
  ColumnBuilder(ColumnBuilder&&) noexcept = default;
  ColumnBuilder& operator=(ColumnBuilder&&) noexcept = default;

  const DataType& type() const { return type_; }
  uint64_t length() const { return length_; }

  // Reserves room for `rows` more slots and, for String/Binary, `value_bytes` more bytes.
  void Reserve(uint64_t rows, uint64_t value_bytes = 0);
  // Reserves as many bytes in each buffer as `previous` (a column this builder finished, or one
  // of its type) holds, its list or vector elements too: a builder filled batch after batch of
  // like size then grows no buffer by doubling, which copies what it holds and touches about
  // twice the pages (decision 249).
  void ReserveLike(const Column& previous);

  void AppendNull();
  void AppendBool(bool value);
  // A fixed-width value; T must be the column's physical type (IsPhysicalType).
  template <typename T>
  void Append(T value) {
    OMNIGRAPH_CHECK_MSG(IsPhysicalType<T>(type_.id), "Append<T>() of the wrong type");
    values_.Push(value);
    SetValid();
  }
  // A String or Binary value.
  void AppendString(std::string_view value);
  // A Vector(N) value; `values` must hold N floats.
  void AppendVector(std::span<const float> values);

  // The element builder of a List column (non-nullable, of the element type).
  ColumnBuilder& list_child();
  // Ends one list slot holding the elements appended to list_child() since the previous slot.
  void EndList();
  // A whole list slot of Bool or fixed-width elements (use AppendStringList for strings).
  template <typename T>
  void AppendList(std::span<const T> elements) {
    ColumnBuilder& child = list_child();
    child.Reserve(elements.size());
    for (const T& element : elements) {
      if constexpr (std::is_same_v<T, bool>) {
        child.AppendBool(element);
      } else {
        child.Append(element);
      }
    }
    EndList();
  }
  void AppendStringList(std::span<const std::string_view> elements);

  // The finished column; InvalidArgument for the input errors described above. The builder is
  // left empty and reusable.
  Result<Column> Finish();

 private:
  void SetValid() {
    if (validity_materialized_) SetBit(true);
    ++length_;
  }
  void SetBit(bool valid);
  void MaterializeValidity();
  void Fail(std::string message);
  void CheckOffset(uint64_t end);

  DataType type_;
  bool nullable_ = false;
  uint64_t length_ = 0;
  uint64_t null_count_ = 0;
  bool validity_materialized_ = false;
  Buffer validity_;
  Buffer offsets_;
  Buffer values_;
  std::unique_ptr<ColumnBuilder> child_;
  Status error_;
};

}  // namespace omnigraph::table
