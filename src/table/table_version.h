// TableVersion: one opened, immutable version of a table — scans with column projection and
// predicate pushdown, lookups by id, and iteration in id order.
//
// A scan visits fragments in manifest order and skips every fragment whose footer statistics
// prove that a predicate cannot match (no column of it is read); of the others it reads only the
// projected and predicate columns, drops the rows in the fragment's deletion vector and the rows
// a predicate rejects, and hands one batch per fragment to the sink. Lookups and id order use the
// version's id index (every live row sorted by id), built on first use from the id columns and
// cached under the manifest's name. Results are owned batches, independent of the cache.
// Thread-safe: every method is const and may run concurrently.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "table/binary_cell.h"
#include "table/column.h"
#include "table/derived.h"
#include "table/edge_csr.h"
#include "table/id_index.h"
#include "table/index_delta.h"
#include "table/predicate.h"
#include "table/row_gather.h"
#include "table/table_manifest.h"

namespace omnigraph::table {

namespace internal {
class TableContext;
}

struct ScanOptions {
  // The columns to return, in this order; empty means every column in schema order.
  std::vector<uint32_t> field_ids;
  // All must hold (a conjunction).
  std::vector<Predicate> predicates;
  // When not empty, only the fragments with these ids (FragmentEntry::id) are visited: what a
  // derived index that changes by the fragments a write added reads.
  std::vector<std::string> fragment_ids;
};

struct ScanStats {
  uint64_t fragments_total = 0;
  // Fragments skipped by statistics alone (none of their columns read).
  uint64_t fragments_skipped = 0;
  uint64_t fragments_read = 0;
  uint64_t rows_returned = 0;
};

struct LookupResult {
  // found[i] tells whether ids[i] is in the version.
  std::vector<bool> found;
  // One row per found id, in the order of the request.
  ColumnBatch rows;
};

// Receives one batch at a time; a failure stops the scan and is returned by it.
using BatchSink = std::function<Status(ColumnBatch batch)>;

// One object of a derived chain (TableVersion::ReadDerivedChain): the version it belongs to and
// its payload (a full one for the first link, a delta's for the others). A first link that is
// `held` was not read: the caller said it already holds that version's structure, so the chain
// starts from it instead of from a full object.
struct DerivedLink {
  std::shared_ptr<const TableManifest> manifest;
  storage::SharedBytes payload;
  bool held = false;
};

class TableVersion {
 public:
  TableVersion(std::shared_ptr<internal::TableContext> ctx,
               std::shared_ptr<const TableManifest> manifest, std::string manifest_name);

  const TableManifest& manifest() const { return *manifest_; }
  const std::string& manifest_name() const { return manifest_name_; }
  TablePin pin() const { return manifest_->pin(); }
  TableId table() const { return manifest_->table(); }
  const Schema& schema() const { return manifest_->schema; }
  uint64_t entity_count() const { return manifest_->entity_count; }

  // Scans the version. InvalidArgument for an unknown or repeated projected field or an invalid
  // predicate (ValidatePredicate); Corruption naming the object for damaged fragments or
  // deletion vectors; storage failures as reported. `stats` may be null.
  Status Scan(const ScanOptions& options, const BatchSink& sink, ScanStats* stats = nullptr) const;
  // The whole scan as one batch.
  Result<ColumnBatch> ScanAll(const ScanOptions& options, ScanStats* stats = nullptr) const;

  // The rows of `ids` (projected to `field_ids`, empty = every column); a missing id is reported
  // in LookupResult::found, not as an error. InvalidArgument for an unknown projected field.
  Result<LookupResult> Lookup(std::span<const std::string> ids,
                              std::span<const uint32_t> field_ids = {}) const;

  // The Binary cell of field `field_id` in the live row `id` (table/binary_cell.h): the id index,
  // the fragment's footer, then its validity and offsets buffers. NotFound "no row" for an id the
  // version does not hold, NotFound "the cell is null" for a null cell; InvalidArgument for a
  // field that is not a Binary column.
  Result<BinaryCell> LocateBinaryCell(std::string_view id, uint32_t field_id) const;
  // Streams [start, end) of `cell` (located in this version) to `sink` (table::ReadBinaryCell).
  Status ReadBinaryCell(const BinaryCell& cell, uint64_t start, uint64_t end,
                        const std::function<Status(std::string_view)>& sink) const;

