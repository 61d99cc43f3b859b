// The graphs a server serves (docs/design/server.md "Graphs"): id → the open Database and its
// stored queries (docs/design/stored-queries.md), or the reason it is quarantined. Built once at
// boot from a list of GraphSpec — exactly what a cluster's applied state names per graph (id,
// root URI, query files) — and immutable after; requests resolve /graphs/{id}/… through it.
//
// A graph that fails to open is quarantined (its routes answer 503 with the reason; the others
// serve) unless RegistryOptions::require_all; a boot with no graph open fails. Stored queries are
// type-checked against the opened graph's accepted schema on main: a query that does not check,
// a file that does not parse, or a name declared twice refuses the boot with file, line and
// reason. Thread-safety: immutable once built; read from any number of threads.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "omnigraph/omnigraph.h"
#include "omnigraph/policy.h"

namespace omnigraph::server {

// One stored-query file of a graph: its path (for messages) and its .gq source.
struct StoredQueryFile {
  std::string path;
  std::string source;
};

// A policy bundle's YAML (docs/design/policy.md) and the name its errors give it.
struct PolicyFile {
  std::string name;
  std::string source;
};

// One graph to serve: what a cluster's applied state names for it.
struct GraphSpec {
  std::string id;
  std::string root_uri;
  std::vector<StoredQueryFile> queries;
  // The bundles bound to this graph (cluster.yaml's applies_to, or --policy): at most one.
  std::vector<PolicyFile> policies;
  // graphs.<id>.external_blobs: the allow rules' bases; the server keeps the server_safe ones.
  std::vector<api::ExternalBlobBase> external_blobs;
};

// One `query <name>` of a graph's query files, checked against its schema.
struct StoredQuery {
  std::string name;
  std::string file;   // the file's path
  uint32_t line = 0;  // where the query is declared
  bool mutation = false;
  std::string source;  // the whole file's source (run with `name`)
  api::Json params;    // [ParamDescriptor], declaration order
  std::optional<std::string> description;
  std::optional<std::string> instruction;

  // The catalog entry (openapi.json's QueryCatalogEntry): {name, tool_name, description,
  // instruction, mutation, params}.
  api::Json CatalogEntry() const;
  // The declared parameter `name`'s descriptor, or null when it declares none of that name.
  const api::Json* Param(std::string_view name) const;
};

struct ServedGraph {
  std::string id;
  std::string uri;
  std::shared_ptr<api::Database> db;  // null when quarantined
  std::string quarantine;             // why it is not served; empty when it is
  std::map<std::string, StoredQuery, std::less<>> queries;
  // The bundle bound to this graph, installed on `db` (every call is gated for the request's
  // actor); null when none is: the server's default-deny grants apply (server/auth.h).
  std::shared_ptr<const api::Policy> policy;
  // The same open graph without the bundle's gate (== db without a bundle): for what the server
  // decides itself — a stored read, allowed by invoke_query alone (the reference), and an
  // export's pinned read, decided as `export` on the branch (docs/design/policy.md "Server").
  std::shared_ptr<api::Database> ungated;

  const StoredQuery* FindQuery(std::string_view name) const;
};

struct RegistryOptions {
  // Any graph that fails to open fails the boot (--require-all-graphs).
  bool require_all = false;
  // Multi-graph mode (--cluster): graph routes only under /graphs/{id}/. Otherwise exactly one
  // graph, served at the plain paths too.
  bool multi = false;
  api::DatabaseOptions database;
  // Install each graph's bundle (false: --unauthenticated, whose requests have no actor for a
  // policy to decide; the bundles are still parsed, so a bad one refuses the boot).
  bool enforce_policies = true;
};

class GraphRegistry {
 public:
  // Opens every graph of `specs` (ids unique, non-empty, without '/') and checks its queries.
  static api::Result<std::shared_ptr<const GraphRegistry>> Open(const std::vector<GraphSpec>& specs,
                                                                const RegistryOptions& options);
  // One graph already open, served at the plain paths and under /graphs/{id}/ (single-graph mode),
  // with the stored queries of `files`.
  static api::Result<std::shared_ptr<const GraphRegistry>> Single(
      std::string id, std::shared_ptr<api::Database> db, const std::vector<StoredQueryFile>& files);

  bool multi() const { return multi_; }
  const std::vector<ServedGraph>& graphs() const { return graphs_; }
  // The graph `id` (served or quarantined), or null.
  const ServedGraph* Find(std::string_view id) const;
  // The graph the plain paths serve: the only one in single-graph mode; null in multi-graph mode.
  const ServedGraph* Default() const;

 private:
  bool multi_ = false;
  std::vector<ServedGraph> graphs_;  // by id
};

// The stored queries of `files` checked against `db`'s schema on main: by name, or the first
// failure (file:line: reason) as InvalidArgument.
api::Result<std::map<std::string, StoredQuery, std::less<>>> CheckStoredQueries(
    api::Database& db, const std::vector<StoredQueryFile>& files);

// The .gq files of `path`: the file itself, or every *.gq of a folder (not recursive), by name.
api::Result<std::vector<StoredQueryFile>> ReadQueryFiles(const std::string& path);

}  // namespace omnigraph::server
