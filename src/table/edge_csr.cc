#include "table/edge_csr.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <unordered_map>
#include <utility>

#include "base/hash.h"
#include "table/le_bytes.h"

namespace omnigraph::table {

namespace {

// Sections of a csr payload, in this order (docs/format/indexes.md).
enum Section : uint32_t {
  kCounts,
  kKeyEnds,
  kKeyBlob,
  kOtherEnds,
  kOtherBlob,
  kOffsets,
  kEdges,
  kTargets,
  kSectionCount
};
constexpr uint64_t kEntryBytes = 24;
constexpr uint64_t kTableBytes = 8 + kSectionCount * kEntryBytes + 8;

template <typename T>
std::string_view Bytes(const std::vector<T>& v) {
  return std::string_view(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

// Appends each id of `order` (positions into `ids`, sorted by id) once to `list`; `ordinal[p]` is
// the ordinal of ids[p] (when not null).
Status Distinct(const std::vector<std::string_view>& ids, const std::vector<uint32_t>& order,
                StringList& list, std::vector<uint32_t>* ordinal) {
  for (uint32_t p : order) {
    if (list.ends.empty() || list.At(list.size() - 1) != ids[p]) {
      if (list.blob.size() + ids[p].size() > kIdIndexBytesMax) {
        return Status(Code::kResourceLimit,
                      "endpoint ids exceed " + std::to_string(kIdIndexBytesMax) + " bytes");
      }
      list.blob.append(ids[p]);
      list.ends.push_back(static_cast<uint32_t>(list.blob.size()));
    }
    if (ordinal != nullptr) (*ordinal)[p] = static_cast<uint32_t>(list.size() - 1);
  }
  return Status::Ok();
}

// The positions of `ids` in id order, equal ids in position order (a stable sort by id).
// Endpoint columns repeat few distinct ids many times (a node has many edges), so the distinct
// ids are found through a hash map, only they are sorted, and the positions are placed by a
// counting sort on their id's rank: O(n + d log d) instead of O(n log n) string comparisons.
// When most ids are distinct that gains nothing, and a plain stable sort does the work.
std::vector<uint32_t> OrderBy(const std::vector<std::string_view>& ids) {
  std::vector<uint32_t> order(ids.size());
  std::unordered_map<std::string_view, uint32_t> slot_of;
  std::vector<uint32_t> slot(ids.size());
  const size_t distinct_max = ids.size() / 4;
  for (size_t p = 0; p < ids.size() && slot_of.size() <= distinct_max; ++p) {
    slot[p] = slot_of.try_emplace(ids[p], static_cast<uint32_t>(slot_of.size())).first->second;
  }
  if (slot_of.size() > distinct_max) {
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return ids[a] < ids[b]; });
    return order;
  }
  std::vector<std::pair<std::string_view, uint32_t>> sorted(slot_of.begin(), slot_of.end());
  std::sort(sorted.begin(), sorted.end());
  // start[rank]: where the positions of the rank-th smallest id begin in `order`.
  std::vector<uint32_t> rank_of(sorted.size());
  for (uint32_t r = 0; r < sorted.size(); ++r) rank_of[sorted[r].second] = r;
  std::vector<uint32_t> start(sorted.size() + 1, 0);
  for (size_t p = 0; p < ids.size(); ++p) ++start[rank_of[slot[p]] + 1];
  for (size_t r = 1; r < start.size(); ++r) start[r] += start[r - 1];
  for (size_t p = 0; p < ids.size(); ++p)
    order[start[rank_of[slot[p]]]++] = static_cast<uint32_t>(p);
  return order;
}

// Whether the strings of `list` are strictly ascending and its ends cover its blob.
bool WellFormed(const StringList& list) {
  uint32_t prev = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    if (list.ends[i] < prev || list.ends[i] > list.blob.size()) return false;
    prev = list.ends[i];
    if (i > 0 && !(list.At(i - 1) < list.At(i))) return false;
  }
  return prev == list.blob.size();
}

template <typename T>
std::vector<T> Copy(std::string_view bytes) {
  std::vector<T> out(bytes.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
  return out;
}

}  // namespace

std::string_view CsrKind(EdgeDirection direction) {
  return direction == EdgeDirection::kOut ? "csr.out" : "csr.in";
}

Result<EdgeCsr> EdgeCsr::Build(EdgeDirection direction, const std::vector<std::string_view>& src,
                               const std::vector<std::string_view>& dst) {
  const std::vector<std::string_view>& key = direction == EdgeDirection::kOut ? src : dst;
  const std::vector<std::string_view>& other = direction == EdgeDirection::kOut ? dst : src;
  EdgeCsr csr;
  std::vector<uint32_t> ordinal(other.size());
  OMNIGRAPH_RETURN_IF_ERROR(Distinct(other, OrderBy(other), csr.others, &ordinal));
  const std::vector<uint32_t> order = OrderBy(key);
  OMNIGRAPH_RETURN_IF_ERROR(Distinct(key, order, csr.keys, nullptr));
  csr.offsets.assign(csr.keys.size() + 1, 0);
  csr.edges.reserve(order.size());
  csr.targets.reserve(order.size());
  size_t k = 0;
  for (uint32_t p : order) {
    while (csr.keys.At(k) != key[p]) csr.offsets[++k] = static_cast<uint32_t>(csr.edges.size());
    csr.edges.push_back(p);
    csr.targets.push_back(ordinal[p]);
  }
  if (!csr.keys.ends.empty()) csr.offsets[csr.keys.size()] = static_cast<uint32_t>(order.size());
  return csr;
}

std::string EdgeCsr::Encode() const {
  std::vector<uint64_t> counts = {edges.size(), keys.size(), others.size()};
  const std::string_view sections[kSectionCount] = {
      Bytes(counts), Bytes(keys.ends), keys.blob,    Bytes(others.ends),
      others.blob,   Bytes(offsets),   Bytes(edges), Bytes(targets)};
  std::string out;
  AppendLe<uint32_t>(out, kSectionCount);
  AppendLe<uint32_t>(out, 0);
  uint64_t at = kTableBytes;
  for (std::string_view s : sections) {
    AppendLe<uint64_t>(out, at);
    AppendLe<uint64_t>(out, s.size());
    AppendLe<uint64_t>(out, XxHash64(s));
    at += Padded8(s.size());
  }
  AppendLe<uint64_t>(out, XxHash64(out));
  out.reserve(at);
  for (std::string_view s : sections) {
    out.append(s);
    out.append(Padded8(s.size()) - s.size(), '\0');
  }
  return out;
}

Result<EdgeCsr> EdgeCsr::Decode(std::string_view payload, const TableManifest& manifest,
                                const std::string& name) {
  auto bad = [&](const std::string& what) { return Corruption("adjacency: " + what, name); };
  if (payload.size() < kTableBytes || LoadLe<uint32_t>(payload, 0) != kSectionCount) {
    return bad("no section table");
  }
  if (LoadLe<uint64_t>(payload, kTableBytes - 8) != XxHash64(payload.substr(0, kTableBytes - 8))) {
    return bad("section table checksum mismatch");
  }
  std::string_view s[kSectionCount];
  for (uint32_t i = 0; i < kSectionCount; ++i) {
    const uint64_t offset = LoadLe<uint64_t>(payload, 8 + i * kEntryBytes);
    const uint64_t length = LoadLe<uint64_t>(payload, 16 + i * kEntryBytes);
    if (offset > payload.size() || length > payload.size() - offset) return bad("section outside");
    s[i] = payload.substr(offset, length);
    if (XxHash64(s[i]) != LoadLe<uint64_t>(payload, 24 + i * kEntryBytes)) {
      return bad("section " + std::to_string(i) + " checksum mismatch");
    }
  }
  if (s[kCounts].size() != 24) return bad("counts section is not 24 bytes");
  const uint64_t e = LoadLe<uint64_t>(s[kCounts], 0);
  const uint64_t k = LoadLe<uint64_t>(s[kCounts], 8);
  const uint64_t o = LoadLe<uint64_t>(s[kCounts], 16);
  if (e != manifest.entity_count) return bad("edge count differs from the version's");
  if (s[kKeyEnds].size() != 4 * k || s[kOtherEnds].size() != 4 * o ||
      s[kOffsets].size() != 4 * (k + 1) || s[kEdges].size() != 4 * e ||
      s[kTargets].size() != 4 * e) {
    return bad("section sizes differ from the counts");
  }
  EdgeCsr csr;
  csr.keys = StringList{std::string(s[kKeyBlob]), Copy<uint32_t>(s[kKeyEnds])};
  csr.others = StringList{std::string(s[kOtherBlob]), Copy<uint32_t>(s[kOtherEnds])};
  csr.offsets = Copy<uint32_t>(s[kOffsets]);
  csr.edges = Copy<uint32_t>(s[kEdges]);
  csr.targets = Copy<uint32_t>(s[kTargets]);
  if (!WellFormed(csr.keys) || !WellFormed(csr.others)) return bad("endpoint ids out of order");
  if (csr.offsets.front() != 0 || csr.offsets.back() != e ||
      !std::is_sorted(csr.offsets.begin(), csr.offsets.end())) {
    return bad("offsets out of order");
  }
  for (uint64_t i = 0; i < e; ++i) {
    if (csr.edges[i] >= e || csr.targets[i] >= o) return bad("slot outside the lists");
  }
  return csr;
}

}  // namespace omnigraph::table