  // Every live row in ascending id order (bytewise), in batches of at most `batch_rows` rows.
  Status ScanInIdOrder(std::span<const uint32_t> field_ids, uint64_t batch_rows,
                       const BatchSink& sink) const;

  // Every id of the version, ascending.
  Result<std::vector<std::string>> Ids() const;
  // The version's id index (table/id_index.h) with every entry in memory (IdIndex::Whole):
  // cached; for a large version read from its `ids` derived object, else built from the
  // fragments (and written back); a stored one found damaged, even inside a block, is rebuilt
  // and replaced. Corruption for a version that holds an id twice.
  Result<std::shared_ptr<const IdIndex>> SortedIds() const;
  // The version's id index as read, for point calls (IdIndex::Locate, IdAtPosition, ...): a
  // stored blocked index decodes only the blocks they need, and a block that fails its checks
  // is Corruption naming the object (decision 215). Otherwise as SortedIds.
  Result<std::shared_ptr<const IdIndex>> PointIds() const;
  // One direction of an edge table version's adjacency (table/edge_csr.h): cached; for a large
  // version read from its `csr.out` / `csr.in` derived object, else built from the id index and
  // the src and dst columns (and written back). InvalidArgument for a table without endpoints.
  Result<std::shared_ptr<const EdgeCsr>> Csr(EdgeDirection direction) const;
  // Builds and stores every derived index of the version that its size calls for (the id index;
  // for an edge table the forward adjacency). What a load does after it stages a version.
  Status BuildIndexes() const;
  // The derived kinds BuildIndexes stores for this version: none below the size threshold, else
  // `ids`, and `csr.out` for an edge table.
  std::vector<std::string> IndexKinds() const;
  // What this version changed over `ancestor` (a version it was written on, directly or through
  // unpublished steps), for index deltas (table/index_delta.h): the live rows of the fragments it
  // has and `ancestor` lacks (their id, and src and dst for an edge table), and `deleted`, the
  // ids removed on the way. Reads only those fragments (and their deletion vectors), never the
  // ancestor's. Corruption for an id twice among the added rows.
  Result<IndexDeltas> DeltasOver(const TableManifest& ancestor,
                                 std::span<const std::string> deleted) const;
  // Stores this version's id index and (edge table) forward adjacency as deltas (DeltasOver)
  // over the nearest ancestor that has them at depth below kDerivedDeltaDepthMax — its base, or
  // through at most kDeltaAncestorsMax - 1 versions without them (a merge's unpublished delete
  // step) — when the rows changed since are few (DeltaFits). Returns the kinds stored; the
  // others are the caller's to build in full or to leave to a reader. Reads the ancestors'
  // manifests and object headers and this version's new fragments only. Storage failures as
  // reported.
  Result<std::vector<std::string>> WriteIndexDeltas() const;
  // The chains a small write over this version would stack its index deltas on
  // (WriteIndexDeltas over this version as the base), as far as this process knows without a
  // store call: for each of IndexKinds() whose object it holds from reading it (a writer reads
  // its base's index to check ids), this version followed by the versions under it, when
  // `changed_rows` (rows added, rewritten and deleted) fit a delta (DeltaFits) and the chain is
  // not full. The record's read hint (table/derived.h kChainHintMember); empty when nothing is
  // known.
  std::map<std::string, std::vector<uint64_t>> IndexChainsForWrite(uint64_t changed_rows) const;
  // Whether each of `ids` is live in the version, from its id index (the index the version's
  // writes and lookups build; no other row is read).
  Result<std::vector<bool>> Contains(std::span<const std::string_view> ids) const;
  // The ids this version removed from its base (inline or from the side file).
  Result<std::vector<std::string>> DeletedIds() const;
  // The names of every object this version needs: its manifest, fragments, deletion vectors
  // and deleted-ids side file. What retention must keep for it.
  std::vector<std::string> ObjectNames() const;

