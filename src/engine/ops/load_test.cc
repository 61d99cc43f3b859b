// NDJSON load and export (docs/design/load.md): format validation with exact messages, modes, one
// commit per load, cookbook round trips.
#include "engine/ops/load.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "base/ids.h"
#include "engine/ops/export.h"
#include "engine/ops/jsonl_reader.h"
#include "query/exec/column_codec.h"
#include "storage/memory_store.h"
#include "storage/test_util.h"

namespace omnigraph::engine {
namespace {

constexpr std::string_view kSchema = R"(
node Person {
  name: String @key
  age: I32?
  born: Date?
  seen: DateTime?
  big: U64?
  tags: [String]?
  kind: enum(a, b)?
  photo: Blob?
  score: F32?
  ratio: F64?
}
node Note { text: String }
node Pair { a: String  b: I64  @key(a, b) }
edge Knows: Person -> Person { since: Date? }
edge Wrote: Person -> Note
)";

std::string Fixture(const std::string& cookbook, const std::string& file) {
  const char* root = std::getenv("OMNIGRAPH_SOURCE_DIR");
  std::string path = std::string(root ? root : OMNIGRAPH_SOURCE_DIR_FALLBACK) +
                     "/../shared/fixtures/cookbooks/" + cookbook + "/" + file;
  std::ifstream in(path);
  OMNIGRAPH_CHECK_MSG(in.good(), "cookbook fixture not found at " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::unique_ptr<Graph> NewGraph(std::string_view schema = kSchema, uint64_t seed = 1) {
  storage::Runtime rt = storage::Runtime::ForTest(std::make_shared<storage::MemoryStore>(), seed);
  Result<std::unique_ptr<Graph>> g = Graph::Init(rt, schema);
  OMNIGRAPH_CHECK_MSG(g.ok(), g.status().ToString());
  return std::move(*g);
}

uint64_t Count(Graph& g, std::string_view branch, std::string_view table_key) {
  Result<Snapshot> s = g.SnapshotOfBranch(branch);
  OMNIGRAPH_CHECK(s.ok());
  Result<std::shared_ptr<const table::TableVersion>> t = s->Table(table_key);
  OMNIGRAPH_CHECK(t.ok());
  return (*t)->entity_count();
}

std::string Head(Graph& g, std::string_view branch = "main") {
  Result<Snapshot> s = g.SnapshotOfBranch(branch);
  OMNIGRAPH_CHECK(s.ok());
  return s->commit_id();
}

std::string ExportOf(Graph& g, std::string_view branch = "main", ExportOptions options = {}) {
  Result<Snapshot> s = g.SnapshotOfBranch(branch);
  OMNIGRAPH_CHECK(s.ok());
  Result<std::string> out = ExportToString(*s, options);
  OMNIGRAPH_CHECK_MSG(out.ok(), out.status().ToString());
  return *out;
}

// A property value of one row, by id.
schema::Value Prop(Graph& g, std::string_view table_key, const std::string& id,
                   std::string_view prop) {
  Result<Snapshot> s = g.SnapshotOfBranch("main");
  OMNIGRAPH_CHECK(s.ok());
  const schema::TypeDef* type = s->catalog().FindByTableKey(table_key);
  const schema::PropertyDef* p = type->FindProperty(prop);
  Result<std::shared_ptr<const table::TableVersion>> t = s->Table(table_key);
  OMNIGRAPH_CHECK(t.ok());
  std::vector<std::string> ids{id};
  Result<table::LookupResult> r = (*t)->Lookup(ids);
  OMNIGRAPH_CHECK(r.ok() && r->found[0]);
  return query::ValueAt(*r->rows.FindColumn(static_cast<uint32_t>(p->id)), 0);
}

// Expects Load to fail with exactly `message` and to leave the head where it was.
void ExpectRejected(std::string_view input, std::string_view message,
                    LoadMode mode = LoadMode::kAppend, Code code = Code::kInvalidArgument) {
  std::unique_ptr<Graph> g = NewGraph();
  const std::string before = Head(*g);
  Result<LoadResult> r = LoadJsonl(*g, "main", input, mode);
  ASSERT_FALSE(r.ok()) << input;
  EXPECT_EQ(r.status().code(), code) << r.status().ToString();
  EXPECT_EQ(r.status().message(), message);
  EXPECT_EQ(Head(*g), before) << "a rejected load published";
}

TEST(LoadTest, NodesAndEdgesLandInOneCommitWithTheSurfaceOutput) {
  std::unique_ptr<Graph> g = NewGraph();
  const std::string input =
      "{\"type\":\"Person\",\"data\":{\"name\":\"Ada\",\"age\":36}}\n"
      "\n"
      "  \r\n"
      "{\"type\":\"Person\",\"data\":{\"name\":\"Grace\"}}\r\n"
      "{\"edge\":\"knows\",\"from\":\"Ada\",\"to\":\"Grace\",\"data\":{\"since\":\"2020-01-01\"}}\n"
      "{\"type\":\"Note\",\"data\":{\"text\":\"hi\"}}";
  Result<LoadResult> r = Load(*g, "main", input, LoadMode::kAppend, LoadOptions{{}, "ada"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->total_entities, 4u);
  ASSERT_TRUE(r->commit.has_value());
  EXPECT_EQ(*r->commit, Head(*g));
  Result<Snapshot> s = g->SnapshotOfBranch("main");
  EXPECT_EQ(s->state().seq, 1u) << "one load is one commit";
  Json expected = {
      {"branch", "main"},
      {"branch_created", false},
      {"mode", "append"},
      {"nodes",
       {{{"name", "Note"}, {"entities_loaded", 1}}, {{"name", "Person"}, {"entities_loaded", 2}}}},
      {"edges", {{{"name", "Knows"}, {"entities_loaded", 1}}}},
      {"total_entities", 4},
      {"commit", *r->commit},
      {"actor_id", "ada"}};
  EXPECT_EQ(r->ToJson(), expected);
  EXPECT_EQ(Count(*g, "main", "node:Person"), 2u);
  EXPECT_EQ(Count(*g, "main", "edge:Knows"), 1u);
  EXPECT_EQ(Prop(*g, "node:Person", "Ada", "age"), schema::Value::Int(36));
}

// OmniGraph's load publishes one lineage commit even for an input of no entity (its
// tests/changes.rs: the empty load's receipt names the head's new commit, whose parent is the old
// head); the record lists no table change and every table keeps its version.
TEST(LoadTest, EmptyInputPublishesOneCommitThatChangesNoTable) {
  std::unique_ptr<Graph> g = NewGraph();
  ASSERT_TRUE(LoadJsonl(*g, "main", "{\"type\":\"Person\",\"data\":{\"name\":\"Ada\"}}\n",
                        LoadMode::kAppend)
                  .ok());
  const std::string before = Head(*g);
  Result<LoadResult> r = LoadJsonl(*g, "main", "\n  \n", LoadMode::kMerge);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE(r->commit.has_value());
  EXPECT_EQ(r->total_entities, 0u);
  EXPECT_EQ(Head(*g), *r->commit);
  ASSERT_TRUE(r->commit_record.has_value());
  EXPECT_EQ(r->commit_record->parent_commit_id, std::optional<std::string>(before));
  ASSERT_TRUE(r->commit_record->change_set.has_value());
  EXPECT_TRUE(r->commit_record->change_set->tables.empty());
  EXPECT_EQ(Count(*g, "main", "node:Person"), 1u);
}

TEST(LoadTest, ValuesConvertPerTheFormat) {
  std::unique_ptr<Graph> g = NewGraph();
  const std::string input =
      R"({"type":"Person","data":{"name":"Ada","born":"1815-12-10","seen":"2024-01-31T09:30:00.250+01:00",)"
      R"("big":"18446744073709551615","age":"-7","tags":["x","y"],"photo":"base64:aGk=","score":1.5,"kind":"a"}})"
      "\n"
      R"({"type":"Person","data":{"name":"Bob","born":19000,"seen":1700000000123,"big":5}})"
      "\n";
  Result<LoadResult> r = LoadJsonl(*g, "main", input, LoadMode::kAppend);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Prop(*g, "node:Person", "Ada", "born"), schema::Value::Date(-56270));
  EXPECT_EQ(Prop(*g, "node:Person", "Ada", "seen"), schema::Value::DateTime(1706689800250));
  EXPECT_EQ(Prop(*g, "node:Person", "Ada", "big"), schema::Value::UInt(18446744073709551615ull));
  EXPECT_EQ(Prop(*g, "node:Person", "Ada", "age"), schema::Value::Int(-7));
  EXPECT_EQ(Prop(*g, "node:Person", "Ada", "photo"), schema::Value::String("hi"));
  EXPECT_EQ(Prop(*g, "node:Person", "Bob", "born"), schema::Value::Date(19000));
  EXPECT_EQ(Prop(*g, "node:Person", "Bob", "seen"), schema::Value::DateTime(1700000000123));
  const std::string out = ExportOf(*g, "main", ExportOptions{{"Person"}});
  EXPECT_NE(out.find(R"("born":"1815-12-10")"), std::string::npos) << out;
  EXPECT_NE(out.find(R"("seen":"2024-01-31T08:30:00.250Z")"), std::string::npos) << out;
  EXPECT_NE(out.find(R"("big":"18446744073709551615")"), std::string::npos) << out;
  EXPECT_NE(out.find(R"("big":5)"), std::string::npos) << out;
  EXPECT_NE(out.find(R"("photo":"base64:aGk=")"), std::string::npos) << out;
  EXPECT_NE(out.find(R"("score":1.5)"), std::string::npos) << out;
  EXPECT_NE(out.find(R"("tags":["x","y"])"), std::string::npos) << out;
}

TEST(LoadTest, KeyedIdsAreDerivedAndUnkeyedGetUlidsOrTheGivenId) {
  std::unique_ptr<Graph> g = NewGraph();
  const std::string input = R"({"type":"Pair","data":{"a":"acme","b":42}})"
                            "\n"
                            R"({"type":"Note","data":{"text":"given"},"id":"n1"})"
                            "\n"
                            R"({"type":"Note","data":{"text":"minted"}})"
                            "\n";
  ASSERT_TRUE(LoadJsonl(*g, "main", input, LoadMode::kAppend).ok());
  Result<Snapshot> s = g->SnapshotOfBranch("main");
  Result<std::vector<std::string>> pairs = (*s->Table("node:Pair"))->Ids();
  ASSERT_TRUE(pairs.ok());
  EXPECT_EQ(*pairs, std::vector<std::string>{R"(["acme","42"])"});
  Result<std::vector<std::string>> notes = (*s->Table("node:Note"))->Ids();
  ASSERT_EQ(notes->size(), 2u);
  EXPECT_EQ((*notes)[1], "n1");
  EXPECT_EQ((*notes)[0].size(), 26u) << "a ULID";
}

constexpr std::string_view kKeyedEdgeSchema = R"(
node Person { name: String @key }
node Pair { a: String  b: I64  @key(a, b) }
edge Knows: Person -> Person { since: I32  @key(@src, @dst) }
edge Rated: Person -> Pair { stars: I32  at: Date  @key(@src, @dst, at) }
)";

// Keyed edges: the id is the endpoint ids (a composite node key's id included) then the key
// properties, one JSON array; the same key twice is one edge, a conflict in an append.
TEST(LoadTest, KeyedEdgeIdsDeriveFromTheEndpointsAndKeyProperties) {
  std::unique_ptr<Graph> g = NewGraph(kKeyedEdgeSchema);
  const std::string people = R"({"type":"Person","data":{"name":"Ada"}})"
                             "\n"
                             R"({"type":"Person","data":{"name":"Bob"}})"
                             "\n"
                             R"({"type":"Pair","data":{"a":"x","b":1}})"
                             "\n";
  const std::string edges =
      R"({"edge":"Knows","from":"Ada","to":"Bob","data":{"since":1}})"
      "\n"
      R"({"edge":"Rated","from":"Ada","to":"[\"x\",\"1\"]","data":{"stars":5,"at":"2022-01-08"}})"
      "\n";
  ASSERT_TRUE(LoadJsonl(*g, "main", people + edges, LoadMode::kAppend).ok());
  Result<Snapshot> s = g->SnapshotOfBranch("main");
  EXPECT_EQ(*(*s->Table("edge:Knows"))->Ids(), std::vector<std::string>{R"(["Ada","Bob"])"});
  EXPECT_EQ(*(*s->Table("edge:Rated"))->Ids(),
            std::vector<std::string>{R"(["Ada","[\"x\",\"1\"]","19000"])"});

  // Append: the same key again is the id the branch holds.
  const std::string before = Head(*g);
  Result<LoadResult> repeat =
      LoadJsonl(*g, "main", R"({"edge":"Knows","from":"Ada","to":"Bob","data":{"since":2}})",
                LoadMode::kAppend);
  ASSERT_FALSE(repeat.ok());
  EXPECT_EQ(repeat.status().code(), Code::kKeyConflict) << repeat.status().ToString();
  EXPECT_EQ(Head(*g), before);
  // Merge: one edge per key, the last line wins; the reverse direction is another edge.
  ASSERT_TRUE(LoadJsonl(*g, "main",
                        R"({"edge":"Knows","from":"Ada","to":"Bob","data":{"since":3}})"
                        "\n"
                        R"({"edge":"Knows","from":"Bob","to":"Ada","data":{"since":4}})"
                        "\n"
                        R"({"edge":"Knows","from":"Ada","to":"Bob","data":{"since":5}})",
                        LoadMode::kMerge)
                  .ok());
  EXPECT_EQ(Count(*g, "main", "edge:Knows"), 2u);
  EXPECT_EQ(Prop(*g, "edge:Knows", R"(["Ada","Bob"])", "since"), schema::Value::Int(5));
  EXPECT_EQ(Prop(*g, "edge:Knows", R"(["Bob","Ada"])", "since"), schema::Value::Int(4));
}

TEST(LoadValidationTest, KeyedEdgeIdDiffersFromDerivedIdOrKeyValueMissing) {
  std::unique_ptr<Graph> g = NewGraph(kKeyedEdgeSchema);
  ASSERT_TRUE(
      LoadJsonl(*g, "main", R"({"type":"Person","data":{"name":"Ada"}})", LoadMode::kAppend).ok());
  const std::string before = Head(*g);
  auto rejected = [&](std::string_view line) {
    Result<LoadResult> r = LoadJsonl(*g, "main", line, LoadMode::kMerge);
    EXPECT_EQ(Head(*g), before) << "a rejected load published";
    return r.ok() ? std::string("ok") : r.status().message();
  };
  EXPECT_EQ(rejected(R"({"edge":"Knows","id":"k1","from":"Ada","to":"Ada","data":{"since":1}})"),
            "line 1: edge Knows explicit id 'k1' does not match its canonical @key id "
            "'[\"Ada\",\"Ada\"]'");
  EXPECT_EQ(rejected(R"({"edge":"Rated","from":"Ada","to":"Ada","data":{"stars":1}})"),
            "line 1: property 'at' of edge:Rated: null is not allowed for Date");
  // The id that matches is accepted.
  Result<LoadResult> matching =
      LoadJsonl(*g, "main",
                R"({"edge":"Knows","id":"[\"Ada\",\"Ada\"]","from":"Ada","to":"Ada",)"
                R"("data":{"since":1}})",
                LoadMode::kMerge);
  EXPECT_TRUE(matching.ok()) << matching.status().ToString();
}

TEST(LoadModeTest, AppendRefusesAnIdTheBranchHolds) {
  std::unique_ptr<Graph> g = NewGraph();
  ASSERT_TRUE(
      LoadJsonl(*g, "main", R"({"type":"Person","data":{"name":"Ada"}})", LoadMode::kAppend).ok());
  const std::string before = Head(*g);
  Result<LoadResult> r = LoadJsonl(*g, "main",
                                   R"({"type":"Person","data":{"name":"Bob"}})"
                                   "\n"
                                   R"({"type":"Person","data":{"name":"Ada","age":1}})",
                                   LoadMode::kAppend);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kKeyConflict) << r.status().ToString();
  EXPECT_EQ(Head(*g), before);
  EXPECT_EQ(Count(*g, "main", "node:Person"), 1u);
}

TEST(LoadModeTest, MergeUpsertsAndTheLastLineOfAnIdWins) {
  std::unique_ptr<Graph> g = NewGraph();
  ASSERT_TRUE(LoadJsonl(*g, "main",
                        R"({"type":"Person","data":{"name":"Ada","age":1}})"
                        "\n"
                        R"({"type":"Person","data":{"name":"Bob","age":2}})",
                        LoadMode::kAppend)
                  .ok());
  Result<LoadResult> r = LoadJsonl(*g, "main",
                                   R"({"type":"Person","data":{"name":"Ada","age":10}})"
                                   "\n"
                                   R"({"type":"Person","data":{"name":"Cy","age":3}})"
                                   "\n"
                                   R"({"type":"Person","data":{"name":"Ada","age":11}})",
                                   LoadMode::kMerge);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->total_entities, 3u) << "records read, duplicates included";
  EXPECT_EQ(Count(*g, "main", "node:Person"), 3u);
  EXPECT_EQ(Prop(*g, "node:Person", "Ada", "age"), schema::Value::Int(11));
  EXPECT_EQ(Prop(*g, "node:Person", "Bob", "age"), schema::Value::Int(2));
  EXPECT_EQ(Prop(*g, "node:Person", "Cy", "age"), schema::Value::Int(3));
}

