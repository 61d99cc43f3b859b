// Runs the ObjectStoreContract suite over the in-process backends and the wrappers.
#include <memory>
#include <vector>

#include "storage/counting_store.h"
#include "storage/fault_store.h"
#include "storage/local_store.h"
#include "storage/memory_store.h"
#include "storage/object_store_contract.h"
#include "storage/test_util.h"

namespace omnigraph::storage {
namespace {

// Keeps the temporary directories of local stores alive until the process ends.
std::vector<std::unique_ptr<TempDir>>& Dirs() {
  static auto* dirs = new std::vector<std::unique_ptr<TempDir>>();
  return *dirs;
}

std::shared_ptr<ObjectStore> MakeLocal(bool fsync) {
  Dirs().push_back(std::make_unique<TempDir>());
  Result<std::unique_ptr<LocalStore>> store =
      LocalStore::Open(Dirs().back()->path() + "/root", LocalStoreOptions{fsync});
  OMNIGRAPH_CHECK(store.ok());
  return std::shared_ptr<ObjectStore>(std::move(*store));
}

INSTANTIATE_TEST_SUITE_P(
    Backends, ObjectStoreContract,
    testing::Values(ContractBackend{"Memory", [] { return std::make_shared<MemoryStore>(); }},
                    ContractBackend{"Local", [] { return MakeLocal(false); }},
                    ContractBackend{"LocalFsync", [] { return MakeLocal(true); }},
                    ContractBackend{"CountingOverMemory",
                                    [] {
                                      return std::make_shared<CountingStore>(
                                          std::make_shared<MemoryStore>());
                                    }},
                    ContractBackend{"FaultStoreWithoutFaultsOverLocal",
                                    [] { return std::make_shared<FaultStore>(MakeLocal(false)); }}),
    ContractBackendName);

}  // namespace
}  // namespace omnigraph::storage
