// Where omnigraph-server's graphs come from (docs/design/server.md "Boot"): exactly one of a graph
// URI (single-graph), `--config omnigraph.yaml` (single-graph: the graph its `server.graph` names)
// and `--cluster DIR|URI` (every graph the cluster's applied state names, multi-graph). Each gives
// the GraphSpec list the registry is built from (server/registry.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "omnigraph/omnigraph.h"
#include "server/registry.h"

namespace omnigraph::server {

// What the classic project file (omnigraph.yaml) says about serving.
struct ServerConfig {
  std::string graph;  // server.graph: the name of an entry of graphs:
  std::string uri;    // graphs.<graph>.uri; a relative path resolved against the file's folder
  std::optional<std::string> bind;  // server.bind, HOST:PORT
  // policy.file: a policy bundle bound to the served graph (docs/design/policy.md); a relative
  // path resolved against the file's folder.
  std::optional<std::string> policy_file;
};

// What a cluster's applied state gives a server: its graphs (each with the bundles bound to it)
// and the bundles bound to `cluster` (server-scoped: graph_list).
struct ClusterBoot {
  std::vector<GraphSpec> graphs;
  std::vector<PolicyFile> cluster_policies;
};

// Reads `path` (YAML): server.graph, the uri of the graph it names, server.bind. InvalidArgument
// naming the file and the key for a missing file, bad YAML, a missing key, a graph not in
// graphs:, or a uri that is a server URL (http://: a server opens a store, not another server).
api::Result<ServerConfig> ReadServerConfig(const std::string& path);

// The graphs of the cluster at `dir_or_uri` as its ledger records them applied (never its
// unapplied config): one GraphSpec per applied graph, with its stored-query files and policy
// bundles, and the cluster-bound bundles. Read with omnigraph::cluster::ReadApplied
// (include/omnigraph/cluster.h); its errors (a directory never applied, a damaged ledger)
// refuse the boot.
api::Result<ClusterBoot> ClusterGraphSpecs(const std::string& dir_or_uri);

// Reads a policy file for --policy / policy.file. InvalidArgument naming it when unreadable.
api::Result<PolicyFile> ReadPolicyFile(const std::string& path);

}  // namespace omnigraph::server
