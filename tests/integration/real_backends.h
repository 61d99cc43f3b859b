// The real object-store servers the cross-layer integration tests run against, one test
// parameter each: S3 on Ceph RGW and Azure Blob on Azurite (scripts/servers.sh starts both). The
// same test body runs on every backend, so the evidence is the same on S3 and on Azure.
//
// A test starts with OMNIGRAPH_REQUIRE_BACKEND(GetParam()): when that server is not configured it
// fails under CI (CI=true) and skips elsewhere, both with a message saying how to start it.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "storage/azure/azure_test_util.h"
#include "storage/s3/s3_test_util.h"

namespace omnigraph::integration {

struct RealBackend {
  std::string name;
  // Empty when the server is configured; otherwise what is missing and how to start it.
  std::function<std::string()> missing;
  // A store under a prefix no other test uses.
  std::function<Result<std::shared_ptr<storage::ObjectStore>>(std::string_view label)> open;
};

inline void PrintTo(const RealBackend& backend, std::ostream* os) { *os << backend.name; }

inline std::vector<RealBackend> RealBackends() {
  return {
      RealBackend{"S3", &storage::s3::S3TestServerMissing,
                  [](std::string_view label) -> Result<std::shared_ptr<storage::ObjectStore>> {
                    OMNIGRAPH_ASSIGN_OR_RETURN(auto store, storage::s3::OpenTestStore(label));
                    return std::shared_ptr<storage::ObjectStore>(std::move(store));
                  }},
      RealBackend{"Azure", &storage::azure::AzureTestServerMissing,
                  [](std::string_view label) -> Result<std::shared_ptr<storage::ObjectStore>> {
                    OMNIGRAPH_ASSIGN_OR_RETURN(auto store, storage::azure::OpenTestStore(label));
                    return std::shared_ptr<storage::ObjectStore>(std::move(store));
                  }},
  };
}

inline std::string RealBackendName(const ::testing::TestParamInfo<RealBackend>& info) {
  return info.param.name;
}

}  // namespace omnigraph::integration

// Fails under CI, skips elsewhere, when `backend`'s server is not configured.
#define OMNIGRAPH_REQUIRE_BACKEND(backend)                                \
  do {                                                                    \
    std::string omnigraph_missing_ = (backend).missing();                 \
    if (!omnigraph_missing_.empty()) {                                    \
      if (::omnigraph::storage::s3::InCi()) FAIL() << omnigraph_missing_; \
      GTEST_SKIP() << omnigraph_missing_;                                 \
    }                                                                     \
  } while (0)
