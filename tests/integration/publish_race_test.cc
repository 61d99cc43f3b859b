// The commit protocol on every real server (S3 on Ceph RGW, Azure Blob on Azurite): the race — 8
// threads and 8 processes publishing to one stream — and lost acknowledgements (a FaultStore over
// the real backend that applies a write, then reports Unknown). Mirrors
// src/commit/publish_concurrency_test.cc.
#include <gtest/gtest.h>

#include <barrier>
#include <cstdio>
#include <map>
#include <set>
#include <thread>

#include "commit/test_streams.h"
#include "storage/azure/azure_test_util.h"
#include "storage/fault_store.h"
#include "storage/s3/s3_test_util.h"
#include "storage/test_util.h"
#include "storage/uri.h"

namespace omnigraph::commit {
namespace {

using storage::RealServer;

using testing::BumpOneTable;
using testing::TestGenesis;

constexpr int kPublishers = 8;
constexpr int kCommitsEach = 50;

StageFn Tagged(std::string op) {
  return [op](const GraphState& base) -> Result<RecordContent> {
    OMNIGRAPH_ASSIGN_OR_RETURN(RecordContent c, BumpOneTable()(base));
    c.extra["op"] = op;
    return c;
  };
}

// Publishes one operation. RetriesExhausted is a definite failure with nothing visible (a starved
// publisher lost every race), so the caller may submit the same operation again; the
// exactly-once check on operation ids then also proves the failed attempts left nothing behind.
constexpr int kResubmissionsMax = 20;
Result<PublishResult> PublishOp(Stream& s, const std::string& op) {
  for (int i = 0;; ++i) {
    PublishRequest request;
    request.stage = Tagged(op);
    Result<PublishResult> r = s.Publish(request);
    if (r.ok() || r.status().code() != Code::kRetriesExhausted || i == kResubmissionsMax) return r;
  }
}

storage::Runtime RealClockRuntime(std::shared_ptr<storage::ObjectStore> store, uint64_t seed) {
  storage::Runtime rt = storage::Runtime::ForTest(std::move(store), seed);
  // A real clock, so backoff really waits for the other publishers.
  rt.clock = std::shared_ptr<Clock>(SystemClock::Default(), [](Clock*) {});
  return rt;
}

// Contiguous seqs that fold, each operation exactly once, every acknowledged commit present.
void CheckStream(const storage::Runtime& rt, const std::map<std::string, std::string>& acked,
                 uint64_t expected_head) {
  std::unique_ptr<Stream> reader = std::move(*Stream::Open(rt, "main"));
  Result<std::shared_ptr<const GraphState>> head = reader->ReadHead();
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  ASSERT_EQ((*head)->seq, expected_head);
  std::map<std::string, std::string> op_of_commit;
  std::set<std::string> ops;
  for (uint64_t seq = 1; seq <= expected_head; ++seq) {
    Result<Record> r = reader->ReadRecord(seq);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    std::string op = r->extra.value("op", "");
    ASSERT_FALSE(op.empty());
    EXPECT_TRUE(ops.insert(op).second) << "operation " << op << " published twice";
    op_of_commit[r->commit_id] = op;
  }
  EXPECT_EQ(acked.size(), expected_head);
  for (const auto& [commit_id, op] : acked) {
    auto it = op_of_commit.find(commit_id);
    ASSERT_NE(it, op_of_commit.end()) << "acknowledged commit " << commit_id << " is missing";
    EXPECT_EQ(it->second, op);
  }
}

class PublishRaceTest : public ::testing::TestWithParam<RealServer> {};

INSTANTIATE_TEST_SUITE_P(RealServers, PublishRaceTest,
                         ::testing::Values(storage::s3::S3Server(), storage::azure::AzureServer()),
                         storage::RealServerName);

TEST_P(PublishRaceTest, EightThreadsOnOneStreamLandEveryCommitOnce) {
  OMNIGRAPH_REQUIRE_SERVER(GetParam());
  Result<std::shared_ptr<storage::ObjectStore>> store = GetParam().open("threads");
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  storage::Runtime root = RealClockRuntime(*store, 7);
  ASSERT_TRUE(CreateMainStream(root, TestGenesis(), std::nullopt).ok());
  std::barrier start(kPublishers);
  std::mutex mu;
  std::map<std::string, std::string> acked;
  std::vector<std::thread> threads;
  for (int t = 0; t < kPublishers; ++t) {
    threads.emplace_back([&, t] {
      storage::Runtime rt = RealClockRuntime(*store, 100 + t);
      std::unique_ptr<Stream> s = std::move(*Stream::Open(rt, "main"));
      start.arrive_and_wait();
      for (int i = 0; i < kCommitsEach; ++i) {
        std::string op = "t" + std::to_string(t) + "-" + std::to_string(i);
        Result<PublishResult> r = PublishOp(*s, op);
        if (!r.ok()) {
          ADD_FAILURE() << r.status().ToString();
          continue;
        }
        std::lock_guard lock(mu);
        acked[r->commit_id] = op;
      }
      s->WaitForBackground();
    });
  }
  for (std::thread& th : threads) th.join();
  CheckStream(root, acked, kPublishers * kCommitsEach);
}

TEST_P(PublishRaceTest, EightProcessesOnOneStreamLandEveryCommitOnce) {
  OMNIGRAPH_REQUIRE_SERVER(GetParam());
  Result<std::shared_ptr<storage::ObjectStore>> store = GetParam().open("processes");
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  const std::string prefix = (*store)->Describe();
  storage::Runtime root = RealClockRuntime(*store, 7);
  ASSERT_TRUE(CreateMainStream(root, TestGenesis(), std::nullopt).ok());
  std::vector<storage::ChildResult> children =
      storage::RunChildrenTogether(kPublishers, [&](int p, int out) {
        // Each process opens its own store: connections are never shared across a fork.
        auto child_store = storage::OpenStore(prefix);
        if (!child_store.ok()) {
          std::fprintf(stderr, "child %d: %s\n", p, child_store.status().ToString().c_str());
          return 3;
        }
        storage::Runtime rt = RealClockRuntime(*child_store, 1000 + p);
        auto s = Stream::Open(rt, "main");
        if (!s.ok()) return 4;
        for (int i = 0; i < kCommitsEach; ++i) {
          std::string op = "p" + std::to_string(p) + "-" + std::to_string(i);
          Result<PublishResult> r = PublishOp(**s, op);
          if (!r.ok()) {
            std::fprintf(stderr, "child %d: %s\n", p, r.status().ToString().c_str());
            return 5;
          }
          if (!storage::WriteToFd(out, r->commit_id + " " + op + "\n")) return 6;
        }
        (*s)->WaitForBackground();
        return 0;
      });
  std::map<std::string, std::string> acked;
  for (const storage::ChildResult& child : children) {
    EXPECT_TRUE(child.exited_zero()) << "status " << child.wait_status;
    size_t pos = 0;
    while (pos < child.output.size()) {
      size_t nl = child.output.find('\n', pos);
      std::string line = child.output.substr(pos, nl - pos);
      size_t space = line.find(' ');
      acked[line.substr(0, space)] = line.substr(space + 1);
      pos = nl + 1;
    }
  }
  CheckStream(root, acked, kPublishers * kCommitsEach);
}

// The record create lands on the server, then its acknowledgement is lost (Unknown). The re-drive
// hears "exists", reads the record back, finds its own commit id and acknowledges exactly once.
TEST_P(PublishRaceTest, LostAcknowledgementsAreResolvedByReadBack) {
  OMNIGRAPH_REQUIRE_SERVER(GetParam());
  Result<std::shared_ptr<storage::ObjectStore>> store = GetParam().open("lost-ack");
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  storage::Runtime root = RealClockRuntime(*store, 7);
  ASSERT_TRUE(CreateMainStream(root, TestGenesis(), std::nullopt).ok());
  auto faults = std::make_shared<storage::FaultStore>(*store);
  std::unique_ptr<Stream> s = std::move(*Stream::Open(RealClockRuntime(faults, 9), "main"));
  std::unique_ptr<Stream> rival = std::move(*Stream::Open(root, "main"));
  std::map<std::string, std::string> acked;
  for (int i = 0; i < 6; ++i) {
    // Every record create of ours and the hint write after it lose their acknowledgement.
    faults->AddRule({.ops = storage::Mask(storage::Op::kPutIfAbsent),
                     .name_prefix = "_graph/main/",
                     .kind = storage::FaultKind::kUnknownAfterEffect});
    faults->AddRule({.ops = storage::Mask(storage::Op::kPut),
                     .name_prefix = HintName("main"),
                     .kind = storage::FaultKind::kUnknownAfterEffect});
    PublishRequest request;
    request.stage = Tagged("mine-" + std::to_string(i));
    Result<PublishResult> r = s->Publish(request);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    acked[r->commit_id] = "mine-" + std::to_string(i);
    // A rival publishes between ours, so re-drives meet foreign records too.
    PublishRequest theirs;
    theirs.stage = Tagged("rival-" + std::to_string(i));
    Result<PublishResult> t = rival->Publish(theirs);
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    acked[t->commit_id] = "rival-" + std::to_string(i);
  }
  s->WaitForBackground();
  rival->WaitForBackground();
  EXPECT_GE(faults->faults_injected(), 6u);
  CheckStream(root, acked, 12);
}

}  // namespace
}  // namespace omnigraph::commit
