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
#include <set>
#include <sstream>
#include <system_error>
#include <thread>
#include <vector>

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
  // commit show is the same commit object plus the tables the commit touched.
  Json loaded_shown = *db.ShowCommit((*loaded)["commit"]["graph_commit_id"].get<std::string>());
  EXPECT_EQ(loaded_shown["tables"].size(), 2u);
  EXPECT_EQ(loaded_shown.erase("tables"), 1u);
  EXPECT_EQ(loaded_shown, (*loaded)["commit"]);

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
  EXPECT_FALSE(added->contains("warnings"));
  // An ignored file header warns in the output, as a query's envelope does (here a delete that
  // matches nothing, so no commit).
  Result<Json> warned = db.Mutate("set ann_nprobes = 2;\n" + std::string(kQueries), "fire",
                                  Json{{"p", "Nobody"}}, WriteTarget{});
  ASSERT_TRUE(warned.ok()) << warned.status().ToString();
  EXPECT_TRUE((*warned)["commit"].is_null());
  ASSERT_EQ((*warned)["warnings"].size(), 1u) << warned->dump();
  EXPECT_TRUE((*warned)["warnings"][0].get<std::string>().starts_with("1:1: Q003:"));

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
  // The commit object, plus the tables the commit touched with their counts.
  for (const Json::Member& m : (*commits)[2].members()) EXPECT_EQ((*shown)[m.first], m.second);
  EXPECT_EQ((*commits)[2]["summary"], "load append: +2 nodes");
  EXPECT_EQ((*commits)[1]["summary"], "mutate add: +1 node");
  ASSERT_EQ((*shown)["tables"].size(), 2u);
  EXPECT_EQ((*shown)["tables"][0].dump(),
            R"({"deleted":0,"inserted":1,"table_key":"node:Person","updated":0})");
  EXPECT_EQ((*shown)["tables"][1].dump(),
            R"({"deleted":0,"inserted":1,"table_key":"node:Company","updated":0})");
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

// A front end serving many actors opens the graph once: WithActor's handles publish as their
// actor, share the warm branch handles (a read through one after a read through another is one
// store call, counted on the shared handle) and outlive the handle they came from.
TEST(ApiTest, WithActorPublishesAsTheActorAndSharesTheWarmState) {
  TempDir dir;
  const std::string uri = dir.path() + "/g";
  DatabaseOptions options;
  options.actor = "opener";
  Result<std::unique_ptr<Database>> db = Database::Init(uri, kSchema, options);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  std::unique_ptr<Database> alice = (*db)->WithActor("alice");
  std::unique_ptr<Database> nobody = (*db)->WithActor(std::nullopt);
  Result<Json> added = alice->Mutate(
      kQueries, "add", Json{{"name", "Ada"}, {"born", "1815-12-10"}, {"seen", 0}}, WriteTarget{});
  ASSERT_TRUE(added.ok()) << added.status().ToString();
  EXPECT_EQ((*added)["actor_id"], "alice");
  ASSERT_TRUE(nobody->CreateBranch("review", "main").ok());
  ASSERT_TRUE(
      (*db)
          ->Load("{\"type\":\"Person\",\"data\":{\"name\":\"Bob\"}}\n", "merge", WriteTarget{})
          .ok());
  Result<Json> commits = (*db)->ListCommits("main", 10);
  ASSERT_TRUE(commits.ok()) << commits.status().ToString();
  ASSERT_EQ(commits->size(), 3u);
  EXPECT_EQ((*commits)[0]["actor_id"], "opener");
  EXPECT_EQ((*commits)[1]["actor_id"], "alice");

  constexpr std::string_view kNames = "query names() { match { $p: Person } return { $p.name } }";
  ASSERT_TRUE((*db)->Query(kNames, "", Json::object()).ok());
  const StoreCallCounts before = alice->StoreCalls();
  Result<Json> warm = alice->Query(kNames, "", Json::object());
  ASSERT_TRUE(warm.ok()) << warm.status().ToString();
  EXPECT_EQ(alice->StoreCalls().total() - before.total(), 1u);
  EXPECT_EQ((*db)->StoreCalls().total(), alice->StoreCalls().total());

  db->reset();
  Result<Json> after = alice->Query(kNames, "", Json::object());
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  EXPECT_EQ((*after)["row_count"], 2);
}

