// Exact object-operation counts of the read path (docs/design/commit-record.md "Reading current
// state"), and its failure handling.
#include <gtest/gtest.h>

#include "commit/test_streams.h"

namespace omnigraph::commit {
namespace {

using testing::BumpOneTable;
using testing::TestGenesis;
using testing::TestStore;

class ReadPathTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    store_ = std::make_unique<TestStore>(GetParam());
    ASSERT_TRUE(CreateMainStream(rt(), TestGenesis(), "tester").ok());
    Result<std::unique_ptr<Stream>> s = Stream::Open(rt(), "main");
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    writer_ = std::move(*s);
  }

  const storage::Runtime& rt() { return store_->runtime; }

  void PublishTo(uint64_t depth) {
    while (true) {
      Result<std::shared_ptr<const GraphState>> head = writer_->ReadHead();
      ASSERT_TRUE(head.ok()) << head.status().ToString();
      if ((*head)->seq >= depth) break;
      PublishRequest request;
      request.stage = BumpOneTable();
      Result<PublishResult> r = writer_->Publish(request);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
    }
    writer_->WaitForBackground();
  }

  // A fresh handle, as a new process would open it (metadata read excluded from counts).
  std::unique_ptr<Stream> Fresh() {
    Result<std::unique_ptr<Stream>> s = Stream::Open(rt(), "main");
    OMNIGRAPH_CHECK(s.ok());
    return std::move(*s);
  }

  storage::OpCounts Since(const storage::OpCounts& before) {
    return store_->counting->Snapshot() - before;
  }

  void SetHint(uint64_t seq) {
    ASSERT_TRUE(
        rt().store->Put(HintName("main"), EncodeHint(Hint{seq, std::nullopt, Json::object()}))
            .ok());
  }

  std::unique_ptr<TestStore> store_;
  std::unique_ptr<Stream> writer_;
};

TEST_P(ReadPathTest, ColdReadWithAFreshHintReadsThreePlusDepthModInterval) {
  for (uint64_t depth : {10, 49, 100, 1000, 1049, 10000, 10049}) {
    PublishTo(depth);
    std::unique_ptr<Stream> reader = Fresh();
    storage::OpCounts before = store_->counting->Snapshot();
    Result<std::shared_ptr<const GraphState>> head = reader->ReadHead();
    ASSERT_TRUE(head.ok()) << head.status().ToString();
    storage::OpCounts d = Since(before);
    EXPECT_EQ((*head)->seq, depth);
    EXPECT_EQ(d.gets, 3 + depth % 50) << "depth " << depth << ": " << d.ToString();
    // And one HEAD of the seq after the absent probe, so that a gap is not taken for the end.
    EXPECT_EQ(d.heads, 1u) << d.ToString();
    EXPECT_EQ(d.reads(), d.gets + 1) << d.ToString();
    EXPECT_EQ(d.writes(), 0u) << d.ToString();
    // The cold fold equals the writer's own fold.
    EXPECT_EQ(**head, **writer_->ReadHead());
  }
}

TEST_P(ReadPathTest, AfterAThousandRecordsOneHintOneProbeOneCheckpointOneLookahead) {
  PublishTo(1000);
  std::unique_ptr<Stream> reader = Fresh();
  storage::OpCounts before = store_->counting->Snapshot();
  ASSERT_TRUE(reader->ReadHead().ok());
  storage::OpCounts d = Since(before);
  EXPECT_EQ(d.gets, 3u) << d.ToString();
  EXPECT_EQ(d.heads, 1u) << d.ToString();
  EXPECT_EQ(d.total(), 4u) << d.ToString();
}

TEST_P(ReadPathTest, StaleHintAboveTheCheckpointCostsNothingExtra) {
  PublishTo(1049);
  SetHint(1046);  // Three behind, still above checkpoint 1000: four probes.
  std::unique_ptr<Stream> reader = Fresh();
  storage::OpCounts before = store_->counting->Snapshot();
  Result<std::shared_ptr<const GraphState>> head = reader->ReadHead();
  ASSERT_TRUE(head.ok());
  EXPECT_EQ((*head)->seq, 1049u);
  EXPECT_EQ(Since(before).gets, 3u + 49u) << Since(before).ToString();
}

