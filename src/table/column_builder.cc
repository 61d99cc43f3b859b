#include "table/column_builder.h"

#include <cstring>
#include <string>

namespace omnigraph::table {

ColumnBuilder::ColumnBuilder(DataType type, bool nullable) : type_(type), nullable_(nullable) {
  OMNIGRAPH_CHECK_MSG(ValidateDataType(type).ok(), "ColumnBuilder of an invalid type");
  if (IsVariableWidth(type.id) || type.id == TypeId::kList) offsets_.Push<int32_t>(0);
  if (type.id == TypeId::kList) {
    child_ = std::make_unique<ColumnBuilder>(DataType::Scalar(type.element), false);
  } else if (type.id == TypeId::kVector) {
    child_ = std::make_unique<ColumnBuilder>(DataType::Scalar(TypeId::kF32), false);
  }
}

void ColumnBuilder::Reserve(uint64_t rows, uint64_t value_bytes) {
  const uint64_t total = length_ + rows;
  if (validity_materialized_) validity_.Reserve(BitmapBytes(total));
  if (!offsets_.empty()) offsets_.Reserve(4 * (total + 1));
  if (type_.id == TypeId::kBool) values_.Reserve(BitmapBytes(total));
  if (FixedWidthBytes(type_.id) != 0) values_.Reserve(total * FixedWidthBytes(type_.id));
  if (IsVariableWidth(type_.id)) values_.Reserve(values_.size() + value_bytes);
}

void ColumnBuilder::ReserveLike(const Column& previous) {
  validity_.Reserve(validity_.size() + previous.validity().size());
  offsets_.Reserve(offsets_.size() + previous.offsets_buffer().size());
  values_.Reserve(values_.size() + previous.values_buffer().size());
  if (child_ != nullptr && previous.has_child()) child_->ReserveLike(previous.child());
}

void ColumnBuilder::Fail(std::string message) {
  if (error_.ok()) error_ = InvalidArgument(std::move(message));
}

void ColumnBuilder::SetBit(bool valid) {
  if ((length_ & 7) == 0) validity_.Push<uint8_t>(0);
  if (valid) validity_.data()[length_ >> 3] |= static_cast<uint8_t>(1u << (length_ & 7));
}

void ColumnBuilder::MaterializeValidity() {
  // Every slot so far is valid; the bitmap is created on the first null only, so columns
  // without nulls carry none (as Arrow allows).
  validity_.Clear();
  validity_.AppendZeros(BitmapBytes(length_));
  for (uint64_t i = 0; i < length_; ++i) {
    validity_.data()[i >> 3] |= static_cast<uint8_t>(1u << (i & 7));
  }
  validity_materialized_ = true;
}

void ColumnBuilder::CheckOffset(uint64_t end) {
  if (end > kOffsetValueMax) {
    Fail(type_.ToString() + " column: " + std::to_string(end) +
         " bytes or elements exceed the int32 offset range");
  }
}

void ColumnBuilder::AppendNull() {
  if (!nullable_)
    Fail(type_.ToString() + " column is not nullable; slot " + std::to_string(length_) +
         " is null");
  if (!validity_materialized_) MaterializeValidity();
  // A null slot still occupies its place in every buffer (Arrow's layout).
  switch (type_.id) {
    case TypeId::kBool:
      if ((length_ & 7) == 0) values_.Push<uint8_t>(0);
      break;
    case TypeId::kString:
    case TypeId::kBinary: offsets_.Push<int32_t>(offsets_.As<int32_t>().back()); break;
    case TypeId::kList: offsets_.Push<int32_t>(offsets_.As<int32_t>().back()); break;
    case TypeId::kVector:
      for (uint32_t k = 0; k < type_.vector_dim; ++k) child_->Append<float>(0.0f);
      break;
    default: values_.AppendZeros(FixedWidthBytes(type_.id));
  }
  SetBit(false);
  ++length_;
  ++null_count_;
}

void ColumnBuilder::AppendBool(bool value) {
  OMNIGRAPH_CHECK_MSG(type_.id == TypeId::kBool, "AppendBool() on a non-Bool column");
  if ((length_ & 7) == 0) values_.Push<uint8_t>(0);
  if (value) values_.data()[length_ >> 3] |= static_cast<uint8_t>(1u << (length_ & 7));
  SetValid();
}

void ColumnBuilder::AppendString(std::string_view value) {
  OMNIGRAPH_CHECK_MSG(IsVariableWidth(type_.id), "AppendString() on a non-String column");
  const uint64_t end = values_.size() + value.size();
  CheckOffset(end);
  values_.Append(value.data(), value.size());
  offsets_.Push<int32_t>(static_cast<int32_t>(end));
  SetValid();
}

void ColumnBuilder::AppendVector(std::span<const float> values) {
  OMNIGRAPH_CHECK_MSG(type_.id == TypeId::kVector, "AppendVector() on a non-Vector column");
  if (values.size() != type_.vector_dim) {
    Fail("Vector(" + std::to_string(type_.vector_dim) + ") slot " + std::to_string(length_) +
         " has " + std::to_string(values.size()) + " values");
    for (uint32_t k = 0; k < type_.vector_dim; ++k) child_->Append<float>(0.0f);
    SetValid();
    return;
  }
  Buffer& child_values = child_->values_;
  child_values.Append(values.data(), values.size_bytes());
  child_->length_ += values.size();
  SetValid();
}

ColumnBuilder& ColumnBuilder::list_child() {
  OMNIGRAPH_CHECK_MSG(type_.id == TypeId::kList, "list_child() on a non-List column");
  return *child_;
}

void ColumnBuilder::EndList() {
  OMNIGRAPH_CHECK_MSG(type_.id == TypeId::kList, "EndList() on a non-List column");
  CheckOffset(child_->length_);
  offsets_.Push<int32_t>(static_cast<int32_t>(child_->length_));
  SetValid();
}

void ColumnBuilder::AppendStringList(std::span<const std::string_view> elements) {
  ColumnBuilder& child = list_child();
  for (std::string_view element : elements) child.AppendString(element);
  EndList();
}

Result<Column> ColumnBuilder::Finish() {
  Status error = std::move(error_);
  error_ = Status::Ok();
  if (length_ > kRowsMax) {
    error = InvalidArgument(std::to_string(length_) + " rows exceed the limit of " +
                            std::to_string(kRowsMax));
  }
  std::unique_ptr<Column> child;
  if (child_ != nullptr) {
    Result<Column> finished = child_->Finish();
    if (!finished.ok() && error.ok()) error = finished.status();
    if (finished.ok()) child = std::make_unique<Column>(std::move(finished).value());
  }
  Column column(type_, length_, null_count_, std::move(validity_), std::move(offsets_),
                std::move(values_), std::move(child));
  *this = ColumnBuilder(type_, nullable_);
  if (!error.ok()) return error;
  return column;
}

}  // namespace omnigraph::table
