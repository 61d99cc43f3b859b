// Graph: a graph root on the record protocol — init, open and snapshots (docs/design/overview.md
// "Object layout" and "Protocols"; docs/design/engine.md). The write path, branches at the graph
// level, schema apply and cleanup orchestration build on this class.
//
// Init writes, in order: the storage stamp (conditional create — the init fence), the schema
// archive, an empty version of every node and edge table, then the main stream (metadata, genesis
// record pinning those versions, checkpoint 0, hint). A root whose stamp exists but whose genesis
// record does not is "initialization incomplete": Open refuses it and Init with the same schema
// completes it. Thread-safe: a Graph may be shared by threads.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "commit/branches.h"
#include "commit/documents.h"
#include "commit/fold.h"
#include "commit/stream.h"
#include "engine/graph/snapshot.h"
#include "engine/ops/cleanup.h"
#include "engine/ops/merge.h"
#include "engine/ops/schema_apply.h"
#include "engine/write/group_commit.h"
#include "engine/write/write.h"
#include "schema/archive.h"
#include "schema/catalog.h"
#include "schema/ir.h"
#include "schema/planner.h"
#include "storage/uri.h"
#include "table/table_store.h"

namespace omnigraph::engine {

struct InitOptions {
  std::optional<std::string> actor;
  uint64_t checkpoint_interval = 50;
  // Init refuses a root that holds any object, unless this is set: then it creates the graph
  // among objects that are not a graph (leaving them in place) or completes an unfinished init.
  // It never replaces a graph whose genesis record exists (docs/design/engine.md "Init").
  bool force = false;
};

// Names of the objects init found shown in its error and its report.
inline constexpr size_t kInitFoundShownMax = 10;

// What Init found at the root before it wrote anything, and what it did about it (reported to
// the user with --force).
struct InitReport {
  // The first names under the root, in byte order (at most kInitFoundShownMax), and whether there
  // were more. Empty for an empty root.
  std::vector<std::string> found;
  bool found_more = false;
  // Set when the root held an unfinished init (a storage stamp, no genesis record) that this
  // init completed under that stamp's graph id.
  std::optional<std::string> completed_graph_id;

  // "2 objects: 'a.txt', 'notes/b.md'" or "more than 10 objects, among them: ...".
  std::string FoundText() const;
  // {found: [...], found_more, completed_graph_id?}.
  Json ToJson() const;
};

class Graph {
 public:
  // Initialises a new graph at the runtime's store with `schema_source` (.pg). The root must be
  // empty (no object under it; an absent folder is empty) unless `options.force`.
  // AlreadyInitialized when a graph exists there (also with force); InitializationIncomplete
  // for an unfinished init without force; AlreadyExists naming the root and the first objects
  // found for any other non-empty root without force; InvalidArgument for a bad schema. Nothing
  // is written in any of these cases. `report`, when set, receives what was found.
  static Result<std::unique_ptr<Graph>> Init(const storage::Runtime& runtime,
                                             std::string_view schema_source,
                                             const InitOptions& options = {},
                                             InitReport* report = nullptr);
  // Opens an existing graph. NotFound when there is none; UnknownStamp naming both stamps for a
  // graph of another format; InitializationIncomplete when init was interrupted.
  static Result<std::unique_ptr<Graph>> Open(const storage::Runtime& runtime);

  const commit::StorageStamp& stamp() const { return stamp_; }
  const storage::Runtime& runtime() const { return runtime_; }
  // The table store the graph writes through (a streaming load writes fragments ahead).
  table::TableStore& tables() const { return *tables_; }

  // Creates branch `name` from the head of `from` (a branch name) or, when `from_commit` is set,
  // from that commit. BranchExists, BranchNotFound, VersionsReclaimed, InvalidArgument as
  // commit::CreateBranch says.
  Result<commit::StreamMetadata> CreateBranch(std::string_view name, std::string_view from,
                                              std::optional<std::string> from_commit = {},
                                              std::optional<std::string> actor = {});
  Status DeleteBranch(std::string_view name, std::optional<std::string> actor = {});
  Result<std::vector<commit::BranchInfo>> ListBranches();

