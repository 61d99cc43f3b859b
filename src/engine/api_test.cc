// The public API (include/omnigraph/omnigraph.h) from the outside: a graph at a local URI driven
// end to end through JSON envelopes only. This test is built as an embedder would build it, with
// include/ as its only include directory and omnigraph_api as its only library
// (src/engine/CMakeLists.txt): a public header that includes anything under src/ does not
// compile here, and the check below catches one that pulls in the engine's JSON library (which
// sits on the system include path).
#include "omnigraph/omnigraph.h"

#if defined(INCLUDE_NLOHMANN_JSON_HPP_) || defined(NLOHMANN_JSON_VERSION_MAJOR)
#error "omnigraph/omnigraph.h must not include nlohmann/json.hpp: the JSON library is private"
#endif
#if defined(OMNIGRAPH_CHECK)
#error "omnigraph/omnigraph.h must not include base/status.h: internal headers are private"
#endif

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <system_error>

namespace omnigraph::api {
namespace {

// A fresh directory under the system's temporary folder, removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> next{0};
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = (std::filesystem::temp_directory_path() /
             ("omnigraph-api-test-" + std::string(info->name()) + "-" + std::to_string(next++)))
                .string();
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

constexpr std::string_view kSchema = R"(
node Person { name: String @key  born: Date?  seen: DateTime? }
node Company { name: String @key }
edge WorksAt: Person -> Company { }
)";

constexpr std::string_view kQueries = R"(
query add($name: String, $born: Date, $seen: DateTime) {
  insert Person { name: $name, born: $born, seen: $seen }
}
query hire($p: String, $c: String) { insert WorksAt { from: $p, to: $c } }
query fire($p: String) { delete WorksAt where from = $p }
)";

