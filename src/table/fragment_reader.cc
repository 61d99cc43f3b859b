#include "table/fragment_reader.h"

#include <algorithm>
#include <cstring>

#include "base/hash.h"
#include "table/codec.h"

namespace omnigraph::table {

namespace {

// Decodes one column's buffers from the bytes of its file range [meta.begin(), meta.end()).
// Each buffer's size is derived from the row count and the buffers before it, and checked
// against the footer before anything is allocated or decoded. Given rows [begin, end) other than
// all of them, it decodes only those (FragmentReader::ReadRows: from row 0 for a scalar column,
// from any row for a fixed-width one without nulls): each buffer only as far as those rows reach,
// its checksum still verified over all its stored bytes.
class ColumnDecoder {
 public:
  ColumnDecoder(const ColumnMeta& meta, uint64_t rows, const char* bytes, const std::string& object,
                uint64_t begin, uint64_t end)
      : meta_(meta), rows_(rows), begin_(begin), prefix_(end), bytes_(bytes), object_(object) {}

  Result<Column> Decode() {
    const DataType& type = meta_.field.type;
    Buffer validity;
    uint64_t null_count = meta_.stats.null_count;
    if (meta_.stats.null_count > 0) {
      OMNIGRAPH_ASSIGN_OR_RETURN(validity, Next(BitmapBytes(rows_), 0, BitmapBytes(prefix_)));
      if (prefix_ < rows_) null_count = prefix_ - CountSetBits(validity.data(), prefix_);
    }
    Buffer offsets, values;
    std::unique_ptr<Column> child;
    if (type.id == TypeId::kBool || FixedWidthBytes(type.id) != 0) {
      // Only a fixed-width column without nulls is read from a row past 0 (ReadRows).
      OMNIGRAPH_ASSIGN_OR_RETURN(values,
                                 Next(FixedBytes(type.id, rows_), FixedBytes(type.id, begin_),
                                      FixedBytes(type.id, prefix_)));
    } else if (IsVariableWidth(type.id)) {
      OMNIGRAPH_ASSIGN_OR_RETURN(offsets, Next(4 * (rows_ + 1), 0, 4 * (prefix_ + 1)));
      // A prefix knows only its own last offset; the buffer's whole size is the footer's, which
      // the whole decode checks against the last offset.
      const uint64_t total =
          prefix_ < rows_ ? meta_.buffers[next_].uncompressed_bytes : LastOffset(offsets, rows_);
      OMNIGRAPH_ASSIGN_OR_RETURN(values, Next(total, 0, LastOffset(offsets, prefix_)));
    } else if (type.id == TypeId::kList) {
      OMNIGRAPH_ASSIGN_OR_RETURN(offsets, Next(4 * (rows_ + 1), 0, 4 * (rows_ + 1)));
      OMNIGRAPH_ASSIGN_OR_RETURN(child, DecodeChild(type.element, LastOffset(offsets, rows_)));
    } else {
      const uint64_t floats = rows_ * type.vector_dim;
      if (floats > kRowsMax) return Damaged("vector column holds too many values");
      OMNIGRAPH_ASSIGN_OR_RETURN(child, DecodeChild(TypeId::kF32, floats));
    }
    Column column(type, prefix_ - begin_, null_count, std::move(validity), std::move(offsets),
                  std::move(values), std::move(child));
    // Offsets are checked here, after decoding; until then only their last entry was used,
    // and only as the exact size of the next buffer.
    Status valid = ValidateColumn(column, meta_.field);
    if (valid.ok()) valid = ValidateUtf8Values(column, meta_.field);
    if (!valid.ok()) return Corruption("fragment data: " + valid.message(), object_);
    return column;
  }

 private:
  static uint64_t FixedBytes(TypeId id, uint64_t count) {
    return id == TypeId::kBool ? BitmapBytes(count) : count * FixedWidthBytes(id);
  }

