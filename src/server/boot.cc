// Boot sources (server/boot.h).
#include "server/boot.h"

#include <yaml-cpp/yaml.h>

#include "omnigraph/cluster.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace omnigraph::server {
namespace {

std::string ScalarAt(const YAML::Node& node) {
  return node && node.IsScalar() ? node.as<std::string>() : std::string();
}

}  // namespace

api::Result<ServerConfig> ReadServerConfig(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    return api::InvalidArgument("--config: cannot read '" + path + "': no such file");
  }
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::Exception& e) {
    return api::InvalidArgument("--config " + path + ": not valid YAML: " + e.what());
  }
  ServerConfig out;
  const YAML::Node server = root.IsMap() ? root["server"] : YAML::Node();
  out.graph = ScalarAt(server ? server["graph"] : YAML::Node());
  if (out.graph.empty()) {
    return api::InvalidArgument(path + ": server.graph is missing: name the entry of graphs: " +
                                "this server serves (server: {graph: NAME})");
  }
  const YAML::Node graphs = root["graphs"];
  const YAML::Node entry = graphs && graphs.IsMap() ? graphs[out.graph] : YAML::Node();
  if (!entry || !entry.IsMap()) {
    return api::InvalidArgument(path + ": server.graph names '" + out.graph +
                                "', which is not an entry of graphs:");
  }
  out.uri = ScalarAt(entry["uri"]);
  if (out.uri.empty()) {
    return api::InvalidArgument(path + ": graphs." + out.graph + ".uri is missing");
  }
  if (out.uri.starts_with("http://") || out.uri.starts_with("https://")) {
    return api::InvalidArgument(path + ": graphs." + out.graph + ".uri is a server URL (" +
                                out.uri + "); server.graph must name a graph's store");
  }
  if (out.uri.find("://") == std::string::npos && !fs::path(out.uri).is_absolute()) {
    out.uri = (fs::path(path).parent_path() / out.uri).lexically_normal().string();
    if (out.uri.empty()) out.uri = ".";
  }
  const YAML::Node policy = root["policy"];
  if (policy) {
    const std::string file = ScalarAt(policy.IsMap() ? policy["file"] : YAML::Node());
    if (file.empty()) {
      return api::InvalidArgument(path +
                                  ": policy.file must name a policy bundle (policy: {file: "
                                  "PATH})");
    }
    out.policy_file = fs::path(file).is_absolute()
                          ? file
                          : (fs::path(path).parent_path() / file).lexically_normal().string();
  }
  if (server && server["bind"]) {
    const std::string bind = ScalarAt(server["bind"]);
    if (bind.empty()) return api::InvalidArgument(path + ": server.bind must be HOST:PORT");
    out.bind = bind;
  }
  return out;
}

api::Result<ClusterBoot> ClusterGraphSpecs(const std::string& dir_or_uri) {
  // The applied state only (the ledger and catalog), never the working directory's config.
  api::Result<cluster::AppliedCluster> applied = cluster::ReadApplied(dir_or_uri);
  if (!applied.ok()) return applied.status();
  ClusterBoot out;
  for (const cluster::AppliedGraph& g : applied->graphs) {
    GraphSpec spec;
    spec.id = g.id;
    spec.root_uri = g.root_uri;
    for (const cluster::AppliedExternalBlobBase& b : g.external_blobs) {
      spec.external_blobs.push_back({b.uri, b.scope});
    }
    for (const cluster::StoredQueryFile& q : g.queries) spec.queries.push_back({q.path, q.source});
    // The applied state keeps a bundle's text, not its file name: errors name the binding.
    for (const std::string& source : g.policy_files) {
      spec.policies.push_back({"the policy bundle bound to graph '" + g.id + "'", source});
    }
    out.graphs.push_back(std::move(spec));
  }
  for (const std::string& source : applied->cluster_policy_files) {
    out.cluster_policies.push_back({"the policy bundle bound to cluster", source});
  }
  return out;
}

api::Result<PolicyFile> ReadPolicyFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return api::InvalidArgument("the policy file '" + path + "' cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  return PolicyFile{path, text.str()};
}

}  // namespace omnigraph::server
