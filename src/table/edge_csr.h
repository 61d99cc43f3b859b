// EdgeCsr: one direction of an edge table version's adjacency, in terms of endpoint ids — the
// sorted distinct ids of the key endpoint (`src` for the forward direction, `dst` for the
// reverse), for each of them its edges (positions in the version's id index, ascending), and for
// each edge the ordinal of its other endpoint among the sorted distinct ids of that endpoint.
//
// The table layer knows an edge table's id, src and dst columns but not the node tables, so the
// adjacency it keeps names endpoints by id; the query layer maps the two id lists onto its
// dense node numbering with one merge each (query/exec_cache.h). Kept as the derived objects
// `csr.out` and `csr.in` of the version (docs/format/indexes.md), never authority. Immutable;
// thread-safe to share.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "table/id_index.h"
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

struct EdgeCsr {
  StringList keys;    // The key endpoint's distinct ids, ascending.
  StringList others;  // The other endpoint's distinct ids, ascending.
  // The edges of key k are slots offsets[k]..offsets[k+1].
  std::vector<uint32_t> offsets;
  std::vector<uint32_t> edges;    // Per slot: the edge's position in the id index.
  std::vector<uint32_t> targets;  // Per slot: the other endpoint's ordinal in `others`.

  uint64_t bytes() const {
    return keys.blob.size() + others.blob.size() +
           4 * (keys.ends.size() + others.ends.size() + offsets.size() + edges.size() +
                targets.size());
  }

  // From each edge's endpoints, in id-index order (`src[p]`, `dst[p]` of edge position p).
  static Result<EdgeCsr> Build(EdgeDirection direction, const std::vector<std::string_view>& src,
                               const std::vector<std::string_view>& dst);
  // The payload of the derived object (docs/format/indexes.md).
  std::string Encode() const;
  // Decodes and checks a payload against `manifest` (every section's checksum, the edge count,
  // offsets, ordinals and the order of both id lists). Corruption naming `name` otherwise.
  static Result<EdgeCsr> Decode(std::string_view payload, const TableManifest& manifest,
                                const std::string& name);
};

}  // namespace omnigraph::table
