// Writing fragment files (.ogf): a ColumnBatch becomes one immutable object in the layout of
// docs/format/fragment.md — each column's Arrow buffers, each zstd-compressed (or stored plainly
// when tiny or incompressible) and checksummed, then a footer with the schema, row count,
// buffer directory and per-column statistics. Stateless functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "storage/object_store.h"
#include "table/column.h"
#include "table/fragment_format.h"

namespace omnigraph::table {

// Buffers smaller than this are stored uncompressed by default: a zstd frame has ~10 bytes of
// overhead, and a tiny buffer gains nothing from it.
inline constexpr uint64_t kCompressMinBytes = 64;
// A fixed-width column's values are compressed as zstd frames of at most this many bytes each,
// so that a read of one row decodes one frame, not the whole buffer (decision 219: 4,096 I32
// values; a frame more costs a dozen bytes of header and its own entropy tables).
inline constexpr uint64_t kFixedWidthFrameBytes = 16 * 1024;

struct FragmentWriteOptions {
  // kZstd compresses every buffer of at least compress_min_bytes (and keeps the compressed form
  // only when it is smaller); kNone stores every buffer plainly.
  Codec codec = Codec::kZstd;
  int zstd_level = 3;
  uint64_t compress_min_bytes = kCompressMinBytes;
  // With kZstd, offsets buffers are stored as zstd of their differences (Codec::kDeltaZstd);
  // false stores them as every other buffer (what readers before that codec read).
  bool delta_offsets = true;
  // With kZstd, the frame bound of a fixed-width column's values (0: one frame per buffer, what
  // the writers before decision 219 wrote; readers of either read both).
  uint64_t fixed_width_frame_bytes = kFixedWidthFrameBytes;
};

// The bytes of a fragment holding `batch`. InvalidArgument when the batch is malformed
// (ValidateBatch) or the options are (unknown codec, zstd level out of range). When
// `column_offsets` is given it receives where each column's stored bytes begin, in column order,
// and then where the footer begins (what a manifest records of a large fragment, decision 235).
Result<std::string> EncodeFragment(const ColumnBatch& batch,
                                   const FragmentWriteOptions& options = {},
                                   std::vector<uint64_t>* column_offsets = nullptr);

struct WrittenFragment {
  uint64_t num_rows = 0;
  // The object's size, which the table manifest records so that readers can open it with one
  // ranged read (OpenFragment).
  uint64_t size_bytes = 0;
};

// Encodes `batch` and creates object `name` with PutIfAbsent. When the name exists already with
// the identical bytes (a re-driven write whose first attempt landed) that is success; with other
// bytes it is AlreadyExists. InvalidArgument as for EncodeFragment; storage failures as the
// store reports them.
Result<WrittenFragment> WriteFragment(storage::ObjectStore& store, std::string_view name,
                                      const ColumnBatch& batch,
                                      const FragmentWriteOptions& options = {});

}  // namespace omnigraph::table