  // Derived data of this version (table/derived.h): the payload of `kind`, cached by name.
  // NotFound when absent; Corruption naming the object when it is damaged or belongs to another
  // version; storage failures as reported.
  Result<std::shared_ptr<const std::string>> ReadDerived(std::string_view kind) const;
  // `length` bytes of the payload of `kind` from `offset` (one ranged read after the header,
  // which is read once and cached). The payload's checksum is not checked: a format read in
  // pieces checks its own sections. OutOfRange-style InvalidArgument past the payload's end.
  Result<std::string> ReadDerivedRange(std::string_view kind, uint64_t offset,
                                       uint64_t length) const;
  // Stores `payload` as `kind` of this version with a conditional create. An object already
  // there is kept when it decodes (another process stored the same data first); a damaged one is
  // replaced (derived objects are never authority, docs/format/derived.md), and so is a delta: a
  // full object is always valid for the version, while a delta's base may be gone.
  Status WriteDerived(std::string_view kind, std::string_view payload) const;
  // Stores `payload` as a delta of `kind` over `base` (an earlier version of this table whose
  // `kind` is at depth `depth` - 1; 0 = full), with a conditional create; an object already
  // there that decodes is kept. InvalidArgument for a base of another table or a depth outside
  // 1..kDerivedDeltaDepthMax.
  // `below` is the chain under the base (DerivedDelta::below; ChainBelow of the base's header),
  // empty when unknown.
  Status WriteDerivedDelta(std::string_view kind, std::string_view payload,
                           const TableManifest& base, uint32_t depth,
                           std::vector<uint64_t> below = {}) const;
  // The header of `kind` (one ranged read, cached): whether the object is a delta, over what and
  // at what depth, and its payload's size. NotFound when absent; Corruption naming the object.
  Result<DerivedHeader> ReadDerivedHeader(std::string_view kind) const;
  // `kind` as the chain of objects that make it: a full payload first, then each delta over it
  // in order, this version's last (a full object alone is a chain of one). One GET per link
  // (cached by name) plus one manifest read per base. NotFound when a link or a base version is
  // absent (a base cleaned up with its version); Corruption naming the object when a link is
  // damaged, belongs to another version or its depths do not count down to a full object. The
  // caller then rebuilds (and may store the full payload, which replaces the delta).
  // When `held` is given it is asked about each base the walk reaches, and the walk stops at the
  // first one it says yes to: that version is the chain's first link, `held` and not read (a
  // reader that holds the previous version's index applies the newest delta alone).
  // When the top object lists the versions below its base (envelope format 3), every lower
  // link's manifest and object are read together first, so a cold chain costs two rounds
  // whatever its depth; the walk then checks each link as it always does (decision 209).
  Result<std::vector<DerivedLink>> ReadDerivedChain(
      std::string_view kind, const std::function<bool(const TableManifest&)>& held = nullptr) const;
  // The version this one was staged from: its manifest read by base_staged_version (cached),
  // for a writer of a delta over it. NotFound for a created version (no base) or a base whose
  // manifest is gone; Corruption naming the manifest when it is malformed or of another table.
  Result<std::shared_ptr<const TableVersion>> Base() const;
  // The payload of `kind`: read, or — when absent or damaged — computed by `build` and, when
  // `write_back`, stored (a failure to store is not an error: the data is still returned).
  Result<std::shared_ptr<const std::string>> DerivedOrBuild(
      std::string_view kind, const std::function<Result<std::string>()>& build,
      bool write_back) const;

  // Internal to the table layer (diffs and writes).
  internal::TableContext& context() const { return *ctx_; }
  // The schema restricted to `field_ids` (empty = all); InvalidArgument for unknown or repeated
  // ids.
  Result<Schema> Project(std::span<const uint32_t> field_ids) const;
  // The rows `refs` (sources are fragment indices) of the projected columns, in that order.
  Result<ColumnBatch> Gather(const Schema& projection, std::span<const RowRef> refs) const;

 private:
  // ReadDerivedChain's read ahead of the links below `top` (this version's delta of `kind`).
  void PrefetchChain(std::string_view kind, const DerivedDelta& top,
                     const std::function<bool(const TableManifest&)>& held) const;
  // Csr, with the version's id index when the caller holds it (else null): an index larger than
  // the object cache is not kept there, and would be built again (decision 210).
  Result<std::shared_ptr<const EdgeCsr>> Csr(EdgeDirection direction,
                                             std::shared_ptr<const IdIndex> index) const;
  Result<EdgeCsr> BuildCsr(EdgeDirection direction, std::shared_ptr<const IdIndex> index) const;
  // The adjacency from its stored chain; NotFound or Corruption when it cannot be read.
  Result<EdgeCsr> CsrFromChain(EdgeDirection direction) const;

  std::shared_ptr<internal::TableContext> ctx_;
  std::shared_ptr<const TableManifest> manifest_;
  std::string manifest_name_;
};

}  // namespace omnigraph::table
