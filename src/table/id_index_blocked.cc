#include "table/id_index_blocked.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "base/hash.h"
#include "base/ids.h"
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

uint64_t Blocks(uint64_t n, uint64_t block_ids = kIdBlockIds) {
  return n == 0 ? 0 : (n - 1) / block_ids + 1;
}

// The fixed preamble of a prefixed `ids` payload (docs/format/indexes.md "Prefixed revision (3)")
// and where its fields sit.
constexpr uint64_t kPrefixedPreambleBytes = 64;
constexpr uint64_t kPrefixedBlockIdsAt = 24;
constexpr uint64_t kPrefixedHeadsAt = 28;
constexpr uint64_t kPrefixedDataAt = 32;
constexpr uint64_t kPrefixedPrefixSumAt = 40;
constexpr uint64_t kPrefixedPreambleSumAt = 56;
// Per block in the prefix: its checksum (8), where it ends in the data area (4), where its first
// id ends in the heads (4).
constexpr uint64_t kPrefixedEntryBytes = 16;
constexpr uint64_t kRevisionAt = 20;

// Where the prefixed payload's data area starts, for `m` blocks and `h` bytes of heads.
uint64_t PrefixEnd(uint64_t m, uint64_t h) {
  return kPrefixedPreambleBytes + m * kPrefixedEntryBytes + Padded8(h);
}

std::string_view IdOf(std::string_view blob, std::span<const uint32_t> ends, size_t i) {
  const uint32_t begin = i == 0 ? 0 : ends[i - 1];
  return blob.substr(begin, ends[i] - begin);
}

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

std::string EncodePrefixedIds(std::string_view blob, std::span<const uint32_t> ends,
                              std::span<const RowRef> refs, uint32_t fragment_count,
                              uint32_t revision, uint64_t block_ids) {
  OMNIGRAPH_CHECK(revision == kIdsRevisionPrefixed || revision == kIdsRevisionStepped);
  const bool stepped = revision == kIdsRevisionStepped;
  const uint64_t n = refs.size();
  const uint64_t m = Blocks(n, block_ids);
  std::string sums, block_ends, head_ends, heads, data;
  std::string next;  // The ULID one greater than the id before, when that one is a ULID.
  for (uint64_t k = 0; k < m; ++k) {
    const uint64_t first = k * block_ids;
    const uint64_t last = std::min(n, first + block_ids);
    const size_t start = data.size();
    // The head is in the prefix; the block front-codes the ids after it.
    std::string_view prev = IdOf(blob, ends, first);
    heads.append(prev);
    // Revision 4: an odd entry 2(r − 1) + 1 stands for r ids, each the ULID one greater than the
    // id before it; an even one 2·shared starts a front-coded id.
    uint64_t run = 0;
    const auto end_run = [&] {
      if (run > 0) PutVarint(data, 2 * (run - 1) + 1);
      run = 0;
    };
    for (uint64_t i = first + 1; i < last; ++i) {
      const std::string_view id = IdOf(blob, ends, i);
      if (stepped) {
        next.assign(prev);
        if (Ulid::StepText(next) && next == id) {
          ++run;
          prev = id;
          continue;
        }
        end_run();
      }
      const size_t limit = std::min(prev.size(), id.size());
      size_t shared = 0;
      while (shared < limit && prev[shared] == id[shared]) ++shared;
      PutVarint(data, stepped ? 2 * shared : shared);
      PutVarint(data, id.size() - shared);
      data.append(id.substr(shared));
      prev = id;
    }
    end_run();
    // The block's row references as runs of their own: no run crosses a block.
    data.append(EncodeRuns(refs.subspan(first, last - first), 0, nullptr, nullptr));
    AppendLe<uint64_t>(sums, XxHash64(std::string_view(data).substr(start)));
    AppendLe<uint32_t>(block_ends, static_cast<uint32_t>(data.size()));
    AppendLe<uint32_t>(head_ends, static_cast<uint32_t>(heads.size()));
  }
  constexpr uint64_t kOffsetMax = std::numeric_limits<uint32_t>::max();
  if (heads.size() > kOffsetMax || data.size() > kOffsetMax) return "";
  std::string prefix = std::move(sums);
  prefix.append(block_ends);
  prefix.append(head_ends);
  prefix.append(heads);
  prefix.append(Padded8(heads.size()) - heads.size(), '\0');
  std::string out;
  // Room for the derived object's header too (EncodeDerived frames the payload in place).
  out.reserve(kDerivedHeaderBytesMax + kPrefixedPreambleBytes + prefix.size() + data.size());
  AppendLe<uint64_t>(out, n);
  AppendLe<uint64_t>(out, blob.size());
  AppendLe<uint32_t>(out, fragment_count);
  AppendLe<uint32_t>(out, revision);
  AppendLe<uint32_t>(out, static_cast<uint32_t>(block_ids));
  AppendLe<uint32_t>(out, static_cast<uint32_t>(heads.size()));
  AppendLe<uint64_t>(out, data.size());
  AppendLe<uint64_t>(out, XxHash64(prefix));
  AppendLe<uint64_t>(out, 0);
  AppendLe<uint64_t>(out, XxHash64(out));
  out.append(prefix);
  out.append(data);
  return out;
}

