// Concurrent writers stage versions of one table from separate base versions at once, each
// through its own TableStore or one shared store, and concurrent readers share one cache; every
// resulting version matches its model.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <thread>

#include "base/executor.h"
#include "storage/local_store.h"
#include "storage/memory_store.h"
#include "storage/test_util.h"
#include "table/index_delta.h"
#include "table/model_table.h"
#include "table/table_store.h"

namespace omnigraph::table {
namespace {

constexpr int kWriters = 4;
constexpr int kStepsPerWriter = 8;

struct Version {
  TablePin pin;
  Model model;
};

// Each writer starts from its own base version and chains kStepsPerWriter upserts and deletes.
void RunWriters(std::shared_ptr<storage::ObjectStore> store, bool shared_store) {
  auto base_store = std::make_shared<TableStore>(storage::Runtime::ForTest(store, 1));
  const NewTable table{TableId{5, 1}, "Person", ModelSchema()};
  Random random(77);
  std::vector<Version> bases;
  for (int w = 0; w < kWriters; ++w) {
    std::vector<std::string> ids = {"w" + std::to_string(w) + "-0", "shared"};
    ColumnBatch rows = MakeRows(table.schema, ids, random);
    auto pin = base_store->Create(table, rows, StagedAgainst{"main", 0});
    ASSERT_TRUE(pin.ok());
    bases.push_back({*pin, ModelOf(rows)});
  }
  auto pool = std::make_shared<ThreadPool>(2);
  std::vector<std::vector<Version>> results(kWriters);
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w]() {
      storage::Runtime runtime = storage::Runtime::ForStore(store, 2);
      runtime.executor = pool;
      std::shared_ptr<TableStore> tables =
          shared_store ? base_store : std::make_shared<TableStore>(runtime);
      Random local(1000 + w);
      Version current = bases[w];
      for (int step = 0; step < kStepsPerWriter; ++step) {
        Result<TablePin> pin = Status(Code::kInternal, "none");
        if (step % 3 == 2) {
          std::vector<std::string> gone = {
              "shared", "w" + std::to_string(w) + "-" + std::to_string(step - 1)};
          for (const std::string& id : gone) current.model.erase(id);
          pin = tables->Delete(current.pin, gone, StagedAgainst{"b" + std::to_string(w), 0});
        } else {
          std::vector<std::string> ids = {"w" + std::to_string(w) + "-" + std::to_string(step),
                                          "shared"};
          ColumnBatch rows = MakeRows(table.schema, ids, local);
          ApplyRows(current.model, rows);
          pin = tables->Upsert(current.pin, rows, StagedAgainst{"b" + std::to_string(w), 0});
        }
        if (!pin.ok()) {
          ADD_FAILURE() << pin.status().ToString();
          return;
        }
        current.pin = *pin;
        results[w].push_back(current);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  std::set<uint64_t> staged;
  TableStore reader(storage::Runtime::ForTest(store, 2));
  for (const auto& writer : results) {
    ASSERT_EQ(writer.size(), static_cast<size_t>(kStepsPerWriter));
    for (const Version& v : writer) {
      EXPECT_TRUE(staged.insert(v.pin.staged_version).second);
      auto version = reader.Open(v.pin);
      ASSERT_TRUE(version.ok()) << version.status().ToString();
      auto all = (*version)->ScanAll({});
      ASSERT_TRUE(all.ok()) << all.status().ToString();
      EXPECT_EQ(ModelOf(*all), v.model);
    }
  }
  // The bases are untouched.
  for (const Version& base : bases) {
    auto all = (*reader.Open(base.pin))->ScanAll({});
    ASSERT_TRUE(all.ok());
    EXPECT_EQ(ModelOf(*all), base.model);
  }
}

TEST(TableConcurrencyTest, WritersOnSeparateBasesWithTheirOwnStoresNeverInterfere) {
  RunWriters(std::make_shared<storage::MemoryStore>("conc"), /*shared_store=*/false);
}

TEST(TableConcurrencyTest, WritersSharingOneTableStoreNeverInterfere) {
  RunWriters(std::make_shared<storage::MemoryStore>("conc2"), /*shared_store=*/true);
}

TEST(TableConcurrencyTest, WritersOnALocalDirectoryNeverInterfere) {
  storage::TempDir dir;
  auto local = storage::LocalStore::Open(dir.path());
  ASSERT_TRUE(local.ok());
  RunWriters(std::move(local).value(), /*shared_store=*/false);
}

TEST(TableConcurrencyTest, ConcurrentReadersShareOneCache) {
  auto store = std::make_shared<storage::MemoryStore>("readers");
  TableStoreOptions options;
  options.fragment_rows_max = 32;
  options.cache_bytes = 64 << 10;  // Small, so entries are evicted while readers hold them.
  TableStore tables(storage::Runtime::ForTest(store, 3), options);
  const NewTable table{TableId{6, 1}, "Person", ModelSchema()};
  Random random(3);
  std::vector<std::string> ids;
  for (int i = 0; i < 300; ++i) ids.push_back("r" + std::to_string(i));
  ColumnBatch rows = MakeRows(table.schema, ids, random);
  const Model model = ModelOf(rows);
  auto pin = tables.Create(table, rows, std::nullopt);
  ASSERT_TRUE(pin.ok());
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t]() {
      for (int round = 0; round < 5; ++round) {
        auto version = tables.Open(*pin);
        if (!version.ok()) {
          ADD_FAILURE() << version.status().ToString();
          return;
        }
        if ((t + round) % 2 == 0) {
          auto all = (*version)->ScanAll({});
          EXPECT_TRUE(all.ok() && ModelOf(*all) == model);
        } else {
          const std::vector<std::string> want = {ids[(t * 37 + round) % 300], "missing"};
          auto found = (*version)->Lookup(want);
          ASSERT_TRUE(found.ok());
          EXPECT_EQ(found->found, (std::vector<bool>{true, false}));
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_LE(tables.cache().charged_bytes(), options.cache_bytes);
}

}  // namespace
}  // namespace omnigraph::table

namespace omnigraph::table {
namespace {

// Readers share one layered id index (table/layered_ids.h) and race to its flat copy: some walk
// every position (which makes the copy), some ask positions and ids point by point (answered
// through the layers until the copy exists). Every answer equals the flat merge's, and the copy
// is made once.
TEST(TableConcurrencyTest, ReadersOfOneLayeredIndexRaceToItsFlatCopy) {
  std::string blob;
  std::vector<uint32_t> ends;
  std::vector<RowRef> refs;
  for (uint32_t i = 0; i < 4000; ++i) {
    blob += "id" + std::to_string(100000 + 2 * i);
    ends.push_back(static_cast<uint32_t>(blob.size()));
    refs.push_back(RowRef{0, i});
  }
  const IdIndex base(std::move(blob), std::move(ends), std::move(refs));
  TableManifest manifest;
  manifest.fragments.push_back(FragmentEntry{"f0", "data/f0.ogf", 4000, 0, {}});
  manifest.entity_count = 4000;
  IdIndex layered = base;
  IdIndex flat = base;
  // Three one-row writes: an insert between two base ids, a delete, a rewrite.
  for (int w = 1; w <= 3; ++w) {
    TableManifest next = manifest;
    next.fragments.push_back(FragmentEntry{"f" + std::to_string(w), "", 1, 0, {}});
    IdsDelta delta;
    const std::string id = "id" + std::to_string(100000 + 2 * (500 * w) + (w == 1 ? 1 : 0));
    if (w == 2) {
      delta.removed.blob = id;
      delta.removed.ends = {static_cast<uint32_t>(id.size())};
      next.entity_count = manifest.entity_count - 1;
    } else {
      delta.added.blob = id;
      delta.added.ends = {static_cast<uint32_t>(id.size())};
      delta.refs = {RowRef{static_cast<uint32_t>(w), 0}};
      next.entity_count = manifest.entity_count + (w == 1 ? 1 : 0);
    }
    layered = *layered.Extend(manifest, delta, next, "t");
    flat = *ApplyIdsDelta(flat, manifest, delta, next, "t");
    manifest = next;
  }
  ASSERT_TRUE(layered.layered());
  ASSERT_EQ(layered.size(), flat.size());
  std::atomic<int> wrong{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 6; ++t) {
    readers.emplace_back([&, t] {
      for (size_t i = t; i < flat.size(); i += (t % 2 == 0 ? 1 : 37)) {
        if (layered.IdAt(i) != flat.IdAt(i) || layered.RefAt(i) != flat.RefAt(i) ||
            layered.Position(flat.IdAt(i)) != static_cast<int64_t>(i)) {
          ++wrong;
        }
      }
    });
  }
  for (std::thread& reader : readers) reader.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(layered.entries_flattened(), flat.size());
  EXPECT_TRUE(std::ranges::equal(layered.refs(), flat.refs()));
}

}  // namespace
}  // namespace omnigraph::table
