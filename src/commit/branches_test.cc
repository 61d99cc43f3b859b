// Branch create, delete, resolve and list (D2, D12, D13 in docs/design/overview.md;
// docs/design/branches.md), with exact counts.
#include "commit/branches.h"

#include <gtest/gtest.h>

#include <thread>

#include "commit/test_streams.h"

namespace omnigraph::commit {
namespace {

using testing::BumpOneTable;
using testing::TestGenesis;
using testing::TestStore;

class BranchTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    store_ = std::make_unique<TestStore>(GetParam());
    ASSERT_TRUE(CreateMainStream(rt(), TestGenesis(), "tester").ok());
    main_ = std::move(*Stream::Open(rt(), "main"));
  }
  const storage::Runtime& rt() { return store_->runtime; }
  storage::OpCounts Now() { return store_->counting->Snapshot(); }

  void Publish(Stream& s, int n) {
    for (int i = 0; i < n; ++i) {
      PublishRequest request;
      request.stage = BumpOneTable();
      ASSERT_TRUE(s.Publish(request).ok());
    }
    s.WaitForBackground();
  }
  Result<StreamMetadata> CreateFromHead(Stream& parent, const std::string& name) {
    OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const GraphState> head, parent.ReadHead());
    return CreateBranch(rt(), name, ForkPoint{*head, parent.metadata().branch, true}, "tester");
  }
  std::unique_ptr<Stream> OpenBranch(const std::string& name) {
    Result<ResolvedBranch> b = ResolveBranch(rt(), name);
    OMNIGRAPH_CHECK(b.ok());
    return Stream::FromMetadata(rt(), b->metadata);
  }

  std::unique_ptr<TestStore> store_;
  std::unique_ptr<Stream> main_;
};

TEST_P(BranchTest, CreateWritesThreeObjectsAndReadsOnlyTheForkPoint) {
  for (int depth : {10, 10000}) {
    Publish(*main_, depth - static_cast<int>((*main_->ReadHead())->seq));
    const std::string name = "feature-" + std::to_string(depth);
    storage::OpCounts before = Now();
    Result<StreamMetadata> meta = CreateFromHead(*main_, name);
    ASSERT_TRUE(meta.ok()) << meta.status().ToString();
    storage::OpCounts d = Now() - before;
    // A warm head read of the parent (one GET), one LIST of the name's generations, and three
    // conditional creates: fork checkpoint, stream metadata, name generation.
    EXPECT_EQ(d.put_if_absent, 3u) << "depth " << depth << ": " << d.ToString();
    EXPECT_EQ(d.writes(), 3u) << d.ToString();
    EXPECT_EQ(d.gets, 1u) << d.ToString();
    EXPECT_EQ(d.lists, 1u) << d.ToString();
    EXPECT_EQ(meta->fork_seq, static_cast<uint64_t>(depth));
    EXPECT_EQ(meta->parent_stream, "main");
    // The branch reads its own fork checkpoint: three reads, none of the parent's objects.
    std::unique_ptr<Stream> branch = OpenBranch(name);
    before = Now();
    Result<std::shared_ptr<const GraphState>> head = branch->ReadHead();
    ASSERT_TRUE(head.ok()) << head.status().ToString();
    EXPECT_EQ((Now() - before).gets, 3u);
    GraphState expected = **main_->ReadHead();
    expected.stream = meta->key;
    EXPECT_EQ(**head, expected);
  }
}

TEST_P(BranchTest, DeleteIsOneConditionalCreateAndOneMetadataWrite) {
  Publish(*main_, 5);
  ASSERT_TRUE(CreateFromHead(*main_, "doomed").ok());
  std::unique_ptr<Stream> writer = OpenBranch("doomed");
  Publish(*writer, 3);
  storage::OpCounts before = Now();
  ASSERT_TRUE(DeleteBranch(rt(), "doomed", "tester").ok());
  storage::OpCounts d = Now() - before;
  EXPECT_EQ(d.put_if_absent, 1u) << d.ToString();
  EXPECT_EQ(d.put_if_match, 1u) << d.ToString();
  EXPECT_EQ(d.writes(), 2u) << d.ToString();
  // Gone for every path: resolve, a second delete, reads and publishes through an old handle.
  EXPECT_EQ(ResolveBranch(rt(), "doomed").status().code(), Code::kBranchNotFound);
  EXPECT_EQ(DeleteBranch(rt(), "doomed", std::nullopt).code(), Code::kBranchNotFound);
  EXPECT_EQ(writer->ReadHead().status().code(), Code::kBranchNotFound);
  PublishRequest request;
  request.stage = BumpOneTable();
  EXPECT_EQ(writer->Publish(request).status().code(), Code::kBranchNotFound);
}