bool IdsPayloadChecksItself(std::string_view payload) {
  if (payload.size() < kRevisionAt + sizeof(uint32_t)) return false;
  const uint32_t revision = LoadLe<uint32_t>(payload, kRevisionAt);
  return revision == kIdsRevisionPrefixed || revision == kIdsRevisionStepped;
}

std::string ResealBlockedIds(std::string_view payload) {
  std::string out(payload);
  if (IdsPayloadChecksItself(payload)) {
    if (out.size() < kPrefixedPreambleBytes) return out;
    const uint64_t block_ids = std::max<uint32_t>(1, LoadLe<uint32_t>(out, kPrefixedBlockIdsAt));
    const uint64_t m = std::min<uint64_t>(Blocks(LoadLe<uint64_t>(out, 0), block_ids),
                                          out.size() / kPrefixedEntryBytes);
    const uint64_t prefix_end =
        std::min<uint64_t>(PrefixEnd(m, LoadLe<uint32_t>(out, kPrefixedHeadsAt)), out.size());
    const std::string_view data = std::string_view(out).substr(prefix_end);
    uint64_t begin = 0;
    for (uint64_t k = 0; k < m; ++k) {
      const uint64_t at = kPrefixedPreambleBytes + m * 8 + 4 * k;
      if (at + 4 > out.size() || kPrefixedPreambleBytes + 8 * k + 8 > out.size()) break;
      const uint64_t end = std::min<uint64_t>(LoadLe<uint32_t>(out, at), data.size());
      const uint64_t sum = XxHash64(data.substr(std::min(begin, end), end - std::min(begin, end)));
      std::memcpy(out.data() + kPrefixedPreambleBytes + 8 * k, &sum, 8);
      begin = end;
    }
    const uint64_t prefix = XxHash64(std::string_view(out).substr(
        kPrefixedPreambleBytes, prefix_end - std::min(prefix_end, kPrefixedPreambleBytes)));
    std::memcpy(out.data() + kPrefixedPrefixSumAt, &prefix, 8);
    const uint64_t preamble = XxHash64(std::string_view(out).substr(0, kPrefixedPreambleSumAt));
    std::memcpy(out.data() + kPrefixedPreambleSumAt, &preamble, 8);
    return out;
  }
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
  Result<std::shared_ptr<BlockedIds>> opened = IdsPayloadChecksItself(bytes.view())
                                                   ? OpenPrefixed(bytes, manifest, name)
                                                   : OpenBlocked(bytes, manifest, name);
  OMNIGRAPH_RETURN_IF_ERROR(opened.status());
  BlockedIds& index = **opened;
  index.cache_ = std::make_unique<std::atomic<Block*>[]>(index.heads_.size());
  for (size_t k = 0; k < index.heads_.size(); ++k) index.cache_[k].store(nullptr);
  return std::shared_ptr<const BlockedIds>(*std::move(opened));
}

