// OmniGraph C++ — cluster directories (docs/design/cluster.md): a whole deployment declared as
// files in one directory (cluster.yaml, the .pg schemas, the .gq stored queries, the policy
// bundles), converged by Apply and recorded in a ledger on the cluster's storage root
// (docs/format/cluster-ledger.md).
//
// Every verb takes the config directory (it holds cluster.yaml). The ledger, the catalog and the
// graph roots live on the storage root: cluster.yaml's `storage:` key, else the config directory
// itself. Results are the JSON reports the CLI prints with --json. A failed call changed nothing
// in the ledger. Errors: InvalidArgument for a bad cluster.yaml (naming the file, the key path and
// a fix), NotFound for a missing ledger (state_missing), Conflict-kind kPrecondition for a held
// lock (the holder and its id in the message, "__cluster/lock.json" as the object) or a ledger
// that moved under the call.
//
// Self-contained: the standard library and the two public headers it includes. Thread-safe:
// functions without shared state; concurrent calls on one cluster coordinate through the store.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "omnigraph/json.h"
#include "omnigraph/status.h"

namespace omnigraph::cluster {

// --- What a server boots from (the applied revision, never unapplied config).

struct StoredQueryFile {
  std::string path;    // as declared, relative to the config dir
  std::string source;  // the file's text as applied (from the catalog)
};

// One base of a graph's external-Blob allow rules as applied (cluster.yaml
// graphs.<id>.external_blobs.allow[]): an s3:// or file:/// base and its scope
// ("server_safe" or "embedded_only").
struct AppliedExternalBlobBase {
  std::string uri;
  std::string scope;
};

struct AppliedGraph {
  std::string id;        // the key under graphs: in cluster.yaml
  std::string root_uri;  // the graph's root, as the engine opens it (path or s3:// / az:// URI)
  std::vector<StoredQueryFile> queries;   // the query files as last applied (from the catalog)
  std::vector<std::string> policy_files;  // policy bundle sources bound to this graph, as applied
  // graphs.<id>.external_blobs as applied: the allow rules' bases (none: deny).
  std::vector<AppliedExternalBlobBase> external_blobs;
};

struct AppliedCluster {
  std::string name;                               // metadata.name
  std::vector<AppliedGraph> graphs;               // applied graphs only, by id
  std::vector<std::string> cluster_policy_files;  // bundles whose applies_to is [cluster]
};

// Reads the applied state from the ledger and catalog of the cluster whose config dir (or storage
// root URI) is `dir_or_uri`. A directory that was never applied is NotFound saying to run
// `omnigraph cluster apply`; a catalog blob that is missing or does not hash to its digest is
// Corruption naming it.
api::Result<AppliedCluster> ReadApplied(std::string_view dir_or_uri);

// --- The control plane (the `omnigraph cluster` verbs).

struct Options {
  std::string config_dir = ".";
  // Who runs the command (apply, approve); recorded in the ledger, the approval and the graphs'
  // commits. Approve requires one.
  std::string actor;
};

// Parses cluster.yaml and checks every file it references: schemas parse and check, every stored
// query type-checks against its graph's schema, policy bundles are YAML mappings, references
// resolve. {valid: true, cluster, graphs, queries, policies}.
api::Result<api::Json> Validate(const Options& options);
// Creates the first ledger from the config and read-only observation of the graph roots.
// AlreadyExists when a ledger exists (use Refresh).
api::Result<api::Json> Import(const Options& options);
// The diff between the config and the ledger: {changes: [{action, resource, disposition,
// reason?, migration?}], approvals_required, state_cas, state_revision, lock_acquired, ...}.
// Writes nothing but the brief lock.
api::Result<api::Json> Plan(const Options& options);
// Converges: graph creates, schema updates (soft drops only), catalog writes, approved deletes,
// then one conditional ledger write. {changes (with dispositions), converged, state_written,
// state_revision}.
api::Result<api::Json> Apply(const Options& options);
// Records a digest-bound approval of the destructive change to `resource` ("graph.<id>") that
// the current plan holds. InvalidArgument when the plan holds no such change or no actor is set.
api::Result<api::Json> Approve(const Options& options, std::string_view resource);
// The ledger as recorded, the lock when one is held, and catalog integrity warnings. Read-only.
api::Result<api::Json> StatusReport(const Options& options);
// Re-observes the graph roots and the catalog and records drift in the ledger.
api::Result<api::Json> Refresh(const Options& options);
// Removes the held lock when its id is exactly `lock_id`.
api::Result<api::Json> ForceUnlock(const Options& options, std::string_view lock_id);

// Whether the graph at `graph_uri` is managed by a cluster: its root is `<root>/graphs/<id>.omni`
// and `<root>/__cluster/state.json` exists. Such graphs evolve through `cluster apply` only.
api::Result<bool> IsClusterManaged(std::string_view graph_uri);

}  // namespace omnigraph::cluster