  // The write path (engine/write/write.h): captures the branch head, validates the changes against
  // it (engine/write/validate.h: enums, @range, @check, keyed ids, @unique, edge endpoints,
  // dangling edges, @card), stages every touched table in parallel against it (D9) and publishes
  // exactly one record pinning the new versions. Insert-only writes (append, upsert) re-prepare
  // when another writer publishes first; a strict write (WriteRequest::strict, a delete or an
  // overwrite) gets ReadSetChanged. A violation, like an error from staging (KeyConflict, rows
  // that do not fit the table), publishes nothing. A warm handle whose life of the branch was
  // deleted (the branch was deleted and perhaps created again since) is dropped and the write
  // tried once more against the life the name resolves to now; BranchNotFound when there is
  // none.
  Result<WriteResult> Write(const WriteRequest& request);
  // Everything Write checks before it stages, against the branch head `at`, writing nothing:
  // the actor, every constraint of engine/write/validate.h and the appends' ids. A load into a
  // branch it creates checks against the base's head first, so that a refused load never creates
  // it.
  Status CheckWrite(const Snapshot& at, const WriteRequest& request);
  // The answer a keyed write already has on `branch` (engine/write/idempotency.h): one GET of the
  // key object (nothing more when it is absent, the usual case) and one read of the record it
  // names. nullopt when no record names the key; IdempotencyConflict when the key was used for
  // another request; InvalidArgument for a malformed key; BranchNotFound.
  Result<std::optional<WriteResult>> Replay(std::string_view branch,
                                            const Idempotency& idempotency);
  // Turns group commit on or off for later writes (on by default; off publishes every write
  // alone, as a benchmark's baseline).
  void SetGroupCommit(GroupCommitOptions options);
  // Writes of stream `stream_key` queued behind a publication in flight (observability).
  size_t GroupCommitWaiting(std::string_view stream_key);

  // Merges branch `request.source` into `request.target` (engine/ops/merge.h): already up to date,
  // a fast-forward or a three-way merge publishing one record on the target; with conflicts
  // (outcome kConflicts, every conflict listed) nothing is published. BranchNotFound for either
  // branch; InvalidArgument for a branch merged into itself or a bad actor; Unsupported across a
  // schema change, naming the schemas; RetriesExhausted when the target moved during every one
  // of kMergeAttemptsMax attempts; VersionsReclaimed when the base's tables were reclaimed.
  Result<MergeResult> Merge(const MergeRequest& request);
  // What Merge would do now, publishing and staging nothing (docs/design/merge.md "Preview"):
  // the outcome against the two heads as they are (kConflicts with every conflict, as Merge
  // finds them), the base, and how far each side is ahead. The errors of Merge, but for
  // RetriesExhausted (a preview takes the heads once).
  Result<MergeResult> PreviewMerge(const MergeRequest& request);

  // The migration plan from main's accepted schema to `new_source` (reads main's head and its
  // schema archive; writes nothing). InvalidArgument when the source does not parse or check.
  Result<schema::MigrationPlan> PlanSchema(std::string_view new_source,
                                           const schema::PlanOptions& options = {});
  // Plans and applies `new_source` on main as one commit (docs/design/engine.md "Schema apply").
  // Unsupported for another branch or an unsupported plan (the planner's messages), both
  // writing nothing; a no-op plan publishes nothing. SchemaBoundary (kind Conflict), writing
  // nothing, while any branch but main exists. A strict write: ReadSetChanged when main
  // moves while the apply is prepared, PreconditionFailed for a stale expected head.
  Result<SchemaApplyResult> ApplySchema(std::string_view new_source,
                                        const SchemaApplyOptions& options = {});