TEST(ApiTest, ADatabaseAtALocalUriEndToEnd) {
  TempDir dir;
  const std::string uri = dir.path() + "/graph";
  EXPECT_EQ(Database::Open(uri).status().kind(), Kind::kNotFound);
  DatabaseOptions options;
  options.actor = "tester";
  Result<std::unique_ptr<Database>> created = Database::Init(uri, kSchema, options);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(Database::Init(uri, kSchema).status().code(), Code::kAlreadyInitialized);

  Result<std::unique_ptr<Database>> opened = Database::Open("file://" + uri, options);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  Database& db = **opened;

  Result<Json> loaded = db.Load(
      "{\"type\":\"Person\",\"data\":{\"name\":\"Ada\"}}\n"
      "{\"type\":\"Company\",\"data\":{\"name\":\"Acme\"}}\n",
      "append", WriteTarget{});
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ((*loaded)["total_entities"], 2);
  // The commit is OmniGraph's commit object, the one ListCommits and ShowCommit give.
  ASSERT_TRUE((*loaded)["commit"].is_object()) << loaded->dump();
  EXPECT_EQ((*loaded)["commit"]["graph_manifest_version"], 1);
  EXPECT_EQ((*loaded)["commit"]["actor_id"], "tester");
  EXPECT_TRUE((*loaded)["commit"]["parent_commit_id"].is_string());
  EXPECT_TRUE((*loaded)["commit"]["created_at"].is_number_integer());
  EXPECT_EQ((*loaded)["uri"], "file://" + uri);
  EXPECT_EQ(*db.ShowCommit((*loaded)["commit"]["graph_commit_id"].get<std::string>()),
            (*loaded)["commit"]);

  // JSON parameters (keys without '$') are typed by the query's declarations, Date and
  // DateTime from their text forms.
  Result<Json> added = db.Mutate(
      kQueries, "add",
      Json{{"name", "Grace"}, {"born", "1906-12-09"}, {"seen", "2024-01-02T03:04:05.678Z"}},
      WriteTarget{});
  ASSERT_TRUE(added.ok()) << added.status().ToString();
  EXPECT_EQ((*added)["affected_nodes"], 1);
  EXPECT_EQ((*added)["actor_id"], "tester");
  EXPECT_EQ((*added)["commit"]["graph_manifest_version"], 2);
  EXPECT_EQ((*added)["commit"]["parent_commit_id"], (*loaded)["commit"]["graph_commit_id"]);
  Result<Json> bad =
      db.Mutate(kQueries, "add", Json{{"name", "X"}, {"born", "1906-13-09"}, {"seen", nullptr}},
                WriteTarget{});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "param 'born': invalid Date literal '1906-13-09'");
  EXPECT_EQ(db.Mutate(kQueries, "add", Json::object(), WriteTarget{}).status().message(),
            "param 'name': missing value for non-nullable parameter");
  EXPECT_EQ(db.Mutate(kQueries, "add", Json{{"nope", 1}}, WriteTarget{}).status().message(),
            "unknown parameter 'nope' for query 'add' (it declares $name, $born, $seen)");
  ASSERT_TRUE(db.Mutate(kQueries, "hire", Json{{"p", "Grace"}, {"c", "Acme"}}, WriteTarget{}).ok());

  // The expected-commit precondition.
  WriteTarget stale;
  stale.if_commit = (*loaded)["commit"]["graph_commit_id"].get<std::string>();
  EXPECT_EQ(db.Mutate(kQueries, "fire", Json{{"p", "Grace"}}, stale).status().code(),
            Code::kPreconditionFailed);

  // Commits, newest first, with OmniGraph's fields.
  Result<Json> commits = db.ListCommits("main");
  ASSERT_TRUE(commits.ok()) << commits.status().ToString();
  ASSERT_EQ(commits->size(), 4u);  // hire, add, load, genesis.
  EXPECT_EQ((*commits)[0]["graph_manifest_version"], 3);
  EXPECT_EQ((*commits)[0]["actor_id"], "tester");
  EXPECT_EQ((*commits)[0]["parent_commit_id"], (*commits)[1]["graph_commit_id"]);
  EXPECT_EQ((*commits)[3]["graph_manifest_version"], 0);
  Result<Json> shown = db.ShowCommit((*commits)[2]["graph_commit_id"].get<std::string>());
  ASSERT_TRUE(shown.ok());
  EXPECT_EQ(*shown, (*commits)[2]);
  EXPECT_EQ(db.ListCommits("main", 2)->size(), 2u);

  // Branches.
  Result<Json> branch = db.CreateBranch("review");
  ASSERT_TRUE(branch.ok()) << branch.status().ToString();
  EXPECT_EQ(
      *branch,
      (Json{
          {"name", "review"}, {"from", "main"}, {"uri", "file://" + uri}, {"actor_id", "tester"}}));
  WriteTarget on_review;
  on_review.branch = "review";
  ASSERT_TRUE(db.Mutate(kQueries, "fire", Json{{"p", "Grace"}}, on_review).ok());
  EXPECT_EQ(db.ListBranches()->size(), 2u);

  // Export of each branch: main still has the edge; review does not.
  auto exported = [&](std::string_view b) {
    std::string out;
    Status s = db.Export(b, {}, [&](std::string_view chunk) {
      out += chunk;
      return Status::Ok();
    });
    EXPECT_TRUE(s.ok()) << s.ToString();
    return out;
  };
  EXPECT_NE(exported("main").find("\"edge\":\"WorksAt\""), std::string::npos);
  EXPECT_EQ(exported("review").find("\"edge\":\"WorksAt\""), std::string::npos);
  EXPECT_NE(exported("review").find("\"born\":\"1906-12-09\""), std::string::npos);
  Result<Json> deleted = db.DeleteBranch("review");
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  EXPECT_EQ(*deleted, (Json{{"name", "review"}, {"uri", "file://" + uri}, {"actor_id", "tester"}}));
  EXPECT_EQ(db.ListBranches()->size(), 1u);
}

