// TableStore: versioned tables of immutable objects (protocol in
// docs/design/tables.md, formats in docs/format/table-version.md).
//
// Every node and edge type is a table; every write stages one new *version* of it from a base
// pin and never modifies an existing object: it adds fragments (.ogf) and deletion vectors
// (.del) under fresh UUID names, then creates the manifest `versions/d{staged_version}.json`
// with put-if-absent, drawing a new random staged_version on collision. So any number of writers
// on any number of branches can stage versions of one table at once without coordinating; the
// graph commit record that pins a version is what publishes it (src/commit, not this layer).
//
// Reading: Open(pin) reads the manifest, checks that it is the version the pin names (its
// transaction_uuid), and returns a TableVersion that scans, looks rows up by id and iterates in
// id order. Everything decoded (manifests, fragment footers, columns, deletion vectors, the
// per-version id index) is cached by object name in one ObjectCache bounded in bytes.
//
// A TableStore is thread-safe; it and the TableVersions it returns share the Runtime and the
// cache, so versions stay usable after the store is destroyed.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/sorted_records.h"
#include "storage/uri.h"
#include "table/column.h"
#include "table/fragment_writer.h"
#include "table/object_cache.h"
#include "table/table_manifest.h"
#include "table/table_version.h"

namespace omnigraph::table {

// Decoded objects kept in memory by default.
inline constexpr uint64_t kDefaultCacheBytes = 512ull << 20;
// A write splits its rows into fragments of at most this many rows by default.
inline constexpr uint64_t kDefaultFragmentRowsMax = 1ull << 20;
// A staging write whose outcome is Unknown (or that failed transiently) is re-driven at most this
// many times in all before the write gives up with that status.
inline constexpr int kStagingAttemptsMax = 8;
// A manifest name (or a data file name) is redrawn at most this many times on collision.
inline constexpr int kNameDrawsMax = 16;

struct TableStoreOptions {
  uint64_t cache_bytes = kDefaultCacheBytes;
  uint64_t fragment_rows_max = kDefaultFragmentRowsMax;
  FragmentWriteOptions fragment;
  // Versions with at least this many live rows keep their id index and adjacency as derived
  // objects (table/id_index.h).
  uint64_t derived_rows_min = kDerivedIndexRowsMin;
};

// What a new table looks like: its identity, alias and schema (ValidateTableSchema).
struct NewTable {
  TableId id;
  std::string table_key;
  Schema schema;
};

// Rows written ahead of the version that will hold them: a streaming load writes each batch as a
// fragment while it reads (WriteFragment) and stages the version once, at the end, from the base
// it then sees (AppendPending, UpsertPending, OverwritePending). The fragments are immutable
// objects under the table's folder that no manifest references until that version does; if the
// load never stages one, they are garbage that table cleanup collects.
struct PendingRows {
  // The table the fragments were written under; staging onto another table is refused.
  TableId table;
  Schema schema;
  std::vector<FragmentEntry> fragments;
  // Rows of `fragments` (by fragment index, ascending and unique) that a later row of the same
  // id replaced; they are deleted in the staged version.
  std::map<uint32_t, std::vector<uint32_t>> superseded;
  // Every live id of the fragments (superseded rows excluded), each once, ascending (the keys;
  // values are ignored). Sorted so that staging merges it with the base's id index instead of
  // holding a set of it, and so that it can live in a temporary file (base/sorted_records.h).
  std::shared_ptr<const SortedRecords> ids;
  // The rows of fragment f exactly as they were written, for the fragments whose writer kept
  // them; a fragment past the end, or null, is read back from the store. A load keeps its batches
  // up to a budget (LoadLimits::kept_bytes, decision 230) so that validating them decodes
  // nothing it has just encoded; ScanPending gives the same rows either way.
  std::vector<std::shared_ptr<const ColumnBatch>> written;
};

// One table's part of a write, as Stage takes it: the operation and its row source. Append,
// Upsert and Overwrite take `rows`, or `pending` when set (rows a streaming load wrote ahead as
// fragments); Delete takes `ids`. Patch upserts `rows` and deletes `ids` (ids none of the rows
// has) in one change — a merge's net change to one table; it stages the delete and then the
// upsert on it, two versions of which the second is the result.
// The objects one write created, by store name: each a put-if-absent under a name the writer drew
// fresh (a UUIDv7 path, a random staged_version) that returned "ours". No version references
// them until a record pins one, so a write refused before it publishes can delete exactly these
// (engine/write/write.h; docs/design/engine.md "A refused write leaves nothing"). Thread-safe: the
// tables of one write are staged in parallel.
class StagedObjects {
 public:
  void Add(std::string name);
  // Every name added so far, in the order they were added; empties the list.
  std::vector<std::string> Take();
  bool empty() const;

