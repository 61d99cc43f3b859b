// Pending rows: fragments written ahead (WriteFragment) and staged later as an append, upsert or
// overwrite, with superseded rows deleted (the streaming load's table entry point).
#include <gtest/gtest.h>

#include "storage/counting_store.h"
#include "storage/memory_store.h"
#include "table/model_table.h"
#include "table/table_store.h"

namespace omnigraph::table {
namespace {

const StagedAgainst kAgainst{"main", 3};

class TablePendingTest : public ::testing::Test {
 protected:
  TablePendingTest()
      : store_(std::make_shared<storage::CountingStore>(std::make_shared<storage::MemoryStore>())),
        runtime_(storage::Runtime::ForTest(store_, 5)),
        tables_(runtime_),
        random_(9) {
    table_ = NewTable{TableId{0x21, 0x1}, "node:Person", ModelSchema()};
    base_rows_ = MakeRows(table_.schema, {"a", "b", "c"}, random_);
    base_ = *tables_.Create(table_, base_rows_, std::nullopt);
  }

  // Writes `batches` as fragments; a later batch's row replaces an earlier one of the same id.
  // Returns the pending rows and the model of what they hold.
  std::pair<PendingRows, Model> Pending(const std::vector<std::vector<std::string>>& batches) {
    PendingRows pending;
    pending.table = table_.id;
    pending.schema = table_.schema;
    std::map<std::string, std::pair<uint32_t, uint32_t>> where;
    Model model;
    for (const auto& ids : batches) {
      ColumnBatch rows = MakeRows(table_.schema, ids, random_);
      ApplyRows(model, rows);
      const uint32_t f = static_cast<uint32_t>(pending.fragments.size());
      for (uint32_t r = 0; r < ids.size(); ++r) {
        auto [it, fresh] = where.try_emplace(ids[r], f, r);
        if (!fresh) {
          pending.superseded[it->second.first].push_back(it->second.second);
          it->second = {f, r};
        }
      }
      Result<FragmentEntry> entry = tables_.WriteFragment(table_.id, rows);
      OMNIGRAPH_CHECK_MSG(entry.ok(), entry.status().ToString());
      pending.fragments.push_back(*entry);
    }
    for (auto& [f, rows] : pending.superseded) std::sort(rows.begin(), rows.end());
    std::vector<std::string_view> live;
    for (const auto& [id, at] : where) live.push_back(id);
    pending.ids = SortedRecords::FromKeys(std::move(live));
    return {pending, model};
  }

  Model ModelAt(const TablePin& pin) {
    Result<std::shared_ptr<const TableVersion>> v = tables_.Open(pin);
    OMNIGRAPH_CHECK(v.ok());
    Result<ColumnBatch> all = (*v)->ScanAll({});
    OMNIGRAPH_CHECK(all.ok());
    EXPECT_EQ((*v)->entity_count(), all->num_rows());
    return ModelOf(*all);
  }