// The overview's promise (docs/design/overview.md) through the public API: a handle that has read a
// branch reads it again, when its head has not moved, with one store call (the existence check of
// the next record); after another process's commit it reads that record, the check after it, and
// the touched table's new manifest and fragment.
TEST(ApiTest, AWarmReadOfAnUnmovedBranchIsOneStoreCall) {
  TempDir dir;
  const std::string uri = dir.path() + "/g";
  Result<std::unique_ptr<Database>> writer = Database::Init(uri, kSchema);
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  ASSERT_TRUE(
      (*writer)
          ->Load("{\"type\":\"Person\",\"data\":{\"name\":\"Ada\"}}\n", "append", WriteTarget{})
          .ok());
  Result<std::unique_ptr<Database>> reader = Database::Open(uri);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  constexpr std::string_view kNames =
      "query names() { match { $p: Person } return { $p.name } order { $p.name } }";
  ASSERT_EQ((*(*reader)->Query(kNames, "", Json::object()))["row_count"], 1);

  const StoreCallCounts before = (*reader)->StoreCalls();
  Result<Json> again = (*reader)->Query(kNames, "", Json::object());
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ((*again)["row_count"], 1);
  const StoreCallCounts after = (*reader)->StoreCalls();
  EXPECT_EQ(after.total() - before.total(), 1u);
  EXPECT_EQ(after.gets - before.gets, 1u);

  ASSERT_TRUE(
      (*writer)
          ->Load("{\"type\":\"Person\",\"data\":{\"name\":\"Bob\"}}\n", "append", WriteTarget{})
          .ok());
  Result<Json> moved = (*reader)->Query(kNames, "", Json::object());
  ASSERT_TRUE(moved.ok()) << moved.status().ToString();
  EXPECT_EQ((*moved)["row_count"], 2);
  const StoreCallCounts last = (*reader)->StoreCalls();
  EXPECT_EQ(last.total() - after.total(), 4u);
  EXPECT_EQ(last.gets - after.gets, 4u);
}

TEST(ApiTest, QueriesSchemaChangesAndCleanup) {
  TempDir dir;
  Result<std::unique_ptr<Database>> created = Database::Init(dir.path() + "/g", kSchema);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  Database& db = **created;
  ASSERT_TRUE(db.Load("{\"type\":\"Person\",\"data\":{\"name\":\"Ada\"}}\n"
                      "{\"type\":\"Person\",\"data\":{\"name\":\"Bob\"}}\n"
                      "{\"type\":\"Company\",\"data\":{\"name\":\"Acme\"}}\n"
                      "{\"edge\":\"WorksAt\",\"from\":\"Ada\",\"to\":\"Acme\"}\n",
                      "append", WriteTarget{})
                  .ok());
  constexpr std::string_view kRead = R"(
query staff($c: String) {
  match { $p: Person  $p worksAt $c2  $c2: Company { name: $c } }
  return { $p.name, $c2.name as company }
  order { $p.name }
}
)";
  Result<Json> rows = db.Query(kRead, "", Json{{"c", "Acme"}});
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ((*rows)["row_count"], 1);
  EXPECT_EQ((*rows)["rows"][0]["p.name"], "Ada");
  EXPECT_EQ((*rows)["rows"][0]["company"], "Acme");
  const std::string loaded_at = (*rows)["graph_commit_id"].get<std::string>();

  // Schema: plan, apply (one commit), show; the old snapshot still reads the old schema.
  const std::string next = std::string(kSchema) + "node City { name: String @key }\n";
  Result<Json> plan = db.PlanSchema(next);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ((*plan)["supported"], true);
  ASSERT_EQ((*plan)["steps"].size(), 1u);
  EXPECT_EQ((*plan)["steps"][0]["kind"], "add_type");
  Result<Json> applied = db.ApplySchema(next);
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  EXPECT_EQ((*applied)["applied"], true);
  EXPECT_EQ((*applied)["step_count"], 1);
  EXPECT_EQ((*applied)["graph_manifest_version"], 2);
  EXPECT_EQ((*db.ApplySchema(next))["applied"], false);  // The same source again: a no-op.
  EXPECT_NE((*db.ShowSchema())["source"].get<std::string>().find("node City"), std::string::npos);
  ReadTarget then;
  then.snapshot = loaded_at;
  Result<Json> old = db.Query(kRead, "staff", Json{{"c", "Acme"}}, then);
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  EXPECT_EQ((*old)["target"]["snapshot"], loaded_at);
  EXPECT_EQ((*old)["row_count"], 1);

  // Cleanup keeps what the newest commits need.
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(
        db.Mutate(kQueries, "add",
                  Json{{"name", "P" + std::to_string(i)}, {"born", "2000-01-01"}, {"seen", 0}},
                  WriteTarget{})
            .ok());
  }
  CleanupRequest request;
  request.keep = 2;
  request.grace_micros = 0;  // Nothing here is in flight.
  Result<Json> cleaned = db.Cleanup(request);
  ASSERT_TRUE(cleaned.ok()) << cleaned.status().ToString();
  EXPECT_GT((*cleaned)["objects_removed"].get<uint64_t>(), 0u);
  Result<Json> after = db.Query(kRead, "staff", Json{{"c", "Acme"}});
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  EXPECT_EQ((*after)["row_count"], 1);
  EXPECT_EQ(db.Cleanup(CleanupRequest{}).status().kind(), Kind::kInvalidArgument);
  // The loaded commit (seq 1) is below what cleanup retained (the newest 2 of 7): reading it
  // says so and names it. A fresh handle, since `db` still caches what it read.
  Result<std::unique_ptr<Database>> fresh = Database::Open(dir.path() + "/g");
  ASSERT_TRUE(fresh.ok()) << fresh.status().ToString();
  Result<Json> reclaimed = (*fresh)->Query(kRead, "staff", Json{{"c", "Acme"}}, then);
  ASSERT_FALSE(reclaimed.ok());
  EXPECT_EQ(reclaimed.status().code(), Code::kVersionsReclaimed);
  EXPECT_EQ(reclaimed.status().message(),
            "the data of commit " + loaded_at +
                " (seq 1 of its branch) was reclaimed by cleanup (cleanup retains its branch's "
                "commits from seq 6); read a newer commit");
}

