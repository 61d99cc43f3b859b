// Policy bundles enforced by the server (docs/design/policy.md "Server"), over real HTTP on
// loopback: registries built in this process from GraphSpecs with bundles bound (what --cluster
// builds from a cluster's applied state), served by the server's own Service and Listener. The
// actor is the bearer token's and every route, reads included, runs as it; a refusal is 403 with
// the ErrorOutput shape and one structured line on stderr; GET /graphs is the cluster bundle's
// graph_list; stored-query invocation honours per-query invoke_query scope and answers a refused
// caller as an unknown name; the policy corpus through HTTP agrees with the embedded API; the
// runtime states' refusals to start (child processes).
#include <fcntl.h>
#include <httplib.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "omnigraph/omnigraph.h"
#include "omnigraph/policy.h"
// The policy corpus (src/policy, pure standard library; its folder is on this test's include path).
#include "corpus_for_tests.h"
#include "server/auth.h"
#include "server/in_process_test_util.h"
#include "server/listener.h"
#include "server/registry.h"
#include "server/server_test_util.h"
#include "server/service.h"

namespace omnigraph::server {
namespace {

using api::Json;
using api::server_test::ServerProcess;
using api::server_test::TempDir;

constexpr std::string_view kSchema = "node Person { name: String @key  age: I64? }\n";
constexpr std::string_view kQueries = R"(query names() {
  match { $p: Person } return { $p.name } order { $p.name }
}
query older($age: I64) { match { $p: Person  $p.age > $age } return { $p.name } }
query add($name: String) { insert Person { name: $name } }
)";
constexpr const char* kTokens =
    R"({"alice":"alice-token","bob":"bob-token","carol":"carol-token","admin":"admin-token",)"
    R"("act-member":"member-token","act-other":"other-token"})";

// alice reads and changes anywhere and invokes every stored query; bob reads and invokes only
// `names`; carol reads and invokes every query but cannot change.
constexpr const char* kGraphBundle = R"(version: 1
groups:
  readers: [alice, bob, carol]
protected_branches: [main]
rules:
  - id: readers-read
    allow:
      actors: { group: readers }
      actions: [read, export]
      branch_scope: any
  - id: alice-changes
    allow:
      actors: { id: alice }
      actions: [change]
      branch_scope: any
  - id: invoke-every-query
    allow:
      actors: { id: [alice, carol] }
      actions: [invoke_query]
  - id: bob-invokes-names
    allow:
      actors: { id: bob }
      actions: [invoke_query]
      queries: [names]
)";
constexpr const char* kClusterBundle = R"(version: 1
kind: server
rules:
  - id: admin-lists
    allow:
      actors: { id: admin }
      actions: [graph_list]
)";

Json Parse(const std::string& body) {
  api::Result<Json> parsed = api::ParseJson(body, "response");
  EXPECT_TRUE(parsed.ok()) << body;
  return parsed.ok() ? *parsed : Json();
}

std::string MakeGraph(const TempDir& dir, const std::string& name) {
  const std::string root = dir.path() + "/" + name;
  api::DatabaseOptions options;
  options.actor = "setup";
  auto db = api::Database::Init(root, kSchema, options);
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  if (db.ok()) {
    EXPECT_TRUE((*db)
                    ->Load(R"({"type":"Person","data":{"name":"Ada","age":36}})", "merge",
                           api::WriteTarget{})
                    .ok());
    for (const char* b : {"agent/x", "act-member/wip", "feature"}) {
      EXPECT_TRUE((*db)->CreateBranch(b, "main").ok()) << b;
    }
  }
  return root;
}

