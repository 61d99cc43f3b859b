// Fuzz harness: the cluster ledger and its catalog (docs/design/fuzzing.md). The input is
// __cluster/lock.json and __cluster/state.json (fuzz::Split: the lock first; an empty lock is
// none) on a memory storage root. The ledger is read as every cluster command reads it
// (cluster::ReadState), the lock as status reads it (ReadLock), and then, as a server booting
// from the applied state does (cluster::ReadApplied), the catalog blob of every applied query and
// policy resource is named from its record and read and re-hashed (CatalogBlobOf, GetBlob), and
// every graph's root must lie under the storage root. The root also holds one real policy blob,
// so that a record naming it reads it.
#include <filesystem>

#include "cluster/ledger.h"
#include "fuzz_util.h"
#include "storage/memory_store.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace omnigraph;
  static storage::MemoryStore store;
  static const std::string kPolicy = "version: 1\nrules: []\n";
  static const bool seeded =
      cluster::PutBlob(store, cluster::PolicyBlob("p", cluster::Digest(kPolicy)), kPolicy).ok();
  if (!seeded) fuzz::Finding("cannot seed the catalog");
  auto [lock, state] = fuzz::Split(fuzz::Bytes(data, size));
  if (!store.Put(cluster::kStateObject, state).ok()) fuzz::Finding("memory store put failed");
  if (lock.empty()) {
    (void)store.Delete(cluster::kLockObject);
  } else if (!store.Put(cluster::kLockObject, lock).ok()) {
    fuzz::Finding("memory store put failed");
  }
  fuzz::ExpectNamed(cluster::ReadLock(store), cluster::kLockObject);
  Result<cluster::StateFile> read = cluster::ReadState(store);
  fuzz::ExpectNamed(read, cluster::kStateObject);
  if (!read.ok()) return 0;
  const Json& resources = read->state["applied_revision"]["resources"];
  for (auto it = resources.begin(); it != resources.end(); ++it) {
    const std::string blob = cluster::CatalogBlobOf(it.key(), it.value());
    if (blob.empty()) continue;
    fuzz::ExpectNamed(cluster::GetBlob(store, blob, it.value().value("digest", "")), blob);
  }
  // A graph's root is joined to the storage root (ReadApplied); an accepted one stays under it.
  for (auto it = resources.begin(); it != resources.end(); ++it) {
    if (it.key().rfind("graph.", 0) != 0 || !it.value().contains("root")) continue;
    const std::string joined =
        std::filesystem::path("/s/" + it.value()["root"].get<std::string>()).lexically_normal();
    if (joined.rfind("/s/", 0) != 0 || joined.size() == 3 ||
        joined.find(':') != std::string::npos) {
      fuzz::Finding("an accepted ledger names a graph root outside the storage root: " + joined);
    }
  }
  return 0;
}
