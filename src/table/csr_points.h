// CsrPoints: the edges of a few keys of one direction of an edge table version's adjacency, read
// from its derived object (revision 2, 3 or 4, table/edge_csr.h) in ranged reads of only the blocks
// they live in, each checked against its block checksum — what a query that starts from one node
// needs, instead of the whole object (docs/format/indexes.md "Reading a few keys").
//
// Revisions 3 and 4: opening is one read of the object's first CsrOpenReadBytes (the envelope
// header, the table and the prefix with the fence, the other-id starts and the block checksums; a
// second read only when the prefix is longer), which a cold read may fetch ahead
// (TableStore::Prefetch). Each Lists call then reads, for all its keys together, in two rounds: the
// fence windows (key ends, key ids, offsets, and the packed slots of the window when they are at
// most kCsrWindowSlotBytesMax, else a round of their own for the key's slots), then each target's
// group of kCsrOtherStride other ids with their end offsets. Revision 2: two reads to open (the
// table, then the fence and block checksums at the payload's end) and four rounds per call (the
// windows, the slots, the targets' end offsets, their ids). Within a round, ranges whose blocks
// lie within kCsrCoalesceGapBytes of each other are read together, so a round costs one read per
// cluster, not one per key or edge, and at most kCsrRoundReadsMax.
//
// Every read's blocks, once their checksums pass, are kept in the table cache as one run
// ("cr:{serial}#{first block}", charged the run's bytes; the serial is this opening's, so no other
// opening of the object, with other checksums, ever sees them), and a later Lists call takes the
// blocks it finds there instead of reading, mapping and checksumming them again: a warm process
// that walks from many starts checksums each block of the object at most once while the cache
// keeps it. On a local store only the blocks a call asked for are checked and kept, not the gaps
// a coalesced read spans (decision 229). The runs are bounded by the cache's capacity like every
// other cached object, and by the object's data area per opening (plus what coalesced reads
// overlap). The open state is immutable; the index of cached runs is guarded by a mutex.
// Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "storage/object_store.h"
#include "table/edge_csr.h"
#include "table/table_manifest.h"

namespace omnigraph::table {

class TableVersion;
namespace internal {
class TableContext;
}

// Blocks closer than this are read in one ranged read (a round trip costs more than the bytes
// between).
inline constexpr uint64_t kCsrCoalesceGapBytes = 64 * 1024;
// A round makes at most this many reads: past it the clusters closest to each other are read
// together, so that a node of many edges spread over a large object costs a bounded number of
// round trips (more bytes instead).
inline constexpr size_t kCsrRoundReadsMax = 8;
// Revision 3: a fence window's packed slots go out with the window when they are at most this
// many bytes (a window of 128 keys of average degree 24 at 39 bits a slot: 15 KB); a window with
// more (a key of many edges in it) reads only the key's slots, in a round of its own.
inline constexpr uint64_t kCsrWindowSlotBytesMax = 64 * 1024;
// From its second Lists call on, a reader reads once whatever it lacks of the key part (the
// sections before the slots: key ends, key ids, other ends, other ids, offsets, of which every
// key's lookup needs a block each) when that part is at most 1/kCsrKeyPartShareMax of the
// payload: a process that walks twice will likely walk again, and each later start then reads
// only its slots' blocks.
inline constexpr uint64_t kCsrKeyPartShareMax = 4;
// Opening reads this much of the object's start plus one byte per kCsrOpenReadEdgesPerByte
// edges: a revision-4 prefix takes about 0.013 + 0.21/d bytes per edge at an average degree d
// (its block checksums, 8 bytes per 4 KiB of data, then the fence and the other starts: 0.022
// bytes at the benchmark's 24; revision 3's, 0.0024 + 0.23/d), so a graph of average degree 5 or
// more opens in one read.
inline constexpr uint64_t kCsrOpenReadBytesMin = 16 * 1024;
inline constexpr uint64_t kCsrOpenReadEdgesPerByte = 16;

// The first bytes of an adjacency of `edges` edges that opening reads (the read ahead reads as
// many).
uint64_t CsrOpenReadBytes(uint64_t edges);

// The edges of the keys asked for, each key's in ascending position (the adjacency's order).
struct CsrPointLists {
  // Per key asked: its edges are slots [begin[i], begin[i + 1]) of the two vectors below (empty
  // for a key the adjacency does not hold).
  std::vector<uint32_t> begin;
  std::vector<uint32_t> edges;  // The edge's position in the version's id index (with_edges).
  std::vector<std::string_view> others;    // The other endpoint's id (views into `held`).
  std::vector<storage::SharedBytes> held;  // The bytes read, which `others` points into.
  uint64_t reads = 0;                      // Ranged reads the call made.
  uint64_t bytes = 0;                      // Bytes they returned.
  uint64_t cached_bytes = 0;               // Bytes of verified blocks taken from the cache instead.
};

class CsrPoints {
 public:
  // Opens `direction` of `version` for point reads (one ranged read for revision 3, or the bytes
  // the read ahead fetched; two for revision 2 or a long prefix). NotFound when the object
  // is absent; Unsupported when it is a delta or of revision 1 (the caller reads it whole);
  // Corruption naming the object when its header, table, fence or block checksums are damaged or
  // it belongs to another version; storage failures as reported.
  static Result<std::shared_ptr<const CsrPoints>> Open(const TableVersion& version,
                                                       EdgeDirection direction);

