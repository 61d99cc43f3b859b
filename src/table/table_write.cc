// The write half of TableStore: each operation plans a new manifest from its base, stages the new
// fragments and deletion vectors in parallel (put-if-absent under fresh UUID names), and then
// creates the manifest under a fresh staged_version (docs/design/tables.md §Writing).
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "base/executor.h"
#include "base/ids.h"
#include "base/string_index.h"
#include "table/deletion_vector.h"
#include "table/row_gather.h"
#include "table/table_context.h"
#include "table/table_store.h"

namespace omnigraph::table {

namespace {

// For an overwrite: the base ids the new image leaves out (to delete), and how many it keeps.
// `incoming` is every id of the new image, ascending (the order of the index), so one merge
// pass over both finds them without holding a set of either.
Result<std::pair<std::vector<std::string>, uint64_t>> SplitOverwritten(
    const IdIndex& base, const SortedRecords& incoming) {
  std::vector<std::string> deleted;
  uint64_t updated = 0;
  std::unique_ptr<SortedRecords::Reader> reader = incoming.Open();
  std::string_view next, value;
  OMNIGRAPH_ASSIGN_OR_RETURN(bool more, reader->Next(&next, &value));
  for (size_t i = 0; i < base.size(); ++i) {
    const std::string_view id = base.IdAt(i);
    while (more && next < id) {
      OMNIGRAPH_ASSIGN_OR_RETURN(more, reader->Next(&next, &value));
    }
    if (more && next == id) {
      ++updated;
    } else {
      deleted.emplace_back(id);
    }
  }
  return std::make_pair(std::move(deleted), updated);
}

using internal::TableContext;

// Checks the ids of a well-formed batch: InvalidArgument for a missing id column, an over-long
// id, or an id given twice. When `ids` is given, the ids are appended to it in row order.
// Ids that ascend row by row are distinct without a hash table: a load's generated ids and a
// sorted batch are checked in one pass that allocates nothing (decision 249); otherwise each id
// goes through a StringIndex.
Status CheckBatchIds(const ColumnBatch& rows, std::vector<std::string_view>* ids) {
  const Column* column = rows.FindColumn(kIdFieldId);
  if (column == nullptr) return InvalidArgument("the rows have no id column");
  const uint64_t n = rows.num_rows();
  if (ids != nullptr) ids->reserve(ids->size() + n);
  bool ascending = true;
  for (uint64_t row = 0; row < n; ++row) {
    const std::string_view id = column->StringAt(row);
    // The empty id is an id (a node keyed by the empty string); only the length is bounded.
    if (id.size() > kIdBytesMax) {
      return InvalidArgument("row " + std::to_string(row) + ": an id must be at most " +
                             std::to_string(kIdBytesMax) + " bytes");
    }
    if (ascending && row > 0 && !(column->StringAt(row - 1) < id)) ascending = false;
    if (ids != nullptr) ids->push_back(id);
  }
  if (ascending) return Status::Ok();
  StringIndex seen(n);
  for (uint64_t row = 0; row < n; ++row) {
    const std::string_view id = column->StringAt(row);
    bool added = false;
    seen.Insert(id, &added);
    if (!added) {
      return InvalidArgument("id '" + std::string(id) + "' appears twice in one write");
    }
  }
  return Status::Ok();
}

// The ids of a well-formed batch, in row order (CheckBatchIds).
Result<std::vector<std::string_view>> BatchIds(const ColumnBatch& rows) {
  std::vector<std::string_view> ids;
  OMNIGRAPH_RETURN_IF_ERROR(CheckBatchIds(rows, &ids));
  return ids;
}

Status CheckRows(const ColumnBatch& rows, const Schema& schema, std::string_view table_key) {
  OMNIGRAPH_RETURN_IF_ERROR(ValidateBatch(rows));
  if (rows.schema() != schema) {
    return InvalidArgument("the rows' schema differs from the schema of table '" +
                           std::string(table_key) + "'");
  }
  return Status::Ok();
}

// Writes `bytes` under `make_name(uuid)` for a fresh UUID, redrawing on collision; returns the
// relative path.
Result<std::string> StageObject(TableContext& ctx, const TableId& table, const std::string& bytes,
                                std::string (*make_path)(std::string_view), StagedObjects* staged) {
  for (int draw = 0; draw < kNameDrawsMax; ++draw) {
    const std::string path = make_path(NewUuidV7(*ctx.runtime().clock, *ctx.runtime().random));
    const std::string name = ObjectName(table, path);
    OMNIGRAPH_ASSIGN_OR_RETURN(bool ours, ctx.PutImmutable(name, bytes));
    if (ours && staged != nullptr) staged->Add(name);
    if (ours) return path;
  }
  return Internal("no free object name after " + std::to_string(kNameDrawsMax) + " draws",
                  table.Root());
}

// The manifest entry of the fragment staged at `path` ("data/{uuid}.ogf"), with the column offsets
// its encoding reported when it is large enough for a reader to want them (decision 235).
FragmentEntry EntryOf(std::string path, uint64_t rows, uint64_t bytes,
                      std::vector<uint64_t> column_offsets) {
  FragmentEntry entry;
  entry.id = path.substr(5, path.size() - 5 - 4);
  entry.path = std::move(path);
  entry.rows = rows;
  entry.bytes = bytes;
  if (bytes > kColumnOffsetsFragmentBytesMin) entry.column_offsets = std::move(column_offsets);
  return entry;
}

// Writes `rows` as fragments of at most fragment_rows_max rows, in parallel; appends their
// entries to `out` in row order.
Status WriteFragments(TableContext& ctx, const TableId& table, const ColumnBatch& rows,
                      std::vector<FragmentEntry>& out, StagedObjects* staged) {
  const uint64_t per = ctx.fragment_rows_max();
  const uint64_t count = (rows.num_rows() + per - 1) / per;
  std::vector<FragmentEntry> written(count);
  TaskGroup group(*ctx.runtime().executor);
  for (uint64_t f = 0; f < count; ++f) {
    group.Add([&, f]() -> Status {
      const uint64_t begin = f * per, end = std::min(rows.num_rows(), begin + per);
      std::string bytes;
      std::vector<uint64_t> offsets;
      if (count == 1) {
        OMNIGRAPH_ASSIGN_OR_RETURN(bytes, EncodeFragment(rows, ctx.fragment_options(), &offsets));
      } else {
        std::vector<RowRef> refs;
        for (uint64_t r = begin; r < end; ++r) refs.push_back(RowRef{0, static_cast<uint32_t>(r)});
        std::vector<Column> columns;
        for (size_t c = 0; c < rows.num_columns(); ++c) {
          const Column* source = &rows.column(c);
          OMNIGRAPH_ASSIGN_OR_RETURN(Column column,
                                     GatherColumn(rows.field(c), std::span(&source, 1), refs));
          columns.push_back(std::move(column));
        }
        ColumnBatch slice(rows.schema(), std::move(columns), end - begin);
        OMNIGRAPH_ASSIGN_OR_RETURN(bytes, EncodeFragment(slice, ctx.fragment_options(), &offsets));
      }
      OMNIGRAPH_ASSIGN_OR_RETURN(std::string path,
                                 StageObject(ctx, table, bytes, &DataPath, staged));
      written[f] = EntryOf(std::move(path), end - begin, bytes.size(), std::move(offsets));
      return Status::Ok();
    });
  }
  OMNIGRAPH_RETURN_IF_ERROR(group.Wait());
  out.insert(out.end(), written.begin(), written.end());
  return Status::Ok();
}

// Adds `rows` (per fragment index of `base`) to the fragments' deletion vectors: each touched
// fragment gets a new vector holding its old rows and the new ones, or is dropped from
// `fragments` when no live row remains. Vectors are written in parallel.
Status ApplyDeletions(TableContext& ctx, const TableManifest& base,
                      const std::map<uint32_t, std::vector<uint32_t>>& rows,
                      std::vector<FragmentEntry>& fragments, StagedObjects* staged) {
  std::vector<std::optional<FragmentEntry>> next(base.fragments.begin(), base.fragments.end());
  TaskGroup group(*ctx.runtime().executor);
  for (const auto& [f, deleted_rows] : rows) {
    // Structured bindings are captured by name (clang before 16 cannot capture them).
    group.Add([&, f = f, &deleted = deleted_rows]() -> Status {
      const FragmentEntry& fragment = base.fragments[f];
      OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const Roaring> old, ctx.Deletion(base, fragment));
      Roaring merged = *old;
      merged.addMany(deleted.size(), deleted.data());
      if (merged.cardinality() == fragment.rows) {
        next[f].reset();
        return Status::Ok();
      }
      const std::string bytes = EncodeDeletionVector(merged);
      OMNIGRAPH_ASSIGN_OR_RETURN(std::string path,
                                 StageObject(ctx, base.table(), bytes, &DeletionPath, staged));
      next[f]->deletion =
          DeletionRef{path, merged.cardinality(), bytes.size(), DeletionChecksum(bytes)};
      return Status::Ok();
    });
  }
  OMNIGRAPH_RETURN_IF_ERROR(group.Wait());
  fragments.clear();
  for (auto& entry : next) {
    if (entry) fragments.push_back(std::move(*entry));
  }
  return Status::Ok();
}

// The manifest of a version derived from `base` (fragments copied; counts zero).
TableManifest NextManifest(const TableManifest& base, Operation op,
                           const std::optional<StagedAgainst>& against) {
  TableManifest next;
  next.table_key = base.table_key;
  next.stable_table_id = base.stable_table_id;
  next.incarnation = base.incarnation;
  next.base_staged_version = base.staged_version;
  next.target_version = base.target_version + 1;
  next.operation = op;
  next.schema = base.schema;
  next.fragments = base.fragments;
  next.staged_against = against;
  return next;
}

// Drops every fragment's column offsets (a read hint, decision 235); whether any were there.
bool DropColumnOffsets(TableManifest& m) {
  bool dropped = false;
  for (FragmentEntry& f : m.fragments) {
    dropped = dropped || !f.column_offsets.empty();
    f.column_offsets.clear();
  }
  return dropped;
}

// Records the deleted ids (inline or in a side file) and creates the manifest under a fresh
// staged_version, redrawing on collision.
Result<TablePin> Stage(TableContext& ctx, TableManifest m, std::vector<std::string> deleted_ids,
                       StagedObjects* staged) {
  m.entity_count = 0;
  for (const FragmentEntry& f : m.fragments) m.entity_count += f.live_rows();
  m.deleted_ids_count = deleted_ids.size();
  const bool side_file = DeletedIdsJsonBytes(deleted_ids) > kDeletedIdsInlineBytesMax;
  if (!side_file) m.deleted_ids = std::move(deleted_ids);
  Random& random = *ctx.runtime().random;
  for (int draw = 0; draw < kNameDrawsMax; ++draw) {
    m.staged_version = kStagedVersionBit | (random.Next64() >> 1);
    m.transaction_uuid = NewUuidV7(*ctx.runtime().clock, random);
    m.created_at = ctx.runtime().clock->NowMicros();
    if (side_file) {
      const std::string bytes = EncodeDeletedIds(m.staged_version, deleted_ids);
      if (bytes.size() > kDeletedIdsFileBytesMax) {
        return Status(Code::kResourceLimit,
                      "deleted ids need " + std::to_string(bytes.size()) + " bytes; at most " +
                          std::to_string(kDeletedIdsFileBytesMax) + " are allowed",
                      m.table().Root());
      }
      OMNIGRAPH_ASSIGN_OR_RETURN(std::string path,
                                 StageObject(ctx, m.table(), bytes, &DeletedIdsPath, staged));
      m.deleted_ids_path = path;
    }
    std::string bytes = EncodeManifest(m);
    if (bytes.size() > kColumnOffsetsManifestBytesMax && DropColumnOffsets(m)) {
      bytes = EncodeManifest(m);
    }
    if (bytes.size() > kManifestBytesMax) {
      return Status(Code::kResourceLimit,
                    "the manifest would be " + std::to_string(bytes.size()) + " bytes (" +
                        std::to_string(m.fragments.size()) + " fragments); at most " +
                        std::to_string(kManifestBytesMax) + " are allowed",
                    m.table().Root());
    }
    const std::string name = ManifestName(m.table(), m.staged_version);
    OMNIGRAPH_ASSIGN_OR_RETURN(bool ours, ctx.PutImmutable(name, bytes));
    if (ours && staged != nullptr) staged->Add(name);
    if (ours) return m.pin();
  }
  return Internal("no free staged_version after " + std::to_string(kNameDrawsMax) + " draws",
                  m.table().Root());
}

// The pending fragments with deletion vectors for their superseded rows (written in parallel);
// fragments with no live row left are dropped.
Result<std::vector<FragmentEntry>> PendingFragments(TableContext& ctx, const TableId& table,
                                                    const PendingRows& rows,
                                                    StagedObjects* staged) {
  std::vector<std::optional<FragmentEntry>> out(rows.fragments.begin(), rows.fragments.end());
  TaskGroup group(*ctx.runtime().executor);
  for (const auto& [f, superseded_rows] : rows.superseded) {
    // Structured bindings are captured by name (clang before 16 cannot capture them).
    group.Add([&, f = f, &superseded = superseded_rows]() -> Status {
      Roaring deleted;
      deleted.addMany(superseded.size(), superseded.data());
      if (deleted.cardinality() == out[f]->rows) {
        out[f].reset();
        return Status::Ok();
      }
      const std::string bytes = EncodeDeletionVector(deleted);
      OMNIGRAPH_ASSIGN_OR_RETURN(std::string path,
                                 StageObject(ctx, table, bytes, &DeletionPath, staged));
      out[f]->deletion =
          DeletionRef{path, deleted.cardinality(), bytes.size(), DeletionChecksum(bytes)};
      return Status::Ok();
    });
  }
  OMNIGRAPH_RETURN_IF_ERROR(group.Wait());
  std::vector<FragmentEntry> kept;
  for (auto& entry : out) {
    if (entry) kept.push_back(std::move(*entry));
  }
  return kept;
}

// InvalidArgument unless the rows were written for `base`'s table, every superseded row is a row
// of its fragment, the ids are as many as the live rows, and the rows' schema is the base's
// (`same_schema`: append, upsert) or a valid table schema (overwrite, whose schema replaces it).
Status CheckPending(const TableManifest& base, const PendingRows& rows, bool same_schema) {
  if (!same_schema) {
    OMNIGRAPH_RETURN_IF_ERROR(ValidateTableSchema(rows.schema));
  } else if (rows.schema != base.schema) {
    return InvalidArgument("the rows' schema differs from the schema of table '" + base.table_key +
                           "'");
  }
  if (rows.table != base.table()) {
    return InvalidArgument("pending rows were written under " + rows.table.Root() +
                           ", not under table '" + base.table_key + "' (" + base.table().Root() +
                           ")");
  }
  for (const auto& [f, superseded] : rows.superseded) {
    if (f >= rows.fragments.size() ||
        (!superseded.empty() && superseded.back() >= rows.fragments[f].rows)) {
      return InvalidArgument("superseded rows name a fragment or row that the pending rows lack");
    }
  }
  uint64_t live = 0;
  for (const FragmentEntry& f : rows.fragments) live += f.rows;
  for (const auto& [f, superseded] : rows.superseded) live -= superseded.size();
  if (rows.ids == nullptr) return InvalidArgument("pending rows have no id list");
  const uint64_t ids = rows.ids->size();
  if (live != ids) {
    return InvalidArgument("pending rows hold " + std::to_string(live) + " live rows but " +
                           std::to_string(ids) + " ids");
  }
  return Status::Ok();
}

}  // namespace

