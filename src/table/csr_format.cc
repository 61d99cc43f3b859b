// The parts of the adjacency's format that whole and point readers share: the tables of
// revisions 2 and 3, the fence, the block checksums, the bit packing of revision 3's slots, and
// revision 3's encoder and whole decoder (docs/format/indexes.md "Adjacency").
#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <utility>

#include "base/hash.h"
#include "base/huge_pages.h"
#include "table/derived.h"
#include "table/edge_csr.h"
#include "table/le_bytes.h"

namespace omnigraph::table {

namespace {

constexpr uint32_t kRevision1 = 0;  // Revision 1 has zero where later ones have their number.
constexpr uint32_t kRevision1Sections = 8;
constexpr uint32_t kRevision2 = 2;
constexpr uint32_t kRevision3 = 3;
constexpr uint32_t kRevision4 = 4;
// Where the fields of the revision-2 table are.
constexpr uint64_t kSectionTableAt = 40;
constexpr uint64_t kSumsHashAt = kSectionTableAt + 16 * kCsrSections;
constexpr uint64_t kTableHashAt = kSumsHashAt + 8;
static_assert(kTableHashAt + 8 == kCsrTableBytes);
// And of the revision-3 and -4 table.
constexpr uint64_t kSectionTable3At = 48;
constexpr uint64_t kPrefixHash3At = kSectionTable3At + 16 * kCsrSections3;
constexpr uint64_t kTableHash3At = kPrefixHash3At + 8;
static_assert(kTableHash3At + 8 == kCsr3TableBytes);
constexpr uint64_t kBlockBytesMin = 4096;
constexpr uint64_t kBlockBytesMax = 1 << 20;
// Slot positions are 4-byte values.
constexpr uint64_t kEdgesMax = uint64_t{1} << 32;
// Revision 3 and 4's sections in the order they are laid out: the prefix, then the data area.
constexpr CsrSection kOrder3[kCsrSections3] = {
    kCsrFence,     kCsrOtherStarts, kCsrSums,    kCsrKeyEnds, kCsrKeyIds,
    kCsrOtherEnds, kCsrOtherIds,    kCsrOffsets, kCsrEdges,   kCsrTargets};

Status Bad(const std::string& what, const std::string& name) {
  return Corruption("adjacency: " + what, name);
}

// What revisions 2 to 4 start their table with, checked: the table's checksum (its last 8 of
// `table_bytes` bytes), the section count, the counts, the fence stride and the block size.
Result<CsrLayout> DecodeTableStart(std::string_view head, uint64_t table_bytes, uint32_t sections,
                                   const std::string& name) {
  if (head.size() < table_bytes) return Bad("section table is truncated", name);
  const uint64_t hash_at = table_bytes - 8;
  if (LoadLe<uint64_t>(head, hash_at) != XxHash64(head.substr(0, hash_at))) {
    return Bad("section table checksum mismatch", name);
  }
  if (LoadLe<uint32_t>(head, 0) != sections) return Bad("unknown section table", name);
  CsrLayout layout;
  layout.revision = LoadLe<uint32_t>(head, 4);
  layout.edges = LoadLe<uint64_t>(head, 8);
  layout.keys = LoadLe<uint64_t>(head, 16);
  layout.others = LoadLe<uint64_t>(head, 24);
  layout.fence_stride = LoadLe<uint32_t>(head, 32);
  layout.block_bytes = LoadLe<uint32_t>(head, 36);
  if (layout.block_bytes < kBlockBytesMin || layout.block_bytes > kBlockBytesMax ||
      (layout.block_bytes & (layout.block_bytes - 1)) != 0 || layout.fence_stride == 0) {
    return Bad("block size or fence stride out of range", name);
  }
  return layout;
}

Result<CsrLayout> DecodeLayout2(std::string_view head, uint64_t payload_bytes,
                                const std::string& name) {
  auto bad = [&](const std::string& what) { return Bad(what, name); };
  OMNIGRAPH_ASSIGN_OR_RETURN(CsrLayout layout,
                             DecodeTableStart(head, kCsrTableBytes, kCsrSections, name));
  if (layout.revision != kRevision2) return bad("unknown section table");
  layout.sums_xxh64 = LoadLe<uint64_t>(head, kSumsHashAt);
  // The counts bound the section sizes below, which the payload bounds: checked before any is
  // multiplied.
  if (layout.edges > payload_bytes / 8 || layout.keys > payload_bytes / 4 ||
      layout.others > payload_bytes / 4) {
    return bad("counts exceed the payload");
  }
  const uint64_t expected[kCsrSections] = {
      4 * layout.keys,  0, 4 * layout.others, 0, 4 * (layout.keys + 1), 4 * layout.edges,
      4 * layout.edges, 0};
  uint64_t at = kCsrTableBytes;
  layout.data_begin = at;
  for (uint32_t i = 0; i < kCsrSections; ++i) {
    layout.section_offset[i] = LoadLe<uint64_t>(head, kSectionTableAt + 16 * i);
    layout.section_length[i] = LoadLe<uint64_t>(head, kSectionTableAt + 16 * i + 8);
    if (layout.section_offset[i] != at || layout.section_length[i] > payload_bytes) {
      return bad("section " + std::to_string(i) + " is not where the sections before it end");
    }
    const bool sized = i != kCsrKeyIds && i != kCsrOtherIds && i != kCsrFence;
    if ((sized && layout.section_length[i] != expected[i]) ||
        (!sized && layout.section_length[i] > kIdIndexBytesMax)) {
      return bad("section sizes differ from the counts");
    }
    at += Padded8(layout.section_length[i]);
  }
  layout.data_end = at;
  if (layout.section_length[kCsrFence] < 8 * layout.fence_samples()) {
    return bad("fence is shorter than its samples");
  }
  if (at > payload_bytes || layout.payload_bytes() != payload_bytes) {
    return bad("payload is " + std::to_string(payload_bytes) + " bytes; its table says " +
               std::to_string(at > payload_bytes ? at : layout.payload_bytes()));
  }
  return layout;
}

// The size revision 3 requires of `section` (not meaningful for the id lists, the fence and the
// block checksums, whose sizes are checked apart).
uint64_t Expected3(const CsrLayout& l, CsrSection section) {
  switch (section) {
    case kCsrKeyEnds: return 4 * l.keys;
    case kCsrOtherEnds: return 4 * l.others;
    case kCsrOffsets: return 4 * (l.keys + 1);
    case kCsrEdges: return (l.edges * l.edge_bits + 7) / 8;
    case kCsrTargets: return (l.edges * l.target_bits + 7) / 8;
    case kCsrOtherStarts: return 4 * l.other_samples();
    default: return 0;
  }
}

Result<CsrLayout> DecodeLayout3(std::string_view head, uint64_t payload_bytes,
                                const std::string& name) {
  auto bad = [&](const std::string& what) { return Bad(what, name); };
  OMNIGRAPH_ASSIGN_OR_RETURN(CsrLayout layout,
                             DecodeTableStart(head, kCsr3TableBytes, kCsrSections3, name));
  if (LoadLe<uint16_t>(head, 46) != 0) return bad("unknown section table");
  layout.other_stride = LoadLe<uint32_t>(head, 40);
  layout.edge_bits = static_cast<uint8_t>(head[44]);
  layout.target_bits = static_cast<uint8_t>(head[45]);
  layout.prefix_xxh64 = LoadLe<uint64_t>(head, kPrefixHash3At);
  if (layout.other_stride == 0) return bad("other-id stride out of range");
  if (layout.edges > kEdgesMax || layout.keys > payload_bytes / 4 ||
      layout.others > payload_bytes / 4) {
    return bad("counts exceed the payload");
  }
  if (layout.edge_bits != CsrBitsFor(layout.edges) ||
      layout.target_bits != CsrBitsFor(layout.others)) {
    return bad("slot widths differ from the counts");
  }
  uint64_t at = kCsr3TableBytes;
  for (uint32_t i = 0; i < kCsrSections3; ++i) {
    const CsrSection s = kOrder3[i];
    layout.section_offset[s] = LoadLe<uint64_t>(head, kSectionTable3At + 16 * i);
    layout.section_length[s] = LoadLe<uint64_t>(head, kSectionTable3At + 16 * i + 8);
    if (layout.section_offset[s] != at || layout.section_length[s] > payload_bytes) {
      return bad("section " + std::to_string(i) + " is not where the sections before it end");
    }
    const uint64_t expected = Expected3(layout, s);
    const bool sized = s != kCsrKeyIds && s != kCsrOtherIds && s != kCsrFence && s != kCsrSums;
    if ((sized && layout.section_length[s] != expected) ||
        (!sized && layout.section_length[s] > kIdIndexBytesMax)) {
      return bad("section sizes differ from the counts");
    }
    at += Padded8(layout.section_length[s]);
    if (s == kCsrSums) layout.data_begin = at;
  }
  layout.data_end = at;
  if (layout.section_length[kCsrFence] < 12 * layout.fence_samples()) {
    return bad("fence is shorter than its samples");
  }
  if (layout.section_length[kCsrSums] != 8 * layout.blocks()) {
    return bad("block checksums differ from the data area's blocks");
  }
  if (at != payload_bytes) {
    return bad("payload is " + std::to_string(payload_bytes) + " bytes; its table says " +
               std::to_string(at));
  }
  return layout;
}

// `values`, each in `bits` bits (every value below 2^bits), low bits first.
std::string PackBits(std::span<const uint32_t> values, uint32_t bits) {
  std::string out;
  out.reserve((values.size() * bits + 7) / 8 + 8);
  uint64_t acc = 0;
  uint32_t held = 0;
  for (uint32_t v : values) {
    acc |= uint64_t{v} << held;
    held += bits;
    while (held >= 8) {
      out.push_back(static_cast<char>(acc & 0xff));
      acc >>= 8;
      held -= 8;
    }
  }
  if (held > 0) out.push_back(static_cast<char>(acc & 0xff));
  return out;
}

// Memory for `count` decoded slot values, not zeroed. Arrays of 2 MiB and more are aligned to
// 2 MiB and advised onto transparent huge pages: at 1x the two arrays are 19 MB, whose first
// touch on 4 KiB pages cost 4,700 page faults — as much CPU as the decode itself, and what a
// revision-2 view never paid. Only while the kernel has the free 2 MiB blocks: otherwise each
// fault would reclaim and compact memory first (base/huge_pages.h, decision 232).
struct SlotArray {
  static constexpr size_t kHugeBytes = size_t{2} << 20;
  struct Free {
    void operator()(uint32_t* p) const { std::free(p); }
  };
  std::unique_ptr<uint32_t[], Free> data;
  size_t size = 0;

