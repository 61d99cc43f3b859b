// GraphState: the fold of a stream's records at one seq (docs/design/commit-record.md "The fold").
//
// State at (stream, seq) = the newest valid checkpoint at or before seq plus the records after
// it, applied in order: registrations add, renames rebind the alias, tombstones retire, pins
// replace by identity (stable_table_id, incarnation). Apply() enforces the integrity checks of
// D17 and fails closed with kCorruption naming the record. A value type; not synchronized.
#pragma once

#include <map>
#include <string>

#include "commit/documents.h"

namespace omnigraph::commit {

struct TableState {
  Registration registration;
  TablePin pin;
  // The seq of the record that set the pin (in whichever stream it was published).
  uint64_t pin_seq = 0;
  bool operator==(const TableState&) const = default;
};

struct GraphState {
  std::string stream;
  uint64_t seq = 0;
  std::string head_commit_id;
  uint64_t head_generation = 0;
  SchemaRef schema;
  // True after a retire record: the stream is closed.
  bool retired = false;
  std::map<TableId, TableState> tables;

  // The fold of the genesis record (seq 0) alone.
  static Result<GraphState> Genesis(const Record& genesis, std::string_view object);
  static GraphState FromCheckpoint(const Checkpoint& checkpoint);
  Checkpoint ToCheckpoint() const;

  // Applies the record that follows this state. kCorruption (naming `object`) when its seq,
  // stream or parent does not follow, it pins or renames an unregistered table, registers a
  // live one, or leaves two live tables with one alias; the state is unchanged then.
  Status Apply(const Record& record, std::string_view object);

  // The live table with this alias (`node:Person`), or null.
  const TableState* FindByKey(std::string_view table_key) const;

  bool operator==(const GraphState&) const = default;
};

}  // namespace omnigraph::commit