// A hint k below checkpoint 1000 costs one read per step above it, and the records from checkpoint
// 950 up to the hint (50 - k), which a cold read takes before it probes above the hint (decision
// 124: the top record is read before the probe that proves the end), and checkpoint 950, read
// beside those records for the fold a fresh hint would make; the fold then starts from checkpoint
// 1000 and needs neither. A hint that is not stale across a checkpoint pays nothing for this (the
// tests above).
TEST_P(ReadPathTest, HintBelowTheCheckpointCostsTheRecordsUpToItAndOneReadPerStep) {
  PublishTo(1049);
  for (uint64_t k : {1, 5, 20}) {
    SetHint(1000 - k);
    std::unique_ptr<Stream> reader = Fresh();
    storage::OpCounts before = store_->counting->Snapshot();
    Result<std::shared_ptr<const GraphState>> head = reader->ReadHead();
    ASSERT_TRUE(head.ok());
    EXPECT_EQ((*head)->seq, 1049u);
    EXPECT_EQ(Since(before).gets, 3u + 49u + k + (50u - k) + 1u) << "k=" << k;
  }
}

TEST_P(ReadPathTest, NoHintOrAGarbledHintStillFindsTheHead) {
  PublishTo(120);
  ASSERT_TRUE(rt().store->Delete(HintName("main")).ok());
  Result<std::shared_ptr<const GraphState>> head = Fresh()->ReadHead();
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  EXPECT_EQ((*head)->seq, 120u);
  ASSERT_TRUE(rt().store->Put(HintName("main"), "{not json").ok());
  head = Fresh()->ReadHead();
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  EXPECT_EQ((*head)->seq, 120u);
}

TEST_P(ReadPathTest, WarmReadWhenNothingChangedIsOneGet) {
  PublishTo(137);
  std::unique_ptr<Stream> reader = Fresh();
  ASSERT_TRUE(reader->ReadHead().ok());
  storage::OpCounts before = store_->counting->Snapshot();
  ASSERT_TRUE(reader->ReadHead().ok());
  EXPECT_EQ(Since(before).gets, 1u);
  EXPECT_EQ(Since(before).total(), 1u);
  // Two new commits: three GETs (two found, one absent).
  PublishTo(139);
  before = store_->counting->Snapshot();
  Result<std::shared_ptr<const GraphState>> head = reader->ReadHead();
  ASSERT_TRUE(head.ok());
  EXPECT_EQ((*head)->seq, 139u);
  EXPECT_EQ(Since(before).gets, 3u);
}

TEST_P(ReadPathTest, TimeTravelAndLookupByCommitId) {
  PublishTo(1000);
  std::unique_ptr<Stream> reader = Fresh();
  storage::OpCounts before = store_->counting->Snapshot();
  Result<GraphState> at = reader->ReadAt(437);
  ASSERT_TRUE(at.ok()) << at.status().ToString();
  EXPECT_EQ(at->seq, 437u);
  EXPECT_EQ(Since(before).gets, 38u) << Since(before).ToString();
  EXPECT_EQ(Since(before).total(), 38u);
  // Table 436 % 3 + 1 was pinned by record 437 itself at version 437.
  EXPECT_EQ(at->tables.at(TableId{436 % 3 + 1, 1}).pin.target_version, 437u);
  EXPECT_EQ(at->tables.at(TableId{436 % 3 + 1, 1}).pin_seq, 437u);

  before = store_->counting->Snapshot();
  Result<Record> record = LookupCommit(*rt().store, at->head_commit_id);
  ASSERT_TRUE(record.ok());
  EXPECT_EQ(record->seq, 437u);
  EXPECT_EQ(Since(before).gets, 1u);
  EXPECT_EQ(Since(before).total(), 1u);

  // Same seq, wrong nonce: not found, still one read.
  CommitId other = *CommitId::Parse(at->head_commit_id);
  other.nonce = other.nonce == "0000000000" ? "1111111111" : "0000000000";
  EXPECT_EQ(LookupCommit(*rt().store, other.ToString()).status().code(), Code::kCommitNotFound);
  EXPECT_EQ(reader->ReadAt(1001).status().code(), Code::kCommitNotFound);
  EXPECT_EQ(reader->ReadAt(1000)->seq, 1000u);
}

