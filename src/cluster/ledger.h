// The cluster's storage root: the ledger (__cluster/state.json), the lock (__cluster/lock.json),
// the content-addressed catalog (__cluster/resources/...) and approvals (__cluster/approvals/...),
// written only with the store's conditional operations (docs/format/cluster-ledger.md).
// Thread-safe: every call goes to the store; concurrent callers coordinate through it.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "base/clock.h"
#include "base/json.h"
#include "base/random.h"
#include "base/status.h"
#include "storage/object_store.h"

namespace omnigraph::cluster {

inline constexpr const char* kStateObject = "__cluster/state.json";
inline constexpr const char* kLockObject = "__cluster/lock.json";
inline constexpr const char* kApprovalsPrefix = "__cluster/approvals/";
inline constexpr int kStateVersion = 1;
inline constexpr int kLockVersion = 1;

// The storage root of one cluster.
struct Root {
  std::string uri;  // a local path (absolute) or a store URI, without a trailing '/'
  std::shared_ptr<storage::ObjectStore> store;

  // "<uri>/graphs/<id>.omni".
  std::string GraphRoot(const std::string& graph_id) const;
};

// Opens the storage root: `storage` (cluster.yaml's key; a URI, or a path relative to the config
// dir) or, when empty, the config directory itself.
Result<Root> OpenRoot(const std::string& config_dir, const std::string& storage);
// Opens a storage root given directly (a path or a store URI).
Result<Root> OpenRootUri(const std::string& uri);

// "sha256:<hex>" of `bytes`.
std::string Digest(std::string_view bytes);
// The hex part of a digest ("sha256:ab.." -> "ab..").
std::string DigestHex(const std::string& digest);

// The ledger as read: its JSON (an empty state when the object is absent), its etag and CAS.
struct StateFile {
  bool exists = false;
  Json state;
  std::string etag;
  std::string cas;  // "sha256:<digest of the bytes>", or empty when absent
};

// An empty version-1 state.
Json EmptyState();
// Reads the ledger. Corruption for bytes that are not a version-1 state.
Result<StateFile> ReadState(storage::ObjectStore& store);
// Publishes `next` over `prior`: PutIfAbsent when the ledger did not exist, else PutIfMatch on
// its etag. A ledger that moved since `prior` was read is kConflict/kPrecondition
// ("state_conflict", object __cluster/state.json); nothing is written.
Status WriteState(storage::ObjectStore& store, const StateFile& prior, const Json& next);

// The held lock. Acquire creates __cluster/lock.json with PutIfAbsent: of any number of callers
// exactly one wins; the others get kConflict/kPrecondition ("cluster_locked") naming the holder,
// its operation and lock id, and how to force-unlock.
struct Lock {
  std::string lock_id;
  Json body;
};
Result<Lock> AcquireLock(storage::ObjectStore& store, const std::string& operation,
                         const std::string& actor, Clock& clock, Random& random);
// Removes the lock when it is still `lock_id`'s.
Status ReleaseLock(storage::ObjectStore& store, const std::string& lock_id);
// The lock's JSON, or nullopt when none is held. Corruption for an unreadable lock.
Result<std::optional<Json>> ReadLock(storage::ObjectStore& store);
// Removes the lock only when its id is exactly `lock_id` (force-unlock).
Status ForceRemoveLock(storage::ObjectStore& store, const std::string& lock_id);

// Catalog blob names: __cluster/resources/{schema/<g>/<hex>.pg, query/<g>/<n>/<hex>.gq,
// policy/<n>/<hex>.yaml}.
std::string SchemaBlob(const std::string& graph, const std::string& digest);
std::string QueryBlob(const std::string& graph, const std::string& name, const std::string& digest);
std::string PolicyBlob(const std::string& name, const std::string& digest);
// The catalog blob of a recorded query or policy resource (`id` and its record in the ledger's
// applied resources, as ReadState checked them); empty for other kinds.
std::string CatalogBlobOf(const std::string& id, const Json& recorded);
// Writes a content-addressed blob (PutIfAbsent: an existing blob of that name is the same bytes).
Status PutBlob(storage::ObjectStore& store, const std::string& name, std::string_view bytes);
// Reads a blob and checks it hashes to `digest`: NotFound (catalog_payload_missing) or
// Corruption (catalog_payload_mismatch) naming it.
Result<std::string> GetBlob(storage::ObjectStore& store, const std::string& name,
                            const std::string& digest);

}  // namespace omnigraph::cluster