  // The last entry of an offsets buffer of `count` slots, clamped at 0 (a negative value fails
  // validation later; here it only must not size a buffer).
  static uint64_t LastOffset(const Buffer& offsets, uint64_t count) {
    const int32_t last = offsets.As<int32_t>()[count];
    return last < 0 ? 0 : static_cast<uint64_t>(last);
  }

  Result<std::unique_ptr<Column>> DecodeChild(TypeId element, uint64_t count) {
    Buffer offsets, values;
    if (IsVariableWidth(element)) {
      OMNIGRAPH_ASSIGN_OR_RETURN(offsets, Next(4 * (count + 1), 0, 4 * (count + 1)));
      const uint64_t last = LastOffset(offsets, count);
      OMNIGRAPH_ASSIGN_OR_RETURN(values, Next(last, 0, last));
    } else {
      const uint64_t bytes = FixedBytes(element, count);
      OMNIGRAPH_ASSIGN_OR_RETURN(values, Next(bytes, 0, bytes));
    }
    return std::make_unique<Column>(DataType::Scalar(element), count, 0, Buffer(),
                                    std::move(offsets), std::move(values), nullptr);
  }

  // Verifies the next buffer, which must decode to exactly `expected_bytes`, and decodes its
  // bytes [from, to) (all of them unless a part of the rows is read).
  Result<Buffer> Next(uint64_t expected_bytes, uint64_t from, uint64_t to) {
    const size_t index = next_++;
    const BufferMeta& meta = meta_.buffers[index];
    const std::string which = "buffer " + std::to_string(index) + " of column " +
                              std::to_string(meta_.field.id) + " (" + meta_.field.name + ")";
    std::string_view stored(bytes_ + (meta.offset - meta_.begin()), meta.stored_bytes);
    if (XxHash64(stored) != meta.xxhash64) return Damaged(which + ": checksum mismatch");
    if (meta.uncompressed_bytes != expected_bytes) {
      return Damaged(which + " decodes to " + std::to_string(meta.uncompressed_bytes) +
                     " bytes; the column needs " + std::to_string(expected_bytes));
    }
    if (to > expected_bytes) {
      return Damaged(which + " holds " + std::to_string(expected_bytes) +
                     " bytes; the rows read need " + std::to_string(to));
    }
    Buffer buffer(to - from);
    if (meta.codec == Codec::kZstd || meta.codec == Codec::kDeltaZstd) {
      Status status =
          ZstdDecompressRange(stored, expected_bytes, from, {buffer.data(), buffer.size()});
      if (!status.ok()) return Damaged(which + ": " + status.message());
      // The delta form is a running sum, so a prefix of it decodes to a prefix of the values
      // (only offsets use it, and they are read from their start).
      if (meta.codec == Codec::kDeltaZstd) DeltaDecode32({buffer.data(), buffer.size()});
    } else if (to > from) {
      std::memcpy(buffer.data(), stored.data() + from, to - from);
    }
    return buffer;
  }

  Status Damaged(const std::string& what) const { return Corruption(what, object_); }

