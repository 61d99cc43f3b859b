// Test support for the Azure backend: where the test server is (from the environment that
// scripts/servers.sh exports after starting Azurite) and fresh stores on it.
//
// A test that needs the server starts with OMNIGRAPH_REQUIRE_AZURE(): when it is not configured
// the test fails under CI (CI=true) and skips elsewhere, both with a message saying how to start
// Azurite. Thread-safe.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "storage/azure/azure_store.h"
#include "storage/s3/s3_test_util.h"

namespace omnigraph::storage::azure {

// The test server: OMNIGRAPH_TEST_AZURE_URI (az://container[/prefix]) plus the AZURE_* variables.
struct AzureTestTarget {
  AzureConfig config;
  std::string container;
  std::string prefix;
};

Result<AzureTestTarget> AzureTestTargetFromEnvironment();
// Empty when the server is configured; otherwise what is missing and how to start it.
std::string AzureTestServerMissing();

// A store on the test server under a prefix no other test uses.
Result<std::shared_ptr<AzureStore>> OpenTestStore(std::string_view label);
// The Azurite server as a RealServer test parameter.
RealServer AzureServer();
// A fresh, empty container and a store on it without a prefix (the contract suite's 1,024-byte
// names leave no room for one).
Result<std::shared_ptr<AzureStore>> OpenFreshContainerStore();

}  // namespace omnigraph::storage::azure

// Fails under CI, skips elsewhere, when the Azure test server is not configured.
#define OMNIGRAPH_REQUIRE_AZURE()                                                                 \
  do {                                                                                            \
    std::string omnigraph_azure_missing_ = ::omnigraph::storage::azure::AzureTestServerMissing(); \
    if (!omnigraph_azure_missing_.empty()) {                                                      \
      if (::omnigraph::storage::InCi()) FAIL() << omnigraph_azure_missing_;                       \
      GTEST_SKIP() << omnigraph_azure_missing_;                                                   \
    }                                                                                             \
  } while (0)
