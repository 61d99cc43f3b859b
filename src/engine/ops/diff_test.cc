// The diff of two read views (engine/ops/diff.h): inserts, updates with both images and deletes
// between two branch heads, in both directions; a past commit as a side; per-type counts; pages
// and their tokens; a schema boundary; and the cost, which is the change's and not the graph's.
#include "engine/ops/diff.h"

#include <gtest/gtest.h>

#include "commit/stream.h"
#include "engine/graph/graph.h"
#include "engine/ops/load.h"
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
}
node Company { name: String @key }
edge WorksAt: Person -> Company
)";

constexpr std::string_view kQueries = R"(
query add($name: String, $age: I32) { insert Person { name: $name, age: $age } }
query age($name: String, $age: I32) { update Person set { age: $age } where name = $name }
query remove($name: String) { delete Person where name = $name }
query hire($p: String, $c: String) { insert WorksAt { from: $p, to: $c } }
)";

class DiffTest : public ::testing::Test {
 protected:
  void SetUp() override {
    counting_ = std::make_shared<storage::CountingStore>(std::make_shared<storage::MemoryStore>());
    InitOptions options;
    options.checkpoint_interval = 10;
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
  void Age(std::string_view branch, std::string_view name, int32_t age) {
    Run(branch, "age", {{"name", Value::String(std::string(name))}, {"age", Value::Int(age)}});
  }
  Snapshot Head(std::string_view branch) { return *graph_->SnapshotOfBranch(branch); }
  Json MustDiff(const Snapshot& from, const Snapshot& to, const CommitChangesRequest& r = {}) {
    Result<Json> out = Diff(*graph_, from, to, r);
    OMNIGRAPH_CHECK_MSG(out.ok(), out.status().ToString());
    return *out;
  }
  // "op kind type id" of each change, in order.
  static std::vector<std::string> Lines(const Json& diff) {
    std::vector<std::string> out;
    for (const Json& c : diff["changes"]) {
      out.push_back(c["op"].get<std::string>() + " " + c["kind"].get<std::string>() + " " +
                    c["type"]["name"].get<std::string>() + " " + c["id"].get<std::string>());
    }
    return out;
  }
  // main: Ada 36, Bob 41, Acme; branch x: Cy added, Ada 37, Bob removed, Ada hired at Acme.
  void TwoBranches() {
    Add("main", "Ada", 36);
    Add("main", "Bob", 41);
    ASSERT_TRUE(LoadJsonl(*graph_, "main", R"({"type":"Company","data":{"name":"Acme"}})",
                          LoadMode::kAppend)
                    .ok());
    ASSERT_TRUE(graph_->CreateBranch("x", "main").ok());
    Add("x", "Cy", 30);
    Age("x", "Ada", 37);
    Run("x", "remove", {{"name", Value::String("Bob")}});
    Run("x", "hire", {{"p", Value::String("Ada")}, {"c", Value::String("Acme")}});
  }

  std::shared_ptr<storage::CountingStore> counting_;
  std::unique_ptr<Graph> graph_;
};

TEST_F(DiffTest, TwoBranchHeadsDifferByEveryEntityOneOfThemChanged) {
  TwoBranches();
  const Json d = MustDiff(Head("main"), Head("x"));
  const std::vector<std::string> lines = Lines(d);
  ASSERT_EQ(lines.size(), 4u) << d.dump();
  EXPECT_EQ(lines[0], "update node Person Ada");
  EXPECT_EQ(lines[1], "delete node Person Bob");
  EXPECT_EQ(lines[2], "insert node Person Cy");
  EXPECT_EQ(lines[3].rfind("insert edge WorksAt ", 0), 0u) << lines[3];
  const Json& ada = d["changes"][0];
  EXPECT_EQ(ada["before"]["properties"]["age"], Json(36));
  EXPECT_EQ(ada["after"]["properties"]["age"], Json(37));
  EXPECT_FALSE(d["changes"][1].contains("after"));
  EXPECT_EQ(d["changes"][1]["before"]["properties"]["name"], Json("Bob"));
  const Json& edge = d["changes"][3]["after"]["endpoints"];
  EXPECT_EQ(edge["from"], Json("Ada"));
  EXPECT_EQ(edge["to"], Json("Acme"));
  // Per type: Person +1 ~1 -1, WorksAt +1; Company did not change and is not listed.
  ASSERT_EQ(d["types"].size(), 2u) << d["types"].dump();
  EXPECT_EQ(d["types"][0]["type"]["name"], Json("Person"));
  EXPECT_EQ(d["types"][0]["inserted"], Json(uint64_t{1}));
  EXPECT_EQ(d["types"][0]["updated"], Json(uint64_t{1}));
  EXPECT_EQ(d["types"][0]["deleted"], Json(uint64_t{1}));
  EXPECT_EQ(d["types"][1]["type"]["name"], Json("WorksAt"));
  EXPECT_EQ(d["from"]["graph_commit_id"], Json(Head("main").state().head_commit_id));
  EXPECT_EQ(d["to"]["graph_commit_id"], Json(Head("x").state().head_commit_id));
  EXPECT_FALSE(d.contains("next_page_token"));
}

TEST_F(DiffTest, TheReverseDiffUndoesIt) {
  TwoBranches();
  const Json d = MustDiff(Head("x"), Head("main"));
  const std::vector<std::string> lines = Lines(d);
  ASSERT_EQ(lines.size(), 4u) << d.dump();
  EXPECT_EQ(lines[0], "update node Person Ada");
  EXPECT_EQ(lines[1], "insert node Person Bob");
  EXPECT_EQ(lines[2], "delete node Person Cy");
  EXPECT_EQ(lines[3].rfind("delete edge WorksAt ", 0), 0u) << lines[3];
  EXPECT_EQ(d["changes"][0]["before"]["properties"]["age"], Json(37));
  EXPECT_EQ(d["changes"][0]["after"]["properties"]["age"], Json(36));
}

TEST_F(DiffTest, AHeadAgainstItselfOrAnEqualStateHasNoChanges) {
  TwoBranches();
  EXPECT_TRUE(MustDiff(Head("x"), Head("x"))["changes"].empty());
  // A change and its undo: the states are equal, so the diff is empty though history is not.
  const Snapshot before = Head("main");
  Age("main", "Ada", 50);
  Age("main", "Ada", 36);
  const Json d = MustDiff(before, Head("main"));
  EXPECT_TRUE(d["changes"].empty()) << d.dump();
  EXPECT_TRUE(d["types"].empty());
}

TEST_F(DiffTest, APastCommitIsASide) {
  TwoBranches();
  const std::string fork = Head("main").state().head_commit_id;
  Add("main", "Dee", 22);
  Result<Snapshot> at_fork = graph_->SnapshotAtCommit(fork);
  ASSERT_TRUE(at_fork.ok());
  // From the fork: what x did, without what main did since.
  EXPECT_EQ(Lines(MustDiff(*at_fork, Head("x"))).size(), 4u);
  EXPECT_EQ(Lines(MustDiff(*at_fork, Head("main"))),
            std::vector<std::string>{"insert node Person Dee"});
}

TEST_F(DiffTest, PagesFollowTheirTokensAndFiltersSelect) {
  TwoBranches();
  const Snapshot main = Head("main");
  const Snapshot x = Head("x");
  std::vector<std::string> all;
  CommitChangesRequest r;
  r.limit = 1;
  int pages = 0;
  for (;;) {
    const Json page = MustDiff(main, x, r);
    ++pages;
    for (const std::string& l : Lines(page)) all.push_back(l);
    EXPECT_EQ(page["types"].size(), 2u);  // The whole diff's counts on every page.
    if (!page.contains("next_page_token")) break;
    r.page_token = page["next_page_token"].get<std::string>();
  }
  EXPECT_EQ(pages, 4);
  EXPECT_EQ(all, Lines(MustDiff(main, x)));
  // A token of this diff is refused by another one.
  r.limit = 1;
  r.page_token =
      MustDiff(main, x, CommitChangesRequest{.limit = 1})["next_page_token"].get<std::string>();
  Result<Json> other = Diff(*graph_, x, main, r);
  ASSERT_EQ(other.status().code(), Code::kInvalidArgument);
  EXPECT_NE(other.status().message().find("is of diff '"), std::string::npos)
      << other.status().message();
  CommitChangesRequest deletes;
  deletes.filter.ops = {"delete"};
  EXPECT_EQ(Lines(MustDiff(main, x, deletes)), std::vector<std::string>{"delete node Person Bob"});
  CommitChangesRequest edges;
  edges.filter.kinds = {"edge"};
  EXPECT_EQ(Lines(MustDiff(main, x, edges)).size(), 1u);
  CommitChangesRequest unknown;
  unknown.filter.types = {"Nope"};
  EXPECT_EQ(Diff(*graph_, main, x, unknown).status().code(), Code::kInvalidArgument);
}

TEST_F(DiffTest, ViewsOfDifferentSchemasAreASchemaBoundary) {
  Add("main", "Ada", 36);
  const Snapshot before = Head("main");
  SchemaApplyOptions options;
  ASSERT_TRUE(
      ApplySchema(*graph_, std::string(kSchema) + "node Team { name: String @key }\n", options)
          .ok());
  Result<Json> d = Diff(*graph_, before, Head("main"));
  EXPECT_EQ(d.status().code(), Code::kSchemaBoundary) << d.status().ToString();
}

// The diff reads what changed: a graph holding 10 or 2,000 unchanged companies, with 10 or
// 200 commits of history before the fork, costs the same store calls to diff a branch that
// changed two people.
class DiffCostTest : public DiffTest {
 protected:
  storage::OpCounts DiffAt(int companies, int depth) {
    SetUp();
    std::string lines;
    for (int i = 0; i < companies; ++i) {
      lines += R"({"type":"Company","data":{"name":"c)" + std::to_string(i) + "\"}}\n";
    }
    OMNIGRAPH_CHECK(LoadJsonl(*graph_, "main", lines, LoadMode::kAppend).ok());
    Add("main", "Ada", 36);
    // History that changes no table: records that pin what their parent pinned.
    std::unique_ptr<commit::Stream> main_stream =
        std::move(*commit::Stream::Open(graph_->runtime(), "main", {10}));
    for (int i = 0; i < depth; ++i) {
      commit::PublishRequest request;
      request.stage = [](const commit::GraphState&) { return commit::RecordContent{}; };
      OMNIGRAPH_CHECK(main_stream->Publish(request).ok());
    }
    main_stream->WaitForBackground();
    OMNIGRAPH_CHECK(graph_->CreateBranch("x", "main").ok());
    Add("x", "Cy", 30);
    Age("x", "Ada", 40);
    // A cold handle: nothing of the tables is cached, so every read the diff needs is counted.
    std::unique_ptr<Graph> cold = std::move(*Graph::Open(storage::Runtime::ForTest(counting_, 3)));
    const Snapshot main = *cold->SnapshotOfBranch("main");
    const Snapshot x = *cold->SnapshotOfBranch("x");
    const storage::OpCounts before = counting_->Snapshot();
    Result<Json> diffed = Diff(*cold, main, x);
    OMNIGRAPH_CHECK_MSG(diffed.ok(), diffed.status().ToString());
    const Json& d = *diffed;
    storage::OpCounts after = counting_->Snapshot();
    OMNIGRAPH_CHECK(Lines(d).size() == 2);
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

TEST_F(DiffCostTest, TheSameChangeCostsTheSameOnASmallAndALargeGraph) {
  const storage::OpCounts small = DiffAt(10, 10);
  const storage::OpCounts large = DiffAt(2000, 200);
  // Person's two version manifests and the three data fragments holding rows that changed: the
  // one with Ada's old row (main's) and the two x's writes added (Cy's insert, Ada's update);
  // hydrating the page reads nothing more. Company and WorksAt are pinned alike on both sides
  // and never opened, whatever they hold, and history is never read.
  EXPECT_EQ(small.gets, 5u);
  EXPECT_EQ(small.heads, 0u);
  EXPECT_EQ(small.lists, 0u);
  EXPECT_EQ(small.puts + small.put_if_absent + small.put_if_match + small.deletes, 0u);
  EXPECT_EQ(large.gets, small.gets);
  EXPECT_EQ(large.heads, small.heads);
  EXPECT_EQ(large.lists, small.lists);
}

}  // namespace
}  // namespace omnigraph::engine
