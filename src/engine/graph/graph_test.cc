// Graph init, open and snapshots (docs/design/engine.md "Init", "Open", "Snapshots").
#include "engine/graph/graph.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "commit/branches.h"
#include "commit/names.h"
#include "commit/stream.h"
#include "query/exec/table_schema.h"
#include "storage/counting_store.h"
#include "storage/local_store.h"
#include "storage/memory_store.h"
#include "storage/test_util.h"
#include "table/column_builder.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <thread>

namespace omnigraph::engine {
namespace {

constexpr std::string_view kSchema = R"(
node Person { name: String @key  age: I32? }
node Company { name: String @key }
edge WorksAt: Person -> Company { role: String? }
)";

std::string Cookbook(const std::string& name) {
  const char* root = std::getenv("OMNIGRAPH_SOURCE_DIR");
  std::string dir = std::string(root ? root : OMNIGRAPH_SOURCE_DIR_FALLBACK) +
                    "/../shared/fixtures/cookbooks/" + name + "/schema.pg";
  std::ifstream in(dir);
  OMNIGRAPH_CHECK_MSG(in.good(), "cookbook fixtures not found at " + dir);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

storage::Runtime LocalRuntime(const std::string& dir) {
  auto store = storage::LocalStore::Open(dir);
  OMNIGRAPH_CHECK(store.ok());
  return storage::Runtime::ForStore(std::shared_ptr<storage::ObjectStore>(std::move(*store)), 2);
}

TEST(GraphTest, InitWritesStampArchiveTablesAndGenesisInOrder) {
  auto counting =
      std::make_shared<storage::CountingStore>(std::make_shared<storage::MemoryStore>());
  storage::Runtime rt = storage::Runtime::ForTest(counting, 1);
  Result<std::unique_ptr<Graph>> graph = Graph::Init(rt, kSchema, InitOptions{"tester", 50});
  ASSERT_TRUE(graph.ok()) << graph.status().ToString();
  // Stamp, archive, 3 empty table manifests, metadata, genesis, checkpoint 0, hint: all created
  // only if absent (the empty tables hold no fragments).
  storage::OpCounts c = counting->Snapshot();
  EXPECT_EQ(c.put_if_absent, 9u) << c.ToString();
  EXPECT_EQ(c.puts, 0u);
  Result<Snapshot> head = (*graph)->SnapshotOfBranch("main");
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  EXPECT_EQ(head->state().seq, 0u);
  EXPECT_EQ(head->state().tables.size(), 3u);
  for (const char* key : {"node:Person", "node:Company", "edge:WorksAt"}) {
    Result<std::shared_ptr<const table::TableVersion>> t = head->Table(key);
    ASSERT_TRUE(t.ok()) << key << ": " << t.status().ToString();
    EXPECT_EQ((*t)->manifest().entity_count, 0u);
  }
  EXPECT_NE(head->catalog().FindNode("Person"), nullptr);
  EXPECT_EQ(head->Table("node:Nobody").status().kind(), Kind::kNotFound);
  EXPECT_EQ(head->state().schema.identity_domain, (*graph)->stamp().graph_id);
}

TEST(GraphTest, SecondInitIsAlreadyInitializedAndBadSchemasWriteNothing) {
  auto memory = std::make_shared<storage::MemoryStore>();
  storage::Runtime rt = storage::Runtime::ForTest(memory, 1);
  Result<std::unique_ptr<Graph>> bad = Graph::Init(rt, "node person { }");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().kind(), Kind::kInvalidArgument);
  EXPECT_EQ(memory->size(), 0u);
  ASSERT_TRUE(Graph::Init(rt, kSchema).ok());
  Result<std::unique_ptr<Graph>> again = Graph::Init(rt, kSchema);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), Code::kAlreadyInitialized);
}

