// A gap in a record stream (docs/design/commit-record.md "Gaps"; decision 21): a record missing
// between the fold base and a seq that is proven to exist is Corruption naming the missing record,
// never a shorter history — for cold reads, time travel, warm handles and publishing alike.
#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <utility>

#include "commit/branches.h"
#include "commit/test_streams.h"
#include "storage/forwarding_store.h"

namespace omnigraph::commit {
namespace {

using testing::BumpOneTable;
using testing::TestGenesis;
using testing::TestStore;

class GapTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    store_ = std::make_unique<TestStore>(GetParam());
    ASSERT_TRUE(CreateMainStream(rt(), TestGenesis(), "tester").ok());
    writer_ = Fresh();
  }

  const storage::Runtime& rt() { return store_->runtime; }

  std::unique_ptr<Stream> Fresh() {
    Result<std::unique_ptr<Stream>> s = Stream::Open(rt(), "main");
    OMNIGRAPH_CHECK(s.ok());
    return std::move(*s);
  }

  Result<PublishResult> PublishOne(Stream& s) {
    PublishRequest request;
    request.stage = BumpOneTable();
    return s.Publish(request);
  }

  void PublishTo(Stream& s, uint64_t depth) {
    while ((*s.ReadHead())->seq < depth) ASSERT_TRUE(PublishOne(s).ok());
    s.WaitForBackground();
  }

  void SetHint(uint64_t seq) {
    ASSERT_TRUE(
        rt().store->Put(HintName("main"), EncodeHint(Hint{seq, std::nullopt, Json::object()}))
            .ok());
  }
  void Delete(const std::string& name) { ASSERT_TRUE(rt().store->Delete(name).ok()); }
  bool Exists(const std::string& name) { return rt().store->Head(name).ok(); }

  // The status is Corruption naming `object`, and its message contains `mentions`.
  static void ExpectCorruption(const Status& status, const std::string& object,
                               const std::string& mentions) {
    EXPECT_EQ(status.code(), Code::kCorruption) << status.ToString();
    EXPECT_EQ(status.object(), object) << status.ToString();
    EXPECT_NE(status.message().find(mentions), std::string::npos) << status.ToString();
  }

  std::unique_ptr<TestStore> store_;
  std::unique_ptr<Stream> writer_;
};

TEST_P(GapTest, AMissingRecordBelowTheHintIsCorruptionNotAShorterHistory) {
  PublishTo(*writer_, 60);
  Delete(RecordName("main", 55));
  Result<std::shared_ptr<const GraphState>> head = Fresh()->ReadHead();
  ASSERT_FALSE(head.ok()) << "read seq " << (*head)->seq;
  ExpectCorruption(head.status(), RecordName("main", 55), "record 60 exists");
  // No writer publishes into the gap: a fresh handle's publish reads cold and fails the same way.
  Result<PublishResult> published = PublishOne(*Fresh());
  ASSERT_FALSE(published.ok()) << "published seq " << published->seq;
  ExpectCorruption(published.status(), RecordName("main", 55), "record 60 exists");
  EXPECT_FALSE(Exists(RecordName("main", 55)));
  EXPECT_FALSE(Exists(RecordName("main", 61)));
}

TEST_P(GapTest, AHintAheadOfTheRecordsProvesTheyWerePublished) {
  PublishTo(*writer_, 60);
  SetHint(130);
  Result<std::shared_ptr<const GraphState>> head = Fresh()->ReadHead();
  ASSERT_FALSE(head.ok()) << "read seq " << (*head)->seq;
  ExpectCorruption(head.status(), RecordName("main", 61), "the hint " + HintName("main"));
  EXPECT_NE(head.status().message().find("names seq 130"), std::string::npos);
  // The newest record itself missing, with the hint naming it.
  SetHint(60);
  Delete(RecordName("main", 60));
  head = Fresh()->ReadHead();
  ASSERT_FALSE(head.ok()) << "read seq " << (*head)->seq;
  ExpectCorruption(head.status(), RecordName("main", 60), "names seq 60");
}