TEST(LoadModeTest, OverwriteReplacesOnlyTheTypesPresent) {
  std::unique_ptr<Graph> g = NewGraph();
  ASSERT_TRUE(LoadJsonl(*g, "main",
                        R"({"type":"Person","data":{"name":"Ada"}})"
                        "\n"
                        R"({"type":"Person","data":{"name":"Bob"}})"
                        "\n"
                        R"({"type":"Note","id":"n1","data":{"text":"keep"}})",
                        LoadMode::kAppend)
                  .ok());
  Result<LoadResult> r = LoadJsonl(*g, "main",
                                   R"({"type":"Person","data":{"name":"Cy","age":3}})"
                                   "\n"
                                   R"({"type":"Person","data":{"name":"Ada","age":4}})",
                                   LoadMode::kOverwrite);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  Result<Snapshot> s = g->SnapshotOfBranch("main");
  EXPECT_EQ(*(*s->Table("node:Person"))->Ids(), (std::vector<std::string>{"Ada", "Cy"}));
  EXPECT_EQ(Prop(*g, "node:Person", "Ada", "age"), schema::Value::Int(4));
  EXPECT_EQ(*(*s->Table("node:Note"))->Ids(), std::vector<std::string>{"n1"});
}

TEST(LoadBranchTest, MissingBranchIsCreatedFromTheBaseOnlyWhenAsked) {
  std::unique_ptr<Graph> g = NewGraph();
  ASSERT_TRUE(
      LoadJsonl(*g, "main", R"({"type":"Person","data":{"name":"Ada"}})", LoadMode::kAppend).ok());
  const std::string input = R"({"type":"Person","data":{"name":"Bob"}})";
  Result<LoadResult> no_base = LoadJsonl(*g, "feature", input, LoadMode::kAppend);
  ASSERT_FALSE(no_base.ok());
  EXPECT_EQ(no_base.status().code(), Code::kBranchNotFound);

  Result<LoadResult> r = Load(*g, "feature", input, LoadMode::kAppend, LoadOptions{"main", {}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->branch_created);
  EXPECT_EQ(r->ToJson()["base_branch"], "main");
  EXPECT_EQ(Count(*g, "feature", "node:Person"), 2u);
  EXPECT_EQ(Count(*g, "main", "node:Person"), 1u);

  // Loading again with the same base: the branch exists, nothing is created.
  Result<LoadResult> again = Load(*g, "feature", R"({"type":"Person","data":{"name":"Cy"}})",
                                  LoadMode::kAppend, LoadOptions{"main", {}});
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_FALSE(again->branch_created);
  EXPECT_EQ(Count(*g, "feature", "node:Person"), 3u);
}

TEST(LoadBranchTest, ARejectedLoadRemovesTheBranchItCreated) {
  std::unique_ptr<Graph> g = NewGraph();
  ASSERT_TRUE(
      LoadJsonl(*g, "main", R"({"type":"Person","data":{"name":"Ada"}})", LoadMode::kAppend).ok());
  // Passes the format checks; the write path refuses it (Ada exists on the base).
  Result<LoadResult> r = Load(*g, "feature", R"({"type":"Person","data":{"name":"Ada"}})",
                              LoadMode::kAppend, LoadOptions{"main", {}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kKeyConflict) << r.status().ToString();
  Result<Snapshot> s = g->SnapshotOfBranch("feature");
  EXPECT_EQ(s.status().code(), Code::kBranchNotFound);
  // A format error never creates it in the first place.
  Result<LoadResult> bad = Load(*g, "feature", "{", LoadMode::kAppend, LoadOptions{"main", {}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(g->SnapshotOfBranch("feature").status().code(), Code::kBranchNotFound);
}

TEST(LoadModeTest, ParseLoadModeAcceptsTheThreeNames) {
  EXPECT_EQ(*ParseLoadMode("append"), LoadMode::kAppend);
  EXPECT_EQ(*ParseLoadMode("merge"), LoadMode::kMerge);
  EXPECT_EQ(*ParseLoadMode("overwrite"), LoadMode::kOverwrite);
  EXPECT_EQ(ParseLoadMode("upsert").status().message(),
            "unknown load mode 'upsert' (expected append, merge or overwrite)");
}

// --- Export and round trips.

TEST(ExportTest, SelectedTypesOnlyAndUnknownTypeIsNotFound) {
  std::unique_ptr<Graph> g = NewGraph();
  ASSERT_TRUE(LoadJsonl(*g, "main",
                        R"({"type":"Person","data":{"name":"Ada"}})"
                        "\n"
                        R"({"type":"Note","id":"n1","data":{"text":"t"}})"
                        "\n"
                        R"({"edge":"Wrote","from":"Ada","to":"n1","id":"w1"})",
                        LoadMode::kAppend)
                  .ok());
  EXPECT_EQ(ExportOf(*g, "main", ExportOptions{{"wrote", "Note"}}),
            "{\"type\":\"Note\",\"data\":{\"id\":\"n1\",\"text\":\"t\"}}\n"
            "{\"edge\":\"Wrote\",\"from\":\"Ada\",\"to\":\"n1\",\"data\":{\"id\":\"w1\"}}\n");
  Result<Snapshot> s = g->SnapshotOfBranch("main");
  Result<std::string> bad = ExportToString(*s, ExportOptions{{"Robot"}});
  EXPECT_EQ(bad.status().code(), Code::kNotFound);
  EXPECT_EQ(bad.status().message(), "unknown type 'Robot'");
}

void ExpectCookbookRoundTrips(const std::string& cookbook) {
  const std::string schema = Fixture(cookbook, "schema.pg");
  const std::string seed = Fixture(cookbook, "seed.jsonl");
  std::unique_ptr<Graph> a = NewGraph(schema, 1);
  Result<LoadResult> loaded = LoadJsonl(*a, "main", seed, LoadMode::kAppend);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  uint64_t lines = 0;  // Non-blank lines: one entity each.
  std::istringstream in(seed);
  for (std::string line; std::getline(in, line);) {
    lines += line.find_first_not_of(" \t\r") != std::string::npos;
  }
  EXPECT_EQ(loaded->total_entities, lines);

  const std::string first = ExportOf(*a);
  uint64_t exported = 0;
  for (char c : first) exported += c == '\n';
  EXPECT_EQ(exported, lines);

  // Into a fresh graph, and over the same graph: the same data comes back out.
  std::unique_ptr<Graph> b = NewGraph(schema, 2);
  Result<LoadResult> copy = LoadJsonl(*b, "main", first, LoadMode::kOverwrite);
  ASSERT_TRUE(copy.ok()) << copy.status().ToString();
  EXPECT_EQ(ExportOf(*b), first);
  Result<LoadResult> again = LoadJsonl(*a, "main", first, LoadMode::kOverwrite);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(ExportOf(*a), first);
  EXPECT_EQ(a->SnapshotOfBranch("main")->state().seq, 2u);
}

TEST(ExportTest, IndustryIntelSeedLoadsAndRoundTrips) {
  ExpectCookbookRoundTrips("industry-intel");
}

TEST(ExportTest, SecondBrainSeedLoadsAndRoundTrips) { ExpectCookbookRoundTrips("second-brain"); }

TEST(ExportTest, EveryValueKindRoundTrips) {
  std::unique_ptr<Graph> a = NewGraph();
  const std::string input =
      R"({"type":"Person","data":{"name":"Ada","age":-5,"born":"0001-01-01","seen":"9999-12-31T23:59:59.999Z",)"
      R"("big":"18446744073709551615","tags":["x","","\u00e9\n"],"kind":"b","photo":"base64:AAEC/w==",)"
      R"("score":3.4028234663852886e38,"ratio":-0.0}})"
      "\n"
      R"({"type":"Person","data":{"name":"Bob","born":-800000,"ratio":1e-300,"tags":[]}})"
      "\n"
      R"({"type":"Pair","data":{"a":"x","b":"-9223372036854775808"}})"
      "\n"
      R"({"edge":"Knows","from":"Ada","to":"Bob","id":"k1","data":{"since":"2020-02-29"}})";
  ASSERT_TRUE(LoadJsonl(*a, "main", input, LoadMode::kAppend).ok());
  const std::string first = ExportOf(*a);
  std::unique_ptr<Graph> b = NewGraph(kSchema, 3);
  Result<LoadResult> copy = LoadJsonl(*b, "main", first, LoadMode::kOverwrite);
  ASSERT_TRUE(copy.ok()) << copy.status().ToString() << "\n" << first;
  EXPECT_EQ(ExportOf(*b), first);
  EXPECT_EQ(Prop(*b, "node:Person", "Bob", "born"), schema::Value::Date(-800000));
  EXPECT_EQ(Prop(*b, "node:Person", "Ada", "photo"),
            schema::Value::String(std::string("\0\1\2\xff", 4)));
}

// Export of stored text that is not UTF-8 (written straight through the table layer) stops with
// Corruption naming the fragment.
TEST(ExportTest, StoredTextThatIsNotUtf8IsCorruptionNamingTheFragment) {
  std::unique_ptr<Graph> g = NewGraph();
  Snapshot s = *g->SnapshotOfBranch("main");
  const schema::TypeDef* note = s.catalog().FindNode("Note");
  query::RowsBuilder rows = *query::RowsBuilder::Make(*note);
  std::vector<std::optional<schema::Value>> text = {schema::Value::String("caf\xe9")};
  ASSERT_TRUE(rows.Append("n1", "", "", text).ok());
  WriteRequest w;
  w.changes["node:Note"] = TableChange{TableChange::Op::kAppend, *rows.Finish(), {}};
  ASSERT_TRUE(Write(*g, w).ok());
  Result<std::string> out = ExportToString(*g->SnapshotOfBranch("main"));
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), Code::kCorruption);
  EXPECT_TRUE(out.status().object().ends_with(".ogf")) << out.status().ToString();
  EXPECT_TRUE(out.status().message().ends_with("row 0 is not valid UTF-8 (byte 0xe9 at offset 3)"))
      << out.status().ToString();
}

// --- Streaming: tiny batches give the same result as one batch.

// People p0..p{n-1} with ages, where every third line repeats an earlier person with a new age.
std::string PeopleWithRepeats(int n) {
  std::string out;
  for (int i = 0; i < n; ++i) {
    out += R"({"type":"Person","data":{"name":"p)" + std::to_string(i) + R"(","age":)" +
           std::to_string(i) + "}}\n";
    if (i % 3 == 2) {
      out += R"({"type":"Person","data":{"name":"p)" + std::to_string(i / 2) + R"(","age":)" +
             std::to_string(1000 + i) + "}}\n";
    }
    out += R"({"type":"Note","id":"n)" + std::to_string(i % 7) + R"(","data":{"text":"v)" +
           std::to_string(i) + "\"}}\n";
  }
  return out;
}

TEST(LoadStreamingTest, TinyBatchesMatchOneBatchInEveryMode) {
  const std::string input = PeopleWithRepeats(40);
  for (LoadMode mode : {LoadMode::kMerge, LoadMode::kOverwrite}) {
    SCOPED_TRACE(std::string(LoadModeName(mode)));
    std::unique_ptr<Graph> whole = NewGraph();
    std::unique_ptr<Graph> tiny = NewGraph();
    const std::string seed = R"({"type":"Person","data":{"name":"p1","age":-1}})"
                             "\n"
                             R"({"type":"Person","data":{"name":"old","age":-2}})";
    ASSERT_TRUE(LoadJsonl(*whole, "main", seed, LoadMode::kAppend).ok());
    ASSERT_TRUE(LoadJsonl(*tiny, "main", seed, LoadMode::kAppend).ok());
    ASSERT_TRUE(LoadJsonl(*whole, "main", input, mode).ok());
    LoadOptions options;
    // Tiny batches, and a 64-byte sort budget: the id bookkeeping and the validation sorts
    // spill to temporary files.
    options.limits = LoadLimits{3, 1 << 20, 64};
    Result<LoadResult> r = Load(*tiny, "main", input, mode, options);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(ExportOf(*tiny), ExportOf(*whole));
    Result<Snapshot> s = tiny->SnapshotOfBranch("main");
    const auto& fragments = (*s->Table("node:Person"))->manifest().fragments;
    EXPECT_GE(fragments.size(), 10u) << "the rows were written in batches";
  }
}

// Passes every call on, counting the reads of fragment objects (`data/…`).
class FragmentReadsStore final : public storage::ObjectStore {
 public:
  explicit FragmentReadsStore(std::shared_ptr<storage::ObjectStore> inner)
      : inner_(std::move(inner)) {}
  std::atomic<int> fragment_gets{0};

  Result<storage::GetResult> Get(std::string_view n, std::optional<storage::ByteRange> r) override {
    if (n.find("/data/") != std::string_view::npos) ++fragment_gets;
    return inner_->Get(n, r);
  }
  Result<storage::ObjectMeta> Head(std::string_view n) override { return inner_->Head(n); }
  Result<storage::ListPage> List(const storage::ListOptions& o) override { return inner_->List(o); }
  Status Put(std::string_view n, std::string_view d) override { return inner_->Put(n, d); }
  Result<bool> PutIfAbsent(std::string_view n, std::string_view d) override {
    return inner_->PutIfAbsent(n, d);
  }
  Result<std::string> PutIfMatch(std::string_view n, std::string_view d,
                                 std::string_view e) override {
    return inner_->PutIfMatch(n, d, e);
  }
  Status Delete(std::string_view n) override { return inner_->Delete(n); }
  std::string Describe() const override { return "fragment-reads"; }

 private:
  std::shared_ptr<storage::ObjectStore> inner_;
};

// A load keeps the batches it wrote ahead until its write has validated them (decision 230), so
// validation reads none of them back; a load that keeps none reads once each fragment that still
// has a live row (every fragment its version references). Both publish the same graph.
TEST(LoadStreamingTest, KeptBatchesAreValidatedWithoutBeingReadBack) {
  const std::string input = PeopleWithRepeats(40);
  std::map<uint64_t, int> reads;
  std::map<uint64_t, std::string> exports;
  size_t referenced = 0;
  for (uint64_t kept : {kLoadKeptBytes, uint64_t{0}}) {
    auto store = std::make_shared<FragmentReadsStore>(std::make_shared<storage::MemoryStore>());
    Result<std::unique_ptr<Graph>> g = Graph::Init(storage::Runtime::ForTest(store, 1), kSchema);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    LoadOptions options;
    options.limits = LoadLimits{3, 1 << 20, 64};
    options.limits.kept_bytes = kept;
    const int before = store->fragment_gets;
    Result<LoadResult> r = Load(**g, "main", input, LoadMode::kMerge, options);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    reads[kept] = store->fragment_gets - before;
    exports[kept] = ExportOf(**g);
    Result<Snapshot> s = (*g)->SnapshotOfBranch("main");
    referenced = (*s->Table("node:Person"))->manifest().fragments.size() +
                 (*s->Table("node:Note"))->manifest().fragments.size();
  }
  EXPECT_GE(referenced, 20u) << "the rows were written in batches";
  EXPECT_EQ(exports[0], exports[kLoadKeptBytes]);
  EXPECT_EQ(reads[0] - reads[kLoadKeptBytes], static_cast<int>(referenced));
}

TEST(LoadStreamingTest, TheBufferBoundWritesTheLargestBatchEarly) {
  std::unique_ptr<Graph> g = NewGraph();
  std::string input;
  for (int i = 0; i < 30; ++i) {
    input += R"({"type":"Note","data":{"text":")" + std::string(100, 'x') + "\"}}\n";
    input += R"({"type":"Person","data":{"name":"p)" + std::to_string(i) + "\"}}\n";
  }
  LoadOptions options;
  options.limits = LoadLimits{1000, 500};
  ASSERT_TRUE(Load(*g, "main", input, LoadMode::kAppend, options).ok());
  Result<Snapshot> s = g->SnapshotOfBranch("main");
  EXPECT_GE((*s->Table("node:Note"))->manifest().fragments.size(), 5u);
  EXPECT_EQ((*s->Table("node:Note"))->entity_count(), 30u);
  EXPECT_EQ((*s->Table("node:Person"))->entity_count(), 30u);
}

