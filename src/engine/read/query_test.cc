// Running queries on snapshots (docs/design/query-execution.md): the envelope, the adjacency cache
// keyed by table version, and filter pushdown with fragment skipping. The language itself is
// covered by the golden files tests/lang/*.qtest.
#include "engine/read/query.h"

#include <gtest/gtest.h>

#include "engine/read/prepared.h"
#include "query/check/typecheck.h"
#include "query/exec/column_codec.h"
#include "query/parse/parser.h"
#include "query/plan/plan.h"
#include "storage/memory_store.h"

namespace omnigraph::engine {
namespace {

constexpr std::string_view kSchema = R"(
node Person { name: String @key  age: I32? }
edge Knows: Person -> Person
)";

class QueryRunTest : public testing::Test {
 protected:
  void SetUp() override {
    storage::Runtime rt = storage::Runtime::ForTest(std::make_shared<storage::MemoryStore>(), 1);
    Result<std::unique_ptr<Graph>> g = Graph::Init(rt, kSchema);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    graph_ = std::move(*g);
  }

  // Appends persons (name, age) in one write: one fragment.
  void AddPersons(const std::vector<std::pair<std::string, int>>& people) {
    Snapshot s = *graph_->SnapshotOfBranch("main");
    const schema::TypeDef* person = s.catalog().FindNode("Person");
    query::RowsBuilder b = *query::RowsBuilder::Make(*person);
    for (const auto& [name, age] : people) {
      std::vector<std::optional<schema::Value>> v(person->properties.size());
      v[0] = schema::Value::String(name);
      v[1] = schema::Value::Int(age);
      ASSERT_TRUE(b.Append(name, "", "", v).ok());
    }
    WriteRequest w;
    w.changes["node:Person"] = TableChange{TableChange::Op::kAppend, *b.Finish(), {}};
    ASSERT_TRUE(Write(*graph_, w).ok());
  }

  void AddKnows(const std::vector<std::pair<std::string, std::string>>& pairs) {
    Snapshot s = *graph_->SnapshotOfBranch("main");
    const schema::TypeDef* knows = s.catalog().FindEdge("Knows");
    query::RowsBuilder b = *query::RowsBuilder::Make(*knows);
    for (const auto& [from, to] : pairs) {
      ASSERT_TRUE(b.Append(from + ">" + to, from, to, {}).ok());
    }
    WriteRequest w;
    w.changes["edge:Knows"] = TableChange{TableChange::Op::kAppend, *b.Finish(), {}};
    ASSERT_TRUE(Write(*graph_, w).ok());
  }

  std::unique_ptr<Graph> graph_;
};

constexpr std::string_view kQueries = R"(
query friends($n: String) { match { $a: Person { name: $n }  $a knows $b } return { $b.name } }
query old() { match { $p: Person  $p.age > 100 } return { $p.name } }
)";

TEST_F(QueryRunTest, EnvelopeNamesTheQueryColumnsRowsAndCommit) {
  AddPersons({{"Ada", 36}, {"Bob", 25}});
  AddKnows({{"Ada", "Bob"}});
  Snapshot s = *graph_->SnapshotOfBranch("main");
  RunOptions opt;
  opt.branch = "main";
  Result<OrderedJson> out = RunQuery(s, kQueries, "friends", Json{{"n", "Ada"}}, opt);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)["query_name"], "friends");
  EXPECT_EQ((*out)["target"]["branch"], "main");
  EXPECT_EQ((*out)["row_count"], 1);
  EXPECT_EQ((*out)["columns"], OrderedJson::parse(R"(["b.name"])"));
  EXPECT_EQ((*out)["rows"], OrderedJson::parse(R"([{"b.name":"Bob"}])"));
  EXPECT_EQ((*out)["graph_commit_id"], s.commit_id());
}