// The commit a read sees, before the read: a branch head (one store call when it has not moved)
// or a snapshot id checked to name a commit; export at that commit streams that state even after
// the branch moves on; schema show says the commit it read.
TEST(ApiTest, ResolveCommitAndExportAtASnapshot) {
  TempDir dir;
  const std::string uri = dir.path() + "/g";
  Result<std::unique_ptr<Database>> db = Database::Init(uri, kSchema);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  Result<Json> first =
      (*db)->Load("{\"type\":\"Person\",\"data\":{\"name\":\"Ada\"}}\n", "merge", WriteTarget{});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  Result<std::string> head = (*db)->ResolveCommit(ReadTarget{});
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  Result<Json> commits = (*db)->ListCommits("main", 1);
  ASSERT_TRUE(commits.ok());
  EXPECT_EQ(*head, (*commits)[0]["graph_commit_id"].get<std::string>());
  const StoreCallCounts before = (*db)->StoreCalls();
  EXPECT_EQ(*(*db)->ResolveCommit(ReadTarget{}), *head);
  EXPECT_EQ((*db)->StoreCalls().total() - before.total(), 1u);
  EXPECT_EQ((*(*db)->ShowSchema("main"))["graph_commit_id"], *head);

  ASSERT_TRUE(
      (*db)
          ->Load("{\"type\":\"Person\",\"data\":{\"name\":\"Bob\"}}\n", "merge", WriteTarget{})
          .ok());
  ReadTarget at;
  at.snapshot = *head;
  EXPECT_EQ(*(*db)->ResolveCommit(at), *head);
  std::string exported;
  Status streamed = (*db)->Export(at, {}, [&exported](std::string_view chunk) {
    exported += chunk;
    return Status::Ok();
  });
  ASSERT_TRUE(streamed.ok()) << streamed.ToString();
  EXPECT_NE(exported.find("Ada"), std::string::npos);
  EXPECT_EQ(exported.find("Bob"), std::string::npos);

  ReadTarget missing_branch;
  missing_branch.branch = "nope";
  EXPECT_EQ((*db)->ResolveCommit(missing_branch).status().code(), Code::kBranchNotFound);
  ReadTarget missing_commit;
  missing_commit.snapshot = "main.99.AAAAAAAAAA";
  EXPECT_EQ((*db)->ResolveCommit(missing_commit).status().code(), Code::kCommitNotFound);
}

