#include "table/index_delta.h"

#include <cstring>
#include <initializer_list>
#include <unordered_map>

#include "base/hash.h"
#include "table/le_bytes.h"

namespace omnigraph::table {

namespace {

// The first word of each payload (docs/format/indexes.md "Deltas").
constexpr uint32_t kIdsDeltaTag = 1;
constexpr uint32_t kEdgesDeltaTag = 2;
// Tag, zero, the two counts.
constexpr uint64_t kPreambleBytes = 24;

void PutList(std::string& out, const StringList& list) {
  AppendLe<uint64_t>(out, list.blob.size());
  out.append(reinterpret_cast<const char*>(list.ends.data()), list.ends.size() * sizeof(uint32_t));
  out.append(list.blob);
}

// A whole payload: the preamble (tag, zero, the two counts), `fixed` bytes, the lists, and the
// checksum of everything before it.
std::string Payload(uint32_t tag, uint64_t added, uint64_t removed, std::string_view fixed,
                    std::initializer_list<const StringList*> lists) {
  std::string out;
  AppendLe<uint32_t>(out, tag);
  AppendLe<uint32_t>(out, 0);
  AppendLe<uint64_t>(out, added);
  AppendLe<uint64_t>(out, removed);
  out.append(fixed);
  for (const StringList* list : lists) PutList(out, *list);
  AppendLe<uint64_t>(out, XxHash64(out));
  return out;
}

// The two counts of a payload's preamble.
struct Counts {
  uint64_t added = 0;
  uint64_t removed = 0;
};

// Reads a payload front to back; every read is bounds-checked.
class Cursor {
 public:
  Cursor(std::string_view bytes, const std::string& name, std::string_view what)
      : bytes_(bytes), name_(name), what_(what) {}

  Status Bad(const std::string& why) const {
    return Corruption(std::string(what_) + " delta: " + why, name_);
  }

  // Checks the trailing checksum and the tag; yields the two counts.
  Result<Counts> Open(uint32_t tag) {
    if (bytes_.size() < kPreambleBytes + 8) return Bad("shorter than its preamble");
    const std::string_view body = bytes_.substr(0, bytes_.size() - 8);
    if (LoadLe<uint64_t>(bytes_, body.size()) != XxHash64(body)) return Bad("checksum mismatch");
    bytes_ = body;
    uint32_t found = 0;
    OMNIGRAPH_RETURN_IF_ERROR(Read(&found, 4));
    if (found != tag) return Bad("is not a delta of this kind");
    pos_ += 4;
    Counts counts;
    OMNIGRAPH_RETURN_IF_ERROR(Read(&counts.added, 8));
    OMNIGRAPH_RETURN_IF_ERROR(Read(&counts.removed, 8));
    return counts;
  }

  Status Read(void* out, uint64_t size) {
    if (size > bytes_.size() - pos_) return Bad("truncated");
    if (size == 0) return Status::Ok();  // `out` may be an empty vector's null data().
    std::memcpy(out, bytes_.data() + pos_, size);
    pos_ += size;
    return Status::Ok();
  }

  // A list of `n` ids, checked strictly ascending; or, for `endpoints` (which repeat and are in
  // edge order), only checked well formed.
  Status List(uint64_t n, StringList& list, bool endpoints = false) {
    const std::string what = endpoints ? "endpoint offsets" : "offsets";
    uint64_t blob_bytes = 0;
    OMNIGRAPH_RETURN_IF_ERROR(Read(&blob_bytes, 8));
    if (n > (bytes_.size() - pos_) / 4 || (!endpoints && blob_bytes > kIdIndexBytesMax)) {
      return Bad("truncated");
    }
    list.ends.resize(n);
    OMNIGRAPH_RETURN_IF_ERROR(Read(list.ends.data(), n * 4));
    if (blob_bytes > bytes_.size() - pos_) return Bad("truncated");
    list.blob.assign(bytes_.substr(pos_, blob_bytes));
    pos_ += blob_bytes;
    uint32_t prev = 0;
    for (size_t i = 0; i < n; ++i) {
      if (list.ends[i] < prev || list.ends[i] > blob_bytes) return Bad(what + " out of order");
      prev = list.ends[i];
      if (!endpoints && i > 0 && !(list.At(i - 1) < list.At(i))) return Bad("ids out of order");
    }
    if (prev != blob_bytes) {
      return Bad(what + (endpoints ? " do not cover their bytes" : " do not cover the id bytes"));
    }
    return Status::Ok();
  }