  // Removes what no retained commit needs (docs/design/engine.md "Cleanup"): checkpoints, and
  // table versions with their fragments, deletion vectors and deleted-id files. InvalidArgument
  // without keep or older_than; storage failures of planning as reported.
  Result<GraphCleanupReport> Cleanup(const CleanupOptions& options);

  // The head of a branch (`main` or a name), read through the branch's warm handle: when the
  // head has not moved since this Graph last saw it, that is one existence check of the next
  // record (a cold read and the name lookup only on first use). BranchNotFound when the branch
  // does not exist; a handle whose life of the name was deleted is dropped and the name
  // resolved again.
  Result<Snapshot> SnapshotOfBranch(std::string_view branch);
  // The state at one commit, by id.
  Result<Snapshot> SnapshotAtCommit(std::string_view commit_id);
  // `past` (a snapshot at a commit) answering to today's names as well: its catalog is
  // schema::Catalog::WithNamesOf(its schema, main head's schema), so a type or property renamed
  // since is found by either name (docs/design/engine.md "Reads at a past commit"). `past`
  // itself when main's head has the same schema. Errors as reading main's head reports.
  Result<Snapshot> WithTodaysNames(const Snapshot& past);
  // A read view of a state the caller folded (the change feed folds records forward itself).
  Result<Snapshot> SnapshotOfState(std::shared_ptr<const commit::GraphState> state) {
    return MakeSnapshot(std::move(state));
  }

  // The accepted schema archive `ref` names, read through the one archive store
  // (engine/graph/schema_archive.h): bounded, checked against its content hash, then parsed.
  Result<schema::SchemaArchive> ReadSchemaArchive(const commit::SchemaRef& ref) const;

 private:
  Graph(storage::Runtime runtime, commit::StorageStamp stamp);
  Result<std::shared_ptr<const schema::Catalog>> CatalogFor(const commit::SchemaRef& schema);
  // ReadSetChanged when a table `request` writes is gone from `base` or no longer has the columns
  // its rows were built with (WriteRequest::planned_schema).
  Status CheckPlannedTables(const commit::GraphState& base, const WriteRequest& request);
  Result<Snapshot> MakeSnapshot(std::shared_ptr<const commit::GraphState> state,
                                std::shared_ptr<commit::Stream> stream = nullptr);
  // Where a schema apply may go: Unsupported for a branch other than main; SchemaBoundary (kind
  // Conflict) naming every branch but main, when there is one.
  Status CheckApplyTarget(std::string_view branch);
  // The warm handle of `branch`, resolving the name when there is none; `warm` tells which.
  Result<std::shared_ptr<commit::Stream>> StreamOf(std::string_view branch, bool& warm);
  // Forgets the warm handle of `branch` (its life of the name was deleted).
  void DropStream(std::string_view branch);
  // Write's straight line from one captured head; Write adds the retry on a deleted branch life.
  Result<WriteResult> WriteFrom(const WriteRequest& request, Snapshot captured);
  // WriteFrom through the branch handle's commit queue when group commit is on.
  Result<WriteResult> Commit(const WriteRequest& request, Snapshot captured);
  // One batch of the queue (engine/write/group_commit.h): a batch of one is WriteFrom; a larger one
  // admits its members in order against the state including the earlier ones, stages every
  // touched table once and publishes one record. Every member's answer, in order.
  std::vector<Result<WriteResult>> PublishBatch(std::span<BatchEntry* const> batch);
  struct Admitted;
  // Members of `batch` that join the record at `base` (their answers in `out` otherwise).
  Result<Admitted> AdmitMembers(const commit::GraphState& base, std::span<BatchEntry* const> batch,
                                std::vector<std::optional<Result<WriteResult>>>& out,
                                std::vector<size_t>& solo);
  // The combined request of a batch's admitted members (their rows are merged by AdmitMembers).
  void FillCombined(std::span<BatchEntry* const> batch, Admitted& admitted);
  // The batch's publish loop from `captured` (commit/publish_loop.h): each attempt admits the
  // members not yet answered, stages them as one write and publishes one record. Every member's
  // answer in `out`, except those deferred to `solo` (fenced past the head: they write alone).
  void PublishMembers(const std::shared_ptr<commit::Stream>& stream,
                      std::shared_ptr<const commit::GraphState> captured,
                      std::span<BatchEntry* const> batch,
                      std::vector<std::optional<Result<WriteResult>>>& out,
                      std::vector<size_t>& solo);
  // The validation half of ValidateAndStage.
  Status ValidateChanges(const commit::GraphState& base, const WriteRequest& request);
  // KeyConflict when an in-memory append adds an id its table holds on `base` (staging would
  // refuse it too, but only after other tables of the write were staged).
  Status CheckAppends(const commit::GraphState& base, const WriteRequest& request);
  // Validates `request` against `base` and stages every table it touches; the record content
  // pinning the staged versions. Every object staging creates is added to `staged_objects`.
  Result<commit::RecordContent> ValidateAndStage(const commit::GraphState& base,
                                                 const WriteRequest& request,
                                                 table::StagedObjects* staged_objects);
  // Deletes the objects one write attempt staged, once no record can name them (the attempt was
  // refused before publishing, or another record took its seq): each was created by this
  // writer under a name it drew fresh and is referenced by nothing. Best effort: a failed delete
  // leaves garbage for cleanup, as before (docs/design/engine.md "A refused write leaves
  // nothing").
  void DeleteStaged(table::StagedObjects& staged);

