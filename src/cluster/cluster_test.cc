// Cluster directories: cluster.yaml errors, the ledger's conditional writes under real threads,
// plan/apply/idempotence, approval of a deletion, drift through refresh and status, and what a
// server reads (ReadApplied).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include "cluster/config.h"
#include "cluster/ledger.h"
#include "engine/api/api_values.h"
#include "omnigraph/cluster.h"
#include "omnigraph/omnigraph.h"
#include "storage/uri.h"

namespace omnigraph::cluster {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSchema1 = "node Person {\n    name: String @key\n    age: I32?\n}\n";
constexpr const char* kSchema2 =
    "node Person {\n    name: String @key\n    age: I32?\n    email: String?\n}\n";
constexpr const char* kQueries =
    "query people() {\n    match { $p: Person }\n    return { $p.name }\n}\n";
constexpr const char* kPolicy = "version: 1\nrules: []\n";

// The engine's JSON of an API value (nlohmann: iteration, value()).
Json J(const api::Json& j) { return engine::FromApi(j); }

std::string TempDir() {
  std::string tmpl = (fs::temp_directory_path() / "cluster_test_XXXXXX").string();
  char* made = mkdtemp(tmpl.data());
  EXPECT_NE(made, nullptr);
  return tmpl;
}

void Write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
}

std::string ReadText(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

constexpr const char* kClusterYaml = R"(version: 1
metadata:
  name: tiny
graphs:
  g:
    schema: g.pg
    queries: queries/
policies:
  base:
    file: base.policy.yaml
    applies_to: [g]
  server:
    file: server.policy.yaml
    applies_to: [cluster]
)";

// A small cluster directory: one graph `g`, one query file, two policy bundles.
std::string SmallCluster(const std::string& yaml = kClusterYaml) {
  std::string dir = TempDir();
  Write(fs::path(dir) / "cluster.yaml", yaml);
  Write(fs::path(dir) / "g.pg", kSchema1);
  Write(fs::path(dir) / "queries/people.gq", kQueries);
  Write(fs::path(dir) / "base.policy.yaml", kPolicy);
  Write(fs::path(dir) / "server.policy.yaml", kPolicy);
  return dir;
}

Options Opts(const std::string& dir, const std::string& actor = "ana") {
  Options o;
  o.config_dir = dir;
  o.actor = actor;
  return o;
}

std::string CookbookDir() {
  const char* root = getenv("OMNIGRAPH_SOURCE_DIR");
  return std::string(root ? root : OMNIGRAPH_SOURCE_DIR_FALLBACK) +
         "/../shared/fixtures/cookbooks/industry-intel";
}

// --- cluster.yaml errors: each names the file, the key path and a fix; nothing is written.

struct BadConfig {
  std::string yaml;
  std::vector<std::string> expected;
};

TEST(ClusterConfig, ErrorsNameFileKeyAndFix) {
  std::vector<BadConfig> cases = {
      {"version: 1\ngraphs:\n  g:\n    schemma: g.pg\n",
       {"cluster.yaml:4", "graphs.g.schemma", "unknown key", "fix:"}},
      {"version: 1\ngraphs:\n  g:\n    schema: g.pg\npolicies:\n  p:\n    file: base.policy.yaml\n"
       "    applies_to: [nope]\n",
       {"policies.p.applies_to[0]", "unknown graph `nope`", "fix:"}},
      {"version: 1\ngraphs:\n  g:\n    schema: [g.pg]\n", {"graphs.g.schema", "must be a string"}},
      {"version: 2\n", {"version", "must be 1"}},
      {"version: 1\npipelines: {}\n", {"pipelines", "reserved"}},
      {"version: 1\ngraphs:\n  g:\n    schema: missing.pg\n",
       {"graphs.g.schema", "missing.pg", "does not exist"}},
      {"version: 1\ngraphs:\n  g:\n    schema: g.pg\n    embedding_provider: nope\n",
       {"graphs.g.embedding_provider", "unknown embedding provider"}},
      {"version: 1\nproviders:\n  embedding:\n    e:\n      kind: openai\n      api_key: sk-123\n",
       {"providers.embedding.e.api_key", "inline secrets"}},
      {"version: 1\nstate:\n  lock: maybe\n", {"state.lock", "true or false"}},
      {"version: 1\nversion: 1\n", {"duplicate key"}},
  };
  for (const BadConfig& c : cases) {
    std::string dir = SmallCluster(c.yaml);
    api::Result<api::Json> out = Validate(Opts(dir));
    ASSERT_FALSE(out.ok()) << c.yaml;
    EXPECT_EQ(out.status().code(), api::Code::kInvalidArgument) << c.yaml;
    EXPECT_NE(out.status().message().find(dir + "/cluster.yaml"), std::string::npos)
        << out.status().message();
    for (const std::string& e : c.expected) {
      EXPECT_NE(out.status().message().find(e), std::string::npos)
          << "expected `" << e << "` in: " << out.status().message();
    }
    EXPECT_FALSE(fs::exists(fs::path(dir) / "__cluster")) << c.yaml;
    fs::remove_all(dir);
  }
}