Result<FragmentEntry> TableStore::WriteFragment(const TableId& table, const ColumnBatch& rows,
                                                StagedObjects* staged) {
  OMNIGRAPH_RETURN_IF_ERROR(ValidateTableSchema(rows.schema()));
  OMNIGRAPH_RETURN_IF_ERROR(ValidateBatch(rows));
  OMNIGRAPH_RETURN_IF_ERROR(CheckBatchIds(rows, nullptr));
  std::vector<uint64_t> offsets;
  OMNIGRAPH_ASSIGN_OR_RETURN(std::string bytes,
                             EncodeFragment(rows, ctx_->fragment_options(), &offsets));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::string path, StageObject(*ctx_, table, bytes, &DataPath, staged));
  return EntryOf(std::move(path), rows.num_rows(), bytes.size(), std::move(offsets));
}

Result<TablePin> TableStore::AppendPending(const TablePin& base, const PendingRows& rows,
                                           const std::optional<StagedAgainst>& against,
                                           StagedObjects* staged) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const TableVersion> version, Open(base));
  const TableManifest& b = version->manifest();
  OMNIGRAPH_RETURN_IF_ERROR(CheckPending(b, rows, /*same_schema=*/true));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const IdIndex> index, ctx_->Index(b));
  OMNIGRAPH_RETURN_IF_ERROR(rows.ids->ForEachKey([&](std::string_view id) -> Status {
    OMNIGRAPH_ASSIGN_OR_RETURN(const RowRef* ref, index->LocateRef(id));
    if (ref == nullptr) return Status::Ok();
    return Status(
        Code::kKeyConflict,
        "append of id '" + std::string(id) + "', which table '" + b.table_key + "' already holds",
        version->manifest_name());
  }));
  TableManifest m = NextManifest(b, Operation::kAppend, against);
  m.inserted_ids_count = rows.ids->size();
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<FragmentEntry> added,
                             PendingFragments(*ctx_, b.table(), rows, staged));
  m.fragments.insert(m.fragments.end(), added.begin(), added.end());
  return Stage(*ctx_, std::move(m), {}, staged);
}

