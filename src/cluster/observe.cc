// cluster import and refresh (read-only observation of the graph roots and the catalog, recorded
// in the ledger), and ReadApplied (what a server boots from).
#include <filesystem>
#include <set>

#include "cluster/plan.h"
#include "cluster/verbs.h"
#include "engine/api/api_values.h"
#include "omnigraph/omnigraph.h"

namespace omnigraph::cluster {
namespace {

namespace fs = std::filesystem;

// One graph root, observed: {exists, live_schema_digest?, desired_schema_digest?,
// schema_matches?, head_commit_id?, error?}.
Json ObserveGraph(Session& s, const std::string& graph) {
  std::string root = s.root.GraphRoot(graph);
  Json obs{{"root", "graphs/" + graph + ".omni"}, {"observed_at_micros", s.clock->NowMicros()}};
  Result<bool> exists = RootExists(root);
  if (!exists.ok()) {
    obs["error"] = exists.status().message();
    return obs;
  }
  obs["exists"] = *exists;
  if (!*exists) return obs;
  api::Result<std::unique_ptr<api::Database>> db = api::Database::Open(root);
  api::Result<api::Json> shown =
      db.ok() ? (*db)->ShowSchema("main") : api::Result<api::Json>(db.status());
  if (!shown.ok()) {
    obs["error"] = "graph root " + root + " does not open: " + shown.status().message();
    return obs;
  }
  obs["live_schema_digest"] = Digest((*shown)["source"].get<std::string>());
  obs["head_commit_id"] = (*shown)["graph_commit_id"].get<std::string>();
  auto it = s.desired.find("schema." + graph);
  if (it != s.desired.end()) {
    obs["desired_schema_digest"] = it->second.digest;
    obs["schema_matches"] = it->second.digest == obs["live_schema_digest"];
  }
  return obs;
}

void SetStatus(Json& state, const std::string& id, const std::string& status,
               const std::string& condition, const std::string& message) {
  state["resource_statuses"][id] = {
      {"status", status}, {"conditions", Json::array({condition})}, {"message", message}};
}

// Records one graph's observation; false when the root is invalid (an error observation).
bool RecordGraph(Session& s, Json& state, const std::string& graph, bool importing) {
  Json obs = ObserveGraph(s, graph);
  state["observations"]["graph." + graph] = obs;
  Json& res = state["applied_revision"]["resources"];
  std::string gid = "graph." + graph, sid = "schema." + graph;
  if (obs.contains("error")) {
    SetStatus(state, gid, "error", "graph_root_invalid", obs["error"].get<std::string>());
    return false;
  }
  if (!obs.value("exists", false)) {
    if (!importing && res.contains(gid)) {
      res.erase(gid);
      res.erase(sid);
      SetStatus(state, gid, "drifted", "graph_root_missing",
                "the graph root is missing; the next apply re-creates it (empty)");
    }
    return true;
  }
  std::string live = obs["live_schema_digest"].get<std::string>();
  if (importing && s.desired.contains(gid)) {
    Json rec = s.desired.at(gid).meta;
    rec["digest"] = s.desired.at(gid).digest;
    res[gid] = rec;
  }
  if (!res.contains(gid)) return true;
  Json srec = s.desired.contains(sid) ? s.desired.at(sid).meta : Json{{"file", ""}};
  std::string recorded = res.contains(sid) ? res[sid].value("digest", "") : "";
  if (recorded != live) {
    srec["digest"] = live;
    res[sid] = srec;
    if (!importing || !obs.value("schema_matches", false)) {
      SetStatus(state, sid, "drifted", "schema_drift",
                "the live schema differs from the applied one; the next plan migrates it back");
    }
  }
  return true;
}

// Checks the catalog blobs of recorded queries and policies; drops the digest of a missing or
// damaged one. False when a blob could not be read.
bool VerifyCatalog(Session& s, Json& state) {
  Json& res = state["applied_revision"]["resources"];
  bool ok = true;
  std::vector<std::string> drop;
  for (auto it = res.begin(); it != res.end(); ++it) {
    std::string blob = CatalogBlobOf(it.key(), it.value());
    if (blob.empty()) continue;
    Result<std::string> got = GetBlob(*s.root.store, blob, it.value().value("digest", ""));
    if (got.ok()) continue;
    if (got.status().kind() == Kind::kNotFound || got.status().code() == Code::kCorruption) {
      std::string cond =
          got.status().kind() == Kind::kNotFound ? "payload_missing" : "payload_mismatch";
      SetStatus(state, it.key(), "drifted", cond, got.status().message());
      drop.push_back(it.key());
    } else {
      SetStatus(state, it.key(), "error", "payload_read_error", got.status().message());
      ok = false;
    }
  }
  for (const std::string& id : drop) res.erase(id);
  return ok;
}

Result<Json> ImportLocked(Session& s) {
  if (s.state.exists) {
    return Status(Code::kAlreadyExists,
                  "the cluster already has a state ledger (fix: omnigraph cluster refresh to "
                  "re-observe it)",
                  kStateObject);
  }
  Json next = EmptyState();
  bool ok = true;
  for (const auto& [id, g] : s.config.graphs) ok &= RecordGraph(s, next, id, true);
  if (!ok) {
    return Status(Code::kInvalidArgument,
                  "cluster import: a graph root is invalid (see cluster refresh's observations); "
                  "no ledger was created",
                  kStateObject);
  }
  OMNIGRAPH_RETURN_IF_ERROR(WriteState(*s.root.store, s.state, next));
  return Json{{"imported", true},
              {"state_revision", 0},
              {"resources", next["applied_revision"]["resources"]},
              {"observations", next["observations"]}};
}

Result<Json> RefreshLocked(Session& s) {
  if (!s.state.exists) {
    return Status(Code::kNotFound,
                  "state_missing: no cluster state to refresh (fix: omnigraph cluster import)",
                  kStateObject);
  }
  Json next = s.state.state;
  bool ok = true;
  std::set<std::string> graphs;
  for (const auto& [id, g] : s.config.graphs) graphs.insert(id);
  const Json& res = s.state.state["applied_revision"]["resources"];
  for (auto it = res.begin(); it != res.end(); ++it) {
    if (it.key().rfind("graph.", 0) == 0) graphs.insert(it.key().substr(6));
  }
  for (const std::string& g : graphs) ok &= RecordGraph(s, next, g, false);
  ok &= VerifyCatalog(s, next);
  next["state_revision"] = s.state.state.value("state_revision", 0) + 1;
  OMNIGRAPH_RETURN_IF_ERROR(WriteState(*s.root.store, s.state, next));
  if (!ok) {
    return Status(Code::kUnknown,
                  "cluster refresh recorded errors (see cluster status): a graph root that does "
                  "not open or a catalog blob that cannot be read",
                  kStateObject);
  }
  Json drifted = Json::array();
  for (auto it = next["resource_statuses"].begin(); it != next["resource_statuses"].end(); ++it) {
    if (it.value().value("status", "") == "drifted") drifted.push_back(it.key());
  }
  return Json{{"refreshed", true},
              {"state_revision", next["state_revision"]},
              {"drifted", drifted},
              {"observations", next["observations"]}};
}

Result<Json> ImportImpl(const Options& options) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::unique_ptr<Session> s, OpenSession(options, true));
  return LockedRun(*s, "import", [&] { return ImportLocked(*s); });
}

