// Group commit (docs/design/engine.md "Group commit"): writes that queue behind a publication in
// flight share one record; each is validated in order and answered on its own.
#include "engine/write/group_commit.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <thread>

#include "base/hash.h"
#include "commit/names.h"
#include "engine/write/mutate.h"
#include "storage/forwarding_store.h"
#include "storage/memory_store.h"

namespace omnigraph::engine {
namespace {

using schema::Value;
using Params = std::map<std::string, Value>;

constexpr std::string_view kSchema = R"(
node Person { name: String @key  age: I32? }
node Company { name: String @key }
edge WorksAt: Person -> Company { }
)";

constexpr std::string_view kQueries = R"(
query add_person($name: String, $age: I32) { insert Person { name: $name, age: $age } }
query add_company($name: String) { insert Company { name: $name } }
query hire($p: String, $c: String) { insert WorksAt { from: $p, to: $c } }
query older($min: I32) { update Person set { age: 1 } where age >= $min }
)";

// A memory store whose record creates wait while the gate is closed (so that a publication is
// in flight as long as the test wants).
class GatedStore final : public storage::ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  void Close() {
    std::lock_guard lock(mu_);
    open_ = false;
  }
  void Open() {
    std::lock_guard lock(mu_);
    open_ = true;
    cv_.notify_all();
  }
  // Waits until a record create is held at the gate.
  void AwaitHeld() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return held_ > 0; });
  }
  // Makes the creates of record `name` in doubt: each returns Unknown without effect; the first
  // bytes offered are kept and land, as a late request would, just before a create of the name
  // with other bytes (or at LandInDoubt).
  void ArmInDoubt(std::string name) {
    std::lock_guard lock(mu_);
    doubt_name_ = std::move(name);
  }
  void LandInDoubt() {
    std::lock_guard lock(mu_);
    if (doubt_bytes_) inner().PutIfAbsent(doubt_name_, *doubt_bytes_).status().IgnoreError();
    doubt_name_.clear();
    doubt_bytes_.reset();
  }
  Result<bool> PutIfAbsent(std::string_view n, std::string_view d) override {
    if (n.ends_with(".commit")) {
      std::unique_lock lock(mu_);
      ++held_;
      cv_.notify_all();
      cv_.wait(lock, [&] { return open_; });
      --held_;
      if (n == doubt_name_) {
        if (!doubt_bytes_) doubt_bytes_ = std::string(d);
        if (d == *doubt_bytes_)
          return Status(Code::kUnknown, "the create timed out", std::string(n));
        // Another request for the name: the kept one lands first.
        inner().PutIfAbsent(n, *doubt_bytes_).status().IgnoreError();
        doubt_name_.clear();
        doubt_bytes_.reset();
      }
    }
    return inner().PutIfAbsent(n, d);
  }
  std::string Describe() const override { return "gated"; }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = true;
  int held_ = 0;
  std::string doubt_name_;
  std::optional<std::string> doubt_bytes_;
};

class GroupCommitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    gate_ = std::make_shared<GatedStore>(std::make_shared<storage::MemoryStore>());
    Result<std::unique_ptr<Graph>> g = Graph::Init(storage::Runtime::ForTest(gate_, 5), kSchema);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    graph_ = std::move(*g);
  }

  Result<MutationResult> Run(std::string_view name, Params params,
                             std::optional<std::string> actor = {},
                             std::optional<Idempotency> key = {}) {
    MutationOptions options;
    options.actor = std::move(actor);
    options.idempotency = std::move(key);
    return Mutate(*graph_, kQueries, name, params, options);
  }
  MutationResult MustRun(std::string_view name, Params params) {
    Result<MutationResult> r = Run(name, std::move(params));
    OMNIGRAPH_CHECK_MSG(r.ok(), r.status().ToString());
    return *r;
  }
  uint64_t Seq() { return graph_->SnapshotOfBranch("main")->state().seq; }

  // Holds a first write at its record create, runs `writes` on their own threads until all of
  // them wait behind it, then lets the first one through: the writes form one batch.
  std::vector<Result<MutationResult>> Batch(
      std::vector<std::function<Result<MutationResult>()>> writes) {
    gate_->Close();
    std::thread leader([&] {
      Result<MutationResult> r = Run("add_company", {{"name", Value::String("lead")}});
      OMNIGRAPH_CHECK_MSG(r.ok(), r.status().ToString());
    });
    gate_->AwaitHeld();
    std::vector<std::optional<Result<MutationResult>>> out(writes.size());
    std::vector<std::thread> threads;
    // One at a time, each queued before the next starts: the batch's order is the list's.
    for (size_t i = 0; i < writes.size(); ++i) {
      threads.emplace_back([&, i] { out[i] = writes[i](); });
      while (graph_->GroupCommitWaiting("main") < i + 1) std::this_thread::yield();
    }
    gate_->Open();
    leader.join();
    for (std::thread& t : threads) t.join();
    std::vector<Result<MutationResult>> results;
    for (auto& r : out) results.push_back(*std::move(r));
    return results;
  }

  Params Person(const char* name, int age) {
    return {{"name", Value::String(name)}, {"age", Value::Int(age)}};
  }

  std::shared_ptr<GatedStore> gate_;
  std::unique_ptr<Graph> graph_;
};