// One handle shared by threads (the server's model): every insert gets its own commit, none is
// lost or published twice, and reads in between succeed.
TEST(ApiTest, OneHandleSharedByThreadsLosesNoCommit) {
  TempDir dir;
  const std::string uri = dir.path() + "/g";
  Result<std::unique_ptr<Database>> db = Database::Init(uri, kSchema);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  constexpr int kThreads = 4;
  constexpr int kWritesPerThread = 5;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::unique_ptr<Database> as = (*db)->WithActor("t" + std::to_string(t));
      for (int i = 0; i < kWritesPerThread; ++i) {
        const std::string name = "p" + std::to_string(t) + "-" + std::to_string(i);
        Result<Json> r =
            as->Mutate(kQueries, "add", Json{{"name", name}, {"born", "2000-01-01"}, {"seen", 0}},
                       WriteTarget{});
        if (!r.ok() || (*r)["commit"].is_null()) ++failures;
        if (!as->Query("query n() { match { $p: Person } return { $p.name } }", "", Json::object())
                 .ok()) {
          ++failures;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  Result<Json> commits = (*db)->ListCommits("main", 100);
  ASSERT_TRUE(commits.ok());
  // Writes that overlap may share a commit (group commit); none is lost (the row count below).
  EXPECT_LE(commits->size(), 1u + kThreads * kWritesPerThread);
  EXPECT_GE(commits->size(), 2u);
  std::set<std::string> ids;
  for (size_t i = 0; i < commits->size(); ++i) {
    ids.insert((*commits)[i]["graph_commit_id"].get<std::string>());
  }
  EXPECT_EQ(ids.size(), commits->size());
  Result<Json> people =
      (*db)->Query("query n() { match { $p: Person } return { $p.name } }", "", Json::object());
  ASSERT_TRUE(people.ok()) << people.status().ToString();
  EXPECT_EQ((*people)["row_count"], kThreads * kWritesPerThread);
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

// Database::Merge's outputs: merged with the exact commit, the source deleted on request, and
// conflicts as MergeConflicts with their array; a failed delete does not fail the merge.
TEST(ApiTest, MergeOutputsConflictsAndDeleteBranch) {
  TempDir dir;
  const std::string uri = dir.path() + "/graph";
  DatabaseOptions options;
  options.actor = "tester";
  std::unique_ptr<Database> db = std::move(*Database::Init(uri, kSchema, options));
  auto add = [&](const std::string& name, const std::string& branch, const char* born) {
    WriteTarget on;
    on.branch = branch;
    Result<Json> r =
        db->Mutate(kQueries, "add",
                   Json{{"name", name}, {"born", born}, {"seen", "2024-01-02T03:04:05Z"}}, on);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  };
  add("Ada", "main", "1815-12-10");
  ASSERT_TRUE(db->CreateBranch("x").ok());
  add("Grace", "x", "1906-12-09");
  add("Alan", "main", "1912-06-23");
  MergeOptions merge;
  merge.delete_branch = true;
  Result<Json> merged = db->Merge("x", merge);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ((*merged)["outcome"], "merged");
  EXPECT_EQ((*merged)["source"], "x");
  EXPECT_EQ((*merged)["target"], "main");
  EXPECT_EQ((*merged)["actor_id"], "tester");
  EXPECT_EQ((*merged)["branch_deleted"], true);
  ASSERT_TRUE((*merged)["commit"].is_string());
  Result<Json> shown = db->ShowCommit((*merged)["commit"].get<std::string>());
  ASSERT_TRUE(shown.ok());
  EXPECT_TRUE((*shown)["merged_parent_commit_id"].is_string());
  EXPECT_EQ(db->DeleteBranch("x").status().code(), Code::kBranchNotFound);

  ASSERT_TRUE(db->CreateBranch("y").ok());
  add("Edsger", "y", "1930-05-11");
  add("Edsger", "main", "1930-05-12");
  add("Barbara", "main", "1939-11-16");
  const Json head = (*db->ListCommits("main", 1))[0]["graph_commit_id"];
  Json conflicts;
  Result<Json> refused = db->Merge("y", {}, &conflicts);
  ASSERT_EQ(refused.status().code(), Code::kMergeConflicts);
  ASSERT_TRUE(conflicts.is_array());
  ASSERT_EQ(conflicts.size(), 1u);
  EXPECT_EQ(conflicts[0]["kind"], "divergent_insert");
  EXPECT_EQ(conflicts[0]["entity_kind"], "node");
  EXPECT_EQ(conflicts[0]["type_name"], "Person");
  EXPECT_TRUE(conflicts[0]["entity_id"].is_string());
  EXPECT_EQ((*db->ListCommits("main", 1))[0]["graph_commit_id"], head);
  // A branch cannot be merged into itself.
  MergeOptions into_y;
  into_y.target = "y";
  EXPECT_EQ(db->Merge("y", into_y).status().code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace omnigraph::api

namespace omnigraph::api {
namespace {

// History pages through a branch's fork into its parent, newest first; `commit show` is one
// record read; the snapshot object describes a head or a past commit.
TEST(ApiHistoryTest, PagesFollowTheForkShowIsOneReadAndSnapshotsDescribeTheirTables) {
  TempDir dir;
  const std::string uri = dir.path() + "/g";
  ASSERT_TRUE(Database::Init(uri, kSchema).ok());
  Result<std::unique_ptr<Database>> opened = Database::Open(uri);
  ASSERT_TRUE(opened.ok());
  Database& db = **opened;
  for (const char* name : {"A", "B", "C"}) {
    ASSERT_TRUE(db.Mutate(kQueries, "add",
                          Json{{"name", name}, {"born", "1815-12-10"}, {"seen", 0}}, WriteTarget{})
                    .ok());
  }
  ASSERT_TRUE(db.CreateBranch("review").ok());
  WriteTarget review;
  review.branch = "review";
  ASSERT_TRUE(
      db.Mutate(kQueries, "add", Json{{"name", "D"}, {"born", "1815-12-10"}, {"seen", 0}}, review)
          .ok());
  // Five commits on review's history (D, C, B, A, genesis), in pages of two.
  std::vector<std::string> summaries;
  std::string token;
  int pages = 0;
  do {
    Result<Json> page = db.CommitHistory("review", 2, token);
    ASSERT_TRUE(page.ok()) << page.status().ToString();
    ++pages;
    for (const Json& c : (*page)["commits"]) {
      summaries.push_back(c.contains("summary") ? c["summary"].string_value() : "(genesis)");
    }
    token = page->contains("next_page_token") ? (*page)["next_page_token"].string_value() : "";
  } while (!token.empty());
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(summaries,
            (std::vector<std::string>{"mutate add: +1 node", "mutate add: +1 node",
                                      "mutate add: +1 node", "mutate add: +1 node", "(genesis)"}));
  EXPECT_EQ(db.CommitHistory("main", 10, "no-colon").status().code(), Code::kInvalidArgument);

  Result<Json> head = db.CommitHistory("review", 1, "");
  ASSERT_TRUE(head.ok());
  const std::string id = (*head)["commits"][0]["graph_commit_id"].string_value();
  const StoreCallCounts before = db.StoreCalls();
  Result<Json> shown = db.ShowCommit(id);
  const StoreCallCounts after = db.StoreCalls();
  ASSERT_TRUE(shown.ok()) << shown.status().ToString();
  // One read: one get, no head or list, and no conditional write or delete. Plain puts are not
  // counted: the hint the last mutation left to the background may land in this window on a
  // loaded machine (a CI run met it: two puts).
  EXPECT_EQ(after.gets - before.gets, 1u);
  EXPECT_EQ(after.heads - before.heads, 0u);
  EXPECT_EQ(after.lists - before.lists, 0u);
  EXPECT_EQ(after.put_if_absent - before.put_if_absent, 0u);
  EXPECT_EQ(after.put_if_match - before.put_if_match, 0u);
  EXPECT_EQ(after.deletes - before.deletes, 0u);

  ReadTarget at_head;
  at_head.branch = "review";
  Result<Json> snap = db.Snapshot(at_head);
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  EXPECT_EQ((*snap)["graph_commit_id"], id);
  EXPECT_EQ((*snap)["graph_branch"], "review");
  EXPECT_EQ((*snap)["graph_manifest_version"], 4);
  EXPECT_EQ((*snap)["internal_schema_version"], 1);
  ASSERT_EQ((*snap)["datasets"].size(), 3u);
  const Json& person = (*snap)["datasets"][0];
  EXPECT_EQ(person["entity_kind"], "node");
  EXPECT_EQ(person["type_name"], "Person");
  EXPECT_EQ(person["entity_count"], 4);
  EXPECT_EQ(person["dataset_path"].string_value().rfind("tables/", 0), 0u);
  // At a past commit: the state there.
  ReadTarget past;
  past.snapshot =
      (*db.CommitHistory("main", 2, ""))["commits"][1]["graph_commit_id"].string_value();
  Result<Json> then = db.Snapshot(past);
  ASSERT_TRUE(then.ok()) << then.status().ToString();
  EXPECT_EQ((*then)["graph_manifest_version"], 2);
  EXPECT_EQ((*then)["graph_branch"], "main");
  EXPECT_EQ((*then)["datasets"][0]["entity_count"], 2);
  past.snapshot = "main.99.AAAAAAAAAA";
  EXPECT_EQ(db.Snapshot(past).status().code(), Code::kCommitNotFound);

  // A commit whose ids spilled to a delta object: `commit show` is still one record read, since
  // the counts stay in the record.
  std::string ndjson;
  for (int i = 0; i < 3000; ++i) {
    ndjson += "{\"type\":\"Company\",\"data\":{\"name\":\"company-" + std::to_string(i) + "\"}}\n";
  }
  Result<Json> loaded = db.Load(ndjson, "append", WriteTarget{});
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  const std::string big =
      (*db.CommitHistory("main", 1, ""))["commits"][0]["graph_commit_id"].string_value();
  const StoreCallCounts before_big = db.StoreCalls();
  Result<Json> big_shown = db.ShowCommit(big);
  const StoreCallCounts after_big = db.StoreCalls();
  ASSERT_TRUE(big_shown.ok()) << big_shown.status().ToString();
  EXPECT_EQ(after_big.total() - before_big.total(), 1u);
  EXPECT_EQ((*big_shown)["tables"][0]["inserted"], 3000);
  // Its entity changes read the delta and list every id, in pages of at most 1,000 by default.
  std::set<std::string> listed;
  CommitChangesRequest request;
  size_t change_pages = 0;
  for (;;) {
    ++change_pages;
    Result<Json> big_changes = db.CommitChanges(big, request);
    ASSERT_TRUE(big_changes.ok()) << big_changes.status().ToString();
    EXPECT_LE((*big_changes)["changes"].size(), 1000u);
    for (const Json& c : (*big_changes)["changes"]) listed.insert(c["id"].string_value());
    if (!big_changes->contains("next_page_token")) break;
    request.page_token = (*big_changes)["next_page_token"].string_value();
  }
  EXPECT_EQ(change_pages,
            3u);  // Three full pages: the third ends at the last change, with no token.
  EXPECT_EQ(listed.size(), 3000u);
  request = CommitChangesRequest{.limit = 3000};
  Result<Json> whole = db.CommitChanges(big, request);
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  EXPECT_EQ((*whole)["changes"].size(), 3000u);
  EXPECT_FALSE(whole->contains("next_page_token"));
}

// Branch statements through the public API, the way `omnigraph mutate` and `query` run them.
TEST(ApiTest, BranchStatementsRunThroughMutateAndQuery) {
  Result<std::unique_ptr<Database>> created = Database::Init("memory://branch-statements", kSchema);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  Database& db = **created;
  Result<Json> made = db.Mutate("branch create \"review/x\"", "", Json::object(), WriteTarget{});
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  EXPECT_EQ((*made)["query_name"], "branch create");
  EXPECT_EQ((*made)["branch"], "review/x");
  EXPECT_EQ((*made)["affected_nodes"], 0);
  EXPECT_TRUE((*made)["commit"].is_null());
  Result<Json> listed = db.Query("branch list", "", Json::object(), ReadTarget{});
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  EXPECT_EQ((*listed)["query_name"], "branch list");
  EXPECT_EQ((*listed)["row_count"], 2);
  EXPECT_EQ((*listed)["columns"][0], "name");
  EXPECT_EQ((*listed)["rows"][1]["name"], "review/x");
  Result<Json> merged = db.Mutate("branch merge \"review/x\"", "", Json::object(), WriteTarget{});
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ((*merged)["outcome"], "already_up_to_date");
  EXPECT_TRUE((*merged)["commit"].is_null());
  ASSERT_TRUE(db.Mutate("branch delete \"review/x\"", "", Json::object(), WriteTarget{}).ok());
  EXPECT_EQ((*db.Query("branch list", "", Json::object(), ReadTarget{}))["row_count"], 1);
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
  EXPECT_EQ((*on_graph)["results"][0]["status"], "ok");
  EXPECT_EQ((*on_graph)["results"][1]["status"], "error");
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

// The idempotency key of the API (docs/design/idempotency.md): the same key and request answer
// alike and commit once; the same key with other parameters is IdempotencyConflict.
TEST(ApiTest, AnIdempotencyKeyMakesAMutationSafeToRetry) {
  TempDir dir;
  Result<std::unique_ptr<Database>> db = Database::Init(dir.path() + "/g", kSchema);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  WriteTarget keyed;
  keyed.idempotency_key = "req-1";
  const Json params{{"name", "ada"}, {"born", "2000-01-01"}, {"seen", 0}};
  Result<Json> first = (*db)->Mutate(kQueries, "add", params, keyed);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  Result<Json> again = (*db)->Mutate(kQueries, "add", params, keyed);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ((*again)["commit"]["graph_commit_id"], (*first)["commit"]["graph_commit_id"]);
  EXPECT_EQ((*again)["affected_nodes"], 1);
  Result<Json> show = (*db)->ShowCommit((*first)["commit"]["graph_commit_id"].get<std::string>());
  ASSERT_TRUE(show.ok());
  EXPECT_EQ((*show)["idempotency_key"], "req-1");
  Result<Json> other = (*db)->Mutate(
      kQueries, "add", Json{{"name", "bob"}, {"born", "2000-01-01"}, {"seen", 0}}, keyed);
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().code(), Code::kIdempotencyConflict);
  EXPECT_EQ(CodeName(other.status().code()), "idempotency_conflict");
  Result<Json> commits = (*db)->ListCommits("main", 100);
  ASSERT_TRUE(commits.ok());
  EXPECT_EQ(commits->size(), 2u) << "genesis and the one keyed commit";
}

// A read at a commit from before a rename answers to the names of that time and to today's,
// mapped by stable id: queries (the prepared path and the full one), exports by type, and
// `schema show` of that commit, which prints the schema it accepted.
TEST(ApiHistoryTest, ReadsAtAPastCommitAcceptTodaysNamesOfRenamedTypesAndProperties) {
  constexpr std::string_view kThen = R"(
node Person { name: String @key  age: I32? }
edge Knows: Person -> Person { since: I32? }
)";
  constexpr std::string_view kNow = R"(
node Human @rename_from("Person") { name: String @key  years: I32? @rename_from("age") }
edge Met: Human -> Human @rename_from("Knows") { year: I32? @rename_from("since") }
)";
  Result<std::unique_ptr<Database>> created = Database::Init("memory://renamed-reads", kThen);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  Database& db = **created;
  ASSERT_TRUE(
      db.Load("{\"type\":\"Person\",\"data\":{\"name\":\"ada\",\"age\":36}}\n"
              "{\"type\":\"Person\",\"data\":{\"name\":\"bob\",\"age\":41}}\n"
              "{\"edge\":\"Knows\",\"from\":\"ada\",\"to\":\"bob\",\"data\":{\"since\":2020}}\n",
              "append", WriteTarget{})
          .ok());
  const std::string then = *db.ResolveCommit(ReadTarget{});
  Result<Json> applied = db.ApplySchema(kNow);
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  ASSERT_TRUE(db.Load("{\"type\":\"Human\",\"data\":{\"name\":\"cy\",\"years\":5}}\n", "append",
                      WriteTarget{})
                  .ok());
  ReadTarget at;
  at.snapshot = then;
  auto rows = [&](std::string_view source, const ReadTarget& target) {
    Result<Json> out = db.Query(source, "", Json::object(), target);
    EXPECT_TRUE(out.ok()) << source << ": " << out.status().ToString();
    return out.ok() ? (*out)["rows"].dump() : std::string();
  };
  // The names of that time, today's, and the two mixed: the same rows of that commit.
  const std::string then_names =
      "query q() { match { $a: Person  $a knows $b } "
      "return { $a.name as name, $a.age as n, $b.name as to } }";
  EXPECT_EQ(rows(then_names, at), R"([{"name":"ada","n":36,"to":"bob"}])");
  const std::string now_names =
      "query q() { match { $a: Human  $a met $b } "
      "return { $a.name as name, $a.years as n, $b.name as to } }";
  EXPECT_EQ(rows(now_names, at), rows(then_names, at));
  const std::string mixed =
      "query q() { match { $a: Human  $a knows $b } "
      "return { $a.name as name, $a.age as n, $b.name as to } }";
  EXPECT_EQ(rows(mixed, at), rows(then_names, at));
  // A second run of the same source takes the prepared path.
  EXPECT_EQ(rows(now_names, at), rows(then_names, at));
  // At the head only today's names exist; cy is not in the past commit.
  EXPECT_EQ(rows("query q() { match { $p: Human } return { count($p) as n } }", ReadTarget{}),
            R"([{"n":3}])");
  EXPECT_EQ(rows("query q() { match { $p: Human } return { count($p) as n } }", at),
            R"([{"n":2}])");
  Result<Json> old_at_head = db.Query("query q() { match { $p: Person } return { $p.name } }", "",
                                      Json::object(), ReadTarget{});
  EXPECT_EQ(old_at_head.status().code(), Code::kInvalidArgument);
  // A name neither then nor now is refused with the typechecker's message of that commit.
  Result<Json> unknown =
      db.Query("query q() { match { $p: Robot } return { $p.name } }", "", Json::object(), at);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("Robot"), std::string::npos);

  // Export by either name of the type: the rows of that commit, written with that time's names.
  auto exported = [&](const std::string& type) {
    std::string out;
    Status s = db.Export(at, {type}, [&out](std::string_view chunk) {
      out += chunk;
      return Status::Ok();
    });
    EXPECT_TRUE(s.ok()) << type << ": " << s.ToString();
    return out;
  };
  const std::string people = exported("Person");
  EXPECT_NE(people.find("\"type\":\"Person\""), std::string::npos) << people;
  EXPECT_EQ(people.find("cy"), std::string::npos);
  EXPECT_EQ(exported("Human"), people);
  EXPECT_EQ(exported("Met"), exported("Knows"));
  EXPECT_NE(exported("Met").find("\"since\":2020"), std::string::npos);

  // The schema that commit accepted, beside today's.
  Result<Json> schema_then = db.ShowSchema(at);
  ASSERT_TRUE(schema_then.ok()) << schema_then.status().ToString();
  EXPECT_EQ((*schema_then)["source"], std::string(kThen));
  EXPECT_EQ((*schema_then)["graph_commit_id"], then);
  EXPECT_EQ((*db.ShowSchema("main"))["source"], std::string(kNow));
  ReadTarget nowhere;
  nowhere.snapshot = "main.99.AAAAAAAAAA";
  EXPECT_EQ(db.ShowSchema(nowhere).status().code(), Code::kCommitNotFound);
}

// OmniGraph's point_in_time test "historical query resolves rename by identity but rejects
// reincarnation": once a name is given to a new type, a read at a commit from before names that
// new type, which did not exist then — refused, never answered with the old incarnation's rows
// (queries, exports and Blob reads alike); the renamed type still answers to today's name.
TEST(ApiHistoryTest, APastReadRefusesANameTodayGivesToAnotherType) {
  Result<std::unique_ptr<Database>> created =
      Database::Init("memory://reincarnated-reads",
                     "node Person { name: String @key  photo: Blob? }\n"
                     "node Anchor { name: String @key }\n");
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  Database& db = **created;
  ASSERT_TRUE(
      db.Load("{\"type\":\"Person\",\"data\":{\"name\":\"Alice\",\"photo\":\"base64:aGk=\"}}\n",
              "merge", WriteTarget{})
          .ok());
  ReadTarget before;
  before.snapshot = *db.ResolveCommit(ReadTarget{});
  auto names = [&](std::string_view type) -> Result<std::string> {
    const std::string source =
        "query q() { match { $p: " + std::string(type) + " } return { $p.name } }";
    OMNIGRAPH_ASSIGN_OR_RETURN(Json out, db.Query(source, "", Json::object(), before));
    return out["rows"].dump();
  };
  ASSERT_TRUE(
      db.ApplySchema("node Human @rename_from(\"Person\") { name: String @key  photo: Blob? }\n"
                     "node Anchor { name: String @key }\n")
          .ok());
  EXPECT_EQ(names("Human").value_or(""), R"([{"p.name":"Alice"}])");
  EXPECT_EQ(names("Person").value_or(""), R"([{"p.name":"Alice"}])")
      << "a name of that time no type holds today still answers";
  Result<Json> again = db.ApplySchema(
      "node Human { name: String @key  photo: Blob? }\n"
      "node Person { name: String @key  photo: Blob? }\n"
      "node Anchor { name: String @key }\n");
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(names("Human").value_or(""), R"([{"p.name":"Alice"}])")
      << "reusing the old name does not take the renamed type's history";
  const std::string gone = "node type 'Person' does not exist at this snapshot";
  Result<std::string> person = names("Person");
  ASSERT_FALSE(person.ok()) << *person;
  EXPECT_NE(person.status().message().find(gone), std::string::npos) << person.status().ToString();
  // A second run takes the prepared path and is refused the same.
  EXPECT_EQ(names("Person").status().message(), person.status().message());
  Status exported = db.Export(before, {"Person"}, [](std::string_view) { return Status::Ok(); });
  EXPECT_NE(exported.message().find(gone), std::string::npos) << exported.ToString();
  std::string human;
  ASSERT_TRUE(db.Export(before, {"Human"}, [&human](std::string_view chunk) {
                  human += chunk;
                  return Status::Ok();
                }).ok());
  EXPECT_NE(human.find("Alice"), std::string::npos) << human;
  Result<Json> stat = db.StatBlob(BlobSelector{"node", "Person", "Alice", "photo"}, before);
  ASSERT_FALSE(stat.ok());
  EXPECT_NE(stat.status().message().find(gone), std::string::npos) << stat.status().ToString();
  EXPECT_TRUE(db.StatBlob(BlobSelector{"node", "Human", "Alice", "photo"}, before).ok());
  // At the head the new Person is an ordinary, empty type.
  Result<Json> head = db.Query("query q() { match { $p: Person } return { $p.name } }", "",
                               Json::object(), ReadTarget{});
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  EXPECT_EQ((*head)["rows"].dump(), "[]");
}

}  // namespace
}  // namespace omnigraph::api

namespace omnigraph::api {
namespace {

// Loads from a file and from a reader stream the input (docs/design/load.md "Streaming"); each
// answers as a load of the same string would, and every long call reports its progress.
TEST(ApiLoadTest, AFileAndAReaderLoadAsTheStringDoes) {
  TempDir dir;
  std::string input;
  for (int i = 0; i < 500; ++i) {
    input += "{\"type\":\"Person\",\"data\":{\"name\":\"p" + std::to_string(i) + "\"}}\n";
  }
  input += "{\"type\":\"Company\",\"data\":{\"name\":\"Acme\"}}\n";
  input +=
      "{\"edge\":\"WorksAt\",\"id\":\"w1\",\"from\":\"p1\",\"to\":\"Acme\"}";  // No final newline.
  const std::string path = dir.path() + "/in.jsonl";
  std::ofstream(path, std::ios::binary) << input;

  auto counts = [](const Json& out) {
    return Json{{"nodes", out["nodes"]}, {"edges", out["edges"]}, {"total", out["total_entities"]}};
  };
  std::unique_ptr<Database> a = std::move(*Database::Init(dir.path() + "/a", kSchema));
  std::unique_ptr<Database> b = std::move(*Database::Init(dir.path() + "/b", kSchema));
  std::unique_ptr<Database> c = std::move(*Database::Init(dir.path() + "/c", kSchema));
  Result<Json> from_string = a->Load(input, "append", WriteTarget{});
  ASSERT_TRUE(from_string.ok()) << from_string.status().ToString();
  Result<Json> from_file = b->LoadFile(path, "append", WriteTarget{});
  ASSERT_TRUE(from_file.ok()) << from_file.status().ToString();
  // A reader that hands over a few bytes at a time, cutting lines anywhere.
  size_t offset = 0;
  size_t reads = 0;
  LoadReader reader = [&](char* buffer, size_t capacity) -> Result<size_t> {
    ++reads;
    const size_t n = std::min({capacity, size_t{37}, input.size() - offset});
    std::copy_n(input.data() + offset, n, buffer);
    offset += n;
    return n;
  };
  Result<Json> from_reader = c->LoadStream(reader, "append", WriteTarget{});
  ASSERT_TRUE(from_reader.ok()) << from_reader.status().ToString();
  EXPECT_EQ((*from_string)["total_entities"], 502);
  EXPECT_EQ(counts(*from_file), counts(*from_string));
  EXPECT_EQ(counts(*from_reader), counts(*from_string));
  EXPECT_EQ(reads, (input.size() + 36) / 37 + 1);  // The last read says the end.
  auto exported = [](Database& db) {
    std::string out;
    EXPECT_TRUE(db.Export("main", {}, [&](std::string_view chunk) {
                    out.append(chunk);
                    return Status::Ok();
                  }).ok());
    return out;
  };
  EXPECT_EQ(exported(*b), exported(*a));
  EXPECT_EQ(exported(*c), exported(*a));

  // A missing file, a directory: InvalidArgument naming it; a failing reader: its status.
  Result<Json> missing = b->LoadFile(dir.path() + "/nope.jsonl", "append", WriteTarget{});
  EXPECT_EQ(missing.status().kind(), Kind::kInvalidArgument);
  EXPECT_NE(missing.status().message().find("No such file"), std::string::npos)
      << missing.status().message();
  EXPECT_NE(b->LoadFile(dir.path(), "merge", WriteTarget{}).status().message().find("directory"),
            std::string::npos);
  Result<Json> failed = c->LoadStream(
      [](char*, size_t) -> Result<size_t> { return Status(Code::kTransient, "the pipe broke"); },
      "merge", WriteTarget{});
  EXPECT_EQ(failed.status().code(), Code::kTransient);
  EXPECT_EQ(failed.status().message(), "the pipe broke");
  // A bad line of a file names the line.
  std::ofstream(dir.path() + "/bad.jsonl", std::ios::binary)
      << "{\"type\":\"Person\",\"data\":{\"name\":\"q\"}}\n{\"type\":\"Nobody\"}\n";
  EXPECT_EQ(b->LoadFile(dir.path() + "/bad.jsonl", "merge", WriteTarget{}).status().message(),
            "line 2: unknown node type 'Nobody'");
}

TEST(ApiLoadTest, AKeyedFileOrStreamLoadIsSafeToRetryAndAgreesWithTheString) {
  TempDir dir;
  const std::string input =
      "{\"type\":\"Person\",\"data\":{\"name\":\"Ada\"}}\n"
      "{\"type\":\"Person\",\"data\":{\"name\":\"Grace\"}}\n";
  const std::string path = dir.path() + "/in.jsonl";
  std::ofstream(path, std::ios::binary) << input;
  std::unique_ptr<Database> db = std::move(*Database::Init(dir.path() + "/g", kSchema));
  WriteTarget keyed;
  keyed.idempotency_key = "load-1";
  auto stream = [&input]() {
    auto offset = std::make_shared<size_t>(0);
    return LoadReader([&input, offset](char* buffer, size_t capacity) -> Result<size_t> {
      const size_t n = std::min(capacity, input.size() - *offset);
      std::copy_n(input.data() + *offset, n, buffer);
      *offset += n;
      return n;
    });
  };
  Result<Json> first = db->LoadFile(path, "append", keyed);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  const Json commit = (*first)["commit"]["graph_commit_id"];
  const size_t commits = db->ListCommits("main", 10)->size();
  // The same request again, from the file, from a stream or as a string: the first answer.
  Result<Json> again_file = db->LoadFile(path, "append", keyed);
  Result<Json> again_stream = db->LoadStream(stream(), "append", keyed);
  Result<Json> again_string = db->Load(input, "append", keyed);
  for (const Result<Json>* again : {&again_file, &again_stream, &again_string}) {
    ASSERT_TRUE(again->ok()) << again->status().ToString();
    EXPECT_EQ((**again)["commit"]["graph_commit_id"], commit);
    EXPECT_EQ((**again)["total_entities"], 2);
  }
  EXPECT_EQ(db->ListCommits("main", 10)->size(), commits);
  // Another input under the same key is refused.
  std::ofstream(path, std::ios::binary)
      << input << "{\"type\":\"Person\",\"data\":{\"name\":\"X\"}}\n";
  EXPECT_EQ(db->LoadFile(path, "append", keyed).status().code(), Code::kIdempotencyConflict);
}

TEST(ApiProgressTest, LongCallsReportTheirProgressAndFinish) {
  TempDir dir;
  std::vector<Progress> events;
  DatabaseOptions options;
  options.progress = [&](const Progress& p) { events.push_back(p); };
  std::unique_ptr<Database> db = std::move(*Database::Init(dir.path() + "/g", kSchema, options));
  std::string input;
  for (int i = 0; i < 300; ++i) {
    input += "{\"type\":\"Person\",\"data\":{\"name\":\"p" + std::to_string(i) + "\"}}\n";
  }
  const std::string path = dir.path() + "/in.jsonl";
  std::ofstream(path, std::ios::binary) << input;
  auto last_of = [&](const std::string& operation) -> std::optional<Progress> {
    std::optional<Progress> last;
    for (const Progress& p : events) {
      if (p.operation == operation) last = p;
    }
    return last;
  };

  ASSERT_TRUE(db->LoadFile(path, "append", WriteTarget{}).ok());
  std::optional<Progress> load = last_of("load");
  ASSERT_TRUE(load.has_value());
  EXPECT_TRUE(load->finished);
  EXPECT_EQ(load->done, 300u);
  EXPECT_EQ(load->unit, "entities");
  EXPECT_EQ(load->bytes_total, std::optional<uint64_t>(input.size()));
  EXPECT_EQ(load->bytes_done, input.size());
  EXPECT_GE(load->elapsed_micros, 0);
  EXPECT_EQ(events.front().phase, "reading");

  ASSERT_TRUE(db->Export("main", {}, [](std::string_view) { return Status::Ok(); }).ok());
  std::optional<Progress> exported = last_of("export");
  ASSERT_TRUE(exported.has_value());
  EXPECT_TRUE(exported->finished);
  EXPECT_EQ(exported->done, 300u);
  EXPECT_EQ(exported->total, std::optional<uint64_t>(300));

  ASSERT_TRUE(db->CreateBranch("side").ok());
  WriteTarget side;
  side.branch = "side";
  ASSERT_TRUE(
      db->Load("{\"type\":\"Company\",\"data\":{\"name\":\"Acme\"}}\n", "append", side).ok());
  ASSERT_TRUE(db->Load("{\"type\":\"Person\",\"data\":{\"name\":\"Zed\"}}\n", "append", {}).ok());
  ASSERT_TRUE(db->Merge("side").ok());
  std::optional<Progress> merged = last_of("merge");
  ASSERT_TRUE(merged.has_value());
  EXPECT_TRUE(merged->finished);
  EXPECT_EQ(merged->unit, "tables");
  EXPECT_EQ(merged->total, std::optional<uint64_t>(3));  // Person, Company, WorksAt.
  EXPECT_EQ(merged->done, 3u);

  CleanupRequest cleanup;
  cleanup.keep = 1;
  cleanup.dry_run = true;
  ASSERT_TRUE(db->Cleanup(cleanup).ok());
  std::optional<Progress> cleaned = last_of("cleanup");
  ASSERT_TRUE(cleaned.has_value());
  EXPECT_TRUE(cleaned->finished);
  EXPECT_EQ(cleaned->done, *cleaned->total);
  EXPECT_GE(cleaned->done, 3u);

  // A call that fails reports no finish.
  events.clear();
  EXPECT_FALSE(db->Load("{\"type\":\"Nobody\"}\n", "append", {}).ok());
  for (const Progress& p : events) EXPECT_FALSE(p.finished);
}

}  // namespace
}  // namespace omnigraph::api