TEST_F(QueryRunTest, AdjacencyIsBuiltOncePerEdgeTableVersion) {
  AddPersons({{"Ada", 36}, {"Bob", 25}, {"Cy", 20}});
  AddKnows({{"Ada", "Bob"}});
  query::ExecCache cache;
  RunOptions opt;
  opt.cache = &cache;
  Snapshot s1 = *graph_->SnapshotOfBranch("main");
  for (int i = 0; i < 3; ++i) {
    Result<OrderedJson> out = RunQuery(s1, kQueries, "friends", Json{{"n", "Ada"}}, opt);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ((*out)["row_count"], 1);
  }
  EXPECT_EQ(cache.stats().adjacency_builds, 1u);
  // A new version of the edge table gets its own adjacency; the old snapshot keeps its own.
  AddKnows({{"Ada", "Cy"}});
  Snapshot s2 = *graph_->SnapshotOfBranch("main");
  Result<OrderedJson> out2 = RunQuery(s2, kQueries, "friends", Json{{"n", "Ada"}}, opt);
  ASSERT_TRUE(out2.ok());
  EXPECT_EQ((*out2)["row_count"], 2);
  EXPECT_EQ(cache.stats().adjacency_builds, 2u);
  Result<OrderedJson> out1 = RunQuery(s1, kQueries, "friends", Json{{"n", "Ada"}}, opt);
  ASSERT_TRUE(out1.ok());
  EXPECT_EQ((*out1)["row_count"], 1);
  EXPECT_EQ(cache.stats().adjacency_builds, 2u);
}

TEST_F(QueryRunTest, TheCacheIsBoundedAndRebuildsWhatItEvicted) {
  AddPersons({{"Ada", 36}, {"Bob", 25}});
  AddKnows({{"Ada", "Bob"}});
  // Person image and adjacency (a traversal needs no image of the edge table): one must go.
  query::ExecCache cache(1);
  RunOptions opt;
  opt.cache = &cache;
  Snapshot s = *graph_->SnapshotOfBranch("main");
  for (int i = 0; i < 2; ++i) {
    Result<OrderedJson> out = RunQuery(s, kQueries, "friends", Json{{"n", "Ada"}}, opt);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ((*out)["rows"], OrderedJson::parse(R"([{"b.name":"Bob"}])"));
    EXPECT_LE(cache.stats().entries, 1u);
  }
  EXPECT_GT(cache.stats().image_builds + cache.stats().adjacency_builds, 3u);
}

TEST_F(QueryRunTest, ComparisonFiltersSkipFragmentsByStatistics) {
  AddPersons({{"Ada", 36}, {"Bob", 25}});
  AddPersons({{"Old", 120}, {"Older", 130}});
  AddPersons({{"Cy", 20}});
  Snapshot s = *graph_->SnapshotOfBranch("main");
  query::QueryFile file = *query::ParseQueryFile(kQueries);
  query::CheckedQuery checked = *query::TypecheckQuery(s.catalog(), *file.Find("old"));
  Result<query::QueryResult> r = RunChecked(s, checked, Json::object());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->rows.size(), 2u);
  EXPECT_EQ(r->rows[0][0], schema::Value::String("Old"));
  EXPECT_EQ(r->rows[1][0], schema::Value::String("Older"));
  EXPECT_EQ(r->stats.fragments_total, 3u);
  EXPECT_EQ(r->stats.fragments_skipped, 2u);
}

