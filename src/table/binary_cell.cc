#include "table/binary_cell.h"

#include <zstd.h>

#include <algorithm>
#include <memory>

#include "base/hash.h"
#include "table/le_bytes.h"

namespace omnigraph::table {

namespace {

struct DctxDeleter {
  void operator()(ZSTD_DCtx* context) const { ZSTD_freeDCtx(context); }
};

Status Damaged(const BinaryCell& cell, const std::string& what) {
  return Corruption("blob cell: " + what, cell.object);
}

// Bytes [offset, offset + length) of the cell's object, checking that it is still the size the
// fragment was opened with.
Result<std::string> Fetch(storage::ObjectStore& store, const BinaryCell& cell, uint64_t offset,
                          uint64_t length) {
  Result<storage::GetResult> got = store.Get(cell.object, storage::ByteRange{offset, length});
  if (!got.ok()) {
    if (got.status().code() == Code::kInvalidArgument) {
      return Damaged(cell, "object is shorter than the expected " +
                               std::to_string(cell.object_bytes) + " bytes");
    }
    return got.status().WithObject(cell.object);
  }
  if (got->meta.size_bytes != cell.object_bytes || got->data.size() != length) {
    return Damaged(cell, "object is " + std::to_string(got->meta.size_bytes) + " bytes; expected " +
                             std::to_string(cell.object_bytes));
  }
  return std::move(got->data);
}

// [from, to) of a plain values buffer: ranged GETs of exactly those bytes.
Status ReadPlain(storage::ObjectStore& store, const BinaryCell& cell, uint64_t from, uint64_t to,
                 const std::function<Status(std::string_view)>& sink) {
  const bool whole = from == 0 && to == cell.values.stored_bytes;
  XxHash64Hasher hasher;
  for (uint64_t pos = from; pos < to;) {
    const uint64_t n = std::min(kCellReadChunkBytes, to - pos);
    OMNIGRAPH_ASSIGN_OR_RETURN(std::string piece, Fetch(store, cell, cell.values.offset + pos, n));
    if (whole) hasher.Update(piece);
    OMNIGRAPH_RETURN_IF_ERROR(sink(piece));
    pos += n;
  }
  if (whole && hasher.Finish() != cell.values.xxhash64) {
    return Damaged(cell, "values buffer checksum mismatch");
  }
  return Status::Ok();
}

// [from, to) of a zstd values buffer: the stored bytes from the start, a chunk at a time,
// decoded as a stream; only the decoded bytes inside the range reach the sink.
Status ReadCompressed(storage::ObjectStore& store, const BinaryCell& cell, uint64_t from,
                      uint64_t to, const std::function<Status(std::string_view)>& sink) {
  std::unique_ptr<ZSTD_DCtx, DctxDeleter> context(ZSTD_createDCtx());
  if (context == nullptr) return Internal("zstd could not allocate a decompression context");
  XxHash64Hasher hasher;
  std::string out(kCellReadChunkBytes, '\0');
  uint64_t stored = 0, decoded = 0;
  while (decoded < to && stored < cell.values.stored_bytes) {
    const uint64_t n = std::min(kCellReadChunkBytes, cell.values.stored_bytes - stored);
    OMNIGRAPH_ASSIGN_OR_RETURN(std::string in, Fetch(store, cell, cell.values.offset + stored, n));
    hasher.Update(in);
    stored += n;
    ZSTD_inBuffer input{in.data(), in.size(), 0};
    bool more = true;
    while (more && decoded < to) {
      ZSTD_outBuffer output{out.data(), out.size(), 0};
      const size_t r = ZSTD_decompressStream(context.get(), &output, &input);
      if (ZSTD_isError(r)) return Damaged(cell, std::string("zstd: ") + ZSTD_getErrorName(r));
      const uint64_t lo = std::max(from, decoded), hi = std::min(to, decoded + output.pos);
      if (lo < hi) {
        OMNIGRAPH_RETURN_IF_ERROR(sink(std::string_view(out.data() + (lo - decoded), hi - lo)));
      }
      decoded += output.pos;
      more = input.pos < input.size || output.pos == output.size;
    }
  }
  if (decoded < to) return Damaged(cell, "values buffer decodes to fewer bytes than its offsets");
  if (stored == cell.values.stored_bytes && hasher.Finish() != cell.values.xxhash64) {
    return Damaged(cell, "values buffer checksum mismatch");
  }
  return Status::Ok();
}

}  // namespace

std::string BinaryCell::Etag() const {
  std::string identity;
  for (uint64_t v : {values.xxhash64, values.stored_bytes, values.uncompressed_bytes,
                     static_cast<uint64_t>(values.codec), begin, end}) {
    AppendLe<uint64_t>(identity, v);
  }
  std::string hex;
  AppendLe<uint64_t>(hex, XxHash64(identity));
  return "\"" + HexEncode(hex) + "\"";
}

Result<BinaryCell> LocateBinaryCell(const FragmentReader& reader, uint32_t field_id, uint32_t row) {
  const int index = reader.footer().FindColumn(field_id);
  if (index < 0) return InvalidArgument("fragment " + reader.name() + " has no field");
  const ColumnMeta& column = reader.footer().columns[static_cast<size_t>(index)];
  if (column.field.type.id != TypeId::kBinary) {
    return InvalidArgument("field '" + column.field.name + "' is not a Binary column");
  }
  if (row >= reader.num_rows()) return Corruption("row out of range", reader.name());
  if (column.stats.null_count > 0) {
    OMNIGRAPH_ASSIGN_OR_RETURN(std::string validity,
                               reader.ReadBuffer(field_id, BufferKind::kValidity));
    if (validity.size() * 8 < reader.num_rows()) {
      return Corruption("blob cell: validity bitmap too short", reader.name());
    }
    if (((static_cast<uint8_t>(validity[row / 8]) >> (row % 8)) & 1) == 0) {
      return NotFound("the cell is null");
    }
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(std::string offsets,
                             reader.ReadBuffer(field_id, BufferKind::kOffsets));
  if (offsets.size() != 4 * (reader.num_rows() + 1)) {
    return Corruption("blob cell: offsets buffer of the wrong size", reader.name());
  }
  BinaryCell cell;
  cell.object = reader.name();
  cell.object_bytes = reader.size_bytes();
  for (const BufferMeta& b : column.buffers) {
    if (b.kind == BufferKind::kValues) cell.values = b;
  }
  const int32_t begin = LoadLe<int32_t>(offsets, 4 * size_t{row});
  const int32_t end = LoadLe<int32_t>(offsets, 4 * (size_t{row} + 1));
  if (begin < 0 || end < begin || static_cast<uint64_t>(end) > cell.values.uncompressed_bytes) {
    return Corruption("blob cell: offsets out of bounds", reader.name());
  }
  cell.begin = static_cast<uint64_t>(begin);
  cell.end = static_cast<uint64_t>(end);
  if (column.stats.min) {
    const std::string* min = std::get_if<std::string>(&*column.stats.min);
    cell.may_start_with_nul = min == nullptr || min->empty() || (*min)[0] == '\0';
  }
  return cell;
}

Status ReadBinaryCell(storage::ObjectStore& store, const BinaryCell& cell, uint64_t start,
                      uint64_t end, const std::function<Status(std::string_view)>& sink) {
  OMNIGRAPH_CHECK(start <= end && end <= cell.size());
  if (start == end) return Status::Ok();
  const uint64_t from = cell.begin + start, to = cell.begin + end;
  if (cell.values.codec == Codec::kNone) return ReadPlain(store, cell, from, to, sink);
  return ReadCompressed(store, cell, from, to, sink);
}

}  // namespace omnigraph::table
