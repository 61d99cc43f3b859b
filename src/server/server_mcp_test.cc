// The MCP endpoint (docs/design/mcp.md) over real HTTP on loopback, in process: the handshake,
// tools/list per graph and per actor (grants, and a policy bundle's per-query invoke_query scope),
// every built-in tool and stored-query tool against its HTTP route's answer, resources, and the
// protocol's errors (JSON-RPC codes, tool errors with isError, nothing changed).
#include <httplib.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "omnigraph/omnigraph.h"
#include "omnigraph/policy.h"
#include "server/auth.h"
#include "server/in_process_test_util.h"
#include "server/mcp.h"
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
constexpr std::string_view kOtherQueries = R"(query ages() {
  match { $p: Person } return { $p.age } order { $p.age }
}
query snapshot() { match { $p: Person } return { $p.name } order { $p.name } }
)";
constexpr const char* kTokens =
    R"({"admin":"admin-token","reader":"reader-token","alice":"alice-token",)"
    R"("bob":"bob-token","carol":"carol-token"})";
// On graph `p`: alice reads, changes and invokes every query; bob reads and invokes `names`
// only; carol reads and invokes every query but cannot change.
constexpr const char* kBundle = R"(version: 1
rules:
  - id: all-read
    allow:
      actors: { id: [alice, bob, carol] }
      actions: [read]
      branch_scope: any
  - id: alice-changes
    allow:
      actors: { id: alice }
      actions: [change]
      branch_scope: any
  - id: alice-administers
    allow:
      actors: { id: alice }
      actions: [branch_create, branch_delete, branch_merge, schema_apply]
      target_branch_scope: any
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

std::string MakeGraph(const std::string& name) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::filesystem::path p = std::filesystem::temp_directory_path() /
                            ("omnigraph-mcp-test-" + std::string(info->name()) + "-" + name);
  std::filesystem::remove_all(p);
  auto db = api::Database::Init(p.string(), kSchema);
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  if (db.ok()) {
    EXPECT_TRUE((*db)
                    ->Load(R"({"type":"Person","data":{"name":"Ada","age":36}})"
                           "\n"
                           R"({"type":"Person","data":{"name":"Bob","age":20}})",
                           "merge", api::WriteTarget{})
                    .ok());
  }
  return p.string();
}

Json Parse(const std::string& body) {
  api::Result<Json> parsed = api::ParseJson(body, "response");
  EXPECT_TRUE(parsed.ok()) << body;
  return parsed.ok() ? *parsed : Json();
}

Auth Tokens() {
  ::setenv("OMNIGRAPH_SERVER_BEARER_TOKENS_JSON", kTokens, 1);
  api::Result<Auth> auth = Auth::FromEnvironment();
  ::unsetenv("OMNIGRAPH_SERVER_BEARER_TOKENS_JSON");
  EXPECT_TRUE(auth.ok());
  EXPECT_TRUE(auth->Grant("admin", kActions).ok());
  auto cluster = api::Policy::Parse(
      "version: 1\nrules:\n  - id: admin-lists\n    allow:\n      actors: { id: admin }\n"
      "      actions: [graph_list]\n",
      "cluster.policy.yaml", {true, {}});
  EXPECT_TRUE(cluster.ok()) << cluster.status().ToString();
  auth->SetClusterPolicy(*cluster);
  return std::move(*auth);
}

// Graphs a (kQueries) and b (kOtherQueries) by grants, and p (kQueries) under kBundle.
std::shared_ptr<const GraphRegistry> Registry() {
  std::vector<GraphSpec> specs = {
      GraphSpec{"a", MakeGraph("a"), {{"a.gq", std::string(kQueries)}}, {}},
      GraphSpec{"b", MakeGraph("b"), {{"b.gq", std::string(kOtherQueries)}}, {}},
      GraphSpec{"p", MakeGraph("p"), {{"p.gq", std::string(kQueries)}}, {{"p.yaml", kBundle}}}};
  RegistryOptions options;
  options.multi = true;
  options.database.threads = 1;
  auto registry = GraphRegistry::Open(specs, options);
  EXPECT_TRUE(registry.ok()) << registry.status().ToString();
  return registry.ok() ? *registry : nullptr;
}

