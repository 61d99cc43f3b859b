#include "table/csr_points.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <memory>
#include <utility>

#include "base/executor.h"
#include "base/hash.h"
#include "table/derived.h"
#include "table/le_bytes.h"
#include "table/table_context.h"
#include "table/table_version.h"

namespace omnigraph::table {

// The pieces one Fetch returned, sorted by offset and disjoint; every range it was asked for lies
// inside one piece.
class CsrPoints::Fetched {
 public:
  explicit Fetched(std::vector<Run> runs) : runs_(std::move(runs)) {}
  // The bytes at payload offset `offset`, `length` long (a range Fetch was asked for).
  std::string_view At(uint64_t offset, uint64_t length) const {
    if (length == 0) return {};
    auto it = std::upper_bound(runs_.begin(), runs_.end(), offset,
                               [](uint64_t at, const Run& run) { return at < run.begin; });
    OMNIGRAPH_CHECK(it != runs_.begin());
    --it;
    OMNIGRAPH_CHECK(offset + length <= it->begin + it->bytes.size());
    return it->bytes.view().substr(offset - it->begin, length);
  }
  uint32_t U32(uint64_t offset) const { return LoadLe<uint32_t>(At(offset, 4), 0); }
  // Slot `slot`'s value in `section` (kCsrEdges or kCsrTargets) of a payload laid out as `layout`.
  uint32_t Slot(const CsrLayout& layout, CsrSection section, uint64_t slot) const {
    const uint32_t bits = layout.SlotBits(section);
    if (bits == 0) return 0;
    const uint64_t bit = slot * bits;
    return CsrUnpackOne(At(layout.section_offset[section] + bit / 8, (bit % 8 + bits + 7) / 8),
                        slot, bits);
  }
  void HoldIn(std::vector<storage::SharedBytes>& held) const {
    for (const Run& run : runs_) held.push_back(run.bytes);
  }

