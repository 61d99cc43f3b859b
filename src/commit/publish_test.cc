// Publishing: exact costs, lost races, faults at every step (docs/design/commit-record.md
// "Publishing"; D3 in docs/design/overview.md).
#include <gtest/gtest.h>

#include <set>

#include "commit/test_streams.h"
#include "storage/fault_store.h"

namespace omnigraph::commit {
namespace {

using testing::BumpOneTable;
using testing::TestGenesis;
using testing::TestStore;

class PublishTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    store_ = std::make_unique<TestStore>(GetParam());
    ASSERT_TRUE(CreateMainStream(rt(), TestGenesis(), "tester").ok());
    writer_ = Open();
  }
  const storage::Runtime& rt() { return store_->runtime; }
  std::unique_ptr<Stream> Open() { return std::move(*Stream::Open(rt(), "main")); }

  Result<PublishResult> PublishOne(Stream& s) {
    PublishRequest request;
    request.stage = BumpOneTable();
    return s.Publish(request);
  }
  void PublishTo(Stream& s, uint64_t depth) {
    while ((*s.ReadHead())->seq < depth) ASSERT_TRUE(PublishOne(s).ok());
    s.WaitForBackground();
  }

  std::unique_ptr<TestStore> store_;
  std::unique_ptr<Stream> writer_;
};

TEST_P(PublishTest, WarmPublishIsTwoGuardHeadsOneConditionalCreateAndOneHintWrite) {
  for (uint64_t depth : {10, 100, 1000, 10000}) {
    PublishTo(*writer_, depth);
    storage::OpCounts before = store_->counting->Snapshot();
    Result<PublishResult> r = PublishOne(*writer_);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    writer_->WaitForBackground();
    storage::OpCounts d = store_->counting->Snapshot() - before;
    EXPECT_EQ(r->seq, depth + 1);
    EXPECT_EQ(r->attempts, 1);
    EXPECT_EQ(d.put_if_absent, 1u) << "depth " << depth << ": " << d.ToString();
    EXPECT_EQ(d.puts, 1u) << d.ToString();
    // One HEAD of N+2, concurrent with staging: a record there would make N+1 a gap (D21); and
    // one more after the create (the placement check): a record that appeared there meanwhile
    // on another parent would put ours in a gap.
    EXPECT_EQ(d.heads, 2u) << d.ToString();
    EXPECT_EQ(d.reads(), 2u) << d.ToString();
    EXPECT_EQ(d.total(), 4u) << d.ToString();
  }
}

TEST_P(PublishTest, PublishOnABoundaryAlsoWritesTheCheckpoint) {
  PublishTo(*writer_, 99);
  storage::OpCounts before = store_->counting->Snapshot();
  ASSERT_TRUE(PublishOne(*writer_).ok());
  writer_->WaitForBackground();
  storage::OpCounts d = store_->counting->Snapshot() - before;
  EXPECT_EQ(d.put_if_absent, 2u) << d.ToString();  // Record 100 and checkpoint 100.
  EXPECT_EQ(d.puts, 1u) << d.ToString();           // The hint.
  EXPECT_EQ(d.heads, 2u) << d.ToString();          // The lookahead at 101, and the placement check.
  EXPECT_EQ(d.reads(), 2u);
  Result<std::optional<BoundedRead>> cp =
      ReadBounded(*rt().store, CheckpointName("main", 100), kCheckpointBytesMax);
  ASSERT_TRUE(cp.ok() && cp->has_value());
  EXPECT_EQ(DecodeCheckpoint((*cp)->data, "cp")->seq, 100u);
}

TEST_P(PublishTest, StaleHandleLosesTheRaceAndReprepares) {
  std::unique_ptr<Stream> other = Open();
  ASSERT_TRUE(other->ReadHead().ok());
  ASSERT_TRUE(PublishOne(*writer_).ok());  // seq 1 by the writer
  int stage_calls = 0;
  PublishRequest request;
  request.stage = [&](const GraphState& base) {
    ++stage_calls;
    return BumpOneTable()(base);
  };
  Result<PublishResult> r = other->Publish(request);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->seq, 2u);
  EXPECT_EQ(r->attempts, 2);
  EXPECT_EQ(stage_calls, 2);  // Staged again against the new state (D9).
}

