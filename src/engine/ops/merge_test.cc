// Three-way graph merge (engine/ops/merge.h): every row of the merge truth table, fast-forward and
// already-up-to-date, lineage on the record, criss-cross histories, a merge across a schema
// change, a target that moves during the merge, and the cost of the merge-base search.
#include "engine/ops/merge.h"

#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "base/clock.h"
#include "base/ids.h"
#include "commit/stream.h"
#include "commit/testing_hooks.h"
#include "engine/graph/graph.h"
#include "engine/ops/cleanup.h"
#include "engine/ops/export.h"
#include "engine/ops/schema_apply.h"
#include "engine/write/mutate.h"
#include "storage/counting_store.h"
#include "storage/memory_store.h"

namespace omnigraph::engine {
namespace {

using schema::Value;
using Params = std::map<std::string, Value>;

constexpr std::string_view kSchema = R"(
node Person {
  name: String @key
  age: I32?
  email: String? @unique
  @range(age, 0..150)
}
node Company { name: String @key }
node Memo { text: String }
edge Knows: Person -> Person { }
edge WorksAt: Person -> Company @card(0..1) { }
)";

constexpr std::string_view kQueries = R"(
query add($name: String, $age: I32) { insert Person { name: $name, age: $age } }
query company($name: String) { insert Company { name: $name } }
query memo($text: String) { insert Memo { text: $text } }
query knows($a: String, $b: String) { insert Knows { from: $a, to: $b } }
query hire($p: String, $c: String) { insert WorksAt { from: $p, to: $c } }
query age($name: String, $age: I32) { update Person set { age: $age } where name = $name }
query email($name: String, $email: String) {
  update Person set { email: $email } where name = $name
}
query remove($name: String) { delete Person where name = $name }
query forget($text: String) { delete Memo where text = $text }
)";

class MergeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    counting_ = std::make_shared<storage::CountingStore>(std::make_shared<storage::MemoryStore>());
    InitOptions options;
    options.checkpoint_interval = checkpoint_interval_;
    Result<std::unique_ptr<Graph>> g =
        Graph::Init(storage::Runtime::ForTest(counting_, 3), kSchema, options);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    graph_ = std::move(*g);
  }

  void Run(std::string_view branch, std::string_view name, Params params) {
    MutationOptions options;
    options.branch = std::string(branch);
    Result<MutationResult> r = Mutate(*graph_, kQueries, name, params, options);
    ASSERT_TRUE(r.ok()) << name << ": " << r.status().ToString();
  }
  void Add(std::string_view branch, std::string_view name, int32_t age) {
    Run(branch, "add", {{"name", Value::String(std::string(name))}, {"age", Value::Int(age)}});
  }
  void Branch(std::string_view name, std::string_view from = "main") {
    ASSERT_TRUE(graph_->CreateBranch(name, from).ok());
  }
  Result<MergeResult> Merge(std::string_view source, std::string_view target = "main") {
    return engine::Merge(*graph_,
                         MergeRequest{std::string(source), std::string(target), std::nullopt});
  }
  MergeResult MustMerge(std::string_view source, std::string_view target = "main") {
    Result<MergeResult> r = Merge(source, target);
    OMNIGRAPH_CHECK_MSG(r.ok(), r.status().ToString());
    return *r;
  }
  const commit::GraphState Head(std::string_view branch) {
    return graph_->SnapshotOfBranch(branch)->state();
  }
  // A branch head's contents as its export's lines, sorted (edge ids are ULIDs: kept).
  std::multiset<std::string> Contents(std::string_view branch) {
    std::string text = *ExportToString(*graph_->SnapshotOfBranch(branch));
    std::multiset<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.insert(line);
    return lines;
  }
  // The export lines of one type, with edge ids left out (they are ULIDs).
  std::multiset<std::string> Of(std::string_view branch, std::string_view type) {
    std::multiset<std::string> out;
    for (std::string line : Contents(branch)) {
      if (line.find("\"" + std::string(type) + "\"") == std::string::npos) continue;
      const size_t id = line.find("\"id\":");
      if (id != std::string::npos && line.find("\"edge\"") != std::string::npos) {
        line.erase(id, line.find(',', id) - id + 1);
      }
      out.insert(line);
    }
    return out;
  }
  MergeResult MustPreview(std::string_view source, std::string_view target = "main") {
    Result<MergeResult> r = engine::PreviewMerge(
        *graph_, MergeRequest{std::string(source), std::string(target), std::nullopt});
    OMNIGRAPH_CHECK_MSG(r.ok(), r.status().ToString());
    return *r;
  }
  // Store writes of every kind since `before`.
  uint64_t WritesSince(const storage::OpCounts& before) const {
    const storage::OpCounts now = counting_->Snapshot();
    return (now.puts - before.puts) + (now.put_if_absent - before.put_if_absent) +
           (now.put_if_match - before.put_if_match) + (now.deletes - before.deletes);
  }
  static std::vector<std::string> Kinds(const MergeResult& r) {
    std::vector<std::string> out;
    for (const MergeConflict& c : r.conflicts) out.push_back(c.kind);
    return out;
  }

  uint64_t checkpoint_interval_ = 50;
  std::shared_ptr<storage::CountingStore> counting_;
  std::unique_ptr<Graph> graph_;
};