TEST(GraphTest, AnInterruptedInitIsRefusedByOpenAndCompletedByInit) {
  auto memory = std::make_shared<storage::MemoryStore>();
  storage::Runtime rt = storage::Runtime::ForTest(memory, 1);
  ASSERT_TRUE(Graph::Init(rt, kSchema).ok());
  const std::string graph_id = (*Graph::Open(rt))->stamp().graph_id;
  // Simulate a crash after the stamp: remove everything else.
  Result<std::vector<storage::ObjectMeta>> all = storage::ListAll(*memory, "");
  ASSERT_TRUE(all.ok());
  for (const storage::ObjectMeta& m : *all) {
    if (m.name != commit::kStampName) {
      ASSERT_TRUE(memory->Delete(m.name).ok());
    }
  }
  Result<std::unique_ptr<Graph>> open = Graph::Open(rt);
  ASSERT_FALSE(open.ok());
  EXPECT_EQ(open.status().code(), Code::kInitializationIncomplete);
  EXPECT_NE(open.status().message().find("run init --force"), std::string::npos);
  // A plain init refuses it (it may be an init still running), naming the graph and the stamp.
  Result<std::unique_ptr<Graph>> strict = Graph::Init(rt, kSchema);
  ASSERT_FALSE(strict.ok());
  EXPECT_EQ(strict.status().code(), Code::kInitializationIncomplete);
  EXPECT_EQ(strict.status().message(),
            "init refused: " + memory->Describe() + " holds an unfinished init of graph " +
                graph_id +
                " (its storage stamp, no genesis record; perhaps an init still running) among 1 "
                "object: '_omnigraph.json'; run init --force with the same schema to complete it");
  EXPECT_EQ(memory->size(), 1u);
  InitOptions force;
  force.force = true;
  InitReport report;
  Result<std::unique_ptr<Graph>> completed = Graph::Init(rt, kSchema, force, &report);
  ASSERT_TRUE(completed.ok()) << completed.status().ToString();
  EXPECT_EQ((*completed)->stamp().graph_id, graph_id);
  EXPECT_EQ(report.completed_graph_id, graph_id);
  EXPECT_EQ(report.found, std::vector<std::string>{"_omnigraph.json"});
  EXPECT_TRUE(Graph::Open(rt).ok());
}

TEST(GraphTest, InitListsTheRootOnceAndNamesAtMostTenOfWhatItFound) {
  auto memory = std::make_shared<storage::MemoryStore>();
  auto counting = std::make_shared<storage::CountingStore>(memory);
  storage::Runtime rt = storage::Runtime::ForTest(counting, 1);
  for (int i = 0; i < 12; ++i) {
    ASSERT_TRUE(memory->Put("f" + std::to_string(10 + i), "x").ok());
  }
  Result<std::unique_ptr<Graph>> strict = Graph::Init(rt, kSchema);
  ASSERT_FALSE(strict.ok());
  EXPECT_EQ(strict.status().code(), Code::kAlreadyExists);
  EXPECT_NE(strict.status().message().find(
                "it holds more than 10 objects, among them 'f10', 'f11', 'f12', 'f13', 'f14', "
                "'f15', 'f16', 'f17', 'f18', 'f19';"),
            std::string::npos)
      << strict.status().message();
  // One LIST, the stamp's GET; nothing written.
  const storage::OpCounts ops = counting->Snapshot();
  EXPECT_EQ(ops.lists, 1u) << ops.ToString();
  EXPECT_EQ(ops.gets, 1u) << ops.ToString();
  EXPECT_EQ(ops.writes(), 0u) << ops.ToString();
  EXPECT_EQ(memory->size(), 12u);
}

TEST(GraphTest, OpenRefusesAnUnknownStampNamingBothStamps) {
  auto memory = std::make_shared<storage::MemoryStore>();
  storage::Runtime rt = storage::Runtime::ForTest(memory, 1);
  EXPECT_EQ(Graph::Open(rt).status().kind(), Kind::kNotFound);
  ASSERT_TRUE(memory
                  ->Put(std::string(commit::kStampName),
                        R"({"format":1,"kind":"omnigraph","storage_stamp":14,"graph_id":"x",)"
                        R"("checkpoint_interval":50,"created_at":0})")
                  .ok());
  Result<std::unique_ptr<Graph>> open = Graph::Open(rt);
  ASSERT_FALSE(open.ok());
  EXPECT_EQ(open.status().code(), Code::kUnknownStamp);
  EXPECT_NE(open.status().message().find("storage stamp 14"), std::string::npos);
  EXPECT_NE(open.status().message().find("storage stamp 15"), std::string::npos);
}

