// Column types of the table layer: the physical type of every column of a fragment file (.ogf)
// and of the in-memory columns scans produce (docs/format/fragment.md).
//
// A DataType is a type id plus, for List, the element type and, for Vector, the dimension. Each
// type maps to one Apache Arrow layout: fixed-width primitives, bit-packed Bool, variable-size
// String/Binary (int32 offsets), List<scalar> (int32 offsets + a child array) and Vector(N)
// (fixed-size list of N f32). A Field adds the stable field id, a name and nullability.
// Values; thread-compatible.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace omnigraph::table {

// The numeric values are the type codes written in fragment footers; never renumber them.
enum class TypeId : uint8_t {
  kNone = 0,  // Only as the element type of a non-list.
  kBool = 1,
  kI32 = 2,
  kI64 = 3,
  kU32 = 4,
  kU64 = 5,
  kF32 = 6,
  kF64 = 7,
  kDate = 8,      // int32 days since 1970-01-01 (Arrow Date32).
  kDateTime = 9,  // int64 milliseconds since the Unix epoch, UTC (Arrow Timestamp(ms, "UTC")).
  kString = 10,   // UTF-8 bytes (not validated by this layer); Arrow Utf8.
  kBinary = 11,   // Arbitrary bytes (Blob); Arrow Binary.
  kList = 12,     // List<element>; elements are scalars and never null.
  kVector = 13,   // FixedSizeList<f32>[dim]; Vector(N).
};

// The largest Vector(N) dimension a fragment accepts (the schema layer's bound).
inline constexpr uint32_t kVectorDimMax = 2147483647;

struct DataType {
  TypeId id = TypeId::kNone;
  TypeId element = TypeId::kNone;  // For kList: a scalar type id; otherwise kNone.
  uint32_t vector_dim = 0;         // For kVector: N >= 1; otherwise 0.

  static DataType Scalar(TypeId id) { return DataType{id, TypeId::kNone, 0}; }
  static DataType List(TypeId element) { return DataType{TypeId::kList, element, 0}; }
  static DataType Vector(uint32_t dim) { return DataType{TypeId::kVector, TypeId::kNone, dim}; }

  bool operator==(const DataType&) const = default;
  // "I64", "List<String>", "Vector(3)".
  std::string ToString() const;
};

// True for the scalar type ids (kBool .. kBinary).
bool IsScalar(TypeId id);
// True for types whose values have a total order usable for min/max statistics: every scalar
// except none; List and Vector have no statistics.
bool IsOrderable(TypeId id);
// True for String and Binary (int32 offsets + bytes).
bool IsVariableWidth(TypeId id);
// Bytes per value of a fixed-width scalar (4 or 8); 0 for Bool (bit-packed) and variable width.
uint32_t FixedWidthBytes(TypeId id);
// "Bool", "I32", ... (the schema spelling).
std::string_view TypeIdName(TypeId id);
// InvalidArgument unless `type` is well formed: a known id, a scalar element for lists and only
// for lists, a dimension in [1, kVectorDimMax] for vectors and only for vectors.
Status ValidateDataType(const DataType& type);

// One column of a fragment's schema.
struct Field {
  uint32_t id = 0;  // The stable property id from the schema layer; unique within a fragment.
  std::string name;
  DataType type;
  bool nullable = false;

  bool operator==(const Field&) const = default;
};

using Schema = std::vector<Field>;

// Field names are at most this many bytes.
inline constexpr size_t kFieldNameBytesMax = 1024;
// A fragment has at most this many columns.
inline constexpr size_t kColumnsMax = 4096;

// InvalidArgument unless every field is well formed, names are within bounds, and ids are unique.
Status ValidateSchema(const Schema& schema);

}  // namespace omnigraph::table
