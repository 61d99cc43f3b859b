#include "query/exec/exec_cache.h"

#include <algorithm>
#include <charconv>
#include <limits>

#include "base/hash.h"
#include "table/column_builder.h"
#include "table/table_manifest.h"

namespace omnigraph::query {

Result<std::shared_ptr<const TableImage>> TableImage::Build(
    std::shared_ptr<const table::TableVersion> version) {
  std::shared_ptr<TableImage> image(new TableImage(version));
  OMNIGRAPH_ASSIGN_OR_RETURN(image->ids_, version->PointIds());
  if (image->ids_->size() >= std::numeric_limits<uint32_t>::max()) {
    return InvalidArgument("table " + version->manifest_name() + " has too many rows to query (" +
                           std::to_string(image->ids_->size()) + ")");
  }
  return std::shared_ptr<const TableImage>(std::move(image));
}

Status TableImage::LoadIds() const {
  std::call_once(whole_once_, [this] {
    Result<std::shared_ptr<const table::IdIndex>> whole = version_->SortedIds();
    if (!whole.ok()) {
      whole_status_ = whole.status();
      return;
    }
    // The same rows in the same order as ids_ (the version's live ids, ascending): the dense
    // numbering does not change.
    whole_held_ = *std::move(whole);
    whole_.store(whole_held_.get(), std::memory_order_release);
  });
  return whole_status_;
}

Result<int64_t> TableImage::Find(std::string_view id) const {
  if (finds_.fetch_add(1, std::memory_order_relaxed) < kFindsBeforeMap) {
    const table::IdIndex* whole = whole_.load(std::memory_order_acquire);
    return whole != nullptr ? Result<int64_t>(whole->Position(id)) : ids_->Locate(id);
  }
  std::call_once(index_once_, [this] {
    index_status_ = LoadIds();
    if (!index_status_.ok()) return;
    uint64_t capacity = 16;
    while (capacity < 2 * static_cast<uint64_t>(ids_->size())) capacity *= 2;
    slots_.assign(capacity, 0);
    slot_mask_ = capacity - 1;
    for (uint32_t i = 0; i < ids_->size(); ++i) {
      const uint64_t h = XxHash64(this->id(i));
      uint64_t at = h & slot_mask_;
      while (slots_[at] != 0) at = (at + 1) & slot_mask_;
      slots_[at] = (h & 0xffffffff00000000ull) | (static_cast<uint64_t>(i) + 1);
    }
  });
  if (!index_status_.ok()) return index_status_;
  const uint64_t h = XxHash64(id);
  const uint64_t tag = h & 0xffffffff00000000ull;
  for (uint64_t at = h & slot_mask_;; at = (at + 1) & slot_mask_) {
    const uint64_t slot = slots_[at];
    if (slot == 0) return int64_t{-1};
    if ((slot & 0xffffffff00000000ull) == tag) {
      const uint32_t dense = static_cast<uint32_t>(slot & 0xffffffffu) - 1;
      if (this->id(dense) == id) return int64_t{dense};
    }
  }
}

namespace {

// Appends `id` parsed as a decimal T; false when it is not exactly such a number's text.
template <typename T>
bool AppendDecimal(std::string_view id, table::ColumnBuilder& out) {
  T v{};
  const char* end = id.data() + id.size();
  auto [at, ec] = std::from_chars(id.data(), end, v);
  if (ec != std::errc() || at != end || id.empty()) return false;
  out.Append<T>(v);
  return true;
}

// Appends the value whose text is `id` to a column of type `type`; false when it is none.
bool AppendIdValue(table::TypeId type, std::string_view id, table::ColumnBuilder& out) {
  switch (type) {
    case table::TypeId::kString: out.AppendString(id); return true;
    case table::TypeId::kI32: return AppendDecimal<int32_t>(id, out);
    case table::TypeId::kI64: return AppendDecimal<int64_t>(id, out);
    case table::TypeId::kU32: return AppendDecimal<uint32_t>(id, out);
    case table::TypeId::kU64: return AppendDecimal<uint64_t>(id, out);
    default: return false;
  }
}

}  // namespace

Result<bool> TableImage::ColumnOfIds(uint32_t field_id) const {
  const table::Field* field = nullptr;
  for (const table::Field& f : version_->schema()) field = f.id == field_id ? &f : field;
  if (field == nullptr) return false;
  OMNIGRAPH_RETURN_IF_ERROR(LoadIds());
  std::lock_guard<std::mutex> lock(mu_);
  if (columns_.count(field_id) > 0) return true;
  auto column = std::make_unique<ChunkedColumn>();
  uint64_t bytes = 0;
  for (uint32_t begin = 0; begin < size(); begin += kChunkRows) {
    const uint32_t end = std::min<uint32_t>(size(), begin + kChunkRows);
    table::ColumnBuilder builder(field->type, field->nullable);
    builder.Reserve(end - begin);
    for (uint32_t d = begin; d < end; ++d) {
      if (!AppendIdValue(field->type.id, id(d), builder)) return false;
    }
    OMNIGRAPH_ASSIGN_OR_RETURN(table::Column chunk, builder.Finish());
    bytes += chunk.values_buffer().size() + chunk.offsets_buffer().size();
    column->chunks.push_back(std::move(chunk));
  }
  // The ids ascend as bytes, and a String key is its id's bytes.
  column->ascending = field->type.id == table::TypeId::kString;
  column_bytes_ += bytes;
  columns_.emplace(field_id, std::move(column));
  return true;
}

bool TableImage::HasColumn(uint32_t field_id) const {
  std::lock_guard<std::mutex> lock(mu_);
  return columns_.count(field_id) > 0;
}

Result<table::Column> TableImage::GatherRows(uint32_t field_id,
                                             std::span<const uint32_t> dense) const {
  const uint32_t fields[] = {field_id};
  OMNIGRAPH_ASSIGN_OR_RETURN(table::Schema projection, version_->Project(fields));
  std::vector<table::RowRef> refs;
  refs.reserve(dense.size());
  for (uint32_t d : dense) {
    if (d >= ids_->size()) return Internal("dense index outside " + version_->manifest_name());
    const table::IdIndex* whole = whole_.load(std::memory_order_acquire);
    if (whole != nullptr) {
      refs.push_back(whole->RefAt(d));
      continue;
    }
    OMNIGRAPH_ASSIGN_OR_RETURN(const table::RowRef ref, ids_->RefAtPosition(d));
    refs.push_back(ref);
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(table::ColumnBatch batch, version_->Gather(projection, refs));
  std::vector<table::Column> cols = batch.ReleaseColumns();
  return std::move(cols.at(0));
}

Status TableImage::Preload(std::span<const uint32_t> field_ids) const {
  std::lock_guard<std::mutex> lock(mu_);
  return LoadLocked(field_ids);
}

Status TableImage::LoadLocked(std::span<const uint32_t> field_ids) const {
  std::vector<uint32_t> missing;
  for (uint32_t f : field_ids) {
    if (!columns_.count(f) && std::find(missing.begin(), missing.end(), f) == missing.end()) {
      missing.push_back(f);
    }
  }
  if (missing.empty()) return Status::Ok();
  // One id-order scan for every missing field.
  std::vector<std::unique_ptr<ChunkedColumn>> loaded(missing.size());
  for (auto& c : loaded) c = std::make_unique<ChunkedColumn>();
  uint64_t rows = 0;
  uint64_t bytes = 0;
  OMNIGRAPH_RETURN_IF_ERROR(
      version_->ScanInIdOrder(missing, kChunkRows, [&](table::ColumnBatch batch) -> Status {
        if (rows % kChunkRows != 0) {
          return Internal("id-order scan of " + version_->manifest_name() +
                          " returned a short batch before the last");
        }
        rows += batch.num_rows();
        std::vector<table::Column> cols = batch.ReleaseColumns();
        for (size_t i = 0; i < cols.size(); ++i) {
          bytes += cols[i].values_buffer().size() + cols[i].offsets_buffer().size();
          loaded[i]->chunks.push_back(std::move(cols[i]));
        }
        return Status::Ok();
      }));
  if (rows != ids_->size()) {
    return Internal("id-order scan of " + version_->manifest_name() + " returned " +
                    std::to_string(rows) + " rows, expected " + std::to_string(ids_->size()));
  }
  column_bytes_ += bytes;
  for (size_t i = 0; i < missing.size(); ++i) columns_.emplace(missing[i], std::move(loaded[i]));
  return Status::Ok();
}

Result<const TableImage::ChunkedColumn*> TableImage::Column(uint32_t field_id) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = columns_.find(field_id);
  if (it != columns_.end()) return it->second.get();
  const uint32_t fields[] = {field_id};
  OMNIGRAPH_RETURN_IF_ERROR(LoadLocked(fields));
  return columns_.at(field_id).get();
}

uint64_t TableImage::bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  // The id index is charged to the table cache, which shares it; the slots are between 2 and 4
  // per row (a power of two at least twice the rows), held only once Find has run.
  return column_bytes_ + slots_.size() * sizeof(uint64_t);
}