Result<Json> RefreshImpl(const Options& options) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::unique_ptr<Session> s, OpenSession(options, true));
  return LockedRun(*s, "refresh", [&] { return RefreshLocked(*s); });
}

Result<Root> ResolveRoot(const std::string& dir_or_uri) {
  std::error_code ec;
  if (dir_or_uri.find("://") == std::string::npos &&
      fs::is_regular_file(fs::path(dir_or_uri) / kConfigFileName, ec)) {
    OMNIGRAPH_ASSIGN_OR_RETURN(std::string storage, ReadStorageKey(dir_or_uri));
    return OpenRoot(dir_or_uri, storage);
  }
  return OpenRootUri(dir_or_uri);
}

// The graph's applied query files, from the catalog (one per declared file).
Status ReadGraphQueries(storage::ObjectStore& store, const Json& res, AppliedGraph& g) {
  std::set<std::string> files;
  for (auto it = res.begin(); it != res.end(); ++it) {
    if (it.key().rfind("query." + g.id + ".", 0) != 0) continue;
    std::string file = it.value().value("file", "");
    if (!files.insert(file).second) continue;
    OMNIGRAPH_ASSIGN_OR_RETURN(std::string src, GetBlob(store, CatalogBlobOf(it.key(), it.value()),
                                                        it.value().value("digest", "")));
    g.queries.push_back({file, std::move(src)});
  }
  return Status::Ok();
}

Result<AppliedCluster> ReadAppliedImpl(const std::string& dir_or_uri) {
  OMNIGRAPH_ASSIGN_OR_RETURN(Root root, ResolveRoot(dir_or_uri));
  OMNIGRAPH_ASSIGN_OR_RETURN(StateFile state, ReadState(*root.store));
  const Json& res = state.state["applied_revision"]["resources"];
  if (!state.exists || res.empty()) {
    return Status(Code::kNotFound,
                  "no applied cluster state at " + root.uri +
                      " (fix: omnigraph cluster import, then omnigraph cluster apply)",
                  kStateObject);
  }
  AppliedCluster out;
  out.name = state.state["applied_revision"].value("name", "");
  for (auto it = res.begin(); it != res.end(); ++it) {
    if (it.key().rfind("graph.", 0) != 0) continue;
    AppliedGraph g;
    g.id = it.key().substr(6);
    g.root_uri = root.uri + "/" + it.value().value("root", "graphs/" + g.id + ".omni");
    OMNIGRAPH_RETURN_IF_ERROR(ReadGraphQueries(*root.store, res, g));
    const Json policy = it.value().value("external_blob_policy", Json::object());
    if (policy.value("mode", "deny") == "allow") {
      for (const Json& b : policy.value("bases", Json::array())) {
        g.external_blobs.push_back({b.value("uri", ""), b.value("scope", "")});
      }
    }
    out.graphs.push_back(std::move(g));
  }
  for (auto it = res.begin(); it != res.end(); ++it) {
    if (it.key().rfind("policy.", 0) != 0) continue;
    OMNIGRAPH_ASSIGN_OR_RETURN(
        std::string src,
        GetBlob(*root.store, CatalogBlobOf(it.key(), it.value()), it.value().value("digest", "")));
    for (const Json& ref : it.value().value("applies_to", Json::array())) {
      std::string r = ref.get<std::string>();
      if (r == "cluster") out.cluster_policy_files.push_back(src);
      for (AppliedGraph& g : out.graphs) {
        if (r == "graph." + g.id) g.policy_files.push_back(src);
      }
    }
  }
  return out;
}

}  // namespace

api::Result<api::Json> Import(const Options& options) { return engine::ToApi(ImportImpl(options)); }
api::Result<api::Json> Refresh(const Options& options) {
  return engine::ToApi(RefreshImpl(options));
}

api::Result<AppliedCluster> ReadApplied(std::string_view dir_or_uri) {
  Result<AppliedCluster> r = ReadAppliedImpl(std::string(dir_or_uri));
  if (!r.ok()) return engine::ToApi(r.status());
  return std::move(*r);
}

}  // namespace omnigraph::cluster