TEST(ClusterConfig, QueryErrorsNameTheQueryAndFile) {
  std::string dir = SmallCluster();
  Write(fs::path(dir) / "queries/bad.gq",
        "query broken() {\n    match { $p: Persn }\n    return { $p.name }\n}\n");
  api::Result<api::Json> out = Validate(Opts(dir));
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("query_type_error: `queries/bad.gq` query broken"),
            std::string::npos)
      << out.status().message();
  Write(fs::path(dir) / "queries/bad.gq", kQueries);
  out = Validate(Opts(dir));
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("duplicate_query_name: query people"), std::string::npos)
      << out.status().message();
  fs::remove_all(dir);
}

TEST(ClusterConfig, CookbookValidates) {
  std::string dir = TempDir();
  fs::copy(CookbookDir(), dir, fs::copy_options::recursive);
  api::Result<api::Json> out = Validate(Opts(dir));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)["cluster"].get<std::string>(), "spike-intel");
  Json queries = J((*out)["queries"]);
  EXPECT_NE(std::find(queries.begin(), queries.end(), "query.spike.recent_signals"), queries.end())
      << queries.dump();
  fs::remove_all(dir);
}

// --- The ledger's conditional writes under real threads, on a memory store and a local dir.

std::shared_ptr<storage::ObjectStore> StoreFor(bool local, const std::string& tag) {
  static std::atomic<int> n{0};
  std::string uri = local ? TempDir() : "memory://cluster-ledger-" + tag + std::to_string(n++);
  Result<std::shared_ptr<storage::ObjectStore>> store = storage::OpenStore(uri);
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return *store;
}

class LedgerRace : public ::testing::TestWithParam<bool> {};

TEST_P(LedgerRace, ExactlyOneLockHolderOthersTypedError) {
  std::shared_ptr<storage::ObjectStore> store = StoreFor(GetParam(), "lock");
  constexpr int kThreads = 8;
  std::vector<Result<Lock>> results(kThreads, Status(Code::kInternal, "not run"));
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      while (!go.load()) {
      }
      ManualClock clock;
      Random random(static_cast<uint64_t>(i + 1));
      results[i] = AcquireLock(*store, "apply", "actor" + std::to_string(i), clock, random);
    });
  }
  go = true;
  for (std::thread& t : threads) t.join();
  int winners = 0;
  std::string winner_id;
  for (const Result<Lock>& r : results) {
    if (r.ok()) {
      ++winners;
      winner_id = r->lock_id;
    }
  }
  ASSERT_EQ(winners, 1);
  for (const Result<Lock>& r : results) {
    if (r.ok()) continue;
    EXPECT_EQ(r.status().kind(), Kind::kConflict);
    EXPECT_EQ(r.status().code(), Code::kPrecondition);
    EXPECT_EQ(r.status().object(), kLockObject);
    EXPECT_NE(r.status().message().find("cluster_locked"), std::string::npos);
    EXPECT_NE(r.status().message().find(winner_id), std::string::npos) << r.status().message();
  }
  // force-unlock needs the exact id; a wrong one leaves the lock in place.
  EXPECT_EQ(ForceRemoveLock(*store, "WRONG").code(), Code::kInvalidArgument);
  ASSERT_TRUE(ReadLock(*store).ok());
  EXPECT_TRUE(ReadLock(*store)->has_value());
  EXPECT_TRUE(ForceRemoveLock(*store, winner_id).ok());
  EXPECT_FALSE(ReadLock(*store)->has_value());
}