void Csr::Own(std::vector<uint32_t> t, std::vector<uint32_t> e) {
  auto held = std::make_shared<std::pair<std::vector<uint32_t>, std::vector<uint32_t>>>(
      std::move(t), std::move(e));
  targets = held->first;
  edges = held->second;
  owner = std::move(held);
}

namespace {

// Counting sort of (key, target, edge) triples into a CSR over `nodes` keys, keeping edge order.
Csr MakeCsr(uint32_t nodes, const std::vector<uint32_t>& keys, const std::vector<uint32_t>& other) {
  Csr csr;
  csr.offsets.assign(static_cast<size_t>(nodes) + 1, 0);
  for (uint32_t e = 0; e < keys.size(); ++e) {
    if (keys[e] != UINT32_MAX && other[e] != UINT32_MAX) ++csr.offsets[keys[e] + 1];
  }
  for (uint32_t v = 0; v < nodes; ++v) csr.offsets[v + 1] += csr.offsets[v];
  std::vector<uint32_t> targets(csr.offsets[nodes]);
  std::vector<uint32_t> edges(csr.offsets[nodes]);
  std::vector<uint64_t> next(csr.offsets.begin(), csr.offsets.end() - 1);
  for (uint32_t e = 0; e < keys.size(); ++e) {
    if (keys[e] == UINT32_MAX || other[e] == UINT32_MAX) continue;
    uint64_t at = next[keys[e]]++;
    targets[at] = other[e];
    edges[at] = e;
  }
  csr.Own(std::move(targets), std::move(edges));
  return csr;
}

uint64_t CsrBytes(const Csr& csr) {
  return csr.offsets.size() * 8 + (csr.targets.size() + csr.edges.size()) * 4;
}

// The dense index in `image` of each id of `ids` (both ascending), UINT32_MAX for an id the
// image does not hold: one merge.
std::vector<uint32_t> MapSorted(const table::StringListView& ids, const TableImage& image) {
  std::vector<uint32_t> out(ids.size(), UINT32_MAX);
  uint32_t at = 0;
  for (size_t i = 0; i < ids.size(); ++i) {
    const std::string_view id = ids.At(i);
    while (at < image.size() && image.id(at) < id) ++at;
    if (at < image.size() && image.id(at) == id) out[i] = at;
  }
  return out;
}

}  // namespace

