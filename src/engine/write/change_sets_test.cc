// Change sets on the record (docs/format/commit-documents.md "Change set"): every writer records
// what it did, and the set equals what the table state says.
#include "engine/write/change_sets.h"

#include <gtest/gtest.h>

#include "base/hash.h"
#include "base/sorted_records.h"
#include "commit/change_set.h"
#include "commit/names.h"
#include "commit/stream.h"
#include "engine/graph/graph.h"
#include "engine/ops/load.h"
#include "engine/ops/schema_apply.h"
#include "engine/write/mutate.h"
#include "query/exec/column_codec.h"
#include "storage/counting_store.h"
#include "storage/memory_store.h"

namespace omnigraph::engine {
namespace {

using schema::Value;

constexpr std::string_view kSchema = R"(
node Person { name: String @key  age: I32? }
edge Knows: Person -> Person { }
)";

constexpr std::string_view kQueries = R"(
query add($name: String, $age: I32) { insert Person { name: $name, age: $age } }
query age($name: String, $age: I32) { update Person set { age: $age } where name = $name }
query remove($name: String) { delete Person where name = $name }
query knows($a: String, $b: String) { insert Knows { from: $a, to: $b } }
)";

class ChangeSetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    counting_ = std::make_shared<storage::CountingStore>(std::make_shared<storage::MemoryStore>());
    Result<std::unique_ptr<Graph>> g =
        Graph::Init(storage::Runtime::ForTest(counting_, 3), kSchema);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    graph_ = std::move(*g);
  }

  std::string Mutate(std::string_view name, std::map<std::string, Value> params) {
    Result<MutationResult> r = engine::Mutate(*graph_, kQueries, name, params, {});
    OMNIGRAPH_CHECK_MSG(r.ok() && r->commit, std::string(name) + ": " + r.status().ToString());
    return *r->commit;
  }
  std::string Load(std::string_view ndjson, LoadMode mode) {
    Result<LoadResult> r = LoadJsonl(*graph_, "main", ndjson, mode);
    OMNIGRAPH_CHECK_MSG(r.ok() && r->commit, r.status().ToString());
    return *r->commit;
  }
  commit::Record Record(const std::string& commit_id) {
    Result<commit::Record> r = commit::LookupCommit(*counting_, commit_id);
    OMNIGRAPH_CHECK_MSG(r.ok(), r.status().ToString());
    return *r;
  }
  // The change set recomputed from the table versions the commit and its parent pin.
  commit::ChangeSet Diffed(const commit::Record& r) {
    Result<Snapshot> after = graph_->SnapshotAtCommit(r.commit_id);
    Result<Snapshot> before = graph_->SnapshotAtCommit(*r.parent_commit_id);
    OMNIGRAPH_CHECK(after.ok() && before.ok());
    Result<commit::ChangeSet> c = DiffChangeSet(graph_->tables(), before->state(), after->state());
    OMNIGRAPH_CHECK_MSG(c.ok(), c.status().ToString());
    return *c;
  }
  // The record's set with the tables that changed nothing left out.
  static commit::ChangeSet Changed(commit::ChangeSet c) {
    std::erase_if(c.tables, [](const commit::TableChangeSet& t) {
      return t.inserted_count + t.updated_count + t.deleted_count == 0;
    });
    return c;
  }

  std::shared_ptr<storage::CountingStore> counting_;
  std::unique_ptr<Graph> graph_;
};