// Tokens for every actor above; `cluster_bundle` bound to cluster when given.
Auth TokenAuth(const char* cluster_bundle) {
  ::setenv("OMNIGRAPH_SERVER_BEARER_TOKENS_JSON", kTokens, 1);
  api::Result<Auth> auth = Auth::FromEnvironment();
  ::unsetenv("OMNIGRAPH_SERVER_BEARER_TOKENS_JSON");
  EXPECT_TRUE(auth.ok()) << auth.status().ToString();
  if (cluster_bundle != nullptr) {
    auto policy = api::Policy::Parse(cluster_bundle, "cluster.policy.yaml", {true, {}});
    EXPECT_TRUE(policy.ok()) << policy.status().ToString();
    if (policy.ok()) auth->SetClusterPolicy(*policy);
  }
  return std::move(*auth);
}

std::shared_ptr<const GraphRegistry> Registry(const std::vector<GraphSpec>& specs,
                                              bool enforce = true) {
  RegistryOptions options;
  options.multi = true;
  options.enforce_policies = enforce;
  options.database.threads = 1;
  options.database.on_policy_denied = LogDenied;
  auto registry = GraphRegistry::Open(specs, options);
  EXPECT_TRUE(registry.ok()) << registry.status().ToString();
  return registry.ok() ? *registry : nullptr;
}

// Everything this process writes to stderr while alive (the denial log lines).
class StderrCapture {
 public:
  explicit StderrCapture(const std::string& path) : path_(path) {
    std::fflush(stderr);
    saved_ = ::dup(2);
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(fd, 2);
    ::close(fd);
  }
  // Restores stderr and returns what was written.
  std::string Finish() {
    std::fflush(stderr);
    ::dup2(saved_, 2);
    ::close(saved_);
    std::ifstream in(path_);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

 private:
  std::string path_;
  int saved_ = -1;
};

std::vector<Json> DenialLines(const std::string& text) {
  std::vector<Json> out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.find("\"policy_denied\"") == std::string::npos) continue;
    out.push_back(Parse(line));
  }
  return out;
}

int Status(const httplib::Result& r) { return r ? r->status : 0; }

TEST(ServerPolicyTest, GraphListIsTheClusterBundlesDecisionInEveryState) {
  TempDir dir;
  const std::string root = MakeGraph(dir, "g");
  {
    // Open (--unauthenticated): no actor, so no bundle can grant it.
    InProcessServer open(Registry({{"g", root, {}, {}}}), Auth::Unauthenticated());
    auto r = open.Client().Get("/graphs");
    EXPECT_EQ(Status(r), 403);
    EXPECT_EQ(Parse(r->body)["code"], "forbidden");
    EXPECT_EQ(Status(open.Client().Get("/graphs/g/branches")), 200);
  }
  {
    // Tokens, no cluster bundle: denied to every token; still 401 without one.
    InProcessServer no_bundle(Registry({{"g", root, {}, {}}}), TokenAuth(nullptr));
    auto r = no_bundle.Client("admin-token").Get("/graphs");
    EXPECT_EQ(Status(r), 403);
    EXPECT_NE(Parse(r->body)["error"].string_value().find("no cluster-bound policy bundle"),
              std::string::npos)
        << r->body;
    EXPECT_EQ(Status(no_bundle.Client().Get("/graphs")), 401);
  }
  InProcessServer server(Registry({{"g", root, {}, {}}}), TokenAuth(kClusterBundle));
  auto listed = server.Client("admin-token").Get("/graphs");
  ASSERT_EQ(Status(listed), 200);
  EXPECT_EQ(Parse(listed->body)["graphs"][0]["graph_id"], "g");
  auto reader = server.Client("bob-token").Get("/graphs");
  EXPECT_EQ(Status(reader), 403);
  const Json body = Parse(reader->body);
  EXPECT_EQ(body["code"], "forbidden");
  EXPECT_EQ(body["error"].string_value().rfind("permission denied: no rule allows 'bob'", 0), 0u)
      << reader->body;
  EXPECT_EQ(Status(server.Client().Get("/graphs")), 401);
  EXPECT_EQ(Status(server.Client("forged-token").Get("/graphs")), 401);
}

