#include "cluster/config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <utility>

#include "engine/api/api_values.h"
#include "omnigraph/omnigraph.h"

namespace omnigraph::cluster {
namespace {

namespace fs = std::filesystem;

// Where an error is: the file and a node's line.
struct Where {
  std::string file;  // as shown: "cluster.yaml" or "<dir>/cluster.yaml"
};

Status Error(const Where& w, const YAML::Node& node, const std::string& path,
             const std::string& message, const std::string& fix) {
  std::string text = w.file;
  if (node.IsDefined() && node.Mark().line >= 0) text += ":" + std::to_string(node.Mark().line + 1);
  text += ": " + path + ": " + message;
  if (!fix.empty()) text += " (fix: " + fix + ")";
  return Status(Code::kInvalidArgument, text, w.file);
}

std::string Joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// Refuses keys outside `allowed` and keys given twice; `reserved` keys get their own message.
Status CheckKeys(const Where& w, const YAML::Node& map, const std::string& path,
                 const std::vector<std::string>& allowed,
                 const std::vector<std::string>& reserved = {}) {
  std::set<std::string> seen;
  for (const auto& kv : map) {
    std::string key = kv.first.as<std::string>();
    std::string at = path.empty() ? key : path + "." + key;
    if (!seen.insert(key).second) {
      return Error(w, kv.first, at, "duplicate key", "keep one of the two entries");
    }
    if (std::find(reserved.begin(), reserved.end(), key) != reserved.end()) {
      return Error(w, kv.first, at, "reserved for a later phase and not supported yet",
                   "remove it");
    }
    if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      return Error(w, kv.first, at, "unknown key",
                   "expected one of " + Joined(allowed) + "; fix the spelling or remove it");
    }
  }
  return Status::Ok();
}

Result<std::string> ScalarString(const Where& w, const YAML::Node& node, const std::string& path) {
  if (!node.IsScalar()) {
    return Error(w, node, path, "must be a string", "write it as a plain string");
  }
  return node.as<std::string>();
}

Status ExpectMap(const Where& w, const YAML::Node& node, const std::string& path) {
  if (node.IsMap()) return Status::Ok();
  return Error(w, node, path, "must be a mapping", "write it as `key: value` entries");
}

// Reads a file the config references: relative to the config dir, never escaping it.
Result<std::string> ReadReferenced(const Where& w, const YAML::Node& node, const std::string& dir,
                                   const std::string& path, const std::string& rel) {
  fs::path p(rel);
  if (p.is_absolute() || rel.find("..") != std::string::npos || rel.empty()) {
    return Error(w, node, path, "`" + rel + "` must be a path inside the config directory",
                 "give it relative to the directory that holds cluster.yaml");
  }
  fs::path full = fs::path(dir) / p;
  std::error_code ec;
  if (!fs::is_regular_file(full, ec)) {
    return Error(w, node, path,
                 "file `" + rel + "` does not exist (looked at " + full.string() + ")",
                 "create it or correct the path");
  }
  std::ifstream in(full, std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  if (!in.good() && !in.eof()) {
    return Error(w, node, path, "cannot read `" + rel + "`", "check its permissions");
  }
  return buf.str();
}

bool ValidId(const std::string& id) {
  if (id.empty() || id.size() > 64) return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
  });
}

