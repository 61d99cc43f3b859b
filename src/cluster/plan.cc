#include "cluster/plan.h"

#include <algorithm>
#include <set>

#include "engine/api/api_values.h"
#include "omnigraph/omnigraph.h"
#include "storage/uri.h"

namespace omnigraph::cluster {
namespace {

int Phase(const Change& c) {
  if (c.action == "delete") return 4;
  if (c.kind == "graph") return 0;
  if (c.kind == "schema") return 1;
  if (c.kind == "provider") return 2;
  return 3;
}

const Change* Find(const std::vector<Change>& changes, const std::string& resource) {
  for (const Change& c : changes) {
    if (c.resource == resource) return &c;
  }
  return nullptr;
}

// Whether graph `g` exists after the graph-moving phases of this plan (recorded and not deleted,
// or created by an applied change) and its schema change, if any, is applied.
bool GraphReady(const Session& s, const std::string& g) {
  const Json& res = s.state.state["applied_revision"]["resources"];
  const Change* gc = Find(s.changes, "graph." + g);
  const Change* sc = Find(s.changes, "schema." + g);
  bool present = res.contains("graph." + g);
  if (gc != nullptr && gc->action == "create") present = gc->disposition == "applied";
  if (gc != nullptr && gc->action == "delete") present = false;
  if (sc != nullptr && sc->disposition != "applied") return false;
  return present;
}

std::string GraphOf(const std::string& resource) {
  size_t a = resource.find('.');
  size_t b = resource.find('.', a + 1);
  return resource.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1);
}

// A valid approval of deleting `resource`: bound to the current config digest and the resource's
// recorded digest, not consumed. Stale ones add an approval_stale warning.
std::string FindApproval(Session& s, const std::vector<Json>& approvals,
                         const std::string& resource) {
  const Json& res = s.state.state["applied_revision"]["resources"];
  std::string state_digest = res.contains(resource) ? res[resource].value("digest", "") : "";
  for (const Json& a : approvals) {
    if (a.value("resource", "") != resource || a.contains("consumed_at_micros")) continue;
    if (a.value("config_digest", "") == s.config_digest &&
        a.value("state_digest", "") == state_digest) {
      return a.value("approval_id", "");
    }
    s.warnings.push_back({{"code", "approval_stale"},
                          {"message", "approval " + a.value("approval_id", "") + " of " + resource +
                                          " no longer matches the config or state; "
                                          "approve again if the delete is still wanted"}});
  }
  return "";
}

void PreviewSchema(Session& s, Change& c) {
  const Resource& d = s.desired.at(c.resource);
  api::Result<std::unique_ptr<api::Database>> db = api::Database::Open(s.root.GraphRoot(c.graph));
  api::Result<api::Json> plan =
      db.ok() ? (*db)->PlanSchema(d.payload, false) : api::Result<api::Json>(db.status());
  if (!plan.ok()) {
    s.warnings.push_back({{"code", "schema_preview_unavailable"},
                          {"message", c.resource + ": " + plan.status().message()}});
    return;
  }
  Json p = engine::FromApi(*plan);
  c.migration =
      Json{{"supported", p.value("supported", false)}, {"steps", p.value("steps", Json::array())}};
  if (!p.value("supported", false)) {
    c.disposition = "blocked";
    c.reason = "schema_unsupported: the engine cannot migrate graph " + c.graph +
               " to this schema (see the steps); change the schema";
  }
}

void DisposeGraphAndSchema(Session& s, Change& c, const std::vector<Json>& approvals) {
  if (c.kind == "graph") {
    if (c.action != "delete") return;
    c.approval_id = FindApproval(s, approvals, c.resource);
    if (c.approval_id.empty()) {
      c.disposition = "blocked";
      c.reason = "approval_required: run omnigraph cluster approve " + c.resource + " --as <actor>";
    }
    return;
  }
  const Change* gc = Find(s.changes, "graph." + c.graph);
  if (c.action == "delete") {
    if (gc != nullptr && gc->action == "delete") {
      c.disposition = gc->disposition;
      c.reason = gc->reason;
    } else {
      c.disposition = "deferred";
      c.reason = "apply_unsupported_change: a schema is removed only with its graph";
    }
    return;
  }
  bool created_with_graph = gc != nullptr && gc->action == "create";
  if (!created_with_graph) PreviewSchema(s, c);
}

void DisposeCatalog(Session& s, Change& c) {
  if (c.action == "delete") {
    const Change* gc = c.kind == "query" ? Find(s.changes, "graph." + c.graph) : nullptr;
    if (gc != nullptr && gc->action == "delete") {
      c.disposition = gc->disposition;
      c.reason = gc->reason;
    }
    return;
  }
  std::vector<std::string> graphs;
  if (c.kind == "query") graphs.push_back(c.graph);
  if (c.kind == "policy") {
    for (const Json& ref : s.desired.at(c.resource).meta["applies_to"]) {
      std::string r = ref.get<std::string>();
      if (r.rfind("graph.", 0) == 0) graphs.push_back(r.substr(6));
    }
  }
  for (const std::string& g : graphs) {
    if (!GraphReady(s, g)) {
      c.disposition = "blocked";
      c.reason = "apply_dependency_blocked: graph " + g + " is not ready in this run";
      return;
    }
  }
}

void AddChange(Session& s, const std::string& action, const std::string& id,
               const std::string& kind, const std::string& graph, bool metadata_only) {
  Change c;
  c.action = action;
  c.resource = id;
  c.kind = kind;
  c.graph = graph;
  c.disposition = "applied";
  c.metadata_only = metadata_only;
  s.changes.push_back(std::move(c));
}

}  // namespace

