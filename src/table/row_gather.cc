#include "table/row_gather.h"

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

namespace omnigraph::table {

namespace {

void AppendScalar(ColumnBuilder& builder, const Column& source, TypeId id, uint64_t row) {
  switch (id) {
    case TypeId::kBool: builder.AppendBool(source.BoolAt(row)); break;
    case TypeId::kI32:
    case TypeId::kDate: builder.Append(source.values<int32_t>()[row]); break;
    case TypeId::kI64:
    case TypeId::kDateTime: builder.Append(source.values<int64_t>()[row]); break;
    case TypeId::kU32: builder.Append(source.values<uint32_t>()[row]); break;
    case TypeId::kU64: builder.Append(source.values<uint64_t>()[row]); break;
    case TypeId::kF32: builder.Append(source.values<float>()[row]); break;
    case TypeId::kF64: builder.Append(source.values<double>()[row]); break;
    case TypeId::kString:
    case TypeId::kBinary: builder.AppendString(source.StringAt(row)); break;
    default: OMNIGRAPH_CHECK_MSG(false, "AppendScalar of a non-scalar type");
  }
}

template <typename T>
void AppendFixedImage(std::string& out, const Column& column, uint64_t row) {
  const T value = column.values<T>()[row];
  out.append(reinterpret_cast<const char*>(&value), sizeof(T));
}

void AppendScalarImage(std::string& out, const Column& column, TypeId id, uint64_t row) {
  switch (id) {
    case TypeId::kBool: out.push_back(column.BoolAt(row) ? 1 : 0); break;
    case TypeId::kI32:
    case TypeId::kDate: AppendFixedImage<int32_t>(out, column, row); break;
    case TypeId::kI64:
    case TypeId::kDateTime: AppendFixedImage<int64_t>(out, column, row); break;
    case TypeId::kU32: AppendFixedImage<uint32_t>(out, column, row); break;
    case TypeId::kU64: AppendFixedImage<uint64_t>(out, column, row); break;
    case TypeId::kF32: AppendFixedImage<float>(out, column, row); break;
    case TypeId::kF64: AppendFixedImage<double>(out, column, row); break;
    case TypeId::kString:
    case TypeId::kBinary: {
      const std::string_view s = column.StringAt(row);
      const uint32_t size = static_cast<uint32_t>(s.size());
      out.append(reinterpret_cast<const char*>(&size), 4);
      out.append(s);
      break;
    }
    default: OMNIGRAPH_CHECK_MSG(false, "AppendScalarImage of a non-scalar type");
  }
}

Buffer Copy(const Buffer& buffer) { return Buffer::CopyOf(buffer.bytes()); }

}  // namespace

void AppendValue(ColumnBuilder& builder, const Column& source, uint64_t row) {
  if (source.IsNull(row)) {
    builder.AppendNull();
    return;
  }
  const DataType& type = source.type();
  if (type.id == TypeId::kList) {
    const auto [begin, end] = source.ListRange(row);
    ColumnBuilder& child = builder.list_child();
    for (uint64_t i = begin; i < end; ++i) AppendScalar(child, source.child(), type.element, i);
    builder.EndList();
  } else if (type.id == TypeId::kVector) {
    builder.AppendVector(source.VectorAt(row));
  } else {
    AppendScalar(builder, source, type.id, row);
  }
}

Column CopyColumn(const Column& column) {
  std::unique_ptr<Column> child;
  if (column.has_child()) child = std::make_unique<Column>(CopyColumn(column.child()));
  return Column(column.type(), column.length(), column.null_count(), Copy(column.validity()),
                Copy(column.offsets_buffer()), Copy(column.values_buffer()), std::move(child));
}

namespace {

// The rows of fixed-width sources none of which holds a null, as T: a loop with no per-row type
// switch or null check (a million-row column gathered into id order is most of loading it).
template <typename T>
void GatherFixed(ColumnBuilder& builder, std::span<const Column* const> sources,
                 std::span<const RowRef> rows) {
  std::vector<const T*> values(sources.size(), nullptr);
  for (size_t s = 0; s < sources.size(); ++s) {
    if (sources[s] != nullptr) values[s] = sources[s]->values<T>().data();
  }
  for (const RowRef& ref : rows) builder.Append<T>(values[ref.source][ref.row]);
}

// GatherFixed for a column of type `id`; false for a type it does not handle.
bool GatherFixedOf(TypeId id, ColumnBuilder& builder, std::span<const Column* const> sources,
                   std::span<const RowRef> rows) {
  switch (id) {
    case TypeId::kI32:
    case TypeId::kDate: GatherFixed<int32_t>(builder, sources, rows); return true;
    case TypeId::kI64:
    case TypeId::kDateTime: GatherFixed<int64_t>(builder, sources, rows); return true;
    case TypeId::kU32: GatherFixed<uint32_t>(builder, sources, rows); return true;
    case TypeId::kU64: GatherFixed<uint64_t>(builder, sources, rows); return true;
    case TypeId::kF32: GatherFixed<float>(builder, sources, rows); return true;
    case TypeId::kF64: GatherFixed<double>(builder, sources, rows); return true;
    default: return false;
  }
}

}  // namespace

Result<Column> GatherColumn(const Field& field, std::span<const Column* const> sources,
                            std::span<const RowRef> rows) {
  ColumnBuilder builder(field.type, field.nullable);
  builder.Reserve(rows.size());
  const bool any_null = std::any_of(sources.begin(), sources.end(), [](const Column* c) {
    return c != nullptr && c->null_count() > 0;
  });
  if (any_null || !GatherFixedOf(field.type.id, builder, sources, rows)) {
    for (const RowRef& ref : rows) AppendValue(builder, *sources[ref.source], ref.row);
  }
  return builder.Finish();
}

Result<ColumnBatch> GatherRows(const ColumnBatch& batch, std::span<const RowRef> rows) {
  std::vector<Column> columns;
  columns.reserve(batch.num_columns());
  for (size_t c = 0; c < batch.num_columns(); ++c) {
    const Column* source = &batch.column(c);
    OMNIGRAPH_ASSIGN_OR_RETURN(Column column,
                               GatherColumn(batch.field(c), std::span(&source, 1), rows));
    columns.push_back(std::move(column));
  }
  return ColumnBatch(batch.schema(), std::move(columns), rows.size());
}

ColumnBatch EmptyBatch(const Schema& schema) {
  std::vector<Column> columns;
  for (const Field& field : schema) {
    ColumnBuilder builder(field.type, field.nullable);
    Result<Column> column = builder.Finish();
    OMNIGRAPH_CHECK(column.ok());
    columns.push_back(std::move(column).value());
  }
  return ColumnBatch(schema, std::move(columns), 0);
}

void AppendValueImage(std::string& out, const Column& column, uint64_t row) {
  if (column.IsNull(row)) {
    out.push_back(0);
    return;
  }
  out.push_back(1);
  const DataType& type = column.type();
  if (type.id == TypeId::kList) {
    const auto [begin, end] = column.ListRange(row);
    const uint32_t count = static_cast<uint32_t>(end - begin);
    out.append(reinterpret_cast<const char*>(&count), 4);
    for (uint64_t i = begin; i < end; ++i) AppendScalarImage(out, column.child(), type.element, i);
  } else if (type.id == TypeId::kVector) {
    const std::span<const float> v = column.VectorAt(row);
    out.append(reinterpret_cast<const char*>(v.data()), v.size_bytes());
  } else {
    AppendScalarImage(out, column, type.id, row);
  }
}

std::string RowImage(const ColumnBatch& batch, uint64_t row) {
  std::string out;
  for (size_t c = 0; c < batch.num_columns(); ++c) AppendValueImage(out, batch.column(c), row);
  return out;
}

}  // namespace omnigraph::table
