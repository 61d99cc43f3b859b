// The local backend of api::Database (engine/api/api_local.h): a Handle speaks the engine's types
// (Status, Json) over one Graph; LocalBackend converts its inputs and results at the boundary
// (engine/api/api_values.h) and adds the actor its writes publish as.
//
// The engine's headers come before the public one (they sort first): the public header's
// early-return macros then stand aside for base/status.h's (include/omnigraph/status.h).
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

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
#include "engine/ops/cleanup.h"
#include "engine/ops/commit_changes.h"
#include "engine/ops/diff.h"
#include "engine/ops/embed_file.h"
#include "engine/ops/export.h"
#include "engine/ops/load.h"
#include "engine/ops/merge.h"
#include "engine/ops/optimize.h"
#include "engine/ops/schema_apply.h"
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

namespace omnigraph::engine {
namespace {

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

Result<CountedRuntime> RuntimeFor(std::string_view uri, const DatabaseOptions& options) {
  storage::OpenOptions open;
  open.local.fsync = options.fsync;
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<storage::ObjectStore> store,
                             storage::OpenStore(uri, open));
  auto counting = std::make_shared<storage::CountingStore>(std::move(store));
  storage::Runtime runtime =
      storage::Runtime::ForStore(counting, std::max<size_t>(1, options.threads));
  return CountedRuntime{std::move(counting), std::move(runtime)};
}

Json CommitJson(const commit::Record& r) {
  Json out = Json::object();
  out["graph_commit_id"] = r.commit_id;
  if (r.branch) out["graph_branch"] = *r.branch;
  out["graph_manifest_version"] = r.seq;
  if (r.parent_commit_id) out["parent_commit_id"] = *r.parent_commit_id;
  if (r.lineage) out["merged_parent_commit_id"] = r.lineage->merged_parent_commit_id;
  if (r.actor) out["actor_id"] = *r.actor;
  out["created_at"] = r.created_at;
  if (r.summary) out["summary"] = *r.summary;
  return out;
}

// `commit show`'s touched tables: [{table_key, inserted, updated, deleted}].
Json TouchedTablesJson(const commit::ChangeSet& c) {
  Json tables = Json::array();
  for (const commit::TableChangeSet& t : c.tables) {
    tables.push_back(Json{{"table_key", t.table_key},
                          {"inserted", t.inserted_count},
                          {"updated", t.updated_count},
                          {"deleted", t.deleted_count}});
  }
  return tables;
}

// OmniGraph's snapshot object of one read view.
Json SnapshotJson(const engine::Snapshot& s, const std::string& branch) {
  const commit::GraphState& state = s.state();
  Json datasets = Json::array();
  for (const auto& [id, t] : state.tables) {
    const std::string& key = t.registration.table_key;
    const size_t colon = key.find(':');
    datasets.push_back(Json{{"entity_kind", t.registration.kind},
                            {"type_name", colon == std::string::npos ? key : key.substr(colon + 1)},
                            {"dataset_path", TableId{id.stable_table_id, id.incarnation}.Root()},
                            {"published_dataset_version", t.pin.target_version},
                            {"entity_count", t.pin.entity_count}});
  }
  return Json{{"graph_commit_id", state.head_commit_id},
              {"graph_branch", branch},
              {"graph_manifest_version", state.seq},
              {"internal_schema_version", state.schema.identity_version},
              {"datasets", datasets}};
}

Json BranchJson(const commit::BranchInfo& b) {
  Json out = Json::object();
  out["name"] = b.branch;
  out["head_commit_id"] = b.head_commit_id;
  out["head_seq"] = b.head_seq;
  if (b.fork_commit_id) out["fork_commit_id"] = *b.fork_commit_id;
  return out;
}

// The engine's progress events as the public API's (none without a callback).
engine::ProgressSink ProgressSinkOf(const std::function<void(const api::Progress&)>& callback) {
  if (!callback) return nullptr;
  return [callback](const engine::ProgressEvent& e) {
    api::Progress p;
    p.operation = std::string(e.operation);
    p.phase = std::string(e.phase);
    p.unit = std::string(e.unit);
    p.done = e.done;
    p.total = e.total;
    p.bytes_done = e.bytes_done;
    p.bytes_total = e.bytes_total;
    p.elapsed_micros = e.elapsed_micros;
    p.finished = e.finished;
    callback(p);
  };
}

// The state behind one api::Database, and its calls in the engine's types.
class Handle {
 public:
  static Result<std::unique_ptr<Handle>> Init(std::string_view uri, std::string_view schema_source,
                                              const DatabaseOptions& options) {
    OMNIGRAPH_ASSIGN_OR_RETURN(CountedRuntime rt, RuntimeFor(uri, options));
    engine::InitOptions init;
    init.actor = options.actor;
    init.checkpoint_interval = options.checkpoint_interval;
    init.force = options.init_force;
    auto handle = std::make_unique<Handle>(uri);
    handle->counting_ = std::move(rt.counting);
    handle->progress_ = ProgressSinkOf(options.progress);
    OMNIGRAPH_RETURN_IF_ERROR(handle->SetExternalBlobs(options));
    engine::InitReport report;
    OMNIGRAPH_ASSIGN_OR_RETURN(handle->graph_,
                               Graph::Init(rt.runtime, schema_source, init, &report));
    handle->init_report_ = report.ToJson();
    handle->graph_->SetGroupCommit(engine::GroupCommitOptions{options.group_commit});
    handle->feed_ = std::make_unique<engine::ChangeFeed>(*handle->graph_);
    return handle;
  }

  static Result<std::unique_ptr<Handle>> Open(std::string_view uri,
                                              const DatabaseOptions& options) {
    OMNIGRAPH_ASSIGN_OR_RETURN(CountedRuntime rt, RuntimeFor(uri, options));
    auto handle = std::make_unique<Handle>(uri);
    handle->counting_ = std::move(rt.counting);
    handle->progress_ = ProgressSinkOf(options.progress);
    OMNIGRAPH_RETURN_IF_ERROR(handle->SetExternalBlobs(options));
    OMNIGRAPH_ASSIGN_OR_RETURN(handle->graph_, Graph::Open(rt.runtime));
    handle->graph_->SetGroupCommit(engine::GroupCommitOptions{options.group_commit});
    handle->feed_ = std::make_unique<engine::ChangeFeed>(*handle->graph_);
    return handle;
  }

