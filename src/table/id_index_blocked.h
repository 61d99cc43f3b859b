// The blocked revisions of the `ids` payload (docs/format/indexes.md "Blocked revision (2)",
// "Prefixed revision (3)"): the compact revision's runs and front-coded ids, with the front coding
// restarted every kIdBlockIds ids and a directory saying where each block starts. A reader can
// then answer a point lookup from one block: a binary search over the blocks' first ids (each
// stored whole) and the decode of at most kIdBlockIds ids and their row references, instead of
// decoding every id of the version first (decision 211).
//
// Revision 2 checksums whole sections, so opening it hashes every byte of the payload. Revision 3
// (decision 234) puts everything a reader needs before its first block — the blocks' first ids,
// where each block ends and each block's checksum — in a prefix with a checksum of its own, and
// lays each block's ids and row references out together; opening hashes the preamble and the
// prefix, and a block's bytes are hashed when the block is first decoded. A point lookup then
// touches the prefix and one block of the payload, on a local store's mapping as on a read.
//
// BlockedIds is the reader of both. Open checks what can be checked without decoding every entry:
// the preamble, the sizes, the count and fragment count against the manifest, the checksums it
// covers (revision 2: every section, so any damaged byte is found at open; revision 3: the
// prefix) and the directory (offsets in order and inside their sections, every block's first id
// well formed and the first ids strictly ascending). The entries of a block are checked when it
// is first decoded (revision 3: its checksum first), against the same rules the compact decoder
// applies to all of them, so the point calls are fallible: a block that fails its checks (damaged
// in storage, under revision 3; or a payload crafted or written malformed with its checksums
// computed over it) is Corruption naming the object and the block, never an answer or a crash
// (decision 215). Decoded blocks are kept (never evicted) and shared; thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "storage/shared_bytes.h"
#include "table/id_index.h"
#include "table/id_index_compact.h"
#include "table/row_gather.h"
#include "table/table_manifest.h"

namespace omnigraph::table {

inline constexpr uint32_t kIdsRevisionBlocked = 2;
inline constexpr uint32_t kIdsRevisionPrefixed = 3;
// Revision 3 whose blocks may also say "the next r ids each the ULID one greater than the id
// before it" in one entry: a load mints its generated ids as such runs (UlidGenerator::NextRunAt),
// so an edge table's id index shrinks from about 3.2 bytes an id to a fifth of a byte (decision
// 260). Written for every index; revision 3 is still read.
inline constexpr uint32_t kIdsRevisionStepped = 4;
// Ids per block of revision 2: the front coding restarts at every block's first id.
inline constexpr uint64_t kIdBlockIds = 128;
// Ids per block of revision 3 as a writer stores it (the preamble says, for a reader). Larger than
// revision 2's: the prefix a lookup hashes and checks at open shrinks with the block count; not
// larger still, since a 1-hop decodes a block per target to read its id (decision 234).
inline constexpr uint64_t kPrefixedBlockIds = 256;

// The blocked payload of a flat index's arrays (as EncodeCompactIds). Its sections are addressed
// with 32-bit offsets: empty when a section would not fit them (the caller stores another
// revision).
std::string EncodeBlockedIds(std::string_view blob, std::span<const uint32_t> ends,
                             std::span<const RowRef> refs, uint32_t fragment_count);

// The prefixed payload (revision 4, or 3 when asked: tests of the readers) of a flat index's
// arrays, in blocks of `block_ids` ids: empty when its heads or data area would not fit 32-bit
// offsets (the caller stores another revision).
std::string EncodePrefixedIds(std::string_view blob, std::span<const uint32_t> ends,
                              std::span<const RowRef> refs, uint32_t fragment_count,
                              uint32_t revision = kIdsRevisionStepped,
                              uint64_t block_ids = kPrefixedBlockIds);

// Whether `payload`, a full `ids` object's, is of a revision whose own checksums cover every byte
// its reader uses, checked as it uses them (revisions 3 and 4): a whole read of the object then
// leaves the envelope's checksum of the whole payload to them (docs/format/derived.md), so that a
// point lookup hashes only what it touches.
bool IdsPayloadChecksItself(std::string_view payload);

// `payload`, a blocked or prefixed one, with every checksum computed over its bytes as they are
// (revision 2: each section's as the preamble sizes it; revision 3: each block's as the directory
// bounds it, then the prefix's; then the preamble's): what a writer that computed them over
// malformed bytes would store. For tests and the fuzz harness, which make such payloads to reach
// the checks of a block's entries; a payload shorter than its preamble comes back as is.
std::string ResealBlockedIds(std::string_view payload);

class BlockedIds {
 public:
  // Checks `payload` (revision 2, 3 or 4, already read) as the header says; keeps its bytes alive.
  // Corruption naming `name`.
  static Result<std::shared_ptr<const BlockedIds>> Open(const storage::SharedBytes& payload,
                                                        const TableManifest& manifest,
                                                        const std::string& name);
  ~BlockedIds();
  BlockedIds(const BlockedIds&) = delete;
  BlockedIds& operator=(const BlockedIds&) = delete;

