#include "table/id_index.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "base/hash.h"
#include "table/derived.h"
#include "table/id_index_blocked.h"
#include "table/id_index_compact.h"
#include "table/layered_ids.h"
#include "table/le_bytes.h"

namespace omnigraph::table {

namespace {

// The fixed preamble of an `ids` payload (docs/format/indexes.md).
constexpr uint64_t kPreambleBytes = 56;

std::string_view Bytes(const void* data, size_t size) {
  return std::string_view(static_cast<const char*>(data), size);
}

}  // namespace

namespace {

struct OwnedIndex {
  std::string blob;
  std::vector<uint32_t> ends;
  std::vector<RowRef> refs;
};

}  // namespace

IdIndex::IdIndex(std::string blob, std::vector<uint32_t> ends, std::vector<RowRef> refs) {
  auto owned = std::make_shared<const OwnedIndex>(
      OwnedIndex{std::move(blob), std::move(ends), std::move(refs)});
  blob_ = owned->blob;
  ends_ = owned->ends;
  refs_ = owned->refs;
  owner_ = std::move(owned);
}

storage::SharedBytes Aligned8(const storage::SharedBytes& bytes) {
  if (reinterpret_cast<uintptr_t>(bytes.data()) % 8 == 0) return bytes;
  return storage::SharedBytes::FromString(std::string(bytes.view()));
}

size_t IdIndex::LowerBound(std::string_view id) const {
  size_t lo = 0;
  size_t hi = refs_.size();
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (IdAt(mid) < id) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

std::string IdIndex::Encode(uint32_t fragment_count) const {
  if (layered_) return LayeredIds::Flat(*this).Encode(fragment_count);
  if (blocked_) NotWhole("Encode");
  const uint64_t n = refs_.size();
  const uint64_t flat_bytes =
      kPreambleBytes + n * sizeof(RowRef) + Padded8(n * sizeof(uint32_t)) + blob_.size();
  // The prefixed revision, which a reader can answer a lookup from without decoding or hashing
  // every id (decisions 211, 234), with runs of minted ULIDs stepped (decision 260), when it is
  // the smaller.
  std::string blocked = EncodePrefixedIds(blob_, ends_, refs_, fragment_count);
  if (!blocked.empty() && blocked.size() < flat_bytes) return blocked;
  return EncodeRevision(fragment_count, kIdsRevisionFlat);
}

std::string IdIndex::EncodeRevision(uint32_t fragment_count, uint32_t revision) const {
  if (layered_) return LayeredIds::Flat(*this).EncodeRevision(fragment_count, revision);
  if (blocked_) NotWhole("EncodeRevision");
  if (revision == kIdsRevisionCompact) return EncodeCompactIds(blob_, ends_, refs_, fragment_count);
  if (revision == kIdsRevisionBlocked) return EncodeBlockedIds(blob_, ends_, refs_, fragment_count);
  if (revision == kIdsRevisionPrefixed || revision == kIdsRevisionStepped) {
    return EncodePrefixedIds(blob_, ends_, refs_, fragment_count, revision);
  }
  OMNIGRAPH_CHECK(revision == kIdsRevisionFlat);
  const uint64_t n = refs_.size();
  const std::string_view refs = Bytes(refs_.data(), n * sizeof(RowRef));
  const std::string_view ends = Bytes(ends_.data(), n * sizeof(uint32_t));
  std::string out;
  // Room for the derived object's header too (EncodeDerived frames the payload in place).
  out.reserve(kDerivedHeaderBytesMax + kPreambleBytes + refs.size() + Padded8(ends.size()) +
              blob_.size());
  AppendLe<uint64_t>(out, n);
  AppendLe<uint64_t>(out, blob_.size());
  AppendLe<uint32_t>(out, fragment_count);
  AppendLe<uint32_t>(out, kIdsRevisionFlat);
  AppendLe<uint64_t>(out, XxHash64(refs));
  AppendLe<uint64_t>(out, XxHash64(ends));
  AppendLe<uint64_t>(out, XxHash64(blob_));
  AppendLe<uint64_t>(out, XxHash64(out));
  out.append(refs);
  out.append(ends);
  out.append(Padded8(ends.size()) - ends.size(), '\0');
  out.append(blob_);
  return out;
}

Result<IdIndex> IdIndex::Decode(const storage::SharedBytes& bytes, const TableManifest& manifest,
                                const std::string& name) {
  // The revision sits at the same offset in both preambles; each preamble's checksum covers it.
  constexpr uint64_t kRevisionAt = 20;
  const uint32_t revision = bytes.size() < kRevisionAt + sizeof(uint32_t)
                                ? kIdsRevisionFlat
                                : LoadLe<uint32_t>(bytes.view(), kRevisionAt);
  if (revision == kIdsRevisionFlat) return DecodeFlat(bytes, manifest, name);
  if (revision == kIdsRevisionBlocked || revision == kIdsRevisionPrefixed ||
      revision == kIdsRevisionStepped) {
    IdIndex index;
    OMNIGRAPH_ASSIGN_OR_RETURN(index.blocked_, BlockedIds::Open(bytes, manifest, name));
    return index;
  }
  if (revision != kIdsRevisionCompact) {
    return Corruption("id index: unknown revision " + std::to_string(revision), name);
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(DecodedIds decoded, DecodeCompactIds(bytes.view(), manifest, name));
  IdIndex index(std::move(decoded.blob), std::move(decoded.ends), std::move(decoded.refs));
  for (size_t i = 1; i < index.size(); ++i) {
    if (!(index.IdAt(i - 1) < index.IdAt(i))) return Corruption("id index: ids out of order", name);
  }
  return index;
}

Result<IdIndex> IdIndex::DecodeFlat(const storage::SharedBytes& bytes,
                                    const TableManifest& manifest, const std::string& name) {
  auto bad = [&](const std::string& what) { return Corruption("id index: " + what, name); };
  const storage::SharedBytes aligned = Aligned8(bytes);
  const std::string_view payload = aligned.view();
  if (payload.size() < kPreambleBytes) return bad("shorter than its preamble");
  if (LoadLe<uint64_t>(payload, 48) != XxHash64(payload.substr(0, 48))) {
    return bad("preamble checksum mismatch");
  }
  const uint64_t n = LoadLe<uint64_t>(payload, 0);
  const uint64_t blob_bytes = LoadLe<uint64_t>(payload, 8);
  if (n != manifest.entity_count) {
    return bad("holds " + std::to_string(n) + " ids; the version has " +
               std::to_string(manifest.entity_count) + " live rows");
  }
  if (LoadLe<uint32_t>(payload, 16) != manifest.fragments.size()) {
    return bad("was built for another fragment count");
  }
  if (n > payload.size() / (sizeof(RowRef) + sizeof(uint32_t))) return bad("truncated");
  const uint64_t ends_at = kPreambleBytes + n * sizeof(RowRef);
  const uint64_t blob_at = ends_at + Padded8(n * sizeof(uint32_t));
  if (blob_bytes > kIdIndexBytesMax || payload.size() != blob_at + blob_bytes) {
    return bad("size differs from its preamble");
  }
  const std::string_view refs = payload.substr(kPreambleBytes, n * sizeof(RowRef));
  const std::string_view ends = payload.substr(ends_at, n * sizeof(uint32_t));
  const std::string_view blob = payload.substr(blob_at, blob_bytes);
  if (XxHash64(refs) != LoadLe<uint64_t>(payload, 24) ||
      XxHash64(ends) != LoadLe<uint64_t>(payload, 32) ||
      XxHash64(blob) != LoadLe<uint64_t>(payload, 40)) {
    return bad("section checksum mismatch");
  }
  IdIndex index;
  index.owner_ = aligned.owner();
  index.blob_ = blob;
  index.ends_ = ViewArray<uint32_t>(payload, ends_at, n);
  index.refs_ = ViewArray<RowRef>(payload, kPreambleBytes, n);
  for (const RowRef& ref : index.refs_) {
    if (ref.source >= manifest.fragments.size() || ref.row >= manifest.fragments[ref.source].rows) {
      return bad("row reference outside the version's fragments");
    }
  }
  uint32_t prev = 0;
  for (size_t i = 0; i < n; ++i) {
    if (index.ends_[i] < prev || index.ends_[i] > blob_bytes) return bad("offsets out of order");
    prev = index.ends_[i];
    if (i > 0 && !(index.IdAt(i - 1) < index.IdAt(i))) return bad("ids out of order");
  }
  if (prev != blob_bytes) return bad("offsets do not cover the id bytes");
  return index;
}

size_t IdIndex::BlockedSize() const { return blocked_->size(); }

void IdIndex::NotWhole(const char* call) const {
  OMNIGRAPH_CHECK_MSG(false, std::string(call) + " on a blocked id index (" +
                                 std::to_string(size()) + " ids): it needs Whole() first");
  std::abort();
}

uint64_t IdIndex::blocks_decoded() const { return blocked_ ? blocked_->blocks_decoded() : 0; }

Result<const IdIndex*> IdIndex::Whole() const {
  if (!blocked_) return this;
  const BlockedIds& b = *blocked_;
  std::call_once(b.flat_once, [&b] {
    Result<DecodedIds> all = b.DecodeAll();
    if (!all.ok()) {
      // Kept: the payload does not change, so every later call would fail the same way.
      b.flat_status = all.status();
      return;
    }
    b.flat = IdIndex(std::move(all->blob), std::move(all->ends), std::move(all->refs));
    b.flat_ready.store(true, std::memory_order_release);
  });
  if (!b.flat_ready.load(std::memory_order_acquire)) return b.flat_status;
  return &b.flat;
}

Result<std::optional<std::vector<RowRef>>> IdIndex::BlockedRefs() const {
  using Refs = std::optional<std::vector<RowRef>>;
  if (!blocked_ || blocked_->flat_ready.load(std::memory_order_acquire)) return Refs();
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<RowRef> refs, blocked_->DecodeRefs());
  return Refs(std::move(refs));
}

Result<int64_t> IdIndex::Locate(std::string_view id) const {
  if (!blocked_) return Position(id);
  const BlockedIds& b = *blocked_;
  if (b.flat_ready.load(std::memory_order_acquire)) return b.flat.Position(id);
  return b.Position(id);
}

Result<const RowRef*> IdIndex::LocateRef(std::string_view id) const {
  if (!blocked_) return Find(id);
  const BlockedIds& b = *blocked_;
  if (b.flat_ready.load(std::memory_order_acquire)) return b.flat.Find(id);
  OMNIGRAPH_ASSIGN_OR_RETURN(const int64_t at, b.Position(id));
  if (at < 0) return static_cast<const RowRef*>(nullptr);
  return b.RefAt(static_cast<size_t>(at));
}

Result<std::string_view> IdIndex::IdAtPosition(size_t i) const {
  if (!blocked_) return IdAt(i);
  const BlockedIds& b = *blocked_;
  if (b.flat_ready.load(std::memory_order_acquire)) return b.flat.IdAt(i);
  return b.IdAt(i);
}

Result<RowRef> IdIndex::RefAtPosition(size_t i) const {
  if (!blocked_) return RefAt(i);
  const BlockedIds& b = *blocked_;
  if (b.flat_ready.load(std::memory_order_acquire)) return b.flat.RefAt(i);
  OMNIGRAPH_ASSIGN_OR_RETURN(const RowRef* ref, b.RefAt(i));
  return *ref;
}

}  // namespace omnigraph::table
