// Mutation queries as single commits (docs/design/engine.md "Mutations").
#include "engine/write/mutate.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "base/ids.h"
#include "commit/names.h"
#include "commit/stream.h"
#include "engine/ops/export.h"
#include "engine/ops/load.h"
#include "engine/read/query.h"
#include "query/exec/column_codec.h"
#include "storage/counting_store.h"
#include "storage/local_store.h"
#include "storage/memory_store.h"
#include "storage/test_util.h"
#include "table/table_manifest.h"

namespace omnigraph::engine {
namespace {

using schema::Value;
using Params = std::map<std::string, Value>;

constexpr std::string_view kSchema = R"(
node Person { name: String @key  age: I32?  title: String?  tags: [String]? }
node Company { name: String @key }
node Memo { text: String }
edge WorksAt: Person -> Company { role: String? }
edge Knows: Person -> Person { }
edge About: Memo -> Person { }
)";

constexpr std::string_view kQueries = R"(
query add_person($name: String, $age: I32) { insert Person { name: $name, age: $age } }
query add_company($name: String) { insert Company { name: $name } }
query hire($p: String, $c: String, $role: String) {
  insert WorksAt { from: $p, to: $c, role: $role }
}
query knows($a: String, $b: String) { insert Knows { from: $a, to: $b } }
query memo($text: String, $about: String) {
  insert Memo { text: $text }
}
query about($m: String, $p: String) { insert About { from: $m, to: $p } }
query add_and_title($name: String, $title: String) {
  insert Person { name: $name, age: 1 }
  update Person set { title: $title } where name = $name
}
query retitle($name: String, $title: String) { update Person set { title: $title } where name = $name }
query older($min: I32, $title: String) { update Person set { title: $title } where age >= $min }
query rename($old: String, $new: String) { update Person set { name: $new } where name = $old }
query remove($name: String) { delete Person where name = $name }
query unhire($p: String) { delete WorksAt where from = $p }
query mixed($name: String) {
  insert Person { name: $name }
  delete Person where name = $name
}
query young($max: I32, $title: String) { update Person set { title: $title } where age < $max }
)";

class MutateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    counting_ = std::make_shared<storage::CountingStore>(std::make_shared<storage::MemoryStore>());
    Result<std::unique_ptr<Graph>> g =
        Graph::Init(storage::Runtime::ForTest(counting_, 3), kSchema);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    graph_ = std::move(*g);
  }

  Result<MutationResult> Run(std::string_view name, Params params, MutationOptions options = {}) {
    return Mutate(*graph_, kQueries, name, params, options);
  }
  MutationResult MustRun(std::string_view name, Params params) {
    Result<MutationResult> r = Run(name, std::move(params));
    OMNIGRAPH_CHECK_MSG(r.ok(), std::string(name) + ": " + r.status().ToString());
    return *r;
  }

  uint64_t Seq() { return graph_->SnapshotOfBranch("main")->state().seq; }

  // Every row of `key` at the head: id -> (src, dst, property values by name).
  struct Row {
    std::string src, dst;
    std::map<std::string, Value> props;
  };
  std::map<std::string, Row> Rows(std::string_view key) {
    Snapshot s = *graph_->SnapshotOfBranch("main");
    const schema::TypeDef& type = *s.catalog().FindByTableKey(key);
    std::shared_ptr<const table::TableVersion> t = *s.Table(key);
    std::map<std::string, Row> out;
    Status scanned = t->Scan({}, [&](table::ColumnBatch b) -> Status {
      for (uint64_t r = 0; r < b.num_rows(); ++r) {
        Row row;
        if (const table::Column* c = b.FindColumn(table::kSrcFieldId)) row.src = c->StringAt(r);
        if (const table::Column* c = b.FindColumn(table::kDstFieldId)) row.dst = c->StringAt(r);
        for (const schema::PropertyDef& p : type.properties) {
          const table::Column* c = b.FindColumn(static_cast<uint32_t>(p.id));
          row.props[p.name] = c ? query::ValueAt(*c, r) : Value::Null();
        }
        out[std::string(b.FindColumn(table::kIdFieldId)->StringAt(r))] = row;
      }
      return Status::Ok();
    });
    OMNIGRAPH_CHECK(scanned.ok());
    return out;
  }

  void Seed() {
    for (auto [name, age] :
         std::vector<std::pair<const char*, int>>{{"ada", 36}, {"bob", 41}, {"cy", 20}}) {
      MustRun("add_person", {{"name", Value::String(name)}, {"age", Value::Int(age)}});
    }
    MustRun("add_company", {{"name", Value::String("acme")}});
    MustRun("hire", {{"p", Value::String("ada")},
                     {"c", Value::String("acme")},
                     {"role", Value::String("cto")}});
    MustRun("knows", {{"a", Value::String("ada")}, {"b", Value::String("bob")}});
    MustRun("knows", {{"a", Value::String("bob")}, {"b", Value::String("ada")}});
    MustRun("knows", {{"a", Value::String("cy")}, {"b", Value::String("bob")}});
  }

  std::shared_ptr<storage::CountingStore> counting_;
  std::unique_ptr<Graph> graph_;
};

TEST_F(MutateTest, KeyedInsertIsAnUpsertThatReplacesTheWholeRow) {
  MutationResult r =
      MustRun("add_person", {{"name", Value::String("ada")}, {"age", Value::Int(36)}});
  EXPECT_EQ(r.affected_nodes, 1u);
  EXPECT_EQ(r.affected_edges, 0u);
  ASSERT_TRUE(r.commit.has_value());
  EXPECT_EQ(Seq(), 1u);
  MustRun("retitle", {{"name", Value::String("ada")}, {"title", Value::String("dr")}});
  EXPECT_EQ(Rows("node:Person")["ada"].props["title"], Value::String("dr"));
  // Re-inserting the same key replaces the row: the omitted title becomes null.
  MustRun("add_person", {{"name", Value::String("ada")}, {"age", Value::Int(37)}});
  std::map<std::string, Row> people = Rows("node:Person");
  ASSERT_EQ(people.size(), 1u);
  EXPECT_EQ(people["ada"].props["age"], Value::Int(37));
  EXPECT_TRUE(people["ada"].props["title"].is_null());
}

