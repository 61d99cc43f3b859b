// The route table against its OpenAPI document, the router's matching, and token auth — in one
// process over an in-memory graph. The same document is checked against the routes served over
// HTTP by server_http_test.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "omnigraph/omnigraph.h"
#include "server/auth.h"
#include "server/errors.h"
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
  for (const char* op : {"GET /healthz",      "GET /openapi.json",
                         "GET /graphs",       "POST /query",
                         "POST /mutate",      "POST /mutate/if-graph-commit",
                         "GET /schema",       "POST /schema/apply",
                         "POST /load/ndjson", "POST /load",
                         "POST /export",      "GET /branches",
                         "POST /branches",    "DELETE /branches/{branch}",
                         "GET /commits",      "GET /commits/{commit_id}",
                         "GET /changes",      "POST /changes/baseline",
                         "POST /read",        "POST /change",
                         "POST /ingest"}) {
    const std::string s = op;
    const size_t space = s.find(' ');
    EXPECT_TRUE(doc["paths"][s.substr(space + 1)][Lower(s.substr(0, space))].is_object()) << op;
  }
  EXPECT_EQ(doc["openapi"], "3.1.0");
  // OmniGraph's deprecated aliases are marked so, and only they.
  for (const auto& [path, item] : doc["paths"].members()) {
    for (const auto& [method, op] : item.members()) {
      const bool alias =
          path.ends_with("/read") || path.ends_with("/change") || path.ends_with("/ingest");
      EXPECT_EQ(op.contains("deprecated"), alias) << method << " " << path;
    }
  }
}

