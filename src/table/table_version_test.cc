// Table versions: randomized operation sequences against an in-memory model, lookups, id order,
// scans with predicates, manifests (staged_version, transaction id, deleted ids) and caching.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <set>

#include "storage/counting_store.h"
#include "storage/fault_store.h"
#include "storage/memory_store.h"
#include "table/column_builder.h"
#include "table/model_table.h"
#include "table/row_gather.h"
#include "table/table_store.h"

namespace omnigraph::table {
namespace {

const StagedAgainst kAgainst{"main", 7};

class TableVersionTest : public ::testing::Test {
 protected:
  explicit TableVersionTest(uint64_t fragment_rows_max = 16) {
    clock_ = std::make_shared<ManualClock>();
    store_ = std::make_shared<storage::MemoryStore>("t", clock_.get());
    runtime_ = storage::Runtime::ForTest(store_, 11);
    runtime_.clock = clock_;
    TableStoreOptions options;
    options.fragment_rows_max = fragment_rows_max;
    tables_ = std::make_unique<TableStore>(runtime_, options);
  }

  NewTable Table(bool edge = false) {
    return NewTable{TableId{0x12, 0x3}, edge ? "Knows" : "Person", ModelSchema(edge)};
  }

  std::shared_ptr<const TableVersion> Open(const TablePin& pin) {
    auto version = tables_->Open(pin);
    EXPECT_TRUE(version.ok()) << version.status().ToString();
    return version.ok() ? *version : nullptr;
  }

  // Every check a version must pass against its model.
  void ExpectMatchesModel(const TableVersion& version, const Model& model, Random& random) {
    EXPECT_EQ(version.entity_count(), model.size());
    Result<ColumnBatch> all = version.ScanAll({});
    ASSERT_TRUE(all.ok()) << all.status().ToString();
    EXPECT_EQ(ModelOf(*all), model);
    // Id order.
    std::vector<std::string> ordered;
    ASSERT_TRUE(version
                    .ScanInIdOrder(std::vector<uint32_t>{kIdFieldId}, 5,
                                   [&](ColumnBatch batch) {
                                     EXPECT_LE(batch.num_rows(), 5u);
                                     for (uint64_t r = 0; r < batch.num_rows(); ++r) {
                                       ordered.emplace_back(batch.column(0).StringAt(r));
                                     }
                                     return Status::Ok();
                                   })
                    .ok());
    std::vector<std::string> expected_ids;
    for (const auto& [id, image] : model) expected_ids.push_back(id);
    EXPECT_EQ(ordered, expected_ids);
    // Lookups of present and missing ids.
    std::vector<std::string> ids = {"missing-" + std::to_string(random.Uniform(1000))};
    for (int i = 0; i < 5 && !model.empty(); ++i) {
      auto it = model.begin();
      std::advance(it, random.Uniform(model.size()));
      ids.push_back(it->first);
    }
    Result<LookupResult> found = version.Lookup(ids);
    ASSERT_TRUE(found.ok()) << found.status().ToString();
    uint64_t row = 0;
    for (size_t i = 0; i < ids.size(); ++i) {
      auto it = model.find(ids[i]);
      ASSERT_EQ(found->found[i], it != model.end()) << ids[i];
      if (it != model.end()) {
        EXPECT_EQ(RowImage(found->rows, row++), it->second) << ids[i];
      }
    }
    EXPECT_EQ(found->rows.num_rows(), row);
  }

