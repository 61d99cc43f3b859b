#include "table/derived.h"

#include <charconv>
#include <cstring>
#include <functional>

#include "base/hash.h"
#include "table/le_bytes.h"

namespace omnigraph::table {

namespace {

constexpr char kMagic[4] = {'O', 'G', 'D', 'X'};
constexpr uint32_t kFormatFull = 1;
constexpr uint32_t kFormatDelta = 2;
constexpr uint32_t kFormatDeltaChain = 3;  // A delta with the staged versions below its base.
// A delta's fixed fields after the version's uuid: base staged version, depth, base uuid length
// and two zero bytes.
constexpr uint64_t kDeltaFieldsBytes = 16;

// The bytes of a delta's fields after the version's uuid, with its below list when `chain`.
uint64_t DeltaBytes(const DerivedDelta& delta, bool chain) {
  return kDeltaFieldsBytes + delta.base_transaction_uuid.size() +
         (chain ? 4 + 8 * delta.below.size() : 0);
}

}  // namespace

bool ValidDerivedKind(std::string_view kind) {
  if (kind.empty() || kind.size() > kDerivedKindBytesMax) return false;
  for (size_t i = 0; i < kind.size(); ++i) {
    const char c = kind[i];
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (!alnum && (i == 0 || (c != '.' && c != '_' && c != '-'))) return false;
  }
  return true;
}

std::string DerivedName(const TableId& table, uint64_t staged_version, std::string_view kind) {
  return table.Root() + "/" + std::string(kDerivedFolder) + "/d" + std::to_string(staged_version) +
         "." + std::string(kind);
}

std::optional<DerivedNameParts> ParseDerivedName(std::string_view name) {
  const std::string folder = "/" + std::string(kDerivedFolder) + "/d";
  const size_t at = name.find(folder);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = name.substr(at + folder.size());
  DerivedNameParts parts;
  auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), parts.staged_version);
  if (ec != std::errc() || end == rest.data() + rest.size() || *end != '.') return std::nullopt;
  parts.kind = std::string(end + 1, rest.data() + rest.size());
  if (!ValidDerivedKind(parts.kind)) return std::nullopt;
  return parts;
}

std::vector<uint64_t> ChainBelow(const DerivedHeader& base_header) {
  if (!base_header.delta) return {};
  const DerivedDelta& d = *base_header.delta;
  if (d.below.size() + 1 != d.depth) return {};
  std::vector<uint64_t> out = {d.base_staged_version};
  out.insert(out.end(), d.below.begin(), d.below.end());
  return out;
}

std::vector<uint64_t> ChainHint(const Json& extra, std::string_view kind) {
  if (!extra.is_object()) return {};
  const auto member = extra.find(kChainHintMember);
  if (member == extra.end() || !member->is_object()) return {};
  const auto list = member->find(std::string(kind));
  if (list == member->end() || !list->is_array() || list->empty() ||
      list->size() > kDerivedDeltaDepthMax) {
    return {};
  }
  std::vector<uint64_t> out;
  for (const Json& v : *list) {
    if (!v.is_number_unsigned()) return {};
    out.push_back(v.get<uint64_t>());
  }
  return out;
}

void SetChainHints(Json& extra, const std::map<std::string, std::vector<uint64_t>>& chains) {
  if (chains.empty()) return;
  Json hints = Json::object();
  for (const auto& [kind, versions] : chains) hints[kind] = versions;
  extra[std::string(kChainHintMember)] = std::move(hints);
}

std::string EncodeDerived(const TableManifest& manifest, std::string_view kind, std::string payload,
                          const DerivedDelta* delta) {
  const std::string& uuid = manifest.transaction_uuid;
  const uint64_t fixed = kDerivedPrefixBytes + kind.size() + uuid.size();
  // The below list only when it is complete and the header still fits the bound readers read.
  const bool chain = delta != nullptr && !delta->below.empty() &&
                     delta->below.size() + 1 == delta->depth &&
                     Padded8(fixed + DeltaBytes(*delta, true)) <= kDerivedHeaderBytesMax;
  const uint64_t header = Padded8(fixed + (delta ? DeltaBytes(*delta, chain) : 0));
  std::string out;
  out.reserve(header);
  out.append(kMagic, sizeof(kMagic));
  AppendLe<uint32_t>(out, !delta ? kFormatFull : chain ? kFormatDeltaChain : kFormatDelta);
  AppendLe<uint64_t>(out, manifest.staged_version);
  AppendLe<uint64_t>(out, payload.size());
  AppendLe<uint64_t>(out, XxHash64(payload));
  AppendLe<uint16_t>(out, static_cast<uint16_t>(kind.size()));
  AppendLe<uint16_t>(out, static_cast<uint16_t>(uuid.size()));
  out.append(kind);
  out.append(uuid);
  if (delta) {
    AppendLe<uint64_t>(out, delta->base_staged_version);
    AppendLe<uint32_t>(out, delta->depth);
    AppendLe<uint16_t>(out, static_cast<uint16_t>(delta->base_transaction_uuid.size()));
    AppendLe<uint16_t>(out, 0);
    out.append(delta->base_transaction_uuid);
    if (chain) {
      AppendLe<uint32_t>(out, static_cast<uint32_t>(delta->below.size()));
      for (uint64_t v : delta->below) AppendLe<uint64_t>(out, v);
    }
  }
  out.resize(header, '\0');
  payload.insert(0, out);
  return payload;
}

