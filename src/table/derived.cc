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
// A delta's fixed fields after the version's uuid: base staged version, depth, base uuid length
// and two zero bytes.
constexpr uint64_t kDeltaFieldsBytes = 16;

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

std::string EncodeDerived(const TableManifest& manifest, std::string_view kind, std::string payload,
                          const DerivedDelta* delta) {
  const std::string& uuid = manifest.transaction_uuid;
  const uint64_t delta_bytes = delta ? kDeltaFieldsBytes + delta->base_transaction_uuid.size() : 0;
  const uint64_t header = Padded8(kDerivedPrefixBytes + kind.size() + uuid.size() + delta_bytes);
  std::string out;
  out.reserve(header);
  out.append(kMagic, sizeof(kMagic));
  AppendLe<uint32_t>(out, delta ? kFormatDelta : kFormatFull);
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
  }
  out.resize(header, '\0');
  payload.insert(0, out);
  return payload;
}

namespace {

// A delta's fields after the version's uuid: its base, depth and the base's uuid
// (docs/format/derived.md). `at` is where they start; the header is `head`'s first bytes.
Result<DerivedDelta> DecodeDeltaFields(std::string_view head, uint64_t at,
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
  if (format != kFormatFull && format != kFormatDelta) {
    return damaged("has format " + std::to_string(format) + ", expected 1 or 2");
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
  if (format == kFormatDelta) {
    OMNIGRAPH_ASSIGN_OR_RETURN(out.delta, DecodeDeltaFields(head, fields_end, damaged));
    header_end += kDeltaFieldsBytes + out.delta->base_transaction_uuid.size();
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