TEST(ApiTest, ErrorsCarryCodeKindMessageAndTheirStableNames) {
  TempDir dir;
  Result<std::unique_ptr<Database>> missing = Database::Open(dir.path() + "/none");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Code::kNotFound);
  EXPECT_EQ(CodeName(missing.status().code()), "not_found");
  Result<std::unique_ptr<Database>> db = Database::Init(dir.path() + "/g", kSchema);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  Status gone = (*db)->DeleteBranch("nope").status();
  EXPECT_EQ(gone.code(), Code::kBranchNotFound);
  EXPECT_EQ(gone.kind(), Kind::kNotFound);
  EXPECT_EQ(CodeName(gone.code()), "branch_not_found");
  EXPECT_EQ(KindName(gone.kind()), "not_found");
  // A sink's failure comes back as it was given.
  ASSERT_TRUE(
      (*db)
          ->Load("{\"type\":\"Person\",\"data\":{\"name\":\"Ada\"}}\n", "append", WriteTarget{})
          .ok());
  Status sunk = (*db)->Export("main", {}, [](std::string_view) {
    return Status(Code::kTransient, "stdout failed", "sink");
  });
  EXPECT_EQ(sunk.code(), Code::kTransient);
  EXPECT_EQ(sunk.message(), "stdout failed");
  EXPECT_EQ(sunk.object(), "sink");
  // Parameters must be an object; parse errors name their input.
  EXPECT_EQ((*db)->Mutate(kQueries, "fire", Json::array(), WriteTarget{}).status().message(),
            "parameters must be a JSON object");
  Result<Json> bad = ParseJson("{\"a\":1,\"a\":2}", "--params");
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(bad.status().message(), "duplicate member 'a' in --params");
}

// The early-return helpers work on the public types.
Result<uint64_t> EntitiesLoaded(Database& db, std::string_view ndjson) {
  OMNIGRAPH_ASSIGN_OR_RETURN(Json out, db.Load(ndjson, "append", WriteTarget{}));
  return out["total_entities"].get<uint64_t>();
}

Status DropBranch(Database& db, std::string_view name) {
  OMNIGRAPH_RETURN_IF_ERROR(db.DeleteBranch(name));
  return Status::Ok();
}

TEST(ApiTest, EarlyReturnHelpers) {
  TempDir dir;
  Result<std::unique_ptr<Database>> db = Database::Init(dir.path() + "/g", kSchema);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  Result<uint64_t> loaded =
      EntitiesLoaded(**db, "{\"type\":\"Company\",\"data\":{\"name\":\"Acme\"}}\n");
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(*loaded, 1u);
  EXPECT_EQ(EntitiesLoaded(**db, "{\"type\":\"Nope\"}\n").status().kind(), Kind::kInvalidArgument);
  EXPECT_EQ(DropBranch(**db, "nope").code(), Code::kBranchNotFound);
}