// Truth table: only the source changed → fast-forward, adopting the source's pins verbatim.
TEST_F(MergeTest, OnlySourceChangedFastForwardsAdoptingTheSourcePins) {
  Add("main", "Ada", 30);
  Branch("x");
  Add("x", "Bob", 40);
  const commit::GraphState before = Head("main");
  MergeResult r = MustMerge("x");
  EXPECT_EQ(r.outcome, MergeOutcome::kFastForward);
  ASSERT_TRUE(r.commit_id.has_value());
  const commit::GraphState after = Head("main"), source = Head("x");
  EXPECT_EQ(after.seq, before.seq + 1);
  for (const auto& [identity, t] : after.tables) EXPECT_EQ(t.pin, source.tables.at(identity).pin);
  EXPECT_EQ(Contents("main"), Contents("x"));
  // The record names the source head it adopted, and its generation follows both parents.
  commit::Record rec = *commit::LookupCommit(*graph_->runtime().store, *r.commit_id);
  ASSERT_TRUE(rec.lineage.has_value());
  EXPECT_EQ(rec.lineage->merged_parent_commit_id, source.head_commit_id);
  EXPECT_EQ(rec.lineage->source_stream, source.stream);
  EXPECT_EQ(rec.lineage->source_seq, source.seq);
  EXPECT_EQ(rec.parent_commit_id, before.head_commit_id);
  EXPECT_EQ(rec.generation, std::max(before.head_generation, source.head_generation) + 1);
  // Merging again is already up to date: the source head is now an ancestor of main.
  EXPECT_EQ(MustMerge("x").outcome, MergeOutcome::kAlreadyUpToDate);
}

// Truth table: only the target changed → already up to date, no commit.
TEST_F(MergeTest, OnlyTargetChangedIsAlreadyUpToDate) {
  Branch("x");
  Add("main", "Ada", 30);
  const commit::GraphState before = Head("main");
  MergeResult r = MustMerge("x");
  EXPECT_EQ(r.outcome, MergeOutcome::kAlreadyUpToDate);
  EXPECT_FALSE(r.commit_id.has_value());
  EXPECT_EQ(Head("main").seq, before.seq);
  // A branch with nothing new at all is up to date too.
  Branch("y");
  EXPECT_EQ(MustMerge("y").outcome, MergeOutcome::kAlreadyUpToDate);
}

// Truth table: disjoint changes → merged, both sides' changes present; the record has two parents.
TEST_F(MergeTest, DisjointChangesMerge) {
  Add("main", "Ada", 30);
  Branch("x");
  Add("x", "Bob", 40);
  Run("x", "memo", {{"text", Value::String("hello")}});
  Add("main", "Cy", 50);
  Run("main", "company", {{"name", Value::String("Acme")}});
  const commit::GraphState target = Head("main"), source = Head("x");
  MergeResult r = MustMerge("x");
  ASSERT_EQ(r.outcome, MergeOutcome::kMerged) << ::testing::PrintToString(Kinds(r));
  EXPECT_EQ(Of("main", "Person").size(), 3u);
  EXPECT_EQ(Of("main", "Memo").size(), 1u);
  EXPECT_EQ(Of("main", "Company").size(), 1u);
  // Memo changed on the source only: its version is the source's, as it is.
  const commit::GraphState merged = Head("main");
  const std::string memo_key = "node:Memo";
  EXPECT_EQ(merged.FindByKey(memo_key)->pin, source.FindByKey(memo_key)->pin);
  EXPECT_EQ(merged.FindByKey("node:Company")->pin, target.FindByKey("node:Company")->pin);
  commit::Record rec = *commit::LookupCommit(*graph_->runtime().store, *r.commit_id);
  EXPECT_EQ(rec.parent_commit_id, target.head_commit_id);
  ASSERT_TRUE(rec.lineage.has_value());
  EXPECT_EQ(rec.lineage->merged_parent_commit_id, source.head_commit_id);
  EXPECT_EQ(rec.generation, std::max(target.head_generation, source.head_generation) + 1);
  // The source is untouched.
  EXPECT_EQ(Head("x").head_commit_id, source.head_commit_id);
  EXPECT_EQ(MustMerge("x").outcome, MergeOutcome::kAlreadyUpToDate);
}

// Truth table: the same keyed node inserted with different values → divergent_insert; nothing
// is published.
TEST_F(MergeTest, SameKeyInsertedDifferentlyIsADivergentInsert) {
  Branch("x");
  Add("x", "Ada", 30);
  Add("main", "Ada", 31);
  Add("main", "Bob", 1);  // A second commit on main, so main is not a fast-forward either.
  const commit::GraphState before = Head("main");
  MergeResult r = MustMerge("x");
  ASSERT_EQ(r.outcome, MergeOutcome::kConflicts);
  ASSERT_EQ(r.conflicts.size(), 1u);
  EXPECT_EQ(r.conflicts[0].kind, "divergent_insert");
  EXPECT_EQ(r.conflicts[0].entity_kind, "node");
  EXPECT_EQ(r.conflicts[0].type_name, "Person");
  EXPECT_TRUE(r.conflicts[0].entity_id.has_value());
  EXPECT_EQ(Head("main").head_commit_id, before.head_commit_id);
  // Main stays writable.
  Add("main", "Cy", 2);
}

// A refused merge's error opens with OmniGraph's words, "merge conflicts", then names the two
// branches and every conflict.
TEST_F(MergeTest, ConflictsStatusOpensWithMergeConflicts) {
  Branch("x");
  Add("x", "Ada", 30);
  Add("main", "Ada", 31);
  MergeResult r = MustMerge("x");
  ASSERT_EQ(r.outcome, MergeOutcome::kConflicts);
  Status s = MergeConflictsStatus(MergeRequest{"x", "main", std::nullopt, {}}, r.conflicts);
  EXPECT_EQ(s.code(), Code::kMergeConflicts);
  EXPECT_TRUE(
      s.message().starts_with("merge conflicts: merging 'x' into 'main' has 1 "
                              "conflict(s); nothing was published:\n  divergent_insert: "))
      << s.message();
}

