// EdgeCsr: one direction of an edge table version's adjacency, in terms of endpoint ids — the
// sorted distinct ids of the key endpoint (`src` for the forward direction, `dst` for the
// reverse), for each of them its edges (positions in the version's id index, ascending), and for
// each edge the ordinal of its other endpoint among the sorted distinct ids of that endpoint.
//
// The table layer knows an edge table's id, src and dst columns but not the node tables, so the
// adjacency it keeps names endpoints by id; the query layer maps the two id lists onto its
// dense node numbering with one merge each (query/exec/exec_cache.h). Kept as the derived objects
// `csr.out` and `csr.in` of the version (docs/format/indexes.md), never authority. A decoded
// adjacency views the object's bytes (a mapping of the file on a local store) instead of copying
// them; a built one owns its arrays. Immutable; thread-safe to share.
//
// The payload has four revisions. Revision 1 checksums each section whole, so it can only be
// read whole. Revision 2 checksums the sections in blocks of kCsrBlockBytes and carries a sparse
// fence of key ids, so that a reader can fetch and verify only the blocks one node's edges live in
// (table/csr_points.h). Revision 3 bit-packs each slot's position and target ordinal at the
// fewest bits their counts need, and puts the fence (with each sample's first slot), every
// kCsrOtherStride-th other-id start and the block checksums in a prefix, so that a point reader
// opens it with one read (decision 214). Revision 4 (what Encode writes) is revision 3 in blocks
// of kCsr4BlockBytes whose prefix checksum leaves out the block checksums, which need none of
// their own: a damaged one fails its block (decision 253). Decode reads all four whole.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/executor.h"
#include "base/status.h"
#include "storage/shared_bytes.h"
#include "table/id_index.h"
#include "table/slot_view.h"
#include "table/table_manifest.h"

namespace omnigraph::table {

enum class EdgeDirection { kOut, kIn };

// The derived kind of a direction: "csr.out" or "csr.in".
std::string_view CsrKind(EdgeDirection direction);

// Strings back to back, addressed by end offsets.
struct StringList {
  std::string blob;
  std::vector<uint32_t> ends;

  size_t size() const { return ends.size(); }
  std::string_view At(size_t i) const {
    const uint32_t begin = i == 0 ? 0 : ends[i - 1];
    return std::string_view(blob).substr(begin, ends[i] - begin);
  }
};

// A StringList viewed in bytes someone else owns.
struct StringListView {
  std::string_view blob;
  std::span<const uint32_t> ends;

  size_t size() const { return ends.size(); }
  std::string_view At(size_t i) const {
    const uint32_t begin = i == 0 ? 0 : ends[i - 1];
    return blob.substr(begin, ends[i] - begin);
  }
};

// Revisions 2 and 3 of the payload: blocks of this many bytes are checksummed one by one.
inline constexpr uint64_t kCsrBlockBytes = 16 * 1024;
// Revision 4's blocks: one page, so that a point read checks (and, mapped, touches) a page for
// each small range it needs rather than four.
inline constexpr uint64_t kCsr4BlockBytes = 4 * 1024;
// Revisions 2 and 3 keep every this-many-th key id in their fence.
inline constexpr uint32_t kCsrFenceStride = 128;
// Revision 3 keeps the start of every this-many-th other id in its prefix.
inline constexpr uint32_t kCsrOtherStride = 64;

struct EdgeCsr {
  StringListView keys;    // The key endpoint's distinct ids, ascending.
  StringListView others;  // The other endpoint's distinct ids, ascending.
  // The edges of key k are slots offsets[k]..offsets[k+1].
  std::span<const uint32_t> offsets;
  // Per slot: the edge's position in the id index (revisions 3, 4: unpacked on first use).
  SlotView edges;
  // Per slot: the other endpoint's ordinal in `others` (revisions 3, 4: unpacked on first use).
  SlotView targets;
  // What the views point into: the decoded payload's bytes or a built adjacency's arrays.
  std::shared_ptr<const void> owner;

  uint64_t bytes() const {
    return keys.blob.size() + others.blob.size() +
           4 * (keys.ends.size() + others.ends.size() + offsets.size() + edges.size() +
                targets.size());
  }

