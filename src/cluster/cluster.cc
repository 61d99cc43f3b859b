// The cluster verbs (include/omnigraph/cluster.h): sessions, validate, plan, status,
// force-unlock, approve. Apply is apply.cc; import and refresh are observe.cc.
#include <filesystem>

#include "base/ids.h"

#include "cluster/plan.h"
#include "cluster/verbs.h"
#include "engine/api/api_values.h"
#include "storage/uri.h"

namespace omnigraph::cluster {

namespace fs = std::filesystem;

Result<std::unique_ptr<Session>> OpenSession(const Options& options, bool load_config) {
  auto s = std::make_unique<Session>();
  s->options = options;
  if (s->options.config_dir.empty()) s->options.config_dir = ".";
  std::string storage;
  if (load_config) {
    OMNIGRAPH_ASSIGN_OR_RETURN(s->config, LoadConfig(s->options.config_dir, true));
    storage = s->config.storage;
    s->desired = DesiredResources(s->config);
    s->config_digest = ConfigDigest(s->desired);
  } else {
    OMNIGRAPH_ASSIGN_OR_RETURN(storage, ReadStorageKey(s->options.config_dir));
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(s->root, OpenRoot(s->options.config_dir, storage));
  s->clock = storage::Runtime::ForStore(nullptr, 1).clock;
  s->random = Random::FromEntropy();
  OMNIGRAPH_ASSIGN_OR_RETURN(s->state, ReadState(*s->root.store));
  return s;
}

Result<Json> LockedRun(Session& s, const std::string& operation,
                       const std::function<Result<Json>()>& body) {
  if (!s.config.lock && !s.config.dir.empty()) return body();
  OMNIGRAPH_ASSIGN_OR_RETURN(
      Lock lock, AcquireLock(*s.root.store, operation, s.options.actor, *s.clock, s.random));
  // The ledger as of holding the lock (it may have moved since the session read it).
  Result<StateFile> state = ReadState(*s.root.store);
  Result<Json> out = Json();
  if (state.ok()) {
    s.state = std::move(*state);
    out = body();
  } else {
    out = state.status();
  }
  Status released = ReleaseLock(*s.root.store, lock.lock_id);
  if (out.ok()) {
    (*out)["lock_acquired"] = true;
    (*out)["acquired_lock_id"] = lock.lock_id;
  }
  if (out.ok() && !released.ok()) return released;
  return out;
}

Json LockObservation(Session& s) {
  Result<std::optional<Json>> lock = ReadLock(*s.root.store);
  Json obs{{"locked", false}};
  if (lock.ok() && lock->has_value()) {
    const Json& l = **lock;
    obs = Json{{"locked", true},
               {"lock_id", l.value("lock_id", "")},
               {"lock_operation", l.value("operation", "")},
               {"lock_holder", l.value("holder", "")},
               {"lock_pid", l.value("pid", 0)},
               {"lock_created_at_micros", l.value("created_at_micros", int64_t{0})},
               {"lock_age_seconds",
                (s.clock->NowMicros() - l.value("created_at_micros", int64_t{0})) / 1000000}};
  } else if (!lock.ok()) {
    obs["error"] = lock.status().message();
  }
  return obs;
}

Json PlanReport(Session& s) {
  Json changes = Json::array(), approvals = Json::array();
  int creates = 0, updates = 0, deletes = 0;
  for (const Change& c : s.changes) {
    changes.push_back(c.ToJson());
    creates += c.action == "create";
    updates += c.action == "update";
    deletes += c.action == "delete";
    if (c.kind == "graph" && c.reason.starts_with("approval_required")) {
      approvals.push_back(c.resource);
    }
  }
  return Json{{"cluster", s.config.name},
              {"config_digest", s.config_digest},
              {"state_exists", s.state.exists},
              {"state_cas", s.state.cas},
              {"state_revision", s.state.state.value("state_revision", 0)},
              {"changes", changes},
              {"summary", {{"create", creates}, {"update", updates}, {"delete", deletes}}},
              {"approvals_required", approvals},
              {"warnings", s.warnings}};
}

namespace {

Result<Json> ValidateImpl(const Options& options) {
  OMNIGRAPH_ASSIGN_OR_RETURN(ClusterConfig c, LoadConfig(options.config_dir, true));
  Json graphs = Json::array(), queries = Json::array(), policies = Json::array();
  for (const auto& [id, g] : c.graphs) {
    graphs.push_back(id);
    for (const QueryDecl& q : g.queries) queries.push_back("query." + id + "." + q.name);
  }
  for (const auto& [name, p] : c.policies) policies.push_back("policy." + name);
  return Json{{"valid", true},
              {"cluster", c.name},
              {"graphs", graphs},
              {"queries", queries},
              {"policies", policies}};
}

Result<Json> PlanImpl(const Options& options) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::unique_ptr<Session> s, OpenSession(options, true));
  Json observations = LockObservation(*s);
  return LockedRun(*s, "plan", [&]() -> Result<Json> {
    OMNIGRAPH_RETURN_IF_ERROR(ComputePlan(*s));
    Json out = PlanReport(*s);
    out["state_observations"] = observations;
    return out;
  });
}

Result<Json> StatusImpl(const Options& options) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::unique_ptr<Session> s, OpenSession(options, false));
  Json warnings = Json::array();
  if (!s->state.exists) {
    warnings.push_back({{"code", "state_missing"},
                        {"message", "no cluster state yet (fix: omnigraph cluster import)"}});
  }
  Json out{{"state_exists", s->state.exists}, {"state_cas", s->state.cas}};
  const Json& st = s->state.state;
  out["state_revision"] = st.value("state_revision", 0);
  out["config_digest"] = st["applied_revision"].value("config_digest", "");
  out["resources"] = st["applied_revision"]["resources"];
  out["resource_statuses"] = st["resource_statuses"];
  out["observations"] = st["observations"];
  out["approval_records"] = st["approval_records"];
  out["lock"] = LockObservation(*s);
  bool read_error = false;
  for (auto it = out["resources"].begin(); it != out["resources"].end(); ++it) {
    std::string blob = CatalogBlobOf(it.key(), it.value());
    if (blob.empty()) continue;
    Result<std::string> got = GetBlob(*s->root.store, blob, it.value().value("digest", ""));
    if (got.ok()) continue;
    std::string code = got.status().kind() == Kind::kNotFound     ? "catalog_payload_missing"
                       : got.status().code() == Code::kCorruption ? "catalog_payload_mismatch"
                                                                  : "catalog_payload_read_error";
    read_error |= code == "catalog_payload_read_error";
    warnings.push_back(
        {{"code", code}, {"resource", it.key()}, {"message", got.status().message()}});
  }
  out["warnings"] = warnings;
  if (read_error) {
    return Status(Code::kUnknown, "cluster status: a catalog payload could not be read", "");
  }
  return out;
}

