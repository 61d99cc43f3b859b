// Idempotency keys (docs/design/idempotency.md): a retried keyed write answers with the first
// write's outcome and never commits twice — after a lost acknowledgement, after the branch moved,
// from another handle, from another process; the same key with another request is a typed
// conflict; a keyed write costs exactly one GET and one conditional create more than an unkeyed
// one.
#include "engine/write/idempotency.h"

#include <gtest/gtest.h>

#include <thread>

#include "base/hash.h"
#include "commit/names.h"
#include "engine/ops/load.h"
#include "engine/write/mutate.h"
#include "storage/counting_store.h"
#include "storage/local_store.h"
#include "storage/memory_store.h"
#include "storage/test_util.h"

namespace omnigraph::engine {
namespace {

using schema::Value;
using Params = std::map<std::string, Value>;

constexpr std::string_view kSchema = R"(
node Person { name: String @key  age: I32?  title: String? }
)";

constexpr std::string_view kQueries = R"(
query add_person($name: String, $age: I32) { insert Person { name: $name, age: $age } }
query older($min: I32, $title: String) { update Person set { title: $title } where age >= $min }
query bump($name: String) { update Person set { age: 99 } where name = $name }
)";

Idempotency Key(std::string key, std::string request = "request-1") {
  return Idempotency{std::move(key), Sha256Hex(request), Json::object()};
}

class IdempotencyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    memory_ = std::make_shared<storage::MemoryStore>();
    counting_ = std::make_shared<storage::CountingStore>(memory_);
    Result<std::unique_ptr<Graph>> g =
        Graph::Init(storage::Runtime::ForTest(counting_, 3), kSchema);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    graph_ = std::move(*g);
  }

  // A second, independent handle on the same store (another process, as far as the protocol
  // is concerned).
  std::unique_ptr<Graph> Other(uint64_t seed) {
    Result<std::unique_ptr<Graph>> g = Graph::Open(storage::Runtime::ForTest(memory_, seed));
    OMNIGRAPH_CHECK(g.ok());
    return std::move(*g);
  }

  static Result<MutationResult> Run(Graph& g, std::string_view name, Params params,
                                    std::optional<Idempotency> key = {}) {
    MutationOptions options;
    options.idempotency = std::move(key);
    return Mutate(g, kQueries, name, params, options);
  }
  MutationResult MustRun(std::string_view name, Params params,
                         std::optional<Idempotency> key = {}) {
    Result<MutationResult> r = Run(*graph_, name, std::move(params), std::move(key));
    OMNIGRAPH_CHECK_MSG(r.ok(), std::string(name) + ": " + r.status().ToString());
    return *r;
  }

  uint64_t Seq(Graph& g) { return g.SnapshotOfBranch("main")->state().seq; }
  // How many records of main name `key`.
  int RecordsNaming(std::string_view key) {
    int n = 0;
    for (uint64_t s = 1; s <= Seq(*graph_); ++s) {
      const std::string name = commit::RecordName("main", s);
      Result<storage::GetResult> got = memory_->Get(name, std::nullopt);
      OMNIGRAPH_CHECK(got.ok());
      Result<commit::Record> r = commit::DecodeRecord(got->data, name);
      OMNIGRAPH_CHECK(r.ok());
      if (RecordKeyMember(*r, key) != nullptr) ++n;
    }
    return n;
  }
  uint64_t KeySeq(std::string_view key) {
    Result<storage::GetResult> got = memory_->Get(IdempotencyKeyName("main", key), std::nullopt);
    OMNIGRAPH_CHECK(got.ok());
    return Json::parse(got->data)["seq"].get<uint64_t>();
  }

  Params Person(const char* name, int age) {
    return {{"name", Value::String(name)}, {"age", Value::Int(age)}};
  }

  std::shared_ptr<storage::MemoryStore> memory_;
  std::shared_ptr<storage::CountingStore> counting_;
  std::unique_ptr<Graph> graph_;
};