TEST(LoadStreamingTest, AppendDuplicateAcrossBatchesIsAKeyConflictAndWritesNoCommit) {
  std::unique_ptr<Graph> g = NewGraph();
  const std::string before = Head(*g);
  std::string input;
  for (int i = 0; i < 10; ++i) {
    input += R"({"type":"Person","data":{"name":"p)" + std::to_string(i) + "\"}}\n";
  }
  input += R"({"type":"Person","data":{"name":"p7"}})"
           "\n"
           R"({"type":"Person","data":{"name":"p2"}})";
  for (uint64_t sort_bytes : {kSorterMemoryBytes, uint64_t{64}}) {
    LoadOptions options;
    options.limits = LoadLimits{2, 1 << 20, sort_bytes};
    Result<LoadResult> r = Load(*g, "main", input, LoadMode::kAppend, options);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), Code::kKeyConflict);
    // Both p7 and p2 repeat an id of an earlier batch; the repeat on the earlier line is named,
    // as a reader that stopped at the first repeat would have.
    EXPECT_EQ(r.status().message(), "line 11: id 'p7' of node:Person was already given on line 8");
    EXPECT_EQ(Head(*g), before);
  }
}

TEST(LoadStreamingTest, ARepeatAcrossBatchesComesBeforeALaterLinesError) {
  std::unique_ptr<Graph> g = NewGraph();
  const std::string before = Head(*g);
  auto person = [](std::string_view name) {
    return R"({"type":"Person","data":{"name":")" + std::string(name) + "\"}}\n";
  };
  // Batches of two: A B | A C | ... — line 3 repeats line 1 across batches; a later line fails
  // in its own way (a repeat inside its batch, or a bad value).
  const std::string head = person("A") + person("B") + person("A") + person("C");
  for (const std::string& tail :
       {person("D") + person("D"), std::string(R"({"type":"Person","data":{"name":7}})") + "\n"}) {
    for (uint64_t sort_bytes : {kSorterMemoryBytes, uint64_t{64}}) {
      LoadOptions options;
      options.limits = LoadLimits{2, 1 << 20, sort_bytes};
      Result<LoadResult> r = Load(*g, "main", head + tail, LoadMode::kAppend, options);
      ASSERT_FALSE(r.ok());
      EXPECT_EQ(r.status().code(), Code::kKeyConflict) << r.status().ToString();
      EXPECT_EQ(r.status().message(), "line 3: id 'A' of node:Person was already given on line 1");
      EXPECT_EQ(Head(*g), before);
    }
  }
  // In merge mode repeats are not errors (the last line wins): the same input lands.
  Result<LoadResult> merged = Load(*g, "main", head + person("D") + person("D"), LoadMode::kMerge);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
}