Result<std::shared_ptr<BlockedIds>> BlockedIds::OpenPrefixed(const storage::SharedBytes& bytes,
                                                             const TableManifest& manifest,
                                                             const std::string& name) {
  auto bad = [&](const std::string& what) { return Corruption("id index: " + what, name); };
  const std::string_view payload = bytes.view();
  if (payload.size() < kPrefixedPreambleBytes) return bad("shorter than its preamble");
  if (LoadLe<uint64_t>(payload, kPrefixedPreambleSumAt) !=
      XxHash64(payload.substr(0, kPrefixedPreambleSumAt))) {
    return bad("preamble checksum mismatch");
  }
  const uint64_t n = LoadLe<uint64_t>(payload, 0);
  if (n != manifest.entity_count) {
    return bad("holds " + std::to_string(n) + " ids; the version has " +
               std::to_string(manifest.entity_count) + " live rows");
  }
  if (LoadLe<uint32_t>(payload, 16) != manifest.fragments.size()) {
    return bad("was built for another fragment count");
  }
  const uint64_t block_ids = LoadLe<uint32_t>(payload, kPrefixedBlockIdsAt);
  const uint64_t heads_bytes = LoadLe<uint32_t>(payload, kPrefixedHeadsAt);
  const uint64_t data_bytes = LoadLe<uint64_t>(payload, kPrefixedDataAt);
  const uint64_t blob_bytes = LoadLe<uint64_t>(payload, 8);
  if (block_ids == 0) return bad("blocks of no ids");
  const uint64_t m = Blocks(n, block_ids);
  // Every block takes at least one run of three bytes and its entry in the prefix.
  if (m > payload.size() / (kPrefixedEntryBytes + 3)) return bad("truncated");
  const uint64_t prefix_end = PrefixEnd(m, heads_bytes);
  if (blob_bytes > kIdIndexBytesMax || data_bytes > std::numeric_limits<uint32_t>::max() ||
      prefix_end > payload.size() || payload.size() - prefix_end != data_bytes) {
    return bad("size differs from its preamble");
  }
  const std::string_view prefix =
      payload.substr(kPrefixedPreambleBytes, prefix_end - kPrefixedPreambleBytes);
  if (XxHash64(prefix) != LoadLe<uint64_t>(payload, kPrefixedPrefixSumAt)) {
    return bad("prefix checksum mismatch");
  }
  std::shared_ptr<BlockedIds> index(new BlockedIds());
  index->hashed_.store(kPrefixedPreambleSumAt + prefix.size(), std::memory_order_relaxed);
  index->payload_ = bytes;
  index->name_ = name;
  index->revision_ = LoadLe<uint32_t>(payload, kRevisionAt);  // 3 or 4: IdsPayloadChecksItself.
  index->n_ = n;
  index->block_ids_ = block_ids;
  index->blob_bytes_ = blob_bytes;
  index->sums_ = prefix.substr(0, 8 * m);
  index->block_ends_ = prefix.substr(8 * m, 4 * m);
  const std::string_view head_ends = prefix.substr(12 * m, 4 * m);
  const std::string_view heads = prefix.substr(16 * m, heads_bytes);
  index->data_ = payload.substr(prefix_end);
  for (const auto& fragment : manifest.fragments) index->fragment_rows_.push_back(fragment.rows);
  index->heads_.reserve(m);
  uint64_t block_end = 0;
  uint64_t head_end = 0;
  for (uint64_t k = 0; k < m; ++k) {
    const uint64_t next_block = LoadLe<uint32_t>(index->block_ends_, 4 * k);
    const uint64_t next_head = LoadLe<uint32_t>(head_ends, 4 * k);
    if (next_block <= block_end || next_block > data_bytes || next_head < head_end ||
        next_head > heads_bytes) {
      return bad("block directory out of order");
    }
    const std::string_view head = heads.substr(head_end, next_head - head_end);
    if (k > 0 && !(index->heads_.back() < head)) return bad("ids out of order");
    index->heads_.push_back(head);
    block_end = next_block;
    head_end = next_head;
  }
  if (block_end != data_bytes || head_end != heads_bytes) {
    return bad("size differs from its preamble");
  }
  return index;
}

Result<std::shared_ptr<BlockedIds>> BlockedIds::OpenBlocked(const storage::SharedBytes& bytes,
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
  index->hashed_.store(payload.size(), std::memory_order_relaxed);
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
  return index;
}

BlockedIds::~BlockedIds() {
  if (cache_ == nullptr) return;  // Open failed before the cache was made.
  for (size_t k = 0; k < heads_.size(); ++k) delete cache_[k].load();
}

size_t BlockedIds::BlockSize(size_t k) const {
  return static_cast<size_t>(std::min<uint64_t>(block_ids_, n_ - k * block_ids_));
}

