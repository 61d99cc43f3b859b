#include "table/table_context.h"

#include <algorithm>
#include <optional>
#include <queue>

#include "base/executor.h"
#include "table/deletion_vector.h"
#include "table/derived.h"
#include "table/index_delta.h"
#include "table/table_store.h"
#include "table/table_version.h"

namespace omnigraph::table::internal {

namespace {

uint64_t ColumnBytes(const Column& column) {
  uint64_t bytes = sizeof(Column) + column.validity().size() + column.offsets_buffer().size() +
                   column.values_buffer().size();
  if (column.has_child()) bytes += ColumnBytes(column.child());
  return bytes;
}

bool Retriable(const Status& status) {
  return status.kind() == Kind::kUnknown || status.kind() == Kind::kTransient;
}

// Concatenates runs sorted by `less`, or merges them when they overlap.
template <typename Less>
std::vector<RowRef> MergeRuns(std::vector<std::vector<RowRef>> runs, const Less& less,
                              uint64_t rows) {
  std::erase_if(runs, [](const std::vector<RowRef>& run) { return run.empty(); });
  std::vector<RowRef> sorted;
  sorted.reserve(rows);
  bool in_order = true;
  for (size_t r = 1; r < runs.size() && in_order; ++r) {
    in_order = less(runs[r - 1].back(), runs[r].front());
  }
  if (in_order) {
    for (std::vector<RowRef>& run : runs) {
      sorted.insert(sorted.end(), run.begin(), run.end());
      std::vector<RowRef>().swap(run);  // Hold each row once, not twice, while concatenating.
    }
    return sorted;
  }
  // Heap of (run, position), smallest id on top.
  using Head = std::pair<uint32_t, uint32_t>;
  auto later = [&](const Head& a, const Head& b) {
    return less(runs[b.first][b.second], runs[a.first][a.second]);
  };
  std::priority_queue<Head, std::vector<Head>, decltype(later)> heap(later);
  for (uint32_t r = 0; r < runs.size(); ++r) heap.emplace(r, 0);
  while (!heap.empty()) {
    auto [r, at] = heap.top();
    heap.pop();
    sorted.push_back(runs[r][at]);
    if (at + 1 < runs[r].size()) heap.emplace(r, at + 1);
  }
  return sorted;
}

}  // namespace

TableContext::TableContext(storage::Runtime runtime, uint64_t cache_bytes,
                           uint64_t fragment_rows_max, FragmentWriteOptions fragment,
                           uint64_t derived_rows_min)
    : runtime_(std::move(runtime)),
      cache_(cache_bytes),
      fragment_rows_max_(fragment_rows_max),
      fragment_(fragment),
      derived_rows_min_(derived_rows_min) {}

Result<std::shared_ptr<const TableManifest>> TableContext::Manifest(const std::string& name) {
  const std::string key = "m:" + name;
  if (auto hit = cache_.Get<TableManifest>(key)) return hit;
  // One ranged GET enforces the size limit without a HEAD (decisions.md §2).
  OMNIGRAPH_ASSIGN_OR_RETURN(storage::GetResult got,
                             store().Get(name, storage::ByteRange{0, kManifestBytesMax + 1}));
  if (got.meta.size_bytes > kManifestBytesMax) {
    return Corruption("table manifest is " + std::to_string(got.meta.size_bytes) +
                          " bytes; at most " + std::to_string(kManifestBytesMax) + " are allowed",
                      name);
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(TableManifest manifest, DecodeManifest(got.data, name));
  auto value = std::make_shared<const TableManifest>(std::move(manifest));
  cache_.Put(key, value, 2 * got.data.size() + 1024);
  return value;
}

Result<std::shared_ptr<const FragmentReader>> TableContext::ReaderWithColumns(
    const TableManifest& manifest, const FragmentEntry& fragment,
    std::span<const uint32_t> field_ids, std::vector<HeldBytes>& held) {
  const std::string name = ObjectName(manifest.table(), fragment.path);
  if (auto hit = cache_.Get<FragmentReader>("r:" + name)) return hit;
  const std::vector<uint64_t>& at = fragment.column_offsets;
  const uint64_t open_reads = store().Remote() ? kRemoteFragmentReadBytes : kFooterReadBytes;
  if (fragment.bytes <= open_reads || at.size() != manifest.schema.size() + 1) {
    return Reader(manifest, fragment);
  }
  // The footer and tail (at least what an open reads on a local store), and beside them each
  // run of wanted columns that lies before those bytes.
  const uint64_t footer_read = std::max(fragment.bytes - at.back(), kFooterReadBytes);
  const uint64_t footer_from = fragment.bytes - std::min(footer_read, fragment.bytes);
  std::vector<size_t> columns;
  for (uint32_t id : field_ids) {
    for (size_t c = 0; c < manifest.schema.size(); ++c) {
      if (manifest.schema[c].id == id && at[c] < footer_from) columns.push_back(c);
    }
  }
  std::sort(columns.begin(), columns.end());
  columns.erase(std::unique(columns.begin(), columns.end()), columns.end());
  std::vector<std::pair<uint64_t, uint64_t>> spans;
  for (size_t c : columns) spans.emplace_back(at[c], at[c + 1]);
  const std::vector<storage::ByteRange> ranges = CoalesceColumnReads(spans);
  Result<std::shared_ptr<const FragmentReader>> reader = Status::Ok();
  held.assign(ranges.size(), HeldBytes{});
  TaskGroup group(runtime_.ReadExecutor());
  group.Add([&]() -> Status {
    reader = Reader(manifest, fragment, footer_read);
    return Status::Ok();
  });
  for (size_t r = 0; r < ranges.size(); ++r) {
    group.Add([&, r]() -> Status {
      Result<storage::SharedBytes> got =
          ReadFragmentRange(store(), name, fragment.bytes, ranges[r]);
      if (got.ok()) held[r] = HeldBytes{ranges[r].offset, *std::move(got)};
      return Status::Ok();
    });
  }
  OMNIGRAPH_RETURN_IF_ERROR(group.Wait());
  std::erase_if(held, [](const HeldBytes& h) { return h.data.empty(); });
  return reader;
}

Result<std::shared_ptr<const FragmentReader>> TableContext::Reader(const TableManifest& manifest,
                                                                   const FragmentEntry& fragment,
                                                                   uint64_t first_read_bytes) {
  const std::string name = ObjectName(manifest.table(), fragment.path);
  const std::string key = "r:" + name;
  if (auto hit = cache_.Get<FragmentReader>(key)) return hit;
  // A remote store reads a moderate fragment whole: one request round instead of two.
  const uint64_t first_read =
      first_read_bytes != 0 ? first_read_bytes
                            : (store().Remote() ? kRemoteFragmentReadBytes : kFooterReadBytes);
  OMNIGRAPH_ASSIGN_OR_RETURN(std::unique_ptr<FragmentReader> reader,
                             OpenFragment(store(), name, fragment.bytes, first_read));
  if (reader->num_rows() != fragment.rows) {
    return Corruption("fragment holds " + std::to_string(reader->num_rows()) +
                          " rows; the manifest says " + std::to_string(fragment.rows),
                      name);
  }
  if (reader->schema() != manifest.schema) {
    return Corruption("fragment schema differs from the manifest's", name);
  }
  std::shared_ptr<const FragmentReader> value = std::move(reader);
  cache_.Put(key, value,
             std::min<uint64_t>(fragment.bytes, first_read) + 1024 * manifest.schema.size());
  return value;
}

Result<std::vector<std::shared_ptr<const Column>>> TableContext::Columns(
    const TableManifest& manifest, const FragmentEntry& fragment,
    std::span<const uint32_t> field_ids) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<ColumnPart> parts,
                             ColumnsForRows(manifest, fragment, field_ids, {0, fragment.rows}));
  std::vector<std::shared_ptr<const Column>> out;
  out.reserve(parts.size());
  for (ColumnPart& part : parts) out.push_back(std::move(part.column));
  return out;
}