TEST_F(QueryRunTest, KeyEqualityIsAnIdLookupNotAScan) {
  AddPersons({{"Ada", 36}, {"Bob", 25}});
  AddKnows({{"Ada", "Bob"}});
  Snapshot s = *graph_->SnapshotOfBranch("main");
  query::QueryFile file = *query::ParseQueryFile(kQueries);
  query::CheckedQuery checked = *query::TypecheckQuery(s.catalog(), *file.Find("friends"));
  Result<query::QueryResult> r = RunChecked(s, checked, Json{{"n", "Ada"}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->stats.key_lookups, 1u);
  EXPECT_EQ(r->stats.fragments_total, 0u);
}

// A key lookup makes no bitmap of its candidates (a bit per row of the type, zeroed for nothing
// on a large type); a traversal whose other end is restricted to candidates makes one, once
// (decision 238).
TEST_F(QueryRunTest, OnlyATraversalRestrictedToCandidatesMakesTheirBitmap) {
  AddPersons({{"Ada", 36}, {"Bob", 25}, {"Cy", 40}});
  AddKnows({{"Ada", "Bob"}, {"Ada", "Cy"}});
  Snapshot s = *graph_->SnapshotOfBranch("main");
  query::QueryFile file = *query::ParseQueryFile(std::string(kQueries) + R"(
query young_friends($n: String) { match { $a: Person { name: $n }  $a knows $b  $b.age < 30 }
  return { $b.name } }
)");
  query::CheckedQuery friends = *query::TypecheckQuery(s.catalog(), *file.Find("friends"));
  Result<query::QueryResult> r = RunChecked(s, friends, Json{{"n", "Ada"}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->rows.size(), 2u);
  EXPECT_EQ(r->stats.key_lookups, 1u);
  EXPECT_EQ(r->stats.candidate_bitmaps, 0u);
  query::CheckedQuery young = *query::TypecheckQuery(s.catalog(), *file.Find("young_friends"));
  r = RunChecked(s, young, Json{{"n", "Ada"}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->rows.size(), 1u);
  EXPECT_EQ(r->rows[0][0], schema::Value::String("Bob"));
  EXPECT_EQ(r->stats.candidate_bitmaps, 1u);
}

TEST_F(QueryRunTest, BadInputIsAnErrorNamingIt) {
  Snapshot s = *graph_->SnapshotOfBranch("main");
  EXPECT_EQ(RunQuery(s, kQueries, "friends", Json::object()).status().message(),
            "param 'n': missing value for non-nullable parameter");
  EXPECT_EQ(RunQuery(s, kQueries, "friends", Json::array()).status().message(),
            "params must be an object, got array");
  EXPECT_EQ(RunQuery(s, kQueries, "nope", Json::object()).status().message(),
            "query 'nope' not found");
  Result<OrderedJson> bad =
      RunQuery(s, "query q() { match { $p: Persn } return { $p.name } }", "q", Json::object());
  EXPECT_EQ(bad.status().kind(), Kind::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("T1"), std::string::npos) << bad.status().message();
  Result<OrderedJson> mutation =
      RunQuery(s, "query m($n: String) { insert Person { name: $n } }", "m", Json{{"n", "Zed"}});
  EXPECT_EQ(mutation.status().message(), "query `m` is a mutation, not a read query");
}

// now() comes from the graph Runtime's clock (here a ManualClock in 2023), not the system clock:
// an event an hour after the manual "now" is in the future even though the real date is later.
TEST(QueryClockTest, NowReadsTheRuntimeClock) {
  storage::Runtime rt = storage::Runtime::ForTest(std::make_shared<storage::MemoryStore>(), 1);
  Result<std::unique_ptr<Graph>> g =
      Graph::Init(rt, "node Event { name: String @key  at: DateTime }\n");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  const int64_t now_ms = rt.clock->NowMillis();
  Snapshot s = *(*g)->SnapshotOfBranch("main");
  const schema::TypeDef* event = s.catalog().FindNode("Event");
  query::RowsBuilder b = *query::RowsBuilder::Make(*event);
  for (const auto& [name, at] : std::vector<std::pair<std::string, int64_t>>{
           {"past", now_ms - 3'600'000}, {"future", now_ms + 3'600'000}}) {
    std::vector<std::optional<schema::Value>> v(event->properties.size());
    v[0] = schema::Value::String(name);
    v[1] = schema::Value::DateTime(at);
    ASSERT_TRUE(b.Append(name, "", "", v).ok());
  }
  WriteRequest w;
  w.changes["node:Event"] = TableChange{TableChange::Op::kAppend, *b.Finish(), {}};
  ASSERT_TRUE(Write(**g, w).ok());
  s = *(*g)->SnapshotOfBranch("main");
  Result<OrderedJson> out =
      RunQuery(s, "query q() { match { $e: Event  $e.at < now() } return { $e.name } }", "q",
               Json::object());
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)["rows"].dump(), R"([{"e.name":"past"}])");
}

// Stored text that is not UTF-8 (written here straight through the table layer, as a writer's
// bug would) is a Corruption error naming the fragment, never output that aborts its printer.
TEST_F(QueryRunTest, StoredTextThatIsNotUtf8IsCorruptionNamingTheFragment) {
  AddPersons({{"caf\xe9", 120}});
  Snapshot s = *graph_->SnapshotOfBranch("main");
  Result<OrderedJson> out = RunQuery(s, kQueries, "old", Json::object(), RunOptions{});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), Code::kCorruption);
  EXPECT_TRUE(out.status().object().starts_with("tables/")) << out.status().ToString();
  EXPECT_TRUE(out.status().object().ends_with(".ogf")) << out.status().ToString();
  EXPECT_TRUE(out.status().message().ends_with("row 0 is not valid UTF-8 (byte 0xe9 at offset 3)"))
      << out.status().ToString();
}

