// In-memory images of table versions for query execution, and the cache that keeps them.
//
// TableImage: one table version with its live rows numbered 0..n-1 in ascending id order (the
// "dense index"): the ids, an id → dense index map, and property columns in dense order, each
// read (ScanInIdOrder) on first use. Because the numbering is id order, comparing dense indices
// of one type compares ids — the executor's tie-break needs nothing else.
//
// Adjacency: one edge-table version in CSR form, both directions: for every source node (dense
// index of the edge's `from` type) its outgoing edges (target dense index and edge dense index:
// the edge's position in its table's id order, which is also its edge image's dense index),
// and for every target node its incoming edges, each list in edge id order. Edges whose endpoint
// is not a live node of the endpoint type are left out; the incoming side is built on first use. An
// adjacency depends on three versions (the edge table and both endpoint node tables), and is keyed
// by all three.
//
// ExecCache: a bounded LRU of images and adjacencies keyed by the table pin (stable table id,
// incarnation, versions, transaction) and manifest object name, so a version is built once and
// shared by every query that reads it until evicted. Thread-safe; images are immutable except
// for their lazily read columns, which are guarded internally.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/lru_cache.h"
#include "base/status.h"
#include "table/column.h"
#include "table/csr_points.h"
#include "table/slot_view.h"
#include "table/table_version.h"

namespace omnigraph::query {

class TableImage {
 public:
  // Reads the ids of `version`.
  static Result<std::shared_ptr<const TableImage>> Build(
      std::shared_ptr<const table::TableVersion> version);

  uint32_t size() const { return static_cast<uint32_t>(ids_->size()); }
  // The id at `dense`. A blocked id index decodes the block holding it on first need: Corruption
  // naming the index object when that block fails its checks (decision 215).
  Result<std::string_view> IdAt(uint32_t dense) const {
    const table::IdIndex* whole = whole_.load(std::memory_order_acquire);
    return whole != nullptr ? Result<std::string_view>(whole->IdAt(dense))
                            : ids_->IdAtPosition(dense);
  }
  // Makes every id available to id(), once: the version's whole index (TableVersion::SortedIds:
  // a blocked index's blocks all decoded and checked; one found damaged is rebuilt from the
  // fragments and replaced, as any damaged derived object), which then answers every call of
  // this image. For the readers of any row's id in a loop that cannot fail (a per-row
  // expression, an adjacency over every row). An error reading the fragments otherwise.
  Status LoadIds() const;
  // Whether LoadIds has succeeded (every id is then in memory).
  bool IdsLoaded() const { return whole_.load(std::memory_order_acquire) != nullptr; }
  // The id at `dense` once LoadIds succeeded; before, a programmer error.
  std::string_view id(uint32_t dense) const {
    const table::IdIndex* whole = whole_.load(std::memory_order_acquire);
    OMNIGRAPH_CHECK_MSG(whole != nullptr, "TableImage::id before LoadIds");
    return whole->IdAt(dense);
  }
  // The dense index of `id`, or -1 when the version has no such row. The first kFindsBeforeMap
  // calls binary-search the id index; the id → index map is built on the call after them, so a
  // cold query that looks up a few ids never pays for a map over every row, and a warm handle
  // that looks up many gets hashing. Corruption as IdAt.
  static constexpr uint64_t kFindsBeforeMap = 256;
  Result<int64_t> Find(std::string_view id) const;
  const table::TableVersion& version() const { return *version_; }