  // From each edge's endpoints, in id-index order (`src[p]`, `dst[p]` of edge position p).
  static Result<EdgeCsr> Build(EdgeDirection direction, const std::vector<std::string_view>& src,
                               const std::vector<std::string_view>& dst);
  // The payload of the derived object, revision 4 (docs/format/indexes.md).
  std::string Encode() const;
  // The payload in revisions 2 and 3, which readers still read (what writers wrote before
  // revisions 3 and 4; tests make them to check that they stay readable).
  std::string EncodeRevision2() const;
  std::string EncodeRevision3() const;
  // Decodes and checks a payload of any revision against `manifest` (every checksum, the edge
  // count, offsets, ordinals and the order of both id lists). Revisions 1 and 2 are viewed in
  // place; revision 3 and 4's packed slots are decoded into arrays once, the rest viewed; the
  // bytes are kept alive. Corruption naming `name` otherwise.
  static Result<EdgeCsr> Decode(const storage::SharedBytes& payload, const TableManifest& manifest,
                                const std::string& name);
};

// Builds what EdgeCsr::Build builds from edges given one at a time in any order, each by its
// position in the id index, so that no endpoint column need be held: each endpoint is numbered as
// it comes through a StringIndex over copies of the distinct ids only. Memory is 8 bytes per edge
// plus the distinct ids while setting, 12 bytes per edge while finishing (decision 210) — against
// Build's two string views per edge and the columns they point into.
class EdgeCsrBuilder {
 public:
  EdgeCsrBuilder(EdgeDirection direction, size_t edges);
  EdgeCsrBuilder(EdgeCsrBuilder&&) noexcept = default;
  ~EdgeCsrBuilder();
  // Edge p's endpoints; every p in [0, edges) exactly once.
  void Set(uint32_t p, std::string_view src, std::string_view dst);
  // One endpoint of edge p, its source or its target: Set is both. Each end is numbered in its
  // own state, so the sources and the targets may be set on two threads at once (each end from
  // one thread at a time); the adjacency is the same bytes either way.
  void SetSource(uint32_t p, std::string_view src) { SetEnd(SourceSide(), p, src); }
  void SetTarget(uint32_t p, std::string_view dst) { SetEnd(TargetSide(), p, dst); }
  // SetSource(positions[i], ids[i]) (SetTarget) for each i, in order: the same numbering, with
  // the ids of a group looked up together (StringIndex::FindMany, decision 245).
  void SetSources(std::span<const uint32_t> positions, std::span<const std::string_view> ids) {
    SetEnds(SourceSide(), positions, ids);
  }
  void SetTargets(std::span<const uint32_t> positions, std::span<const std::string_view> ids) {
    SetEnds(TargetSide(), positions, ids);
  }
  // The adjacency; Corruption naming `name` when an edge was set twice or not at all,
  // ResourceLimit when the distinct ids of an endpoint exceed an index's size bound. With an
  // executor, the two ends are ranked on it at once.
  Result<EdgeCsr> Finish(const std::string& name, Executor* executor = nullptr) &&;

 private:
  struct Side;
  Side& SourceSide() { return direction_ == EdgeDirection::kOut ? *key_ : *other_; }
  Side& TargetSide() { return direction_ == EdgeDirection::kOut ? *other_ : *key_; }
  void SetEnd(Side& side, uint32_t p, std::string_view id);
  void SetEnds(Side& side, std::span<const uint32_t> positions,
               std::span<const std::string_view> ids);

  EdgeDirection direction_;
  size_t edges_;
  std::unique_ptr<Side> key_;
  std::unique_ptr<Side> other_;
};

// The sections of revisions 2 to 4 by what they hold. Revision 2 lays out the first eight in
// this order; revisions 3 and 4 lay out the fence, the other starts and the block checksums first
// (the prefix), then the rest in this order (docs/format/indexes.md).
enum CsrSection : uint32_t {
  kCsrKeyEnds,
  kCsrKeyIds,
  kCsrOtherEnds,
  kCsrOtherIds,
  kCsrOffsets,
  kCsrEdges,
  kCsrTargets,
  kCsrFence,
  kCsrSections,  // Revision 2 has the sections above.
  kCsrOtherStarts = kCsrSections,
  kCsrSums,
  kCsrSections3  // Revisions 3 and 4 have these.
};
// The fixed table at the start of a revision-2 payload.
inline constexpr uint64_t kCsrTableBytes = 40 + 16 * kCsrSections + 16;
// The fixed table at the start of a revision-3 or -4 payload.
inline constexpr uint64_t kCsr3TableBytes = 48 + 16 * kCsrSections3 + 16;

// What the table of a revision-2, -3 or -4 payload says: the counts, where each section is, the
// block grid over the data area and where the block checksums are (revision 2: after the data
// area, to the end of the payload; revisions 3 and 4: in the prefix, before it).
struct CsrLayout {
  uint32_t revision = 0;
  uint64_t edges = 0;
  uint64_t keys = 0;
  uint64_t others = 0;
  uint32_t fence_stride = 0;
  uint32_t other_stride = 0;  // Revisions 3 and 4.
  uint64_t block_bytes = 0;
  // Bits per slot of the edges and targets sections: 32 in revision 2.
  uint32_t edge_bits = 32;
  uint32_t target_bits = 32;
  uint64_t section_offset[kCsrSections3] = {};
  uint64_t section_length[kCsrSections3] = {};
  uint64_t data_begin = 0;  // The data area is [data_begin, data_end).
  uint64_t data_end = 0;
  uint64_t sums_xxh64 = 0;  // Revision 2: of the block checksums.
  // Revisions 3 and 4: of the prefix after the table (revision 4: up to the block checksums).
  uint64_t prefix_xxh64 = 0;

