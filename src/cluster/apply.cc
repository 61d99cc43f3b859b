// cluster apply (docs/design/cluster.md "Apply"): graph creates, schema updates, catalog writes,
// approved deletes, then one conditional write of the ledger.
#include <filesystem>
#include <set>

#include "cluster/plan.h"
#include "cluster/verbs.h"
#include "engine/api/api_values.h"
#include "omnigraph/omnigraph.h"
#include "storage/uri.h"

namespace omnigraph::cluster {
namespace {

struct Run {
  Session& s;
  Json next;  // the ledger being built
  std::set<std::string> failed_graphs;
  bool any_applied = false;
  std::vector<std::pair<std::string, Json>> consumed;  // approval object -> rewritten artifact
};

Json& Res(Run& r) { return r.next["applied_revision"]["resources"]; }

void Record(Run& r, const Resource& d) {
  Json rec = d.meta;
  rec["digest"] = d.digest;
  Res(r)[d.id] = rec;
  r.any_applied = true;
}

void Fail(Run& r, Change& c, const std::string& code, const std::string& message) {
  c.disposition = "error";
  c.reason = code + ": " + message;
  if (!c.graph.empty()) r.failed_graphs.insert(c.graph);
}

api::DatabaseOptions GraphOptions(const Session& s) {
  api::DatabaseOptions o;
  if (!s.options.actor.empty()) o.actor = s.options.actor;
  o.threads = 2;
  return o;
}

void CreateGraph(Run& r, Change& c) {
  const Resource& schema = r.s.desired.at("schema." + c.graph);
  std::string root = r.s.root.GraphRoot(c.graph);
  api::Result<std::unique_ptr<api::Database>> db =
      api::Database::Init(root, schema.payload, GraphOptions(r.s));
  if (!db.ok() && db.status().code() == api::Code::kInitializationIncomplete) {
    // The stamp of an init that never wrote its genesis record: a create an earlier apply began
    // and did not finish (killed). Graph roots under the storage root are apply's own and this
    // run holds the cluster lock, so no other init is running there: complete it under its
    // graph id, as `init --force` would (crash safety, issue [35] item 5).
    api::DatabaseOptions force = GraphOptions(r.s);
    force.init_force = true;
    db = api::Database::Init(root, schema.payload, force);
    if (db.ok()) {
      r.next["recovery_records"][c.resource] = {{"kind", "graph_create_completed"},
                                                {"at_micros", r.s.clock->NowMicros()}};
    }
  }
  if (!db.ok() && db.status().code() == api::Code::kAlreadyInitialized) {
    // A create that finished on the graph but not in the ledger (a crash), or a root made by
    // hand: adopted only when its schema is the declared one.
    Result<std::string> live = LiveSchema(root);
    if (!live.ok() || Digest(*live) != schema.digest) {
      Fail(r, c, "graph_root_occupied",
           root +
               " already holds a graph with another schema (fix: remove the root, or run "
               "omnigraph cluster refresh to adopt it)");
      return;
    }
    r.next["recovery_records"][c.resource] = {{"kind", "graph_create_rolled_forward"},
                                              {"at_micros", r.s.clock->NowMicros()}};
  } else if (!db.ok()) {
    Fail(r, c,
         db.status().code() == api::Code::kInitializationIncomplete ? "graph_create_incomplete"
                                                                    : "graph_create_failed",
         db.status().message() + " (fix: remove the root " + root + " and re-run apply)");
    return;
  }
  Status put = PutBlob(*r.s.root.store, schema.blob, schema.payload);
  if (!put.ok()) {
    Fail(r, c, "catalog_write_failed", put.message());
    return;
  }
  Record(r, r.s.desired.at(c.resource));
  Record(r, schema);
}

void ApplySchemaChange(Run& r, Change& c) {
  const Resource& d = r.s.desired.at(c.resource);
  for (const Change& other : r.s.changes) {
    if (other.resource == "graph." + c.graph && other.action == "create") {
      if (other.disposition != "applied") {
        c.disposition = "blocked";
        c.reason = "apply_dependency_blocked: graph." + c.graph + " was not created";
      }
      return;  // recorded by the create
    }
  }
  api::Result<std::unique_ptr<api::Database>> db =
      api::Database::Open(r.s.root.GraphRoot(c.graph), GraphOptions(r.s));
  api::Result<api::Json> out =
      db.ok() ? (*db)->ApplySchema(d.payload, false) : api::Result<api::Json>(db.status());
  if (!out.ok()) {
    Fail(r, c, "schema_apply_failed", out.status().message());
    return;
  }
  Status put = PutBlob(*r.s.root.store, d.blob, d.payload);
  if (!put.ok()) {
    Fail(r, c, "catalog_write_failed", put.message());
    return;
  }
  Record(r, d);
}

void WriteCatalog(Run& r, Change& c) {
  const Resource& d = r.s.desired.at(c.resource);
  std::vector<std::string> graphs;
  if (c.kind == "query") graphs.push_back(c.graph);
  if (c.kind == "policy") {
    for (const Json& ref : d.meta["applies_to"]) {
      std::string s = ref.get<std::string>();
      if (s.rfind("graph.", 0) == 0) graphs.push_back(s.substr(6));
    }
  }
  for (const std::string& g : graphs) {
    if (r.failed_graphs.contains(g)) {
      c.disposition = "blocked";
      c.reason = "apply_dependency_blocked: graph " + g + " failed in this run";
      return;
    }
  }
  if (!d.blob.empty()) {
    Status put = PutBlob(*r.s.root.store, d.blob, d.payload);
    if (!put.ok()) {
      Fail(r, c, "catalog_write_failed", put.message());
      return;
    }
  }
  Record(r, d);
}

Status ConsumeApproval(Run& r, const Change& c) {
  std::string name = std::string(kApprovalsPrefix) + c.approval_id + ".json";
  OMNIGRAPH_ASSIGN_OR_RETURN(storage::GetResult got, r.s.root.store->Get(name));
  OMNIGRAPH_ASSIGN_OR_RETURN(Json a, ParseJson(got.data, name, true));
  int64_t now = r.s.clock->NowMicros();
  a["consumed_at_micros"] = now;
  a["consumed_by"] = r.s.options.actor;
  r.next["approval_records"][c.approval_id] = {{"resource", c.resource},
                                               {"action", "delete"},
                                               {"approved_by", a.value("approved_by", "")},
                                               {"consumed_at_micros", now},
                                               {"config_digest", a.value("config_digest", "")}};
  r.consumed.emplace_back(name, std::move(a));
  return Status::Ok();
}

void DeleteGraph(Run& r, Change& c) {
  std::string root = r.s.root.GraphRoot(c.graph);
  Result<std::shared_ptr<storage::ObjectStore>> store = storage::OpenStore(root);
  Result<std::vector<storage::ObjectMeta>> objects =
      store.ok() ? storage::ListAll(**store, "") : store.status();
  Status st = objects.status();
  for (size_t i = 0; st.ok() && i < objects->size(); ++i) st = (*store)->Delete((*objects)[i].name);
  if (st.ok() && root.find("://") == std::string::npos) {
    // A local root also holds the store's own scratch files (.omnigraph-tmp): the root goes.
    std::error_code ec;
    std::filesystem::remove_all(root, ec);
    if (ec) st = Status(Code::kTransient, "removing " + root + ": " + ec.message(), root);
  }
  if (st.ok()) st = ConsumeApproval(r, c);
  if (!st.ok()) {
    Fail(r, c, "graph_delete_failed", st.message() + " (re-run apply: the approval still holds)");
    return;
  }
  Json& res = Res(r);
  for (auto it = res.begin(); it != res.end();) {
    bool subtree = it.key() == c.resource || it.key() == "schema." + c.graph ||
                   it.key().rfind("query." + c.graph + ".", 0) == 0;
    it = subtree ? res.erase(it) : std::next(it);
  }
  r.next["observations"][c.resource] = {{"exists", false},
                                        {"tombstoned_at_micros", r.s.clock->NowMicros()},
                                        {"approval_id", c.approval_id}};
  r.any_applied = true;
}

void Execute(Run& r, Change& c) {
  if (c.disposition != "applied") return;
  if (c.action == "delete") {
    if (c.kind == "graph") {
      DeleteGraph(r, c);
    } else if (!Res(r).contains(c.resource)) {
      return;  // rode along with its graph
    } else {
      Res(r).erase(c.resource);
      r.any_applied = true;
    }
    return;
  }
  if (c.kind == "graph" && c.action == "create") return CreateGraph(r, c);
  if (c.kind == "schema") return ApplySchemaChange(r, c);
  WriteCatalog(r, c);
}

void RecordStatuses(Run& r) {
  Json& statuses = r.next["resource_statuses"];
  for (const Change& c : r.s.changes) {
    if (c.action == "delete" && c.disposition == "applied") {
      statuses.erase(c.resource);
      continue;
    }
    std::string status = c.disposition == "applied" ? "applied"
                         : c.disposition == "error" ? "error"
                                                    : "blocked";
    Json entry{{"status", status}, {"conditions", Json::array()}};
    if (!c.reason.empty()) {
      entry["conditions"].push_back(c.reason.substr(0, c.reason.find(':')));
      entry["message"] = c.reason;
    }
    statuses[c.resource] = entry;
  }
}

Result<Json> ApplyLocked(Session& s) {
  if (!s.state.exists) {
    return Status(Code::kNotFound,
                  "state_missing: the cluster has no state ledger yet (fix: omnigraph cluster "
                  "import --config " +
                      s.options.config_dir + ")",
                  kStateObject);
  }
  OMNIGRAPH_RETURN_IF_ERROR(ComputePlan(s));
  Run r{s, s.state.state};
  for (Change& c : s.changes) Execute(r, c);
  bool converged = true;
  for (const Change& c : s.changes) converged &= c.disposition == "applied";
  bool digest_moves =
      converged && s.state.state["applied_revision"].value("config_digest", "") != s.config_digest;
  bool write = r.any_applied || digest_moves;
  if (write) {
    RecordStatuses(r);
    if (converged) {
      r.next["applied_revision"]["config_digest"] = s.config_digest;
      r.next["applied_revision"]["name"] = s.config.name;
    }
    r.next["state_revision"] = s.state.state.value("state_revision", 0) + 1;
    OMNIGRAPH_RETURN_IF_ERROR(WriteState(*s.root.store, s.state, r.next));
    for (const auto& [name, artifact] : r.consumed) {
      OMNIGRAPH_RETURN_IF_ERROR(s.root.store->Put(name, artifact.dump(2)));
    }
  }
  Json out = PlanReport(s);
  out["converged"] = converged;
  out["state_written"] = write;
  out["state_revision"] = write ? r.next["state_revision"] : s.state.state["state_revision"];
  return out;
}

Result<Json> ApplyImpl(const Options& options) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::unique_ptr<Session> s, OpenSession(options, true));
  return LockedRun(*s, "apply", [&] { return ApplyLocked(*s); });
}

}  // namespace

api::Result<api::Json> Apply(const Options& options) { return engine::ToApi(ApplyImpl(options)); }

}  // namespace omnigraph::cluster
