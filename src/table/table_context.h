// The state a TableStore shares with every TableVersion it opens: the Runtime, the options and
// one ObjectCache, plus the cached loads of each kind of table object. Internal to the table
// layer. Thread-safe: the cache has its own lock, and every loaded value is immutable.
#pragma once

#include <roaring/roaring.hh>

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "storage/uri.h"
#include "table/derived.h"
#include "table/fragment_reader.h"
#include "table/fragment_writer.h"
#include "table/id_index.h"
#include "table/object_cache.h"
#include "table/row_gather.h"
#include "table/table_manifest.h"

namespace omnigraph::table {

struct TableStoreOptions;

// A column of a fragment, or a part of it: its rows [base, base + column->length()).
struct ColumnPart {
  std::shared_ptr<const Column> column;
  uint64_t base = 0;
};

// A sparse gather reads a prefix of a fragment's column when the rows it needs are at most this
// share of the fragment's rows (TableContext::Columns); past it, the saving is small and the
// column is read whole.
inline constexpr uint64_t kPrefixReadShareNumerator = 3;
inline constexpr uint64_t kPrefixReadShareDenominator = 4;

namespace internal {

class TableContext : public std::enable_shared_from_this<TableContext> {
 public:
  TableContext(storage::Runtime runtime, uint64_t cache_bytes, uint64_t fragment_rows_max,
               FragmentWriteOptions fragment, uint64_t derived_rows_min = kDerivedIndexRowsMin);

  storage::Runtime& runtime() { return runtime_; }
  storage::ObjectStore& store() { return *runtime_.store; }
  ObjectCache& cache() { return cache_; }
  uint64_t fragment_rows_max() const { return fragment_rows_max_; }
  const FragmentWriteOptions& fragment_options() const { return fragment_; }
  // Versions with at least this many live rows keep their indexes as derived objects.
  uint64_t derived_rows_min() const { return derived_rows_min_; }

  // The decoded manifest `name` (Get of at most kManifestBytesMax + 1 bytes).
  Result<std::shared_ptr<const TableManifest>> Manifest(const std::string& name);
  // The reader (footer) of a fragment of `manifest`; Corruption when its schema or row count
  // differs from what the manifest says. An open reads the fragment's last `first_read_bytes`
  // (0: kRemoteFragmentReadBytes on a remote store, else kFooterReadBytes).
  Result<std::shared_ptr<const FragmentReader>> Reader(const TableManifest& manifest,
                                                       const FragmentEntry& fragment,
                                                       uint64_t first_read_bytes = 0);
  // The columns `field_ids` of a fragment, in that order (one ranged read for those not cached).
  Result<std::vector<std::shared_ptr<const Column>>> Columns(const TableManifest& manifest,
                                                             const FragmentEntry& fragment,
                                                             std::span<const uint32_t> field_ids);
  // For a gather of rows [begin, end) of a fragment: each column `field_ids` whole, or a part of
  // it that holds those rows (decision 219). A column the cache holds whole is used whole. Else,
  // when the rows are at most kPrefixReadShareNumerator / kPrefixReadShareDenominator of the
  // fragment's, a fixed-width column without nulls is read for just rows [begin, end) and any
  // other scalar column for rows [0, end) (FragmentReader::ReadRows), decompressing only where
  // they are; the part is cached beside the whole columns, and a later gather that needs rows
  // outside it reads the column whole, so a column is decompressed at most once more than if it
  // were read whole at once. One ranged read for every column not cached.
  Result<std::vector<ColumnPart>> ColumnsForRows(const TableManifest& manifest,
                                                 const FragmentEntry& fragment,
                                                 std::span<const uint32_t> field_ids,
                                                 RowRange rows);
  // The columns of one fragment, by the position of their field in a ScanColumns call.
  using FragmentColumns = std::vector<std::shared_ptr<const Column>>;
  // Whether to go on to the next fragment.
  using FragmentSink = std::function<Result<bool>(uint32_t, const FragmentColumns&)>;
  // Calls `sink(f, columns)` for each fragment f of `manifest` in order, with its columns
  // `field_ids` (every stored row, deleted ones too), until the sink says stop. The next fragment
  // is read on the runtime's executor while the sink takes this one, so two fragments' columns at
  // most are held. Columns the cache holds are used; the others are read for this call only and
  // not cached: an index build reads each column once, and caching them would evict what readers
  // hold and put the cache's size on top of the build's own memory (decision 210).
  Status ScanColumns(const TableManifest& manifest, std::span<const uint32_t> field_ids,
                     const FragmentSink& sink);
  // The fragment's deletion vector, or an empty bitmap when it has none.
  Result<std::shared_ptr<const Roaring>> Deletion(const TableManifest& manifest,
                                                  const FragmentEntry& fragment);
  // The id index of a version: cached, else — for a version of at least derived_rows_min() live
  // rows — decoded from its `ids` derived object (one GET; one per link of a chain of deltas,
  // docs/format/indexes.md), else built from the id column and
  // deletion vector of every fragment and, for such a version, written back as that object (a
  // failure to write is not an error). A damaged object is rebuilt and replaced.
  Result<std::shared_ptr<const IdIndex>> Index(const TableManifest& manifest) {
    return Index(manifest, nullptr);
  }
  // As Index(manifest), except that when `unstored` is given an index built here is not written
  // back but set there, for the caller to store with StoreIndex (BuildIndexes stores it while it
  // builds the adjacency); it stays null when the index was cached or read.
  Result<std::shared_ptr<const IdIndex>> Index(const TableManifest& manifest,
                                               std::shared_ptr<const IdIndex>* unstored);
  // The id index of a version with every entry in memory (IdIndex::Whole), for the calls that
  // read all of it: Index(manifest), made whole. A blocked index with a block that fails its
  // checks is damaged as one whose checksum fails: rebuilt from the fragments, cached in its
  // place and stored over the damaged object (decision 215).
  Result<std::shared_ptr<const IdIndex>> WholeIndex(const TableManifest& manifest);
  // Writes `index` back as `manifest`'s `ids` object (a failure to write is not an error).
  void StoreIndex(const TableManifest& manifest, const IdIndex& index);
  // The id index built from the fragments alone (no derived object read or written).
  Result<std::shared_ptr<const IdIndex>> BuildIndex(const TableManifest& manifest);
  // Stores `payload` as derived `kind` of `manifest`'s version (docs/format/derived.md), a delta
  // when `delta` is given: a conditional create, keeping an object that decodes and replacing a
  // damaged one — and, when a full payload is written, replacing a delta (a full object is always
  // valid for its version; a delta may have lost its base).
  Status WriteDerived(const TableManifest& manifest, std::string_view kind, std::string payload,
                      const DerivedDelta* delta = nullptr);
  // Stores a full `payload` as derived `kind` of `manifest`'s version over whatever is stored
  // there, and drops what this process held of the replaced object: for a reader that found the
  // stored object damaged inside a payload whose envelope decodes, which WriteDerived would keep. A
  // full object is always valid for its version, so replacing a sound one loses nothing.
  Status ReplaceDerived(const TableManifest& manifest, std::string_view kind, std::string payload);
  // Reads derived object `name` whole (or, when `head_bytes` is not 0, its first `head_bytes`:
  // what a point reader opens it with), ahead of the read that decodes it
  // (TableStore::Prefetch), and holds its bytes until TakePrefetched takes them. Failures are
  // dropped: that read then reads it itself and meets them.
  void PrefetchDerived(const std::string& name, uint64_t head_bytes = 0);
  // Where a derived object this process read whole or created sits in its chain (its delta
  // fields, none for a full object), kept after the object's bytes are dropped: what a write over
  // its version needs for its record's read hint (TableVersion::IndexChainsForWrite). A note,
  // not a claim that the object is still stored.
  struct NotedChain {
    std::optional<DerivedDelta> delta;
  };
  void NoteDerivedChain(const std::string& name, std::optional<DerivedDelta> delta);
  std::shared_ptr<const NotedChain> NotedDerivedChain(const std::string& name);
  // Drops what this process holds of stored object `name` once it was replaced: its bytes whole,
  // header, payload, what was read ahead of it, its chain note, and a point reader opened on it
  // (whose layout and block checksums are the replaced object's).
  void ForgetReplaced(const std::string& name);
  // The bytes PrefetchDerived holds for `name` (once; the head when `head`), or null.
  std::shared_ptr<const storage::SharedGetResult> TakePrefetched(const std::string& name,
                                                                 bool head = false);
  // The ids a version removed (inline, or from its side file).
  Result<std::vector<std::string>> DeletedIds(const TableManifest& manifest);