// The declared query files of a graph: a directory (its top-level *.gq, sorted), a list of files,
// or a map name -> {file}. Returns the files; fills `wanted` for the map form.
Result<std::vector<std::string>> QueryFiles(const Where& w, const std::string& dir,
                                            const YAML::Node& node, const std::string& path) {
  std::vector<std::string> files;
  if (node.IsScalar()) {
    std::string rel = node.as<std::string>();
    while (!rel.empty() && rel.back() == '/') rel.pop_back();
    std::error_code ec;
    fs::path full = fs::path(dir) / rel;
    if (rel.empty() || rel.find("..") != std::string::npos || !fs::is_directory(full, ec)) {
      return Error(w, node, path, "`" + node.as<std::string>() + "` is not a directory",
                   "name a folder of .gq files, a list of files, or a map name: {file: ...}");
    }
    for (const auto& e : fs::directory_iterator(full, ec)) {
      if (e.is_regular_file() && e.path().extension() == ".gq") {
        files.push_back(rel + "/" + e.path().filename().string());
      }
    }
    std::sort(files.begin(), files.end());
    return files;
  }
  if (node.IsSequence()) {
    for (size_t i = 0; i < node.size(); ++i) {
      OMNIGRAPH_ASSIGN_OR_RETURN(std::string f,
                                 ScalarString(w, node[i], path + "[" + std::to_string(i) + "]"));
      if (std::find(files.begin(), files.end(), f) == files.end()) files.push_back(f);
    }
    return files;
  }
  if (node.IsMap()) return files;  // CheckQueryKeysMap reads the map form
  return Error(w, node, path, "must be a directory, a list of files or a map name: {file: ...}",
               "write `queries: queries/`");
}

Status CheckQueryKeysMap(const Where& w, const YAML::Node& node, const std::string& path,
                         std::vector<std::string>& files,
                         std::map<std::string, std::string>& wanted) {
  std::set<std::string> seen;
  for (const auto& kv : node) {
    std::string name = kv.first.as<std::string>();
    std::string at = path + "." + name;
    if (!seen.insert(name).second) {
      return Error(w, kv.first, at, "duplicate key", "keep one of the two entries");
    }
    OMNIGRAPH_RETURN_IF_ERROR(ExpectMap(w, kv.second, at));
    OMNIGRAPH_RETURN_IF_ERROR(CheckKeys(w, kv.second, at, {"file"}));
    if (!kv.second["file"]) {
      return Error(w, kv.second, at + ".file", "missing", "add `file: <name>.gq`");
    }
    OMNIGRAPH_ASSIGN_OR_RETURN(std::string f, ScalarString(w, kv.second["file"], at + ".file"));
    wanted[name] = f;
    if (std::find(files.begin(), files.end(), f) == files.end()) files.push_back(f);
  }
  return Status::Ok();
}

// Type-checks every query of `source` against the graph's schema; appends its queries.
Status LintQueryFile(const Where& w, const YAML::Node& node, const std::string& path,
                     GraphConfig& g, const std::string& file, const std::string& source,
                     std::map<std::string, std::string>& owner) {
  api::Result<api::Json> lint = api::Database::LintWithSchema(g.schema_source, source);
  if (!lint.ok()) {
    return Error(w, node, "graphs." + g.id + ".schema",
                 "`" + g.schema_file + "` does not check: " + lint.status().message(),
                 "fix the schema");
  }
  Json report = engine::FromApi(*lint);
  for (const Json& f : report.value("findings", Json::array())) {
    if (f.value("code", "") == "Q000") {
      return Error(w, node, path,
                   "query_parse_error: `" + file + "`: " + f.value("message", std::string()),
                   "fix the query file");
    }
  }
  for (const Json& q : report.value("results", Json::array())) {
    std::string name = q.value("name", "");
    if (q.value("status", "") != "ok") {
      return Error(w, node, path,
                   "query_type_error: `" + file + "` query " + name + ": " +
                       q.value("error", std::string("does not type-check")),
                   "make the query match graph " + g.id + "'s schema");
    }
    auto [it, fresh] = owner.emplace(name, file);
    if (!fresh) {
      return Error(w, node, path,
                   "duplicate_query_name: query " + name + " is declared in `" + it->second +
                       "` and `" + file + "`",
                   "rename one of them");
    }
    g.queries.push_back({name, file, q.value("kind", "read")});
  }
  return Status::Ok();
}