class McpTest : public ::testing::Test {
 protected:
  void SetUp() override { server_ = std::make_unique<InProcessServer>(Registry(), Tokens()); }

  // One JSON-RPC request's whole answer.
  Json Rpc(const char* token, const std::string& path, const std::string& method,
           Json params = Json::object(), int want_status = 200) {
    httplib::Client c = server_->Client(token);
    Json request = Json{{"jsonrpc", "2.0"}, {"id", 7}, {"method", method}, {"params", params}};
    auto r = c.Post(path, {{"Accept", "application/json, text/event-stream"}}, request.dump(),
                    "application/json");
    EXPECT_TRUE(r);
    if (!r) return Json();
    EXPECT_EQ(r->status, want_status) << r->body;
    return Parse(r->body);
  }
  Json Call(const char* token, const std::string& path, const std::string& tool, Json args) {
    return Rpc(token, path, "tools/call", Json{{"name", tool}, {"arguments", args}})["result"];
  }
  std::set<std::string> ToolNames(const char* token, const std::string& path) {
    std::set<std::string> out;
    const Json answer = Rpc(token, path, "tools/list");
    for (const Json& t : answer["result"]["tools"]) {
      out.insert(t["name"].string_value());
    }
    return out;
  }
  // The route's answer over plain HTTP.
  std::string Get(const char* token, const std::string& path) {
    auto r = server_->Client(token).Get(path);
    EXPECT_TRUE(r && r->status == 200) << path << (r ? r->body : "");
    return r ? r->body : "";
  }
  std::string Post(const char* token, const std::string& path, const Json& body) {
    auto r = server_->Client(token).Post(path, body.dump(), "application/json");
    EXPECT_TRUE(r && r->status == 200) << path << (r ? r->body : "");
    return r ? r->body : "";
  }

  std::unique_ptr<InProcessServer> server_;
};

const std::set<std::string> kReadTools = {
    "snapshot",     "schema_get",  "branches_list", "branches_diff", "branches_merge_preview",
    "commits_list", "commits_get", "query",         "read"};
const std::set<std::string> kWriteTools = {"mutate",         "change",          "ingest",
                                           "load",           "branches_create", "branches_delete",
                                           "branches_merge", "schema_apply"};

TEST_F(McpTest, InitializeNegotiatesTheVersionAndNotificationsAnswer202) {
  Json init = Rpc("admin-token", "/graphs/a/mcp", "initialize",
                  Json{{"protocolVersion", "2025-06-18"},
                       {"capabilities", Json::object()},
                       {"clientInfo", Json{{"name", "t"}, {"version", "1"}}}});
  EXPECT_EQ(init["id"], Json(7));
  EXPECT_EQ(init["result"]["protocolVersion"], Json("2025-06-18"));
  EXPECT_EQ(init["result"]["serverInfo"]["name"], Json("omnigraph-server"));
  EXPECT_TRUE(init["result"]["capabilities"]["tools"].is_object());
  EXPECT_TRUE(init["result"]["capabilities"]["resources"].is_object());
  EXPECT_FALSE(init.contains("error"));
  // A version this server does not speak: it answers with its newest.
  Json other = Rpc("admin-token", "/mcp", "initialize", Json{{"protocolVersion", "1999-01-01"}});
  EXPECT_EQ(other["result"]["protocolVersion"], Json(kMcpProtocolVersions.front()));
  EXPECT_EQ(Rpc("admin-token", "/mcp", "ping")["result"], Json::object());

  httplib::Client c = server_->Client("admin-token");
  auto note = c.Post("/mcp", R"({"jsonrpc":"2.0","method":"notifications/initialized"})",
                     "application/json");
  ASSERT_TRUE(note);
  EXPECT_EQ(note->status, 202);
  EXPECT_EQ(note->body, "");
  auto get = c.Get("/graphs/a/mcp");
  ASSERT_TRUE(get);
  EXPECT_EQ(get->status, 405);
  EXPECT_EQ(get->get_header_value("Allow"), "POST");
  // A batch: one answer per request, none for the notification.
  auto batch = c.Post("/mcp",
                      R"([{"jsonrpc":"2.0","id":1,"method":"ping"},)"
                      R"({"jsonrpc":"2.0","method":"notifications/initialized"},)"
                      R"({"jsonrpc":"2.0","id":"two","method":"ping"}])",
                      "application/json");
  ASSERT_TRUE(batch);
  Json answers = Parse(batch->body);
  ASSERT_EQ(answers.size(), 2u);
  EXPECT_EQ(answers[1]["id"], Json("two"));
}

