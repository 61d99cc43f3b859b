// The operator's config.yaml and credentials (operator_config.h).
#include "operator_config.h"

#include <sys/stat.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "cli.h"

namespace omnigraph::cli {
namespace {

namespace fs = std::filesystem;

// "<file>:<line>: <key>: <what>".
Status ConfigError(const std::string& file, const YAML::Node& node, const std::string& key,
                   const std::string& what) {
  const std::string line = node ? std::to_string(node.Mark().line + 1) : "?";
  return InvalidArgument(file + ":" + line + ": " + key + ": " + what);
}

// Warns about keys of `node` outside `known`.
void WarnUnknown(const YAML::Node& node, const std::set<std::string>& known,
                 const std::string& file, const std::string& where, OperatorConfig* out) {
  for (const auto& kv : node) {
    const std::string key = kv.first.as<std::string>();
    if (!known.contains(key)) {
      out->warnings.push_back(file + ":" + std::to_string(kv.first.Mark().line + 1) +
                              ": unknown key " + where + key + " (ignored)");
    }
  }
}

Result<std::string> Text(const std::string& file, const YAML::Node& node, const std::string& key) {
  if (!node) return std::string();
  if (!node.IsScalar()) return ConfigError(file, node, key, "must be a string");
  return node.as<std::string>();
}

// A mapping of name -> {field: string}: servers (url), clusters (root).
Result<std::map<std::string, std::string>> NamedField(const std::string& file,
                                                      const YAML::Node& node,
                                                      const std::string& section,
                                                      const std::string& field,
                                                      OperatorConfig* out) {
  std::map<std::string, std::string> named;
  if (!node) return named;
  if (!node.IsMap()) return ConfigError(file, node, section, "must be a mapping of names");
  for (const auto& kv : node) {
    const std::string name = kv.first.as<std::string>();
    const std::string key = section + "." + name;
    if (!kv.second.IsMap()) return ConfigError(file, kv.second, key, "must be a mapping");
    if (kv.second["token"] || kv.second["bearer_token"] || kv.second["password"]) {
      return ConfigError(
          file, kv.second, key,
          "holds a secret: tokens never go in config.yaml (use 'omnigraph login " + name + "')");
    }
    WarnUnknown(kv.second, {field}, file, key + ".", out);
    OMNIGRAPH_ASSIGN_OR_RETURN(std::string value, Text(file, kv.second[field], key + "." + field));
    if (value.empty()) return ConfigError(file, kv.second, key + "." + field, "is required");
    named[name] = value;
  }
  return named;
}

Result<OperatorScope> Scope(const std::string& file, const YAML::Node& node, const std::string& key,
                            bool defaults, OperatorConfig* out) {
  OperatorScope s;
  if (!node) return s;
  if (!node.IsMap()) return ConfigError(file, node, key, "must be a mapping");
  if (!defaults)
    WarnUnknown(node, {"server", "cluster", "store", "default_graph"}, file, key + ".", out);
  OMNIGRAPH_ASSIGN_OR_RETURN(s.server, Text(file, node["server"], key + ".server"));
  OMNIGRAPH_ASSIGN_OR_RETURN(s.store, Text(file, node["store"], key + ".store"));
  OMNIGRAPH_ASSIGN_OR_RETURN(s.default_graph,
                             Text(file, node["default_graph"], key + ".default_graph"));
  if (!defaults) {
    OMNIGRAPH_ASSIGN_OR_RETURN(s.cluster, Text(file, node["cluster"], key + ".cluster"));
  }
  const int bound = !s.server.empty() + !s.cluster.empty() + !s.store.empty();
  if (bound > 1) {
    return ConfigError(file, node, key,
                       defaults ? "server and store are exclusive (one default scope)"
                                : "binds more than one of server, cluster and store");
  }
  if (!defaults && bound == 0) {
    return ConfigError(file, node, key, "binds none of server, cluster and store");
  }
  return s;
}

Status Defaults(const std::string& file, const YAML::Node& node, OperatorConfig* out) {
  if (!node) return Status::Ok();
  WarnUnknown(
      node,
      {"server", "store", "default_graph", "output", "table_max_column_width", "table_cell_layout"},
      file, "defaults.", out);
  OMNIGRAPH_ASSIGN_OR_RETURN(out->defaults, Scope(file, node, "defaults", true, out));
  OMNIGRAPH_ASSIGN_OR_RETURN(out->output, Text(file, node["output"], "defaults.output"));
  static const std::set<std::string> kFormats = {"", "table", "json", "jsonl", "csv", "kv"};
  if (!kFormats.contains(out->output)) {
    return ConfigError(file, node["output"], "defaults.output",
                       "'" + out->output + "' is not one of table, json, jsonl, csv, kv");
  }
  if (const YAML::Node w = node["table_max_column_width"]; w) {
    OMNIGRAPH_ASSIGN_OR_RETURN(std::string text, Text(file, w, "defaults.table_max_column_width"));
    if (text.empty() || text.size() > 6 ||
        text.find_first_not_of("0123456789") != std::string::npos || std::stoul(text) < 4) {
      return ConfigError(file, w, "defaults.table_max_column_width",
                         "must be a whole number of at least 4");
    }
    out->table_max_column_width = std::stoul(text);
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(std::string layout,
                             Text(file, node["table_cell_layout"], "defaults.table_cell_layout"));
  if (layout != "" && layout != "truncate" && layout != "wrap") {
    return ConfigError(file, node["table_cell_layout"], "defaults.table_cell_layout",
                       "'" + layout + "' is not truncate or wrap");
  }
  out->table_wrap = layout == "wrap";
  return Status::Ok();
}

Result<OperatorAlias> Alias(const std::string& file, const YAML::Node& node, const std::string& key,
                            OperatorConfig* out) {
  if (!node.IsMap()) return ConfigError(file, node, key, "must be a mapping");
  WarnUnknown(node, {"server", "graph", "query", "args", "params", "format"}, file, key + ".", out);
  OperatorAlias a;
  OMNIGRAPH_ASSIGN_OR_RETURN(a.server, Text(file, node["server"], key + ".server"));
  OMNIGRAPH_ASSIGN_OR_RETURN(a.graph, Text(file, node["graph"], key + ".graph"));
  OMNIGRAPH_ASSIGN_OR_RETURN(a.query, Text(file, node["query"], key + ".query"));
  OMNIGRAPH_ASSIGN_OR_RETURN(a.format, Text(file, node["format"], key + ".format"));
  if (a.server.empty()) return ConfigError(file, node, key + ".server", "is required");
  if (a.query.empty()) {
    return ConfigError(file, node, key + ".query", "is required (a stored query's name)");
  }
  if (const YAML::Node args = node["args"]; args) {
    if (!args.IsSequence()) return ConfigError(file, args, key + ".args", "must be a list");
    for (const YAML::Node& n : args) {
      OMNIGRAPH_ASSIGN_OR_RETURN(std::string name, Text(file, n, key + ".args"));
      a.args.push_back(name);
    }
  }
  if (const YAML::Node params = node["params"]; params) {
    if (!params.IsMap()) return ConfigError(file, params, key + ".params", "must be a mapping");
    for (const auto& kv : params) {
      OMNIGRAPH_ASSIGN_OR_RETURN(std::string v, Text(file, kv.second, key + ".params"));
      a.params[kv.first.as<std::string>()] = ArgValue(v);
    }
  }
  return a;
}

Status Sections(const std::string& file, const YAML::Node& root, OperatorConfig* out) {
  WarnUnknown(root, {"operator", "servers", "clusters", "defaults", "profiles", "aliases"}, file,
              "", out);
  if (const YAML::Node op = root["operator"]; op) {
    if (!op.IsMap()) return ConfigError(file, op, "operator", "must be a mapping");
    WarnUnknown(op, {"actor"}, file, "operator.", out);
    OMNIGRAPH_ASSIGN_OR_RETURN(out->actor, Text(file, op["actor"], "operator.actor"));
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(out->servers,
                             NamedField(file, root["servers"], "servers", "url", out));
  for (const auto& [name, url] : out->servers) {
    if (!url.starts_with("http://") && !url.starts_with("https://")) {
      return ConfigError(file, root["servers"][name], "servers." + name + ".url",
                         "'" + url + "' is not an http:// or https:// URL");
    }
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(out->clusters,
                             NamedField(file, root["clusters"], "clusters", "root", out));
  OMNIGRAPH_RETURN_IF_ERROR(Defaults(file, root["defaults"], out));
  for (const char* section : {"profiles", "aliases"}) {
    const YAML::Node node = root[section];
    if (node && !node.IsMap()) return ConfigError(file, node, section, "must be a mapping");
  }
  for (const auto& kv : root["profiles"]) {
    const std::string key = "profiles." + kv.first.as<std::string>();
    OMNIGRAPH_ASSIGN_OR_RETURN(out->profiles[kv.first.as<std::string>()],
                               Scope(file, kv.second, key, false, out));
  }
  for (const auto& kv : root["aliases"]) {
    const std::string key = "aliases." + kv.first.as<std::string>();
    OMNIGRAPH_ASSIGN_OR_RETURN(out->aliases[kv.first.as<std::string>()],
                               Alias(file, kv.second, key, out));
  }
  return Status::Ok();
}

// The [name] sections of the credentials file: name -> token.
Result<std::map<std::string, std::string>> ReadCredentials(const std::string& path) {
  std::map<std::string, std::string> tokens;
  std::error_code ec;
  if (!fs::exists(path, ec)) return tokens;
  struct stat st {};
  if (stat(path.c_str(), &st) == 0 && (st.st_mode & 077) != 0) {
    return Status(Code::kConfiguration,
                  path + " may be read by others (mode " + std::to_string((st.st_mode >> 6) & 7) +
                      std::to_string((st.st_mode >> 3) & 7) + std::to_string(st.st_mode & 7) +
                      "); refusing to use it: chmod 600 " + path);
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  std::istringstream in(text);
  std::string line, section;
  for (size_t n = 1; std::getline(in, line); ++n) {
    const size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    if (line[first] == '[') {
      const size_t close = line.find(']', first);
      if (close == std::string::npos) {
        return InvalidArgument(path + ":" + std::to_string(n) + ": a section needs its ']'");
      }
      section = line.substr(first + 1, close - first - 1);
      continue;
    }
    const size_t eq = line.find('=');
    std::string key = line.substr(first, eq == std::string::npos ? eq : eq - first);
    while (!key.empty() && std::isspace(static_cast<unsigned char>(key.back()))) key.pop_back();
    if (eq == std::string::npos || section.empty() || key != "token") {
      // Never echo the line: it may hold a token.
      return InvalidArgument(path + ":" + std::to_string(n) +
                             ": expected 'token = ...' inside a [server] section");
    }
    std::string value = line.substr(eq + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back()))) {
      value.pop_back();
    }
    tokens[section] = value;
  }
  return tokens;
}

std::string EnvOr(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

}  // namespace

std::string OperatorHome() {
  const std::string home = EnvOr("OMNIGRAPH_HOME");
  if (!home.empty()) return home;
  return (fs::path(EnvOr("HOME")) / ".omnigraph").string();
}

Result<OperatorConfig> LoadOperatorConfig(const std::string& home) {
  OperatorConfig out;
  out.home = home;
  const std::string file = (fs::path(home) / "config.yaml").string();
  std::error_code ec;
  if (!fs::exists(file, ec)) return out;
  OMNIGRAPH_ASSIGN_OR_RETURN(std::string text, ReadFile(file));
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return InvalidArgument(file + ":" + std::to_string(e.mark.line + 1) +
                           ": not valid YAML: " + e.msg);
  }
  if (root.IsNull()) return out;
  if (!root.IsMap()) return InvalidArgument(file + ": must be a YAML mapping");
  try {
    OMNIGRAPH_RETURN_IF_ERROR(Sections(file, root, &out));
  } catch (const YAML::Exception& e) {
    return InvalidArgument(file + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  return out;
}

std::string TokenEnvOf(const std::string& server_name) {
  std::string env = "OMNIGRAPH_TOKEN_";
  for (char c : server_name) {
    env += std::isalnum(static_cast<unsigned char>(c))
               ? static_cast<char>(std::toupper(static_cast<unsigned char>(c)))
               : '_';
  }
  return env;
}

Result<std::optional<std::string>> TokenFor(const OperatorConfig& config, const std::string& url) {
  std::string keyed;
  size_t longest = 0;
  for (const auto& [name, server_url] : config.servers) {
    std::string prefix = server_url;
    while (prefix.size() > 1 && prefix.back() == '/') prefix.pop_back();
    const bool match = url == prefix || (url.starts_with(prefix) && url.size() > prefix.size() &&
                                         url[prefix.size()] == '/');
    if (match && prefix.size() > longest) {
      keyed = name;
      longest = prefix.size();
    }
  }
  if (!keyed.empty()) {
    const std::string env = EnvOr(TokenEnvOf(keyed).c_str());
    if (!env.empty()) return std::optional<std::string>(env);
    OMNIGRAPH_ASSIGN_OR_RETURN(auto tokens,
                               ReadCredentials((fs::path(config.home) / "credentials").string()));
    if (auto it = tokens.find(keyed); it != tokens.end() && !it->second.empty()) {
      return std::optional<std::string>(it->second);
    }
  }
  const std::string fallback = EnvOr(kBearerTokenEnv);
  if (!fallback.empty()) return std::optional<std::string>(fallback);
  return std::optional<std::string>();
}

Status WriteCredential(const std::string& home, const std::string& name, const std::string& token) {
  const std::string path = (fs::path(home) / "credentials").string();
  OMNIGRAPH_ASSIGN_OR_RETURN(auto tokens, ReadCredentials(path));
  if (token.empty()) {
    tokens.erase(name);
  } else {
    tokens[name] = token;
  }
  std::error_code ec;
  fs::create_directories(home, ec);
  if (ec) return Status(Code::kInternal, "cannot create " + home + ": " + ec.message());
  std::string text;
  for (const auto& [server, t] : tokens) text += "[" + server + "]\ntoken = " + t + "\n";
  // Written beside and renamed over, created 0600 so the token is never readable by others.
  const std::string tmp = path + ".tmp";
  const mode_t old = umask(077);
  std::ofstream out(tmp, std::ios::trunc);
  umask(old);
  out << text;
  out.close();
  if (!out || chmod(tmp.c_str(), 0600) != 0 || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return Status(Code::kInternal, "cannot write " + path + ": " + std::strerror(errno));
  }
  return Status::Ok();
}

}  // namespace omnigraph::cli