// File headers that tune the reference's internals are accepted and ignored with a warning; a
// mutation returns those warnings (they were once dropped), a keyed retry that replays its
// record too, and a source without such headers has none.
TEST_F(MutateTest, IgnoredHeadersWarnInTheResult) {
  const std::string source =
      "set ann_nprobes = 4;\nset traversal_work_limit = 10;\nset history_release_bytes = 1;\n"
      "query add($name: String) { insert Person { name: $name, age: 1 } }";
  const Params params{{"name", Value::String("zed")}};
  Result<MutationResult> r = Mutate(*graph_, source, "add", params);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->affected_nodes, 1u);
  ASSERT_EQ(r->warnings.size(), 2u);
  EXPECT_TRUE(r->warnings[0].starts_with("1:1: Q003: setting `ann_nprobes` tunes"))
      << r->warnings[0];
  EXPECT_TRUE(r->warnings[1].starts_with("3:1: Q003: setting `history_release_bytes`"))
      << r->warnings[1];
  MutationOptions keyed;
  keyed.idempotency = Idempotency{"k1", "h1", Json::object()};
  ASSERT_TRUE(Mutate(*graph_, source, "add", params, keyed).ok());
  Result<MutationResult> replayed = Mutate(*graph_, source, "add", params, keyed);
  ASSERT_TRUE(replayed.ok()) << replayed.status().ToString();
  EXPECT_EQ(replayed->warnings, r->warnings);
  EXPECT_TRUE(MustRun("add_person", {{"name", Value::String("ada")}, {"age", Value::Int(1)}})
                  .warnings.empty());
}

TEST_F(MutateTest, UnkeyedNodesAndEdgesGetFreshUlids) {
  Seed();
  MustRun("memo", {{"text", Value::String("hello")}, {"about", Value::String("ada")}});
  MustRun("memo", {{"text", Value::String("hello")}, {"about", Value::String("ada")}});
  std::map<std::string, Row> memos = Rows("node:Memo");
  ASSERT_EQ(memos.size(), 2u);  // Same values, two entities.
  for (const auto& [id, row] : memos) {
    EXPECT_TRUE(Ulid::Parse(id).ok()) << id;
    MustRun("about", {{"m", Value::String(id)}, {"p", Value::String("ada")}});
  }
  std::map<std::string, Row> abouts = Rows("edge:About");
  ASSERT_EQ(abouts.size(), 2u);
  for (const auto& [id, row] : abouts) {
    EXPECT_TRUE(Ulid::Parse(id).ok()) << id;
    EXPECT_TRUE(memos.contains(row.src));
    EXPECT_EQ(row.dst, "ada");
  }
  std::map<std::string, Row> works = Rows("edge:WorksAt");
  ASSERT_EQ(works.size(), 1u);
  EXPECT_EQ(works.begin()->second.src, "ada");
  EXPECT_EQ(works.begin()->second.dst, "acme");
  EXPECT_EQ(works.begin()->second.props["role"], Value::String("cto"));
}

TEST_F(MutateTest, UpdateSetsPropertiesOfEveryMatchingRowAndKeysAreImmutable) {
  Seed();
  MutationResult r =
      MustRun("older", {{"min", Value::Int(36)}, {"title", Value::String("senior")}});
  EXPECT_EQ(r.affected_nodes, 2u);
  std::map<std::string, Row> people = Rows("node:Person");
  EXPECT_EQ(people["ada"].props["title"], Value::String("senior"));
  EXPECT_EQ(people["bob"].props["title"], Value::String("senior"));
  EXPECT_TRUE(people["cy"].props["title"].is_null());
  EXPECT_EQ(people["ada"].props["age"], Value::Int(36));  // Untouched properties stay.
  MustRun("young", {{"max", Value::Int(36)}, {"title", Value::String("junior")}});
  EXPECT_EQ(Rows("node:Person")["cy"].props["title"], Value::String("junior"));
  EXPECT_EQ(Rows("node:Person")["ada"].props["title"], Value::String("senior"));
  const uint64_t seq = Seq();
  Result<MutationResult> rename =
      Run("rename", {{"old", Value::String("ada")}, {"new", Value::String("ava")}});
  ASSERT_FALSE(rename.ok());
  EXPECT_EQ(rename.status().kind(), Kind::kInvalidArgument);
  EXPECT_NE(rename.status().message().find("cannot update @key property `name`"), std::string::npos)
      << rename.status().message();
  EXPECT_EQ(Seq(), seq);
}

TEST_F(MutateTest, StatementsSeeEarlierStatementsOfTheSameQuery) {
  MutationResult r =
      MustRun("add_and_title", {{"name", Value::String("dee")}, {"title", Value::String("boss")}});
  EXPECT_EQ(r.affected_nodes, 2u);  // One insert, one update of the inserted row.
  EXPECT_EQ(Seq(), 1u);             // One commit.
  std::map<std::string, Row> people = Rows("node:Person");
  ASSERT_EQ(people.size(), 1u);
  EXPECT_EQ(people["dee"].props["title"], Value::String("boss"));
  EXPECT_EQ(people["dee"].props["age"], Value::Int(1));
}

TEST_F(MutateTest, NodeDeleteCascadesToIncidentEdgesOfEveryType) {
  Seed();
  MutationResult r = MustRun("remove", {{"name", Value::String("ada")}});
  EXPECT_EQ(r.affected_nodes, 1u);
  EXPECT_EQ(r.affected_edges, 3u);  // WorksAt ada->acme, Knows ada->bob, Knows bob->ada.
  EXPECT_FALSE(Rows("node:Person").contains("ada"));
  EXPECT_TRUE(Rows("edge:WorksAt").empty());
  std::map<std::string, Row> knows = Rows("edge:Knows");
  ASSERT_EQ(knows.size(), 1u);
  EXPECT_EQ(knows.begin()->second.src, "cy");
  // Edge deletes by endpoint.
  MustRun("hire",
          {{"p", Value::String("bob")}, {"c", Value::String("acme")}, {"role", Value::Null()}});
  EXPECT_EQ(MustRun("unhire", {{"p", Value::String("bob")}}).affected_edges, 1u);
  EXPECT_TRUE(Rows("edge:WorksAt").empty());
}

