// The refused-write listing tests (src/engine/write/rejected_write_test.h) on S3: Ceph RGW, started
// by scripts/servers.sh; each test's graph lives under a prefix of its own.
#include "engine/write/rejected_write_test.h"
#include "storage/s3/s3_test_util.h"

namespace omnigraph::engine {
namespace {

RejectedWriteBackend S3Backend() {
  return {"s3", [] { return storage::s3::S3TestServerMissing(); },
          [](std::string_view label) -> Result<std::shared_ptr<storage::ObjectStore>> {
            OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<storage::s3::S3Store> store,
                                       storage::s3::OpenTestStore(label));
            return std::shared_ptr<storage::ObjectStore>(std::move(store));
          }};
}

INSTANTIATE_TEST_SUITE_P(RealServers, RejectedWriteTest, testing::Values(S3Backend()),
                         RejectedWriteBackendName);

}  // namespace
}  // namespace omnigraph::engine