Status ParseQueries(const Where& w, const std::string& dir, const YAML::Node& node,
                    const std::string& path, GraphConfig& g) {
  std::map<std::string, std::string> wanted;
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<std::string> files, QueryFiles(w, dir, node, path));
  if (node.IsMap()) OMNIGRAPH_RETURN_IF_ERROR(CheckQueryKeysMap(w, node, path, files, wanted));
  std::map<std::string, std::string> owner;
  for (const std::string& f : files) {
    OMNIGRAPH_ASSIGN_OR_RETURN(std::string src, ReadReferenced(w, node, dir, path, f));
    OMNIGRAPH_RETURN_IF_ERROR(LintQueryFile(w, node, path, g, f, src, owner));
    g.query_files[f] = std::move(src);
  }
  if (!wanted.empty()) {
    std::vector<QueryDecl> kept;
    for (const auto& [name, file] : wanted) {
      auto it =
          std::find_if(g.queries.begin(), g.queries.end(),
                       [&wanted_name = name](const QueryDecl& q) { return q.name == wanted_name; });
      if (it == g.queries.end() || it->file != file) {
        return Error(w, node[name], path + "." + name,
                     "query_not_found: `" + file + "` declares no query " + name,
                     "name a query the file declares");
      }
      kept.push_back(*it);
    }
    g.queries = std::move(kept);
  }
  std::sort(g.queries.begin(), g.queries.end(),
            [](const QueryDecl& a, const QueryDecl& b) { return a.name < b.name; });
  return Status::Ok();
}

Status ParseExternalBlobs(const Where& w, const YAML::Node& node, const std::string& path,
                          GraphConfig& g) {
  g.external_blobs = Json{{"mode", "deny"}, {"bases", Json::array()}};
  if (!node) return Status::Ok();
  OMNIGRAPH_RETURN_IF_ERROR(ExpectMap(w, node, path));
  OMNIGRAPH_RETURN_IF_ERROR(CheckKeys(w, node, path, {"allow"}));
  YAML::Node allow = node["allow"];
  if (!allow || allow.size() == 0) return Status::Ok();
  if (!allow.IsSequence()) {
    return Error(w, allow, path + ".allow", "must be a list", "write `- base: ...` entries");
  }
  std::vector<std::string> bases;
  for (size_t i = 0; i < allow.size(); ++i) {
    std::string at = path + ".allow[" + std::to_string(i) + "]";
    OMNIGRAPH_RETURN_IF_ERROR(ExpectMap(w, allow[i], at));
    OMNIGRAPH_RETURN_IF_ERROR(CheckKeys(w, allow[i], at, {"base", "scope"}));
    if (!allow[i]["base"] || !allow[i]["scope"]) {
      return Error(w, allow[i], at, "needs both `base` and `scope`",
                   "add base: s3://bucket/prefix/ and scope: server_safe");
    }
    OMNIGRAPH_ASSIGN_OR_RETURN(std::string base, ScalarString(w, allow[i]["base"], at + ".base"));
    OMNIGRAPH_ASSIGN_OR_RETURN(std::string scope,
                               ScalarString(w, allow[i]["scope"], at + ".scope"));
    bool s3 = base.rfind("s3://", 0) == 0, file = base.rfind("file:///", 0) == 0;
    if ((!s3 && !file) || base.find("..") != std::string::npos ||
        base.find_first_of("?#@") != std::string::npos) {
      return Error(w, allow[i]["base"], at + ".base",
                   "`" + base + "` is not an absolute s3:// or file:/// base",
                   "give an exact absolute base without credentials, query or `..`");
    }
    if (scope != "server_safe" && scope != "embedded_only") {
      return Error(w, allow[i]["scope"], at + ".scope", "unknown scope `" + scope + "`",
                   "use server_safe or embedded_only");
    }
    if (file && scope == "server_safe") {
      return Error(w, allow[i]["scope"], at + ".scope", "a file:// base cannot be server_safe",
                   "use scope: embedded_only");
    }
    if (base.back() != '/') base += '/';
    for (const std::string& b : bases) {
      if (b.rfind(base, 0) == 0 || base.rfind(b, 0) == 0) {
        return Error(w, allow[i]["base"], at + ".base", "overlaps base `" + b + "`",
                     "keep one of the two");
      }
    }
    bases.push_back(base);
    g.external_blobs["mode"] = "allow";
    g.external_blobs["bases"].push_back({{"uri", base}, {"scope", scope}});
  }
  return Status::Ok();
}