TEST(ServerPolicyTest, TheActorIsTheTokensOnEveryRouteAndARefusalIs403AndOneLogLine) {
  TempDir dir;
  const std::string root = MakeGraph(dir, "g");
  InProcessServer server(Registry({{"g", root, {}, {{"g.policy.yaml", kGraphBundle}}}}),
                         TokenAuth(nullptr));
  httplib::Client admin = server.Client("admin-token");  // Named by no rule of the bundle.
  // A spoofed actor in headers changes nothing: admin is still admin.
  const httplib::Headers spoof = {
      {"X-Omnigraph-Actor", "alice"}, {"Omnigraph-Actor", "alice"}, {"X-Actor-Id", "alice"}};
  StderrCapture capture(dir.path() + "/stderr");
  auto query = admin.Post("/graphs/g/query", spoof,
                          R"({"query":"query q() { match { $p: Person } return { $p.name } }"})",
                          "application/json");
  auto snapshot = admin.Get("/graphs/g/snapshot?branch=feature", spoof);
  auto commits = admin.Get("/graphs/g/commits", spoof);
  auto catalog = admin.Get("/graphs/g/queries", spoof);
  auto mutate = admin.Post("/graphs/g/mutate", spoof,
                           R"({"query":"query a() { insert Person { name: \"Eve\" } }"})",
                           "application/json");
  const std::string logged = capture.Finish();
  for (const auto* r : {&query, &snapshot, &commits, &catalog, &mutate}) {
    ASSERT_EQ(Status(*r), 403) << ((*r) ? (*r)->body : "");
    const Json body = Parse((*r)->body);
    EXPECT_EQ(body["code"], "forbidden") << (*r)->body;
    EXPECT_EQ(body["error"].string_value().rfind("permission denied: ", 0), 0u) << (*r)->body;
  }
  EXPECT_EQ(Parse(query->body)["object"], "policy");  // A default deny names no rule.
  // One structured line per refusal, naming actor, action, graph and branch.
  const std::vector<Json> lines = DenialLines(logged);
  ASSERT_EQ(lines.size(), 5u) << logged;
  EXPECT_EQ(lines[0]["actor"], "admin");
  EXPECT_EQ(lines[0]["action"], "read");
  EXPECT_EQ(lines[0]["graph"], "g");
  EXPECT_EQ(lines[0]["branch"], "main");
  EXPECT_TRUE(lines[0]["rule"].is_null());
  EXPECT_EQ(lines[1]["branch"], "feature");
  EXPECT_EQ(lines[4]["action"], "change");

  // alice's token: her reads answer and her write publishes as her, whatever a header says.
  httplib::Client alice = server.Client("alice-token");
  const httplib::Headers as_bob = {{"X-Omnigraph-Actor", "bob"}};
  EXPECT_EQ(Status(alice.Get("/graphs/g/snapshot?branch=feature", as_bob)), 200);
  auto wrote = alice.Post("/graphs/g/mutate", as_bob,
                          R"({"query":"query a() { insert Person { name: \"Eve\" } }"})",
                          "application/json");
  ASSERT_EQ(Status(wrote), 200) << (wrote ? wrote->body : "");
  EXPECT_EQ(Parse(wrote->body)["actor_id"], "alice");
  auto history = alice.Get("/graphs/g/commits?limit=1");
  ASSERT_EQ(Status(history), 200);
  EXPECT_EQ(Parse(history->body)["commits"][0]["actor_id"], "alice") << history->body;
  // bob reads but may not change: the engine's gate, rule-less default deny.
  auto bob =
      server.Client("bob-token")
          .Post("/graphs/g/mutate", R"({"query":"query a() { insert Person { name: \"Bo\" } }"})",
                "application/json");
  EXPECT_EQ(Status(bob), 403);
}

