// Many graphs on one server (docs/design/server.md "Graphs"), over real HTTP on loopback: a
// registry built in this process from GraphSpecs — what `--cluster` builds from a cluster's
// applied state — served by the server's own Service and Listener on a free port. Routing by
// /graphs/{id}/, GET /graphs, a quarantined graph's 503 beside a served one, --require-all-graphs,
// stored queries declared per graph, and the invoke_query gate's 404 masking.
#include <httplib.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "omnigraph/omnigraph.h"
#include "omnigraph/policy.h"
#include "server/auth.h"
#include "server/in_process_test_util.h"
#include "server/listener.h"
#include "server/registry.h"
#include "server/service.h"

namespace omnigraph::server {
namespace {

using api::Json;

constexpr std::string_view kSchema = "node Person { name: String @key  age: I64? }\n";
constexpr std::string_view kQueries = R"(query names() @description("Every name") {
  match { $p: Person } return { $p.name } order { $p.name }
}
query older($age: I64) { match { $p: Person  $p.age > $age } return { $p.name } }
query add($name: String, $age: I64?) { insert Person { name: $name, age: $age } }
)";

std::string TempRoot(const std::string& name) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::filesystem::path p = std::filesystem::temp_directory_path() /
                            ("omnigraph-graphs-test-" + std::string(info->name()) + "-" + name);
  std::filesystem::remove_all(p);
  return p.string();
}

std::string MakeGraph(const std::string& name, std::string_view people) {
  const std::string root = TempRoot(name);
  auto db = api::Database::Init(root, kSchema);
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  if (db.ok()) {
    api::Result<Json> loaded = (*db)->Load(people, "merge", api::WriteTarget{});
    EXPECT_TRUE(loaded.ok()) << loaded.status().ToString();
  }
  return root;
}

Json Parse(const std::string& body) {
  api::Result<Json> parsed = api::ParseJson(body, "response");
  EXPECT_TRUE(parsed.ok()) << body;
  return parsed.ok() ? *parsed : Json();
}

// Tokens for `admin` (every grant) and `reader`, and a cluster-bound bundle that lets admin
// list graphs (GET /graphs is denied without one, docs/design/policy.md).
Auth ListingAuth() {
  ::setenv("OMNIGRAPH_SERVER_BEARER_TOKENS_JSON",
           R"({"admin":"admin-token","reader":"reader-token"})", 1);
  api::Result<Auth> auth = Auth::FromEnvironment();
  ::unsetenv("OMNIGRAPH_SERVER_BEARER_TOKENS_JSON");
  EXPECT_TRUE(auth.ok());
  EXPECT_TRUE(auth->Grant("admin", kActions).ok());
  auto policy = api::Policy::Parse(
      "version: 1\nrules:\n  - id: admin-lists\n    allow:\n      actors: { id: admin }\n"
      "      actions: [graph_list]\n",
      "cluster.policy.yaml", {true, {}});
  EXPECT_TRUE(policy.ok()) << policy.status().ToString();
  auth->SetClusterPolicy(*policy);
  return std::move(*auth);
}

std::shared_ptr<const GraphRegistry> Registry(const std::vector<GraphSpec>& specs,
                                              bool require_all = false) {
  RegistryOptions options;
  options.multi = true;
  options.require_all = require_all;
  auto registry = GraphRegistry::Open(specs, options);
  EXPECT_TRUE(registry.ok()) << registry.status().ToString();
  return registry.ok() ? *registry : nullptr;
}

std::string Names(httplib::Client& c, const std::string& graph) {
  auto r = c.Post(
      "/graphs/" + graph + "/query",
      R"({"query":"query q() { match { $p: Person } return { $p.name } order { $p.name } }"})",
      "application/json");
  if (!r || r->status != 200) return "HTTP " + std::to_string(r ? r->status : 0);
  std::string out;
  const Json result = Parse(r->body);
  for (const Json& row : result["rows"]) out += row.members().front().second.string_value() + ";";
  return out;
}