const Csr& Adjacency::in() const {
  std::call_once(in_once_, [this] {
    // Each edge's endpoints by edge dense index, then one counting sort by target: every list
    // in edge id order, as `out`'s are.
    std::vector<uint32_t> src(edges_, UINT32_MAX);
    std::vector<uint32_t> dst(edges_, UINT32_MAX);
    const std::span<const uint32_t> edges = out_.edges;
    const std::span<const uint32_t> targets = out_.targets;
    for (uint32_t v = 0; v < from_nodes(); ++v) {
      for (uint64_t at = out_.offsets[v]; at < out_.offsets[v + 1]; ++at) {
        src[edges[at]] = v;
        dst[edges[at]] = targets[at];
      }
    }
    in_ = MakeCsr(to_nodes_, dst, src);
    in_built_.store(true, std::memory_order_release);
  });
  return in_;
}

const Adjacency::Reach& Adjacency::DistinctReach(bool forward) const {
  const int side = forward ? 0 : 1;
  std::call_once(reach_once_[side], [this, forward, side] {
    const Csr& forth = forward ? out_ : in();
    const uint32_t others = forward ? to_nodes_ : from_nodes();
    // Per far node, the last near node that reached it and how many distinct ones did, side by
    // side so that an edge touches one cache line; the update has no branch (a list holds a
    // near node's parallel edges apart, so a far node seen again from the same near node is
    // what `last` detects, without hashing).
    struct Seen {
      uint32_t last = UINT32_MAX;
      uint32_t count = 0;
    };
    std::vector<Seen> seen(others);
    const uint64_t* offsets = forth.offsets.data();
    // The targets a run at a time: a stored adjacency's are unpacked into a small buffer as the
    // walk goes, never into an array of 4 bytes per edge (decision 241).
    uint32_t a = 0;
    forth.targets.ForEachRun([&](uint64_t first, std::span<const uint32_t> run) {
      const uint64_t stop = first + run.size();
      for (uint64_t at = first; at < stop;) {
        while (offsets[a + 1] <= at) ++a;  // Past the lists that end here (and the empty ones).
        for (const uint64_t end = std::min(offsets[a + 1], stop); at < end; ++at) {
          Seen& s = seen[run[at - first]];
          s.count += s.last != a ? 1 : 0;
          s.last = a;
        }
      }
    });
    Reach& reach = reach_[side];
    const size_t reached = static_cast<size_t>(
        std::count_if(seen.begin(), seen.end(), [](const Seen& s) { return s.count != 0; }));
    reach.nodes.reserve(reached);
    reach.counts.reserve(reached);
    for (uint32_t b = 0; b < others; ++b) {
      if (seen[b].count == 0) continue;
      reach.nodes.push_back(b);
      reach.counts.push_back(seen[b].count);
      reach.total += seen[b].count;
    }
    reach_built_[side].store(true, std::memory_order_release);
  });
  return reach_[side];
}