Result<TablePin> TableStore::UpsertPending(const TablePin& base, const PendingRows& rows,
                                           const std::optional<StagedAgainst>& against,
                                           StagedObjects* staged) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const TableVersion> version, Open(base));
  const TableManifest& b = version->manifest();
  OMNIGRAPH_RETURN_IF_ERROR(CheckPending(b, rows, /*same_schema=*/true));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const IdIndex> index, ctx_->Index(b));
  std::map<uint32_t, std::vector<uint32_t>> deletions;
  uint64_t updated = 0;
  OMNIGRAPH_RETURN_IF_ERROR(rows.ids->ForEachKey([&](std::string_view id) -> Status {
    OMNIGRAPH_ASSIGN_OR_RETURN(const RowRef* ref, index->LocateRef(id));
    if (ref != nullptr) {
      deletions[ref->source].push_back(ref->row);
      ++updated;
    }
    return Status::Ok();
  }));
  TableManifest m = NextManifest(b, Operation::kUpsert, against);
  m.updated_ids_count = updated;
  m.inserted_ids_count = rows.ids->size() - updated;
  OMNIGRAPH_RETURN_IF_ERROR(ApplyDeletions(*ctx_, b, deletions, m.fragments, staged));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<FragmentEntry> added,
                             PendingFragments(*ctx_, b.table(), rows, staged));
  m.fragments.insert(m.fragments.end(), added.begin(), added.end());
  return Stage(*ctx_, std::move(m), {}, staged);
}