TEST(ServerPolicyTest, InvokeQueryHonoursPerQueryScopeAndARefusalLooksLikeAnUnknownName) {
  TempDir dir;
  const std::string root = MakeGraph(dir, "g");
  InProcessServer server(
      Registry({{"g", root, {{"people.gq", std::string(kQueries)}}, {{"g.policy", kGraphBundle}}}}),
      TokenAuth(nullptr));
  httplib::Client bob = server.Client("bob-token");
  EXPECT_EQ(Status(bob.Post("/graphs/g/queries/names", "{}", "application/json")), 200);
  auto unknown = bob.Post("/graphs/g/queries/nope", "{}", "application/json");
  ASSERT_EQ(Status(unknown), 404);
  // `older` exists but bob's rule lists only `names`: the same 404 with the same body shape.
  auto masked = bob.Post("/graphs/g/queries/older", R"({"params":{"age":1}})", "application/json");
  ASSERT_EQ(Status(masked), 404);
  std::string expected = unknown->body;
  expected.replace(expected.find("'nope'"), 6, "'older'");
  EXPECT_EQ(masked->body, expected);
  EXPECT_EQ(Parse(unknown->body)["code"], "not_found");
  EXPECT_EQ(
      Status(bob.Post("/graphs/g/queries/add", R"({"params":{"name":"B"}})", "application/json")),
      404);
  // admin has no invoke_query at all: every name is unknown to it.
  EXPECT_EQ(
      Status(
          server.Client("admin-token").Post("/graphs/g/queries/names", "{}", "application/json")),
      404);
  // A stored mutation is double-gated: carol may invoke it but not change (the engine's 403);
  // alice may do both.
  auto carol =
      server.Client("carol-token")
          .Post("/graphs/g/queries/add", R"({"params":{"name":"Cy"}})", "application/json");
  EXPECT_EQ(Status(carol), 403) << (carol ? carol->body : "");
  auto alice =
      server.Client("alice-token")
          .Post("/graphs/g/queries/add", R"({"params":{"name":"Al"}})", "application/json");
  ASSERT_EQ(Status(alice), 200) << (alice ? alice->body : "");
  EXPECT_EQ(Parse(alice->body)["actor_id"], "alice");
}

TEST(ServerPolicyTest, DefaultDenyServesReadsAndMasksStoredQueriesWithoutAGrant) {
  TempDir dir;
  const std::string root = MakeGraph(dir, "g");
  InProcessServer server(Registry({{"g", root, {{"people.gq", std::string(kQueries)}}, {}}}),
                         TokenAuth(nullptr));
  httplib::Client bob = server.Client("bob-token");
  EXPECT_EQ(Status(bob.Get("/graphs/g/snapshot")), 200);
  EXPECT_EQ(Status(bob.Post("/graphs/g/mutate",
                            R"({"query":"query a() { insert Person { name: \"B\" } }"})",
                            "application/json")),
            403);
  EXPECT_EQ(Status(bob.Post("/graphs/g/queries/names", "{}", "application/json")), 404);
}

// --- The corpus through HTTP: the engine doors of api_policy_test, on a handle from
// Database::Connect (the server's routes) beside an embedded one, all agreeing with the corpus.

bool Denied(const api::Status& s) {
  return s.code() == api::Code::kConfiguration && s.message().rfind("permission denied: ", 0) == 0;
}

std::optional<api::Status> CallDoor(api::Database& db, const policy_corpus::Case& c) {
  const std::string branch = c.branch.value_or("main");
  const std::string target = c.target_branch.value_or("main");
  auto status = [](const auto& r) { return r.status(); };
  if (c.action == "read") return status(db.Snapshot(api::ReadTarget{branch, std::nullopt}));
  if (c.action == "export") {
    return db.Export(api::ReadTarget{branch, std::nullopt}, {},
                     [](std::string_view) { return api::Status::Ok(); });
  }
  if (c.action == "change") {
    api::WriteTarget w;
    w.branch = branch;
    return status(db.Load("", "append", w));
  }
  if (c.action == "schema_apply") {
    if (target != "main") return std::nullopt;
    return status(db.ApplySchema(kSchema));
  }
  if (c.action == "branch_create") return status(db.CreateBranch(target, branch));
  if (c.action == "branch_delete") return status(db.DeleteBranch(target));
  if (c.action == "branch_merge") {
    api::MergeOptions m;
    m.target = target;
    return status(db.Merge(branch, m));
  }
  return std::nullopt;  // admin has no HTTP route; invoke_query and graph_list: below.
}