TEST_P(GapTest, AGapAboveAStaleHintIsFoundByTheProbe) {
  PublishTo(*writer_, 60);
  Delete(RecordName("main", 57));
  // The probe walks from the hint and meets the gap; the record after it proves it is one.
  for (uint64_t hint : {50, 56}) {
    SCOPED_TRACE(hint);
    SetHint(hint);
    Result<std::shared_ptr<const GraphState>> head = Fresh()->ReadHead();
    ASSERT_FALSE(head.ok()) << "read seq " << (*head)->seq;
    ExpectCorruption(head.status(), RecordName("main", 57), "record 58 exists");
  }
  // No hint at all: the probe starts at the base.
  Delete(HintName("main"));
  Result<std::shared_ptr<const GraphState>> head = Fresh()->ReadHead();
  ASSERT_FALSE(head.ok()) << "read seq " << (*head)->seq;
  ExpectCorruption(head.status(), RecordName("main", 57), "record 58 exists");
}

TEST_P(GapTest, AGapBelowTheCheckpointIsServedFromTheCheckpointButNotTimeTravelledThrough) {
  PublishTo(*writer_, 60);
  const GraphState truth = **writer_->ReadHead();
  Delete(RecordName("main", 45));
  // The fold at the head starts from checkpoint 50 and never needs record 45.
  Result<std::shared_ptr<const GraphState>> head = Fresh()->ReadHead();
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  EXPECT_EQ(**head, truth);
  // Folding through the gap is Corruption: record 47 was read, so 45 is not the end.
  Result<GraphState> at = Fresh()->ReadAt(47);
  ASSERT_FALSE(at.ok());
  ExpectCorruption(at.status(), RecordName("main", 45), "record 47 exists");
  // At the missing seq itself, with the hint and the record after it gone too, checkpoint 50
  // still proves that seq 45 was published.
  Delete(HintName("main"));
  Delete(RecordName("main", 46));
  at = Fresh()->ReadAt(45);
  ASSERT_FALSE(at.ok());
  ExpectCorruption(at.status(), RecordName("main", 45),
                   "checkpoint " + CheckpointName("main", 50) + " exists");
  // Beyond the end is still CommitNotFound.
  EXPECT_EQ(Fresh()->ReadAt(61).status().code(), Code::kCommitNotFound);
}

TEST_P(GapTest, AWarmHandleThatSawAHigherSeqReportsTheGap) {
  PublishTo(*writer_, 60);
  std::unique_ptr<Stream> reader = Fresh();
  ASSERT_TRUE(reader->ReadHead().ok());
  Delete(RecordName("main", 55));
  Delete(HintName("main"));
  // Its head is still the truth, served from its fold.
  Result<std::shared_ptr<const GraphState>> head = reader->ReadHead();
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  EXPECT_EQ((*head)->seq, 60u);
  // It has seen seq 60, so a missing 55 is a gap, not the end of the stream.
  Result<GraphState> at = reader->ReadAt(55);
  ASSERT_FALSE(at.ok());
  ExpectCorruption(at.status(), RecordName("main", 55), "this handle has read seq 60");
}

TEST_P(GapTest, AWarmWriterBelowTheGapRefusesToPublishIntoIt) {
  PublishTo(*writer_, 60);
  std::unique_ptr<Stream> other = Fresh();
  PublishTo(*other, 63);
  Delete(RecordName("main", 61));
  // The writer's head is 60: record 61 looks free, but record 62 exists.
  Result<PublishResult> published = PublishOne(*writer_);
  ASSERT_FALSE(published.ok()) << "published seq " << published->seq;
  ExpectCorruption(published.status(), RecordName("main", 61), "record 62 exists");
  EXPECT_FALSE(Exists(RecordName("main", 61)));
}

TEST_P(GapTest, AWriterThatLosesARaceDoesNotPublishIntoAGapAboveIt) {
  PublishTo(*writer_, 60);
  std::unique_ptr<Stream> other = Fresh();
  PublishTo(*other, 63);
  Delete(RecordName("main", 62));
  // 61 is taken (a lost race), the refresh stops at the gap at 62, and 63 proves it.
  Result<PublishResult> published = PublishOne(*writer_);
  ASSERT_FALSE(published.ok()) << "published seq " << published->seq;
  ExpectCorruption(published.status(), RecordName("main", 62), "record 63 exists");
  EXPECT_FALSE(Exists(RecordName("main", 62)));
  EXPECT_FALSE(Exists(RecordName("main", 64)));
}