TEST(ServerGraphsTest, TwoGraphsRouteByIdAndListSorted) {
  const std::string a = MakeGraph("a", R"({"type":"Person","data":{"name":"Ada","age":36}})");
  const std::string b = MakeGraph("b", R"({"type":"Person","data":{"name":"Bob","age":20}})");
  InProcessServer server(Registry({{"zeta", a, {}}, {"alpha", b, {}}}), ListingAuth());
  httplib::Client c = server.Client("admin-token");
  EXPECT_EQ(server.Client("reader-token").Get("/graphs")->status, 403);
  EXPECT_EQ(Names(c, "zeta"), "Ada;");
  EXPECT_EQ(Names(c, "alpha"), "Bob;");
  auto graphs = c.Get("/graphs");
  ASSERT_TRUE(graphs);
  Json want = Json::array();
  want.push_back(Json{{"graph_id", "alpha"}, {"uri", b}});
  want.push_back(Json{{"graph_id", "zeta"}, {"uri", a}});
  const Json listed = Json{{"graphs", want}};
  EXPECT_EQ(Parse(graphs->body).dump(), listed.dump());
  // An unknown id is 404; a flat graph route is 404 on a multi-graph server, naming the way.
  auto unknown = c.Get("/graphs/nope/branches");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
  EXPECT_NE(unknown->body.find("no graph 'nope'"), std::string::npos) << unknown->body;
  auto flat = c.Get("/branches");
  ASSERT_TRUE(flat);
  EXPECT_EQ(flat->status, 404);
  EXPECT_NE(flat->body.find("/graphs/{graph_id}/branches"), std::string::npos) << flat->body;
  // A write to one graph is not seen by the other.
  auto added =
      c.Post("/graphs/alpha/mutate", R"({"query":"query a() { insert Person { name: \"Cy\" } }"})",
             "application/json");
  ASSERT_TRUE(added);
  EXPECT_EQ(added->status, 200) << added->body;
  EXPECT_EQ(Names(c, "alpha"), "Bob;Cy;");
  EXPECT_EQ(Names(c, "zeta"), "Ada;");
}

TEST(ServerGraphsTest, AGraphThatFailsToOpenIsQuarantinedAndTheOthersServe) {
  const std::string good = MakeGraph("good", R"({"type":"Person","data":{"name":"Ada"}})");
  const std::string missing = TempRoot("missing");
  InProcessServer server(Registry({{"good", good, {}}, {"bad", missing, {}}}), ListingAuth());
  httplib::Client c = server.Client("admin-token");
  EXPECT_EQ(Names(c, "good"), "Ada;");
  for (const char* path : {"/graphs/bad/branches", "/graphs/bad/snapshot"}) {
    auto r = c.Get(path);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 503) << path;
    const Json body = Parse(r->body);
    EXPECT_NE(body["error"].string_value().find("graph 'bad' is quarantined"), std::string::npos)
        << r->body;
    EXPECT_NE(body["error"].string_value().find(missing), std::string::npos) << r->body;
  }
  auto graphs = c.Get("/graphs");
  ASSERT_TRUE(graphs);
  const Json listed = Parse(graphs->body)["graphs"];
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0]["graph_id"], "good");
}

TEST(ServerGraphsTest, RequireAllGraphsRefusesTheBootWhenOneFailsToOpen) {
  const std::string good = MakeGraph("good", "");
  RegistryOptions options;
  options.multi = true;
  options.require_all = true;
  auto registry =
      GraphRegistry::Open({{"good", good, {}}, {"bad", TempRoot("missing"), {}}}, options);
  ASSERT_FALSE(registry.ok());
  EXPECT_NE(registry.status().message().find("graph 'bad'"), std::string::npos)
      << registry.status().ToString();
  // Without it the same specs boot; with no graph that opens, nothing boots either way.
  options.require_all = false;
  EXPECT_TRUE(
      GraphRegistry::Open({{"good", good, {}}, {"bad", TempRoot("missing"), {}}}, options).ok());
  EXPECT_FALSE(
      GraphRegistry::Open({{"x", TempRoot("x"), {}}, {"y", TempRoot("y"), {}}}, options).ok());
  // Ids: unique, non-empty, no '/'.
  EXPECT_FALSE(GraphRegistry::Open({{"g", good, {}}, {"g", good, {}}}, options).ok());
  EXPECT_FALSE(GraphRegistry::Open({{"a/b", good, {}}}, options).ok());
}