TEST_F(McpTest, EachEndpointListsItsOwnTools) {
  std::set<std::string> a = ToolNames("admin-token", "/graphs/a/mcp");
  std::set<std::string> want = kReadTools;
  want.insert(kWriteTools.begin(), kWriteTools.end());
  want.insert({"names", "older", "add"});
  EXPECT_EQ(a, want);
  std::set<std::string> b = ToolNames("admin-token", "/graphs/b/mcp");
  EXPECT_TRUE(b.contains("ages"));
  EXPECT_FALSE(b.contains("names"));
  EXPECT_FALSE(b.contains("health"));
  EXPECT_EQ(ToolNames("admin-token", "/mcp"), (std::set<std::string>{"health", "graphs_list"}));
  // On b, the stored query `snapshot` is the tool of that name (the built-in is not served).
  EXPECT_TRUE(b.contains("snapshot"));
  Json stored = Call("admin-token", "/graphs/b/mcp", "snapshot", Json::object());
  EXPECT_EQ(stored["structuredContent"]["query_name"], Json("snapshot")) << stored.dump();
  EXPECT_EQ(stored["structuredContent"]["rows"].size(), 2u);
  // The stored tool's schema: one property per parameter, the non-nullable ones required.
  const Json listed = Rpc("admin-token", "/graphs/a/mcp", "tools/list");
  for (const Json& t : listed["result"]["tools"]) {
    if (t["name"] != Json("add")) continue;
    EXPECT_EQ(t["inputSchema"]["required"].dump(), R"(["name"])");
    EXPECT_EQ(t["inputSchema"]["properties"]["age"]["type"].dump(),
              R"(["string","integer","null"])");
    EXPECT_EQ(t["annotations"]["readOnlyHint"], Json(false));
  }
}

TEST_F(McpTest, AnActorSeesOnlyWhatItsGrantsAllowAndTheRestIsUnknown) {
  std::set<std::string> reader = ToolNames("reader-token", "/graphs/a/mcp");
  EXPECT_EQ(reader, kReadTools);  // no invoke_query grant: no stored query
  EXPECT_EQ(ToolNames("reader-token", "/mcp"), std::set<std::string>{"health"});
  for (const char* tool : {"add", "names", "mutate", "branches_create", "graphs_list", "nope"}) {
    const std::string path = std::string(tool) == "graphs_list" ? "/mcp" : "/graphs/a/mcp";
    Json answer = Rpc("reader-token", path, "tools/call",
                      Json{{"name", tool}, {"arguments", Json{{"name", "Eve"}}}});
    EXPECT_EQ(answer["error"]["code"], Json(-32602)) << tool << answer.dump();
    EXPECT_EQ(answer["error"]["message"], Json("Unknown tool: " + std::string(tool)));
    EXPECT_FALSE(answer.contains("result"));
  }
  // Nothing was written: still the seed's two people, one commit of them.
  EXPECT_EQ(Parse(Post("admin-token", "/graphs/a/queries/names", Json::object()))["rows"].size(),
            2u);
}