  std::shared_ptr<storage::CountingStore> store_;
  storage::Runtime runtime_;
  TableStore tables_;
  Random random_;
  NewTable table_;
  ColumnBatch base_rows_;
  TablePin base_;
};

TEST_F(TablePendingTest, WriteFragmentWritesOneObjectAndNoManifest) {
  const storage::OpCounts before = store_->Snapshot();
  Result<FragmentEntry> entry =
      tables_.WriteFragment(table_.id, MakeRows(table_.schema, {"x", "y"}, random_));
  ASSERT_TRUE(entry.ok()) << entry.status().ToString();
  EXPECT_EQ(entry->rows, 2u);
  EXPECT_EQ(entry->path, "data/" + entry->id + ".ogf");
  EXPECT_EQ(store_->Snapshot().put_if_absent - before.put_if_absent, 1u);
  Result<FragmentEntry> twice =
      tables_.WriteFragment(table_.id, MakeRows(table_.schema, {"x", "x"}, random_));
  EXPECT_EQ(twice.status().code(), Code::kInvalidArgument);
}

// Ids that ascend are distinct without a hash table (decision 249): equal neighbours in an
// otherwise ascending batch, a repeat far apart and a repeat after a descent are all refused,
// with nothing written; distinct ids in any order are written.
TEST_F(TablePendingTest, WriteFragmentRefusesARepeatedIdInAscendingAndUnorderedBatches) {
  const std::vector<std::vector<std::string>> refused = {
      {"a", "b", "b", "c"}, {"a", "b", "c", "a"}, {"c", "b", "a", "c"}, {"a", "a"}};
  for (const std::vector<std::string>& ids : refused) {
    const storage::OpCounts before = store_->Snapshot();
    Result<FragmentEntry> entry =
        tables_.WriteFragment(table_.id, MakeRows(table_.schema, ids, random_));
    EXPECT_EQ(entry.status().code(), Code::kInvalidArgument) << ::testing::PrintToString(ids);
    EXPECT_NE(entry.status().message().find("appears twice in one write"), std::string::npos);
    EXPECT_EQ(store_->Snapshot().put_if_absent - before.put_if_absent, 0u);
  }
  const std::vector<std::vector<std::string>> written = {
      {"a", "ab", "b", "c"}, {"c", "b", "a"}, {"b", "a", "c", "d"}, {"only"}};
  for (const std::vector<std::string>& ids : written) {
    Result<FragmentEntry> entry =
        tables_.WriteFragment(table_.id, MakeRows(table_.schema, ids, random_));
    ASSERT_TRUE(entry.ok()) << entry.status().ToString();
    EXPECT_EQ(entry->rows, ids.size());
  }
}

TEST_F(TablePendingTest, AppendAddsTheLiveRowsAndRefusesHeldIds) {
  auto [pending, model] = Pending({{"d", "e", "f"}, {"e", "g"}, {"f"}});
  Result<TablePin> pin = tables_.AppendPending(base_, pending, kAgainst);
  ASSERT_TRUE(pin.ok()) << pin.status().ToString();
  Model expected = ModelOf(base_rows_);
  for (auto& [id, image] : model) expected[id] = image;
  EXPECT_EQ(ModelAt(*pin), expected);
  EXPECT_EQ(pin->entity_count, 7u);

  auto [clash, unused] = Pending({{"z", "b"}});
  Result<TablePin> refused = tables_.AppendPending(base_, clash, kAgainst);
  EXPECT_EQ(refused.status().code(), Code::kKeyConflict);
}

TEST_F(TablePendingTest, UpsertReplacesHeldIdsAndAFullySupersededFragmentIsLeftOut) {
  auto [pending, model] = Pending({{"b", "x"}, {"b", "x"}, {"y"}});
  Result<TablePin> pin = tables_.UpsertPending(base_, pending, kAgainst);
  ASSERT_TRUE(pin.ok()) << pin.status().ToString();
  Model expected = ModelOf(base_rows_);
  for (auto& [id, image] : model) expected[id] = image;
  EXPECT_EQ(ModelAt(*pin), expected);
  Result<std::shared_ptr<const TableVersion>> v = tables_.Open(*pin);
  // The base fragment (with a deletion vector for b) and the pending fragments 1 and 2; fragment
  // 0 is entirely superseded.
  EXPECT_EQ((*v)->manifest().fragments.size(), 3u);
}

TEST_F(TablePendingTest, OverwriteKeepsOnlyThePendingRows) {
  auto [pending, model] = Pending({{"a", "q"}, {"q", "r"}});
  Result<TablePin> pin = tables_.OverwritePending(base_, pending, kAgainst);
  ASSERT_TRUE(pin.ok()) << pin.status().ToString();
  EXPECT_EQ(ModelAt(*pin), model);
  Result<std::shared_ptr<const TableVersion>> v = tables_.Open(*pin);
  Result<std::vector<std::string>> deleted = (*v)->DeletedIds();
  EXPECT_EQ(*deleted, (std::vector<std::string>{"b", "c"}));
}

TEST_F(TablePendingTest, ReadPendingReturnsTheLiveRowsInOrder) {
  auto [pending, model] = Pending({{"d", "e", "f"}, {"e", "g"}, {"f"}});
  Result<ColumnBatch> rows = tables_.ReadPending(pending);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(ModelOf(*rows), model);
  std::vector<std::string> ids;
  for (uint64_t r = 0; r < rows->num_rows(); ++r) {
    ids.emplace_back(rows->FindColumn(kIdFieldId)->StringAt(r));
  }
  EXPECT_EQ(ids, (std::vector<std::string>{"d", "e", "g", "f"}));
}

TEST_F(TablePendingTest, InconsistentPendingRowsAreRefused) {
  auto [pending, model] = Pending({{"d", "e"}});
  PendingRows wrong_ids = pending;
  wrong_ids.ids = SortedRecords::FromKeys({"d"});
  EXPECT_EQ(tables_.AppendPending(base_, wrong_ids, kAgainst).status().code(),
            Code::kInvalidArgument);
  PendingRows wrong_row = pending;
  wrong_row.superseded[0] = {5};
  wrong_row.ids = SortedRecords::FromKeys({"d"});
  EXPECT_EQ(tables_.UpsertPending(base_, wrong_row, kAgainst).status().code(),
            Code::kInvalidArgument);
  PendingRows other_table = pending;
  other_table.table = TableId{0x21, 0x2};
  EXPECT_EQ(tables_.OverwritePending(base_, other_table, kAgainst).status().code(),
            Code::kInvalidArgument);
}

}  // namespace
}  // namespace omnigraph::table