// The same change on both sides is not a conflict, and is not duplicated.
TEST_F(MergeTest, TheSameInsertOnBothSidesIsKeptOnce) {
  Branch("x");
  Add("x", "Ada", 30);
  Add("main", "Ada", 30);
  Add("main", "Bob", 1);
  ASSERT_EQ(MustMerge("x").outcome, MergeOutcome::kMerged);
  EXPECT_EQ(Of("main", "Person").size(), 2u);
}

// Truth table: the same unkeyed edge inserted on both sides (distinct ids) → merged, both kept.
TEST_F(MergeTest, TheSameUnkeyedEdgeOnBothSidesIsKeptTwice) {
  Add("main", "Ada", 30);
  Add("main", "Bob", 40);
  Branch("x");
  Run("x", "knows", {{"a", Value::String("Ada")}, {"b", Value::String("Bob")}});
  Run("main", "knows", {{"a", Value::String("Ada")}, {"b", Value::String("Bob")}});
  ASSERT_EQ(MustMerge("x").outcome, MergeOutcome::kMerged);
  EXPECT_EQ(Of("main", "Knows").size(), 2u);
}

// A keyed edge (`@key(@src, @dst)`) derives its id from its endpoints, so the same relationship
// inserted on both sides is one entity: equal rows merge once (OmniGraph #583), different values
// are a divergent_insert naming the edge.
TEST(KeyedEdgeMergeTest, TheSameKeyedEdgeOnBothSidesMergesOnceOrDiverges) {
  constexpr std::string_view kKeyed = R"(
node Person { name: String @key }
edge Knows: Person -> Person { since: I32  @key(@src, @dst) }
)";
  constexpr std::string_view kWrites = R"(
query add($name: String) { insert Person { name: $name } }
query knows($a: String, $b: String, $s: I32) { insert Knows { from: $a, to: $b, since: $s } }
)";
  std::unique_ptr<Graph> g = std::move(
      Graph::Init(storage::Runtime::ForTest(std::make_shared<storage::MemoryStore>(), 3), kKeyed)
          .value());
  auto run = [&](std::string_view branch, std::string_view name, Params params) {
    MutationOptions options;
    options.branch = std::string(branch);
    Result<MutationResult> r = Mutate(*g, kWrites, name, params, options);
    ASSERT_TRUE(r.ok()) << name << ": " << r.status().ToString();
  };
  auto knows = [&](std::string_view branch, const char* a, const char* b, int since) {
    run(branch, "knows",
        {{"a", Value::String(a)}, {"b", Value::String(b)}, {"s", Value::Int(since)}});
  };
  for (const char* name : {"a", "b", "c"}) run("main", "add", {{"name", Value::String(name)}});
  ASSERT_TRUE(g->CreateBranch("s", "main").ok());
  knows("s", "a", "b", 1);
  knows("main", "a", "b", 1);
  Result<MergeResult> merged = engine::Merge(*g, MergeRequest{"s", "main", std::nullopt});
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ(merged->outcome, MergeOutcome::kMerged);
  auto ids = [&] { return *(*g->SnapshotOfBranch("main")->Table("edge:Knows"))->Ids(); };
  EXPECT_EQ(ids(), std::vector<std::string>{R"(["a","b"])"});

  ASSERT_TRUE(g->CreateBranch("t", "main").ok());
  knows("t", "b", "c", 1);
  knows("main", "b", "c", 2);
  const std::string head = g->SnapshotOfBranch("main")->commit_id();
  Result<MergeResult> diverged = engine::Merge(*g, MergeRequest{"t", "main", std::nullopt});
  ASSERT_TRUE(diverged.ok()) << diverged.status().ToString();
  ASSERT_EQ(diverged->outcome, MergeOutcome::kConflicts);
  ASSERT_EQ(diverged->conflicts.size(), 1u);
  EXPECT_EQ(diverged->conflicts[0].kind, "divergent_insert");
  EXPECT_EQ(diverged->conflicts[0].entity_kind, "edge");
  EXPECT_EQ(diverged->conflicts[0].type_name, "Knows");
  EXPECT_EQ(diverged->conflicts[0].entity_id, std::optional<std::string>(R"(["b","c"])"));
  EXPECT_EQ(g->SnapshotOfBranch("main")->commit_id(), head);
}

// Truth table: a node deleted on one side while the other adds an edge to it → orphan_edge.
TEST_F(MergeTest, DeletingANodeTheOtherSideLinksToIsAnOrphanEdge) {
  Add("main", "Ada", 30);
  Add("main", "Bob", 40);
  Branch("x");
  Run("x", "remove", {{"name", Value::String("Bob")}});
  Run("main", "knows", {{"a", Value::String("Ada")}, {"b", Value::String("Bob")}});
  const commit::GraphState before = Head("main");
  MergeResult r = MustMerge("x");
  ASSERT_EQ(r.outcome, MergeOutcome::kConflicts);
  EXPECT_EQ(Kinds(r), std::vector<std::string>{"orphan_edge"});
  EXPECT_EQ(r.conflicts[0].type_name, "Person");
  EXPECT_EQ(Head("main").head_commit_id, before.head_commit_id);
  // The other way round: the source adds the edge, the target deleted the node.
  Branch("y", "main");
  Run("y", "knows", {{"a", Value::String("Bob")}, {"b", Value::String("Ada")}});
  Branch("z", "main");
  Run("main", "remove", {{"name", Value::String("Ada")}});
  r = MustMerge("y");
  ASSERT_EQ(r.outcome, MergeOutcome::kConflicts);
  EXPECT_EQ(Kinds(r), std::vector<std::string>{"orphan_edge"});
}