// Generated ids skip the loader's id sort (docs/design/load.md "Streaming and the memory
// bound"): each type keeps them in the order they were minted and merges them with the sorted
// given ids at the end.

std::string Edge(std::string_view from, std::string_view to) {
  return R"({"edge":"Knows","from":")" + std::string(from) + R"(","to":")" + std::string(to) +
         "\"}\n";
}

std::string NoteLine(std::string_view text, std::optional<std::string_view> id = std::nullopt) {
  std::string out = R"({"type":"Note",)";
  if (id) out += R"("id":")" + std::string(*id) + "\",";
  return out + R"("data":{"text":")" + std::string(text) + "\"}}\n";
}

// The ids of `table_key` in the head's id index, checked to be ascending and unique.
std::vector<std::string> IndexIds(Graph& g, std::string_view table_key) {
  Result<Snapshot> s = g.SnapshotOfBranch("main");
  OMNIGRAPH_CHECK(s.ok());
  Result<std::vector<std::string>> ids = (*s->Table(table_key))->Ids();
  OMNIGRAPH_CHECK_MSG(ids.ok(), ids.status().ToString());
  for (size_t i = 1; i < ids->size(); ++i) {
    EXPECT_LT((*ids)[i - 1], (*ids)[i]) << "the id index is not ascending and unique at " << i;
  }
  return *ids;
}

TEST(LoadGeneratedIdsTest, EdgesWithoutIdsAcrossManyBatchesGetOneDistinctIdEach) {
  constexpr int kEdges = 41;
  std::string input;
  for (const char* name : {"a", "b", "c"}) {
    input += R"({"type":"Person","data":{"name":")" + std::string(name) + "\"}}\n";
  }
  for (int i = 0; i < kEdges; ++i) input += Edge(i % 2 ? "a" : "b", i % 3 ? "c" : "a");
  for (LoadMode mode : {LoadMode::kAppend, LoadMode::kMerge, LoadMode::kOverwrite}) {
    SCOPED_TRACE(std::string(LoadModeName(mode)));
    std::unique_ptr<Graph> g = NewGraph();
    LoadOptions options;
    options.limits = LoadLimits{2, 1 << 20, kSorterMemoryBytes};
    Result<LoadResult> r = Load(*g, "main", input, mode, options);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_EQ(r->edges.size(), 1u);
    EXPECT_EQ(r->edges[0].entities_loaded, uint64_t{kEdges});
    Result<Snapshot> s = g->SnapshotOfBranch("main");
    std::shared_ptr<const table::TableVersion> knows = *s->Table("edge:Knows");
    EXPECT_EQ(knows->entity_count(), uint64_t{kEdges});
    EXPECT_EQ(knows->manifest().inserted_ids_count, uint64_t{kEdges});
    EXPECT_GE(knows->manifest().fragments.size(), 20u) << "the rows were written in batches";
    // Every edge has its own ULID (a dropped id would leave a row without one, a repeated id a
    // row twice), and each one finds its row.
    const std::vector<std::string> ids = IndexIds(*g, "edge:Knows");
    ASSERT_EQ(ids.size(), size_t{kEdges});
    for (const std::string& id : ids) EXPECT_EQ(id.size(), Ulid::kTextLength) << id;
    Result<table::LookupResult> found = knows->Lookup(ids);
    ASSERT_TRUE(found.ok()) << found.status().ToString();
    EXPECT_EQ(std::count(found->found.begin(), found->found.end(), true), kEdges);
  }
}

TEST(LoadGeneratedIdsTest, ATypeMixingGivenAndGeneratedIdsLoadsEveryRow) {
  // The given ids sort before ("!"), after ("~") and among ("<first ULID>~") the generated ones,
  // so the merge of the two lists interleaves them. The first ULID is read from a load of the
  // same lines into a graph of the same seed (a ManualClock: the same ids in the same order).
  std::string first_ulid;
  {
    std::unique_ptr<Graph> g = NewGraph(kSchema, 7);
    LoadOptions options;
    options.limits = LoadLimits{2, 1 << 20, kSorterMemoryBytes};
    ASSERT_TRUE(Load(*g, "main", NoteLine("g0"), LoadMode::kAppend, options).ok());
    first_ulid = IndexIds(*g, "node:Note").at(0);
  }
  const std::string among = first_ulid + "~";
  // Batches of two: g0 !a | g1 ~z | among g2 | !b(v1) g3 | !b(v2) g4 | g5 ~y.
  const std::string input = NoteLine("g0") + NoteLine("v1", "!a") + NoteLine("g1") +
                            NoteLine("v1", "~z") + NoteLine("v1", among) + NoteLine("g2") +
                            NoteLine("v1", "!b") + NoteLine("g3") + NoteLine("v2", "!b") +
                            NoteLine("g4") + NoteLine("g5") + NoteLine("v1", "~y");
  for (LoadMode mode : {LoadMode::kMerge, LoadMode::kOverwrite}) {
    for (uint64_t batch_rows : {uint64_t{2}, uint64_t{3}, kLoadBatchRows}) {
      SCOPED_TRACE(std::string(LoadModeName(mode)) + ", batches of " + std::to_string(batch_rows));
      std::unique_ptr<Graph> g = NewGraph(kSchema, 7);
      LoadOptions options;
      options.limits = LoadLimits{batch_rows, 1 << 20, kSorterMemoryBytes};
      Result<LoadResult> r = Load(*g, "main", input, mode, options);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      EXPECT_EQ(Count(*g, "main", "node:Note"), 11u) << "12 lines, '!b' twice";
      const std::vector<std::string> ids = IndexIds(*g, "node:Note");
      ASSERT_EQ(ids.size(), 11u);
      EXPECT_EQ(ids.front(), "!a");
      EXPECT_EQ(ids[1], "!b");
      EXPECT_EQ(ids[2], first_ulid) << "the first line's ULID is the same in a graph of one seed";
      EXPECT_EQ(ids[3], among);
      EXPECT_EQ(ids[ids.size() - 2], "~y");
      EXPECT_EQ(ids.back(), "~z");
      EXPECT_EQ(Prop(*g, "node:Note", "!b", "text").string_value(), "v2") << "the last line wins";
      // The generated ids are those of the six lines without one, each once.
      std::set<std::string> texts;
      for (size_t i = 2; i + 2 < ids.size(); ++i) {
        if (ids[i] == among) continue;
        EXPECT_EQ(ids[i].size(), Ulid::kTextLength) << ids[i];
        texts.insert(Prop(*g, "node:Note", ids[i], "text").string_value());
      }
      EXPECT_EQ(texts, (std::set<std::string>{"g0", "g1", "g2", "g3", "g4", "g5"}));
    }
  }
}

TEST(LoadGeneratedIdsTest, AGivenIdRepeatedAcrossBatchesAmongGeneratedOnesIsTheSameConflict) {
  // Batches of two: g0 n1 | g1 n3 | g2 g3 | n3 g4 — line 7 repeats line 4 across batches.
  const std::string head = NoteLine("g0") + NoteLine("x", "n1") + NoteLine("g1") +
                           NoteLine("x", "n3") + NoteLine("g2") + NoteLine("g3") +
                           NoteLine("y", "n3") + NoteLine("g4");
  // Read to the end, or stopped by a later line's own error (a bad value).
  for (const std::string& tail :
       {std::string(), NoteLine("g5") + R"({"type":"Note","data":{"text":1}})"}) {
    for (uint64_t sort_bytes : {kSorterMemoryBytes, uint64_t{64}}) {
      std::unique_ptr<Graph> g = NewGraph();
      const std::string before = Head(*g);
      LoadOptions options;
      options.limits = LoadLimits{2, 1 << 20, sort_bytes};
      Result<LoadResult> r = Load(*g, "main", head + tail, LoadMode::kAppend, options);
      ASSERT_FALSE(r.ok());
      EXPECT_EQ(r.status().code(), Code::kKeyConflict) << r.status().ToString();
      EXPECT_EQ(r.status().message(), "line 7: id 'n3' of node:Note was already given on line 4");
      EXPECT_EQ(Head(*g), before);
    }
  }
}

