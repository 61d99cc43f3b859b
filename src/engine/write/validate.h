// Write validation: every constraint of OmniGraph's constraints checked against one write before it
// is staged (docs/design/overview.md "Protocols"; docs/design/engine.md "Validation").
//
// A write is a set of per-table changes (engine/graph/graph.h TableChange) against one captured
// head. ValidateWrite checks, in table-key order and then in this order per table:
//   row-local   every appended/upserted/overwritten row: enum membership (scalars and list
//               elements), @range (inclusive; NaN fails), @check (RE2 unanchored search; nulls
//               skipped), and for keyed nodes that the id is the one derived from the key;
//   @unique     each tuple (nulls exempt) held by one id in the table as it will be after the
//               write: within the batch and against the base rows the write keeps;
//   endpoints   every new edge's src and dst exist in the from/to node tables as they will be
//               after the write (nodes added by the same write count, deleted ones do not);
//   dangling    nodes a write removes (delete, or overwrite without them) are not referenced by
//               any edge that survives the write;
//   @card       for every source node whose outgoing edges of a type the write changes, the
//               count after the write is within min..max — also a source the write leaves with
//               no edge, unless the write removes the source node too (decision 23); a node that
//               never had an edge of the type is not checked, as in the reference.
// The first violation is returned as InvalidArgument "<row label>: <message>", with OmniGraph's
// messages (`invalid enum value 'x' for Person.kind (expected: a, b)`, `@range violation on
// Person.age: value 200 > max 150`, ...). Reads only the base versions it needs; writes nothing.
// The checks live by constraint family: validate_values.cc (row-local), validate_keys.cc (keyed
// ids, @unique), validate_edges.cc (endpoints, dangling, @card); validate_internal.h is shared.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "base/executor.h"
#include "base/status.h"
#include "engine/graph/graph.h"
#include "schema/catalog.h"
#include "table/table_version.h"

namespace omnigraph::engine {

// The base version of a table by key (the captured head's pin).
using OpenTableFn =
    std::function<Result<std::shared_ptr<const table::TableVersion>>(std::string_view table_key)>;

// "node:Person row 3" (0-based row of the change's batch, or index into its ids).
std::string DefaultRowLabel(std::string_view table_key, uint64_t row);

// Row-local checks of one batch of `type` (see above).
Status ValidateRows(const schema::TypeDef& type, const table::ColumnBatch& rows,
                    const RowLabel& label);

// Calls `sink` with the rows of a change that has rows, batch by batch in row order (for a
// streaming load, its pre-written fragments one at a time). Unset: `change.rows` as one batch.
using RowBatchesFn = std::function<Status(
    const TableChange& change, const std::function<Status(const table::ColumnBatch&)>& sink)>;

// Every check above for `changes` against the tables `open_base` returns. The checks hold one
// batch of rows at a time; what crosses batches (endpoints, @unique tuples, @card sources, the
// ids a write removes) is sorted with ExternalSorters of `sort_bytes` each, which spill to
// temporary files, and merged in order with the change's sorted ids and the base tables read in
// id order. So memory does not grow with the change; the base tables' id indexes (the table
// layer's, shared with reads) are the only per-row state of the graph it touches.
//
// When `failure` is set and a constraint is violated, it receives the table and the kind of check
// that failed, so that a caller classifies the violation without reading the message.
enum class ConstraintKind { kValue, kUnique, kEndpoint, kDangling, kCardinality };
struct ValidationFailure {
  std::string table_key;
  ConstraintKind kind = ConstraintKind::kValue;
};
//
// With an `executor` of more than one thread, the endpoint probes of a batch of edges run a side
// on it and a side on the caller's thread (decision 245); without one, all on the caller's.
Status ValidateWrite(const schema::Catalog& catalog,
                     const std::map<std::string, TableChange>& changes,
                     const OpenTableFn& open_base, const RowLabel& label,
                     const RowBatchesFn& batches = {}, uint64_t sort_bytes = kSorterMemoryBytes,
                     ValidationFailure* failure = nullptr, Executor* executor = nullptr);

}  // namespace omnigraph::engine
