// The internals of the local backend (api_local.h): Handle, the state behind one api::Database
// and its calls in the engine's types, declared once and defined by reason to change —
// api_local.cc opens it and adapts it to api::Database (LocalBackend, the policy gate);
// api_local_reads.cc reads (snapshots, queries, export, blobs, schema);
// api_local_writes.cc loads and mutations; api_local_history.cc branches, commits, merges, diffs
// and the change feed; api_local_admin.cc schema changes and maintenance (cleanup, optimize,
// repair, lint). Only those files include it. Thread-safe as Graph is.
//
// The engine's headers come before the public one (they sort first): the public header's
// early-return macros then stand aside for base/status.h's (include/omnigraph/status.h).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/hash.h"
#include "base/sorted_records.h"
#include "commit/history.h"
#include "commit/names.h"
#include "commit/repair.h"
#include "engine/api/api_local.h"
#include "engine/api/api_policy.h"
#include "engine/api/api_values.h"
#include "engine/graph/graph.h"
#include "engine/ops/change_feed.h"
#include "engine/ops/commit_changes.h"
#include "engine/ops/diff.h"
#include "engine/ops/embed_file.h"
#include "engine/ops/export.h"
#include "engine/ops/load.h"
#include "engine/ops/optimize.h"
#include "engine/read/blob.h"
#include "engine/read/external_blob.h"
#include "engine/read/query.h"
#include "engine/write/change_sets.h"
#include "engine/write/idempotency.h"
#include "engine/write/mutate.h"
#include "query/check/lint.h"
#include "query/exec/exec_cache.h"
#include "schema/archive.h"
#include "schema/identity.h"
#include "schema/planner.h"
#include "storage/counting_store.h"
#include "storage/uri.h"

namespace omnigraph::engine::local_internal {

using api::CleanupRequest;
using api::DatabaseOptions;
using api::MergeOptions;
using api::ReadTarget;
using api::WriteTarget;
// The actor a call publishes as (api::Database::WithActor), or none.
using Actor = std::optional<std::string>;

// The handle's store, counted (Database::StoreCalls), and the Runtime over it.
struct CountedRuntime {
  std::shared_ptr<storage::CountingStore> counting;
  storage::Runtime runtime;
};

// Opens the store at `uri`, counted, and a Runtime over it (options.threads workers).
Result<CountedRuntime> RuntimeFor(std::string_view uri, const DatabaseOptions& options);

// A commit record as OmniGraph's commit object.
Json CommitJson(const commit::Record& r);

// `commit show`'s touched tables: [{table_key, inserted, updated, deleted}].
Json TouchedTablesJson(const commit::ChangeSet& c);

// OmniGraph's snapshot object of one read view.
Json SnapshotJson(const engine::Snapshot& s, const std::string& branch);

// A branch as OmniGraph's branch object.
Json BranchJson(const commit::BranchInfo& b);

// The engine's progress events as the public API's (none without a callback).
engine::ProgressSink ProgressSinkOf(const std::function<void(const api::Progress&)>& callback);

// The state behind one api::Database, and its calls in the engine's types.
// Opened in api_local.cc; its calls are defined in api_local_{reads,writes,history,admin}.cc.
class Handle {
 public:
  static Result<std::unique_ptr<Handle>> Init(std::string_view uri, std::string_view schema_source,
                                              const DatabaseOptions& options);

  static Result<std::unique_ptr<Handle>> Open(std::string_view uri, const DatabaseOptions& options);

  explicit Handle(std::string_view uri) : uri_(uri) {}

  // The graph's external-Blob allow rules (DatabaseOptions::external_blobs), which every load
  // and mutation of this handle applies. InvalidArgument for rules that do not validate.
  Status SetExternalBlobs(const DatabaseOptions& options);
  const Json& init_report() const { return init_report_; }

  const std::string& uri() const { return uri_; }
  storage::OpCounts StoreCalls() const { return counting_->Snapshot(); }

  Result<Json> CreateBranch(std::string_view name, std::string_view from, const Actor& actor);

  Result<Json> DeleteBranch(std::string_view name, const Actor& actor);

  // Whether `actor` made `r`: its actor, or a member of a group commit.
  static bool MadeBy(const commit::Record& r, std::string_view actor);

  Result<Json> ListBranches();

  Result<Json> ListCommits(std::string_view branch, size_t limit, std::string_view page_token,
                           std::string_view actor);

  // The merge's output; for conflicts MergeConflicts, with `conflicts` set to their array.
  Result<Json> Merge(std::string_view source, const MergeOptions& options, const Actor& actor,
                     Json& conflicts);

  // A merge's preview (engine::PreviewMerge): conflicts are its answer, not an error.
  Result<Json> PreviewMerge(std::string_view source, std::string_view target);