  explicit Handle(std::string_view uri) : uri_(uri) {}

  // The graph's external-Blob allow rules (DatabaseOptions::external_blobs), which every load
  // and mutation of this handle applies. InvalidArgument for rules that do not validate.
  Status SetExternalBlobs(const DatabaseOptions& options) {
    std::vector<engine::ExternalBlobBase> bases;
    for (const api::ExternalBlobBase& b : options.external_blobs) bases.push_back({b.uri, b.scope});
    OMNIGRAPH_ASSIGN_OR_RETURN(engine::ExternalBlobRules rules,
                               engine::ExternalBlobRules::Make(bases));
    external_blobs_ = std::make_shared<const engine::ExternalBlobRules>(std::move(rules));
    return Status::Ok();
  }
  const Json& init_report() const { return init_report_; }

  const std::string& uri() const { return uri_; }
  storage::OpCounts StoreCalls() const { return counting_->Snapshot(); }

  Result<Json> CreateBranch(std::string_view name, std::string_view from, const Actor& actor) {
    OMNIGRAPH_RETURN_IF_ERROR(graph_->CreateBranch(name, from, std::nullopt, actor).status());
    Json out = Json::object();
    out["name"] = std::string(name);
    out["from"] = std::string(from);
    out["uri"] = uri_;
    if (actor) out["actor_id"] = *actor;
    return out;
  }

  Result<Json> DeleteBranch(std::string_view name, const Actor& actor) {
    OMNIGRAPH_RETURN_IF_ERROR(graph_->DeleteBranch(name, actor));
    Json out = Json::object();
    out["name"] = std::string(name);
    out["uri"] = uri_;
    if (actor) out["actor_id"] = *actor;
    return out;
  }

  // Whether `actor` made `r`: its actor, or a member of a group commit.
  static bool MadeBy(const commit::Record& r, std::string_view actor) {
    if (r.actor && *r.actor == actor) return true;
    return std::any_of(r.members.begin(), r.members.end(), [actor](const commit::BatchMember& m) {
      return m.actor && *m.actor == actor;
    });
  }

  Result<Json> ListBranches() {
    OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<commit::BranchInfo> all, graph_->ListBranches());
    Json out = Json::array();
    for (const commit::BranchInfo& b : all) out.push_back(BranchJson(b));
    return out;
  }

  Result<Json> ListCommits(std::string_view branch, size_t limit, std::string_view page_token,
                           std::string_view actor) {
    commit::HistoryPosition from;
    if (page_token.empty()) {
      OMNIGRAPH_ASSIGN_OR_RETURN(engine::Snapshot head, graph_->SnapshotOfBranch(branch));
      from = commit::HistoryPosition{head.state().stream, head.state().seq};
    } else {
      OMNIGRAPH_ASSIGN_OR_RETURN(from, commit::HistoryPosition::FromCursor(page_token));
    }
    Json commits = Json::array();
    std::optional<commit::HistoryPosition> next = from;
    // With an actor, each read asks for no more records than matches are still wanted, so a
    // page never overshoots `limit` and `next` resumes right after the last record scanned.
    while (commits.size() < limit && next) {
      const size_t page = std::min(limit - commits.size(), commit::kHistoryPageSizeMax);
      OMNIGRAPH_ASSIGN_OR_RETURN(commit::HistoryPage got,
                                 commit::ReadHistory(graph_->runtime(), *next, page));
      for (const commit::Record& r : got.commits) {
        if (actor.empty() || MadeBy(r, actor)) commits.push_back(CommitJson(r));
      }
      next = got.next;
    }
    Json out = Json{{"commits", commits}};
    if (next) out["next_page_token"] = next->ToCursor();
    return out;
  }

  // The merge's output; for conflicts MergeConflicts, with `conflicts` set to their array.
  Result<Json> Merge(std::string_view source, const MergeOptions& options, const Actor& actor,
                     Json& conflicts) {
    engine::MergeRequest request{std::string(source), options.target, actor, progress_};
    OMNIGRAPH_ASSIGN_OR_RETURN(engine::MergeResult merged, engine::Merge(*graph_, request));
    if (merged.outcome == engine::MergeOutcome::kConflicts) {
      conflicts = engine::MergeConflictsJson(merged.conflicts);
      return engine::MergeConflictsStatus(request, merged.conflicts);
    }
    Json out = {{"source", std::string(source)},
                {"target", options.target},
                {"outcome", engine::MergeOutcomeName(merged.outcome)}};
    if (merged.commit_id) out["commit"] = *merged.commit_id;
    if (actor) out["actor_id"] = *actor;
    if (options.delete_branch) {
      const Status deleted = graph_->DeleteBranch(source, actor);
      out["branch_deleted"] = deleted.ok();
      if (!deleted.ok()) out["branch_delete_error"] = deleted.message();
    }
    return out;
  }

  // A merge's preview (engine::PreviewMerge): conflicts are its answer, not an error.
  Result<Json> PreviewMerge(std::string_view source, std::string_view target) {
    engine::MergeRequest request{std::string(source), std::string(target), std::nullopt, nullptr};
    OMNIGRAPH_ASSIGN_OR_RETURN(engine::MergeResult preview, engine::PreviewMerge(*graph_, request));
    return engine::MergePreviewJson(request, preview);
  }

  // The diff of two read views (engine/ops/diff.h), each named as it was asked for (`branch` for a
  // branch head).
  Result<Json> Diff(const api::DiffRequest& r) {
    OMNIGRAPH_ASSIGN_OR_RETURN(engine::Snapshot from, SnapshotFor(r.from));
    OMNIGRAPH_ASSIGN_OR_RETURN(engine::Snapshot to, SnapshotFor(r.to));
    OMNIGRAPH_ASSIGN_OR_RETURN(
        Json out,
        engine::Diff(*graph_, from, to,
                     engine::CommitChangesRequest{r.limit, r.page_token, FilterOf(r.filter)}));
    if (!r.from.snapshot) out["from"]["branch"] = r.from.branch;
    if (!r.to.snapshot) out["to"]["branch"] = r.to.branch;
    return out;
  }

