// Prepared queries (engine/read/prepared.h): a read source is parsed, checked and planned once per
// catalog and reused with any parameters; a schema change checks it again; errors, branch
// statements and an unknown name are never cached; the cache is bounded.
#include "engine/read/prepared.h"

#include <gtest/gtest.h>

#include "engine/ops/load.h"
#include "engine/ops/schema_apply.h"
#include "engine/read/query.h"
#include "engine/write/mutate.h"
#include "storage/memory_store.h"

namespace omnigraph::engine {
namespace {

constexpr std::string_view kSchema = R"(
node Person { name: String @key  age: I32? }
edge Knows: Person -> Person
)";

constexpr std::string_view kQueries = R"(
query age($n: String) { match { $p: Person { name: $n } } return { $p.age } }
query friends($n: String) { match { $a: Person { name: $n }  $a knows $b } return { $b.name } }
)";

class PreparedTest : public testing::Test {
 protected:
  void SetUp() override {
    storage::Runtime rt = storage::Runtime::ForTest(std::make_shared<storage::MemoryStore>(), 1);
    Result<std::unique_ptr<Graph>> g = Graph::Init(rt, kSchema);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    graph_ = std::move(*g);
    ASSERT_TRUE(LoadJsonl(*graph_, "main",
                          "{\"type\":\"Person\",\"data\":{\"name\":\"Ada\",\"age\":36}}\n"
                          "{\"type\":\"Person\",\"data\":{\"name\":\"Bob\",\"age\":25}}\n"
                          "{\"edge\":\"Knows\",\"from\":\"Ada\",\"to\":\"Bob\"}\n",
                          LoadMode::kAppend)
                    .ok());
    options_.cache = &cache_;
    options_.prepared = &prepared_;
  }

  Result<ReadOutcome> Run(std::string_view source, std::string_view name, const Json& params) {
    return RunRead(*graph_, source, name, params, options_);
  }

  std::unique_ptr<Graph> graph_;
  query::ExecCache cache_;
  PreparedQueries prepared_{4};
  RunOptions options_;
};

TEST_F(PreparedTest, ASourceIsPreparedOnceAndRunsWithEveryParameterValue) {
  for (const auto& [name, age] : {std::pair{"Ada", 36}, std::pair{"Bob", 25}, {"Ada", 36}}) {
    Result<ReadOutcome> out = Run(kQueries, "age", Json{{"n", name}});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    ASSERT_EQ(out->result.rows.size(), 1u);
    EXPECT_EQ(out->result.rows[0][0], schema::Value::Int(age));
    EXPECT_EQ(out->query_name, "age");
  }
  EXPECT_EQ(prepared_.stats().prepares, 1u);
  EXPECT_EQ(prepared_.stats().hits, 2u);
  // The cold run handed its parse to the cache: the source was parsed once, not twice.
  EXPECT_EQ(prepared_.stats().parses, 0u);
  // Another query of the same source is its own entry.
  ASSERT_TRUE(Run(kQueries, "friends", Json{{"n", "Ada"}}).ok());
  EXPECT_EQ(prepared_.stats().prepares, 2u);
  EXPECT_EQ(prepared_.stats().entries, 2u);
  // Bad parameters fail on a cached entry as they do on a fresh one, and change nothing.
  Result<ReadOutcome> bad = Run(kQueries, "age", Json{{"n", 5}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("n"), std::string::npos);
  EXPECT_EQ(prepared_.stats().entries, 2u);
}

TEST_F(PreparedTest, ASchemaChangeChecksTheQueryAgainstTheNewCatalog) {
  ASSERT_TRUE(Run(kQueries, "age", Json{{"n", "Ada"}}).ok());
  SchemaApplyOptions drop;
  drop.plan.allow_data_loss = true;
  Result<SchemaApplyResult> applied = ApplySchema(*graph_, R"(
node Person { name: String @key }
edge Knows: Person -> Person
)",
                                                  drop);
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  Result<ReadOutcome> out = Run(kQueries, "age", Json{{"n", "Ada"}});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), Code::kInvalidArgument);
  EXPECT_NE(out.status().message().find("age"), std::string::npos) << out.status().ToString();
  EXPECT_EQ(prepared_.stats().prepares, 1u) << "a failed check is not cached";
  Result<ReadOutcome> still = Run(kQueries, "friends", Json{{"n", "Ada"}});
  ASSERT_TRUE(still.ok()) << still.status().ToString();
  EXPECT_EQ(still->result.rows.size(), 1u);
}