TEST_P(LedgerRace, ExactlyOneStateWriteWinsFromOnePrior) {
  std::shared_ptr<storage::ObjectStore> store = StoreFor(GetParam(), "state");
  for (int round = 0; round < 2; ++round) {  // round 0 creates the ledger, round 1 replaces it
    Result<StateFile> prior = ReadState(*store);
    ASSERT_TRUE(prior.ok());
    EXPECT_EQ(prior->exists, round == 1);
    constexpr int kThreads = 8;
    std::vector<Status> results(kThreads);
    std::atomic<bool> go{false};
    std::vector<std::thread> threads;
    for (int i = 0; i < kThreads; ++i) {
      threads.emplace_back([&, i] {
        while (!go.load()) {
        }
        Json next = prior->state;
        next["state_revision"] = round + 1;
        next["observations"]["writer"] = Json{{"writer", i}};
        results[i] = WriteState(*store, *prior, next);
      });
    }
    go = true;
    for (std::thread& t : threads) t.join();
    int winner = -1, winners = 0;
    for (int i = 0; i < kThreads; ++i) {
      if (results[i].ok()) {
        ++winners;
        winner = i;
      } else {
        EXPECT_EQ(results[i].kind(), Kind::kConflict) << results[i].ToString();
        EXPECT_NE(results[i].message().find("state_conflict"), std::string::npos);
      }
    }
    ASSERT_EQ(winners, 1);
    Result<StateFile> after = ReadState(*store);
    ASSERT_TRUE(after.ok()) << after.status().ToString();
    EXPECT_EQ(after->state["observations"]["writer"]["writer"], winner);
    EXPECT_EQ(after->state["state_revision"], round + 1);
  }
}

INSTANTIATE_TEST_SUITE_P(Stores, LedgerRace, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& p) {
                           return p.param ? "LocalDir" : "Memory";
                         });

// --- Plan, apply, idempotence, approval, drift.

Json Ok(const api::Result<api::Json>& r) {
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? J(*r) : Json();
}

const Json* ChangeOf(const Json& report, const std::string& resource) {
  for (const Json& c : report["changes"]) {
    if (c["resource"] == resource) return &c;
  }
  return nullptr;
}

std::string LiveSchemaOf(const std::string& root) {
  api::Result<std::unique_ptr<api::Database>> db = api::Database::Open(root);
  if (!db.ok()) return "<" + db.status().ToString() + ">";
  api::Result<api::Json> s = (*db)->ShowSchema("main");
  return s.ok() ? (*s)["source"].get<std::string>() : "<" + s.status().ToString() + ">";
}

TEST(ClusterApply, ImportPlanApplyIsIdempotentAndReadable) {
  std::string dir = SmallCluster();
  Json imported = Ok(Import(Opts(dir)));
  EXPECT_EQ(imported["observations"]["graph.g"]["exists"], false);
  Json plan = Ok(Plan(Opts(dir)));
  EXPECT_EQ(plan["summary"]["create"], 5) << plan.dump(2);  // graph, schema, query, 2 policies
  EXPECT_EQ(plan["lock_acquired"], true);
  ASSERT_NE(ChangeOf(plan, "graph.g"), nullptr);
  EXPECT_EQ((*ChangeOf(plan, "query.g.people"))["disposition"], "applied");
  EXPECT_FALSE(fs::exists(fs::path(dir) / "graphs")) << "plan created something";

  Json applied = Ok(Apply(Opts(dir)));
  EXPECT_EQ(applied["converged"], true) << applied.dump(2);
  EXPECT_EQ(applied["state_written"], true);
  EXPECT_EQ(applied["state_revision"], 1);
  EXPECT_EQ(LiveSchemaOf(dir + "/graphs/g.omni"), kSchema1);
  EXPECT_FALSE(fs::exists(fs::path(dir) / kLockObject)) << "apply left its lock behind";

  Json again = Ok(Apply(Opts(dir)));
  EXPECT_EQ(again["converged"], true);
  EXPECT_EQ(again["state_written"], false);
  EXPECT_EQ(again["state_revision"], 1);
  EXPECT_EQ(again["changes"].size(), 0u);

  api::Result<AppliedCluster> read = ReadApplied(dir);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->name, "tiny");
  ASSERT_EQ(read->graphs.size(), 1u);
  EXPECT_EQ(read->graphs[0].id, "g");
  EXPECT_EQ(read->graphs[0].root_uri, fs::canonical(dir).string() + "/graphs/g.omni");
  ASSERT_EQ(read->graphs[0].queries.size(), 1u);
  EXPECT_EQ(read->graphs[0].queries[0].path, "queries/people.gq");
  EXPECT_EQ(read->graphs[0].queries[0].source, kQueries);
  EXPECT_EQ(read->graphs[0].policy_files, std::vector<std::string>{kPolicy});
  EXPECT_EQ(read->cluster_policy_files, std::vector<std::string>{kPolicy});
  // The catalog, not the working dir: an unapplied edit does not show.
  Write(fs::path(dir) / "queries/people.gq", std::string(kQueries) + "// edited\n");
  read = ReadApplied(dir);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read->graphs[0].queries[0].source, kQueries);

  api::Result<bool> managed = IsClusterManaged(dir + "/graphs/g.omni");
  ASSERT_TRUE(managed.ok());
  EXPECT_TRUE(*managed);
  EXPECT_FALSE(*IsClusterManaged(dir + "/elsewhere.omni"));
  fs::remove_all(dir);
}

