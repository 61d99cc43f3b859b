// The Azure backend on Azurite (started by scripts/servers.sh): the full ObjectStoreContract suite,
// Azurite's answers to conditional writes (§9 mapping), lost acknowledgements over the real
// backend, awkward names, ranges, prefixes and configuration errors.
#include <gtest/gtest.h>

#include <barrier>
#include <thread>

#include "storage/azure/azure_test_util.h"
#include "storage/fault_store.h"
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

TEST_F(AzuriteTest, ConditionalCreateOfAnExistingNameIsExistsAndLeavesItUntouched) {
  ASSERT_TRUE(*store_->PutIfAbsent("fence", "first"));
  Result<bool> again = store_->PutIfAbsent("fence", "second");
  ASSERT_TRUE(again.ok()) << again.status().ToString();  // Azurite: 409 BlobAlreadyExists.
  EXPECT_FALSE(*again);
  EXPECT_EQ(store_->Get("fence")->data, "first");
}

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

TEST_F(AzuriteTest, IfMatchRaceHasOneWinnerAndOnlyPreconditionLosers) {
  constexpr int kThreads = 8;
  constexpr int kRounds = 10;
  for (int round = 0; round < kRounds; ++round) {
    const std::string name = "cas/" + std::to_string(round);
    ASSERT_TRUE(store_->Put(name, "base").ok());
    const std::string etag = store_->Head(name)->etag;
    std::barrier start(kThreads);
    std::atomic<int> won{0}, lost{0};
    std::vector<std::string> other;
    std::mutex mu;
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        start.arrive_and_wait();
        Result<std::string> r = store_->PutIfMatch(name, "t" + std::to_string(t), etag);
        if (r.ok()) {
          ++won;
        } else if (r.status().kind() == Kind::kPrecondition) {
          ++lost;
        } else {
          std::lock_guard lock(mu);
          other.push_back(r.status().ToString());
        }
      });
    }
    for (std::thread& th : threads) th.join();
    EXPECT_EQ(won.load(), 1) << "round " << round;
    EXPECT_EQ(lost.load(), kThreads - 1) << "round " << round;
    EXPECT_TRUE(other.empty()) << other.front();
  }
}

TEST_F(AzuriteTest, RetriedCreateAfterALostAcknowledgementReportsExists) {
  FaultStore faults(store_);
  faults.AddRule({.ops = Mask(Op::kPutIfAbsent), .kind = FaultKind::kUnknownAfterEffect});
  Result<bool> first = faults.PutIfAbsent("records/1", "mine");
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(first.status().kind(), Kind::kUnknown);
  Result<bool> again = faults.PutIfAbsent("records/1", "mine");
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_FALSE(*again);
  EXPECT_EQ(store_->Get("records/1")->data, "mine");
}

TEST_F(AzuriteTest, AwkwardNamesRoundTripAndListInByteOrder) {
  const std::vector<std::string> names = {"k/a b", "k/a+b",      "k/a&b<c>",  "k/a%20b",
                                          "k/a~b", "k/\xc3\xbc", "k/a=b?c#d", "k/'q\""};
  for (const std::string& name : names) {
    ASSERT_TRUE(store_->Put(name, name).ok()) << name;
    Result<GetResult> got = store_->Get(name);
    ASSERT_TRUE(got.ok()) << name << ": " << got.status().ToString();
    EXPECT_EQ(got->data, name);
  }
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  Result<std::vector<ObjectMeta>> all = ListAll(*store_, "k/");
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  std::vector<std::string> listed;
  for (const ObjectMeta& m : *all) listed.push_back(m.name);
  EXPECT_EQ(listed, sorted);
  Result<std::vector<ObjectMeta>> after = ListAll(*store_, "k/", "k/a+b");
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(
      after->size(),
      static_cast<size_t>(sorted.end() - std::upper_bound(sorted.begin(), sorted.end(), "k/a+b")));
}

TEST_F(AzuriteTest, LargeBlobsAndRanges) {
  std::string big(3 << 20, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 131 % 251);
  ASSERT_TRUE(store_->Put("big", big).ok());
  Result<GetResult> all = store_->Get("big");
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(all->data, big);
  Result<GetResult> part = store_->Get("big", ByteRange{1'000'000, 4096});
  ASSERT_TRUE(part.ok());
  EXPECT_EQ(part->data, big.substr(1'000'000, 4096));
  EXPECT_EQ(part->meta.size_bytes, big.size());
  ASSERT_TRUE(store_->Put("empty", "").ok());
  Result<GetResult> empty = store_->Get("empty", ByteRange{0, 10});
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ(empty->data, "");
}

TEST_F(AzuriteTest, PrefixesIsolateStores) {
  Result<std::shared_ptr<AzureStore>> other = OpenTestStore("isolated");
  ASSERT_TRUE(other.ok());
  ASSERT_TRUE(store_->Put("x", "mine").ok());
  ASSERT_TRUE((*other)->Put("x", "theirs").ok());
  EXPECT_EQ(store_->Get("x")->data, "mine");
  EXPECT_EQ(ListAll(*store_, "")->size(), 1u);
  EXPECT_EQ(ListAll(**other, "")->size(), 1u);
}

TEST_F(AzuriteTest, OpenStoreUsesTheEnvironment) {
  std::string uri = "az://" + target_.container + "/" +
                    (target_.prefix.empty() ? "" : target_.prefix + "/") + "via-uri-" +
                    s3::UniqueSuffix();
  Result<std::shared_ptr<ObjectStore>> store = OpenStore(uri);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_EQ((*store)->Describe(), uri);
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
