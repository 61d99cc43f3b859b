#include "table/fragment_format.h"

#include <cstring>

#include "table/column.h"
#include "table/le_bytes.h"

namespace omnigraph::table {

namespace {

constexpr uint8_t kStatHasMin = 1, kStatHasMax = 2, kStatMinExact = 4, kStatMaxExact = 8;
constexpr uint8_t kStatFlagsAll = 15;
// Fixed bytes of one buffer entry in the footer.
constexpr uint64_t kBufferEntryBytes = 34;

// Reads little-endian values from a byte string; every read is bounds-checked and the first
// failure sticks, so a caller can read a whole record and check once.
class Cursor {
 public:
  explicit Cursor(std::string_view bytes) : bytes_(bytes) {}
  template <typename T>
  T Get() {
    if (!Need(sizeof(T))) return T{};
    const T value = LoadLe<T>(bytes_, pos_);
    pos_ += sizeof(T);
    return value;
  }
  std::string_view Bytes(uint64_t length) {
    if (!Need(length)) return {};
    std::string_view out = bytes_.substr(pos_, length);
    pos_ += length;
    return out;
  }
  bool ok() const { return ok_; }
  uint64_t remaining() const { return bytes_.size() - pos_; }

 private:
  bool Need(uint64_t length) {
    if (!ok_ || length > bytes_.size() - pos_) ok_ = false;
    return ok_;
  }
  std::string_view bytes_;
  size_t pos_ = 0;
  bool ok_ = true;
};

void PutStat(std::string& out, const StatValue& value) {
  std::visit(
      [&out](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>) {
          AppendLe<uint16_t>(out, static_cast<uint16_t>(v.size()));
          out.append(v);
        } else if constexpr (std::is_same_v<T, bool>) {
          AppendLe<uint8_t>(out, v ? 1 : 0);
        } else {
          AppendLe<T>(out, v);
        }
      },
      value);
}

template <typename T>
bool GetFixed(Cursor& cursor, std::optional<StatValue>& out) {
  out.emplace(std::in_place_type<T>, cursor.Get<T>());
  return true;
}

// Reads one statistic of scalar type `id` into `out`; false when malformed.
bool GetStat(Cursor& cursor, TypeId id, std::optional<StatValue>& out) {
  switch (id) {
    case TypeId::kBool: {
      const uint8_t b = cursor.Get<uint8_t>();
      out.emplace(std::in_place_type<bool>, b == 1);
      return b <= 1;
    }
    case TypeId::kI32:
    case TypeId::kDate: return GetFixed<int32_t>(cursor, out);
    case TypeId::kI64:
    case TypeId::kDateTime: return GetFixed<int64_t>(cursor, out);
    case TypeId::kU32: return GetFixed<uint32_t>(cursor, out);
    case TypeId::kU64: return GetFixed<uint64_t>(cursor, out);
    case TypeId::kF32: return GetFixed<float>(cursor, out);
    case TypeId::kF64: return GetFixed<double>(cursor, out);
    case TypeId::kString:
    case TypeId::kBinary: {
      const uint16_t length = cursor.Get<uint16_t>();
      if (length > kStatBytesMax) return false;
      out.emplace(std::in_place_type<std::string>, cursor.Bytes(length));
      return true;
    }
    default: return false;
  }
}

Status Bad(const std::string& what) { return Corruption("fragment footer: " + what); }

Result<ColumnMeta> DecodeColumn(Cursor& cursor, uint64_t rows, uint64_t& next_offset,
                                uint64_t data_end) {
  ColumnMeta column;
  Field& field = column.field;
  field.id = cursor.Get<uint32_t>();
  const uint16_t name_bytes = cursor.Get<uint16_t>();
  if (name_bytes > kFieldNameBytesMax) return Bad("field name too long");
  field.name = std::string(cursor.Bytes(name_bytes));
  field.type.id = static_cast<TypeId>(cursor.Get<uint8_t>());
  field.type.element = static_cast<TypeId>(cursor.Get<uint8_t>());
  field.type.vector_dim = cursor.Get<uint32_t>();
  const uint8_t nullable = cursor.Get<uint8_t>();
  column.stats.null_count = cursor.Get<uint64_t>();
  const uint8_t flags = cursor.Get<uint8_t>();
  if (!cursor.ok()) return Bad("truncated column entry");
  const std::string where = "column " + std::to_string(field.id) + ": ";
  if (!ValidateDataType(field.type).ok()) return Bad(where + "invalid type");
  if (nullable > 1 || (flags & ~kStatFlagsAll) != 0) return Bad(where + "reserved bits set");
  field.nullable = nullable == 1;
  if (column.stats.null_count > rows || (!field.nullable && column.stats.null_count > 0)) {
    return Bad(where + "impossible null count");
  }
  const bool has_min = flags & kStatHasMin, has_max = flags & kStatHasMax;
  if ((has_min || has_max) && !IsOrderable(field.type.id))
    return Bad(where + "stats on " + field.type.ToString());
  if ((!has_min && (flags & kStatMinExact)) || (!has_max && (flags & kStatMaxExact))) {
    return Bad(where + "exactness flag without a value");
  }
  column.stats.min_exact = flags & kStatMinExact;
  column.stats.max_exact = flags & kStatMaxExact;
  const bool stats_ok = (!has_min || GetStat(cursor, field.type.id, column.stats.min)) &&
                        (!has_max || GetStat(cursor, field.type.id, column.stats.max));
  if (!cursor.ok() || !stats_ok) {
    return Bad(where + "malformed statistics");
  }
  const std::vector<BufferKind> expected = ExpectedBuffers(field.type, column.stats.null_count > 0);
  const uint8_t buffer_count = cursor.Get<uint8_t>();
  if (!cursor.ok() || buffer_count != expected.size() ||
      cursor.remaining() < buffer_count * kBufferEntryBytes) {
    return Bad(where + "wrong number of buffers");
  }
  for (BufferKind kind : expected) {
    BufferMeta buffer;
    buffer.kind = static_cast<BufferKind>(cursor.Get<uint8_t>());
    buffer.codec = static_cast<Codec>(cursor.Get<uint8_t>());
    buffer.offset = cursor.Get<uint64_t>();
    buffer.stored_bytes = cursor.Get<uint64_t>();
    buffer.uncompressed_bytes = cursor.Get<uint64_t>();
    buffer.xxhash64 = cursor.Get<uint64_t>();
    if (buffer.kind != kind) return Bad(where + "buffers out of order");
    if (buffer.codec != Codec::kNone && buffer.codec != Codec::kZstd &&
        buffer.codec != Codec::kDeltaZstd) {
      return Bad(where + "unknown codec");
    }
    if (buffer.codec == Codec::kDeltaZstd &&
        ((kind != BufferKind::kOffsets && kind != BufferKind::kChildOffsets) ||
         buffer.uncompressed_bytes % sizeof(uint32_t) != 0)) {
      return Bad(where + "delta codec on a buffer that is not 4-byte offsets");
    }
    if (buffer.codec == Codec::kNone && buffer.stored_bytes != buffer.uncompressed_bytes) {
      return Bad(where + "uncompressed buffer with two sizes");
    }
    // Buffers tile the data region in order; this also bounds every offset and length.
    if (buffer.offset != next_offset || buffer.stored_bytes > data_end - next_offset) {
      return Bad(where + "buffer at " + std::to_string(buffer.offset) + " (" +
                 std::to_string(buffer.stored_bytes) + " bytes) is misplaced");
    }
    next_offset += buffer.stored_bytes;
    column.buffers.push_back(buffer);
  }
  return column;
}

}  // namespace

