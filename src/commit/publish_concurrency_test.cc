// Many publishers on one stream — threads and processes — and publishers killed mid-publish.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <barrier>
#include <chrono>
#include <cstdio>
#include <map>
#include <thread>

#include "commit/test_streams.h"
#include "storage/forwarding_store.h"

namespace omnigraph::commit {
namespace {

using testing::BumpOneTable;
using testing::TestGenesis;

constexpr int kPublishers = 8;
constexpr int kCommitsEach = 50;

// A stage step that tags the record with a unique operation id, so duplicates are detectable.
StageFn Tagged(std::string op) {
  return [op](const GraphState& base) -> Result<RecordContent> {
    OMNIGRAPH_ASSIGN_OR_RETURN(RecordContent c, BumpOneTable()(base));
    c.extra["op"] = op;
    return c;
  };
}

// Publishes one operation. RetriesExhausted is a definite failure with nothing visible, so the
// caller may submit the same operation again (the exactly-once check on operation ids then also
// proves that the failed attempts left nothing behind); any other failure is returned.
constexpr int kResubmissionsMax = 20;
Result<PublishResult> PublishOp(Stream& s, const std::string& op, int* resubmissions) {
  for (int i = 0;; ++i) {
    PublishRequest request;
    request.stage = Tagged(op);
    Result<PublishResult> r = s.Publish(request);
    if (r.ok() || r.status().code() != Code::kRetriesExhausted || i == kResubmissionsMax) return r;
    ++*resubmissions;
  }
}

storage::Runtime PublisherRuntime(std::shared_ptr<storage::ObjectStore> store, uint64_t seed) {
  storage::Runtime rt = storage::Runtime::ForStore(std::move(store), 2);
  rt.random = std::make_shared<Random>(seed);
  return rt;
}

// Reads every record of the stream and checks: contiguous seqs with valid parents (the cold read
// folds them), each operation exactly once, and every acknowledged commit present.
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

TEST(PublishConcurrencyTest, EightThreadsOnOneStreamLandEveryCommitOnce) {
  for (bool local : {false, true}) {
    SCOPED_TRACE(local ? "local" : "memory");
    testing::TestStore store(local);
    ASSERT_TRUE(CreateMainStream(store.runtime, TestGenesis(), std::nullopt).ok());
    std::barrier start(kPublishers);
    std::mutex mu;
    std::map<std::string, std::string> acked;
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kPublishers; ++t) {
      threads.emplace_back([&, t] {
        storage::Runtime rt = PublisherRuntime(store.counting, 100 + t);
        std::unique_ptr<Stream> s = std::move(*Stream::Open(rt, "main"));
        start.arrive_and_wait();
        for (int i = 0; i < kCommitsEach; ++i) {
          std::string op = "t" + std::to_string(t) + "-" + std::to_string(i);
          int resubmitted = 0;
          Result<PublishResult> r = PublishOp(*s, op, &resubmitted);
          if (!r.ok()) {
            ++failures;
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
    EXPECT_EQ(failures.load(), 0);
    CheckStream(store.runtime, acked, kPublishers * kCommitsEach);
  }
}

TEST(PublishConcurrencyTest, EightProcessesOnOneStreamLandEveryCommitOnce) {
  storage::TempDir dir;
  auto root = std::shared_ptr<storage::ObjectStore>(*storage::LocalStore::Open(dir.path()));
  ASSERT_TRUE(CreateMainStream(storage::Runtime::ForTest(root), TestGenesis(), std::nullopt).ok());
  std::vector<storage::ChildResult> children =
      storage::RunChildrenTogether(kPublishers, [&](int p, int out) {
        auto store = storage::LocalStore::Open(dir.path());
        if (!store.ok()) return 3;
        storage::Runtime rt = storage::Runtime::ForTest(
            std::shared_ptr<storage::ObjectStore>(std::move(*store)), 1000 + p);
        // A real clock, so backoff really waits for the others.
        rt.clock = std::shared_ptr<Clock>(SystemClock::Default(), [](Clock*) {});
        auto s = Stream::Open(rt, "main");
        if (!s.ok()) return 4;
        for (int i = 0; i < kCommitsEach; ++i) {
          std::string op = "p" + std::to_string(p) + "-" + std::to_string(i);
          int resubmitted = 0;
          Result<PublishResult> r = PublishOp(**s, op, &resubmitted);
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
  CheckStream(storage::Runtime::ForTest(root), acked, kPublishers * kCommitsEach);
}

// Runs `child` in a forked process, waits until `ready` holds, then SIGKILLs it.
template <typename Child, typename Ready>
void KillWhen(Child child, Ready ready) {
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    child();
    ::_exit(0);
  }
  for (int i = 0; i < 2000 && !ready(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_TRUE(ready()) << "the child never reached the kill point";
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status));
}

TEST(PublishCrashTest, KilledBetweenStagingAndTheRecordLeavesNoTrace) {
  storage::TempDir dir;
  auto root = std::shared_ptr<storage::ObjectStore>(*storage::LocalStore::Open(dir.path()));
  storage::Runtime rt = storage::Runtime::ForTest(root);
  ASSERT_TRUE(CreateMainStream(rt, TestGenesis(), std::nullopt).ok());
  KillWhen(
      [&] {
        auto s = std::move(*Stream::Open(rt, "main"));
        PublishRequest request;
        request.stage = [&](const GraphState& base) -> Result<RecordContent> {
          // Staged table data is written, then the process dies before the record.
          root->Put("tables/0000000000000001-0000000000000001/staged.marker", "x").IgnoreError();
          for (;;) ::pause();
          return BumpOneTable()(base);
        };
        s->Publish(request).status().IgnoreError();
      },
      [&] { return root->Head("tables/0000000000000001-0000000000000001/staged.marker").ok(); });
  auto s = std::move(*Stream::Open(rt, "main"));
  Result<std::shared_ptr<const GraphState>> head = s->ReadHead();
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  EXPECT_EQ((*head)->seq, 0u);
  PublishRequest request;
  request.stage = BumpOneTable();
  Result<PublishResult> next = s->Publish(request);
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  EXPECT_EQ(next->seq, 1u);
}

// Blocks forever on writes of one name, to stop a child between two steps of a publish.
class BlockingStore final : public storage::ForwardingStore {
 public:
  BlockingStore(std::shared_ptr<storage::ObjectStore> inner, std::string block)
      : ForwardingStore(std::move(inner)), block_(std::move(block)) {}
  Status Put(std::string_view n, std::string_view d) override {
    if (n == block_) {
      for (;;) ::pause();
    }
    return inner().Put(n, d);
  }

 private:
  std::string block_;
};

TEST(PublishCrashTest, KilledBetweenTheRecordAndTheHintKeepsTheCommit) {
  storage::TempDir dir;
  auto root = std::shared_ptr<storage::ObjectStore>(*storage::LocalStore::Open(dir.path()));
  storage::Runtime rt = storage::Runtime::ForTest(root);
  ASSERT_TRUE(CreateMainStream(rt, TestGenesis(), std::nullopt).ok());
  KillWhen(
      [&] {
        storage::Runtime child_rt =
            storage::Runtime::ForTest(std::make_shared<BlockingStore>(root, HintName("main")), 4);
        auto s = std::move(*Stream::Open(child_rt, "main"));
        PublishRequest request;
        request.stage = BumpOneTable();
        s->Publish(request).status().IgnoreError();
      },
      [&] { return root->Head(RecordName("main", 1)).ok(); });
  auto s = std::move(*Stream::Open(rt, "main"));
  Result<std::shared_ptr<const GraphState>> head = s->ReadHead();
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  EXPECT_EQ((*head)->seq, 1u);  // The hint still says 0; the probe finds the record.
  PublishRequest request;
  request.stage = BumpOneTable();
  Result<PublishResult> next = s->Publish(request);
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(next->seq, 2u);
}

}  // namespace
}  // namespace omnigraph::commit