TEST_F(MutateTest, ZeroAffectedRowsPublishNothing) {
  Seed();
  const uint64_t seq = Seq();
  MutationResult r = MustRun("remove", {{"name", Value::String("nobody")}});
  EXPECT_EQ(r.affected_nodes, 0u);
  EXPECT_FALSE(r.commit.has_value());
  EXPECT_EQ(Seq(), seq);
}

// The write path's cost on a warm Graph: the mutation's read of the head is one existence check
// of the next record (the warm handle holds the head); planning and validation read the touched
// table's version as the previous write left it, which is not cached yet: its manifest and its
// new fragment (2 GETs; every older object is cached); staging creates the new version's
// fragment and manifest while the gap guard HEADs the record two seqs up (D21); publishing
// creates the record (3 creates), HEADs the seq above it once more (the placement check: a record
// published there meanwhile on another parent would put ours in a gap) and puts the hint. The write
// captures the head the mutation read, so it reads nothing more. Before the write path was one line
// (name lookup and a cold read per mutation, a second capture in the write) the same insert cost 15
// GETs and the update 17.
TEST_F(MutateTest, AWarmMutationIsThreeGetsTwoHeadsThreeCreatesAndTheHint) {
  Seed();
  MustRun("add_person", {{"name", Value::String("dee")}, {"age", Value::Int(30)}});
  const storage::OpCounts before = counting_->Snapshot();
  MustRun("add_person", {{"name", Value::String("eve")}, {"age", Value::Int(31)}});
  const storage::OpCounts insert = counting_->Snapshot() - before;
  EXPECT_EQ(insert.gets, 3u) << insert.ToString();
  EXPECT_EQ(insert.heads, 2u) << insert.ToString();
  EXPECT_EQ(insert.lists + insert.deletes + insert.put_if_match, 0u) << insert.ToString();
  EXPECT_EQ(insert.put_if_absent, 3u) << insert.ToString();
  EXPECT_EQ(insert.puts, 1u) << insert.ToString();
  // A strict update of existing rows costs the same: it plans on the head it read and
  // publishes from it.
  const storage::OpCounts mid = counting_->Snapshot();
  MustRun("young", {{"max", Value::Int(25)}, {"title", Value::String("junior")}});
  const storage::OpCounts update = counting_->Snapshot() - mid;
  EXPECT_EQ(update.gets, 3u) << update.ToString();
  EXPECT_EQ(update.heads, 2u) << update.ToString();
  EXPECT_EQ(update.lists + update.deletes + update.put_if_match, 0u) << update.ToString();
  EXPECT_EQ(update.put_if_absent, 3u) << update.ToString();
  EXPECT_EQ(update.puts, 1u) << update.ToString();
}