  // The edges of each of `keys` (ids of the key endpoint, any order, repeats allowed). Without
  // `with_edges` the lists hold only the other ends (`edges` stays empty) and the edge slots are
  // not read: what a walk that binds no edge needs.
  // Corruption naming the object when a block read fails its checksum or what it holds is out of
  // order or out of range; storage failures as reported.
  Result<CsrPointLists> Lists(std::span<const std::string_view> keys, bool with_edges = true) const;

  const CsrLayout& layout() const { return layout_; }
  const std::string& name() const { return name_; }

 private:
  // Verified bytes of the payload, read in runs of whole blocks.
  struct Run {
    uint64_t begin = 0;  // Payload offset of the first byte.
    storage::SharedBytes bytes;
    uint64_t end() const { return begin + bytes.size(); }
  };
  class Fetched;
  // The verified run holding each block a Fetch needs, by block number.
  using BlockRuns = std::vector<std::pair<uint64_t, std::shared_ptr<const Run>>>;

  CsrPoints(std::weak_ptr<internal::TableContext> ctx, std::string name, uint64_t payload_offset,
            CsrLayout layout);

  // The bytes of `ranges` (payload offset, length): the blocks they touch taken from the runs
  // cached before, the others read (coalesced) and checked, then cached.
  Result<Fetched> Fetch(std::vector<std::pair<uint64_t, uint64_t>> ranges,
                        CsrPointLists& out) const;
  // Reads the block spans `missing` (ascending, disjoint), coalesced; checks and caches each
  // read whole on a remote store, and on a local one only the missing spans it covers. Returns
  // the kept runs, ascending, covering every missing block.
  Result<std::vector<std::shared_ptr<const Run>>> ReadBlocks(
      internal::TableContext& ctx, const std::vector<std::pair<uint64_t, uint64_t>>& missing,
      CsrPointLists& out) const;
  // Appends to `runs` the blocks [blocks.first, blocks.second] of `data` (read from payload
  // offset `data_begin`) as one run, when their checksums pass; Corruption otherwise.
  Status KeepChecked(const storage::SharedBytes& data, uint64_t data_begin,
                     std::pair<uint64_t, uint64_t> blocks,
                     std::vector<std::shared_ptr<const Run>>& runs) const;
  // Reads the blocks of the key part (kCsrKeyPartShareMax) that no cached run holds.
  Status ReadKeyPart(internal::TableContext& ctx, CsrPointLists& out) const;
  // The cached runs holding `blocks` (ascending), each null when none is cached.
  std::vector<std::shared_ptr<const Run>> CachedRuns(internal::TableContext& ctx,
                                                     const std::vector<uint64_t>& blocks) const;
  // Keeps `run` (verified) in the cache and notes it as the run of each of its blocks.
  void CacheRun(internal::TableContext& ctx, std::shared_ptr<const Run> run) const;
  std::string RunKey(uint64_t first_block) const;
  // After the table: revision 2's fence and block checksums (a read at the payload's end), or
  // revision 3's prefix (in `head`, which starts at the object's start, or read for the rest).
  Status OpenTail(internal::TableContext& ctx, uint64_t payload_bytes);
  Status OpenPrefix(internal::TableContext& ctx, const storage::SharedBytes& head);
  // Round 1 of Lists: each key's slots [first, second) (empty for a key the adjacency lacks),
  // and the bytes read, which hold the windows' slots too (the edges' only `with_edges`) when
  // `with_slots` comes back true.
  Result<std::vector<std::pair<uint32_t, uint32_t>>> KeySlots(
      std::span<const std::string_view> keys, bool with_edges, CsrPointLists& out,
      std::unique_ptr<Fetched>& read, bool& with_slots) const;
  // The id of each target ordinal, appended to out.others: revision 2 in two rounds (the end
  // offsets, then the ids), revision 3 in one (the target's group of ids with their ends).
  Status OtherIds(const std::vector<uint32_t>& targets, CsrPointLists& out) const;
  Status OtherIds3(const std::vector<uint32_t>& targets, CsrPointLists& out) const;
  Status Bad(const std::string& what) const;

  // Holds the store. Weak: the context's cache holds this object.
  std::weak_ptr<internal::TableContext> ctx_;
  std::string name_;
  uint64_t payload_offset_ = 0;
  CsrLayout layout_;
  // What opening read of the fence and the block checksums (and revision 3's other-id starts).
  storage::SharedBytes tail_;
  CsrFence fence_;
  std::string_view sums_;
  std::string_view other_starts_;  // Revision 3.
  // This opening's number in the process: the cache keys of its runs.
  uint64_t serial_ = 0;
  // Per block of the data area: 1 + the first block of the newest cached run holding it, else 0
  // (the run may since have been evicted). Kept in pages of kRunPageBlocks entries, each made
  // when a run first covers one of its blocks: a fresh process that reads a few dozen blocks of
  // an object of tens of thousands zeroes a few pages, not an entry per block (decision 253).
  static constexpr uint64_t kRunPageBlocks = 1024;
  uint32_t RunOf(uint64_t block) const;                 // Under runs_mu_.
  void SetRunOf(uint64_t block, uint32_t first) const;  // Under runs_mu_.
  mutable std::mutex runs_mu_;
  mutable std::vector<std::unique_ptr<uint32_t[]>> run_pages_;
  // Lists calls begun (the second reads the key part).
  mutable std::atomic<uint64_t> lists_calls_{0};
};

}  // namespace omnigraph::table
