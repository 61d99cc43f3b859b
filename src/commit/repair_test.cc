// Repair (docs/design/retention.md "Repair"): every defect found alone and together, the fixable
// ones fixed, records never rewritten, and a healthy graph left untouched.
#include "commit/repair.h"

#include <gtest/gtest.h>

#include "commit/test_streams.h"
#include "storage/forwarding_store.h"

namespace omnigraph::commit {
namespace {

using testing::BumpOneTable;
using testing::TestGenesis;

class RepairTest : public ::testing::Test {
 public:
  void SetUp() override {
    store_ = std::make_unique<testing::TestStore>(false);
    ASSERT_TRUE(CreateMainStream(rt(), TestGenesis(), std::nullopt).ok());
    main_ = std::move(*Stream::Open(rt(), "main"));
    Publish(*main_, 120);
    for (const char* name : {"live", "live2", "gone"}) {
      ASSERT_TRUE(CreateBranch(rt(), name, ForkPoint{**main_->ReadHead(), "main", true}, "t").ok());
    }
    live_ = Open("live");
    Publish(*live_, 60);
    std::unique_ptr<Stream> live2 = Open("live2");
    Publish(*live2, 3);
    ASSERT_TRUE(DeleteBranch(rt(), "gone", std::nullopt).ok());
  }
  const storage::Runtime& rt() { return store_->runtime; }
  std::unique_ptr<Stream> Open(const std::string& name) {
    return Stream::FromMetadata(rt(), ResolveBranch(rt(), name)->metadata);
  }
  void Publish(Stream& s, int n) {
    for (int i = 0; i < n; ++i) {
      PublishRequest request;
      request.stage = BumpOneTable();
      ASSERT_TRUE(s.Publish(request).ok());
    }
    s.WaitForBackground();
  }
  RepairReport Run(bool confirm) {
    RepairOptions options;
    options.confirm = confirm;
    Result<RepairReport> r = Repair(rt(), options);
    OMNIGRAPH_CHECK_MSG(r.ok(), r.status().ToString());
    return std::move(*r);
  }
  std::multiset<std::string> Kinds(const RepairReport& r) {
    std::multiset<std::string> out;
    for (const Defect& d : r.defects) out.insert(std::string(DefectKindName(d.kind)));
    return out;
  }
  void Mutate(const std::string& name, const std::function<void(Json&)>& change) {
    Json j = Json::parse(rt().store->Get(name)->data);
    change(j);
    ASSERT_TRUE(rt().store->Put(name, j.dump()).ok());
  }