TEST_F(MutateTest, MixingInsertsAndDeletesIsRefusedBeforeAnyIo) {
  const storage::OpCounts before = counting_->Snapshot();
  Result<MutationResult> r = Run("mixed", {{"name", Value::String("x")}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "mutation 'mixed' on the same query mixes inserts/updates and deletes; split into "
            "separate mutations: (1) inserts and updates, then (2) deletes");
  const storage::OpCounts after = counting_->Snapshot();
  EXPECT_EQ(after.gets + after.heads + after.lists + after.put_if_absent + after.puts,
            before.gets + before.heads + before.lists + before.put_if_absent + before.puts);
}

TEST_F(MutateTest, FailedValidationLeavesNothingVisible) {
  Seed();
  const uint64_t seq = Seq();
  const uint64_t creates = counting_->Snapshot().put_if_absent;
  // Endpoint missing.
  Result<MutationResult> r =
      Run("hire",
          {{"p", Value::String("ada")}, {"c", Value::String("nowhere")}, {"role", Value::Null()}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "edge:WorksAt row 0: edge WorksAt to 'nowhere' not found in Company");
  // Missing parameter, wrong parameter type.
  r = Run("add_person", {{"name", Value::String("x")}});
  EXPECT_EQ(r.status().message(), "missing value for parameter $age");
  r = Run("add_person", {{"name", Value::String("x")}, {"age", Value::String("old")}});
  EXPECT_EQ(r.status().kind(), Kind::kInvalidArgument);
  // Unknown query; a read query.
  EXPECT_EQ(Run("nope", {}).status().kind(), Kind::kInvalidArgument);
  EXPECT_EQ(Seq(), seq);
  EXPECT_EQ(counting_->Snapshot().put_if_absent, creates);
  EXPECT_EQ(Rows("edge:WorksAt").size(), 1u);
}

TEST_F(MutateTest, ExpectedHeadPreconditionAndPerTypeEntityLimit) {
  Seed();
  MutationOptions stale;
  stale.expected_head = "main.1.0000000000";
  Result<MutationResult> r = Run("remove", {{"name", Value::String("ada")}}, stale);
  EXPECT_EQ(r.status().code(), Code::kPreconditionFailed);
  MutationOptions current;
  current.expected_head = graph_->SnapshotOfBranch("main")->commit_id();
  r = Run("retitle", {{"name", Value::String("ada")}, {"title", Value::String("t")}}, current);
  ASSERT_TRUE(r.ok()) << r.status().ToString();

  // 8,193 people with one age: updating them all is past the per-type limit.
  Snapshot s = *graph_->SnapshotOfBranch("main");
  const schema::TypeDef& person = *s.catalog().FindNode("Person");
  query::RowsBuilder b = *query::RowsBuilder::Make(person);
  for (uint64_t i = 0; i <= kMutationEntitiesMax; ++i) {
    std::vector<std::optional<Value>> v(person.properties.size());
    std::string name = "bulk" + std::to_string(i);
    for (size_t p = 0; p < v.size(); ++p) {
      if (person.properties[p].name == "name") v[p] = Value::String(name);
      if (person.properties[p].name == "age") v[p] = Value::Int(99);
    }
    ASSERT_TRUE(b.Append(name, "", "", v).ok());
  }
  WriteRequest w;
  w.changes["node:Person"] = TableChange{TableChange::Op::kAppend, *b.Finish(), {}};
  ASSERT_TRUE(Write(*graph_, w).ok());
  const uint64_t seq = Seq();
  r = Run("older", {{"min", Value::Int(99)}, {"title", Value::String("bulk")}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kResourceLimit);
  EXPECT_EQ(r.status().message(),
            "mutation 'older' touches 8193 entities of Person; the limit is 8192 per type");
  EXPECT_EQ(Seq(), seq);
}

storage::Runtime ChildRuntime(const std::string& dir, uint64_t seed) {
  auto store = storage::LocalStore::Open(dir);
  OMNIGRAPH_CHECK(store.ok());
  return storage::Runtime::ForTest(std::shared_ptr<storage::ObjectStore>(std::move(*store)), seed);
}

// Two processes on one local root: their inserts all land; of two conflicting updates, the one
// that read before the other published gets ReadSetChanged.
// Text that is not UTF-8 never commits: not in a literal, a typed parameter or the actor; each
// is refused before anything is written, with the position of the first bad byte.
TEST_F(MutateTest, TextThatIsNotUtf8IsRefusedBeforeAnyWrite) {
  Seed();
  const uint64_t seq = Seq();
  const storage::OpCounts before = counting_->Snapshot();
  Result<MutationResult> r =
      Mutate(*graph_, "query q() { insert Person { name: \"caf\xe9\", age: 1 } }", "q", Params{});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "1:39: Q000: the query text is not valid UTF-8 (byte 0xe9 at offset 38)");
  r = Run("add_person", {{"name", Value::String("caf\xe9")}, {"age", Value::Int(1)}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "parameter $name is not valid UTF-8 (byte 0xe9 at offset 3)");
  r = Mutate(*graph_, kQueries, "add_person", Json{{"name", "caf\xe9"}, {"age", 1}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "param 'name': string is not valid UTF-8 (byte 0xe9 at offset 3)");
  MutationOptions as_latin1;
  as_latin1.actor = "Jos\xe9";
  r = Run("add_person", {{"name", Value::String("jose")}, {"age", Value::Int(1)}}, as_latin1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "actor is not valid UTF-8 (byte 0xe9 at offset 3)");
  const storage::OpCounts after = counting_->Snapshot();
  EXPECT_EQ(after.put_if_absent + after.puts, before.put_if_absent + before.puts);
  EXPECT_EQ(Seq(), seq);
  // UTF-8 text is fine, in all three places.
  as_latin1.actor = "Jos\xc3\xa9";
  ASSERT_TRUE(
      Run("add_person", {{"name", Value::String("caf\xc3\xa9")}, {"age", Value::Int(1)}}, as_latin1)
          .ok());
}

// A Blob parameter in JSON is text, as in a load line: "base64:<data>" is stored as its bytes,
// and an external URI is refused when a statement would write it to a row — an insert always,
// an update only when it matches a row — leaving the branch as it was.
TEST(MutateBlobTest, JsonBlobParamsAreDecodedAndExternalUrisRefusedPerWrittenRow) {
  constexpr std::string_view kBlobSchema = R"(
node Doc { slug: String @key  content: Blob?  title: String }
)";
  constexpr std::string_view kBlobQueries = R"(
query put($slug: String, $content: Blob?) { insert Doc { slug: $slug, content: $content, title: "t" } }
query set($slug: String, $content: Blob?) {
  update Doc set { content: $content, title: "changed" } where slug = $slug
}
)";
  auto store = std::make_shared<storage::MemoryStore>();
  Result<std::unique_ptr<Graph>> g = Graph::Init(storage::Runtime::ForTest(store, 3), kBlobSchema);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  Graph& graph = **g;
  ASSERT_TRUE(
      Mutate(graph, kBlobQueries, "put", Json{{"slug", "a"}, {"content", "base64:AQID"}}).ok());
  const std::string before = *ExportToString(*graph.SnapshotOfBranch("main"));
  // The stored bytes are 01 02 03, which export writes back as the same text.
  EXPECT_NE(before.find("\"content\":\"base64:AQID\""), std::string::npos) << before;

  const std::string refusal =
      "external blob URI 's3://assets/f.bin' is not allowed: new external Blob URI ingress is "
      "denied for this graph";
  Result<MutationResult> r =
      Mutate(graph, kBlobQueries, "put", Json{{"slug", "b"}, {"content", "s3://assets/f.bin"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(r.status().message(), refusal);
  r = Mutate(graph, kBlobQueries, "set", Json{{"slug", "a"}, {"content", "s3://assets/f.bin"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), refusal);
  EXPECT_EQ(*ExportToString(*graph.SnapshotOfBranch("main")), before);

  // Matching no row writes nothing, so nothing is refused.
  r = Mutate(graph, kBlobQueries, "set",
             Json{{"slug", "nobody"}, {"content", "s3://assets/f.bin"}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->affected_nodes, 0u);
  // Bad base64 names the parameter.
  r = Mutate(graph, kBlobQueries, "put", Json{{"slug", "c"}, {"content", "base64:*"}});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().message().starts_with("param 'content': invalid base64 blob data"))
      << r.status().message();
}

// The empty string is a key like any other (OmniGraph keys nodes by it): the id index, the
// adjacency, updates, a merge, a reopen from storage, export and a cascading delete all treat
// the node keyed "" as an ordinary node.
TEST(EmptyKeyTest, ANodeKeyedByTheEmptyStringLivesLikeAnyOther) {
  constexpr std::string_view kKeySchema = R"(
node Person { name: String @key  age: I32? }
edge Knows: Person -> Person { }
)";
  constexpr std::string_view kReads = R"(
query friends($n: String) { match { $p: Person { name: $n }  $p knows $f } return { $f.name } }
query age($n: String) { match { $p: Person { name: $n } } return { $p.age } }
)";
  constexpr std::string_view kWrites = R"(
query set_age($n: String, $a: I32) { update Person set { age: $a } where name = $n }
query remove($n: String) { delete Person where name = $n }
)";
  auto store = std::make_shared<storage::MemoryStore>();
  std::unique_ptr<Graph> graph =
      std::move(Graph::Init(storage::Runtime::ForTest(store, 3), kKeySchema).value());
  ASSERT_TRUE(LoadJsonl(*graph, "main",
                        "{\"type\":\"Person\",\"data\":{\"name\":\"\",\"age\":1}}\n"
                        "{\"type\":\"Person\",\"data\":{\"name\":\"b\",\"age\":2}}\n"
                        "{\"edge\":\"Knows\",\"from\":\"\",\"to\":\"b\"}\n"
                        "{\"edge\":\"Knows\",\"from\":\"b\",\"to\":\"\"}\n",
                        LoadMode::kMerge)
                  .ok());
  auto rows = [&](Graph& g, std::string_view query, std::string_view name) {
    Result<OrderedJson> r = RunReadJson(g, kReads, query, Json{{"n", name}});
    return r.ok() ? (*r)["rows"].dump() : r.status().ToString();
  };
  EXPECT_EQ(rows(*graph, "friends", ""), R"([{"f.name":"b"}])");
  EXPECT_EQ(rows(*graph, "friends", "b"), R"([{"f.name":""}])");

  // An update on a branch, merged back (a fast-forward), then read after a reopen.
  ASSERT_TRUE(Mutate(*graph, "branch create x", "", Json::object()).ok());
  MutationOptions on_x;
  on_x.branch = "x";
  Result<MutationResult> r = Mutate(*graph, kWrites, "set_age", Json{{"n", ""}, {"a", 40}}, on_x);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->affected_nodes, 1u);
  r = Mutate(*graph, "branch merge x", "", Json::object());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->merge_outcome, "fast_forward");
  graph = std::move(Graph::Open(storage::Runtime::ForTest(store, 4)).value());
  EXPECT_EQ(rows(*graph, "age", ""), R"([{"p.age":40}])");
  EXPECT_EQ(rows(*graph, "friends", "b"), R"([{"f.name":""}])");
  const std::string exported = *ExportToString(*graph->SnapshotOfBranch("main"));
  EXPECT_NE(exported.find(R"("name":"")"), std::string::npos) << exported;

  // Deleting it removes both of its edges.
  r = Mutate(*graph, kWrites, "remove", Json{{"n", ""}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->affected_nodes, 1u);
  EXPECT_EQ(r->affected_edges, 2u);
  EXPECT_EQ(rows(*graph, "friends", "b"), "[]");
  EXPECT_EQ(rows(*graph, "age", ""), "[]");
}

// Properties named `id`, `src` and `dst` are user data beside the identity and endpoints (the
// meta-fields `@id`, `@src`, `@dst`): a load line's data holds them, export writes the identity
// at the top level so that the line reads back, and a bare entity writes its identity as `@id`.
TEST(IdPropertyTest, PropertiesNamedIdSrcAndDstLiveBesideTheIdentity) {
  constexpr std::string_view kIdSchema = R"(
node Person { name: String @key }
node Doc { id: String @key  title: String? }
edge Knows: Person -> Person { id: String?  src: String?  dst: String? }
)";
  constexpr std::string_view kReads = R"(
query docs() { match { $d: Doc } return { $d.id, $d.@id, $d } }
query knows() {
  match { $p: Person  $p $e:knows $f }
  return { $e.id, $e.src, $e.dst, $e.@id, $e.@src, $e.@dst }
}
)";
  constexpr std::string_view kLines =
      "{\"type\":\"Person\",\"data\":{\"name\":\"alice\"}}\n"
      "{\"type\":\"Person\",\"data\":{\"name\":\"bob\"}}\n"
      "{\"type\":\"Doc\",\"data\":{\"id\":\"d1\",\"title\":\"t\"}}\n"
      "{\"edge\":\"Knows\",\"id\":\"k1\",\"from\":\"alice\",\"to\":\"bob\","
      "\"data\":{\"id\":\"edge-data\",\"src\":\"source-data\",\"dst\":\"target-data\"}}\n";
  auto open = [&](std::string_view lines) {
    std::unique_ptr<Graph> g = std::move(
        Graph::Init(storage::Runtime::ForTest(std::make_shared<storage::MemoryStore>(), 3),
                    kIdSchema)
            .value());
    Result<LoadResult> loaded = LoadJsonl(*g, "main", lines, LoadMode::kMerge);
    EXPECT_TRUE(loaded.ok()) << loaded.status().ToString();
    return g;
  };
  std::unique_ptr<Graph> graph = open(kLines);
  auto rows = [&](Graph& g, std::string_view query) {
    Result<OrderedJson> r = RunReadJson(g, kReads, query, Json::object());
    return r.ok() ? (*r)["rows"].dump() : r.status().ToString();
  };
  const std::string docs = R"([{"d.id":"d1","d.@id":"d1","d":{"@id":"d1","id":"d1","title":"t"}}])";
  const std::string knows =
      R"([{"e.id":"edge-data","e.src":"source-data","e.dst":"target-data","e.@id":"k1",)"
      R"("e.@src":"alice","e.@dst":"bob"}])";
  EXPECT_EQ(rows(*graph, "docs"), docs);
  EXPECT_EQ(rows(*graph, "knows"), knows);

  // Export and load again: the same rows, the same export.
  const std::string exported = *ExportToString(*graph->SnapshotOfBranch("main"));
  EXPECT_NE(exported.find(
                R"({"edge":"Knows","from":"alice","to":"bob","id":"k1","data":{"id":"edge-data")"),
            std::string::npos)
      << exported;
  std::unique_ptr<Graph> again = open(exported);
  EXPECT_EQ(rows(*again, "docs"), docs);
  EXPECT_EQ(rows(*again, "knows"), knows);
  EXPECT_EQ(*ExportToString(*again->SnapshotOfBranch("main")), exported);
}