// Truth table: deleted on one side, updated on the other → delete_vs_update, both ways.
TEST_F(MergeTest, DeleteAgainstUpdateIsADeleteVsUpdate) {
  Add("main", "Ada", 30);
  Add("main", "Bob", 40);
  Branch("x");
  Run("x", "remove", {{"name", Value::String("Ada")}});
  Run("x", "age", {{"name", Value::String("Bob")}, {"age", Value::Int(41)}});
  Run("main", "age", {{"name", Value::String("Ada")}, {"age", Value::Int(31)}});
  Run("main", "remove", {{"name", Value::String("Bob")}});
  MergeResult r = MustMerge("x");
  ASSERT_EQ(r.outcome, MergeOutcome::kConflicts);
  // Every conflict is listed, in entity id order.
  EXPECT_EQ(Kinds(r), (std::vector<std::string>{"delete_vs_update", "delete_vs_update"}));
}

// Truth table: different updates of one entity → divergent_update; equal ones merge.
TEST_F(MergeTest, DifferentUpdatesAreADivergentUpdate) {
  Add("main", "Ada", 30);
  Add("main", "Bob", 40);
  Branch("x");
  Run("x", "age", {{"name", Value::String("Ada")}, {"age", Value::Int(31)}});
  Run("x", "age", {{"name", Value::String("Bob")}, {"age", Value::Int(41)}});
  Run("main", "age", {{"name", Value::String("Ada")}, {"age", Value::Int(32)}});
  Run("main", "age", {{"name", Value::String("Bob")}, {"age", Value::Int(41)}});
  MergeResult r = MustMerge("x");
  ASSERT_EQ(r.outcome, MergeOutcome::kConflicts);
  ASSERT_EQ(Kinds(r), std::vector<std::string>{"divergent_update"});
  EXPECT_NE(r.conflicts[0].message.find("Person"), std::string::npos);
}

// A change that nets to nothing on one side contributes nothing: a merge never brings back what
// the other side deleted.
TEST_F(MergeTest, AChangeThatNetsToNothingContributesNothing) {
  Add("main", "Ada", 30);
  Run("main", "memo", {{"text", Value::String("keep")}});
  Branch("x");
  Run("x", "memo", {{"text", Value::String("brief")}});
  Run("x", "forget", {{"text", Value::String("brief")}});
  Run("x", "age", {{"name", Value::String("Ada")}, {"age", Value::Int(31)}});
  Run("x", "age", {{"name", Value::String("Ada")}, {"age", Value::Int(30)}});
  Run("main", "remove", {{"name", Value::String("Ada")}});
  Run("main", "forget", {{"text", Value::String("keep")}});
  const std::multiset<std::string> target = Contents("main");
  MergeResult r = MustMerge("x");
  ASSERT_EQ(r.outcome, MergeOutcome::kMerged) << ::testing::PrintToString(Kinds(r));
  EXPECT_EQ(Contents("main"), target);
}

// The merged result is validated: @unique across the two sides' rows.
TEST_F(MergeTest, AUniqueValueTakenOnBothSidesIsAUniqueViolation) {
  Add("main", "Ada", 30);
  Add("main", "Bob", 40);
  Branch("x");
  Run("x", "email", {{"name", Value::String("Ada")}, {"email", Value::String("a@x")}});
  Run("main", "email", {{"name", Value::String("Bob")}, {"email", Value::String("a@x")}});
  MergeResult r = MustMerge("x");
  ASSERT_EQ(r.outcome, MergeOutcome::kConflicts);
  EXPECT_EQ(Kinds(r), std::vector<std::string>{"unique_violation"});
}

// The merged result is validated: @card counts both sides' new edges.
TEST_F(MergeTest, EdgesAddedOnBothSidesPastMaxAreACardinalityViolation) {
  Add("main", "Ada", 30);
  Run("main", "company", {{"name", Value::String("Acme")}});
  Run("main", "company", {{"name", Value::String("Beta")}});
  Branch("x");
  Run("x", "hire", {{"p", Value::String("Ada")}, {"c", Value::String("Acme")}});
  Run("main", "hire", {{"p", Value::String("Ada")}, {"c", Value::String("Beta")}});
  MergeResult r = MustMerge("x");
  ASSERT_EQ(r.outcome, MergeOutcome::kConflicts);
  EXPECT_EQ(Kinds(r), std::vector<std::string>{"cardinality_violation"});
  EXPECT_EQ(r.conflicts[0].entity_kind, "edge");
  EXPECT_EQ(r.conflicts[0].type_name, "WorksAt");
}

