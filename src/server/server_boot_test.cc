// omnigraph-server's boot sources and stored queries over real HTTP on loopback (child
// processes): --config omnigraph.yaml (a copy of a shared cookbook's, pointed at a temporary
// graph), the exclusive boot sources, OMNIGRAPH_UNAUTHENTICATED, and a graph's stored queries
// (--queries): the catalog, invocation, parameter type errors, the stored-mutation rules.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "server/server_test_util.h"

namespace omnigraph::api {
namespace {

using server_test::Parse;
using server_test::ServerProcess;
using server_test::TempDir;

std::string SourceDir() {
  const char* dir = std::getenv("OMNIGRAPH_SOURCE_DIR");
  return dir != nullptr ? dir : OMNIGRAPH_SOURCE_DIR_FALLBACK;
}

const std::string kCookbooks = SourceDir() + "/../shared/fixtures/cookbooks";

// Runs omnigraph-server with `args` to its exit: {exit status, stdout and stderr}.
std::pair<int, std::string> RunToExit(const std::vector<std::string>& args) {
  std::string cmd = server_test::BinDir() + "/omnigraph-server";
  for (const std::string& a : args) cmd += " '" + a + "'";
  cmd += " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  std::string out;
  char buf[512];
  while (size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  const int rc = ::pclose(p);
  return {rc, cmd + "\n" + out};
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void Spit(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// A graph of the cookbook's schema with its seed loaded.
std::string CookbookGraph(const std::string& cookbook, const std::string& root) {
  auto db = Database::Init(root, Slurp(kCookbooks + "/" + cookbook + "/schema.pg"));
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  if (db.ok()) {
    auto loaded =
        (*db)->LoadFile(kCookbooks + "/" + cookbook + "/seed.jsonl", "overwrite", WriteTarget{});
    EXPECT_TRUE(loaded.ok()) << loaded.status().ToString();
  }
  return root;
}

int Status(const httplib::Result& r) { return r ? r->status : 0; }

TEST(ServerBootTest, ConfigBootsTheGraphServerGraphNamesAtServerBind) {
  TempDir dir;
  CookbookGraph("second-brain", dir.path() + "/brain.omni");
  std::string yaml = Slurp(kCookbooks + "/second-brain/omnigraph.yaml");
  yaml = Replace(yaml, "uri: s3://omnigraph-local/repos/second-brain", "uri: brain.omni");
  yaml = Replace(yaml, "bind: 127.0.0.1:8080", "bind: 127.0.0.1:0");
  Spit(dir.path() + "/omnigraph.yaml", yaml);
  ServerProcess server({"--config", dir.path() + "/omnigraph.yaml", "--unauthenticated"}, {});
  ASSERT_GT(server.port(), 0) << server.first_line();
  EXPECT_NE(server.first_line().find("graph 'local_s3' at " + dir.path() + "/brain.omni"),
            std::string::npos)
      << server.first_line();
  httplib::Client c = server.Client(nullptr);
  // GET /graphs needs a cluster-bound bundle granting graph_list: denied in every state.
  EXPECT_EQ(Status(c.Get("/graphs")), 403);
  EXPECT_EQ(Status(c.Get("/graphs/local_s3/snapshot")), 200);
  // Flat routes (the cookbook's cli.graph is http://127.0.0.1:8080) and the nested form agree.
  const std::string q =
      R"({"query":"query q() { match { $p: Person } return { $p.slug } order { $p.slug } }"})";
  auto flat = c.Post("/query", q, "application/json");
  auto nested = c.Post("/graphs/local_s3/query", q, "application/json");
  ASSERT_EQ(Status(flat), 200);
  ASSERT_EQ(Status(nested), 200);
  EXPECT_GT(Parse(flat->body)["rows"].size(), 3u);
  EXPECT_EQ(Parse(flat->body)["rows"].dump(), Parse(nested->body)["rows"].dump());
  // The single-graph --config server serves no stored queries (decision 102).
  EXPECT_EQ(Parse(c.Get("/queries")->body).dump(), R"({"queries":[]})");
}

TEST(ServerBootTest, BootSourcesAreExclusiveAndEachIsChecked) {
  TempDir dir;
  CookbookGraph("second-brain", dir.path() + "/g");
  Spit(dir.path() + "/bad.yaml", "server:\n  graph: nope\ngraphs:\n  g:\n    uri: g\n");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{dir.path() + "/g", "--config", dir.path() + "/bad.yaml"}, "exclusive"},
      {{"--config", dir.path() + "/bad.yaml", "--cluster", dir.path()}, "exclusive"},
      {{"--unauthenticated"}, "no boot source"},
      {{"--cluster", dir.path(), "--queries", dir.path()}, "--queries is for a single-graph"},
      {{"--config", dir.path() + "/bad.yaml"}, "server.graph names 'nope'"},
      {{"--config", dir.path() + "/missing.yaml"}, "missing.yaml"},
      {{"--cluster", dir.path()}, "cluster apply"},  // never applied: says to apply
  };
  for (const auto& [args, want] : cases) {
    std::vector<std::string> all = args;
    if (want != "no boot source") all.push_back("--unauthenticated");
    const auto [rc, out] = RunToExit(all);
    EXPECT_NE(rc, 0) << out;
    EXPECT_NE(out.find(want), std::string::npos) << out;
  }
}

TEST(ServerBootTest, UnauthenticatedFromTheEnvironment) {
  TempDir dir;
  CookbookGraph("second-brain", dir.path() + "/g");
  ServerProcess refused({dir.path() + "/g", "--bind", "127.0.0.1:0"}, {});
  EXPECT_EQ(refused.port(), 0);
  EXPECT_EQ(refused.Wait(), 1);
  ServerProcess server({dir.path() + "/g", "--bind", "127.0.0.1:0"},
                       {{"OMNIGRAPH_UNAUTHENTICATED", "1"}});
  ASSERT_GT(server.port(), 0) << server.first_line();
  EXPECT_NE(server.first_line().find("unauthenticated"), std::string::npos);
  EXPECT_EQ(Status(server.Client(nullptr).Get("/snapshot")), 200);
}

TEST(ServerBootTest, StoredQueriesCatalogInvocationAndTheirErrors) {
  TempDir dir;
  const std::string root = CookbookGraph("industry-intel", dir.path() + "/spike.omni");
  ServerProcess server({root, "--bind", "127.0.0.1:0", "--graph-id", "spike", "--queries",
                        kCookbooks + "/industry-intel/queries", "--allow-writes", "alice"});
  ASSERT_GT(server.port(), 0) << server.first_line();
  httplib::Client alice = server.Client(server_test::kAliceToken);
  httplib::Client bob = server.Client(server_test::kBobToken);
  const Json catalog = Parse(alice.Get("/graphs/spike/queries")->body)["queries"];
  // Every `query` of the files (73 today; the README's "all 66" predates workflow.gq and
  // hybrid.gq).
  EXPECT_EQ(catalog.size(), 73u);
  const Json* add_signal = nullptr;
  for (const Json& q : catalog) {
    if (q["name"] == "add_signal") add_signal = &q;
  }
  ASSERT_NE(add_signal, nullptr);
  EXPECT_EQ((*add_signal)["mutation"], true);
  EXPECT_EQ((*add_signal)["params"][0].dump(),
            R"({"name":"slug","kind":"string","nullable":false})");
  // The README's curl: no params, at main.
  auto recent =
      alice.Post("/graphs/spike/queries/recent_signals", R"({"params":{}})", "application/json");
  ASSERT_EQ(Status(recent), 200) << recent->body;
  EXPECT_GT(Parse(recent->body)["rows"].size(), 0u);
  EXPECT_FALSE(recent->get_header_value("Omnigraph-Graph-Commit").empty());
  // The body may be left out entirely for a query with no parameters.
  EXPECT_EQ(Status(alice.Post("/graphs/spike/queries/recent_signals")), 200);
  // ?snapshot= reads that commit; a stored mutation refuses a snapshot.
  const std::string commit = recent->get_header_value("Omnigraph-Graph-Commit");
  EXPECT_EQ(Status(alice.Post("/graphs/spike/queries/recent_signals?snapshot=" + commit,
                              R"({"params":{}})", "application/json")),
            200);
  auto snap = alice.Post("/graphs/spike/queries/add_company?snapshot=" + commit,
                         R"({"params":{"slug":"c","name":"C"}})", "application/json");
  EXPECT_EQ(Status(snap), 400);
  EXPECT_NE(snap->body.find("cannot target a snapshot"), std::string::npos) << snap->body;
  // A parameter type error: a structured 400 naming the parameter.
  auto typed = alice.Post("/graphs/spike/queries/get_signal", R"({"params":{"slug":7}})",
                          "application/json");
  ASSERT_EQ(Status(typed), 400);
  EXPECT_EQ(Parse(typed->body)["param_error"].dump(),
            R"({"name":"slug","expected":"string","got":"an integer"})");
  auto missing =
      alice.Post("/graphs/spike/queries/get_signal", R"({"params":{}})", "application/json");
  ASSERT_EQ(Status(missing), 400);
  EXPECT_EQ(Parse(missing->body)["param_error"]["name"], "slug");
  auto unknown_param = alice.Post("/graphs/spike/queries/get_signal",
                                  R"({"params":{"slug":"x","nope":1}})", "application/json");
  ASSERT_EQ(Status(unknown_param), 400);
  EXPECT_EQ(Parse(unknown_param->body)["param_error"]["name"], "nope");
  // An unknown name: 404, the same body on either graph form and for any caller.
  auto a = alice.Post("/graphs/spike/queries/drop_everything", "{}", "application/json");
  auto b = bob.Post("/queries/drop_everything", "{}", "application/json");
  ASSERT_EQ(Status(a), 404);
  ASSERT_EQ(Status(b), 404);
  EXPECT_EQ(a->body, b->body);
  // A stored mutation: bob has no invoke_query grant (default deny: only read), so the query is
  // unknown to him (404, the unknown name's body); alice writes one commit.
  const std::string add = R"({"params":{"slug":"co-x","name":"X Corp"}})";
  auto denied = bob.Post("/graphs/spike/queries/add_company", add, "application/json");
  EXPECT_EQ(Status(denied), 404) << (denied ? denied->body : "");
  auto added = alice.Post("/graphs/spike/queries/add_company", add, "application/json");
  ASSERT_EQ(Status(added), 200) << added->body;
  EXPECT_EQ(Parse(added->body)["affected_nodes"], 1);
  // /if-graph-commit: a stale commit is 412, the head's commit writes.
  httplib::Headers stale = {{"Omnigraph-If-Graph-Commit", commit}};
  const std::string add2 = R"({"params":{"slug":"co-y","name":"Y Corp"}})";
  EXPECT_EQ(Status(alice.Post("/graphs/spike/queries/add_company/if-graph-commit", stale, add2,
                              "application/json")),
            412);
  EXPECT_EQ(Status(alice.Post("/graphs/spike/queries/add_company/if-graph-commit", add2,
                              "application/json")),
            400);
  // expect_mutation asserts the kind.
  EXPECT_EQ(Status(alice.Post("/graphs/spike/queries/add_company",
                              R"({"params":{"slug":"z","name":"Z"},"expect_mutation":false})",
                              "application/json")),
            400);
}

TEST(ServerBootTest, AStoredQueryThatNoLongerChecksRefusesTheBoot) {
  TempDir dir;
  const std::string root = CookbookGraph("industry-intel", dir.path() + "/spike.omni");
  const std::string bad = dir.path() + "/bad.gq";
  Spit(bad,
       "query fine() { match { $s: Signal } return { $s.slug } }\n\n"
       "query stale() { match { $s: Signal } return { $s.retired_field } }\n");
  const auto [rc, out] =
      RunToExit({root, "--bind", "127.0.0.1:0", "--unauthenticated", "--queries", bad});
  EXPECT_NE(rc, 0) << out;
  EXPECT_NE(out.find("stored query 'stale' at " + bad + ":3"), std::string::npos) << out;
  EXPECT_NE(out.find("retired_field"), std::string::npos) << out;
}

}  // namespace
}  // namespace omnigraph::api