TEST_F(ChangeSetTest, AMutationRecordsItsInsertsUpdatesAndDeletesInline) {
  const commit::Record added =
      Record(Mutate("add", {{"name", Value::String("ada")}, {"age", Value::Int(36)}}));
  ASSERT_TRUE(added.change_set);
  ASSERT_EQ(added.change_set->tables.size(), 1u);
  const commit::TableChangeSet& t = added.change_set->tables[0];
  EXPECT_EQ(t.table_key, "node:Person");
  EXPECT_EQ(t.inserted_count, 1u);
  EXPECT_EQ(t.inserted.size(), 1u);
  EXPECT_TRUE(t.updated.empty() && t.deleted.empty());
  EXPECT_FALSE(added.change_set->delta);
  EXPECT_FALSE(added.change_set->schema_boundary);
  EXPECT_EQ(added.summary, "mutate add: +1 node");
  EXPECT_EQ(*added.change_set, Diffed(added));

  Mutate("add", {{"name", Value::String("bob")}, {"age", Value::Int(40)}});
  const commit::Record knows =
      Record(Mutate("knows", {{"a", Value::String("ada")}, {"b", Value::String("bob")}}));
  EXPECT_EQ(knows.summary, "mutate knows: +1 edge");
  EXPECT_EQ(*knows.change_set, Diffed(knows));

  const commit::Record aged =
      Record(Mutate("age", {{"name", Value::String("ada")}, {"age", Value::Int(37)}}));
  ASSERT_EQ(aged.change_set->tables.size(), 1u);
  EXPECT_EQ(aged.change_set->tables[0].updated, t.inserted);
  EXPECT_EQ(aged.summary, "mutate age: ~1 node");
  EXPECT_EQ(*aged.change_set, Diffed(aged));

  Mutate("add", {{"name", Value::String("cy")}, {"age", Value::Int(50)}});
  const commit::Record removed = Record(Mutate("remove", {{"name", Value::String("cy")}}));
  EXPECT_EQ(Changed(*removed.change_set), Diffed(removed));
  EXPECT_EQ(removed.summary, "mutate remove: -1 node");
}

TEST_F(ChangeSetTest, EveryLoadModeRecordsItsSet) {
  const commit::Record appended =
      Record(Load("{\"type\":\"Person\",\"data\":{\"name\":\"a\",\"age\":1}}\n"
                  "{\"type\":\"Person\",\"data\":{\"name\":\"b\",\"age\":2}}\n",
                  LoadMode::kAppend));
  EXPECT_EQ(appended.summary, "load append: +2 nodes");
  EXPECT_EQ(*appended.change_set, Diffed(appended));
  // Merge: one new id, one rewritten with another age, one rewritten with the same row (recorded
  // as an update: the writer rewrote it; the diff sees no change there).
  const commit::Record merged =
      Record(Load("{\"type\":\"Person\",\"data\":{\"name\":\"a\",\"age\":10}}\n"
                  "{\"type\":\"Person\",\"data\":{\"name\":\"b\",\"age\":2}}\n"
                  "{\"type\":\"Person\",\"data\":{\"name\":\"c\",\"age\":3}}\n",
                  LoadMode::kMerge));
  ASSERT_EQ(merged.change_set->tables.size(), 1u);
  const commit::TableChangeSet& m = merged.change_set->tables[0];
  EXPECT_EQ(m.inserted_count, 1u);
  EXPECT_EQ(m.updated_count, 2u);
  EXPECT_EQ(merged.summary, "load merge: +1 node ~2 nodes");
  const commit::ChangeSet diffed = Diffed(merged);
  ASSERT_EQ(diffed.tables.size(), 1u);
  EXPECT_EQ(diffed.tables[0].inserted, m.inserted);
  EXPECT_EQ(diffed.tables[0].updated.size(), 1u);
  // Overwrite: ids the new image lacks are deleted, kept ones updated, new ones inserted.
  const commit::Record over =
      Record(Load("{\"type\":\"Person\",\"data\":{\"name\":\"c\",\"age\":30}}\n"
                  "{\"type\":\"Person\",\"data\":{\"name\":\"d\",\"age\":4}}\n",
                  LoadMode::kOverwrite));
  ASSERT_EQ(over.change_set->tables.size(), 1u);
  const commit::TableChangeSet& o = over.change_set->tables[0];
  EXPECT_EQ(o.inserted_count, 1u);
  EXPECT_EQ(o.updated_count, 1u);
  EXPECT_EQ(o.deleted_count, 2u);
  EXPECT_EQ(*over.change_set, Diffed(over));
}

