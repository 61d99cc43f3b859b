// The served graphs and their stored queries (server/registry.h).
#include "server/registry.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <utility>

namespace omnigraph::server {
namespace {

using api::Json;

std::string Where(const StoredQueryFile& file, uint32_t line) {
  return file.path + (line > 0 ? ":" + std::to_string(line) : "");
}

// The line of a lint diagnostic's position, or 0.
uint32_t DiagnosticLine(const Json& diagnostic) {
  const Json& line = diagnostic["position"]["line"];
  return line.is_number_integer() ? static_cast<uint32_t>(line.get<int64_t>()) : 0;
}

std::optional<std::string> OptionalString(const Json& v) {
  if (v.is_string()) return v.string_value();
  return std::nullopt;
}

api::Status CheckSpecIds(const std::vector<GraphSpec>& specs) {
  if (specs.empty()) return api::InvalidArgument("no graph to serve");
  std::map<std::string, int> seen;
  for (const GraphSpec& spec : specs) {
    if (spec.id.empty() || spec.id.find('/') != std::string::npos) {
      return api::InvalidArgument("graph id '" + spec.id + "' must be non-empty, without '/'");
    }
    if (++seen[spec.id] > 1) return api::InvalidArgument("graph id '" + spec.id + "' is twice");
  }
  return api::Status::Ok();
}

}  // namespace

Json StoredQuery::CatalogEntry() const {
  Json out = Json::object();
  out["name"] = name;
  out["tool_name"] = name;
  out["description"] = description ? Json(*description) : Json();
  out["instruction"] = instruction ? Json(*instruction) : Json();
  out["mutation"] = mutation;
  out["params"] = params;
  return out;
}

const Json* StoredQuery::Param(std::string_view param_name) const {
  for (const Json& p : params) {
    if (p["name"].is_string() && p["name"].string_value() == param_name) return &p;
  }
  return nullptr;
}

const StoredQuery* ServedGraph::FindQuery(std::string_view name) const {
  auto it = queries.find(name);
  return it == queries.end() ? nullptr : &it->second;
}

api::Result<std::map<std::string, StoredQuery, std::less<>>> CheckStoredQueries(
    api::Database& db, const std::vector<StoredQueryFile>& files) {
  std::map<std::string, StoredQuery, std::less<>> out;
  for (const StoredQueryFile& file : files) {
    OMNIGRAPH_ASSIGN_OR_RETURN(Json report, db.Lint(file.source, "main"));
    for (const Json& finding : report["findings"]) {
      if (finding["severity"].is_string() && finding["severity"].string_value() == "error") {
        return api::InvalidArgument("stored query file " + Where(file, DiagnosticLine(finding)) +
                                    ": " + finding["message"].string_value());
      }
    }
    for (const Json& q : report["results"]) {
      const std::string name = q["name"].string_value();
      const uint32_t line = static_cast<uint32_t>(q["line"].get<int64_t>());
      if (q["status"].string_value() != "ok") {
        return api::InvalidArgument("stored query '" + name + "' at " +
                                    Where(file, DiagnosticLine(q["diagnostic"])) +
                                    " does not check against the graph's schema: " +
                                    q["diagnostic"]["message"].string_value());
      }
      if (const auto it = out.find(name); it != out.end()) {
        return api::InvalidArgument("stored query '" + name + "' is declared twice: at " +
                                    it->second.file + ":" + std::to_string(it->second.line) +
                                    " and at " + Where(file, line));
      }
      StoredQuery stored;
      stored.name = name;
      stored.file = file.path;
      stored.line = line;
      stored.mutation = q["kind"].string_value() == "mutation";
      stored.source = file.source;
      stored.params = q["params"];
      stored.description = OptionalString(q["description"]);
      stored.instruction = OptionalString(q["instruction"]);
      out.emplace(name, std::move(stored));
    }
  }
  return out;
}

api::Result<std::vector<StoredQueryFile>> ReadQueryFiles(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<std::string> paths;
  if (fs::is_directory(path, ec)) {
    for (const fs::directory_entry& e : fs::directory_iterator(path, ec)) {
      if (e.is_regular_file() && e.path().extension() == ".gq") paths.push_back(e.path().string());
    }
    std::sort(paths.begin(), paths.end());
  } else if (fs::is_regular_file(path, ec)) {
    paths.push_back(path);
  } else {
    return api::InvalidArgument("stored query path '" + path + "' is not a file or a folder");
  }
  std::vector<StoredQueryFile> out;
  for (const std::string& p : paths) {
    std::ifstream in(p, std::ios::binary);
    if (!in) return api::InvalidArgument("cannot read stored query file '" + p + "'");
    std::stringstream text;
    text << in.rdbuf();
    out.push_back(StoredQueryFile{p, text.str()});
  }
  return out;
}

namespace {

// Parses the bundle bound to `spec` and, when enforced, replaces `graph.db` with a handle gated
// by it (the stored queries were checked on the ungated one). A bundle that does not parse, or a
// second bundle bound to one graph, refuses the boot.
api::Status InstallPolicy(const GraphSpec& spec, const RegistryOptions& options,
                          ServedGraph& graph) {
  if (spec.policies.empty()) return api::Status::Ok();
  if (spec.policies.size() > 1) {
    return api::InvalidArgument("graph '" + spec.id + "' has " +
                                std::to_string(spec.policies.size()) +
                                " policy bundles bound to it; bind one bundle per graph "
                                "(merge their groups and rules into one file)");
  }
  const PolicyFile& file = spec.policies.front();
  OMNIGRAPH_ASSIGN_OR_RETURN(
      std::shared_ptr<const api::Policy> policy,
      api::Policy::Parse(file.source, file.name, api::PolicyBinding{false, {spec.id}}));
  if (!options.enforce_policies) return api::Status::Ok();
  api::DatabaseOptions gated = options.database;
  gated.policy = policy;
  gated.policy_graph = spec.id;
  OMNIGRAPH_ASSIGN_OR_RETURN(std::unique_ptr<api::Database> db, graph.db->WithPolicy(gated));
  graph.ungated = graph.db;
  graph.db = std::move(db);
  graph.policy = std::move(policy);
  return api::Status::Ok();
}

}  // namespace

api::Result<std::shared_ptr<const GraphRegistry>> GraphRegistry::Open(
    const std::vector<GraphSpec>& specs, const RegistryOptions& options) {
  OMNIGRAPH_RETURN_IF_ERROR(CheckSpecIds(specs));
  auto registry = std::make_shared<GraphRegistry>();
  registry->multi_ = options.multi;
  size_t served = 0;
  for (const GraphSpec& spec : specs) {
    ServedGraph graph;
    graph.id = spec.id;
    graph.uri = spec.root_uri;
    // A server never dereferences a local file for a writer: it keeps the server_safe bases of
    // the graph's external-Blob rules and drops the embedded_only ones (OmniGraph's rule).
    api::DatabaseOptions database = options.database;
    for (const api::ExternalBlobBase& b : spec.external_blobs) {
      if (b.scope == "server_safe") database.external_blobs.push_back(b);
    }
    api::Result<std::unique_ptr<api::Database>> db = api::Database::Open(spec.root_uri, database);
    if (!db.ok()) {
      const std::string why = "graph '" + spec.id + "' at " + spec.root_uri +
                              " could not be opened: " + db.status().message();
      if (options.require_all || specs.size() == 1) {
        return api::Status(db.status().code(), why, db.status().object());
      }
      std::cerr << "omnigraph-server: quarantined: " << why << "\n";
      graph.quarantine = why;
    } else {
      graph.db = std::shared_ptr<api::Database>(std::move(*db));
      graph.ungated = graph.db;
      api::Result<std::map<std::string, StoredQuery, std::less<>>> queries =
          CheckStoredQueries(*graph.db, spec.queries);
      if (!queries.ok()) {
        return api::Status(queries.status().code(),
                           "graph '" + spec.id + "': " + queries.status().message());
      }
      graph.queries = std::move(*queries);
      OMNIGRAPH_RETURN_IF_ERROR(InstallPolicy(spec, options, graph));
      ++served;
    }
    registry->graphs_.push_back(std::move(graph));
  }
  if (served == 0) return api::InvalidArgument("no graph could be opened; nothing to serve");
  std::sort(registry->graphs_.begin(), registry->graphs_.end(),
            [](const ServedGraph& a, const ServedGraph& b) { return a.id < b.id; });
  return std::shared_ptr<const GraphRegistry>(std::move(registry));
}

api::Result<std::shared_ptr<const GraphRegistry>> GraphRegistry::Single(
    std::string id, std::shared_ptr<api::Database> db, const std::vector<StoredQueryFile>& files) {
  auto registry = std::make_shared<GraphRegistry>();
  ServedGraph graph;
  graph.id = std::move(id);
  graph.uri = db->uri();
  graph.db = std::move(db);
  graph.ungated = graph.db;
  OMNIGRAPH_ASSIGN_OR_RETURN(graph.queries, CheckStoredQueries(*graph.db, files));
  registry->graphs_.push_back(std::move(graph));
  return std::shared_ptr<const GraphRegistry>(std::move(registry));
}

const ServedGraph* GraphRegistry::Find(std::string_view id) const {
  for (const ServedGraph& g : graphs_) {
    if (g.id == id) return &g;
  }
  return nullptr;
}

const ServedGraph* GraphRegistry::Default() const {
  return multi_ || graphs_.size() != 1 ? nullptr : &graphs_.front();
}

}  // namespace omnigraph::server