// Edge keys (`@key(@src, @dst[, p…])`): an insert derives the edge id from the endpoints and key
// properties exactly as a load does, a second insert of the same key is the same edge (an upsert
// that replaces the row), and a load's explicit id must be the derived one.
TEST(KeyedEdgeTest, InsertDerivesTheLoadsIdAndReinsertingIsOneEdge) {
  constexpr std::string_view kKeyedSchema = R"(
node Person { name: String @key }
edge Knows: Person -> Person { since: I32  note: String?  @key(@src, @dst) }
edge Met: Person -> Person { at: Date  @key(@src, @dst, at) }
)";
  constexpr std::string_view kWrites = R"(
query knows($a: String, $b: String, $s: I32) { insert Knows { from: $a, to: $b, since: $s } }
query noted($a: String, $b: String, $s: I32) {
  insert Knows { from: $a, to: $b, since: $s, note: "old" }
}
query met($a: String, $b: String, $d: Date) { insert Met { from: $a, to: $b, at: $d } }
)";
  storage::TempDir dir;
  std::unique_ptr<Graph> graph =
      std::move(Graph::Init(ChildRuntime(dir.path(), 3), kKeyedSchema).value());
  ASSERT_TRUE(LoadJsonl(*graph, "main",
                        "{\"type\":\"Person\",\"data\":{\"name\":\"ada\"}}\n"
                        "{\"type\":\"Person\",\"data\":{\"name\":\"bob\"}}\n"
                        "{\"edge\":\"Knows\",\"from\":\"bob\",\"to\":\"ada\","
                        "\"data\":{\"since\":1}}\n",
                        LoadMode::kAppend)
                  .ok());
  auto ids = [&](std::string_view key) {
    std::vector<std::string> out = *(*graph->SnapshotOfBranch("main")->Table(key))->Ids();
    std::sort(out.begin(), out.end());
    return out;
  };
  EXPECT_EQ(ids("edge:Knows"), std::vector<std::string>{R"(["bob","ada"])"});
  auto run = [&](std::string_view name, Params params) {
    Result<MutationResult> r = Mutate(*graph, kWrites, name, params);
    EXPECT_TRUE(r.ok()) << name << ": " << r.status().ToString();
    return r.ok() ? *r : MutationResult{};
  };
  const Params ada_bob{
      {"a", Value::String("ada")}, {"b", Value::String("bob")}, {"s", Value::Int(2)}};
  EXPECT_EQ(run("noted", ada_bob).affected_edges, 1u);
  Params again = ada_bob;
  again["s"] = Value::Int(3);
  EXPECT_EQ(run("knows", again).affected_edges, 1u);
  EXPECT_EQ(ids("edge:Knows"), (std::vector<std::string>{R"(["ada","bob"])", R"(["bob","ada"])"}));
  // The re-insert replaced the whole row: the new `since`, and the note it did not give is null.
  Result<OrderedJson> rows = RunReadJson(*graph, R"(
query q() { match { $p: Person { name: "ada" }  $p $e:knows $f } return { $e.@id, $e.since, $e.note } }
)",
                                         "q", Json::object());
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ((*rows)["rows"].dump(), R"([{"e.@id":"[\"ada\",\"bob\"]","e.since":3,"e.note":null}])");

  // A key property joins the tuple in its canonical text: another value is another edge.
  run("met", {{"a", Value::String("ada")}, {"b", Value::String("bob")}, {"d", Value::Date(19000)}});
  run("met", {{"a", Value::String("ada")}, {"b", Value::String("bob")}, {"d", Value::Date(19001)}});
  run("met", {{"a", Value::String("ada")}, {"b", Value::String("bob")}, {"d", Value::Date(19000)}});
  EXPECT_EQ(ids("edge:Met"),
            (std::vector<std::string>{R"(["ada","bob","19000"])", R"(["ada","bob","19001"])"}));

  // A load line naming the same key is the same edge (merge), and an explicit id must match.
  ASSERT_TRUE(LoadJsonl(*graph, "main",
                        "{\"edge\":\"Knows\",\"id\":\"[\\\"ada\\\",\\\"bob\\\"]\","
                        "\"from\":\"ada\",\"to\":\"bob\",\"data\":{\"since\":4}}\n",
                        LoadMode::kMerge)
                  .ok());
  EXPECT_EQ(ids("edge:Knows").size(), 2u);
  Result<LoadResult> wrong = LoadJsonl(
      *graph, "main",
      "{\"edge\":\"Knows\",\"id\":\"k1\",\"from\":\"ada\",\"to\":\"bob\",\"data\":{\"since\":5}}",
      LoadMode::kMerge);
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().message(),
            "line 1: edge Knows explicit id 'k1' does not match its canonical @key id "
            "'[\"ada\",\"bob\"]'");
}

