#include "table/id_index_blocked.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "base/hash.h"
#include "table/derived.h"
#include "table/le_bytes.h"

namespace omnigraph::table {

namespace {

// The fixed preamble of a blocked `ids` payload (docs/format/indexes.md "Blocked revision").
constexpr uint64_t kBlockedPreambleBytes = 72;
// A directory entry: the block's offset in the id section, the offset of the run holding its
// first row reference in the run section, and how many references of that run come before it.
constexpr uint64_t kDirectoryEntryBytes = 12;
// Every id costs at least two bytes of the id section (its two lengths).
constexpr uint64_t kIdBytesMin = 2;

uint64_t Blocks(uint64_t n) { return (n + kIdBlockIds - 1) / kIdBlockIds; }

}  // namespace

std::string EncodeBlockedIds(std::string_view blob, std::span<const uint32_t> ends,
                             std::span<const RowRef> refs, uint32_t fragment_count) {
  std::vector<uint64_t> run_at, run_skip, id_at;
  const std::string runs = EncodeRuns(refs, kIdBlockIds, &run_at, &run_skip);
  const std::string ids = FrontCode(blob, ends, kIdBlockIds, &id_at);
  constexpr uint64_t kOffsetMax = std::numeric_limits<uint32_t>::max();
  if (runs.size() > kOffsetMax || ids.size() > kOffsetMax) return "";
  std::string directory;
  directory.reserve(id_at.size() * kDirectoryEntryBytes);
  for (size_t k = 0; k < id_at.size(); ++k) {
    AppendLe<uint32_t>(directory, static_cast<uint32_t>(id_at[k]));
    AppendLe<uint32_t>(directory, static_cast<uint32_t>(run_at[k]));
    AppendLe<uint32_t>(directory, static_cast<uint32_t>(run_skip[k]));
  }
  std::string out;
  // Room for the derived object's header too (EncodeDerived frames the payload in place).
  out.reserve(kDerivedHeaderBytesMax + kBlockedPreambleBytes + runs.size() + ids.size() +
              directory.size());
  AppendLe<uint64_t>(out, refs.size());
  AppendLe<uint64_t>(out, blob.size());
  AppendLe<uint32_t>(out, fragment_count);
  AppendLe<uint32_t>(out, kIdsRevisionBlocked);
  AppendLe<uint64_t>(out, runs.size());
  AppendLe<uint64_t>(out, ids.size());
  AppendLe<uint64_t>(out, XxHash64(runs));
  AppendLe<uint64_t>(out, XxHash64(ids));
  AppendLe<uint64_t>(out, XxHash64(directory));
  AppendLe<uint64_t>(out, XxHash64(out));
  out.append(runs);
  out.append(ids);
  out.append(directory);
  return out;
}

std::string ResealBlockedIds(std::string_view payload) {
  std::string out(payload);
  if (out.size() < kBlockedPreambleBytes) return out;
  const std::string_view all = std::string_view(out).substr(kBlockedPreambleBytes);
  const uint64_t runs_bytes = std::min<uint64_t>(LoadLe<uint64_t>(out, 24), all.size());
  const uint64_t ids_bytes = std::min<uint64_t>(LoadLe<uint64_t>(out, 32), all.size() - runs_bytes);
  const uint64_t hashes[] = {XxHash64(all.substr(0, runs_bytes)),
                             XxHash64(all.substr(runs_bytes, ids_bytes)),
                             XxHash64(all.substr(runs_bytes + ids_bytes))};
  for (size_t k = 0; k < 3; ++k) std::memcpy(out.data() + 40 + 8 * k, &hashes[k], 8);
  const uint64_t preamble = XxHash64(std::string_view(out).substr(0, 64));
  std::memcpy(out.data() + 64, &preamble, 8);
  return out;
}

Result<std::shared_ptr<const BlockedIds>> BlockedIds::Open(const storage::SharedBytes& bytes,
                                                           const TableManifest& manifest,
                                                           const std::string& name) {
  auto bad = [&](const std::string& what) { return Corruption("id index: " + what, name); };
  const std::string_view payload = bytes.view();
  OMNIGRAPH_ASSIGN_OR_RETURN(const IdsPreamble p,
                             CheckIdsPreamble(payload, kBlockedPreambleBytes, manifest, name));
  const uint64_t n = p.n;
  const uint64_t runs_bytes = p.runs_bytes;
  const uint64_t ids_bytes = p.ids_bytes;
  if (n > p.sections / kIdBytesMin) return bad("truncated");
  if (p.sections - runs_bytes - ids_bytes != Blocks(n) * kDirectoryEntryBytes ||
      ids_bytes > std::numeric_limits<uint32_t>::max()) {
    return bad("size differs from its preamble");
  }
  std::shared_ptr<BlockedIds> index(new BlockedIds());
  index->payload_ = bytes;
  index->name_ = name;
  index->n_ = n;
  index->blob_bytes_ = p.blob_bytes;
  index->runs_ = payload.substr(kBlockedPreambleBytes, runs_bytes);
  index->ids_ = payload.substr(kBlockedPreambleBytes + runs_bytes, ids_bytes);
  const std::string_view directory = payload.substr(kBlockedPreambleBytes + runs_bytes + ids_bytes);
  if (XxHash64(index->runs_) != LoadLe<uint64_t>(payload, 40) ||
      XxHash64(index->ids_) != LoadLe<uint64_t>(payload, 48) ||
      XxHash64(directory) != LoadLe<uint64_t>(payload, 56)) {
    return bad("section checksum mismatch");
  }
  for (const auto& fragment : manifest.fragments) index->fragment_rows_.push_back(fragment.rows);
  const uint64_t blocks = Blocks(n);
  index->directory_.reserve(blocks);
  index->heads_.reserve(blocks);
  for (uint64_t k = 0; k < blocks; ++k) {
    const Entry e{LoadLe<uint32_t>(directory, k * kDirectoryEntryBytes),
                  LoadLe<uint32_t>(directory, k * kDirectoryEntryBytes + 4),
                  LoadLe<uint32_t>(directory, k * kDirectoryEntryBytes + 8)};
    const bool first = k == 0;
    if (first ? (e.id_at != 0 || e.run_at != 0 || e.run_skip != 0)
              : (e.id_at <= index->directory_.back().id_at ||
                 e.run_at < index->directory_.back().run_at)) {
      return bad("block directory out of order");
    }
    if (e.id_at >= ids_bytes || e.run_at >= runs_bytes) return bad("block directory outside");
    VarintCursor head(index->ids_, e.id_at);
    const uint64_t shared = head.Varint();
    const std::string_view id = head.Bytes(head.Varint());
    if (!head.ok() || shared != 0) return bad("a block's first id is not stored whole");
    if (!first && !(index->heads_.back() < id)) return bad("ids out of order");
    index->directory_.push_back(e);
    index->heads_.push_back(id);
  }
  index->cache_ = std::make_unique<std::atomic<Block*>[]>(blocks);
  for (uint64_t k = 0; k < blocks; ++k) index->cache_[k].store(nullptr);
  return std::shared_ptr<const BlockedIds>(std::move(index));
}

BlockedIds::~BlockedIds() {
  if (cache_ == nullptr) return;  // Open failed before the cache was made.
  for (size_t k = 0; k < heads_.size(); ++k) delete cache_[k].load();
}

size_t BlockedIds::BlockSize(size_t k) const {
  return static_cast<size_t>(std::min<uint64_t>(kIdBlockIds, n_ - k * kIdBlockIds));
}

std::string BlockedIds::DecodeBlockIds(size_t k, Block& out) const {
  const size_t count = BlockSize(k);
  const size_t end = k + 1 < heads_.size() ? directory_[k + 1].id_at : ids_.size();
  VarintCursor in(ids_.substr(0, end), directory_[k].id_at);
  out.ends.reserve(count);
  size_t prev_begin = 0;
  uint64_t prev_bytes = 0;
  for (size_t i = 0; i < count; ++i) {
    const uint64_t shared = in.Varint();
    const std::string_view rest = in.Bytes(in.Varint());
    if (!in.ok()) return "id section truncated";
    if (shared > prev_bytes) return "an id shares more bytes than the id before it holds";
    const size_t begin = out.blob.size();
    if (shared + rest.size() > blob_bytes_) return "ids longer than the preamble says";
    out.blob.resize(begin + shared);
    std::memcpy(out.blob.data() + begin, out.blob.data() + prev_begin, shared);
    out.blob.append(rest);
    out.ends.push_back(static_cast<uint32_t>(out.blob.size()));
    if (i > 0 && !(out.Id(i - 1) < out.Id(i))) return "ids out of order";
    prev_begin = begin;
    prev_bytes = shared + rest.size();
  }
  if (!in.done()) return "id section longer than its ids";
  if (k + 1 < heads_.size() && !(out.Id(count - 1) < heads_[k + 1])) return "ids out of order";
  return "";
}

std::string BlockedIds::DecodeBlockRefs(size_t k, Block& out) const {
  const size_t count = BlockSize(k);
  VarintCursor in(runs_, directory_[k].run_at);
  uint64_t skip = directory_[k].run_skip;
  out.refs.reserve(count);
  size_t run_begin = 0;
  uint64_t used = 0;
  uint64_t run_count = 0;
  while (out.refs.size() < count) {
    run_begin = in.pos();
    run_count = in.Varint();
    const uint64_t source = in.Varint();
    const uint64_t row = in.Varint();
    if (!in.ok()) return "row-reference runs truncated";
    if (run_count == 0 || skip >= run_count) return "row-reference runs do not sum to the count";
    if (source >= fragment_rows_.size() || row > fragment_rows_[source] ||
        run_count > fragment_rows_[source] - row) {
      return "row reference outside the version's fragments";
    }
    used = std::min<uint64_t>(run_count - skip, count - out.refs.size());
    for (uint64_t r = 0; r < used; ++r) {
      out.refs.push_back(
          RowRef{static_cast<uint32_t>(source), static_cast<uint32_t>(row + skip + r)});
    }
    used += skip;
    skip = 0;
  }
  // Where the next block starts must be where this one ended.
  const bool run_done = used == run_count;
  if (k + 1 < heads_.size()) {
    const Entry& next = directory_[k + 1];
    const bool same = run_done ? (next.run_at == in.pos() && next.run_skip == 0)
                               : (next.run_at == run_begin && next.run_skip == used);
    if (!same) return "row-reference runs do not sum to the count";
  } else if (!run_done || !in.done()) {
    return "row-reference runs longer than the count";
  }
  return "";
}

std::string BlockedIds::DecodeBlock(size_t k, Block& out) const {
  std::string error = DecodeBlockIds(k, out);
  return error.empty() ? DecodeBlockRefs(k, out) : error;
}

Result<const BlockedIds::Block*> BlockedIds::BlockAt(size_t k) const {
  Block* block = cache_[k].load(std::memory_order_acquire);
  if (block != nullptr) return block;
  auto fresh = std::make_unique<Block>();
  if (const std::string error = DecodeBlock(k, *fresh); !error.empty()) {
    return Corruption("id index block " + std::to_string(k) + ": " + error, name_);
  }
  Block* expected = nullptr;
  if (cache_[k].compare_exchange_strong(expected, fresh.get(), std::memory_order_acq_rel)) {
    decoded_.fetch_add(1, std::memory_order_relaxed);
    decoded_bytes_.fetch_add(fresh->blob.size() + fresh->ends.size() * sizeof(uint32_t) +
                                 fresh->refs.size() * sizeof(RowRef),
                             std::memory_order_relaxed);
    return fresh.release();
  }
  return expected;
}

Result<int64_t> BlockedIds::Position(std::string_view id) const {
  // The last block whose first id is not above `id`.
  const auto after = std::upper_bound(heads_.begin(), heads_.end(), id);
  if (after == heads_.begin()) return int64_t{-1};
  const size_t k = static_cast<size_t>(after - heads_.begin()) - 1;
  OMNIGRAPH_ASSIGN_OR_RETURN(const Block* found, BlockAt(k));
  const Block& block = *found;
  size_t lo = 0;
  size_t hi = block.ends.size();
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (block.Id(mid) < id) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo == block.ends.size() || block.Id(lo) != id) return int64_t{-1};
  return static_cast<int64_t>(k * kIdBlockIds + lo);
}

