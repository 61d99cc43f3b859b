// Graph: a graph root on the record protocol — init, open and snapshots (ARCHITECTURE.md §3–§5;
// docs/design/engine.md). The write path, branches at the graph level, schema apply and cleanup
// orchestration build on this class.
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
#include "schema/archive.h"
#include "schema/catalog.h"
#include "schema/ir.h"
#include "schema/planner.h"
#include "storage/uri.h"
#include "table/table_cleanup.h"
#include "table/table_store.h"

namespace omnigraph::engine {

struct InitOptions {
  std::optional<std::string> actor;
  uint64_t checkpoint_interval = 50;
};

// One read view: every table at one (stream, seq), and the schema that commit accepted.
class Snapshot {
 public:
  const commit::GraphState& state() const { return state_; }
  const std::string& commit_id() const { return state_.head_commit_id; }
  const schema::Catalog& catalog() const { return *catalog_; }
  // The version of one table (`node:Person`). NotFound for an unknown table key.
  Result<std::shared_ptr<const table::TableVersion>> Table(std::string_view table_key) const;

 private:
  friend class Graph;
  commit::GraphState state_;
  std::shared_ptr<const schema::Catalog> catalog_;
  std::shared_ptr<table::TableStore> tables_;
};

// One table's part of a write. Append and Upsert take `rows`; Delete takes `ids`; Overwrite
// replaces the table's image with `rows`. When `pending` is set (a streaming load), Append,
// Upsert and Overwrite take those rows, already written as fragments, instead of `rows`.
struct TableChange {
  enum class Op { kAppend, kUpsert, kDelete, kOverwrite };
  Op op = Op::kAppend;
  table::ColumnBatch rows;
  std::vector<std::string> ids;
  std::shared_ptr<const table::PendingRows> pending;
};

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
  // The commit the changes were computed from. A strict write whose captured head is another
  // commit gets ReadSetChanged.
  std::optional<std::string> planned_on;
  // The schema the changes were built for (the snapshot the writer read). When the head's schema
  // is another one — a schema apply landed in between — and a table the write touches is gone or
  // has other columns, the write gets ReadSetChanged (plan it again) instead of failing on rows
  // of the old shape; other schema changes only re-validate the write under the new catalog.
  std::optional<commit::SchemaRef> planned_schema;
  // Memory for validation's sorts (ids, endpoints, @unique tuples, @card sources); past it they
  // go to temporary files.
  uint64_t sort_bytes = kSorterMemoryBytes;
};

struct WriteResult {
  std::string commit_id;
  uint64_t seq = 0;
  int attempts = 0;
};

// A schema apply (SURFACE.md §2.4; docs/design/engine.md "Schema apply").
struct SchemaApplyOptions {
  // Drops become hard with allow_data_loss (see the planner).
  schema::PlanOptions plan;
  // Schema changes are accepted only on main (ARCHITECTURE.md §5); any other branch is refused.
  std::string branch = "main";
  // When set, main's head must be this commit (PreconditionFailed otherwise).
  std::optional<std::string> expected_head;
  std::optional<std::string> actor;
};

struct SchemaApplyResult {
  schema::MigrationPlan plan;
  // False for a no-op plan: nothing was written and no commit was published.
  bool applied = false;
  // The commit the apply published, or main's unchanged head for a no-op.
  std::string commit_id;
  uint64_t seq = 0;
  // Table keys (new names) whose columns changed and were staged as a rewritten version.
  std::vector<std::string> rewritten_tables;
};

// Cleanup (SURFACE.md §9; ARCHITECTURE.md D10; docs/design/engine.md "Cleanup"). At least one of
// `keep` and `older_than_micros` is required; a commit either rule keeps is retained.
struct CleanupOptions {
  // Keep the newest `keep` commits of every live branch (>= 1; the head is always kept).
  std::optional<uint64_t> keep;
  // Also keep every commit created less than this long ago.
  std::optional<int64_t> older_than_micros;
  // Nothing younger than this (store last-modified time) is deleted.
  int64_t grace_micros = table::kDefaultGraceMicros;
  // Report what would be removed; write and delete nothing.
  bool dry_run = false;
};

// What cleanup removed (or would remove, on a dry run) from one table.
struct TableCleanupRow {
  uint64_t stable_table_id = 0;
  uint64_t incarnation = 0;
  // The alias written in the table's newest manifest (a tombstoned table keeps its last name).
  std::string table_key;
  uint64_t versions_removed = 0;
  uint64_t fragments_removed = 0;
  uint64_t deletion_vectors_removed = 0;
  uint64_t deleted_id_files_removed = 0;
  uint64_t bytes_removed = 0;
  // Versions no retained commit pins that were kept: staged against a head that may still
  // publish them (D9), or younger than the grace period.
  uint64_t versions_spared = 0;
  // Set when the table was skipped (an unreadable manifest, a failed delete); others go on.
  std::optional<std::string> error;
};

