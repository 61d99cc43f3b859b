// Mutation planning: the effects of a checked mutation query (OmniGraph's mutation rules) on the
// tables of one snapshot — the rows to write and the ids to delete per table — with
// read-your-writes between statements. It never writes: the engine validates, stages and publishes
// the effects as one commit (docs/design/overview.md "Layers", `query` row).
//
// Statement semantics, in source order over an overlay of the snapshot:
//   insert keyed node    upsert by the id derived from the key; the whole row is replaced, so
//                        an omitted nullable property becomes null
//   insert unkeyed node  a new row with a fresh ULID id
//   insert edge          a new row with a fresh ULID id; `from`/`to` are the endpoint node ids
//   update T set .. where p op v
//                        every current row of node type T matching the predicate gets the
//                        assignments; assigning a key property is refused (keys are immutable)
//   delete T where ..    every matching row is removed; deleting nodes also removes every edge,
//                        of any edge type, whose src or dst is one of them
// Predicates (=, !=, <, <=, >, >= in the mutation grammar) compare the row's current value
// with the operand in Value's total order; a null on either side matches nothing.
// Thread-compatible; the table opener may be called from the planning thread only.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/status.h"
#include "query/check/typecheck.h"
#include "schema/value.h"
#include "table/column.h"
#include "table/table_version.h"

namespace omnigraph::query {

// One entity in the overlay: values aligned with its type's properties.
struct EntityRow {
  std::string id;
  std::string src, dst;  // Edges only.
  std::vector<schema::Value> values;
};

struct TableEffects {
  const schema::TypeDef* type = nullptr;
  // The rows to write, by id: inserted or updated (complete rows).
  std::map<std::string, EntityRow> rows;
  // True while every row in `rows` is an insert under a freshly minted id (so a strict append
  // suffices); false once a row replaces or updates an existing id.
  bool only_fresh = true;
  // Ids to remove (only in delete queries).
  std::set<std::string> deletes;
};

struct MutationEffects {
  std::map<std::string, TableEffects> tables;  // By table key.
  uint64_t affected_nodes = 0;
  uint64_t affected_edges = 0;
  // Updates and deletes depend on what they read: the write must not re-prepare.
  bool strict = false;
  bool empty() const { return affected_nodes == 0 && affected_edges == 0; }
};

struct MutationContext {
  // The catalog the query was checked against.
  const schema::Catalog* catalog = nullptr;
  // Parameter values by name (without '$'), already of their declared types.
  std::map<std::string, schema::Value> params;
  // Blob parameters bound to something no graph admits (an external URI: there is no external
  // Blob ingress policy), by name, with the error. Assigning one to a row refuses the query;
  // binding it does not, so an update that matches no row is not refused.
  std::map<std::string, std::string> refused_blobs;
  // now() for the whole invocation, ms since the epoch.
  int64_t now_ms = 0;
  // The base version of a node or edge table of the snapshot.
  std::function<Result<std::shared_ptr<const table::TableVersion>>(const schema::TypeDef&)>
      open_table;
  // Mints ids for unkeyed inserts (ULIDs).
  std::function<std::string()> mint_id;
};

// The effects of `query` (a checked mutation query). InvalidArgument for a missing parameter, a
// value that does not fit its property, or an update of a key property; nothing is written.
Result<MutationEffects> PlanMutation(const CheckedQuery& query, const MutationContext& context);

// The rows of `effects` as a batch in its type's table schema (rows in id order).
Result<table::ColumnBatch> EffectRows(const TableEffects& effects);

}  // namespace omnigraph::query
