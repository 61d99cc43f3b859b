#include "table/edge_csr.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <utility>

#include "base/executor.h"
#include "base/hash.h"
#include "base/string_index.h"
#include "table/derived.h"
#include "table/le_bytes.h"

namespace omnigraph::table {

namespace {

// Revision 1's sections, in this order (docs/format/indexes.md).
enum V1Section : uint32_t {
  kV1Counts,
  kV1KeyEnds,
  kV1KeyBlob,
  kV1OtherEnds,
  kV1OtherBlob,
  kV1Offsets,
  kV1Edges,
  kV1Targets,
  kV1Sections
};
constexpr uint64_t kV1EntryBytes = 24;
constexpr uint64_t kV1TableBytes = 8 + kV1Sections * kV1EntryBytes + 8;
constexpr uint32_t kRevision1 = 0;  // Revision 1 has zero where revision 2 has its number.
constexpr uint32_t kRevision2 = 2;
constexpr uint32_t kRevision3 = 3;
constexpr uint32_t kRevision4 = 4;
// Where the revision-2 table's checksum is.
constexpr uint64_t kTableHashAt = kCsrTableBytes - 8;

template <typename T>
std::string_view Bytes(const std::vector<T>& v) {
  return std::string_view(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

template <typename T>
std::string_view Bytes(std::span<const T> v) {
  return std::string_view(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

// Appends `id` to `list`, within the size bound of an index.
Status AppendDistinct(std::string_view id, StringList& list) {
  if (list.blob.size() + id.size() > kIdIndexBytesMax) {
    return Status(Code::kResourceLimit,
                  "endpoint ids exceed " + std::to_string(kIdIndexBytesMax) + " bytes");
  }
  list.blob.append(id);
  list.ends.push_back(static_cast<uint32_t>(list.blob.size()));
  return Status::Ok();
}

// The positions 0..rank.size() in order of their rank (of `distinct` ranks), equal ranks in
// position order: a counting sort.
std::vector<uint32_t> OrderByRank(std::span<const uint32_t> rank, size_t distinct) {
  // start[r]: where the positions of rank r begin.
  std::vector<uint32_t> start(distinct + 1, 0);
  for (uint32_t r : rank) ++start[r + 1];
  for (size_t r = 1; r < start.size(); ++r) start[r] += start[r - 1];
  std::vector<uint32_t> order(rank.size());
  for (size_t q = 0; q < rank.size(); ++q) order[start[rank[q]]++] = static_cast<uint32_t>(q);
  return order;
}

// Appends the ids `index` numbers to `list`, ascending, and returns each number's rank there.
Result<std::vector<uint32_t>> RankDistinct(const StringIndex& index, StringList& list) {
  // by_id[r]: the number of the r-th smallest distinct id.
  std::vector<uint32_t> by_id(index.size());
  std::iota(by_id.begin(), by_id.end(), 0u);
  std::sort(by_id.begin(), by_id.end(),
            [&](uint32_t a, uint32_t b) { return index.At(a) < index.At(b); });
  std::vector<uint32_t> rank_of(index.size());
  for (uint32_t r = 0; r < by_id.size(); ++r) {
    rank_of[by_id[r]] = r;
    OMNIGRAPH_RETURN_IF_ERROR(AppendDistinct(index.At(by_id[r]), list));
  }
  return rank_of;
}

// Appends the distinct ids of `ids` to `list`, ascending; sets rank[p] to the position of ids[p]
// in that list and, when `order` is given, fills it with the positions of `ids` in id order,
// equal ids in position order (a stable sort by id).
// Endpoint columns repeat few distinct ids many times (a node has many edges), so the distinct
// ids are found through a StringIndex, only they are sorted, and the positions are placed by a
// counting sort on their rank: O(n + d log d) instead of O(n log n) string comparisons. When most
// ids are distinct that gains nothing, and a plain stable sort does the work.
Status RankIds(const std::vector<std::string_view>& ids, StringList& list,
               std::vector<uint32_t>& rank, std::vector<uint32_t>* order) {
  rank.resize(ids.size());
  const size_t distinct_max = ids.size() / 4;
  StringIndex index(std::min<size_t>(distinct_max, 1 << 16));
  std::vector<uint32_t> slot(ids.size());
  size_t p = 0;
  for (; p < ids.size() && index.size() <= distinct_max; ++p) slot[p] = index.Insert(ids[p]);
  if (index.size() > distinct_max) {
    std::vector<uint32_t> sorted(ids.size());
    std::iota(sorted.begin(), sorted.end(), 0u);
    std::stable_sort(sorted.begin(), sorted.end(),
                     [&](uint32_t a, uint32_t b) { return ids[a] < ids[b]; });
    for (uint32_t q : sorted) {
      if (list.ends.empty() || list.At(list.size() - 1) != ids[q]) {
        OMNIGRAPH_RETURN_IF_ERROR(AppendDistinct(ids[q], list));
      }
      rank[q] = static_cast<uint32_t>(list.size() - 1);
    }
    if (order != nullptr) *order = std::move(sorted);
    return Status::Ok();
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<uint32_t> rank_of, RankDistinct(index, list));
  for (size_t q = 0; q < ids.size(); ++q) rank[q] = rank_of[slot[q]];
  if (order != nullptr) *order = OrderByRank(rank, rank_of.size());
  return Status::Ok();
}

// Whether the strings of `list` are strictly ascending and its ends cover its blob.
bool WellFormed(const StringListView& list) {
  uint32_t prev = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    if (list.ends[i] < prev || list.ends[i] > list.blob.size()) return false;
    prev = list.ends[i];
    if (i > 0 && !(list.At(i - 1) < list.At(i))) return false;
  }
  return prev == list.blob.size();
}

// A built adjacency's arrays, which its views point into.
struct OwnedCsr {
  StringList keys;
  StringList others;
  std::vector<uint32_t> offsets;
  std::vector<uint32_t> edges;
  std::vector<uint32_t> targets;
};

StringListView ViewOf(const StringList& list) { return StringListView{list.blob, list.ends}; }

// The adjacency of edges whose key endpoint has rank key_rank[p] among csr.keys and whose other
// endpoint has ordinal[p] among csr.others, `order` being the positions by key rank (stable).
// Each input is freed as soon as it is used: three arrays of 4 bytes per edge at most are held.
EdgeCsr Assemble(std::shared_ptr<OwnedCsr> owned, std::vector<uint32_t> key_rank,
                 std::vector<uint32_t> order, std::vector<uint32_t> ordinal) {
  OwnedCsr& csr = *owned;
  // offsets[r + 1] - offsets[r]: the edges of the rank-r key.
  csr.offsets.assign(csr.keys.size() + 1, 0);
  for (uint32_t r : key_rank) ++csr.offsets[r + 1];
  for (size_t r = 1; r < csr.offsets.size(); ++r) csr.offsets[r] += csr.offsets[r - 1];
  std::vector<uint32_t>().swap(key_rank);
  csr.targets.resize(order.size());
  for (size_t i = 0; i < order.size(); ++i) csr.targets[i] = ordinal[order[i]];
  std::vector<uint32_t>().swap(ordinal);
  csr.edges = std::move(order);
  EdgeCsr out;
  out.keys = ViewOf(csr.keys);
  out.others = ViewOf(csr.others);
  out.offsets = csr.offsets;
  out.edges = csr.edges;
  out.targets = csr.targets;
  out.owner = std::move(owned);
  return out;
}

}  // namespace

namespace csr_internal {

Status CheckStructure(const EdgeCsr& csr, uint64_t e, const std::string& name) {
  auto bad = [&](const std::string& what) { return Corruption("adjacency: " + what, name); };
  if (!WellFormed(csr.keys) || !WellFormed(csr.others)) return bad("endpoint ids out of order");
  if (csr.offsets.front() != 0 || csr.offsets.back() != e ||
      !std::is_sorted(csr.offsets.begin(), csr.offsets.end())) {
    return bad("offsets out of order");
  }
  const uint64_t o = csr.others.size();
  if (csr.edges.size() != e || csr.targets.size() != e) return bad("slot count differs");
  // Slots not yet unpacked (revision 3) were checked packed by their decoder.
  if (csr.targets.filled()) {
    const std::span<const uint32_t> targets = csr.targets;
    for (uint64_t i = 0; i < e; ++i) {
      if (targets[i] >= o) return bad("slot outside the lists");
    }
  }
  if (!csr.edges.filled()) return Status::Ok();
  const std::span<const uint32_t> edges = csr.edges;
  for (uint64_t i = 0; i < e; ++i) {
    if (edges[i] >= e) return bad("slot outside the lists");
  }
  return Status::Ok();
}

std::string EncodeFence(const StringListView& keys, std::span<const uint32_t> offsets,
                        uint32_t stride) {
  std::string starts, slots, ends, ids;
  for (uint64_t k = 0; k < keys.size(); k += stride) {
    AppendLe<uint32_t>(starts, k == 0 ? 0 : keys.ends[k - 1]);
    if (!offsets.empty()) AppendLe<uint32_t>(slots, offsets[k]);
    ids.append(keys.At(k));
    AppendLe<uint32_t>(ends, static_cast<uint32_t>(ids.size()));
  }
  return starts + slots + ends + ids;
}

bool FenceMatches(const CsrFence& fence, const EdgeCsr& csr, const CsrLayout& layout) {
  for (uint64_t j = 0; j < fence.samples(); ++j) {
    const uint64_t k = j * layout.fence_stride;
    if (fence.Start(j) != (k == 0 ? 0 : csr.keys.ends[k - 1]) || fence.Id(j) != csr.keys.At(k)) {
      return false;
    }
    if (layout.prefixed() && fence.FirstSlot(j) != csr.offsets[k]) return false;
  }
  return true;
}

}  // namespace csr_internal

namespace {

using csr_internal::CheckStructure;

Result<EdgeCsr> DecodeV1(const storage::SharedBytes& bytes, const TableManifest& manifest,
                         const std::string& name) {
  auto bad = [&](const std::string& what) { return Corruption("adjacency: " + what, name); };
  const std::string_view payload = bytes.view();
  if (payload.size() < kV1TableBytes || LoadLe<uint32_t>(payload, 0) != kV1Sections) {
    return bad("no section table");
  }
  if (LoadLe<uint64_t>(payload, kV1TableBytes - 8) !=
      XxHash64(payload.substr(0, kV1TableBytes - 8))) {
    return bad("section table checksum mismatch");
  }
  std::string_view s[kV1Sections];
  uint64_t at[kV1Sections];
  for (uint32_t i = 0; i < kV1Sections; ++i) {
    const uint64_t offset = LoadLe<uint64_t>(payload, 8 + i * kV1EntryBytes);
    const uint64_t length = LoadLe<uint64_t>(payload, 16 + i * kV1EntryBytes);
    if (offset > payload.size() || length > payload.size() - offset) return bad("section outside");
    if (offset % 8 != 0) return bad("section " + std::to_string(i) + " is not aligned");
    s[i] = payload.substr(offset, length);
    at[i] = offset;
    if (XxHash64(s[i]) != LoadLe<uint64_t>(payload, 24 + i * kV1EntryBytes)) {
      return bad("section " + std::to_string(i) + " checksum mismatch");
    }
  }
  if (s[kV1Counts].size() != 24) return bad("counts section is not 24 bytes");
  const uint64_t e = LoadLe<uint64_t>(s[kV1Counts], 0);
  const uint64_t k = LoadLe<uint64_t>(s[kV1Counts], 8);
  const uint64_t o = LoadLe<uint64_t>(s[kV1Counts], 16);
  if (e != manifest.entity_count) return bad("edge count differs from the version's");
  if (e > payload.size() || k > payload.size() || o > payload.size() ||
      s[kV1KeyEnds].size() != 4 * k || s[kV1OtherEnds].size() != 4 * o ||
      s[kV1Offsets].size() != 4 * (k + 1) || s[kV1Edges].size() != 4 * e ||
      s[kV1Targets].size() != 4 * e) {
    return bad("section sizes differ from the counts");
  }
  EdgeCsr csr;
  csr.owner = bytes.owner();
  csr.keys = StringListView{s[kV1KeyBlob], ViewArray<uint32_t>(payload, at[kV1KeyEnds], k)};
  csr.others = StringListView{s[kV1OtherBlob], ViewArray<uint32_t>(payload, at[kV1OtherEnds], o)};
  csr.offsets = ViewArray<uint32_t>(payload, at[kV1Offsets], k + 1);
  csr.edges = ViewArray<uint32_t>(payload, at[kV1Edges], e);
  csr.targets = ViewArray<uint32_t>(payload, at[kV1Targets], e);
  OMNIGRAPH_RETURN_IF_ERROR(CheckStructure(csr, e, name));
  return csr;
}

Result<EdgeCsr> DecodeV2(const storage::SharedBytes& bytes, const TableManifest& manifest,
                         const std::string& name) {
  auto bad = [&](const std::string& what) { return Corruption("adjacency: " + what, name); };
  const std::string_view payload = bytes.view();
  OMNIGRAPH_ASSIGN_OR_RETURN(CsrLayout layout, DecodeCsrLayout(payload, payload.size(), name));
  const std::string_view sums = payload.substr(layout.data_end);
  if (XxHash64(sums) != layout.sums_xxh64) return bad("block checksums fail their checksum");
  const std::string_view data = payload.substr(kCsrTableBytes, layout.data_end - kCsrTableBytes);
  if (!CsrBlocksMatch(layout, sums, kCsrTableBytes, data)) return bad("block checksum mismatch");
  if (layout.edges != manifest.entity_count) return bad("edge count differs from the version's");
  const auto section = [&](CsrSection i) {
    return payload.substr(layout.section_offset[i], layout.section_length[i]);
  };
  const auto array = [&](CsrSection i, uint64_t n) {
    return ViewArray<uint32_t>(payload, layout.section_offset[i], n);
  };
  EdgeCsr csr;
  csr.owner = bytes.owner();
  csr.keys = StringListView{section(kCsrKeyIds), array(kCsrKeyEnds, layout.keys)};
  csr.others = StringListView{section(kCsrOtherIds), array(kCsrOtherEnds, layout.others)};
  csr.offsets = array(kCsrOffsets, layout.keys + 1);
  csr.edges = array(kCsrEdges, layout.edges);
  csr.targets = array(kCsrTargets, layout.edges);
  OMNIGRAPH_RETURN_IF_ERROR(CheckStructure(csr, layout.edges, name));
  OMNIGRAPH_ASSIGN_OR_RETURN(CsrFence fence, CsrFence::Parse(section(kCsrFence), layout, name));
  if (!csr_internal::FenceMatches(fence, csr, layout)) return bad("fence differs from the key ids");
  return csr;
}

}  // namespace

std::string_view CsrKind(EdgeDirection direction) {
  return direction == EdgeDirection::kOut ? "csr.out" : "csr.in";
}

Result<EdgeCsr> EdgeCsr::Build(EdgeDirection direction, const std::vector<std::string_view>& src,
                               const std::vector<std::string_view>& dst) {
  const std::vector<std::string_view>& key = direction == EdgeDirection::kOut ? src : dst;
  const std::vector<std::string_view>& other = direction == EdgeDirection::kOut ? dst : src;
  auto owned = std::make_shared<OwnedCsr>();
  OwnedCsr& csr = *owned;
  std::vector<uint32_t> ordinal;
  OMNIGRAPH_RETURN_IF_ERROR(RankIds(other, csr.others, ordinal, nullptr));
  std::vector<uint32_t> key_rank;
  std::vector<uint32_t> order;
  OMNIGRAPH_RETURN_IF_ERROR(RankIds(key, csr.keys, key_rank, &order));
  return Assemble(std::move(owned), std::move(key_rank), std::move(order), std::move(ordinal));
}

// One endpoint's side of a build: the distinct ids seen (copies, in chunks that never move, so the
// index's views stay valid) and, per edge position, the ordinal of its id.
struct EdgeCsrBuilder::Side {
  static constexpr size_t kChunkBytes = 1 << 20;

  StringIndex index;
  std::vector<std::unique_ptr<char[]>> chunks;
  size_t chunk_left = 0;
  char* chunk_at = nullptr;
  std::vector<uint32_t> slot;
  size_t set = 0;      // Slots given a number.
  bool twice = false;  // A slot given twice, or one past the edges.

  explicit Side(size_t edges) : slot(edges, StringIndex::kAbsent) {}

  uint32_t Number(std::string_view id) {
    const uint32_t found = index.Find(id);
    if (found != StringIndex::kAbsent) return found;
    if (id.size() > chunk_left) {
      chunk_left = std::max(kChunkBytes, id.size());
      chunks.push_back(std::make_unique<char[]>(chunk_left));
      chunk_at = chunks.back().get();
    }
    if (!id.empty()) std::memcpy(chunk_at, id.data(), id.size());
    const std::string_view copy(chunk_at, id.size());
    chunk_at += id.size();
    chunk_left -= id.size();
    return index.Insert(copy);
  }

  // Appends the distinct ids to `list`, ascending, and turns each slot into its id's rank there;
  // the copies are freed.
  Status Rank(StringList& list) {
    OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<uint32_t> rank_of, RankDistinct(index, list));
    index = StringIndex();
    chunks.clear();
    for (uint32_t& s : slot) s = rank_of[s];
    return Status::Ok();
  }
};

EdgeCsrBuilder::EdgeCsrBuilder(EdgeDirection direction, size_t edges)
    : direction_(direction),
      edges_(edges),
      key_(std::make_unique<Side>(edges)),
      other_(std::make_unique<Side>(edges)) {}

EdgeCsrBuilder::~EdgeCsrBuilder() = default;

void EdgeCsrBuilder::SetEnd(Side& side, uint32_t p, std::string_view id) {
  if (p >= edges_ || side.slot[p] != StringIndex::kAbsent) {
    side.twice = true;
    return;
  }
  side.slot[p] = side.Number(id);
  ++side.set;
}

void EdgeCsrBuilder::SetEnds(Side& side, std::span<const uint32_t> positions,
                             std::span<const std::string_view> ids) {
  // The ids held already are found a group at a time; a new one is numbered in its turn, so a
  // later repeat of it in the group, not found above, finds it then.
  constexpr size_t kGroup = 256;
  uint32_t found[kGroup];
  for (size_t at = 0; at < ids.size(); at += kGroup) {
    const size_t n = std::min(kGroup, ids.size() - at);
    side.index.FindMany(ids.subspan(at, n), std::span<uint32_t>(found, n));
    for (size_t j = 0; j < n; ++j) {
      const uint32_t p = positions[at + j];
      if (p >= edges_ || side.slot[p] != StringIndex::kAbsent) {
        side.twice = true;
        continue;
      }
      side.slot[p] = found[j] != StringIndex::kAbsent ? found[j] : side.Number(ids[at + j]);
      ++side.set;
    }
  }
}

void EdgeCsrBuilder::Set(uint32_t p, std::string_view src, std::string_view dst) {
  SetSource(p, src);
  SetTarget(p, dst);
}

Result<EdgeCsr> EdgeCsrBuilder::Finish(const std::string& name, Executor* executor) && {
  const bool twice = key_->twice || other_->twice;
  const size_t set = std::min(key_->set, other_->set);
  if (twice || set != edges_ || key_->set != other_->set) {
    return Corruption("the adjacency build was given " + std::to_string(set) + " of " +
                          std::to_string(edges_) + " edges" + (twice ? ", one twice" : ""),
                      name);
  }
  auto owned = std::make_shared<OwnedCsr>();
  if (executor != nullptr) {
    TaskGroup others(*executor);
    others.Add([&]() { return other_->Rank(owned->others); });
    const Status keys = key_->Rank(owned->keys);
    OMNIGRAPH_RETURN_IF_ERROR(others.Wait());
    OMNIGRAPH_RETURN_IF_ERROR(keys);
  } else {
    OMNIGRAPH_RETURN_IF_ERROR(other_->Rank(owned->others));
    OMNIGRAPH_RETURN_IF_ERROR(key_->Rank(owned->keys));
  }
  std::vector<uint32_t> order = OrderByRank(key_->slot, owned->keys.size());
  return Assemble(std::move(owned), std::move(key_->slot), std::move(order),
                  std::move(other_->slot));
}

std::string EdgeCsr::Encode() const { return csr_internal::EncodePrefixed(*this, kRevision4); }

std::string EdgeCsr::EncodeRevision3() const {
  return csr_internal::EncodePrefixed(*this, kRevision3);
}

std::string EdgeCsr::EncodeRevision2() const {
  const std::string fence = csr_internal::EncodeFence(keys, {}, kCsrFenceStride);
  const std::string_view sections[kCsrSections] = {
      Bytes(keys.ends), keys.blob,           Bytes(others.ends),    others.blob,
      Bytes(offsets),   Bytes(edges.span()), Bytes(targets.span()), fence};
  std::string out;
  AppendLe<uint32_t>(out, kCsrSections);
  AppendLe<uint32_t>(out, kRevision2);
  AppendLe<uint64_t>(out, edges.size());
  AppendLe<uint64_t>(out, keys.size());
  AppendLe<uint64_t>(out, others.size());
  AppendLe<uint32_t>(out, kCsrFenceStride);
  AppendLe<uint32_t>(out, static_cast<uint32_t>(kCsrBlockBytes));
  uint64_t at = kCsrTableBytes;
  for (std::string_view s : sections) {
    AppendLe<uint64_t>(out, at);
    AppendLe<uint64_t>(out, s.size());
    at += Padded8(s.size());
  }
  const uint64_t data_end = at;
  const uint64_t blocks = (data_end - kCsrTableBytes + kCsrBlockBytes - 1) / kCsrBlockBytes;
  // Room for the derived object's header too (EncodeDerived frames the payload in place).
  out.reserve(kDerivedHeaderBytesMax + data_end + 8 * blocks);
  const size_t sums_hash_at = out.size();
  AppendLe<uint64_t>(out, 0);  // The sums' checksum, filled in below.
  AppendLe<uint64_t>(out, 0);  // The table's checksum, likewise.
  for (std::string_view s : sections) {
    out.append(s);
    out.append(Padded8(s.size()) - s.size(), '\0');
  }
  std::string sums;
  sums.reserve(8 * blocks);
  for (uint64_t b = 0; b < blocks; ++b) {
    AppendLe<uint64_t>(sums, XxHash64(std::string_view(out).substr(
                                 kCsrTableBytes + b * kCsrBlockBytes, kCsrBlockBytes)));
  }
  const uint64_t sums_hash = XxHash64(sums);
  std::memcpy(out.data() + sums_hash_at, &sums_hash, 8);
  const uint64_t table_hash = XxHash64(std::string_view(out).substr(0, kTableHashAt));
  std::memcpy(out.data() + kTableHashAt, &table_hash, 8);
  out.append(sums);
  return out;
}

Result<EdgeCsr> EdgeCsr::Decode(const storage::SharedBytes& bytes, const TableManifest& manifest,
                                const std::string& name) {
  const storage::SharedBytes aligned = Aligned8(bytes);
  const std::string_view payload = aligned.view();
  if (payload.size() < 8) return Corruption("adjacency: no section table", name);
  const uint32_t revision = LoadLe<uint32_t>(payload, 4);
  if (revision == kRevision1) return DecodeV1(aligned, manifest, name);
  if (revision == kRevision2) return DecodeV2(aligned, manifest, name);
  if (revision == kRevision3 || revision == kRevision4) {
    return csr_internal::DecodePrefixed(aligned, manifest, name);
  }
  return Corruption("adjacency: revision " + std::to_string(revision) + ", expected 1 to 4", name);
}

}  // namespace omnigraph::table