TEST(ServerGraphsTest, StoredQueriesArePerGraphAndRefuseTheBootWhenTheyDoNotCheck) {
  const std::string a = MakeGraph("a", R"({"type":"Person","data":{"name":"Ada","age":36}})");
  const std::string b = MakeGraph("b", "");
  InProcessServer server(Registry({{"a", a, {{"people.gq", std::string(kQueries)}}}, {"b", b, {}}}),
                         Auth::Unauthenticated());
  httplib::Client c = server.Client();
  auto catalog = c.Get("/graphs/a/queries");
  ASSERT_TRUE(catalog);
  const Json queries = Parse(catalog->body)["queries"];
  ASSERT_EQ(queries.size(), 3u);
  EXPECT_EQ(queries[0].dump(),
            R"({"name":"add","tool_name":"add","description":null,"instruction":null,)"
            R"("mutation":true,"params":[{"name":"name","kind":"string","nullable":false},)"
            R"({"name":"age","kind":"bigint","nullable":true}]})");
  EXPECT_EQ(queries[1]["name"], "names");
  EXPECT_EQ(queries[1]["description"], "Every name");
  EXPECT_EQ(Parse(c.Get("/graphs/b/queries")->body).dump(), R"({"queries":[]})");
  auto ran = c.Post("/graphs/a/queries/names", R"({"params":{}})", "application/json");
  ASSERT_TRUE(ran);
  EXPECT_EQ(ran->status, 200) << ran->body;
  EXPECT_EQ(Parse(ran->body)["rows"][0].members().front().second, "Ada");
  EXPECT_EQ(c.Post("/graphs/b/queries/names", R"({})", "application/json")->status, 404);

  // A query that does not check, or a name declared twice, refuses the boot: file, line, reason.
  RegistryOptions options;
  options.multi = true;
  auto bad =
      GraphRegistry::Open({{"a",
                            a,
                            {{"q/bad.gq",
                              "query ok() { match { $p: Person } return { $p.name } }\n"
                              "query broken() { match { $p: Persn } return { $p.name } }\n"}}}},
                          options);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'broken' at q/bad.gq:2"), std::string::npos)
      << bad.status().ToString();
  EXPECT_NE(bad.status().message().find("Persn"), std::string::npos) << bad.status().ToString();
  auto twice = GraphRegistry::Open(
      {{"a",
        a,
        {{"one.gq", std::string(kQueries)},
         {"two.gq", "\n\nquery names() { match { $p: Person } return { $p.name } }"}}}},
      options);
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.status().message().find("'names' is declared twice: at one.gq:1 and at two.gq:3"),
            std::string::npos)
      << twice.status().ToString();
}

}  // namespace
// An external Blob reference on a served graph (docs/design/blob.md "External Blob references"):
// the graph's rules come with its GraphSpec (cluster.yaml's external_blobs), the server keeps
// the server_safe bases only, a write through HTTP stores an admitted URI and refuses others,
// and GET and HEAD /blob answer 302 to the stored URI; a remote handle reads what a local one
// does.
TEST(ServerGraphsTest, AnExternalBlobIsAdmittedByTheGraphRulesAndRedirected) {
  const std::string root = TempRoot("ext");
  {
    auto db = api::Database::Init(root, "node Doc { name: String @key  body: Blob? }\n");
    ASSERT_TRUE(db.ok()) << db.status().ToString();
  }
  GraphSpec spec{"ext", root, {}, {}, {}};
  spec.external_blobs = {{"s3://assets/docs/", "server_safe"}, {"file:///tmp/", "embedded_only"}};
  InProcessServer server(Registry({spec}), ListingAuth());
  httplib::Client c = server.Client("admin-token");
  const std::string insert =
      R"({"query":"query a($n: String, $b: Blob?) { insert Doc { name: $n, body: $b } }",)";
  auto admitted =
      c.Post("/graphs/ext/mutate", insert + R"("params":{"n":"a","b":"s3://assets/docs/a.pdf"}})",
             "application/json");
  ASSERT_TRUE(admitted);
  EXPECT_EQ(admitted->status, 200) << admitted->body;
  // The embedded_only file:// base is not the server's; a URI outside every base is refused.
  for (const std::string uri : {"file:///tmp/x.bin", "s3://other/a.pdf"}) {
    auto refused =
        c.Post("/graphs/ext/mutate", insert + R"("params":{"n":"r","b":")" + uri + R"("}})",
               "application/json");
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->status, 400) << refused->body;
    EXPECT_NE(refused->body.find("external blob URI '" + uri + "' is not allowed"),
              std::string::npos)
        << refused->body;
  }
  auto loaded = c.Post(
      "/graphs/ext/load",
      R"({"data":"{\"type\":\"Doc\",\"data\":{\"name\":\"l\",\"body\":\"s3://assets/docs/l.bin\"}}\n","mode":"merge"})",
      "application/json");
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->status, 200) << loaded->body;
  for (const bool head : {false, true}) {
    httplib::Headers conditional = {{"If-None-Match", "*"}, {"Range", "bytes=0-3"}};
    const std::string path = "/graphs/ext/blob?entity=node&type=Doc&id=a&property=body";
    auto r = head ? c.Head(path, conditional) : c.Get(path, conditional);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 302) << head;
    EXPECT_EQ(r->get_header_value("Location"), "s3://assets/docs/a.pdf");
    EXPECT_EQ(r->get_header_value("Cache-Control"), "no-store");
    EXPECT_FALSE(r->get_header_value("Omnigraph-Snapshot-Id").empty());
    EXPECT_FALSE(r->has_header("ETag"));
    EXPECT_TRUE(r->body.empty());
  }
  auto l = c.Get("/graphs/ext/blob?entity=node&type=Doc&id=l&property=body");
  ASSERT_TRUE(l);
  EXPECT_EQ(l->status, 302);
  EXPECT_EQ(l->get_header_value("Location"), "s3://assets/docs/l.bin");
  // The remote handle and a local one on the same root: the same stat, the same refusal to read.
  api::ConnectOptions connect;
  connect.bearer_token = "admin-token";
  connect.graph_id = "ext";
  auto remote = api::Database::Connect(server.url(), connect);
  ASSERT_TRUE(remote.ok()) << remote.status().ToString();
  auto local = api::Database::Open(root);
  ASSERT_TRUE(local.ok()) << local.status().ToString();
  const api::BlobSelector cell{"node", "Doc", "a", "body"};
  for (api::Database* db : {remote->get(), local->get()}) {
    api::Result<Json> stat = db->StatBlob(cell, api::ReadTarget{});
    ASSERT_TRUE(stat.ok()) << stat.status().ToString();
    EXPECT_EQ((*stat)["kind"], "external");
    EXPECT_EQ((*stat)["uri"], "s3://assets/docs/a.pdf");
    api::Result<Json> read = db->ReadBlob(cell, api::ReadTarget{}, std::nullopt,
                                          [](std::string_view) { return api::Status::Ok(); });
    ASSERT_FALSE(read.ok());
    EXPECT_EQ(read.status().code(), api::Code::kUnsupported);
    EXPECT_EQ(read.status().message(),
              "external Blob is not downloaded; URI: s3://assets/docs/a.pdf; use `blob stat "
              "--json` to inspect the descriptor");
  }
  // Read time does not re-check the rules (decision 188): a handle without them still reads
  // the stored reference (the local one above has none).
}

}  // namespace omnigraph::server