TEST_F(McpTest, APolicyBundleScopesStoredQueryToolsPerQuery) {
  const std::string path = "/graphs/p/mcp";
  auto stored = [&](const char* token) {
    std::set<std::string> out;
    for (const std::string& n : ToolNames(token, path)) {
      if (n == "names" || n == "older" || n == "add") out.insert(n);
    }
    return out;
  };
  EXPECT_EQ(stored("alice-token"), (std::set<std::string>{"names", "older", "add"}));
  EXPECT_EQ(stored("bob-token"), std::set<std::string>{"names"});
  EXPECT_EQ(stored("carol-token"), (std::set<std::string>{"names", "older"}));
  EXPECT_FALSE(ToolNames("bob-token", path).contains("mutate"));
  EXPECT_TRUE(ToolNames("alice-token", path).contains("schema_apply"));
  // bob's call of a query its rule does not name answers as an unknown tool does.
  Json older = Rpc("bob-token", path, "tools/call",
                   Json{{"name", "older"}, {"arguments", Json{{"age", 30}}}});
  EXPECT_EQ(older["error"]["code"], Json(-32602));
  EXPECT_EQ(older["error"]["message"], Json("Unknown tool: older"));
  Json add = Rpc("carol-token", path, "tools/call",
                 Json{{"name", "add"}, {"arguments", Json{{"name", "Eve"}}}});
  EXPECT_EQ(add["error"]["message"], Json("Unknown tool: add"));
  Json names = Call("bob-token", path, "names", Json::object());
  EXPECT_EQ(names["isError"], Json(false));
  EXPECT_EQ(names["content"][0]["text"].string_value(),
            Post("bob-token", "/graphs/p/queries/names", Json::object()));
  // alice's stored mutation runs and publishes as alice.
  Json added = Call("alice-token", path, "add", Json{{"name", "Eve"}});
  EXPECT_EQ(added["isError"], Json(false)) << added.dump();
  Json commits = Parse(Get("alice-token", "/graphs/p/commits"));
  EXPECT_EQ(commits["commits"][0]["actor_id"], Json("alice"));
}

// The volatile members of an answer (a read's timing) left out, for comparison.
Json Stable(Json v) {
  if (v.is_object()) v.erase("elapsed_ms");
  return v;
}

TEST_F(McpTest, EveryReadToolAnswersExactlyAsItsRoute) {
  const char* t = "admin-token";
  const std::string mcp = "/graphs/a/mcp";
  auto same = [&](const std::string& tool, const Json& args, const std::string& http) {
    const std::string path = tool == "health" || tool == "graphs_list" ? "/mcp"
                             : tool == "ages"                          ? "/graphs/b/mcp"
                                                                       : mcp;
    Json result = Call(t, path, tool, args);
    EXPECT_EQ(result["isError"], Json(false)) << tool << result.dump();
    EXPECT_EQ(Stable(Parse(result["content"][0]["text"].string_value())), Stable(Parse(http)))
        << tool;
    EXPECT_EQ(Stable(result["structuredContent"]), Stable(Parse(http))) << tool;
  };
  same("health", Json::object(), Get(t, "/healthz"));
  same("graphs_list", Json::object(), Get(t, "/graphs"));
  same("snapshot", Json::object(), Get(t, "/graphs/a/snapshot"));
  same("schema_get", Json{{"branch", "main"}}, Get(t, "/graphs/a/schema?branch=main"));
  same("branches_list", Json::object(), Get(t, "/graphs/a/branches"));
  const std::string commits = Get(t, "/graphs/a/commits?limit=5");
  same("commits_list", Json{{"limit", 5}}, commits);
  const std::string id = Parse(commits)["commits"][0]["graph_commit_id"].string_value();
  same("commits_get", Json{{"commit_id", id}}, Get(t, "/graphs/a/commits/" + id));
  const std::string source =
      "query q($n: String) { match { $p: Person $p.name = $n } "
      "return { $p.name, $p.age } }";
  const Json params = Json{{"n", "Ada"}};
  const std::string direct =
      Post(t, "/graphs/a/query", Json{{"query", source}, {"params", params}});
  same("query", Json{{"source", source}, {"params", params}}, direct);
  same("read", Json{{"source", source}, {"params", params}}, direct);
  same("names", Json::object(), Post(t, "/graphs/a/queries/names", Json::object()));
  same("older", Json{{"age", 30}},
       Post(t, "/graphs/a/queries/older", Json{{"params", Json{{"age", 30}}}}));
  same("ages", Json::object(), Post(t, "/graphs/b/queries/ages", Json::object()));
}