TEST_P(GapTest, DamagedRecordsAreCorruptionNamingThem) {
  PublishTo(*writer_, 60);
  const std::string name = RecordName("main", 55);
  const std::string good = rt().store->Get(name)->data;
  for (const std::string& bytes : {good.substr(0, good.size() / 2), std::string("garbage"),
                                   rt().store->Get(RecordName("main", 54))->data}) {
    ASSERT_TRUE(rt().store->Put(name, bytes).ok());
    Result<std::shared_ptr<const GraphState>> head = Fresh()->ReadHead();
    ASSERT_FALSE(head.ok());
    EXPECT_EQ(head.status().code(), Code::kCorruption) << head.status().ToString();
    EXPECT_EQ(head.status().object(), name) << head.status().ToString();
    // What lies below it is intact and still reads.
    EXPECT_TRUE(Fresh()->ReadAt(54).ok());
  }
}

TEST_P(GapTest, MissingOrForeignStreamMetadataIsCorruption) {
  PublishTo(*writer_, 5);
  ASSERT_TRUE(CreateBranch(rt(), "b1", ForkPoint{**writer_->ReadHead(), "main", true}, "t").ok());
  const std::string b1 = ResolveBranch(rt(), "b1")->metadata.key;
  // A branch's metadata replaced by main's would send its writes to main.
  const std::string main_meta = rt().store->Get(StreamMetadataName("main"))->data;
  ASSERT_TRUE(rt().store->Put(StreamMetadataName(b1), main_meta).ok());
  Result<ResolvedBranch> resolved = ResolveBranch(rt(), "b1");
  ASSERT_FALSE(resolved.ok()) << resolved->metadata.key;
  EXPECT_EQ(resolved.status().code(), Code::kCorruption);
  EXPECT_EQ(resolved.status().object(), StreamMetadataName(b1));
  // Main always exists once the graph does: its metadata missing is damage, not "no branch".
  Delete(StreamMetadataName("main"));
  Result<std::unique_ptr<Stream>> opened = Stream::Open(rt(), "main");
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.status().code(), Code::kCorruption) << opened.status().ToString();
  EXPECT_EQ(opened.status().object(), StreamMetadataName("main"));
}

// A store that runs `damage` once, right after a conditional create of `watched` was refused
// because the name is taken (as an operator's delete could land between the create and the read
// back that follows it).
class DamageAfterTakenStore final : public storage::ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  Result<bool> PutIfAbsent(std::string_view name, std::string_view data) override {
    Result<bool> created = ForwardingStore::PutIfAbsent(name, data);
    if (created.ok() && !*created && name == watched && damage) std::exchange(damage, nullptr)();
    return created;
  }
  std::string watched;
  std::function<void()> damage;
};

// Root cause 1 (damage seeds 100261, 7178, ...): the conditional create found the seq taken, the
// taking record was deleted before the read back, and the writer re-drove the create into the
// empty name — a fork. A name that was taken and is now empty was published: a gap.
TEST_P(GapTest, ARecordDeletedBetweenTheCreateAndItsReadBackIsAGapNotAFreeSeq) {
  PublishTo(*writer_, 20);
  auto store = std::make_shared<DamageAfterTakenStore>(rt().store);
  const storage::Runtime damaging = storage::Runtime::ForTest(store, 11);
  Result<std::unique_ptr<Stream>> opened = Stream::Open(damaging, "main");
  ASSERT_TRUE(opened.ok());
  std::unique_ptr<Stream> stale = std::move(*opened);
  ASSERT_EQ((*stale->ReadHead())->seq, 20u);
  PublishTo(*writer_, 21);  // Seq 21 is taken behind the stale handle's back.
  const std::string taken = RecordName("main", 21);
  store->watched = taken;
  store->damage = [&] {
    PublishTo(*writer_, 22);  // Another commit lands on 21, then 21 is deleted.
    Delete(taken);
  };
  Result<PublishResult> published = PublishOne(*stale);
  ASSERT_FALSE(published.ok()) << "published seq " << published->seq;
  EXPECT_EQ(store->damage, nullptr) << "the create of seq 21 was never refused";
  ExpectCorruption(published.status(), taken, "the conditional create found it taken");
  EXPECT_FALSE(Exists(taken)) << "a writer published into the gap";
  EXPECT_FALSE(Exists(RecordName("main", 23)));
  // Its next attempt sees record 22 above the gap and refuses too; nothing is written.
  published = PublishOne(*stale);
  ASSERT_FALSE(published.ok()) << "published seq " << published->seq;
  ExpectCorruption(published.status(), taken, "record 22 exists");
  EXPECT_FALSE(Exists(taken));
}