TEST(GraphTest, AnotherProcessOpensTheGraphAndSnapshotsByCommitId) {
  storage::TempDir dir;
  {
    Result<std::unique_ptr<Graph>> graph = Graph::Init(LocalRuntime(dir.path()), kSchema);
    ASSERT_TRUE(graph.ok()) << graph.status().ToString();
  }
  // A second, independent runtime over the same directory (as another process would have).
  storage::Runtime rt = LocalRuntime(dir.path());
  Result<std::unique_ptr<Graph>> graph = Graph::Open(rt);
  ASSERT_TRUE(graph.ok()) << graph.status().ToString();
  Result<Snapshot> head = (*graph)->SnapshotOfBranch("main");
  ASSERT_TRUE(head.ok());
  // Commit more on main, then read the genesis snapshot by its id.
  std::unique_ptr<commit::Stream> main = std::move(*commit::Stream::Open(rt, "main"));
  commit::PublishRequest request;
  request.stage = [](const commit::GraphState&) -> Result<commit::RecordContent> {
    return commit::RecordContent{};
  };
  ASSERT_TRUE(main->Publish(request).ok());
  main->WaitForBackground();
  Result<Snapshot> genesis = (*graph)->SnapshotAtCommit(head->commit_id());
  ASSERT_TRUE(genesis.ok()) << genesis.status().ToString();
  EXPECT_EQ(genesis->state().seq, 0u);
  EXPECT_EQ((*graph)->SnapshotOfBranch("main")->state().seq, 1u);
  EXPECT_EQ((*graph)->SnapshotAtCommit("main.9.0000000000").status().code(), Code::kCommitNotFound);
  EXPECT_EQ((*graph)->SnapshotOfBranch("nope").status().code(), Code::kBranchNotFound);
}

TEST(GraphTest, BranchesAtTheGraphLevel) {
  storage::Runtime rt = storage::Runtime::ForTest(std::make_shared<storage::MemoryStore>(), 1);
  Result<std::unique_ptr<Graph>> graph = Graph::Init(rt, kSchema);
  ASSERT_TRUE(graph.ok());
  const std::string genesis = (*graph)->SnapshotOfBranch("main")->commit_id();
  std::unique_ptr<commit::Stream> main = std::move(*commit::Stream::Open(rt, "main"));
  commit::PublishRequest request;
  request.stage = [](const commit::GraphState&) -> Result<commit::RecordContent> {
    return commit::RecordContent{};
  };
  ASSERT_TRUE(main->Publish(request).ok());
  Result<commit::StreamMetadata> feature = (*graph)->CreateBranch("feature", "main");
  ASSERT_TRUE(feature.ok()) << feature.status().ToString();
  EXPECT_EQ(feature->fork_seq, 1u);
  Result<commit::StreamMetadata> old = (*graph)->CreateBranch("old", "", genesis);
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  EXPECT_EQ(old->fork_seq, 0u);
  EXPECT_EQ((*graph)->CreateBranch("feature", "main").status().code(), Code::kBranchExists);
  EXPECT_EQ((*graph)->CreateBranch("x", "nope").status().code(), Code::kBranchNotFound);
  Result<std::vector<commit::BranchInfo>> list = (*graph)->ListBranches();
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 3u);
  EXPECT_EQ((*list)[1].branch, "feature");
  EXPECT_EQ((*list)[2].branch, "old");
  Result<Snapshot> at_fork = (*graph)->SnapshotOfBranch("old");
  ASSERT_TRUE(at_fork.ok());
  EXPECT_EQ(at_fork->state().seq, 0u);
  ASSERT_TRUE((*graph)->DeleteBranch("old").ok());
  EXPECT_EQ((*graph)->SnapshotOfBranch("old").status().code(), Code::kBranchNotFound);
  EXPECT_EQ((*graph)->DeleteBranch("main").code(), Code::kInvalidArgument);
  EXPECT_EQ((*graph)->ListBranches()->size(), 2u);
}