// A table changed on both sides with inserts, updates and deletes from each: the patch keeps all.
TEST_F(MergeTest, BothSidesEditingOneTableMergePerEntity) {
  for (int i = 0; i < 6; ++i) Add("main", "P" + std::to_string(i), i);
  Branch("x");
  Add("x", "S", 1);
  Run("x", "age", {{"name", Value::String("P0")}, {"age", Value::Int(100)}});
  Run("x", "remove", {{"name", Value::String("P1")}});
  Add("main", "T", 2);
  Run("main", "age", {{"name", Value::String("P2")}, {"age", Value::Int(102)}});
  Run("main", "remove", {{"name", Value::String("P3")}});
  Run("main", "remove", {{"name", Value::String("P1")}});  // Deleted on both: no conflict.
  MergeResult r = MustMerge("x");
  ASSERT_EQ(r.outcome, MergeOutcome::kMerged) << ::testing::PrintToString(Kinds(r));
  std::string all;
  for (const std::string& line : Of("main", "Person")) all += line + "\n";
  for (const char* name : {"\"S\"", "\"T\"", "\"P0\"", "\"P2\"", "\"P4\"", "\"P5\""}) {
    EXPECT_NE(all.find(name), std::string::npos) << name;
  }
  EXPECT_EQ(all.find("\"P1\""), std::string::npos);
  EXPECT_EQ(all.find("\"P3\""), std::string::npos);
  EXPECT_NE(all.find("100"), std::string::npos);
  EXPECT_NE(all.find("102"), std::string::npos);
  EXPECT_EQ(Of("main", "Person").size(), 6u);
}

// A merge across a schema change is refused, naming both schemas; nothing is published. A schema
// apply is refused while a branch is open, so the branch here is forked from a commit before the
// change, after it.
TEST_F(MergeTest, AMergeAcrossASchemaChangeIsRefused) {
  const std::string old_head = Head("main").head_commit_id;
  std::string wider(kSchema);
  wider.replace(wider.find("node Memo"), 0, "node Place { name: String @key }\n");
  ASSERT_TRUE(engine::ApplySchema(*graph_, wider).ok());
  ASSERT_TRUE(graph_->CreateBranch("x", "main", old_head).ok());
  Add("x", "Ada", 30);
  const commit::GraphState before = Head("main");
  Result<MergeResult> r = Merge("x");
  ASSERT_EQ(r.status().code(), Code::kUnsupported) << r.status().ToString();
  EXPECT_NE(r.status().message().find(before.schema.ir_hash), std::string::npos);
  EXPECT_NE(r.status().message().find(Head("x").schema.ir_hash), std::string::npos);
  EXPECT_EQ(Head("main").head_commit_id, before.head_commit_id);
}

TEST_F(MergeTest, BadRequestsAreRefused) {
  EXPECT_EQ(Merge("main", "main").status().code(), Code::kInvalidArgument);
  EXPECT_EQ(Merge("nope").status().code(), Code::kBranchNotFound);
  Branch("x");
  EXPECT_EQ(Merge("x", "nope").status().code(), Code::kBranchNotFound);
}

// Two branches that merged the same change and then made disjoint edits merge without conflict:
// a commit both sides have merged is shared history.
TEST_F(MergeTest, AChangeMergedIntoBothSidesIsSharedHistory) {
  Add("main", "Ada", 30);
  Branch("a");
  Branch("b");
  Branch("shared");
  Run("shared", "age", {{"name", Value::String("Ada")}, {"age", Value::Int(31)}});
  Add("a", "A1", 1);
  Add("b", "B1", 2);
  ASSERT_EQ(MustMerge("shared", "a").outcome, MergeOutcome::kMerged);
  ASSERT_EQ(MustMerge("shared", "b").outcome, MergeOutcome::kMerged);
  Add("a", "A2", 3);
  Add("b", "B2", 4);
  MergeResult r = MustMerge("b", "a");
  ASSERT_EQ(r.outcome, MergeOutcome::kMerged) << ::testing::PrintToString(Kinds(r));
  EXPECT_EQ(r.base_commit_id, Head("shared").head_commit_id);
  EXPECT_EQ(Of("a", "Person").size(), 5u);
}

// Criss-cross: main and x each merged the other's first change, so the two first changes are
// both nearest common ancestors of equal generation; the smaller commit id is the base, and the
// merge after it is clean.
TEST_F(MergeTest, ACrissCrossHistoryPicksTheSmallerIdAmongEqualBases) {
  Add("main", "Ada", 30);
  Branch("x");
  Add("main", "M1", 1);
  Branch("m1");  // main at M1
  Add("x", "X1", 2);
  Branch("x1", "x");  // x at X1
  const std::string m1 = Head("main").head_commit_id, x1 = Head("x").head_commit_id;
  ASSERT_EQ(MustMerge("x1", "main").outcome, MergeOutcome::kMerged);
  ASSERT_EQ(MustMerge("m1", "x").outcome, MergeOutcome::kMerged);
  Add("main", "M2", 3);
  Add("x", "X2", 4);
  MergeResult r = MustMerge("x");
  ASSERT_EQ(r.outcome, MergeOutcome::kMerged) << ::testing::PrintToString(Kinds(r));
  EXPECT_EQ(r.base_commit_id, std::min(m1, x1));
  EXPECT_EQ(Of("main", "Person").size(), 5u);
  EXPECT_EQ(Contents("main").size(), Contents("x").size() + 1);
}

