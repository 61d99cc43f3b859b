// The schema archive document (docs/format/commit-documents.md §8): the accepted schema contract as
// stored at
// `__history/schemas/{content_hash}.schema`.
//
// Bytes: canonical JSON (keys sorted, compact) of
//   {"format":1, "identity_domain":<graph_id>, "identity_version":N, "ir_hash":"sha256:<hex>",
//    "source":<the .pg text>, "ir":<the IR object of ir_json.h>}
// content_hash = lower-case hex SHA-256 of those bytes (no prefix); ir_hash = "sha256:" + hex
// SHA-256 of the IR's canonical JSON. The same (graph id, version, source, IR) always gives the
// same bytes. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"
#include "schema/ir.h"

namespace omnigraph::schema {

inline constexpr int kArchiveFormat = 1;

struct SchemaArchive {
  std::string identity_domain;
  uint64_t identity_version = 0;
  std::string ir_hash;
  std::string source;
  SchemaIr ir;
};

// The archive document bytes for an accepted schema. `identity_version` is 1 at init and grows
// by one per accepted change.
std::string ArchiveBytes(std::string_view identity_domain, uint64_t identity_version,
                         std::string_view source, const SchemaIr& ir);

// Hex SHA-256 of archive bytes: the archive's object name and the record's content_hash.
std::string ContentHash(std::string_view archive_bytes);

// Reads archive bytes. Corruption when they do not parse, miss a member, carry an IR that fails
// validation or an ir_hash that does not match the IR; kFormatTooNew when `format` is newer
// than kArchiveFormat. Unknown members are ignored.
Result<SchemaArchive> ParseArchive(std::string_view bytes);

}  // namespace omnigraph::schema