TEST(ApiJsonTest, BuildWalkAndDump) {
  Json j{{"name", "Ada"}, {"born", 1815}, {"ratio", 0.5}, {"tags", Json::array()}};
  j["tags"].push_back("math");
  j["tags"].push_back(nullptr);
  j["big"] = uint64_t{18446744073709551615ULL};
  j["neg"] = -3;
  EXPECT_EQ(j.dump(), R"({"name":"Ada","born":1815,"ratio":0.5,"tags":["math",null],)"
                      R"("big":18446744073709551615,"neg":-3})");
  EXPECT_EQ((Json{{"a", Json{{"b", true}}}}.dump(2)), "{\n  \"a\": {\n    \"b\": true\n  }\n}");
  EXPECT_TRUE(j["tags"].is_array());
  EXPECT_EQ(j["tags"].size(), 2u);
  EXPECT_TRUE(j["tags"][1].is_null());
  EXPECT_EQ(j["name"].get<std::string>(), "Ada");
  EXPECT_EQ(j["born"].get<int>(), 1815);
  EXPECT_EQ(j["born"].get<double>(), 1815.0);
  EXPECT_EQ(j["big"].get<uint64_t>(), 18446744073709551615ULL);
  EXPECT_TRUE(j.contains("ratio"));
  EXPECT_FALSE(j.contains("nope"));
  const Json& cj = j;
  EXPECT_TRUE(cj["nope"].is_null());  // Reading a missing member adds nothing.
  EXPECT_FALSE(j.contains("nope"));
  EXPECT_EQ(j.erase("ratio"), 1u);
  EXPECT_EQ(j.erase("ratio"), 0u);
  EXPECT_EQ(j.members().front().first, "name");
  // A part of a value may be assigned to the value itself.
  Json nested{{"outer", Json{{"inner", "a string too long for the small-string buffer"}}}};
  nested = nested["outer"];
  EXPECT_EQ(nested.dump(), R"({"inner":"a string too long for the small-string buffer"})");
  nested = std::move(nested["inner"]);
  EXPECT_EQ(nested.get<std::string>(), "a string too long for the small-string buffer");
  // Equality ignores member order and the kind of an integer.
  EXPECT_EQ((Json{{"x", 1}, {"y", 2u}}), (Json{{"y", 2}, {"x", uint64_t{1}}}));
  EXPECT_NE((Json{{"x", 1}}), (Json{{"x", -1}}));
  EXPECT_NE(Json("1"), Json(1));
  std::ostringstream printed;
  printed << Json{{"k", "v"}};
  EXPECT_EQ(printed.str(), R"({"k":"v"})");
  Result<Json> parsed = ParseJson(R"({"b":[1,2.5,"x"],"a":{}})", "test");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->dump(), R"({"b":[1,2.5,"x"],"a":{}})");  // Order as written.
  EXPECT_EQ(ParseJson("[1,", "test").status().code(), Code::kInvalidArgument);
}

std::string ReadFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteFileBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

// The one file under `dir` whose name ends with `suffix`.
std::string OnlyFile(const std::string& dir, const std::string& suffix) {
  std::string found;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string name = e.path().string();
    if (name.ends_with(suffix)) {
      EXPECT_TRUE(found.empty()) << "two files end with " << suffix;
      found = name;
    }
  }
  return found;
}

// A record whose bytes are not UTF-8 (a damaged object, or a future writer's bug) reads as
// Corruption naming the record, never as JSON that aborts whoever prints it.
TEST(ApiTest, ACommitRecordThatIsNotUtf8IsCorruptionNamingTheRecord) {
  TempDir dir;
  const std::string uri = dir.path() + "/g";
  DatabaseOptions options;
  options.actor = "tester";
  ASSERT_TRUE(Database::Init(uri, kSchema, options).ok());
  // The genesis record carries the actor; put a Latin-1 byte in it.
  const std::string record = uri + "/_graph/main/18446744073709551615.commit";
  std::string bytes = ReadFileBytes(record);
  const size_t at = bytes.find("\"tester\"");
  ASSERT_NE(at, std::string::npos) << bytes;
  bytes.replace(at, 8, "\"test\xe9r\"");
  WriteFileBytes(record, bytes);

  Result<std::unique_ptr<Database>> db = Database::Open(uri);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  Result<Json> commits = (*db)->ListCommits("main");
  ASSERT_FALSE(commits.ok());
  EXPECT_EQ(commits.status().code(), Code::kCorruption) << commits.status().ToString();
  EXPECT_EQ(commits.status().object(), "_graph/main/18446744073709551615.commit")
      << commits.status().ToString();
}