TEST_P(PublishTest, StrictWorkGetsReadSetChanged) {
  std::unique_ptr<Stream> other = Open();
  ASSERT_TRUE(other->ReadHead().ok());
  ASSERT_TRUE(PublishOne(*writer_).ok());
  PublishRequest request;
  request.stage = BumpOneTable();
  request.insert_only = false;
  Result<PublishResult> r = other->Publish(request);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kReadSetChanged);
  EXPECT_EQ((*Open()->ReadHead())->seq, 1u);
}

TEST_P(PublishTest, ExpectedHeadGivesPreconditionFailedWhenTheHeadMoved) {
  std::string head = (*writer_->ReadHead())->head_commit_id;
  std::unique_ptr<Stream> other = Open();
  ASSERT_TRUE(other->ReadHead().ok());
  ASSERT_TRUE(PublishOne(*writer_).ok());
  PublishRequest request;
  request.stage = BumpOneTable();
  request.expected_head = head;
  Result<PublishResult> r = other->Publish(request);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kPreconditionFailed);
  // With the right head it goes through.
  request.expected_head = (*writer_->ReadHead())->head_commit_id;
  EXPECT_TRUE(other->Publish(request).ok());
}

TEST_P(PublishTest, InsertOnlyWorkGivesUpAfterThirtyTwoLostRaces) {
  std::unique_ptr<Stream> rival = Open();
  int stage_calls = 0;
  PublishRequest request;
  request.stage = [&](const GraphState& base) -> Result<RecordContent> {
    ++stage_calls;
    // Every time we stage, a rival takes the seq we are about to create.
    OMNIGRAPH_RETURN_IF_ERROR(PublishOne(*rival).status());
    return BumpOneTable()(base);
  };
  Result<PublishResult> r = writer_->Publish(request);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kRetriesExhausted);
  EXPECT_EQ(stage_calls, kPublishAttemptsMax);
}

TEST_P(PublishTest, LostAcknowledgementIsResolvedByReadBack) {
  auto faults = std::make_shared<storage::FaultStore>(store_->counting);
  storage::Runtime rt2 = storage::Runtime::ForTest(faults, 9);
  std::unique_ptr<Stream> s = std::move(*Stream::Open(rt2, "main"));
  ASSERT_TRUE(s->ReadHead().ok());
  const std::string record1 = RecordName("main", 1);
  faults->AddRule({.ops = storage::Mask(storage::Op::kPutIfAbsent),
                   .name_prefix = record1,
                   .kind = storage::FaultKind::kUnknownAfterEffect});
  Result<PublishResult> r = PublishOne(*s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->seq, 1u);
  EXPECT_EQ(LookupCommit(*rt().store, r->commit_id)->seq, 1u);
}