TEST_F(IdempotencyTest, ARetriedInsertAnswersWithTheFirstCommitAndCommitsNothing) {
  MutationResult first = MustRun("add_person", Person("ada", 36), Key("k1"));
  ASSERT_TRUE(first.commit.has_value());
  const uint64_t seq = Seq(*graph_);
  MutationResult again = MustRun("add_person", Person("ada", 36), Key("k1"));
  EXPECT_EQ(again.commit, first.commit);
  EXPECT_EQ(again.affected_nodes, 1u);
  EXPECT_EQ(again.commit_record->seq, first.commit_record->seq);
  EXPECT_EQ(Seq(*graph_), seq) << "the retry published nothing";
  EXPECT_EQ(RecordsNaming("k1"), 1);
  // The record names the key, the request and the outcome.
  const Json* member = RecordKeyMember(*first.commit_record, "k1");
  ASSERT_NE(member, nullptr);
  EXPECT_EQ((*member)["request_sha256"], Sha256Hex("request-1"));
  EXPECT_EQ((*member)["outcome"]["affected_nodes"], 1);
}

TEST_F(IdempotencyTest, ARetriedStrictUpdateAfterTheBranchMovedAnswersAsTheFirstTime) {
  MustRun("add_person", Person("ada", 36));
  MustRun("add_person", Person("bob", 50));
  MutationResult first =
      MustRun("older", {{"min", Value::Int(40)}, {"title", Value::String("sr")}}, Key("u1"));
  EXPECT_EQ(first.affected_nodes, 1u);
  MustRun("add_person", Person("cy", 70));  // The branch moves on.
  const uint64_t seq = Seq(*graph_);
  // Without the key this would update bob and cy again; with it, it answers as the first run.
  MutationResult again =
      MustRun("older", {{"min", Value::Int(40)}, {"title", Value::String("sr")}}, Key("u1"));
  EXPECT_EQ(again.commit, first.commit);
  EXPECT_EQ(again.affected_nodes, 1u);
  EXPECT_EQ(Seq(*graph_), seq);
}

TEST_F(IdempotencyTest, TheSameKeyForAnotherRequestIsAConflictAndChangesNothing) {
  MustRun("add_person", Person("ada", 36), Key("k1", "request-1"));
  const uint64_t seq = Seq(*graph_);
  Result<MutationResult> other =
      Run(*graph_, "add_person", Person("bob", 40), Key("k1", "request-2"));
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().code(), Code::kIdempotencyConflict) << other.status().ToString();
  EXPECT_NE(other.status().message().find("different request"), std::string::npos);
  EXPECT_EQ(other.status().object(), IdempotencyKeyName("main", "k1"));
  EXPECT_EQ(Seq(*graph_), seq);
}

TEST_F(IdempotencyTest, AMalformedKeyIsRefusedBeforeAnyWrite) {
  MustRun("add_person", Person("ada", 36));
  const storage::OpCounts before = counting_->Snapshot();
  for (std::string bad : {std::string(), std::string("has space"), std::string(256, 'k')}) {
    Result<MutationResult> r = Run(*graph_, "add_person", Person("bob", 40), Key(bad));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), Code::kInvalidArgument) << r.status().ToString();
  }
  const storage::OpCounts spent = counting_->Snapshot() - before;
  EXPECT_EQ(spent.puts + spent.put_if_absent + spent.put_if_match, 0u) << spent.ToString();
}

