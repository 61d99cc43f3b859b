// The S3 backend on a real S3 server (Ceph RGW, started by scripts/servers.sh): the full
// ObjectStoreContract suite, the failure mapping of docs/design/overview.md "Failures" as the
// server produces it, lost acknowledgements over the real backend, and configuration errors.
#include <gtest/gtest.h>

#include <barrier>
#include <cstdlib>
#include <thread>

#include "storage/fault_store.h"
#include "storage/object_store_contract.h"
#include "storage/s3/s3_test_util.h"
#include "storage/uri.h"

namespace omnigraph::storage::s3 {
namespace {

// One fresh bucket per contract test: the suite uses names of the full 1,024 bytes, which leave
// no room for a key prefix.
std::vector<ContractBackend> ContractBackends() {
  if (!S3TestServerMissing().empty()) return {};
  return {ContractBackend{"S3", []() -> std::shared_ptr<ObjectStore> {
                            Result<std::shared_ptr<S3Store>> store = OpenFreshBucketStore();
                            EXPECT_TRUE(store.ok()) << store.status().ToString();
                            return store.ok() ? *store : nullptr;
                          }}};
}

INSTANTIATE_TEST_SUITE_P(Rgw, ObjectStoreContract, testing::ValuesIn(ContractBackends()),
                         ContractBackendName);
// Without a server the suite has no instances; S3ServerTest.IsConfigured then fails under CI.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ObjectStoreContract);
INSTANTIATE_TEST_SUITE_P(Rgw, RealServerStoreTest, testing::Values(S3Server()), RealServerName);

TEST(S3ServerTest, IsConfigured) {
  OMNIGRAPH_REQUIRE_S3();
  Result<std::shared_ptr<S3Store>> store = OpenTestStore("configured");
  ASSERT_TRUE(store.ok()) << store.status().ToString();
}

class S3RgwTest : public testing::Test {
 protected:
  void SetUp() override {
    OMNIGRAPH_REQUIRE_S3();
    Result<S3TestTarget> target = S3TestTargetFromEnvironment();
    ASSERT_TRUE(target.ok());
    target_ = *target;
    Result<std::shared_ptr<S3Store>> store =
        OpenTestStore(testing::UnitTest::GetInstance()->current_test_info()->name());
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = *store;
  }
  S3TestTarget target_;
  std::shared_ptr<S3Store> store_;
};

TEST_F(S3RgwTest, VirtualHostedAddressingWorksToo) {
  S3Config config = target_.config;
  // RGW serves virtual-hosted buckets under its DNS name "localhost" (*.localhost is loopback).
  size_t host = config.endpoint.find("127.0.0.1");
  ASSERT_NE(host, std::string::npos) << config.endpoint;
  config.endpoint.replace(host, 9, "localhost");
  config.path_style = false;
  Result<std::unique_ptr<S3Store>> store =
      S3Store::Open(config, target_.bucket, "vhost-" + std::to_string(::getpid()));
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  ASSERT_TRUE((*store)->Put("a/b c", "v").ok());
  EXPECT_EQ((*store)->Get("a/b c")->data, "v");
  EXPECT_EQ(ListAll(**store, "a/")->size(), 1u);
}

TEST_F(S3RgwTest, OpenStoreUsesTheEnvironment) {
  std::string uri = "s3://" + target_.bucket + "/" +
                    (target_.prefix.empty() ? "" : target_.prefix + "/") + "via-uri-" +
                    std::to_string(::getpid());
  Result<std::shared_ptr<ObjectStore>> store = OpenStore(uri);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_EQ((*store)->Describe(), uri);
  EXPECT_TRUE((*store)->Remote());  // Its readers prefer fewer, larger reads (decision 213).
  ASSERT_TRUE((*store)->Put("n", "v").ok());
  EXPECT_EQ(store_->Get("n").status().kind(), Kind::kNotFound);
}

TEST_F(S3RgwTest, ConfigurationErrorsNameTheVariableOrResource) {
  S3Config wrong_secret = target_.config;
  wrong_secret.secret_access_key = "not-the-secret";
  Result<std::unique_ptr<S3Store>> a = S3Store::Open(wrong_secret, target_.bucket, "");
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().kind(), Kind::kConfiguration);
  EXPECT_NE(a.status().message().find("AWS_SECRET_ACCESS_KEY"), std::string::npos)
      << a.status().ToString();

  S3Config wrong_key = target_.config;
  wrong_key.access_key_id = "NOSUCHKEY";
  Result<std::unique_ptr<S3Store>> b = S3Store::Open(wrong_key, target_.bucket, "");
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().kind(), Kind::kConfiguration);
  EXPECT_NE(b.status().message().find("AWS_ACCESS_KEY_ID"), std::string::npos)
      << b.status().ToString();

  Result<std::unique_ptr<S3Store>> c = S3Store::Open(target_.config, "no-such-bucket-og", "p");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().kind(), Kind::kConfiguration);
  EXPECT_NE(c.status().message().find("'no-such-bucket-og'"), std::string::npos)
      << c.status().ToString();

  S3Config wrong_endpoint = target_.config;
  wrong_endpoint.endpoint = "http://127.0.0.1:1";
  wrong_endpoint.retry.backoff_base_micros = 1'000;
  Result<std::unique_ptr<S3Store>> d = S3Store::Open(wrong_endpoint, target_.bucket, "");
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().kind(), Kind::kConfiguration);
  EXPECT_NE(d.status().message().find(target_.config.endpoint_source), std::string::npos)
      << d.status().ToString();
}

}  // namespace
}  // namespace omnigraph::storage::s3