  Result<Json> ShowCommit(std::string_view commit_id) {
    OMNIGRAPH_ASSIGN_OR_RETURN(commit::Record r,
                               commit::LookupCommit(*graph_->runtime().store, commit_id));
    if (r.kind != commit::RecordKind::kCommit) {
      return Status(Code::kCommitNotFound, "'" + std::string(commit_id) + "' is not a commit");
    }
    Json out = CommitJson(r);
    OMNIGRAPH_ASSIGN_OR_RETURN(commit::ChangeSet changes, CountsOf(r));
    out["tables"] = TouchedTablesJson(changes);
    if (changes.schema_boundary) out["schema_boundary"] = true;
    if (!r.members.empty()) out["members"] = BatchMembersJson(r);
    if (const Json* key = r.idempotency_key.is_object() ? &r.idempotency_key : nullptr) {
      out["idempotency_key"] = key->value("key", Json(nullptr));
    }
    return out;
  }

  Result<Json> CommitChanges(std::string_view commit_id, const api::CommitChangesRequest& request) {
    return engine::CommitChanges(
        *graph_, commit_id,
        engine::CommitChangesRequest{request.limit, request.page_token, FilterOf(request.filter)});
  }

  Result<Json> PollChanges(const api::ChangePoll& poll) {
    engine::FeedRequest request;
    request.branch = poll.branch;
    request.start = poll.start;
    request.cursor = poll.cursor;
    request.limit = poll.limit;
    request.filter = FilterOf(poll.filter);
    return feed_->Poll(request);
  }

  Status ChangesBaseline(std::string_view branch, const api::ChangeFilter& filter,
                         const std::function<Status(std::string_view chunk)>& sink) {
    return feed_->Baseline(branch, FilterOf(filter), sink);
  }

  static engine::ChangeFilter FilterOf(const api::ChangeFilter& f) {
    return engine::ChangeFilter{{f.kinds.begin(), f.kinds.end()},
                                {f.types.begin(), f.types.end()},
                                {f.ops.begin(), f.ops.end()}};
  }

  Result<Json> SnapshotOf(const ReadTarget& target) {
    if (!target.snapshot) {
      OMNIGRAPH_ASSIGN_OR_RETURN(engine::Snapshot head, graph_->SnapshotOfBranch(target.branch));
      return SnapshotJson(head, target.branch);
    }
    OMNIGRAPH_ASSIGN_OR_RETURN(engine::Snapshot at, graph_->SnapshotAtCommit(*target.snapshot));
    OMNIGRAPH_ASSIGN_OR_RETURN(commit::Record r,
                               commit::LookupCommit(*graph_->runtime().store, *target.snapshot));
    return SnapshotJson(at, r.branch.value_or(""));
  }

  Result<Json> Load(std::string_view ndjson, std::string_view mode, const WriteTarget& target,
                    const Actor& actor, const engine::Authorize& authorize) {
    engine::StringLines lines(ndjson);
    return LoadLines(
        lines, ndjson.size(), [&] { return Result<std::string>(Sha256Hex(ndjson)); }, mode, target,
        actor, authorize);
  }