  explicit SlotArray(size_t count) : size(count) {
    const size_t bytes = std::max<size_t>(4 * count, 4);
    if (bytes < kHugeBytes) {
      data.reset(static_cast<uint32_t*>(std::malloc(bytes)));
    } else {
      const size_t rounded = (bytes + kHugeBytes - 1) / kHugeBytes * kHugeBytes;
      data.reset(static_cast<uint32_t*>(std::aligned_alloc(kHugeBytes, rounded)));
#ifdef MADV_HUGEPAGE
      if (data != nullptr && HugePagesCheapNow(rounded)) {
        (void)madvise(data.get(), rounded, MADV_HUGEPAGE);
      }
#endif
    }
    OMNIGRAPH_CHECK(data != nullptr);
  }
  std::span<const uint32_t> view() const { return {data.get(), size}; }
};

// Calls visit(i, value) for every value of a packed section of `count` slots, in order: 8-byte
// loads while 8 bytes remain.
template <class Visit>
void ForEachPacked(std::string_view bytes, uint64_t count, uint32_t bits, Visit visit) {
  if (bits == 0) {
    for (uint64_t i = 0; i < count; ++i) visit(i, 0u);
    return;
  }
  const uint64_t mask = (uint64_t{1} << bits) - 1;
  uint64_t i = 0;
  for (uint64_t bit = 0; i < count && bit / 8 + 8 <= bytes.size(); ++i, bit += bits) {
    uint64_t word;
    std::memcpy(&word, bytes.data() + bit / 8, 8);
    visit(i, static_cast<uint32_t>((word >> (bit % 8)) & mask));
  }
  for (; i < count; ++i) visit(i, CsrUnpackOne(bytes.substr(i * bits / 8), i, bits));
}

// Writes the `count` values from slot `first` of a packed section to `out`: 8-byte loads while 8
// bytes remain.
void UnpackRange(std::string_view bytes, uint64_t first, size_t count, uint32_t bits,
                 uint32_t* out) {
  if (bits == 0) {
    std::fill_n(out, count, 0u);
    return;
  }
  const uint64_t mask = (uint64_t{1} << bits) - 1;
  size_t i = 0;
  for (uint64_t bit = first * bits; i < count && bit / 8 + 8 <= bytes.size(); ++i, bit += bits) {
    uint64_t word;
    std::memcpy(&word, bytes.data() + bit / 8, 8);
    out[i] = static_cast<uint32_t>((word >> (bit % 8)) & mask);
  }
  for (; i < count; ++i) {
    const uint64_t slot = first + i;
    out[i] = CsrUnpackOne(bytes.substr(slot * bits / 8), slot, bits);
  }
}

SlotArray UnpackAll(std::string_view bytes, uint64_t count, uint32_t bits) {
  SlotArray array(count);
  UnpackRange(bytes, 0, count, bits, array.data.get());
  return array;
}

// A packed section of `count` slots inside `bytes`, as values unpacked whole on first use, or a run
// at a time by a walk that needs no array of them (SlotView::ForEachRun).
SlotView LazySlots(const storage::SharedBytes& bytes, std::string_view packed, uint64_t count,
                   uint32_t bits) {
  return SlotView::Lazy(
      count,
      [bytes, packed, count, bits, array = std::shared_ptr<SlotArray>()]() mutable {
        array = std::make_shared<SlotArray>(UnpackAll(packed, count, bits));
        return array->view();
      },
      [bytes, packed, bits](uint64_t first, size_t n, uint32_t* out) {
        UnpackRange(packed, first, n, bits, out);
      });
}

// Whether every value of a packed section is below `bound`, without unpacking it anywhere.
bool PackedBelow(std::string_view bytes, uint64_t count, uint32_t bits, uint64_t bound) {
  if (bits < 64 && (uint64_t{1} << bits) <= bound) return true;  // Every value fits.
  uint32_t most = 0;
  ForEachPacked(bytes, count, bits, [&most](uint64_t, uint32_t v) { most = std::max(most, v); });
  return count == 0 || most < bound;
}

// Whether the prefix's other-id starts are those of `others`.
bool OtherStartsMatch(std::string_view starts, const StringListView& others, uint32_t stride) {
  for (uint64_t i = 0; 4 * i < starts.size(); ++i) {
    const uint64_t t = i * stride;
    if (LoadLe<uint32_t>(starts, 4 * i) != (t == 0 ? 0 : others.ends[t - 1])) return false;
  }
  return true;
}

}  // namespace

std::pair<uint64_t, uint64_t> CsrLayout::SlotBytes(CsrSection section, uint64_t first,
                                                   uint64_t last) const {
  const uint64_t bits = SlotBits(section);
  const uint64_t begin = first * bits / 8, end = (last * bits + 7) / 8;
  return {section_offset[section] + begin, end - begin};
}

uint32_t CsrBitsFor(uint64_t count) {
  return count <= 1 ? 0 : static_cast<uint32_t>(std::bit_width(count - 1));
}

uint32_t CsrUnpackOne(std::string_view bytes, uint64_t slot, uint32_t bits) {
  if (bits == 0) return 0;
  uint64_t word = 0;
  std::memcpy(&word, bytes.data(), std::min<size_t>(8, bytes.size()));
  return static_cast<uint32_t>((word >> (slot * bits % 8)) & ((uint64_t{1} << bits) - 1));
}

Result<CsrLayout> DecodeCsrLayout(std::string_view head, uint64_t payload_bytes,
                                  const std::string& name) {
  if (head.size() < 8) return Bad("no section table", name);
  const uint32_t revision = LoadLe<uint32_t>(head, 4);
  if (revision == kRevision1 && LoadLe<uint32_t>(head, 0) == kRevision1Sections) {
    return Status(Code::kUnsupported, "adjacency of revision 1 is read whole only", name);
  }
  if (revision == kRevision3 || revision == kRevision4) {
    return DecodeLayout3(head, payload_bytes, name);
  }
  return DecodeLayout2(head, payload_bytes, name);
}

bool CsrBlocksMatch(const CsrLayout& layout, std::string_view sums, uint64_t offset,
                    std::string_view bytes) {
  if (offset < layout.data_begin || (offset - layout.data_begin) % layout.block_bytes != 0) {
    return false;
  }
  uint64_t block = (offset - layout.data_begin) / layout.block_bytes;
  for (uint64_t at = 0; at < bytes.size(); at += layout.block_bytes, ++block) {
    const std::string_view chunk = bytes.substr(at, layout.block_bytes);
    const bool whole =
        chunk.size() == layout.block_bytes || offset + at + chunk.size() == layout.data_end;
    if (!whole || 8 * block + 8 > sums.size()) return false;
    if (XxHash64(chunk) != LoadLe<uint64_t>(sums, 8 * block)) return false;
  }
  return true;
}

Result<CsrFence> CsrFence::Parse(std::string_view section, const CsrLayout& layout,
                                 const std::string& name) {
  auto bad = [&](const std::string& what) { return Corruption("adjacency fence: " + what, name); };
  CsrFence fence;
  fence.samples_ = layout.fence_samples();
  fence.edges_ = layout.edges;
  fence.columns_ = layout.prefixed() ? 3 : 2;
  const uint64_t m = fence.samples_;
  const uint64_t c = fence.columns_;
  if (section.size() < 4 * c * m) return bad("shorter than its samples");
  fence.bytes_ = section;
  const uint64_t id_bytes = section.size() - 4 * c * m;
  uint32_t prev_end = 0;
  for (uint64_t j = 0; j < m; ++j) {
    const uint32_t start = LoadLe<uint32_t>(section, 4 * j);
    const uint32_t end = LoadLe<uint32_t>(section, 4 * ((c - 1) * m + j));
    if (end < prev_end || end > id_bytes) return bad("offsets out of order");
    if (start > layout.section_length[kCsrKeyIds] ||
        (j == 0 ? start != 0 : start < fence.Start(j - 1))) {
      return bad("starts out of order");
    }
    if (c == 3 &&
        (fence.FirstSlot(j) > layout.edges ||
         (j == 0 ? fence.FirstSlot(0) != 0 : fence.FirstSlot(j) < fence.FirstSlot(j - 1)))) {
      return bad("first slots out of order");
    }
    prev_end = end;
    if (j > 0 && !(fence.Id(j - 1) < fence.Id(j))) return bad("ids out of order");
  }
  if (prev_end != id_bytes) return bad("offsets do not cover the ids");
  return fence;
}

uint32_t CsrFence::Start(uint64_t j) const { return LoadLe<uint32_t>(bytes_, 4 * j); }

uint32_t CsrFence::FirstSlot(uint64_t j) const {
  if (j == samples_) return static_cast<uint32_t>(edges_);
  return LoadLe<uint32_t>(bytes_, 4 * (samples_ + j));
}

std::string_view CsrFence::Id(uint64_t j) const {
  const uint64_t ends_at = 4 * (columns_ - 1) * samples_;
  const uint32_t begin = j == 0 ? 0 : LoadLe<uint32_t>(bytes_, ends_at + 4 * (j - 1));
  const uint32_t end = LoadLe<uint32_t>(bytes_, ends_at + 4 * j);
  return bytes_.substr(4 * columns_ * samples_ + begin, end - begin);
}

int64_t CsrFence::Floor(std::string_view id) const {
  uint64_t lo = 0, hi = samples_;
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (Id(mid) <= id) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return static_cast<int64_t>(lo) - 1;
}

namespace csr_internal {

namespace {

template <typename T>
std::string_view Bytes(std::span<const T> v) {
  return std::string_view(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

// The table of a revision-3 payload whose sections (in kOrder3) are `lengths` long; the two
// checksums are left zero.
std::string Table3(const EdgeCsr& csr, uint32_t revision, uint64_t block_bytes,
                   const uint64_t (&lengths)[kCsrSections3]) {
  std::string out;
  AppendLe<uint32_t>(out, kCsrSections3);
  AppendLe<uint32_t>(out, revision);
  AppendLe<uint64_t>(out, csr.edges.size());
  AppendLe<uint64_t>(out, csr.keys.size());
  AppendLe<uint64_t>(out, csr.others.size());
  AppendLe<uint32_t>(out, kCsrFenceStride);
  AppendLe<uint32_t>(out, static_cast<uint32_t>(block_bytes));
  AppendLe<uint32_t>(out, kCsrOtherStride);
  out.push_back(static_cast<char>(CsrBitsFor(csr.edges.size())));
  out.push_back(static_cast<char>(CsrBitsFor(csr.others.size())));
  AppendLe<uint16_t>(out, 0);
  uint64_t at = kCsr3TableBytes;
  for (uint64_t length : lengths) {
    AppendLe<uint64_t>(out, at);
    AppendLe<uint64_t>(out, length);
    at += Padded8(length);
  }
  AppendLe<uint64_t>(out, 0);  // The prefix's checksum, filled in by the caller.
  AppendLe<uint64_t>(out, 0);  // The table's, likewise.
  return out;
}

}  // namespace

std::string EncodePrefixed(const EdgeCsr& csr, uint32_t revision) {
  OMNIGRAPH_CHECK(revision == kRevision3 || revision == kRevision4);
  const uint64_t block_bytes = revision == kRevision3 ? kCsrBlockBytes : kCsr4BlockBytes;
  const uint64_t o = csr.others.size();
  std::string other_starts;
  for (uint64_t t = 0; t < o; t += kCsrOtherStride) {
    AppendLe<uint32_t>(other_starts, t == 0 ? 0 : csr.others.ends[t - 1]);
  }
  const std::string edges = PackBits(csr.edges, CsrBitsFor(csr.edges.size()));
  const std::string targets = PackBits(csr.targets, CsrBitsFor(o));
  const std::string fence = EncodeFence(csr.keys, csr.offsets, kCsrFenceStride);
  // The data area, in order (kOrder3 from its fourth entry).
  const std::string_view data[] = {Bytes(csr.keys.ends),
                                   csr.keys.blob,
                                   Bytes(csr.others.ends),
                                   csr.others.blob,
                                   Bytes(csr.offsets),
                                   edges,
                                   targets};
  uint64_t data_bytes = 0;
  for (std::string_view s : data) data_bytes += Padded8(s.size());
  const uint64_t blocks = (data_bytes + block_bytes - 1) / block_bytes;
  const uint64_t lengths[kCsrSections3] = {
      fence.size(),   other_starts.size(), 8 * blocks,     data[0].size(), data[1].size(),
      data[2].size(), data[3].size(),      data[4].size(), data[5].size(), data[6].size()};
  std::string out = Table3(csr, revision, block_bytes, lengths);
  const uint64_t data_begin =
      kCsr3TableBytes + Padded8(fence.size()) + Padded8(other_starts.size()) + 8 * blocks;
  // Room for the derived object's header too (EncodeDerived frames the payload in place).
  out.reserve(kDerivedHeaderBytesMax + data_begin + data_bytes);
  for (std::string_view s : {std::string_view(fence), std::string_view(other_starts)}) {
    out.append(s);
    out.append(Padded8(s.size()) - s.size(), '\0');
  }
  const size_t sums_at = out.size();
  out.append(8 * blocks, '\0');  // The block checksums, filled in below.
  for (std::string_view s : data) {
    out.append(s);
    out.append(Padded8(s.size()) - s.size(), '\0');
  }
  for (uint64_t b = 0; b < blocks; ++b) {
    const uint64_t sum =
        XxHash64(std::string_view(out).substr(data_begin + b * block_bytes, block_bytes));
    std::memcpy(out.data() + sums_at + 8 * b, &sum, 8);
  }
  // Revision 4's prefix checksum stops at the block checksums (decision 253).
  const uint64_t hashed_end = revision == kRevision3 ? data_begin : sums_at;
  const uint64_t prefix_hash =
      XxHash64(std::string_view(out).substr(kCsr3TableBytes, hashed_end - kCsr3TableBytes));
  std::memcpy(out.data() + kPrefixHash3At, &prefix_hash, 8);
  const uint64_t table_hash = XxHash64(std::string_view(out).substr(0, kTableHash3At));
  std::memcpy(out.data() + kTableHash3At, &table_hash, 8);
  return out;
}

Result<EdgeCsr> DecodePrefixed(const storage::SharedBytes& bytes, const TableManifest& manifest,
                               const std::string& name) {
  auto bad = [&](const std::string& what) { return Bad(what, name); };
  const std::string_view payload = bytes.view();
  OMNIGRAPH_ASSIGN_OR_RETURN(CsrLayout layout, DecodeCsrLayout(payload, payload.size(), name));
  const auto section = [&](CsrSection i) {
    return payload.substr(layout.section_offset[i], layout.section_length[i]);
  };
  const std::string_view prefix = payload.substr(kCsr3TableBytes, layout.prefix_hashed_bytes());
  if (XxHash64(prefix) != layout.prefix_xxh64) return bad("prefix checksum mismatch");
  const std::string_view data =
      payload.substr(layout.data_begin, layout.data_end - layout.data_begin);
  if (!CsrBlocksMatch(layout, section(kCsrSums), layout.data_begin, data)) {
    return bad("block checksum mismatch");
  }
  if (layout.edges != manifest.entity_count) return bad("edge count differs from the version's");
  // Both slot arrays are checked packed here and unpacked on first use (decisions 233 and 241).
  if (!PackedBelow(section(kCsrEdges), layout.edges, layout.edge_bits, layout.edges) ||
      !PackedBelow(section(kCsrTargets), layout.edges, layout.target_bits, layout.others)) {
    return bad("slot outside the lists");
  }
  const auto array = [&](CsrSection i, uint64_t n) {
    return ViewArray<uint32_t>(payload, layout.section_offset[i], n);
  };
  EdgeCsr csr;
  csr.keys = StringListView{section(kCsrKeyIds), array(kCsrKeyEnds, layout.keys)};
  csr.others = StringListView{section(kCsrOtherIds), array(kCsrOtherEnds, layout.others)};
  csr.offsets = array(kCsrOffsets, layout.keys + 1);
  csr.edges = LazySlots(bytes, section(kCsrEdges), layout.edges, layout.edge_bits);
  csr.targets = LazySlots(bytes, section(kCsrTargets), layout.edges, layout.target_bits);
  csr.owner = std::make_shared<const storage::SharedBytes>(bytes);
  OMNIGRAPH_RETURN_IF_ERROR(CheckStructure(csr, layout.edges, name));
  OMNIGRAPH_ASSIGN_OR_RETURN(CsrFence fence, CsrFence::Parse(section(kCsrFence), layout, name));
  if (!FenceMatches(fence, csr, layout)) return bad("fence differs from the key ids");
  if (!OtherStartsMatch(section(kCsrOtherStarts), csr.others, layout.other_stride)) {
    return bad("other-id starts differ from the other ids");
  }
  return csr;
}

}  // namespace csr_internal

}  // namespace omnigraph::table
