// The Azure backend on Azurite (started by scripts/servers.sh): the full ObjectStoreContract suite,
// the RealServerStoreTest suite shared with S3 (conditional creates, If-Match races, lost
// acknowledgements, awkward names, ranges, prefixes), Azurite's etags and configuration errors.
#include <gtest/gtest.h>

#include "storage/azure/azure_test_util.h"
#include "storage/object_store_contract.h"
#include "storage/uri.h"

namespace omnigraph::storage::azure {
namespace {

std::vector<ContractBackend> ContractBackends() {
  if (!AzureTestServerMissing().empty()) return {};
  return {ContractBackend{"Azure", []() -> std::shared_ptr<ObjectStore> {
                            Result<std::shared_ptr<AzureStore>> store = OpenFreshContainerStore();
                            EXPECT_TRUE(store.ok()) << store.status().ToString();
                            return store.ok() ? *store : nullptr;
                          }}};
}

INSTANTIATE_TEST_SUITE_P(Azurite, ObjectStoreContract, testing::ValuesIn(ContractBackends()),
                         ContractBackendName);
// Without a server the suite has no instances; AzureServerTest.IsConfigured then fails under CI.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ObjectStoreContract);
INSTANTIATE_TEST_SUITE_P(Azurite, RealServerStoreTest, testing::Values(AzureServer()),
                         RealServerName);

TEST(AzureServerTest, IsConfigured) {
  OMNIGRAPH_REQUIRE_AZURE();
  Result<std::shared_ptr<AzureStore>> store = OpenTestStore("configured");
  ASSERT_TRUE(store.ok()) << store.status().ToString();
}

class AzuriteTest : public testing::Test {
 protected:
  void SetUp() override {
    OMNIGRAPH_REQUIRE_AZURE();
    Result<AzureTestTarget> target = AzureTestTargetFromEnvironment();
    ASSERT_TRUE(target.ok());
    target_ = *target;
    Result<std::shared_ptr<AzureStore>> store =
        OpenTestStore(testing::UnitTest::GetInstance()->current_test_info()->name());
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = *store;
  }
  AzureTestTarget target_;
  std::shared_ptr<AzureStore> store_;
};

TEST_F(AzuriteTest, EtagChangesWhenTheSameBytesAreWrittenAgain) {
  ASSERT_TRUE(store_->Put("same", "bytes").ok());
  std::string first = store_->Head("same")->etag;
  ASSERT_TRUE(store_->Put("same", "bytes").ok());
  std::string second = store_->Head("same")->etag;
  EXPECT_NE(first, second);
  Result<std::string> stale = store_->PutIfMatch("same", "bytes", first);
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.status().kind(), Kind::kPrecondition);  // Azurite: 412 ConditionNotMet.
  EXPECT_EQ(store_->PutIfMatch("gone", "x", first).status().kind(), Kind::kNotFound);
}

TEST_F(AzuriteTest, OpenStoreUsesTheEnvironment) {
  std::string uri = "az://" + target_.container + "/" +
                    (target_.prefix.empty() ? "" : target_.prefix + "/") + "via-uri-" +
                    s3::UniqueSuffix();
  Result<std::shared_ptr<ObjectStore>> store = OpenStore(uri);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_EQ((*store)->Describe(), uri);
  EXPECT_TRUE((*store)->Remote());  // Its readers prefer fewer, larger reads (decision 213).
  ASSERT_TRUE((*store)->Put("n", "v").ok());
  EXPECT_EQ(store_->Get("n").status().kind(), Kind::kNotFound);
}

TEST_F(AzuriteTest, ConfigurationErrorsNameTheVariableOrResource) {
  AzureConfig wrong_key = target_.config;
  wrong_key.key = "bm90LXRoZS1rZXk=";
  Result<std::unique_ptr<AzureStore>> a = AzureStore::Open(wrong_key, target_.container, "");
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().kind(), Kind::kConfiguration);
  EXPECT_NE(a.status().message().find("AZURE_STORAGE_KEY"), std::string::npos)
      << a.status().ToString();

  Result<std::unique_ptr<AzureStore>> c =
      AzureStore::Open(target_.config, "no-such-container-og", "p");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().kind(), Kind::kConfiguration);
  EXPECT_NE(c.status().message().find("'no-such-container-og'"), std::string::npos)
      << c.status().ToString();

  AzureConfig wrong_endpoint = target_.config;
  wrong_endpoint.endpoint = "http://127.0.0.1:1/devstoreaccount1";
  wrong_endpoint.retry.backoff_base_micros = 1'000;
  Result<std::unique_ptr<AzureStore>> d = AzureStore::Open(wrong_endpoint, target_.container, "");
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().kind(), Kind::kConfiguration);
  EXPECT_NE(d.status().message().find(target_.config.endpoint_source), std::string::npos)
      << d.status().ToString();
}

}  // namespace
}  // namespace omnigraph::storage::azure
