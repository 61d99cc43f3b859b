#include "table/table_version.h"

#include <algorithm>
#include <map>
#include <set>

#include "base/executor.h"
#include "table/derived.h"
#include "table/id_index_blocked.h"
#include "table/row_gather.h"
#include "table/table_context.h"

namespace omnigraph::table {

namespace {

// Concatenates batches of one schema into one.
Result<ColumnBatch> Concatenate(const Schema& schema, std::vector<ColumnBatch> batches) {
  if (batches.empty()) return EmptyBatch(schema);
  if (batches.size() == 1) return std::move(batches[0]);
  std::vector<RowRef> refs;
  for (size_t b = 0; b < batches.size(); ++b) {
    for (uint64_t row = 0; row < batches[b].num_rows(); ++row) {
      refs.push_back(RowRef{static_cast<uint32_t>(b), static_cast<uint32_t>(row)});
    }
  }
  std::vector<Column> columns;
  for (size_t c = 0; c < schema.size(); ++c) {
    std::vector<const Column*> sources;
    for (const ColumnBatch& batch : batches) sources.push_back(&batch.column(c));
    OMNIGRAPH_ASSIGN_OR_RETURN(Column column, GatherColumn(schema[c], sources, refs));
    columns.push_back(std::move(column));
  }
  return ColumnBatch(schema, std::move(columns), refs.size());
}

std::vector<uint32_t> FieldIds(const Schema& schema) {
  std::vector<uint32_t> ids;
  for (const Field& field : schema) ids.push_back(field.id);
  return ids;
}

// One live row a write added: its id, endpoints (edge tables) and place in the version.
struct AddedRow {
  std::string_view id;
  std::string_view src;
  std::string_view dst;
  RowRef ref;
};

void AppendTo(StringList& list, std::string_view s) {
  list.blob.append(s);
  list.ends.push_back(static_cast<uint32_t>(list.blob.size()));
}

// The deltas of `rows` (sorted by id) and the ids `deleted` (any order, repeats allowed).
IndexDeltas DeltasOf(const std::vector<AddedRow>& rows, std::span<const std::string> deleted,
                     bool edge) {
  IndexDeltas out;
  if (edge) out.edges.emplace();
  for (const AddedRow& row : rows) {
    AppendTo(out.ids.added, row.id);
    out.ids.refs.push_back(row.ref);
    if (!edge) continue;
    AppendTo(out.edges->ids, row.id);
    AppendTo(out.edges->src, row.src);
    AppendTo(out.edges->dst, row.dst);
  }
  std::vector<std::string_view> gone(deleted.begin(), deleted.end());
  std::sort(gone.begin(), gone.end());
  gone.erase(std::unique(gone.begin(), gone.end()), gone.end());
  for (std::string_view id : gone) {
    AppendTo(out.ids.removed, id);
    if (edge) AppendTo(out.edges->removed, id);
  }
  return out;
}

// The rows of `manifest`'s fragments that `ancestor` lacks.
uint64_t RowsAddedSince(const TableManifest& manifest, const TableManifest& ancestor) {
  std::set<std::string_view> kept;
  for (const FragmentEntry& f : ancestor.fragments) kept.insert(f.id);
  uint64_t rows = 0;
  for (const FragmentEntry& f : manifest.fragments) {
    if (kept.count(f.id) == 0) rows += f.rows;
  }
  return rows;
}

}  // namespace

TableVersion::TableVersion(std::shared_ptr<internal::TableContext> ctx,
                           std::shared_ptr<const TableManifest> manifest, std::string manifest_name)
    : ctx_(std::move(ctx)),
      manifest_(std::move(manifest)),
      manifest_name_(std::move(manifest_name)) {}

Result<Schema> TableVersion::Project(std::span<const uint32_t> field_ids) const {
  if (field_ids.empty()) return manifest_->schema;
  Schema out;
  for (uint32_t id : field_ids) {
    auto it = std::find_if(manifest_->schema.begin(), manifest_->schema.end(),
                           [&](const Field& f) { return f.id == id; });
    if (it == manifest_->schema.end()) {
      return InvalidArgument("table '" + manifest_->table_key + "' has no field " +
                             std::to_string(id));
    }
    if (std::any_of(out.begin(), out.end(), [&](const Field& f) { return f.id == id; })) {
      return InvalidArgument("field " + std::to_string(id) + " is projected twice");
    }
    out.push_back(*it);
  }
  return out;
}

Status TableVersion::Scan(const ScanOptions& options, const BatchSink& sink,
                          ScanStats* stats) const {
  OMNIGRAPH_ASSIGN_OR_RETURN(Schema projection, Project(options.field_ids));
  for (const Predicate& p : options.predicates) {
    OMNIGRAPH_RETURN_IF_ERROR(ValidatePredicate(p, manifest_->schema));
  }
  // The columns to read: the projection, then predicate columns not projected.
  std::vector<uint32_t> needed = FieldIds(projection);
  std::vector<size_t> predicate_column;
  for (const Predicate& p : options.predicates) {
    auto it = std::find(needed.begin(), needed.end(), p.field_id);
    predicate_column.push_back(static_cast<size_t>(it - needed.begin()));
    if (it == needed.end()) needed.push_back(p.field_id);
  }
  ScanStats local;
  const TableManifest& m = *manifest_;
  for (const FragmentEntry& fragment : m.fragments) {
    if (!options.fragment_ids.empty() &&
        std::find(options.fragment_ids.begin(), options.fragment_ids.end(), fragment.id) ==
            options.fragment_ids.end()) {
      continue;
    }
    ++local.fragments_total;
    bool skip = false;
    if (!options.predicates.empty()) {
      OMNIGRAPH_ASSIGN_OR_RETURN(auto reader, ctx_->Reader(m, fragment));
      for (const Predicate& p : options.predicates) {
        const ColumnMeta& meta = reader->footer().columns[reader->footer().FindColumn(p.field_id)];
        if (!StatsMayMatch(meta, fragment.rows, p)) skip = true;
      }
    }
    if (skip) {
      ++local.fragments_skipped;
      continue;
    }
    ++local.fragments_read;
    OMNIGRAPH_ASSIGN_OR_RETURN(auto columns, ctx_->Columns(m, fragment, needed));
    OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const Roaring> deleted, ctx_->Deletion(m, fragment));
    std::vector<uint32_t> selection;
    selection.reserve(fragment.rows - deleted->cardinality());
    for (uint32_t row = 0; row < fragment.rows; ++row) {
      if (!deleted->contains(row)) selection.push_back(row);
    }
    for (size_t i = 0; i < options.predicates.size(); ++i) {
      FilterRows(*columns[predicate_column[i]], options.predicates[i], selection);
    }
    if (selection.empty()) continue;
    std::vector<Column> out;
    for (size_t c = 0; c < projection.size(); ++c) {
      if (selection.size() == fragment.rows) {
        out.push_back(CopyColumn(*columns[c]));
        continue;
      }
      std::vector<RowRef> refs;
      refs.reserve(selection.size());
      for (uint32_t row : selection) refs.push_back(RowRef{0, row});
      const Column* source = columns[c].get();
      OMNIGRAPH_ASSIGN_OR_RETURN(Column column,
                                 GatherColumn(projection[c], std::span(&source, 1), refs));
      out.push_back(std::move(column));
    }
    local.rows_returned += selection.size();
    OMNIGRAPH_RETURN_IF_ERROR(sink(ColumnBatch(projection, std::move(out), selection.size())));
  }
  if (stats != nullptr) *stats = local;
  return Status::Ok();
}

