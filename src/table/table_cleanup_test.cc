// Cleanup deletes exactly the objects it is given, never one younger than the grace period,
// data files before manifests; the versions retention keeps stay whole.
#include <gtest/gtest.h>

#include <mutex>
#include <set>

#include "storage/forwarding_store.h"
#include "storage/memory_store.h"
#include "table/model_table.h"
#include "table/table_cleanup.h"
#include "table/table_store.h"

namespace omnigraph::table {
namespace {

const StagedAgainst kAgainst{"main", 3};
constexpr int64_t kHourMicros = 3600ll * 1000 * 1000;

// A store that records the order of deletes.
class RecordingStore final : public storage::ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  Status Delete(std::string_view name) override {
    std::lock_guard<std::mutex> lock(mu_);
    deleted_.emplace_back(name);
    return inner().Delete(name);
  }
  std::vector<std::string> deleted() {
    std::lock_guard<std::mutex> lock(mu_);
    return deleted_;
  }

 private:
  std::mutex mu_;
  std::vector<std::string> deleted_;
};

struct Version {
  TablePin pin;
  Model model;
};

class TableCleanupTest : public ::testing::Test {
 protected:
  TableCleanupTest() {
    clock_ = std::make_shared<ManualClock>();
    memory_ = std::make_shared<storage::MemoryStore>("c", clock_.get());
    store_ = std::make_shared<RecordingStore>(memory_);
    runtime_ = storage::Runtime::ForTest(store_, 21);
    runtime_.clock = clock_;
    TableStoreOptions options;
    options.fragment_rows_max = 6;
    tables_ = std::make_unique<TableStore>(runtime_, options);
  }

  // A tree of random versions of one table.
  std::vector<Version> BuildVersions(const NewTable& table, Random& random, int count) {
    std::vector<std::string> ids;
    for (int i = 0; i < 15; ++i) ids.push_back("c" + std::to_string(i));
    ColumnBatch rows = MakeRows(table.schema, ids, random);
    auto created = tables_->Create(table, rows, kAgainst);
    OMNIGRAPH_CHECK(created.ok());
    std::vector<Version> versions = {{*created, ModelOf(rows)}};
    int next = 0;
    for (int i = 0; i < count; ++i) {
      clock_->Advance(1000);
      Version base = versions[random.Uniform(versions.size())];
      std::vector<std::string> touched;
      for (const auto& [id, image] : base.model) {
        if (random.Bernoulli(0.2)) touched.push_back(id);
      }
      Result<TablePin> pin = Status(Code::kInternal, "none");
      if (random.Bernoulli(0.4)) {
        for (const std::string& id : touched) base.model.erase(id);
        pin = tables_->Delete(base.pin, touched, kAgainst);
      } else {
        for (int k = 0; k < 4; ++k) touched.push_back("new" + std::to_string(next++));
        ColumnBatch batch = MakeRows(table.schema, touched, random);
        ApplyRows(base.model, batch);
        pin = tables_->Upsert(base.pin, batch, kAgainst);
      }
      OMNIGRAPH_CHECK_MSG(pin.ok(), pin.status().ToString());
      versions.push_back({*pin, base.model});
    }
    return versions;
  }

  std::set<std::string> Listed(const TableId& table) {
    auto listed = tables_->ListObjects(table);
    OMNIGRAPH_CHECK(listed.ok());
    std::set<std::string> names;
    for (const auto& meta : *listed) names.insert(meta.name);
    return names;
  }