// Merging main back into a branch, then that branch into main again, and a branch of a branch.
TEST_F(MergeTest, RepeatedMergesBothWaysAndBranchesOfBranches) {
  Add("main", "Ada", 30);
  Branch("x");
  Add("x", "X1", 1);
  Add("main", "M1", 2);
  ASSERT_EQ(MustMerge("main", "x").outcome, MergeOutcome::kMerged);
  Add("x", "X2", 3);
  // x holds main's head now: merging it back is a fast-forward.
  ASSERT_EQ(MustMerge("x").outcome, MergeOutcome::kFastForward);
  EXPECT_EQ(Of("main", "Person").size(), 4u);
  Add("x", "X3", 3);
  Add("main", "M2", 2);
  ASSERT_EQ(MustMerge("x").outcome, MergeOutcome::kMerged);
  ASSERT_EQ(MustMerge("main", "x").outcome, MergeOutcome::kFastForward);
  Branch("y", "x");
  Add("y", "Y1", 4);
  ASSERT_EQ(MustMerge("y", "x").outcome, MergeOutcome::kFastForward);
  ASSERT_EQ(MustMerge("x").outcome, MergeOutcome::kFastForward);
  EXPECT_EQ(Contents("main"), Contents("y"));
  // A second merge after a fast-forward, of a branch forked before it.
  Branch("z");
  Add("z", "Z1", 5);
  Add("x", "X4", 6);
  // A fast-forward is a record of main's own, which x does not have: three-way from here on.
  ASSERT_EQ(MustMerge("x").outcome, MergeOutcome::kMerged);
  ASSERT_EQ(MustMerge("z").outcome, MergeOutcome::kMerged);
  EXPECT_EQ(Of("main", "Person").size(), 9u);
}

// A branch deleted and created again under the same name merges from its new life only.
TEST_F(MergeTest, ABranchCreatedAgainMergesItsNewLife) {
  Branch("x");
  Add("x", "Old", 1);
  ASSERT_TRUE(graph_->DeleteBranch("x").ok());
  Branch("x");
  Add("x", "New", 2);
  ASSERT_EQ(MustMerge("x").outcome, MergeOutcome::kFastForward);
  std::string all;
  for (const std::string& line : Of("main", "Person")) all += line;
  EXPECT_NE(all.find("New"), std::string::npos);
  EXPECT_EQ(all.find("Old"), std::string::npos);
}

// Cleanup never breaks a later merge: the base of a branch forked long ago is its fork point,
// whose state the branch's fork checkpoint keeps; the base of a later merge is the source head an
// earlier merge took, which the source's own retention may no longer keep.
class MergeCleanupTest : public MergeTest {
 protected:
  void SetUp() override {
    auto store = std::make_shared<storage::MemoryStore>("merge", clock_.get());
    counting_ = std::make_shared<storage::CountingStore>(store);
    storage::Runtime rt = storage::Runtime::ForTest(counting_, 3);
    rt.clock = clock_;
    graph_ = std::move(*Graph::Init(rt, kSchema));
  }
  void Clean() {
    clock_->Advance(2 * 3600LL * 1000 * 1000);  // Past the grace period.
    CleanupOptions options;
    options.keep = 2;
    Result<GraphCleanupReport> cleaned = engine::Cleanup(*graph_, options);
    ASSERT_TRUE(cleaned.ok()) << cleaned.status().ToString();
    removed_ += cleaned->removed.size();
  }
  // Merge x into main, then move both far past `keep` and merge again (the second merge's base is
  // the x head the first merge took, outside both retention windows).
  Result<MergeResult> MergeAfterBothSidesMovedOn() {
    Add("main", "Ada", 30);
    Branch("x");
    Add("x", "X1", 1);
    Run("main", "age", {{"name", Value::String("Ada")}, {"age", Value::Int(41)}});
    Clean();
    OMNIGRAPH_CHECK(MustMerge("x").outcome == MergeOutcome::kMerged);
    for (int i = 2; i < 8; ++i) {
      Run("x", "age", {{"name", Value::String("X1")}, {"age", Value::Int(i)}});
    }
    for (int i = 0; i < 6; ++i) {
      Run("main", "age", {{"name", Value::String("Ada")}, {"age", Value::Int(50 + i)}});
    }
    Clean();
    // A fresh handle: the old one's table cache still holds what cleanup removed.
    storage::Runtime rt = storage::Runtime::ForTest(counting_, 4);
    rt.clock = clock_;
    graph_ = std::move(*Graph::Open(rt));
    return Merge("x");
  }
  std::shared_ptr<ManualClock> clock_ = std::make_shared<ManualClock>();
  size_t removed_ = 0;
};

TEST_F(MergeCleanupTest, AMergeAfterCleanupStillFindsItsBase) {
  Add("main", "Ada", 30);
  Branch("x");
  Add("x", "X1", 1);
  for (int i = 0; i < 12; ++i) {
    Run("main", "age", {{"name", Value::String("Ada")}, {"age", Value::Int(40 + i)}});
  }
  Clean();
  MergeResult r = MustMerge("x");
  ASSERT_EQ(r.outcome, MergeOutcome::kMerged) << ::testing::PrintToString(Kinds(r));
  EXPECT_EQ(Of("main", "Person").size(), 2u);
  // Three newer commits on x (keep 2 no longer keeps the head main merged), more on main.
  for (int i = 2; i < 5; ++i) Add("x", "X" + std::to_string(i), i);
  for (int i = 0; i < 4; ++i) Add("main", "M" + std::to_string(i), i);
  Clean();
  EXPECT_GT(removed_, 0u);
  r = MustMerge("x");
  ASSERT_EQ(r.outcome, MergeOutcome::kMerged) << ::testing::PrintToString(Kinds(r));
  EXPECT_EQ(Of("main", "Person").size(), 9u);
}

// Merge bases are retention roots: after a merge, both branches go on far past `keep`, and the
// next merge's base (the source head the first merge took) has left both retention windows.
// Cleanup must keep the base's table versions, or the next merge cannot be computed. With the
// planted bug (merge bases not rooted) the second merge fails on the reclaimed base.
TEST_F(MergeCleanupTest, MergeBasesAreRetentionRoots) {
  Result<MergeResult> second = MergeAfterBothSidesMovedOn();
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  ASSERT_EQ(second->outcome, MergeOutcome::kMerged) << ::testing::PrintToString(Kinds(*second));
  EXPECT_GT(removed_, 0u);
  EXPECT_EQ(Of("main", "Person").size(), 2u);
  const std::multiset<std::string> people = Of("main", "Person");
  EXPECT_EQ(std::count_if(people.begin(), people.end(),
                          [](const std::string& l) {
                            return l.find("\"age\":7") != std::string::npos ||
                                   l.find("\"age\":55") != std::string::npos;
                          }),
            2);
}