Result<ColumnBatch> TableVersion::ScanAll(const ScanOptions& options, ScanStats* stats) const {
  OMNIGRAPH_ASSIGN_OR_RETURN(Schema projection, Project(options.field_ids));
  std::vector<ColumnBatch> batches;
  OMNIGRAPH_RETURN_IF_ERROR(Scan(
      options,
      [&](ColumnBatch batch) {
        batches.push_back(std::move(batch));
        return Status::Ok();
      },
      stats));
  return Concatenate(projection, std::move(batches));
}

Result<ColumnBatch> TableVersion::Gather(const Schema& projection,
                                         std::span<const RowRef> refs) const {
  const std::vector<uint32_t> field_ids = FieldIds(projection);
  // Each fragment a row comes from, with the range of its rows the gather needs.
  std::map<uint32_t, RowRange> fragments;
  for (const RowRef& ref : refs) {
    auto [it, added] = fragments.try_emplace(ref.source, RowRange{ref.row, ref.row + 1ull});
    it->second.begin = std::min<uint64_t>(it->second.begin, ref.row);
    it->second.end = std::max<uint64_t>(it->second.end, ref.row + 1ull);
  }
  // sources[c][f]: column c of fragment f, or the part of it from row bases[c][f] (null for
  // fragments no row comes from).
  std::vector<std::vector<const Column*>> sources(
      projection.size(), std::vector<const Column*>(manifest_->fragments.size(), nullptr));
  std::vector<std::vector<uint64_t>> bases(projection.size(),
                                           std::vector<uint64_t>(manifest_->fragments.size(), 0));
  std::vector<ColumnPart> held;
  for (const auto& [f, rows] : fragments) {
    OMNIGRAPH_ASSIGN_OR_RETURN(
        std::vector<ColumnPart> parts,
        ctx_->ColumnsForRows(*manifest_, manifest_->fragments[f], field_ids, rows));
    for (size_t c = 0; c < parts.size(); ++c) {
      sources[c][f] = parts[c].column.get();
      bases[c][f] = parts[c].base;
    }
    held.insert(held.end(), parts.begin(), parts.end());
  }
  std::vector<Column> out;
  for (size_t c = 0; c < projection.size(); ++c) {
    const bool based = std::any_of(bases[c].begin(), bases[c].end(), [](uint64_t b) { return b; });
    std::vector<RowRef> rebased;
    if (based) {
      rebased.reserve(refs.size());
      for (const RowRef& r : refs) {
        rebased.push_back(RowRef{r.source, static_cast<uint32_t>(r.row - bases[c][r.source])});
      }
    }
    OMNIGRAPH_ASSIGN_OR_RETURN(
        Column column,
        GatherColumn(projection[c], sources[c], based ? std::span<const RowRef>(rebased) : refs));
    out.push_back(std::move(column));
  }
  return ColumnBatch(projection, std::move(out), refs.size());
}