  Result<Json> LoadFile(const std::string& path, std::string_view mode, const WriteTarget& target,
                        const Actor& actor, const engine::Authorize& authorize) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
      return InvalidArgument("cannot read '" + path + "': it is a directory, not a file");
    }
    Result<std::unique_ptr<engine::FileLines>> lines = engine::FileLines::Open(path);
    if (!lines.ok()) {
      return InvalidArgument("cannot read '" + path + "': " + std::strerror(errno));
    }
    // The key's request names the whole input: hash the file in a pass of its own first.
    auto content_sha = [&] { return HashFile(path); };
    return LoadLines(**lines, (*lines)->size_bytes(), content_sha, mode, target, actor, authorize);
  }

  Result<Json> LoadStream(const engine::ChunkReader& read, std::string_view mode,
                          const WriteTarget& target, const Actor& actor,
                          const engine::Authorize& authorize) {
    if (!target.idempotency_key) {
      engine::ReaderLines lines(read, "the load's reader");
      return LoadLines(lines, std::nullopt, nullptr, mode, target, actor, authorize);
    }
    // A keyed load's request names the whole input before the load starts: spool it to a
    // temporary file (bounded memory), hashing as it goes, and load from there.
    OMNIGRAPH_ASSIGN_OR_RETURN(std::unique_ptr<TempFile> spool, TempFile::Create());
    Sha256Hasher hasher;
    std::string chunk(engine::ReaderLines::kChunkBytes, '\0');
    while (true) {
      OMNIGRAPH_ASSIGN_OR_RETURN(size_t got, read(chunk.data(), chunk.size()));
      if (got == 0) break;
      const std::string_view piece(chunk.data(), std::min(got, chunk.size()));
      hasher.Update(piece);
      OMNIGRAPH_RETURN_IF_ERROR(spool->Append(piece));
    }
    const std::string sha = hasher.FinishHex();
    uint64_t offset = 0;
    engine::ReaderLines lines(
        [&](char* buffer, size_t capacity) -> Result<size_t> {
          OMNIGRAPH_ASSIGN_OR_RETURN(size_t n, spool->ReadAt(offset, std::span(buffer, capacity)));
          offset += n;
          return n;
        },
        "the load's reader");
    return LoadLines(
        lines, spool->size(), [&] { return Result<std::string>(sha); }, mode, target, actor,
        authorize);
  }

  Status Export(const ReadTarget& target, const std::vector<std::string>& types,
                const std::function<Status(std::string_view chunk)>& sink) {
    // At a past commit a type may be named as it is named today (engine.md "Reads at a past
    // commit").
    OMNIGRAPH_ASSIGN_OR_RETURN(engine::Snapshot at, NamedSnapshotFor(target));
    engine::ExportOptions options;
    options.types = types;
    options.progress = progress_;
    return engine::Export(at, options, sink);
  }

  Result<Json> StatBlob(const api::BlobSelector& cell, const ReadTarget& target) {
    OMNIGRAPH_ASSIGN_OR_RETURN(engine::LocatedBlob blob, LocateBlob(cell, target));
    return engine::BlobStatJson(blob);
  }

  Result<Json> ReadBlob(const api::BlobSelector& cell, const ReadTarget& target,
                        std::optional<api::BlobRange> range,
                        const std::function<Status(std::string_view chunk)>& sink) {
    if (range && range->end <= range->start) {
      return InvalidArgument("a Blob byte range must hold at least one byte");
    }
    OMNIGRAPH_ASSIGN_OR_RETURN(engine::LocatedBlob blob, LocateBlob(cell, target));
    if (blob.external_uri) {
      // OmniGraph's words: the graph never opens a caller-owned object.
      return Status(Code::kUnsupported,
                    "external Blob is not downloaded; URI: " + *blob.external_uri +
                        "; use `blob stat --json` to inspect the descriptor");
    }
    const uint64_t size = blob.cell.size();
    uint64_t start = 0, end = size;
    if (range) {
      if (range->start >= size) {
        return InvalidArgument("the byte range starting at " + std::to_string(range->start) +
                               " is not satisfiable: the Blob is " + std::to_string(size) +
                               " bytes");
      }
      start = range->start;
      end = std::min(range->end, size);
    }
    OMNIGRAPH_RETURN_IF_ERROR(engine::ReadBlob(blob, start, end, sink));
    Json out = engine::BlobStatJson(blob);
    out["start"] = start;
    out["end"] = end;
    return out;
  }

  Result<std::string> ResolveCommit(const ReadTarget& target) {
    if (!target.snapshot) {
      OMNIGRAPH_ASSIGN_OR_RETURN(engine::Snapshot head, graph_->SnapshotOfBranch(target.branch));
      return head.commit_id();
    }
    OMNIGRAPH_ASSIGN_OR_RETURN(Json commit, ShowCommit(*target.snapshot));
    return commit["graph_commit_id"].get<std::string>();
  }

  Result<Json> Mutate(std::string_view source, std::string_view name, const Json& params,
                      const WriteTarget& target, const Actor& actor,
                      const engine::Authorize& authorize) {
    if (target.from) return InvalidArgument("mutate does not create branches; create it first");
    if (!params.is_object()) return InvalidArgument("parameters must be a JSON object");
    engine::MutationOptions options;
    options.branch = target.branch;
    options.expected_head = target.if_commit;
    options.actor = actor;
    options.authorize = authorize;
    options.external_blobs = external_blobs_;
    options.prepared = &prepared_;
    if (target.idempotency_key) {
      const Json request = Json::array(
          {"mutate", target.branch, source, name, params, target.if_commit.value_or("")});
      options.idempotency =
          engine::Idempotency{*target.idempotency_key, Sha256Hex(request.dump()), Json::object()};
    }
    OMNIGRAPH_ASSIGN_OR_RETURN(engine::MutationResult r,
                               engine::Mutate(*graph_, source, name, params, options));
    Json out = Json::object();
    out["query_name"] = r.query_name;
    out["branch"] = r.branch;
    out["affected_nodes"] = r.affected_nodes;
    out["affected_edges"] = r.affected_edges;
    if (r.actor) out["actor_id"] = *r.actor;
    out["commit"] = r.commit_record ? CommitJson(*r.commit_record) : Json(nullptr);
    if (r.merge_outcome) out["outcome"] = *r.merge_outcome;
    if (!r.warnings.empty()) out["warnings"] = r.warnings;
    return out;
  }

  Result<OrderedJson> Query(std::string_view source, std::string_view name, const Json& params,
                            const ReadTarget& target, const engine::Authorize& authorize) {
    engine::RunOptions options;
    options.authorize = authorize;
    options.cache = &cache_;
    options.prepared = &prepared_;
    if (target.snapshot) {
      options.snapshot = target.snapshot;
    } else {
      options.branch = target.branch;
    }
    return engine::RunReadJson(*graph_, source, name, params, options);
  }

  Result<Json> PlanSchema(std::string_view schema_source, bool allow_data_loss) {
    schema::PlanOptions options;
    options.allow_data_loss = allow_data_loss;
    OMNIGRAPH_ASSIGN_OR_RETURN(schema::MigrationPlan plan,
                               engine::PlanSchema(*graph_, schema_source, options));
    Json out = plan.ToJson();
    out["uri"] = uri_;
    out["step_count"] = plan.steps.size();
    return out;
  }

  Result<Json> ApplySchema(std::string_view schema_source, bool allow_data_loss,
                           const Actor& actor) {
    engine::SchemaApplyOptions options;
    options.plan.allow_data_loss = allow_data_loss;
    options.actor = actor;
    OMNIGRAPH_ASSIGN_OR_RETURN(engine::SchemaApplyResult r,
                               engine::ApplySchema(*graph_, schema_source, options));
    Json plan = r.plan.ToJson();
    Json out = Json::object();
    out["uri"] = uri_;
    out["supported"] = plan["supported"];
    out["applied"] = r.applied;
    out["step_count"] = r.plan.steps.size();
    out["steps"] = plan["steps"];
    out["graph_manifest_version"] = r.seq;
    if (r.applied) out["commit"] = r.commit_id;
    return out;
  }

  // The per-table counts of a commit: from its change set (no further read), for genesis its
  // pins, else from the exact diff against its first parent (a record without a change set).
  Result<commit::ChangeSet> CountsOf(const commit::Record& r) {
    if (r.change_set) return *r.change_set;
    commit::ChangeSet c;
    if (!r.parent_commit_id) {
      for (const TablePin& p : r.pins) {
        commit::TableChangeSet t;
        t.stable_table_id = p.stable_table_id;
        t.incarnation = p.incarnation;
        t.table_key = p.table_key;
        t.inserted_count = p.entity_count;
        c.tables.push_back(std::move(t));
      }
      return c;
    }
    OMNIGRAPH_ASSIGN_OR_RETURN(engine::Snapshot before,
                               graph_->SnapshotAtCommit(*r.parent_commit_id));
    OMNIGRAPH_ASSIGN_OR_RETURN(engine::Snapshot after, graph_->SnapshotAtCommit(r.commit_id));
    return engine::DiffChangeSet(graph_->tables(), before.state(), after.state());
  }

  Result<Json> ShowSchema(const ReadTarget& target) {
    OMNIGRAPH_ASSIGN_OR_RETURN(engine::Snapshot head, SnapshotFor(target));
    const commit::SchemaRef& ref = head.state().schema;
    OMNIGRAPH_ASSIGN_OR_RETURN(schema::SchemaArchive archive, graph_->ReadSchemaArchive(ref));
    Json out = Json::object();
    out["source"] = archive.source;
    out["ir_hash"] = ref.ir_hash;
    out["identity_version"] = ref.identity_version;
    out["graph_commit_id"] = head.commit_id();
    return out;
  }

  Result<Json> Cleanup(const CleanupRequest& request) {
    engine::CleanupOptions options;
    options.keep = request.keep;
    options.older_than_micros = request.older_than_micros;
    options.dry_run = request.dry_run;
    options.progress = progress_;
    if (request.grace_micros) options.grace_micros = *request.grace_micros;
    OMNIGRAPH_ASSIGN_OR_RETURN(engine::GraphCleanupReport r, engine::Cleanup(*graph_, options));
    Json tables = Json::array();
    for (const engine::TableCleanupRow& t : r.tables) {
      Json row = Json::object();
      row["table_key"] = t.table_key;
      row["versions_removed"] = t.versions_removed;
      row["fragments_removed"] = t.fragments_removed;
      row["deletion_vectors_removed"] = t.deletion_vectors_removed;
      row["bytes_removed"] = t.bytes_removed;
      row["versions_spared"] = t.versions_spared;
      if (t.error) row["error"] = *t.error;
      tables.push_back(std::move(row));
    }
    Json out = Json::object();
    out["dry_run"] = r.dry_run;
    out["checkpoints_removed"] = r.checkpoints_removed.size();
    out["objects_removed"] = r.removed.size();
    out["bytes_removed"] = r.bytes_removed;
    out["tables"] = std::move(tables);
    return out;
  }

  Result<Json> Optimize(std::string_view branch, const Actor& actor) {
    engine::OptimizeOptions options;
    options.branch = std::string(branch);
    options.actor = actor;
    OMNIGRAPH_ASSIGN_OR_RETURN(engine::OptimizeReport r, engine::Optimize(*graph_, options));
    Json tables = Json::array();
    for (const engine::OptimizeTableRow& t : r.tables) {
      tables.push_back(Json{{"type_key", t.type_key},
                            {"fragments_removed", t.fragments_removed},
                            {"fragments_added", t.fragments_added},
                            {"committed", t.committed},
                            {"skipped", t.skipped},
                            {"published_dataset_version", t.published_dataset_version},
                            {"indexes_built", t.indexes_built},
                            {"pending_indexes", t.pending_indexes}});
    }
    Json out = Json::object();
    out["uri"] = uri_;
    out["branch"] = r.branch;
    out["commit"] = r.commit ? CommitJson(*r.commit) : Json(nullptr);
    out["tables"] = std::move(tables);
    return out;
  }

  Result<Json> Repair(bool confirm) {
    commit::RepairOptions options;
    options.confirm = confirm;
    options.stream = commit::StreamOptions{graph_->stamp().checkpoint_interval, true};
    OMNIGRAPH_ASSIGN_OR_RETURN(commit::RepairReport r, commit::Repair(graph_->runtime(), options));
    Json out = r.ToJson();
    out["confirmed"] = confirm;
    return out;
  }

  Result<OrderedJson> Lint(std::string_view query_source, std::string_view branch) {
    OMNIGRAPH_ASSIGN_OR_RETURN(engine::Snapshot head, graph_->SnapshotOfBranch(branch));
    return query::LintQuerySource(head.catalog(), query_source).ToJson();
  }

 private:
  // The Blob `cell` names at `target` (at a past commit, by today's names as well, as Export's).
  Result<engine::LocatedBlob> LocateBlob(const api::BlobSelector& cell, const ReadTarget& target) {
    OMNIGRAPH_ASSIGN_OR_RETURN(engine::Snapshot at, NamedSnapshotFor(target));
    return engine::LocateBlob(at,
                              engine::BlobSelector{cell.entity, cell.type, cell.id, cell.property});
  }

  // A branch head through its warm handle, or the state at one commit.
  Result<engine::Snapshot> SnapshotFor(const ReadTarget& target) {
    if (target.snapshot) return graph_->SnapshotAtCommit(*target.snapshot);
    return graph_->SnapshotOfBranch(target.branch);
  }

  // SnapshotFor for a read that names types: at a past commit its schema answers to today's
  // names as well, and a name today gives to another type is refused (Graph::WithTodaysNames).
  Result<engine::Snapshot> NamedSnapshotFor(const ReadTarget& target) {
    OMNIGRAPH_ASSIGN_OR_RETURN(engine::Snapshot at, SnapshotFor(target));
    if (!target.snapshot) return at;
    return graph_->WithTodaysNames(at);
  }

  // A load of `lines` (`input_bytes` long when known). `content_sha`, the hash of the whole
  // input, is asked for only when the target carries an idempotency key.
  Result<Json> LoadLines(engine::LineSource& lines, std::optional<uint64_t> input_bytes,
                         const std::function<Result<std::string>()>& content_sha,
                         std::string_view mode, const WriteTarget& target, const Actor& actor,
                         const engine::Authorize& authorize) {
    OMNIGRAPH_ASSIGN_OR_RETURN(engine::LoadMode m, engine::ParseLoadMode(mode));
    if (target.if_commit) {
      return InvalidArgument("load does not take an expected commit; use a branch and merge");
    }
    engine::LoadOptions options;
    options.from = target.from;
    options.actor = actor;
    options.progress = progress_;
    options.input_bytes = input_bytes;
    options.authorize = authorize;
    options.external_blobs = external_blobs_;
    if (target.idempotency_key) {
      OMNIGRAPH_ASSIGN_OR_RETURN(std::string sha, content_sha());
      // The request a key names: where it goes and what it loads.
      const Json request =
          Json::array({"load", target.branch, mode, target.from.value_or(""), std::move(sha)});
      options.idempotency =
          engine::Idempotency{*target.idempotency_key, Sha256Hex(request.dump()), Json::object()};
    }
    OMNIGRAPH_ASSIGN_OR_RETURN(engine::LoadResult r,
                               engine::LoadFrom(*graph_, target.branch, lines, m, options));
    Json out = r.ToJson();
    out["uri"] = uri_;
    out["commit"] = r.commit_record ? CommitJson(*r.commit_record) : Json(nullptr);
    return out;
  }

  // The SHA-256 of the file's bytes (what a string's hash covers), read a chunk at a time.
  static Result<std::string> HashFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return InvalidArgument("cannot read '" + path + "': " + std::strerror(errno));
    Sha256Hasher hasher;
    std::string chunk(engine::ReaderLines::kChunkBytes, '\0');
    while (in) {
      in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
      hasher.Update(std::string_view(chunk.data(), static_cast<size_t>(in.gcount())));
    }
    if (in.bad()) return Status(Code::kTransient, "reading '" + path + "' failed");
    return hasher.FinishHex();
  }

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