TEST_F(MergeCleanupTest, WithoutMergeBaseRootsTheNextMergeFindsItsBaseReclaimed) {
  commit::TestingHooks().retention_ignores_merge_bases = true;
  Result<MergeResult> second = MergeAfterBothSidesMovedOn();
  commit::TestingHooks().Reset();
  EXPECT_EQ(second.status().code(), Code::kVersionsReclaimed) << second.status().ToString();
}

// The target moved after the merge captured it (another handle wrote to it): the publish loses
// the conditional create and the merge is computed again against the new head, which it reports
// the conflicts of.
TEST_F(MergeTest, ATargetThatMovedIsMergedAgainAgainstItsNewHead) {
  Add("main", "Ada", 30);
  Branch("x");
  Add("x", "Bob", 40);
  Add("main", "Cy", 50);
  (void)Head("main");  // This handle's main is warm at Cy.
  std::unique_ptr<Graph> other = std::move(*Graph::Open(graph_->runtime()));
  MutationOptions on_main;
  ASSERT_TRUE(Mutate(*other, kQueries, "add",
                     Params{{"name", Value::String("Dee")}, {"age", Value::Int(1)}}, on_main)
                  .ok());
  MergeResult r = MustMerge("x");
  ASSERT_EQ(r.outcome, MergeOutcome::kMerged);
  EXPECT_EQ(r.attempts, 2);
  EXPECT_EQ(Of("main", "Person").size(), 4u);
  // Again, with the other handle's change conflicting with the source's.
  Add("x", "Eve", 1);
  Add("main", "Fay", 1);
  (void)Head("main");
  ASSERT_TRUE(Mutate(*other, kQueries, "add",
                     Params{{"name", Value::String("Eve")}, {"age", Value::Int(2)}}, on_main)
                  .ok());
  const std::string head = other->SnapshotOfBranch("main")->commit_id();
  r = MustMerge("x");
  ASSERT_EQ(r.outcome, MergeOutcome::kConflicts);
  EXPECT_EQ(r.attempts, 2);
  EXPECT_EQ(Kinds(r), std::vector<std::string>{"divergent_insert"});
  EXPECT_EQ(Head("main").head_commit_id, head);
  // Both handles can still write to main and to x.
  Add("main", "Gus", 1);
  Add("x", "Hal", 1);
  ASSERT_TRUE(Mutate(*other, kQueries, "add",
                     Params{{"name", Value::String("Ivy")}, {"age", Value::Int(2)}}, on_main)
                  .ok());
}

// The merge-base search reads the commits since the base on both sides, not the history: the
// same change merged at depth 10 and 1,000 makes the same store calls.
// The base's state is read from the checkpoint at or below it: with an interval of 10, the base
// at seq 10 and the one at seq 1000 each sit on a checkpoint, so the fold is the same size.
class MergeCostTest : public MergeTest {
 protected:
  MergeCostTest() { checkpoint_interval_ = 10; }

  // `depth` commits on main (records that change no table: the history, not the data, grows),
  // then one change on each side.
  storage::OpCounts MergeAtDepth(int depth, MergeResult& out) {
    std::unique_ptr<commit::Stream> main =
        std::move(*commit::Stream::Open(graph_->runtime(), "main", {checkpoint_interval_}));
    for (int i = 0; i < depth; ++i) {
      commit::PublishRequest request;
      request.stage = [](const commit::GraphState&) { return commit::RecordContent{}; };
      OMNIGRAPH_CHECK(main->Publish(request).ok());
    }
    main->WaitForBackground();
    Branch("x");
    Add("x", "S", 1);
    Add("main", "T", 2);
    // Warm both heads, so that the counts below are the merge's own.
    (void)Head("x");
    (void)Head("main");
    const storage::OpCounts before = counting_->Snapshot();
    out = MustMerge("x");
    storage::OpCounts after = counting_->Snapshot();
    after.gets -= before.gets;
    after.heads -= before.heads;
    after.lists -= before.lists;
    after.puts -= before.puts;
    after.put_if_absent -= before.put_if_absent;
    after.put_if_match -= before.put_if_match;
    after.deletes -= before.deletes;
    return after;
  }
};

TEST_F(MergeCostTest, TheSameMergeAtDepth10And1000ReadsTheSameObjects) {
  MergeResult shallow;
  const storage::OpCounts at10 = MergeAtDepth(10, shallow);
  ASSERT_EQ(shallow.outcome, MergeOutcome::kMerged);
  // The two heads and their common parent.
  EXPECT_EQ(shallow.base_records_read, 3u);
  SetUp();
  MergeResult deep;
  const storage::OpCounts at1000 = MergeAtDepth(1000, deep);
  ASSERT_EQ(deep.outcome, MergeOutcome::kMerged);
  EXPECT_EQ(deep.base_records_read, 3u);
  // Reads: the three records of the base search; the base's fold (its record, its stream's
  // metadata, the checkpoint it sits on); Person's three versions and what their diffs and the
  // patch read; the change set's diff of the merged version against the target's (2 GETs of
  // the merged version, which the staging wrote); two HEADs of the gap guard (before the create,
  // and the placement check after it). Writes: the patch's fragment and manifest, the record.
  EXPECT_EQ(at10.gets, 13u);
  EXPECT_EQ(at10.heads, 2u);
  EXPECT_EQ(at10.lists, 0u);
  EXPECT_EQ(at10.put_if_absent, 3u);
  EXPECT_EQ(at10.gets, at1000.gets);
  EXPECT_EQ(at10.heads, at1000.heads);
  EXPECT_EQ(at10.lists, at1000.lists);
  EXPECT_EQ(at10.put_if_absent, at1000.put_if_absent);
}

