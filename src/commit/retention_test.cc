// Retention planning (D9, D10): what is kept, what goes, and a randomized run that interleaves
// retention with staging, publishing and branch creation and deletion.
#include "commit/retention.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "commit/test_streams.h"

namespace omnigraph::commit {
namespace {

using testing::BumpOneTable;
using testing::TestGenesis;

constexpr int64_t kTick = 1'000'000;

std::set<PinRef> PinsOf(const GraphState& s) {
  std::set<PinRef> out;
  for (const auto& [id, t] : s.tables) out.insert(PinRef{id, t.pin.staged_version});
  return out;
}

class RetentionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = std::make_shared<storage::MemoryStore>("m", clock_.get());
    rt_ = storage::Runtime::ForTest(store_, 3);
    rt_.clock = clock_;
    ASSERT_TRUE(CreateMainStream(rt_, TestGenesis(), std::nullopt).ok());
    main_ = std::move(*Stream::Open(rt_, "main"));
  }
  void Publish(Stream& s, int n) {
    for (int i = 0; i < n; ++i) {
      PublishRequest request;
      request.stage = BumpOneTable();
      ASSERT_TRUE(s.Publish(request).ok());
    }
  }
  RetentionOptions Keep(uint64_t n) {
    RetentionOptions o;
    o.keep = n;
    o.grace_micros = 5 * kTick;
    return o;
  }