Schema FragmentFooter::schema() const {
  Schema schema;
  schema.reserve(columns.size());
  for (const ColumnMeta& column : columns) schema.push_back(column.field);
  return schema;
}

int FragmentFooter::FindColumn(uint32_t field_id) const {
  for (size_t i = 0; i < columns.size(); ++i) {
    if (columns[i].field.id == field_id) return static_cast<int>(i);
  }
  return -1;
}

std::vector<BufferKind> ExpectedBuffers(const DataType& type, bool has_nulls) {
  std::vector<BufferKind> kinds;
  if (has_nulls) kinds.push_back(BufferKind::kValidity);
  if (IsVariableWidth(type.id)) {
    kinds.push_back(BufferKind::kOffsets);
    kinds.push_back(BufferKind::kValues);
  } else if (type.id == TypeId::kList) {
    kinds.push_back(BufferKind::kOffsets);
    if (IsVariableWidth(type.element)) kinds.push_back(BufferKind::kChildOffsets);
    kinds.push_back(BufferKind::kChildValues);
  } else if (type.id == TypeId::kVector) {
    kinds.push_back(BufferKind::kChildValues);
  } else {
    kinds.push_back(BufferKind::kValues);
  }
  return kinds;
}

std::string EncodeFooter(const FragmentFooter& footer) {
  std::string out;
  AppendLe<uint64_t>(out, footer.num_rows);
  AppendLe<uint32_t>(out, static_cast<uint32_t>(footer.columns.size()));
  for (const ColumnMeta& column : footer.columns) {
    const Field& field = column.field;
    AppendLe<uint32_t>(out, field.id);
    AppendLe<uint16_t>(out, static_cast<uint16_t>(field.name.size()));
    out.append(field.name);
    AppendLe<uint8_t>(out, static_cast<uint8_t>(field.type.id));
    AppendLe<uint8_t>(out, static_cast<uint8_t>(field.type.element));
    AppendLe<uint32_t>(out, field.type.vector_dim);
    AppendLe<uint8_t>(out, field.nullable ? 1 : 0);
    AppendLe<uint64_t>(out, column.stats.null_count);
    const ColumnStats& stats = column.stats;
    uint8_t flags = (stats.min ? kStatHasMin : 0) | (stats.max ? kStatHasMax : 0) |
                    (stats.min && stats.min_exact ? kStatMinExact : 0) |
                    (stats.max && stats.max_exact ? kStatMaxExact : 0);
    AppendLe<uint8_t>(out, flags);
    if (stats.min) PutStat(out, *stats.min);
    if (stats.max) PutStat(out, *stats.max);
    AppendLe<uint8_t>(out, static_cast<uint8_t>(column.buffers.size()));
    for (const BufferMeta& buffer : column.buffers) {
      AppendLe<uint8_t>(out, static_cast<uint8_t>(buffer.kind));
      AppendLe<uint8_t>(out, static_cast<uint8_t>(buffer.codec));
      AppendLe<uint64_t>(out, buffer.offset);
      AppendLe<uint64_t>(out, buffer.stored_bytes);
      AppendLe<uint64_t>(out, buffer.uncompressed_bytes);
      AppendLe<uint64_t>(out, buffer.xxhash64);
    }
  }
  return out;
}