Result<LookupResult> TableVersion::Lookup(std::span<const std::string> ids,
                                          std::span<const uint32_t> field_ids) const {
  OMNIGRAPH_ASSIGN_OR_RETURN(Schema projection, Project(field_ids));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const IdIndex> index, ctx_->Index(*manifest_));
  LookupResult result;
  result.found.reserve(ids.size());
  std::vector<RowRef> refs;
  for (const std::string& id : ids) {
    OMNIGRAPH_ASSIGN_OR_RETURN(const RowRef* ref, index->LocateRef(id));
    result.found.push_back(ref != nullptr);
    if (ref != nullptr) refs.push_back(*ref);
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(result.rows, Gather(projection, refs));
  return result;
}

Result<BinaryCell> TableVersion::LocateBinaryCell(std::string_view id, uint32_t field_id) const {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const IdIndex> index, ctx_->Index(*manifest_));
  OMNIGRAPH_ASSIGN_OR_RETURN(const RowRef* ref, index->LocateRef(id));
  if (ref == nullptr) return NotFound("no row '" + std::string(id) + "'");
  const FragmentEntry& fragment = manifest_->fragments[ref->source];
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const FragmentReader> reader,
                             ctx_->Reader(*manifest_, fragment));
  return table::LocateBinaryCell(*reader, field_id, ref->row);
}

Status TableVersion::ReadBinaryCell(const BinaryCell& cell, uint64_t start, uint64_t end,
                                    const std::function<Status(std::string_view)>& sink) const {
  return table::ReadBinaryCell(ctx_->store(), cell, start, end, sink);
}

Status TableVersion::ScanInIdOrder(std::span<const uint32_t> field_ids, uint64_t batch_rows,
                                   const BatchSink& sink) const {
  if (batch_rows == 0) return InvalidArgument("batch_rows must be at least 1");
  OMNIGRAPH_ASSIGN_OR_RETURN(Schema projection, Project(field_ids));
  // A blocked index's references alone (decision 255); else, or when a block is damaged (which
  // WholeIndex rebuilds), the whole index's.
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const IdIndex> point, ctx_->Index(*manifest_));
  Result<std::optional<std::vector<RowRef>>> blocked = point->BlockedRefs();
  if (!blocked.ok() && blocked.status().code() != Code::kCorruption) return blocked.status();
  std::shared_ptr<const IdIndex> index;
  std::span<const RowRef> all;
  if (blocked.ok() && blocked->has_value()) {
    all = **blocked;
  } else {
    OMNIGRAPH_ASSIGN_OR_RETURN(index, ctx_->WholeIndex(*manifest_));
    all = index->refs();
  }
  for (size_t begin = 0; begin < all.size(); begin += batch_rows) {
    const size_t count = std::min<size_t>(batch_rows, all.size() - begin);
    OMNIGRAPH_ASSIGN_OR_RETURN(ColumnBatch batch, Gather(projection, all.subspan(begin, count)));
    OMNIGRAPH_RETURN_IF_ERROR(sink(std::move(batch)));
  }
  return Status::Ok();
}

Result<std::vector<std::string>> TableVersion::Ids() const {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const IdIndex> index, ctx_->WholeIndex(*manifest_));
  std::vector<std::string> ids;
  ids.reserve(index->size());
  for (size_t i = 0; i < index->size(); ++i) ids.emplace_back(index->IdAt(i));
  return ids;
}

Result<std::shared_ptr<const IdIndex>> TableVersion::SortedIds() const {
  return ctx_->WholeIndex(*manifest_);
}

Result<std::shared_ptr<const IdIndex>> TableVersion::PointIds() const {
  return ctx_->Index(*manifest_);
}

Result<std::shared_ptr<const EdgeCsr>> TableVersion::Csr(EdgeDirection direction) const {
  return Csr(direction, nullptr);
}