  std::shared_ptr<ManualClock> clock_ = std::make_shared<ManualClock>(1'000'000'000'000'000);
  std::shared_ptr<storage::MemoryStore> store_;
  storage::Runtime rt_;
  std::unique_ptr<Stream> main_;
};

TEST_F(RetentionTest, KeepTenRetainsExactlyTheFoldsOfTheNewestTenCommits) {
  Publish(*main_, 120);
  clock_->Advance(100 * kTick);  // Everything is older than the grace period.
  Result<RetentionPlan> plan = PlanRetention(rt_, Keep(10));
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  std::set<PinRef> expected = PinsOf(*main_->ReadAt(0));  // Checkpoint 0 is never deleted.
  for (uint64_t seq = 111; seq <= 120; ++seq) {
    std::set<PinRef> pins = PinsOf(*main_->ReadAt(seq));
    expected.insert(pins.begin(), pins.end());
  }
  EXPECT_EQ(plan->keep, expected);
  EXPECT_EQ(plan->horizons, (std::map<std::string, uint64_t>{{"main", 111}}));
  EXPECT_EQ(plan->deletable_checkpoints, (std::vector<std::string>{CheckpointName("main", 50)}));
  EXPECT_TRUE(plan->young_streams.empty());
}

TEST_F(RetentionTest, ABranchKeepsItsOwnCommitsAndItsForkStateButNotItsParentsHistory) {
  Publish(*main_, 120);
  GraphState at60 = *main_->ReadAt(60);
  ASSERT_TRUE(CreateBranch(rt_, "b", ForkPoint{at60, "main", false}, "t").ok());
  std::unique_ptr<Stream> b = Stream::FromMetadata(rt_, ResolveBranch(rt_, "b")->metadata);
  Publish(*b, 3);
  clock_->Advance(100 * kTick);
  Result<RetentionPlan> plan = PlanRetention(rt_, Keep(10));
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  // b has three commits of its own (61..63): it keeps them and its fork state (main at 60), and
  // nothing of main's history below the fork. main keeps its own newest ten, 111..120.
  EXPECT_EQ(plan->horizons, (std::map<std::string, uint64_t>{{b->key(), 61}, {"main", 111}}));
  EXPECT_EQ(plan->retained_through,
            (std::map<std::string, uint64_t>{{b->key(), 63}, {"main", 120}}));
  std::set<PinRef> expected = PinsOf(*main_->ReadAt(0));
  for (uint64_t seq = 111; seq <= 120; ++seq) {
    std::set<PinRef> pins = PinsOf(*main_->ReadAt(seq));
    expected.insert(pins.begin(), pins.end());
  }
  for (uint64_t seq = 60; seq <= 63; ++seq) {  // 60 is b's fork checkpoint.
    std::set<PinRef> pins = PinsOf(*b->ReadAt(seq));
    expected.insert(pins.begin(), pins.end());
  }
  EXPECT_EQ(plan->keep, expected);
  // Main's commit 59 wrote a version the fork state does not pin: it is no root.
  std::set<PinRef> at59 = PinsOf(*main_->ReadAt(59));
  EXPECT_TRUE(
      std::any_of(at59.begin(), at59.end(), [&](const PinRef& p) { return !plan->keep.count(p); }));
  // Checkpoint 100 is the fold base of seq 111; checkpoint 50 goes. b's fork checkpoint stays.
  EXPECT_EQ(plan->deletable_checkpoints, (std::vector<std::string>{CheckpointName("main", 50)}));
}

TEST_F(RetentionTest, ABranchWithFewerCommitsThanKeepDoesNotHoldItsParentsHorizonDown) {
  Publish(*main_, 120);
  // Three branches forked at different depths, each with fewer commits of its own than keep.
  std::map<std::string, std::unique_ptr<Stream>> branches;
  struct Fork {
    const char* name;
    uint64_t seq;
    int own_commits;
  };
  for (const Fork& f : {Fork{"a", 15, 1}, Fork{"b", 55, 2}, Fork{"c", 105, 0}}) {
    const std::string name = f.name;
    ASSERT_TRUE(CreateBranch(rt_, name, ForkPoint{*main_->ReadAt(f.seq), "main", false}, "t").ok());
    branches[name] = Stream::FromMetadata(rt_, ResolveBranch(rt_, name)->metadata);
    Publish(*branches[name], f.own_commits);
  }
  clock_->Advance(100 * kTick);
  Result<RetentionPlan> plan = PlanRetention(rt_, Keep(3));
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  // c has no commit of its own: it retains its fork state, seq 105 of its own stream.
  EXPECT_EQ(plan->horizons, (std::map<std::string, uint64_t>{{"main", 118},
                                                             {branches["a"]->key(), 16},
                                                             {branches["b"]->key(), 56},
                                                             {branches["c"]->key(), 105}}));
  // Main's checkpoint 50 goes (100 is the fold base of 118), whatever the forks below it.
  EXPECT_EQ(plan->deletable_checkpoints, (std::vector<std::string>{CheckpointName("main", 50)}));
}

TEST_F(RetentionTest, OlderThanKeepsEveryCommitNewerThanTheCutoff) {
  Publish(*main_, 30);
  clock_->Advance(100 * kTick);
  Publish(*main_, 12);  // Seqs 31..42 are recent.
  RetentionOptions o;
  o.older_than_micros = 50 * kTick;
  o.grace_micros = 0;
  Result<RetentionPlan> plan = PlanRetention(rt_, o);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan->horizons.at("main"), 31u);
  o.keep = 20;  // Either rule keeps a commit.
  plan = PlanRetention(rt_, o);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->horizons.at("main"), 23u);
  EXPECT_EQ(PlanRetention(rt_, RetentionOptions{}).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(PlanRetention(rt_, Keep(0)).status().code(), Code::kInvalidArgument);
}

