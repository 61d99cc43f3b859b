#include "table/id_index_compact.h"

#include <algorithm>
#include <cstring>

#include "base/hash.h"
#include "table/derived.h"
#include "table/id_index.h"
#include "table/le_bytes.h"

namespace omnigraph::table {

namespace {

// The fixed preamble of a compact `ids` payload (docs/format/indexes.md "Compact revision").
constexpr uint64_t kCompactPreambleBytes = 64;
// Every id costs at least two bytes of the id section (its two lengths), which bounds the count
// a section can hold before anything is allocated for it.
constexpr uint64_t kIdBytesMin = 2;

// The row references of `n` ids from their runs, each run inside its fragment; an error message
// (empty when well formed).
std::string DecodeRuns(std::string_view section, uint64_t n, const TableManifest& manifest,
                       std::vector<RowRef>& refs) {
  VarintCursor in(section);
  refs.reserve(n);
  while (refs.size() < n) {
    const uint64_t count = in.Varint();
    const uint64_t source = in.Varint();
    const uint64_t row = in.Varint();
    if (!in.ok()) return "row-reference runs truncated";
    if (count == 0 || count > n - refs.size()) return "row-reference runs do not sum to the count";
    if (source >= manifest.fragments.size() || row > manifest.fragments[source].rows ||
        count > manifest.fragments[source].rows - row) {
      return "row reference outside the version's fragments";
    }
    for (uint64_t k = 0; k < count; ++k) {
      refs.push_back(RowRef{static_cast<uint32_t>(source), static_cast<uint32_t>(row + k)});
    }
  }
  return in.done() ? "" : "row-reference runs longer than the count";
}

// The ids of `n` front-coded entries, `blob_bytes` in all; an error message (empty when well
// formed). Order is checked by the caller.
std::string DecodeFrontCoded(std::string_view section, uint64_t n, uint64_t blob_bytes,
                             DecodedIds& out) {
  VarintCursor in(section);
  out.ends.reserve(n);
  out.blob.reserve(std::min<uint64_t>(blob_bytes, section.size() * 64));
  size_t prev_begin = 0;
  uint64_t prev_bytes = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t shared = in.Varint();
    const std::string_view rest = in.Bytes(in.Varint());
    if (!in.ok()) return "id section truncated";
    if (shared > prev_bytes) return "an id shares more bytes than the id before it holds";
    const size_t begin = out.blob.size();
    if (shared + rest.size() > blob_bytes - begin) return "ids longer than the preamble says";
    out.blob.resize(begin + shared);
    std::memcpy(out.blob.data() + begin, out.blob.data() + prev_begin, shared);
    out.blob.append(rest);
    out.ends.push_back(static_cast<uint32_t>(out.blob.size()));
    prev_begin = begin;
    prev_bytes = shared + rest.size();
  }
  if (!in.done()) return "id section longer than its ids";
  if (out.blob.size() != blob_bytes) return "ids shorter than the preamble says";
  return "";
}

}  // namespace

std::string EncodeRuns(std::span<const RowRef> refs, uint64_t block_ids,
                       std::vector<uint64_t>* run_at, std::vector<uint64_t>* run_skip) {
  std::string out;
  size_t i = 0;
  while (i < refs.size()) {
    size_t j = i + 1;
    while (j < refs.size() && refs[j].source == refs[i].source &&
           refs[j].row == refs[j - 1].row + 1) {
      ++j;
    }
    // The blocks starting inside this run.
    for (size_t b = block_ids == 0 ? j : (i + block_ids - 1) / block_ids * block_ids; b < j;
         b += block_ids) {
      run_at->push_back(out.size());
      run_skip->push_back(b - i);
    }
    PutVarint(out, j - i);
    PutVarint(out, refs[i].source);
    PutVarint(out, refs[i].row);
    i = j;
  }
  return out;
}

std::string FrontCode(std::string_view blob, std::span<const uint32_t> ends, uint64_t block_ids,
                      std::vector<uint64_t>* id_at) {
  std::string out;
  std::string_view prev;
  uint32_t begin = 0;
  for (size_t i = 0; i < ends.size(); ++i) {
    const std::string_view id = blob.substr(begin, ends[i] - begin);
    size_t shared = 0;
    if (block_ids != 0 && i % block_ids == 0) {
      id_at->push_back(out.size());
    } else {
      const size_t limit = std::min(prev.size(), id.size());
      while (shared < limit && prev[shared] == id[shared]) ++shared;
    }
    PutVarint(out, shared);
    PutVarint(out, id.size() - shared);
    out.append(id.substr(shared));
    prev = id;
    begin = ends[i];
  }
  return out;
}

