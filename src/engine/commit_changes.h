// The per-commit diff (`commit changes ID`): the entity changes of one commit against its first
// parent, served from the record's change set (engine/change_sets.h) and hydrating only the ids it
// lists (docs/design/engine.md "History and per-commit diffs").
//
// Output: {cause: {graph_commit_id, parent_commit_id, merged_parent_commit_id?, authored_branch,
// actor_id?, authored_at}, changes: [{kind, type: {id, name}, id, op, before?, after?}]}; an image
// is {properties: {name: value}, endpoints?: {from, to}} with values as export writes them.
// Changes are ordered nodes before edges, then by type id, entity id and op; an update whose
// row images are equal (a rewrite of the same row) is left out. Thread-safe.
#pragma once

#include <string_view>

#include "base/json.h"
#include "engine/graph.h"

namespace omnigraph::engine {

// CommitNotFound for an unknown id or a retire record; ParentlessCommit for genesis;
// SchemaBoundary for a commit that changed the schema; Corruption for a damaged record or delta;
// storage failures as reported.
Result<Json> CommitChanges(Graph& graph, std::string_view commit_id);

// The `cause` object of record `r` (a commit with a parent).
Json CauseOf(const commit::Record& r);

// The `changes` array of commit `r` between `before` (its first parent's state) and `after`
// (its own): from its change set (reading the delta when the ids spilled), or without one from
// the exact diff. The caller has ruled out genesis and a schema boundary the set names;
// SchemaBoundary when the diff finds the schemas differ. Corruption for a damaged record or
// delta; a missing table object as Snapshot::ExplainReadFailure says.
Result<Json> ChangesOf(Graph& graph, const commit::Record& r, const Snapshot& before,
                       const Snapshot& after);

}  // namespace omnigraph::engine