Result<std::string_view> BlockedIds::IdAt(size_t i) const {
  OMNIGRAPH_ASSIGN_OR_RETURN(const Block* block, BlockAt(i / kIdBlockIds));
  return block->Id(i % kIdBlockIds);
}

Result<const RowRef*> BlockedIds::RefAt(size_t i) const {
  OMNIGRAPH_ASSIGN_OR_RETURN(const Block* block, BlockAt(i / kIdBlockIds));
  return &block->refs[i % kIdBlockIds];
}

Result<DecodedIds> BlockedIds::DecodeAll() const {
  DecodedIds out;
  // The preamble's byte count bounded by what the section could expand to, as the compact
  // decoder does, before any block has been checked.
  out.blob.reserve(std::min<uint64_t>(blob_bytes_, ids_.size() * 64));
  out.ends.reserve(n_);
  out.refs.reserve(n_);
  for (size_t k = 0; k < heads_.size(); ++k) {
    Block block;
    if (std::string error = DecodeBlock(k, block); !error.empty()) {
      return Corruption("id index block " + std::to_string(k) + ": " + error, name_);
    }
    const auto base = static_cast<uint32_t>(out.blob.size());
    if (block.blob.size() > blob_bytes_ - base) {
      return Corruption("id index: ids longer than the preamble says", name_);
    }
    out.blob.append(block.blob);
    for (const uint32_t end : block.ends) out.ends.push_back(base + end);
    out.refs.insert(out.refs.end(), block.refs.begin(), block.refs.end());
  }
  if (out.blob.size() != blob_bytes_) {
    return Corruption("id index: ids shorter than the preamble says", name_);
  }
  return out;
}

uint64_t BlockedIds::bytes() const {
  return payload_.size() + heads_.size() * (sizeof(Entry) + sizeof(std::string_view)) +
         decoded_bytes_.load(std::memory_order_relaxed) +
         (flat_ready.load(std::memory_order_acquire) ? flat.bytes() : 0);
}

}  // namespace omnigraph::table