  std::shared_ptr<ManualClock> clock_;
  std::shared_ptr<storage::MemoryStore> store_;
  storage::Runtime runtime_;
  std::unique_ptr<TableStore> tables_;
};

// One random operation on `base` (a version and its model); returns the new pin and model.
std::pair<TablePin, Model> RandomOperation(TableStore& tables, const Schema& schema,
                                           const TablePin& base, const Model& model, Random& random,
                                           uint64_t& next_id) {
  std::vector<std::string> existing;
  for (const auto& [id, image] : model) existing.push_back(id);
  auto fresh = [&]() { return "p" + std::to_string(next_id++); };
  auto some_existing = [&](size_t n) {
    std::set<std::string> out;
    for (size_t i = 0; i < n && !existing.empty(); ++i) {
      out.insert(existing[random.Uniform(existing.size())]);
    }
    return std::vector<std::string>(out.begin(), out.end());
  };
  Model next = model;
  const uint64_t roll = random.Uniform(10);
  Result<TablePin> pin = Status(Code::kInternal, "no operation");
  if (roll < 3) {
    std::vector<std::string> ids;
    for (uint64_t i = random.Uniform(40); i > 0; --i) ids.push_back(fresh());
    ColumnBatch rows = MakeRows(schema, ids, random);
    ApplyRows(next, rows);
    pin = tables.Append(base, rows, kAgainst);
  } else if (roll < 6) {
    std::vector<std::string> ids = some_existing(random.Uniform(20));
    for (uint64_t i = random.Uniform(10); i > 0; --i) ids.push_back(fresh());
    ColumnBatch rows = MakeRows(schema, ids, random);
    ApplyRows(next, rows);
    pin = tables.Upsert(base, rows, kAgainst);
  } else if (roll < 9) {
    std::vector<std::string> ids = some_existing(random.Uniform(25));
    for (const std::string& id : ids) next.erase(id);
    ids.push_back("never-" + std::to_string(random.Uniform(100)));
    pin = tables.Delete(base, ids, kAgainst);
  } else {
    std::vector<std::string> ids = some_existing(random.Uniform(15));
    for (uint64_t i = random.Uniform(30); i > 0; --i) ids.push_back(fresh());
    ColumnBatch rows = MakeRows(schema, ids, random);
    next.clear();
    ApplyRows(next, rows);
    pin = tables.Overwrite(base, rows, kAgainst);
  }
  OMNIGRAPH_CHECK_MSG(pin.ok(), pin.status().ToString());
  return {*pin, next};
}

TEST_F(TableVersionTest, RandomOperationsMatchTheModelAtEveryVersion) {
  for (uint64_t seed : {1, 2, 3, 4}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Random random(seed);
    const NewTable table = Table(seed % 2 == 0);
    std::vector<std::string> first = {"a", "b", "c"};
    ColumnBatch rows = MakeRows(table.schema, first, random);
    Result<TablePin> created = tables_->Create(table, rows, std::nullopt);
    ASSERT_TRUE(created.ok()) << created.status().ToString();
    std::vector<std::pair<TablePin, Model>> versions = {{*created, ModelOf(rows)}};
    uint64_t next_id = 0;
    for (int step = 0; step < 40; ++step) {
      // Any earlier version may be the base: versions branch.
      const auto& [base, model] = versions[random.Uniform(versions.size())];
      auto [pin, next] = RandomOperation(*tables_, table.schema, base, model, random, next_id);
      EXPECT_EQ(pin.target_version, base.target_version + 1);
      EXPECT_EQ(pin.entity_count, next.size());
      auto version = Open(pin);
      ASSERT_NE(version, nullptr);
      ExpectMatchesModel(*version, next, random);
      versions.emplace_back(pin, std::move(next));
    }
    // Every version again, through a store with a cold cache.
    TableStore cold(runtime_);
    for (const auto& [pin, model] : versions) {
      auto version = cold.Open(pin);
      ASSERT_TRUE(version.ok()) << version.status().ToString();
      ExpectMatchesModel(**version, model, random);
    }
  }
}

TEST_F(TableVersionTest, IdOrderMergesFragmentsWhetherOrNotTheyAreSorted) {
  Random random(9);
  const NewTable table = Table();
  auto ids_of = [&](const TablePin& pin) {
    auto version = Open(pin);
    Result<std::vector<std::string>> ids = version->Ids();
    EXPECT_TRUE(ids.ok());
    return ids.ok() ? *ids : std::vector<std::string>{};
  };
  // Fragments that follow one another in id order (concatenated, no merge).
  Result<TablePin> ordered =
      tables_->Create(table, MakeRows(table.schema, {"a", "b"}, random), std::nullopt);
  ASSERT_TRUE(ordered.ok());
  ordered = tables_->Append(*ordered, MakeRows(table.schema, {"c", "d"}, random), std::nullopt);
  ASSERT_TRUE(ordered.ok());
  EXPECT_EQ(ids_of(*ordered), (std::vector<std::string>{"a", "b", "c", "d"}));
  // An unsorted fragment, a sorted one interleaving with it, one after both, and a deletion.
  Result<TablePin> mixed =
      tables_->Create(table, MakeRows(table.schema, {"m", "c", "x", "a"}, random), std::nullopt);
  ASSERT_TRUE(mixed.ok());
  mixed = tables_->Append(*mixed, MakeRows(table.schema, {"b", "d", "y"}, random), std::nullopt);
  ASSERT_TRUE(mixed.ok());
  mixed = tables_->Append(*mixed, MakeRows(table.schema, {"z1", "z2"}, random), std::nullopt);
  ASSERT_TRUE(mixed.ok());
  const std::vector<std::string> gone = {"c"};
  mixed = tables_->Delete(*mixed, gone, std::nullopt);
  ASSERT_TRUE(mixed.ok());
  EXPECT_EQ(ids_of(*mixed), (std::vector<std::string>{"a", "b", "d", "m", "x", "y", "z1", "z2"}));
  auto version = Open(*mixed);
  const std::vector<std::string> asked = {"y", "c", "a", "z2"};
  Result<LookupResult> found = version->Lookup(asked);
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(found->found, (std::vector<bool>{true, false, true, true}));
}

TEST_F(TableVersionTest, BaseOpensTheVersionAWriteWasStagedFrom) {
  Random random(4);
  const NewTable table = Table();
  Result<TablePin> created =
      tables_->Create(table, MakeRows(table.schema, {"a", "b"}, random), std::nullopt);
  ASSERT_TRUE(created.ok());
  EXPECT_EQ(Open(*created)->Base().status().kind(), Kind::kNotFound);  // Created: no base.
  Result<TablePin> appended =
      tables_->Append(*created, MakeRows(table.schema, {"c"}, random), std::nullopt);
  ASSERT_TRUE(appended.ok());
  Result<std::shared_ptr<const TableVersion>> base = Open(*appended)->Base();
  ASSERT_TRUE(base.ok()) << base.status().ToString();
  EXPECT_EQ((*base)->manifest(), Open(*created)->manifest());
  EXPECT_EQ((*base)->entity_count(), 2u);
  // A base cleaned up (its manifest gone) is NotFound.
  ASSERT_TRUE(store_->Delete(ManifestName(table.id, created->staged_version)).ok());
  auto cold = std::make_unique<TableStore>(runtime_, TableStoreOptions{});
  Result<std::shared_ptr<const TableVersion>> again = cold->Open(*appended);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ((*again)->Base().status().kind(), Kind::kNotFound);
}

TEST_F(TableVersionTest, LookupOfMissingIdsFindsNothing) {
  Random random(5);
  const NewTable table = Table();
  auto pin = tables_->Create(table, MakeRows(table.schema, {"x", "y"}, random), kAgainst);
  ASSERT_TRUE(pin.ok());
  auto version = Open(*pin);
  const std::vector<std::string> ids = {"nope", "x", "", "yy", "y", "x"};
  Result<LookupResult> found = version->Lookup(ids, std::vector<uint32_t>{kIdFieldId});
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(found->found, (std::vector<bool>{false, true, false, false, true, true}));
  ASSERT_EQ(found->rows.num_rows(), 3u);
  EXPECT_EQ(found->rows.column(0).StringAt(0), "x");
  EXPECT_EQ(found->rows.column(0).StringAt(1), "y");
  EXPECT_EQ(found->rows.column(0).StringAt(2), "x");
  // An empty version finds nothing either.
  auto emptied = tables_->Delete(*pin, std::vector<std::string>{"x", "y"}, kAgainst);
  ASSERT_TRUE(emptied.ok());
  found = Open(*emptied)->Lookup(ids);
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(found->found, std::vector<bool>(ids.size(), false));
  EXPECT_EQ(found->rows.num_rows(), 0u);
  EXPECT_TRUE(Open(*emptied)->manifest().fragments.empty());
}

TEST_F(TableVersionTest, ManifestWhoseTransactionIdDiffersFromThePinIsRefused) {
  Random random(6);
  auto pin = tables_->Create(Table(), MakeRows(Table().schema, {"a"}, random), kAgainst);
  ASSERT_TRUE(pin.ok());
  TablePin wrong = *pin;
  wrong.transaction_uuid = "00000000-0000-7000-8000-000000000000";
  auto refused = tables_->Open(wrong);
  EXPECT_EQ(refused.status().code(), Code::kCorruption);
  EXPECT_NE(refused.status().message().find("transaction_uuid"), std::string::npos);
  EXPECT_EQ(refused.status().object(), ManifestName(pin->table(), pin->staged_version));
  // Writes from such a pin are refused the same way, and write nothing.
  const size_t objects = store_->size();
  EXPECT_EQ(tables_->Delete(wrong, std::vector<std::string>{"a"}, kAgainst).status().code(),
            Code::kCorruption);
  EXPECT_EQ(store_->size(), objects);
  // A pin naming an absent version is NotFound.
  TablePin absent = *pin;
  absent.staged_version ^= 1;
  EXPECT_EQ(tables_->Open(absent).status().code(), Code::kNotFound);
}

TEST_F(TableVersionTest, StagedVersionHasBit63AndIsRedrawnOnCollision) {
  // Two writers with identical seeds and clocks draw the same first staged_version.
  auto store = std::make_shared<storage::MemoryStore>("collide");
  TableStore a(storage::Runtime::ForTest(store, 99));
  TableStore b(storage::Runtime::ForTest(store, 99));
  NewTable table = Table();
  Random random(1);
  ColumnBatch none = MakeRows(table.schema, {}, random);
  auto first = a.Create(table, none, kAgainst);
  table.table_key = "Other";  // Different bytes, so b's first manifest is not a's.
  auto second = b.Create(table, none, kAgainst);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_NE(first->staged_version & kStagedVersionBit, 0u);
  EXPECT_NE(second->staged_version & kStagedVersionBit, 0u);
  EXPECT_NE(first->staged_version, second->staged_version);
  auto listed = a.ListObjects(table.id);
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->size(), 2u);
  auto v1 = a.Open(*first);
  auto v2 = b.Open(*second);
  ASSERT_TRUE(v1.ok() && v2.ok());
  EXPECT_EQ((*v1)->manifest().table_key, "Person");
  EXPECT_EQ((*v2)->manifest().table_key, "Other");
}

TEST_F(TableVersionTest, ManifestRecordsOperationCountsAndStagedAgainst) {
  Random random(7);
  const NewTable table = Table();
  auto v1 = tables_->Create(table, MakeRows(table.schema, {"a", "b", "c"}, random), std::nullopt);
  ASSERT_TRUE(v1.ok());
  auto v2 = tables_->Upsert(*v1, MakeRows(table.schema, {"b", "d"}, random), kAgainst);
  ASSERT_TRUE(v2.ok());
  const TableManifest& m = Open(*v2)->manifest();
  EXPECT_EQ(m.operation, Operation::kUpsert);
  EXPECT_EQ(m.base_staged_version, v1->staged_version);
  EXPECT_EQ(m.target_version, 2u);
  EXPECT_EQ(m.inserted_ids_count, 1u);
  EXPECT_EQ(m.updated_ids_count, 1u);
  EXPECT_EQ(m.entity_count, 4u);
  EXPECT_EQ(m.staged_against, kAgainst);
  EXPECT_FALSE(Open(*v1)->manifest().staged_against.has_value());
  EXPECT_FALSE(Open(*v1)->manifest().base_staged_version.has_value());
  // The base's fragment gained a deletion vector of one row; the base version is untouched.
  ASSERT_EQ(m.fragments.size(), 2u);
  ASSERT_TRUE(m.fragments[0].deletion.has_value());
  EXPECT_EQ(m.fragments[0].deletion->count, 1u);
  EXPECT_FALSE(Open(*v1)->manifest().fragments[0].deletion.has_value());
  // Append of an id the base holds is a key conflict and writes nothing.
  const size_t objects = store_->size();
  EXPECT_EQ(
      tables_->Append(*v2, MakeRows(table.schema, {"z", "d"}, random), kAgainst).status().code(),
      Code::kKeyConflict);
  EXPECT_EQ(store_->size(), objects);
  // An id twice in one batch, or one over 4096 bytes, is InvalidArgument.
  EXPECT_EQ(
      tables_->Upsert(*v2, MakeRows(table.schema, {"q", "q"}, random), kAgainst).status().code(),
      Code::kInvalidArgument);
  EXPECT_EQ(tables_
                ->Append(*v2, MakeRows(table.schema, {std::string(kIdBytesMax + 1, 'x')}, random),
                         kAgainst)
                .status()
                .code(),
            Code::kInvalidArgument);
  EXPECT_EQ(store_->size(), objects);
  // The empty id is an id: it is written, found by the id index and deleted like any other.
  auto v3 = tables_->Append(*v2, MakeRows(table.schema, {""}, random), kAgainst);
  ASSERT_TRUE(v3.ok()) << v3.status().ToString();
  std::shared_ptr<const TableVersion> with_empty = Open(*v3);
  const std::vector<std::string> empty_id = {""};
  Result<LookupResult> found = with_empty->Lookup(empty_id);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(found->found, std::vector<bool>{true});
  Result<std::vector<std::string>> ids = with_empty->Ids();
  ASSERT_TRUE(ids.ok());
  EXPECT_EQ(ids->front(), "");
}

TEST_F(TableVersionTest, DeletedIdsAreInlineUpTo64KiBAndInASideFileBeyond) {
  Random random(8);
  const NewTable table = Table();
  std::vector<std::string> ids;
  for (int i = 0; i < 6000; ++i) ids.push_back("person-with-a-long-id-" + std::to_string(i));
  auto v1 = tables_->Create(table, MakeRows(table.schema, ids, random), kAgainst);
  ASSERT_TRUE(v1.ok());
  const std::vector<std::string> few(ids.begin(), ids.begin() + 10);
  auto small = tables_->Delete(*v1, few, kAgainst);
  ASSERT_TRUE(small.ok());
  auto small_version = Open(*small);
  EXPECT_FALSE(small_version->manifest().deleted_ids_path.has_value());
  EXPECT_EQ(small_version->manifest().deleted_ids.size(), 10u);
  std::vector<std::string> many(ids.begin(), ids.begin() + 5000);
  ASSERT_GT(DeletedIdsJsonBytes(many), kDeletedIdsInlineBytesMax);
  auto large = tables_->Delete(*v1, many, kAgainst);
  ASSERT_TRUE(large.ok());
  auto large_version = Open(*large);
  ASSERT_TRUE(large_version->manifest().deleted_ids_path.has_value());
  EXPECT_TRUE(large_version->manifest().deleted_ids.empty());
  EXPECT_EQ(large_version->manifest().deleted_ids_count, 5000u);
  auto got = large_version->DeletedIds();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  std::sort(many.begin(), many.end());
  EXPECT_EQ(*got, many);
  EXPECT_EQ(large_version->entity_count(), 1000u);
  const auto names = large_version->ObjectNames();
  EXPECT_NE(std::find(names.begin(), names.end(),
                      ObjectName(v1->table(), *large_version->manifest().deleted_ids_path)),
            names.end());
}

TEST_F(TableVersionTest, StagingWritesWithLostAcknowledgementsAreReDriven) {
  auto faults = std::make_shared<storage::FaultStore>(store_);
  storage::Runtime runtime = runtime_;
  runtime.store = faults;
  TableStore tables(runtime);
  const NewTable table = Table();
  Random random(12);
  auto v1 = tables.Create(table, MakeRows(table.schema, {"a", "b", "c"}, random), kAgainst);
  ASSERT_TRUE(v1.ok());
  const std::string root = table.id.Root();
  // Every kind of staging write: effect then Unknown, or Transient before effect.
  faults->AddRule({storage::Mask(storage::Op::kPutIfAbsent), root + "/data/",
                   storage::FaultKind::kUnknownAfterEffect});
  faults->AddRule({storage::Mask(storage::Op::kPutIfAbsent), root + "/deletions/",
                   storage::FaultKind::kTransientBeforeEffect});
  faults->AddRule({storage::Mask(storage::Op::kPutIfAbsent), root + "/versions/",
                   storage::FaultKind::kUnknownAfterEffect});
  const size_t before = store_->size();
  ColumnBatch rows = MakeRows(table.schema, {"b", "d"}, random);
  auto v2 = tables.Upsert(*v1, rows, kAgainst);
  ASSERT_TRUE(v2.ok()) << v2.status().ToString();
  // Exactly one fragment, one deletion vector and one manifest: no duplicates from re-drives.
  EXPECT_EQ(store_->size(), before + 3);
  Model model = ModelOf(*(*tables.Open(*v1))->ScanAll({}));
  ApplyRows(model, rows);
  auto version = tables.Open(*v2);
  ASSERT_TRUE(version.ok());
  ExpectMatchesModel(**version, model, random);
  // A store that keeps failing: the write gives up after kStagingAttemptsMax attempts.
  faults->AddRule({storage::Mask(storage::Op::kPutIfAbsent), root + "/",
                   storage::FaultKind::kTransientBeforeEffect, 0, -1});
  auto refused = tables.Append(*v2, MakeRows(table.schema, {"e"}, random), kAgainst);
  EXPECT_EQ(refused.status().kind(), Kind::kTransient) << refused.status().ToString();
}

// Rows whose `score` (field 5, I64) is the row number, so each fragment covers a known range.
// Fragments of up to 6,000 rows, so that a few rows' gather reads parts of columns (decision 219).
class TablePartialGatherTest : public TableVersionTest {
 protected:
  TablePartialGatherTest() : TableVersionTest(6000) {}
};

TEST_F(TablePartialGatherTest, GathersOnAColdCacheGiveTheRowsAScanGivesInAnyOrder) {
  // Lookups of one row, then of rows elsewhere in the fragment, then of many, each through a
  // store whose cache starts cold: the first reads parts of the columns (a fixed-width column's
  // frames around the row, another scalar one's prefix), a later one outside the part reads the
  // column whole. Every answer is the row a scan gives.
  Random random(31);
  const NewTable table = Table();
  std::vector<std::string> ids;
  for (int i = 0; i < 15000; ++i) ids.push_back("k" + std::to_string(100000 + i));
  ColumnBatch rows = MakeRows(table.schema, ids, random);
  Result<TablePin> pin = tables_->Create(table, rows, std::nullopt);
  ASSERT_TRUE(pin.ok()) << pin.status().ToString();
  const Model model = ModelOf(rows);
  for (int round = 0; round < 6; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    TableStore cold(runtime_);
    auto version = std::move(cold.Open(*pin)).value();
    for (size_t batch : {1, 1, 1, 2, 40}) {
      std::vector<std::string> wanted;
      for (size_t i = 0; i < batch; ++i) wanted.push_back(ids[random.Uniform(ids.size())]);
      Result<LookupResult> found = version->Lookup(wanted);
      ASSERT_TRUE(found.ok()) << found.status().ToString();
      for (size_t i = 0; i < wanted.size(); ++i) {
        ASSERT_TRUE(found->found[i]);
        EXPECT_EQ(RowImage(found->rows, i), model.at(wanted[i])) << wanted[i];
      }
    }
    Result<ColumnBatch> all = version->ScanAll({});
    ASSERT_TRUE(all.ok()) << all.status().ToString();
    EXPECT_EQ(ModelOf(*all), model);
  }
}

class TableScanTest : public TableVersionTest {
 protected:
  TableScanTest() : TableVersionTest(10) {}
  void SetUp() override {
    Random random(9);
    std::vector<std::string> ids;
    for (int i = 0; i < 100; ++i) ids.push_back("r" + std::to_string(1000 + i));
    Schema schema = {{kIdFieldId, "id", DataType::Scalar(TypeId::kString), false},
                     {5, "score", DataType::Scalar(TypeId::kI64), false},
                     {6, "name", DataType::Scalar(TypeId::kString), true}};
    ColumnBuilder id(schema[0].type, false), score(schema[1].type, false),
        name(schema[2].type, true);
    for (int i = 0; i < 100; ++i) {
      id.AppendString(ids[i]);
      score.Append<int64_t>(i);
      if (i % 3 == 0) {
        name.AppendNull();
      } else {
        name.AppendString(i < 50 ? "alpha" : "omega");
      }
    }
    std::vector<Column> columns;
    columns.push_back(std::move(id.Finish()).value());
    columns.push_back(std::move(score.Finish()).value());
    columns.push_back(std::move(name.Finish()).value());
    auto pin = tables_->Create(NewTable{TableId{1, 1}, "Scored", schema},
                               ColumnBatch(schema, std::move(columns), 100), kAgainst);
    ASSERT_TRUE(pin.ok()) << pin.status().ToString();
    version_ = Open(*pin);
  }