Status ParseGraph(const Where& w, const std::string& dir, const std::string& id,
                  const YAML::Node& node, const ClusterConfig& c, GraphConfig& g) {
  std::string path = "graphs." + id;
  g.id = id;
  if (!ValidId(id)) {
    return Error(w, node, path, "graph id must be letters, digits, `_` or `-` (at most 64)",
                 "rename the graph");
  }
  OMNIGRAPH_RETURN_IF_ERROR(ExpectMap(w, node, path));
  OMNIGRAPH_RETURN_IF_ERROR(
      CheckKeys(w, node, path, {"schema", "queries", "embedding_provider", "external_blobs"}));
  if (!node["schema"]) return Error(w, node, path + ".schema", "missing", "add `schema: x.pg`");
  OMNIGRAPH_ASSIGN_OR_RETURN(g.schema_file, ScalarString(w, node["schema"], path + ".schema"));
  OMNIGRAPH_ASSIGN_OR_RETURN(
      g.schema_source, ReadReferenced(w, node["schema"], dir, path + ".schema", g.schema_file));
  if (node["queries"]) {
    OMNIGRAPH_RETURN_IF_ERROR(ParseQueries(w, dir, node["queries"], path + ".queries", g));
  } else {
    api::Result<api::Json> lint = api::Database::LintWithSchema(g.schema_source, "");
    if (!lint.ok()) {
      return Error(w, node["schema"], path + ".schema",
                   "`" + g.schema_file + "` does not check: " + lint.status().message(),
                   "fix the schema");
    }
  }
  if (node["embedding_provider"]) {
    OMNIGRAPH_ASSIGN_OR_RETURN(
        std::string p, ScalarString(w, node["embedding_provider"], path + ".embedding_provider"));
    std::string bare = p.rfind("provider.embedding.", 0) == 0 ? p.substr(19) : p;
    if (!c.providers.contains(bare)) {
      return Error(w, node["embedding_provider"], path + ".embedding_provider",
                   "unknown embedding provider `" + p + "`",
                   "declare it under providers.embedding or correct the name");
    }
    g.embedding_provider = "provider.embedding." + bare;
  }
  return ParseExternalBlobs(w, node["external_blobs"], path + ".external_blobs", g);
}

Status ParseProviders(const Where& w, const YAML::Node& node, ClusterConfig& c) {
  if (!node) return Status::Ok();
  OMNIGRAPH_RETURN_IF_ERROR(ExpectMap(w, node, "providers"));
  OMNIGRAPH_RETURN_IF_ERROR(CheckKeys(w, node, "providers", {"embedding"}));
  YAML::Node emb = node["embedding"];
  if (!emb) return Status::Ok();
  OMNIGRAPH_RETURN_IF_ERROR(ExpectMap(w, emb, "providers.embedding"));
  OMNIGRAPH_RETURN_IF_ERROR(CheckKeys(w, emb, "providers.embedding", {}));
  for (const auto& kv : emb) {
    std::string name = kv.first.as<std::string>(), path = "providers.embedding." + name;
    OMNIGRAPH_RETURN_IF_ERROR(ExpectMap(w, kv.second, path));
    OMNIGRAPH_RETURN_IF_ERROR(
        CheckKeys(w, kv.second, path, {"kind", "base_url", "model", "api_key"}));
    Json profile = Json::object();
    for (const char* key : {"kind", "base_url", "model", "api_key"}) {
      if (!kv.second[key]) continue;
      OMNIGRAPH_ASSIGN_OR_RETURN(profile[key], ScalarString(w, kv.second[key], path + "." + key));
    }
    std::string kind = profile.value("kind", "openai-compatible");
    profile["kind"] = kind;
    if (kind != "openai-compatible" && kind != "openai" && kind != "gemini" && kind != "mock") {
      return Error(w, kv.second["kind"], path + ".kind", "unknown kind `" + kind + "`",
                   "use openai-compatible, openai, gemini or mock");
    }
    std::string key = profile.value("api_key", "");
    bool env = key.size() > 3 && key.rfind("${", 0) == 0 && key.back() == '}';
    if (kind != "mock" && !env) {
      return Error(w, kv.second["api_key"] ? kv.second["api_key"] : kv.second, path + ".api_key",
                   key.empty() ? "missing" : "inline secrets are refused",
                   "write `api_key: ${ENV_VAR}`; the server resolves it at boot");
    }
    c.providers[name] = {name, std::move(profile)};
  }
  return Status::Ok();
}