  std::unique_ptr<testing::TestStore> store_;
  std::unique_ptr<Stream> main_;
  std::unique_ptr<Stream> live_;
};

TEST_F(RepairTest, AHealthyGraphReportsNothingAndWritesNothing) {
  storage::OpCounts before = store_->counting->Snapshot();
  RepairReport report = Run(/*confirm=*/true);
  EXPECT_TRUE(report.defects.empty()) << report.ToJson().dump();
  EXPECT_EQ((store_->counting->Snapshot() - before).writes(), 0u);
}

struct Injection {
  const char* kind;
  bool fixable;
  std::function<void(RepairTest&)> inject;
};

std::vector<Injection> Injections() {
  return {
      {"hint_behind", true,
       [](RepairTest& t) { t.Mutate(HintName("main"), [](Json& j) { j["seq"] = 100; }); }},
      {"record_missing", false,
       [](RepairTest& t) { ASSERT_TRUE(t.rt().store->Delete(RecordName("main", 115)).ok()); }},
      {"checkpoint_missing", true,
       [](RepairTest& t) { ASSERT_TRUE(t.rt().store->Delete(CheckpointName("main", 100)).ok()); }},
      {"checkpoint_torn", true,
       [](RepairTest& t) {
         std::string name = CheckpointName("main", 50);
         ASSERT_TRUE(t.rt().store->Put(name, t.rt().store->Get(name)->data.substr(0, 30)).ok());
       }},
      {"checkpoint_differs", true,
       [](RepairTest& t) {
         t.Mutate(CheckpointName(t.live_->key(), 150), [](Json& j) {
           j["head_generation"] = 1;
           j["operator_note"] = "kept";
         });
       }},
      {"record_wrong_parent", false,
       [](RepairTest& t) {
         t.Mutate(RecordName("main", 110),
                  [](Json& j) { j["parent_commit_id"] = "main.108.0000000000"; });
       }},
      {"record_unparsable", false,
       [](RepairTest& t) {
         ASSERT_TRUE(t.rt().store->Put(RecordName(t.live_->key(), 170), "{nope").ok());
       }},
      {"retired_without_retire_record", false,
       [](RepairTest& t) {
         std::string key = ResolveBranch(t.rt(), "live2")->metadata.key;
         t.Mutate(StreamMetadataName(key), [](Json& j) {
           j["retired"] = {{"at_seq", 123}, {"at", 1}};
         });
       }},
      {"retire_record_without_retired_metadata", false,
       [](RepairTest& t) {
         // Undo the metadata marking of the deleted branch: its retire record stays.
         Result<std::vector<storage::ObjectMeta>> streams =
             storage::ListAll(*t.rt().store, kStreamsPrefix);
         ASSERT_TRUE(streams.ok());
         for (const storage::ObjectMeta& m : *streams) {
           Json j = Json::parse(t.rt().store->Get(m.name)->data);
           if (j["branch"] == "gone") {
             j["retired"] = nullptr;
             ASSERT_TRUE(t.rt().store->Put(m.name, j.dump()).ok());
           }
         }
       }},
  };
}

TEST_F(RepairTest, EachDefectAloneIsFoundAndTheFixableOnesAreFixed) {
  for (const Injection& injection : Injections()) {
    SCOPED_TRACE(injection.kind);
    TearDown();
    SetUp();
    injection.inject(*this);
    RepairReport found = Run(/*confirm=*/false);
    ASSERT_EQ(Kinds(found), std::multiset<std::string>{injection.kind}) << found.ToJson().dump();
    EXPECT_EQ(found.defects[0].fixable, injection.fixable);
    EXPECT_FALSE(found.defects[0].object.empty());
    // Records are never rewritten: remember them all.
    std::map<std::string, std::string> records;
    Result<std::vector<storage::ObjectMeta>> all = storage::ListAll(*rt().store, "_graph/");
    ASSERT_TRUE(all.ok());
    for (const storage::ObjectMeta& m : *all) {
      if (m.name.size() > 7 && m.name.substr(m.name.size() - 7) == ".commit") {
        records[m.name] = rt().store->Get(m.name)->data;
      }
    }
    RepairReport fixed = Run(/*confirm=*/true);
    ASSERT_EQ(fixed.defects.size(), 1u);
    EXPECT_EQ(fixed.defects[0].fixed, injection.fixable);
    for (const auto& [name, bytes] : records) EXPECT_EQ(rt().store->Get(name)->data, bytes) << name;
    RepairReport after = Run(/*confirm=*/false);
    if (injection.fixable) {
      EXPECT_TRUE(after.defects.empty()) << after.ToJson().dump();
    } else {
      EXPECT_EQ(Kinds(after), std::multiset<std::string>{injection.kind});
    }
  }
}

TEST_F(RepairTest, FixedDocumentsKeepTheirUnknownMembers) {
  Mutate(HintName(live_->key()), [](Json& j) {
    j["seq"] = 170;
    j["kept_member"] = "yes";
  });
  Mutate(CheckpointName(live_->key(), 150), [](Json& j) {
    j["head_generation"] = 1;
    j["operator_note"] = "kept";
  });
  RepairReport report = Run(/*confirm=*/true);
  EXPECT_EQ(report.defects.size(), 2u);
  Json hint = Json::parse(rt().store->Get(HintName(live_->key()))->data);
  EXPECT_EQ(hint["seq"], 180);
  EXPECT_EQ(hint["kept_member"], "yes");
  Json cp = Json::parse(rt().store->Get(CheckpointName(live_->key(), 150))->data);
  EXPECT_EQ(cp["operator_note"], "kept");
  EXPECT_EQ(cp["head_generation"], 150);
  EXPECT_TRUE(Run(false).defects.empty());
}

TEST_F(RepairTest, AllDefectsTogetherAreFound) {
  std::multiset<std::string> expected;
  for (const Injection& injection : Injections()) {
    injection.inject(*this);
    expected.insert(injection.kind);
  }
  RepairReport report = Run(/*confirm=*/true);
  EXPECT_EQ(Kinds(report), expected) << report.ToJson().dump();
  // Each stream's walk stops at its first bad record; everything before it is still checked, and
  // everything fixable was fixed.
  for (const Defect& d : report.defects) EXPECT_EQ(d.fixed, d.fixable) << d.ToJson().dump();
}

TEST_F(RepairTest, AMissingRecordIsReportedWithWhatTheOperatorCanDoAndNothingIsRewritten) {
  ASSERT_TRUE(rt().store->Delete(RecordName("main", 110)).ok());
  const std::string hint = rt().store->Get(HintName("main"))->data;
  RepairReport report = Run(/*confirm=*/true);
  ASSERT_EQ(Kinds(report), std::multiset<std::string>{"record_missing"}) << report.ToJson().dump();
  const Defect& d = report.defects[0];
  EXPECT_EQ(d.object, RecordName("main", 110));
  EXPECT_EQ(d.seq, 110u);
  EXPECT_FALSE(d.fixable);
  EXPECT_FALSE(d.fixed);
  EXPECT_EQ(d.detail,
            "record 110 is missing, but record 111 exists: the stream cannot be read past seq "
            "109, and no commit may be published into the gap");
  EXPECT_EQ(d.advice,
            "restore " + RecordName("main", 110) +
                " from a backup or from an earlier version in a versioned bucket; repair never "
                "writes a record");
  EXPECT_EQ(report.ToJson()["defects"][0]["advice"], d.advice);
  // The hint that proves the gap is not "fixed" down to the records before it.
  EXPECT_EQ(rt().store->Get(HintName("main"))->data, hint);
}

// The damage scenario's repair check (issue 48): every missing or damaged record is a defect of
// its own; the first one does not hide the others behind it.
TEST_F(RepairTest, EveryMissingOrDamagedRecordIsReportedNotOnlyTheFirst) {
  for (uint64_t seq : {100, 105, 106}) {
    ASSERT_TRUE(rt().store->Delete(RecordName("main", seq)).ok());
  }
  ASSERT_TRUE(rt().store->Put(RecordName("main", 110), "{nope").ok());
  Mutate(RecordName("main", 115), [](Json& j) { j["parent_commit_id"] = "main.113.0000000000"; });
  RepairReport report = Run(/*confirm=*/false);
  std::multiset<std::string> found;
  for (const Defect& d : report.defects) {
    if (d.stream == "main") {
      found.insert(std::string(DefectKindName(d.kind)) + " " + std::to_string(d.seq) + " " +
                   d.object);
    }
  }
  const auto at = [](const char* kind, uint64_t seq) {
    return std::string(kind) + " " + std::to_string(seq) + " " + RecordName("main", seq);
  };
  EXPECT_EQ(found,
            (std::multiset<std::string>{at("record_missing", 100), at("record_missing", 105),
                                        at("record_missing", 106), at("record_unparsable", 110),
                                        at("record_wrong_parent", 115)}))
      << report.ToJson().dump();
}

// The genesis record sits below every fold (the checkpoint at seq 0 stands for it); a damaged
// one is still reported under its own name. A wrong parent names both records it involves: a
// record that replaced its predecessor (a fork) shows up at the successor.
TEST_F(RepairTest, ADamagedGenesisRecordAndAReplacedPredecessorAreNamed) {
  ASSERT_TRUE(rt().store->Put(RecordName("main", 0), "{\"seq\":").ok());
  Mutate(RecordName("main", 110), [](Json& j) { j["commit_id"] = "main.110.9999999999"; });
  RepairReport report = Run(/*confirm=*/false);
  ASSERT_EQ(Kinds(report), (std::multiset<std::string>{"record_unparsable", "record_wrong_parent"}))
      << report.ToJson().dump();
  for (const Defect& d : report.defects) {
    if (d.kind == DefectKind::kRecordUnparsable) {
      EXPECT_EQ(d.object, RecordName("main", 0));
    } else {
      EXPECT_EQ(d.object, RecordName("main", 111));
      EXPECT_NE(d.detail.find("this record or " + RecordName("main", 110) + " was replaced"),
                std::string::npos)
          << d.detail;
    }
  }
}

TEST_F(RepairTest, AHintAheadOfTheRecordsIsReportedAsMissingRecords) {
  Mutate(HintName(live_->key()), [](Json& j) { j["seq"] = 500; });
  RepairReport report = Run(/*confirm=*/true);
  ASSERT_EQ(Kinds(report), std::multiset<std::string>{"record_missing"}) << report.ToJson().dump();
  EXPECT_EQ(report.defects[0].object, RecordName(live_->key(), 181));
  EXPECT_NE(report.defects[0].detail.find("the hint names seq 500"), std::string::npos)
      << report.defects[0].detail;
  EXPECT_NE(report.defects[0].advice.find("delete " + HintName(live_->key())), std::string::npos)
      << report.defects[0].advice;
  EXPECT_EQ(Json::parse(rt().store->Get(HintName(live_->key()))->data)["seq"], 500);
}

// Passes every call through; the first read of `trigger` runs `before` first.
class TriggerStore final : public storage::ForwardingStore {
 public:
  TriggerStore(std::shared_ptr<storage::ObjectStore> inner, std::string trigger,
               std::function<void()> before)
      : ForwardingStore(std::move(inner)),
        trigger_(std::move(trigger)),
        before_(std::move(before)) {}
  Result<storage::GetResult> Get(std::string_view name,
                                 std::optional<storage::ByteRange> range) override {
    if (name == trigger_ && before_) std::exchange(before_, nullptr)();
    return inner().Get(name, range);
  }
  std::string Describe() const override { return "trigger://" + inner().Describe(); }