// Lists longer than any change set could hold (a load of millions of rows) are counted, not
// built: the counts equal those of the full lists, for every operation and for a load's pending
// ids as for rows; at exactly the budget the lists are built.
TEST_F(ChangeSetTest, ListsNoChangeSetCouldHoldAreCountedNotBuilt) {
  Load(
      "{\"type\":\"Person\",\"data\":{\"name\":\"a\",\"age\":1}}\n"
      "{\"type\":\"Person\",\"data\":{\"name\":\"b\",\"age\":2}}\n"
      "{\"type\":\"Person\",\"data\":{\"name\":\"c\",\"age\":3}}\n",
      LoadMode::kAppend);
  Result<Snapshot> head = graph_->SnapshotOfBranch("main");
  ASSERT_TRUE(head.ok());
  Result<std::shared_ptr<const table::TableVersion>> base = head->Table("node:Person");
  ASSERT_TRUE(base.ok());
  Result<std::vector<std::string>> base_ids = (*base)->Ids();
  ASSERT_TRUE(base_ids.ok() && base_ids->size() == 3u);
  // One id the base holds and two it lacks, ascending; and those two alone (an append).
  std::vector<std::string> mixed = {(*base_ids)[1], "zz1", "zz2"};
  std::sort(mixed.begin(), mixed.end());
  const std::vector<std::string> fresh = {"zz1", "zz2"};
  const schema::TypeDef* person = head->catalog().FindNode("Person");
  ASSERT_NE(person, nullptr);
  auto rows_of = [&](const std::vector<std::string>& ids) {
    Result<query::RowsBuilder> b = query::RowsBuilder::Make(*person);
    OMNIGRAPH_CHECK(b.ok());
    for (const std::string& id : ids) {
      const std::vector<std::optional<Value>> values = {Value::String(id), Value::Int(9)};
      OMNIGRAPH_CHECK(b->Append(id, "", "", values).ok());
    }
    return *b->Finish();
  };
  auto pending_of = [&](const std::vector<std::string>& ids) {
    auto p = std::make_shared<table::PendingRows>();
    p->ids = SortedRecords::FromKeys(std::vector<std::string_view>(ids.begin(), ids.end()));
    return p;
  };
  using Op = table::TableWrite::Op;
  for (const Op op : {Op::kAppend, Op::kUpsert, Op::kOverwrite}) {
    const std::vector<std::string>& ids = op == Op::kAppend ? fresh : mixed;
    uint64_t bytes = 0;
    for (const std::string& id : ids) bytes += id.size() + 3;
    for (const bool pending : {false, true}) {
      SCOPED_TRACE(std::to_string(static_cast<int>(op)) + (pending ? " pending" : " rows"));
      table::TableWrite change;
      change.op = op;
      if (pending) {
        change.pending = pending_of(ids);
      } else {
        change.rows = rows_of(ids);
      }
      Result<commit::TableChangeSet> full = TableChangeOf(**base, change);
      ASSERT_TRUE(full.ok()) << full.status().ToString();
      bool omitted = false;
      Result<commit::TableChangeSet> at_budget = TableChangeOf(**base, change, bytes, &omitted);
      ASSERT_TRUE(at_budget.ok());
      EXPECT_FALSE(omitted);
      EXPECT_EQ(*at_budget, *full);
      Result<commit::TableChangeSet> counted = TableChangeOf(**base, change, bytes - 1, &omitted);
      ASSERT_TRUE(counted.ok()) << counted.status().ToString();
      EXPECT_TRUE(omitted);
      EXPECT_TRUE(counted->inserted.empty() && counted->updated.empty() &&
                  counted->deleted.empty());
      EXPECT_EQ(counted->inserted_count, full->inserted_count);
      EXPECT_EQ(counted->updated_count, full->updated_count);
      EXPECT_EQ(counted->deleted_count, full->deleted_count);
      EXPECT_EQ(counted->table_key, "node:Person");
    }
  }
}