TEST(ClusterApply, ApplyNeedsALedgerAndReadAppliedNeedsAnApply) {
  std::string dir = SmallCluster();
  api::Result<AppliedCluster> read = ReadApplied(dir);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), api::Code::kNotFound);
  EXPECT_NE(read.status().message().find("cluster apply"), std::string::npos);
  api::Result<api::Json> applied = Apply(Opts(dir));
  ASSERT_FALSE(applied.ok());
  EXPECT_NE(applied.status().message().find("state_missing"), std::string::npos);
  EXPECT_NE(applied.status().message().find("cluster import"), std::string::npos);
  EXPECT_FALSE(fs::exists(fs::path(dir) / "graphs"));
  fs::remove_all(dir);
}

// A graph's root in the ledger is joined to the storage root by every reader of the applied
// state (the server's boot): one that leaves the storage root is refused as a damaged ledger,
// naming __cluster/state.json, by ReadApplied and by the verbs; the ledger is left as it was.
TEST(ClusterApply, AGraphRootOutsideTheStorageRootIsADamagedLedger) {
  std::string dir = SmallCluster();
  Ok(Import(Opts(dir)));
  Ok(Apply(Opts(dir)));
  const fs::path state_path = fs::path(dir) / kStateObject;
  const Json state = Json::parse(ReadText(state_path));
  ASSERT_EQ(state["applied_revision"]["resources"]["graph.g"]["root"], "graphs/g.omni");
  for (const char* root : {"../outside.omni", "graphs/../../outside.omni", "/tmp/outside.omni",
                           "file:///tmp/outside.omni", "graphs//g.omni", "graphs/./g.omni", ""}) {
    Json damaged = state;
    damaged["applied_revision"]["resources"]["graph.g"]["root"] = root;
    Write(state_path, damaged.dump());
    api::Result<AppliedCluster> read = ReadApplied(dir);
    ASSERT_FALSE(read.ok()) << root;
    EXPECT_EQ(read.status().code(), api::Code::kCorruption) << read.status().ToString();
    EXPECT_EQ(read.status().object(), kStateObject);
    EXPECT_NE(read.status().message().find("root outside the storage root"), std::string::npos)
        << read.status().ToString();
    api::Result<api::Json> status = StatusReport(Opts(dir));
    ASSERT_FALSE(status.ok()) << root;
    EXPECT_EQ(status.status().code(), api::Code::kCorruption);
    EXPECT_EQ(ReadText(state_path), damaged.dump()) << "a refused read changed the ledger";
  }
  EXPECT_FALSE(fs::exists(fs::path(dir).parent_path() / "outside.omni"));
  Write(state_path, state.dump());
  EXPECT_TRUE(ReadApplied(dir).ok());
  fs::remove_all(dir);
}

TEST(ClusterApply, SchemaEditPlansRealMigrationAndApplies) {
  std::string dir = SmallCluster();
  Ok(Import(Opts(dir)));
  Ok(Apply(Opts(dir)));
  Write(fs::path(dir) / "g.pg", kSchema2);
  Json plan = Ok(Plan(Opts(dir)));
  const Json* c = ChangeOf(plan, "schema.g");
  ASSERT_NE(c, nullptr) << plan.dump(2);
  EXPECT_EQ((*c)["action"], "update");
  EXPECT_EQ((*c)["disposition"], "applied");
  ASSERT_EQ((*c)["migration"]["steps"].size(), 1u) << c->dump();
  EXPECT_EQ((*c)["migration"]["steps"][0]["kind"], "add_property");
  Json applied = Ok(Apply(Opts(dir)));
  EXPECT_EQ(applied["converged"], true) << applied.dump(2);
  EXPECT_EQ(LiveSchemaOf(dir + "/graphs/g.omni"), kSchema2);
  EXPECT_EQ(Ok(Apply(Opts(dir)))["state_written"], false);
  fs::remove_all(dir);
}