Result<FragmentFooter> DecodeFooter(std::string_view bytes, uint64_t data_end) {
  Cursor cursor(bytes);
  FragmentFooter footer;
  footer.num_rows = cursor.Get<uint64_t>();
  const uint32_t column_count = cursor.Get<uint32_t>();
  if (!cursor.ok()) return Bad("truncated header");
  if (footer.num_rows > kRowsMax) return Bad("row count " + std::to_string(footer.num_rows));
  if (column_count > kColumnsMax) return Bad("column count " + std::to_string(column_count));
  uint64_t next_offset = kHeaderBytes;
  for (uint32_t i = 0; i < column_count; ++i) {
    OMNIGRAPH_ASSIGN_OR_RETURN(ColumnMeta column,
                               DecodeColumn(cursor, footer.num_rows, next_offset, data_end));
    footer.columns.push_back(std::move(column));
  }
  if (!cursor.ok() || cursor.remaining() != 0) return Bad("trailing or missing bytes");
  if (next_offset != data_end) return Bad("buffers do not cover the data region");
  Status schema = ValidateSchema(footer.schema());
  if (!schema.ok()) return Bad(schema.message());
  return footer;
}

std::string EncodeHeader() {
  std::string out(kFragmentMagic, 4);
  AppendLe<uint32_t>(out, kFragmentFormatVersion);
  return out;
}

std::string EncodeTail(uint64_t footer_bytes, uint64_t footer_xxhash64) {
  std::string out;
  AppendLe<uint64_t>(out, footer_bytes);
  AppendLe<uint64_t>(out, footer_xxhash64);
  AppendLe<uint32_t>(out, kFragmentFormatVersion);
  out.append(kFragmentMagic, 4);
  return out;
}

Status CheckHeader(std::string_view bytes, uint32_t version) {
  if (bytes.size() != kHeaderBytes || std::memcmp(bytes.data(), kFragmentMagic, 4) != 0) {
    return Corruption("not a fragment file: bad magic at the start");
  }
  Cursor cursor(bytes.substr(4));
  const uint32_t header_version = cursor.Get<uint32_t>();
  if (header_version != version) {
    return Corruption("format version " + std::to_string(header_version) +
                      " at the start differs from version " + std::to_string(version) +
                      " at the end");
  }
  return Status::Ok();
}

Result<Tail> DecodeTail(std::string_view bytes) {
  if (bytes.size() != kTailBytes || std::memcmp(bytes.data() + 20, kFragmentMagic, 4) != 0) {
    return Corruption("not a fragment file: bad magic at the end");
  }
  Cursor cursor(bytes);
  Tail tail;
  tail.footer_bytes = cursor.Get<uint64_t>();
  tail.footer_xxhash64 = cursor.Get<uint64_t>();
  tail.version = cursor.Get<uint32_t>();
  return tail;
}

}  // namespace omnigraph::table