  // Revisions 3 and 4 (one layout): the fence, the other-id starts and the block checksums in a
  // prefix before the data area.
  bool prefixed() const { return revision >= 3; }
  // The prefix bytes after the table that prefix_xxh64 covers, from kCsr3TableBytes on.
  uint64_t prefix_hashed_bytes() const {
    return (revision == 3 ? data_begin : section_offset[kCsrSums]) - kCsr3TableBytes;
  }
  uint64_t blocks() const { return (data_end - data_begin + block_bytes - 1) / block_bytes; }
  uint64_t payload_bytes() const { return prefixed() ? data_end : data_end + 8 * blocks(); }
  // How many samples the fence holds.
  uint64_t fence_samples() const { return (keys + fence_stride - 1) / fence_stride; }
  // Revisions 3 and 4: how many other-id starts the prefix holds.
  uint64_t other_samples() const { return (others + other_stride - 1) / other_stride; }
  // Where the block checksums are.
  uint64_t sums_offset() const { return prefixed() ? section_offset[kCsrSums] : data_end; }
  // The bits of `section` (kCsrEdges or kCsrTargets) per slot.
  uint32_t SlotBits(CsrSection section) const {
    return section == kCsrEdges ? edge_bits : target_bits;
  }
  // The payload bytes [offset, offset + length) holding `section`'s values of slots
  // [first, last).
  std::pair<uint64_t, uint64_t> SlotBytes(CsrSection section, uint64_t first, uint64_t last) const;
};

// The fewest bits that hold every value below `count`: 0 for a count of 0 or 1.
uint32_t CsrBitsFor(uint64_t count);
// Slot `slot`'s value in a packed section of `bits` bits per slot, `bytes` being the section's
// bytes from byte slot·bits/8 (at least the value's bytes; fewer than 8 are read at the end).
uint32_t CsrUnpackOne(std::string_view bytes, uint64_t slot, uint32_t bits);

// Decodes the table at the start of `payload_head` (at least the table of the payload) of a
// payload of `payload_bytes` bytes: its checksum, the sections in order with the sizes the counts
// call for, and the payload's length. Unsupported for a revision-1 payload (readable whole only);
// Corruption naming `name` for anything else.
Result<CsrLayout> DecodeCsrLayout(std::string_view payload_head, uint64_t payload_bytes,
                                  const std::string& name);

// The fence of a revision-2 to -4 payload: every fence_stride-th key id (sample j is key j·stride)
// with the offset in the key-id section where that key starts and (revisions 3, 4) its first
// slot.
// Views the section's bytes.
class CsrFence {
 public:
  // Checks `section` (the fence section's bytes) for `layout`: its size, ids strictly ascending,
  // starts ascending from 0 inside the key-id section, first slots ascending from 0 up to the
  // edge count. Corruption naming `name` otherwise.
  static Result<CsrFence> Parse(std::string_view section, const CsrLayout& layout,
                                const std::string& name);
  uint64_t samples() const { return samples_; }
  // Where key j·stride starts in the key-id section.
  uint32_t Start(uint64_t j) const;
  // Revisions 3 and 4: the first slot of key j·stride (the edge count for j == samples()).
  uint32_t FirstSlot(uint64_t j) const;
  std::string_view Id(uint64_t j) const;
  // The last sample at or below `id`, or -1 when `id` is below every key.
  int64_t Floor(std::string_view id) const;

 private:
  std::string_view bytes_;
  uint64_t samples_ = 0;
  uint64_t edges_ = 0;
  uint64_t columns_ = 2;  // 4-byte columns before the ids' ends: 3 in revisions 3 and 4.
};

// Whether the blocks of the data area that `bytes` covers match their checksums: `bytes` starts
// at payload offset `offset` (a block boundary) and `sums` holds every block's checksum.
bool CsrBlocksMatch(const CsrLayout& layout, std::string_view sums, uint64_t offset,
                    std::string_view bytes);

// Shared by the revisions' encoders and decoders (table/csr_format.cc).
namespace csr_internal {
// The structure every revision must have: id lists ascending, offsets rising from 0 to `e`,
// every slot naming a position and an ordinal in range (positions not yet unpacked excepted: the
// revision-3 decoder checks them packed). Corruption naming `name` otherwise.
Status CheckStructure(const EdgeCsr& csr, uint64_t e, const std::string& name);
// The fence section of `keys`: every stride-th key's start in the key ids, (with `offsets`, for
// revisions 3 and 4) its first slot, the sampled ids' ends, then the sampled ids.
std::string EncodeFence(const StringListView& keys, std::span<const uint32_t> offsets,
                        uint32_t stride);
// Whether the fence matches the key ids (and, revisions 3 and 4, the offsets).
bool FenceMatches(const CsrFence& fence, const EdgeCsr& csr, const CsrLayout& layout);
// The payload of `csr` in revision 3 or 4 (`revision`), and the whole decode of either.
std::string EncodePrefixed(const EdgeCsr& csr, uint32_t revision);
Result<EdgeCsr> DecodePrefixed(const storage::SharedBytes& payload, const TableManifest& manifest,
                               const std::string& name);
}  // namespace csr_internal

}  // namespace omnigraph::table
