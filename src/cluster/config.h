// cluster.yaml (version 1): parsing with yaml-cpp and validation of every file it references
// (docs/design/cluster.md "Config"). Errors are InvalidArgument naming the file, the key path
// and a fix ("cluster.yaml:7: graphs.spike.schemma: unknown key ..."). Pure but for reading the
// config directory's files; thread-safe.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/status.h"

namespace omnigraph::cluster {

inline constexpr const char* kConfigFileName = "cluster.yaml";

// One stored query: its name and the file that declares it (relative to the config dir).
struct QueryDecl {
  std::string name;
  std::string file;
  std::string kind;  // "read" or "mutation"
};

struct GraphConfig {
  std::string id;
  std::string schema_file;
  std::string schema_source;
  std::vector<QueryDecl> queries;                  // by name
  std::map<std::string, std::string> query_files;  // declared path -> source
  std::string embedding_provider;                  // "provider.embedding.<name>" or empty
  Json external_blobs;                             // {mode, bases} (mode deny when absent)
};

struct PolicyConfig {
  std::string name;
  std::string file;
  std::string source;
  std::vector<std::string> applies_to;  // "cluster" or "graph.<id>", sorted
};

struct ProviderConfig {
  std::string name;
  Json profile;  // {kind, base_url?, model?, api_key?}
};

struct ClusterConfig {
  std::string dir;      // the config directory as given
  std::string name;     // metadata.name
  std::string storage;  // the storage root URI; empty = the config directory
  bool lock = true;     // state.lock
  std::map<std::string, GraphConfig> graphs;
  std::map<std::string, PolicyConfig> policies;
  std::map<std::string, ProviderConfig> providers;
};

// Parses `<dir>/cluster.yaml` and reads the files it references. With `check_sources`, every
// schema is parsed and checked and every stored query type-checked against its graph's schema.
Result<ClusterConfig> LoadConfig(const std::string& dir, bool check_sources);

// Reads only the `storage:` key of `<dir>/cluster.yaml` (empty when absent). NotFound when the
// directory holds no cluster.yaml.
Result<std::string> ReadStorageKey(const std::string& dir);

}  // namespace omnigraph::cluster
