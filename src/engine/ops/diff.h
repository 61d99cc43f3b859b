// The diff of two read views (`omnigraph diff A B`; docs/design/diff.md): every entity a graph
// holds at `to` that it did not hold at `from` (insert), holds with other values (update) or no
// longer holds (delete), whatever history lies between them — two branch heads, a branch and a
// commit, a merge base and a branch head. The reference's diff_between.
//
// The change set is computed from table state, as a commit without a recorded change set is
// (engine/write/change_sets.h DiffChangeSet): a table whose pinned version is the same in both
// views is skipped without a read; the others are diffed from their manifests and deletion vectors,
// reading only the fragments that hold changed rows (table/table_diff.h). The page then hydrates
// the ids it returns, as `commit changes` does. So a diff costs what changed, never what the
// graph holds. Thread-safe.
#pragma once

#include "base/json.h"
#include "engine/graph/graph.h"
#include "engine/ops/commit_changes.h"

namespace omnigraph::engine {

// One page of the diff from `from` to `to`: {from: {graph_commit_id}, to: {graph_commit_id},
// types: [{kind, type: {id, name}, inserted, updated, deleted}] (every type that changed, in page
// order, counting the whole diff, filters aside), changes: [...], next_page_token?}; a change is
// as `commit changes` gives it ({kind, type, id, op, before?, after?}) and in its order (nodes
// before edges, then type id, entity id, op). Page tokens are bound to the two commits.
// SchemaBoundary when the two views hold different schemas (naming both commits); the request
// errors of CommitChanges (limit, kind, type, op, a token of another diff); a table object that
// is gone as Snapshot::ExplainReadFailure says.
Result<Json> Diff(Graph& graph, const Snapshot& from, const Snapshot& to,
                  const CommitChangesRequest& request = {});

}  // namespace omnigraph::engine