Status ParsePolicy(const Where& w, const std::string& dir, const std::string& name,
                   const YAML::Node& node, ClusterConfig& c) {
  std::string path = "policies." + name;
  OMNIGRAPH_RETURN_IF_ERROR(ExpectMap(w, node, path));
  OMNIGRAPH_RETURN_IF_ERROR(CheckKeys(w, node, path, {"file", "applies_to"}));
  PolicyConfig p;
  p.name = name;
  if (!node["file"]) return Error(w, node, path + ".file", "missing", "add `file: x.policy.yaml`");
  OMNIGRAPH_ASSIGN_OR_RETURN(p.file, ScalarString(w, node["file"], path + ".file"));
  OMNIGRAPH_ASSIGN_OR_RETURN(p.source,
                             ReadReferenced(w, node["file"], dir, path + ".file", p.file));
  try {
    YAML::Node bundle = YAML::Load(p.source);
    if (!bundle.IsMap()) {
      return Error(w, node["file"], path + ".file", "`" + p.file + "` is not a YAML mapping",
                   "write the policy bundle as a mapping");
    }
  } catch (const YAML::Exception& e) {
    return Error(w, node["file"], path + ".file", "`" + p.file + "`: " + e.what(),
                 "fix the policy file's YAML");
  }
  YAML::Node at = node["applies_to"];
  if (!at || !at.IsSequence() || at.size() == 0) {
    return Error(w, at ? at : node, path + ".applies_to", "must be a non-empty list",
                 "write `applies_to: [<graph id>]` or `[cluster]`");
  }
  for (size_t i = 0; i < at.size(); ++i) {
    std::string ip = path + ".applies_to[" + std::to_string(i) + "]";
    OMNIGRAPH_ASSIGN_OR_RETURN(std::string ref, ScalarString(w, at[i], ip));
    if (ref.rfind("graph.", 0) == 0) ref = ref.substr(6);
    if (ref != "cluster" && !c.graphs.contains(ref)) {
      return Error(w, at[i], ip, "unknown graph `" + ref + "`",
                   "name a graph declared under graphs:, or `cluster`");
    }
    p.applies_to.push_back(ref == "cluster" ? ref : "graph." + ref);
  }
  std::sort(p.applies_to.begin(), p.applies_to.end());
  p.applies_to.erase(std::unique(p.applies_to.begin(), p.applies_to.end()), p.applies_to.end());
  for (const auto& [other, q] : c.policies) {
    for (const std::string& s : p.applies_to) {
      if (std::find(q.applies_to.begin(), q.applies_to.end(), s) != q.applies_to.end()) {
        return Error(
            w, at, path + ".applies_to",
            "scope " + s + " is already bound by policy " + other + " (one bundle per scope)",
            "merge the rules into one bundle");
      }
    }
  }
  c.policies[name] = std::move(p);
  return Status::Ok();
}

