// The S3 backend on a real S3 server (Ceph RGW, started by scripts/servers.sh): the full
// ObjectStoreContract suite, the failure mapping of ARCHITECTURE.md §9 as the server produces it,
// lost acknowledgements over the real backend, and configuration errors.
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

TEST_F(S3RgwTest, ConditionalCreateOfAnExistingNameIsExistsAndLeavesItUntouched) {
  ASSERT_TRUE(*store_->PutIfAbsent("fence", "first"));
  Result<bool> again = store_->PutIfAbsent("fence", "second");
  ASSERT_TRUE(again.ok()) << again.status().ToString();  // RGW: 412.
  EXPECT_FALSE(*again);
  EXPECT_EQ(store_->Get("fence")->data, "first");
}

// RGW answers some losers of an If-Match race with 500 instead of 412; every loser must still
// hear Precondition, and exactly one writer wins each round.
TEST_F(S3RgwTest, IfMatchRaceHasOneWinnerAndOnlyPreconditionLosers) {
  constexpr int kThreads = 8;
  constexpr int kRounds = 20;
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

// A lost acknowledgement over the real backend: the create is applied, then Unknown is reported.
// The re-drive hears "exists" and the object holds the first request's bytes.
TEST_F(S3RgwTest, RetriedCreateAfterALostAcknowledgementReportsExists) {
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

TEST_F(S3RgwTest, AwkwardNamesRoundTripAndListInByteOrder) {
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

TEST_F(S3RgwTest, LargeObjectsAndRangesUseOneRequestEach) {
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

TEST_F(S3RgwTest, PrefixesIsolateStores) {
  Result<std::shared_ptr<S3Store>> other = OpenTestStore("isolated");
  ASSERT_TRUE(other.ok());
  ASSERT_TRUE(store_->Put("x", "mine").ok());
  ASSERT_TRUE((*other)->Put("x", "theirs").ok());
  EXPECT_EQ(store_->Get("x")->data, "mine");
  EXPECT_EQ(ListAll(*store_, "")->size(), 1u);
  EXPECT_EQ(ListAll(**other, "")->size(), 1u);
}

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
