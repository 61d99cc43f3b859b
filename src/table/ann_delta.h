// Vector index deltas (docs/format/vector-index.md "Deltas"): what one small write changed in the
// ANN index of a Vector property, stored as a delta derived object of kind `annl2.{field_id}`
// over the base version's index (the derived envelope names the base and the depth,
// docs/format/derived.md) instead of leaving the version unindexed until a load or `optimize`.
//
// A delta holds the base's row numbers the write removed (deleted or rewritten rows) and, for
// each row it added or rewrote, its number in the new version, the base's list its vector goes to
// (its nearest centroid among the base's) and the vector. Applying it to the base's index gives
// exactly the index of the new version's vectors over the base's centroids: the rebuild a delta
// stands for (BuildAnnOver). The centroids are never retrained by a delta; a chain ends after
// kDerivedDeltaDepthMax deltas, when a full build trains them again. Values and pure functions,
// thread-safe; StoreAnnDelta reads and writes the store.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "table/table_version.h"

namespace omnigraph::table {

// The list of an added row whose vector is null: it takes a number but is not indexed.
inline constexpr uint32_t kAnnNoList = 0xFFFFFFFF;

struct AnnDelta {
  uint32_t dim = 0;
  uint32_t lists = 0;
  uint64_t base_rows = 0;             // The base version's live rows (its numbering's size).
  uint64_t rows = 0;                  // This version's live rows: base_rows - removed + added.
  std::vector<uint64_t> removed;      // Base row numbers, strictly ascending, < base_rows.
  std::vector<uint64_t> added;        // This version's row numbers, strictly ascending, < rows.
  std::vector<uint32_t> added_lists;  // One per added row: its list, or kAnnNoList.
  std::vector<float> vectors;         // dim floats per added row with a list, in order.
};

std::string EncodeAnnDelta(const AnnDelta& delta);
// Corruption naming `name` when the payload is not exactly one delta: bad magic or format, sizes
// that do not fit, numbers out of order or out of range, a list out of range, row counts that do
// not add up.
Result<AnnDelta> DecodeAnnDelta(std::string_view payload, const std::string& name);

// Stores the index of Vector property `field_id` of `version` as a delta over the version it was
// staged from, when that version stores the index at a depth below kDerivedDeltaDepthMax and the
// write changed at most 1/kDeltaChangeDivisor of its rows (DeltaFits; decision 72's rule). Reads
// the base's index (its chain), both versions' id indexes and the written rows. Returns whether
// it stored one; false (nothing stored) when the write does not qualify or a read fails — the
// version is then answered exactly until a load or `optimize` builds its index.
bool StoreAnnDelta(const TableVersion& version, uint32_t field_id);

}  // namespace omnigraph::table