Result<TablePin> TableStore::OverwritePending(const TablePin& base, const PendingRows& rows,
                                              const std::optional<StagedAgainst>& against,
                                              StagedObjects* staged) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const TableVersion> version, Open(base));
  const TableManifest& b = version->manifest();
  OMNIGRAPH_RETURN_IF_ERROR(CheckPending(b, rows, /*same_schema=*/false));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const IdIndex> index, ctx_->WholeIndex(b));
  OMNIGRAPH_ASSIGN_OR_RETURN(auto split, SplitOverwritten(*index, *rows.ids));
  auto& [deleted, updated] = split;
  TableManifest m = NextManifest(b, Operation::kOverwrite, against);
  m.schema = rows.schema;
  m.updated_ids_count = updated;
  m.inserted_ids_count = rows.ids->size() - updated;
  OMNIGRAPH_ASSIGN_OR_RETURN(m.fragments, PendingFragments(*ctx_, b.table(), rows, staged));
  return Stage(*ctx_, std::move(m), std::move(deleted), staged);
}

namespace {

// A version over pending fragments (no deletion vectors), for reading them back.
TableVersion PendingVersion(const std::shared_ptr<internal::TableContext>& ctx,
                            const PendingRows& rows) {
  auto m = std::make_shared<TableManifest>();
  m->table_key = "pending";
  m->stable_table_id = rows.table.stable_table_id;
  m->incarnation = rows.table.incarnation;
  m->schema = rows.schema;
  m->fragments = rows.fragments;
  for (FragmentEntry& f : m->fragments) f.deletion.reset();
  return TableVersion(ctx, std::move(m), "pending rows of " + rows.table.Root());
}

// The live rows of fragment `f` (superseded ones left out).
void LivePendingRows(const PendingRows& rows, uint32_t f, std::vector<RowRef>& out) {
  auto it = rows.superseded.find(f);
  const std::vector<uint32_t>* gone = it == rows.superseded.end() ? nullptr : &it->second;
  size_t g = 0;
  for (uint32_t r = 0; r < rows.fragments[f].rows; ++r) {
    if (gone != nullptr && g < gone->size() && (*gone)[g] == r) {
      ++g;
      continue;
    }
    out.push_back(RowRef{f, r});
  }
}

}  // namespace

