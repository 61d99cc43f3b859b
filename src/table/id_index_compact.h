// The compact revision of the `ids` payload (docs/format/indexes.md "Compact revision"): the row
// references as runs (a fragment, a first row, a count of consecutive rows) and the ids
// front-coded (each id as the length it shares with the one before and the bytes after that).
// A load's generated ids ascend in row order, so their references are one run per fragment and
// their ids share most of their bytes with their neighbour. Decoding checks everything the flat
// revision's decoder checks and yields the flat in-memory arrays, so every caller of IdIndex is
// as fast as over a flat payload. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "table/row_gather.h"
#include "table/table_manifest.h"

namespace omnigraph::table {

// The revision numbers of an `ids` payload, the 4 bytes at offset 20.
inline constexpr uint32_t kIdsRevisionFlat = 0;
inline constexpr uint32_t kIdsRevisionCompact = 1;

// The ids and row references of a decoded compact payload, in position order.
struct DecodedIds {
  std::string blob;
  std::vector<uint32_t> ends;
  std::vector<RowRef> refs;
};

// Appends `v` as a LEB128 varint (the integers inside the compact and blocked sections).
void PutVarint(std::string& out, uint64_t v);

// Reads LEB128 varints and byte runs front to back; a read past the end (or an over-long varint)
// clears ok() and returns 0 or an empty view.
class VarintCursor {
 public:
  explicit VarintCursor(std::string_view s, size_t pos = 0) : s_(s), pos_(pos) {}
  bool ok() const { return ok_; }
  bool done() const { return pos_ == s_.size(); }
  size_t pos() const { return pos_; }
  uint64_t Varint();
  std::string_view Bytes(uint64_t n);

 private:
  std::string_view s_;
  size_t pos_ = 0;
  bool ok_ = true;
};

// The row references as runs (count, fragment, first row: consecutive rows of one fragment).
// With `block_ids` nonzero, for every block_ids-th reference the offset of the run holding it
// goes to `run_at` and how many of that run's references come before it to `run_skip`.
std::string EncodeRuns(std::span<const RowRef> refs, uint64_t block_ids,
                       std::vector<uint64_t>* run_at, std::vector<uint64_t>* run_skip);
// Each id as the length it shares with the id before it, the length of the rest and the rest.
// With `block_ids` nonzero, every block_ids-th id is stored whole (shared 0) and its offset goes
// to `id_at`.
std::string FrontCode(std::string_view blob, std::span<const uint32_t> ends, uint64_t block_ids,
                      std::vector<uint64_t>* id_at);

// The preamble fields the compact and blocked revisions share (docs/format/indexes.md).
struct IdsPreamble {
  uint64_t n = 0;           // Ids.
  uint64_t blob_bytes = 0;  // Their bytes together.
  uint64_t runs_bytes = 0;  // The run section's bytes.
  uint64_t ids_bytes = 0;   // The id section's bytes.
  uint64_t sections = 0;    // The bytes after the preamble.
};
// Checks a varint revision's preamble of `preamble_bytes` (its checksum in the last 8): the
// checksum, the count and fragment count against `manifest`, the id bytes below the limit and
// both sections inside the payload. Corruption naming `name`.
Result<IdsPreamble> CheckIdsPreamble(std::string_view payload, uint64_t preamble_bytes,
                                     const TableManifest& manifest, const std::string& name);

// The compact payload of a flat index's arrays (`blob` every id back to back, `ends[i]` where id
// i ends in it, `refs[i]` where its row lives) in a version of `fragment_count` fragments.
std::string EncodeCompactIds(std::string_view blob, std::span<const uint32_t> ends,
                             std::span<const RowRef> refs, uint32_t fragment_count);

// Decodes and checks a compact payload (revision already read) against `manifest`: the preamble
// and section checksums, sizes, the count and fragment count, every run inside its fragment, ids
// strictly ascending (checked by the caller over the result). Corruption naming `name`.
Result<DecodedIds> DecodeCompactIds(std::string_view payload, const TableManifest& manifest,
                                    const std::string& name);

}  // namespace omnigraph::table