  // The diff of two read views (engine/ops/diff.h), each named as it was asked for (`branch` for a
  // branch head).
  Result<Json> Diff(const api::DiffRequest& r);

  Result<Json> ShowCommit(std::string_view commit_id);

  Result<Json> CommitChanges(std::string_view commit_id, const api::CommitChangesRequest& request);

  Result<Json> PollChanges(const api::ChangePoll& poll);

  Status ChangesBaseline(std::string_view branch, const api::ChangeFilter& filter,
                         const std::function<Status(std::string_view chunk)>& sink);

  static engine::ChangeFilter FilterOf(const api::ChangeFilter& f);

  Result<Json> SnapshotOf(const ReadTarget& target);

  Result<Json> Load(std::string_view ndjson, std::string_view mode, const WriteTarget& target,
                    const Actor& actor, const engine::Authorize& authorize);

  Result<Json> LoadFile(const std::string& path, std::string_view mode, const WriteTarget& target,
                        const Actor& actor, const engine::Authorize& authorize);

  Result<Json> LoadStream(const engine::ChunkReader& read, std::string_view mode,
                          const WriteTarget& target, const Actor& actor,
                          const engine::Authorize& authorize);

  Status Export(const ReadTarget& target, const std::vector<std::string>& types,
                const std::function<Status(std::string_view chunk)>& sink);

  Result<Json> StatBlob(const api::BlobSelector& cell, const ReadTarget& target);

  Result<Json> ReadBlob(const api::BlobSelector& cell, const ReadTarget& target,
                        std::optional<api::BlobRange> range,
                        const std::function<Status(std::string_view chunk)>& sink);

  Result<std::string> ResolveCommit(const ReadTarget& target);

  Result<Json> Mutate(std::string_view source, std::string_view name, const Json& params,
                      const WriteTarget& target, const Actor& actor,
                      const engine::Authorize& authorize);

  Result<OrderedJson> Query(std::string_view source, std::string_view name, const Json& params,
                            const ReadTarget& target, const engine::Authorize& authorize);

  Result<Json> PlanSchema(std::string_view schema_source, bool allow_data_loss);

  Result<Json> ApplySchema(std::string_view schema_source, bool allow_data_loss,
                           const Actor& actor);

  // The per-table counts of a commit: from its change set (no further read), for genesis its
  // pins, else from the exact diff against its first parent (a record without a change set).
  Result<commit::ChangeSet> CountsOf(const commit::Record& r);

  Result<Json> ShowSchema(const ReadTarget& target);

  Result<Json> Cleanup(const CleanupRequest& request);

  Result<Json> Optimize(std::string_view branch, const Actor& actor);

  Result<Json> Repair(bool confirm);

  Result<OrderedJson> Lint(std::string_view query_source, std::string_view branch);

 private:
  // The Blob `cell` names at `target` (at a past commit, by today's names as well, as Export's).
  Result<engine::LocatedBlob> LocateBlob(const api::BlobSelector& cell, const ReadTarget& target);

  // A branch head through its warm handle, or the state at one commit.
  Result<engine::Snapshot> SnapshotFor(const ReadTarget& target);

  // SnapshotFor for a read that names types: at a past commit its schema answers to today's
  // names as well, and a name today gives to another type is refused (Graph::WithTodaysNames).
  Result<engine::Snapshot> NamedSnapshotFor(const ReadTarget& target);

  // A load of `lines` (`input_bytes` long when known). `content_sha`, the hash of the whole
  // input, is asked for only when the target carries an idempotency key.
  Result<Json> LoadLines(engine::LineSource& lines, std::optional<uint64_t> input_bytes,
                         const std::function<Result<std::string>()>& content_sha,
                         std::string_view mode, const WriteTarget& target, const Actor& actor,
                         const engine::Authorize& authorize);

  // The SHA-256 of the file's bytes (what a string's hash covers), read a chunk at a time.
  static Result<std::string> HashFile(const std::string& path);

  std::string uri_;
  std::shared_ptr<storage::CountingStore> counting_;
  engine::ProgressSink progress_;
  std::shared_ptr<const engine::ExternalBlobRules> external_blobs_;
  Json init_report_ = Json::object();  // Init's report (engine::InitReport); {} after Open.
  std::unique_ptr<Graph> graph_;
  // Table images and adjacencies shared by this handle's queries (keyed by table pins).
  query::ExecCache cache_;
  // The change feed over graph_; it keeps each stream's last page-end state.
  std::unique_ptr<engine::ChangeFeed> feed_;
  engine::PreparedQueries prepared_;
};

}  // namespace omnigraph::engine::local_internal