  // A merge against one target head: the outcome so far, and what to publish — a fast-forward's
  // pins, or for a three-way merge the base state the tables are merged from (set only then).
  struct MergePlan {
    MergeResult result;
    commit::RecordContent content;
    std::shared_ptr<const commit::GraphState> base;
    // The merge base as a read view, to explain a failed read of its tables.
    std::optional<Snapshot> base_view;
  };
  // Sets the change set (and the summary's counts) of a merge's record `content` published on
  // `head`: what its pins change against the target's head.
  Status RecordMergeChanges(const commit::GraphState& head, commit::RecordContent& content);
  Result<MergePlan> PlanMerge(const MergeRequest& request, const Snapshot& source,
                              const commit::GraphState& target);
  // The three-way merge of every table from `base` to `source` and `target`: the record content
  // pinning the merged versions (staged against the target), or with `conflicts` filled. With
  // `stage` false (a preview) the tables changed on both sides are classified and validated but
  // not staged, and their pins are left out of the content.
  Result<commit::RecordContent> MergeTables(const commit::GraphState& base,
                                            const commit::GraphState& source,
                                            const commit::GraphState& target,
                                            std::vector<MergeConflict>& conflicts,
                                            ProgressMeter& meter, bool stage = true);

  storage::Runtime runtime_;
  commit::StorageStamp stamp_;
  std::shared_ptr<table::TableStore> tables_;
  std::mutex mu_;
  // Accepted schemas by content hash: archives are immutable, so this never goes stale.
  std::map<std::string, std::shared_ptr<const schema::Catalog>> catalogs_;
  // Warm stream handles by branch name, so that repeated writes publish with no reads. A handle
  // that meets BranchNotFound (its life of the name was deleted) is dropped; shared, so that a
  // writer still using it is not left with a dangling one.
  std::map<std::string, std::shared_ptr<commit::Stream>> streams_;
  // Group commit's queue of each stream key (guarded by mu_).
  GroupCommitOptions group_commit_;
  std::map<std::string, std::shared_ptr<CommitQueue>> queues_;
};

// Whether a write that failed with `status` certainly published nothing, so that objects only it
// could reference (a load's pending fragments) may be deleted: a refusal before or instead of the
// publication (a violation, a conflict, a lost race), not an error the publication may have
// survived (PublicationInDoubt, a store failure).
bool NothingPublished(const Status& status);

}  // namespace omnigraph::engine
