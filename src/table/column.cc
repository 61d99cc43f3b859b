#include "table/column.h"

#include <bit>
#include <cstring>
#include <string>

#include "base/utf8.h"

namespace omnigraph::table {

uint64_t CountSetBits(const uint8_t* bitmap, uint64_t bits) {
  uint64_t count = 0;
  const uint64_t whole_words = bits / 64;
  for (uint64_t w = 0; w < whole_words; ++w) {
    uint64_t word;
    std::memcpy(&word, bitmap + w * 8, 8);
    count += static_cast<uint64_t>(std::popcount(word));
  }
  for (uint64_t i = whole_words * 64; i < bits; ++i) count += GetBit(bitmap, i);
  return count;
}

Column::Column(DataType type, uint64_t length, uint64_t null_count, Buffer validity, Buffer offsets,
               Buffer values, std::unique_ptr<Column> child)
    : type_(type),
      length_(length),
      null_count_(null_count),
      validity_(std::move(validity)),
      offsets_(std::move(offsets)),
      values_(std::move(values)),
      child_(std::move(child)) {}

const Column& Column::child() const {
  OMNIGRAPH_CHECK_MSG(child_ != nullptr, "child() of a column without a child");
  return *child_;
}

namespace {

// Equality of valid scalar slot i of a and slot j of b (same type).
bool ScalarSlotEquals(const Column& a, uint64_t i, const Column& b, uint64_t j) {
  const TypeId id = a.type().id;
  if (id == TypeId::kBool) return a.BoolAt(i) == b.BoolAt(j);
  if (IsVariableWidth(id)) return a.StringAt(i) == b.StringAt(j);
  const uint32_t width = FixedWidthBytes(id);
  return std::memcmp(a.values_buffer().data() + i * width, b.values_buffer().data() + j * width,
                     width) == 0;
}

bool SlotEquals(const Column& a, const Column& b, uint64_t i) {
  switch (a.type().id) {
    case TypeId::kList: {
      auto [a_begin, a_end] = a.ListRange(i);
      auto [b_begin, b_end] = b.ListRange(i);
      if (a_end - a_begin != b_end - b_begin) return false;
      for (uint64_t k = 0; k < a_end - a_begin; ++k) {
        if (!ScalarSlotEquals(a.child(), a_begin + k, b.child(), b_begin + k)) return false;
      }
      return true;
    }
    case TypeId::kVector: {
      auto x = a.VectorAt(i), y = b.VectorAt(i);
      return std::memcmp(x.data(), y.data(), x.size_bytes()) == 0;
    }
    default: return ScalarSlotEquals(a, i, b, i);
  }
}

Status Invalid(const std::string& where, const std::string& what) {
  return InvalidArgument(where + ": " + what);
}

// Offsets of `rows` slots into a sequence of `end` items.
Status CheckOffsets(const Buffer& offsets, uint64_t rows, uint64_t end, const std::string& where) {
  if (offsets.size() != 4 * (rows + 1)) {
    return Invalid(where, "offsets buffer is " + std::to_string(offsets.size()) +
                              " bytes; expected " + std::to_string(4 * (rows + 1)));
  }
  if (end > kOffsetValueMax) {
    return Invalid(where, std::to_string(end) + " items exceed the int32 offset range");
  }
  const int32_t* o = offsets.As<int32_t>().data();
  bool decreasing = false;
  for (uint64_t i = 0; i < rows; ++i) decreasing |= o[i + 1] < o[i];
  if (o[0] != 0 || decreasing || static_cast<uint64_t>(o[rows]) != end) {
    return Invalid(where,
                   "offsets must start at 0, never decrease and end at " + std::to_string(end));
  }
  return Status::Ok();
}

Status CheckEmpty(const Buffer& buffer, const char* what, const std::string& where) {
  if (!buffer.empty()) return Invalid(where, std::string("unexpected ") + what + " buffer");
  return Status::Ok();
}

Status ValidateBody(const Column& c, bool nullable, const std::string& where) {
  OMNIGRAPH_RETURN_IF_ERROR(ValidateDataType(c.type()).WithContext(where));
  const uint64_t n = c.length();
  if (n > kRowsMax) return Invalid(where, std::to_string(n) + " rows exceed the limit");
  if (!c.validity().empty()) {
    if (c.validity().size() != BitmapBytes(n)) {
      return Invalid(where, "validity bitmap has the wrong size");
    }
    if (n - CountSetBits(c.validity().data(), n) != c.null_count()) {
      return Invalid(where, "null count does not match the validity bitmap");
    }
  } else if (c.null_count() != 0) {
    return Invalid(where, "nulls without a validity bitmap");
  }
  if (!nullable && c.null_count() != 0) return Invalid(where, "null in a non-nullable column");
  const TypeId id = c.type().id;
  if (id != TypeId::kList && id != TypeId::kVector && c.has_child()) {
    return Invalid(where, "unexpected child column");
  }
  if (id == TypeId::kBool || FixedWidthBytes(id) != 0) {
    OMNIGRAPH_RETURN_IF_ERROR(CheckEmpty(c.offsets_buffer(), "offsets", where));
    const uint64_t expected = id == TypeId::kBool ? BitmapBytes(n) : n * FixedWidthBytes(id);
    if (c.values_buffer().size() != expected) {
      return Invalid(where, "values buffer is " + std::to_string(c.values_buffer().size()) +
                                " bytes; expected " + std::to_string(expected));
    }
    return Status::Ok();
  }
  if (IsVariableWidth(id)) {
    return CheckOffsets(c.offsets_buffer(), n, c.values_buffer().size(), where);
  }
  OMNIGRAPH_RETURN_IF_ERROR(CheckEmpty(c.values_buffer(), "values", where));
  if (!c.has_child()) return Invalid(where, "missing child column");
  const Column& child = c.child();
  const std::string child_where = where + " child";
  if (id == TypeId::kList) {
    if (child.type() != DataType::Scalar(c.type().element)) {
      return Invalid(where, "child type " + child.type().ToString() + " is not the element type");
    }
    OMNIGRAPH_RETURN_IF_ERROR(CheckOffsets(c.offsets_buffer(), n, child.length(), where));
  } else {
    OMNIGRAPH_RETURN_IF_ERROR(CheckEmpty(c.offsets_buffer(), "offsets", where));
    if (child.type() != DataType::Scalar(TypeId::kF32) ||
        child.length() != n * c.type().vector_dim) {
      return Invalid(where, "vector child must be F32 with length * dimension values");
    }
  }
  if (!child.validity().empty()) return Invalid(child_where, "elements must not be null");
  return ValidateBody(child, /*nullable=*/false, child_where);
}

}  // namespace

bool Column::Equals(const Column& other) const {
  if (type_ != other.type_ || length_ != other.length_ || null_count_ != other.null_count_) {
    return false;
  }
  for (uint64_t i = 0; i < length_; ++i) {
    const bool valid = IsValid(i);
    if (valid != other.IsValid(i)) return false;
    if (valid && !SlotEquals(*this, other, i)) return false;
  }
  return true;
}

Status ValidateColumn(const Column& column, const Field& field) {
  const std::string where = "column " + std::to_string(field.id) + " (" + field.name + ")";
  if (column.type() != field.type) {
    return Invalid(where, "has type " + column.type().ToString() + "; the schema says " +
                              field.type.ToString());
  }
  return ValidateBody(column, field.nullable, where);
}

Status ValidateUtf8Values(const Column& column, const Field& field) {
  const bool list = column.type().id == TypeId::kList;
  if (column.type().id != TypeId::kString && !(list && column.type().element == TypeId::kString)) {
    return Status::Ok();
  }
  const Column& strings = list ? column.child() : column;
  // Fast path: the concatenated bytes are valid and every value starts on a sequence boundary,
  // so every value is valid.
  const std::string_view bytes(strings.value_bytes(), strings.values_buffer().size());
  bool valid = IsValidUtf8(bytes);
  for (int32_t o : strings.offsets()) {
    if (!valid) break;
    const auto at = static_cast<size_t>(o);
    valid = at >= bytes.size() || (static_cast<unsigned char>(bytes[at]) & 0xc0) != 0x80;
  }
  if (valid) return Status::Ok();
  for (uint64_t i = 0; i < strings.length(); ++i) {
    const std::string_view value = strings.StringAt(i);
    if (std::optional<size_t> bad = FindInvalidUtf8(value)) {
      return Invalid("column " + std::to_string(field.id) + " (" + field.name + ")",
                     std::string(list ? "list element " : "row ") + std::to_string(i) +
                         " is not valid UTF-8 (" + DescribeInvalidUtf8(value, *bad) + ")");
    }
  }
  return Status::Ok();
}

ColumnBatch::ColumnBatch(Schema schema, std::vector<Column> columns, uint64_t num_rows)
    : schema_(std::move(schema)), columns_(std::move(columns)), num_rows_(num_rows) {
  OMNIGRAPH_CHECK(schema_.size() == columns_.size());
  for (size_t i = 0; i < columns_.size(); ++i) {
    OMNIGRAPH_CHECK(columns_[i].length() == num_rows_);
    OMNIGRAPH_CHECK(columns_[i].type() == schema_[i].type);
  }
}

const Column* ColumnBatch::FindColumn(uint32_t field_id) const {
  for (size_t i = 0; i < schema_.size(); ++i) {
    if (schema_[i].id == field_id) return &columns_[i];
  }
  return nullptr;
}

Status ValidateBatch(const ColumnBatch& batch) {
  OMNIGRAPH_RETURN_IF_ERROR(ValidateSchema(batch.schema()));
  if (batch.num_rows() > kRowsMax) {
    return InvalidArgument("batch has " + std::to_string(batch.num_rows()) + " rows; at most " +
                           std::to_string(kRowsMax) + " are allowed");
  }
  for (size_t i = 0; i < batch.num_columns(); ++i) {
    OMNIGRAPH_RETURN_IF_ERROR(ValidateColumn(batch.column(i), batch.field(i)));
  }
  return Status::Ok();
}

}  // namespace omnigraph::table