uint64_t Adjacency::bytes() const {
  const bool in = in_built_.load(std::memory_order_acquire);
  uint64_t reach = 0;
  for (int side = 0; side < 2; ++side) {
    if (reach_built_[side].load(std::memory_order_acquire)) {
      reach += 12 * reach_[side].nodes.size();
    }
  }
  return CsrBytes(out_) + (in ? CsrBytes(in_) : 0) + reach;
}

Result<std::shared_ptr<const Adjacency>> BuildAdjacency(const table::TableVersion& edges,
                                                        const TableImage& from,
                                                        const TableImage& to) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::EdgeCsr> csr,
                             edges.Csr(table::EdgeDirection::kOut));
  if (csr->edges.size() >= std::numeric_limits<uint32_t>::max()) {
    return InvalidArgument("table " + edges.manifest_name() + " has too many rows to query (" +
                           std::to_string(csr->edges.size()) + ")");
  }
  // Every row's id is read (MapSorted).
  OMNIGRAPH_RETURN_IF_ERROR(from.LoadIds());
  OMNIGRAPH_RETURN_IF_ERROR(to.LoadIds());
  const std::vector<uint32_t> src_of_key = MapSorted(csr->keys, from);
  const std::vector<uint32_t> dst_of_other = MapSorted(csr->others, to);
  Csr out;
  out.offsets.resize(static_cast<size_t>(from.size()) + 1);
  // Keys ascend and so do their dense indices: node v's list starts where the copy stands when
  // v's key (or the first key past v) is reached.
  const bool every_key =
      std::find(src_of_key.begin(), src_of_key.end(), UINT32_MAX) == src_of_key.end();
  bool same_others = csr->others.size() == to.size();
  for (uint32_t i = 0; same_others && i < dst_of_other.size(); ++i)
    same_others = dst_of_other[i] == i;
  uint32_t next = 0;
  if (every_key && same_others) {
    // Every key a live `from` node and every other endpoint the `to` node of the same number:
    // the stored slots are the lists as they are, shared rather than copied (at 24 M edges a copy
    // is 192 MB of fresh pages).
    for (size_t k = 0; k < csr->keys.size(); ++k) {
      while (next <= src_of_key[k]) out.offsets[next++] = csr->offsets[k];
    }
    while (next <= from.size()) out.offsets[next++] = csr->edges.size();
    out.targets = csr->targets;
    out.edges = csr->edges;
    out.owner = csr;
  } else {
    std::vector<uint32_t> targets, edge_of;
    targets.reserve(csr->edges.size());
    edge_of.reserve(csr->edges.size());
    const std::span<const uint32_t> stored_edges = csr->edges;
    const std::span<const uint32_t> stored_targets = csr->targets;
    for (size_t k = 0; k < csr->keys.size(); ++k) {
      const uint32_t s = src_of_key[k];
      if (s == UINT32_MAX) continue;
      while (next <= s) out.offsets[next++] = targets.size();
      for (uint32_t slot = csr->offsets[k]; slot < csr->offsets[k + 1]; ++slot) {
        const uint32_t t = dst_of_other[stored_targets[slot]];
        if (t == UINT32_MAX) continue;
        targets.push_back(t);
        edge_of.push_back(stored_edges[slot]);
      }
    }
    while (next <= from.size()) out.offsets[next++] = targets.size();
    out.Own(std::move(targets), std::move(edge_of));
  }
  return std::make_shared<const Adjacency>(std::move(out), to.size(),
                                           static_cast<uint32_t>(csr->edges.size()));
}