TEST(RouteTableTest, MatchesPathsParamsAndTheNestedGraphForm) {
  Service service(MemoryGraph("match"), Auth::Unauthenticated(), ServiceOptions{});
  const RouteTable& table = service.routes();
  HttpRequest del{.method = "DELETE", .path = "/graphs/default/branches/review/x"};
  RouteMatch m = table.Match(del);
  ASSERT_NE(m.route, nullptr) << m.message;
  EXPECT_EQ(del.path_params.at("branch"), "review/x");
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

// A connection's memo of its bearer token (the listener keeps one per connection): the same
// header names the same actor without a digest; another header on the same connection is
// authenticated afresh, a known one replacing the memo and an unknown one refused (not
// remembered, and not mistaken for the remembered one, even at the same length).
TEST(AuthTest, AConnectionsMemoAnswersAsTheTokensDo) {
  ::setenv("OMNIGRAPH_SERVER_BEARER_TOKENS_JSON", R"({"alice":"t1","bob":"t2"})", 1);
  api::Result<Auth> auth = Auth::FromEnvironment();
  ::unsetenv("OMNIGRAPH_SERVER_BEARER_TOKENS_JSON");
  ASSERT_TRUE(auth.ok()) << auth.status().ToString();
  AuthMemo memo;
  EXPECT_EQ(memo.Authenticate(*auth, ""), std::nullopt);
  EXPECT_EQ(memo.Authenticate(*auth, "Bearer t1"), "alice");
  EXPECT_EQ(memo.Authenticate(*auth, "Bearer t1"), "alice");
  EXPECT_EQ(memo.Authenticate(*auth, "Bearer t3"), std::nullopt);  // same length, unknown
  EXPECT_EQ(memo.Authenticate(*auth, "Bearer t1 "), std::nullopt);
  EXPECT_EQ(memo.Authenticate(*auth, "bearer t1"), std::nullopt);
  EXPECT_EQ(memo.Authenticate(*auth, "Bearer t2"), "bob");
  EXPECT_EQ(memo.Authenticate(*auth, "Bearer t1"), "alice");
  EXPECT_EQ(memo.Authenticate(*auth, ""), std::nullopt);
  EXPECT_EQ(memo.Authenticate(*auth, "Bearer t1"), "alice");
  // A memo never authenticates what its Auth would not: an unauthenticated server has no actor.
  EXPECT_EQ(memo.Authenticate(Auth::Unauthenticated(), "Bearer t1"), std::nullopt);
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

// The error envelope's details are OmniGraph's shapes (decision 141), read from the engine's
// message texts; a message that does not carry what a detail requires leaves the detail out.
TEST(ErrorEnvelopeTest, DetailsAreOmniGraphsShapes) {
  auto body = [](const api::Status& status) {
    HttpResponse r = ErrorResponse(status);
    api::Result<Json> parsed = api::ParseJson(r.body, "envelope");
    EXPECT_TRUE(parsed.ok());
    return std::pair{r.status, parsed.ok() ? *parsed : Json()};
  };
  auto [key_status, key] = body(api::Status(
      api::Code::kKeyConflict, "append of id 'Ada', which table 'node:Person' already holds", "m"));
  EXPECT_EQ(key_status, 409);
  EXPECT_EQ(key["key_conflict"],
            (Json{{"entity_kind", "node"}, {"type_name", "Person"}, {"entity_id", "Ada"}}));
  EXPECT_EQ(key["code"], "conflict");
  EXPECT_EQ(key["omnigraph_code"], "key_conflict");
  auto [edge_status, edge] = body(api::Status(
      api::Code::kKeyConflict, "line 3: id 'e1' of edge:WorksAt was already given on line 1"));
  EXPECT_EQ(edge["key_conflict"],
            (Json{{"entity_kind", "edge"}, {"type_name", "WorksAt"}, {"entity_id", "e1"}}));
  EXPECT_FALSE(
      body(api::Status(api::Code::kKeyConflict, "a conflict")).second.contains("key_conflict"));

  auto [pre_status, pre] = body(api::Status(
      api::Code::kPreconditionFailed, "expected head 'main.2.AAAA' but the head is 'main.3.BBBB'"));
  EXPECT_EQ(pre_status, 412);
  EXPECT_EQ(pre["precondition_failure"],
            (Json{{"expected", "main.2.AAAA"}, {"actual", "main.3.BBBB"}}));
  EXPECT_FALSE(pre.contains("code"));  // OmniGraph omits it on 412.

  EXPECT_EQ(body(api::Status(api::Code::kReadSetChanged, "main moved", "rec/5"))
                .second["read_set_conflict"],
            (Json{{"member", "rec/5"}}));
  auto [diff_status, diff] =
      body(api::Status(api::Code::kParentlessCommit,
                       "commit 'main.1.GENESIS' has no parent (genesis): it has "
                       "no diff"));
  EXPECT_EQ(diff_status, 409);
  EXPECT_EQ(diff["change_diff_refusal"],
            (Json{{"reason", "parentless_commit"}, {"graph_commit_id", "main.1.GENESIS"}}));
  // A schema apply refused for open branches is a 409 conflict that names no commit.
  auto [apply_status, apply] =
      body(api::Status(api::Kind::kConflict, api::Code::kSchemaBoundary,
                       "schema apply requires a graph with only main; found non-main branches: x"));
  EXPECT_EQ(apply_status, 409);
  EXPECT_FALSE(apply.contains("change_diff_refusal"));
  // An engine resource limit carries no detail (its schema needs numbers the message lacks).
  EXPECT_FALSE(
      body(api::Status(api::Code::kResourceLimit, "too many")).second.contains("resource_limit"));
}

// Every API code's HTTP status, written out (docs/design/server.md "Errors"): the mapping is a
// switch without a default, and this pins what each code answers.
TEST(ErrorEnvelopeTest, EveryCodeHasItsHttpStatus) {
  using C = api::Code;
  const std::pair<C, int> kStatuses[] = {
      {C::kOk, 200},
      {C::kInvalidArgument, 400},
      {C::kNotFound, 404},
      {C::kAlreadyExists, 409},
      {C::kPrecondition, 412},
      {C::kTransient, 500},
      {C::kUnknown, 500},
      {C::kConfiguration, 500},
      {C::kPermanent, 500},
      {C::kCorruption, 500},
      {C::kFormatTooNew, 500},
      {C::kTooLarge, 413},
      {C::kUnsupported, 400},
      {C::kInternal, 500},
      {C::kCancelled, 500},
      {C::kReadSetChanged, 409},
      {C::kRetriesExhausted, 409},
      {C::kPublicationInDoubt, 500},
      {C::kBranchNotFound, 404},
      {C::kBranchExists, 409},
      {C::kCommitNotFound, 404},
      {C::kAlreadyInitialized, 409},
      {C::kInitializationIncomplete, 503},
      {C::kKeyConflict, 409},
      {C::kPreconditionFailed, 412},
      {C::kMergeConflicts, 409},
      {C::kResourceLimit, 413},
      {C::kUnknownStamp, 500},
      {C::kVersionsReclaimed, 410},
      {C::kParentlessCommit, 409},
      {C::kSchemaBoundary, 409},
      {C::kIdempotencyConflict, 409},
      {C::kChangeCursorRejected, 400},
      {C::kChangeFeedGap, 410},
  };
  for (const auto& [code, http] : kStatuses) {
    EXPECT_EQ(HttpStatusOf(code), http) << api::CodeName(code);
  }
  EXPECT_EQ(std::size(kStatuses), static_cast<size_t>(C::kChangeFeedGap) + 1);
}

// A query's diagnostic rides the envelope as `diagnostic {code, line, column, fix?}` (decision
// 200); the remote backend reads it back (api_both_ways_test).
TEST(ErrorEnvelopeTest, QueryDiagnosticIsAField) {
  const api::Status s = api::InvalidArgument("1:62: T33: no property `agee`", "query:q")
                            .WithDiagnostic(api::DiagnosticDetail{"T33", 1, 62, "use `age`"});
  HttpResponse r = ErrorResponse(s);
  EXPECT_EQ(r.status, 400);
  api::Result<Json> parsed = api::ParseJson(r.body, "envelope");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ((*parsed)["diagnostic"],
            (Json{{"code", "T33"}, {"line", 1u}, {"column", 62u}, {"fix", "use `age`"}}));
  EXPECT_EQ((*parsed)["error"], "1:62: T33: no property `agee`");
  const api::Status no_fix =
      api::InvalidArgument("1:1: Q000: x").WithDiagnostic(api::DiagnosticDetail{"Q000", 1, 1, ""});
  api::Result<Json> plain = api::ParseJson(ErrorResponse(no_fix).body, "envelope");
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE((*plain)["diagnostic"].contains("fix"));
  api::Result<Json> none = api::ParseJson(ErrorResponse(api::InvalidArgument("x")).body, "e");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->contains("diagnostic"));
}

}  // namespace
}  // namespace omnigraph::server