Result<std::vector<ColumnPart>> TableContext::ColumnsForRows(const TableManifest& manifest,
                                                             const FragmentEntry& fragment,
                                                             std::span<const uint32_t> field_ids,
                                                             RowRange rows) {
  const std::string name = ObjectName(manifest.table(), fragment.path);
  const auto key = [&](const char* kind, uint32_t field) {
    return kind + name + "#" + std::to_string(field);
  };
  std::vector<ColumnPart> out(field_ids.size());
  // The fields to read, and for each the rows to read; a part already cached that does not
  // hold the rows makes its field read whole.
  std::vector<uint32_t> missing;
  std::vector<RowRange> ranges;
  std::vector<bool> part_held;
  for (size_t i = 0; i < field_ids.size(); ++i) {
    if (auto whole = cache_.Get<Column>(key("c:", field_ids[i]))) {
      out[i] = ColumnPart{std::move(whole), 0};
      continue;
    }
    auto part = cache_.Get<ColumnPart>(key("p:", field_ids[i]));
    if (part != nullptr && part->base <= rows.begin &&
        rows.end <= part->base + part->column->length()) {
      out[i] = *part;
      continue;
    }
    if (std::find(missing.begin(), missing.end(), field_ids[i]) != missing.end()) continue;
    missing.push_back(field_ids[i]);
    part_held.push_back(part != nullptr);
  }
  if (missing.empty()) return out;
  std::vector<HeldBytes> held;
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const FragmentReader> reader,
                             ReaderWithColumns(manifest, fragment, missing, held));
  const bool sparse = (rows.end - rows.begin) * kPrefixReadShareDenominator <=
                      fragment.rows * kPrefixReadShareNumerator;
  for (size_t m = 0; m < missing.size(); ++m) {
    RowRange range{0, fragment.rows};
    const int index = reader->footer().FindColumn(missing[m]);
    if (sparse && !part_held[m] && index >= 0) {
      if (reader->RangeDecodable(missing[m])) {
        range = rows;
      } else if (rows.end * kPrefixReadShareDenominator <=
                     fragment.rows * kPrefixReadShareNumerator &&
                 PrefixDecodable(reader->footer().columns[static_cast<size_t>(index)].field.type)) {
        range = RowRange{0, rows.end};
      }
    }
    ranges.push_back(range);
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<Column> columns, reader->ReadRows(missing, ranges, held));
  for (size_t m = 0; m < missing.size(); ++m) {
    const bool whole = ranges[m].begin == 0 && ranges[m].end == fragment.rows;
    ColumnPart part{std::make_shared<const Column>(std::move(columns[m])), ranges[m].begin};
    const uint64_t charge = ColumnBytes(*part.column);
    if (whole) {
      cache_.Put(key("c:", missing[m]), part.column, charge);
      cache_.Erase(key("p:", missing[m]));
    } else {
      cache_.Put(key("p:", missing[m]), std::make_shared<const ColumnPart>(part), charge);
    }
    for (size_t i = 0; i < field_ids.size(); ++i) {
      if (field_ids[i] == missing[m]) out[i] = part;
    }
  }
  return out;
}

