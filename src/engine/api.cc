// The public API (include/omnigraph/omnigraph.h) over the engine.
#include "omnigraph/omnigraph.h"

#include "commit/history.h"
#include "commit/names.h"
#include "engine/export.h"
#include "engine/graph.h"
#include "engine/load.h"
#include "engine/mutate.h"
#include "engine/query.h"
#include "query/exec_cache.h"
#include "schema/archive.h"
#include "schema/planner.h"
#include "storage/uri.h"

namespace omnigraph {

using engine::Graph;
using schema::Value;

namespace {

Result<storage::Runtime> RuntimeFor(std::string_view uri, const DatabaseOptions& options) {
  storage::OpenOptions open;
  open.local.fsync = options.fsync;
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<storage::ObjectStore> store,
                             storage::OpenStore(uri, open));
  return storage::Runtime::ForStore(std::move(store), std::max<size_t>(1, options.threads));
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
  return out;
}

Json BranchJson(const commit::BranchInfo& b) {
  Json out = Json::object();
  out["name"] = b.branch;
  out["head_commit_id"] = b.head_commit_id;
  out["head_seq"] = b.head_seq;
  if (b.fork_commit_id) out["fork_commit_id"] = *b.fork_commit_id;
  return out;
}

}  // namespace

struct Database::Impl {
  std::string uri;
  DatabaseOptions options;
  std::unique_ptr<Graph> graph;
  // Table images and adjacencies shared by this handle's queries (keyed by table pins).
  query::ExecCache cache;
};

Database::Database(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Database::~Database() = default;

const std::string& Database::uri() const { return impl_->uri; }

Result<std::unique_ptr<Database>> Database::Init(std::string_view uri,
                                                 std::string_view schema_source,
                                                 const DatabaseOptions& options) {
  OMNIGRAPH_ASSIGN_OR_RETURN(storage::Runtime rt, RuntimeFor(uri, options));
  engine::InitOptions init;
  init.actor = options.actor;
  init.checkpoint_interval = options.checkpoint_interval;
  auto impl = std::make_unique<Impl>();
  OMNIGRAPH_ASSIGN_OR_RETURN(impl->graph, Graph::Init(rt, schema_source, init));
  impl->uri = std::string(uri);
  impl->options = options;
  return std::unique_ptr<Database>(new Database(std::move(impl)));
}

Result<std::unique_ptr<Database>> Database::Open(std::string_view uri,
                                                 const DatabaseOptions& options) {
  OMNIGRAPH_ASSIGN_OR_RETURN(storage::Runtime rt, RuntimeFor(uri, options));
  auto impl = std::make_unique<Impl>();
  OMNIGRAPH_ASSIGN_OR_RETURN(impl->graph, Graph::Open(rt));
  impl->uri = std::string(uri);
  impl->options = options;
  return std::unique_ptr<Database>(new Database(std::move(impl)));
}

Result<Json> Database::CreateBranch(std::string_view name, std::string_view from) {
  OMNIGRAPH_RETURN_IF_ERROR(
      impl_->graph->CreateBranch(name, from, std::nullopt, impl_->options.actor).status());
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<commit::BranchInfo> all, impl_->graph->ListBranches());
  for (const commit::BranchInfo& b : all) {
    if (b.branch == name) {
      Json out = BranchJson(b);
      out["parent_branch"] = std::string(from);
      return out;
    }
  }
  return Status(Code::kBranchNotFound, "branch '" + std::string(name) + "' vanished after create");
}

Status Database::DeleteBranch(std::string_view name) {
  return impl_->graph->DeleteBranch(name, impl_->options.actor);
}

Result<Json> Database::ListBranches() {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<commit::BranchInfo> all, impl_->graph->ListBranches());
  Json out = Json::array();
  for (const commit::BranchInfo& b : all) out.push_back(BranchJson(b));
  return out;
}

Result<Json> Database::ListCommits(std::string_view branch, size_t limit) {
  OMNIGRAPH_ASSIGN_OR_RETURN(engine::Snapshot head, impl_->graph->SnapshotOfBranch(branch));
  commit::HistoryPosition from{head.state().stream, head.state().seq};
  Json out = Json::array();
  while (out.size() < limit) {
    const size_t page = std::min(limit - out.size(), commit::kHistoryPageSizeMax);
    OMNIGRAPH_ASSIGN_OR_RETURN(commit::HistoryPage got,
                               commit::ReadHistory(impl_->graph->runtime(), from, page));
    for (const commit::Record& r : got.commits) out.push_back(CommitJson(r));
    if (!got.next) break;
    from = *got.next;
  }
  return out;
}

Result<Json> Database::ShowCommit(std::string_view commit_id) {
  OMNIGRAPH_ASSIGN_OR_RETURN(commit::Record r,
                             commit::LookupCommit(*impl_->graph->runtime().store, commit_id));
  if (r.kind != commit::RecordKind::kCommit) {
    return Status(Code::kCommitNotFound, "'" + std::string(commit_id) + "' is not a commit");
  }
  return CommitJson(r);
}