  std::shared_ptr<ManualClock> clock_;
  std::shared_ptr<storage::MemoryStore> memory_;
  std::shared_ptr<RecordingStore> store_;
  storage::Runtime runtime_;
  std::unique_ptr<TableStore> tables_;
};

TEST_F(TableCleanupTest, DeletesExactlyTheUnreferencedSetAndKeepsWhatKeptVersionsNeed) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Random random(seed);
    const NewTable table{TableId{seed, 2}, "T", ModelSchema(seed % 2 == 0)};
    std::vector<Version> versions = BuildVersions(table, random, 20);
    std::vector<Version> kept, dropped;
    std::set<std::string> needed;
    for (const Version& v : versions) {
      (random.Bernoulli(0.3) ? kept : dropped).push_back(v);
    }
    for (const Version& v : kept) {
      auto version = tables_->Open(v.pin);
      ASSERT_TRUE(version.ok());
      for (const std::string& name : (*version)->ObjectNames()) needed.insert(name);
    }
    const std::set<std::string> before = Listed(table.id);
    std::vector<std::string> unreferenced;
    uint64_t unreferenced_bytes = 0;
    for (const std::string& name : before) {
      if (!needed.contains(name)) {
        unreferenced.push_back(name);
        unreferenced_bytes += memory_->Head(name)->size_bytes;
      }
    }
    clock_->Advance(2 * kHourMicros);
    auto report = CleanupObjects(runtime_, unreferenced);
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    EXPECT_EQ(report->objects_removed, unreferenced.size());
    EXPECT_EQ(report->bytes_removed, unreferenced_bytes);
    EXPECT_TRUE(report->kept_young.empty());
    EXPECT_EQ(Listed(table.id), needed);
    // Every kept version reads whole, through a cold cache; every dropped one is gone.
    TableStore cold(runtime_);
    for (const Version& v : kept) {
      auto version = cold.Open(v.pin);
      ASSERT_TRUE(version.ok()) << version.status().ToString();
      auto all = (*version)->ScanAll({});
      ASSERT_TRUE(all.ok()) << all.status().ToString();
      EXPECT_EQ(ModelOf(*all), v.model);
    }
    for (const Version& v : dropped) {
      EXPECT_EQ(cold.Open(v.pin).status().code(), Code::kNotFound);
    }
  }
}

TEST_F(TableCleanupTest, DataFilesAreDeletedBeforeManifests) {
  Random random(2);
  const NewTable table{TableId{7, 7}, "T", ModelSchema()};
  BuildVersions(table, random, 6);
  const std::set<std::string> all = Listed(table.id);
  clock_->Advance(2 * kHourMicros);
  auto report = CleanupObjects(runtime_, std::vector<std::string>(all.begin(), all.end()));
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->objects_removed, all.size());
  const std::vector<std::string> order = store_->deleted();
  ASSERT_EQ(order.size(), all.size());
  bool seen_manifest = false;
  for (const std::string& name : order) {
    const bool manifest = name.find("/versions/") != std::string::npos;
    EXPECT_FALSE(seen_manifest && !manifest) << name << " deleted after a manifest";
    seen_manifest |= manifest;
  }
  EXPECT_TRUE(seen_manifest);
  EXPECT_TRUE(Listed(table.id).empty());
}

TEST_F(TableCleanupTest, NothingYoungerThanTheGracePeriodIsDeleted) {
  Random random(3);
  const NewTable table{TableId{8, 1}, "T", ModelSchema()};
  std::vector<Version> old_versions = BuildVersions(table, random, 3);
  const std::set<std::string> old_names = Listed(table.id);
  clock_->Advance(kHourMicros);
  // Written an hour later: younger than the grace period at cleanup time.
  auto young =
      tables_->Append(old_versions.back().pin, MakeRows(table.schema, {"late"}, random), kAgainst);
  ASSERT_TRUE(young.ok());
  clock_->Advance(kHourMicros / 2);
  const std::set<std::string> all = Listed(table.id);
  auto report = CleanupObjects(runtime_, std::vector<std::string>(all.begin(), all.end()));
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->objects_removed, old_names.size());
  EXPECT_EQ(report->kept_young.size(), all.size() - old_names.size());
  for (const std::string& name : Listed(table.id)) EXPECT_FALSE(old_names.contains(name)) << name;
  // Absent names are reported, not errors.
  auto again =
      CleanupObjects(runtime_, std::vector<std::string>(old_names.begin(), old_names.end()));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->objects_removed, 0u);
  EXPECT_EQ(again->already_gone.size(), old_names.size());
}

TEST_F(TableCleanupTest, NamesOutsideATableFolderAreRefusedBeforeAnyDelete) {
  Random random(4);
  const NewTable table{TableId{9, 1}, "T", ModelSchema()};
  BuildVersions(table, random, 2);
  const std::set<std::string> all = Listed(table.id);
  clock_->Advance(2 * kHourMicros);
  for (const std::string bad : {"_graph/main/00000000000000000001.commit", "tables/xyz/data/a.ogf",
                                "tables/0000000000000009-0000000000000001/other/a",
                                "tables/0000000000000009-0000000000000001/data"}) {
    std::vector<std::string> names(all.begin(), all.end());
    names.push_back(bad);
    EXPECT_EQ(CleanupObjects(runtime_, names).status().code(), Code::kInvalidArgument) << bad;
  }
  std::vector<std::string> twice = {*all.begin(), *all.begin()};
  EXPECT_EQ(CleanupObjects(runtime_, twice).status().code(), Code::kInvalidArgument);
  EXPECT_TRUE(store_->deleted().empty());
  EXPECT_EQ(Listed(table.id), all);
}

}  // namespace
}  // namespace omnigraph::table