std::string BlockedIds::DecodeFrontCoded(VarintCursor& in, size_t count, Block& out) const {
  out.ends.reserve(count);
  size_t prev_begin = out.ends.size() < 2 ? 0 : out.ends[out.ends.size() - 2];
  uint64_t prev_bytes = out.blob.size() - prev_begin;
  // Whether id i (its first `shared` bytes those of id i − 1, then `rest`) sorts strictly after
  // id i − 1, from the first byte past the shared prefix: the writer shares the longest common
  // prefix, so the two differ there (or id i − 1 ends there). Only a `shared` shorter than that,
  // which no writer stores, compares the ids whole. (A memcmp of every id against the one before
  // was a tenth of a fresh process that decodes a million ids: decision 247.)
  const auto follows = [&](size_t i, uint64_t shared, std::string_view rest) {
    if (shared == prev_bytes) return !rest.empty();  // Id i − 1 is a prefix of id i.
    if (rest.empty()) return false;                  // Id i is a proper prefix of id i − 1.
    const auto next = static_cast<unsigned char>(rest[0]);
    const auto prev = static_cast<unsigned char>(out.blob[prev_begin + shared]);
    return next != prev ? next > prev : out.Id(i - 1) < out.Id(i);
  };
  const bool stepped = revision_ == kIdsRevisionStepped;
  for (size_t i = out.ends.size(); i < count; ++i) {
    uint64_t shared = in.Varint();
    if (stepped && (shared & 1) != 0) {
      // A run of ids, each the ULID one greater than the id before it (decision 260).
      if (!in.ok()) return "id section truncated";
      const uint64_t run = (shared >> 1) + 1;
      if (run > count - i) return "a run of stepped ids longer than the block";
      if (out.ends.empty() || prev_bytes != Ulid::kTextLength) {
        return "a stepped id after one that is not a ULID";
      }
      for (uint64_t r = 0; r < run; ++r) {
        const size_t begin = out.blob.size();
        if (begin + Ulid::kTextLength > blob_bytes_) return "ids longer than the preamble says";
        out.blob.resize(begin + Ulid::kTextLength);
        std::memcpy(out.blob.data() + begin, out.blob.data() + prev_begin, Ulid::kTextLength);
        const std::span<char> id(out.blob.data() + begin, Ulid::kTextLength);
        // The step of a text in canonical Crockford (as every minted ULID is) sorts after it; one
        // in lower case would not, so the order is checked as for any id.
        if (!Ulid::StepText(id) ||
            std::memcmp(id.data(), out.blob.data() + prev_begin, Ulid::kTextLength) <= 0) {
          return "a stepped id after the largest ULID or one that is not a ULID";
        }
        out.ends.push_back(static_cast<uint32_t>(out.blob.size()));
        prev_begin = begin;
      }
      i += run - 1;
      continue;
    }
    if (stepped) shared >>= 1;
    const std::string_view rest = in.Bytes(in.Varint());
    if (!in.ok()) return "id section truncated";
    if (shared > prev_bytes) return "an id shares more bytes than the id before it holds";
    const size_t begin = out.blob.size();
    if (shared + rest.size() > blob_bytes_) return "ids longer than the preamble says";
    out.blob.resize(begin + shared);
    std::memcpy(out.blob.data() + begin, out.blob.data() + prev_begin, shared);
    out.blob.append(rest);
    out.ends.push_back(static_cast<uint32_t>(out.blob.size()));
    if (i > 0 && !follows(i, shared, rest)) return "ids out of order";
    prev_begin = begin;
    prev_bytes = shared + rest.size();
  }
  return "";
}

std::string BlockedIds::DecodeBlockIds(size_t k, Block& out) const {
  const size_t end = k + 1 < heads_.size() ? directory_[k + 1].id_at : ids_.size();
  VarintCursor in(ids_.substr(0, end), directory_[k].id_at);
  if (std::string error = DecodeFrontCoded(in, BlockSize(k), out); !error.empty()) return error;
  if (!in.done()) return "id section longer than its ids";
  if (k + 1 < heads_.size() && !(out.Id(out.ends.size() - 1) < heads_[k + 1])) {
    return "ids out of order";
  }
  return "";
}