 private:
  mutable std::mutex mu_;
  std::vector<std::string> names_;
};

struct TableWrite {
  enum class Op { kAppend, kUpsert, kDelete, kOverwrite, kPatch };
  Op op = Op::kAppend;
  ColumnBatch rows;
  std::vector<std::string> ids;
  std::shared_ptr<const PendingRows> pending;
};

class TableStore {
 public:
  explicit TableStore(storage::Runtime runtime, TableStoreOptions options = {});
  ~TableStore();
  TableStore(const TableStore&) = delete;
  TableStore& operator=(const TableStore&) = delete;

  // --- Writes. Each stages exactly one new version and returns its pin; nothing existing is
  // modified. `against` is recorded as staged_against (D9; null only for versions that no record
  // can be staged against, such as those init writes before genesis). Input errors are
  // InvalidArgument and write nothing: a batch whose schema is not the table's, an empty or
  // over-long id, an id twice in one batch. Storage failures come back as the store reports them
  // (after re-driving Unknown outcomes, kStagingAttemptsMax attempts in all). When `staged` is
  // set, every object a call creates is added to it, also when the call then fails.

  // The write path's entry point: stages `write` on `base` with the operation it names (one of
  // the functions below). Errors as that function returns them.
  Result<TablePin> StageWrite(const TablePin& base, const TableWrite& write,
                              const std::optional<StagedAgainst>& against,
                              StagedObjects* staged = nullptr);

  // A first version holding `rows` (which may be empty); its schema is `table.schema`.
  Result<TablePin> Create(const NewTable& table, const ColumnBatch& rows,
                          const std::optional<StagedAgainst>& against);
  // Adds rows whose ids are all new; KeyConflict naming the first id the base already holds.
  Result<TablePin> Append(const TablePin& base, const ColumnBatch& rows,
                          const std::optional<StagedAgainst>& against,
                          StagedObjects* staged = nullptr);
  // Append's checks without writing anything: InvalidArgument for rows that do not fit the base,
  // KeyConflict naming the first id the base already holds (the write path runs it for every
  // appended table before staging any, so a conflict in one table stages none).
  Status CheckAppend(const TablePin& base, const ColumnBatch& rows);
  // Inserts new ids and replaces the rows of existing ones.
  Result<TablePin> Upsert(const TablePin& base, const ColumnBatch& rows,
                          const std::optional<StagedAgainst>& against,
                          StagedObjects* staged = nullptr);
  // Removes the rows of `ids`; ids the base does not hold are ignored.
  Result<TablePin> Delete(const TablePin& base, std::span<const std::string> ids,
                          const std::optional<StagedAgainst>& against,
                          StagedObjects* staged = nullptr);
  // Replaces every row with `rows`, whose schema becomes the table's (a valid table schema).
  Result<TablePin> Overwrite(const TablePin& base, const ColumnBatch& rows,
                             const std::optional<StagedAgainst>& against,
                             StagedObjects* staged = nullptr);