TEST_P(ReadPathTest, BadCheckpointsFallBackAndAreBackfilled) {
  PublishTo(175);
  const GraphState truth = **writer_->ReadHead();
  const std::string cp150 = CheckpointName("main", 150);
  const std::string good = rt().store->Get(cp150)->data;
  Json wrong_seq = Json::parse(good);
  wrong_seq["seq"] = 100;
  Json wrong_stream = Json::parse(good);
  wrong_stream["stream"] = "01ARZ3NDEKTSV4RRFFQ69G5FAV";
  Json wrong_head = Json::parse(good);
  wrong_head["head_commit_id"] = "main.150.0000000000";
  struct Case {
    const char* what;
    std::optional<std::string> bytes;  // nullopt = delete
  };
  for (const Case& c :
       {Case{"missing", std::nullopt}, Case{"truncated", good.substr(0, 40)},
        Case{"wrong seq", wrong_seq.dump()}, Case{"wrong stream", wrong_stream.dump()},
        Case{"wrong head", wrong_head.dump()}}) {
    SCOPED_TRACE(c.what);
    if (c.bytes) {
      ASSERT_TRUE(rt().store->Put(cp150, *c.bytes).ok());
    } else {
      ASSERT_TRUE(rt().store->Delete(cp150).ok());
    }
    std::unique_ptr<Stream> reader = Fresh();
    storage::OpCounts before = store_->counting->Snapshot();
    Result<std::shared_ptr<const GraphState>> head = reader->ReadHead();
    ASSERT_TRUE(head.ok()) << head.status().ToString();
    EXPECT_EQ(**head, truth);
    storage::OpCounts d = Since(before);
    // Hint, probe, checkpoint 150 (bad), checkpoint 100, records 101..175 (25 were needed
    // anyway), and one backfill write of checkpoint 150.
    EXPECT_EQ(d.gets, 1u + 1u + 1u + 1u + 75u) << d.ToString();
    EXPECT_EQ(d.puts, 1u) << d.ToString();
    Result<Checkpoint> rewritten = DecodeCheckpoint(rt().store->Get(cp150)->data, cp150);
    ASSERT_TRUE(rewritten.ok());
    EXPECT_EQ(rewritten->seq, 150u);
    EXPECT_EQ(*rewritten, *DecodeCheckpoint(good, cp150));
  }
}

TEST_P(ReadPathTest, CheckpointFromANewerFormatIsRefused) {
  PublishTo(60);
  ASSERT_TRUE(rt().store->Put(CheckpointName("main", 50), R"({"format":2})").ok());
  Result<std::shared_ptr<const GraphState>> head = Fresh()->ReadHead();
  ASSERT_FALSE(head.ok());
  EXPECT_EQ(head.status().code(), Code::kFormatTooNew);
}

TEST_P(ReadPathTest, BrokenParentChainIsCorruption) {
  PublishTo(60);
  const std::string name = RecordName("main", 57);
  Json j = Json::parse(rt().store->Get(name)->data);
  j["parent_commit_id"] = "main.55.0000000000";
  ASSERT_TRUE(rt().store->Put(name, j.dump()).ok());
  Result<std::shared_ptr<const GraphState>> head = Fresh()->ReadHead();
  ASSERT_FALSE(head.ok());
  EXPECT_EQ(head.status().code(), Code::kCorruption);
  EXPECT_EQ(head.status().object(), name);
  EXPECT_NE(head.status().message().find("parent"), std::string::npos);
}