Result<std::shared_ptr<const EdgeCsr>> TableVersion::Csr(
    EdgeDirection direction, std::shared_ptr<const IdIndex> index) const {
  const std::string_view kind = CsrKind(direction);
  const std::string name = DerivedName(manifest_->table(), manifest_->staged_version, kind);
  const std::string key = "csr:" + name;
  if (auto hit = ctx_->cache().Get<EdgeCsr>(key)) return hit;
  const bool derived = manifest_->entity_count >= ctx_->derived_rows_min();
  if (derived) {
    // A damaged object or a broken chain is rebuilt below, and WriteDerived replaces it with a
    // full object.
    Result<EdgeCsr> read = CsrFromChain(direction);
    if (read.ok()) {
      auto value = std::make_shared<const EdgeCsr>(std::move(*read));
      ctx_->cache().Put<EdgeCsr>(key, value, value->bytes());
      return std::shared_ptr<const EdgeCsr>(value);
    }
    if (read.status().kind() != Kind::kNotFound && read.status().code() != Code::kCorruption) {
      return read.status();
    }
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(EdgeCsr built, BuildCsr(direction, std::move(index)));
  if (derived) (void)ctx_->WriteDerived(*manifest_, kind, built.Encode());
  auto value = std::make_shared<const EdgeCsr>(std::move(built));
  ctx_->cache().Put<EdgeCsr>(key, value, value->bytes());
  return std::shared_ptr<const EdgeCsr>(value);
}

Result<EdgeCsr> TableVersion::CsrFromChain(EdgeDirection direction) const {
  const std::string_view kind = CsrKind(direction);
  const std::string name = DerivedName(manifest_->table(), manifest_->staged_version, kind);
  // As the id index's chain (TableContext::IndexFromChain): a held earlier version's adjacency
  // (with its id index, which turns it back into edges) is where the chain starts.
  std::shared_ptr<const EdgeCsr> start;
  const auto held = [&](const TableManifest& base) {
    const std::string base_name = DerivedName(base.table(), base.staged_version, kind);
    start = ctx_->cache().Get<EdgeCsr>("csr:" + base_name);
    return start != nullptr &&
           ctx_->cache().Get<IdIndex>("i:" + ManifestName(base.table(), base.staged_version));
  };
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<DerivedLink> chain, ReadDerivedChain(kind, held));
  std::vector<IndexLink> links;
  for (const DerivedLink& link : chain) {
    links.push_back(IndexLink{link.manifest.get(), link.payload});
  }
  const auto decode = [&]() -> Result<EdgeCsr> {
    if (chain.size() == 1) return EdgeCsr::Decode(links[0].payload, *chain[0].manifest, name);
    // This version's index first: reading its chain keeps the full link's index in the cache.
    OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const IdIndex> last, ctx_->WholeIndex(*manifest_));
    OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const IdIndex> first,
                               ctx_->WholeIndex(*chain[0].manifest));
    return CsrOfChain(links, direction, *first, *last, name,
                      chain.front().held ? start.get() : nullptr);
  };
  Result<EdgeCsr> csr = decode();
  // Only the decoded adjacency is held, not the payloads it came from.
  for (const DerivedLink& link : chain) {
    if (link.held) continue;
    ctx_->cache().Erase("xo:" +
                        DerivedName(manifest_->table(), link.manifest->staged_version, kind));
  }
  return csr;
}

Result<EdgeCsr> TableVersion::BuildCsr(EdgeDirection direction,
                                       std::shared_ptr<const IdIndex> index) const {
  const auto has = [&](uint32_t id) {
    return std::any_of(manifest_->schema.begin(), manifest_->schema.end(),
                       [&](const Field& f) { return f.id == id; });
  };
  if (!has(kSrcFieldId) || !has(kDstFieldId)) {
    return InvalidArgument("table '" + manifest_->table_key + "' has no edge endpoints");
  }
  if (index == nullptr || index->blocked()) {
    // Every row's reference is read: the index with every entry in memory.
    OMNIGRAPH_ASSIGN_OR_RETURN(index, ctx_->WholeIndex(*manifest_));
  }
  // Each stored row's position in the id index (kNone for a deleted row), fragment after
  // fragment; then the endpoint columns are read one fragment at a time and each live row is
  // given to the builder at its position. No column is held past its fragment, and no string
  // view per edge (decision 210).
  constexpr uint32_t kNone = UINT32_MAX;
  const std::vector<FragmentEntry>& fragments = manifest_->fragments;
  std::vector<uint64_t> first(fragments.size() + 1, 0);
  for (size_t f = 0; f < fragments.size(); ++f) first[f + 1] = first[f] + fragments[f].rows;
  std::vector<uint32_t> position(first.back(), kNone);
  const std::span<const RowRef> refs = index->refs();
  for (size_t p = 0; p < refs.size(); ++p) {
    const RowRef& ref = refs[p];
    if (ref.source >= fragments.size() || ref.row >= fragments[ref.source].rows) {
      return Corruption("id index names a row outside its fragments", manifest_name_);
    }
    position[first[ref.source] + ref.row] = static_cast<uint32_t>(p);
  }
  const size_t edges = refs.size();
  // Past the positions the id index is not needed: this build lets go of it before the endpoint
  // columns are read, so a load holds the decoded index (about 900 MB for 24 M edges) only while
  // it is stored beside this build (BuildIndexes), not until the adjacency is done.
  index.reset();
  EdgeCsrBuilder builder(direction, edges);
  const uint32_t endpoints[] = {kSrcFieldId, kDstFieldId};
  Executor& executor = *ctx_->runtime().executor;
  OMNIGRAPH_RETURN_IF_ERROR(ctx_->ScanColumns(
      *manifest_, endpoints,
      [&](uint32_t f, const internal::TableContext::FragmentColumns& columns) -> Result<bool> {
        // The sources are numbered on the executor while this thread numbers the targets: the
        // two ends are separate states, each filled in row order as one thread would.
        const auto set = [&](bool sources) {
          const Column& ends = *columns[sources ? 0 : 1];
          // A fragment's live rows go to the builder together, so that it looks their ids up
          // a group at a time (decision 245).
          std::vector<uint32_t> at;
          std::vector<std::string_view> ids;
          at.reserve(fragments[f].rows);
          ids.reserve(fragments[f].rows);
          for (uint64_t row = 0; row < fragments[f].rows; ++row) {
            const uint32_t p = position[first[f] + row];
            if (p == kNone) continue;
            at.push_back(p);
            ids.push_back(ends.StringAt(row));
          }
          if (sources) {
            builder.SetSources(at, ids);
          } else {
            builder.SetTargets(at, ids);
          }
        };
        TaskGroup sources(executor);
        sources.Add([&]() -> Status {
          set(true);
          return Status::Ok();
        });
        set(false);
        Status numbered = sources.Wait();
        if (!numbered.ok()) return numbered;
        return true;
      }));
  std::vector<uint32_t>().swap(position);
  return std::move(builder).Finish(manifest_name_, &executor);
}