TEST(LoadGeneratedIdsTest, AGivenIdEqualToAGeneratedOneIsAConflictInEveryMode) {
  // The ULIDs a graph of seed 7 mints for three lines without ids. A graph of the same seed
  // mints the same ones (a ManualClock: the first is drawn, the next ones increment it), so an
  // input can give one of them explicitly — before or after the line that mints it, in the
  // same batch or another.
  std::vector<std::string> minted;
  {
    std::unique_ptr<Graph> g = NewGraph(kSchema, 7);
    const std::string three = NoteLine("g0") + NoteLine("g1") + NoteLine("g2");
    ASSERT_TRUE(LoadJsonl(*g, "main", three, LoadMode::kAppend).ok());
    minted = IndexIds(*g, "node:Note");
    ASSERT_EQ(minted.size(), 3u);
  }
  struct Case {
    std::string input;
    uint64_t given_line;
    std::string id;
  };
  const std::string g012 = NoteLine("g0") + NoteLine("g1") + NoteLine("g2");
  const std::vector<Case> cases = {
      // After the line that minted it: in an earlier batch of two, or the same one.
      {g012 + NoteLine("given", minted[1]) + NoteLine("g3"), 4, minted[1]},
      {g012 + NoteLine("given", minted[2]) + NoteLine("g3"), 4, minted[2]},
      // Before it: line 3 mints the second ULID, which line 2 gave.
      {NoteLine("g0") + NoteLine("given", minted[1]) + NoteLine("g1"), 2, minted[1]},
  };
  for (const Case& c : cases) {
    for (LoadMode mode : {LoadMode::kAppend, LoadMode::kMerge, LoadMode::kOverwrite}) {
      for (uint64_t batch_rows : {uint64_t{2}, kLoadBatchRows}) {
        SCOPED_TRACE(std::string(LoadModeName(mode)) + ", line " + std::to_string(c.given_line) +
                     ", batches of " + std::to_string(batch_rows));
        std::unique_ptr<Graph> g = NewGraph(kSchema, 7);
        const std::string before = Head(*g);
        LoadOptions options;
        options.limits = LoadLimits{batch_rows, 1 << 20, 64};
        Result<LoadResult> r = Load(*g, "main", c.input, mode, options);
        ASSERT_FALSE(r.ok());
        EXPECT_EQ(r.status().code(), Code::kKeyConflict) << r.status().ToString();
        EXPECT_EQ(r.status().message(), "line " + std::to_string(c.given_line) + ": id '" + c.id +
                                            "' of node:Note equals an id the load generated");
        EXPECT_EQ(Head(*g), before);
      }
    }
  }
}

TEST(LoadGeneratedIdsTest, GeneratedIdsThatSpillToAFileLoadTheSameGraph) {
  // With a 64-byte sort budget each type's list of generated ids may hold 1 byte in memory, so
  // every list goes to a temporary file; the graph must be the one the default budget gives
  // (the same seed mints the same ids).
  std::string input;
  for (const char* name : {"a", "b", "c"}) {
    input += R"({"type":"Person","data":{"name":")" + std::string(name) + "\"}}\n";
  }
  for (int i = 0; i < 30; ++i) {
    input += Edge(i % 2 ? "a" : "c", i % 3 ? "b" : "a");
    input += i % 4 ? NoteLine("t" + std::to_string(i))
                   : NoteLine("t" + std::to_string(i), "n" + std::to_string(i % 8));
  }
  for (LoadMode mode : {LoadMode::kMerge, LoadMode::kOverwrite}) {
    SCOPED_TRACE(std::string(LoadModeName(mode)));
    std::unique_ptr<Graph> roomy = NewGraph(kSchema, 11);
    std::unique_ptr<Graph> tiny = NewGraph(kSchema, 11);
    LoadOptions options;
    options.limits = LoadLimits{3, 1 << 20, kSorterMemoryBytes};
    ASSERT_TRUE(Load(*roomy, "main", input, mode, options).ok());
    options.limits.sort_bytes = 64;
    Result<LoadResult> r = Load(*tiny, "main", input, mode, options);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(ExportOf(*tiny), ExportOf(*roomy));
    EXPECT_EQ(IndexIds(*tiny, "edge:Knows").size(), 30u);
    // 22 generated notes, and n0 and n4 given four times each (the last line wins).
    EXPECT_EQ(IndexIds(*tiny, "node:Note"), IndexIds(*roomy, "node:Note"));
    EXPECT_EQ(Count(*tiny, "main", "node:Note"), 24u);
  }
}

// The forward adjacency of `g`'s Knows table, checked against EdgeCsr::Build over a scan of its
// rows in id order, as source -> its targets (sorted): what a query sees, whatever the edge ids.
std::map<std::string, std::vector<std::string>> CheckedAdjacency(Graph& g, size_t* fragments) {
  Result<Snapshot> s = g.SnapshotOfBranch("main");
  OMNIGRAPH_CHECK(s.ok());
  std::shared_ptr<const table::TableVersion> t = *s->Table("edge:Knows");
  *fragments = t->manifest().fragments.size();
  Result<std::shared_ptr<const table::EdgeCsr>> csr = t->Csr(table::EdgeDirection::kOut);
  OMNIGRAPH_CHECK_MSG(csr.ok(), csr.status().ToString());
  const uint32_t fields[] = {table::kIdFieldId, table::kSrcFieldId, table::kDstFieldId};
  Result<table::ColumnBatch> rows = t->ScanAll(table::ScanOptions{{fields, fields + 3}, {}});
  OMNIGRAPH_CHECK(rows.ok());
  std::map<std::string, std::pair<std::string, std::string>> ends;
  for (uint64_t r = 0; r < rows->num_rows(); ++r) {
    ends[std::string(rows->column(0).StringAt(r))] = {std::string(rows->column(1).StringAt(r)),
                                                      std::string(rows->column(2).StringAt(r))};
  }
  std::vector<std::string_view> src, dst;
  for (const auto& [id, end] : ends) {
    src.push_back(end.first);
    dst.push_back(end.second);
  }
  Result<table::EdgeCsr> oracle = table::EdgeCsr::Build(table::EdgeDirection::kOut, src, dst);
  OMNIGRAPH_CHECK(oracle.ok());
  EXPECT_EQ((*csr)->Encode(), oracle->Encode());
  std::map<std::string, std::vector<std::string>> out;
  for (size_t k = 0; k < (*csr)->keys.size(); ++k) {
    auto& targets = out[std::string((*csr)->keys.At(k))];
    for (uint32_t e = (*csr)->offsets[k]; e < (*csr)->offsets[k + 1]; ++e) {
      targets.emplace_back((*csr)->others.At((*csr)->targets[e]));
    }
    std::sort(targets.begin(), targets.end());
  }
  return out;
}

// The id index and adjacency a load leaves are built after its commit from the fragments it wrote,
// one fragment at a time (decision 210). Edges loaded in one batch, or in 15 with every sort
// spilling, must give the same adjacency, and each must agree with its table's rows.
TEST(LoadGeneratedIdsTest, ManyBatchesAndSpilledSortsLeaveTheSameAdjacencyAsOneBatch) {
  std::string input;
  for (int i = 0; i < 40; ++i) {
    input += R"({"type":"Person","data":{"name":"p)" + std::to_string(i) + "\"}}\n";
  }
  // Above the size from which a version keeps its indexes as derived objects (1,024 rows).
  for (int i = 0; i < 1500; ++i) {
    input += Edge("p" + std::to_string(i * 7 % 40), "p" + std::to_string(i * 13 % 37));
  }
  std::unique_ptr<Graph> one = NewGraph(kSchema, 21);
  std::unique_ptr<Graph> many = NewGraph(kSchema, 21);
  Result<LoadResult> r = Load(*one, "main", input, LoadMode::kOverwrite);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  LoadOptions options;
  options.limits = LoadLimits{100, 1 << 20, 64};
  r = Load(*many, "main", input, LoadMode::kOverwrite, options);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  size_t one_fragments = 0, many_fragments = 0;
  const auto adjacency = CheckedAdjacency(*one, &one_fragments);
  EXPECT_EQ(CheckedAdjacency(*many, &many_fragments), adjacency);
  EXPECT_EQ(one_fragments, 1u);
  EXPECT_EQ(many_fragments, 15u);
  EXPECT_EQ(adjacency.size(), 40u);
  EXPECT_EQ(IndexIds(*many, "edge:Knows").size(), 1500u);
}

TEST(LoadStreamingTest, LoadFileStreamsLinesAcrossChunkBoundaries) {
  storage::TempDir dir;
  const std::string path = dir.path() + "/in.jsonl";
  // Over two read chunks, with lines straddling the boundaries, and no final newline.
  std::string input;
  int people = 0;
  while (input.size() < 2 * FileLines::kFileChunkBytes + 1000) {
    const std::string tag(static_cast<size_t>(people % 97), 'y');
    input += R"({"type":"Person","data":{"name":"p)" + std::to_string(people) + R"(","tags":[")" +
             tag + "\"]}}\n";
    ++people;
  }
  input.pop_back();
  {
    std::ofstream out(path, std::ios::binary);
    out << input;
  }
  std::unique_ptr<Graph> from_file = NewGraph();
  Result<LoadResult> r = LoadFile(*from_file, "main", path, LoadMode::kAppend);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->total_entities, static_cast<uint64_t>(people));
  std::unique_ptr<Graph> from_string = NewGraph();
  ASSERT_TRUE(LoadJsonl(*from_string, "main", input, LoadMode::kAppend).ok());
  EXPECT_EQ(ExportOf(*from_file), ExportOf(*from_string));
  EXPECT_EQ(LoadFile(*from_file, "main", dir.path() + "/missing.jsonl", LoadMode::kAppend)
                .status()
                .code(),
            Code::kNotFound);
}

// A reader that makes `people` Person lines as it is asked for them (no input string exists),
// advancing `clock` by a millisecond per line so that the load's progress has time to report.
class GeneratedPeople {
 public:
  // `one_line_per_read`: each read hands over at most one line (a slow pipe), else it fills the
  // capacity.
  GeneratedPeople(uint64_t people, ManualClock& clock, uint64_t bad_line = 0,
                  bool one_line_per_read = false)
      : people_(people), clock_(clock), bad_line_(bad_line), one_line_(one_line_per_read) {}

