// The derived-object step and optimize: a load stores every derived object its versions need (id
// index, adjacency, full-text, vector); optimize compacts tables of many fragments into one
// commit that changes no entity and no query answer, publishes nothing the second time, loses no
// write that lands while it prepares, and builds the derived objects a head version lacks.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "engine/ops/load.h"
#include "engine/ops/optimize.h"
#include "engine/read/query.h"
#include "engine/write/derived_indexes.h"
#include "query/text/fulltext_index.h"
#include "storage/memory_store.h"
#include "table/derived.h"

namespace omnigraph::engine {
namespace {

constexpr std::string_view kSchema = R"(
node Doc { slug: String @key  body: String @index  grp: I32  emb: Vector(4)? }
edge Cites: Doc -> Doc
)";

constexpr std::string_view kQueries = R"(
query count() { match { $d: Doc } return { count($d) as n } }
query grp($g: I32) { match { $d: Doc { grp: $g } } return { $d.slug, $d.body } order { $d.slug } }
query cites($s: String) {
  match { $a: Doc { slug: $s }  $a cites $b }
  return { $b.slug } order { $b.slug }
}
query text($q: String) {
  match { $d: Doc  search($d.body, $q) }
  return { $d.slug, bm25($d.body, $q) as score }
  order { bm25($d.body, $q) desc, $d.slug }
  limit 20
}
)";

// The words documents are made of: each document has three, chosen by its number.
const char* const kWords[] = {"graph",  "storage", "index", "query",  "fragment", "version",
                              "commit", "branch",  "merge", "search", "vector",   "table"};

// Docs d[from, to) as load lines (`tag` changes the body, for a merge that updates rows).
std::string Docs(int from, int to, const std::string& tag = "") {
  std::string out;
  for (int i = from; i < to; ++i) {
    const std::string body = std::string(kWords[i % 12]) + " " + kWords[(i / 12) % 12] + " " +
                             kWords[(i * 7) % 12] + tag;
    out += R"({"type":"Doc","data":{"slug":"d)" + std::to_string(10000 + i) + R"(","body":")" +
           body + R"(","grp":)" + std::to_string(i % 10) + R"(,"emb":[)" +
           std::to_string(i % 5 + 1) + "," + std::to_string(i % 7) + "," + std::to_string(i % 3) +
           ",1]}}\n";
  }
  return out;
}

// For each doc of [from, to), an edge to the next of n.
std::string Cites(int n, int from, int to) {
  std::string out;
  for (int i = from; i < to; ++i) {
    out += R"({"edge":"Cites","from":"d)" + std::to_string(10000 + i) + R"(","to":"d)" +
           std::to_string(10000 + (i + 1) % n) + "\"}\n";
  }
  return out;
}

class OptimizeTest : public testing::Test {
 protected:
  static constexpr int kDocs = 1200;  // Above the 1,024 rows from which versions keep indexes.

  void SetUp() override {
    memory_ = std::make_shared<storage::MemoryStore>();
    Result<std::unique_ptr<Graph>> g = Graph::Init(storage::Runtime::ForTest(memory_, 1), kSchema);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    graph_ = std::move(*g);
    ann_.rows_min = 64;
    ann_.lists = 4;
  }

  void LoadLines(const std::string& lines, LoadMode mode = LoadMode::kAppend) {
    LoadOptions options;
    options.ann = ann_;
    Result<LoadResult> r = engine::Load(*graph_, "main", lines, mode, options);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }

  Result<OptimizeReport> RunOptimize(std::function<void()> before_commit = nullptr) {
    OptimizeOptions options;
    options.ann = ann_;
    options.before_commit = std::move(before_commit);
    return Optimize(*graph_, options);
  }

  // The derived kinds stored for the head version of `table_key`.
  std::set<std::string> HeadDerived(const std::string& table_key) {
    Result<Snapshot> head = graph_->SnapshotOfBranch("main");
    EXPECT_TRUE(head.ok());
    Result<std::shared_ptr<const table::TableVersion>> v = head->Table(table_key);
    EXPECT_TRUE(v.ok());
    std::set<std::string> kinds;
    Result<std::vector<storage::ObjectMeta>> all = storage::ListAll(*memory_, "tables/");
    EXPECT_TRUE(all.ok());
    for (const storage::ObjectMeta& m : *all) {
      std::optional<table::DerivedNameParts> parts = table::ParseDerivedName(m.name);
      if (parts && parts->staged_version == (*v)->manifest().staged_version &&
          m.name == table::DerivedName((*v)->table(), parts->staged_version, parts->kind)) {
        kinds.insert(parts->kind);
      }
    }
    return kinds;
  }