 private:
  std::string trigger_;
  std::function<void()> before_;
};

TEST_F(RepairTest, ACommitPublishedWhileRepairListsIsNotAGap) {
  // Between repair's listing of main and its read of the hint, a writer publishes seq 121: the
  // hint then names a seq the listing did not see, and the record is there when repair looks.
  storage::Runtime during = rt();
  during.store =
      std::make_shared<TriggerStore>(rt().store, HintName("main"), [this] { Publish(*main_, 1); });
  RepairOptions options;
  Result<RepairReport> report = Repair(during, options);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ((*main_->ReadHead())->seq, 121u);
  EXPECT_TRUE(report->defects.empty()) << report->ToJson().dump();
}

TEST_F(RepairTest, MissingManifestsAndStaleStagingThroughCallbacks) {
  RepairOptions options;
  const uint64_t missing = (*live_->ReadHead())->tables.begin()->second.pin.staged_version;
  options.pin_exists = [&](const TablePin& p) -> Result<bool> {
    return p.staged_version != missing;
  };
  // Staged against main@5 but never published (record 6 pins something else): dead.
  options.staged.push_back(StagedVersion{PinRef{TableId{1, 1}, (1ULL << 63) | 99}, "main", 5,
                                         "tables/x/versions/d99.json"});
  // Staged against main's head: may still be published, not reported.
  options.staged.push_back(StagedVersion{PinRef{TableId{1, 1}, (1ULL << 63) | 98}, "main", 120,
                                         "tables/x/versions/d98.json"});
  Result<RepairReport> report = Repair(rt(), options);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(Kinds(*report), (std::multiset<std::string>{"pin_manifest_missing", "stale_staging"}));
  for (const Defect& d : report->defects) {
    if (d.kind == DefectKind::kStaleStaging) {
      EXPECT_EQ(d.object, "tables/x/versions/d99.json");
    }
  }
}

}  // namespace
}  // namespace omnigraph::commit