  // The column of `field_id` in dense order, as chunks of kChunkRows rows (the last may be
  // shorter); read on first use. InvalidArgument for a field the table does not have.
  static constexpr uint32_t kChunkShift = 20;
  static constexpr uint32_t kChunkRows = 1u << kChunkShift;
  struct ChunkedColumn {
    std::vector<table::Column> chunks;
    // Its values ascend strictly with the dense index: a String key built from the ids, which
    // the dense indices number in sorted order (ColumnOfIds). A min or max over rows that ascend
    // is then a group's first or last row (decision 247).
    bool ascending = false;
    const table::Column& chunk(uint32_t dense) const { return chunks[dense >> kChunkShift]; }
    static uint32_t row(uint32_t dense) { return dense & (kChunkRows - 1); }
  };
  Result<const ChunkedColumn*> Column(uint32_t field_id) const;
  // Loads the column of `field_id` from the rows' ids instead of the fragments, for a node key
  // whose value's text is the node's id (exec::IsIdKey): a String key is its id, an integer key
  // its id's decimal text. True when loaded (or loaded already); false, with nothing loaded, when
  // the field is of another type or an id is not such a value's text (Column then reads the
  // fragments). Reads every id (LoadIds) and no fragment.
  Result<bool> ColumnOfIds(uint32_t field_id) const;
  // Whether the column of `field_id` is loaded already.
  bool HasColumn(uint32_t field_id) const;
  // The column of `field_id` at the dense indices `dense` (any order, repeats allowed), one row
  // each, read from only the fragments that hold those rows: what a few result rows cost on a
  // cold handle, instead of the whole column. InvalidArgument for a field the table does not
  // have.
  Result<table::Column> GatherRows(uint32_t field_id, std::span<const uint32_t> dense) const;
  // Reads every not-yet-loaded column of `field_ids` in one id-order scan.
  Status Preload(std::span<const uint32_t> field_ids) const;

  // Approximate bytes held (ids, map and loaded columns), for the cache bound.
  uint64_t bytes() const;

 private:
  explicit TableImage(std::shared_ptr<const table::TableVersion> version)
      : version_(std::move(version)) {}

  Status LoadLocked(std::span<const uint32_t> field_ids) const;

  std::shared_ptr<const table::TableVersion> version_;
  // The version's id index (shared with the table cache; dense index = position in it).
  std::shared_ptr<const table::IdIndex> ids_;
  // The version's whole index once LoadIds has succeeded (held by whole_held_), else null.
  mutable std::atomic<const table::IdIndex*> whole_{nullptr};
  mutable std::once_flag whole_once_;
  mutable std::shared_ptr<const table::IdIndex> whole_held_;
  mutable Status whole_status_;
  mutable std::atomic<uint64_t> finds_{0};
  mutable std::once_flag index_once_;
  mutable Status index_status_;  // Why the map could not be built (LoadIds failed).
  // Open addressing over ids_, linear probing, at most half full: each slot is 0 (empty) or
  // (upper 32 bits of the id's XxHash64 << 32) | (dense index + 1), so a probe compares ids
  // only when the hash bits agree. 16 bytes per row, no allocation per entry.
  mutable std::vector<uint64_t> slots_;
  mutable uint64_t slot_mask_ = 0;
  mutable std::mutex mu_;
  mutable std::map<uint32_t, std::unique_ptr<ChunkedColumn>> columns_;
  mutable uint64_t column_bytes_ = 0;
};

// One direction of an adjacency: the neighbours of node v are targets[offsets[v]..offsets[v+1])
// reached through edges[...] (edge dense indices), in edge id order. `targets` and `edges` view
// arrays `owner` keeps: the adjacency's own (Own), or a stored adjacency's decoded slots when they
// need no renumbering (BuildAdjacency), so a large adjacency is not held twice.
struct Csr {
  std::vector<uint64_t> offsets;
  // A stored adjacency's slots may be filled on first use (table/slot_view.h).
  table::SlotView targets;
  table::SlotView edges;
  std::shared_ptr<const void> owner;

  // Makes the CSR own `targets` and `edges`.
  void Own(std::vector<uint32_t> targets, std::vector<uint32_t> edges);

  std::span<const uint32_t> Targets(uint32_t v) const {
    return {targets.data() + offsets[v], static_cast<size_t>(offsets[v + 1] - offsets[v])};
  }
  std::span<const uint32_t> Edges(uint32_t v) const {
    return {edges.data() + offsets[v], static_cast<size_t>(offsets[v + 1] - offsets[v])};
  }
};

// One edge-table version's adjacency over the dense numbering of its endpoint images. `out` is
// built with it (one gather from the version's stored forward adjacency); `in` is derived from
// `out` on first use, so a query that only walks edges forwards never pays for it. Immutable
// once built; `in()` is safe to call from many threads.
class Adjacency {
 public:
  // `out` is indexed by `from` dense index; `to_nodes` is the `to` image's size and `edges` the
  // edge version's row count (edge dense indices are below it).
  Adjacency(Csr out, uint32_t to_nodes, uint32_t edges)
      : out_(std::move(out)), to_nodes_(to_nodes), edges_(edges) {}