TEST(ServerPolicyTest, TheCorpusThroughHttpAgreesWithTheEmbeddedApi) {
  TempDir dir;
  const std::string root = MakeGraph(dir, "g");
  // One graph id per per-graph bundle, all on one root; each with the stored query `names`.
  std::map<std::string, std::string> graph_of;  // bundle -> graph id
  std::vector<GraphSpec> specs;
  std::vector<std::string> server_bundles;
  for (const policy_corpus::Case& c : policy_corpus::Corpus()) {
    if (c.action == "graph_list") {
      if (std::find(server_bundles.begin(), server_bundles.end(), c.bundle) ==
          server_bundles.end()) {
        server_bundles.push_back(c.bundle);
      }
      continue;
    }
    if (graph_of.contains(c.bundle)) continue;
    const std::string id = "b" + std::to_string(graph_of.size());
    graph_of[c.bundle] = id;
    specs.push_back({id, root, {{"q.gq", std::string(kQueries)}}, {{id + ".policy", c.bundle}}});
  }
  InProcessServer server(Registry(specs), TokenAuth(nullptr));
  const std::map<std::string, std::string> token = {{"act-member", "member-token"},
                                                    {"act-other", "other-token"}};
  std::map<std::string, std::unique_ptr<api::Database>> local_of;  // bundle -> embedded handle
  size_t asked = 0, denied = 0;
  for (const policy_corpus::Case& c : policy_corpus::Corpus()) {
    if (c.action == "graph_list") continue;
    const std::string& id = graph_of.at(c.bundle);
    if (c.action == "invoke_query") {
      auto r = server.Client(token.at(c.actor).c_str())
                   .Post("/graphs/" + id + "/queries/names", "{}", "application/json");
      EXPECT_EQ(Status(r), c.expect_allow ? 200 : 404) << c.name;
      ++asked;
      denied += c.expect_allow ? 0 : 1;
      continue;
    }
    api::ConnectOptions options;
    options.bearer_token = token.at(c.actor);
    options.graph_id = id;
    auto remote = api::Database::Connect(server.url(), options);
    ASSERT_TRUE(remote.ok()) << remote.status().ToString();
    std::unique_ptr<api::Database>& local = local_of[c.bundle];
    if (!local) {
      api::DatabaseOptions local_options;
      local_options.policy = *api::Policy::Parse(c.bundle, "corpus", {false, {id}});
      local_options.policy_graph = id;
      local_options.threads = 1;
      auto opened = api::Database::Open(root, local_options);
      ASSERT_TRUE(opened.ok()) << opened.status().ToString();
      local = std::move(*opened);
    }
    std::optional<api::Status> over_http = CallDoor(**remote, c);
    std::optional<api::Status> embedded = CallDoor(*local->WithActor(c.actor), c);
    if (!over_http) continue;
    ++asked;
    denied += c.expect_allow ? 0 : 1;
    EXPECT_EQ(Denied(*over_http), !c.expect_allow) << c.name << ": " << over_http->ToString();
    EXPECT_EQ(Denied(*embedded), !c.expect_allow) << c.name << ": " << embedded->ToString();
  }
  EXPECT_GT(asked, 250u);
  EXPECT_GT(denied, asked / 4);
  EXPECT_LT(denied, asked * 3 / 4);
  // graph_list: each server bundle bound to cluster, asked by both actors.
  for (const std::string& bundle : server_bundles) {
    InProcessServer listing(Registry({{"g", root, {}, {}}}), TokenAuth(bundle.c_str()));
    for (const policy_corpus::Case& c : policy_corpus::Corpus()) {
      if (c.action != "graph_list" || c.bundle != bundle) continue;
      EXPECT_EQ(Status(listing.Client(token.at(c.actor).c_str()).Get("/graphs")),
                c.expect_allow ? 200 : 403)
          << c.name;
    }
  }
}