struct GraphCleanupReport {
  bool dry_run = false;
  std::vector<std::string> checkpoints_removed;
  uint64_t checkpoint_bytes_removed = 0;
  std::vector<TableCleanupRow> tables;
  // Every object removed (checkpoints and table objects), and their bytes.
  std::vector<std::string> removed;
  uint64_t bytes_removed = 0;
};

class Graph {
 public:
  // Initialises a new graph at the runtime's store with `schema_source` (.pg). AlreadyInitialized
  // when a graph exists there; InvalidArgument for a bad schema (nothing written).
  static Result<std::unique_ptr<Graph>> Init(const storage::Runtime& runtime,
                                             std::string_view schema_source,
                                             const InitOptions& options = {});
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

  // The write path: stages every touched table in parallel against the captured head (D9) and
  // publishes exactly one record pinning the new versions. Insert-only writes (append, upsert)
  // re-prepare when another writer publishes first; a write with a delete or an overwrite gets
  // ReadSetChanged. Every write is validated against the captured head first (engine/validate.h:
  // enums, @range, @check, keyed ids, @unique, edge endpoints, dangling edges, @card); a
  // violation, like an error from staging (KeyConflict, rows that do not fit the table),
  // publishes nothing. A warm handle whose life of the branch was deleted (the branch was deleted
  // and perhaps created again since) is dropped and the write tried once more against the life
  // the name resolves to now; BranchNotFound when there is none.
  Result<WriteResult> Write(const WriteRequest& request);

  // The migration plan from main's accepted schema to `new_source` (reads main's head and its
  // schema archive; writes nothing). InvalidArgument when the source does not parse or check.
  Result<schema::MigrationPlan> PlanSchema(std::string_view new_source,
                                           const schema::PlanOptions& options = {});
  // Plans and applies `new_source` on main as one commit (docs/design/engine.md "Schema apply").
  // Unsupported for another branch or an unsupported plan (the planner's messages), both
  // writing nothing; a no-op plan publishes nothing. A strict write: ReadSetChanged when main
  // moves while the apply is prepared, PreconditionFailed for a stale expected head.
  Result<SchemaApplyResult> ApplySchema(std::string_view new_source,
                                        const SchemaApplyOptions& options = {});

  // Removes what no retained commit needs (docs/design/engine.md "Cleanup"): checkpoints, and
  // table versions with their fragments, deletion vectors and deleted-id files. InvalidArgument
  // without keep or older_than; storage failures of planning as reported.
  Result<GraphCleanupReport> Cleanup(const CleanupOptions& options);

  // The head of a branch (`main` or a name).
  Result<Snapshot> SnapshotOfBranch(std::string_view branch);
  // The state at one commit, by id.
  Result<Snapshot> SnapshotAtCommit(std::string_view commit_id);

  // The accepted schema archive `ref` names (`__history/schemas/{content_hash}.schema`), read the
  // one way every reader uses: at most commit::kDocumentBytesMax bytes, checked against its
  // content hash, then parsed. Corruption naming the archive when it is missing, larger than
  // the bound, not the bytes its hash names or not a valid archive.
  Result<schema::SchemaArchive> ReadSchemaArchive(const commit::SchemaRef& ref) const;

 private:
  Graph(storage::Runtime runtime, commit::StorageStamp stamp);
  Result<std::shared_ptr<const schema::Catalog>> CatalogFor(const commit::SchemaRef& schema);
  // ReadSetChanged when a table `request` writes is gone from `base` or no longer has the columns
  // its rows were built with (WriteRequest::planned_schema).
  Status CheckPlannedTables(const commit::GraphState& base, const WriteRequest& request);
  Result<Snapshot> MakeSnapshot(commit::GraphState state);
  // The warm handle of `branch`, resolving the name when there is none; `warm` tells which.
  Result<std::shared_ptr<commit::Stream>> StreamOf(std::string_view branch, bool& warm);
  // One attempt of Write through StreamOf's handle.
  Result<WriteResult> WriteOnce(const WriteRequest& request, bool& warm);

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
};

// The commit-layer pin and the table-layer pin carry the same fields.
table::TablePin ToTablePin(const commit::Pin& pin);
commit::Pin ToCommitPin(const table::TablePin& pin);

}  // namespace omnigraph::engine
