// The write path's steps shared by its two files, internal to engine/write/: write.cc (a single
// write: Write, CheckWrite, Replay) and write_batch.cc (group commit: Commit and the batch it
// publishes). Nothing outside engine/write/ includes this; the write path's interface is
// engine/write/write.h. Each step takes the graph handle (engine/graph/graph.h) whose runtime,
// table store, catalog and warm handles it uses; as thread-safe as that handle.
#pragma once

#include "commit/documents.h"
#include "commit/fold.h"
#include "engine/graph/graph.h"
#include "engine/write/write.h"
#include "table/table_store.h"

namespace omnigraph::engine {

// Write's straight line from one captured head; Write adds the retry on a deleted branch life.
Result<WriteResult> WriteFrom(Graph& graph, const WriteRequest& request, Snapshot captured);
// WriteFrom through the branch handle's commit queue (Graph::CommitQueueOf) when group commit is
// on (engine/write/write_batch.cc).
Result<WriteResult> Commit(Graph& graph, const WriteRequest& request, Snapshot captured);
// ReadSetChanged when a table `request` writes is gone from `base` or no longer has the columns
// its rows were built with (WriteRequest::planned_schema).
Status CheckPlannedTables(Graph& graph, const commit::GraphState& base,
                          const WriteRequest& request);
// The validation half of ValidateAndStage.
Status ValidateChanges(Graph& graph, const commit::GraphState& base, const WriteRequest& request);
// Validates `request` against `base` and stages every table it touches; the record content
// pinning the staged versions. Every object staging creates is added to `staged_objects`.
Result<commit::RecordContent> ValidateAndStage(Graph& graph, const commit::GraphState& base,
                                               const WriteRequest& request,
                                               table::StagedObjects* staged_objects);
// Deletes the objects one write attempt staged, once no record can name them (the attempt was
// refused before publishing, or another record took its seq): each was created by this writer
// under a name it drew fresh and is referenced by nothing. Best effort: a failed delete leaves
// garbage for cleanup, as before (docs/design/engine.md "A refused write leaves nothing").
void DeleteStaged(Graph& graph, table::StagedObjects& staged);

}  // namespace omnigraph::engine
