#include "query/exec/column_codec.h"

#include <cmath>
#include <limits>

#include "query/exec/table_schema.h"

namespace omnigraph::query {

using schema::PropType;
using schema::ScalarKind;
using schema::Value;

namespace {

Value ScalarAt(const table::Column& c, table::TypeId id, uint64_t i) {
  switch (id) {
    case table::TypeId::kBool: return Value::Bool(c.BoolAt(i));
    case table::TypeId::kI32: return Value::Int(c.values<int32_t>()[i]);
    case table::TypeId::kI64: return Value::Int(c.values<int64_t>()[i]);
    case table::TypeId::kU32: return Value::UInt(c.values<uint32_t>()[i]);
    case table::TypeId::kU64: return Value::UInt(c.values<uint64_t>()[i]);
    case table::TypeId::kF32: return Value::Float(c.values<float>()[i]);
    case table::TypeId::kF64: return Value::Float(c.values<double>()[i]);
    case table::TypeId::kDate: return Value::Date(c.values<int32_t>()[i]);
    case table::TypeId::kDateTime: return Value::DateTime(c.values<int64_t>()[i]);
    case table::TypeId::kString:
    case table::TypeId::kBinary: return Value::String(std::string(c.StringAt(i)));
    default: break;
  }
  OMNIGRAPH_CHECK_MSG(false, "ValueAt of a non-scalar element type");
  return Value();
}

Status Mismatch(const PropType& type, const Value& value) {
  return InvalidArgument("expected " + type.DisplayName() + ", got " +
                         std::string(schema::ValueTagName(value.tag())) + " " +
                         value.DebugString());
}

// An integer value (kInt or kUInt) within [lo, hi] as int128-free checks.
Result<Value> CoerceInteger(const Value& v, ScalarKind kind, const PropType& type) {
  if (v.tag() != Value::Tag::kInt && v.tag() != Value::Tag::kUInt) return Mismatch(type, v);
  const bool negative = v.tag() == Value::Tag::kInt && v.int_value() < 0;
  const uint64_t magnitude = v.tag() == Value::Tag::kUInt ? v.uint_value()
                             : negative                   ? 0
                                                          : static_cast<uint64_t>(v.int_value());
  auto out_of_range = [&] {
    return InvalidArgument("value " + v.DebugString() + " is out of range for " +
                           std::string(schema::ScalarKindName(kind)));
  };
  switch (kind) {
    case ScalarKind::kI32:
      if (negative ? v.int_value() < std::numeric_limits<int32_t>::min()
                   : magnitude > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
        return out_of_range();
      }
      return negative ? Value::Int(v.int_value()) : Value::Int(static_cast<int64_t>(magnitude));
    case ScalarKind::kI64:
      if (!negative && magnitude > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        return out_of_range();
      }
      return negative ? Value::Int(v.int_value()) : Value::Int(static_cast<int64_t>(magnitude));
    case ScalarKind::kU32:
      if (negative || magnitude > std::numeric_limits<uint32_t>::max()) return out_of_range();
      return Value::UInt(magnitude);
    case ScalarKind::kU64:
      if (negative) return out_of_range();
      return Value::UInt(magnitude);
    default: break;
  }
  return Mismatch(type, v);
}

Result<Value> CoerceScalar(const Value& v, ScalarKind kind, const PropType& type) {
  switch (kind) {
    case ScalarKind::kString:
    case ScalarKind::kBlob:
      if (v.tag() != Value::Tag::kString) return Mismatch(type, v);
      return v;
    case ScalarKind::kBool:
      if (v.tag() != Value::Tag::kBool) return Mismatch(type, v);
      return v;
    case ScalarKind::kI32:
    case ScalarKind::kI64:
    case ScalarKind::kU32:
    case ScalarKind::kU64: return CoerceInteger(v, kind, type);
    case ScalarKind::kF32:
    case ScalarKind::kF64: {
      double d = 0;
      switch (v.tag()) {
        case Value::Tag::kFloat: d = v.float_value(); break;
        case Value::Tag::kInt: d = static_cast<double>(v.int_value()); break;
        case Value::Tag::kUInt: d = static_cast<double>(v.uint_value()); break;
        default: return Mismatch(type, v);
      }
      if (kind == ScalarKind::kF32) {
        const float f = static_cast<float>(d);
        if (!std::isfinite(f)) {
          return InvalidArgument("value " + v.DebugString() + " exceeds F32 range");
        }
        return Value::Float(f);
      }
      return Value::Float(d);
    }
    case ScalarKind::kDate:
      if (v.tag() != Value::Tag::kDate) return Mismatch(type, v);
      return v;
    case ScalarKind::kDateTime:
      if (v.tag() != Value::Tag::kDateTime) return Mismatch(type, v);
      return v;
    case ScalarKind::kVector: break;
  }
  return Mismatch(type, v);
}

}  // namespace

Value ValueAt(const table::Column& column, uint64_t row) {
  if (column.IsNull(row)) return Value::Null();
  const table::DataType& t = column.type();
  if (t.id == table::TypeId::kList) {
    auto [begin, end] = column.ListRange(row);
    std::vector<Value> items;
    items.reserve(end - begin);
    for (uint64_t i = begin; i < end; ++i) items.push_back(ScalarAt(column.child(), t.element, i));
    return Value::List(std::move(items));
  }
  if (t.id == table::TypeId::kVector) {
    std::vector<Value> items;
    items.reserve(t.vector_dim);
    for (float f : column.VectorAt(row)) items.push_back(Value::Float(f));
    return Value::List(std::move(items));
  }
  return ScalarAt(column, t.id, row);
}

Result<Value> CoerceValue(const Value& value, const PropType& type) {
  if (value.is_null()) {
    if (!type.nullable) return InvalidArgument("null is not allowed for " + type.DisplayName());
    return value;
  }
  if (type.scalar == ScalarKind::kVector) {
    if (value.tag() != Value::Tag::kList) return Mismatch(type, value);
    if (value.list_items().size() != type.vector_dim) {
      return InvalidArgument("expected " + std::to_string(type.vector_dim) + " numbers for " +
                             type.DisplayName() + ", got " +
                             std::to_string(value.list_items().size()));
    }
    std::vector<Value> items;
    items.reserve(type.vector_dim);
    for (const Value& item : value.list_items()) {
      OMNIGRAPH_ASSIGN_OR_RETURN(Value f, CoerceScalar(item, ScalarKind::kF32, type));
      items.push_back(std::move(f));
    }
    return Value::List(std::move(items));
  }
  if (type.list) {
    if (value.tag() != Value::Tag::kList) return Mismatch(type, value);
    std::vector<Value> items;
    items.reserve(value.list_items().size());
    for (const Value& item : value.list_items()) {
      if (item.is_null())
        return InvalidArgument("a list element of " + type.DisplayName() + " cannot be null");
      OMNIGRAPH_ASSIGN_OR_RETURN(Value v, CoerceScalar(item, type.scalar, type));
      items.push_back(std::move(v));
    }
    return Value::List(std::move(items));
  }
  return CoerceScalar(value, type.scalar, type);
}

RowsBuilder::RowsBuilder(const schema::TypeDef& type, table::Schema schema)
    : type_(&type), schema_(std::move(schema)) {
  builders_.reserve(schema_.size());
  for (const table::Field& f : schema_) builders_.emplace_back(f.type, f.nullable);
}

Result<RowsBuilder> RowsBuilder::Make(const schema::TypeDef& type) {
  OMNIGRAPH_ASSIGN_OR_RETURN(table::Schema schema, TableSchemaFor(type));
  return RowsBuilder(type, std::move(schema));
}

void RowsBuilder::AppendValue(table::ColumnBuilder& b, const Value& v) {
  if (v.is_null()) {
    b.AppendNull();
    return;
  }
  const table::DataType& t = b.type();
  auto append_scalar = [](table::ColumnBuilder& out, table::TypeId id, const Value& x) {
    switch (id) {
      case table::TypeId::kBool: out.AppendBool(x.bool_value()); break;
      case table::TypeId::kI32: out.Append(static_cast<int32_t>(x.int_value())); break;
      case table::TypeId::kI64: out.Append(x.int_value()); break;
      case table::TypeId::kU32: out.Append(static_cast<uint32_t>(x.uint_value())); break;
      case table::TypeId::kU64: out.Append(x.uint_value()); break;
      case table::TypeId::kF32: out.Append(static_cast<float>(x.float_value())); break;
      case table::TypeId::kF64: out.Append(x.float_value()); break;
      case table::TypeId::kDate: out.Append(x.date_days()); break;
      case table::TypeId::kDateTime: out.Append(x.datetime_ms()); break;
      case table::TypeId::kString:
      case table::TypeId::kBinary: out.AppendString(x.string_value()); break;
      default: OMNIGRAPH_CHECK_MSG(false, "append of a non-scalar element");
    }
  };
  if (t.id == table::TypeId::kList) {
    for (const Value& item : v.list_items()) append_scalar(b.list_child(), t.element, item);
    b.EndList();
  } else if (t.id == table::TypeId::kVector) {
    std::vector<float> floats;
    floats.reserve(v.list_items().size());
    for (const Value& item : v.list_items())
      floats.push_back(static_cast<float>(item.float_value()));
    b.AppendVector(floats);
  } else {
    append_scalar(b, t.id, v);
  }
}

Status RowsBuilder::Append(std::string_view id, std::string_view src, std::string_view dst,
                           std::span<const std::optional<Value>> values) {
  const std::vector<schema::PropertyDef>& props = type_->properties;
  if (values.size() != props.size()) {
    return InvalidArgument(std::to_string(values.size()) + " values for " + type_->table_key() +
                           ", which has " + std::to_string(props.size()) + " properties");
  }
  // Check every value before appending anything, so a rejected entity leaves no partial row.
  std::vector<Value> coerced;
  coerced.reserve(props.size());
  for (size_t i = 0; i < props.size(); ++i) {
    Result<Value> v = CoerceValue(values[i] ? *values[i] : Value::Null(), props[i].type);
    if (!v.ok()) {
      return InvalidArgument("property '" + props[i].name + "' of " + type_->table_key() + ": " +
                             v.status().message());
    }
    coerced.push_back(std::move(*v));
  }
  size_t column = 0;
  builders_[column++].AppendString(id);
  if (type_->kind == schema::TypeKind::kEdge) {
    builders_[column++].AppendString(src);
    builders_[column++].AppendString(dst);
  }
  for (const Value& v : coerced) AppendValue(builders_[column++], v);
  ++rows_;
  return Status::Ok();
}

Result<table::ColumnBatch> RowsBuilder::Finish() {
  std::vector<table::Column> columns;
  columns.reserve(builders_.size());
  for (table::ColumnBuilder& b : builders_) {
    OMNIGRAPH_ASSIGN_OR_RETURN(table::Column c, b.Finish());
    columns.push_back(std::move(c));
  }
  const uint64_t rows = rows_;
  rows_ = 0;
  return table::ColumnBatch(schema_, std::move(columns), rows);
}

void RowsBuilder::ReserveLike(const table::ColumnBatch& previous) {
  if (previous.num_columns() != builders_.size()) return;
  for (size_t i = 0; i < builders_.size(); ++i) builders_[i].ReserveLike(previous.column(i));
}

}  // namespace omnigraph::query