// Rows for a node or edge table of kSchema: ids, and for each property a string (or null).
table::ColumnBatch Rows(const schema::Catalog& catalog, std::string_view table_key,
                        const std::vector<std::vector<std::optional<std::string>>>& rows) {
  const schema::TypeDef* type = nullptr;
  for (const schema::TypeDef& t : catalog.ir().nodes) {
    if (t.table_key() == table_key) type = &t;
  }
  for (const schema::TypeDef& t : catalog.ir().edges) {
    if (t.table_key() == table_key) type = &t;
  }
  OMNIGRAPH_CHECK(type != nullptr);
  table::Schema columns = *query::TableSchemaFor(*type);
  std::vector<table::Column> out;
  for (size_t c = 0; c < columns.size(); ++c) {
    table::ColumnBuilder b(columns[c].type, columns[c].nullable);
    for (const auto& row : rows) {
      const std::optional<std::string>& v = row.at(c);
      if (!v) {
        b.AppendNull();
      } else if (columns[c].type.id == table::TypeId::kI32) {
        b.Append<int32_t>(std::stoi(*v));
      } else {
        b.AppendString(*v);
      }
    }
    out.push_back(*b.Finish());
  }
  return table::ColumnBatch(columns, std::move(out), rows.size());
}

WriteRequest Insert(const Snapshot& s, std::string_view key,
                    const std::vector<std::vector<std::optional<std::string>>>& rows) {
  WriteRequest w;
  w.changes[std::string(key)] =
      TableChange{TableChange::Op::kAppend, Rows(s.catalog(), key, rows), {}};
  return w;
}

TEST(GraphWriteTest, AWriteTouchingThreeTypesIsOneRecordWhosePinsResolve) {
  storage::Runtime rt = storage::Runtime::ForTest(std::make_shared<storage::MemoryStore>(), 1);
  std::unique_ptr<Graph> graph = std::move(*Graph::Init(rt, kSchema));
  Snapshot s0 = *graph->SnapshotOfBranch("main");
  // Person columns: id, name, age; Company: id, name; WorksAt: id, src, dst, role.
  WriteRequest w =
      Insert(s0, "node:Person", {{"Ada", "Ada", "36"}, {"Grace", "Grace", std::nullopt}});
  w.changes["node:Company"] = TableChange{
      TableChange::Op::kAppend, Rows(s0.catalog(), "node:Company", {{"Acme", "Acme"}}), {}};
  w.changes["edge:WorksAt"] =
      TableChange{TableChange::Op::kAppend,
                  Rows(s0.catalog(), "edge:WorksAt", {{"e1", "Ada", "Acme", "engineer"}}),
                  {}};
  Result<WriteResult> r = Write(*graph, w);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->seq, 1u);
  Result<commit::Record> record = commit::LookupCommit(*rt.store, r->commit_id);
  ASSERT_TRUE(record.ok());
  EXPECT_EQ(record->pins.size(), 3u);
  Snapshot s1 = *graph->SnapshotOfBranch("main");
  for (const auto& [key, count] : std::vector<std::pair<std::string, uint64_t>>{
           {"node:Person", 2}, {"node:Company", 1}, {"edge:WorksAt", 1}}) {
    Result<std::shared_ptr<const table::TableVersion>> t = s1.Table(key);
    ASSERT_TRUE(t.ok()) << key << ": " << t.status().ToString();
    EXPECT_EQ((*t)->manifest().entity_count, count) << key;
  }
  std::vector<std::string> ids = {"Grace", "Nobody"};
  Result<table::LookupResult> found = (*s1.Table("node:Person"))->Lookup(ids);
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(found->found, (std::vector<bool>{true, false}));
  // The genesis snapshot, by commit id, still sees empty tables.
  EXPECT_EQ(
      (*graph->SnapshotAtCommit(s0.commit_id())->Table("node:Person"))->manifest().entity_count,
      0u);
}