Result<ColumnBatch> TableStore::ReadPending(const PendingRows& rows) const {
  std::vector<RowRef> live;
  for (uint32_t f = 0; f < rows.fragments.size(); ++f) LivePendingRows(rows, f, live);
  return PendingVersion(ctx_, rows).Gather(rows.schema, live);
}

namespace {

// The rows `rows` kept of fragment `f` when they are what the fragment holds, else null.
const ColumnBatch* KeptPending(const PendingRows& rows, uint32_t f) {
  if (f >= rows.written.size() || rows.written[f] == nullptr) return nullptr;
  const ColumnBatch& kept = *rows.written[f];
  if (kept.num_rows() != rows.fragments[f].rows || kept.schema() != rows.schema) return nullptr;
  return &kept;
}

}  // namespace

Status TableStore::ScanPending(const PendingRows& rows, const PendingSink& sink) const {
  // Straight from the store, not through the object cache: a load reads its rows back once, to
  // validate them, and caching rows that are not published yet would evict what readers cached
  // (and make a load's memory grow with its input up to the cache's size).
  std::vector<uint32_t> field_ids;
  for (const Field& f : rows.schema) field_ids.push_back(f.id);
  // The live rows of fragment f, or none when every row was superseded.
  const auto read = [&](uint32_t f) -> Result<std::optional<ColumnBatch>> {
    std::vector<RowRef> live;
    LivePendingRows(rows, f, live);
    if (live.empty()) return std::optional<ColumnBatch>();
    const FragmentEntry& fragment = rows.fragments[f];
    const std::string name = ObjectName(rows.table, fragment.path);
    OMNIGRAPH_ASSIGN_OR_RETURN(std::unique_ptr<FragmentReader> reader,
                               OpenFragment(ctx_->store(), name, fragment.bytes));
    if (reader->num_rows() != fragment.rows) {
      return Corruption("fragment holds " + std::to_string(reader->num_rows()) + " rows, not " +
                            std::to_string(fragment.rows),
                        name);
    }
    if (reader->schema() != rows.schema) {
      return Corruption("fragment schema differs from the pending rows' schema", name);
    }
    OMNIGRAPH_ASSIGN_OR_RETURN(ColumnBatch batch, reader->Read(field_ids));
    if (live.size() != batch.num_rows()) {
      for (RowRef& r : live) r.source = 0;
      OMNIGRAPH_ASSIGN_OR_RETURN(batch, GatherRows(batch, live));
    }
    return std::optional<ColumnBatch>(std::move(batch));
  };
  // A kept fragment's live rows go to the sink as they are (gathered when a row was superseded).
  const auto sink_kept = [&](uint32_t f, const ColumnBatch& kept) -> Status {
    std::vector<RowRef> live;
    LivePendingRows(rows, f, live);
    if (live.empty()) return Status::Ok();
    if (live.size() == kept.num_rows()) return sink(kept);
    for (RowRef& r : live) r.source = 0;
    OMNIGRAPH_ASSIGN_OR_RETURN(ColumnBatch batch, GatherRows(kept, live));
    return sink(batch);
  };
  // The next fragment is read and decoded on the runtime's executor while the sink takes this
  // one: two fragments' rows at most are held. A read still running when the scan stops is
  // waited for (the group's destructor) before `read` goes. A kept fragment starts nothing.
  struct Ahead {
    std::unique_ptr<TaskGroup> group;
    std::shared_ptr<Result<std::optional<ColumnBatch>>> batch;
  };
  const auto start = [&](uint32_t f) {
    if (KeptPending(rows, f) != nullptr) return Ahead{};
    Ahead ahead{std::make_unique<TaskGroup>(*ctx_->runtime().executor),
                std::make_shared<Result<std::optional<ColumnBatch>>>(std::nullopt)};
    ahead.group->Add([&read, f, batch = ahead.batch]() -> Status {
      *batch = read(f);
      return Status::Ok();
    });
    return ahead;
  };
  const uint32_t count = static_cast<uint32_t>(rows.fragments.size());
  Ahead next = count > 0 ? start(0) : Ahead{};
  for (uint32_t f = 0; f < count; ++f) {
    Ahead current = std::move(next);
    if (current.group != nullptr) OMNIGRAPH_RETURN_IF_ERROR(current.group->Wait());
    if (f + 1 < count) next = start(f + 1);
    if (const ColumnBatch* kept = KeptPending(rows, f); kept != nullptr) {
      OMNIGRAPH_RETURN_IF_ERROR(sink_kept(f, *kept));
      continue;
    }
    OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<ColumnBatch> batch, std::move(*current.batch));
    if (batch) OMNIGRAPH_RETURN_IF_ERROR(sink(*batch));
  }
  return Status::Ok();
}