Json Change::ToJson() const {
  Json j{{"action", action}, {"resource", resource}, {"disposition", disposition}};
  if (!reason.empty()) j["reason"] = reason;
  if (!migration.is_null()) j["migration"] = migration;
  if (metadata_only) j["metadata_change"] = kind == "policy" ? "policy_bindings" : "metadata";
  if (!approval_id.empty()) j["approval_id"] = approval_id;
  return j;
}

Resources DesiredResources(const ClusterConfig& c) {
  Resources out;
  for (const auto& [name, p] : c.providers) {
    Resource r{"provider.embedding." + name, "provider", "", Digest(CanonicalJson(p.profile))};
    r.meta["embedding_profile"] = p.profile;
    out[r.id] = r;
  }
  for (const auto& [id, g] : c.graphs) {
    Resource gr{"graph." + id, "graph", id, ""};
    gr.meta["root"] = "graphs/" + id + ".omni";
    if (!g.embedding_provider.empty()) gr.meta["embedding_provider"] = g.embedding_provider;
    if (g.external_blobs.value("mode", "deny") == "allow") {
      gr.meta["external_blob_policy"] = g.external_blobs;
    }
    gr.digest = Digest(CanonicalJson(gr.meta));
    out[gr.id] = gr;
    Resource sr{"schema." + id, "schema", id, Digest(g.schema_source)};
    sr.meta["file"] = g.schema_file;
    sr.payload = g.schema_source;
    sr.blob = SchemaBlob(id, sr.digest);
    out[sr.id] = sr;
    for (const QueryDecl& q : g.queries) {
      const std::string& src = g.query_files.at(q.file);
      Resource qr{"query." + id + "." + q.name, "query", id, Digest(src)};
      qr.meta["file"] = q.file;
      qr.meta["kind"] = q.kind;
      qr.payload = src;
      qr.blob = QueryBlob(id, q.name, qr.digest);
      out[qr.id] = qr;
    }
  }
  for (const auto& [name, p] : c.policies) {
    Resource r{"policy." + name, "policy", "", Digest(p.source)};
    r.meta["file"] = p.file;
    r.meta["applies_to"] = p.applies_to;
    r.payload = p.source;
    r.blob = PolicyBlob(name, r.digest);
    out[r.id] = r;
  }
  return out;
}

std::string ConfigDigest(const Resources& r) {
  Json j = Json::object();
  for (const auto& [id, res] : r) j[id] = {{"digest", res.digest}, {"meta", res.meta}};
  return Digest(CanonicalJson(j));
}

Status ComputePlan(Session& s) {
  s.changes.clear();
  const Json& res = s.state.state["applied_revision"]["resources"];
  for (const auto& [id, d] : s.desired) {
    if (!res.contains(id)) {
      AddChange(s, "create", id, d.kind, d.graph, false);
      continue;
    }
    Json recorded = res[id];
    std::string digest = recorded.value("digest", "");
    recorded.erase("digest");
    if (digest != d.digest) {
      AddChange(s, "update", id, d.kind, d.graph, false);
    } else if (recorded != d.meta) {
      AddChange(s, "update", id, d.kind, d.graph, true);
    }
  }
  for (auto it = res.begin(); it != res.end(); ++it) {
    if (s.desired.contains(it.key())) continue;
    std::string kind = it.key().substr(0, it.key().find('.'));
    std::string graph =
        kind == "graph" || kind == "schema" || kind == "query" ? GraphOf(it.key()) : "";
    AddChange(s, "delete", it.key(), kind, graph, false);
  }
  std::stable_sort(s.changes.begin(), s.changes.end(), [](const Change& a, const Change& b) {
    return Phase(a) != Phase(b) ? Phase(a) < Phase(b) : a.resource < b.resource;
  });
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<Json> approvals, ReadApprovals(*s.root.store));
  // Graph deletes first (their subtree follows them), then schemas, then the catalog.
  for (Change& c : s.changes) {
    if (c.kind == "graph") DisposeGraphAndSchema(s, c, approvals);
  }
  for (Change& c : s.changes) {
    if (c.kind == "schema") DisposeGraphAndSchema(s, c, approvals);
  }
  for (Change& c : s.changes) {
    if (c.kind == "query" || c.kind == "policy") DisposeCatalog(s, c);
  }
  return Status::Ok();
}

Result<bool> RootExists(const std::string& root_uri) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<storage::ObjectStore> store,
                             storage::OpenStore(root_uri));
  storage::ListOptions o;
  o.page_size = 1;
  Result<storage::ListPage> page = store->List(o);
  if (!page.ok() && page.status().kind() == Kind::kNotFound) return false;
  if (!page.ok()) return page.status();
  return !page->objects.empty();
}

Result<std::string> LiveSchema(const std::string& root_uri) {
  api::Result<std::unique_ptr<api::Database>> db = api::Database::Open(root_uri);
  if (!db.ok()) return engine::FromApi(db.status());
  api::Result<api::Json> shown = (*db)->ShowSchema("main");
  if (!shown.ok()) return engine::FromApi(shown.status());
  return (*shown)["source"].get<std::string>();
}

Result<std::vector<Json>> ReadApprovals(storage::ObjectStore& store) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<storage::ObjectMeta> metas,
                             storage::ListAll(store, kApprovalsPrefix));
  std::vector<Json> out;
  for (const storage::ObjectMeta& m : metas) {
    OMNIGRAPH_ASSIGN_OR_RETURN(storage::GetResult got, store.Get(m.name));
    OMNIGRAPH_ASSIGN_OR_RETURN(Json j, ParseJson(got.data, m.name, true));
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace omnigraph::cluster