std::string BlockedIds::DecodePrefixedBlock(size_t k, Block& out, bool with_ids) const {
  const uint64_t begin = k == 0 ? 0 : LoadLe<uint32_t>(block_ends_, 4 * (k - 1));
  const std::string_view bytes = data_.substr(begin, LoadLe<uint32_t>(block_ends_, 4 * k) - begin);
  hashed_.fetch_add(bytes.size(), std::memory_order_relaxed);
  if (XxHash64(bytes) != LoadLe<uint64_t>(sums_, 8 * k)) return "checksum mismatch";
  const size_t count = BlockSize(k);
  VarintCursor in(bytes);
  if (!with_ids) {
    // Past the ids to the runs: each id after the head is a shared length and its rest, or
    // under revision 4 a run of stepped ids.
    for (size_t i = 1; i < count; ++i) {
      const uint64_t entry = in.Varint();
      if (revision_ == kIdsRevisionStepped && (entry & 1) != 0) {
        const uint64_t run = (entry >> 1) + 1;
        if (run > count - i) return "a run of stepped ids longer than the block";
        i += run - 1;
        continue;
      }
      in.Bytes(in.Varint());
    }
    if (!in.ok()) return "id section truncated";
    return DecodePrefixedRuns(in, count, out);
  }
  if (heads_[k].size() > blob_bytes_) return "ids longer than the preamble says";
  // Room for the block's share of the ids' bytes (the preamble's count, which a damaged preamble
  // cannot stretch past the block's own bound), so the blob grows once, not by doubling.
  out.blob.reserve(std::min<uint64_t>(n_ == 0 ? 0 : blob_bytes_ / n_ * count + heads_[k].size(),
                                      (bytes.size() + heads_[k].size()) * 64));
  out.blob.assign(heads_[k]);
  out.ends.push_back(static_cast<uint32_t>(out.blob.size()));
  if (std::string error = DecodeFrontCoded(in, count, out); !error.empty()) return error;
  if (k + 1 < heads_.size() && !(out.Id(count - 1) < heads_[k + 1])) return "ids out of order";
  return DecodePrefixedRuns(in, count, out);
}

std::string BlockedIds::DecodePrefixedRuns(VarintCursor& in, size_t count, Block& out) const {
  out.refs.reserve(count);
  while (out.refs.size() < count) {
    const uint64_t run_count = in.Varint();
    const uint64_t source = in.Varint();
    const uint64_t row = in.Varint();
    if (!in.ok()) return "row-reference runs truncated";
    if (run_count == 0 || run_count > count - out.refs.size()) {
      return "row-reference runs do not sum to the block's ids";
    }
    if (source >= fragment_rows_.size() || row > fragment_rows_[source] ||
        run_count > fragment_rows_[source] - row) {
      return "row reference outside the version's fragments";
    }
    for (uint64_t r = 0; r < run_count; ++r) {
      out.refs.push_back(RowRef{static_cast<uint32_t>(source), static_cast<uint32_t>(row + r)});
    }
  }
  if (!in.done()) return "block longer than its ids and runs";
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
  if (revision_ != kIdsRevisionBlocked) return DecodePrefixedBlock(k, out, /*with_ids=*/true);
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
  return static_cast<int64_t>(k * block_ids_ + lo);
}

Result<std::string_view> BlockedIds::IdAt(size_t i) const {
  OMNIGRAPH_ASSIGN_OR_RETURN(const Block* block, BlockAt(i / block_ids_));
  return block->Id(i % block_ids_);
}

Result<const RowRef*> BlockedIds::RefAt(size_t i) const {
  OMNIGRAPH_ASSIGN_OR_RETURN(const Block* block, BlockAt(i / block_ids_));
  return &block->refs[i % block_ids_];
}

Result<std::vector<RowRef>> BlockedIds::DecodeRefs() const {
  std::vector<RowRef> out;
  out.reserve(n_);
  for (size_t k = 0; k < heads_.size(); ++k) {
    if (const Block* decoded = cache_[k].load(std::memory_order_acquire)) {
      out.insert(out.end(), decoded->refs.begin(), decoded->refs.end());
      continue;
    }
    Block block;
    const std::string error = revision_ != kIdsRevisionBlocked
                                  ? DecodePrefixedBlock(k, block, /*with_ids=*/false)
                                  : DecodeBlockRefs(k, block);
    if (!error.empty()) {
      return Corruption("id index block " + std::to_string(k) + ": " + error, name_);
    }
    out.insert(out.end(), block.refs.begin(), block.refs.end());
  }
  return out;
}

Result<DecodedIds> BlockedIds::DecodeAll() const {
  DecodedIds out;
  // The preamble's byte count bounded by what the section could expand to, as the compact
  // decoder does, before any block has been checked.
  out.blob.reserve(std::min<uint64_t>(blob_bytes_, payload_.size() * 64));
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
