// Cleanup orchestration (docs/design/engine.md "Cleanup").
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <set>

#include "base/hash.h"
#include "commit/branches.h"
#include "commit/names.h"
#include "engine/graph/graph.h"
#include "engine/ops/cleanup.h"
#include "engine/ops/export.h"
#include "engine/ops/schema_apply.h"
#include "engine/read/query.h"
#include "query/exec/table_schema.h"
#include "storage/memory_store.h"
#include "table/column_builder.h"
#include "table/derived.h"

namespace omnigraph::engine {
namespace {

constexpr std::string_view kSchema = R"(
node Person { name: String @key  age: I32? }
node Company { name: String @key }
)";
constexpr int64_t kHourMicros = 3600LL * 1000 * 1000;

// Rows of a two-column-or-more table whose non-id columns are (name, age?) or (name).
table::ColumnBatch Rows(const Snapshot& s, std::string_view key,
                        const std::vector<std::string>& ids) {
  table::Schema columns = *query::TableSchemaFor(*s.catalog().FindByTableKey(key));
  std::vector<table::Column> out;
  for (const table::Field& f : columns) {
    table::ColumnBuilder b(f.type, f.nullable);
    for (const std::string& id : ids) {
      if (f.type.id == table::TypeId::kI32) {
        b.Append<int32_t>(static_cast<int32_t>(id.size()));
      } else {
        b.AppendString(id);
      }
    }
    out.push_back(*b.Finish());
  }
  return table::ColumnBatch(columns, std::move(out), ids.size());
}

using Contents = std::map<std::string, std::set<std::string>>;  // Table key → ids.

Contents Read(const Snapshot& s) {
  Contents out;
  for (const char* key : {"node:Person", "node:Company"}) {
    Result<std::shared_ptr<const table::TableVersion>> t = s.Table(key);
    OMNIGRAPH_CHECK_MSG(t.ok(), t.status().ToString());
    Result<std::vector<std::string>> ids = (*t)->Ids();
    OMNIGRAPH_CHECK_MSG(ids.ok(), ids.status().ToString());
    out[key] = std::set<std::string>(ids->begin(), ids->end());
  }
  return out;
}

// A graph over a memory store that shares the runtime's manual clock, so that objects age.
// `threads` > 0 runs staging and cleanup on a thread pool instead of inline.
struct World {
  explicit World(size_t threads = 0) : threads_(threads) {
    rt = MakeRuntime(3);
    graph = std::move(*Graph::Init(rt, kSchema, InitOptions{"t", 10}));
  }

  size_t threads_;
  std::shared_ptr<ManualClock> clock = std::make_shared<ManualClock>();
  std::shared_ptr<storage::MemoryStore> store =
      std::make_shared<storage::MemoryStore>("cleanup", clock.get());
  storage::Runtime rt;
  std::unique_ptr<Graph> graph;
  // The ids each commit holds, by commit id.
  std::map<std::string, Contents> expected;
  Contents current = {{"node:Person", {}}, {"node:Company", {}}};

  storage::Runtime MakeRuntime(uint64_t seed) {
    storage::Runtime r = storage::Runtime::ForTest(store, seed);
    r.clock = clock;
    if (threads_ > 0) r.executor = std::make_shared<ThreadPool>(threads_);
    return r;
  }

