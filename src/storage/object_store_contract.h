// The ObjectStoreContract suite: one parameterized GoogleTest suite that every ObjectStore backend
// must pass unchanged (memory and local here; S3 and Azure in tests/integration).
//
// A backend instantiates it with a factory that returns a fresh, empty store:
//   INSTANTIATE_TEST_SUITE_P(Memory, ObjectStoreContract,
//       testing::Values(ContractBackend{"memory", [] { return ...; }}), ContractBackendName);
// and adds object_store_contract.cc to its test executable's sources.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>

#include "storage/object_store.h"

namespace omnigraph::storage {

struct ContractBackend {
  std::string name;
  // A fresh, empty store for one test.
  std::function<std::shared_ptr<ObjectStore>()> make;
};

inline void PrintTo(const ContractBackend& backend, std::ostream* os) { *os << backend.name; }

std::string ContractBackendName(const testing::TestParamInfo<ContractBackend>& info);

class ObjectStoreContract : public testing::TestWithParam<ContractBackend> {
 protected:
  void SetUp() override;
  std::shared_ptr<ObjectStore> store_;
};

}  // namespace omnigraph::storage
