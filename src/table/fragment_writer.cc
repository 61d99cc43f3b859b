#include "table/fragment_writer.h"

#include "base/hash.h"
#include "table/codec.h"

namespace omnigraph::table {

namespace {

std::span<const uint8_t> BytesOf(const Column& column, BufferKind kind) {
  switch (kind) {
    case BufferKind::kValidity: return column.validity().bytes();
    case BufferKind::kOffsets: return column.offsets_buffer().bytes();
    case BufferKind::kValues: return column.values_buffer().bytes();
    case BufferKind::kChildOffsets: return column.child().offsets_buffer().bytes();
    case BufferKind::kChildValues: return column.child().values_buffer().bytes();
  }
  return {};
}

// Appends one buffer to `out` and describes it; compressed, it is zstd frames of at most
// `frame_bytes` each (0: one frame).
Result<BufferMeta> AppendBuffer(std::span<const uint8_t> raw, BufferKind kind,
                                const FragmentWriteOptions& options, uint64_t frame_bytes,
                                std::string& out) {
  BufferMeta meta;
  meta.kind = kind;
  meta.offset = out.size();
  meta.uncompressed_bytes = raw.size();
  meta.codec = Codec::kNone;
  if (options.codec == Codec::kZstd && raw.size() >= options.compress_min_bytes) {
    // Offsets rise by each value's length: their differences are small and repeat, which zstd
    // holds in a fraction of what it keeps of the offsets themselves (decision 207).
    const bool delta = options.delta_offsets &&
                       (kind == BufferKind::kOffsets || kind == BufferKind::kChildOffsets);
    std::vector<uint8_t> deltas;
    if (delta) deltas = DeltaEncode32(raw);
    OMNIGRAPH_ASSIGN_OR_RETURN(
        size_t compressed, ZstdCompressFramesAppend(delta ? std::span<const uint8_t>(deltas) : raw,
                                                    options.zstd_level, frame_bytes, out));
    if (compressed < raw.size()) {
      meta.codec = delta ? Codec::kDeltaZstd : Codec::kZstd;
    } else {
      out.resize(meta.offset);  // Incompressible: keep the plain bytes instead.
    }
  }
  if (meta.codec == Codec::kNone) out.append(reinterpret_cast<const char*>(raw.data()), raw.size());
  meta.stored_bytes = out.size() - meta.offset;
  meta.xxhash64 = XxHash64(std::string_view(out).substr(meta.offset, meta.stored_bytes));
  return meta;
}

uint64_t RawBytes(const ColumnBatch& batch) {
  uint64_t total = 0;
  for (size_t i = 0; i < batch.num_columns(); ++i) {
    const Column& column = batch.column(i);
    total +=
        column.validity().size() + column.offsets_buffer().size() + column.values_buffer().size();
    if (column.has_child()) {
      total += column.child().offsets_buffer().size() + column.child().values_buffer().size();
    }
  }
  return total;
}

}  // namespace

Result<std::string> EncodeFragment(const ColumnBatch& batch, const FragmentWriteOptions& options,
                                   std::vector<uint64_t>* column_offsets) {
  if (options.codec != Codec::kNone && options.codec != Codec::kZstd) {
    return InvalidArgument("unknown codec " + std::to_string(static_cast<int>(options.codec)));
  }
  if (options.codec == Codec::kZstd)
    OMNIGRAPH_RETURN_IF_ERROR(ValidateZstdLevel(options.zstd_level));
  OMNIGRAPH_RETURN_IF_ERROR(ValidateBatch(batch));

  std::string out = EncodeHeader();
  // Compressed data is usually smaller than the raw buffers; this avoids most regrowth.
  out.reserve(RawBytes(batch) / 2 + 4096);
  FragmentFooter footer;
  footer.num_rows = batch.num_rows();
  if (column_offsets != nullptr) column_offsets->clear();
  for (size_t i = 0; i < batch.num_columns(); ++i) {
    const Column& column = batch.column(i);
    if (column_offsets != nullptr) column_offsets->push_back(out.size());
    ColumnMeta meta;
    meta.field = batch.field(i);
    meta.stats = ComputeStats(column);
    const bool fixed_width = FixedWidthBytes(column.type().id) != 0;
    for (BufferKind kind : ExpectedBuffers(column.type(), column.null_count() > 0)) {
      const uint64_t frame_bytes =
          fixed_width && kind == BufferKind::kValues ? options.fixed_width_frame_bytes : 0;
      OMNIGRAPH_ASSIGN_OR_RETURN(
          BufferMeta buffer, AppendBuffer(BytesOf(column, kind), kind, options, frame_bytes, out));
      meta.buffers.push_back(buffer);
    }
    footer.columns.push_back(std::move(meta));
  }
  const std::string footer_bytes = EncodeFooter(footer);
  if (footer_bytes.size() > kFooterBytesMax) {
    return InvalidArgument("fragment footer would be " + std::to_string(footer_bytes.size()) +
                           " bytes; at most " + std::to_string(kFooterBytesMax) + " are allowed");
  }
  if (column_offsets != nullptr) column_offsets->push_back(out.size());
  out.append(footer_bytes);
  out.append(EncodeTail(footer_bytes.size(), XxHash64(footer_bytes, kFragmentFormatVersion)));
  return out;
}

Result<WrittenFragment> WriteFragment(storage::ObjectStore& store, std::string_view name,
                                      const ColumnBatch& batch,
                                      const FragmentWriteOptions& options) {
  OMNIGRAPH_RETURN_IF_ERROR(storage::ValidateObjectName(name));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::string bytes, EncodeFragment(batch, options));
  OMNIGRAPH_ASSIGN_OR_RETURN(bool created, store.PutIfAbsent(name, bytes));
  if (!created) {
    OMNIGRAPH_ASSIGN_OR_RETURN(storage::GetResult existing, store.Get(name));
    if (existing.data != bytes) {
      return Status(Code::kAlreadyExists, "a different fragment exists under this name",
                    std::string(name));
    }
  }
  return WrittenFragment{batch.num_rows(), bytes.size()};
}

}  // namespace omnigraph::table