Result<TableContext::FragmentColumns> TableContext::ReadColumns(
    const TableManifest& manifest, uint32_t f, std::span<const uint32_t> field_ids) {
  const FragmentEntry& fragment = manifest.fragments[f];
  const std::string name = ObjectName(manifest.table(), fragment.path);
  FragmentColumns out(field_ids.size());
  bool cached = true;
  for (size_t i = 0; i < field_ids.size() && cached; ++i) {
    out[i] = cache_.Get<Column>("c:" + name + "#" + std::to_string(field_ids[i]));
    cached = out[i] != nullptr;
  }
  if (cached) return out;
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const FragmentReader> reader,
                             Reader(manifest, fragment));
  OMNIGRAPH_ASSIGN_OR_RETURN(ColumnBatch batch, reader->Read(field_ids));
  std::vector<Column> columns = batch.ReleaseColumns();
  for (size_t i = 0; i < field_ids.size(); ++i) {
    if (columns[i].length() != fragment.rows) {
      return Corruption("column " + std::to_string(field_ids[i]) + " holds " +
                            std::to_string(columns[i].length()) + " rows, not " +
                            std::to_string(fragment.rows),
                        name);
    }
    out[i] = std::make_shared<const Column>(std::move(columns[i]));
  }
  return out;
}