TEST(ClusterApply, GraphDeletionWaitsForApproval) {
  std::string dir = SmallCluster();
  Ok(Import(Opts(dir)));
  Ok(Apply(Opts(dir)));
  Write(fs::path(dir) / "cluster.yaml", "version: 1\nmetadata:\n  name: tiny\n");
  Json blocked = Ok(Apply(Opts(dir)));
  EXPECT_EQ(blocked["converged"], false);
  const Json* c = ChangeOf(blocked, "graph.g");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ((*c)["disposition"], "blocked");
  EXPECT_NE((*c)["reason"].get<std::string>().find("approval_required"), std::string::npos);
  EXPECT_EQ(blocked["approvals_required"], Json::array({"graph.g"}));
  EXPECT_TRUE(fs::exists(fs::path(dir) / "graphs/g.omni"));

  api::Result<api::Json> no_actor = Approve(Opts(dir, ""), "graph.g");
  ASSERT_FALSE(no_actor.ok());
  EXPECT_NE(no_actor.status().message().find("--as"), std::string::npos);
  EXPECT_FALSE(Approve(Opts(dir), "graph.nope").ok());
  Json approval = Ok(Approve(Opts(dir, "bo"), "graph.g"));
  std::string id = approval["approval"]["approval_id"];

  Json applied = Ok(Apply(Opts(dir)));
  EXPECT_EQ(applied["converged"], true) << applied.dump(2);
  EXPECT_EQ((*ChangeOf(applied, "graph.g"))["approval_id"], id);
  size_t files_left = 0;  // the local store may leave empty folders; no object stays
  if (fs::exists(fs::path(dir) / "graphs/g.omni")) {
    for (const auto& e : fs::recursive_directory_iterator(fs::path(dir) / "graphs/g.omni")) {
      files_left += e.is_regular_file();
    }
  }
  EXPECT_EQ(files_left, 0u);
  Json status = Ok(StatusReport(Opts(dir)));
  EXPECT_FALSE(status["resources"].contains("graph.g"));
  EXPECT_FALSE(status["resources"].contains("query.g.people"));
  EXPECT_EQ(status["approval_records"][id]["approved_by"], "bo");
  Json artifact = Json::parse(ReadText(fs::path(dir) / "__cluster/approvals" / (id + ".json")));
  EXPECT_TRUE(artifact.contains("consumed_at_micros"));
  fs::remove_all(dir);
}

TEST(ClusterApply, ApprovalGoesStaleWhenConfigMoves) {
  std::string dir = SmallCluster();
  Ok(Import(Opts(dir)));
  Ok(Apply(Opts(dir)));
  // Declare only h: g is deleted.
  Write(fs::path(dir) / "cluster.yaml",
        "version: 1\nmetadata:\n  name: tiny\ngraphs:\n  h:\n    schema: g.pg\n");
  Ok(Approve(Opts(dir), "graph.g"));
  Write(fs::path(dir) / "cluster.yaml",
        "version: 1\nmetadata:\n  name: tiny\ngraphs:\n  h:\n    schema: g.pg\n    "
        "queries: [queries/people.gq]\n");
  Json applied = Ok(Apply(Opts(dir)));
  EXPECT_EQ((*ChangeOf(applied, "graph.g"))["disposition"], "blocked") << applied.dump(2);
  bool stale = false;
  for (const Json& w : applied["warnings"]) stale |= w["code"] == "approval_stale";
  EXPECT_TRUE(stale) << applied.dump(2);
  EXPECT_TRUE(fs::exists(fs::path(dir) / "graphs/g.omni/"));
  EXPECT_EQ((*ChangeOf(applied, "graph.h"))["disposition"], "applied");
  fs::remove_all(dir);
}