TEST_F(PreparedTest, ErrorsAndBranchStatementsAreNotCachedAndTheCacheIsBounded) {
  EXPECT_EQ(Run(kQueries, "nope", Json::object()).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(Run("query broken( {", "", Json::object()).status().code(), Code::kInvalidArgument);
  Result<ReadOutcome> branches = Run("branch list", "", Json::object());
  ASSERT_TRUE(branches.ok()) << branches.status().ToString();
  EXPECT_EQ(branches->query_name, "branch list");
  EXPECT_EQ(prepared_.stats().entries, 0u);
  for (int i = 0; i < 6; ++i) {
    const std::string source = "query q" + std::to_string(i) +
                               "() { match { $p: Person } return { $p.name } order { $p.name } }";
    Result<ReadOutcome> out = Run(source, "", Json::object());
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ(out->result.rows.size(), 2u);
  }
  EXPECT_EQ(prepared_.stats().entries, 4u);
  EXPECT_EQ(prepared_.stats().prepares, 6u);
}

// A source with headers is prepared once too (a warm process that runs one such file, as the
// peers benchmark does, would otherwise parse and check it for every call), and a run from the
// cache keeps what its headers say: their limit and their warnings (decision 219).
TEST_F(PreparedTest, ASourceWithHeadersIsPreparedOnceAndKeepsItsSettings) {
  const std::string tight =
      "set traversal_work_limit = 1;\nset ann_nprobes = 16;\n" + std::string(kQueries);
  const std::string ample = "set traversal_work_limit = 1000;\n" + std::string(kQueries);
  options_.traversal_work_limit = 1000;
  for (int run = 0; run < 3; ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    Result<ReadOutcome> limited = Run(tight, "friends", Json{{"n", "Ada"}});
    EXPECT_EQ(limited.status().code(), Code::kResourceLimit) << limited.status().ToString();
    Result<ReadOutcome> warned = Run(tight, "age", Json{{"n", "Ada"}});
    ASSERT_TRUE(warned.ok()) << warned.status().ToString();
    ASSERT_EQ(warned->warnings.size(), 1u);
    EXPECT_NE(warned->warnings[0].find("ann_nprobes"), std::string::npos) << warned->warnings[0];
    options_.traversal_work_limit = 1;  // The header's 1000 governs its own source.
    Result<ReadOutcome> passes = Run(ample, "friends", Json{{"n", "Ada"}});
    ASSERT_TRUE(passes.ok()) << passes.status().ToString();
    EXPECT_EQ(passes->result.rows.size(), 1u);
    options_.traversal_work_limit = 1000;
  }
  EXPECT_EQ(prepared_.stats().prepares, 3u);
  EXPECT_EQ(prepared_.stats().hits, 6u);
  EXPECT_EQ(prepared_.stats().parses, 0u);
  // An explained query is not cached: it runs for its plan alone.
  Result<ReadOutcome> explained =
      Run("explain query e() { match { $p: Person } return { $p.name } }", "", Json::object());
  ASSERT_TRUE(explained.ok()) << explained.status().ToString();
  EXPECT_TRUE(explained->plan.has_value());
  EXPECT_EQ(prepared_.stats().prepares, 3u);
}

// Mutations go through the same prepare step and the same cache as reads: a source is parsed and
// checked once per catalog, a warm run parses nothing, and a read of the same source with the
// same name is refused from the cached parse, as from a fresh one.
TEST_F(PreparedTest, AMutationIsPreparedOnceThroughTheSameStepAsAReadQuery) {
  constexpr std::string_view kMutations = R"(
query set_age($n: String, $a: I32) { update Person set { age: $a } where name = $n }
query age($n: String) { match { $p: Person { name: $n } } return { $p.age } }
)";
  MutationOptions options;
  options.prepared = &prepared_;
  for (int age : {40, 41, 42}) {
    Result<MutationResult> done =
        Mutate(*graph_, kMutations, "set_age", Json{{"n", "Ada"}, {"a", age}}, options);
    ASSERT_TRUE(done.ok()) << done.status().ToString();
    EXPECT_EQ(done->query_name, "set_age");
    EXPECT_EQ(done->affected_nodes, 1u);
  }
  EXPECT_EQ(prepared_.stats().prepares, 1u);
  EXPECT_EQ(prepared_.stats().hits, 2u);
  EXPECT_EQ(prepared_.stats().parses, 0u) << "the first run hands its parse to the prepare step";
  // The read beside it in the same source: its own entry, and the value the mutations wrote.
  Result<ReadOutcome> read = Run(kMutations, "age", Json{{"n", "Ada"}});
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->result.rows.at(0).at(0), schema::Value::Int(42));
  // mutate of a read query: refused from the cached parse with the unprepared run's error.
  Result<MutationResult> wrong = Mutate(*graph_, kMutations, "age", Json{{"n", "Ada"}}, options);
  EXPECT_EQ(wrong.status().code(), Code::kInvalidArgument);
  EXPECT_NE(wrong.status().message().find("is a read query"), std::string::npos)
      << wrong.status().ToString();
  // A type error is not cached, and is the same with and without the cache.
  constexpr std::string_view kBad =
      "query bad() { update Person set { age: \"x\" } where name = \"Ada\" }";
  Result<MutationResult> cached = Mutate(*graph_, kBad, "", Json::object(), options);
  Result<MutationResult> uncached = Mutate(*graph_, kBad, "", Json::object(), MutationOptions{});
  ASSERT_FALSE(cached.ok());
  EXPECT_EQ(cached.status().ToString(), uncached.status().ToString());
  EXPECT_EQ(prepared_.stats().entries, 2u);
}

}  // namespace
}  // namespace omnigraph::engine
