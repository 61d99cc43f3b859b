// One cell of a Binary (Blob) column, read without decoding its column: where its bytes lie in
// a fragment (docs/format/fragment.md §4: the slot [offsets[row], offsets[row+1]) of the
// column's values buffer), a validator for them, and a streamed read of any sub-range in bounded
// chunks of ranged GETs. What Blob delivery reads (docs/design/blob.md).
//
// Integrity: the format checks a buffer as a whole (XXH64 of its stored bytes). A read that
// consumes the whole stored values buffer verifies it and fails with Corruption at the end when
// it does not match; a read of part of a buffer cannot be checked against it and is not (a
// compressed buffer's frames are still checked by zstd as they decode). Values; thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "storage/object_store.h"
#include "table/fragment_format.h"
#include "table/fragment_reader.h"

namespace omnigraph::table {

// A read hands the caller at most this many bytes at a time, and holds about two such pieces
// (the stored bytes fetched and, for a compressed buffer, what they decode to).
inline constexpr uint64_t kCellReadChunkBytes = uint64_t{4} << 20;

struct BinaryCell {
  std::string object;         // The fragment object.
  uint64_t object_bytes = 0;  // Its size (every ranged GET checks it).
  BufferMeta values;          // The column's values buffer.
  uint64_t begin = 0;         // The cell is [begin, end) of the decoded values buffer.
  uint64_t end = 0;
  // False when the column's statistics prove that no value of the fragment begins with a NUL
  // byte (its minimum is non-empty and begins with another byte): a caller that gives values
  // opening with NUL a meaning (engine/read/external_blob.h) need not read this one's first bytes.
  bool may_start_with_nul = true;

  uint64_t size() const { return end - begin; }
  // A strong validator of the cell's bytes, quoted lower-case hex (an HTTP entity tag): the XXH64
  // of the values buffer's identity (its stored checksum, sizes and codec) and the slot's
  // bounds. Fragments are immutable, so the same cell of the same fragment always has the same
  // tag; different bytes have a different one (up to a 64-bit collision). Reads no payload.
  std::string Etag() const;
};

// The cell of Binary column `field_id` at `row` of the fragment `reader` opened: reads the
// column's validity bitmap (when it has one) and offsets, one ranged GET each. NotFound when the
// cell is null; InvalidArgument when the field is not a Binary column of the fragment; Corruption
// naming the object for damaged bytes or offsets out of bounds.
Result<BinaryCell> LocateBinaryCell(const FragmentReader& reader, uint32_t field_id, uint32_t row);

// Streams bytes [start, end) of `cell` (0 <= start <= end <= cell.size()) to `sink` in pieces of
// at most kCellReadChunkBytes, reading the object with ranged GETs of at most that size. A
// failure of the sink stops the read and is returned; Corruption naming the object for damage
// found (possibly after some bytes were handed over).
Status ReadBinaryCell(storage::ObjectStore& store, const BinaryCell& cell, uint64_t start,
                      uint64_t end, const std::function<Status(std::string_view)>& sink);

}  // namespace omnigraph::table