TEST(ClusterApply, RefreshRecordsDriftAndApplyConvergesIt) {
  std::string dir = SmallCluster();
  Ok(Import(Opts(dir)));
  Ok(Apply(Opts(dir)));
  std::string root = dir + "/graphs/g.omni";
  {  // A schema applied out of band.
    api::Result<std::unique_ptr<api::Database>> db = api::Database::Open(root);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)->ApplySchema(kSchema2).ok());
  }
  Json status = Ok(StatusReport(Opts(dir)));  // the ledger only: no drift seen yet
  EXPECT_EQ(status["resource_statuses"]["schema.g"]["status"], "applied");
  Json refreshed = Ok(Refresh(Opts(dir)));
  EXPECT_EQ(refreshed["drifted"], Json::array({"schema.g"})) << refreshed.dump(2);
  status = Ok(StatusReport(Opts(dir)));
  EXPECT_EQ(status["resource_statuses"]["schema.g"]["status"], "drifted");
  EXPECT_EQ(status["observations"]["graph.g"]["schema_matches"], false);
  Json plan = Ok(Plan(Opts(dir)));
  const Json* c = ChangeOf(plan, "schema.g");
  ASSERT_NE(c, nullptr) << plan.dump(2);
  EXPECT_EQ((*c)["migration"]["steps"][0]["kind"], "drop_property");
  EXPECT_EQ(Ok(Apply(Opts(dir)))["converged"], true);
  EXPECT_EQ(LiveSchemaOf(root), kSchema1);

  fs::remove_all(root);  // a missing root: refresh drops it, apply re-creates it (empty)
  refreshed = Ok(Refresh(Opts(dir)));
  EXPECT_NE(refreshed["drifted"].dump().find("graph.g"), std::string::npos) << refreshed.dump(2);
  EXPECT_EQ((*ChangeOf(Ok(Plan(Opts(dir))), "graph.g"))["action"], "create");
  EXPECT_EQ(Ok(Apply(Opts(dir)))["converged"], true);
  EXPECT_EQ(LiveSchemaOf(root), kSchema1);
  fs::remove_all(dir);
}

// An apply killed inside a graph's init leaves the root with its storage stamp and no genesis
// record; the next apply completes that init under the stamp's graph id and converges (issue
// [35] item 5, crash_kill9's cluster rounds).
TEST(ClusterApply, AnInitACrashedApplyLeftUnfinishedIsCompletedByTheNext) {
  std::string dir = SmallCluster();
  Ok(Import(Opts(dir)));
  const fs::path root = fs::path(dir) / "graphs/g.omni";
  ASSERT_TRUE(api::Database::Init(root.string(), kSchema1).ok());
  const std::string stamp = ReadText(root / "_omnigraph.json");
  for (const fs::directory_entry& e : fs::directory_iterator(root)) {
    if (e.path().filename() != "_omnigraph.json") fs::remove_all(e.path());
  }
  ASSERT_EQ(api::Database::Open(root.string()).status().code(),
            api::Code::kInitializationIncomplete);
  Json applied = Ok(Apply(Opts(dir)));
  EXPECT_EQ(applied["converged"], true) << applied.dump(2);
  EXPECT_EQ((*ChangeOf(applied, "graph.g"))["disposition"], "applied") << applied.dump(2);
  EXPECT_EQ(LiveSchemaOf(root.string()), kSchema1);
  EXPECT_EQ(ReadText(root / "_omnigraph.json"), stamp) << "the init was not completed in place";
  Result<StateFile> state = ReadState(*OpenRootUri(dir)->store);
  ASSERT_TRUE(state.ok());
  EXPECT_EQ(state->state["recovery_records"]["graph.g"]["kind"], "graph_create_completed");
  fs::remove_all(dir);
}

TEST(ClusterApply, DamagedCatalogBlobIsReportedAndRepublished) {
  std::string dir = SmallCluster();
  Ok(Import(Opts(dir)));
  Ok(Apply(Opts(dir)));
  std::string blob = dir + "/" + QueryBlob("g", "people", Digest(kQueries));
  ASSERT_TRUE(fs::exists(blob));
  Write(blob, "tampered");
  api::Result<AppliedCluster> read = ReadApplied(dir);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.status().message().find("catalog_payload_mismatch"), std::string::npos);
  Json status = Ok(StatusReport(Opts(dir)));
  EXPECT_EQ(status["warnings"][0]["code"], "catalog_payload_mismatch") << status.dump(2);
  Json refreshed = Ok(Refresh(Opts(dir)));
  EXPECT_EQ(refreshed["drifted"], Json::array({"query.g.people"}));
  EXPECT_EQ(Ok(Apply(Opts(dir)))["converged"], true);
  EXPECT_EQ(ReadText(blob), kQueries);
  EXPECT_TRUE(ReadApplied(dir).ok());
  fs::remove_all(dir);
}

