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

bool ScanString(JsonScan& scan, std::string& out) {
  std::string_view view;
  if (!scan.String(view)) return false;
  out.assign(view);
  return true;
}

// One schema column: {"id", "name", "nullable", "type"}, all four.
bool ScanField(JsonScan& scan, Field& field) {
  static constexpr std::string_view kNames[] = {"id", "name", "nullable", "type"};
  if (!scan.BeginObject()) return false;
  uint32_t seen = 0;
  bool first = true;
  std::string_view name, type;
  uint64_t id = 0;
  for (int bit = 0; scan.NextMember(first, name);) {
    if (!Claim(name, kNames, seen, bit)) return scan.Stop();
    const bool read = bit == 0   ? scan.U64(id)
                      : bit == 1 ? ScanString(scan, field.name)
                      : bit == 2 ? scan.Bool(field.nullable)
                                 : scan.String(type);
    if (!read) return false;
  }
  if (!scan.ok() || seen != 0xF || id > UINT32_MAX) return scan.Stop();
  field.id = static_cast<uint32_t>(id);
  Result<DataType> parsed = ParseDataType(type);
  if (!parsed.ok()) return scan.Stop();
  field.type = *parsed;
  return true;
}

// A fragment's deletion: {"bytes", "count", "path", "xxhash64"}, all four.
bool ScanDeletion(JsonScan& scan, DeletionRef& ref) {
  static constexpr std::string_view kNames[] = {"bytes", "count", "path", "xxhash64"};
  if (!scan.BeginObject()) return false;
  uint32_t seen = 0;
  bool first = true;
  std::string_view name;
  for (int bit = 0; scan.NextMember(first, name);) {
    if (!Claim(name, kNames, seen, bit)) return scan.Stop();
    const bool read = bit == 0   ? scan.U64(ref.bytes)
                      : bit == 1 ? scan.U64(ref.count)
                      : bit == 2 ? ScanString(scan, ref.path)
                                 : scan.U64(ref.xxhash64);
    if (!read) return false;
  }
  return scan.ok() && seen == 0xF && ref.path.starts_with("deletions/") ? true : scan.Stop();
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
  if (!scan.BeginObject()) return false;
  uint32_t seen = 0;
  bool first = true;
  std::string_view name;
  for (int bit = 0; scan.NextMember(first, name);) {
    if (!Claim(name, kNames, seen, bit)) return scan.Stop();
    bool read = true;
    switch (bit) {
      case 0: read = scan.U64(f.bytes); break;
      case 1: read = ScanOffsets(scan, f.column_offsets); break;
      case 2:
        if (!scan.Null()) read = scan.ok() && ScanDeletion(scan, f.deletion.emplace());
        break;
      case 3: read = ScanString(scan, f.id); break;
      case 4: read = ScanString(scan, f.path); break;
      default: read = scan.U64(f.rows); break;
    }
    if (!read) return false;
  }
  // Every member but column_offsets and deletion is required.
  if (!scan.ok() || (seen | 0x6u) != 0x3Fu || !f.path.starts_with("data/")) return scan.Stop();
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
  if (!scan.ok() || !scan.BeginObject()) return false;
  StagedAgainst& against = out.emplace();
  uint32_t seen = 0;
  bool first = true;
  std::string_view name;
  for (int bit = 0; scan.NextMember(first, name);) {
    if (!Claim(name, kNames, seen, bit)) return scan.Stop();
    if (!(bit == 0 ? scan.U64(against.seq) : ScanString(scan, against.stream))) return false;
  }
  return scan.ok() && seen == 0x3 ? true : scan.Stop();
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
  if (!scan.BeginObject()) return std::nullopt;
  TableManifest m;
  uint32_t seen = 0;
  bool first = true, ids_inline = false;
  std::string_view name, operation;
  uint64_t format = 0;
  for (int bit = 0; scan.NextMember(first, name);) {
    if (!Claim(name, kMembers, seen, bit)) return std::nullopt;
    if (!ScanMember(scan, bit, m, ids_inline, operation, format)) return std::nullopt;
  }
  constexpr uint32_t kAll = (1u << std::size(kMembers)) - 1;
  if (!scan.End() || (seen | kOptionalMembers) != kAll || format != kManifestFormat) {
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
