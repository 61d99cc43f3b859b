#include "query/exec/table_schema.h"

#include "table/table_manifest.h"

namespace omnigraph::query {

namespace {
table::TypeId ScalarTypeOf(schema::ScalarKind kind) {
  switch (kind) {
    case schema::ScalarKind::kString: return table::TypeId::kString;
    case schema::ScalarKind::kBool: return table::TypeId::kBool;
    case schema::ScalarKind::kI32: return table::TypeId::kI32;
    case schema::ScalarKind::kI64: return table::TypeId::kI64;
    case schema::ScalarKind::kU32: return table::TypeId::kU32;
    case schema::ScalarKind::kU64: return table::TypeId::kU64;
    case schema::ScalarKind::kF32: return table::TypeId::kF32;
    case schema::ScalarKind::kF64: return table::TypeId::kF64;
    case schema::ScalarKind::kDate: return table::TypeId::kDate;
    case schema::ScalarKind::kDateTime: return table::TypeId::kDateTime;
    case schema::ScalarKind::kBlob: return table::TypeId::kBinary;
    case schema::ScalarKind::kVector: return table::TypeId::kVector;
  }
  return table::TypeId::kString;
}
}  // namespace

table::DataType ColumnTypeOf(const schema::PropType& type) {
  if (type.scalar == schema::ScalarKind::kVector) return table::DataType::Vector(type.vector_dim);
  table::TypeId scalar = ScalarTypeOf(type.scalar);
  return type.list ? table::DataType::List(scalar) : table::DataType::Scalar(scalar);
}

Result<table::Schema> TableSchemaFor(const schema::TypeDef& type) {
  table::Schema out;
  const table::DataType text = table::DataType::Scalar(table::TypeId::kString);
  out.push_back(table::Field{table::kIdFieldId, "id", text, false});
  if (type.kind == schema::TypeKind::kEdge) {
    out.push_back(table::Field{table::kSrcFieldId, "src", text, false});
    out.push_back(table::Field{table::kDstFieldId, "dst", text, false});
  }
  for (const schema::PropertyDef& p : type.properties) {
    if (p.id == 0 || p.id >= table::kReservedFieldIdMin) {
      return InvalidArgument("property " + type.name + "." + p.name + " has stable id " +
                             std::to_string(p.id) + ", outside the column id range");
    }
    out.push_back(
        table::Field{static_cast<uint32_t>(p.id), p.name, ColumnTypeOf(p.type), p.type.nullable});
  }
  return out;
}

}  // namespace omnigraph::query