// Every page of `actor`'s commits on main, `limit` at a time: the commit ids, and the pages.
std::pair<std::vector<std::string>, size_t> ActorCommits(api::Database& db,
                                                         const std::string& actor, size_t limit) {
  std::vector<std::string> ids;
  size_t pages = 0;
  std::string token;
  do {
    api::Result<Json> page = db.CommitHistory("main", limit, token, actor);
    EXPECT_TRUE(page.ok()) << page.status().ToString();
    if (!page.ok()) break;
    ++pages;
    EXPECT_LE((*page)["commits"].size(), limit);
    for (const Json& c : (*page)["commits"]) {
      EXPECT_EQ(c["actor_id"], actor);
      ids.push_back(c["graph_commit_id"].string_value());
    }
    token = page->contains("next_page_token") ? (*page)["next_page_token"].string_value() : "";
  } while (!token.empty());
  return {ids, pages};
}

TEST(ServerPolicyTest, CommitsFilterByActorAlikeOnTheStoreAndOverHttp) {
  TempDir dir;
  const std::string root = MakeGraph(dir, "g");
  Auth auth = TokenAuth(nullptr);
  ASSERT_TRUE(auth.Grant("alice", kActions).ok());
  ASSERT_TRUE(auth.Grant("bob", kActions).ok());
  InProcessServer server(Registry({{"g", root, {}, {}}}), std::move(auth));
  // alice, bob, alice, bob, alice: three commits of alice's, two of bob's, over setup's.
  for (int i = 0; i < 5; ++i) {
    const char* token = i % 2 == 0 ? "alice-token" : "bob-token";
    const std::string body =
        R"({"query":"query a() { insert Person { name: \"P)" + std::to_string(i) + R"(\" } }"})";
    ASSERT_EQ(Status(server.Client(token).Post("/graphs/g/mutate", body, "application/json")), 200);
  }
  auto local = api::Database::Open(root);
  ASSERT_TRUE(local.ok());
  api::ConnectOptions options;
  options.bearer_token = "bob-token";
  options.graph_id = "g";
  auto remote = api::Database::Connect(server.url(), options);
  ASSERT_TRUE(remote.ok());
  for (size_t limit : {1u, 2u, 100u}) {
    const auto [alice_local, alice_pages] = ActorCommits(**local, "alice", limit);
    const auto [alice_remote, remote_pages] = ActorCommits(**remote, "alice", limit);
    EXPECT_EQ(alice_local.size(), 3u) << limit;
    EXPECT_EQ(alice_local, alice_remote) << limit;
    EXPECT_EQ(alice_pages, remote_pages) << limit;
    EXPECT_EQ(ActorCommits(**local, "bob", limit).first.size(), 2u);
    EXPECT_EQ(ActorCommits(**remote, "bob", limit).first,
              ActorCommits(**local, "bob", limit).first);
    EXPECT_TRUE(ActorCommits(**remote, "nobody", limit).first.empty());
  }
  // The raw route: ?actor= beside limit, newest first.
  auto r = server.Client("bob-token").Get("/graphs/g/commits?actor=bob&limit=1");
  ASSERT_EQ(Status(r), 200);
  const Json page = Parse(r->body);
  ASSERT_EQ(page["commits"].size(), 1u);
  EXPECT_EQ(page["commits"][0]["actor_id"], "bob");
  EXPECT_TRUE(page.contains("next_page_token"));
}

// --- The runtime states' refusals to start (child processes).