Status ParseHeader(const Where& w, const YAML::Node& root, ClusterConfig& c) {
  OMNIGRAPH_RETURN_IF_ERROR(CheckKeys(
      w, root, "", {"version", "metadata", "storage", "state", "providers", "graphs", "policies"},
      {"pipelines", "embeddings", "ui", "aliases", "bindings"}));
  if (!root["version"] || !root["version"].IsScalar() || root["version"].as<std::string>() != "1") {
    return Error(w, root["version"] ? root["version"] : root, "version", "must be 1",
                 "write `version: 1`");
  }
  if (root["metadata"]) {
    OMNIGRAPH_RETURN_IF_ERROR(ExpectMap(w, root["metadata"], "metadata"));
    OMNIGRAPH_RETURN_IF_ERROR(CheckKeys(w, root["metadata"], "metadata", {"name"}));
    if (root["metadata"]["name"]) {
      OMNIGRAPH_ASSIGN_OR_RETURN(c.name,
                                 ScalarString(w, root["metadata"]["name"], "metadata.name"));
    }
  }
  if (root["storage"]) {
    OMNIGRAPH_ASSIGN_OR_RETURN(c.storage, ScalarString(w, root["storage"], "storage"));
  }
  if (YAML::Node st = root["state"]) {
    OMNIGRAPH_RETURN_IF_ERROR(ExpectMap(w, st, "state"));
    OMNIGRAPH_RETURN_IF_ERROR(CheckKeys(w, st, "state", {"backend", "lock"}));
    if (st["backend"] && st["backend"].as<std::string>() != "cluster") {
      return Error(w, st["backend"], "state.backend", "only `cluster` is supported",
                   "write `backend: cluster` or remove the key");
    }
    if (st["lock"]) {
      std::string v = st["lock"].IsScalar() ? st["lock"].as<std::string>() : "";
      if (v != "true" && v != "false") {
        return Error(w, st["lock"], "state.lock", "must be true or false", "write `lock: true`");
      }
      c.lock = v == "true";
    }
  }
  return ParseProviders(w, root["providers"], c);
}

Result<YAML::Node> LoadYaml(const Where& w, const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    return Status(Code::kNotFound,
                  "no cluster.yaml in " + fs::path(path).parent_path().string() +
                      " (fix: pass --config <dir> naming the directory that holds it)",
                  path);
  }
  try {
    return YAML::LoadFile(path);
  } catch (const YAML::Exception& e) {
    return Status(Code::kInvalidArgument,
                  w.file + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg +
                      " (fix: correct the YAML syntax)",
                  w.file);
  }
}

}  // namespace

Result<ClusterConfig> LoadConfig(const std::string& dir, bool check_sources) {
  (void)check_sources;
  std::string file = (fs::path(dir) / kConfigFileName).string();
  Where w{file};
  OMNIGRAPH_ASSIGN_OR_RETURN(YAML::Node root, LoadYaml(w, file));
  if (!root.IsMap()) return Error(w, root, "(top level)", "must be a mapping", "see config.md");
  ClusterConfig c;
  c.dir = dir;
  OMNIGRAPH_RETURN_IF_ERROR(ParseHeader(w, root, c));
  if (YAML::Node graphs = root["graphs"]) {
    OMNIGRAPH_RETURN_IF_ERROR(ExpectMap(w, graphs, "graphs"));
    OMNIGRAPH_RETURN_IF_ERROR(CheckKeys(w, graphs, "graphs", {}));
    for (const auto& kv : graphs) {
      std::string id = kv.first.as<std::string>();
      OMNIGRAPH_RETURN_IF_ERROR(ParseGraph(w, dir, id, kv.second, c, c.graphs[id]));
    }
  }
  if (YAML::Node policies = root["policies"]) {
    OMNIGRAPH_RETURN_IF_ERROR(ExpectMap(w, policies, "policies"));
    OMNIGRAPH_RETURN_IF_ERROR(CheckKeys(w, policies, "policies", {}));
    for (const auto& kv : policies) {
      OMNIGRAPH_RETURN_IF_ERROR(ParsePolicy(w, dir, kv.first.as<std::string>(), kv.second, c));
    }
  }
  return c;
}

Result<std::string> ReadStorageKey(const std::string& dir) {
  std::string file = (fs::path(dir) / kConfigFileName).string();
  Where w{file};
  OMNIGRAPH_ASSIGN_OR_RETURN(YAML::Node root, LoadYaml(w, file));
  if (!root.IsMap() || !root["storage"]) return std::string();
  return ScalarString(w, root["storage"], "storage");
}

}  // namespace omnigraph::cluster