Status TableContext::ScanColumns(const TableManifest& manifest, std::span<const uint32_t> field_ids,
                                 const FragmentSink& sink) {
  // As TableStore::ScanPending: a read still running when the scan stops is waited for (the
  // group's destructor) before what it refers to goes.
  struct Ahead {
    std::unique_ptr<TaskGroup> group;
    std::shared_ptr<Result<FragmentColumns>> columns;
  };
  const auto start = [&](uint32_t f) {
    Ahead ahead{std::make_unique<TaskGroup>(*runtime_.executor),
                std::make_shared<Result<FragmentColumns>>(FragmentColumns{})};
    ahead.group->Add([this, &manifest, field_ids, f, columns = ahead.columns]() -> Status {
      *columns = ReadColumns(manifest, f, field_ids);
      return Status::Ok();
    });
    return ahead;
  };
  const uint32_t count = static_cast<uint32_t>(manifest.fragments.size());
  Ahead next = count > 0 ? start(0) : Ahead{};
  for (uint32_t f = 0; f < count; ++f) {
    Ahead current = std::move(next);
    OMNIGRAPH_RETURN_IF_ERROR(current.group->Wait());
    OMNIGRAPH_ASSIGN_OR_RETURN(FragmentColumns columns, std::move(*current.columns));
    if (f + 1 < count) next = start(f + 1);
    OMNIGRAPH_ASSIGN_OR_RETURN(bool more, sink(f, columns));
    if (!more) break;
  }
  return Status::Ok();
}

Result<std::shared_ptr<const Roaring>> TableContext::Deletion(const TableManifest& manifest,
                                                              const FragmentEntry& fragment) {
  if (!fragment.deletion) {
    static const std::shared_ptr<const Roaring> kEmpty = std::make_shared<const Roaring>();
    return kEmpty;
  }
  const std::string name = ObjectName(manifest.table(), fragment.deletion->path);
  const std::string key = "d:" + name;
  if (auto hit = cache_.Get<Roaring>(key)) return hit;
  OMNIGRAPH_ASSIGN_OR_RETURN(storage::GetResult got, store().Get(name));
  OMNIGRAPH_ASSIGN_OR_RETURN(
      Roaring rows, DecodeDeletionVector(got.data, *fragment.deletion, fragment.rows, name));
  auto value = std::make_shared<const Roaring>(std::move(rows));
  cache_.Put(key, value, value->getSizeInBytes() + 256);
  return value;
}

Result<std::shared_ptr<const IdIndex>> TableContext::Index(
    const TableManifest& manifest, std::shared_ptr<const IdIndex>* unstored) {
  const std::string key = "i:" + ManifestName(manifest.table(), manifest.staged_version);
  if (auto hit = cache_.Get<IdIndex>(key)) return hit;
  const bool derived = manifest.entity_count >= derived_rows_min_;
  if (derived) {
    // A damaged object or a broken chain is rebuilt below, and WriteDerived replaces it with a
    // full object.
    Result<std::shared_ptr<const IdIndex>> read = IndexFromChain(manifest);
    if (read.ok()) return read;
    if (read.status().kind() != Kind::kNotFound && read.status().code() != Code::kCorruption) {
      return read.status();
    }
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const IdIndex> built, BuildIndex(manifest));
  cache_.Put(key, built, built->bytes());
  if (derived && unstored != nullptr) {
    *unstored = built;
  } else if (derived) {
    StoreIndex(manifest, *built);
  }
  return built;
}

Result<std::shared_ptr<const IdIndex>> TableContext::WholeIndex(const TableManifest& manifest) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const IdIndex> index, Index(manifest));
  Result<const IdIndex*> whole = index->Whole();
  // Aliasing: the flat copy lives as long as the blocked index that holds it.
  if (whole.ok()) return std::shared_ptr<const IdIndex>(index, *whole);
  if (whole.status().code() != Code::kCorruption) return whole.status();
  const std::string key = "i:" + ManifestName(manifest.table(), manifest.staged_version);
  cache_.Erase(key);
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const IdIndex> built, BuildIndex(manifest));
  cache_.Put(key, built, built->bytes());
  // WriteDerived keeps an object that decodes, and this one does (its damage is inside a block
  // that Open does not decode), so the full object is put over it; failing to store it is not an
  // error.
  (void)ReplaceDerived(manifest, kIdsKind,
                       built->Encode(static_cast<uint32_t>(manifest.fragments.size())));
  return built;
}