// A load's ids are read only up to the budget of a change set's lists: past it only their count
// is used, so the rest (millions at the peers graph's 1x, in a temporary file) are not read
// (decision 245). The records after the budget here end inside a record, which reading them
// would report.
TEST_F(ChangeSetTest, ALoadsIdsAreReadOnlyUpToTheListBudget) {
  Load("{\"type\":\"Person\",\"data\":{\"name\":\"a\",\"age\":1}}\n", LoadMode::kAppend);
  Result<Snapshot> head = graph_->SnapshotOfBranch("main");
  ASSERT_TRUE(head.ok());
  Result<std::shared_ptr<const table::TableVersion>> base = head->Table("node:Person");
  ASSERT_TRUE(base.ok());
  std::string bytes;
  EncodeRecord("zz1", "", &bytes);
  EncodeRecord("zz2", "", &bytes);
  bytes.push_back('\x7f');  // A record whose key would be 127 bytes, cut off.
  table::TableWrite change;
  change.op = table::TableWrite::Op::kAppend;
  auto pending = std::make_shared<table::PendingRows>();
  pending->ids = std::make_shared<const SortedRecords>(std::move(bytes), 3);
  change.pending = pending;
  bool omitted = false;
  // "zz1" and "zz2" take 6 bytes each: the second passes a budget of 6, and reading stops there.
  Result<commit::TableChangeSet> counted = TableChangeOf(**base, change, 6, &omitted);
  ASSERT_TRUE(counted.ok()) << counted.status().ToString();
  EXPECT_TRUE(omitted);
  EXPECT_EQ(counted->inserted_count, 3u);
  EXPECT_TRUE(counted->inserted.empty());
}

TEST_F(ChangeSetTest, ASchemaApplyRecordsASchemaBoundary) {
  Result<SchemaApplyResult> applied =
      ApplySchema(*graph_, std::string(kSchema) + "node Place { name: String @key }\n");
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  const commit::Record r = Record(applied->commit_id);
  ASSERT_TRUE(r.change_set);
  EXPECT_TRUE(r.change_set->schema_boundary);
  EXPECT_TRUE(r.change_set->tables.empty());
  EXPECT_EQ(r.summary, "schema apply: 1 step");
  EXPECT_EQ(Diffed(r), *r.change_set);
}

TEST_F(ChangeSetTest, ALargeSetSpillsToADeltaObjectCreatedBeforeTheRecord) {
  std::string ndjson;
  const int n = 2000;  // About 2000 * 12 bytes of ids: past the inline cap.
  for (int i = 0; i < n; ++i) {
    ndjson += "{\"type\":\"Person\",\"data\":{\"name\":\"person-" + std::to_string(i) + "\"}}\n";
  }
  const storage::OpCounts before = counting_->Snapshot();
  const commit::Record r = Record(Load(ndjson, LoadMode::kAppend));
  ASSERT_TRUE(r.change_set && r.change_set->delta);
  EXPECT_EQ(r.change_set->tables[0].inserted_count, static_cast<uint64_t>(n));
  EXPECT_TRUE(r.change_set->tables[0].inserted.empty());
  EXPECT_EQ(r.change_set->delta->name.rfind("_graph/main/changes/", 0), 0u);
  // The record itself stays small.
  Result<storage::GetResult> bytes = counting_->Get(commit::RecordName("main", r.seq));
  ASSERT_TRUE(bytes.ok());
  EXPECT_LT(bytes->data.size(), 64u << 10);
  // One more create than an inline set: the delta.
  const storage::OpCounts cost = counting_->Snapshot() - before;
  EXPECT_GE(cost.put_if_absent, 3u);
  Result<commit::ChangeSet> full = commit::LoadChangeSetIds(*counting_, *r.change_set);
  ASSERT_TRUE(full.ok()) << full.status().ToString();
  EXPECT_EQ(*full, Diffed(r));
  // A damaged delta is Corruption naming it, never another set.
  ASSERT_TRUE(counting_->Put(r.change_set->delta->name, "{\"format\":1,\"tables\":[]}").ok());
  Result<commit::ChangeSet> damaged = commit::LoadChangeSetIds(*counting_, *r.change_set);
  ASSERT_FALSE(damaged.ok());
  EXPECT_EQ(damaged.status().code(), Code::kCorruption);
  EXPECT_EQ(damaged.status().object(), r.change_set->delta->name);
}