TEST(MutateProcessTest, TwoProcessesMutatingOneBranch) {
  storage::TempDir dir;
  ASSERT_TRUE(Graph::Init(ChildRuntime(dir.path(), 1), kSchema).ok());
  constexpr int kInserts = 15;
  std::vector<storage::ChildResult> children =
      storage::RunChildrenTogether(2, [&](int index, int out) -> int {
        std::unique_ptr<Graph> g = std::move(*Graph::Open(ChildRuntime(dir.path(), 10 + index)));
        for (int i = 0; i < kInserts; ++i) {
          std::string name = "p" + std::to_string(index) + "-" + std::to_string(i);
          Result<MutationResult> r = Mutate(
              *g, kQueries, "add_person", {{"name", Value::String(name)}, {"age", Value::Int(i)}});
          if (!r.ok()) {
            storage::WriteToFd(out, r.status().ToString());
            return 1;
          }
        }
        return 0;
      });
  for (const storage::ChildResult& c : children) ASSERT_TRUE(c.exited_zero()) << c.output;
  std::unique_ptr<Graph> g = std::move(*Graph::Open(ChildRuntime(dir.path(), 2)));
  Snapshot s = *g->SnapshotOfBranch("main");
  EXPECT_EQ(s.state().seq, 2u * kInserts);
  EXPECT_EQ((*s.Table("node:Person"))->entity_count(), 2u * kInserts);

  // Conflicting updates: child 0 plans (reads) first, then waits until child 1 has published
  // its own update of the same row; child 0's publish must then fail with ReadSetChanged.
  const std::string read_flag = dir.path() + "/child0-read";
  const std::string published_flag = dir.path() + "/child1-published";
  children = storage::RunChildrenTogether(2, [&](int index, int out) -> int {
    std::unique_ptr<Graph> graph = std::move(*Graph::Open(ChildRuntime(dir.path(), 20 + index)));
    if (index == 1) {
      while (::access(read_flag.c_str(), F_OK) != 0) ::usleep(1000);
      Result<MutationResult> r =
          Mutate(*graph, kQueries, "retitle",
                 {{"name", Value::String("p0-0")}, {"title", Value::String("one")}});
      storage::WriteToFd(out, r.ok() ? "ok" : r.status().ToString());
      std::FILE* f = std::fopen(published_flag.c_str(), "w");
      if (f != nullptr) std::fclose(f);
      return 0;
    }
    // Child 0 is an update that read before child 1 published: the strict write planned on the
    // earlier head that Mutate hands to engine::Write for an update, held between its read and
    // its publish until child 1 has published.
    Snapshot before = *graph->SnapshotOfBranch("main");
    std::FILE* f = std::fopen(read_flag.c_str(), "w");
    if (f != nullptr) std::fclose(f);
    while (::access(published_flag.c_str(), F_OK) != 0) ::usleep(1000);
    WriteRequest w;
    const schema::TypeDef& person = *before.catalog().FindNode("Person");
    query::RowsBuilder b = *query::RowsBuilder::Make(person);
    std::vector<std::optional<Value>> v(person.properties.size());
    for (size_t p = 0; p < v.size(); ++p) {
      if (person.properties[p].name == "name") v[p] = Value::String("p0-0");
      if (person.properties[p].name == "age") v[p] = Value::Int(0);
      if (person.properties[p].name == "title") v[p] = Value::String("zero");
    }
    if (!b.Append("p0-0", "", "", v).ok()) return 3;
    w.changes["node:Person"] = TableChange{TableChange::Op::kUpsert, *b.Finish(), {}};
    w.strict = true;
    w.planned_on = before;
    Result<WriteResult> r = Write(*graph, w);
    storage::WriteToFd(out, r.ok() ? "ok" : std::string(CodeName(r.status().code())));
    return 0;
  });
  ASSERT_TRUE(children[0].exited_zero());
  ASSERT_TRUE(children[1].exited_zero());
  EXPECT_EQ(children[1].output, "ok");
  EXPECT_EQ(children[0].output, std::string(CodeName(Code::kReadSetChanged)));
  Snapshot end = *Graph::Open(ChildRuntime(dir.path(), 3)).value()->SnapshotOfBranch("main");
  EXPECT_EQ(end.state().seq, 2u * kInserts + 1);
}