TEST(ServerPolicyTest, PerTypeAuthorityHoldsOverHttpAsInTheEngine) {
  TempDir dir;
  const std::string root = dir.path() + "/typed";
  {
    api::DatabaseOptions options;
    options.actor = "setup";
    auto db = api::Database::Init(
        root, "node Person { name: String @key }\nnode Signal { slug: String @key }\n", options);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
  }
  constexpr const char* kTyped = R"(version: 1
rules:
  - id: alice-signals
    allow:
      actors: { id: alice }
      actions: [read, change, export]
      types: [Signal]
)";
  InProcessServer server(Registry({{"t", root, {}, {{"t.policy.yaml", kTyped}}}}),
                         TokenAuth(nullptr));
  httplib::Client alice = server.Client("alice-token");
  auto signal =
      alice.Post("/graphs/t/load/ndjson?mode=append",
                 "{\"type\":\"Signal\",\"data\":{\"slug\":\"s1\"}}\n", "application/x-ndjson");
  ASSERT_EQ(Status(signal), 200) << (signal ? signal->body : "");
  auto person =
      alice.Post("/graphs/t/load/ndjson?mode=append",
                 "{\"type\":\"Person\",\"data\":{\"name\":\"Bob\"}}\n", "application/x-ndjson");
  ASSERT_EQ(Status(person), 403) << (person ? person->body : "");
  EXPECT_NE(Parse(person->body)["error"].string_value().find("of type 'Person'"), std::string::npos)
      << person->body;
  auto add = [&](const char* type, const char* key) {
    return alice.Post(
        "/graphs/t/mutate",
        std::string(R"({"query":"query a() { insert )") + type + " { " + key + R"(: \"x\" } }"})",
        "application/json");
  };
  EXPECT_EQ(Status(add("Signal", "slug")), 200);
  EXPECT_EQ(Status(add("Person", "name")), 403);
  auto read = [&](const char* type, const char* key) {
    return alice.Post("/graphs/t/query",
                      std::string(R"({"query":"query q() { match { $x: )") + type +
                          " } return { $x." + key + R"( } }"})",
                      "application/json");
  };
  EXPECT_EQ(Status(read("Signal", "slug")), 200);
  EXPECT_EQ(Status(read("Person", "name")), 403);
  EXPECT_EQ(
      Status(alice.Post("/graphs/t/export", R"({"type_names":["Signal"]})", "application/json")),
      200);
  EXPECT_EQ(Status(alice.Post("/graphs/t/export", "{}", "application/json")), 403);
  // The catalog shows no entity: a rule with types does not narrow it.
  EXPECT_EQ(Status(alice.Get("/graphs/t/queries")), 200);
  // Nothing of Person was written by any door.
  auto db = api::Database::Open(root, {});
  ASSERT_TRUE(db.ok());
  const api::Result<Json> people =
      (*db)->Query("query p() { match { $p: Person } return { $p.name } }", "", Json::object());
  ASSERT_TRUE(people.ok()) << people.status().ToString();
  EXPECT_EQ((*people)["rows"].size(), 0u) << people->dump();
}

