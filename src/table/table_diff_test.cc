// Diffs: the manifest-based diff and the exact (full row image) diff agree on random version
// pairs, including pairs on different branches and pairs in reverse order, and both match the
// model.
#include <gtest/gtest.h>

#include <set>

#include "storage/counting_store.h"
#include "storage/memory_store.h"
#include "table/model_table.h"
#include "table/row_gather.h"
#include "table/table_diff.h"
#include "table/table_store.h"

namespace omnigraph::table {
namespace {

const StagedAgainst kAgainst{"main", 1};

struct Version {
  TablePin pin;
  Model model;
};

// id -> image of every row of a batch (ids are unique within diff results).
Model Images(const ColumnBatch& batch) { return ModelOf(batch); }

void ExpectSameDiff(const TableDiff& a, const TableDiff& b) {
  EXPECT_EQ(a.inserted_ids, b.inserted_ids);
  EXPECT_EQ(a.updated_ids, b.updated_ids);
  EXPECT_EQ(a.deleted_ids, b.deleted_ids);
  EXPECT_EQ(Images(a.inserted), Images(b.inserted));
  EXPECT_EQ(Images(a.updated_before), Images(b.updated_before));
  EXPECT_EQ(Images(a.updated_after), Images(b.updated_after));
}

// The diff the models imply.
void ExpectMatchesModels(const TableDiff& diff, const Model& before, const Model& after) {
  std::vector<std::string> inserted, updated, deleted;
  for (const auto& [id, image] : after) {
    auto it = before.find(id);
    if (it == before.end()) {
      inserted.push_back(id);
    } else if (it->second != image) {
      updated.push_back(id);
    }
  }
  for (const auto& [id, image] : before) {
    if (!after.contains(id)) deleted.push_back(id);
  }
  EXPECT_EQ(diff.inserted_ids, inserted);
  EXPECT_EQ(diff.updated_ids, updated);
  EXPECT_EQ(diff.deleted_ids, deleted);
  for (const auto& [id, image] : Images(diff.inserted)) EXPECT_EQ(image, after.at(id));
  for (const auto& [id, image] : Images(diff.updated_before)) EXPECT_EQ(image, before.at(id));
  for (const auto& [id, image] : Images(diff.updated_after)) EXPECT_EQ(image, after.at(id));
}

TEST(TableDiffTest, ManifestDiffAndExactDiffAlwaysAgree) {
  auto store = std::make_shared<storage::MemoryStore>("diff");
  TableStoreOptions options;
  options.fragment_rows_max = 8;
  TableStore tables(storage::Runtime::ForTest(store, 3), options);
  int nonempty[3] = {0, 0, 0};  // Pairs with inserted, updated and deleted ids.
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Random random(seed);
    const NewTable table{TableId{seed, 1}, "T", ModelSchema(seed % 2 == 1)};
    std::vector<std::string> ids;
    for (int i = 0; i < 20; ++i) ids.push_back("i" + std::to_string(i));
    ColumnBatch rows = MakeRows(table.schema, ids, random);
    auto created = tables.Create(table, rows, kAgainst);
    ASSERT_TRUE(created.ok());
    std::vector<Version> versions = {{*created, ModelOf(rows)}};
    uint64_t next = 100;
    for (int step = 0; step < 25; ++step) {
      const Version base = versions[random.Uniform(versions.size())];
      Model model = base.model;
      std::vector<std::string> existing;
      for (const auto& [id, image] : model) existing.push_back(id);
      std::set<std::string> chosen;
      for (uint64_t i = random.Uniform(8); i > 0 && !existing.empty(); --i) {
        chosen.insert(existing[random.Uniform(existing.size())]);
      }
      const uint64_t roll = random.Uniform(10);
      Result<TablePin> pin = Status(Code::kInternal, "none");
      if (roll < 3) {
        std::vector<std::string> touched(chosen.begin(), chosen.end());
        for (const std::string& id : touched) model.erase(id);
        pin = tables.Delete(base.pin, touched, kAgainst);
      } else {
        std::vector<std::string> touched(chosen.begin(), chosen.end());
        for (uint64_t i = random.Uniform(6); i > 0; --i) {
          touched.push_back("n" + std::to_string(next++));
        }
        ColumnBatch batch = MakeRows(table.schema, touched, random);
        // Sometimes an upsert rewrites a row with the very same values: no change to report.
        if (roll == 3 && !existing.empty()) {
          auto v = tables.Open(base.pin);
          ASSERT_TRUE(v.ok());
          auto same = (*v)->Lookup(std::vector<std::string>{existing[0]});
          ASSERT_TRUE(same.ok());
          batch = std::move(same->rows);
        }
        ApplyRows(model, batch);
        pin = roll < 9 ? tables.Upsert(base.pin, batch, kAgainst)
                       : tables.Overwrite(base.pin, batch, kAgainst);
        if (roll == 9) {
          model.clear();
          ApplyRows(model, batch);
        }
      }
      ASSERT_TRUE(pin.ok()) << pin.status().ToString();
      versions.push_back({*pin, model});
    }
    for (int pair = 0; pair < 40; ++pair) {
      const Version& a = versions[random.Uniform(versions.size())];
      const Version& b = versions[random.Uniform(versions.size())];
      auto va = tables.Open(a.pin);
      auto vb = tables.Open(b.pin);
      ASSERT_TRUE(va.ok() && vb.ok());
      auto fast = Diff(**va, **vb);
      auto exact = ExactDiff(**va, **vb);
      ASSERT_TRUE(fast.ok()) << fast.status().ToString();
      ASSERT_TRUE(exact.ok()) << exact.status().ToString();
      ExpectSameDiff(*fast, *exact);
      ExpectMatchesModels(*fast, a.model, b.model);
      nonempty[0] += !fast->inserted_ids.empty();
      nonempty[1] += !fast->updated_ids.empty();
      nonempty[2] += !fast->deleted_ids.empty();
    }
    // Every version against its base, in both directions.
    for (size_t i = 1; i < versions.size(); ++i) {
      auto after = tables.Open(versions[i].pin);
      ASSERT_TRUE(after.ok());
      for (const Version& v : versions) {
        if (v.pin.staged_version != *(*after)->manifest().base_staged_version) continue;
        auto before = tables.Open(v.pin);
        ASSERT_TRUE(before.ok());
        for (auto [x, y] : {std::pair{*before, *after}, std::pair{*after, *before}}) {
          auto fast = Diff(*x, *y);
          auto exact = ExactDiff(*x, *y);
          ASSERT_TRUE(fast.ok() && exact.ok());
          ExpectSameDiff(*fast, *exact);
        }
      }
    }
  }
  // The random pairs exercised every kind of change.
  EXPECT_GT(nonempty[0], 20);
  EXPECT_GT(nonempty[1], 20);
  EXPECT_GT(nonempty[2], 20);
}

TEST(TableDiffTest, DiffOfADeleteReadsOnlyTheManifests) {
  auto memory = std::make_shared<storage::MemoryStore>("d");
  auto counting = std::make_shared<storage::CountingStore>(memory);
  TableStore writer(storage::Runtime::ForTest(memory, 4));
  Random random(4);
  const NewTable table{TableId{9, 9}, "T", ModelSchema()};
  auto v1 = writer.Create(table, MakeRows(table.schema, {"a", "b", "c"}, random), kAgainst);
  ASSERT_TRUE(v1.ok());
  auto v2 = writer.Delete(*v1, std::vector<std::string>{"c", "a", "zz"}, kAgainst);
  ASSERT_TRUE(v2.ok());
  TableStore reader(storage::Runtime::ForTest(counting, 5));
  auto before = reader.Open(*v1);
  auto after = reader.Open(*v2);
  ASSERT_TRUE(before.ok() && after.ok());
  const storage::OpCounts opened = counting->Snapshot();
  auto diff = Diff(**before, **after);
  ASSERT_TRUE(diff.ok());
  EXPECT_EQ(counting->Snapshot() - opened, storage::OpCounts{});
  EXPECT_EQ(diff->deleted_ids, (std::vector<std::string>{"a", "c"}));
  EXPECT_TRUE(diff->inserted_ids.empty());
  EXPECT_TRUE(diff->updated_ids.empty());
  auto exact = ExactDiff(**before, **after);
  ASSERT_TRUE(exact.ok());
  ExpectSameDiff(*diff, *exact);
}

TEST(TableDiffTest, VersionsOfDifferentTablesOrSchemasAreRefused) {
  auto store = std::make_shared<storage::MemoryStore>("r");
  TableStore tables(storage::Runtime::ForTest(store, 6));
  Random random(6);
  const NewTable t1{TableId{1, 1}, "A", ModelSchema()};
  const NewTable t2{TableId{2, 1}, "B", ModelSchema()};
  auto a = tables.Create(t1, MakeRows(t1.schema, {"x"}, random), kAgainst);
  auto b = tables.Create(t2, MakeRows(t2.schema, {"x"}, random), kAgainst);
  ASSERT_TRUE(a.ok() && b.ok());
  auto c = tables.Overwrite(*a, MakeRows(ModelSchema(true), {"x"}, random), kAgainst);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  auto va = tables.Open(*a), vb = tables.Open(*b), vc = tables.Open(*c);
  ASSERT_TRUE(va.ok() && vb.ok() && vc.ok());
  EXPECT_EQ(Diff(**va, **vb).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(Diff(**va, **vc).status().code(), Code::kUnsupported);
  EXPECT_EQ(ExactDiff(**va, **vc).status().code(), Code::kUnsupported);
}

}  // namespace
}  // namespace omnigraph::table