// A warm keyed insert costs what the unkeyed one does (3 GETs, 2 HEADs, 3 creates and the hint:
// engine/write/mutate_test.cc) plus the GET that finds no key object and the conditional create of
// it. A retry reads the key object and the record it names, and nothing else.
TEST_F(IdempotencyTest, AWarmKeyedInsertCostsOneGetAndOneCreateMore) {
  MustRun("add_person", Person("ada", 36));
  MustRun("add_person", Person("bob", 37));
  const storage::OpCounts before = counting_->Snapshot();
  MustRun("add_person", Person("cy", 38), Key("k1"));
  const storage::OpCounts keyed = counting_->Snapshot() - before;
  EXPECT_EQ(keyed.gets, 4u) << keyed.ToString();
  EXPECT_EQ(keyed.heads, 2u) << keyed.ToString();
  EXPECT_EQ(keyed.lists + keyed.deletes + keyed.put_if_match, 0u) << keyed.ToString();
  EXPECT_EQ(keyed.put_if_absent, 4u) << keyed.ToString();
  EXPECT_EQ(keyed.puts, 1u) << keyed.ToString();
  const storage::OpCounts mid = counting_->Snapshot();
  MustRun("add_person", Person("cy", 38), Key("k1"));
  const storage::OpCounts retry = counting_->Snapshot() - mid;
  EXPECT_EQ(retry.gets, 2u) << retry.ToString();
  EXPECT_EQ(retry.total() - retry.gets, 0u) << retry.ToString();
}