  const ColumnMeta& meta_;
  const uint64_t rows_;
  const uint64_t begin_;
  const uint64_t prefix_;
  const char* const bytes_;
  const std::string& object_;
  size_t next_ = 0;
};

}  // namespace

Status FragmentReader::Damaged(const std::string& what) const {
  return Corruption("fragment: " + what, name_);
}

Result<storage::SharedBytes> ReadFragmentRange(storage::ObjectStore& store, const std::string& name,
                                               uint64_t size_bytes, storage::ByteRange range) {
  Result<storage::SharedGetResult> got = store.GetShared(name, range);
  if (!got.ok()) {
    // Our ranges lie inside the size the fragment was opened with; a store that calls one
    // invalid has a shorter object.
    if (got.status().code() == Code::kInvalidArgument) {
      return Corruption(
          "fragment: object is shorter than the expected " + std::to_string(size_bytes) + " bytes",
          name);
    }
    return got.status().WithObject(name);
  }
  if (got->meta.size_bytes != size_bytes || got->data.size() != range.length) {
    return Corruption("fragment: object is " + std::to_string(got->meta.size_bytes) +
                          " bytes; expected " + std::to_string(size_bytes),
                      name);
  }
  return std::move(got->data);
}

Result<storage::SharedBytes> FragmentReader::Fetch(uint64_t offset, uint64_t length) const {
  return ReadFragmentRange(*store_, name_, size_bytes_, storage::ByteRange{offset, length});
}

Status FragmentReader::Open() {
  if (size_bytes_ < kFragmentBytesMin) {
    return Damaged(std::to_string(size_bytes_) + " bytes is smaller than any fragment (" +
                   std::to_string(kFragmentBytesMin) + ")");
  }
  const uint64_t first_read = std::min(size_bytes_, std::max(first_read_bytes_, kFooterReadBytes));
  cached_offset_ = size_bytes_ - first_read;
  OMNIGRAPH_ASSIGN_OR_RETURN(cached_, Fetch(cached_offset_, first_read));
  Result<Tail> tail = DecodeTail(cached_.view().substr(first_read - kTailBytes));
  if (!tail.ok()) return tail.status().WithObject(name_);
  const uint64_t footer_bytes = tail->footer_bytes;
  if (footer_bytes < kFooterBytesMin || footer_bytes > kFooterBytesMax ||
      footer_bytes > size_bytes_ - kHeaderBytes - kTailBytes) {
    return Damaged("footer length " + std::to_string(footer_bytes) + " is impossible");
  }
  const uint64_t footer_offset = size_bytes_ - kTailBytes - footer_bytes;
  if (footer_offset < cached_offset_) {
    OMNIGRAPH_ASSIGN_OR_RETURN(storage::SharedBytes rest,
                               Fetch(footer_offset, cached_offset_ - footer_offset));
    std::string joined;
    joined.reserve(rest.size() + cached_.size());
    joined.append(rest.view()).append(cached_.view());
    cached_ = storage::SharedBytes::FromString(std::move(joined));
    cached_offset_ = footer_offset;
  }
  std::string_view footer = cached_.view().substr(footer_offset - cached_offset_, footer_bytes);
  if (XxHash64(footer, tail->version) != tail->footer_xxhash64) {
    return Damaged("footer checksum mismatch");
  }
  if (tail->version != kFragmentFormatVersion) {
    return Status(Code::kFormatTooNew,
                  "fragment format version " + std::to_string(tail->version) +
                      "; this build reads version " + std::to_string(kFragmentFormatVersion),
                  name_);
  }
  version_ = tail->version;
  if (cached_offset_ == 0) {
    OMNIGRAPH_RETURN_IF_ERROR(
        CheckHeader(cached_.view().substr(0, kHeaderBytes), version_).WithObject(name_));
  }
  Result<FragmentFooter> decoded = DecodeFooter(footer, footer_offset);
  if (!decoded.ok()) return decoded.status().WithObject(name_);
  footer_ = std::move(decoded).value();
  return Status::Ok();
}

std::vector<storage::ByteRange> CoalesceColumnReads(
    std::span<const std::pair<uint64_t, uint64_t>> spans) {
  std::vector<storage::ByteRange> ranges;
  for (auto [begin, end] : spans) {
    if (begin == end) continue;
    if (begin == kHeaderBytes) begin = 0;
    if (!ranges.empty() && ranges.back().offset + ranges.back().length == begin) {
      ranges.back().length += end - begin;
    } else {
      ranges.push_back(storage::ByteRange{begin, end - begin});
    }
  }
  return ranges;
}

namespace {

// The bytes of [begin, end) when `held` holds all of them, else null.
const char* HeldSpan(std::span<const HeldBytes> held, uint64_t begin, uint64_t end) {
  for (const HeldBytes& h : held) {
    if (begin >= h.offset && end <= h.offset + h.data.size()) {
      return h.data.data() + (begin - h.offset);
    }
  }
  return nullptr;
}

}  // namespace

std::vector<storage::ByteRange> FragmentReader::PlanReads(std::span<const uint32_t> field_ids,
                                                          std::span<const HeldBytes> held) const {
  std::vector<int> indices;
  for (uint32_t id : field_ids) indices.push_back(footer_.FindColumn(id));
  std::sort(indices.begin(), indices.end());
  std::vector<std::pair<uint64_t, uint64_t>> spans;
  for (int index : indices) {
    const ColumnMeta& column = footer_.columns[static_cast<size_t>(index)];
    if (column.begin() >= cached_offset_) continue;
    if (HeldSpan(held, column.begin(), column.end()) != nullptr) continue;
    spans.emplace_back(column.begin(), column.end());
  }
  return CoalesceColumnReads(spans);
}

Result<std::string> FragmentReader::ReadBuffer(uint32_t field_id, BufferKind kind) const {
  const int index = footer_.FindColumn(field_id);
  if (index < 0) {
    return InvalidArgument("fragment " + name_ + " has no field " + std::to_string(field_id));
  }
  for (const BufferMeta& b : footer_.columns[static_cast<size_t>(index)].buffers) {
    if (b.kind != kind) continue;
    storage::SharedBytes stored;
    if (b.stored_bytes > 0) {
      OMNIGRAPH_ASSIGN_OR_RETURN(stored, Fetch(b.offset, b.stored_bytes));
    }
    if (XxHash64(stored.view()) != b.xxhash64) {
      return Damaged("buffer checksum mismatch at offset " + std::to_string(b.offset));
    }
    if (b.codec == Codec::kNone) return std::string(stored.view());
    std::string out(b.uncompressed_bytes, '\0');
    const Status decoded = ZstdDecompressExact(
        stored.view(), std::span(reinterpret_cast<uint8_t*>(out.data()), out.size()));
    if (!decoded.ok()) return Damaged(decoded.message());
    if (b.codec == Codec::kDeltaZstd) {
      DeltaDecode32(std::span(reinterpret_cast<uint8_t*>(out.data()), out.size()));
    }
    return out;
  }
  return NotFound("fragment " + name_ + " has no such buffer of field " + std::to_string(field_id));
}

Result<ColumnBatch> FragmentReader::Read(std::span<const uint32_t> field_ids) const {
  const std::vector<RowRange> all(field_ids.size(), RowRange{0, footer_.num_rows});
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<Column> columns, Decode(field_ids, all, {}));
  Schema schema;
  for (uint32_t id : field_ids) {
    schema.push_back(footer_.columns[static_cast<size_t>(footer_.FindColumn(id))].field);
  }
  return ColumnBatch(std::move(schema), std::move(columns), footer_.num_rows);
}