// Runs `damage` once, just before the first conditional create of `watched` reaches the store.
class DamageBeforeCreateStore final : public storage::ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  Result<bool> PutIfAbsent(std::string_view name, std::string_view data) override {
    if (name == watched && damage) std::exchange(damage, nullptr)();
    return ForwardingStore::PutIfAbsent(name, data);
  }
  std::string watched;
  std::function<void()> damage;
};

// The guard's window (damage seeds 100772, 101216, 101722, 102110): the lookahead of 22 found
// nothing; before the create of 21, another writer published 21 and 22 and damage deleted 21, so
// the create succeeded into the gap. The placement check after the create sees record 22 naming
// another parent: ours is withdrawn, and the publish is Corruption naming record 21.
TEST_P(GapTest, ACreateThatLandsInAGapAfterTheGuardLookedIsWithdrawn) {
  PublishTo(*writer_, 20);
  auto store = std::make_shared<DamageBeforeCreateStore>(rt().store);
  Result<std::unique_ptr<Stream>> opened =
      Stream::Open(storage::Runtime::ForTest(store, 11), "main");
  ASSERT_TRUE(opened.ok());
  std::unique_ptr<Stream> stale = std::move(*opened);
  ASSERT_EQ((*stale->ReadHead())->seq, 20u);
  const std::string gap = RecordName("main", 21);
  store->watched = gap;
  store->damage = [&] {
    PublishTo(*writer_, 22);
    Delete(gap);
  };
  Result<PublishResult> published = PublishOne(*stale);
  ASSERT_FALSE(published.ok()) << "published seq " << published->seq;
  EXPECT_EQ(store->damage, nullptr) << "the create of seq 21 never came";
  ExpectCorruption(published.status(), gap, "record 22 exists and names parent");
  EXPECT_NE(published.status().message().find("was withdrawn"), std::string::npos)
      << published.status().ToString();
  EXPECT_FALSE(Exists(gap)) << "the record created in the gap was left there";
  // The handle did not take the withdrawn record as its head: its next publish is refused by
  // the lookahead, and still writes nothing.
  published = PublishOne(*stale);
  ASSERT_FALSE(published.ok()) << "published seq " << published->seq;
  ExpectCorruption(published.status(), gap, "record 22 exists");
  EXPECT_FALSE(Exists(gap));
}

// The first create of `watched` lands but answers Unknown; when a re-drive then finds the name
// taken, `damage` runs before the read back.
class UnknownThenDamagedStore final : public storage::ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  Result<bool> PutIfAbsent(std::string_view name, std::string_view data) override {
    Result<bool> created = ForwardingStore::PutIfAbsent(name, data);
    if (name != watched) return created;
    if (calls++ == 0 && created.ok() && *created) {
      return Status(Code::kUnknown, "the acknowledgement was lost", std::string(name));
    }
    if (created.ok() && !*created && damage) std::exchange(damage, nullptr)();
    return created;
  }
  std::string watched;
  int calls = 0;
  std::function<void()> damage;
};

// Damage seeds 100261, 101384, 103121, 103698: the writer's own record landed by a request whose
// outcome was Unknown, and damage truncated it before the re-drive's read back. The record may
// have been ours, so the answer is PublicationInDoubt naming it, never a definite Corruption.
TEST_P(GapTest, OurOwnRecordDamagedBeforeItsReadBackIsInDoubt) {
  PublishTo(*writer_, 20);
  auto store = std::make_shared<UnknownThenDamagedStore>(rt().store);
  Result<std::unique_ptr<Stream>> opened =
      Stream::Open(storage::Runtime::ForTest(store, 11), "main");
  ASSERT_TRUE(opened.ok());
  std::unique_ptr<Stream> stale = std::move(*opened);
  ASSERT_EQ((*stale->ReadHead())->seq, 20u);
  const std::string ours = RecordName("main", 21);
  store->watched = ours;
  store->damage = [&] { ASSERT_TRUE(rt().store->Put(ours, "{\"format\":1").ok()); };
  Result<PublishResult> published = PublishOne(*stale);
  ASSERT_FALSE(published.ok()) << "published seq " << published->seq;
  EXPECT_EQ(store->damage, nullptr) << "the re-drive never found the name taken";
  EXPECT_EQ(published.status().code(), Code::kPublicationInDoubt) << published.status().ToString();
  EXPECT_EQ(published.status().object(), ours) << published.status().ToString();
  // Without an Unknown outcome first, the same damaged record is Corruption naming it.
  published = PublishOne(*stale);
  ASSERT_FALSE(published.ok()) << "published seq " << published->seq;
  EXPECT_EQ(published.status().code(), Code::kCorruption) << published.status().ToString();
  EXPECT_EQ(published.status().object(), ours) << published.status().ToString();
}