// A non-UTF-8 actor never reaches a record: the write is refused before anything is written.
TEST(ApiTest, AnActorThatIsNotUtf8IsRefusedAtInitAndOnWrites) {
  TempDir dir;
  const std::string uri = dir.path() + "/g";
  DatabaseOptions latin1;
  latin1.actor = "Jos\xe9";
  Result<std::unique_ptr<Database>> refused = Database::Init(uri, kSchema, latin1);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(), "actor is not valid UTF-8 (byte 0xe9 at offset 3)");
  EXPECT_EQ(Database::Open(uri).status().kind(), Kind::kNotFound);  // Nothing was written.
  ASSERT_TRUE(Database::Init(uri, kSchema).ok());
  Result<std::unique_ptr<Database>> db = Database::Open(uri, latin1);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  Result<Json> added = (*db)->Mutate(
      kQueries, "add", Json{{"name", "Ada"}, {"born", "1815-12-10"}, {"seen", 0}}, WriteTarget{});
  ASSERT_FALSE(added.ok());
  EXPECT_EQ(added.status().message(), "actor is not valid UTF-8 (byte 0xe9 at offset 3)");
  EXPECT_EQ((*db)->ListCommits("main")->size(), 1u);  // Genesis only.
  Result<Json> branch = (*db)->CreateBranch("review", "main");
  EXPECT_EQ(branch.status().message(), "actor is not valid UTF-8 (byte 0xe9 at offset 3)");
  Result<Json> bad_name = (*db)->CreateBranch("r\xe9view", "main");
  EXPECT_EQ(bad_name.status().message(), "branch name is not valid UTF-8 (byte 0xe9 at offset 1)");
}

// `schema show` reads the archive as every other reader does: bounded, and checked against the
// content hash the record names.
TEST(ApiTest, SchemaShowChecksTheArchiveAgainstItsContentHash) {
  TempDir dir;
  const std::string uri = dir.path() + "/g";
  Result<std::unique_ptr<Database>> created = Database::Init(uri, kSchema);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  Database& db = **created;
  ASSERT_TRUE(db.ShowSchema().ok());  // The handle now holds the catalog.
  const std::string archive = OnlyFile(uri + "/__history/schemas", ".schema");
  std::string bytes = ReadFileBytes(archive);
  const size_t at = bytes.find("node Person");
  ASSERT_NE(at, std::string::npos);
  bytes.replace(at, 11, "node Persob");  // Still a valid archive, but not the accepted one.
  WriteFileBytes(archive, bytes);
  Result<Json> shown = db.ShowSchema();
  ASSERT_FALSE(shown.ok());
  EXPECT_EQ(shown.status().code(), Code::kCorruption);
  EXPECT_EQ(shown.status().message(), "schema archive does not match its content hash");
  EXPECT_EQ(shown.status().object(),
            archive.substr(uri.size() + 1));  // "__history/schemas/{hash}.schema"
  // A huge object is refused from its size, not read.
  WriteFileBytes(archive, std::string((1 << 20) + 1, ' '));
  shown = db.ShowSchema();
  ASSERT_FALSE(shown.ok());
  EXPECT_EQ(shown.status().code(), Code::kCorruption);
}