// A preview says what the merge would do, writes nothing, and agrees with the merge that follows:
// each outcome, and every conflict (entity and validation) as the merge lists them.
TEST_F(MergeTest, APreviewTellsEachOutcomeAndWritesNothing) {
  Add("main", "Ada", 30);
  Branch("x");
  Branch("up");
  storage::OpCounts before = counting_->Snapshot();
  MergeResult p = MustPreview("up");
  EXPECT_EQ(p.outcome, MergeOutcome::kAlreadyUpToDate);
  EXPECT_EQ(p.source_ahead, 0u);
  Add("x", "Bob", 40);
  Add("x", "Cy", 41);
  before = counting_->Snapshot();
  p = MustPreview("x");
  EXPECT_EQ(WritesSince(before), 0u);
  EXPECT_EQ(p.outcome, MergeOutcome::kFastForward);
  EXPECT_EQ(p.source_ahead, 2u);
  EXPECT_EQ(p.target_ahead, 0u);
  EXPECT_EQ(p.base_commit_id, Head("main").head_commit_id);
  EXPECT_EQ(p.source_commit_id, Head("x").head_commit_id);
  EXPECT_FALSE(p.commit_id.has_value());
  Add("main", "Dee", 50);
  const std::string main_head = Head("main").head_commit_id;
  before = counting_->Snapshot();
  p = MustPreview("x");
  EXPECT_EQ(WritesSince(before), 0u);
  EXPECT_EQ(p.outcome, MergeOutcome::kMerged);
  EXPECT_EQ(p.source_ahead, 2u);
  EXPECT_EQ(p.target_ahead, 1u);
  EXPECT_EQ(p.target_commit_id, main_head);
  EXPECT_EQ(Head("main").head_commit_id, main_head);
  EXPECT_EQ(MustMerge("x").outcome, MergeOutcome::kMerged);
  EXPECT_EQ(MustPreview("x").outcome, MergeOutcome::kAlreadyUpToDate);
}

TEST_F(MergeTest, APreviewListsTheConflictsTheMergeWouldMeet) {
  Add("main", "Ada", 30);
  Add("main", "Bob", 40);
  Branch("x");
  Run("x", "remove", {{"name", Value::String("Ada")}});
  Run("x", "age", {{"name", Value::String("Bob")}, {"age", Value::Int(41)}});
  Run("main", "age", {{"name", Value::String("Ada")}, {"age", Value::Int(31)}});
  Run("main", "remove", {{"name", Value::String("Bob")}});
  const storage::OpCounts before = counting_->Snapshot();
  const MergeResult p = MustPreview("x");
  EXPECT_EQ(WritesSince(before), 0u);
  ASSERT_EQ(p.outcome, MergeOutcome::kConflicts);
  EXPECT_EQ(p.conflicts, MustMerge("x").conflicts);
  EXPECT_EQ(Kinds(p), (std::vector<std::string>{"delete_vs_update", "delete_vs_update"}));
  // A conflict the validation of the merged result finds (no entity conflicts): orphan_edge.
  Add("main", "Eve", 20);
  Add("main", "Fay", 21);
  Branch("y");
  Run("y", "remove", {{"name", Value::String("Fay")}});
  Run("main", "knows", {{"a", Value::String("Eve")}, {"b", Value::String("Fay")}});
  const MergeResult q = MustPreview("y");
  ASSERT_EQ(q.outcome, MergeOutcome::kConflicts);
  EXPECT_EQ(Kinds(q), std::vector<std::string>{"orphan_edge"});
  EXPECT_EQ(q.conflicts, MustMerge("y").conflicts);
  // The errors of a merge.
  EXPECT_EQ(engine::PreviewMerge(*graph_, MergeRequest{"x", "x", std::nullopt}).status().code(),
            Code::kInvalidArgument);
  EXPECT_EQ(
      engine::PreviewMerge(*graph_, MergeRequest{"nope", "main", std::nullopt}).status().code(),
      Code::kBranchNotFound);
}

// The base search reads the commits since the base on both sides: k commits on the source and
// one on the target read k + 2 records (the k, the target's, and the fork commit).
TEST_F(MergeTest, TheBaseSearchReadsTheCommitsSinceTheBase) {
  Add("main", "Ada", 30);
  int made = 0;
  for (int k : {1, 5, 20}) {
    const std::string branch = "k" + std::to_string(k);
    Branch(branch);
    for (int i = 0; i < k; ++i) Add(branch, branch + "-" + std::to_string(i), i);
    Add("main", "M" + std::to_string(k), 1);
    MergeResult r = MustMerge(branch);
    ASSERT_EQ(r.outcome, MergeOutcome::kMerged);
    EXPECT_EQ(r.base_records_read, static_cast<uint64_t>(k) + 2) << k;
    made += k + 1;
  }
  EXPECT_EQ(Of("main", "Person").size(), static_cast<size_t>(1 + made));
}

}  // namespace
}  // namespace omnigraph::engine