// Once a conditional create of `watched` was refused (the name is taken), the next
// `failing_reads` reads of it fail transiently; then `damage` runs, before the next read.
class TakenThenUnreadableStore final : public storage::ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  Result<bool> PutIfAbsent(std::string_view name, std::string_view data) override {
    Result<bool> created = ForwardingStore::PutIfAbsent(name, data);
    if (name == watched && created.ok() && !*created) armed = true;
    return created;
  }
  Result<storage::GetResult> Get(std::string_view name,
                                 std::optional<storage::ByteRange> range) override {
    if (armed && name == watched) {
      if (failing_reads > 0) {
        --failing_reads;
        ++failed_reads;
        return Status(Code::kTransient, "the read back timed out", std::string(name));
      }
      if (damage) std::exchange(damage, nullptr)();
    }
    return ForwardingStore::Get(name, range);
  }
  std::string watched;
  bool armed = false;
  int failing_reads = 0;
  int failed_reads = 0;
  std::function<void()> damage;
};

// Damage seed 100305: another writer took seq 21 (no create of ours returned Unknown), the read
// back of it failed transiently once, and damage truncated record 21 before the next read back.
// A failed read back does not put the publish in doubt — none of our requests can have landed —
// so the damaged record is Corruption naming it, as without the failed read.
TEST_P(GapTest, AFailedReadBackDoesNotPutAPublishInDoubt) {
  PublishTo(*writer_, 20);
  auto store = std::make_shared<TakenThenUnreadableStore>(rt().store);
  Result<std::unique_ptr<Stream>> opened =
      Stream::Open(storage::Runtime::ForTest(store, 11), "main");
  ASSERT_TRUE(opened.ok());
  std::unique_ptr<Stream> stale = std::move(*opened);
  ASSERT_EQ((*stale->ReadHead())->seq, 20u);
  PublishTo(*writer_, 21);  // Seq 21 is taken behind the stale handle's back.
  const std::string taken = RecordName("main", 21);
  store->watched = taken;
  store->failing_reads = 1;
  store->damage = [&] { ASSERT_TRUE(rt().store->Put(taken, "{\"format\":1").ok()); };
  Result<PublishResult> published = PublishOne(*stale);
  ASSERT_FALSE(published.ok()) << "published seq " << published->seq;
  EXPECT_EQ(store->failed_reads, 1);
  EXPECT_EQ(store->damage, nullptr) << "the read back never came after the failed one";
  EXPECT_EQ(published.status().code(), Code::kCorruption) << published.status().ToString();
  EXPECT_EQ(published.status().object(), taken) << published.status().ToString();
}

// A read back that fails on every attempt after "exists", with no Unknown create: the record at
// the seq is another writer's, so nothing of ours was published — Transient, not in doubt.
TEST_P(GapTest, AReadBackThatKeepsFailingWithoutAnUnknownCreateIsTransient) {
  PublishTo(*writer_, 20);
  auto store = std::make_shared<TakenThenUnreadableStore>(rt().store);
  Result<std::unique_ptr<Stream>> opened =
      Stream::Open(storage::Runtime::ForTest(store, 11), "main");
  ASSERT_TRUE(opened.ok());
  std::unique_ptr<Stream> stale = std::move(*opened);
  ASSERT_EQ((*stale->ReadHead())->seq, 20u);
  PublishTo(*writer_, 21);
  const std::string taken = RecordName("main", 21);
  store->watched = taken;
  store->failing_reads = 1000;
  Result<PublishResult> published = PublishOne(*stale);
  ASSERT_FALSE(published.ok()) << "published seq " << published->seq;
  // Each of the 1 + kRedrivesMax creates is followed by 1 + kRedrivesMax failed read backs.
  EXPECT_EQ(store->failed_reads, (1 + kRedrivesMax) * (1 + kRedrivesMax));
  EXPECT_EQ(published.status().code(), Code::kTransient) << published.status().ToString();
  EXPECT_EQ(published.status().object(), taken) << published.status().ToString();
  EXPECT_NE(published.status().message().find("was not published"), std::string::npos)
      << published.status().ToString();
}