TEST_F(McpTest, EveryWriteToolDoesWhatItsRouteDoes) {
  const char* t = "admin-token";
  const std::string mcp = "/graphs/a/mcp";
  auto ok = [&](const std::string& tool, const Json& args) {
    Json result = Call(t, mcp, tool, args);
    EXPECT_EQ(result["isError"], Json(false)) << tool << result.dump();
    return result["structuredContent"];
  };
  auto people = [&](const std::string& branch) {
    Json rows = Parse(Post(t, "/graphs/a/query",
                           Json{{"query",
                                 "query q() { match { $p: Person } return { $p.name } "
                                 "order { $p.name } }"},
                                {"branch", branch}}))["rows"];
    std::string out;
    for (const Json& r : rows) out += r["p.name"].string_value() + " ";
    return out;
  };
  // A mutation's answer has the keys /mutate's has.
  Json mutated = ok("mutate", Json{{"source", "query m() { insert Person { name: \"Cy\" } }"}});
  Json direct = Parse(
      Post(t, "/graphs/a/mutate", Json{{"query", "query m() { insert Person { name: \"Di\" } }"}}));
  std::set<std::string> mcp_keys, http_keys;
  for (const auto& m : mutated.members()) mcp_keys.insert(m.first);
  for (const auto& m : direct.members()) http_keys.insert(m.first);
  EXPECT_EQ(mcp_keys, http_keys);
  ok("change", Json{{"source", "query m() { insert Person { name: \"Ed\" } }"}});
  ok("add", Json{{"name", "Fa"}, {"age", "41"}});
  EXPECT_EQ(people("main"), "Ada Bob Cy Di Ed Fa ");
  ok("branches_create", Json{{"name", "work"}});
  ok("ingest", Json{{"ndjson", R"({"type":"Person","data":{"name":"Gus"}})"}, {"branch", "work"}});
  ok("load", Json{{"ndjson", R"({"type":"Person","data":{"name":"Hal"}})"}, {"branch", "work"}});
  EXPECT_EQ(people("work"), "Ada Bob Cy Di Ed Fa Gus Hal ");
  EXPECT_EQ(people("main"), "Ada Bob Cy Di Ed Fa ");
  Json merged = ok("branches_merge", Json{{"source", "work"}});
  EXPECT_EQ(people("main"), "Ada Bob Cy Di Ed Fa Gus Hal ");
  ok("branches_delete", Json{{"name", "work"}});
  EXPECT_EQ(Get(t, "/graphs/a/branches").find("work"), std::string::npos);
  ok("schema_apply",
     Json{{"schema", "node Person { name: String @key  age: I64?  nick: String? }\n"}});
  EXPECT_NE(Parse(Get(t, "/graphs/a/schema"))["schema_source"].string_value().find("nick"),
            std::string::npos);
  // A conditional mutation on a stale commit: the route's 412 as a tool error, nothing written.
  Json stale =
      Call(t, mcp, "mutate",
           Json{{"source", "query m() { insert Person { name: \"Zed\" } }"},
                {"if_graph_commit", merged["commit"].is_string() ? merged["commit"].string_value()
                                                                 : std::string("nope")}});
  EXPECT_EQ(stale["isError"], Json(true)) << stale.dump();
  EXPECT_EQ(stale["structuredContent"]["http_status"], Json(412)) << stale.dump();
  EXPECT_EQ(people("main"), "Ada Bob Cy Di Ed Fa Gus Hal ");
}