TEST_P(ReadPathTest, RecordStoredUnderTheWrongSeqIsCorruption) {
  PublishTo(60);
  ASSERT_TRUE(
      rt().store->Put(RecordName("main", 58), rt().store->Get(RecordName("main", 57))->data).ok());
  Result<std::shared_ptr<const GraphState>> head = Fresh()->ReadHead();
  ASSERT_FALSE(head.ok());
  EXPECT_EQ(head.status().code(), Code::kCorruption);
  EXPECT_EQ(head.status().object(), RecordName("main", 58));
}

TEST_P(ReadPathTest, DuplicateLiveAliasIsCorruption) {
  PublishTo(52);
  // Record 53 registers a fourth table under an alias that is already live.
  PublishRequest request;
  request.stage = [](const GraphState&) -> Result<RecordContent> { return RecordContent{}; };
  Result<PublishResult> r = writer_->Publish(request);
  ASSERT_TRUE(r.ok());
  const std::string name = RecordName("main", 53);
  Json j = Json::parse(rt().store->Get(name)->data);
  j["registrations"] = Json::array({Json::parse(
      R"({"stable_table_id":4,"incarnation":1,"table_key":"node:Person","kind":"node"})")});
  ASSERT_TRUE(rt().store->Put(name, j.dump()).ok());
  Result<std::shared_ptr<const GraphState>> head = Fresh()->ReadHead();
  ASSERT_FALSE(head.ok());
  EXPECT_EQ(head.status().code(), Code::kCorruption);
  EXPECT_NE(head.status().message().find("two live tables named 'node:Person'"), std::string::npos)
      << head.status().message();
}

TEST_P(ReadPathTest, PinForAnUnregisteredTableIsCorruption) {
  PublishTo(51);
  const std::string name = RecordName("main", 51);
  Json j = Json::parse(rt().store->Get(name)->data);
  j["pins"][0]["stable_table_id"] = 99;
  ASSERT_TRUE(rt().store->Put(name, j.dump()).ok());
  Result<std::shared_ptr<const GraphState>> head = Fresh()->ReadHead();
  ASSERT_FALSE(head.ok());
  EXPECT_EQ(head.status().code(), Code::kCorruption);
  EXPECT_NE(head.status().message().find("unregistered"), std::string::npos);
}

TEST_P(ReadPathTest, GenesisWritesFourObjectsAndCanBeCompleted) {
  TestStore fresh(GetParam());
  storage::OpCounts before = fresh.counting->Snapshot();
  RecordContent genesis = TestGenesis();
  // Interrupted after the record: only metadata and record exist.
  Result<Record> first = CreateMainStream(fresh.runtime, genesis, std::nullopt);
  ASSERT_TRUE(first.ok());
  storage::OpCounts d = fresh.counting->Snapshot() - before;
  EXPECT_EQ(d.put_if_absent, 4u);
  EXPECT_EQ(d.writes(), 4u);
  ASSERT_TRUE(fresh.runtime.store->Delete(CheckpointName("main", 0)).ok());
  ASSERT_TRUE(fresh.runtime.store->Delete(HintName("main")).ok());
  Result<Record> again = CreateMainStream(fresh.runtime, genesis, std::nullopt);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->commit_id, first->commit_id);  // The original genesis is kept.
  Result<std::shared_ptr<const GraphState>> head =
      (*Stream::Open(fresh.runtime, "main"))->ReadHead();
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  EXPECT_EQ((*head)->seq, 0u);
  EXPECT_EQ((*head)->tables.size(), 3u);
  EXPECT_EQ((*head)->head_commit_id, first->commit_id);
}

INSTANTIATE_TEST_SUITE_P(Backends, ReadPathTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& param) {
                           return param.param ? "Local" : "Memory";
                         });

}  // namespace
}  // namespace omnigraph::commit