// A keyed write that loses the race for its seq moves its key to the next seq (a
// compare-and-swap, after reading the record that took the seq) and publishes there.
TEST_F(IdempotencyTest, AKeyedWriteThatLosesItsSeqMovesTheKeyAndCommitsOnce) {
  MustRun("add_person", Person("ada", 36));
  std::unique_ptr<Graph> stale = Other(11);
  ASSERT_TRUE(stale->SnapshotOfBranch("main").ok());  // Warm at seq 1.
  MustRun("add_person", Person("bob", 40));           // Takes seq 2 behind its back.
  // An insert captured from the warm head: it plans on seq 1 without reading.
  Result<MutationResult> r = Run(*stale, "add_person", Person("cy", 50), Key("k1"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->commit_record->seq, 3u);
  EXPECT_EQ(KeySeq("k1"), 3u);
  EXPECT_EQ(RecordsNaming("k1"), 1);
  // Its retry, from either handle, answers with seq 3.
  EXPECT_EQ(MustRun("add_person", Person("cy", 50), Key("k1")).commit, r->commit);
  EXPECT_EQ(Run(*stale, "add_person", Person("cy", 50), Key("k1"))->commit, r->commit);
}

// A key object that names a seq past the writer's captured head (a retry of the same write on
// a fresher handle fenced it there) makes the writer catch up and publish at that seq.
TEST_F(IdempotencyTest, AKeyFencedPastTheCapturedHeadIsFollowed) {
  MustRun("add_person", Person("ada", 36));
  ASSERT_TRUE(memory_
                  ->PutIfAbsent(IdempotencyKeyName("main", "k1"),
                                Json{{"format", 1},
                                     {"key", "k1"},
                                     {"request_sha256", Sha256Hex("request-1")},
                                     {"seq", 3}}
                                    .dump())
                  .ok());
  std::unique_ptr<Graph> stale = Other(12);
  ASSERT_TRUE(stale->SnapshotOfBranch("main").ok());  // Warm at seq 1.
  MustRun("add_person", Person("bob", 40));           // Seq 2.
  Result<MutationResult> r = Run(*stale, "add_person", Person("cy", 50), Key("k1"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->commit_record->seq, 3u);
  EXPECT_EQ(RecordsNaming("k1"), 1);
}

// Retries racing the first attempt (a client that timed out and retried at once, on other
// handles) all answer with one commit.
TEST_F(IdempotencyTest, ConcurrentRetriesOfOneKeyedWriteShareOneCommit) {
  MustRun("add_person", Person("ada", 36));
  constexpr int kWriters = 4;
  std::vector<std::unique_ptr<Graph>> graphs;
  for (int i = 0; i < kWriters; ++i) graphs.push_back(Other(20 + i));
  std::vector<std::optional<std::string>> commits(kWriters);
  std::vector<std::thread> threads;
  for (int i = 0; i < kWriters; ++i) {
    threads.emplace_back([&, i] {
      Result<MutationResult> r =
          Run(*graphs[i], "bump", {{"name", Value::String("ada")}}, Key("same"));
      if (r.ok()) commits[i] = r->commit;
    });
  }
  for (std::thread& t : threads) t.join();
  for (int i = 0; i < kWriters; ++i) {
    ASSERT_TRUE(commits[i].has_value()) << "writer " << i;
    EXPECT_EQ(*commits[i], *commits[0]);
  }
  EXPECT_EQ(Seq(*graph_), 2u);
  EXPECT_EQ(RecordsNaming("same"), 1);
}

TEST_F(IdempotencyTest, AKeyedLoadRetriedAnswersWithItsCountsAndCommitsOnce) {
  const std::string input = R"({"type":"Person","data":{"name":"ada","age":3}})"
                            "\n"
                            R"({"type":"Person","data":{"name":"bob","age":4}})"
                            "\n";
  LoadOptions options;
  options.idempotency = Key("load-1");
  Result<LoadResult> first = Load(*graph_, "main", input, LoadMode::kAppend, options);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  // Without the key an append of the same ids would be a KeyConflict.
  Result<LoadResult> again = Load(*graph_, "main", input, LoadMode::kAppend, options);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->commit, first->commit);
  EXPECT_EQ(again->total_entities, 2u);
  ASSERT_EQ(again->nodes.size(), 1u);
  EXPECT_EQ(again->nodes[0].name, "Person");
  EXPECT_EQ(again->nodes[0].entities_loaded, 2u);
  EXPECT_EQ(Seq(*graph_), 1u);
}

// Two processes retrying one keyed load at once (both think the other attempt was lost):
// exactly one commit, and both report it.
TEST(IdempotencyProcessTest, TwoProcessesWithOneKeyCommitOnceAndAnswerAlike) {
  storage::TempDir dir;
  auto runtime = [&](uint64_t seed) {
    auto store = storage::LocalStore::Open(dir.path());
    OMNIGRAPH_CHECK(store.ok());
    storage::Runtime rt =
        storage::Runtime::ForTest(std::shared_ptr<storage::ObjectStore>(std::move(*store)), seed);
    rt.clock = std::shared_ptr<Clock>(SystemClock::Default(), [](Clock*) {});
    return rt;
  };
  ASSERT_TRUE(Graph::Init(runtime(1), kSchema).ok());
  std::string input;
  for (int i = 0; i < 200; ++i) {
    input += R"({"type":"Person","data":{"name":"p)" + std::to_string(i) +
             R"("}})"
             "\n";
  }
  std::vector<storage::ChildResult> children =
      storage::RunChildrenTogether(2, [&](int index, int out) {
        Result<std::unique_ptr<Graph>> g = Graph::Open(runtime(100 + index));
        if (!g.ok()) return 3;
        LoadOptions options;
        options.idempotency = Key("proc-key");
        Result<LoadResult> r = Load(**g, "main", input, LoadMode::kAppend, options);
        if (!r.ok()) {
          std::fprintf(stderr, "child %d: %s\n", index, r.status().ToString().c_str());
          return 4;
        }
        return storage::WriteToFd(out, *r->commit + "\n") ? 0 : 5;
      });
  std::vector<std::string> commits;
  for (const storage::ChildResult& child : children) {
    ASSERT_TRUE(child.exited_zero()) << "status " << child.wait_status;
    commits.push_back(child.output.substr(0, child.output.find('\n')));
  }
  EXPECT_EQ(commits[0], commits[1]);
  Result<std::unique_ptr<Graph>> g = Graph::Open(runtime(7));
  ASSERT_TRUE(g.ok());
  Result<Snapshot> head = (*g)->SnapshotOfBranch("main");
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(head->state().seq, 1u) << "one commit for both";
  EXPECT_EQ((*head->Table("node:Person"))->entity_count(), 200u);
}

}  // namespace
}  // namespace omnigraph::engine
