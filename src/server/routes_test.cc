// The route table against its OpenAPI document, the router's matching, and token auth — in one
// process over an in-memory graph. The same document is checked against the routes served over
// HTTP by server_http_test.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "omnigraph/omnigraph.h"
#include "server/auth.h"
#include "server/routes.h"
#include "server/service.h"

namespace omnigraph::server {
namespace {

using api::Json;

std::shared_ptr<api::Database> MemoryGraph(std::string_view name) {
  auto db =
      api::Database::Init("memory://" + std::string(name), "node Person { name: String @key }");
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  return std::shared_ptr<api::Database>(std::move(*db));
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

TEST(RouteTableTest, EveryRouteIsDocumentedAndEveryDocumentedOperationIsARoute) {
  Service service(MemoryGraph("doc"), Auth::Unauthenticated(), ServiceOptions{});
  const RouteTable& table = service.routes();
  Json doc = table.OpenApi("test");
  size_t routes = 0;
  for (const Route& route : table.routes()) {
    for (bool nested : {false, true}) {
      if (nested && !route.graph_route) continue;
      ++routes;
      const Json& op = doc["paths"][OpenApiPath(route, nested)][Lower(route.method)];
      EXPECT_TRUE(op.is_object()) << route.method << " " << OpenApiPath(route, nested);
      EXPECT_EQ(op["x-omnigraph-action"], route.action.empty() ? "none" : route.action);
    }
  }
  size_t documented = 0;
  for (const Json::Member& path : doc["paths"].members()) {
    for (const Json::Member& op : path.second.members()) {
      ++documented;
      HttpRequest request;
      request.method = op.first;
      for (char& c : request.method)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      request.path = path.first;
      if (request.path.starts_with("/graphs/{graph_id}/")) {
        request.path.replace(0, std::string_view("/graphs/{graph_id}").size(), "/graphs/default");
      }
      RouteMatch match = table.Match(request);
      ASSERT_NE(match.route, nullptr) << op.first << " " << path.first << ": " << match.message;
      EXPECT_EQ(OpenApiPath(*match.route, path.first.starts_with("/graphs/{graph_id}/")),
                path.first);
    }
  }
  EXPECT_EQ(documented, routes);
  // The CORE routes this server has today (merge, snapshot and the change feed come with their
  // APIs).
  for (const char* op :
       {"GET /healthz", "GET /openapi.json", "GET /graphs", "POST /query", "POST /mutate",
        "POST /mutate/if-graph-commit", "GET /schema", "POST /schema/apply", "POST /load/ndjson",
        "POST /load", "POST /export", "GET /branches", "POST /branches", "DELETE /branches/{name}",
        "GET /commits", "GET /commits/{commit_id}", "GET /changes", "POST /changes/baseline"}) {
    const std::string s = op;
    const size_t space = s.find(' ');
    EXPECT_TRUE(doc["paths"][s.substr(space + 1)][Lower(s.substr(0, space))].is_object()) << op;
  }
}

TEST(RouteTableTest, MatchesPathsParamsAndTheNestedGraphForm) {
  Service service(MemoryGraph("match"), Auth::Unauthenticated(), ServiceOptions{});
  const RouteTable& table = service.routes();
  HttpRequest del{.method = "DELETE", .path = "/graphs/default/branches/review/x"};
  RouteMatch m = table.Match(del);
  ASSERT_NE(m.route, nullptr) << m.message;
  EXPECT_EQ(del.path_params.at("name"), "review/x");
  HttpRequest show{.method = "GET", .path = "/commits/main.3.J2C6S7SD8M"};
  ASSERT_NE(table.Match(show).route, nullptr);
  EXPECT_EQ(show.path_params.at("commit_id"), "main.3.J2C6S7SD8M");
  HttpRequest deeper{.method = "GET", .path = "/commits/a/b"};
  EXPECT_EQ(table.Match(deeper).status, 404);
  HttpRequest wrong_method{.method = "GET", .path = "/query"};
  RouteMatch refused = table.Match(wrong_method);
  EXPECT_EQ(refused.status, 405);
  EXPECT_EQ(refused.allowed_methods, std::vector<std::string>{"POST"});
  // The table matches the shape and names the id; the service resolves it (404: not served).
  HttpRequest other_graph{.method = "POST", .path = "/graphs/other/query"};
  EXPECT_EQ(table.Match(other_graph).graph_id, "other");
  EXPECT_EQ(service.Handle(other_graph).status, 404);
  HttpRequest server_route_nested{.method = "GET", .path = "/graphs/default/healthz"};
  EXPECT_EQ(table.Match(server_route_nested).status, 404);
  HttpRequest graphs{.method = "GET", .path = "/graphs"};
  EXPECT_NE(table.Match(graphs).route, nullptr);
}

TEST(AuthTest, TokensFromTheEnvironmentGrantsAndPolicyFiles) {
  ::setenv("OMNIGRAPH_SERVER_BEARER_TOKEN", "t0", 1);
  ::setenv("OMNIGRAPH_SERVER_BEARER_TOKENS_JSON", R"({"alice":"t1","bob":"t2"})", 1);
  api::Result<Auth> auth = Auth::FromEnvironment();
  ASSERT_TRUE(auth.ok()) << auth.status().ToString();
  EXPECT_EQ(auth->token_count(), 3u);
  EXPECT_EQ(auth->Authenticate("Bearer t0"), "default");
  EXPECT_EQ(auth->Authenticate("Bearer t1"), "alice");
  EXPECT_EQ(auth->Authenticate("Bearer t3"), std::nullopt);
  EXPECT_EQ(auth->Authenticate("t1"), std::nullopt);
  EXPECT_EQ(auth->Authenticate("Bearer "), std::nullopt);
  EXPECT_TRUE(auth->Allowed("bob", "read"));
  EXPECT_FALSE(auth->Allowed("bob", "change"));
  ASSERT_TRUE(auth->Grant("bob", {"change"}).ok());
  EXPECT_TRUE(auth->Allowed("bob", "change"));
  EXPECT_FALSE(auth->Allowed("bob", "branch_delete"));
  EXPECT_EQ(auth->Grant("bob", {"fly"}).code(), api::Code::kInvalidArgument);

  const std::string dir = (std::filesystem::temp_directory_path() / "omnigraph-auth-test").string();
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/ok.json") << R"({"grants": {"alice": ["export", "branch_create"]}})";
  std::ofstream(dir + "/bad.json") << R"({"grants": {"alice": "export"}})";
  ASSERT_TRUE(auth->LoadPolicy(dir + "/ok.json").ok());
  EXPECT_TRUE(auth->Allowed("alice", "export"));
  EXPECT_FALSE(auth->Allowed("alice", "change"));
  EXPECT_EQ(auth->LoadPolicy(dir + "/bad.json").code(), api::Code::kInvalidArgument);
  EXPECT_EQ(auth->LoadPolicy(dir + "/missing.json").code(), api::Code::kNotFound);
  std::filesystem::remove_all(dir);

  ::setenv("OMNIGRAPH_SERVER_BEARER_TOKENS_JSON", R"({"alice":"t0"})", 1);
  EXPECT_EQ(Auth::FromEnvironment().status().code(), api::Code::kInvalidArgument);  // shared
  ::setenv("OMNIGRAPH_SERVER_BEARER_TOKENS_JSON", R"(["t0"])", 1);
  EXPECT_EQ(Auth::FromEnvironment().status().code(), api::Code::kInvalidArgument);
  ::unsetenv("OMNIGRAPH_SERVER_BEARER_TOKEN");
  ::unsetenv("OMNIGRAPH_SERVER_BEARER_TOKENS_JSON");
  EXPECT_EQ(Auth::FromEnvironment()->token_count(), 0u);
  EXPECT_TRUE(Auth::Unauthenticated().Allowed("anyone", "branch_delete"));
  EXPECT_EQ(Auth::Unauthenticated().Authenticate("Bearer t0"), std::nullopt);
}

// The change feed routes in one process: a page from the beginning, an empty caught-up page from
// its cursor, a rejected cursor as 412, a bad request as 400, and the baseline's NDJSON stream.
TEST(ChangeFeedRoutesTest, PollAndBaselineServeTheFeed) {
  std::shared_ptr<api::Database> db = MemoryGraph("feed");
  Service service(db, Auth::Unauthenticated(), ServiceOptions{});
  ASSERT_TRUE(db->Load("{\"type\":\"Person\",\"data\":{\"name\":\"ada\"}}\n", "append", {}).ok());
  auto get = [&](std::map<std::string, std::string> query, const std::string& path = "/changes") {
    HttpRequest r{.method = "GET", .path = path, .query = std::move(query)};
    return service.Handle(r);
  };
  HttpResponse page = get({{"start", "beginning"}});
  ASSERT_EQ(page.status, 200) << page.body;
  api::Result<Json> body = api::ParseJson(page.body, "page");
  ASSERT_TRUE(body.ok());
  ASSERT_EQ((*body)["blocks"].size(), 1u);
  EXPECT_EQ((*body)["blocks"][0]["changes"][0]["id"], "ada");
  EXPECT_TRUE((*body)["caught_up"].get<bool>());
  const std::string cursor = (*body)["cursor"].string_value();
  HttpResponse again = get({{"cursor", cursor}});
  ASSERT_EQ(again.status, 200) << again.body;
  EXPECT_TRUE((*api::ParseJson(again.body, "page"))["blocks"].empty());
  EXPECT_EQ(get({{"cursor", cursor + "x"}}).status, 400);
  EXPECT_EQ(get({{"page_token", cursor}}).status, 200);
  EXPECT_EQ(get({{"page_token", cursor}, {"cursor", cursor}}).status, 400);
  EXPECT_EQ(get({{"cursor", cursor}, {"start", "now"}}).status, 400);
  EXPECT_EQ(get({{"limit", "0"}}).status, 400);
  EXPECT_EQ(get({{"limit", "ten"}}).status, 400);
  EXPECT_EQ(get({{"branch", "nope"}}).status, 404);

  auto post_baseline = [&](const std::string& json) {
    HttpRequest r{.method = "POST", .path = "/changes/baseline", .body = json};
    r.headers["content-type"] = "application/json";
    return service.Handle(r);
  };
  HttpResponse baseline = post_baseline("{}");
  ASSERT_EQ(baseline.status, 200) << baseline.body;
  EXPECT_EQ(baseline.content_type, "application/x-ndjson");
  ASSERT_TRUE(baseline.stream);
  std::string streamed;
  EXPECT_TRUE(baseline.stream([&](std::string_view chunk) {
    streamed += chunk;
    return true;
  }));
  EXPECT_NE(streamed.find("\"name\":\"ada\""), std::string::npos) << streamed;
  EXPECT_NE(streamed.find("{\"baseline\":{\"resume_cursor\":\"c1."), std::string::npos) << streamed;
  EXPECT_EQ(post_baseline("{\"branch\":\"nope\"}").status, 404);
}

}  // namespace
}  // namespace omnigraph::server