TEST_P(BranchTest, AWriterThatCapturedItsSeqBeforeADeleteCannotPublishAfterIt) {
  ASSERT_TRUE(CreateFromHead(*main_, "race").ok());
  std::unique_ptr<Stream> writer = OpenBranch("race");
  Publish(*writer, 2);  // Warm: the writer holds the fold at its head.
  ASSERT_TRUE(DeleteBranch(rt(), "race", std::nullopt).ok());
  PublishRequest request;
  request.stage = BumpOneTable();
  Result<PublishResult> r = writer->Publish(request);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kBranchNotFound);
  // Nothing follows the retire record.
  EXPECT_EQ(writer->ReadRecord(4).status().code(), Code::kCommitNotFound);
  EXPECT_EQ(writer->ReadRecord(3)->kind, RecordKind::kRetire);
}

TEST_P(BranchTest, MainCannotBeCreatedOrDeletedAndBadNamesChangeNothing) {
  storage::OpCounts before = Now();
  EXPECT_EQ(DeleteBranch(rt(), "main", std::nullopt).code(), Code::kInvalidArgument);
  EXPECT_EQ(CreateFromHead(*main_, "main").status().code(), Code::kInvalidArgument);
  for (std::string bad : {std::string(""), std::string(" x"), std::string("x "),
                          std::string("a\nb"), std::string(256, 'n'), std::string("\xff")}) {
    Result<StreamMetadata> r = CreateFromHead(*main_, bad);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), Code::kInvalidArgument) << r.status().ToString();
    EXPECT_EQ(DeleteBranch(rt(), bad, std::nullopt).code(), Code::kInvalidArgument);
  }
  EXPECT_EQ((Now() - before).writes(), 0u);
  Result<StreamMetadata> exists = CreateFromHead(*main_, "dup");
  ASSERT_TRUE(exists.ok());
  before = Now();
  EXPECT_EQ(CreateFromHead(*main_, "dup").status().code(), Code::kBranchExists);
  EXPECT_EQ((Now() - before).writes(), 0u);
}

TEST_P(BranchTest, ANameReusedAfterDeleteResolvesToItsNewLife) {
  ASSERT_TRUE(CreateFromHead(*main_, "topic").ok());
  std::unique_ptr<Stream> first = OpenBranch("topic");
  PublishRequest request;
  request.stage = BumpOneTable();
  Result<PublishResult> old_commit = first->Publish(request);
  ASSERT_TRUE(old_commit.ok());
  ASSERT_TRUE(DeleteBranch(rt(), "topic", std::nullopt).ok());
  Result<StreamMetadata> second = CreateFromHead(*main_, "topic");
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  Result<ResolvedBranch> resolved = ResolveBranch(rt(), "topic");
  ASSERT_TRUE(resolved.ok());
  EXPECT_EQ(resolved->metadata.key, second->key);
  EXPECT_NE(second->key, first->key());
  EXPECT_EQ(resolved->generation, 2u);
  // The old life's commits stay readable by id.
  Result<Record> old = LookupCommit(*rt().store, old_commit->commit_id);
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(old->stream, first->key());
}

TEST_P(BranchTest, ForkFromAPastCommitHonoursTheRetentionHorizon) {
  Publish(*main_, 100);
  Result<GraphState> at40 = main_->ReadAt(40);
  ASSERT_TRUE(at40.ok());
  Result<StreamMetadata> ok = CreateBranch(rt(), "old", ForkPoint{*at40, "main", false}, "t");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->fork_seq, 40u);
  ASSERT_TRUE(
      rt().store->Put(HorizonName("main"), EncodeHorizon(Horizon{50, Json::object()})).ok());
  storage::OpCounts before = Now();
  Result<StreamMetadata> refused =
      CreateBranch(rt(), "older", ForkPoint{*at40, "main", false}, "t");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Code::kVersionsReclaimed);
  EXPECT_EQ((Now() - before).writes(), 0u);
  // A branch forked from a past commit continues numbering after its fork point (D2).
  std::unique_ptr<Stream> branch = OpenBranch("old");
  PublishRequest request;
  request.stage = BumpOneTable();
  Result<PublishResult> first = branch->Publish(request);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->seq, 41u);
  EXPECT_EQ(branch->ReadRecord(41)->parent_commit_id, at40->head_commit_id);
}