std::vector<std::string> TableVersion::IndexKinds() const {
  if (manifest_->entity_count < ctx_->derived_rows_min()) return {};
  std::vector<std::string> kinds = {std::string(kIdsKind)};
  const bool edge = std::any_of(manifest_->schema.begin(), manifest_->schema.end(),
                                [](const Field& f) { return f.id == kSrcFieldId; });
  if (edge) kinds.emplace_back(CsrKind(EdgeDirection::kOut));
  return kinds;
}

Status TableVersion::BuildIndexes() const {
  const std::vector<std::string> kinds = IndexKinds();
  if (kinds.empty()) return Status::Ok();
  if (kinds.size() == 1) return ctx_->Index(*manifest_).status();
  // An edge table: the id index is encoded and written on the runtime's executor while this
  // thread builds the adjacency from it (for a large table, the write takes as long as the
  // build). Waited for before returning, so the objects are stored when BuildIndexes returns.
  std::shared_ptr<const IdIndex> unstored;
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const IdIndex> index,
                             ctx_->Index(*manifest_, &unstored));
  if (unstored != nullptr &&
      ctx_->cache().Get<IdIndex>(
          "i:" + ManifestName(manifest_->table(), manifest_->staged_version)) == nullptr) {
    // Too large for the cache (at 10x, 24 M edge ids decode to about 900 MB): stored first, so
    // that the adjacency build, which needs only the positions, lets it go before its own arrays
    // grow, instead of both being held at once (decision 218).
    ctx_->StoreIndex(*manifest_, *unstored);
    unstored.reset();
  }
  TaskGroup store(*ctx_->runtime().executor);
  if (unstored != nullptr) {
    store.Add([this, unstored]() -> Status {
      ctx_->StoreIndex(*manifest_, *unstored);
      return Status::Ok();
    });
  }
  // The forward direction only: the query layer derives the reverse from it in memory
  // (query/exec/exec_cache.h); `csr.in` is built and kept when a reader asks for it.
  const Status csr = Csr(EdgeDirection::kOut, std::move(index)).status();
  store.Wait().IgnoreError();
  return csr;
}

Result<IndexDeltas> TableVersion::DeltasOver(const TableManifest& ancestor,
                                             std::span<const std::string> deleted) const {
  std::set<std::string_view> kept;
  for (const FragmentEntry& f : ancestor.fragments) kept.insert(f.id);
  const bool edge = std::any_of(manifest_->schema.begin(), manifest_->schema.end(),
                                [](const Field& f) { return f.id == kSrcFieldId; });
  std::vector<uint32_t> fields = {kIdFieldId};
  if (edge) fields.insert(fields.end(), {kSrcFieldId, kDstFieldId});
  std::vector<std::shared_ptr<const Column>> held;
  std::vector<AddedRow> rows;
  for (uint32_t f = 0; f < manifest_->fragments.size(); ++f) {
    const FragmentEntry& fragment = manifest_->fragments[f];
    if (kept.count(fragment.id) != 0) continue;
    OMNIGRAPH_ASSIGN_OR_RETURN(auto columns, ctx_->Columns(*manifest_, fragment, fields));
    OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const Roaring> gone,
                               ctx_->Deletion(*manifest_, fragment));
    for (uint32_t row = 0; row < fragment.rows; ++row) {
      if (gone->contains(row)) continue;
      AddedRow added{columns[0]->StringAt(row), {}, {}, RowRef{f, row}};
      if (edge) {
        added.src = columns[1]->StringAt(row);
        added.dst = columns[2]->StringAt(row);
      }
      rows.push_back(added);
    }
    held.insert(held.end(), columns.begin(), columns.end());
  }
  std::sort(rows.begin(), rows.end(),
            [](const AddedRow& a, const AddedRow& b) { return a.id < b.id; });
  for (size_t i = 1; i < rows.size(); ++i) {
    if (rows[i - 1].id == rows[i].id) {
      return Corruption("table version holds id '" + std::string(rows[i].id) + "' twice",
                        manifest_name_);
    }
  }
  return DeltasOf(rows, deleted, edge);
}