Result<Json> ApproveImpl(const Options& options, const std::string& resource) {
  if (options.actor.empty()) {
    return Status(Code::kInvalidArgument,
                  "cluster approve needs an actor (fix: pass --as <actor>)");
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(std::unique_ptr<Session> s, OpenSession(options, true));
  return LockedRun(*s, "approve", [&]() -> Result<Json> {
    OMNIGRAPH_RETURN_IF_ERROR(ComputePlan(*s));
    const Change* found = nullptr;
    for (const Change& c : s->changes) {
      if (c.resource == resource && c.action == "delete") found = &c;
    }
    if (found == nullptr || found->kind != "graph") {
      return Status(Code::kInvalidArgument,
                    "the current plan holds no destructive change of " + resource +
                        " to approve (fix: run omnigraph cluster plan and approve a listed "
                        "graph.<id> delete)",
                    resource);
    }
    const Json& res = s->state.state["applied_revision"]["resources"];
    std::string id = UlidGenerator(*s->clock, s->random).NextString();
    Json approval{{"version", 1},
                  {"approval_id", id},
                  {"resource", resource},
                  {"action", "delete"},
                  {"config_digest", s->config_digest},
                  {"state_digest", res[resource].value("digest", "")},
                  {"approved_by", s->options.actor},
                  {"created_at_micros", s->clock->NowMicros()}};
    std::string name = std::string(kApprovalsPrefix) + id + ".json";
    OMNIGRAPH_ASSIGN_OR_RETURN(bool created, s->root.store->PutIfAbsent(name, approval.dump(2)));
    if (!created) return Status(Code::kAlreadyExists, "approval id collision", name);
    return Json{{"approval", approval}, {"object", name}};
  });
}

Result<Json> ForceUnlockImpl(const Options& options, const std::string& lock_id) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::unique_ptr<Session> s, OpenSession(options, false));
  OMNIGRAPH_RETURN_IF_ERROR(ForceRemoveLock(*s->root.store, lock_id));
  return Json{{"unlocked", true}, {"lock_id", lock_id}};
}

// "<a>/<b>/graphs/<id>.omni" -> "<a>/<b>"; empty when the root is not of that shape.
std::string ClusterRootOf(std::string uri) {
  while (uri.size() > 1 && uri.back() == '/') uri.pop_back();
  if (uri.rfind("file://", 0) == 0) uri = uri.substr(7);
  if (uri.size() < 6 || uri.substr(uri.size() - 5) != ".omni") return "";
  if (uri.find("://") == std::string::npos) uri = fs::absolute(uri).lexically_normal().string();
  size_t slash = uri.rfind('/');
  if (slash == std::string::npos || slash < 7) return "";
  std::string parent = uri.substr(0, slash);
  if (parent.size() < 7 || parent.substr(parent.size() - 7) != "/graphs") return "";
  std::string root = parent.substr(0, parent.size() - 7);
  return root.empty() ? "/" : root;
}

}  // namespace

api::Result<api::Json> Validate(const Options& options) {
  return engine::ToApi(ValidateImpl(options));
}
api::Result<api::Json> Plan(const Options& options) { return engine::ToApi(PlanImpl(options)); }
api::Result<api::Json> StatusReport(const Options& options) {
  return engine::ToApi(StatusImpl(options));
}
api::Result<api::Json> Approve(const Options& options, std::string_view resource) {
  return engine::ToApi(ApproveImpl(options, std::string(resource)));
}
api::Result<api::Json> ForceUnlock(const Options& options, std::string_view lock_id) {
  return engine::ToApi(ForceUnlockImpl(options, std::string(lock_id)));
}

api::Result<bool> IsClusterManaged(std::string_view graph_uri) {
  std::string root = ClusterRootOf(std::string(graph_uri));
  if (root.empty()) return false;
  Result<std::shared_ptr<storage::ObjectStore>> store = storage::OpenStore(root);
  if (!store.ok()) return false;
  Result<storage::ObjectMeta> head = (*store)->Head(kStateObject);
  if (!head.ok() && head.status().kind() == Kind::kNotFound) return false;
  if (!head.ok()) return engine::ToApi(head.status());
  return true;
}

}  // namespace omnigraph::cluster