  std::vector<int64_t> Scores(const ScanOptions& options, ScanStats* stats) {
    auto batch = version_->ScanAll(options, stats);
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    std::vector<int64_t> out;
    if (!batch.ok()) return out;
    const Column* score = batch->FindColumn(5);
    for (uint64_t r = 0; r < batch->num_rows(); ++r) out.push_back(score->values<int64_t>()[r]);
    return out;
  }

  std::shared_ptr<const TableVersion> version_;
};

TEST_F(TableScanTest, EqualityPredicateReadsOnlyTheMatchingFragment) {
  ScanStats stats;
  const std::vector<int64_t> got = Scores({{5}, {Predicate::Equal(5, int64_t{42})}}, &stats);
  EXPECT_EQ(got, std::vector<int64_t>{42});
  EXPECT_EQ(stats.fragments_total, 10u);
  EXPECT_EQ(stats.fragments_skipped, 9u);
  EXPECT_EQ(stats.fragments_read, 1u);
  EXPECT_EQ(stats.rows_returned, 1u);
}

TEST_F(TableScanTest, FragmentIdsRestrictTheScanToThoseFragments) {
  ScanOptions options{{5}, {}};
  const std::vector<FragmentEntry>& fragments = version_->manifest().fragments;
  options.fragment_ids = {fragments[7].id, fragments[2].id};
  ScanStats stats;
  std::vector<int64_t> expected;
  for (int64_t i = 20; i < 30; ++i) expected.push_back(i);
  for (int64_t i = 70; i < 80; ++i) expected.push_back(i);
  // Manifest order, whatever the order of the ids; other fragments are not counted or read.
  EXPECT_EQ(Scores(options, &stats), expected);
  EXPECT_EQ(stats.fragments_total, 2u);
  EXPECT_EQ(stats.fragments_read, 2u);
  options.fragment_ids = {"no-such-fragment"};
  EXPECT_TRUE(Scores(options, &stats).empty());
  EXPECT_EQ(stats.fragments_total, 0u);
}

TEST_F(TableScanTest, RangePredicatesSkipFragmentsOutsideTheRange) {
  ScanStats stats;
  std::vector<int64_t> expected;
  for (int64_t i = 25; i < 47; ++i) expected.push_back(i);
  EXPECT_EQ(Scores({{5}, {Predicate::HalfOpen(5, int64_t{25}, int64_t{47})}}, &stats), expected);
  EXPECT_EQ(stats.fragments_skipped, 7u);  // Only [20,30), [30,40), [40,50) are read.
  // Exclusive lower bound at a fragment's max skips that fragment.
  Predicate above{5, int64_t{89}, false, std::nullopt, true};
  expected.clear();
  for (int64_t i = 90; i < 100; ++i) expected.push_back(i);
  EXPECT_EQ(Scores({{5}, {above}}, &stats), expected);
  EXPECT_EQ(stats.fragments_skipped, 9u);
  // A string predicate combined with a range: a conjunction.
  expected.clear();
  for (int64_t i = 40; i < 60; ++i) {
    if (i % 3 != 0 && i >= 50) expected.push_back(i);
  }
  EXPECT_EQ(Scores({{5, 6},
                    {Predicate::HalfOpen(5, int64_t{40}, int64_t{60}),
                     Predicate::Equal(6, std::string("omega"))}},
                   &stats),
            expected);
  EXPECT_EQ(stats.fragments_skipped, 9u);  // [40,50) holds no "omega".
  // No match anywhere: nothing but footers is read.
  EXPECT_TRUE(Scores({{5}, {Predicate::Equal(5, int64_t{1000})}}, &stats).empty());
  EXPECT_EQ(stats.fragments_skipped, 10u);
}

TEST_F(TableScanTest, ProjectionAndPredicatesAreValidated) {
  EXPECT_EQ(version_->ScanAll({{77}, {}}).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(version_->ScanAll({{5, 5}, {}}).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(version_->ScanAll({{}, {Predicate::Equal(5, std::string("x"))}}).status().code(),
            Code::kInvalidArgument);
  EXPECT_EQ(version_->ScanAll({{}, {Predicate::Equal(9, int64_t{1})}}).status().code(),
            Code::kInvalidArgument);
  auto projected = version_->ScanAll({{6, kIdFieldId}, {}});
  ASSERT_TRUE(projected.ok());
  ASSERT_EQ(projected->num_columns(), 2u);
  EXPECT_EQ(projected->field(0).id, 6u);
  EXPECT_EQ(projected->field(1).id, kIdFieldId);
  EXPECT_EQ(projected->num_rows(), 100u);
}

TEST_F(TableScanTest, ACachedVersionIsReadWithoutStorageCalls) {
  auto counting = std::make_shared<storage::CountingStore>(store_);
  storage::Runtime runtime = runtime_;
  runtime.store = counting;
  TableStore tables(runtime);
  auto version = tables.Open(version_->pin());
  ASSERT_TRUE(version.ok());
  ASSERT_TRUE((*version)->ScanAll({}).ok());
  ASSERT_TRUE((*version)->Lookup(std::vector<std::string>{"r1042"}).ok());
  const storage::OpCounts warm = counting->Snapshot();
  // 1 manifest + 10 fragments, each small enough to come whole with its footer read.
  EXPECT_EQ(warm.gets, 11u) << warm.ToString();
  ASSERT_TRUE(tables.Open(version_->pin()).ok());
  ASSERT_TRUE((*version)->ScanAll({}).ok());
  ASSERT_TRUE((*version)->Lookup(std::vector<std::string>{"r1001", "zz"}).ok());
  EXPECT_EQ(counting->Snapshot() - warm, storage::OpCounts{})
      << (counting->Snapshot() - warm).ToString();
}

TEST_F(TableScanTest, CacheStaysWithinItsByteBound) {
  TableStoreOptions options;
  options.cache_bytes = 8 << 10;
  TableStore tables(runtime_, options);
  auto version = tables.Open(version_->pin());
  ASSERT_TRUE(version.ok());
  for (int i = 0; i < 3; ++i) {
    auto all = (*version)->ScanAll({});
    ASSERT_TRUE(all.ok());
    EXPECT_EQ(all->num_rows(), 100u);
    EXPECT_LE(tables.cache().charged_bytes(), options.cache_bytes);
  }
  EXPECT_GT(tables.cache().entries(), 0u);
}

}  // namespace
}  // namespace omnigraph::table
