// The randomized retention test (D9, D10): retention interleaved with staging, publishing and
// branch creation and deletion, over 200 seeds (OMNIGRAPH_RETENTION_SEEDS overrides).
#include <gtest/gtest.h>

#include <cstdio>

#include "commit/retention.h"
#include "commit/test_streams.h"

namespace omnigraph::commit {
namespace {

using testing::TestGenesis;

constexpr int64_t kTick = 1'000'000;

std::set<PinRef> PinsOf(const GraphState& s) {
  std::set<PinRef> out;
  for (const auto& [id, t] : s.tables) out.insert(PinRef{id, t.pin.staged_version});
  return out;
}

// The randomized run: a model of writers that stage table versions (simulated manifests) and
// publish them later, branch creates and deletes, and retention runs that also delete
// unreferenced manifests as the table layer will. After every retention run, every pin of every
// retained commit's fold must name an existing manifest that the plan keeps.
std::string ManifestName(const PinRef& p) {
  char buf[96];
  std::snprintf(buf, sizeof(buf), "tables/%016llx-%016llx/versions/d%llu.json",
                static_cast<unsigned long long>(p.table.stable_table_id),
                static_cast<unsigned long long>(p.table.incarnation),
                static_cast<unsigned long long>(p.staged_version));
  return buf;
}

struct Pending {
  TablePin pin;
  uint64_t staged_against = 0;
};

class RandomizedRetention {
 public:
  explicit RandomizedRetention(uint64_t seed) : random_(seed) {
    store_ = std::make_shared<storage::MemoryStore>("r", clock_.get());
    rt_ = storage::Runtime::ForTest(store_, seed);
    rt_.clock = clock_;
  }

  void Run() {
    RecordContent genesis = TestGenesis();
    for (const TablePin& p : genesis.pins)
      WriteManifest(PinRef{p.table(), p.staged_version}, "main", 0);
    ASSERT_TRUE(CreateMainStream(rt_, genesis, std::nullopt).ok());
    branches_["main"] = std::move(*Stream::Open(rt_, "main"));
    for (int step = 0; step < 70; ++step) {
      uint64_t dice = random_.Uniform(100);
      if (dice < 30) {
        Stage();
      } else if (dice < 65) {
        ASSERT_NO_FATAL_FAILURE(Publish());
      } else if (dice < 75) {
        CreateBranchStep();
      } else if (dice < 80) {
        DeleteBranchStep();
      } else if (dice < 90) {
        ASSERT_NO_FATAL_FAILURE(Retain());
      } else {
        clock_->Advance(kTick);
      }
    }
    ASSERT_NO_FATAL_FAILURE(Retain());
  }

 private:
  Stream& Pick(std::string* name) {
    auto it = branches_.begin();
    std::advance(it, static_cast<long>(random_.Uniform(branches_.size())));
    *name = it->first;
    return *it->second;
  }

  void WriteManifest(const PinRef& p, const std::string& stream, uint64_t seq) {
    Json doc = {{"staged_against", {{"stream", stream}, {"seq", seq}}}};
    ASSERT_TRUE(*store_->PutIfAbsent(ManifestName(p), doc.dump()));
  }

  TablePin StageOne(const GraphState& base) {
    uint64_t id = random_.Uniform(3) + 1;
    TablePin pin = base.tables.at(TableId{id, 1}).pin;
    pin.staged_version = (1ULL << 63) | (random_.Next64() >> 1);
    pin.target_version += 1;
    WriteManifest(PinRef{pin.table(), pin.staged_version}, base.stream, base.seq);
    return pin;
  }

  void Stage() {
    std::string name;
    Stream& s = Pick(&name);
    Result<std::shared_ptr<const GraphState>> head = s.ReadHead();
    if (!head.ok()) return;
    pending_[name] = Pending{StageOne(**head), (*head)->seq};
  }

  void Publish() {
    std::string name;
    Stream& s = Pick(&name);
    PublishRequest request;
    request.stage = [&](const GraphState& base) -> Result<RecordContent> {
      RecordContent c;
      auto it = pending_.find(name);
      if (it != pending_.end() && it->second.staged_against == base.seq) {
        // Staged earlier against this very head: retention must not have removed it (D9).
        EXPECT_TRUE(
            store_
                ->Head(ManifestName(PinRef{it->second.pin.table(), it->second.pin.staged_version}))
                .ok())
            << "an in-flight staged version was deleted";
        c.pins.push_back(it->second.pin);
      } else {
        c.pins.push_back(StageOne(base));
      }
      return c;
    };
    Result<PublishResult> r = s.Publish(request);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    pending_.erase(name);
  }

