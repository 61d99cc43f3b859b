// Index deltas: what one write changed in a version's id index (`ids`) or adjacency (`csr.out`,
// `csr.in`), stored as a delta derived object over the base version's object instead of a whole
// new index (docs/format/indexes.md "Deltas"; the envelope names the base and the depth,
// docs/format/derived.md).
//
// An `ids` delta holds the ids the write added or rewrote, each with where its row lives in the
// new version, and the ids it deleted. An adjacency delta holds the edges the write added or
// rewrote (edge id, src, dst) and the edge ids it deleted; one payload serves both directions.
// Applying a chain of them to the full base gives exactly the structure a rebuild from the
// fragments gives. A delta is computed from the written rows alone (the new fragments and the
// deleted ids), never from the base's rows. Values and pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "table/edge_csr.h"
#include "table/id_index.h"
#include "table/table_manifest.h"

namespace omnigraph::table {

// A delta is written only while the changed rows are at most 1/kDeltaChangeDivisor of the
// base's live rows (docs/design/tables.md "Derived indexes"); above that a full object is written.
inline constexpr uint64_t kDeltaChangeDivisor = 8;

// A delta is taken over the base version or, when the base has no index, over the base's base
// and so on: at most this many versions back.
inline constexpr int kDeltaAncestorsMax = 2;

// Whether a write that added `added_rows` rows and deleted `deleted_rows` over a base of
// `base_rows` live rows is small enough for a delta.
bool DeltaFits(uint64_t base_rows, uint64_t added_rows, uint64_t deleted_rows);

struct IdsDelta {
  StringList added;          // Ids added or rewritten, strictly ascending.
  std::vector<RowRef> refs;  // refs[i]: where added[i]'s row lives in the new version.
  StringList removed;        // Ids deleted, strictly ascending.
};

std::string EncodeIdsDelta(const IdsDelta& delta);
// Corruption naming `name` when the payload is truncated, fails its checksum, or its lists are
// not strictly ascending.
Result<IdsDelta> DecodeIdsDelta(std::string_view payload, const std::string& name);

// The id index of `manifest`'s version from the index `base` of `base_manifest`'s version and the
// delta between them: the base's rows whose ids the delta neither removes nor rewrites (their
// fragment renumbered by fragment id), merged with the delta's. Corruption naming `name` when a
// kept row's fragment is gone, an added row lies outside the version, or the count differs from
// the version's live rows.
Result<IdIndex> ApplyIdsDelta(const IdIndex& base, const TableManifest& base_manifest,
                              const IdsDelta& delta, const TableManifest& manifest,
                              const std::string& name);

struct EdgesDelta {
  StringList ids;  // Edge ids added or rewritten, strictly ascending.
  StringList src;  // src.At(i), dst.At(i): the endpoints of ids.At(i).
  StringList dst;
  StringList removed;  // Edge ids deleted, strictly ascending.
};

std::string EncodeEdgesDelta(const EdgesDelta& delta);
// Corruption naming `name` as DecodeIdsDelta.
Result<EdgesDelta> DecodeEdgesDelta(std::string_view payload, const std::string& name);

// Every edge of a version in its id-index order (views into the structures it was made from).
struct EdgeColumns {
  std::vector<std::string_view> ids;
  std::vector<std::string_view> src;
  std::vector<std::string_view> dst;
};

// The edges of a version from one direction of its adjacency and its id index. Corruption naming
// `name` when the two disagree on the edge count.
Result<EdgeColumns> EdgesOfCsr(const EdgeCsr& csr, EdgeDirection direction, const IdIndex& ids,
                               const std::string& name);
// The edges after `delta` (views into `base`'s and `delta`'s storage).
EdgeColumns ApplyEdgesDelta(const EdgeColumns& base, const EdgesDelta& delta);
// The adjacency of the version whose id index is `ids` from its edges. Corruption naming `name`
// unless the edges are exactly the index's ids, in its order.
Result<EdgeCsr> CsrOfEdges(const EdgeColumns& edges, EdgeDirection direction, const IdIndex& ids,
                           const std::string& name);

// One link of a derived chain: the version it belongs to and its payload (the full object first,
// then each delta in order, the wanted version's last).
struct IndexLink {
  const TableManifest* manifest = nullptr;
  storage::SharedBytes payload;
};

// The id index at the end of `chain` and, when `first` is not null, the full link's in
// `*first`. When `start` is given it is the index of the first link's version, which is then not
// decoded (a held link, TableVersion::ReadDerivedChain): only the deltas after it are applied.
// Corruption naming `name` when a link fails to decode or apply (the caller rebuilds from the
// fragments).
Result<IdIndex> IdsOfChain(std::span<const IndexLink> chain, const std::string& name,
                           IdIndex* first = nullptr, const IdIndex* start = nullptr);
// The adjacency in `direction` at the end of `chain`, given the id index of the first link's
// version (`first`) and of the last link's (`last`); `start`, when given, is the first link's
// adjacency (a held link, not decoded). Corruption naming `name` as IdsOfChain.
Result<EdgeCsr> CsrOfChain(std::span<const IndexLink> chain, EdgeDirection direction,
                           const IdIndex& first, const IdIndex& last, const std::string& name,
                           const EdgeCsr* start = nullptr);

// The deltas of one version over an ancestor: the id index's and, for an edge table, the
// adjacency's (one payload for both directions).
struct IndexDeltas {
  IdsDelta ids;
  std::optional<EdgesDelta> edges;
};

}  // namespace omnigraph::table
