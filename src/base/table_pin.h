// The identity of a table and the pin that names one version of it: the one type of each that
// the commit layer (a record's pins, docs/format/commit-documents.md §2.5), the table layer (what
// it opens and stages, docs/format/table-version.md) and the engine share (decision 201).
//
// They live in base so that neither commit nor table depends on the other. The JSON codecs stay
// with the documents that carry them: commit/documents_internal.h reads and writes a record's pin
// (including `extra`), the table layer builds a pin from its manifest and ignores `extra`.
// Plain values; thread-safe.
#pragma once

#include <compare>
#include <cstdint>
#include <string>

#include "base/json.h"

namespace omnigraph {

// The identity of a table: a node or edge type's stable id and its incarnation.
struct TableId {
  uint64_t stable_table_id = 0;
  uint64_t incarnation = 0;

  // The table's folder: "tables/{stable_table_id:016x}-{incarnation:016x}" (no trailing '/').
  std::string Root() const;
  auto operator<=>(const TableId&) const = default;
};

// What a graph commit record carries for one table: the version of the table it names and the
// facts about it a reader needs before opening it.
struct TablePin {
  uint64_t stable_table_id = 0;
  uint64_t incarnation = 0;
  std::string table_key;
  uint64_t target_version = 0;
  uint64_t staged_version = 0;
  std::string transaction_uuid;
  uint64_t entity_count = 0;
  // Members of the record's pin this code does not know, written back unchanged. A pin the table
  // layer builds has none.
  Json extra = Json::object();

  TableId table() const { return {stable_table_id, incarnation}; }
  bool operator==(const TablePin&) const = default;
};

}  // namespace omnigraph