  // Indexed by `from` dense index; targets are `to` dense indices.
  const Csr& out() const { return out_; }
  // Indexed by `to` dense index; targets are `from` dense indices. Built on the first call.
  const Csr& in() const;
  uint32_t from_nodes() const { return static_cast<uint32_t>(out_.offsets.size() - 1); }
  uint32_t to_nodes() const { return to_nodes_; }

  // The far-side nodes of one hop that some near-side node reaches, ascending, and how many
  // distinct near-side nodes reach each: forward, per `to` node the distinct `from` nodes with
  // an edge to it; backward, per `from` node the distinct `to` nodes. What a fused count
  // (AggregateStep::adjacency) emits, so a grouped count over a traversal walks the edges once
  // per adjacency, not once per query.
  struct Reach {
    std::vector<uint32_t> nodes;
    std::vector<int64_t> counts;  // [i] for nodes[i]; never 0.
    uint64_t total = 0;           // The sum of the counts.
  };
  // Computed on the first call (one walk of `out`, or of `in`) and kept; safe from many threads.
  const Reach& DistinctReach(bool forward) const;

  // Bytes held (`in` and the reach counts only once built).
  uint64_t bytes() const;

 private:
  Csr out_;
  uint32_t to_nodes_;
  uint32_t edges_;
  mutable std::once_flag in_once_;
  mutable std::atomic<bool> in_built_{false};
  mutable Csr in_;
  mutable std::once_flag reach_once_[2];
  mutable std::atomic<bool> reach_built_[2] = {false, false};
  mutable Reach reach_[2];
};

// Builds the adjacency of `edges` between the `from` and `to` node images, from the edge
// version's forward adjacency (table/edge_csr.h: a derived object for a large version): the
// two id lists mapped onto the node images' dense numbering by one merge each, then the slots of
// every key that is a live `from` node copied in key order (keys ascend as the dense numbering
// does, and a key's slots are in edge id order), leaving out edges to no live `to` node.
Result<std::shared_ptr<const Adjacency>> BuildAdjacency(const table::TableVersion& edges,
                                                        const TableImage& from,
                                                        const TableImage& to);

// The outgoing lists of a few `from` nodes of one edge-table version, read point by point from
// the version's stored adjacency (table/csr_points.h) instead of building the whole Adjacency:
// what a traversal from a small frontier costs on a cold handle. A node's lists are exactly what
// Adjacency::out() holds for it — the same edges in the same order, edges to a node that is not
// live in `to` left out. The images must outlive it. One per run; not thread-safe.
class PointAdjacency {
 public:
  PointAdjacency(std::shared_ptr<const table::CsrPoints> points, const TableImage& from,
                 const TableImage& to)
      : points_(std::move(points)), from_(from), to_(to) {}

  // Reads the lists of the nodes of `nodes` (`from` dense indices) not read yet (or read without
  // their edges when `with_edges`), in one CsrPoints::Lists call; without `with_edges` only the
  // targets are read (a walk that binds no edge). Corruption naming the object for damaged
  // blocks; storage failures.
  Status Load(std::span<const uint32_t> nodes, bool with_edges = true);
  // Whether `v`'s lists are read (with their edges, when `with_edges`).
  bool Has(uint32_t v, bool with_edges = true) const;
  // How many nodes of `nodes` are not read yet.
  size_t Missing(std::span<const uint32_t> nodes) const;
  // The lists of a node read by Load (valid until the next Load); Edges only for a node read with
  // its edges.
  std::span<const uint32_t> Targets(uint32_t v) const;
  std::span<const uint32_t> Edges(uint32_t v) const;
  // Ranged reads made so far, and the bytes they returned.
  uint64_t reads() const { return reads_; }
  uint64_t bytes() const { return bytes_; }
  // The stored adjacency's block size (what one key's lookup is charged beyond the bytes read).
  uint64_t block_bytes() const { return points_->layout().block_bytes; }
  // The size of the stored adjacency's payload (what reading it whole costs).
  uint64_t object_bytes() const { return points_->layout().payload_bytes(); }

