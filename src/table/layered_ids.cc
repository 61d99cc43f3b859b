#include "table/layered_ids.h"

#include "table/id_index_blocked.h"

#include <algorithm>

#include "base/status.h"
#include "table/index_delta.h"

namespace omnigraph::table {

namespace {

// Appends flat entries (blob, ends, refs) as the IdIndex constructor takes them.
struct FlatBuilder {
  std::string blob;
  std::vector<uint32_t> ends;
  std::vector<RowRef> refs;

  void Emit(std::string_view id, RowRef ref) {
    blob.append(id);
    ends.push_back(static_cast<uint32_t>(blob.size()));
    refs.push_back(ref);
  }
  IdIndex Done() { return IdIndex(std::move(blob), std::move(ends), std::move(refs)); }
};

// Whether `manifest` keeps every fragment of `base` at the same index (a write that dropped none:
// the base's row references stay valid as they are).
bool KeepsFragments(const TableManifest& base, const TableManifest& manifest) {
  if (manifest.fragments.size() < base.fragments.size()) return false;
  for (size_t f = 0; f < base.fragments.size(); ++f) {
    if (manifest.fragments[f].id != base.fragments[f].id) return false;
  }
  return true;
}

}  // namespace

size_t IdLayer::LowerBound(std::string_view id) const {
  size_t lo = 0;
  size_t hi = size();
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (ids.At(mid) < id) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

void IdLayer::Add(std::string_view id, LayerOp op, RowRef ref) {
  ids.blob.append(id);
  ids.ends.push_back(static_cast<uint32_t>(ids.blob.size()));
  ops.push_back(op);
  refs.push_back(ref);
  inserts_before.push_back(inserts_before.back() + (op == LayerOp::kInsert ? 1 : 0));
  deletes_before.push_back(deletes_before.back() + (op == LayerOp::kDelete ? 1 : 0));
}

IdLayer ComposeLayers(const IdLayer& lower, const IdLayer& upper) {
  IdLayer out;
  size_t a = 0;
  size_t b = 0;
  while (a < lower.size() || b < upper.size()) {
    if (b == upper.size() || (a < lower.size() && lower.ids.At(a) < upper.ids.At(b))) {
      out.Add(lower.ids.At(a), lower.ops[a], lower.refs[a]);
      ++a;
      continue;
    }
    if (a == lower.size() || upper.ids.At(b) < lower.ids.At(a)) {
      out.Add(upper.ids.At(b), upper.ops[b], upper.refs[b]);
      ++b;
      continue;
    }
    // The same id in both: what the two did together, relative to what lies below `lower`.
    const LayerOp first = lower.ops[a];
    const LayerOp second = upper.ops[b];
    if (second == LayerOp::kDelete) {
      // Inserted then deleted: never there. Updated then deleted: deleted.
      if (first != LayerOp::kInsert) out.Add(upper.ids.At(b), LayerOp::kDelete, RowRef{});
    } else {
      // Deleted then inserted: live below and now, elsewhere. Otherwise the first op stands
      // with the newer row.
      const LayerOp op = first == LayerOp::kDelete ? LayerOp::kUpdate : first;
      out.Add(upper.ids.At(b), op, upper.refs[b]);
    }
    ++a;
    ++b;
  }
  return out;
}

IdIndex ApplyLayer(const IdIndex& base, const IdLayer& layer) {
  FlatBuilder out;
  const uint64_t count = base.size() + layer.inserts_before.back() - layer.deletes_before.back();
  out.ends.reserve(count);
  out.refs.reserve(count);
  size_t j = 0;
  for (size_t i = 0; i < base.size(); ++i) {
    const std::string_view id = base.IdAt(i);
    while (j < layer.size() && layer.ids.At(j) < id) {
      out.Emit(layer.ids.At(j), layer.refs[j]);
      ++j;
    }
    if (j < layer.size() && layer.ids.At(j) == id) {
      if (layer.ops[j] != LayerOp::kDelete) out.Emit(id, layer.refs[j]);
      ++j;
    } else {
      out.Emit(id, base.RefAt(i));
    }
  }
  for (; j < layer.size(); ++j) out.Emit(layer.ids.At(j), layer.refs[j]);
  return out.Done();
}

uint64_t LayeredIds::layer_entries() const {
  uint64_t n = 0;
  for (const auto& layer : layers) n += layer->size();
  return n;
}

const RowRef* LayeredIds::Find(std::string_view id) const {
  for (auto it = layers.rbegin(); it != layers.rend(); ++it) {
    const IdLayer& layer = **it;
    const size_t at = layer.LowerBound(id);
    if (at < layer.size() && layer.ids.At(at) == id) {
      return layer.ops[at] == LayerOp::kDelete ? nullptr : &layer.refs[at];
    }
  }
  return base.Find(id);
}

uint64_t LayeredIds::Rank(std::string_view id) const {
  // Base ids below `id`, plus what each layer inserted below it, less what it deleted: every
  // layer's inserts were not live under it and its deletes were, so the counts add up.
  uint64_t rank = base.LowerBound(id);
  for (const auto& layer : layers) {
    const size_t at = layer->LowerBound(id);
    rank += layer->inserts_before[at];
    rank -= layer->deletes_before[at];
  }
  return rank;
}

std::string_view LayeredIds::Select(uint64_t i) const {
  // The id at position i is the largest id, of all ids the base and the layers hold, whose rank
  // is at most i: it has rank i, and every id above it has a rank above i. Each source is
  // searched for its largest such id (ranks ascend with the ids).
  uint64_t inserts = 0;
  uint64_t deletes = 0;
  for (const auto& layer : layers) {
    inserts += layer->inserts_before.back();
    deletes += layer->deletes_before.back();
  }
  // Base id p has rank within [p - deletes, p + inserts]: only that window needs searching.
  uint64_t lo = i > inserts ? i - inserts : 0;
  uint64_t hi = std::min<uint64_t>(base.size(), i + deletes + 1);
  lo = std::min(lo, hi);
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (Rank(base.IdAt(mid)) <= i) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  bool found = lo > 0;
  std::string_view best = found ? base.IdAt(lo - 1) : std::string_view();
  for (const auto& layer : layers) {
    size_t l = 0;
    size_t h = layer->size();
    while (l < h) {
      const size_t mid = l + (h - l) / 2;
      if (Rank(layer->ids.At(mid)) <= i) {
        l = mid + 1;
      } else {
        h = mid;
      }
    }
    if (l > 0 && (!found || best < layer->ids.At(l - 1))) {
      best = layer->ids.At(l - 1);
      found = true;
    }
  }
  OMNIGRAPH_CHECK(found);
  return best;
}

IdLayer LayeredIds::Composed() const {
  IdLayer all = *layers.front();
  for (size_t l = 1; l < layers.size(); ++l) all = ComposeLayers(all, *layers[l]);
  return all;
}

const IdIndex& LayeredIds::Flat(const IdIndex& index) {
  if (!index.layered_) return index;
  const LayeredIds& l = *index.layered_;
  std::call_once(l.flat_once, [&l] {
    l.flat = ApplyLayer(l.base, l.Composed());
    l.flat_ready.store(true, std::memory_order_release);
  });
  return l.flat;
}

size_t IdIndex::LayeredSize() const { return layered_->size; }

size_t IdIndex::layers() const { return layered_ ? layered_->layers.size() : 0; }

uint64_t IdIndex::entries_flattened() const {
  return layered_ && layered_->flat_ready.load(std::memory_order_acquire) ? layered_->flat.size()
                                                                          : 0;
}

std::span<const RowRef> IdIndex::refs() const {
  if (layered_) return LayeredIds::Flat(*this).refs_;
  if (blocked_) NotWhole("refs");
  return refs_;
}

std::string_view IdIndex::LayeredIdAt(size_t i) const {
  const LayeredIds& l = *layered_;
  if (l.flat_ready.load(std::memory_order_acquire) ||
      l.positional.fetch_add(1, std::memory_order_relaxed) >= kLayeredPositionalMax) {
    return LayeredIds::Flat(*this).IdAt(i);
  }
  return l.Select(i);
}

const RowRef& IdIndex::LayeredRefAt(size_t i) const {
  const LayeredIds& l = *layered_;
  if (l.flat_ready.load(std::memory_order_acquire) ||
      l.positional.fetch_add(1, std::memory_order_relaxed) >= kLayeredPositionalMax) {
    return LayeredIds::Flat(*this).RefAt(i);
  }
  const RowRef* ref = l.Find(l.Select(i));
  OMNIGRAPH_CHECK(ref != nullptr);
  return *ref;
}

int64_t IdIndex::Position(std::string_view id) const {
  if (layered_) {
    if (layered_->Find(id) == nullptr) return -1;
    return static_cast<int64_t>(layered_->Rank(id));
  }
  if (blocked_) NotWhole("Position");
  const size_t at = LowerBound(id);
  if (at == refs_.size() || IdAt(at) != id) return -1;
  return static_cast<int64_t>(at);
}

const RowRef* IdIndex::Find(std::string_view id) const {
  if (layered_) return layered_->Find(id);
  if (blocked_) NotWhole("Find");
  const int64_t at = Position(id);
  return at < 0 ? nullptr : &refs_[static_cast<size_t>(at)];
}

uint64_t IdIndex::bytes() const {
  if (layered_) {
    uint64_t n = layered_->base.bytes();
    for (const auto& layer : layered_->layers) n += layer->bytes();
    return n;
  }
  if (blocked_) return blocked_->bytes();
  return blob_.size() + ends_.size() * sizeof(uint32_t) + refs_.size() * sizeof(RowRef) + 64;
}

Result<IdIndex> IdIndex::Extend(const TableManifest& base_manifest, const IdsDelta& delta,
                                const TableManifest& manifest, const std::string& name) const {
  // Layers go over a flat base: a blocked index extends its flat copy.
  if (blocked_) {
    OMNIGRAPH_ASSIGN_OR_RETURN(const IdIndex* whole, Whole());
    return whole->Extend(base_manifest, delta, manifest, name);
  }
  const IdIndex& flat_this =
      layered_ && layered_->flat_ready.load(std::memory_order_acquire) ? layered_->flat : *this;
  if (!KeepsFragments(base_manifest, manifest)) {
    // Row references move: the flat merge renumbers them.
    return ApplyIdsDelta(LayeredIds::Flat(flat_this), base_manifest, delta, manifest, name);
  }
  auto bad = [&](const std::string& what) { return Corruption("id index delta: " + what, name); };
  for (const RowRef& ref : delta.refs) {
    if (ref.source >= manifest.fragments.size() || ref.row >= manifest.fragments[ref.source].rows) {
      return bad("row reference outside the version's fragments");
    }
  }
  // The new layer, relative to this index: added ids live here are updates, the others inserts;
  // removed ids live here are deletes (an id both added and removed is added).
  auto top = std::make_shared<IdLayer>();
  size_t a = 0;
  size_t r = 0;
  while (a < delta.added.size() || r < delta.removed.size()) {
    if (r == delta.removed.size() ||
        (a < delta.added.size() && delta.added.At(a) <= delta.removed.At(r))) {
      const std::string_view id = delta.added.At(a);
      if (r < delta.removed.size() && delta.removed.At(r) == id) ++r;
      top->Add(id, flat_this.Find(id) ? LayerOp::kUpdate : LayerOp::kInsert, delta.refs[a]);
      ++a;
    } else {
      const std::string_view id = delta.removed.At(r++);
      if (flat_this.Find(id)) top->Add(id, LayerOp::kDelete, RowRef{});
    }
  }
  const uint64_t count = size() + top->inserts_before.back() - top->deletes_before.back();
  if (count != manifest.entity_count) {
    return bad("gives " + std::to_string(count) + " ids; the version has " +
               std::to_string(manifest.entity_count) + " live rows");
  }
  auto next = std::make_shared<LayeredIds>();
  next->size = count;
  if (flat_this.layered_) {
    next->base = flat_this.layered_->base;
    next->layers = flat_this.layered_->layers;
  } else {
    next->base = flat_this;
  }
  uint64_t merged = top->size();
  next->layers.push_back(std::move(top));
  std::vector<std::shared_ptr<const IdLayer>>& layers = next->layers;
  while (layers.size() >= 2 && (2 * layers.back()->size() > layers[layers.size() - 2]->size() ||
                                layers.size() > kIdLayersMax)) {
    auto both =
        std::make_shared<IdLayer>(ComposeLayers(*layers[layers.size() - 2], *layers.back()));
    merged += both->size();
    layers.pop_back();
    layers.back() = std::move(both);
  }
  IdIndex out;
  if (next->layer_entries() * kLayersToBaseDivisor > next->base.size()) {
    out = ApplyLayer(next->base, next->Composed());
    merged += out.size();
    if (out.blob_.size() > kIdIndexBytesMax) return bad("ids exceed the index's byte limit");
  } else {
    out.layered_ = std::move(next);
  }
  out.entries_merged_ = merged;
  return out;
}

}  // namespace omnigraph::table
