// A refused load or mutation leaves no object behind (docs/design/load.md "A refused load leaves
// nothing"; docs/design/engine.md "A refused write leaves nothing"): the store's listing — every
// name and each object's bytes — is the same after each refused input as before it. The bodies
// (rejected_write_test.cc) run on every backend a binary instantiates them with: the memory and
// local stores (rejected_write_local_test.cc, label unit) and S3 on Ceph RGW
// (tests/integration/rejected_write_s3_test.cc, label integration).
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <string>

#include "storage/object_store.h"

namespace omnigraph::engine {

struct RejectedWriteBackend {
  std::string name;
  // Empty when the backend can be used here; otherwise why not (a server not started).
  std::function<std::string()> missing;
  // A fresh, empty store for `label`.
  std::function<Result<std::shared_ptr<storage::ObjectStore>>(std::string_view label)> open;
};

inline void PrintTo(const RejectedWriteBackend& b, std::ostream* os) { *os << b.name; }
inline std::string RejectedWriteBackendName(
    const testing::TestParamInfo<RejectedWriteBackend>& info) {
  return info.param.name;
}

class RejectedWriteTest : public testing::TestWithParam<RejectedWriteBackend> {};

}  // namespace omnigraph::engine