Result<std::vector<std::string>> TableVersion::WriteIndexDeltas() const {
  const std::vector<std::string> kinds = IndexKinds();
  std::vector<std::string> stored;
  if (kinds.empty()) return stored;
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<std::string> deleted, DeletedIds());
  std::shared_ptr<const TableManifest> at = manifest_;
  for (int step = 0; step < kDeltaAncestorsMax; ++step) {
    if (!at->base_staged_version || at->operation == Operation::kOverwrite) break;
    const std::string name = ManifestName(at->table(), *at->base_staged_version);
    OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const TableManifest> base, ctx_->Manifest(name));
    if (!DeltaFits(base->entity_count, RowsAddedSince(*manifest_, *base), deleted.size())) break;
    const TableVersion ancestor(ctx_, base, name);
    // The depth each kind's delta would have (0: the ancestor cannot carry one). Only an
    // ancestor without any of the kinds is stepped over; one whose chain is full is not.
    std::vector<uint32_t> depths;
    std::vector<std::vector<uint64_t>> below;  // Each kind's chain under the ancestor.
    bool any = false;
    for (const std::string& kind : kinds) {
      Result<DerivedHeader> header = ancestor.ReadDerivedHeader(kind);
      any = any || header.ok();
      const uint32_t depth = header.ok() ? (header->delta ? header->delta->depth : 0) + 1 : 0;
      depths.push_back(depth <= kDerivedDeltaDepthMax ? depth : 0);
      below.push_back(header.ok() ? ChainBelow(*header) : std::vector<uint64_t>{});
    }
    if (!any) {
      OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<std::string> more, ancestor.DeletedIds());
      deleted.insert(deleted.end(), more.begin(), more.end());
      at = base;
      continue;
    }
    OMNIGRAPH_ASSIGN_OR_RETURN(IndexDeltas deltas, DeltasOver(*base, deleted));
    for (size_t k = 0; k < kinds.size(); ++k) {
      if (depths[k] == 0) continue;
      const std::string payload =
          kinds[k] == kIdsKind ? EncodeIdsDelta(deltas.ids) : EncodeEdgesDelta(*deltas.edges);
      OMNIGRAPH_RETURN_IF_ERROR(
          WriteDerivedDelta(kinds[k], payload, *base, depths[k], std::move(below[k])));
      stored.push_back(kinds[k]);
    }
    break;
  }
  return stored;
}

Result<std::vector<bool>> TableVersion::Contains(std::span<const std::string_view> ids) const {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const IdIndex> index, ctx_->Index(*manifest_));
  std::vector<bool> found;
  found.reserve(ids.size());
  for (std::string_view id : ids) {
    OMNIGRAPH_ASSIGN_OR_RETURN(const RowRef* ref, index->LocateRef(id));
    found.push_back(ref != nullptr);
  }
  return found;
}

Result<std::vector<std::string>> TableVersion::DeletedIds() const {
  return ctx_->DeletedIds(*manifest_);
}

std::vector<std::string> TableVersion::ObjectNames() const {
  const TableId table = manifest_->table();
  std::vector<std::string> names = {manifest_name_};
  for (const FragmentEntry& fragment : manifest_->fragments) {
    names.push_back(ObjectName(table, fragment.path));
    if (fragment.deletion) names.push_back(ObjectName(table, fragment.deletion->path));
  }
  if (manifest_->deleted_ids_path) names.push_back(ObjectName(table, *manifest_->deleted_ids_path));
  return names;
}

Result<std::shared_ptr<const std::string>> TableVersion::ReadDerived(std::string_view kind) const {
  if (!ValidDerivedKind(kind))
    return InvalidArgument("invalid derived kind '" + std::string(kind) + "'");
  const std::string name = DerivedName(manifest_->table(), manifest_->staged_version, kind);
  const std::string key = "x:" + name;
  if (auto hit = ctx_->cache().Get<std::string>(key)) return hit;
  OMNIGRAPH_ASSIGN_OR_RETURN(storage::GetResult got, ctx_->store().Get(name));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::string_view payload,
                             DecodeDerived(*manifest_, kind, got.data, name));
  auto value = std::make_shared<const std::string>(payload);
  ctx_->cache().Put<std::string>(key, value, value->size());
  return value;
}

Result<DerivedHeader> TableVersion::ReadDerivedHeader(std::string_view kind) const {
  if (!ValidDerivedKind(kind))
    return InvalidArgument("invalid derived kind '" + std::string(kind) + "'");
  const std::string name = DerivedName(manifest_->table(), manifest_->staged_version, kind);
  const std::string key = "xh:" + name;
  if (auto hit = ctx_->cache().Get<DerivedHeader>(key)) return *hit;
  OMNIGRAPH_ASSIGN_OR_RETURN(
      storage::GetResult head,
      ctx_->store().Get(name, storage::ByteRange{0, kDerivedHeaderBytesMax}));
  OMNIGRAPH_ASSIGN_OR_RETURN(DerivedHeader decoded,
                             DecodeDerivedHeader(*manifest_, kind, head.data, name));
  if (decoded.payload_offset + decoded.payload_bytes != head.meta.size_bytes) {
    return Corruption("derived object's size differs from its header", name);
  }
  auto header = std::make_shared<const DerivedHeader>(decoded);
  ctx_->cache().Put<DerivedHeader>(key, header, sizeof(DerivedHeader) + 64);
  return decoded;
}

Result<std::string> TableVersion::ReadDerivedRange(std::string_view kind, uint64_t offset,
                                                   uint64_t length) const {
  OMNIGRAPH_ASSIGN_OR_RETURN(DerivedHeader header, ReadDerivedHeader(kind));
  const std::string name = DerivedName(manifest_->table(), manifest_->staged_version, kind);
  if (offset > header.payload_bytes || length > header.payload_bytes - offset) {
    return InvalidArgument("derived range " + std::to_string(offset) + "+" +
                               std::to_string(length) + " is past the payload's " +
                               std::to_string(header.payload_bytes) + " bytes",
                           name);
  }
  if (length == 0) return std::string();
  OMNIGRAPH_ASSIGN_OR_RETURN(
      storage::GetResult got,
      ctx_->store().Get(name, storage::ByteRange{header.payload_offset + offset, length}));
  if (got.data.size() != length)
    return Corruption("derived object is shorter than its header says", name);
  return std::move(got.data);
}