Status TableContext::ReplaceDerived(const TableManifest& manifest, std::string_view kind,
                                    std::string payload) {
  const std::string name = DerivedName(manifest.table(), manifest.staged_version, kind);
  OMNIGRAPH_RETURN_IF_ERROR(
      store().Put(name, EncodeDerived(manifest, kind, std::move(payload), nullptr)));
  ForgetReplaced(name);
  return Status::Ok();
}

void TableContext::ForgetReplaced(const std::string& name) {
  for (const char* prefix : {"x:", "xh:", "xo:", "xp:", "xph:", "xc:", "cp:"}) {
    cache_.Erase(prefix + name);
  }
}

void TableContext::NoteDerivedChain(const std::string& name, std::optional<DerivedDelta> delta) {
  auto noted = std::make_shared<const NotedChain>(NotedChain{std::move(delta)});
  cache_.Put<NotedChain>("xc:" + name, std::move(noted), sizeof(NotedChain) + 128);
}

std::shared_ptr<const TableContext::NotedChain> TableContext::NotedDerivedChain(
    const std::string& name) {
  return cache_.Get<NotedChain>("xc:" + name);
}

void TableContext::PrefetchDerived(const std::string& name, uint64_t head_bytes) {
  Result<storage::SharedGetResult> got =
      head_bytes == 0 ? store().GetShared(name)
                      : store().GetShared(name, storage::ByteRange{0, head_bytes});
  if (!got.ok()) return;
  auto value = std::make_shared<const storage::SharedGetResult>(*std::move(got));
  const uint64_t bytes = value->data.size();
  // Not "xh:": that key holds a decoded DerivedHeader (TableVersion::ReadDerivedHeader).
  cache_.Put<storage::SharedGetResult>((head_bytes == 0 ? "xp:" : "xph:") + name, std::move(value),
                                       bytes);
}

std::shared_ptr<const storage::SharedGetResult> TableContext::TakePrefetched(
    const std::string& name, bool head) {
  const std::string key = (head ? "xph:" : "xp:") + name;
  std::shared_ptr<const storage::SharedGetResult> held = cache_.Get<storage::SharedGetResult>(key);
  if (held != nullptr) cache_.Erase(key);
  return held;
}

void TableContext::StoreIndex(const TableManifest& manifest, const IdIndex& index) {
  // Written back so that the next process reads one object instead of every fragment; the index
  // is never authority, so a failure to store it changes nothing.
  (void)WriteDerived(manifest, kIdsKind,
                     index.Encode(static_cast<uint32_t>(manifest.fragments.size())));
}

Result<std::shared_ptr<const IdIndex>> TableContext::IndexFromChain(const TableManifest& manifest) {
  const TableVersion version(shared_from_this(), std::make_shared<const TableManifest>(manifest),
                             ManifestName(manifest.table(), manifest.staged_version));
  // A reader that holds an earlier version's index (a warm process following a table's writes)
  // starts from it: the chain is walked back only to that version, and only the deltas after it
  // are read and applied, instead of the full object and every delta since.
  std::shared_ptr<const IdIndex> start;
  const auto held = [&](const TableManifest& base) {
    start = cache_.Get<IdIndex>("i:" + ManifestName(base.table(), base.staged_version));
    return start != nullptr;
  };
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<DerivedLink> chain,
                             version.ReadDerivedChain(kIdsKind, held));
  std::vector<IndexLink> links;
  for (const DerivedLink& link : chain) {
    links.push_back(IndexLink{link.manifest.get(), link.payload});
  }
  const bool from_held = chain.front().held;
  // An edge table's adjacency chain starts from the same full version and needs its index too.
  const bool edge = std::any_of(manifest.schema.begin(), manifest.schema.end(),
                                [](const Field& f) { return f.id == kSrcFieldId; });
  IdIndex first;
  const bool keep_first = edge && chain.size() > 1 && !from_held;
  Result<IdIndex> index =
      IdsOfChain(links, DerivedName(manifest.table(), manifest.staged_version, kIdsKind),
                 keep_first ? &first : nullptr, from_held ? start.get() : nullptr);
  // Only the decoded index is held, not the payloads it came from.
  for (const DerivedLink& link : chain) {
    if (link.held) continue;
    cache_.Erase("xo:" +
                 DerivedName(link.manifest->table(), link.manifest->staged_version, kIdsKind));
  }
  OMNIGRAPH_RETURN_IF_ERROR(index.status());
  if (keep_first) {
    auto value = std::make_shared<const IdIndex>(std::move(first));
    cache_.Put("i:" + ManifestName(manifest.table(), chain[0].manifest->staged_version), value,
               value->bytes());
  }
  auto value = std::make_shared<const IdIndex>(std::move(*index));
  cache_.Put("i:" + ManifestName(manifest.table(), manifest.staged_version), value, value->bytes());
  return std::shared_ptr<const IdIndex>(value);
}