  uint64_t FieldId(std::string_view type, std::string_view prop) {
    Result<Snapshot> head = graph_->SnapshotOfBranch("main");
    const schema::TypeDef* t = head->catalog().FindByTableKey("node:" + std::string(type));
    for (const schema::PropertyDef& p : t->properties) {
      if (p.name == prop) return p.id;
    }
    ADD_FAILURE() << "no property " << prop;
    return 0;
  }

  // Every query's rows, as text: what compaction must not change.
  std::string Answers() {
    std::string out;
    const std::pair<const char*, Json> runs[] = {
        {"count", Json::object()},        {"grp", Json{{"g", 3}}},
        {"cites", Json{{"s", "d10007"}}}, {"text", Json{{"q", "graph index"}}},
        {"text", Json{{"q", "merge"}}},
    };
    for (const auto& [name, params] : runs) {
      Result<OrderedJson> r = RunReadJson(*graph_, kQueries, name, params);
      EXPECT_TRUE(r.ok()) << name << ": " << r.status().ToString();
      if (r.ok()) out += std::string(name) + " " + (*r)["rows"].dump() + "\n";
    }
    return out;
  }

  uint64_t Fragments(const std::string& table_key) {
    Result<Snapshot> head = graph_->SnapshotOfBranch("main");
    Result<std::shared_ptr<const table::TableVersion>> v = head->Table(table_key);
    return v.ok() ? (*v)->manifest().fragments.size() : 0;
  }

  std::shared_ptr<storage::MemoryStore> memory_;
  std::unique_ptr<Graph> graph_;
  table::AnnBuildOptions ann_;
};

TEST_F(OptimizeTest, ALoadStoresEveryDerivedObjectItsVersionsNeed) {
  LoadLines(Docs(0, kDocs) + Cites(kDocs, 0, kDocs));
  const std::string fts = query::text::FullTextKind(FieldId("Doc", "body"));
  const std::string ann = table::AnnKind(static_cast<uint32_t>(FieldId("Doc", "emb")));
  EXPECT_EQ(HeadDerived("node:Doc"), (std::set<std::string>{"ids", fts, ann}));
  EXPECT_EQ(HeadDerived("edge:Cites"), (std::set<std::string>{"csr.out", "ids"}));
}

TEST_F(OptimizeTest, AQueryReadsTheFullTextIndexTheLoadStored) {
  LoadLines(Docs(0, kDocs));
  const size_t before = storage::ListAll(*memory_, "tables/")->size();
  const std::string answers = Answers();
  EXPECT_NE(answers.find("d1"), std::string::npos);
  // The query found every index it needed and stored nothing.
  EXPECT_EQ(storage::ListAll(*memory_, "tables/")->size(), before);
}