Status TableVersion::WriteDerived(std::string_view kind, std::string_view payload) const {
  if (!ValidDerivedKind(kind))
    return InvalidArgument("invalid derived kind '" + std::string(kind) + "'");
  return ctx_->WriteDerived(*manifest_, kind, std::string(payload));
}

Status TableVersion::WriteDerivedDelta(std::string_view kind, std::string_view payload,
                                       const TableManifest& base, uint32_t depth,
                                       std::vector<uint64_t> below) const {
  if (!ValidDerivedKind(kind))
    return InvalidArgument("invalid derived kind '" + std::string(kind) + "'");
  if (!(base.table() == manifest_->table()) || base.staged_version == manifest_->staged_version) {
    return InvalidArgument("a delta's base must be another version of the same table");
  }
  if (depth == 0 || depth > kDerivedDeltaDepthMax) {
    return InvalidArgument("delta depth " + std::to_string(depth) + " is outside 1 to " +
                           std::to_string(kDerivedDeltaDepthMax));
  }
  const DerivedDelta delta{base.staged_version, base.transaction_uuid, depth, std::move(below)};
  return ctx_->WriteDerived(*manifest_, kind, std::string(payload), &delta);
}

namespace {

// One link of a chain, read whole and cached by name with its delta fields. The payload shares
// the bytes the store returned (a mapping of the file on a local store): nothing is copied.
struct CachedDerived {
  storage::SharedBytes payload;
  std::optional<DerivedDelta> delta;
};

// DecodeDerivedObject, except that a full `ids` object whose payload checks itself (revision 3,
// table/id_index_blocked.h) is not hashed whole here: its reader hashes the prefix at open and
// each block it decodes, so that a point lookup hashes what it touches (decision 234). Whole reads
// decode every block and so check every byte.
Result<DecodedDerived> DecodeWholeDerived(const TableManifest& manifest, std::string_view kind,
                                          std::string_view bytes, const std::string& name) {
  if (kind == kIdsKind) {
    Result<DerivedHeader> header = DecodeDerivedHeader(manifest, kind, bytes, name);
    if (header.ok() && !header->delta &&
        header->payload_offset + header->payload_bytes == bytes.size()) {
      const std::string_view payload = bytes.substr(header->payload_offset);
      if (IdsPayloadChecksItself(payload)) return DecodedDerived{payload, std::nullopt};
    }
  }
  return DecodeDerivedObject(manifest, kind, bytes, name);
}

Result<std::shared_ptr<const CachedDerived>> ReadDerivedObject(internal::TableContext& ctx,
                                                               const TableManifest& manifest,
                                                               std::string_view kind) {
  const std::string name = DerivedName(manifest.table(), manifest.staged_version, kind);
  const std::string key = "xo:" + name;
  if (auto hit = ctx.cache().Get<CachedDerived>(key)) return hit;
  storage::SharedGetResult got;
  if (std::shared_ptr<const storage::SharedGetResult> ahead = ctx.TakePrefetched(name)) {
    got = *ahead;  // Read beside the manifest (TableStore::Prefetch).
  } else {
    OMNIGRAPH_ASSIGN_OR_RETURN(got, ctx.store().GetShared(name));
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(DecodedDerived decoded,
                             DecodeWholeDerived(manifest, kind, got.data.view(), name));
  const uint64_t at = static_cast<uint64_t>(decoded.payload.data() - got.data.data());
  // What a write over this version needs of it once the link is dropped (after its chain is
  // applied): its depth and list, for the record's read hint (IndexChainsForWrite).
  ctx.NoteDerivedChain(name, decoded.delta);
  auto value = std::make_shared<const CachedDerived>(
      CachedDerived{got.data.Slice(at, decoded.payload.size()), std::move(decoded.delta)});
  ctx.cache().Put<CachedDerived>(key, value, value->payload.size() + 256);
  return value;
}

}  // namespace

std::map<std::string, std::vector<uint64_t>> TableVersion::IndexChainsForWrite(
    uint64_t changed_rows) const {
  std::map<std::string, std::vector<uint64_t>> chains;
  if (!DeltaFits(manifest_->entity_count, changed_rows, 0)) return chains;
  for (const std::string& kind : IndexKinds()) {
    const std::string name = DerivedName(manifest_->table(), manifest_->staged_version, kind);
    // What this process read or wrote of the object: whole, its header, or its chain.
    std::optional<DerivedDelta> delta;
    if (auto noted = ctx_->NotedDerivedChain(name)) {
      delta = noted->delta;
    } else if (auto header = ctx_->cache().Get<DerivedHeader>("xh:" + name)) {
      delta = header->delta;
    } else {
      continue;
    }
    if (delta && delta->depth >= kDerivedDeltaDepthMax) continue;  // The next write rebuilds.
    std::vector<uint64_t> chain = {manifest_->staged_version};
    const std::vector<uint64_t> below = ChainBelow(DerivedHeader{0, 0, 0, delta});
    if (delta && below.empty()) continue;  // Format 2: the versions under it are unknown.
    chain.insert(chain.end(), below.begin(), below.end());
    chains.emplace(kind, std::move(chain));
  }
  return chains;
}

void TableVersion::PrefetchChain(std::string_view kind, const DerivedDelta& top,
                                 const std::function<bool(const TableManifest&)>& held) const {
  if (top.below.size() + 1 != top.depth) return;  // Format 2: the versions below are unknown.
  const TableId table = manifest_->table();
  std::vector<uint64_t> lower = {top.base_staged_version};
  lower.insert(lower.end(), top.below.begin(), top.below.end());
  // A warm reader whose base's index is in memory stops at the base: nothing to read ahead.
  if (held) {
    const auto cached =
        ctx_->cache().Get<TableManifest>("m:" + ManifestName(table, top.base_staged_version));
    if (cached != nullptr && held(*cached)) return;
  }
  // Only what the cache lacks: a reader that walked this chain before holds its links.
  TaskGroup group(ctx_->runtime().ReadExecutor());
  for (uint64_t v : lower) {
    std::string manifest = ManifestName(table, v);
    if (ctx_->cache().Get<TableManifest>("m:" + manifest) == nullptr) {
      group.Add([this, manifest = std::move(manifest)] {
        (void)ctx_->Manifest(manifest);  // Cached; a failure shows in the walk.
        return Status::Ok();
      });
    }
    std::string object = DerivedName(table, v, kind);
    // Nor what a read ahead holds already (TableStore::Prefetch, a record's read hint).
    if (ctx_->cache().Get<CachedDerived>("xo:" + object) == nullptr &&
        ctx_->cache().Get<void>("xp:" + object) == nullptr) {
      group.Add([this, object = std::move(object)] {
        ctx_->PrefetchDerived(object);
        return Status::Ok();
      });
    }
  }
  group.Wait().IgnoreError();
}

Result<std::vector<DerivedLink>> TableVersion::ReadDerivedChain(
    std::string_view kind, const std::function<bool(const TableManifest&)>& held) const {
  if (!ValidDerivedKind(kind))
    return InvalidArgument("invalid derived kind '" + std::string(kind) + "'");
  std::vector<DerivedLink> chain;
  std::shared_ptr<const TableManifest> manifest = manifest_;
  std::optional<uint32_t> expected_depth;
  while (true) {
    OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const CachedDerived> object,
                               ReadDerivedObject(*ctx_, *manifest, kind));
    const std::string name = DerivedName(manifest->table(), manifest->staged_version, kind);
    const uint32_t depth = object->delta ? object->delta->depth : 0;
    if (expected_depth && depth != *expected_depth) {
      return Corruption("derived chain expects depth " + std::to_string(*expected_depth) +
                            " here, the object is at depth " + std::to_string(depth),
                        name);
    }
    chain.push_back(DerivedLink{manifest, object->payload});
    if (!object->delta) break;
    if (!expected_depth) PrefetchChain(kind, *object->delta, held);
    expected_depth = depth - 1;
    OMNIGRAPH_ASSIGN_OR_RETURN(
        manifest,
        ctx_->Manifest(ManifestName(manifest->table(), object->delta->base_staged_version)));
    if (manifest->transaction_uuid != object->delta->base_transaction_uuid) {
      return Corruption("derived delta's base version has another transaction uuid", name);
    }
    if (held && held(*manifest)) {
      chain.push_back(DerivedLink{manifest, {}, true});
      break;
    }
  }
  std::reverse(chain.begin(), chain.end());
  return chain;
}