  // Commit `i` on `branch`: two new people in one fragment; every third commit a company; every
  // seventh the deletion of the oldest person instead (so deletion vectors, and fragments whose
  // rows are all deleted, become garbage too).
  void Commit(const std::string& branch, int i, Contents& state,
              std::optional<Idempotency> key = {}) {
    Snapshot s = *graph->SnapshotOfBranch(branch);
    WriteRequest w;
    w.branch = branch;
    w.idempotency = std::move(key);
    const std::string person = branch + "-p" + std::to_string(1000 + i);
    w.changes["node:Person"] = TableChange{
        TableChange::Op::kAppend, Rows(s, "node:Person", {person + "a", person + "b"}), {}};
    if (i % 7 == 0 && !state["node:Person"].empty()) {
      const std::string gone = *state["node:Person"].begin();
      w.changes["node:Person"] = TableChange{TableChange::Op::kDelete, {}, {gone}};
      state["node:Person"].erase(gone);
    } else {
      state["node:Person"].insert({person + "a", person + "b"});
    }
    if (i % 3 == 0) {
      const std::string company = branch + "-c" + std::to_string(1000 + i);
      w.changes["node:Company"] =
          TableChange{TableChange::Op::kAppend, Rows(s, "node:Company", {company}), {}};
      state["node:Company"].insert(company);
    }
    Result<WriteResult> r = Write(*graph, w);
    OMNIGRAPH_CHECK_MSG(r.ok(), r.status().ToString());
    expected[r->commit_id] = state;
    clock->Advance(1000);
  }
};

std::vector<std::string> CommitIds(Graph& graph, const std::string& branch, uint64_t from,
                                   uint64_t to) {
  std::vector<std::string> out;
  Snapshot head = *graph.SnapshotOfBranch(branch);
  for (uint64_t seq = from; seq <= to; ++seq) {
    // Commit ids are not derivable from seq alone; read them from the records.
    Result<commit::Record> record = [&]() -> Result<commit::Record> {
      OMNIGRAPH_ASSIGN_OR_RETURN(
          std::optional<commit::BoundedRead> read,
          commit::ReadBounded(*graph.runtime().store, commit::RecordName(head.state().stream, seq),
                              commit::kRecordBytesMax));
      if (!read) return Status(Code::kNotFound, "no record");
      return commit::DecodeRecord(read->data, "record");
    }();
    OMNIGRAPH_CHECK_MSG(record.ok(), record.status().ToString());
    out.push_back(record->commit_id);
  }
  return out;
}

TEST(GraphCleanupTest, KeepTenAfterAHundredCommitsRemovesOldVersionsAndRetainedSnapshotsRead) {
  World w;
  for (int i = 1; i <= 30; ++i) w.Commit("main", i, w.current);
  ASSERT_TRUE(w.graph->CreateBranch("side", "main").ok());
  Contents side = w.current;
  for (int i = 1; i <= 3; ++i) w.Commit("side", i, side);
  for (int i = 31; i <= 100; ++i) w.Commit("main", i, w.current);
  Snapshot head = *w.graph->SnapshotOfBranch("main");
  ASSERT_EQ(head.state().seq, 100u);
  const std::vector<std::string> main_ids = CommitIds(*w.graph, "main", 1, 100);
  // An early version, its manifest name, and the number of table objects before cleanup.
  Snapshot early = *w.graph->SnapshotAtCommit(main_ids[4]);
  const std::string early_manifest = (*early.Table("node:Person"))->manifest_name();
  const size_t objects_before = storage::ListAll(*w.store, "tables/")->size();

  w.clock->Advance(2 * kHourMicros);  // Everything is older than the grace period.
  CleanupOptions options;
  options.keep = 10;
  options.dry_run = true;
  Result<GraphCleanupReport> preview = Cleanup(*w.graph, options);
  ASSERT_TRUE(preview.ok()) << preview.status().ToString();
  EXPECT_EQ(storage::ListAll(*w.store, "tables/")->size(), objects_before);
  EXPECT_TRUE(w.store->Head(early_manifest).ok());

  options.dry_run = false;
  Result<GraphCleanupReport> report = Cleanup(*w.graph, options);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(std::set<std::string>(report->removed.begin(), report->removed.end()),
            std::set<std::string>(preview->removed.begin(), preview->removed.end()));
  EXPECT_EQ(report->bytes_removed, preview->bytes_removed);
  // Main keeps its own newest ten (91..100): checkpoints 10..80 are below the fold base (90). The
  // side branch keeps its own three commits and its fork checkpoint, not main's history below it.
  std::vector<std::string> checkpoints;
  for (uint64_t seq = 10; seq <= 80; seq += 10) {
    checkpoints.push_back(commit::CheckpointName(commit::kMainKey, seq));
  }
  EXPECT_EQ(report->checkpoints_removed, checkpoints);
  ASSERT_EQ(report->tables.size(), 2u);
  uint64_t fragments = 0, deletions = 0, removed_objects = 0;
  for (const TableCleanupRow& row : report->tables) {
    EXPECT_FALSE(row.error.has_value()) << *row.error;
    EXPECT_GT(row.versions_removed, 0u) << row.table_key;
    EXPECT_GT(row.bytes_removed, 0u) << row.table_key;
    fragments += row.fragments_removed;
    deletions += row.deletion_vectors_removed;
    removed_objects += row.versions_removed + row.fragments_removed + row.deletion_vectors_removed +
                       row.deleted_id_files_removed;
  }
  EXPECT_GT(fragments, 0u);
  EXPECT_GT(deletions, 0u);
  EXPECT_EQ(removed_objects + report->checkpoints_removed.size(), report->removed.size());
  EXPECT_EQ(storage::ListAll(*w.store, "tables/")->size(), objects_before - removed_objects);
  for (const std::string& name : report->removed) {
    EXPECT_EQ(w.store->Head(name).status().kind(), Kind::kNotFound) << name;
  }
  EXPECT_EQ(w.store->Head(early_manifest).status().kind(), Kind::kNotFound);

  // A fresh process (empty caches) reads every retained snapshot in full.
  std::unique_ptr<Graph> reader = std::move(*Graph::Open(w.MakeRuntime(7)));
  for (size_t i = 90; i < 100; ++i) {
    Result<Snapshot> s = reader->SnapshotAtCommit(main_ids[i]);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    EXPECT_EQ(Read(*s), w.expected.at(main_ids[i])) << "main seq " << i + 1;
  }
  // The side branch (forked at seq 30, three commits of its own) keeps its own commits.
  for (const std::string& id : CommitIds(*reader, "side", 31, 33)) {
    EXPECT_EQ(Read(*reader->SnapshotAtCommit(id)), w.expected.at(id));
  }
  EXPECT_EQ(Read(*reader->SnapshotOfBranch("side")), side);
  // A dropped commit's snapshot folds (records are kept) but its versions are gone.
  Result<Snapshot> dropped = reader->SnapshotAtCommit(main_ids[4]);
  ASSERT_TRUE(dropped.ok());
  EXPECT_EQ(dropped->Table("node:Person").status().code(), Code::kVersionsReclaimed);

  // Writing goes on, and a second cleanup finds nothing more to remove.
  w.Commit("main", 101, w.current);
  w.clock->Advance(2 * kHourMicros);
  Result<GraphCleanupReport> again = Cleanup(*w.graph, options);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(Read(*reader->SnapshotOfBranch("main")), w.current);
  for (size_t i = 91; i < 100; ++i) {
    EXPECT_EQ(Read(*reader->SnapshotAtCommit(main_ids[i])), w.expected.at(main_ids[i]));
  }
}

void KeepTenWithoutBranches(World& w) {
  for (int i = 1; i <= 100; ++i) w.Commit("main", i, w.current);
  const std::vector<std::string> ids = CommitIds(*w.graph, "main", 1, 100);
  w.clock->Advance(2 * kHourMicros);
  CleanupOptions options;
  options.keep = 10;
  Result<GraphCleanupReport> report = Cleanup(*w.graph, options);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  // Checkpoints 10..80 are below the fold base (90) of the oldest retained commit (91).
  EXPECT_EQ(report->checkpoints_removed.size(), 8u);
  std::unique_ptr<Graph> reader = std::move(*Graph::Open(w.MakeRuntime(7)));
  for (size_t i = 90; i < 100; ++i) {
    EXPECT_EQ(Read(*reader->SnapshotAtCommit(ids[i])), w.expected.at(ids[i])) << i + 1;
  }
  // Seq 90 wrote Person; that version is no root any more.
  EXPECT_EQ(reader->SnapshotAtCommit(ids[89])->Table("node:Person").status().code(),
            Code::kVersionsReclaimed);
  // A fork below the horizon is refused; a fork from the head is fine.
  EXPECT_EQ(w.graph->CreateBranch("late", "", ids[50]).status().code(), Code::kVersionsReclaimed);
  EXPECT_TRUE(w.graph->CreateBranch("late", "main").ok());
}

TEST(GraphCleanupTest, WithoutBranchesKeepTenReclaimsEverythingBelowTheTenthNewestCommit) {
  World w;
  KeepTenWithoutBranches(w);
}

TEST(GraphCleanupTest, KeepTenOnAThreadPool) {
  World w(4);
  KeepTenWithoutBranches(w);
}

// Every object the versions of `s` need (manifests, fragments, deletion vectors, deleted ids).
std::set<std::string> ObjectsOf(const Snapshot& s) {
  std::set<std::string> out;
  for (const char* key : {"node:Person", "node:Company"}) {
    std::vector<std::string> names = (*s.Table(key))->ObjectNames();
    out.insert(names.begin(), names.end());
  }
  return out;
}

std::set<std::string> Names(const std::vector<storage::ObjectMeta>& objects) {
  std::set<std::string> out;
  for (const storage::ObjectMeta& m : objects) out.insert(m.name);
  return out;
}

// Issue [18] item 5: each branch's retention horizon is its own. Three branches fork from a
// 60-commit main at seqs 15, 35 and 50 with one, two and four commits of their own; with keep 3
// a branch with fewer own commits than keep used to retain main's commits below its fork point,
// and the one retained span per stream then held main's horizon down at seq 14.
TEST(GraphCleanupTest, BranchesForkedAtDifferentDepthsEachKeepOnlyTheirOwnHorizon) {
  World w;
  struct Fork {
    std::string name;
    int fork_seq;
    int own_commits;
    Contents state;
  };
  std::vector<Fork> forks = {{"a", 15, 1, {}}, {"b", 35, 2, {}}, {"c", 50, 4, {}}};
  for (int i = 1; i <= 60; ++i) {
    w.Commit("main", i, w.current);
    for (Fork& f : forks) {
      if (f.fork_seq != i) continue;
      ASSERT_TRUE(w.graph->CreateBranch(f.name, "main").ok());
      f.state = w.current;
      for (int j = 1; j <= f.own_commits; ++j) w.Commit(f.name, 100 * i + j, f.state);
    }
  }
  const std::vector<std::string> main_ids = CommitIds(*w.graph, "main", 0, 60);
  // What survives, worked out from the snapshots themselves: the versions of main's newest three
  // commits, of each branch's newest three own commits (all of a's and b's), of each fork state
  // (main at 15, 35 and 50: the fork checkpoints pin exactly these) and of genesis.
  std::vector<std::string> retained = {main_ids[58], main_ids[59], main_ids[60]};
  for (const Fork& f : forks) {
    const uint64_t first = f.fork_seq + 1, head = f.fork_seq + f.own_commits;
    for (const std::string& id :
         CommitIds(*w.graph, f.name, std::max<uint64_t>(first, head - 2), head)) {
      retained.push_back(id);
    }
  }
  std::set<std::string> kept;
  for (const std::string& id : retained) {
    std::set<std::string> names = ObjectsOf(*w.graph->SnapshotAtCommit(id));
    kept.insert(names.begin(), names.end());
  }
  for (int seq : {0, 15, 35, 50}) {
    std::set<std::string> names = ObjectsOf(*w.graph->SnapshotAtCommit(main_ids[seq]));
    kept.insert(names.begin(), names.end());
  }
  const std::set<std::string> before = Names(*storage::ListAll(*w.store, ""));
  std::set<std::string> expected_removed;
  for (const std::string& name : Names(*storage::ListAll(*w.store, "tables/"))) {
    if (!kept.count(name)) expected_removed.insert(name);
  }
  const size_t table_objects_removed = expected_removed.size();
  // Main's checkpoints below 50, the fold base of seq 58. Fork checkpoints are never deleted, and
  // no branch reached a checkpoint boundary of its own.
  for (int seq : {10, 20, 30, 40}) {
    expected_removed.insert(commit::CheckpointName(commit::kMainKey, seq));
  }
  // Main's seq 14 wrote a Person version that nothing retained pins; seq 15's is a's fork state.
  const std::string person_at_14 =
      (*w.graph->SnapshotAtCommit(main_ids[14])->Table("node:Person"))->manifest_name();
  const std::string person_at_15 =
      (*w.graph->SnapshotAtCommit(main_ids[15])->Table("node:Person"))->manifest_name();

  w.clock->Advance(2 * kHourMicros);  // Everything is older than the grace period.
  CleanupOptions options;
  options.keep = 3;
  Result<GraphCleanupReport> report = Cleanup(*w.graph, options);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(std::set<std::string>(report->removed.begin(), report->removed.end()),
            expected_removed);
  EXPECT_EQ(report->removed.size(), expected_removed.size());
  // Every commit writes a Person version, so at least the Person manifests of main's seqs 1..57
  // other than the fork states 15, 35 and 50, and that of c's seq 51, go.
  EXPECT_GE(table_objects_removed, 55u);
  for (const TableCleanupRow& row : report->tables) {
    EXPECT_FALSE(row.error.has_value()) << *row.error;
  }
  // Nothing else went (records stay, D10), and cleanup added only the four horizons.
  std::set<std::string> expected_after;
  std::set_difference(before.begin(), before.end(), expected_removed.begin(),
                      expected_removed.end(), std::inserter(expected_after, expected_after.end()));
  for (const char* branch : {"main", "a", "b", "c"}) {
    expected_after.insert(commit::HorizonName(w.graph->SnapshotOfBranch(branch)->state().stream));
  }
  EXPECT_EQ(Names(*storage::ListAll(*w.store, "")), expected_after);
  EXPECT_EQ(w.store->Head(person_at_14).status().kind(), Kind::kNotFound);
  EXPECT_TRUE(w.store->Head(person_at_15).ok());

  // A fresh process reads every retained snapshot of every branch in full.
  std::unique_ptr<Graph> reader = std::move(*Graph::Open(w.MakeRuntime(7)));
  for (const std::string& id : retained) {
    Result<Snapshot> s = reader->SnapshotAtCommit(id);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    EXPECT_EQ(Read(*s), w.expected.at(id)) << id;
  }
  EXPECT_EQ(Read(*reader->SnapshotOfBranch("main")), w.current);
  for (const Fork& f : forks) EXPECT_EQ(Read(*reader->SnapshotOfBranch(f.name)), f.state);
  // A second cleanup with the same keep finds nothing more.
  w.clock->Advance(2 * kHourMicros);
  Result<GraphCleanupReport> again = Cleanup(*w.graph, options);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_TRUE(again->removed.empty());
}

TEST(GraphCleanupTest, UnpublishedStagingIsKeptWhileItMayStillPublishAndYoungObjectsAreKept) {
  World w;
  for (int i = 1; i <= 5; ++i) w.Commit("main", i, w.current);
  Snapshot head = *w.graph->SnapshotOfBranch("main");
  table::TableStore tables(w.rt);
  const TablePin base = head.state().FindByKey("node:Company")->pin;
  // Staged against the head: record 6 does not exist, so a writer may still publish it.
  Result<TablePin> pending = tables.Append(base, Rows(head, "node:Company", {"pending"}),
                                           table::StagedAgainst{"main", head.state().seq});
  ASSERT_TRUE(pending.ok());
  // Staged against seq 4: record 5 exists and pins something else, so it is dead (D9).
  Result<TablePin> dead =
      tables.Append(base, Rows(head, "node:Company", {"dead"}), table::StagedAgainst{"main", 4});
  ASSERT_TRUE(dead.ok());
  const std::string pending_name = table::ManifestName(pending->table(), pending->staged_version);
  const std::string dead_name = table::ManifestName(dead->table(), dead->staged_version);

  CleanupOptions options;
  options.keep = 1;
  // Within the grace period nothing goes, not even the dead version.
  Result<GraphCleanupReport> young = Cleanup(*w.graph, options);
  ASSERT_TRUE(young.ok()) << young.status().ToString();
  EXPECT_TRUE(young->removed.empty());
  EXPECT_TRUE(w.store->Head(dead_name).ok());

  w.clock->Advance(2 * kHourMicros);
  Result<GraphCleanupReport> report = Cleanup(*w.graph, options);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE(w.store->Head(pending_name).ok());
  EXPECT_EQ(w.store->Head(dead_name).status().kind(), Kind::kNotFound);
  for (const TableCleanupRow& row : report->tables) {
    if (row.table_key == "node:Company") {
      EXPECT_EQ(row.versions_spared, 1u);
    }
  }
  // The pending version is still publishable: its record lands and reads.
  std::unique_ptr<commit::Stream> main = std::move(*commit::Stream::Open(w.rt, "main"));
  commit::PublishRequest publish;
  publish.stage = [&](const commit::GraphState&) -> Result<commit::RecordContent> {
    commit::RecordContent content;
    content.pins.push_back(*pending);
    return content;
  };
  ASSERT_TRUE(main->Publish(publish).ok());
  EXPECT_TRUE(Read(*w.graph->SnapshotOfBranch("main"))["node:Company"].count("pending"));
}

TEST(GraphCleanupTest, SoftDroppedDataStaysUntilCleanupReclaimsIt) {
  World w;
  const std::string genesis = w.graph->SnapshotOfBranch("main")->commit_id();
  const std::string empty_company =
      (*w.graph->SnapshotAtCommit(genesis)->Table("node:Company"))->manifest_name();
  for (int i = 1; i <= 5; ++i) w.Commit("main", i, w.current);
  const std::string before_drop = w.graph->SnapshotOfBranch("main")->commit_id();
  const std::string company_root =
      (*w.graph->SnapshotOfBranch("main")->Table("node:Company"))->table().Root() + "/";
  // Drop the Company type and Person.age (soft).
  Result<SchemaApplyResult> applied = ApplySchema(*w.graph, "node Person { name: String @key }");
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  w.current.erase("node:Company");
  for (int i : {10, 11, 13}) w.Commit("main", i, w.current);
  // Until cleanup, time travel reads the dropped type and property.
  Snapshot old = *w.graph->SnapshotAtCommit(before_drop);
  EXPECT_EQ((*old.Table("node:Company"))->entity_count(), 1u);
  EXPECT_EQ((*old.Table("node:Person"))->schema().size(), 3u);

  w.clock->Advance(2 * kHourMicros);
  CleanupOptions options;
  options.keep = 1;
  Result<GraphCleanupReport> report = Cleanup(*w.graph, options);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  // Of the dropped table only the empty version genesis pins is left (checkpoint 0 is a root).
  std::vector<std::string> left;
  const std::vector<storage::ObjectMeta> objects = *storage::ListAll(*w.store, company_root);
  for (const storage::ObjectMeta& m : objects) {
    left.push_back(m.name);
  }
  EXPECT_EQ(left, std::vector<std::string>{empty_company});
  for (const TableCleanupRow& row : report->tables) {
    if (row.table_key == "node:Company") {
      EXPECT_GT(row.fragments_removed, 0u);
    }
  }
  std::unique_ptr<Graph> reader = std::move(*Graph::Open(w.MakeRuntime(9)));
  EXPECT_EQ(reader->SnapshotAtCommit(before_drop)->Table("node:Company").status().code(),
            Code::kVersionsReclaimed);
  Snapshot head = *reader->SnapshotOfBranch("main");
  EXPECT_EQ(head.Table("node:Company").status().kind(), Kind::kNotFound);
  EXPECT_EQ((*head.Table("node:Person"))->Ids()->size(), w.current["node:Person"].size());
}

// Issue 23 item 6: reading a commit whose table versions cleanup reclaimed is VersionsReclaimed
// naming the commit — when the snapshot is opened afterwards, and when it was opened before the
// cleanup and read after — through Snapshot::Table, a query and an export alike. A table object
// missing at a commit cleanup retains is damage: Corruption naming the object.
TEST(GraphCleanupTest, AReclaimedCommitReadsAsVersionsReclaimedAndALostObjectAsCorruption) {
  World w;
  for (int i = 1; i <= 20; ++i) w.Commit("main", i, w.current);
  const std::vector<std::string> ids = CommitIds(*w.graph, "main", 1, 20);
  // Seq 4, opened by a handle whose caches are empty (the writer's hold what it wrote).
  std::unique_ptr<Graph> early = std::move(*Graph::Open(w.MakeRuntime(10)));
  Snapshot opened_before = *early->SnapshotAtCommit(ids[3]);
  w.clock->Advance(2 * kHourMicros);
  CleanupOptions options;
  options.keep = 5;  // Retains seq 16..20.
  ASSERT_TRUE(Cleanup(*w.graph, options).ok());

  std::unique_ptr<Graph> reader = std::move(*Graph::Open(w.MakeRuntime(11)));
  auto reclaimed = [&](const std::string& id, int seq) {
    return "the data of commit " + id + " (seq " + std::to_string(seq) +
           " of its branch) was reclaimed by cleanup (cleanup retains its branch's commits from "
           "seq 16); read a newer commit";
  };
  Result<Snapshot> old = reader->SnapshotAtCommit(ids[2]);
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  Status table = old->Table("node:Person").status();
  EXPECT_EQ(table.code(), Code::kVersionsReclaimed) << table.ToString();
  EXPECT_EQ(table.message(), reclaimed(ids[2], 3));
  const std::string_view kNames = "query names() { match { $p: Person } return { $p.name } }";
  Result<OrderedJson> rows = RunQuery(*old, kNames, "names", Json::object());
  EXPECT_EQ(rows.status().code(), Code::kVersionsReclaimed) << rows.status().ToString();
  EXPECT_EQ(rows.status().message(), reclaimed(ids[2], 3));
  Result<std::string> exported = ExportToString(opened_before);
  EXPECT_EQ(exported.status().code(), Code::kVersionsReclaimed) << exported.status().ToString();
  EXPECT_EQ(exported.status().message(), reclaimed(ids[3], 4));
  // Retained commits read in full.
  Result<OrderedJson> kept =
      RunQuery(*reader->SnapshotAtCommit(ids[15]), kNames, "names", Json::object());
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  EXPECT_EQ((*kept)["row_count"].get<size_t>(), w.expected.at(ids[15])["node:Person"].size());

  // Damage: an object of the head's Person version disappears behind OmniGraph's back.
  Snapshot head = *reader->SnapshotOfBranch("main");
  const std::string manifest = (*head.Table("node:Person"))->manifest_name();
  std::string fragment;
  for (const std::string& name : (*head.Table("node:Person"))->ObjectNames()) {
    if (name != manifest && name.find("/data/") != std::string::npos) fragment = name;
  }
  ASSERT_FALSE(fragment.empty());
  ASSERT_TRUE(w.store->Delete(fragment).ok());
  std::unique_ptr<Graph> fresh = std::move(*Graph::Open(w.MakeRuntime(12)));
  Result<OrderedJson> damaged =
      RunQuery(*fresh->SnapshotOfBranch("main"), kNames, "names", Json::object());
  EXPECT_EQ(damaged.status().code(), Code::kCorruption) << damaged.status().ToString();
  EXPECT_EQ(damaged.status().object(), fragment);
  ASSERT_TRUE(w.store->Delete(manifest).ok());
  fresh = std::move(*Graph::Open(w.MakeRuntime(13)));
  Status lost = fresh->SnapshotOfBranch("main")->Table("node:Person").status();
  EXPECT_EQ(lost.code(), Code::kCorruption) << lost.ToString();
  EXPECT_EQ(lost.object(), manifest);
  EXPECT_EQ(lost.message(), "table object " + manifest + " of commit " + ids[19] +
                                " (seq 20 of its branch) is missing, but cleanup retains that "
                                "commit: the object was lost or deleted outside OmniGraph "
                                "(restore it from a backup)");
}

// Derived objects (table/derived.h) live exactly as long as the version they name: cleanup
// removes those of reclaimed versions, keeps those of retained ones, and counts them.
TEST(GraphCleanupTest, DerivedObjectsAreRemovedWithTheirVersionAndKeptWithIt) {
  World w;
  std::vector<std::shared_ptr<const table::TableVersion>> versions;
  for (int i = 1; i <= 6; ++i) {
    w.Commit("main", i, w.current);
    versions.push_back(*w.graph->SnapshotOfBranch("main")->Table("node:Person"));
    ASSERT_TRUE(versions.back()->WriteDerived("ids", "index of " + std::to_string(i)).ok());
  }
  w.clock->Advance(2 * kHourMicros);
  CleanupOptions options;
  options.keep = 1;
  Result<GraphCleanupReport> report = Cleanup(*w.graph, options);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  uint64_t derived_removed = 0;
  for (const TableCleanupRow& row : report->tables) derived_removed += row.derived_removed;
  EXPECT_EQ(derived_removed, 5u);
  for (size_t i = 0; i < versions.size(); ++i) {
    const std::string name =
        table::DerivedName(versions[i]->table(), versions[i]->manifest().staged_version, "ids");
    EXPECT_EQ(w.store->Head(name).ok(), i + 1 == versions.size()) << name;
  }
  std::unique_ptr<Graph> reader = std::move(*Graph::Open(w.MakeRuntime(9)));
  Result<std::shared_ptr<const std::string>> kept =
      (*reader->SnapshotOfBranch("main")->Table("node:Person"))->ReadDerived("ids");
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  EXPECT_EQ(**kept, "index of 6");
}

// Counts the calls that touch idempotency key objects (`/keys/` in the name or prefix).
class KeyCallsStore final : public storage::ObjectStore {
 public:
  explicit KeyCallsStore(std::shared_ptr<storage::ObjectStore> inner) : inner_(std::move(inner)) {}
  int gets = 0, lists = 0, deletes = 0, others = 0;