Result<TablePin> TableStore::Create(const NewTable& table, const ColumnBatch& rows,
                                    const std::optional<StagedAgainst>& against) {
  StagedObjects* const staged = nullptr;
  OMNIGRAPH_RETURN_IF_ERROR(ValidateTableSchema(table.schema));
  OMNIGRAPH_RETURN_IF_ERROR(CheckRows(rows, table.schema, table.table_key));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<std::string_view> ids, BatchIds(rows));
  TableManifest m;
  m.table_key = table.table_key;
  m.stable_table_id = table.id.stable_table_id;
  m.incarnation = table.id.incarnation;
  m.target_version = 1;
  m.operation = Operation::kCreate;
  m.schema = table.schema;
  m.staged_against = against;
  m.inserted_ids_count = ids.size();
  OMNIGRAPH_RETURN_IF_ERROR(WriteFragments(*ctx_, table.id, rows, m.fragments, staged));
  return Stage(*ctx_, std::move(m), {}, staged);
}

Result<TablePin> TableStore::StageWrite(const TablePin& base, const TableWrite& write,
                                        const std::optional<StagedAgainst>& against,
                                        StagedObjects* staged) {
  const PendingRows* pending = write.pending.get();
  switch (write.op) {
    case TableWrite::Op::kAppend:
      return pending ? AppendPending(base, *pending, against, staged)
                     : Append(base, write.rows, against, staged);
    case TableWrite::Op::kUpsert:
      return pending ? UpsertPending(base, *pending, against, staged)
                     : Upsert(base, write.rows, against, staged);
    case TableWrite::Op::kDelete: return Delete(base, write.ids, against, staged);
    case TableWrite::Op::kOverwrite:
      return pending ? OverwritePending(base, *pending, against, staged)
                     : Overwrite(base, write.rows, against, staged);
    case TableWrite::Op::kPatch: {
      if (pending) return InvalidArgument("a patch takes rows, not pending rows");
      if (write.ids.empty()) return Upsert(base, write.rows, against, staged);
      OMNIGRAPH_ASSIGN_OR_RETURN(TablePin deleted, Delete(base, write.ids, against, staged));
      if (write.rows.num_rows() == 0) return deleted;
      return Upsert(deleted, write.rows, against, staged);
    }
  }
  return Status(Code::kInternal, "unknown table write operation");
}