// The planner decides without data or parameter values (query/plan/plan.h): one plan, made once,
// runs with any parameters, and its key lookup runs once per execution.
TEST_F(QueryRunTest, OnePlanRunsWithEveryParameterValue) {
  AddPersons({{"Ada", 36}, {"Bob", 25}, {"Cy", 25}});
  AddKnows({{"Ada", "Bob"}, {"Bob", "Cy"}});
  Snapshot s = *graph_->SnapshotOfBranch("main");
  query::QueryFile file = *query::ParseQueryFile(kQueries);
  query::CheckedQuery checked = *query::TypecheckQuery(s.catalog(), *file.Find("friends"));
  Result<query::Plan> plan = query::PlanQuery(checked);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(query::RenderPlan(*plan),
            "match\n"
            "  access $a: Person key lookup [$a.name = $n] where [$a.name = $n]\n"
            "  access $b: Person every row\n"
            "  cross join [$a]\n"
            "  expand $a -[Knows]-> $b (binds $b)\n"
            "order ties [$a, $b]\n"
            "project [$b.name]\n");
  SnapshotView view(s);
  query::ExecCache cache;
  query::ExecOptions options;
  options.cache = &cache;
  for (const auto& [start, friend_name] : {std::pair<std::string, std::string>{"Ada", "Bob"},
                                           std::pair<std::string, std::string>{"Bob", "Cy"}}) {
    std::vector<schema::Value> params = *query::BindParams(checked, Json{{"n", start}});
    Result<query::QueryResult> r = query::ExecutePlan(view, *plan, params, options);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_EQ(r->rows.size(), 1u) << start;
    EXPECT_EQ(r->rows[0][0].string_value(), friend_name);
    EXPECT_EQ(r->stats.key_lookups, 1u);
  }
}

// RunOptions::traversal_work_limit bounds a run on every path: a cold run, a run through the
// prepared-query cache (first and warm), and a source whose header sets no limit; a header's
// `set traversal_work_limit = N;` governs its own source instead.
TEST_F(QueryRunTest, TheCallersTraversalLimitHoldsOnEveryPath) {
  AddPersons({{"Ada", 36}, {"Bob", 25}, {"Cy", 30}});
  AddKnows({{"Ada", "Bob"}, {"Ada", "Cy"}});
  const Json ada{{"n", "Ada"}};
  RunOptions bounded;
  bounded.traversal_work_limit = 1;
  Result<ReadOutcome> cold = RunRead(*graph_, kQueries, "friends", ada, bounded);
  EXPECT_EQ(cold.status().code(), Code::kResourceLimit) << cold.status().ToString();
  // The typed error the default bound gives, naming the caller's bound.
  EXPECT_NE(cold.status().ToString().find("traversal_work_limit (1 units"), std::string::npos)
      << cold.status().ToString();
  RunOptions larger;
  larger.traversal_work_limit = 1000;
  Result<ReadOutcome> passes = RunRead(*graph_, kQueries, "friends", ada, larger);
  ASSERT_TRUE(passes.ok()) << passes.status().ToString();
  EXPECT_EQ(passes->result.rows.size(), 2u);
  PreparedQueries prepared;
  bounded.prepared = &prepared;
  for (int run = 0; run < 2; ++run) {  // The first run prepares; the second is warm.
    Result<ReadOutcome> r = RunRead(*graph_, kQueries, "friends", ada, bounded);
    EXPECT_EQ(r.status().code(), Code::kResourceLimit) << run << ": " << r.status().ToString();
  }
  RunOptions ample;  // The same cache, a larger bound: the warm entry runs to the end.
  ample.traversal_work_limit = 1000;
  ample.prepared = &prepared;
  Result<ReadOutcome> ok = RunRead(*graph_, kQueries, "friends", ada, ample);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->result.rows.size(), 2u);
  const std::string headed = "set traversal_work_limit = 1000;\n" + std::string(kQueries);
  RunOptions tight;
  tight.traversal_work_limit = 1;
  Result<ReadOutcome> header = RunRead(*graph_, headed, "friends", ada, tight);
  ASSERT_TRUE(header.ok()) << header.status().ToString();
  EXPECT_EQ(header->result.rows.size(), 2u);
}

TEST(QueryPlanTest, AMutationHasNoReadPlan) {
  storage::Runtime rt = storage::Runtime::ForTest(std::make_shared<storage::MemoryStore>(), 1);
  std::unique_ptr<Graph> g = *Graph::Init(rt, kSchema);
  Snapshot s = *g->SnapshotOfBranch("main");
  query::QueryFile file = *query::ParseQueryFile("query add() { insert Person { name: \"Ada\" } }");
  query::CheckedQuery checked = *query::TypecheckQuery(s.catalog(), file.queries[0]);
  Result<query::Plan> plan = query::PlanQuery(checked);
  EXPECT_EQ(plan.status().code(), Code::kInvalidArgument);
  EXPECT_NE(plan.status().message().find("`add` is a mutation"), std::string::npos)
      << plan.status().ToString();
}

}  // namespace
}  // namespace omnigraph::engine
