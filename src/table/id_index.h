// IdIndex: the live rows of one table version sorted by id — the id bytes, and where each row
// lives (fragment index in the manifest, row in the fragment). Lookups, id-order scans, writes
// and the query executor's dense numbering all use it.
//
// It is built from the id column and deletion vector of every fragment, or decoded from the
// version's derived object of kind `ids` (docs/format/indexes.md), which a load writes and a
// reader that had to build it writes back. The derived object is never authority: a reader that
// finds it absent or damaged builds the index from the fragments. Immutable once built;
// thread-safe to share.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
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

class IdIndex {
 public:
  IdIndex() = default;
  // From rows already sorted by id: `blob` holds every id back to back, `ends[i]` is where id i
  // ends in it, `refs[i]` where its row lives.
  IdIndex(std::string blob, std::vector<uint32_t> ends, std::vector<RowRef> refs)
      : blob_(std::move(blob)), ends_(std::move(ends)), refs_(std::move(refs)) {}

  size_t size() const { return refs_.size(); }
  std::string_view IdAt(size_t i) const {
    const uint32_t begin = i == 0 ? 0 : ends_[i - 1];
    return std::string_view(blob_).substr(begin, ends_[i] - begin);
  }
  const std::vector<RowRef>& refs() const { return refs_; }
  // The position of `id`, or -1.
  int64_t Position(std::string_view id) const;
  // The row holding `id`, or null.
  const RowRef* Find(std::string_view id) const {
    const int64_t at = Position(id);
    return at < 0 ? nullptr : &refs_[static_cast<size_t>(at)];
  }
  // Approximate bytes held.
  uint64_t bytes() const {
    return blob_.size() + ends_.size() * sizeof(uint32_t) + refs_.size() * sizeof(RowRef) + 64;
  }

  // The payload of the `ids` derived object (docs/format/indexes.md).
  std::string Encode(uint32_t fragment_count) const;
  // Decodes and checks a payload against `manifest`: every section's checksum, the count against
  // the manifest's live rows, every row reference inside its fragment, ids strictly ascending.
  // Corruption naming `name` otherwise.
  static Result<IdIndex> Decode(std::string_view payload, const TableManifest& manifest,
                                const std::string& name);

 private:
  std::string blob_;
  std::vector<uint32_t> ends_;
  std::vector<RowRef> refs_;
};

}  // namespace omnigraph::table