Status PointAdjacency::Load(std::span<const uint32_t> nodes, bool with_edges) {
  std::vector<uint32_t> wanted;
  std::vector<std::string_view> keys;
  for (uint32_t v : nodes) {
    if (Has(v, with_edges) || std::find(wanted.begin(), wanted.end(), v) != wanted.end()) {
      continue;
    }
    OMNIGRAPH_ASSIGN_OR_RETURN(const std::string_view key, from_.IdAt(v));
    wanted.push_back(v);
    keys.push_back(key);
  }
  if (wanted.empty()) return Status::Ok();
  OMNIGRAPH_ASSIGN_OR_RETURN(table::CsrPointLists lists, points_->Lists(keys, with_edges));
  reads_ += lists.reads;
  bytes_ += lists.bytes;
  // targets_ and edges_ stay parallel: a list read without its edges has placeholders there.
  for (size_t i = 0; i < wanted.size(); ++i) {
    const uint32_t first = static_cast<uint32_t>(targets_.size());
    for (uint32_t slot = lists.begin[i]; slot < lists.begin[i + 1]; ++slot) {
      OMNIGRAPH_ASSIGN_OR_RETURN(const int64_t t, to_.Find(lists.others[slot]));
      if (t < 0) continue;  // Not a live node of the endpoint type: left out, as in out().
      targets_.push_back(static_cast<uint32_t>(t));
      edges_.push_back(with_edges ? lists.edges[slot] : UINT32_MAX);
    }
    lists_[wanted[i]] = Slots{first, static_cast<uint32_t>(targets_.size()), with_edges};
  }
  return Status::Ok();
}

bool PointAdjacency::Has(uint32_t v, bool with_edges) const {
  auto it = lists_.find(v);
  return it != lists_.end() && (it->second.with_edges || !with_edges);
}

size_t PointAdjacency::Missing(std::span<const uint32_t> nodes) const {
  size_t missing = 0;
  for (uint32_t v : nodes) missing += lists_.count(v) == 0 ? 1 : 0;
  return missing;
}

std::span<const uint32_t> PointAdjacency::Targets(uint32_t v) const {
  const Slots& slots = lists_.at(v);
  return std::span<const uint32_t>(targets_).subspan(slots.first, slots.last - slots.first);
}

std::span<const uint32_t> PointAdjacency::Edges(uint32_t v) const {
  const Slots& slots = lists_.at(v);
  OMNIGRAPH_CHECK(slots.with_edges);
  return std::span<const uint32_t>(edges_).subspan(slots.first, slots.last - slots.first);
}

