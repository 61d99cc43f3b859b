// ScanManifest: a table manifest read as EncodeManifest writes it, member by member, without a
// JSON document (table/table_manifest_internal.h, decision 243). Every member is read as the DOM
// reading (DecodeManifestFromJson) reads it, and wherever that reading would fail, or would keep
// something this one does not (an unknown member), the scan gives up and the DOM reading runs.
#include <optional>

#include "base/json_scan.h"
#include "table/table_manifest_internal.h"

namespace omnigraph::table::internal {

namespace {

// The members of one object, each at most once: `bit` is the member's index in the caller's list
// of names; false when it is not one of them or was seen already.
template <size_t N>
bool Claim(std::string_view name, const std::string_view (&names)[N], uint32_t& seen, int& bit) {
  for (size_t i = 0; i < N; ++i) {
    if (names[i] != name) continue;
    if ((seen >> i) & 1u) return false;
    seen |= 1u << i;
    bit = static_cast<int>(i);
    return true;
  }
  return false;
}

// Reads an object whose members are among `names`, each at most once, handing each one's index
// to `member` to read its value. The mask of the members it had, or nullopt when the scan stopped.
template <size_t N, typename Fn>
std::optional<uint32_t> ScanObject(JsonScan& scan, const std::string_view (&names)[N],
                                   Fn&& member) {
  if (!scan.BeginObject()) return std::nullopt;
  uint32_t seen = 0;
  bool first = true;
  std::string_view name;
  for (int bit = 0; scan.NextMember(first, name);) {
    if (!Claim(name, names, seen, bit)) scan.Stop();
    if (!scan.ok() || !member(bit)) return std::nullopt;
  }
  if (!scan.ok()) return std::nullopt;
  return seen;
}

bool ScanString(JsonScan& scan, std::string& out) {
  std::string_view view;
  if (!scan.String(view)) return false;
  out.assign(view);
  return true;
}

// One schema column: {"id", "name", "nullable", "type"}, all four.
bool ScanField(JsonScan& scan, Field& field) {
  static constexpr std::string_view kNames[] = {"id", "name", "nullable", "type"};
  std::string_view type;
  uint64_t id = 0;
  const std::optional<uint32_t> seen = ScanObject(scan, kNames, [&](int bit) {
    return bit == 0   ? scan.U64(id)
           : bit == 1 ? ScanString(scan, field.name)
           : bit == 2 ? scan.Bool(field.nullable)
                      : scan.String(type);
  });
  if (seen != 0xFu || id > UINT32_MAX) return scan.Stop();
  field.id = static_cast<uint32_t>(id);
  Result<DataType> parsed = ParseDataType(type);
  if (!parsed.ok()) return scan.Stop();
  field.type = *parsed;
  return true;
}

// A fragment's deletion: {"bytes", "count", "path", "xxhash64"}, all four.
bool ScanDeletion(JsonScan& scan, DeletionRef& ref) {
  static constexpr std::string_view kNames[] = {"bytes", "count", "path", "xxhash64"};
  const std::optional<uint32_t> seen = ScanObject(scan, kNames, [&](int bit) {
    return bit == 0   ? scan.U64(ref.bytes)
           : bit == 1 ? scan.U64(ref.count)
           : bit == 2 ? ScanString(scan, ref.path)
                      : scan.U64(ref.xxhash64);
  });
  return seen == 0xFu && ref.path.starts_with("deletions/") ? true : scan.Stop();
}

bool ScanOffsets(JsonScan& scan, std::vector<uint64_t>& out) {
  if (scan.Null()) return true;
  if (!scan.BeginArray()) return false;
  bool first = true;
  while (scan.NextElement(first)) {
    if (!scan.U64(out.emplace_back())) return false;
  }
  return scan.ok();
}

// One fragment entry: id, path, rows and bytes, and deletion (null or an object) and
// column_offsets when present.
bool ScanFragment(JsonScan& scan, FragmentEntry& f) {
  static constexpr std::string_view kNames[] = {"bytes", "column_offsets", "deletion",
                                                "id",    "path",           "rows"};
  const std::optional<uint32_t> seen = ScanObject(scan, kNames, [&](int bit) {
    switch (bit) {
      case 0: return scan.U64(f.bytes);
      case 1: return ScanOffsets(scan, f.column_offsets);
      case 2: return scan.Null() || (scan.ok() && ScanDeletion(scan, f.deletion.emplace()));
      case 3: return ScanString(scan, f.id);
      case 4: return ScanString(scan, f.path);
      default: return scan.U64(f.rows);
    }
  });
  // Every member but column_offsets and deletion is required.
  if (!seen || (*seen | 0x6u) != 0x3Fu || !f.path.starts_with("data/")) return scan.Stop();
  if (f.deletion && (f.deletion->count == 0 || f.deletion->count > f.rows)) return scan.Stop();
  return true;
}

template <typename T, typename Fn>
bool ScanArray(JsonScan& scan, std::vector<T>& out, Fn&& element) {
  if (!scan.BeginArray()) return false;
  bool first = true;
  while (scan.NextElement(first)) {
    if (!element(scan, out.emplace_back())) return false;
  }
  return scan.ok();
}

bool ScanStagedAgainst(JsonScan& scan, std::optional<StagedAgainst>& out) {
  static constexpr std::string_view kNames[] = {"seq", "stream"};
  if (scan.Null()) return true;
  StagedAgainst& against = out.emplace();
  const std::optional<uint32_t> seen = ScanObject(scan, kNames, [&](int bit) {
    return bit == 0 ? scan.U64(against.seq) : ScanString(scan, against.stream);
  });
  return seen == 0x3u ? true : scan.Stop();
}

// The top-level members, in EncodeManifest's (sorted) order; the scan takes them in any order.
constexpr std::string_view kMembers[] = {
    "base_staged_version", "created_at",         "deleted_ids",      "deleted_ids_count",
    "deleted_ids_path",    "entity_count",       "format",           "fragments",
    "incarnation",         "inserted_ids_count", "operation",        "schema",
    "stable_table_id",     "staged_against",     "staged_version",   "table_key",
    "target_version",      "transaction_uuid",   "updated_ids_count"};
// Members the DOM reading may find absent: base_staged_version, deleted_ids (when the path is
// set), deleted_ids_path and staged_against.
constexpr uint32_t kOptionalMembers = (1u << 0) | (1u << 2) | (1u << 4) | (1u << 13);

// One top-level member's value into `m`; `bit` indexes kMembers.
bool ScanMember(JsonScan& scan, int bit, TableManifest& m, bool& ids_inline,
                std::string_view& operation, uint64_t& format) {
  switch (bit) {
    case 0:
      if (scan.Null()) return true;
      return scan.ok() && scan.U64(m.base_staged_version.emplace());
    case 1: return scan.I64(m.created_at);
    case 2:
      if (scan.Null()) return true;
      ids_inline = true;
      return scan.ok() && ScanArray(scan, m.deleted_ids, ScanString);
    case 3: return scan.U64(m.deleted_ids_count);
    case 4:
      if (scan.Null()) return true;
      return scan.ok() && ScanString(scan, m.deleted_ids_path.emplace());
    case 5: return scan.U64(m.entity_count);
    case 6: return scan.U64(format);
    case 7: return ScanArray(scan, m.fragments, ScanFragment);
    case 8: return scan.U64(m.incarnation);
    case 9: return scan.U64(m.inserted_ids_count);
    case 10: return scan.String(operation);
    case 11: return ScanArray(scan, m.schema, ScanField);
    case 12: return scan.U64(m.stable_table_id);
    case 13: return ScanStagedAgainst(scan, m.staged_against);
    case 14: return scan.U64(m.staged_version);
    case 15: return ScanString(scan, m.table_key);
    case 16: return scan.U64(m.target_version);
    case 17: return ScanString(scan, m.transaction_uuid);
    default: return scan.U64(m.updated_ids_count);
  }
}

}  // namespace

std::optional<TableManifest> ScanManifest(std::string_view bytes) {
  JsonScan scan(bytes);
  TableManifest m;
  bool ids_inline = false;
  std::string_view operation;
  uint64_t format = 0;
  const std::optional<uint32_t> seen = ScanObject(scan, kMembers, [&](int bit) {
    return ScanMember(scan, bit, m, ids_inline, operation, format);
  });
  constexpr uint32_t kAll = (1u << std::size(kMembers)) - 1;
  if (!seen || !scan.End() || (*seen | kOptionalMembers) != kAll || format != kManifestFormat) {
    return std::nullopt;
  }
  const std::optional<Operation> op = OperationFromName(operation);
  if (!op) return std::nullopt;
  m.operation = *op;
  // As the DOM reading: a side file's path makes the inline member irrelevant; without one the
  // inline ids must be there and match their count.
  if (m.deleted_ids_path) {
    if (!m.deleted_ids_path->starts_with("deleted/")) return std::nullopt;
    m.deleted_ids.clear();
  } else if (!ids_inline || m.deleted_ids.size() != m.deleted_ids_count) {
    return std::nullopt;
  }
  if (!FirstWholeProblem(m).empty()) return std::nullopt;
  return m;
}

}  // namespace omnigraph::table::internal
