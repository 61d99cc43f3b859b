// The control plane's diff between the desired resources (cluster.yaml and its files) and the
// ledger, with what apply would do with each change (docs/design/cluster.md "Plan and apply").
// One command's context; single-threaded.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/json.h"
#include "base/random.h"
#include "base/status.h"
#include "cluster/config.h"
#include "cluster/ledger.h"
#include "omnigraph/cluster.h"

namespace omnigraph::cluster {

// One addressable resource: graph.<g>, schema.<g>, query.<g>.<n>, policy.<n>,
// provider.embedding.<n>. `meta` is what the ledger records beside the digest.
struct Resource {
  std::string id;
  std::string kind;   // graph, schema, query, policy, provider
  std::string graph;  // the owning graph (graph, schema, query)
  std::string digest;
  Json meta = Json::object();
  std::string payload;  // catalog bytes (schema, query, policy)
  std::string blob;     // catalog object name, empty for none
};
using Resources = std::map<std::string, Resource>;

struct Change {
  std::string action;  // create, update, delete
  std::string resource;
  std::string kind;
  std::string graph;
  std::string disposition;  // applied, blocked, deferred, error
  std::string reason;
  Json migration;  // schema changes: the engine's plan {supported, steps}
  bool metadata_only = false;
  std::string approval_id;

  Json ToJson() const;
};

// What one command works on.
struct Session {
  Options options;
  ClusterConfig config;
  Root root;
  std::shared_ptr<Clock> clock;
  Random random{1};
  StateFile state;
  Resources desired;
  std::string config_digest;
  Json warnings = Json::array();
  std::vector<Change> changes;
};

// Loads the config (validated) and opens the storage root; reads the ledger.
Result<std::unique_ptr<Session>> OpenSession(const Options& options, bool load_config);

// The desired resources of a config and their digest.
Resources DesiredResources(const ClusterConfig& c);
std::string ConfigDigest(const Resources& r);

// Computes the changes and their dispositions into s.changes.
Status ComputePlan(Session& s);

// Whether a graph root holds objects; its live schema source (empty when absent).
Result<bool> RootExists(const std::string& root_uri);
Result<std::string> LiveSchema(const std::string& root_uri);

// Approval artifacts under __cluster/approvals/.
Result<std::vector<Json>> ReadApprovals(storage::ObjectStore& store);

}  // namespace omnigraph::cluster