TEST_F(ChangeSetTest, TheDeltaAndTheIdIndexAreTheOnlyExtraCreates) {
  std::string large;
  for (int i = 0; i < 4000; ++i) {
    large += "{\"type\":\"Person\",\"data\":{\"name\":\"p" + std::to_string(i) + "\"}}\n";
  }
  // Warm both paths once, then compare a load whose set fits inline with one that spills.
  Load("{\"type\":\"Person\",\"data\":{\"name\":\"warm\"}}\n", LoadMode::kAppend);
  std::string tiny = "{\"type\":\"Person\",\"data\":{\"name\":\"x1\"}}\n";
  storage::OpCounts before = counting_->Snapshot();
  const commit::Record inline_record = Record(Load(tiny, LoadMode::kAppend));
  const storage::OpCounts inline_cost = counting_->Snapshot() - before;
  ASSERT_FALSE(inline_record.change_set->delta);
  before = counting_->Snapshot();
  const commit::Record spilled = Record(Load(large, LoadMode::kAppend));
  const storage::OpCounts spill_cost = counting_->Snapshot() - before;
  ASSERT_TRUE(spilled.change_set->delta);
  // The delta, and the id index the load stores for a version of at least
  // TableStoreOptions::derived_rows_min rows (docs/format/indexes.md); nothing else.
  EXPECT_EQ(spill_cost.put_if_absent, inline_cost.put_if_absent + 2)
      << inline_cost.ToString() << " / " << spill_cost.ToString();
}

TEST(ChangeSetDocumentTest, RecordsRoundTripWithInlineAndSpilledSetsAndSummaries) {
  commit::Record r;
  r.commit_id = "main.1.ABCDEFGHJK";
  r.stream = "main";
  r.seq = 1;
  commit::ChangeSet c;
  c.tables.push_back(
      commit::TableChangeSet{1, 1, "node:Person", 2, 1, 0, {"a", "b"}, {"c"}, {}, Json::object()});
  r.change_set = c;
  r.summary = "mutate add: +2 nodes ~1 node";
  const std::string bytes = *commit::EncodeRecord(r);
  EXPECT_NE(bytes.find("\"change_set\":{\"delta\":null,\"schema_boundary\":false,\"tables\":[{"
                       "\"deleted\":[],\"deleted_count\":0,\"incarnation\":1,\"inserted\":[\"a\","
                       "\"b\"],\"inserted_count\":2"),
            std::string::npos)
      << bytes;
  Result<commit::Record> back = commit::DecodeRecord(bytes, "r");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, r);
  // A record without either member has the bytes it had before change sets existed.
  commit::Record plain = r;
  plain.change_set.reset();
  plain.summary.reset();
  EXPECT_EQ((*commit::EncodeRecord(plain)).find("change_set"), std::string::npos);
  // Counts that disagree with the lists are Corruption.
  std::string bad = bytes;
  bad.replace(bad.find("\"inserted_count\":2"), 18, "\"inserted_count\":3");
  Result<commit::Record> refused = commit::DecodeRecord(bad, "obj");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Code::kCorruption);
  // Unknown members inside the change set survive a rewrite.
  std::string extra = bytes;
  extra.replace(extra.find("\"delta\":null"), 12, "\"delta\":null,\"zz\":7");
  Result<commit::Record> kept = commit::DecodeRecord(extra, "obj");
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  const std::string rewritten = *commit::EncodeRecord(*kept);
  EXPECT_NE(rewritten.find("\"updated_count\":1}],\"zz\":7}"), std::string::npos) << rewritten;
}

}  // namespace
}  // namespace omnigraph::engine

#include "engine/ops/commit_changes.h"