Result<Json> Database::Load(std::string_view ndjson, std::string_view mode,
                            const WriteTarget& target) {
  OMNIGRAPH_ASSIGN_OR_RETURN(engine::LoadMode m, engine::ParseLoadMode(mode));
  if (target.if_commit) {
    return InvalidArgument("load does not take an expected commit; use a branch and merge");
  }
  engine::LoadOptions options;
  options.from = target.from;
  options.actor = impl_->options.actor;
  OMNIGRAPH_ASSIGN_OR_RETURN(engine::LoadResult r,
                             engine::Load(*impl_->graph, target.branch, ndjson, m, options));
  return r.ToJson();
}

Status Database::Export(std::string_view branch, const std::vector<std::string>& types,
                        const std::function<Status(std::string_view chunk)>& sink) {
  OMNIGRAPH_ASSIGN_OR_RETURN(engine::Snapshot head, impl_->graph->SnapshotOfBranch(branch));
  engine::ExportOptions options;
  options.types = types;
  return engine::Export(head, options, sink);
}

Result<Json> Database::Mutate(std::string_view source, std::string_view name, const Json& params,
                              const WriteTarget& target) {
  if (target.from) return InvalidArgument("mutate does not create branches; create it first");
  if (!params.is_object()) return InvalidArgument("parameters must be a JSON object");
  engine::MutationOptions options;
  options.branch = target.branch;
  options.expected_head = target.if_commit;
  options.actor = impl_->options.actor;
  OMNIGRAPH_ASSIGN_OR_RETURN(engine::MutationResult r,
                             engine::Mutate(*impl_->graph, source, name, params, options));
  Json out = Json::object();
  out["query_name"] = r.query_name;
  out["branch"] = r.branch;
  out["affected_nodes"] = r.affected_nodes;
  out["affected_edges"] = r.affected_edges;
  if (r.actor) out["actor_id"] = *r.actor;
  out["commit"] = r.commit ? Json(*r.commit) : Json(nullptr);
  return out;
}

Result<OrderedJson> Database::Query(std::string_view source, std::string_view name,
                                    const Json& params, const ReadTarget& target) {
  engine::RunOptions options;
  options.cache = &impl_->cache;
  Result<engine::Snapshot> snapshot = Status::Ok();
  if (target.snapshot) {
    snapshot = impl_->graph->SnapshotAtCommit(*target.snapshot);
    options.snapshot = target.snapshot;
  } else {
    snapshot = impl_->graph->SnapshotOfBranch(target.branch);
    options.branch = target.branch;
  }
  OMNIGRAPH_RETURN_IF_ERROR(snapshot.status());
  return engine::RunQuery(*snapshot, source, name, params, options);
}

Result<Json> Database::PlanSchema(std::string_view schema_source, bool allow_data_loss) {
  schema::PlanOptions options;
  options.allow_data_loss = allow_data_loss;
  OMNIGRAPH_ASSIGN_OR_RETURN(schema::MigrationPlan plan,
                             impl_->graph->PlanSchema(schema_source, options));
  return plan.ToJson();
}

Result<Json> Database::ApplySchema(std::string_view schema_source, bool allow_data_loss) {
  engine::SchemaApplyOptions options;
  options.plan.allow_data_loss = allow_data_loss;
  options.actor = impl_->options.actor;
  OMNIGRAPH_ASSIGN_OR_RETURN(engine::SchemaApplyResult r,
                             impl_->graph->ApplySchema(schema_source, options));
  Json plan = r.plan.ToJson();
  Json out = Json::object();
  out["uri"] = impl_->uri;
  out["supported"] = plan["supported"];
  out["applied"] = r.applied;
  out["step_count"] = r.plan.steps.size();
  out["steps"] = plan["steps"];
  out["graph_manifest_version"] = r.seq;
  if (r.applied) out["commit"] = r.commit_id;
  return out;
}

Result<Json> Database::ShowSchema(std::string_view branch) {
  OMNIGRAPH_ASSIGN_OR_RETURN(engine::Snapshot head, impl_->graph->SnapshotOfBranch(branch));
  const commit::SchemaRef& ref = head.state().schema;
  OMNIGRAPH_ASSIGN_OR_RETURN(schema::SchemaArchive archive, impl_->graph->ReadSchemaArchive(ref));
  Json out = Json::object();
  out["source"] = archive.source;
  out["ir_hash"] = ref.ir_hash;
  out["identity_version"] = ref.identity_version;
  return out;
}

Result<Json> Database::Cleanup(const CleanupRequest& request) {
  engine::CleanupOptions options;
  options.keep = request.keep;
  options.older_than_micros = request.older_than_micros;
  options.dry_run = request.dry_run;
  if (request.grace_micros) options.grace_micros = *request.grace_micros;
  OMNIGRAPH_ASSIGN_OR_RETURN(engine::GraphCleanupReport r, impl_->graph->Cleanup(options));
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

}  // namespace omnigraph