// Lint against a schema source that no graph holds (checked as a new graph's would be).
Result<OrderedJson> LintOffline(std::string_view schema_source, std::string_view query_source) {
  OMNIGRAPH_ASSIGN_OR_RETURN(schema::SchemaIr ir, schema::AcceptInitial(schema_source));
  OMNIGRAPH_ASSIGN_OR_RETURN(schema::Catalog catalog, schema::Catalog::Build(std::move(ir)));
  return query::LintQuerySource(catalog, query_source).ToJson();
}

// The engine's sink for a caller's (statuses converted at the boundary).
std::function<Status(std::string_view)> EngineSink(const ApiSink& sink) {
  return [&sink](std::string_view chunk) { return FromApi(sink(chunk)); };
}

// The branch a read of `target` names: none for a read by commit id (docs/design/policy.md
// "Unnamed branches").
std::optional<std::string> ReadBranch(const ReadTarget& target) {
  if (target.snapshot) return std::nullopt;
  return target.branch;
}

// The policy a handle was opened with and the graph id it is asked about.
struct PolicyGate {
  std::shared_ptr<const api::Policy> policy;
  std::optional<std::string> graph;
  std::function<void(const api::PolicyRequest&, const api::PolicyDecision&)> on_denied;
};

// A Handle and the actor its writes publish as. Each call passes the policy gate (Gate), then
// converts at the boundary and nothing else; WithActor makes another over the same Handle.
class LocalBackend final : public Backend {
 public:
  LocalBackend(std::shared_ptr<Handle> handle, Actor actor, PolicyGate gate)
      : handle_(std::move(handle)), actor_(std::move(actor)), gate_(std::move(gate)) {}