TEST(ClusterApply, HeldLockRefusesApplyUntilForceUnlocked) {
  std::string dir = SmallCluster();
  Ok(Import(Opts(dir)));
  Result<Root> root = OpenRootUri(dir);
  ASSERT_TRUE(root.ok());
  ManualClock clock;
  Random random(7);
  Result<Lock> held = AcquireLock(*root->store, "apply", "crashed", clock, random);
  ASSERT_TRUE(held.ok());
  api::Result<api::Json> refused = Apply(Opts(dir));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().kind(), api::Kind::kConflict);
  EXPECT_NE(refused.status().message().find(held->lock_id), std::string::npos);
  EXPECT_NE(refused.status().message().find("crashed@"), std::string::npos);
  EXPECT_FALSE(fs::exists(fs::path(dir) / "graphs"));
  Json status = Ok(StatusReport(Opts(dir)));
  EXPECT_EQ(status["lock"]["lock_id"], held->lock_id);
  // The lock's time is a 64-bit count of microseconds (once read back through a 32-bit int).
  EXPECT_EQ(status["lock"]["lock_created_at_micros"], clock.NowMicros());
  EXPECT_FALSE(ForceUnlock(Opts(dir), "01WRONG").ok());
  Ok(ForceUnlock(Opts(dir), held->lock_id));
  EXPECT_EQ(Ok(Apply(Opts(dir)))["converged"], true);
  fs::remove_all(dir);
}

// Concurrent applies of one cluster (real threads): exactly one converges the ledger; each other
// either meets the lock (typed error) or finds nothing left to do.
TEST(ClusterApply, ConcurrentAppliesOneWins) {
  std::string dir = SmallCluster();
  Ok(Import(Opts(dir)));
  constexpr int kThreads = 4;
  std::vector<api::Result<api::Json>> results(kThreads, api::Status(api::Code::kInternal, "x"));
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      while (!go.load()) {
      }
      results[i] = Apply(Opts(dir, "actor" + std::to_string(i)));
    });
  }
  go = true;
  for (std::thread& t : threads) t.join();
  int written = 0;
  for (const api::Result<api::Json>& r : results) {
    if (r.ok()) {
      written += (*r)["state_written"].get<bool>();
      continue;
    }
    EXPECT_EQ(r.status().kind(), api::Kind::kConflict) << r.status().ToString();
    EXPECT_EQ(r.status().object(), kLockObject) << r.status().ToString();
  }
  EXPECT_EQ(written, 1);
  Json status = Ok(StatusReport(Opts(dir)));
  EXPECT_EQ(status["state_revision"], 1);
  EXPECT_EQ(LiveSchemaOf(dir + "/graphs/g.omni"), kSchema1);
  fs::remove_all(dir);
}

// A storage root apart from the config dir (storage: <path>): ledger, catalog and graph roots
// all go there, and ReadApplied reads it given the root alone (config-free serving).
TEST(ClusterApply, StorageRootApartFromTheConfig) {
  std::string root = TempDir();
  std::string yaml = std::string(kClusterYaml) + "storage: " + root + "\n";
  std::string dir = SmallCluster(yaml);
  Ok(Import(Opts(dir)));
  EXPECT_EQ(Ok(Apply(Opts(dir)))["converged"], true);
  EXPECT_FALSE(fs::exists(fs::path(dir) / "__cluster"));
  EXPECT_TRUE(fs::exists(fs::path(root) / kStateObject));
  api::Result<AppliedCluster> read = ReadApplied(root);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ASSERT_EQ(read->graphs.size(), 1u);
  EXPECT_EQ(read->graphs[0].root_uri, root + "/graphs/g.omni");
  EXPECT_EQ(LiveSchemaOf(read->graphs[0].root_uri), kSchema1);
  api::Result<AppliedCluster> via_dir = ReadApplied(dir);
  ASSERT_TRUE(via_dir.ok());
  EXPECT_EQ(via_dir->graphs[0].root_uri, read->graphs[0].root_uri);
  fs::remove_all(dir);
  fs::remove_all(root);
}

}  // namespace
}  // namespace omnigraph::cluster