  // Creates `name` holding `bytes` unless it exists. true = ours (created now, or found with
  // identical bytes: a re-driven write of ours landed); false = a different object holds the name.
  // Unknown and Transient outcomes are re-driven, kStagingAttemptsMax attempts in all.
  Result<bool> PutImmutable(const std::string& name, std::string_view bytes);

 private:
  // As Reader, and when it opens a fragment larger than that open reads whose manifest entry
  // locates its columns (FragmentEntry::column_offsets, decision 235): only its footer, with the
  // columns `field_ids` outside it read beside, in the same request round, into `held` (a read
  // that fails is dropped: the column's own read then meets the failure).
  Result<std::shared_ptr<const FragmentReader>> ReaderWithColumns(
      const TableManifest& manifest, const FragmentEntry& fragment,
      std::span<const uint32_t> field_ids, std::vector<HeldBytes>& held);
  // The id index from its stored chain (a full object, or deltas over one). NotFound or
  // Corruption when it cannot be read (the caller rebuilds).
  Result<std::shared_ptr<const IdIndex>> IndexFromChain(const TableManifest& manifest);
  // What IndexInOrder read before an id out of order: the ids of the fragments before `first`,
  // ascending (one sorted run, as IdIndex's arrays), and fragment `first`'s id column.
  struct InOrderPrefix {
    std::string blob;
    std::vector<uint32_t> ends;
    std::vector<RowRef> refs;
    uint32_t first = 0;
    std::shared_ptr<const Column> column;
  };
  // BuildIndex's path for a version whose live ids ascend through its fragments in order (a
  // load's generated ids, minted ascending and written batch after batch): the index is the ids
  // as they come, built while the fragments are read one at a time, with no sort and no id
  // column held past its fragment. nullopt at the first id not above the one before it, with
  // what was read up to there in `prefix`, which BuildIndex starts from instead of reading those
  // fragments again.
  Result<std::optional<IdIndex>> IndexInOrder(const TableManifest& manifest, InOrderPrefix& prefix);
  // The columns `field_ids` of fragment f, the cache's when it holds them all, else read and not
  // cached (ScanColumns).
  Result<FragmentColumns> ReadColumns(const TableManifest& manifest, uint32_t f,
                                      std::span<const uint32_t> field_ids);

  storage::Runtime runtime_;
  ObjectCache cache_;
  uint64_t fragment_rows_max_;
  FragmentWriteOptions fragment_;
  uint64_t derived_rows_min_;
};

}  // namespace internal
}  // namespace omnigraph::table