TEST_F(OptimizeTest, CompactionKeepsEveryRowAndAnswerInOneCommitWithNoEntityChange) {
  for (int l = 0; l < 12; ++l) LoadLines(Docs(l * 100, (l + 1) * 100));
  LoadLines(Cites(kDocs, 0, kDocs / 2));
  LoadLines(Cites(kDocs, kDocs / 2, kDocs));
  LoadLines(Docs(0, 50, " updated"), LoadMode::kMerge);  // Deletion vectors in a fragment.
  ASSERT_EQ(Fragments("node:Doc"), 13u);
  const std::string before = Answers();
  const std::string head_before = graph_->SnapshotOfBranch("main")->commit_id();

  Result<OptimizeReport> r = RunOptimize();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE(r->commit.has_value());
  EXPECT_EQ(r->commit->parent_commit_id.value_or(""), head_before);
  ASSERT_EQ(r->tables.size(), 2u);
  EXPECT_EQ(r->tables[0].type_key, "edge:Cites");
  EXPECT_TRUE(r->tables[0].committed);
  EXPECT_EQ(r->tables[0].fragments_removed, 2u);
  EXPECT_EQ(r->tables[0].fragments_added, 1u);
  EXPECT_EQ(r->tables[1].type_key, "node:Doc");
  EXPECT_EQ(r->tables[1].fragments_removed, 13u);
  EXPECT_EQ(r->tables[1].fragments_added, 1u);
  EXPECT_TRUE(r->tables[1].pending_indexes.empty());
  EXPECT_EQ(Fragments("node:Doc"), 1u);
  EXPECT_EQ(Answers(), before);
  // The commit changed no entity: its change set lists no table.
  ASSERT_TRUE(r->commit->change_set.has_value());
  EXPECT_TRUE(r->commit->change_set->tables.empty());
  EXPECT_EQ(r->commit->summary.value_or(""), "optimize: no entity changes");
  // The compacted versions have every derived object they need.
  const std::string fts = query::text::FullTextKind(FieldId("Doc", "body"));
  EXPECT_TRUE(HeadDerived("node:Doc").count(fts));
  EXPECT_TRUE(HeadDerived("node:Doc").count("ids"));
  EXPECT_TRUE(HeadDerived("edge:Cites").count("csr.out"));
}

TEST_F(OptimizeTest, ASecondOptimizePublishesNothing) {
  for (int l = 0; l < 3; ++l) LoadLines(Docs(l * 400, (l + 1) * 400));
  ASSERT_TRUE(RunOptimize().ok());
  const std::string head = graph_->SnapshotOfBranch("main")->commit_id();
  const size_t objects = memory_->size();
  Result<OptimizeReport> again = RunOptimize();
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_FALSE(again->commit.has_value());
  for (const OptimizeTableRow& t : again->tables) {
    EXPECT_TRUE(t.skipped) << t.type_key;
    EXPECT_FALSE(t.committed) << t.type_key;
    EXPECT_TRUE(t.indexes_built.empty()) << t.type_key;
  }
  EXPECT_EQ(graph_->SnapshotOfBranch("main")->commit_id(), head);
  EXPECT_EQ(memory_->size(), objects);
}

TEST_F(OptimizeTest, AWriteThatLandsWhileOptimizePreparesIsNotLost) {
  for (int l = 0; l < 3; ++l) LoadLines(Docs(l * 400, (l + 1) * 400));
  int rivals = 0;
  Result<OptimizeReport> r = RunOptimize([&] {
    if (rivals++ == 0) LoadLines(Docs(kDocs, kDocs + 5));
  });
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(rivals, 2);  // The first attempt lost to the rival write; the second committed.
  ASSERT_TRUE(r->commit.has_value());
  Result<OrderedJson> count = RunReadJson(*graph_, kQueries, "count", Json::object());
  ASSERT_TRUE(count.ok());
  EXPECT_EQ((*count)["rows"][0]["n"], kDocs + 5);
  EXPECT_EQ(Fragments("node:Doc"), 1u);
}

TEST_F(OptimizeTest, OptimizeBuildsTheDerivedObjectsAHeadVersionLacks) {
  LoadLines(Docs(0, kDocs));
  Result<std::vector<storage::ObjectMeta>> all = storage::ListAll(*memory_, "tables/");
  ASSERT_TRUE(all.ok());
  for (const storage::ObjectMeta& m : *all) {
    if (table::ParseDerivedName(m.name)) {
      ASSERT_TRUE(memory_->Delete(m.name).ok());
    }
  }
  ASSERT_TRUE(HeadDerived("node:Doc").empty());
  Result<OptimizeReport> r = RunOptimize();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->commit.has_value());  // One fragment: nothing to compact.
  const std::string fts = query::text::FullTextKind(FieldId("Doc", "body"));
  const std::string ann = table::AnnKind(static_cast<uint32_t>(FieldId("Doc", "emb")));
  const OptimizeTableRow& doc = r->tables[1];
  EXPECT_EQ(std::set<std::string>(doc.indexes_built.begin(), doc.indexes_built.end()),
            (std::set<std::string>{"ids", fts, ann}));
  EXPECT_EQ(HeadDerived("node:Doc"), (std::set<std::string>{"ids", fts, ann}));
}

}  // namespace
}  // namespace omnigraph::engine