Result<std::shared_ptr<const TableVersion>> TableVersion::Base() const {
  if (!manifest_->base_staged_version) {
    return NotFound("version " + std::to_string(manifest_->staged_version) + " of table '" +
                    manifest_->table_key + "' was created, not staged from a base");
  }
  const std::string name = ManifestName(manifest_->table(), *manifest_->base_staged_version);
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const TableManifest> base, ctx_->Manifest(name));
  if (base->table() != manifest_->table() ||
      base->staged_version != *manifest_->base_staged_version) {
    return Corruption("manifest names another table version than its name", name);
  }
  return std::make_shared<const TableVersion>(ctx_, std::move(base), name);
}

Result<std::shared_ptr<const std::string>> TableVersion::DerivedOrBuild(
    std::string_view kind, const std::function<Result<std::string>()>& build,
    bool write_back) const {
  Result<std::shared_ptr<const std::string>> read = ReadDerived(kind);
  if (read.ok()) return read;
  const Kind failure = read.status().kind();
  if (failure != Kind::kNotFound && read.status().code() != Code::kCorruption) return read;
  OMNIGRAPH_ASSIGN_OR_RETURN(std::string built, build());
  if (write_back) (void)WriteDerived(kind, built);
  auto value = std::make_shared<const std::string>(std::move(built));
  const std::string name = DerivedName(manifest_->table(), manifest_->staged_version, kind);
  ctx_->cache().Put<std::string>("x:" + name, value, value->size());
  return value;
}

}  // namespace omnigraph::table