// Date and DateTime parameters take every value of their types, and query output writes each in
// a form that reads back as a parameter (schema/temporal.h); an unsigned JSON integer beyond the
// type is refused, not wrapped.
TEST(ApiTest, DatesRoundTripThroughParametersAndOutputOverTheWholeRange) {
  TempDir dir;
  Result<std::unique_ptr<Database>> created = Database::Init(dir.path() + "/g", kSchema);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  Database& db = **created;
  constexpr std::string_view kGet = R"(
query get($n: String) { match { $p: Person { name: $n } } return { $p.born, $p.seen } }
)";
  struct Case {
    Json born, seen;
    std::string born_text, seen_text;
  };
  const Case cases[] = {
      {"-0001-12-31", "+10000-01-01T00:00:00.000Z", "-0001-12-31", "+10000-01-01T00:00:00.000Z"},
      {2932897, 253402300800000, "+10000-01-01", "+10000-01-01T00:00:00.000Z"},
      {-2147483648LL, Json(std::numeric_limits<int64_t>::min()), "-5877641-06-23",
       "-292275055-05-16T16:47:04.192Z"},
      {2147483647, Json(std::numeric_limits<int64_t>::max()), "+5881580-07-11",
       "+292278994-08-17T07:12:55.807Z"},
  };
  int i = 0;
  for (const Case& c : cases) {
    const std::string name = "p" + std::to_string(i++);
    Result<Json> added = db.Mutate(
        kQueries, "add", Json{{"name", name}, {"born", c.born}, {"seen", c.seen}}, WriteTarget{});
    ASSERT_TRUE(added.ok()) << added.status().ToString();
    Result<Json> got = db.Query(kGet, "", Json{{"n", name}});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ((*got)["rows"][0]["p.born"], c.born_text);
    EXPECT_EQ((*got)["rows"][0]["p.seen"], c.seen_text);
    // The output text is a parameter that means the same value.
    Result<Json> again = db.Mutate(
        kQueries, "add", Json{{"name", name + "b"}, {"born", c.born_text}, {"seen", c.seen_text}},
        WriteTarget{});
    ASSERT_TRUE(again.ok()) << again.status().ToString();
    got = db.Query(kGet, "", Json{{"n", name + "b"}});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ((*got)["rows"][0]["p.born"], c.born_text);
    EXPECT_EQ((*got)["rows"][0]["p.seen"], c.seen_text);
  }
  Result<Json> wrapped =
      db.Mutate(kQueries, "add",
                Json{{"name", "w"}, {"born", 18446744073709551615ULL}, {"seen", 0}}, WriteTarget{});
  EXPECT_EQ(wrapped.status().message(), "param 'born': date 18446744073709551615 is out of range");
  wrapped =
      db.Mutate(kQueries, "add",
                Json{{"name", "w"}, {"born", 0}, {"seen", 18446744073709551615ULL}}, WriteTarget{});
  EXPECT_EQ(wrapped.status().message(),
            "param 'seen': datetime 18446744073709551615 is out of range");
}

}  // namespace
}  // namespace omnigraph::api

namespace omnigraph::api {
namespace {

// Lint against a graph's accepted schema and against a schema source; a query that fails is in
// the report, a schema that does not parse is an error of the call.
TEST(ApiTest, LintsAgainstTheGraphOrASchemaSource) {
  TempDir dir;
  Result<std::unique_ptr<Database>> db = Database::Init(dir.path() + "/g", kSchema);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  constexpr std::string_view kRename =
      "query rename($n: String, $b: Date) { update Person set { born: $b } where name = $n }\n"
      "query bad() { match { $p: Persn } return { $p.name } }\n";
  Result<Json> on_graph = (*db)->Lint(kRename);
  ASSERT_TRUE(on_graph.ok()) << on_graph.status().ToString();
  EXPECT_EQ((*on_graph)["status"], "error");
  EXPECT_EQ((*on_graph)["queries_processed"], 2);
  EXPECT_EQ((*on_graph)["queries"][0]["status"], "ok");
  EXPECT_EQ((*on_graph)["queries"][1]["status"], "error");
  // L201: Person.seen is nullable and no update sets it.
  EXPECT_EQ((*on_graph)["findings"][0]["code"], "L201");
  Result<Json> offline = Database::LintWithSchema(kSchema, kRename);
  ASSERT_TRUE(offline.ok()) << offline.status().ToString();
  EXPECT_EQ(*offline, *on_graph);
  EXPECT_EQ(Database::LintWithSchema("node {", kRename).status().code(), Code::kInvalidArgument);
  EXPECT_EQ((*db)->Lint(kRename, "nope").status().code(), Code::kBranchNotFound);
}

TEST(ApiTest, VersionNamesTheStorageStampItWrites) {
  const Json v = Database::Version();
  EXPECT_FALSE(v["version"].string_value().empty());
  EXPECT_FALSE(v["build"].string_value().empty());
  TempDir dir;
  ASSERT_TRUE(Database::Init(dir.path() + "/g", kSchema).ok());
  std::ifstream in(dir.path() + "/g/_omnigraph.json");
  std::stringstream text;
  text << in.rdbuf();
  Result<Json> stamp = ParseJson(text.str(), "stamp");
  ASSERT_TRUE(stamp.ok()) << stamp.status().ToString();
  EXPECT_EQ((*stamp)["storage_stamp"], v["storage_stamp"]);
}

}  // namespace
}  // namespace omnigraph::api