  void CreateBranchStep() {
    std::string parent;
    Stream& s = Pick(&parent);
    Result<std::shared_ptr<const GraphState>> head = s.ReadHead();
    if (!head.ok()) return;
    ForkPoint fork{**head, parent, true};
    if ((*head)->seq > s.metadata().base_seq() && random_.Bernoulli(0.5)) {
      uint64_t seq =
          s.metadata().base_seq() + random_.Uniform((*head)->seq - s.metadata().base_seq()) + 1;
      Result<GraphState> past = s.ReadAt(seq);
      ASSERT_TRUE(past.ok()) << past.status().ToString();
      fork = ForkPoint{*past, parent, seq == (*head)->seq};
    }
    std::string name = "b" + std::to_string(next_branch_++);
    Result<StreamMetadata> meta = CreateBranch(rt_, name, fork, "t");
    if (!meta.ok()) {
      ASSERT_EQ(meta.status().code(), Code::kVersionsReclaimed) << meta.status().ToString();
      return;
    }
    branches_[name] = Stream::FromMetadata(rt_, *meta);
  }

  void DeleteBranchStep() {
    if (branches_.size() < 2) return;
    std::string name;
    Pick(&name);
    if (name == "main") return;
    ASSERT_TRUE(DeleteBranch(rt_, name, std::nullopt).ok());
    branches_.erase(name);
    pending_.erase(name);
  }

  void Retain() {
    RetentionOptions options;
    options.keep = 1 + random_.Uniform(4);
    options.grace_micros = 2 * kTick;
    Result<RetentionPlan> plan = PlanRetention(rt_, options);
    ASSERT_TRUE(plan.ok()) << plan.status().ToString();
    ASSERT_TRUE(ApplyCheckpointRetention(rt_, options, *plan).ok());
    // The table layer's part: list candidates, drop the young, recompute the roots, delete what
    // is unreached and not possibly in flight.
    Result<std::vector<storage::ObjectMeta>> manifests = storage::ListAll(*store_, "tables/");
    ASSERT_TRUE(manifests.ok());
    std::vector<std::pair<std::string, PinRef>> candidates;
    for (const storage::ObjectMeta& m : *manifests) {
      if (m.last_modified_micros > clock_->NowMicros() - options.grace_micros) continue;
      unsigned long long id, inc, staged;
      ASSERT_EQ(std::sscanf(m.name.c_str(), "tables/%16llx-%16llx/versions/d%llu.json", &id, &inc,
                            &staged),
                3);
      candidates.emplace_back(m.name, PinRef{TableId{id, inc}, staged});
    }
    Result<RetentionPlan> again = PlanRetention(rt_, options);
    ASSERT_TRUE(again.ok());
    for (const auto& [name, pin] : candidates) {
      if (again->keep.count(pin)) continue;
      Json doc = Json::parse(store_->Get(name)->data);
      Result<StagedFate> fate =
          FateOfStagedVersion(rt_, doc["staged_against"]["stream"].get<std::string>(),
                              doc["staged_against"]["seq"].get<uint64_t>(), pin);
      ASSERT_TRUE(fate.ok()) << fate.status().ToString();
      if (*fate == StagedFate::kMayStillPublish) continue;
      ASSERT_TRUE(store_->Delete(name).ok());
    }
    // The invariant: every retained commit's fold still resolves, through the plan's keep set.
    for (const auto& [key, from] : again->horizons) {
      auto through = again->retained_through.find(key);
      if (through == again->retained_through.end()) continue;  // Nothing of it is retained.
      std::unique_ptr<Stream> s = std::move(*Stream::Open(rt_, key));
      Result<GraphState> state = s->ReadAt(from);
      ASSERT_TRUE(state.ok()) << state.status().ToString();
      for (uint64_t seq = from;; ++seq) {
        for (const PinRef& p : PinsOf(*state)) {
          EXPECT_TRUE(again->keep.count(p)) << key << "@" << seq;
          ASSERT_TRUE(store_->Head(ManifestName(p)).ok())
              << "retained commit " << key << "@" << seq << " lost " << ManifestName(p);
        }
        if (seq == through->second) break;
        Result<Record> next = s->ReadRecord(seq + 1);
        ASSERT_TRUE(next.ok()) << next.status().ToString();
        ASSERT_TRUE(state->Apply(*next, "r").ok());
      }
    }
  }

  Random random_;
  std::shared_ptr<ManualClock> clock_ = std::make_shared<ManualClock>(1'000'000'000'000'000);
  std::shared_ptr<storage::MemoryStore> store_;
  storage::Runtime rt_;
  std::map<std::string, std::unique_ptr<Stream>> branches_;
  std::map<std::string, Pending> pending_;
  int next_branch_ = 0;
};

TEST(RandomizedRetentionTest, RetentionNeverRemovesWhatAKeptCommitNeeds) {
  const char* env = std::getenv("OMNIGRAPH_RETENTION_SEEDS");
  const uint64_t seeds = env ? std::strtoull(env, nullptr, 10) : 200;
  for (uint64_t seed = 1; seed <= seeds; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    RandomizedRetention run(seed);
    ASSERT_NO_FATAL_FAILURE(run.Run());
  }
}

}  // namespace
}  // namespace omnigraph::commit