  size_t size() const { return n_; }
  // The position of `id`, or -1. Corruption naming the object when the block that would hold it
  // fails its checks.
  Result<int64_t> Position(std::string_view id) const;
  // The id and the row reference at position `i` (< size()); Corruption as Position.
  Result<std::string_view> IdAt(size_t i) const;
  Result<const RowRef*> RefAt(size_t i) const;
  // Every block decoded into the flat arrays, with the checks the compact decoder makes of the
  // whole (the id bytes adding up to the preamble's). Corruption naming the object.
  Result<DecodedIds> DecodeAll() const;
  // Every row's reference in position order, the blocks' ids skipped (each block's checksum and
  // references checked as DecodeAll checks them, its ids not): what a scan in id order needs
  // (decision 255). Corruption naming the object and the block.
  Result<std::vector<RowRef>> DecodeRefs() const;
  // The payload's bytes plus the blocks decoded so far.
  uint64_t bytes() const;
  // How many blocks have been decoded (observability for tests).
  uint64_t blocks_decoded() const { return decoded_.load(std::memory_order_relaxed); }
  uint64_t blocks() const { return heads_.size(); }
  // How many bytes of the payload have been hashed: at open and by block decodes (observability
  // for tests and benchmarks).
  uint64_t bytes_hashed() const { return hashed_.load(std::memory_order_relaxed); }

  // The flat copy made once on first need (IdIndex::Whole: refs(), encoding, extending by a
  // delta), whether it exists, and why not when a block failed its checks.
  mutable std::once_flag flat_once;
  mutable std::atomic<bool> flat_ready{false};
  mutable IdIndex flat;
  mutable Status flat_status;

 private:
  struct Block {
    std::string blob;
    std::vector<uint32_t> ends;
    std::vector<RowRef> refs;
    std::string_view Id(size_t i) const {
      const uint32_t begin = i == 0 ? 0 : ends[i - 1];
      return std::string_view(blob).substr(begin, ends[i] - begin);
    }
  };
  struct Entry {
    uint32_t id_at;
    uint32_t run_at;
    uint32_t run_skip;
  };
  BlockedIds() = default;
  // Open for each revision, after the revision was read.
  static Result<std::shared_ptr<BlockedIds>> OpenBlocked(const storage::SharedBytes& payload,
                                                         const TableManifest& manifest,
                                                         const std::string& name);
  static Result<std::shared_ptr<BlockedIds>> OpenPrefixed(const storage::SharedBytes& payload,
                                                          const TableManifest& manifest,
                                                          const std::string& name);
  // Block k, decoded and checked on first use. A block that fails its checks (possible only for
  // a payload whose checksums were computed over malformed sections) is Corruption naming the
  // object and the block; the failed decode is not kept, so each call finds it again.
  Result<const Block*> BlockAt(size_t k) const;
  // Decodes block k; an error message (empty when well formed).
  std::string DecodeBlock(size_t k, Block& out) const;
  std::string DecodeBlockIds(size_t k, Block& out) const;
  std::string DecodeBlockRefs(size_t k, Block& out) const;
  // Revision 3's or 4's block k: its checksum, then its ids after the head (skipped, `out`
  // getting only its references, without `with_ids`) and its runs.
  std::string DecodePrefixedBlock(size_t k, Block& out, bool with_ids) const;
  // The runs of row references that end a revision-3 block of `count` ids, from `in`.
  std::string DecodePrefixedRuns(VarintCursor& in, size_t count, Block& out) const;
  // Front-coded ids from `in` until `out` holds `count`, each checked as the compact decoder
  // checks them; under revision 4 an entry may be a run of stepped ids.
  std::string DecodeFrontCoded(VarintCursor& in, size_t count, Block& out) const;
  size_t BlockSize(size_t k) const;

  storage::SharedBytes payload_;
  std::string name_;
  uint32_t revision_ = kIdsRevisionBlocked;
  uint64_t n_ = 0;
  uint64_t block_ids_ = kIdBlockIds;
  uint64_t blob_bytes_ = 0;
  // Revision 2: the two sections and the directory.
  std::string_view runs_;
  std::string_view ids_;
  std::vector<Entry> directory_;
  // Revisions 3 and 4: the data area, each block's checksum (8 bytes each) and where each block
  // ends in the data area (4 bytes each), viewed in the prefix.
  std::string_view data_;
  std::string_view sums_;
  std::string_view block_ends_;
  std::vector<std::string_view> heads_;  // Each block's first id, viewed in the id section.
  std::vector<uint64_t> fragment_rows_;
  mutable std::unique_ptr<std::atomic<Block*>[]> cache_;
  mutable std::atomic<uint64_t> decoded_{0};
  mutable std::atomic<uint64_t> decoded_bytes_{0};
  mutable std::atomic<uint64_t> hashed_{0};
};

}  // namespace omnigraph::table
