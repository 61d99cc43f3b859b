#include "table/random_batch.h"

#include <bit>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "table/column_builder.h"

namespace omnigraph::table {

namespace {

template <typename T>
T RandomFixed(Random& random) {
  using L = std::numeric_limits<T>;
  const bool extreme = random.Uniform(6) == 0;
  if constexpr (std::is_floating_point_v<T>) {
    if (extreme) {
      const T choices[] = {L::lowest(), L::max(),      L::min(),       L::denorm_min(), T(0),
                           -T(0),       L::infinity(), -L::infinity(), L::quiet_NaN()};
      return choices[random.Uniform(std::size(choices))];
    }
    return static_cast<T>((random.NextDouble() - 0.5) * 2e6);
  } else {
    if (extreme) {
      const T choices[] = {L::min(), L::max(), T(0), static_cast<T>(L::max() - 1)};
      return choices[random.Uniform(std::size(choices))];
    }
    return static_cast<T>(random.Next64());
  }
}

std::string RandomBytes(Random& random, bool text) {
  const uint64_t roll = random.Uniform(12);
  // Mostly short values; sometimes empty; sometimes longer than the statistics bound, and
  // sometimes made of 0xff bytes, which have no short upper bound.
  const uint64_t length = roll == 0 ? 0 : roll == 1 ? 70 + random.Uniform(100) : random.Uniform(20);
  std::string out(length, '\0');
  const bool all_ff = !text && roll == 2;
  for (char& c : out) {
    c = all_ff ? '\xff'
        : text ? static_cast<char>('a' + random.Uniform(26))
               : static_cast<char>(random.Uniform(256));
  }
  return out;
}

void AppendRandomScalar(ColumnBuilder& builder, TypeId id, Random& random) {
  switch (id) {
    case TypeId::kBool: builder.AppendBool(random.Bernoulli(0.5)); break;
    case TypeId::kI32:
    case TypeId::kDate: builder.Append(RandomFixed<int32_t>(random)); break;
    case TypeId::kI64:
    case TypeId::kDateTime: builder.Append(RandomFixed<int64_t>(random)); break;
    case TypeId::kU32: builder.Append(RandomFixed<uint32_t>(random)); break;
    case TypeId::kU64: builder.Append(RandomFixed<uint64_t>(random)); break;
    case TypeId::kF32: builder.Append(RandomFixed<float>(random)); break;
    case TypeId::kF64: builder.Append(RandomFixed<double>(random)); break;
    case TypeId::kString:
    case TypeId::kBinary: builder.AppendString(RandomBytes(random, id == TypeId::kString)); break;
    default: OMNIGRAPH_CHECK_MSG(false, "not a scalar type");
  }
}

Column RandomColumn(const Field& field, uint64_t rows, Random& random) {
  ColumnBuilder builder(field.type, field.nullable);
  for (uint64_t i = 0; i < rows; ++i) {
    if (field.nullable && random.Uniform(4) == 0) {
      builder.AppendNull();
    } else if (field.type.id == TypeId::kList) {
      // One list in four is empty.
      const uint64_t count = random.Uniform(4) == 0 ? 0 : random.Uniform(6);
      for (uint64_t k = 0; k < count; ++k) {
        AppendRandomScalar(builder.list_child(), field.type.element, random);
      }
      builder.EndList();
    } else if (field.type.id == TypeId::kVector) {
      std::vector<float> values(field.type.vector_dim);
      for (float& v : values) v = RandomFixed<float>(random);
      builder.AppendVector(values);
    } else {
      AppendRandomScalar(builder, field.type.id, random);
    }
  }
  return std::move(builder.Finish()).value();
}

}  // namespace

Schema EveryTypeSchema() {
  std::vector<DataType> types;
  for (TypeId id = TypeId::kBool; id <= TypeId::kBinary;
       id = static_cast<TypeId>(static_cast<int>(id) + 1)) {
    types.push_back(DataType::Scalar(id));
    types.push_back(DataType::List(id));
  }
  types.push_back(DataType::Vector(1));
  types.push_back(DataType::Vector(3));
  Schema schema;
  uint32_t next_id = 1;
  for (const DataType& type : types) {
    for (bool nullable : {true, false}) {
      schema.push_back(Field{next_id, type.ToString() + (nullable ? "?" : ""), type, nullable});
      ++next_id;
    }
  }
  return schema;
}

ColumnBatch RandomBatch(const Schema& schema, uint64_t rows, Random& random) {
  std::vector<Column> columns;
  for (const Field& field : schema) columns.push_back(RandomColumn(field, rows, random));
  return ColumnBatch(schema, std::move(columns), rows);
}

}  // namespace omnigraph::table