  // The one gate every call passes (docs/design/policy.md "Enforcement"): without a policy it
  // allows everything; with one, the handle's actor must be allowed `action` on `branch` /
  // into `target`, and a handle without an actor is refused (fail closed). A refusal is
  // Configuration "permission denied: ..." naming the deciding rule, and nothing is done.
  //
  // `types` are the node and edge types the call touches (docs/design/policy.md "Per-type
  // authority"): kNoTypes for a call that shows no entity of any type, or whose engine asks
  // again with the types it touches (Authorizer); kAllTypes for one that may show every type.
  api::Status Gate(std::string_view action, std::optional<std::string> branch,
                   std::optional<std::string> target,
                   std::optional<std::vector<std::string>> types) const {
    if (!gate_.policy) return api::Status::Ok();
    const api::PolicyRequest request{
        actor_,      std::string(action), std::move(branch), std::move(target),
        gate_.graph, std::nullopt,        std::move(types)};
    const api::PolicyDecision d = gate_.policy->Decide(request);
    if (d.allowed) return api::Status::Ok();
    if (gate_.on_denied) gate_.on_denied(request, d);
    return api::Status(api::Code::kConfiguration, "permission denied: " + d.reason,
                       d.rule.empty() ? "policy" : "policy rule " + d.rule);
  }

  // A Blob read is a read of its type (docs/design/blob.md "Authorization").
  api::Status GateBlob(const api::BlobSelector& cell, const ReadTarget& target) const {
    return Gate("read", ReadBranch(target), std::nullopt, std::vector<std::string>{cell.type});
  }

  const std::string& uri() const override { return handle_->uri(); }
  api::StoreCallCounts StoreCalls() const override {
    const storage::OpCounts c = handle_->StoreCalls();
    return api::StoreCallCounts{c.gets,         c.heads,   c.lists,      c.puts,  c.put_if_absent,
                                c.put_if_match, c.deletes, c.bytes_read, c.rounds};
  }
  std::shared_ptr<Backend> WithActor(Actor actor) const override {
    return std::make_shared<LocalBackend>(handle_, std::move(actor), gate_);
  }
  std::shared_ptr<Backend> WithPolicy(const api::DatabaseOptions& options) const override;
  api::Json InitReport() const override { return ToApi(handle_->init_report()); }