Status TableContext::WriteDerived(const TableManifest& manifest, std::string_view kind,
                                  std::string payload, const DerivedDelta* delta) {
  const std::string name = DerivedName(manifest.table(), manifest.staged_version, kind);
  const std::string bytes = EncodeDerived(manifest, kind, std::move(payload), delta);
  OMNIGRAPH_ASSIGN_OR_RETURN(bool ours, PutImmutable(name, bytes));
  if (ours) {
    // The next write over this version through this handle knows the chain it stacks on (for
    // its record's read hint, TableVersion::IndexChainsForWrite).
    NoteDerivedChain(name, delta != nullptr ? std::optional<DerivedDelta>(*delta) : std::nullopt);
    return Status::Ok();
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(storage::GetResult existing, store().Get(name));
  Result<DecodedDerived> decoded = DecodeDerivedObject(manifest, kind, existing.data, name);
  if (decoded.ok() && (delta != nullptr || !decoded->delta)) return Status::Ok();
  OMNIGRAPH_RETURN_IF_ERROR(store().Put(name, bytes));
  // What this process cached of the replaced object is stale now.
  ForgetReplaced(name);
  return Status::Ok();
}

namespace {

// IndexInOrder's step for a fragment with no deleted row: when its ids ascend, each above the last
// id of `blob`, appends them with one copy of the column's bytes and their ends and rows, and
// returns true; otherwise changes nothing (the row-by-row path finds where the order breaks, or
// that the bytes exceed kIdIndexBytesMax, and says so).
bool AppendInOrder(const Column& ids, uint32_t fragment, uint32_t rows, std::string& blob,
                   std::vector<uint32_t>& ends, std::vector<RowRef>& refs) {
  if (!ends.empty()) {
    const uint32_t begin = ends.size() < 2 ? 0 : ends[ends.size() - 2];
    if (!(std::string_view(blob).substr(begin) < ids.StringAt(0))) return false;
  }
  for (uint32_t row = 1; row < rows; ++row) {
    if (!(ids.StringAt(row - 1) < ids.StringAt(row))) return false;
  }
  const std::span<const int32_t> offsets = ids.offsets();
  const auto first = static_cast<uint64_t>(offsets[0]);
  const uint64_t bytes = static_cast<uint64_t>(offsets[rows]) - first;
  if (blob.size() + bytes > kIdIndexBytesMax) return false;
  const uint64_t shift = blob.size() - first;  // Wraps when first > size; the sums below do not.
  blob.append(ids.value_bytes() + first, bytes);
  for (uint32_t row = 0; row < rows; ++row) {
    ends.push_back(static_cast<uint32_t>(shift + static_cast<uint64_t>(offsets[row + 1])));
    refs.push_back(RowRef{fragment, row});
  }
  return true;
}

}  // namespace

Result<std::optional<IdIndex>> TableContext::IndexInOrder(const TableManifest& manifest,
                                                          InOrderPrefix& prefix) {
  std::string& blob = prefix.blob;
  std::vector<uint32_t>& ends = prefix.ends;
  std::vector<RowRef>& refs = prefix.refs;
  ends.reserve(manifest.entity_count);
  refs.reserve(manifest.entity_count);
  bool in_order = true;
  const uint32_t id_field[] = {kIdFieldId};
  OMNIGRAPH_RETURN_IF_ERROR(ScanColumns(
      manifest, id_field, [&](uint32_t f, const FragmentColumns& columns) -> Result<bool> {
        const FragmentEntry& fragment = manifest.fragments[f];
        const size_t before = ends.size();
        OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const Roaring> deleted,
                                   Deletion(manifest, fragment));
        const Column& ids = *columns[0];
        // Not `blob.capacity() == 0`: an empty std::string has room for a few bytes already, so
        // that test never held and the blob grew by doubling, copying itself (decision 245).
        if (ends.empty() && fragment.rows > 0) {
          // Room for every id at this fragment's mean length (ids of one length: exactly).
          const uint64_t bytes = static_cast<uint64_t>(ids.offsets()[fragment.rows]);
          blob.reserve(std::min<uint64_t>(kIdIndexBytesMax,
                                          bytes / fragment.rows * manifest.entity_count + bytes));
        }
        if (deleted->isEmpty() && fragment.rows > 0) {
          // Every row is live: the ids go in one copy of the column's bytes, once their order
          // is checked (decision 245; a load's generated ids are all in order).
          if (AppendInOrder(ids, f, static_cast<uint32_t>(fragment.rows), blob, ends, refs)) {
            return true;
          }
        }
        for (uint32_t row = 0; row < fragment.rows; ++row) {
          if (deleted->contains(row)) continue;
          const std::string_view id = ids.StringAt(row);
          const uint32_t begin = ends.size() < 2 ? 0 : ends[ends.size() - 2];
          if (!ends.empty() && !(std::string_view(blob).substr(begin) < id)) {
            // The fragments before this one are a sorted run; this one's column is kept.
            in_order = false;
            ends.resize(before);
            refs.resize(before);
            blob.resize(before == 0 ? 0 : ends.back());
            prefix.first = f;
            prefix.column = columns[0];
            return false;
          }
          if (blob.size() + id.size() > kIdIndexBytesMax) {
            return Status(
                Code::kResourceLimit,
                "the ids of the version exceed " + std::to_string(kIdIndexBytesMax) + " bytes",
                ManifestName(manifest.table(), manifest.staged_version));
          }
          blob.append(id);
          ends.push_back(static_cast<uint32_t>(blob.size()));
          refs.push_back(RowRef{f, row});
        }
        return true;
      }));
  if (!in_order) return std::optional<IdIndex>();
  return std::optional<IdIndex>(IdIndex(std::move(blob), std::move(ends), std::move(refs)));
}

