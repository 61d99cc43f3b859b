// Table version manifests: the immutable JSON document `versions/d{staged_version}.json` that
// names every fragment and deletion vector of one version of one table (docs/design/tables.md;
// byte and field precise in docs/format/table-version.md), the pin that names a version from a
// graph commit record, and the object names of a table's folder.
//
// The pin and the table identity are the base types TablePin and TableId (base/table_pin.h,
// decision 201), shared with the commit layer; this layer builds a pin from its manifest and
// ignores the pin's `extra`. Values and pure functions; thread-safe.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/json.h"
#include "base/status.h"
#include "base/table_pin.h"
#include "table/types.h"

namespace omnigraph::table {

// Field ids 0xFFFFFFF0..0xFFFFFFFF are reserved for the table layer's own columns; the schema
// layer's property ids never reach them. Every table has `id`; edge tables also `src` and `dst`.
// All three are non-nullable Strings.
inline constexpr uint32_t kReservedFieldIdMin = 0xFFFFFFF0u;
inline constexpr uint32_t kIdFieldId = 0xFFFFFFF0u;
inline constexpr uint32_t kSrcFieldId = 0xFFFFFFF1u;
inline constexpr uint32_t kDstFieldId = 0xFFFFFFF2u;

// The manifest format this code writes and the highest it reads.
inline constexpr uint64_t kManifestFormat = 1;
// A manifest is a document: at most 1 MiB (docs/format/table-version.md §2).
inline constexpr uint64_t kManifestBytesMax = 1ull << 20;
// Deleted ids are written inline while their JSON array is at most this long, else to a side file.
inline constexpr uint64_t kDeletedIdsInlineBytesMax = 64ull << 10;
// A deleted-ids side file is at most this long (about ten million typical ids).
inline constexpr uint64_t kDeletedIdsFileBytesMax = 256ull << 20;
// An entity id is at most this many bytes.
inline constexpr size_t kIdBytesMax = 4096;
// A writer records a fragment's column offsets (FragmentEntry::column_offsets) when it is larger
// than this: what a reader on a remote store reads whole anyway (kRemoteFragmentReadBytes).
inline constexpr uint64_t kColumnOffsetsFragmentBytesMin = 1ull << 20;
// A manifest whose column offsets would make it larger than this is written without any: they
// are a hint, read with the manifest by every cold read, and must not grow it without bound.
inline constexpr uint64_t kColumnOffsetsManifestBytesMax = 256ull << 10;
// Staged versions have bit 63 set, so they never collide with a logical target_version.
inline constexpr uint64_t kStagedVersionBit = 1ull << 63;

// The commit a version was staged for (D9): a record at seq + 1 on `stream` may name it.
struct StagedAgainst {
  std::string stream;
  uint64_t seq = 0;
  bool operator==(const StagedAgainst&) const = default;
};

enum class Operation : uint8_t { kCreate, kAppend, kUpsert, kDelete, kOverwrite, kMerge };
// "create", "append", ... as written in manifests.
std::string_view OperationName(Operation op);

// A fragment's deletion vector: the rows of the fragment deleted as of this version (cumulative).
struct DeletionRef {
  std::string path;       // Relative to the table root: "deletions/{uuid}.del".
  uint64_t count = 0;     // Rows deleted (the bitmap's cardinality).
  uint64_t bytes = 0;     // The object's size.
  uint64_t xxhash64 = 0;  // XXH64, seed 0, of the object's bytes.
  bool operator==(const DeletionRef&) const = default;
};

struct FragmentEntry {
  std::string id;    // The fragment's UUID; unique across every table version.
  std::string path;  // Relative to the table root: "data/{uuid}.ogf".
  uint64_t rows = 0;
  uint64_t bytes = 0;
  std::optional<DeletionRef> deletion;
  // A read hint (decision 235; docs/format/table-version.md §2.1): where each column's stored
  // bytes begin, in schema order, then where the footer begins, so that a reader fetches a
  // column beside the footer instead of after it. Empty when not recorded (a fragment of at most
  // kColumnOffsetsFragmentBytesMin, or a manifest written before the hint). Never authority: the
  // footer still says where every buffer is, and a wrong hint only wastes a read.
  std::vector<uint64_t> column_offsets;

  uint64_t live_rows() const { return rows - (deletion ? deletion->count : 0); }
  bool operator==(const FragmentEntry&) const = default;
};

struct TableManifest {
  std::string table_key;
  uint64_t stable_table_id = 0;
  uint64_t incarnation = 0;
  uint64_t staged_version = 0;
  std::optional<uint64_t> base_staged_version;  // Absent for create.
  uint64_t target_version = 0;
  std::string transaction_uuid;
  Operation operation = Operation::kCreate;
  Schema schema;
  std::vector<FragmentEntry> fragments;
  uint64_t entity_count = 0;
  uint64_t inserted_ids_count = 0;
  uint64_t updated_ids_count = 0;
  // The ids this version removed, inline; empty when they are in the side file.
  std::vector<std::string> deleted_ids;
  std::optional<std::string> deleted_ids_path;  // "deleted/{uuid}.json" when not inline.
  uint64_t deleted_ids_count = 0;
  int64_t created_at = 0;  // Unix microseconds.
  std::optional<StagedAgainst> staged_against;
  // Members this code does not know, preserved from the document it was read from.
  Json extra = Json::object();

  TableId table() const { return {stable_table_id, incarnation}; }
  TablePin pin() const;
  bool operator==(const TableManifest&) const = default;
};

// Object names inside a table's folder.
std::string ManifestName(const TableId& table, uint64_t staged_version);
std::string ObjectName(const TableId& table, std::string_view relative_path);
std::string DataPath(std::string_view uuid);
std::string DeletionPath(std::string_view uuid);
std::string DeletedIdsPath(std::string_view uuid);

// InvalidArgument unless `schema` is a valid fragment schema with a non-nullable String `id`
// column (kIdFieldId); `src` and `dst`, when present, come together and are non-nullable Strings;
// no other field uses a reserved id.
Status ValidateTableSchema(const Schema& schema);

// The manifest as canonical JSON. Deleted ids are written inline exactly when
// `deleted_ids_path` is empty.
std::string EncodeManifest(const TableManifest& manifest);
// Parses and checks a manifest read from `object` (named in errors). FormatTooNew for a format
// above kManifestFormat; Corruption for malformed JSON, missing or mistyped members, a
// staged_version without bit 63, an invalid schema, or counts that do not add up.
Result<TableManifest> DecodeManifest(std::string_view bytes, std::string_view object);

// The side file of deleted ids: {"format":1, "staged_version":…, "ids":[…]}.
std::string EncodeDeletedIds(uint64_t staged_version, const std::vector<std::string>& ids);
// Corruption unless the document is well formed, names `staged_version` and holds `count` ids.
Result<std::vector<std::string>> DecodeDeletedIds(std::string_view bytes, uint64_t staged_version,
                                                  uint64_t count, std::string_view object);

// The bytes the JSON array of `ids` occupies (to choose inline or side file).
uint64_t DeletedIdsJsonBytes(const std::vector<std::string>& ids);

}  // namespace omnigraph::table