Result<TablePin> TableStore::Append(const TablePin& base, const ColumnBatch& rows,
                                    const std::optional<StagedAgainst>& against,
                                    StagedObjects* staged) {
  OMNIGRAPH_RETURN_IF_ERROR(CheckAppend(base, rows));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const TableVersion> version, Open(base));
  const TableManifest& b = version->manifest();
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<std::string_view> ids, BatchIds(rows));
  TableManifest m = NextManifest(b, Operation::kAppend, against);
  m.inserted_ids_count = ids.size();
  OMNIGRAPH_RETURN_IF_ERROR(WriteFragments(*ctx_, b.table(), rows, m.fragments, staged));
  return Stage(*ctx_, std::move(m), {}, staged);
}

Status TableStore::CheckAppend(const TablePin& base, const ColumnBatch& rows) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const TableVersion> version, Open(base));
  const TableManifest& b = version->manifest();
  OMNIGRAPH_RETURN_IF_ERROR(CheckRows(rows, b.schema, b.table_key));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<std::string_view> ids, BatchIds(rows));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const IdIndex> index, ctx_->Index(b));
  for (std::string_view id : ids) {
    OMNIGRAPH_ASSIGN_OR_RETURN(const RowRef* ref, index->LocateRef(id));
    if (ref != nullptr) {
      return Status(
          Code::kKeyConflict,
          "append of id '" + std::string(id) + "', which table '" + b.table_key + "' already holds",
          version->manifest_name());
    }
  }
  return Status::Ok();
}