namespace {

// The source of BuildIndex's run of IndexInOrder's prefix: its rows are positions in the prefix.
constexpr uint32_t kPrefixSource = UINT32_MAX;

}  // namespace

Result<std::shared_ptr<const IdIndex>> TableContext::BuildIndex(const TableManifest& manifest) {
  InOrderPrefix prefix;
  OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<IdIndex> in_order, IndexInOrder(manifest, prefix));
  if (in_order) return std::make_shared<const IdIndex>(*std::move(in_order));
  const size_t count = manifest.fragments.size();
  std::vector<std::shared_ptr<const Column>> id_columns(count);
  const uint32_t id_field[] = {kIdFieldId};
  // The fragments before prefix.first, read already, are one sorted run (rows: positions in the
  // prefix). Each later fragment's live rows in id order: most fragments are sorted already (a
  // load writes ULIDs in the order it makes them; a checked pass is sequential), the rest are
  // sorted alone, where a fragment's ids fit the cache. Then one merge of the runs, or none when
  // they follow one another — far fewer scattered comparisons than sorting every row at once.
  // The fragments are read (the first of them kept by IndexInOrder), decoded and sorted in
  // parallel on the runtime's executor.
  std::vector<std::vector<RowRef>> runs(count + 1);
  runs[count].reserve(prefix.refs.size());
  for (uint32_t i = 0; i < prefix.refs.size(); ++i) runs[count].push_back(RowRef{kPrefixSource, i});
  TaskGroup group(*runtime_.executor);
  for (size_t f = prefix.first; f < count; ++f) {
    group.Add([&, f]() -> Status {
      const FragmentEntry& fragment = manifest.fragments[f];
      std::vector<std::shared_ptr<const Column>> columns{prefix.column};
      if (f != prefix.first || prefix.column == nullptr) {
        OMNIGRAPH_ASSIGN_OR_RETURN(columns, Columns(manifest, fragment, id_field));
      }
      OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const Roaring> deleted,
                                 Deletion(manifest, fragment));
      const Column& ids = *columns[0];
      id_columns[f] = std::move(columns[0]);
      std::vector<RowRef>& run = runs[f];
      run.reserve(fragment.rows);
      for (uint32_t row = 0; row < fragment.rows; ++row) {
        if (!deleted->contains(row)) run.push_back(RowRef{static_cast<uint32_t>(f), row});
      }
      const auto less_in_run = [&](const RowRef& a, const RowRef& b) {
        return ids.StringAt(a.row) < ids.StringAt(b.row);
      };
      if (!std::is_sorted(run.begin(), run.end(), less_in_run)) {
        std::sort(run.begin(), run.end(), less_in_run);
      }
      return Status::Ok();
    });
  }
  OMNIGRAPH_RETURN_IF_ERROR(group.Wait());
  prefix.column.reset();
  auto id_at = [&](const RowRef& ref) {
    if (ref.source != kPrefixSource) return id_columns[ref.source]->StringAt(ref.row);
    const uint32_t begin = ref.row == 0 ? 0 : prefix.ends[ref.row - 1];
    return std::string_view(prefix.blob).substr(begin, prefix.ends[ref.row] - begin);
  };
  auto less = [&](const RowRef& a, const RowRef& b) { return id_at(a) < id_at(b); };
  std::vector<RowRef> sorted = MergeRuns(std::move(runs), less, manifest.entity_count);
  std::string blob;
  std::vector<uint32_t> ends;
  ends.reserve(sorted.size());
  for (size_t i = 0; i < sorted.size(); ++i) {
    const std::string_view id = id_at(sorted[i]);
    if (i > 0 && id_at(sorted[i - 1]) == id) {
      return Corruption("table version holds id '" + std::string(id) + "' twice",
                        ManifestName(manifest.table(), manifest.staged_version));
    }
    if (blob.size() + id.size() > kIdIndexBytesMax) {
      return Status(Code::kResourceLimit,
                    "the ids of the version exceed " + std::to_string(kIdIndexBytesMax) + " bytes",
                    ManifestName(manifest.table(), manifest.staged_version));
    }
    blob.append(id);
    ends.push_back(static_cast<uint32_t>(blob.size()));
  }
  // Prefix rows back to where they live (after the loop: id_at reads them by prefix position).
  for (RowRef& ref : sorted) {
    if (ref.source == kPrefixSource) ref = prefix.refs[ref.row];
  }
  return std::make_shared<const IdIndex>(std::move(blob), std::move(ends), std::move(sorted));
}