TEST(GraphWriteTest, AFailedStagingPublishesNothing) {
  storage::Runtime rt = storage::Runtime::ForTest(std::make_shared<storage::MemoryStore>(), 1);
  std::unique_ptr<Graph> graph = std::move(*Graph::Init(rt, kSchema));
  Snapshot s0 = *graph->SnapshotOfBranch("main");
  ASSERT_TRUE(Write(*graph, Insert(s0, "node:Person", {{"Ada", "Ada", "36"}})).ok());
  // Appending an existing id is a key conflict; the other table's staged version is never named.
  WriteRequest w = Insert(s0, "node:Person", {{"Ada", "Ada", "37"}});
  w.changes["node:Company"] = TableChange{
      TableChange::Op::kAppend, Rows(s0.catalog(), "node:Company", {{"Acme", "Acme"}}), {}};
  Result<WriteResult> r = Write(*graph, w);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kKeyConflict) << r.status().ToString();
  WriteRequest unknown = Insert(s0, "node:Person", {{"Bob", "Bob", "1"}});
  unknown.changes["node:Nope"] = TableChange{};
  EXPECT_EQ(Write(*graph, unknown).status().code(), Code::kInvalidArgument);
  Snapshot s = *graph->SnapshotOfBranch("main");
  EXPECT_EQ(s.state().seq, 1u);
  EXPECT_EQ((*s.Table("node:Company"))->manifest().entity_count, 0u);
}

TEST(GraphWriteTest, TwoWritersAppendingToOneBranchBothLandAndStrictWritesConflict) {
  auto store = std::make_shared<storage::MemoryStore>();
  storage::Runtime rt = storage::Runtime::ForStore(store, 2);
  ASSERT_TRUE(Graph::Init(rt, kSchema).ok());
  std::vector<std::unique_ptr<Graph>> graphs;
  for (int i = 0; i < 2; ++i) {
    storage::Runtime own = storage::Runtime::ForStore(store, 2);
    graphs.push_back(std::move(*Graph::Open(own)));
  }
  Snapshot s0 = *graphs[0]->SnapshotOfBranch("main");
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) {
        std::string id = "p" + std::to_string(t) + "-" + std::to_string(i);
        Result<WriteResult> r = Write(*graphs[t], Insert(s0, "node:Person", {{id, id, "1"}}));
        if (!r.ok()) ++failures;
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  Snapshot s = *graphs[0]->SnapshotOfBranch("main");
  EXPECT_EQ(s.state().seq, 40u);
  EXPECT_EQ((*s.Table("node:Person"))->manifest().entity_count, 40u);
  // graphs[1]'s handle is warm; graphs[0] moves the head; a strict write through graphs[1] loses.
  ASSERT_TRUE(Write(*graphs[1], Insert(s0, "node:Person", {{"x", "x", "1"}})).ok());
  ASSERT_TRUE(Write(*graphs[0], Insert(s0, "node:Person", {{"y", "y", "1"}})).ok());
  WriteRequest del;
  del.changes["node:Person"] = TableChange{TableChange::Op::kDelete, {}, {"x"}};
  Result<WriteResult> strict = Write(*graphs[1], del);
  ASSERT_FALSE(strict.ok());
  EXPECT_EQ(strict.status().code(), Code::kReadSetChanged);
  // Retried against the new head, it lands.
  Result<WriteResult> again = Write(*graphs[1], del);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ((*graphs[0]->SnapshotOfBranch("main")->Table("node:Person"))->manifest().entity_count,
            41u);
}

