// Fuzz harness: the cluster ledger and catalog (docs/design/fuzzing.md). The input is
// __cluster/state.json and __cluster/lock.json (fuzz::Split: the lock first) on a scratch storage
// root; the ledger is read as every command reads it (ReadState), the lock as status reads it,
// and the applied state as a server boots from it (cluster::ReadApplied: every applied graph,
// its stored-query files and policy bundles from the catalog, each blob re-hashed).
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cluster/ledger.h"
#include "fuzz_util.h"
#include "omnigraph/cluster.h"
#include "storage/local_store.h"

namespace {

namespace fs = std::filesystem;

void Write(const fs::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace omnigraph;
  static const fs::path root =
      fs::temp_directory_path() / ("omnigraph-fuzz-ledger-" + std::to_string(getpid()));
  fs::create_directories(root / "__cluster");
  auto [lock, state] = fuzz::Split(fuzz::Bytes(data, size));
  Write(root / cluster::kStateObject, state);
  if (lock.empty()) {
    fs::remove(root / cluster::kLockObject);
  } else {
    Write(root / cluster::kLockObject, lock);
  }
  Result<cluster::Root> opened = cluster::OpenRootUri(root.string());
  if (!opened.ok()) fuzz::Finding("cannot open the scratch root: " + opened.status().ToString());
  fuzz::ExpectNamed(cluster::ReadState(*opened->store), cluster::kStateObject);
  fuzz::ExpectNamed(cluster::ReadLock(*opened->store), cluster::kLockObject);
  fuzz::ExpectNamed(cluster::ReadApplied(root.string()), "");
  return 0;
}