namespace {

// A delta's fields after the version's uuid: its base, depth and the base's uuid
// (docs/format/derived.md). `at` is where they start; the header is `head`'s first bytes.
Result<DerivedDelta> DecodeDeltaFields(std::string_view head, uint64_t at, bool chain,
                                       const std::function<Status(std::string)>& damaged) {
  if (at + kDeltaFieldsBytes > head.size()) return damaged("header is truncated");
  DerivedDelta delta;
  delta.base_staged_version = LoadLe<uint64_t>(head, at);
  delta.depth = LoadLe<uint32_t>(head, at + 8);
  const uint16_t base_uuid_bytes = LoadLe<uint16_t>(head, at + 12);
  if (at + kDeltaFieldsBytes + base_uuid_bytes > head.size()) return damaged("header is truncated");
  delta.base_transaction_uuid = std::string(head.substr(at + kDeltaFieldsBytes, base_uuid_bytes));
  if (delta.depth == 0 || delta.depth > kDerivedDeltaDepthMax) {
    return damaged("is a delta of depth " + std::to_string(delta.depth) + ", expected 1 to " +
                   std::to_string(kDerivedDeltaDepthMax));
  }
  if (!chain) return delta;
  const uint64_t list_at = at + kDeltaFieldsBytes + base_uuid_bytes;
  if (list_at + 4 > head.size()) return damaged("header is truncated");
  const uint32_t n = LoadLe<uint32_t>(head, list_at);
  if (n + 1 != delta.depth) {
    return damaged("is a delta of depth " + std::to_string(delta.depth) + " that lists " +
                   std::to_string(n) + " versions below its base, expected " +
                   std::to_string(delta.depth - 1));
  }
  if (list_at + 4 + 8 * uint64_t{n} > head.size()) return damaged("header is truncated");
  for (uint32_t i = 0; i < n; ++i)
    delta.below.push_back(LoadLe<uint64_t>(head, list_at + 4 + 8 * i));
  return delta;
}

}  // namespace

Result<DerivedHeader> DecodeDerivedHeader(const TableManifest& manifest, std::string_view kind,
                                          std::string_view head, const std::string& name) {
  const std::function<Status(std::string)> damaged = [&](std::string what) {
    return Status(Code::kCorruption, "derived object " + std::move(what), name);
  };
  if (head.size() < kDerivedPrefixBytes || std::memcmp(head.data(), kMagic, 4) != 0) {
    return damaged("has no envelope");
  }
  const uint32_t format = LoadLe<uint32_t>(head, 4);
  if (format != kFormatFull && format != kFormatDelta && format != kFormatDeltaChain) {
    return damaged("has format " + std::to_string(format) + ", expected 1, 2 or 3");
  }
  const uint64_t staged = LoadLe<uint64_t>(head, 8);
  DerivedHeader out;
  out.payload_bytes = LoadLe<uint64_t>(head, 16);
  out.payload_xxh64 = LoadLe<uint64_t>(head, 24);
  const uint16_t kind_bytes = LoadLe<uint16_t>(head, 32);
  const uint16_t uuid_bytes = LoadLe<uint16_t>(head, 34);
  const uint64_t fields_end = kDerivedPrefixBytes + kind_bytes + uuid_bytes;
  if (fields_end > head.size()) return damaged("header is truncated");
  uint64_t header_end = fields_end;
  if (format != kFormatFull) {
    const bool chain = format == kFormatDeltaChain;
    OMNIGRAPH_ASSIGN_OR_RETURN(out.delta, DecodeDeltaFields(head, fields_end, chain, damaged));
    header_end += DeltaBytes(*out.delta, chain);
  }
  out.payload_offset = Padded8(header_end);
  if (out.payload_offset > head.size() && out.payload_offset > kDerivedHeaderBytesMax) {
    return damaged("has an oversized header");
  }
  const std::string_view got_kind = head.substr(kDerivedPrefixBytes, kind_bytes);
  const std::string_view got_uuid = head.substr(kDerivedPrefixBytes + kind_bytes, uuid_bytes);
  if (staged != manifest.staged_version || got_uuid != manifest.transaction_uuid) {
    return damaged("belongs to another table version (staged version " + std::to_string(staged) +
                   ")");
  }
  if (got_kind != kind)
    return damaged("holds '" + std::string(got_kind) + "', expected '" + std::string(kind) + "'");
  if (out.delta && out.delta->base_staged_version == manifest.staged_version) {
    return damaged("is a delta over its own version");
  }
  return out;
}

Result<DecodedDerived> DecodeDerivedObject(const TableManifest& manifest, std::string_view kind,
                                           std::string_view bytes, const std::string& name) {
  OMNIGRAPH_ASSIGN_OR_RETURN(DerivedHeader header,
                             DecodeDerivedHeader(manifest, kind, bytes, name));
  if (header.payload_offset + header.payload_bytes != bytes.size()) {
    return Status(Code::kCorruption,
                  "derived object is " + std::to_string(bytes.size()) + " bytes, its header says " +
                      std::to_string(header.payload_offset + header.payload_bytes),
                  name);
  }
  const std::string_view payload = bytes.substr(header.payload_offset);
  if (XxHash64(payload) != header.payload_xxh64) {
    return Status(Code::kCorruption, "derived object fails its checksum", name);
  }
  return DecodedDerived{payload, std::move(header.delta)};
}

Result<std::string_view> DecodeDerived(const TableManifest& manifest, std::string_view kind,
                                       std::string_view bytes, const std::string& name) {
  OMNIGRAPH_ASSIGN_OR_RETURN(DecodedDerived decoded,
                             DecodeDerivedObject(manifest, kind, bytes, name));
  if (decoded.delta) {
    return Status(Code::kCorruption,
                  "derived object is a delta over staged version " +
                      std::to_string(decoded.delta->base_staged_version) +
                      " where a full object was expected",
                  name);
  }
  return decoded.payload;
}

}  // namespace omnigraph::table