TEST_F(RetentionTest, ApplyWritesHorizonsFirstAndDeletesOnlyUnneededOldCheckpoints) {
  Publish(*main_, 220);
  clock_->Advance(100 * kTick);
  Publish(*main_, 1);  // Checkpoints up to 200 are old; the head is young.
  Result<RetentionPlan> plan = PlanRetention(rt_, Keep(5));
  ASSERT_TRUE(plan.ok());
  Result<CheckpointCleanup> cleanup = ApplyCheckpointRetention(rt_, Keep(5), *plan);
  ASSERT_TRUE(cleanup.ok()) << cleanup.status().ToString();
  std::vector<std::string> expected;
  for (uint64_t seq : {50, 100, 150}) expected.push_back(CheckpointName("main", seq));
  EXPECT_EQ(cleanup->deleted, expected);
  EXPECT_TRUE(store_->Head(CheckpointName("main", 0)).ok());
  EXPECT_TRUE(store_->Head(CheckpointName("main", 200)).ok());
  Result<storage::GetResult> horizon = store_->Get(HorizonName("main"));
  ASSERT_TRUE(horizon.ok());
  EXPECT_EQ(DecodeHorizon(horizon->data, "h")->reclaimed_below_seq, 217u);
  // Every retained commit still reads, and a fork below the horizon is refused.
  for (uint64_t seq = 217; seq <= 221; ++seq) EXPECT_TRUE(main_->ReadAt(seq).ok()) << seq;
  Result<StreamMetadata> refused =
      CreateBranch(rt_, "old", ForkPoint{*main_->ReadAt(100), "main", false}, "t");
  EXPECT_EQ(refused.status().code(), Code::kVersionsReclaimed);
  // A second plan with a larger keep never lowers the horizon.
  ASSERT_TRUE(ApplyCheckpointRetention(rt_, Keep(50), *PlanRetention(rt_, Keep(50))).ok());
  EXPECT_EQ(DecodeHorizon(store_->Get(HorizonName("main"))->data, "h")->reclaimed_below_seq, 217u);
}

TEST_F(RetentionTest, YoungCheckpointsAndYoungStreamsAreSpared) {
  Publish(*main_, 120);
  Result<RetentionPlan> plan = PlanRetention(rt_, Keep(1));
  ASSERT_TRUE(plan.ok());
  // Nothing has aged: main is a young stream, so everything of it is kept.
  EXPECT_EQ(plan->young_streams, (std::vector<std::string>{"main"}));
  EXPECT_EQ(plan->horizons.at("main"), 0u);
  clock_->Advance(100 * kTick);
  plan = PlanRetention(rt_, Keep(1));
  ASSERT_TRUE(plan.ok());
  ASSERT_EQ(plan->deletable_checkpoints.size(), 1u);  // Checkpoint 50.
  // Rewritten just now (as a backfill would): spared by the grace period.
  ASSERT_TRUE(
      store_->Put(CheckpointName("main", 50), store_->Get(CheckpointName("main", 50))->data).ok());
  Result<CheckpointCleanup> cleanup = ApplyCheckpointRetention(rt_, Keep(1), *plan);
  ASSERT_TRUE(cleanup.ok());
  EXPECT_TRUE(cleanup->deleted.empty());
  EXPECT_EQ(cleanup->spared, plan->deletable_checkpoints);
}

TEST_F(RetentionTest, FateOfStagedVersions) {
  Publish(*main_, 5);
  PinRef staged{TableId{1, 1}, (1ULL << 63) | 777};
  // Nothing at 6 yet: it may still be published.
  EXPECT_EQ(*FateOfStagedVersion(rt_, "main", 5, staged), StagedFate::kMayStillPublish);
  PublishRequest request;
  request.stage = [&](const GraphState& base) -> Result<RecordContent> {
    RecordContent c;
    TablePin pin = base.tables.at(TableId{1, 1}).pin;
    pin.staged_version = staged.staged_version;
    c.pins.push_back(pin);
    return c;
  };
  ASSERT_TRUE(main_->Publish(request).ok());
  EXPECT_EQ(*FateOfStagedVersion(rt_, "main", 5, staged), StagedFate::kPublished);
  // Staged against 4, but 5 pinned something else: dead.
  EXPECT_EQ(*FateOfStagedVersion(rt_, "main", 4, staged), StagedFate::kNeverPublished);
  EXPECT_TRUE(*StagedVersionIsDead(rt_, "main", 4, staged));
  // On a deleted branch, pending staging is dead.
  ASSERT_TRUE(CreateBranch(rt_, "gone", ForkPoint{**main_->ReadHead(), "main", true}, "t").ok());
  const std::string key = ResolveBranch(rt_, "gone")->metadata.key;
  ASSERT_TRUE(DeleteBranch(rt_, "gone", std::nullopt).ok());
  EXPECT_EQ(*FateOfStagedVersion(rt_, key, 6, staged), StagedFate::kNeverPublished);
}

}  // namespace
}  // namespace omnigraph::commit