TEST_P(BranchTest, BranchOfABranchOfABranchNeverReadsItsAncestors) {
  Publish(*main_, 7);
  ASSERT_TRUE(CreateFromHead(*main_, "b1").ok());
  std::unique_ptr<Stream> b1 = OpenBranch("b1");
  Publish(*b1, 5);
  ASSERT_TRUE(CreateFromHead(*b1, "b2").ok());
  std::unique_ptr<Stream> b2 = OpenBranch("b2");
  Publish(*b2, 5);
  ASSERT_TRUE(CreateFromHead(*b2, "b3").ok());
  std::unique_ptr<Stream> b3 = OpenBranch("b3");
  Publish(*b3, 5);
  const GraphState expected = **b3->ReadHead();
  // Remove every object of the ancestors' streams: b3 must not need them.
  for (const std::string& key : {std::string("main"), b1->key(), b2->key()}) {
    Result<std::vector<storage::ObjectMeta>> objects =
        storage::ListAll(*rt().store, "_graph/" + key + "/");
    ASSERT_TRUE(objects.ok());
    ASSERT_FALSE(objects->empty());
    for (const storage::ObjectMeta& m : *objects) ASSERT_TRUE(rt().store->Delete(m.name).ok());
  }
  std::unique_ptr<Stream> fresh = OpenBranch("b3");
  Result<std::shared_ptr<const GraphState>> head = fresh->ReadHead();
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  EXPECT_EQ(**head, expected);
  EXPECT_EQ((*head)->seq, 22u);
  Result<GraphState> past = fresh->ReadAt(19);
  ASSERT_TRUE(past.ok()) << past.status().ToString();
  EXPECT_EQ(past->seq, 19u);
}

TEST_P(BranchTest, ListShowsLiveBranchesWithHeadsAndForkPoints) {
  Publish(*main_, 3);
  ASSERT_TRUE(CreateFromHead(*main_, "zeta").ok());
  ASSERT_TRUE(CreateFromHead(*main_, "alpha").ok());
  ASSERT_TRUE(CreateFromHead(*main_, "gone").ok());
  std::unique_ptr<Stream> alpha = OpenBranch("alpha");
  Publish(*alpha, 2);
  ASSERT_TRUE(DeleteBranch(rt(), "gone", std::nullopt).ok());
  Result<std::vector<BranchInfo>> list = ListBranches(rt());
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ASSERT_EQ(list->size(), 3u);
  EXPECT_EQ((*list)[0].branch, "main");
  EXPECT_EQ((*list)[0].head_seq, 3u);
  EXPECT_EQ((*list)[1].branch, "alpha");
  EXPECT_EQ((*list)[1].head_seq, 5u);
  EXPECT_EQ((*list)[1].fork_seq, 3u);
  EXPECT_EQ((*list)[1].parent_stream, "main");
  EXPECT_EQ((*list)[1].head_commit_id, (*alpha->ReadHead())->head_commit_id);
  EXPECT_EQ((*list)[2].branch, "zeta");
  EXPECT_EQ((*list)[2].head_seq, 3u);
}

TEST_P(BranchTest, TwoBranchesWrittenConcurrentlyNeverConflict) {
  ASSERT_TRUE(CreateFromHead(*main_, "left").ok());
  ASSERT_TRUE(CreateFromHead(*main_, "right").ok());
  std::vector<int> max_attempts(2, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      storage::Runtime thread_rt = storage::Runtime::ForTest(store_->counting, 50 + t);
      Result<ResolvedBranch> b = ResolveBranch(thread_rt, t == 0 ? "left" : "right");
      ASSERT_TRUE(b.ok());
      std::unique_ptr<Stream> s = Stream::FromMetadata(thread_rt, b->metadata);
      for (int i = 0; i < 50; ++i) {
        PublishRequest request;
        request.stage = BumpOneTable();
        Result<PublishResult> r = s->Publish(request);
        ASSERT_TRUE(r.ok());
        max_attempts[t] = std::max(max_attempts[t], r->attempts);
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(max_attempts, (std::vector<int>{1, 1}));
  EXPECT_EQ((*OpenBranch("left")->ReadHead())->seq, 50u);
  EXPECT_EQ((*OpenBranch("right")->ReadHead())->seq, 50u);
}

INSTANTIATE_TEST_SUITE_P(Backends, BranchTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& param) {
                           return param.param ? "Local" : "Memory";
                         });

}  // namespace
}  // namespace omnigraph::commit