std::string VersionKey(const table::TableVersion& version) {
  TablePin pin = version.pin();
  return std::to_string(pin.stable_table_id) + "/" + std::to_string(pin.incarnation) + "/" +
         std::to_string(pin.target_version) + "/" + std::to_string(pin.staged_version) + "/" +
         pin.transaction_uuid + "/" + version.manifest_name();
}

std::shared_ptr<const void> ExecCache::Get(const std::string& key) {
  std::shared_ptr<const void>* value = cache_.Find(key);
  if (value == nullptr) return nullptr;
  ++stats_.hits;
  return *value;
}

void ExecCache::Put(const std::string& key, std::shared_ptr<const void> value) {
  cache_.Put(key, std::move(value));
}

std::shared_ptr<const void> ExecCache::FindShared(std::string_view scope, const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  return Get(std::string(scope) + "|" + key);
}

void ExecCache::PutShared(std::string_view scope, const std::string& key,
                          std::shared_ptr<const void> value) {
  std::lock_guard<std::mutex> lock(mu_);
  ++stats_.shared_puts;
  Put(std::string(scope) + "|" + key, std::move(value));
}

Result<std::shared_ptr<const TableImage>> ExecCache::Image(
    std::string_view scope, const std::shared_ptr<const table::TableVersion>& version) {
  const std::string key = std::string(scope) + "|image:" + VersionKey(*version);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto hit = Get(key)) return std::static_pointer_cast<const TableImage>(hit);
  }
  // Built outside the lock; a concurrent builder of the same key wastes work but stays correct.
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const TableImage> image, TableImage::Build(version));
  std::lock_guard<std::mutex> lock(mu_);
  ++stats_.image_builds;
  Put(key, image);
  return image;
}

namespace {

std::string AdjacencyKey(std::string_view scope, const table::TableVersion& edges,
                         const TableImage& from, const TableImage& to) {
  return std::string(scope) + "|adj:" + VersionKey(edges) + "|" + VersionKey(from.version()) + "|" +
         VersionKey(to.version());
}

}  // namespace

Result<std::shared_ptr<const Adjacency>> ExecCache::Adjacent(std::string_view scope,
                                                             const table::TableVersion& edges,
                                                             const TableImage& from,
                                                             const TableImage& to) {
  const std::string key = AdjacencyKey(scope, edges, from, to);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto hit = Get(key)) return std::static_pointer_cast<const Adjacency>(hit);
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const Adjacency> adj, BuildAdjacency(edges, from, to));
  std::lock_guard<std::mutex> lock(mu_);
  ++stats_.adjacency_builds;
  Put(key, adj);
  return adj;
}

std::shared_ptr<const Adjacency> ExecCache::FindAdjacent(std::string_view scope,
                                                         const table::TableVersion& edges,
                                                         const TableImage& from,
                                                         const TableImage& to) {
  const std::string key = AdjacencyKey(scope, edges, from, to);
  std::lock_guard<std::mutex> lock(mu_);
  return std::static_pointer_cast<const Adjacency>(Get(key));
}

bool ExecCache::PointReadsAllowed(std::string_view scope, const table::TableVersion& edges,
                                  const TableImage& from, const TableImage& to,
                                  uint64_t budget_bytes) {
  const std::string key = AdjacencyKey(scope, edges, from, to);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = point_bytes_.find(key);
  return it == point_bytes_.end() || it->second < budget_bytes;
}

void ExecCache::RecordPointReads(std::string_view scope, const table::TableVersion& edges,
                                 const TableImage& from, const TableImage& to, uint64_t nodes,
                                 uint64_t bytes) {
  const std::string key = AdjacencyKey(scope, edges, from, to);
  std::lock_guard<std::mutex> lock(mu_);
  if (point_bytes_.size() >= max_entries_ && point_bytes_.count(key) == 0) point_bytes_.clear();
  point_bytes_[key] += bytes;
  stats_.point_loads += nodes;
}

ExecCache::Stats ExecCache::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  Stats s = stats_;
  s.entries = cache_.size();
  return s;
}

}  // namespace omnigraph::query
