// Graph: the handle of a graph root on the record protocol — init, open, branches, snapshots, the
// schema catalog and the warm stream handles with their group-commit queues
// (docs/design/overview.md "Object layout" and "Protocols"; docs/design/engine.md). It is thin:
// what builds on it are free functions taking `Graph&` in their folders (decision 204) — the
// write path in engine/write/write.h (Write, CheckWrite, Replay), and the operations in
// engine/ops/ (Merge, PreviewMerge in merge.h; PlanSchema, ApplySchema in schema_apply.h;
// Cleanup in cleanup.h; load, export, optimize, the change feed).
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
#include <string>
#include <vector>

#include "commit/branches.h"
#include "commit/documents.h"
#include "commit/fold.h"
#include "commit/stream.h"
#include "engine/graph/snapshot.h"
#include "engine/write/group_commit.h"
#include "engine/write/write.h"
#include "schema/archive.h"
#include "schema/catalog.h"
#include "schema/ir.h"
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

  // Turns group commit on or off for later writes (on by default; off publishes every write
  // alone, as a benchmark's baseline).
  void SetGroupCommit(GroupCommitOptions options);
  // Writes of stream `stream_key` queued behind a publication in flight (observability).
  size_t GroupCommitWaiting(std::string_view stream_key);
  // The commit queue of stream `stream_key` (engine/write/group_commit.h), made on first use;
  // nullptr while group commit is off. The write path (engine/write/write_batch.cc) submits a
  // write to it; the queue lives as long as the Graph, like the warm handle it serves.
  std::shared_ptr<CommitQueue> CommitQueueOf(std::string_view stream_key);

  // The head of a branch (`main` or a name), read through the branch's warm handle: when the
  // head has not moved since this Graph last saw it, that is one existence check of the next
  // record (a cold read and the name lookup only on first use). BranchNotFound when the branch
  // does not exist; a handle whose life of the name was deleted is dropped and the name
  // resolved again.
  //
  // `ahead`, when set, is called during a cold read, from another thread, with a read view of
  // the state the head most likely is (the state at the stream's hint), beside the probe for
  // newer records: a caller reads what it will need from the head (a query's tables) in the
  // same request round. A guess: the snapshot returned is the head read, which may differ.
  using SnapshotAhead = std::function<void(const Snapshot& likely)>;
  Result<Snapshot> SnapshotOfBranch(std::string_view branch, const SnapshotAhead& ahead = {});
  // The state at one commit, by id.
  Result<Snapshot> SnapshotAtCommit(std::string_view commit_id);
  // `past` (a snapshot at a commit) answering to today's names as well: its catalog is
  // schema::Catalog::WithNamesOf(its schema, main head's schema), so a type or property renamed
  // since is found by either name (docs/design/engine.md "Reads at a past commit"). `past`
  // itself when main's head has the same schema. Errors as reading main's head reports.
  Result<Snapshot> WithTodaysNames(const Snapshot& past);
  // A read view of a state the caller folded (the change feed folds records forward itself).
  // With `stream` (the warm handle `state` was read from), a write planned on the view
  // publishes through that handle (WriteRequest::planned_on).
  Result<Snapshot> SnapshotOfState(std::shared_ptr<const commit::GraphState> state,
                                   std::shared_ptr<commit::Stream> stream = nullptr);

  // The accepted schema archive `ref` names, read through the one archive store
  // (engine/graph/schema_archive.h): bounded, checked against its content hash, then parsed.
  Result<schema::SchemaArchive> ReadSchemaArchive(const commit::SchemaRef& ref) const;
  // The catalog of accepted schema `schema`, built once per content hash and cached (archives
  // are immutable, so it never goes stale). Errors of ReadSchemaArchive and Catalog::Build.
  Result<std::shared_ptr<const schema::Catalog>> CatalogFor(const commit::SchemaRef& schema);

  // The warm stream handles: the seam the write path (engine/write/) and the operations that
  // publish (engine/ops/merge.cc, schema_apply.cc) publish through, so that repeated writes of a
  // branch publish with no reads. StreamOf gives the warm handle of `branch`, resolving the name
  // when there is none; `warm` tells which. BranchNotFound when the name resolves to no branch.
  Result<std::shared_ptr<commit::Stream>> StreamOf(std::string_view branch, bool& warm);
  // Forgets the warm handle of `branch` (its life of the name was deleted: a publish through it
  // got BranchNotFound); the next StreamOf resolves the name again.
  void DropStream(std::string_view branch);

 private:
  Graph(storage::Runtime runtime, commit::StorageStamp stamp);
  // The warm handle of `branch` over `resolved` (its metadata and hint), registered unless a
  // handle was registered first (that one is returned).
  std::shared_ptr<commit::Stream> AdoptStream(std::string_view branch,
                                              commit::ResolvedBranch resolved);

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