bool PrefixDecodable(const DataType& type) {
  return type.id == TypeId::kBool || FixedWidthBytes(type.id) != 0 || IsVariableWidth(type.id);
}

bool FragmentReader::RangeDecodable(uint32_t field_id) const {
  const int index = footer_.FindColumn(field_id);
  if (index < 0) return false;
  const ColumnMeta& meta = footer_.columns[static_cast<size_t>(index)];
  return FixedWidthBytes(meta.field.type.id) != 0 && meta.stats.null_count == 0;
}

Result<std::vector<Column>> FragmentReader::ReadRows(std::span<const uint32_t> field_ids,
                                                     std::span<const RowRange> rows,
                                                     std::span<const HeldBytes> held) const {
  if (rows.size() != field_ids.size()) {
    return InvalidArgument("ReadRows needs one row range per field", name_);
  }
  for (size_t i = 0; i < field_ids.size(); ++i) {
    const auto [begin, end] = rows[i];
    if (begin > end || end > footer_.num_rows) {
      return InvalidArgument("rows [" + std::to_string(begin) + ", " + std::to_string(end) +
                                 ") of a fragment of " + std::to_string(footer_.num_rows),
                             name_);
    }
    const int index = footer_.FindColumn(field_ids[i]);
    if (index < 0 || (begin == 0 && end == footer_.num_rows)) continue;  // Decode names it.
    const bool readable =
        begin == 0 ? PrefixDecodable(footer_.columns[static_cast<size_t>(index)].field.type)
                   : RangeDecodable(field_ids[i]);
    if (!readable) {
      return InvalidArgument("field " + std::to_string(field_ids[i]) + " can only be read whole",
                             name_);
    }
  }
  return Decode(field_ids, rows, held);
}