TEST_F(GroupCommitTest, WritesQueuedBehindAPublicationShareOneRecordWithTheirOwnCounts) {
  MustRun("add_person", Person("ada", 30));
  const uint64_t seq = Seq();
  std::vector<Result<MutationResult>> r = Batch({
      [&] { return Run("add_person", Person("bob", 40), "alice"); },
      [&] {
        return Run("add_company", {{"name", Value::String("acme")}}, "bob");
      },
      [&] { return Run("add_person", Person("cy", 50), "alice"); },
  });
  for (const auto& one : r) ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_EQ(Seq(), seq + 2) << "the leader's record and one record for the batch";
  EXPECT_EQ(r[0]->commit, r[1]->commit);
  EXPECT_EQ(r[1]->commit, r[2]->commit);
  EXPECT_EQ(r[0]->affected_nodes, 1u);
  const commit::Record& record = *r[0]->commit_record;
  EXPECT_EQ(record.seq, seq + 2);
  ASSERT_EQ(record.members.size(), 3u);
  EXPECT_EQ(record.members[0].actor, "alice");
  EXPECT_EQ(record.members[1].actor, "bob");
  EXPECT_EQ(record.members[1].counts["affected_nodes"], 1);
  EXPECT_FALSE(record.actor.has_value()) << "two actors: the record names none";
  // Each touched table is staged once: one pin per table, and one change set entry each.
  EXPECT_EQ(record.pins.size(), 2u);
  ASSERT_TRUE(record.change_set.has_value());
  ASSERT_EQ(record.change_set->tables.size(), 2u);
  Snapshot head = *graph_->SnapshotOfBranch("main");
  EXPECT_EQ((*head.Table("node:Person"))->entity_count(), 3u);
  EXPECT_EQ((*head.Table("node:Company"))->entity_count(), 2u);
}

TEST_F(GroupCommitTest, AFailingMemberGetsItsOwnErrorAndTheOthersCommit) {
  MustRun("add_person", Person("ada", 30));
  std::vector<Result<MutationResult>> r = Batch({
      [&] { return Run("add_person", Person("bob", 40)); },
      // No Person 'nobody': a dangling edge.
      [&] {
        return Run("hire", {{"p", Value::String("nobody")}, {"c", Value::String("lead")}});
      },
      [&] { return Run("add_person", Person("cy", 50)); },
  });
  ASSERT_TRUE(r[0].ok()) << r[0].status().ToString();
  ASSERT_FALSE(r[1].ok());
  EXPECT_NE(r[1].status().message().find("nobody"), std::string::npos) << r[1].status().ToString();
  ASSERT_TRUE(r[2].ok()) << r[2].status().ToString();
  EXPECT_EQ(r[0]->commit, r[2]->commit);
  EXPECT_EQ(r[0]->commit_record->members.size(), 2u);
  EXPECT_EQ((*graph_->SnapshotOfBranch("main")->Table("edge:WorksAt"))->entity_count(), 0u);
}

// A batch whose record's publication is in doubt (it may still land) answers every member in
// doubt; none is published again alone, which could put it in two records once the first request
// lands.
TEST_F(GroupCommitTest, ABatchWhoseRecordIsInDoubtAnswersEveryMemberInDoubt) {
  MustRun("add_person", Person("ada", 30));
  const uint64_t seq = Seq();
  // seq + 1 is the record of Batch's first write; seq + 2 the batch's.
  gate_->ArmInDoubt(commit::RecordName(commit::kMainKey, seq + 2));
  std::vector<Result<MutationResult>> r = Batch({
      [&] { return Run("add_person", Person("bob", 40)); },
      [&] { return Run("add_person", Person("cy", 50)); },
  });
  for (const auto& one : r) {
    ASSERT_FALSE(one.ok());
    EXPECT_EQ(one.status().code(), Code::kPublicationInDoubt) << one.status().ToString();
  }
  // The request lands late: both members are in that one record, and nothing else was published.
  gate_->LandInDoubt();
  EXPECT_EQ(Seq(), seq + 2);
  Snapshot head = *graph_->SnapshotOfBranch("main");
  EXPECT_EQ((*head.Table("node:Person"))->entity_count(), 3u);
}