Result<IdsPreamble> CheckIdsPreamble(std::string_view payload, uint64_t preamble_bytes,
                                     const TableManifest& manifest, const std::string& name) {
  auto bad = [&](const std::string& what) { return Corruption("id index: " + what, name); };
  if (payload.size() < preamble_bytes) return bad("shorter than its preamble");
  const uint64_t checksum_at = preamble_bytes - sizeof(uint64_t);
  if (LoadLe<uint64_t>(payload, checksum_at) != XxHash64(payload.substr(0, checksum_at))) {
    return bad("preamble checksum mismatch");
  }
  IdsPreamble p;
  p.n = LoadLe<uint64_t>(payload, 0);
  p.blob_bytes = LoadLe<uint64_t>(payload, 8);
  p.runs_bytes = LoadLe<uint64_t>(payload, 24);
  p.ids_bytes = LoadLe<uint64_t>(payload, 32);
  p.sections = payload.size() - preamble_bytes;
  if (p.n != manifest.entity_count) {
    return bad("holds " + std::to_string(p.n) + " ids; the version has " +
               std::to_string(manifest.entity_count) + " live rows");
  }
  if (LoadLe<uint32_t>(payload, 16) != manifest.fragments.size()) {
    return bad("was built for another fragment count");
  }
  if (p.blob_bytes > kIdIndexBytesMax || p.runs_bytes > p.sections ||
      p.ids_bytes > p.sections - p.runs_bytes) {
    return bad("size differs from its preamble");
  }
  return p;
}

void PutVarint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

uint64_t VarintCursor::Varint() {
  uint64_t v = 0;
  for (int shift = 0; shift < 64 && pos_ < s_.size(); shift += 7) {
    const auto c = static_cast<unsigned char>(s_[pos_++]);
    v |= uint64_t{c & 0x7fu} << shift;
    if ((c & 0x80) == 0) return v;
  }
  ok_ = false;
  return 0;
}

std::string_view VarintCursor::Bytes(uint64_t n) {
  if (!ok_ || s_.size() - pos_ < n) {
    ok_ = false;
    return {};
  }
  const std::string_view v = s_.substr(pos_, n);
  pos_ += n;
  return v;
}

std::string EncodeCompactIds(std::string_view blob, std::span<const uint32_t> ends,
                             std::span<const RowRef> refs, uint32_t fragment_count) {
  const std::string runs = EncodeRuns(refs, 0, nullptr, nullptr);
  const std::string ids = FrontCode(blob, ends, 0, nullptr);
  std::string out;
  // Room for the derived object's header too (EncodeDerived frames the payload in place).
  out.reserve(kDerivedHeaderBytesMax + kCompactPreambleBytes + runs.size() + ids.size());
  AppendLe<uint64_t>(out, refs.size());
  AppendLe<uint64_t>(out, blob.size());
  AppendLe<uint32_t>(out, fragment_count);
  AppendLe<uint32_t>(out, kIdsRevisionCompact);
  AppendLe<uint64_t>(out, runs.size());
  AppendLe<uint64_t>(out, ids.size());
  AppendLe<uint64_t>(out, XxHash64(runs));
  AppendLe<uint64_t>(out, XxHash64(ids));
  AppendLe<uint64_t>(out, XxHash64(out));
  out.append(runs);
  out.append(ids);
  return out;
}

Result<DecodedIds> DecodeCompactIds(std::string_view payload, const TableManifest& manifest,
                                    const std::string& name) {
  auto bad = [&](const std::string& what) { return Corruption("id index: " + what, name); };
  OMNIGRAPH_ASSIGN_OR_RETURN(const IdsPreamble p,
                             CheckIdsPreamble(payload, kCompactPreambleBytes, manifest, name));
  const uint64_t n = p.n;
  const uint64_t blob_bytes = p.blob_bytes;
  const uint64_t runs_bytes = p.runs_bytes;
  const uint64_t ids_bytes = p.ids_bytes;
  if (ids_bytes != p.sections - runs_bytes) return bad("size differs from its preamble");
  const std::string_view runs = payload.substr(kCompactPreambleBytes, runs_bytes);
  const std::string_view ids = payload.substr(kCompactPreambleBytes + runs_bytes);
  if (XxHash64(runs) != LoadLe<uint64_t>(payload, 40) ||
      XxHash64(ids) != LoadLe<uint64_t>(payload, 48)) {
    return bad("section checksum mismatch");
  }
  if (n > ids_bytes / kIdBytesMin) return bad("truncated");
  DecodedIds out;
  if (std::string error = DecodeRuns(runs, n, manifest, out.refs); !error.empty()) {
    return bad(error);
  }
  if (std::string error = DecodeFrontCoded(ids, n, blob_bytes, out); !error.empty()) {
    return bad(error);
  }
  return out;
}

}  // namespace omnigraph::table