// Issue 23 item 4: a mutation that leaves a source with fewer edges than its @card min is refused,
// also when it takes the source's last edge — directly, or as the cascade of deleting the node
// at the other end. Deleting the source itself is fine.
TEST(MutateCardinalityTest, ASourceLosingItsLastEdgeIsCheckedAgainstMin) {
  constexpr std::string_view kCardSchema = R"(
node Person { name: String @key }
node Company { name: String @key }
edge WorksAt: Person -> Company @card(1..) { }
)";
  constexpr std::string_view kCardQueries = R"(
query person($name: String) { insert Person { name: $name } }
query company($name: String) { insert Company { name: $name } }
query hire($p: String, $c: String) { insert WorksAt { from: $p, to: $c } }
query unhire($p: String) { delete WorksAt where from = $p }
query close($name: String) { delete Company where name = $name }
query leave($name: String) { delete Person where name = $name }
)";
  Result<std::unique_ptr<Graph>> g = Graph::Init(
      storage::Runtime::ForTest(std::make_shared<storage::MemoryStore>(), 5), kCardSchema);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  Graph& graph = **g;
  auto run = [&](std::string_view name, Params params) {
    return Mutate(graph, kCardQueries, name, params, {});
  };
  for (const char* p : {"ada", "bob"})
    ASSERT_TRUE(run("person", {{"name", Value::String(p)}}).ok());
  for (const char* c : {"acme", "globex"}) {
    ASSERT_TRUE(run("company", {{"name", Value::String(c)}}).ok());
  }
  ASSERT_TRUE(run("hire", {{"p", Value::String("ada")}, {"c", Value::String("acme")}}).ok());
  ASSERT_TRUE(run("hire", {{"p", Value::String("bob")}, {"c", Value::String("acme")}}).ok());
  ASSERT_TRUE(run("hire", {{"p", Value::String("bob")}, {"c", Value::String("globex")}}).ok());
  const uint64_t seq = graph.SnapshotOfBranch("main")->state().seq;

  Result<MutationResult> r = run("unhire", {{"p", Value::String("ada")}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(
      r.status().message(),
      "edge:WorksAt row 0: @card violation on edge WorksAt: source 'ada' has 0 edges (min 1)");
  // Closing acme cascades to both its WorksAt edges: bob keeps globex, ada is left with none.
  r = run("close", {{"name", Value::String("acme")}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(
      r.status().message(),
      "edge:WorksAt row 0: @card violation on edge WorksAt: source 'ada' has 0 edges (min 1)");
  EXPECT_EQ(graph.SnapshotOfBranch("main")->state().seq, seq);
  // Closing globex leaves bob one edge; ada leaving takes her own edge with her.
  ASSERT_TRUE(run("close", {{"name", Value::String("globex")}}).ok());
  r = run("leave", {{"name", Value::String("ada")}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->affected_edges, 1u);
}

// A null for a non-nullable property is refused before any row is matched, in the reference's
// words, also when no row would match.
TEST_F(MutateTest, NullForANonNullablePropertyIsRefusedNamingItAndItsType) {
  Seed();
  const uint64_t seq = Seq();
  Result<MutationResult> r =
      Mutate(*graph_, "query q($n: String?) { update Memo set { text: $n } where text = \"x\" }",
             "", Params{{"n", Value::Null()}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "cannot assign null to non-nullable property 'text' of Memo");
  EXPECT_EQ(Seq(), seq);
}

// Branch statements run as mutations (create, delete; merge refused until the engine merges)
// and as a read (list); each changes nothing when refused.
TEST_F(MutateTest, BranchStatementsCreateDeleteAndListBranchesAndRefuseMisuse) {
  Seed();
  const uint64_t seq = Seq();
  Result<MutationResult> created = Mutate(*graph_, "branch create \"work/a\"", "", Json::object());
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(created->query_name, "branch create");
  EXPECT_EQ(created->branch, "work/a");
  EXPECT_EQ(created->affected_nodes + created->affected_edges, 0u);
  EXPECT_FALSE(created->commit.has_value());
  EXPECT_EQ(Seq(), seq);  // Main did not move.

  // The new branch forks from main's head: a write there is not seen on main.
  MutationOptions on_work;
  on_work.branch = "work/a";
  ASSERT_TRUE(
      Run("add_person", {{"name", Value::String("dee")}, {"age", Value::Int(5)}}, on_work).ok());
  EXPECT_EQ(Rows("node:Person").count("dee"), 0u);

  // `from` defaults to the branch the request targets; an explicit one names the parent.
  ASSERT_TRUE(Mutate(*graph_, "branch create nested", "", Json::object(), on_work).ok());
  RunOptions on_nested;
  on_nested.branch = "nested";
  Result<ReadOutcome> dee =
      RunRead(*graph_, "query q() { match { $p: Person { name: \"dee\" } } return { $p.age } }", "",
              Json::object(), on_nested);
  ASSERT_TRUE(dee.ok()) << dee.status().ToString();
  EXPECT_EQ(dee->result.rows.size(), 1u);
  ASSERT_TRUE(Mutate(*graph_, "branch create side from main", "", Json::object(), on_work).ok());

  Result<ReadOutcome> listed = RunRead(*graph_, "branch list", "", Json::object());
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  EXPECT_EQ(listed->query_name, "branch list");
  ASSERT_EQ(listed->result.columns.size(), 1u);
  EXPECT_EQ(listed->result.columns[0].name, "name");
  EXPECT_FALSE(listed->result.columns[0].nullable);
  std::vector<std::string> names;
  for (const auto& row : listed->result.rows) names.push_back(row.at(0).string_value());
  EXPECT_EQ(names, (std::vector<std::string>{"main", "nested", "side", "work/a"}));

  ASSERT_TRUE(Mutate(*graph_, "branch delete side", "", Json::object()).ok());
  EXPECT_EQ(graph_->SnapshotOfBranch("side").status().code(), Code::kBranchNotFound);
  RunOptions on_side;
  on_side.branch = "side";
  // The reference's wording, which OmniGraph's scenario corpus pins.
  EXPECT_NE(RunRead(*graph_, "query q() { match { $p: Person } return { $p.name } }", "",
                    Json::object(), on_side)
                .status()
                .message()
                .find("branch 'side' not found"),
            std::string::npos);

  // Misuse: each refused with a typed error, nothing changed.
  EXPECT_EQ(Mutate(*graph_, "branch create nested", "", Json::object()).status().code(),
            Code::kBranchExists);
  EXPECT_EQ(Mutate(*graph_, "branch delete side", "", Json::object()).status().code(),
            Code::kBranchNotFound);
  EXPECT_EQ(Mutate(*graph_, "branch create x from nowhere", "", Json::object()).status().code(),
            Code::kBranchNotFound);
  EXPECT_EQ(Mutate(*graph_, "branch list", "", Json::object()).status().code(),
            Code::kInvalidArgument);
  EXPECT_EQ(Mutate(*graph_, "branch create y", "named", Json::object()).status().code(),
            Code::kInvalidArgument);
  EXPECT_EQ(RunRead(*graph_, "branch create z", "", Json::object()).status().code(),
            Code::kInvalidArgument);
  Result<ReadOutcome> after = RunRead(*graph_, "branch list", "", Json::object());
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->result.rows.size(), 3u);
  EXPECT_EQ(Seq(), seq);

  // A merge statement merges into the request's branch (main here). Main has not moved since
  // nested forked (through work/a), so it is a fast-forward that brings dee to main; merging
  // again finds nothing to do.
  Result<MutationResult> merged = Mutate(*graph_, "branch merge nested", "", Json::object());
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ(merged->merge_outcome, "fast_forward");
  ASSERT_TRUE(merged->commit_record.has_value());
  EXPECT_EQ(merged->commit, merged->commit_record->commit_id);
  EXPECT_EQ(Seq(), seq + 1);
  EXPECT_EQ(Rows("node:Person").count("dee"), 1u);
  Result<MutationResult> again = Mutate(*graph_, "branch merge nested", "", Json::object());
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->merge_outcome, "already_up_to_date");
  EXPECT_FALSE(again->commit.has_value());
  EXPECT_EQ(Seq(), seq + 1);
}

}  // namespace
}  // namespace omnigraph::engine