  Result<storage::GetResult> Get(std::string_view n, std::optional<storage::ByteRange> r) override {
    gets += IsKey(n);
    return inner_->Get(n, r);
  }
  Result<storage::ObjectMeta> Head(std::string_view n) override {
    others += IsKey(n);
    return inner_->Head(n);
  }
  Result<storage::ListPage> List(const storage::ListOptions& o) override {
    lists += IsKey(o.prefix);
    return inner_->List(o);
  }
  Status Put(std::string_view n, std::string_view d) override {
    others += IsKey(n);
    return inner_->Put(n, d);
  }
  Result<bool> PutIfAbsent(std::string_view n, std::string_view d) override {
    others += IsKey(n);
    return inner_->PutIfAbsent(n, d);
  }
  Result<std::string> PutIfMatch(std::string_view n, std::string_view d,
                                 std::string_view e) override {
    others += IsKey(n);
    return inner_->PutIfMatch(n, d, e);
  }
  Status Delete(std::string_view n) override {
    deletes += IsKey(n);
    return inner_->Delete(n);
  }
  std::string Describe() const override { return "key-calls"; }

 private:
  static int IsKey(std::string_view n) { return n.find("/keys/") != std::string_view::npos; }
  std::shared_ptr<storage::ObjectStore> inner_;
};

// Key objects go with the records that name them (docs/design/idempotency.md "Retention"): a key
// whose record retention reclaimed is removed, one whose record is retained stays and still
// answers its retries, and so do a key fenced to a seq not yet published and a key younger than
// the grace period. One LIST of the stream's keys, one GET per key past the grace period, one
// DELETE per removed key.
TEST(GraphCleanupTest, AKeyGoesWithItsReclaimedRecordAndStaysWithARetainedOne) {
  World w;
  auto key = [](const std::string& k) { return Idempotency{k, Sha256Hex(k), Json::object()}; };
  for (int i = 1; i <= 30; ++i) {
    w.Commit("main", i, w.current, i == 3 ? std::optional(key("old")) : std::nullopt);
  }
  // A write that fenced its key to the next seq and crashed before publishing.
  const std::string in_flight = IdempotencyKeyName(commit::kMainKey, "in-flight");
  ASSERT_TRUE(w.store
                  ->Put(in_flight, Json{{"format", 1},
                                        {"key", "in-flight"},
                                        {"request_sha256", Sha256Hex("in-flight")},
                                        {"seq", 36}}
                                       .dump())
                  .ok());
  for (int i = 31; i <= 35; ++i) {
    w.Commit("main", i, w.current, i == 34 ? std::optional(key("new")) : std::nullopt);
  }
  w.clock->Advance(2 * kHourMicros);  // Everything so far is older than the grace period.
  // A key below the horizon written just now: younger than the grace period.
  const std::string young = IdempotencyKeyName(commit::kMainKey, "young");
  ASSERT_TRUE(w.store
                  ->Put(young, Json{{"format", 1},
                                    {"key", "young"},
                                    {"request_sha256", Sha256Hex("young")},
                                    {"seq", 2}}
                                   .dump())
                  .ok());

  auto calls = std::make_shared<KeyCallsStore>(w.store);
  storage::Runtime rt = w.MakeRuntime(9);
  rt.store = calls;
  std::unique_ptr<Graph> cleaner = std::move(*Graph::Open(rt));
  CleanupOptions options;
  options.keep = 10;  // Seqs 26..35 are retained; the record at 3 is not.
  Result<GraphCleanupReport> report = Cleanup(*cleaner, options);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  const std::string old_key = IdempotencyKeyName(commit::kMainKey, "old");
  std::vector<std::string> keys_removed;
  std::copy_if(report->removed.begin(), report->removed.end(), std::back_inserter(keys_removed),
               [](const std::string& n) { return n.find("/keys/") != std::string::npos; });
  EXPECT_EQ(keys_removed, std::vector<std::string>{old_key});
  EXPECT_EQ(w.store->Head(old_key).status().kind(), Kind::kNotFound);
  for (const std::string& kept : {IdempotencyKeyName(commit::kMainKey, "new"), in_flight, young}) {
    EXPECT_TRUE(w.store->Head(kept).ok()) << kept;
  }
  EXPECT_EQ(calls->lists, 1);
  EXPECT_EQ(calls->gets, 3) << "old, new and in-flight; the young key is not read";
  EXPECT_EQ(calls->deletes, 1);
  EXPECT_EQ(calls->others, 0);

  // The retained key still answers its retry; the reclaimed one no longer does (a new write).
  Result<std::optional<WriteResult>> replayed = Replay(*w.graph, "main", key("new"));
  ASSERT_TRUE(replayed.ok()) << replayed.status().ToString();
  ASSERT_TRUE(replayed->has_value());
  EXPECT_EQ((*replayed)->seq, 34u);
  Result<std::optional<WriteResult>> gone = Replay(*w.graph, "main", key("old"));
  ASSERT_TRUE(gone.ok()) << gone.status().ToString();
  EXPECT_FALSE(gone->has_value());

  // A dry run reports without deleting; with nothing left to expire it reports nothing.
  options.dry_run = true;
  Result<GraphCleanupReport> again = Cleanup(*cleaner, options);
  ASSERT_TRUE(again.ok());
  for (const std::string& n : again->removed) EXPECT_EQ(n.find("/keys/"), std::string::npos) << n;
}

TEST(GraphCleanupTest, CleanupNeedsKeepOrOlderThan) {
  World w;
  EXPECT_EQ(Cleanup(*w.graph, CleanupOptions{}).status().code(), Code::kInvalidArgument);
  CleanupOptions zero;
  zero.keep = 0;
  EXPECT_EQ(Cleanup(*w.graph, zero).status().code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace omnigraph::engine