Result<TablePin> TableStore::Upsert(const TablePin& base, const ColumnBatch& rows,
                                    const std::optional<StagedAgainst>& against,
                                    StagedObjects* staged) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const TableVersion> version, Open(base));
  const TableManifest& b = version->manifest();
  OMNIGRAPH_RETURN_IF_ERROR(CheckRows(rows, b.schema, b.table_key));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<std::string_view> ids, BatchIds(rows));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const IdIndex> index, ctx_->Index(b));
  std::map<uint32_t, std::vector<uint32_t>> deletions;
  uint64_t updated = 0;
  for (std::string_view id : ids) {
    OMNIGRAPH_ASSIGN_OR_RETURN(const RowRef* ref, index->LocateRef(id));
    if (ref != nullptr) {
      deletions[ref->source].push_back(ref->row);
      ++updated;
    }
  }
  TableManifest m = NextManifest(b, Operation::kUpsert, against);
  m.updated_ids_count = updated;
  m.inserted_ids_count = ids.size() - updated;
  OMNIGRAPH_RETURN_IF_ERROR(ApplyDeletions(*ctx_, b, deletions, m.fragments, staged));
  OMNIGRAPH_RETURN_IF_ERROR(WriteFragments(*ctx_, b.table(), rows, m.fragments, staged));
  return Stage(*ctx_, std::move(m), {}, staged);
}

Result<TablePin> TableStore::Delete(const TablePin& base, std::span<const std::string> ids,
                                    const std::optional<StagedAgainst>& against,
                                    StagedObjects* staged) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const TableVersion> version, Open(base));
  const TableManifest& b = version->manifest();
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const IdIndex> index, ctx_->Index(b));
  std::map<uint32_t, std::vector<uint32_t>> deletions;
  const std::set<std::string_view> unique(ids.begin(), ids.end());
  std::vector<std::string> deleted;
  for (std::string_view id : unique) {
    OMNIGRAPH_ASSIGN_OR_RETURN(const RowRef* ref, index->LocateRef(id));
    if (ref != nullptr) {
      deletions[ref->source].push_back(ref->row);
      deleted.emplace_back(id);
    }
  }
  TableManifest m = NextManifest(b, Operation::kDelete, against);
  OMNIGRAPH_RETURN_IF_ERROR(ApplyDeletions(*ctx_, b, deletions, m.fragments, staged));
  return Stage(*ctx_, std::move(m), std::move(deleted), staged);
}

Result<TablePin> TableStore::Overwrite(const TablePin& base, const ColumnBatch& rows,
                                       const std::optional<StagedAgainst>& against,
                                       StagedObjects* staged) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const TableVersion> version, Open(base));
  const TableManifest& b = version->manifest();
  OMNIGRAPH_RETURN_IF_ERROR(ValidateTableSchema(rows.schema()));
  OMNIGRAPH_RETURN_IF_ERROR(CheckRows(rows, rows.schema(), b.table_key));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<std::string_view> ids, BatchIds(rows));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const IdIndex> index, ctx_->WholeIndex(b));
  OMNIGRAPH_ASSIGN_OR_RETURN(auto split, SplitOverwritten(*index, *SortedRecords::FromKeys(ids)));
  auto& [deleted, updated] = split;
  TableManifest m = NextManifest(b, Operation::kOverwrite, against);
  m.schema = rows.schema();
  m.fragments.clear();
  m.updated_ids_count = updated;
  m.inserted_ids_count = ids.size() - updated;
  OMNIGRAPH_RETURN_IF_ERROR(WriteFragments(*ctx_, b.table(), rows, m.fragments, staged));
  return Stage(*ctx_, std::move(m), std::move(deleted), staged);
}

void StagedObjects::Add(std::string name) {
  std::lock_guard lock(mu_);
  names_.push_back(std::move(name));
}

std::vector<std::string> StagedObjects::Take() {
  std::lock_guard lock(mu_);
  return std::exchange(names_, {});
}

bool StagedObjects::empty() const {
  std::lock_guard lock(mu_);
  return names_.empty();
}

}  // namespace omnigraph::table
