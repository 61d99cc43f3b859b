#include "table/types.h"

#include <unordered_set>

namespace omnigraph::table {

bool IsScalar(TypeId id) { return id >= TypeId::kBool && id <= TypeId::kBinary; }

bool IsOrderable(TypeId id) { return IsScalar(id); }

bool IsVariableWidth(TypeId id) { return id == TypeId::kString || id == TypeId::kBinary; }

uint32_t FixedWidthBytes(TypeId id) {
  switch (id) {
    case TypeId::kI32:
    case TypeId::kU32:
    case TypeId::kF32:
    case TypeId::kDate: return 4;
    case TypeId::kI64:
    case TypeId::kU64:
    case TypeId::kF64:
    case TypeId::kDateTime: return 8;
    default: return 0;
  }
}

std::string_view TypeIdName(TypeId id) {
  switch (id) {
    case TypeId::kNone: return "None";
    case TypeId::kBool: return "Bool";
    case TypeId::kI32: return "I32";
    case TypeId::kI64: return "I64";
    case TypeId::kU32: return "U32";
    case TypeId::kU64: return "U64";
    case TypeId::kF32: return "F32";
    case TypeId::kF64: return "F64";
    case TypeId::kDate: return "Date";
    case TypeId::kDateTime: return "DateTime";
    case TypeId::kString: return "String";
    case TypeId::kBinary: return "Binary";
    case TypeId::kList: return "List";
    case TypeId::kVector: return "Vector";
  }
  return "Unknown";
}

std::string DataType::ToString() const {
  if (id == TypeId::kList) return "List<" + std::string(TypeIdName(element)) + ">";
  if (id == TypeId::kVector) return "Vector(" + std::to_string(vector_dim) + ")";
  return std::string(TypeIdName(id));
}

Status ValidateDataType(const DataType& type) {
  const bool list = type.id == TypeId::kList;
  const bool vector = type.id == TypeId::kVector;
  if (!IsScalar(type.id) && !list && !vector) {
    return InvalidArgument("unknown type id " + std::to_string(static_cast<int>(type.id)));
  }
  if (list != (type.element != TypeId::kNone) || (list && !IsScalar(type.element))) {
    return InvalidArgument("type " + type.ToString() + ": a list needs a scalar element type " +
                           "and only a list has one");
  }
  if (vector != (type.vector_dim != 0) || type.vector_dim > kVectorDimMax) {
    return InvalidArgument("type " + type.ToString() + ": a vector needs a dimension in [1, " +
                           std::to_string(kVectorDimMax) + "] and only a vector has one");
  }
  return Status::Ok();
}

Status ValidateSchema(const Schema& schema) {
  if (schema.size() > kColumnsMax) {
    return InvalidArgument("schema has " + std::to_string(schema.size()) + " columns; at most " +
                           std::to_string(kColumnsMax) + " are allowed");
  }
  std::unordered_set<uint32_t> ids;
  for (const Field& field : schema) {
    if (field.name.size() > kFieldNameBytesMax) {
      return InvalidArgument("field " + std::to_string(field.id) + ": name is " +
                             std::to_string(field.name.size()) + " bytes; at most " +
                             std::to_string(kFieldNameBytesMax) + " are allowed");
    }
    OMNIGRAPH_RETURN_IF_ERROR(
        ValidateDataType(field.type).WithContext("field " + std::to_string(field.id)));
    if (!ids.insert(field.id).second) {
      return InvalidArgument("field id " + std::to_string(field.id) + " appears twice");
    }
  }
  return Status::Ok();
}

}  // namespace omnigraph::table