TEST_F(GroupCommitTest, AMemberValidatesAgainstTheEarlierMembers) {
  MustRun("add_person", Person("ada", 30));
  std::vector<Result<MutationResult>> r = Batch({
      [&] { return Run("add_person", Person("bob", 40)); },
      // The edge names bob, whom only the member before it inserts.
      [&] {
        return Run("hire", {{"p", Value::String("bob")}, {"c", Value::String("lead")}});
      },
  });
  ASSERT_TRUE(r[0].ok()) << r[0].status().ToString();
  ASSERT_TRUE(r[1].ok()) << r[1].status().ToString();
  EXPECT_EQ(r[0]->commit, r[1]->commit);
}

TEST_F(GroupCommitTest, AStrictMemberWhoseHeadMovedFailsAlone) {
  MustRun("add_person", Person("ada", 50));
  std::vector<Result<MutationResult>> r = Batch({
      [&] { return Run("add_person", Person("bob", 40)); },
      // Planned on the head before the leader's record: that head moved.
      [&] {
        return Run("older", {{"min", Value::Int(45)}});
      },
  });
  ASSERT_TRUE(r[0].ok()) << r[0].status().ToString();
  ASSERT_FALSE(r[1].ok());
  EXPECT_EQ(r[1].status().code(), Code::kReadSetChanged) << r[1].status().ToString();
}

TEST_F(GroupCommitTest, KeyedMembersAreNamedInTheRecordAndTheirRetriesReplay) {
  MustRun("add_person", Person("ada", 30));
  auto key = [](std::string k) { return Idempotency{k, Sha256Hex(k), Json::object()}; };
  std::vector<Result<MutationResult>> r = Batch({
      [&] { return Run("add_person", Person("bob", 40), std::nullopt, key("k-bob")); },
      [&] { return Run("add_person", Person("cy", 41), std::nullopt, key("k-cy")); },
  });
  ASSERT_TRUE(r[0].ok() && r[1].ok());
  ASSERT_EQ(r[0]->commit_record->members.size(), 2u);
  EXPECT_EQ(r[0]->commit_record->members[1].idempotency_key["key"], "k-cy");
  const uint64_t seq = Seq();
  Result<MutationResult> again = Run("add_person", Person("cy", 41), std::nullopt, key("k-cy"));
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->commit, r[1]->commit);
  EXPECT_EQ(Seq(), seq);
}

TEST_F(GroupCommitTest, OffEveryWritePublishesItsOwnRecord) {
  graph_->SetGroupCommit(GroupCommitOptions{false});
  MustRun("add_person", Person("ada", 30));
  const uint64_t seq = Seq();
  std::vector<std::thread> threads;
  std::vector<std::optional<std::string>> commits(4);
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] {
      Result<MutationResult> r = Run("add_person", Person(("p" + std::to_string(i)).c_str(), i));
      if (r.ok()) commits[i] = r->commit;
    });
  }
  for (std::thread& t : threads) t.join();
  std::set<std::string> distinct;
  for (const auto& c : commits) {
    ASSERT_TRUE(c.has_value());
    distinct.insert(*c);
  }
  EXPECT_EQ(distinct.size(), 4u);
  EXPECT_EQ(Seq(), seq + 4);
  EXPECT_EQ(graph_->GroupCommitWaiting("main"), 0u);
}

// Many writers at once, with the gate open: every write gets an answer, every acknowledged one
// is in exactly one record, and fewer records than writes are published when they overlap.
TEST_F(GroupCommitTest, ManyConcurrentWritersAllLandExactlyOnce) {
  constexpr int kWriters = 16;
  std::vector<std::thread> threads;
  std::vector<std::optional<std::string>> commits(kWriters);
  for (int i = 0; i < kWriters; ++i) {
    threads.emplace_back([&, i] {
      Result<MutationResult> r = Run("add_person", Person(("w" + std::to_string(i)).c_str(), i));
      if (r.ok()) commits[i] = r->commit;
    });
  }
  for (std::thread& t : threads) t.join();
  for (const auto& c : commits) ASSERT_TRUE(c.has_value());
  EXPECT_EQ((*graph_->SnapshotOfBranch("main")->Table("node:Person"))->entity_count(),
            static_cast<uint64_t>(kWriters));
  EXPECT_LE(Seq(), static_cast<uint64_t>(kWriters));
}

}  // namespace
}  // namespace omnigraph::engine