 private:
  std::shared_ptr<const table::CsrPoints> points_;
  const TableImage& from_;
  const TableImage& to_;
  // A node's slots [first, last) in targets_ (and edges_, when read with its edges).
  struct Slots {
    uint32_t first = 0;
    uint32_t last = 0;
    bool with_edges = false;
  };
  std::unordered_map<uint32_t, Slots> lists_;
  std::vector<uint32_t> targets_;
  std::vector<uint32_t> edges_;
  uint64_t reads_ = 0;
  uint64_t bytes_ = 0;
};

// A stable key for a table version: its pin fields and manifest object name.
std::string VersionKey(const table::TableVersion& version);

class ExecCache {
 public:
  // Keeps at most `max_entries` images plus adjacencies (least recently used evicted first).
  explicit ExecCache(size_t max_entries = 256) : max_entries_(max_entries), cache_(max_entries) {}

  // `scope` names the graph (GraphView::cache_scope).
  Result<std::shared_ptr<const TableImage>> Image(
      std::string_view scope, const std::shared_ptr<const table::TableVersion>& version);
  Result<std::shared_ptr<const Adjacency>> Adjacent(std::string_view scope,
                                                    const table::TableVersion& edges,
                                                    const TableImage& from, const TableImage& to);
  // That adjacency when it is built and cached, else null (nothing is built).
  std::shared_ptr<const Adjacency> FindAdjacent(std::string_view scope,
                                                const table::TableVersion& edges,
                                                const TableImage& from, const TableImage& to);
  // Whether walks may go on reading that adjacency point by point (PointAdjacency): true while
  // the bytes this cache's runs have read of it that way stay below `budget_bytes` — the size of
  // the stored adjacency. Past it, reading the object whole once and keeping the adjacency is
  // cheaper than going on (the reasoning of renting until the rent paid equals the price), so a
  // warm handle that keeps walking one edge table builds it after a few queries.
  bool PointReadsAllowed(std::string_view scope, const table::TableVersion& edges,
                         const TableImage& from, const TableImage& to, uint64_t budget_bytes);
  // Records that a run read `nodes` nodes' lists, `bytes` bytes, of that adjacency point by point.
  void RecordPointReads(std::string_view scope, const table::TableVersion& edges,
                        const TableImage& from, const TableImage& to, uint64_t nodes,
                        uint64_t bytes);

  // The side cache: any other value computed from table versions — a full-text index, an ANN
  // index (query/exec/context.h) — under `key`, which must name the kind and the versions it
  // depends on: the cached value, or null. Evicted with images and adjacencies.
  std::shared_ptr<const void> FindShared(std::string_view scope, const std::string& key);
  void PutShared(std::string_view scope, const std::string& key, std::shared_ptr<const void> value);

  struct Stats {
    uint64_t image_builds = 0;
    uint64_t adjacency_builds = 0;
    uint64_t point_loads = 0;  // Nodes whose lists were read point by point.
    uint64_t shared_puts = 0;
    uint64_t hits = 0;
    size_t entries = 0;
  };
  Stats stats() const;

 private:
  std::shared_ptr<const void> Get(const std::string& key);
  void Put(const std::string& key, std::shared_ptr<const void> value);

  const size_t max_entries_;
  mutable std::mutex mu_;
  LruCache<std::shared_ptr<const void>> cache_;  // Charged one per entry.
  // Bytes read point by point per adjacency key (cleared when it holds max_entries_ keys).
  std::unordered_map<std::string, uint64_t> point_bytes_;
  Stats stats_;
};

}  // namespace omnigraph::query