Result<std::vector<std::string>> TableContext::DeletedIds(const TableManifest& manifest) {
  if (!manifest.deleted_ids_path) return manifest.deleted_ids;
  const std::string name = ObjectName(manifest.table(), *manifest.deleted_ids_path);
  OMNIGRAPH_ASSIGN_OR_RETURN(storage::GetResult got,
                             store().Get(name, storage::ByteRange{0, kDeletedIdsFileBytesMax + 1}));
  if (got.meta.size_bytes > kDeletedIdsFileBytesMax) {
    return Corruption(
        "deleted ids file is larger than " + std::to_string(kDeletedIdsFileBytesMax) + " bytes",
        name);
  }
  return DecodeDeletedIds(got.data, manifest.staged_version, manifest.deleted_ids_count, name);
}

Result<bool> TableContext::PutImmutable(const std::string& name, std::string_view bytes) {
  Status last;
  for (int attempt = 0; attempt < kStagingAttemptsMax; ++attempt) {
    Result<bool> created = store().PutIfAbsent(name, bytes);
    if (!created.ok()) {
      last = created.status();
      if (Retriable(last)) continue;
      return last;
    }
    if (*created) return true;
    Result<storage::GetResult> existing = store().Get(name);
    if (!existing.ok()) {
      last = existing.status();
      // Absent again (removed between the two calls) or a transient read failure: try again.
      if (Retriable(last) || last.kind() == Kind::kNotFound) continue;
      return last;
    }
    return existing->data == bytes;
  }
  return last.WithContext("staging write re-driven " + std::to_string(kStagingAttemptsMax) +
                          " times");
}

}  // namespace omnigraph::table::internal