// Found by the simulator (graph_writes seeds 53 and 77): a Graph kept its warm handle of a
// branch's first life forever, so once another process deleted and re-created the branch, every
// write of that Graph to it failed with BranchNotFound.
TEST(GraphWriteTest, AWarmHandleOfADeletedBranchLifeIsDroppedAndTheWriteLandsOnTheNewLife) {
  auto store = std::make_shared<storage::MemoryStore>();
  storage::Runtime rt = storage::Runtime::ForTest(store, 1);
  ASSERT_TRUE(Graph::Init(rt, kSchema).ok());
  std::unique_ptr<Graph> writer = std::move(*Graph::Open(storage::Runtime::ForTest(store, 2)));
  std::unique_ptr<Graph> admin = std::move(*Graph::Open(storage::Runtime::ForTest(store, 3)));
  ASSERT_TRUE(admin->CreateBranch("dev", "main").ok());
  Snapshot s0 = *writer->SnapshotOfBranch("dev");
  WriteRequest first = Insert(s0, "node:Person", {{"Ada", "Ada", "1"}});
  first.branch = "dev";
  ASSERT_TRUE(Write(*writer, first).ok());  // The writer now holds a warm handle of life 1.
  ASSERT_TRUE(admin->DeleteBranch("dev").ok());
  // While the branch does not exist, the write fails and changes nothing.
  WriteRequest second = Insert(s0, "node:Person", {{"Bob", "Bob", "2"}});
  second.branch = "dev";
  Result<WriteResult> missing = Write(*writer, second);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Code::kBranchNotFound) << missing.status().ToString();
  Result<commit::StreamMetadata> life2 = admin->CreateBranch("dev", "main");
  ASSERT_TRUE(life2.ok()) << life2.status().ToString();
  // Once it exists again, the writer's next write lands on the new life.
  Result<WriteResult> again = Write(*writer, second);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->seq, 1u);
  Result<commit::Record> record = commit::LookupCommit(*store, again->commit_id);
  ASSERT_TRUE(record.ok());
  EXPECT_EQ(record->stream, life2->key);
  Snapshot dev = *writer->SnapshotOfBranch("dev");
  std::vector<std::string> ids = {"Ada", "Bob"};
  EXPECT_EQ((*dev.Table("node:Person"))->Lookup(ids)->found, (std::vector<bool>{false, true}));
  // Same for a warm handle whose life was deleted and re-created without a failed write between.
  ASSERT_TRUE(admin->DeleteBranch("dev").ok());
  ASSERT_TRUE(admin->CreateBranch("dev", "main").ok());
  WriteRequest third = Insert(s0, "node:Person", {{"Cy", "Cy", "3"}});
  third.branch = "dev";
  Result<WriteResult> third_written = Write(*writer, third);
  ASSERT_TRUE(third_written.ok()) << third_written.status().ToString();
  EXPECT_EQ(third_written->seq, 1u);
}

TEST(GraphTest, EveryCookbookSchemaInitialises) {
  for (const char* name : {"industry-intel", "second-brain"}) {
    SCOPED_TRACE(name);
    storage::Runtime rt = storage::Runtime::ForTest(std::make_shared<storage::MemoryStore>(), 1);
    Result<std::unique_ptr<Graph>> graph = Graph::Init(rt, Cookbook(name));
    ASSERT_TRUE(graph.ok()) << graph.status().ToString();
    Result<Snapshot> head = (*graph)->SnapshotOfBranch("main");
    ASSERT_TRUE(head.ok());
    const schema::SchemaIr& ir = head->catalog().ir();
    EXPECT_EQ(head->state().tables.size(), ir.nodes.size() + ir.edges.size());
    for (const auto& [id, t] : head->state().tables) {
      EXPECT_TRUE(head->Table(t.registration.table_key).ok()) << t.registration.table_key;
    }
  }
}

constexpr std::string_view kFiveTypes = R"(
node Person { name: String @key  age: I32? }
node Company { name: String @key }
node City { name: String @key }
edge WorksAt: Person -> Company { role: String? }
edge LivesIn: Person -> City { }
)";

