// The write path: one validated graph commit from a set of per-table changes.
//
// Write (below), a free function over the graph handle (engine/graph/graph.h), runs it as one
// straight line (docs/design/engine.md "The write path"):
//   capture   the branch head from its warm handle (no reads), or the snapshot the writer read
//   plan      expected head, a schema apply since the writer read (ReadSetChanged)
//   validate  the changes against the captured head (engine/write/validate.h)
//   stage     each touched table's new version, in parallel (table::TableStore::StageWrite),
//   against
//             (stream, seq) of the captured head (D9)
//   publish   one conditional create of the next record (commit::Stream::TryPublish)
//   ack       or, on a lost race, commit::AfterLostRace's verdict: insert-only work is captured
//             again from the refreshed head and re-validated and re-staged; strict work gets
//             ReadSetChanged; expected-head work PreconditionFailed.
// No lock is held across staging, validation or backoff.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/sorted_records.h"
#include "commit/documents.h"
#include "engine/graph/snapshot.h"
#include "engine/write/idempotency.h"
#include "table/table_store.h"

namespace omnigraph::engine {

// One table's part of a write: the operation and its row source, as the table layer stages it.
// Append and Upsert take `rows`; Delete takes `ids`; Overwrite replaces the table's image with
// `rows`. When `pending` is set (a streaming load), Append, Upsert and Overwrite take those rows,
// already written as fragments, instead of `rows`.
using TableChange = table::TableWrite;

// Names a row of a write in validation messages: (table key, row of the change's batch or index
// into its ids) -> e.g. "line 12". The default is DefaultRowLabel ("node:Person row 3").
using RowLabel = std::function<std::string(std::string_view table_key, uint64_t row)>;

struct WriteRequest {
  std::string branch = "main";
  // By table key (`node:Person`).
  std::map<std::string, TableChange> changes;
  // When set, the head must be this commit (PreconditionFailed otherwise; nothing is retried).
  std::optional<std::string> expected_head;
  std::optional<std::string> actor;
  // Prefixes validation messages; unset = DefaultRowLabel.
  RowLabel row_label;
  // The changes were computed from what the writer read (an update, a delete): never
  // re-prepare, even when every op is an append or upsert.
  bool strict = false;
  // The snapshot of `branch` the changes were computed from (a mutation's read). The write is
  // captured there and publishes from it with no further read, so a strict write whose branch
  // moved meanwhile gets ReadSetChanged from the conditional create. Unset: the write captures
  // the branch's head from its warm handle.
  std::optional<Snapshot> planned_on;
  // The schema the changes were built for (the snapshot the writer read). When the head's schema
  // is another one — a schema apply landed in between — and a table the write touches is gone or
  // has other columns, the write gets ReadSetChanged (plan it again) instead of failing on rows
  // of the old shape; other schema changes only re-validate the write under the new catalog.
  std::optional<commit::SchemaRef> planned_schema;
  // What the writer is ("mutate join", "load merge"): the record's `summary` is this and the
  // change set's counts (SummaryOf in engine/write/change_sets.h). Unset: no summary.
  std::optional<std::string> summary;
  // Memory for validation's sorts (ids, endpoints, @unique tuples, @card sources); past it they
  // go to temporary files.
  uint64_t sort_bytes = kSorterMemoryBytes;
  // Retry-safety (engine/write/idempotency.h): the record names the key, and a write whose key a
  // record already names publishes nothing and answers with that record (WriteResult::replayed).
  std::optional<Idempotency> idempotency;
  // What this write reports as its own counts (a mutation's affected entities, a load's types);
  // a group commit's record keeps it per member (commit::BatchMember::counts).
  Json counts = Json::object();
  // The changes rewrite the rows the writer read, unchanged (optimize's compaction): the
  // record's change set lists no table, since no entity changed. Only with `strict` and
  // `planned_on`, so that the rows are exactly the base's.
  bool rewrite = false;
  // With no change, publish a record anyway: a load of no entity is a lineage commit in
  // OmniGraph (its change set lists no table). Any other empty write is refused.
  bool publish_empty = false;
  // Set by group commit on the batch's combined write: its members were validated already, and
  // the record lists them.
  bool prevalidated = false;
  std::vector<commit::BatchMember> members;
};

// Group commit (engine/write/group_commit.h): on, concurrent writes on one branch handle that
// arrive while a publication is in flight share the next record.
struct GroupCommitOptions {
  bool enabled = true;
};

struct WriteResult {
  std::string commit_id;
  uint64_t seq = 0;
  int attempts = 0;
  // The published record (its commit object is what load and mutate report).
  commit::Record record;
  // The key's record existed already: nothing was published, and `outcome` is what the first
  // write reported (its Idempotency::outcome).
  bool replayed = false;
  Json outcome;
};

// Captures the branch head, validates the changes against it (engine/write/validate.h: enums,
// @range, @check, keyed ids, @unique, edge endpoints, dangling edges, @card), stages every
// touched table in parallel against it (D9) and publishes exactly one record pinning the new
// versions, through `graph`'s warm handle of the branch and its group-commit queue. Insert-only
// writes (append, upsert) re-prepare when another writer publishes first; a strict write
// (WriteRequest::strict, a delete or an overwrite) gets ReadSetChanged. A violation, like an
// error from staging (KeyConflict, rows that do not fit the table), publishes nothing. A warm
// handle whose life of the branch was deleted (the branch was deleted and perhaps created again
// since) is dropped and the write tried once more against the life the name resolves to now;
// BranchNotFound when there is none.
Result<WriteResult> Write(Graph& graph, const WriteRequest& request);
// Everything Write checks before it stages, against the branch head `at`, writing nothing: the
// actor, every constraint of engine/write/validate.h and the appends' ids. A load into a branch
// it creates checks against the base's head first, so that a refused load never creates it.
Status CheckWrite(Graph& graph, const Snapshot& at, const WriteRequest& request);
// The answer a keyed write already has on `branch` (engine/write/idempotency.h): one GET of the
// key object (nothing more when it is absent, the usual case) and one read of the record it
// names. nullopt when no record names the key; IdempotencyConflict when the key was used for
// another request; InvalidArgument for a malformed key; BranchNotFound.
Result<std::optional<WriteResult>> Replay(Graph& graph, std::string_view branch,
                                          const Idempotency& idempotency);

// Whether a lost race re-prepares `request` (appends and upserts, not strict).
bool InsertOnly(const WriteRequest& request);
// The answer of a keyed write whose key `record` names (nothing published).
WriteResult ReplayedWrite(commit::Record record, const Idempotency& idempotency);

}  // namespace omnigraph::engine