// The review page's GET /access says what the graph's bundle decides for the token's actor, and
// the routes it stands for decide the same (docs/design/review-page.md "GET /access"): bob may
// read and preview, not merge or delete; alice may do both.
TEST(ServerPolicyTest, AccessSaysWhatTheBundleDecidesAndTheRoutesAgree) {
  TempDir dir;
  const std::string root = MakeGraph(dir, "g");
  constexpr const char* kBundle = R"(version: 1
groups: {team: [alice, bob]}
protected_branches: [main]
rules:
  - id: team-reads
    allow:
      actors: { group: team }
      actions: [read]
      branch_scope: any
  - id: alice-merges
    allow:
      actors: { id: alice }
      actions: [branch_merge, branch_delete]
)";
  InProcessServer server(Registry({{"g", root, {}, {{"g.policy.yaml", kBundle}}}}),
                         TokenAuth(nullptr));
  httplib::Client alice = server.Client("alice-token");
  httplib::Client bob = server.Client("bob-token");
  ASSERT_EQ(Status(alice.Post("/graphs/g/mutate",
                              R"({"query":"query a() { insert Person { name: \"Eve\" } }",)"
                              R"("branch":"feature"})",
                              "application/json")),
            403);  // Nobody may change: the branch is written directly below.
  ASSERT_TRUE(
      (*api::Database::Open(root))
          ->Load(R"({"type":"Person","data":{"name":"Eve"}})", "merge", api::WriteTarget{"feature"})
          .ok());
  auto access = [](httplib::Client& c) {
    auto r = c.Get("/graphs/g/access?branch=feature");
    EXPECT_EQ(Status(r), 200) << (r ? r->body : "");
    return r ? Parse(r->body) : Json();
  };
  const Json a = access(alice);
  EXPECT_EQ(a["actor"], "alice");
  EXPECT_EQ(a["allowed"]["branch_merge"], true);
  EXPECT_EQ(a["allowed"]["branch_delete"], true);
  EXPECT_EQ(a["allowed"]["change"], false);
  const Json b = access(bob);
  EXPECT_EQ(b["allowed"]["branch_merge"], false);
  EXPECT_EQ(b["allowed"]["branch_delete"], false);
  auto preview = bob.Get("/graphs/g/branches/merge/preview?source=feature");
  ASSERT_EQ(Status(preview), 200) << (preview ? preview->body : "");
  EXPECT_EQ(Parse(preview->body)["outcome"], "fast_forward");
  auto diff = bob.Get("/graphs/g/diff?to=feature");
  ASSERT_EQ(Status(diff), 200) << (diff ? diff->body : "");
  EXPECT_EQ(Parse(diff->body)["changes"].size(), 1u);
  // No token may read without the bundle's grant: admin is named by no rule.
  EXPECT_EQ(Status(server.Client("admin-token").Get("/graphs/g/diff?to=feature")), 403);
  StderrCapture capture(dir.path() + "/stderr");
  EXPECT_EQ(
      Status(bob.Post("/graphs/g/branches/merge", R"({"source":"feature"})", "application/json")),
      403);
  EXPECT_EQ(Status(bob.Delete("/graphs/g/branches/feature")), 403);
  capture.Finish();
  EXPECT_EQ(
      Status(alice.Post("/graphs/g/branches/merge", R"({"source":"feature"})", "application/json")),
      200);
}

TEST(ServerPolicyTest, APolicyWithoutTokensRefusesToStart) {
  TempDir dir;
  const std::string root = MakeGraph(dir, "g");
  const std::string bundle = dir.path() + "/g.policy.yaml";
  std::ofstream(bundle) << kGraphBundle;
  ServerProcess unauthenticated(
      {root, "--bind", "127.0.0.1:0", "--policy", bundle, "--unauthenticated"}, {});
  EXPECT_EQ(unauthenticated.port(), 0);
  EXPECT_EQ(unauthenticated.Wait(), 1);
  ServerProcess no_tokens({root, "--bind", "127.0.0.1:0", "--policy", bundle}, {});
  EXPECT_EQ(no_tokens.port(), 0);
  EXPECT_EQ(no_tokens.Wait(), 1);
  // A bad bundle refuses the boot; a good one with tokens serves, policy-enabled.
  const std::string bad = dir.path() + "/bad.policy.yaml";
  std::ofstream(bad) << "version: 1\nrules:\n  - id: r\n    allow:\n      actors: { id: a }\n"
                        "      actions: [write]\n";
  ServerProcess refused({root, "--bind", "127.0.0.1:0", "--policy", bad},
                        {{"OMNIGRAPH_SERVER_BEARER_TOKENS_JSON", kTokens}});
  EXPECT_EQ(refused.Wait(), 1);
  ServerProcess served({root, "--bind", "127.0.0.1:0", "--policy", bundle},
                       {{"OMNIGRAPH_SERVER_BEARER_TOKENS_JSON", kTokens}});
  ASSERT_GT(served.port(), 0) << served.first_line();
  EXPECT_NE(served.first_line().find("policy-enabled"), std::string::npos) << served.first_line();
  EXPECT_EQ(served.Client("bob-token").Get("/snapshot")->status, 200);
  EXPECT_EQ(served.Client("admin-token").Get("/snapshot")->status, 403);
}

}  // namespace
}  // namespace omnigraph::server