  api::Result<api::Json> CreateBranch(std::string_view name, std::string_view from) override {
    if (api::Status denied = Gate("branch_create", std::string(from), std::string(name), kNoTypes);
        !denied.ok())
      return denied;
    return ToApi(handle_->CreateBranch(name, from, actor_));
  }
  api::Result<api::Json> DeleteBranch(std::string_view name) override {
    if (api::Status denied = Gate("branch_delete", std::nullopt, std::string(name), kNoTypes);
        !denied.ok())
      return denied;
    return ToApi(handle_->DeleteBranch(name, actor_));
  }
  api::Result<api::Json> ListBranches() override {
    if (api::Status denied = Gate("read", std::nullopt, std::nullopt, kNoTypes); !denied.ok())
      return denied;
    return ToApi(handle_->ListBranches());
  }
  api::Result<api::Json> Merge(std::string_view source, const MergeOptions& options,
                               api::Json* conflicts) override {
    if (api::Status denied = Gate("branch_merge", std::string(source), options.target, kNoTypes);
        !denied.ok())
      return denied;
    // --delete-branch is its own branch_delete check; its refusal does not fail the merge.
    const api::Status may_delete =
        options.delete_branch ? Gate("branch_delete", std::nullopt, std::string(source), kNoTypes)
                              : api::Status::Ok();
    MergeOptions run = options;
    run.delete_branch = options.delete_branch && may_delete.ok();
    Json engine_conflicts;
    api::Result<api::Json> out = ToApi(handle_->Merge(source, run, actor_, engine_conflicts));
    if (conflicts != nullptr && !engine_conflicts.is_null()) *conflicts = ToApi(engine_conflicts);
    if (out.ok() && !may_delete.ok()) {
      (*out)["branch_deleted"] = false;
      (*out)["branch_delete_error"] = may_delete.message();
    }
    return out;
  }
  // A preview reads both branches and publishes nothing: `read` of each (docs/design/policy.md).
  api::Result<api::Json> PreviewMerge(std::string_view source, std::string_view target) override {
    for (std::string_view branch : {source, target}) {
      if (api::Status denied = Gate("read", std::string(branch), std::nullopt, kAllTypes);
          !denied.ok())
        return denied;
    }
    return ToApi(handle_->PreviewMerge(source, target));
  }
  api::Result<api::Json> Diff(const api::DiffRequest& request) override {
    std::optional<std::vector<std::string>> types;  // Every type, unless the page names some.
    if (!request.filter.types.empty()) types = request.filter.types;
    for (const ReadTarget* target : {&request.from, &request.to}) {
      if (api::Status denied = Gate("read", ReadBranch(*target), std::nullopt, types); !denied.ok())
        return denied;
    }
    return ToApi(handle_->Diff(request));
  }
  api::Result<api::Json> CommitHistory(std::string_view branch, size_t limit,
                                       std::string_view page_token,
                                       std::string_view actor) override {
    if (api::Status denied =
            Gate("read", page_token.empty() ? std::optional<std::string>(branch) : std::nullopt, {},
                 kNoTypes);
        !denied.ok())
      return denied;
    return ToApi(handle_->ListCommits(branch, limit, page_token, actor));
  }
  api::Result<api::Json> ShowCommit(std::string_view commit_id) override {
    if (api::Status denied = Gate("read", std::nullopt, std::nullopt, kNoTypes); !denied.ok())
      return denied;
    return ToApi(handle_->ShowCommit(commit_id));
  }
  api::Result<api::Json> CommitChanges(std::string_view commit_id,
                                       const api::CommitChangesRequest& request) override {
    std::optional<std::vector<std::string>> types;  // Every type, unless the page names some.
    if (!request.filter.types.empty()) types = request.filter.types;
    if (api::Status denied = Gate("read", std::nullopt, std::nullopt, types); !denied.ok())
      return denied;
    return ToApi(handle_->CommitChanges(commit_id, request));
  }
  api::Result<api::Json> Snapshot(const ReadTarget& target) override {
    if (api::Status denied = Gate("read", ReadBranch(target), std::nullopt, kNoTypes); !denied.ok())
      return denied;
    return ToApi(handle_->SnapshotOf(target));
  }
  api::Result<api::Json> PollChanges(const api::ChangePoll& poll) override {
    if (api::Status denied = Gate(
            "read", poll.cursor.empty() ? std::optional<std::string>(poll.branch) : std::nullopt,
            {}, kAllTypes);
        !denied.ok())
      return denied;
    return ToApi(handle_->PollChanges(poll));
  }
  api::Status ChangesBaseline(std::string_view branch, const api::ChangeFilter& filter,
                              const ApiSink& sink) override {
    if (api::Status denied = Gate("export", std::string(branch), std::nullopt, kAllTypes);
        !denied.ok())
      return denied;
    return ToApi(handle_->ChangesBaseline(branch, filter, EngineSink(sink)));
  }
  api::Result<api::Json> Load(std::string_view ndjson, std::string_view mode,
                              const WriteTarget& target) override {
    if (api::Status denied = GateWrite(target); !denied.ok()) return denied;
    return ToApi(handle_->Load(ndjson, mode, target, actor_, Authorizer()));
  }
  api::Result<api::Json> LoadFile(const std::string& path, std::string_view mode,
                                  const WriteTarget& target) override {
    if (api::Status denied = GateWrite(target); !denied.ok()) return denied;
    return ToApi(handle_->LoadFile(path, mode, target, actor_, Authorizer()));
  }
  api::Result<api::Json> LoadStream(const api::LoadReader& read, std::string_view mode,
                                    const WriteTarget& target) override {
    if (api::Status denied = GateWrite(target); !denied.ok()) return denied;
    // The engine's reader over the caller's (their statuses converted at the boundary).
    engine::ChunkReader engine_read = [&read](char* buffer, size_t capacity) -> Result<size_t> {
      api::Result<size_t> got = read(buffer, capacity);
      if (!got.ok()) return FromApi(got.status());
      return *got;
    };
    return ToApi(handle_->LoadStream(engine_read, mode, target, actor_, Authorizer()));
  }
  api::Status Export(const ReadTarget& target, const std::vector<std::string>& types,
                     const ApiSink& sink) override {
    if (api::Status denied = Gate("export", ReadBranch(target), std::nullopt, TypesOrAll(types));
        !denied.ok())
      return denied;
    return ToApi(handle_->Export(target, types, EngineSink(sink)));
  }
  api::Result<api::Json> StatBlob(const api::BlobSelector& cell,
                                  const ReadTarget& target) override {
    if (api::Status denied = GateBlob(cell, target); !denied.ok()) return denied;
    return ToApi(handle_->StatBlob(cell, target));
  }
  api::Result<api::Json> ReadBlob(const api::BlobSelector& cell, const ReadTarget& target,
                                  std::optional<api::BlobRange> range,
                                  const ApiSink& sink) override {
    if (api::Status denied = GateBlob(cell, target); !denied.ok()) return denied;
    return ToApi(handle_->ReadBlob(cell, target, range, EngineSink(sink)));
  }
  api::Result<std::string> ResolveCommit(const ReadTarget& target) override {
    if (api::Status denied = Gate("read", ReadBranch(target), std::nullopt, kNoTypes); !denied.ok())
      return denied;
    Result<std::string> commit = handle_->ResolveCommit(target);
    if (!commit.ok()) return ToApi(commit.status());
    return std::move(*commit);
  }
  api::Result<api::Json> Mutate(std::string_view source, std::string_view name,
                                const api::Json& params, const WriteTarget& target) override {
    // The engine asks the gate itself (Authorizer): `change` before it reads, then with the
    // types its effects write; a branch statement, the branch action it performs.
    return ToApi(handle_->Mutate(source, name, FromApi(params), target, actor_, Authorizer()));
  }
  api::Result<api::Json> Query(std::string_view source, std::string_view name,
                               const api::Json& params, const ReadTarget& target) override {
    if (api::Status denied = Gate("read", ReadBranch(target), std::nullopt, kNoTypes); !denied.ok())
      return denied;
    return ToApi(handle_->Query(source, name, FromApi(params), target, Authorizer()));
  }
  api::Result<api::Json> PlanSchema(std::string_view schema_source, bool allow_data_loss) override {
    if (api::Status denied = Gate("read", "main", std::nullopt, kNoTypes); !denied.ok())
      return denied;
    return ToApi(handle_->PlanSchema(schema_source, allow_data_loss));
  }
  api::Result<api::Json> ApplySchema(std::string_view schema_source,
                                     bool allow_data_loss) override {
    if (api::Status denied = Gate("schema_apply", std::nullopt, "main", kNoTypes); !denied.ok())
      return denied;
    return ToApi(handle_->ApplySchema(schema_source, allow_data_loss, actor_));
  }
  api::Result<api::Json> ShowSchema(const ReadTarget& target) override {
    if (api::Status denied = Gate("read", ReadBranch(target), std::nullopt, kNoTypes); !denied.ok())
      return denied;
    return ToApi(handle_->ShowSchema(target));
  }
  api::Result<api::Json> Cleanup(const CleanupRequest& request) override {
    if (api::Status denied = Gate("admin", std::nullopt, std::nullopt, kNoTypes); !denied.ok())
      return denied;
    return ToApi(handle_->Cleanup(request));
  }
  api::Result<api::Json> Optimize(std::string_view branch) override {
    if (api::Status denied = Gate("admin", std::nullopt, std::nullopt, kNoTypes); !denied.ok())
      return denied;
    return ToApi(handle_->Optimize(branch, actor_));
  }
  api::Result<api::Json> Repair(bool confirm) override {
    if (api::Status denied = Gate("admin", std::nullopt, std::nullopt, kNoTypes); !denied.ok())
      return denied;
    return ToApi(handle_->Repair(confirm));
  }
  api::Result<api::Json> Lint(std::string_view query_source, std::string_view branch) override {
    if (api::Status denied = Gate("read", std::string(branch), std::nullopt, kNoTypes);
        !denied.ok())
      return denied;
    return ToApi(handle_->Lint(query_source, branch));
  }