  Result<size_t> Read(char* buffer, size_t capacity) {
    ++calls_;
    capacity_max_ = std::max(capacity_max_, capacity);
    size_t n = 0;
    while (n < capacity) {
      if (pending_.empty()) {
        if (next_ == people_ || (one_line_ && n > 0)) break;
        ++next_;
        clock_.Advance(1000);
        pending_ = next_ == bad_line_
                       ? std::string(R"({"type":"Person","data":{"name":"p","age":"old"}})") + "\n"
                       : R"({"type":"Person","data":{"name":"person-)" + std::to_string(next_) +
                             R"(","age":)" + std::to_string(next_ % 90) + "}}\n";
      }
      const size_t take = std::min(pending_.size(), capacity - n);
      std::memcpy(buffer + n, pending_.data(), take);
      pending_.erase(0, take);
      n += take;
    }
    bytes_ += n;
    return n;
  }

  uint64_t bytes() const { return bytes_; }
  uint64_t calls() const { return calls_; }
  size_t capacity_max() const { return capacity_max_; }

 private:
  uint64_t people_;
  ManualClock& clock_;
  uint64_t bad_line_;
  bool one_line_;
  uint64_t next_ = 0;
  std::string pending_;
  uint64_t bytes_ = 0;
  uint64_t calls_ = 0;
  size_t capacity_max_ = 0;
};

// A graph over a memory store whose clock the test holds.
std::unique_ptr<Graph> NewGraphWithClock(std::shared_ptr<ManualClock> clock) {
  storage::Runtime rt = storage::Runtime::ForTest(std::make_shared<storage::MemoryStore>(), 1);
  rt.clock = std::move(clock);
  Result<std::unique_ptr<Graph>> g = Graph::Init(rt, kSchema);
  OMNIGRAPH_CHECK_MSG(g.ok(), g.status().ToString());
  return std::move(*g);
}

TEST(LoadStreamingTest, AReaderMuchLargerThanTheBufferBoundStreamsWithinIt) {
  auto clock = std::make_shared<ManualClock>();
  std::unique_ptr<Graph> g = NewGraphWithClock(clock);
  constexpr uint64_t kPeople = 20'000;
  constexpr uint64_t kBufferBytes = 32 << 10;
  GeneratedPeople people(kPeople, *clock);
  ReaderLines lines([&](char* b, size_t c) { return people.Read(b, c); }, "generated");
  LoadOptions options;
  options.limits = LoadLimits{1 << 20, kBufferBytes, kSorterMemoryBytes};
  Result<LoadResult> r = LoadFrom(*g, "main", lines, LoadMode::kAppend, options);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->total_entities, kPeople);
  EXPECT_EQ(Count(*g, "main", "node:Person"), kPeople);
  // The input is many times the bound, pulled a chunk at a time, and the unwritten batches
  // never held more than the bound plus the line that crossed it.
  EXPECT_GT(people.bytes(), 16 * kBufferBytes);
  EXPECT_EQ(people.capacity_max(), ReaderLines::kChunkBytes);
  EXPECT_GE(people.calls(), people.bytes() / ReaderLines::kChunkBytes + 1);
  EXPECT_GT(r->buffered_bytes_peak, kBufferBytes / 2);
  EXPECT_LE(r->buffered_bytes_peak, kBufferBytes + 64);
}

TEST(LoadStreamingTest, AStreamedBadLineIsNamedAndNothingIsPublished) {
  auto clock = std::make_shared<ManualClock>();
  std::unique_ptr<Graph> g = NewGraphWithClock(clock);
  const std::string before = Head(*g);
  GeneratedPeople people(20'000, *clock, /*bad_line=*/17'321);
  ReaderLines lines([&](char* b, size_t c) { return people.Read(b, c); }, "generated");
  LoadOptions options;
  options.limits = LoadLimits{1 << 20, 64 << 10, kSorterMemoryBytes};
  Result<LoadResult> r = LoadFrom(*g, "main", lines, LoadMode::kAppend, options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  EXPECT_TRUE(r.status().message().starts_with("line 17321: property 'age' of node:Person"))
      << r.status().message();
  EXPECT_EQ(Head(*g), before);
  // A reader's own failure stops the load the same way.
  ReaderLines failing(
      [](char*, size_t) -> Result<size_t> { return Status(Code::kTransient, "gone"); }, "failing");
  Result<LoadResult> f = LoadFrom(*g, "main", failing, LoadMode::kAppend);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().message(), "gone");
  EXPECT_EQ(Head(*g), before);
}