TEST_F(McpTest, ResourcesAreListedAndReadAsTheirRoutes) {
  Json listed = Rpc("admin-token", "/graphs/a/mcp", "resources/list")["result"]["resources"];
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[0]["uri"], Json("omnigraph://schema"));
  Json schema = Rpc("admin-token", "/graphs/a/mcp", "resources/read",
                    Json{{"uri", "omnigraph://schema"}})["result"]["contents"][0];
  EXPECT_EQ(schema["text"], Parse(Get("admin-token", "/graphs/a/schema"))["schema_source"]);
  Json branches = Rpc("admin-token", "/graphs/a/mcp", "resources/read",
                      Json{{"uri", "omnigraph://branches"}})["result"]["contents"][0];
  EXPECT_EQ(Parse(branches["text"].string_value()),
            Parse(Get("admin-token", "/graphs/a/branches")));
  EXPECT_EQ(Rpc("admin-token", "/mcp", "resources/list")["result"]["resources"].size(), 1u);
  // reader may not list graphs: no such resource for it.
  EXPECT_EQ(Rpc("reader-token", "/mcp", "resources/list")["result"]["resources"].size(), 0u);
  Json denied = Rpc("reader-token", "/mcp", "resources/read", Json{{"uri", "omnigraph://graphs"}});
  EXPECT_EQ(denied["error"]["code"], Json(kResourceNotFound));
}

TEST_F(McpTest, ProtocolErrorsAreJsonRpcErrorsAndToolErrorsAreResults) {
  httplib::Client c = server_->Client("admin-token");
  auto post = [&](const std::string& body, const char* type = "application/json") {
    auto r = c.Post("/graphs/a/mcp", body, type);
    EXPECT_TRUE(r);
    return r ? std::make_pair(r->status, Parse(r->body)) : std::make_pair(0, Json());
  };
  auto [s1, parse] = post("{not json");
  EXPECT_EQ(s1, 400);
  EXPECT_EQ(parse["error"]["code"], Json(-32700));
  EXPECT_TRUE(parse["id"].is_null());
  auto [s2, version] = post(R"({"jsonrpc":"1.0","id":1,"method":"ping"})");
  EXPECT_EQ(version["error"]["code"], Json(-32600));
  auto [s3, method] = post(R"({"jsonrpc":"2.0","id":1,"method":"nope/nope"})");
  EXPECT_EQ(s3, 200);
  EXPECT_EQ(method["error"]["code"], Json(-32601));
  auto [s4, noname] = post(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}})");
  EXPECT_EQ(noname["error"]["code"], Json(-32602));
  auto [s5, media] = post(R"({"jsonrpc":"2.0","id":1,"method":"ping"})", "text/plain");
  EXPECT_EQ(s5, 415);
  auto evil = c.Post("/graphs/a/mcp", {{"Origin", "http://evil.example.com"}},
                     R"({"jsonrpc":"2.0","id":1,"method":"ping"})", "application/json");
  ASSERT_TRUE(evil);
  EXPECT_EQ(evil->status, 403);
  auto old = c.Post("/graphs/a/mcp", {{"MCP-Protocol-Version", "1999-01-01"}},
                    R"({"jsonrpc":"2.0","id":1,"method":"ping"})", "application/json");
  ASSERT_TRUE(old);
  EXPECT_EQ(old->status, 400);
  auto anonymous = server_->Client().Post(
      "/graphs/a/mcp", R"({"jsonrpc":"2.0","id":1,"method":"ping"})", "application/json");
  ASSERT_TRUE(anonymous);
  EXPECT_EQ(anonymous->status, 401);
  EXPECT_EQ(anonymous->get_header_value("WWW-Authenticate"), "Bearer");
  // Tool errors: bad arguments, the route's refusal, a stored query's parameter type error.
  Json wrong = Call("admin-token", "/graphs/a/mcp", "snapshot", Json{{"branch", 3}});
  EXPECT_EQ(wrong["isError"], Json(true));
  Json syntax = Call("admin-token", "/graphs/a/mcp", "query", Json{{"source", "query ("}});
  EXPECT_EQ(syntax["isError"], Json(true));
  EXPECT_EQ(syntax["structuredContent"]["http_status"], Json(400));
  Json typed = Call("admin-token", "/graphs/a/mcp", "older", Json{{"age", true}});
  EXPECT_EQ(typed["isError"], Json(true));
  EXPECT_EQ(typed["structuredContent"]["param_error"]["name"], Json("age"));
  // None of it wrote anything.
  EXPECT_EQ(Parse(Get("admin-token", "/graphs/a/commits"))["commits"].size(),
            Parse(Get("admin-token", "/graphs/b/commits"))["commits"].size());
}