 private:
  static constexpr std::nullopt_t kAllTypes = std::nullopt;
  static inline const std::vector<std::string> kNoTypes{};

  // Export's types: those named, or every type.
  static std::optional<std::vector<std::string>> TypesOrAll(const std::vector<std::string>& types) {
    if (types.empty()) return kAllTypes;
    return types;
  }

  // The engine's gate for what a call turns out to touch (engine/write/authority.h); none without a
  // policy. A question with types reaches the policy only when a rule names types: otherwise
  // the answer is the one the entry gate (or the engine's pre-check) already had.
  engine::Authorize Authorizer() const {
    if (!gate_.policy) return nullptr;
    return [this](const engine::AuthorityRequest& r) -> Status {
      if (!r.types.empty() && !gate_.policy->HasTypedRules()) return Status::Ok();
      return FromApi(Gate(r.action, r.branch, r.target_branch, r.types));
    };
  }

  // A load or mutation of target.branch: `change` there, and `branch_create` too when the
  // write may create the branch (WriteTarget::from).
  api::Status GateWrite(const WriteTarget& target) const {
    if (api::Status denied = Gate("change", target.branch, std::nullopt, kNoTypes); !denied.ok())
      return denied;
    if (target.from) return Gate("branch_create", *target.from, target.branch, kNoTypes);
    return api::Status::Ok();
  }

  std::shared_ptr<Handle> handle_;
  Actor actor_;
  PolicyGate gate_;
};

PolicyGate GateOf(const DatabaseOptions& options) {
  PolicyGate gate{options.policy, std::nullopt, options.on_policy_denied};
  if (!options.policy_graph.empty()) gate.graph = options.policy_graph;
  return gate;
}

std::shared_ptr<Backend> LocalBackend::WithPolicy(const DatabaseOptions& options) const {
  return std::make_shared<LocalBackend>(handle_, actor_, GateOf(options));
}

}  // namespace

api::Result<std::shared_ptr<Backend>> InitLocalBackend(std::string_view uri,
                                                       std::string_view schema_source,
                                                       const DatabaseOptions& options) {
  Result<std::unique_ptr<Handle>> handle = Handle::Init(uri, schema_source, options);
  if (!handle.ok()) return ToApi(handle.status());
  return std::shared_ptr<Backend>(
      std::make_shared<LocalBackend>(std::move(*handle), options.actor, GateOf(options)));
}

api::Result<std::shared_ptr<Backend>> OpenLocalBackend(std::string_view uri,
                                                       const DatabaseOptions& options) {
  Result<std::unique_ptr<Handle>> handle = Handle::Open(uri, options);
  if (!handle.ok()) return ToApi(handle.status());
  return std::shared_ptr<Backend>(
      std::make_shared<LocalBackend>(std::move(*handle), options.actor, GateOf(options)));
}

api::Status CheckIdempotencyKey(std::string_view key) { return ToApi(ValidateIdempotencyKey(key)); }

int64_t SystemMonotonicMicros() { return storage::Runtime::SystemRuntimeClock().MonotonicMicros(); }

api::Json LibraryVersion() {
  return api::Json{{"version", OMNIGRAPH_VERSION_TEXT},
                   {"storage_stamp", commit::kStorageStamp},
                   {"build", OMNIGRAPH_BUILD_TEXT}};
}

api::Result<api::Json> LintWithSchemaSource(std::string_view schema_source,
                                            std::string_view query_source) {
  return ToApi(LintOffline(schema_source, query_source));
}

api::Result<api::Json> EmbedFileOffline(const api::EmbedFileRequest& request) {
  EmbedFileJob job;
  job.input = request.input;
  job.output = request.output;
  job.spec = FromApi(request.spec);
  if (request.mode == "fill_missing") {
    job.mode = EmbedFileMode::kFillMissing;
  } else if (request.mode == "reembed_all") {
    job.mode = EmbedFileMode::kReembedAll;
  } else if (request.mode == "clean") {
    job.mode = EmbedFileMode::kClean;
  } else {
    return ToApi(InvalidArgument("embed mode '" + request.mode +
                                 "' is not fill_missing, reembed_all or clean"));
  }
  job.types = request.types;
  job.selectors = request.selectors;
  return ToApi(RunEmbedFile(job, storage::Runtime::SystemRuntimeClock()));
}

}  // namespace omnigraph::engine