TEST(GraphWriteTest, AWriteTouchingFiveTypesIsOneRecordWhoseFivePinsResolve) {
  auto counting =
      std::make_shared<storage::CountingStore>(std::make_shared<storage::MemoryStore>());
  storage::Runtime rt = storage::Runtime::ForTest(counting, 1);
  std::unique_ptr<Graph> graph = std::move(*Graph::Init(rt, kFiveTypes));
  Snapshot s0 = *graph->SnapshotOfBranch("main");
  WriteRequest w = Insert(s0, "node:Person", {{"Ada", "Ada", "36"}, {"Bob", "Bob", "41"}});
  w.changes["node:Company"] = TableChange{
      TableChange::Op::kAppend, Rows(s0.catalog(), "node:Company", {{"Acme", "Acme"}}), {}};
  w.changes["node:City"] =
      TableChange{TableChange::Op::kAppend,
                  Rows(s0.catalog(), "node:City", {{"Oslo", "Oslo"}, {"Rome", "Rome"}}),
                  {}};
  w.changes["edge:WorksAt"] = TableChange{
      TableChange::Op::kAppend,
      Rows(s0.catalog(), "edge:WorksAt", {{"w1", "Ada", "Acme", "cto"}, {"w2", "Bob", "Acme", {}}}),
      {}};
  w.changes["edge:LivesIn"] = TableChange{
      TableChange::Op::kAppend,
      Rows(s0.catalog(), "edge:LivesIn", {{"l1", "Ada", "Oslo"}, {"l2", "Bob", "Rome"}}),
      {}};
  const storage::OpCounts before = counting->Snapshot();
  Result<WriteResult> r = Write(*graph, w);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const storage::OpCounts after = counting->Snapshot();
  // One record: the only commit-layer create is seq 1's (the rest are the five tables'
  // fragments and manifests).
  Result<commit::Record> record = commit::LookupCommit(*rt.store, r->commit_id);
  ASSERT_TRUE(record.ok()) << record.status().ToString();
  EXPECT_EQ(record->seq, 1u);
  EXPECT_EQ(record->pins.size(), 5u);
  EXPECT_FALSE(rt.store->Head(commit::RecordName(commit::kMainKey, 2)).ok());
  EXPECT_GT(after.put_if_absent, before.put_if_absent);
  Snapshot s1 = *graph->SnapshotAtCommit(r->commit_id);
  std::map<std::string, uint64_t> expected = {{"node:Person", 2},
                                              {"node:Company", 1},
                                              {"node:City", 2},
                                              {"edge:WorksAt", 2},
                                              {"edge:LivesIn", 2}};
  for (const TablePin& pin : record->pins) {
    ASSERT_TRUE(expected.contains(pin.table_key)) << pin.table_key;
    Result<std::shared_ptr<const table::TableVersion>> t = s1.Table(pin.table_key);
    ASSERT_TRUE(t.ok()) << pin.table_key << ": " << t.status().ToString();
    EXPECT_EQ((*t)->pin().staged_version, pin.staged_version);
    EXPECT_EQ((*t)->entity_count(), expected[pin.table_key]) << pin.table_key;
    expected.erase(pin.table_key);
  }
  EXPECT_TRUE(expected.empty());
}