TEST_P(PublishTest, EveryFaultAtEveryStepGivesADefiniteAnswerAndOneRecordPerSeq) {
  using storage::FaultKind;
  using storage::Op;
  struct Step {
    const char* what;
    storage::OpMask ops;
    std::string prefix;
    FaultKind kind;
    int deferred_ops;
  };
  const std::vector<Step> steps = {
      {"record create fails before effect", storage::Mask(Op::kPutIfAbsent), "_graph/main/1",
       FaultKind::kTransientBeforeEffect, 1},
      {"record create lost ack", storage::Mask(Op::kPutIfAbsent), "_graph/main/1",
       FaultKind::kUnknownAfterEffect, 1},
      {"record create lands on the re-drive", storage::Mask(Op::kPutIfAbsent), "_graph/main/1",
       FaultKind::kUnknownDeferredEffect, 1},
      {"record create lands after a later call", storage::Mask(Op::kPutIfAbsent), "_graph/main/1",
       FaultKind::kUnknownDeferredEffect, 3},
      {"read-back fails", storage::Mask(Op::kGet), "_graph/main/1",
       FaultKind::kTransientBeforeEffect, 1},
      {"hint write fails", storage::Mask(Op::kPut), "_graph/main/latest",
       FaultKind::kTransientBeforeEffect, 1},
      {"hint write lost ack", storage::Mask(Op::kPut), "_graph/main/latest",
       FaultKind::kUnknownAfterEffect, 1},
      {"checkpoint write fails", storage::Mask(Op::kPutIfAbsent), "_graph/main/checkpoints/",
       FaultKind::kTransientBeforeEffect, 1},
  };
  for (const Step& step : steps) {
    SCOPED_TRACE(step.what);
    TestStore fresh(GetParam());
    ASSERT_TRUE(CreateMainStream(fresh.runtime, TestGenesis(), std::nullopt).ok());
    auto faults = std::make_shared<storage::FaultStore>(fresh.counting);
    storage::Runtime rt2 = storage::Runtime::ForTest(faults, 5);
    std::unique_ptr<Stream> s = std::move(*Stream::Open(rt2, "main"));
    std::unique_ptr<Stream> rival = std::move(*Stream::Open(fresh.runtime, "main"));
    PublishTo(*s, 48);
    faults->AddRule({.ops = step.ops,
                     .name_prefix = step.prefix,
                     .kind = step.kind,
                     .times = 2,
                     .deferred_ops = step.deferred_ops});
    std::set<std::string> acknowledged;
    for (int i = 0; i < 6; ++i) {
      Result<PublishResult> r = PublishOne(*s);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      acknowledged.insert(r->commit_id);
      // A rival publishes between ours, so re-drives meet foreign records too.
      if (i % 2 == 1) {
        ASSERT_TRUE(PublishOne(*rival).ok());
      }
    }
    s->WaitForBackground();
    faults->ApplyDeferred();
    std::unique_ptr<Stream> reader = std::move(*Stream::Open(fresh.runtime, "main"));
    Result<std::shared_ptr<const GraphState>> head = reader->ReadHead();
    ASSERT_TRUE(head.ok()) << head.status().ToString();
    std::set<std::string> present;
    for (uint64_t seq = 1; seq <= (*head)->seq; ++seq) {
      Result<Record> rec = reader->ReadRecord(seq);
      ASSERT_TRUE(rec.ok());
      EXPECT_TRUE(present.insert(rec->commit_id).second);
    }
    for (const std::string& id : acknowledged) EXPECT_TRUE(present.count(id)) << id;
    EXPECT_EQ((*head)->seq, 48u + 6u + 3u);
  }
}

TEST_P(PublishTest, PublicationInDoubtOnlyWhenEveryRedriveIsUnknown) {
  auto faults = std::make_shared<storage::FaultStore>(store_->counting);
  storage::Runtime rt2 = storage::Runtime::ForTest(faults, 3);
  std::unique_ptr<Stream> s = std::move(*Stream::Open(rt2, "main"));
  ASSERT_TRUE(s->ReadHead().ok());
  faults->AddRule({.ops = storage::Mask(storage::Op::kPutIfAbsent),
                   .name_prefix = RecordName("main", 1),
                   .kind = storage::FaultKind::kUnknownDeferredEffect,
                   .times = -1,
                   .deferred_ops = 1000});
  Result<PublishResult> r = PublishOne(*s);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kPublicationInDoubt);
  // The message names the commit id; once the request lands, that commit is there.
  std::string message = r.status().message();
  size_t start = message.find("'main.1.");
  ASSERT_NE(start, std::string::npos) << message;
  std::string id = message.substr(start + 1, message.find('\'', start + 1) - start - 1);
  EXPECT_EQ(LookupCommit(*rt().store, id).status().code(), Code::kCommitNotFound);
  faults->ApplyDeferred();
  Result<Record> landed = LookupCommit(*rt().store, id);
  ASSERT_TRUE(landed.ok()) << landed.status().ToString();
  EXPECT_EQ(landed->seq, 1u);
}

TEST_P(PublishTest, AStoreThatFailsBeforeAnyEffectGivesTransientNotInDoubt) {
  auto faults = std::make_shared<storage::FaultStore>(store_->counting);
  storage::Runtime rt2 = storage::Runtime::ForTest(faults, 3);
  std::unique_ptr<Stream> s = std::move(*Stream::Open(rt2, "main"));
  ASSERT_TRUE(s->ReadHead().ok());
  faults->AddRule({.ops = storage::Mask(storage::Op::kPutIfAbsent),
                   .name_prefix = RecordName("main", 1),
                   .kind = storage::FaultKind::kTransientBeforeEffect,
                   .times = -1});
  Result<PublishResult> r = PublishOne(*s);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kTransient) << r.status().ToString();
  EXPECT_EQ(rt().store->Head(RecordName("main", 1)).status().kind(), Kind::kNotFound);
}

INSTANTIATE_TEST_SUITE_P(Backends, PublishTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& param) {
                           return param.param ? "Local" : "Memory";
                         });

}  // namespace
}  // namespace omnigraph::commit