  // Writes `rows` as one fragment of `table` that no version references yet. InvalidArgument (and
  // nothing written) for an invalid batch or table schema, an empty or over-long id, or an id
  // twice in the batch.
  Result<FragmentEntry> WriteFragment(const TableId& table, const ColumnBatch& rows,
                                      StagedObjects* staged = nullptr);
  // As Append, Upsert and Overwrite, with rows already written by WriteFragment. The base must be
  // a version of `rows.table`; Append and Upsert need `rows.schema` to be the base's schema. The
  // superseded rows get deletion vectors in the new version (a fragment all of whose rows are
  // superseded is left out).
  Result<TablePin> AppendPending(const TablePin& base, const PendingRows& rows,
                                 const std::optional<StagedAgainst>& against,
                                 StagedObjects* staged = nullptr);
  Result<TablePin> UpsertPending(const TablePin& base, const PendingRows& rows,
                                 const std::optional<StagedAgainst>& against,
                                 StagedObjects* staged = nullptr);
  Result<TablePin> OverwritePending(const TablePin& base, const PendingRows& rows,
                                    const std::optional<StagedAgainst>& against,
                                    StagedObjects* staged = nullptr);

  // --- Reads.

  // The live rows of `rows` (superseded rows left out), fragment by fragment in row order, as
  // one batch in `rows.schema`. Corruption / storage failures as reading a version reports.
  Result<ColumnBatch> ReadPending(const PendingRows& rows) const;
  // The same rows, one batch per fragment (in fragment order, superseded rows left out), so a
  // reader holds one fragment's rows at a time; a fragment kept in `rows.written` is not read.
  // The batch is the sink's only for the call.
  using PendingSink = std::function<Status(const ColumnBatch& batch)>;
  Status ScanPending(const PendingRows& rows, const PendingSink& sink) const;

  // The version `pin` names. NotFound when its manifest is absent (e.g. cleaned up); Corruption
  // naming the manifest when it is malformed, or when its table identity, staged_version,
  // transaction_uuid or entity_count differ from the pin's.
  Result<std::shared_ptr<const TableVersion>> Open(const TablePin& pin) const;
  // What Prefetch reads besides the manifests, and when it reads at all.
  struct PrefetchOptions {
    // Also the stored id index of each version whose table key is listed, when it has one (a
    // version of at least derived_rows_min() entities, which its pin says) and the index is not
    // held yet: the first object a lookup by id reads after the manifest, named by the pin alone.
    std::vector<std::string> ids_of;
    // Also the stored forward adjacency of each edge version whose table key is listed, when it
    // has one and has fewer than adjacency_edges_max edges (the pin says) and it is not held yet:
    // what a walk over a version a remote store's reader reads whole reads first (decision 213).
    // At or above adjacency_edges_max, where the walk reads it point by point, its first
    // CsrOpenReadBytes instead: what opening it for point reads reads (decision 214).
    std::vector<std::string> adjacency_of;
    uint64_t adjacency_edges_max = 0;
    // Nothing is read when fewer objects than this are missing: a read alone is a request round
    // whenever it is made, unless something else goes out beside it.
    size_t reads_min = 2;
  };
  // Reads the manifests of `pins` that are not cached yet (and what `options` adds), together
  // (one request round on a remote store), so that the Opens and reads that follow find them
  // cached. Failures are left for those reads to meet and report.
  void Prefetch(std::span<const TablePin> pins, const PrefetchOptions& options) const;
  void Prefetch(std::span<const TablePin> pins) const { Prefetch(pins, PrefetchOptions{}); }

  // The names of every object under the table's folder, with their metadata (the engine's
  // retention lists candidates with this).
  Result<std::vector<storage::ObjectMeta>> ListObjects(const TableId& table) const;

  const storage::Runtime& runtime() const;
  // The most rows a write puts in one fragment (TableStoreOptions::fragment_rows_max).
  uint64_t fragment_rows_max() const;
  // Versions with at least this many live rows keep derived indexes (TableStoreOptions).
  uint64_t derived_rows_min() const;
  const ObjectCache& cache() const;

 private:
  // Adds to `manifests` and `objects` what `pin`'s read hint (table/derived.h ChainHint) lists
  // for `kind` and the cache lacks, stopping at a link whose data is held in memory under
  // `held_prefix` ("i:" an id index by manifest name, "csr:" an adjacency by object name).
  void AddHintedChain(const TablePin& pin, std::string_view kind, std::string_view held_prefix,
                      std::vector<std::string>& manifests, std::vector<std::string>& objects) const;

  std::shared_ptr<internal::TableContext> ctx_;
};

}  // namespace omnigraph::table