// The first conditional create of `watched` fails with `first` (no effect) and `damage` runs
// before anything else; every later create of it is counted and answered Unknown without reaching
// the store — a request the store holds and may apply at any later moment (the simulator's
// deferred write), so each one sent could land in whatever the name is by then.
class FailThenDamageStore final : public storage::ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  Result<bool> PutIfAbsent(std::string_view name, std::string_view data) override {
    if (name != watched) return ForwardingStore::PutIfAbsent(name, data);
    if (calls++ == 0) {
      std::exchange(damage, nullptr)();
      return Status(first, "the first create failed", std::string(name));
    }
    return Status(Code::kUnknown, "held by the store; it may land later", std::string(name));
  }
  std::string watched;
  Code first = Code::kUnknown;
  int calls = 0;
  std::function<void()> damage;
};

// Damage seed 158062: a writer's create of seq 21 kept answering Unknown while another writer
// published 21 and 22 and damage deleted 21; the next re-drive was sent into the gap, held by the
// store, and landed after the run — a fork no later check of the writer could see. Every re-drive
// now first HEADs 22: a record there proves 21 was published, so 21 is read back instead, and
// found missing it is a gap. After an Unknown create the record deleted may have been ours
// (PublicationInDoubt); after a transient one it was not (Corruption). Either way no request is
// sent into the gap.
TEST_P(GapTest, ARedriveIsNeverSentIntoAGapThatOpenedAfterTheFirstCreate) {
  for (Code first : {Code::kUnknown, Code::kTransient}) {
    SCOPED_TRACE(std::string(CodeName(first)));
    store_ = std::make_unique<TestStore>(GetParam());
    ASSERT_TRUE(CreateMainStream(rt(), TestGenesis(), "tester").ok());
    writer_ = Fresh();
    PublishTo(*writer_, 20);
    auto store = std::make_shared<FailThenDamageStore>(rt().store);
    Result<std::unique_ptr<Stream>> opened =
        Stream::Open(storage::Runtime::ForTest(store, 11), "main");
    ASSERT_TRUE(opened.ok());
    std::unique_ptr<Stream> stale = std::move(*opened);
    ASSERT_EQ((*stale->ReadHead())->seq, 20u);
    const std::string gap = RecordName("main", 21);
    store->watched = gap;
    store->first = first;
    store->damage = [&] {
      PublishTo(*writer_, 22);
      Delete(gap);
    };
    Result<PublishResult> published = PublishOne(*stale);
    ASSERT_FALSE(published.ok()) << "published seq " << published->seq;
    EXPECT_EQ(store->calls, 1) << "a re-drive of the create of seq 21 was sent into the gap";
    EXPECT_EQ(published.status().code(),
              first == Code::kUnknown ? Code::kPublicationInDoubt : Code::kCorruption)
        << published.status().ToString();
    EXPECT_EQ(published.status().object(), gap) << published.status().ToString();
    EXPECT_NE(published.status().message().find("record 22 exists"), std::string::npos)
        << published.status().ToString();
    EXPECT_FALSE(Exists(gap));
  }
}