// Single-graph mode: /mcp serves the server's tools and the graph's; /graphs/{id}/mcp the graph's.
TEST(McpSingleGraphTest, PlainMcpServesTheServerToolsAndTheGraphs) {
  auto db = api::Database::Open(MakeGraph("single"));
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  auto registry = GraphRegistry::Single("solo", std::shared_ptr<api::Database>(std::move(*db)),
                                        {{"q.gq", std::string(kQueries)}});
  ASSERT_TRUE(registry.ok()) << registry.status().ToString();
  InProcessServer server(*registry, Auth::Unauthenticated());
  auto names = [&server](const char* path) {
    httplib::Client c = server.Client();
    auto r = c.Post(path, R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})", "application/json");
    std::set<std::string> out;
    if (!r) return out;
    const Json answer = Parse(r->body);
    for (const Json& t : answer["result"]["tools"]) out.insert(t["name"].string_value());
    return out;
  };
  std::set<std::string> plain = names("/mcp");
  std::set<std::string> nested = names("/graphs/solo/mcp");
  // Unauthenticated: every graph tool; graph_list only by a cluster bundle, so not listed.
  EXPECT_TRUE(plain.contains("health"));
  EXPECT_FALSE(plain.contains("graphs_list"));
  EXPECT_FALSE(nested.contains("health"));
  plain.erase("health");
  EXPECT_EQ(plain, nested);
  EXPECT_TRUE(nested.contains("add"));
  EXPECT_TRUE(nested.contains("schema_apply"));
}

TEST(McpSchemaTest, EveryParameterKindHasItsJsonSchema) {
  StoredQuery q;
  q.name = "kinds";
  q.params = Json::array();
  auto param = [&q](const char* name, const char* kind, bool nullable) {
    Json p = Json{{"name", name}, {"kind", kind}, {"nullable", nullable}};
    q.params.push_back(p);
    return p;
  };
  for (const char* kind : {"string", "bool", "int", "bigint", "float", "date", "datetime", "blob"})
    param(kind, kind, false);
  Json list = Json{{"name", "list"}, {"kind", "list"}, {"item_kind", "int"}, {"nullable", true}};
  q.params.push_back(list);
  Json vec = Json{{"name", "vector"}, {"kind", "vector"}, {"vector_dim", 3}, {"nullable", false}};
  q.params.push_back(vec);
  Json s = StoredQueryInputSchema(q);
  const Json& p = s["properties"];
  EXPECT_EQ(p["string"].dump(), R"({"type":"string"})");
  EXPECT_EQ(p["bool"].dump(), R"({"type":"boolean"})");
  EXPECT_EQ(p["int"].dump(), R"({"type":"integer"})");
  EXPECT_EQ(p["bigint"].dump(), R"({"type":["string","integer"],"pattern":"^-?[0-9]+$"})");
  EXPECT_EQ(p["float"].dump(), R"({"type":"number"})");
  EXPECT_EQ(p["date"].dump(), R"({"type":"string","format":"date"})");
  EXPECT_EQ(p["datetime"].dump(), R"({"type":"string","format":"date-time"})");
  EXPECT_EQ(p["blob"].dump(), R"({"type":"string"})");
  EXPECT_EQ(p["list"].dump(), R"({"type":["array","null"],"items":{"type":"integer"}})");
  EXPECT_EQ(p["vector"].dump(),
            R"({"type":"array","items":{"type":"number"},"minItems":3,"maxItems":3})");
  EXPECT_EQ(s["required"].size(), 9u);  // all but the nullable list
  EXPECT_EQ(s["additionalProperties"], Json(false));
}

}  // namespace
}  // namespace omnigraph::server