// Two processes on one local graph root: appends from both land; a strict write prepared
// before the other process moved the head gets ReadSetChanged.
TEST(GraphWriteTest, TwoProcessesWritingOneBranch) {
  storage::TempDir dir;
  {
    Result<std::unique_ptr<Graph>> g = Graph::Init(LocalRuntime(dir.path()), kSchema);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
  }
  constexpr int kWrites = 25;
  std::vector<storage::ChildResult> children =
      storage::RunChildrenTogether(2, [&](int index, int out) -> int {
        auto store = storage::LocalStore::Open(dir.path());
        if (!store.ok()) return 2;
        // Distinct seeds: two processes must never mint the same commit ids.
        storage::Runtime rt = storage::Runtime::ForTest(
            std::shared_ptr<storage::ObjectStore>(std::move(*store)), 100 + index);
        Result<std::unique_ptr<Graph>> g = Graph::Open(rt);
        if (!g.ok()) return 3;
        Snapshot s = *(*g)->SnapshotOfBranch("main");
        for (int i = 0; i < kWrites; ++i) {
          std::string id = "p" + std::to_string(index) + "-" + std::to_string(i);
          Result<WriteResult> r = Write(**g, Insert(s, "node:Person", {{id, id, "1"}}));
          if (!r.ok()) {
            storage::WriteToFd(out, r.status().ToString());
            return 4;
          }
        }
        return 0;
      });
  for (const storage::ChildResult& c : children) {
    EXPECT_TRUE(c.exited_zero()) << c.output;
  }
  Result<std::unique_ptr<Graph>> g = Graph::Open(LocalRuntime(dir.path()));
  ASSERT_TRUE(g.ok());
  Snapshot s = *(*g)->SnapshotOfBranch("main");
  EXPECT_EQ(s.state().seq, 2u * kWrites);
  std::shared_ptr<const table::TableVersion> people = *s.Table("node:Person");
  EXPECT_EQ(people->entity_count(), 2u * kWrites);
  std::vector<std::string> ids = *people->Ids();
  for (int p = 0; p < 2; ++p) {
    for (int i = 0; i < kWrites; ++i) {
      std::string id = "p" + std::to_string(p) + "-" + std::to_string(i);
      EXPECT_TRUE(std::binary_search(ids.begin(), ids.end(), id)) << id;
    }
  }

  // Strict: child 0 warms its handle, then waits until child 1 has published; its delete was
  // prepared against the old head and must come back ReadSetChanged, changing nothing.
  const std::string flag = dir.path() + "/child1-published";
  children = storage::RunChildrenTogether(2, [&](int index, int out) -> int {
    auto store = storage::LocalStore::Open(dir.path());
    if (!store.ok()) return 2;
    storage::Runtime rt = storage::Runtime::ForTest(
        std::shared_ptr<storage::ObjectStore>(std::move(*store)), 200 + index);
    std::unique_ptr<Graph> graph = std::move(*Graph::Open(rt));
    Snapshot base = *graph->SnapshotOfBranch("main");
    if (index == 0) {
      // Warm the write handle with one publish of its own, then wait for the other process.
      if (!Write(*graph, Insert(base, "node:Company", {{"c0", "c0"}})).ok()) return 5;
      while (::access(flag.c_str(), F_OK) != 0) ::usleep(1000);
      WriteRequest del;
      del.changes["node:Person"] = TableChange{TableChange::Op::kDelete, {}, {"p0-0"}};
      Result<WriteResult> r = Write(*graph, del);
      storage::WriteToFd(out, r.ok() ? "ok" : std::string(CodeName(r.status().code())));
      return 0;
    }
    // Child 1 publishes after child 0's write.
    while (true) {
      Result<Snapshot> head = graph->SnapshotOfBranch("main");
      if (head.ok() && head->state().seq == 2u * kWrites + 1) break;
      ::usleep(1000);
    }
    if (!Write(*graph, Insert(base, "node:Company", {{"c1", "c1"}})).ok()) return 6;
    std::FILE* f = std::fopen(flag.c_str(), "w");
    if (f != nullptr) std::fclose(f);
    return 0;
  });
  ASSERT_TRUE(children[0].exited_zero()) << children[0].output;
  ASSERT_TRUE(children[1].exited_zero()) << children[1].output;
  EXPECT_EQ(children[0].output, std::string(CodeName(Code::kReadSetChanged)));
  Snapshot end = *(*Graph::Open(LocalRuntime(dir.path())))->SnapshotOfBranch("main");
  EXPECT_EQ(end.state().seq, 2u * kWrites + 2);
  std::vector<std::string> kept = {"p0-0"};
  EXPECT_EQ((*end.Table("node:Person"))->Lookup(kept)->found, std::vector<bool>{true});
}

}  // namespace
}  // namespace omnigraph::engine
