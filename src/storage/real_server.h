// A real object-store server that tests run against, as a test parameter: S3 on Ceph RGW
// (storage/s3/s3_test_util.h) and Azure Blob on Azurite (storage/azure/azure_test_util.h), both
// started by scripts/servers.sh. The same test body then runs on every backend, so the evidence
// is the same on S3 and on Azure: RealServerStoreTest (real_server_store_test.cc) for the store,
// tests/integration for the commit protocol.
//
// A test starts with OMNIGRAPH_REQUIRE_SERVER(server): when that server is not configured it
// fails under CI (CI=true) and skips elsewhere, both with a message saying how to start it.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

#include "storage/object_store.h"

namespace omnigraph::storage {

struct RealServer {
  std::string name;
  // Empty when the server is configured; otherwise what is missing and how to start it.
  std::function<std::string()> missing;
  // A store under a prefix no other test uses.
  std::function<Result<std::shared_ptr<ObjectStore>>(std::string_view label)> open;
};

inline void PrintTo(const RealServer& server, std::ostream* os) { *os << server.name; }

inline std::string RealServerName(const testing::TestParamInfo<RealServer>& info) {
  return info.param.name;
}

// True under CI (CI=true), where a missing server is a failure, never a skip.
inline bool InCi() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string_view(ci) == "true";
}

// The store tests every real server passes (real_server_store_test.cc): conditional creates and
// If-Match races, lost acknowledgements, awkward names, large objects and ranges, prefixes.
class RealServerStoreTest : public testing::TestWithParam<RealServer> {
 protected:
  void SetUp() override;
  std::shared_ptr<ObjectStore> store_;
};

}  // namespace omnigraph::storage

// Fails under CI, skips elsewhere, when `server` is not configured.
#define OMNIGRAPH_REQUIRE_SERVER(server)                              \
  do {                                                                \
    std::string omnigraph_missing_ = (server).missing();              \
    if (!omnigraph_missing_.empty()) {                                \
      if (::omnigraph::storage::InCi()) FAIL() << omnigraph_missing_; \
      GTEST_SKIP() << omnigraph_missing_;                             \
    }                                                                 \
  } while (0)