 private:
  std::vector<Run> runs_;
};

namespace {

// `clusters` (disjoint block spans, ascending) merged across their smallest gaps until at most
// `reads_max` remain.
std::vector<std::pair<uint64_t, uint64_t>> AtMostReads(
    std::vector<std::pair<uint64_t, uint64_t>> clusters, size_t reads_max) {
  if (clusters.size() <= reads_max) return clusters;
  // The gaps after each cluster but the last, smallest first; the size() - reads_max smallest are
  // closed (ties by position, so the choice is deterministic).
  std::vector<std::pair<uint64_t, size_t>> gaps;
  for (size_t i = 0; i + 1 < clusters.size(); ++i) {
    gaps.emplace_back(clusters[i + 1].first - clusters[i].second, i);
  }
  std::sort(gaps.begin(), gaps.end());
  std::vector<bool> closed(clusters.size(), false);
  for (size_t g = 0; g < clusters.size() - reads_max; ++g) closed[gaps[g].second] = true;
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (size_t i = 0; i < clusters.size(); ++i) {
    if (i > 0 && closed[i - 1]) {
      out.back().second = clusters[i].second;
    } else {
      out.push_back(clusters[i]);
    }
  }
  return out;
}

}  // namespace

namespace {

// Numbers the openings of adjacencies in this process (the keys of their cached runs).
std::atomic<uint64_t> next_serial{1};

}  // namespace

CsrPoints::CsrPoints(std::weak_ptr<internal::TableContext> ctx, std::string name,
                     uint64_t payload_offset, CsrLayout layout)
    : ctx_(std::move(ctx)),
      name_(std::move(name)),
      payload_offset_(payload_offset),
      layout_(std::move(layout)),
      serial_(next_serial.fetch_add(1, std::memory_order_relaxed)) {
  // Block numbers are kept in 32 bits; an object of more blocks (16 TiB at the smallest block)
  // caches nothing.
  if (layout_.blocks() < std::numeric_limits<uint32_t>::max()) {
    run_pages_.resize((layout_.blocks() + kRunPageBlocks - 1) / kRunPageBlocks);
  }
}

uint32_t CsrPoints::RunOf(uint64_t block) const {
  const uint64_t page = block / kRunPageBlocks;
  if (page >= run_pages_.size() || run_pages_[page] == nullptr) return 0;
  return run_pages_[page][block % kRunPageBlocks];
}

void CsrPoints::SetRunOf(uint64_t block, uint32_t first) const {
  std::unique_ptr<uint32_t[]>& page = run_pages_[block / kRunPageBlocks];
  if (page == nullptr) page = std::make_unique<uint32_t[]>(kRunPageBlocks);
  page[block % kRunPageBlocks] = first;
}

std::string CsrPoints::RunKey(uint64_t first_block) const {
  return "cr:" + std::to_string(serial_) + "#" + std::to_string(first_block);
}

Status CsrPoints::Bad(const std::string& what) const {
  return Corruption("adjacency: " + what, name_);
}

static_assert(kCsrOpenReadBytesMin >= kDerivedHeaderBytesMax + kCsrTableBytes &&
              kCsrOpenReadBytesMin >= kDerivedHeaderBytesMax + kCsr3TableBytes);

uint64_t CsrOpenReadBytes(uint64_t edges) {
  return kCsrOpenReadBytesMin + edges / kCsrOpenReadEdgesPerByte;
}

Result<std::shared_ptr<const CsrPoints>> CsrPoints::Open(const TableVersion& version,
                                                         EdgeDirection direction) {
  const std::string_view kind = CsrKind(direction);
  const TableManifest& manifest = version.manifest();
  const std::string name = DerivedName(manifest.table(), manifest.staged_version, kind);
  const std::string key = "cp:" + name;
  internal::TableContext& ctx = version.context();
  if (auto hit = ctx.cache().Get<CsrPoints>(key)) return hit;
  // The envelope's header, the payload's table and (revisions 3, 4) its prefix, in one read, unless
  // the read ahead has read them.
  storage::SharedGetResult head;
  if (auto ahead = ctx.TakePrefetched(name, /*head=*/true)) {
    head = *ahead;
  } else {
    const uint64_t length = CsrOpenReadBytes(manifest.entity_count);
    OMNIGRAPH_ASSIGN_OR_RETURN(head, ctx.store().GetShared(name, storage::ByteRange{0, length}));
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(DerivedHeader header,
                             DecodeDerivedHeader(manifest, kind, head.data.view(), name));
  if (header.delta) {
    return Status(Code::kUnsupported, "adjacency is a delta; it is read whole", name);
  }
  if (header.payload_offset + header.payload_bytes != head.meta.size_bytes) {
    return Corruption("derived object's size differs from its header", name);
  }
  const std::string_view table =
      head.data.view().substr(std::min<uint64_t>(header.payload_offset, head.data.size()));
  OMNIGRAPH_ASSIGN_OR_RETURN(CsrLayout layout, DecodeCsrLayout(table, header.payload_bytes, name));
  std::shared_ptr<CsrPoints> points(
      new CsrPoints(ctx.shared_from_this(), name, header.payload_offset, layout));
  if (layout.edges != manifest.entity_count) {
    return points->Bad("edge count differs from the version's");
  }
  OMNIGRAPH_RETURN_IF_ERROR(layout.prefixed() ? points->OpenPrefix(ctx, head.data)
                                              : points->OpenTail(ctx, header.payload_bytes));
  std::shared_ptr<const CsrPoints> value = std::move(points);
  ctx.cache().Put<CsrPoints>(
      key, value, value->tail_.size() + 4 * kRunPageBlocks * value->run_pages_.size() + 256);
  return value;
}

Status CsrPoints::OpenTail(internal::TableContext& ctx, uint64_t payload_bytes) {
  // The fence and the block checksums end the payload: one read from the fence's first block.
  const CsrLayout& layout = layout_;
  const uint64_t fence_at = layout.section_offset[kCsrFence];
  const uint64_t from = fence_at - (fence_at - layout.data_begin) % layout.block_bytes;
  OMNIGRAPH_ASSIGN_OR_RETURN(
      storage::SharedGetResult tail,
      ctx.store().GetShared(name_,
                            storage::ByteRange{payload_offset_ + from, payload_bytes - from}));
  if (tail.data.size() != payload_bytes - from) {
    return Bad("object is shorter than its header says");
  }
  const std::string_view bytes = tail.data.view();
  tail_ = tail.data;
  sums_ = bytes.substr(layout.data_end - from);
  if (XxHash64(sums_) != layout.sums_xxh64) return Bad("block checksums fail their checksum");
  if (!CsrBlocksMatch(layout, sums_, from, bytes.substr(0, layout.data_end - from))) {
    return Bad("block checksum mismatch");
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(
      fence_, CsrFence::Parse(bytes.substr(fence_at - from, layout.section_length[kCsrFence]),
                              layout, name_));
  return Status::Ok();
}

Status CsrPoints::OpenPrefix(internal::TableContext& ctx, const storage::SharedBytes& head) {
  const CsrLayout& layout = layout_;
  // The payload's first data_begin bytes: the table, the fence, the other-id starts, the sums.
  const uint64_t prefix_end = payload_offset_ + layout.data_begin;
  if (head.size() >= prefix_end) {
    tail_ = head;
  } else {
    OMNIGRAPH_ASSIGN_OR_RETURN(storage::SharedGetResult got,
                               ctx.store().GetShared(name_, storage::ByteRange{0, prefix_end}));
    tail_ = got.data;
  }
  if (tail_.size() < prefix_end) return Bad("object is shorter than its header says");
  const std::string_view payload = tail_.view().substr(payload_offset_, layout.data_begin);
  const auto section = [&](CsrSection i) {
    return payload.substr(layout.section_offset[i], layout.section_length[i]);
  };
  if (XxHash64(payload.substr(kCsr3TableBytes, layout.prefix_hashed_bytes())) !=
      layout.prefix_xxh64) {
    return Bad("prefix checksum mismatch");
  }
  sums_ = section(kCsrSums);
  other_starts_ = section(kCsrOtherStarts);
  for (uint64_t i = 0; 4 * i < other_starts_.size(); ++i) {
    const uint32_t start = LoadLe<uint32_t>(other_starts_, 4 * i);
    if (start > layout.section_length[kCsrOtherIds] ||
        (i == 0 ? start != 0 : start < LoadLe<uint32_t>(other_starts_, 4 * (i - 1)))) {
      return Bad("other-id starts out of order");
    }
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(fence_, CsrFence::Parse(section(kCsrFence), layout, name_));
  return Status::Ok();
}

std::vector<std::shared_ptr<const CsrPoints::Run>> CsrPoints::CachedRuns(
    internal::TableContext& ctx, const std::vector<uint64_t>& blocks) const {
  std::vector<uint32_t> firsts(blocks.size(), 0);
  {
    std::lock_guard<std::mutex> lock(runs_mu_);
    for (size_t i = 0; i < blocks.size(); ++i) {
      firsts[i] = RunOf(blocks[i]);
    }
  }
  std::vector<std::shared_ptr<const Run>> runs(blocks.size());
  uint32_t looked_up = 0;
  std::shared_ptr<const Run> run;
  for (size_t i = 0; i < blocks.size(); ++i) {
    if (firsts[i] == 0) continue;
    if (firsts[i] != looked_up) {
      looked_up = firsts[i];
      run = ctx.cache().Get<Run>(RunKey(firsts[i] - 1));
    }
    // The run cached under that key may since have been replaced by a shorter one.
    const uint64_t begin = layout_.data_begin + blocks[i] * layout_.block_bytes;
    const uint64_t end = std::min(begin + layout_.block_bytes, layout_.data_end);
    if (run != nullptr && run->begin <= begin && end <= run->end()) runs[i] = run;
  }
  return runs;
}

void CsrPoints::CacheRun(internal::TableContext& ctx, std::shared_ptr<const Run> run) const {
  if (run_pages_.empty()) return;
  const uint64_t first = (run->begin - layout_.data_begin) / layout_.block_bytes;
  const uint64_t last = (run->end() - 1 - layout_.data_begin) / layout_.block_bytes;
  const uint64_t bytes = run->bytes.size();
  ctx.cache().Put<Run>(RunKey(first), std::move(run), bytes);
  std::lock_guard<std::mutex> lock(runs_mu_);
  for (uint64_t b = first; b <= last; ++b) SetRunOf(b, static_cast<uint32_t>(first + 1));
}

Status CsrPoints::KeepChecked(const storage::SharedBytes& data, uint64_t data_begin,
                              std::pair<uint64_t, uint64_t> blocks,
                              std::vector<std::shared_ptr<const Run>>& runs) const {
  const uint64_t begin = layout_.data_begin + blocks.first * layout_.block_bytes;
  const uint64_t end =
      std::min(layout_.data_begin + (blocks.second + 1) * layout_.block_bytes, layout_.data_end);
  storage::SharedBytes bytes = data.Slice(begin - data_begin, end - begin);
  if (!CsrBlocksMatch(layout_, sums_, begin, bytes.view())) return Bad("block checksum mismatch");
  runs.push_back(std::make_shared<const Run>(Run{begin, std::move(bytes)}));
  return Status::Ok();
}

Result<std::vector<std::shared_ptr<const CsrPoints::Run>>> CsrPoints::ReadBlocks(
    internal::TableContext& ctx, const std::vector<std::pair<uint64_t, uint64_t>>& missing,
    CsrPointLists& out) const {
  const uint64_t block = layout_.block_bytes;
  const uint64_t gap_blocks = kCsrCoalesceGapBytes / block;
  std::vector<std::pair<uint64_t, uint64_t>> clusters;
  for (const auto& span : missing) {
    if (!clusters.empty() && span.first <= clusters.back().second + 1 + gap_blocks) {
      clusters.back().second = std::max(clusters.back().second, span.second);
    } else {
      clusters.push_back(span);
    }
  }
  clusters = AtMostReads(std::move(clusters), kCsrRoundReadsMax);
  // Which blocks of a read are checked and kept. On a remote store the whole read: its bytes are
  // a buffer of their own, which the kept run holds and is charged for. On a local one only the
  // missing spans it covers, each kept as a slice of the read: the blocks between them were read
  // only to save requests, and checking them cost most of a fresh 1-hop at 10x (megabytes of
  // other ids hashed for a few dozen blocks; decision 229). A local read is a mapping of the
  // file's cached pages (or, below LocalStore::kMapBytesMin, a small copy), so the slices'
  // charges leave out only pages never touched.
  const bool keep_whole = ctx.store().Remote();
  std::vector<size_t> first_span(clusters.size(), missing.size());
  for (size_t i = 0, m = 0; i < clusters.size(); ++i) {
    while (m < missing.size() && missing[m].second < clusters[i].first) ++m;
    first_span[i] = m;
  }
  // On a remote store the round's reads go out together (on the runtime's executor; the calling
  // thread runs what no worker has taken), so a round costs one round trip however many clusters
  // it reads. On a local one a read is a copy or a mapping, cheaper than handing it to a thread.
  std::vector<std::vector<std::shared_ptr<const Run>>> runs(clusters.size());
  std::vector<uint64_t> read_bytes(clusters.size(), 0);
  std::vector<Status> failed(clusters.size());
  const auto read = [&](size_t i) {
    const uint64_t begin = layout_.data_begin + clusters[i].first * block;
    const uint64_t end =
        std::min(layout_.data_begin + (clusters[i].second + 1) * block, layout_.data_end);
    Result<storage::SharedGetResult> got =
        ctx.store().GetShared(name_, storage::ByteRange{payload_offset_ + begin, end - begin});
    if (!got.ok()) {
      failed[i] = got.status();
      return;
    }
    if (got->data.size() != end - begin) {
      failed[i] = Bad("object is shorter than its table says");
      return;
    }
    read_bytes[i] = got->data.size();
    if (keep_whole) {
      failed[i] = KeepChecked(got->data, begin, clusters[i], runs[i]);
      return;
    }
    for (size_t m = first_span[i];
         m < missing.size() && missing[m].first <= clusters[i].second && failed[i].ok(); ++m) {
      failed[i] = KeepChecked(got->data, begin, missing[m], runs[i]);
    }
  };
  if (clusters.size() == 1 || !ctx.store().Remote()) {
    for (size_t i = 0; i < clusters.size(); ++i) read(i);
  } else {
    TaskGroup group(*ctx.runtime().executor);
    for (size_t i = 0; i < clusters.size(); ++i) {
      group.Add([&read, i]() -> Status {
        read(i);
        return Status::Ok();
      });
    }
    group.Wait().IgnoreError();
  }
  std::vector<std::shared_ptr<const Run>> kept;
  for (size_t i = 0; i < clusters.size(); ++i) {
    OMNIGRAPH_RETURN_IF_ERROR(failed[i]);
    ++out.reads;
    out.bytes += read_bytes[i];
    kept.insert(kept.end(), runs[i].begin(), runs[i].end());
  }
  // Only a run whose every block passed is kept: a block is used after its checksum passed.
  for (const std::shared_ptr<const Run>& run : kept) CacheRun(ctx, run);
  return kept;
}

Status CsrPoints::ReadKeyPart(internal::TableContext& ctx, CsrPointLists& out) const {
  const uint64_t begin = layout_.section_offset[kCsrKeyEnds];
  const uint64_t end = layout_.section_offset[kCsrOffsets] + layout_.section_length[kCsrOffsets];
  if (begin < layout_.data_begin || end > layout_.data_end || end <= begin ||
      (end - begin) * kCsrKeyPartShareMax > layout_.payload_bytes()) {
    return Status::Ok();
  }
  std::vector<uint64_t> blocks;
  for (uint64_t b = (begin - layout_.data_begin) / layout_.block_bytes;
       b <= (end - 1 - layout_.data_begin) / layout_.block_bytes; ++b) {
    blocks.push_back(b);
  }
  const std::vector<std::shared_ptr<const Run>> held = CachedRuns(ctx, blocks);
  std::vector<std::pair<uint64_t, uint64_t>> missing;
  for (size_t i = 0; i < blocks.size(); ++i) {
    if (held[i] != nullptr) continue;
    if (!missing.empty() && missing.back().second + 1 == blocks[i]) {
      missing.back().second = blocks[i];
    } else {
      missing.emplace_back(blocks[i], blocks[i]);
    }
  }
  if (missing.empty()) return Status::Ok();
  return ReadBlocks(ctx, missing, out).status();
}

Result<CsrPoints::Fetched> CsrPoints::Fetch(std::vector<std::pair<uint64_t, uint64_t>> ranges,
                                            CsrPointLists& out) const {
  const uint64_t block = layout_.block_bytes;
  std::shared_ptr<internal::TableContext> ctx = ctx_.lock();
  if (ctx == nullptr) {
    return Status(Code::kCancelled, "the table store that opened the adjacency is closed", name_);
  }
  // The ranges as disjoint pieces [begin, end), ascending (a batch's targets often share a group).
  std::sort(ranges.begin(), ranges.end());
  std::vector<std::pair<uint64_t, uint64_t>> pieces;
  for (const auto& [offset, length] : ranges) {
    if (length == 0) continue;
    OMNIGRAPH_CHECK(offset >= layout_.data_begin && offset + length <= layout_.data_end);
    if (!pieces.empty() && offset <= pieces.back().second) {
      pieces.back().second = std::max(pieces.back().second, offset + length);
    } else {
      pieces.emplace_back(offset, offset + length);
    }
  }
  const auto block_of = [&](uint64_t offset) { return (offset - layout_.data_begin) / block; };
  // The blocks they touch, ascending and distinct; those not cached are read.
  std::vector<uint64_t> blocks;
  for (const auto& [begin, end] : pieces) {
    for (uint64_t b = block_of(begin); b <= block_of(end - 1); ++b) {
      if (blocks.empty() || blocks.back() < b) blocks.push_back(b);
    }
  }
  std::vector<std::shared_ptr<const Run>> held = CachedRuns(*ctx, blocks);
  std::vector<std::pair<uint64_t, uint64_t>> missing;
  for (size_t i = 0; i < blocks.size(); ++i) {
    if (held[i] != nullptr) {
      out.cached_bytes += block;
    } else if (!missing.empty() && missing.back().second + 1 == blocks[i]) {
      missing.back().second = blocks[i];
    } else {
      missing.emplace_back(blocks[i], blocks[i]);
    }
  }
  if (!missing.empty()) {
    OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<std::shared_ptr<const Run>> read,
                               ReadBlocks(*ctx, missing, out));
    size_t r = 0;  // The reads ascend and cover every missing block.
    for (size_t i = 0; i < blocks.size(); ++i) {
      if (held[i] != nullptr) continue;
      while (read[r]->end() <= layout_.data_begin + blocks[i] * block) ++r;
      held[i] = read[r];
    }
  }
  // Each piece a slice of the run holding it, or copied from its blocks' runs when none holds all.
  std::vector<Run> runs;
  size_t i = 0;
  for (const auto& [begin, end] : pieces) {
    while (blocks[i] < block_of(begin)) ++i;
    if (held[i]->begin <= begin && end <= held[i]->end()) {
      runs.push_back(Run{begin, held[i]->bytes.Slice(begin - held[i]->begin, end - begin)});
      continue;
    }
    std::string copy;
    copy.reserve(end - begin);
    for (uint64_t at = begin, j = i; at < end; ++j) {
      const Run& run = *held[j];
      const uint64_t stop = std::min(end, layout_.data_begin + (blocks[j] + 1) * block);
      copy.append(run.bytes.view().substr(at - run.begin, stop - at));
      at = stop;
    }
    runs.push_back(Run{begin, storage::SharedBytes::FromString(std::move(copy))});
  }
  return Fetched(std::move(runs));
}

Result<std::vector<std::pair<uint32_t, uint32_t>>> CsrPoints::KeySlots(
    std::span<const std::string_view> keys, bool with_edges, CsrPointLists& out,
    std::unique_ptr<Fetched>& read, bool& with_slots) const {
  const CsrLayout& l = layout_;
  const uint64_t* at = l.section_offset;
  const uint64_t stride = l.fence_stride;
  // Each key's fence window: its keys' end offsets and ids, and their offsets (the window's keys
  // are consecutive, so their offsets are one range), in one round; with revisions 3, 4, the
  // window's slots too (the fence gives the window's first slot) unless they are many.
  std::vector<int64_t> window(keys.size());
  std::vector<std::pair<uint64_t, uint64_t>> ranges, slot_ranges;
  uint64_t slot_bytes = 0;
  const auto window_ids = [&](uint64_t j) {
    const uint64_t end =
        j + 1 < fence_.samples() ? fence_.Start(j + 1) : l.section_length[kCsrKeyIds];
    return std::make_pair(at[kCsrKeyIds] + fence_.Start(j), end - fence_.Start(j));
  };
  for (size_t i = 0; i < keys.size(); ++i) {
    window[i] = fence_.Floor(keys[i]);
    if (window[i] < 0) continue;
    const uint64_t j = static_cast<uint64_t>(window[i]);
    const uint64_t last = std::min(l.keys, (j + 1) * stride);
    ranges.emplace_back(at[kCsrKeyEnds] + 4 * (j * stride), 4 * (last - j * stride));
    ranges.push_back(window_ids(j));
    ranges.emplace_back(at[kCsrOffsets] + 4 * (j * stride), 4 * (last - j * stride + 1));
  }
  // The distinct windows' slots (a batch's keys often share windows).
  std::vector<int64_t> distinct = window;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  for (int64_t w : distinct) {
    if (w < 0 || !l.prefixed()) continue;
    const uint64_t j = static_cast<uint64_t>(w);
    for (CsrSection section : {kCsrEdges, kCsrTargets}) {
      if (section == kCsrEdges && !with_edges) continue;
      slot_ranges.push_back(l.SlotBytes(section, fence_.FirstSlot(j), fence_.FirstSlot(j + 1)));
      slot_bytes += slot_ranges.back().second;
    }
  }
  with_slots = l.prefixed() && slot_bytes <= kCsrWindowSlotBytesMax;
  if (with_slots) ranges.insert(ranges.end(), slot_ranges.begin(), slot_ranges.end());
  OMNIGRAPH_ASSIGN_OR_RETURN(Fetched windows, Fetch(std::move(ranges), out));
  std::vector<std::pair<uint32_t, uint32_t>> slots(keys.size(), {0, 0});
  for (size_t i = 0; i < keys.size(); ++i) {
    if (window[i] < 0) continue;
    const uint64_t j = static_cast<uint64_t>(window[i]);
    const uint64_t first = j * stride, last = std::min(l.keys, first + stride);
    const auto [ids_at, ids_bytes] = window_ids(j);
    const std::string_view ids = windows.At(ids_at, ids_bytes);
    uint32_t begin = fence_.Start(j);
    std::string_view prev;
    for (uint64_t k = first; k < last; ++k) {
      const uint32_t end = windows.U32(at[kCsrKeyEnds] + 4 * k);
      if (end < begin || end - fence_.Start(j) > ids.size()) return Bad("key ends out of order");
      const std::string_view id = ids.substr(begin - fence_.Start(j), end - begin);
      if ((k == first && id != fence_.Id(j)) || (k > first && !(prev < id))) {
        return Bad("key ids out of order");
      }
      if (id == keys[i]) {
        const uint64_t o = at[kCsrOffsets] + 4 * k;
        slots[i] = {windows.U32(o), windows.U32(o + 4)};
        if (slots[i].first > slots[i].second || slots[i].second > l.edges) {
          return Bad("offsets out of order");
        }
        // Revision 3 reads the slots by the window's range, which the key's must lie in.
        if (l.prefixed() &&
            (slots[i].first < fence_.FirstSlot(j) || slots[i].second > fence_.FirstSlot(j + 1))) {
          return Bad("offsets outside their fence window");
        }
      }
      prev = id;
      begin = end;
    }
  }
  read = std::make_unique<Fetched>(std::move(windows));
  return slots;
}

Status CsrPoints::OtherIds(const std::vector<uint32_t>& targets, CsrPointLists& out) const {
  const uint64_t* at = layout_.section_offset;
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (uint32_t t : targets) {
    ranges.emplace_back(at[kCsrOtherEnds] + 4 * uint64_t{t == 0 ? 0 : t - 1}, t == 0 ? 4 : 8);
  }
  // One round for the end offsets of each target (and the one before it), one for the ids.
  OMNIGRAPH_ASSIGN_OR_RETURN(Fetched ends, Fetch(std::exchange(ranges, {}), out));
  std::vector<std::pair<uint32_t, uint32_t>> spans;
  for (uint32_t t : targets) {
    const uint32_t begin = t == 0 ? 0 : ends.U32(at[kCsrOtherEnds] + 4 * uint64_t{t - 1});
    const uint32_t end = ends.U32(at[kCsrOtherEnds] + 4 * uint64_t{t});
    if (begin > end || end > layout_.section_length[kCsrOtherIds]) {
      return Bad("other ends out of order");
    }
    spans.emplace_back(begin, end);
    ranges.emplace_back(at[kCsrOtherIds] + begin, end - begin);
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(Fetched ids, Fetch(std::move(ranges), out));
  for (const auto& [begin, end] : spans) {
    out.others.push_back(end == begin ? std::string_view()
                                      : ids.At(at[kCsrOtherIds] + begin, end - begin));
  }
  ids.HoldIn(out.held);
  return Status::Ok();
}

Status CsrPoints::OtherIds3(const std::vector<uint32_t>& targets, CsrPointLists& out) const {
  const uint64_t* at = layout_.section_offset;
  const uint64_t stride = layout_.other_stride;
  const uint64_t groups = layout_.other_samples();
  // Group g's ids: others [g·stride, (g + 1)·stride), starting at the prefix's start g.
  const auto group_bytes = [&](uint64_t g) {
    const uint64_t begin = LoadLe<uint32_t>(other_starts_, 4 * g);
    const uint64_t end = g + 1 < groups ? LoadLe<uint32_t>(other_starts_, 4 * (g + 1))
                                        : layout_.section_length[kCsrOtherIds];
    return std::make_pair(begin, end);
  };
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (uint32_t t : targets) {
    const uint64_t g = t / stride;
    const uint64_t count = std::min(layout_.others, (g + 1) * stride) - g * stride;
    ranges.emplace_back(at[kCsrOtherEnds] + 4 * g * stride, 4 * count);
    const auto [begin, end] = group_bytes(g);
    ranges.emplace_back(at[kCsrOtherIds] + begin, end - begin);
  }
  // One round: each target's group, its end offsets and its ids.
  OMNIGRAPH_ASSIGN_OR_RETURN(Fetched got, Fetch(std::move(ranges), out));
  for (uint32_t t : targets) {
    const auto [group_begin, group_end] = group_bytes(t / stride);
    const uint64_t begin =
        t % stride == 0 ? group_begin : got.U32(at[kCsrOtherEnds] + 4 * uint64_t{t - 1});
    const uint64_t end = got.U32(at[kCsrOtherEnds] + 4 * uint64_t{t});
    if (begin < group_begin || begin > end || end > group_end) {
      return Bad("other ends out of order");
    }
    out.others.push_back(end == begin ? std::string_view()
                                      : got.At(at[kCsrOtherIds] + begin, end - begin));
  }
  got.HoldIn(out.held);
  return Status::Ok();
}

Result<CsrPointLists> CsrPoints::Lists(std::span<const std::string_view> keys,
                                       bool with_edges) const {
  CsrPointLists out;
  if (lists_calls_.fetch_add(1, std::memory_order_relaxed) == 1) {
    std::shared_ptr<internal::TableContext> ctx = ctx_.lock();
    if (ctx != nullptr) OMNIGRAPH_RETURN_IF_ERROR(ReadKeyPart(*ctx, out));
  }
  // The found keys' slots (a key not found has none), then their edges and targets: read with
  // the windows, or in a round of their own.
  std::unique_ptr<Fetched> read;
  bool with_slots = false;
  OMNIGRAPH_ASSIGN_OR_RETURN(auto slots, KeySlots(keys, with_edges, out, read, with_slots));
  if (!with_slots) {
    std::vector<std::pair<uint64_t, uint64_t>> ranges;
    for (size_t i = 0; i < keys.size(); ++i) {
      for (CsrSection section : {kCsrEdges, kCsrTargets}) {
        if (section == kCsrEdges && !with_edges) continue;
        ranges.push_back(layout_.SlotBytes(section, slots[i].first, slots[i].second));
      }
    }
    OMNIGRAPH_ASSIGN_OR_RETURN(Fetched slot_bytes, Fetch(std::move(ranges), out));
    read = std::make_unique<Fetched>(std::move(slot_bytes));
  }
  std::vector<uint32_t> targets;
  out.begin.push_back(0);
  for (size_t i = 0; i < keys.size(); ++i) {
    for (uint32_t s = slots[i].first; s < slots[i].second; ++s) {
      const uint32_t target = read->Slot(layout_, kCsrTargets, s);
      if (target >= layout_.others) return Bad("slot outside the lists");
      targets.push_back(target);
      if (!with_edges) continue;
      const uint32_t edge = read->Slot(layout_, kCsrEdges, s);
      if (edge >= layout_.edges) return Bad("slot outside the lists");
      out.edges.push_back(edge);
    }
    out.begin.push_back(static_cast<uint32_t>(targets.size()));
  }
  OMNIGRAPH_RETURN_IF_ERROR(layout_.prefixed() ? OtherIds3(targets, out) : OtherIds(targets, out));
  return out;
}

}  // namespace omnigraph::table