  Status Done() const { return pos_ == bytes_.size() ? Status::Ok() : Bad("trailing bytes"); }

 private:
  std::string_view bytes_;
  const std::string& name_;
  std::string_view what_;
  uint64_t pos_ = 0;
};

// Walks the base's ids (ascending) against the delta's added and removed ids: calls keep(i) for
// each base position the delta neither removes nor rewrites and add(j) for each added id, in
// ascending id order.
template <typename BaseId, typename Keep, typename Add>
void Merge(size_t base_size, const BaseId& base_id, const StringList& added,
           const StringList& removed, const Keep& keep, const Add& add) {
  size_t a = 0;
  size_t r = 0;
  for (size_t i = 0; i < base_size; ++i) {
    const std::string_view id = base_id(i);
    while (a < added.size() && added.At(a) < id) add(a++);
    while (r < removed.size() && removed.At(r) < id) ++r;
    const bool gone =
        (r < removed.size() && removed.At(r) == id) || (a < added.size() && added.At(a) == id);
    if (!gone) keep(i);
  }
  while (a < added.size()) add(a++);
}

}  // namespace

bool DeltaFits(uint64_t base_rows, uint64_t added_rows, uint64_t deleted_rows) {
  return (added_rows + deleted_rows) * kDeltaChangeDivisor <= base_rows;
}

std::string EncodeIdsDelta(const IdsDelta& delta) {
  const std::string_view refs(reinterpret_cast<const char*>(delta.refs.data()),
                              delta.refs.size() * sizeof(RowRef));
  return Payload(kIdsDeltaTag, delta.added.size(), delta.removed.size(), refs,
                 {&delta.added, &delta.removed});
}

Result<IdsDelta> DecodeIdsDelta(std::string_view payload, const std::string& name) {
  Cursor cursor(payload, name, "id index");
  OMNIGRAPH_ASSIGN_OR_RETURN(const Counts n, cursor.Open(kIdsDeltaTag));
  IdsDelta delta;
  if (n.added > payload.size() / sizeof(RowRef)) return cursor.Bad("truncated");
  delta.refs.resize(n.added);
  OMNIGRAPH_RETURN_IF_ERROR(cursor.Read(delta.refs.data(), n.added * sizeof(RowRef)));
  OMNIGRAPH_RETURN_IF_ERROR(cursor.List(n.added, delta.added));
  OMNIGRAPH_RETURN_IF_ERROR(cursor.List(n.removed, delta.removed));
  OMNIGRAPH_RETURN_IF_ERROR(cursor.Done());
  return delta;
}

Result<IdIndex> ApplyIdsDelta(const IdIndex& base, const TableManifest& base_manifest,
                              const IdsDelta& delta, const TableManifest& manifest,
                              const std::string& name) {
  auto bad = [&](const std::string& what) { return Corruption("id index delta: " + what, name); };
  // The base's fragments by their index in the new manifest (writes keep the base's fragments,
  // drop those left without a live row, and add new ones at the end).
  std::unordered_map<std::string_view, uint32_t> position;
  for (uint32_t f = 0; f < manifest.fragments.size(); ++f) position[manifest.fragments[f].id] = f;
  std::vector<int64_t> renumber(base_manifest.fragments.size(), -1);
  for (size_t f = 0; f < renumber.size(); ++f) {
    auto it = position.find(base_manifest.fragments[f].id);
    if (it != position.end()) renumber[f] = it->second;
  }
  std::string blob;
  std::vector<uint32_t> ends;
  std::vector<RowRef> refs;
  ends.reserve(manifest.entity_count);
  refs.reserve(manifest.entity_count);
  bool lost = false;
  const auto emit = [&](std::string_view id, RowRef ref) {
    blob.append(id);
    ends.push_back(static_cast<uint32_t>(blob.size()));
    refs.push_back(ref);
  };
  Merge(
      base.size(), [&](size_t i) { return base.IdAt(i); }, delta.added, delta.removed,
      [&](size_t i) {
        const RowRef ref = base.refs()[i];
        if (ref.source >= renumber.size() || renumber[ref.source] < 0) {
          lost = true;
          return;
        }
        emit(base.IdAt(i), RowRef{static_cast<uint32_t>(renumber[ref.source]), ref.row});
      },
      [&](size_t j) { emit(delta.added.At(j), delta.refs[j]); });
  if (lost) return bad("a kept row's fragment is not in the version");
  if (refs.size() != manifest.entity_count) {
    return bad("gives " + std::to_string(refs.size()) + " ids; the version has " +
               std::to_string(manifest.entity_count) + " live rows");
  }
  if (blob.size() > kIdIndexBytesMax) return bad("ids exceed the index's byte limit");
  for (const RowRef& ref : delta.refs) {
    if (ref.source >= manifest.fragments.size() || ref.row >= manifest.fragments[ref.source].rows) {
      return bad("row reference outside the version's fragments");
    }
  }
  IdIndex index(std::move(blob), std::move(ends), std::move(refs));
  index.set_entries_merged(index.size());  // Every entry was copied.
  return index;
}

std::string EncodeEdgesDelta(const EdgesDelta& delta) {
  return Payload(kEdgesDeltaTag, delta.ids.size(), delta.removed.size(), {},
                 {&delta.ids, &delta.src, &delta.dst, &delta.removed});
}

Result<EdgesDelta> DecodeEdgesDelta(std::string_view payload, const std::string& name) {
  Cursor cursor(payload, name, "adjacency");
  OMNIGRAPH_ASSIGN_OR_RETURN(const Counts n, cursor.Open(kEdgesDeltaTag));
  EdgesDelta delta;
  OMNIGRAPH_RETURN_IF_ERROR(cursor.List(n.added, delta.ids));
  OMNIGRAPH_RETURN_IF_ERROR(cursor.List(n.added, delta.src, /*endpoints=*/true));
  OMNIGRAPH_RETURN_IF_ERROR(cursor.List(n.added, delta.dst, /*endpoints=*/true));
  OMNIGRAPH_RETURN_IF_ERROR(cursor.List(n.removed, delta.removed));
  OMNIGRAPH_RETURN_IF_ERROR(cursor.Done());
  return delta;
}

Result<EdgeColumns> EdgesOfCsr(const EdgeCsr& csr, EdgeDirection direction, const IdIndex& ids,
                               const std::string& name) {
  if (csr.edges.size() != ids.size() || csr.offsets.size() != csr.keys.size() + 1) {
    return Corruption("adjacency holds " + std::to_string(csr.edges.size()) +
                          " edges; its id index " + std::to_string(ids.size()),
                      name);
  }
  EdgeColumns out;
  out.ids.resize(ids.size());
  out.src.resize(ids.size());
  out.dst.resize(ids.size());
  std::vector<std::string_view>& key = direction == EdgeDirection::kOut ? out.src : out.dst;
  std::vector<std::string_view>& other = direction == EdgeDirection::kOut ? out.dst : out.src;
  const std::span<const uint32_t> edges = csr.edges;
  const std::span<const uint32_t> targets = csr.targets;
  for (size_t k = 0; k < csr.keys.size(); ++k) {
    for (uint32_t slot = csr.offsets[k]; slot < csr.offsets[k + 1]; ++slot) {
      key[edges[slot]] = csr.keys.At(k);
      other[edges[slot]] = csr.others.At(targets[slot]);
    }
  }
  for (size_t p = 0; p < ids.size(); ++p) out.ids[p] = ids.IdAt(p);
  return out;
}

EdgeColumns ApplyEdgesDelta(const EdgeColumns& base, const EdgesDelta& delta) {
  EdgeColumns out;
  out.ids.reserve(base.ids.size() + delta.ids.size());
  out.src.reserve(out.ids.capacity());
  out.dst.reserve(out.ids.capacity());
  Merge(
      base.ids.size(), [&](size_t i) { return base.ids[i]; }, delta.ids, delta.removed,
      [&](size_t i) {
        out.ids.push_back(base.ids[i]);
        out.src.push_back(base.src[i]);
        out.dst.push_back(base.dst[i]);
      },
      [&](size_t j) {
        out.ids.push_back(delta.ids.At(j));
        out.src.push_back(delta.src.At(j));
        out.dst.push_back(delta.dst.At(j));
      });
  return out;
}

Result<EdgeCsr> CsrOfEdges(const EdgeColumns& edges, EdgeDirection direction, const IdIndex& ids,
                           const std::string& name) {
  bool same = edges.ids.size() == ids.size();
  for (size_t p = 0; same && p < ids.size(); ++p) same = edges.ids[p] == ids.IdAt(p);
  if (!same) return Corruption("adjacency delta: its edges are not the version's", name);
  return EdgeCsr::Build(direction, edges.src, edges.dst);
}

Result<IdIndex> IdsOfChain(std::span<const IndexLink> chain, const std::string& name,
                           IdIndex* first, const IdIndex* start) {
  if (chain.empty()) return Corruption("id index chain has no link", name);
  IdIndex index;
  if (start != nullptr) {
    index = *start;  // Shares the held index's bytes; nothing is copied.
  } else {
    OMNIGRAPH_ASSIGN_OR_RETURN(index, IdIndex::Decode(chain[0].payload, *chain[0].manifest, name));
  }
  if (first != nullptr) *first = index;
  for (size_t i = 1; i < chain.size(); ++i) {
    OMNIGRAPH_ASSIGN_OR_RETURN(IdsDelta delta, DecodeIdsDelta(chain[i].payload.view(), name));
    // Layered over the index so far when the write kept its fragments: the delta's ids alone
    // are written, not every id of the table (docs/design/tables.md "Layered id indexes").
    OMNIGRAPH_ASSIGN_OR_RETURN(
        index, index.Extend(*chain[i - 1].manifest, delta, *chain[i].manifest, name));
  }
  return index;
}

Result<EdgeCsr> CsrOfChain(std::span<const IndexLink> chain, EdgeDirection direction,
                           const IdIndex& first, const IdIndex& last, const std::string& name,
                           const EdgeCsr* start) {
  if (chain.empty()) return Corruption("adjacency chain has no link", name);
  EdgeCsr decoded;
  if (start == nullptr) {
    OMNIGRAPH_ASSIGN_OR_RETURN(decoded,
                               EdgeCsr::Decode(chain[0].payload, *chain[0].manifest, name));
    if (chain.size() == 1) return decoded;
  }
  const EdgeCsr& full = start != nullptr ? *start : decoded;
  // Every delta is decoded first: the edges refer to their strings until the rebuild.
  std::vector<EdgesDelta> deltas;
  for (size_t i = 1; i < chain.size(); ++i) {
    OMNIGRAPH_ASSIGN_OR_RETURN(EdgesDelta delta, DecodeEdgesDelta(chain[i].payload.view(), name));
    deltas.push_back(std::move(delta));
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(EdgeColumns edges, EdgesOfCsr(full, direction, first, name));
  for (const EdgesDelta& delta : deltas) edges = ApplyEdgesDelta(edges, delta);
  return CsrOfEdges(edges, direction, last, name);
}

}  // namespace omnigraph::table
