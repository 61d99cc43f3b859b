// Layered id indexes: the id index of a new table version as the index of an earlier version
// (the base, flat) plus a few small sorted layers, each saying what writes did to the ids: which
// ids they inserted (not live below the layer), which they updated (live below, their row now
// elsewhere) and which they deleted (live below, gone now). A reader that holds the previous
// version's index extends it by one layer made of the newest delta's ids alone, instead of
// copying every id into a new flat array (docs/design/tables.md "Layered id indexes").
//
// Layers are kept geometric: when the newest layer holds more than half the entries of the one
// below it, or there are more than kIdLayersMax layers, the two newest are merged into one; when
// the layers together hold more than 1/kLayersToBaseDivisor of the base's entries, they are
// merged into a new flat base. A change of k ids costs O(k · log n) amortized, and a lookup
// O(layers · log n). Values; a layer is immutable once made and shared by later versions'
// indexes. The flat copy of a layered index is made at most once, under its once-flag.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

#include "table/edge_csr.h"
#include "table/id_index.h"

namespace omnigraph::table {

// At most this many layers stay over a base; the two newest are merged above it.
inline constexpr size_t kIdLayersMax = 8;
// The layers are merged into a new flat base once their entries exceed 1/this of the base's.
inline constexpr uint64_t kLayersToBaseDivisor = 2;
// A layered index answers this many positional calls (IdAt, RefAt) through its layers; the next
// makes its flat copy (a caller walking every position pays one merge, not a search each).
inline constexpr uint64_t kLayeredPositionalMax = 64;

enum class LayerOp : uint8_t { kInsert, kUpdate, kDelete };

struct IdLayer {
  StringList ids;            // Ascending.
  std::vector<LayerOp> ops;  // ops[i]: what happened to ids.At(i) relative to the layers below.
  std::vector<RowRef> refs;  // refs[i]: the row of an inserted or updated id; unused for a delete.
  std::vector<uint32_t> inserts_before{0};  // [i]: inserts among the first i entries.
  std::vector<uint32_t> deletes_before{0};  // [i]: deletes among the first i entries.

  size_t size() const { return ops.size(); }
  // The first entry whose id is not below `id`.
  size_t LowerBound(std::string_view id) const;
  // Appends an entry; ids must come ascending.
  void Add(std::string_view id, LayerOp op, RowRef ref);
  uint64_t bytes() const {
    return ids.blob.size() + ids.ends.size() * 4 + ops.size() + refs.size() * sizeof(RowRef) +
           (inserts_before.size() + deletes_before.size()) * 4;
  }
};

// `upper` over `lower` as one layer over what lies below `lower`.
IdLayer ComposeLayers(const IdLayer& lower, const IdLayer& upper);
// The flat index of `layer` over the flat index `base`.
IdIndex ApplyLayer(const IdIndex& base, const IdLayer& layer);

struct LayeredIds {
  IdIndex base;                                        // Flat.
  std::vector<std::shared_ptr<const IdLayer>> layers;  // Oldest first.
  uint64_t size = 0;                                   // Live ids.

  // The flat copy, made once on first need.
  mutable std::once_flag flat_once;
  mutable std::atomic<bool> flat_ready{false};
  mutable IdIndex flat;
  mutable std::atomic<uint64_t> positional{0};

  uint64_t layer_entries() const;
  // The row of `id`, newest layer first, or null (deleted or never there).
  const RowRef* Find(std::string_view id) const;
  // How many live ids are below `id`.
  uint64_t Rank(std::string_view id) const;
  // The live id at position `i` (i < size), by searching the base and each layer for the
  // largest id whose rank is at most i.
  std::string_view Select(uint64_t i) const;
  // All layers composed into one over the base.
  IdLayer Composed() const;

  // `index`'s flat copy (`index` itself when it is flat).
  static const IdIndex& Flat(const IdIndex& index);
};

}  // namespace omnigraph::table
