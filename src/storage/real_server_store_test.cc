// The store tests every real server passes (storage/real_server.h): each backend's test
// instantiates RealServerStoreTest with its server and adds this file to its sources.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <mutex>
#include <thread>

#include "storage/fault_store.h"
#include "storage/real_server.h"

namespace omnigraph::storage {

void RealServerStoreTest::SetUp() {
  OMNIGRAPH_REQUIRE_SERVER(GetParam());
  Result<std::shared_ptr<ObjectStore>> store =
      GetParam().open(testing::UnitTest::GetInstance()->current_test_info()->name());
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  store_ = *store;
}

namespace {

TEST_P(RealServerStoreTest, ConditionalCreateOfAnExistingNameIsExistsAndLeavesItUntouched) {
  ASSERT_TRUE(*store_->PutIfAbsent("fence", "first"));
  Result<bool> again = store_->PutIfAbsent("fence", "second");
  // RGW: 412; Azurite: 409 BlobAlreadyExists.
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_FALSE(*again);
  EXPECT_EQ(store_->Get("fence")->data, "first");
}

// RGW answers some losers of an If-Match race with 500 instead of 412; every loser must still
// hear Precondition, and exactly one writer wins each round.
TEST_P(RealServerStoreTest, IfMatchRaceHasOneWinnerAndOnlyPreconditionLosers) {
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
TEST_P(RealServerStoreTest, RetriedCreateAfterALostAcknowledgementReportsExists) {
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

TEST_P(RealServerStoreTest, AwkwardNamesRoundTripAndListInByteOrder) {
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

TEST_P(RealServerStoreTest, LargeObjectsAndRangesUseOneRequestEach) {
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

TEST_P(RealServerStoreTest, PrefixesIsolateStores) {
  Result<std::shared_ptr<ObjectStore>> other = GetParam().open("isolated");
  ASSERT_TRUE(other.ok());
  ASSERT_TRUE(store_->Put("x", "mine").ok());
  ASSERT_TRUE((*other)->Put("x", "theirs").ok());
  EXPECT_EQ(store_->Get("x")->data, "mine");
  EXPECT_EQ(ListAll(*store_, "")->size(), 1u);
  EXPECT_EQ(ListAll(**other, "")->size(), 1u);
}

}  // namespace
}  // namespace omnigraph::storage
