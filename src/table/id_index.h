// IdIndex: the live rows of one table version sorted by id — the id bytes, and where each row
// lives (fragment index in the manifest, row in the fragment). Lookups, id-order scans, writes
// and the query executor's dense numbering all use it.
//
// It is built from the id column and deletion vector of every fragment, or decoded from the
// version's derived object of kind `ids` (docs/format/indexes.md), which a load writes and a
// reader that had to build it writes back. The derived object is never authority: a reader that
// finds it absent or damaged builds the index from the fragments.
//
// An index is flat (the arrays above) or layered: a flat base held from an earlier version plus
// a few small sorted layers, each what one or more writes changed (table/layered_ids.h,
// docs/design/tables.md "Layered id indexes"). A layered index answers every call exactly as the
// flat merge of its layers would; point calls (Find, Position, IdAt, RefAt) consult the layers,
// while refs() and Encode, and IdAt/RefAt after many calls, use a flat copy made once on first
// need. Immutable once built (the flat copy is made under a once-flag); thread-safe to share.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "storage/shared_bytes.h"
#include "table/row_gather.h"
#include "table/table_manifest.h"

namespace omnigraph::table {

// The derived kind of the id index.
inline constexpr std::string_view kIdsKind = "ids";
// Versions with fewer live rows than this keep no derived index: rebuilding one from its
// fragments costs about as much as reading it, and small tables stay one object lighter.
inline constexpr uint64_t kDerivedIndexRowsMin = 1024;
// The id bytes of one version's index are addressed with 32-bit offsets.
inline constexpr uint64_t kIdIndexBytesMax = (1ull << 32) - 1;

struct LayeredIds;
struct IdsDelta;
class BlockedIds;

class IdIndex {
 public:
  IdIndex() = default;
  // From rows already sorted by id: `blob` holds every id back to back, `ends[i]` is where id i
  // ends in it, `refs[i]` where its row lives.
  IdIndex(std::string blob, std::vector<uint32_t> ends, std::vector<RowRef> refs);

  size_t size() const { return layered_ ? LayeredSize() : blocked_ ? BlockedSize() : refs_.size(); }

  // Point calls, for any index. A blocked index decodes the block holding the answer on first
  // need, and a block that fails its checks is Corruption naming the object (decision 215); the
  // other kinds never fail them.
  // The position of `id`, or -1.
  Result<int64_t> Locate(std::string_view id) const;
  // The row holding `id`, or null (valid as long as the index).
  Result<const RowRef*> LocateRef(std::string_view id) const;
  // The id, and where the row lives, at position `i` (< size()).
  Result<std::string_view> IdAtPosition(size_t i) const;
  Result<RowRef> RefAtPosition(size_t i) const;
  // The index with every entry in memory, for calls over every entry: this one unless it is
  // blocked, else its flat copy, made once (every block decoded and checked). Corruption naming
  // the object when a block fails its checks, for this call and every later one.
  Result<const IdIndex*> Whole() const;
  // Every row's reference in position order, when this index is blocked and its flat copy is not
  // made: decoded from the blocks with their ids skipped (each block's checksum and references
  // checked), which a scan in id order needs and Whole() would spend most of its time copying
  // ids for (decision 255). nullopt for any other index (refs() of Whole() then). Corruption
  // naming the object when a block fails its checks.
  Result<std::optional<std::vector<RowRef>>> BlockedRefs() const;

  // The calls below need a whole index (not blocked(): built, decoded from the flat or compact
  // revision, layered, or Whole()'s answer); on a blocked one they are a programmer error.
  std::string_view IdAt(size_t i) const {
    if (layered_) return LayeredIdAt(i);
    if (blocked_) NotWhole("IdAt");
    const uint32_t begin = i == 0 ? 0 : ends_[i - 1];
    return blob_.substr(begin, ends_[i] - begin);
  }
  // Where the row at position `i` lives.
  const RowRef& RefAt(size_t i) const {
    if (layered_) return LayeredRefAt(i);
    if (blocked_) NotWhole("RefAt");
    return refs_[i];
  }
  // Every row's reference in position order (a layered index makes its flat copy first).
  std::span<const RowRef> refs() const;
  // The position of `id`, or -1 (binary searches: no map is built).
  int64_t Position(std::string_view id) const;
  // The row holding `id`, or null.
  const RowRef* Find(std::string_view id) const;
  // Approximate bytes held (or viewed, for a decoded index; a layered one counts its base).
  uint64_t bytes() const;

