// The public API (include/omnigraph/omnigraph.h) over the engine.
#include "omnigraph/omnigraph.h"

#include "commit/history.h"
#include "commit/names.h"
#include "engine/export.h"
#include "engine/graph.h"
#include "engine/jsonl_values.h"
#include "engine/load.h"
#include "engine/mutate.h"
#include "query/parser.h"
#include "query/rows.h"
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

// A JSON parameter as the JSON-kind Value the load format's conversions take.
Result<Value> JsonKindValue(const Json& j) {
  switch (j.type()) {
    case Json::value_t::null: return Value::Null();
    case Json::value_t::boolean: return Value::Bool(j.get<bool>());
    case Json::value_t::number_integer: return Value::Int(j.get<int64_t>());
    case Json::value_t::number_unsigned: return Value::UInt(j.get<uint64_t>());
    case Json::value_t::number_float: return Value::Float(j.get<double>());
    case Json::value_t::string: return Value::String(j.get<std::string>());
    case Json::value_t::array: {
      std::vector<Value> items;
      for (const Json& item : j) {
        OMNIGRAPH_ASSIGN_OR_RETURN(Value v, JsonKindValue(item));
        items.push_back(std::move(v));
      }
      return Value::List(std::move(items));
    }
    default: break;
  }
  return InvalidArgument(
      "a parameter value must be null, a boolean, a number, a string or an "
      "array, not " +
      std::string(j.type_name()));
}

}  // namespace

struct Database::Impl {
  std::string uri;
  DatabaseOptions options;
  std::unique_ptr<Graph> graph;
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
  // Type the parameters by the query's declarations.
  OMNIGRAPH_ASSIGN_OR_RETURN(query::QueryFile file, query::ParseQueryFile(source));
  if (name.empty()) {
    if (file.queries.size() != 1) {
      return InvalidArgument("the source holds " + std::to_string(file.queries.size()) +
                             " queries; name the one to run");
    }
    name = file.queries.front().name.text;
  }
  const query::QueryDecl* decl = file.Find(name);
  if (decl == nullptr) return InvalidArgument("no query named '" + std::string(name) + "'");
  std::map<std::string, Value> typed;
  for (const auto& [raw_key, value] : params.items()) {
    const std::string key = raw_key.starts_with("$") ? raw_key.substr(1) : raw_key;
    const query::Param* p = decl->FindParam(key);
    if (p == nullptr) {
      return InvalidArgument("query '" + std::string(name) + "' has no parameter $" + key);
    }
    Result<Value> v = JsonKindValue(value);
    if (v.ok()) v = engine::FromJson(*v, p->type);
    if (v.ok()) v = query::CoerceValue(*v, p->type);
    if (!v.ok()) return InvalidArgument("parameter $" + key + ": " + v.status().message());
    typed[key] = std::move(*v);
  }
  engine::MutationOptions options;
  options.branch = target.branch;
  options.expected_head = target.if_commit;
  options.actor = impl_->options.actor;
  OMNIGRAPH_ASSIGN_OR_RETURN(engine::MutationResult r,
                             engine::Mutate(*impl_->graph, source, name, typed, options));
  Json out = Json::object();
  out["query_name"] = r.query_name;
  out["branch"] = r.branch;
  out["affected_nodes"] = r.affected_nodes;
  out["affected_edges"] = r.affected_edges;
  if (r.actor) out["actor_id"] = *r.actor;
  out["commit"] = r.commit ? Json(*r.commit) : Json(nullptr);
  return out;
}

}  // namespace omnigraph