namespace omnigraph::engine {
namespace {

TEST_F(ChangeSetTest, CommitChangesHydratesTheListedIdsAndLeavesOutUnchangedRewrites) {
  Load(
      "{\"type\":\"Person\",\"data\":{\"name\":\"a\",\"age\":1}}\n"
      "{\"type\":\"Person\",\"data\":{\"name\":\"b\",\"age\":2}}\n",
      LoadMode::kAppend);
  const std::string merged = Load(
      "{\"type\":\"Person\",\"data\":{\"name\":\"a\",\"age\":10}}\n"
      "{\"type\":\"Person\",\"data\":{\"name\":\"b\",\"age\":2}}\n"
      "{\"type\":\"Person\",\"data\":{\"name\":\"c\",\"age\":3}}\n",
      LoadMode::kMerge);
  const std::string knows = Mutate("knows", {{"a", Value::String("a")}, {"b", Value::String("c")}});
  Result<Json> got = CommitChanges(*graph_, merged);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  const Json& changes = (*got)["changes"];
  // b was rewritten with the same row: not a change.
  ASSERT_EQ(changes.size(), 2u) << got->dump();
  EXPECT_EQ(
      changes[0].dump(),
      R"({"after":{"properties":{"age":10,"name":"a"}},"before":{"properties":{"age":1,)"
      R"("name":"a"}},"id":"a","kind":"node","op":"update","type":{"id":"1","name":"Person"}})");
  EXPECT_EQ(changes[1]["op"], "insert");
  EXPECT_EQ(changes[1]["id"], "c");
  EXPECT_FALSE(changes[1].contains("before"));
  EXPECT_EQ((*got)["cause"]["graph_commit_id"], merged);
  EXPECT_EQ((*got)["cause"]["authored_branch"], "main");

  Result<Json> edge = CommitChanges(*graph_, knows);
  ASSERT_TRUE(edge.ok()) << edge.status().ToString();
  ASSERT_EQ((*edge)["changes"].size(), 1u);
  EXPECT_EQ((*edge)["changes"][0]["kind"], "edge");
  EXPECT_EQ((*edge)["changes"][0]["after"]["endpoints"].dump(), R"({"from":"a","to":"c"})");

  // A record without a change set gives the same answer, from the exact diff of the tables.
  commit::Record r = Record(merged);
  const std::string with = got->dump();
  r.change_set.reset();
  ASSERT_TRUE(counting_->Put(commit::RecordName("main", r.seq), *commit::EncodeRecord(r)).ok());
  Result<Json> fallback = CommitChanges(*graph_, merged);
  ASSERT_TRUE(fallback.ok()) << fallback.status().ToString();
  EXPECT_EQ(fallback->dump(), with);
}

TEST_F(ChangeSetTest, CommitChangesRefusesGenesisAndSchemaChangesWithTypedErrors) {
  Result<Snapshot> head = graph_->SnapshotOfBranch("main");
  ASSERT_TRUE(head.ok());
  Result<Json> genesis = CommitChanges(*graph_, head->commit_id());
  ASSERT_FALSE(genesis.ok());
  EXPECT_EQ(genesis.status().code(), Code::kParentlessCommit);
  EXPECT_EQ(CodeName(genesis.status().code()), "parentless_commit");
  Result<SchemaApplyResult> applied =
      ApplySchema(*graph_, std::string(kSchema) + "node Place { name: String @key }\n");
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  Result<Json> boundary = CommitChanges(*graph_, applied->commit_id);
  ASSERT_FALSE(boundary.ok());
  EXPECT_EQ(boundary.status().code(), Code::kSchemaBoundary);
  // Also without the change set: the schemas of the commit and its parent differ.
  commit::Record r = Record(applied->commit_id);
  r.change_set.reset();
  ASSERT_TRUE(counting_->Put(commit::RecordName("main", r.seq), *commit::EncodeRecord(r)).ok());
  EXPECT_EQ(CommitChanges(*graph_, applied->commit_id).status().code(), Code::kSchemaBoundary);
  EXPECT_EQ(CommitChanges(*graph_, "main.99.AAAAAAAAAA").status().code(), Code::kCommitNotFound);
}

// The ids of a page's changes with their ops ("a~" update, "c-" delete, "e+" insert).
std::vector<std::string> Listed(const Json& page) {
  std::vector<std::string> out;
  for (const Json& c : page["changes"]) {
    const std::string op = c["op"].get<std::string>();
    out.push_back(c["id"].get<std::string>() + (op == "insert" ? "+" : op == "update" ? "~" : "-"));
  }
  return out;
}

class CommitChangesPageTest : public ChangeSetTest {
 protected:
  // One overwrite of both tables: a updated, b rewritten unchanged (listed, never shown), c and d
  // deleted, e inserted, and one Knows edge a -> e inserted.
  void SetUp() override {
    ChangeSetTest::SetUp();
    Load(
        "{\"type\":\"Person\",\"data\":{\"name\":\"a\",\"age\":1}}\n"
        "{\"type\":\"Person\",\"data\":{\"name\":\"b\",\"age\":2}}\n"
        "{\"type\":\"Person\",\"data\":{\"name\":\"c\",\"age\":3}}\n"
        "{\"type\":\"Person\",\"data\":{\"name\":\"d\",\"age\":4}}\n",
        LoadMode::kAppend);
    commit_ = Load(
        "{\"type\":\"Person\",\"data\":{\"name\":\"a\",\"age\":10}}\n"
        "{\"type\":\"Person\",\"data\":{\"name\":\"b\",\"age\":2}}\n"
        "{\"type\":\"Person\",\"data\":{\"name\":\"e\",\"age\":5}}\n"
        "{\"edge\":\"Knows\",\"from\":\"a\",\"to\":\"e\"}\n",
        LoadMode::kOverwrite);
    Json all = Page({});
    ASSERT_EQ(all["changes"].size(), 5u) << all.dump();
    edge_ = all["changes"][4]["id"].get<std::string>();
  }
  Json Page(const CommitChangesRequest& request) {
    Result<Json> got = CommitChanges(*graph_, commit_, request);
    OMNIGRAPH_CHECK_MSG(got.ok(), got.status().ToString());
    return *got;
  }
  std::vector<std::string> Ids(CommitChangesRequest request) { return Listed(Page(request)); }
  // Every page of `request` from the first, and the sizes of the pages.
  std::vector<std::string> Walk(CommitChangesRequest request, std::vector<size_t>& sizes) {
    std::vector<std::string> out;
    for (;;) {
      Json page = Page(request);
      sizes.push_back(page["changes"].size());
      for (std::string& id : Listed(page)) out.push_back(std::move(id));
      if (!page.contains("next_page_token")) return out;
      request.page_token = page["next_page_token"].get<std::string>();
    }
  }
  Status Refused(const CommitChangesRequest& request) {
    return CommitChanges(*graph_, commit_, request).status();
  }