// A store whose requests may outlive their answers by `window` (an S3 or Azure request that
// timed out). The `hold_call`-th create of `watched` runs `damage`, is answered Unknown and held;
// it lands at the first read or HEAD made after half the window has passed on `clock`. When
// `first_lands`, the first create of it takes effect and is answered Unknown (a lost answer).
class HeldCreateStore final : public storage::ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  Result<bool> PutIfAbsent(std::string_view name, std::string_view data) override {
    if (name != watched) return ForwardingStore::PutIfAbsent(name, data);
    ++calls;
    if (calls == hold_call) {
      std::exchange(damage, nullptr)();
      held = std::string(data);
      held_at = clock->MonotonicMicros();
      return Status(Code::kUnknown, "timed out; held by the store", std::string(name));
    }
    if (calls == 1 && first_lands) {
      (void)ForwardingStore::PutIfAbsent(name, data);
      return Status(Code::kUnknown, "the answer was lost", std::string(name));
    }
    return ForwardingStore::PutIfAbsent(name, data);
  }
  Result<storage::GetResult> Get(std::string_view name,
                                 std::optional<storage::ByteRange> range) override {
    LandIfDue();
    return ForwardingStore::Get(name, range);
  }
  Result<storage::ObjectMeta> Head(std::string_view name) override {
    LandIfDue();
    return ForwardingStore::Head(name);
  }
  int64_t UnknownOutcomeWindowMicros() const override { return window; }

  void LandIfDue() {
    if (!held || clock->MonotonicMicros() < held_at + window / 2) return;
    (void)ForwardingStore::PutIfAbsent(watched, *std::exchange(held, std::nullopt));
    landed = true;
  }

  std::string watched;
  int hold_call = 1;
  bool first_lands = false;
  std::function<void()> damage;
  std::shared_ptr<Clock> clock;
  int64_t window = 10'000'000;
  int calls = 0;
  std::optional<std::string> held;
  int64_t held_at = 0;
  bool landed = false;
};

// Damage seeds 132764, 155249, 169435, 176508, 185141, 188110: a create of seq 21 sent on the
// strength of a HEAD of 22 that saw nothing, while another writer published 22 and damage deleted
// 21; the store held the request, the writer found 22, read 21 back, found it missing and ended
// in doubt — and the held request landed after the writer had gone: a fork (another writer's
// record replaced) or a record in a gap. A store bounds how long a request can outlive its answer
// (UnknownOutcomeWindowMicros; decision 124): in doubt, the writer waits that out and reads 21
// once more. Held request of another writer's deleted record: it lands in the gap and is
// withdrawn, nothing published. Our own record deleted and re-landed by the held request: the
// chain holds (22 names it), so the publish stands.
TEST_P(GapTest, ACreateHeldByTheStoreCannotLandInTheGapAfterTheWriterIsDone) {
  for (bool ours_deleted : {false, true}) {
    SCOPED_TRACE(ours_deleted ? "our own record deleted" : "another writer's record deleted");
    store_ = std::make_unique<TestStore>(GetParam());
    ASSERT_TRUE(CreateMainStream(rt(), TestGenesis(), "tester").ok());
    writer_ = Fresh();
    PublishTo(*writer_, 20);
    auto store = std::make_shared<HeldCreateStore>(rt().store);
    const storage::Runtime runtime = storage::Runtime::ForTest(store, 11);
    store->clock = runtime.clock;
    Result<std::unique_ptr<Stream>> opened = Stream::Open(runtime, "main");
    ASSERT_TRUE(opened.ok());
    std::unique_ptr<Stream> stale = std::move(*opened);
    ASSERT_EQ((*stale->ReadHead())->seq, 20u);
    const std::string gap = RecordName("main", 21);
    store->watched = gap;
    store->first_lands = ours_deleted;
    store->hold_call = ours_deleted ? 2 : 1;
    store->damage = [&] {
      std::unique_ptr<Stream> other = Fresh();
      PublishTo(*other, 22);
      Delete(gap);
    };
    Result<PublishResult> published = PublishOne(*stale);
    EXPECT_TRUE(store->landed) << "the held create did not land inside the window";
    Result<Record> above = Fresh()->ReadRecord(22);
    ASSERT_TRUE(above.ok()) << above.status().ToString();
    if (!ours_deleted) {
      ASSERT_FALSE(published.ok()) << "published seq " << published->seq;
      ExpectCorruption(published.status(), gap, "withdrawn");
      EXPECT_FALSE(Exists(gap)) << "the held create filled the gap";
      continue;
    }
    ASSERT_TRUE(published.ok()) << published.status().ToString();
    EXPECT_EQ(published->seq, 21u);
    Result<Record> at = Fresh()->ReadRecord(21);
    ASSERT_TRUE(at.ok()) << at.status().ToString();
    EXPECT_EQ(above->parent_commit_id, at->commit_id);
    EXPECT_EQ(at->commit_id, published->commit_id);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, GapTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& param) {
                           return param.param ? "Local" : "Memory";
                         });

}  // namespace
}  // namespace omnigraph::commit