  // Whether this index answers from a blocked payload's blocks (decoded on first use), and how
  // many of its blocks have been decoded (observability for tests and benchmarks).
  bool blocked() const { return blocked_ != nullptr; }
  uint64_t blocks_decoded() const;
  // Whether this index is a base with layers, and how many layers.
  bool layered() const { return layered_ != nullptr; }
  size_t layers() const;
  // How many index entries were written to make this index from the one it extends (the layer
  // of the new ids, layers merged, a new base when the layers outgrew it; or every entry of a
  // flat merge); 0 for an index decoded or built from the fragments. Observability for tests
  // and benchmarks.
  uint64_t entries_merged() const { return entries_merged_; }
  // How many entries making the flat copy of a layered index wrote (0 until it is made).
  uint64_t entries_flattened() const;

  // The index after `delta` (docs/design/tables.md "Layered id indexes"): layered over this one
  // when `manifest` keeps every fragment of `base_manifest` at its place, else the flat merge
  // (ApplyIdsDelta). Corruption naming `name` as ApplyIdsDelta; for a blocked index, as Whole.
  Result<IdIndex> Extend(const TableManifest& base_manifest, const IdsDelta& delta,
                         const TableManifest& manifest, const std::string& name) const;
  void set_entries_merged(uint64_t n) { entries_merged_ = n; }

  // The payload of the `ids` derived object (docs/format/indexes.md): the blocked revision when
  // it is the smaller, else the flat one. A whole index only, as IdAt.
  std::string Encode(uint32_t fragment_count) const;
  // The payload in the given revision (kIdsRevisionFlat or kIdsRevisionCompact,
  // table/id_index_compact.h); Encode picks one, tests force each.
  std::string EncodeRevision(uint32_t fragment_count, uint32_t revision) const;
  // Decodes and checks a payload of any revision against `manifest`: its checksums, the count
  // against the manifest's live rows, every row reference inside its fragment, ids strictly
  // ascending. A flat payload's index views `payload`'s bytes (no section is copied) and keeps
  // them alive; a compact one is decoded into arrays the index owns; a blocked one (revisions 2
  // and 3) keeps the payload and decodes a block of it on first use, checking the block's
  // entries then — and in revision 3 its checksum too: only the preamble and the prefix are
  // hashed here (decision 234; table/id_index_blocked.h) — and makes a flat copy for Whole() and
  // extending. Corruption naming `name` otherwise.
  static Result<IdIndex> Decode(const storage::SharedBytes& payload, const TableManifest& manifest,
                                const std::string& name);

 private:
  friend struct LayeredIds;
  size_t LayeredSize() const;
  std::string_view LayeredIdAt(size_t i) const;
  const RowRef& LayeredRefAt(size_t i) const;
  size_t BlockedSize() const;
  // A whole-index call made on a blocked index: a programmer error.
  [[noreturn]] void NotWhole(const char* call) const;
  // Decode for a payload of the flat revision.
  static Result<IdIndex> DecodeFlat(const storage::SharedBytes& payload,
                                    const TableManifest& manifest, const std::string& name);
  // The first position whose id is not below `id` (flat indexes only).
  size_t LowerBound(std::string_view id) const;

  std::shared_ptr<const LayeredIds> layered_;
  std::shared_ptr<const BlockedIds> blocked_;
  uint64_t entries_merged_ = 0;
  // What the views below point into: the decoded object's bytes, or the vectors of a built index.
  std::shared_ptr<const void> owner_;
  std::string_view blob_;
  std::span<const uint32_t> ends_;
  std::span<const RowRef> refs_;
};

// `bytes` with its first byte 8-aligned: the same bytes when they are, else an aligned copy. The
// index formats are laid out so that their arrays can be viewed in place from aligned bytes.
storage::SharedBytes Aligned8(const storage::SharedBytes& bytes);

// `count` values of T at byte `at` of `bytes` (which must be 8-aligned and hold them), viewed in
// place. The formats are little-endian, as the host (table/le_bytes.h).
template <typename T>
std::span<const T> ViewArray(std::string_view bytes, uint64_t at, uint64_t count) {
  return std::span<const T>(reinterpret_cast<const T*>(bytes.data() + at), count);
}

}  // namespace omnigraph::table