  std::string commit_, edge_;
};

TEST_F(CommitChangesPageTest, EachFilterAndTheirCombinationSelectBeforeHydrating) {
  using V = std::vector<std::string>;
  EXPECT_EQ(Ids({}), (V{"a~", "c-", "d-", "e+", edge_ + "+"}));
  EXPECT_EQ(Ids({.filter = {.kinds = {"node"}}}), (V{"a~", "c-", "d-", "e+"}));
  EXPECT_EQ(Ids({.filter = {.kinds = {"edge"}}}), (V{edge_ + "+"}));
  EXPECT_EQ(Ids({.filter = {.types = {"Knows"}}}), (V{edge_ + "+"}));
  EXPECT_EQ(Ids({.filter = {.types = {"Person"}}}), (V{"a~", "c-", "d-", "e+"}));
  EXPECT_EQ(Ids({.filter = {.ops = {"insert"}}}), (V{"e+", edge_ + "+"}));
  EXPECT_EQ(Ids({.filter = {.ops = {"update"}}}), (V{"a~"}));  // b's rewrite changed nothing.
  EXPECT_EQ(Ids({.filter = {.ops = {"delete"}}}), (V{"c-", "d-"}));
  EXPECT_EQ(Ids({.filter = {.kinds = {"node"}, .ops = {"insert"}}}), (V{"e+"}));
  EXPECT_EQ(Ids({.filter = {.kinds = {"edge"}, .types = {"Person"}}}), V{});
  EXPECT_EQ(Ids({.filter = {.types = {"Knows"}, .ops = {"delete"}}}), V{});
  // Each filter repeats (OmniGraph's `--op insert --op delete`): a change matching any value.
  EXPECT_EQ(Ids({.filter = {.ops = {"insert", "delete"}}}), (V{"c-", "d-", "e+", edge_ + "+"}));
  EXPECT_EQ(Ids({.filter = {.kinds = {"node", "edge"}, .types = {"Person", "Knows"}}}), Ids({}));
  // A filtered change is the same object the unfiltered page lists.
  EXPECT_EQ(Page({.filter = {.ops = {"update"}}})["changes"][0].dump(),
            Page({})["changes"][0].dump());
  EXPECT_EQ(Page({.filter = {.ops = {"update"}}})["cause"]["graph_commit_id"], commit_);
}

TEST_F(CommitChangesPageTest, PagesContinueAfterTheirLastChangeAndEndWithoutAToken) {
  using V = std::vector<std::string>;
  const V all = {"a~", "c-", "d-", "e+", edge_ + "+"};
  std::vector<size_t> sizes;
  // Two per page: the first page looks past b's unchanged rewrite to fill itself.
  EXPECT_EQ(Walk({.limit = 2}, sizes), all);
  EXPECT_EQ(sizes, (std::vector<size_t>{2, 2, 1}));
  sizes.clear();
  EXPECT_EQ(Walk({.limit = 1}, sizes), all);
  EXPECT_EQ(sizes, (std::vector<size_t>{1, 1, 1, 1, 1}));
  // A page that ends exactly at the last change has no token.
  Json whole = Page({.limit = 5});
  EXPECT_EQ(whole["changes"].size(), 5u);
  EXPECT_FALSE(whole.contains("next_page_token")) << whole.dump();
  Json four = Page({.limit = 4});
  ASSERT_TRUE(four.contains("next_page_token"));
  EXPECT_EQ(Ids({.page_token = four["next_page_token"].get<std::string>()}), (V{edge_ + "+"}));
  // Filtered pages: the position is in the order of all changes, so a token goes on with filters.
  sizes.clear();
  EXPECT_EQ(Walk({.limit = 1, .filter = {.kinds = {"node"}, .ops = {"delete"}}}, sizes),
            (V{"c-", "d-"}));
  EXPECT_EQ(sizes, (std::vector<size_t>{1, 1}));
  Json first = Page({.limit = 1, .filter = {.kinds = {"node"}}});
  EXPECT_EQ(Ids({.page_token = first["next_page_token"].get<std::string>(),
                 .filter = {.ops = {"insert"}}}),
            (V{"e+", edge_ + "+"}));
  // A record without a change set pages the exact diff the same way.
  commit::Record r = Record(commit_);
  r.change_set.reset();
  ASSERT_TRUE(counting_->Put(commit::RecordName("main", r.seq), *commit::EncodeRecord(r)).ok());
  sizes.clear();
  EXPECT_EQ(Walk({.limit = 2}, sizes), all);
  EXPECT_EQ(sizes, (std::vector<size_t>{2, 2, 1}));
}

TEST_F(CommitChangesPageTest, BadValuesAreInvalidArgumentsNamingThem) {
  auto expect = [this](const CommitChangesRequest& request, const std::string& message) {
    const Status s = Refused(request);
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << s.ToString();
    EXPECT_NE(s.message().find(message), std::string::npos) << s.ToString();
  };
  expect({.limit = 0}, "must be 1 to 10000, not 0");
  expect({.limit = kCommitChangesPageMax + 1}, "not 10001");
  expect({.filter = {.kinds = {"vertex"}}}, "unknown change kind 'vertex' (expected node or edge)");
  expect({.filter = {.ops = {"upsert"}}}, "unknown change op 'upsert'");
  expect({.filter = {.types = {"Person", "Nobody"}}},
         "the schema of commit '" + commit_ + "' has no type 'Nobody'");
  expect({.page_token = "nonsense"}, "'nonsense' is not a page token of commit changes");
  const std::string token = Page({.limit = 1})["next_page_token"].get<std::string>();
  std::string damaged = token;
  damaged[5] = damaged[5] == '0' ? '1' : '0';
  expect({.page_token = damaged}, "is damaged (its check digits do not match)");
  expect({.page_token = token.substr(0, token.size() - 1)}, "is damaged");
  // A token of another commit names both.
  const std::string other =
      Load("{\"type\":\"Person\",\"data\":{\"name\":\"f\"}}\n", LoadMode::kAppend);
  const Status s = CommitChanges(*graph_, other, {.page_token = token}).status();
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("is of commit '" + commit_ + "', not of '" + other + "'"),
            std::string::npos)
      << s.ToString();
  // Well-formed content that is not a position: a checked payload with an op out of range.
  const std::string payload =
      HexEncode(CanonicalJson(Json{{"c", commit_}, {"e", false}, {"i", "a"}, {"o", 7}, {"t", 1}}));
  expect({.page_token = "p1." + payload + "." + Sha256Hex(payload).substr(0, 16)},
         "its content is not a position");
}

}  // namespace
}  // namespace omnigraph::engine