Result<std::vector<Column>> FragmentReader::Decode(std::span<const uint32_t> field_ids,
                                                   std::span<const RowRange> rows,
                                                   std::span<const HeldBytes> held) const {
  std::vector<size_t> indices;
  for (uint32_t id : field_ids) {
    const int index = footer_.FindColumn(id);
    if (index < 0) {
      return InvalidArgument("fragment has no field " + std::to_string(id), name_);
    }
    if (std::find(indices.begin(), indices.end(), static_cast<size_t>(index)) != indices.end()) {
      return InvalidArgument("field " + std::to_string(id) + " requested twice", name_);
    }
    indices.push_back(static_cast<size_t>(index));
  }
  std::vector<HeldBytes> fetched;
  for (const storage::ByteRange& range : PlanReads(field_ids, held)) {
    OMNIGRAPH_ASSIGN_OR_RETURN(storage::SharedBytes data, Fetch(range.offset, range.length));
    fetched.push_back(HeldBytes{range.offset, std::move(data)});
  }
  // Whatever holds the header (fetched now or held) checks it before any column is used.
  for (std::span<const HeldBytes> from : {held, std::span<const HeldBytes>(fetched)}) {
    for (const HeldBytes& h : from) {
      if (h.offset != 0 || h.data.size() < kHeaderBytes) continue;
      OMNIGRAPH_RETURN_IF_ERROR(
          CheckHeader(h.data.view().substr(0, kHeaderBytes), version_).WithObject(name_));
    }
  }
  std::vector<Column> columns;
  for (size_t i = 0; i < indices.size(); ++i) {
    const ColumnMeta& meta = footer_.columns[indices[i]];
    const char* bytes = nullptr;
    if (meta.begin() >= cached_offset_) {
      bytes = cached_.data() + (meta.begin() - cached_offset_);
    } else if (const char* h = HeldSpan(held, meta.begin(), meta.end()); h != nullptr) {
      bytes = h;
    } else {
      bytes = HeldSpan(fetched, meta.begin(), meta.end());
    }
    // Only empty columns (every buffer zero bytes) have nothing fetched; nothing is read then.
    static const char kNothing = 0;
    if (bytes == nullptr) bytes = &kNothing;
    OMNIGRAPH_ASSIGN_OR_RETURN(
        Column column,
        ColumnDecoder(meta, footer_.num_rows, bytes, name_, rows[i].begin, rows[i].end).Decode());
    columns.push_back(std::move(column));
  }
  return columns;
}

Result<ColumnBatch> FragmentReader::ReadAll() const {
  std::vector<uint32_t> ids;
  for (const ColumnMeta& column : footer_.columns) ids.push_back(column.field.id);
  return Read(ids);
}

Result<std::unique_ptr<FragmentReader>> OpenFragment(storage::ObjectStore& store,
                                                     std::string_view name, uint64_t size_bytes,
                                                     uint64_t first_read_bytes) {
  OMNIGRAPH_RETURN_IF_ERROR(storage::ValidateObjectName(name));
  std::unique_ptr<FragmentReader> reader(
      new FragmentReader(store, std::string(name), size_bytes, first_read_bytes));
  OMNIGRAPH_RETURN_IF_ERROR(reader->Open());
  return reader;
}

Result<std::unique_ptr<FragmentReader>> OpenFragment(storage::ObjectStore& store,
                                                     std::string_view name) {
  OMNIGRAPH_RETURN_IF_ERROR(storage::ValidateObjectName(name));
  OMNIGRAPH_ASSIGN_OR_RETURN(storage::ObjectMeta meta, store.Head(name));
  return OpenFragment(store, name, meta.size_bytes);
}

}  // namespace omnigraph::table