TEST(LoadProgressTest, ReportsRecordsAtMostTenTimesASecondThenFinishes) {
  auto clock = std::make_shared<ManualClock>();
  std::unique_ptr<Graph> g = NewGraphWithClock(clock);
  constexpr uint64_t kPeople = 5'000;  // 5 s of the clock: one line a millisecond.
  GeneratedPeople people(kPeople, *clock, 0, /*one_line_per_read=*/true);
  ReaderLines lines([&](char* b, size_t c) { return people.Read(b, c); }, "generated");
  std::vector<ProgressEvent> events;
  std::vector<std::string> phases;
  LoadOptions options;
  options.input_bytes = 400'000;
  // The generator's clock moves as lines are read, and the load reads kParseChunksAhead chunks
  // ahead of the records it adds: chunks of a line or so keep the two within a few milliseconds.
  options.limits.parse_chunk_bytes = 64;
  options.progress = [&](const ProgressEvent& e) {
    events.push_back(e);
    phases.emplace_back(e.phase);
  };
  Result<LoadResult> r = LoadFrom(*g, "main", lines, LoadMode::kAppend, options);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_GE(events.size(), 3u);
  EXPECT_EQ(phases.front(), "reading");
  EXPECT_TRUE(events.back().finished);
  EXPECT_EQ(events.back().done, kPeople);
  EXPECT_EQ(events.back().operation, "load");
  EXPECT_EQ(events.back().unit, "entities");
  uint64_t updates = 0;
  for (size_t i = 1; i < events.size(); ++i) {
    EXPECT_GE(events[i].done, events[i - 1].done);
    EXPECT_GE(events[i].bytes_done, events[i - 1].bytes_done);
    EXPECT_EQ(events[i].bytes_total, std::optional<uint64_t>(400'000));
    if (phases[i] == "reading" && phases[i - 1] == "reading") {
      ++updates;
      // The throttle: never two record updates within a tenth of a second.
      EXPECT_GE(events[i].elapsed_micros - events[i - 1].elapsed_micros, kProgressIntervalMicros);
    }
  }
  // Five seconds of reading: about fifty updates, never more than ten a second.
  EXPECT_GE(updates, 40u);
  EXPECT_LE(updates, 50u);
  EXPECT_NE(std::find(phases.begin(), phases.end(), "committing"), phases.end());
  EXPECT_EQ(std::count_if(events.begin(), events.end(), [](auto& e) { return e.finished; }), 1);
}

TEST(LoadProgressTest, ExportReportsEntitiesOfTheSnapshotsTotal) {
  auto clock = std::make_shared<ManualClock>();
  std::unique_ptr<Graph> g = NewGraphWithClock(clock);
  GeneratedPeople people(9'000, *clock);
  ReaderLines lines([&](char* b, size_t c) { return people.Read(b, c); }, "generated");
  ASSERT_TRUE(LoadFrom(*g, "main", lines, LoadMode::kAppend).ok());
  std::vector<ProgressEvent> events;
  ExportOptions options;
  options.progress = [&](const ProgressEvent& e) { events.push_back(e); };
  Result<Snapshot> s = g->SnapshotOfBranch("main");
  ASSERT_TRUE(s.ok());
  uint64_t lines_out = 0;
  ASSERT_TRUE(Export(*s, options, [&](std::string_view chunk) {
                clock->Advance(kProgressIntervalMicros);  // Each batch reports.
                lines_out += std::count(chunk.begin(), chunk.end(), '\n');
                return Status::Ok();
              }).ok());
  EXPECT_EQ(lines_out, 9'000u);
  // The phase, one update per batch of kExportBatchRows, the end.
  ASSERT_EQ(events.size(), 2 + (9'000 + kExportBatchRows - 1) / kExportBatchRows);
  for (const ProgressEvent& e : events) EXPECT_EQ(e.total, std::optional<uint64_t>(9'000));
  EXPECT_TRUE(events.back().finished);
  EXPECT_EQ(events.back().done, 9'000u);
  EXPECT_GT(events[events.size() - 2].done, 0u);
}

TEST(LoadStreamingTest, AnOverlongLineInAFileIsRefusedWithoutReadingAllOfIt) {
  storage::TempDir dir;
  const std::string path = dir.path() + "/long.jsonl";
  {
    std::ofstream out(path, std::ios::binary);
    out << R"({"type":"Person","data":{"name":"Ada"}})"
        << "\n";
    out << R"({"type":"Note","data":{"text":")" << std::string(kLoadLineBytesMax + 10, 'z')
        << "\"}}\n";
  }
  std::unique_ptr<Graph> g = NewGraph();
  Result<LoadResult> r = LoadFile(*g, "main", path, LoadMode::kAppend);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kResourceLimit);
  EXPECT_EQ(r.status().message(), "line 2: the line is longer than " +
                                      std::to_string(kLoadLineBytesMax) + " bytes, the limit");
}

// --- Constraints are the write path's; its messages name the input line.

constexpr std::string_view kConstrained = R"(
node Person {
  name: String @key
  age: I32?
  kind: enum(a, b)?
  email: String? @unique
  @range(age, 0..150)
}
edge Knows: Person -> Person @card(0..1)
)";

void ExpectConstraintRejected(std::string_view input, std::string_view message,
                              LoadMode mode = LoadMode::kAppend, LoadLimits limits = {}) {
  std::unique_ptr<Graph> g = NewGraph(kConstrained);
  ASSERT_TRUE(
      LoadJsonl(*g, "main", R"({"type":"Person","data":{"name":"Zed"}})", LoadMode::kAppend).ok());
  const std::string before = Head(*g);
  LoadOptions options;
  options.limits = limits;
  Result<LoadResult> r = Load(*g, "main", input, mode, options);
  ASSERT_FALSE(r.ok()) << input;
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument) << r.status().ToString();
  EXPECT_EQ(r.status().message(), message);
  EXPECT_EQ(Head(*g), before);
}

TEST(LoadConstraintTest, EnumRangeUniqueEndpointsAndCardNameTheLine) {
  ExpectConstraintRejected(
      "{\"type\":\"Person\",\"data\":{\"name\":\"Ada\"}}\n"
      "{\"type\":\"Person\",\"data\":{\"name\":\"Bob\",\"kind\":\"x\"}}",
      "line 2: invalid enum value 'x' for Person.kind (expected: a, b)");
  ExpectConstraintRejected("\n{\"type\":\"Person\",\"data\":{\"name\":\"Ada\",\"age\":200}}",
                           "line 2: @range violation on Person.age: value 200 > max 150");
  ExpectConstraintRejected(
      "{\"type\":\"Person\",\"data\":{\"name\":\"Ada\",\"email\":\"e\"}}\n"
      "{\"type\":\"Person\",\"data\":{\"name\":\"Bob\",\"email\":\"e\"}}",
      "line 2: @unique violation on Person.email: value 'e' held by 'Ada' and 'Bob'");
  ExpectConstraintRejected(
      "{\"type\":\"Person\",\"data\":{\"name\":\"Ada\"}}\n"
      "{\"edge\":\"Knows\",\"from\":\"Ada\",\"to\":\"Nobody\"}",
      "line 2: edge Knows to 'Nobody' not found in Person");
  ExpectConstraintRejected(
      "{\"edge\":\"Knows\",\"from\":\"Zed\",\"to\":\"Zed\"}\n"
      "{\"edge\":\"Knows\",\"from\":\"Zed\",\"to\":\"Zed\"}",
      "line 1: @card violation on edge Knows: source 'Zed' has 2 edges (max 1)");
}

TEST(LoadConstraintTest, EndpointsProbedOrSortedReportTheSameFirstMiss) {
  // Few node ids (probed in hash sets) and a 64-byte sort budget (sorted and merged): the same
  // row, the source side first on a tie, against added, base and overwritten nodes.
  const std::string people =
      "{\"type\":\"Person\",\"data\":{\"name\":\"Ada\"}}\n"
      "{\"type\":\"Person\",\"data\":{\"name\":\"Bob\"}}\n";
  for (const LoadLimits limits : {LoadLimits{}, LoadLimits{2, 1 << 20, 64}}) {
    ExpectConstraintRejected(people + "{\"edge\":\"Knows\",\"from\":\"Ada\",\"to\":\"Zed\"}\n" +
                                 "{\"edge\":\"Knows\",\"from\":\"Bob\",\"to\":\"Nobody\"}\n" +
                                 "{\"edge\":\"Knows\",\"from\":\"Ghost\",\"to\":\"Ada\"}",
                             "line 4: edge Knows to 'Nobody' not found in Person",
                             LoadMode::kAppend, limits);
    ExpectConstraintRejected(people + "{\"edge\":\"Knows\",\"from\":\"Ada\",\"to\":\"Bob\"}\n" +
                                 "{\"edge\":\"Knows\",\"from\":\"Ghost\",\"to\":\"Nobody\"}",
                             "line 4: edge Knows from 'Ghost' not found in Person",
                             LoadMode::kAppend, limits);
    // An overwrite of the people replaces the base: Zed is gone.
    ExpectConstraintRejected(people + "{\"edge\":\"Knows\",\"from\":\"Ada\",\"to\":\"Zed\"}",
                             "line 3: edge Knows to 'Zed' not found in Person",
                             LoadMode::kOverwrite, limits);
  }
}

TEST(LoadConstraintTest, LinesStayRightAcrossBatchesAndSupersededRows) {
  std::string input;
  for (int i = 0; i < 9; ++i) {
    input += R"({"type":"Person","data":{"name":"p)" + std::to_string(i % 4) + R"(","age":)" +
             std::to_string(i) + "}}\n";
  }
  input += R"({"type":"Person","data":{"name":"p9","kind":"c"}})";
  // The batches kept for validation, and none kept (every fragment read back): the same line.
  for (uint64_t kept : {kLoadKeptBytes, uint64_t{0}}) {
    ExpectConstraintRejected(input,
                             "line 10: invalid enum value 'c' for Person.kind (expected: a, b)",
                             LoadMode::kMerge, LoadLimits{2, 1 << 20, 64, kept});
  }
}

TEST(LoadConstraintTest, CrossBatchViolationsNameTheirLineWhenTheSortsSpill) {
  // Batches of two rows and a 64-byte sort budget: every check that crosses batches works from
  // runs in temporary files.
  const LoadLimits tiny{2, 1 << 20, 64};
  auto people_upto = [](int n) {
    std::string out;
    for (int i = 0; i < n; ++i) {
      out += R"({"type":"Person","data":{"name":"p)" + std::to_string(i) + R"(","email":"e)" +
             std::to_string(i) + "\"}}\n";
    }
    return out;
  };
  const std::string people = people_upto(7);
  ExpectConstraintRejected(people + R"({"type":"Person","data":{"name":"q","email":"e3"}})",
                           "line 8: @unique violation on Person.email: value 'e3' held by 'p3' "
                           "and 'q'",
                           LoadMode::kAppend, tiny);
  ExpectConstraintRejected(people + R"({"type":"Person","data":{"name":"q","email":"z"}})" + "\n" +
                               R"({"edge":"Knows","from":"p1","to":"p2"})" + "\n" +
                               R"({"edge":"Knows","from":"q","to":"Nobody"})" + "\n" +
                               R"({"edge":"Knows","from":"p5","to":"q"})",
                           "line 10: edge Knows to 'Nobody' not found in Person", LoadMode::kAppend,
                           tiny);
  ExpectConstraintRejected(people + R"({"edge":"Knows","from":"p1","to":"p2"})" + "\n" +
                               R"({"edge":"Knows","from":"p2","to":"p3"})" + "\n" +
                               R"({"edge":"Knows","from":"p4","to":"p3"})" + "\n" +
                               R"({"edge":"Knows","from":"p2","to":"Zed"})",
                           "line 9: @card violation on edge Knows: source 'p2' has 2 edges (max 1)",
                           LoadMode::kAppend, tiny);
  // Against the base: p5 (an earlier load) holds e5 when a new row claims it.
  std::unique_ptr<Graph> g = NewGraph(kConstrained);
  ASSERT_TRUE(LoadJsonl(*g, "main", people, LoadMode::kAppend).ok());
  std::string before = Head(*g);
  LoadOptions options;
  options.limits = tiny;
  Result<LoadResult> r = Load(*g, "main",
                              R"({"type":"Person","data":{"name":"r1","email":"x"}})"
                              "\n"
                              R"({"type":"Person","data":{"name":"r2","email":"y"}})"
                              "\n"
                              R"({"type":"Person","data":{"name":"r3","email":"e5"}})",
                              LoadMode::kAppend, options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "line 3: @unique violation on Person.email: value 'e5' held by 'p5' and 'r3'");
  EXPECT_EQ(Head(*g), before);
}

TEST(LoadConstraintTest, OverwriteThatLeavesEdgesDanglingIsRefused) {
  std::unique_ptr<Graph> g = NewGraph(kConstrained);
  ASSERT_TRUE(LoadJsonl(*g, "main",
                        "{\"type\":\"Person\",\"data\":{\"name\":\"Ada\"}}\n"
                        "{\"type\":\"Person\",\"data\":{\"name\":\"Bob\"}}\n"
                        "{\"edge\":\"Knows\",\"from\":\"Ada\",\"to\":\"Bob\",\"id\":\"k\"}",
                        LoadMode::kAppend)
                  .ok());
  const std::string before = Head(*g);
  // With the default sort budget (hash probe) and a 64-byte one (sorted runs merged).
  for (uint64_t sort_bytes : {kSorterMemoryBytes, uint64_t{64}}) {
    LoadOptions options;
    options.limits.sort_bytes = sort_bytes;
    Result<LoadResult> r = Load(*g, "main", "{\"type\":\"Person\",\"data\":{\"name\":\"Ada\"}}",
                                LoadMode::kOverwrite, options);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().message(),
              "line 1: cannot remove Person 'Bob': edge Knows 'k' still references it");
    EXPECT_EQ(Head(*g), before);
  }
}

// Issue 23 item 4: a load that takes a source's last edge away — merge moving the edge to another
// source, overwrite leaving it out — is refused against @card min; append only adds. Each with the
// default sort budget and a 64-byte one (every sort spills, every join merges).
TEST(LoadConstraintTest, ASourceLosingItsLastEdgeIsCheckedAgainstMinInEveryMode) {
  constexpr std::string_view kMentors = R"(
node Person { name: String @key }
edge Mentors: Person -> Person @card(1..)
)";
  for (uint64_t sort_bytes : {kSorterMemoryBytes, uint64_t{64}}) {
    SCOPED_TRACE(sort_bytes);
    std::unique_ptr<Graph> g = NewGraph(kMentors);
    ASSERT_TRUE(LoadJsonl(*g, "main",
                          "{\"type\":\"Person\",\"data\":{\"name\":\"Ada\"}}\n"
                          "{\"type\":\"Person\",\"data\":{\"name\":\"Bob\"}}\n"
                          "{\"type\":\"Person\",\"data\":{\"name\":\"Cy\"}}\n"
                          "{\"edge\":\"Mentors\",\"from\":\"Ada\",\"to\":\"Bob\",\"id\":\"m1\"}\n"
                          "{\"edge\":\"Mentors\",\"from\":\"Bob\",\"to\":\"Cy\",\"id\":\"m2\"}",
                          LoadMode::kAppend)
                    .ok());
    const std::string before = Head(*g);
    LoadOptions options;
    options.limits.sort_bytes = sort_bytes;
    auto load = [&](std::string_view input, LoadMode mode) {
      return Load(*g, "main", input, mode, options);
    };
    // Merge moves m1 from Ada to Cy (line 2; line 1 is a new edge of Bob's).
    Result<LoadResult> r = load(
        "{\"edge\":\"Mentors\",\"from\":\"Bob\",\"to\":\"Ada\",\"id\":\"m3\"}\n"
        "{\"edge\":\"Mentors\",\"from\":\"Cy\",\"to\":\"Bob\",\"id\":\"m1\"}",
        LoadMode::kMerge);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().message(),
              "line 2: @card violation on edge Mentors: source 'Ada' has 0 edges (min 1)");
    // Overwrite of the edges without Ada's.
    r = load("{\"edge\":\"Mentors\",\"from\":\"Bob\",\"to\":\"Cy\",\"id\":\"m2\"}",
             LoadMode::kOverwrite);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().message(),
              "line 1: @card violation on edge Mentors: source 'Ada' has 0 edges (min 1)");
    EXPECT_EQ(Head(*g), before);
    // Appending never lowers a count; Cy (no edge before) is not checked.
    ASSERT_TRUE(load("{\"edge\":\"Mentors\",\"from\":\"Ada\",\"to\":\"Cy\",\"id\":\"m4\"}",
                     LoadMode::kAppend)
                    .ok());
    // Now Ada has two: moving one away is fine. An overwrite of both types that drops Ada
    // with her edges is fine too.
    ASSERT_TRUE(load("{\"edge\":\"Mentors\",\"from\":\"Cy\",\"to\":\"Bob\",\"id\":\"m1\"}",
                     LoadMode::kMerge)
                    .ok());
    r = load(
        "{\"type\":\"Person\",\"data\":{\"name\":\"Bob\"}}\n"
        "{\"type\":\"Person\",\"data\":{\"name\":\"Cy\"}}\n"
        "{\"edge\":\"Mentors\",\"from\":\"Bob\",\"to\":\"Cy\",\"id\":\"m2\"}\n"
        "{\"edge\":\"Mentors\",\"from\":\"Cy\",\"to\":\"Bob\",\"id\":\"m1\"}",
        LoadMode::kOverwrite);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
}

// --- One test per format-level validation, with its exact message.

constexpr std::string_view kAda = R"({"type":"Person","data":{"name":"Ada"}})"
                                  "\n";

TEST(LoadValidationTest, InvalidJsonNamesTheLine) {
  ExpectRejected(std::string(kAda) + "{\"type\":",
                 "line 2: invalid JSON: JSON document ended early in the middle of an object or "
                 "array.");
}

TEST(LoadValidationTest, TextThatIsNotUtf8NamesTheLineAndTheByte) {
  // A Latin-1 value, and a Latin-1 property name: simdjson checks the whole line first.
  ExpectRejected(std::string(kAda) + "{\"type\":\"Note\",\"data\":{\"text\":\"caf\xe9\"}}",
                 "line 2: the line is not valid UTF-8 (byte 0xe9 at offset 34)");
  ExpectRejected("{\"type\":\"Note\",\"data\":{\"t\xe9xt\":\"a\"}}",
                 "line 1: the line is not valid UTF-8 (byte 0xe9 at offset 25)");
  // An escape that decodes to no character (a lone surrogate) is refused by the JSON reader.
  ExpectRejected(R"({"type":"Note","data":{"text":"\ud800"}})",
                 "line 1: invalid JSON: Problem while parsing a string");
}

TEST(LoadValidationTest, TrailingContentAfterTheObject) {
  ExpectRejected(R"({"type":"Note","data":{"text":"a"}} {"type":"Note"})",
                 "line 1: invalid JSON: content after the record's object");
}

TEST(LoadValidationTest, RecordMustBeAnObject) {
  ExpectRejected("[1, 2]", "line 1: graph batch record must be one JSON object");
}

TEST(LoadValidationTest, DuplicateTopLevelMember) {
  ExpectRejected(R"({"type":"Note","type":"Note","data":{"text":"a"}})",
                 "line 1: duplicate JSON member 'type'");
}

TEST(LoadValidationTest, DuplicateDataMember) {
  ExpectRejected(R"({"type":"Note","data":{"text":"a","text":"b"}})",
                 "line 1: duplicate JSON member 'text'");
}

TEST(LoadValidationTest, UnknownNodeType) {
  ExpectRejected(R"({"type":"Robot","data":{}})", "line 1: unknown node type 'Robot'");
}

TEST(LoadValidationTest, UnknownEdgeType) {
  ExpectRejected(std::string(kAda) + "\n" + R"({"edge":"Likes","from":"Ada","to":"Ada"})",
                 "line 3: unknown edge type 'Likes'");
}

TEST(LoadValidationTest, UnknownProperty) {
  ExpectRejected(R"({"type":"Person","data":{"name":"Ada","nick":"A"}})",
                 "line 1: unknown input field 'nick' for 'node:Person'");
}

TEST(LoadValidationTest, ReservedDataField) {
  ExpectRejected(R"({"type":"Person","data":{"name":"Ada","_rowid":1}})",
                 "line 1: input field '_rowid' is reserved physical state");
  ExpectRejected(R"({"type":"Person","data":{"name":"Ada","_tombstone":true}})",
                 "line 1: input field '_tombstone' is reserved physical state");
}

TEST(LoadValidationTest, ReservedTopLevelField) {
  ExpectRejected(R"({"type":"Person","_tombstone":true,"data":{"name":"Ada"}})",
                 "line 1: top-level field '_tombstone' is reserved physical state");
}

TEST(LoadValidationTest, UnknownTopLevelField) {
  ExpectRejected(R"({"type":"Person","data":{"name":"Ada"},"extra":1})",
                 "line 1: unknown top-level graph batch field 'extra'");
  ExpectRejected(R"({"type":"Person","from":"x","data":{"name":"Ada"}})",
                 "line 1: unknown top-level graph batch field 'from'");
}

TEST(LoadValidationTest, ExactlyOneOfTypeOrEdge) {
  ExpectRejected(R"({"data":{"name":"Ada"}})",
                 "line 1: graph batch record must contain exactly one of 'type' or 'edge'");
  ExpectRejected(R"({"type":"Person","edge":"Knows","from":"a","to":"b"})",
                 "line 1: graph batch record must contain exactly one of 'type' or 'edge'");
}

TEST(LoadValidationTest, EdgeNeedsFromAndToStrings) {
  ExpectRejected(std::string(kAda) + R"({"edge":"Knows","to":"Ada"})",
                 "line 2: graph batch record requires field 'from'");
  ExpectRejected(std::string(kAda) + R"({"edge":"Knows","from":"Ada"})",
                 "line 2: graph batch record requires field 'to'");
  ExpectRejected(std::string(kAda) + R"({"edge":"Knows","from":5,"to":"Ada"})",
                 "line 2: graph batch field 'from' must be a string, got 5");
  ExpectRejected(R"({"type":7})", "line 1: graph batch field 'type' must be a string, got 7");
}

TEST(LoadValidationTest, DataMustBeAnObject) {
  ExpectRejected(R"({"type":"Note","data":[1]})",
                 "line 1: graph batch field 'data' must be an object, got [1]");
}

TEST(LoadValidationTest, NestedObjectInData) {
  ExpectRejected(R"({"type":"Note","data":{"text":{"a":1}}})",
                 "line 1: data field 'text' holds a nested JSON object or array, which no "
                 "property type accepts");
}

TEST(LoadValidationTest, SrcOrDstInEdgeData) {
  ExpectRejected(
      std::string(kAda) + R"({"edge":"Knows","from":"Ada","to":"Ada","data":{"src":"x"}})",
      "line 2: edge data field 'src' is reserved structural state");
  ExpectRejected(
      std::string(kAda) + R"({"edge":"Knows","from":"Ada","to":"Ada","data":{"dst":"x"}})",
      "line 2: edge data field 'dst' is reserved structural state");
}

TEST(LoadValidationTest, NonStringId) {
  ExpectRejected(R"({"type":"Note","data":{"id":5,"text":"a"}})",
                 "line 1: input entity of type 'Note' field 'id' must be a string, got 5");
  ExpectRejected(R"({"type":"Note","id":null,"data":{"text":"a"}})",
                 "line 1: input entity of type 'Note' field 'id' must be a string, got null");
}

TEST(LoadValidationTest, IdGivenTwice) {
  ExpectRejected(R"({"type":"Note","id":"a","data":{"id":"a","text":"a"}})",
                 "line 1: id given both at the top level and in 'data'; give one");
}

TEST(LoadValidationTest, KeyedNodeIdDiffersFromDerivedId) {
  ExpectRejected(R"({"type":"Person","data":{"id":"Bob","name":"Ada"}})",
                 "line 1: node Person explicit id 'Bob' does not match its canonical @key id "
                 "'Ada'");
  ExpectRejected(R"({"type":"Pair","id":"acme","data":{"a":"acme","b":42}})",
                 "line 1: node Pair explicit id 'acme' does not match its canonical @key id "
                 "'[\"acme\",\"42\"]'");
}

TEST(LoadValidationTest, MissingKeyValue) {
  ExpectRejected(R"({"type":"Person","data":{"age":3}})",
                 "line 1: property 'name' of node:Person: null is not allowed for String");
}

TEST(LoadValidationTest, MissingRequiredProperty) {
  ExpectRejected(R"({"type":"Note","data":{}})",
                 "line 1: property 'text' of node:Note: null is not allowed for String");
}

TEST(LoadValidationTest, ValueOfTheWrongKind) {
  ExpectRejected(R"({"type":"Person","data":{"name":"Ada","age":true}})",
                 "line 1: property 'age' of node:Person: expected I32?, got bool true");
  ExpectRejected(R"({"type":"Person","data":{"name":"Ada","tags":"x"}})",
                 "line 1: property 'tags' of node:Person: expected [String]?, got string \"x\"");
}

TEST(LoadValidationTest, IntegerOutOfRange) {
  ExpectRejected(R"({"type":"Person","data":{"name":"Ada","age":5000000000}})",
                 "line 1: property 'age' of node:Person: value 5000000000 is out of range for I32");
  ExpectRejected(R"({"type":"Person","data":{"name":"Ada","big":-1}})",
                 "line 1: property 'big' of node:Person: value -1 is out of range for U64");
}

TEST(LoadValidationTest, InvalidIntegerString) {
  ExpectRejected(R"({"type":"Person","data":{"name":"Ada","age":"12x"}})",
                 "line 1: property 'age' of node:Person: invalid integer literal '12x'");
}

TEST(LoadValidationTest, InvalidDateLiteral) {
  ExpectRejected(R"({"type":"Person","data":{"name":"Ada","born":"2020-13-01"}})",
                 "line 1: property 'born' of node:Person: invalid Date literal '2020-13-01'");
  ExpectRejected(R"({"type":"Person","data":{"name":"Ada","born":"2020-01-01T10:00:00Z"}})",
                 "line 1: property 'born' of node:Person: invalid Date literal "
                 "'2020-01-01T10:00:00Z'");
}

TEST(LoadValidationTest, InvalidDateTimeLiteral) {
  ExpectRejected(R"({"type":"Person","data":{"name":"Ada","seen":"yesterday"}})",
                 "line 1: property 'seen' of node:Person: invalid DateTime literal 'yesterday'");
}

TEST(LoadValidationTest, ExternalBlobUriIsRefused) {
  ExpectRejected(R"({"type":"Person","data":{"name":"Ada","photo":"https://x/y.png"}})",
                 "line 1: property 'photo' of node:Person: external blob URI 'https://x/y.png' "
                 "is not allowed: new external Blob URI ingress is denied for this graph");
  ExpectRejected(R"({"type":"Person","data":{"name":"Ada","photo":"base64:a$"}})",
                 "line 1: property 'photo' of node:Person: invalid base64 blob data: invalid "
                 "base64 character at offset 1");
}

TEST(LoadValidationTest, SameIdTwiceInAnAppendIsAKeyConflict) {
  ExpectRejected(std::string(kAda) + "\n" + std::string(kAda),
                 "line 3: id 'Ada' of node:Person was already given on line 1", LoadMode::kAppend,
                 Code::kKeyConflict);
}

TEST(LoadValidationTest, OverlongLineIsAResourceLimit) {
  std::string input = std::string(kAda) + R"({"type":"Note","data":{"text":")";
  input.append(kLoadLineBytesMax, 'x');
  input += "\"}}";
  ExpectRejected(
      input,
      "line 2: the line is longer than " + std::to_string(kLoadLineBytesMax) + " bytes, the limit",
      LoadMode::kAppend, Code::kResourceLimit);
}

TEST(LoadValidationTest, LaterErrorsStillPublishNothing) {
  std::string input;
  for (int i = 0; i < 100; ++i) {
    input += R"({"type":"Note","data":{"text":"n)" + std::to_string(i) + "\"}}\n";
  }
  input += R"({"type":"Note","data":{"text":1}})";
  ExpectRejected(input, "line 101: property 'text' of node:Note: expected String, got int 1");
}

}  // namespace
}  // namespace omnigraph::engine
