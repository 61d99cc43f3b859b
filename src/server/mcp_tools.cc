// The MCP tools and resources (server/mcp.h, docs/design/mcp.md): each built-in tool is a table
// row naming the HTTP route it runs and where each argument goes (query string, body member, path
// segment or header); a stored query is a tool running POST /queries/{name}. A call builds the
// route's request and runs it through Service::HandleInternal, so its answer is the route's.
#include <algorithm>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "server/auth.h"
#include "server/mcp.h"
#include "server/service.h"

namespace omnigraph::server {
namespace {

using api::Json;

enum class Into { kQuery, kBody, kPath, kHeader };

std::string Lower(std::string text) {
  for (char& c : text) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return text;
}

// A parameter kind's JSON Schema (docs/design/mcp.md "Stored-query tools"); `bigint` takes a
// string of digits or an integer, as POST /queries/{name} does.
Json KindSchema(const std::string& kind, const Json& p) {
  if (kind == "bool") return Json{{"type", "boolean"}};
  if (kind == "int") return Json{{"type", "integer"}};
  if (kind == "float") return Json{{"type", "number"}};
  if (kind == "bigint") {
    Json types = Json::array();
    types.push_back("string");
    types.push_back("integer");
    return Json{{"type", std::move(types)}, {"pattern", "^-?[0-9]+$"}};
  }
  if (kind == "date") return Json{{"type", "string"}, {"format", "date"}};
  if (kind == "datetime") return Json{{"type", "string"}, {"format", "date-time"}};
  if (kind == "vector") {
    Json s = Json{{"type", "array"}, {"items", Json{{"type", "number"}}}};
    if (p["vector_dim"].is_number_integer()) {
      s["minItems"] = p["vector_dim"];
      s["maxItems"] = p["vector_dim"];
    }
    return s;
  }
  if (kind == "list") {
    return Json{{"type", "array"}, {"items", KindSchema(p["item_kind"].string_value(), Json())}};
  }
  return Json{{"type", "string"}};  // string, blob (a URI string), an enum
}

Json ParamSchema(const Json& p) {
  Json s = KindSchema(p["kind"].string_value(), p);
  if (p["nullable"].is_boolean() && p["nullable"].get<bool>()) {
    Json types = Json::array();
    if (s["type"].is_array()) {
      for (const Json& t : s["type"]) types.push_back(t);
    } else {
      types.push_back(s["type"]);
    }
    types.push_back("null");
    s["type"] = std::move(types);
  }
  return s;
}

struct Arg {
  const char* name;
  const char* type;  // JSON Schema type
  bool required;
  Into into;
  const char* as;  // the query parameter, body member, path {segment} or header
  const char* description;
};

struct Tool {
  const char* name;
  const char* title;
  const char* description;
  bool server;         // a server tool (health, graphs_list); else a graph tool
  const char* action;  // the route's action; "" for none
  bool read_only;
  bool destructive;
  const char* method;
  const char* path;  // the route's pattern; {x} filled from a kPath argument
  std::vector<Arg> args;
  const char* alias_of = nullptr;  // a deprecated name kept for the reference's stdio package
};

const Arg kBranch{"branch", "string", false, Into::kQuery, "branch", "a branch (default main)"};
const Arg kSnapshot{"snapshot",   "string",   false,
                    Into::kQuery, "snapshot", "a commit id (instead of a branch)"};

std::vector<Arg> QueryArgs() {
  return {{"source", "string", true, Into::kBody, "query", "the .gq source"},
          {"name", "string", false, Into::kBody, "name", "the query to run; default the only one"},
          {"params", "object", false, Into::kBody, "params", "the query's parameters by name"},
          {"branch", "string", false, Into::kBody, "branch", "a branch (default main)"},
          {"snapshot", "string", false, Into::kBody, "snapshot", "a commit id"}};
}

std::vector<Arg> MutateArgs() {
  return {
      {"source", "string", true, Into::kBody, "query", "the .gq source"},
      {"name", "string", false, Into::kBody, "name", "the mutation to run"},
      {"params", "object", false, Into::kBody, "params", "the query's parameters by name"},
      {"branch", "string", false, Into::kBody, "branch", "a branch (default main)"},
      {"if_graph_commit", "string", false, Into::kHeader, kIfCommitHeader,
       "publish only if the branch head is this commit"},
      {"idempotency_key", "string", false, Into::kHeader, "Idempotency-Key", "makes a retry safe"}};
}

std::vector<Arg> IngestArgs() {
  return {
      {"ndjson", "string", true, Into::kBody, "data", "NDJSON rows (the load format)"},
      {"mode", "string", false, Into::kBody, "mode", "merge (default), append or overwrite"},
      {"branch", "string", false, Into::kBody, "branch", "a branch (default main)"},
      {"from", "string", false, Into::kBody, "from", "create the branch from this one"},
      {"idempotency_key", "string", false, Into::kHeader, "Idempotency-Key", "makes a retry safe"}};
}

// The review tools (beyond RFC-003): a diff of two read views and a merge's preview, both reads
// (docs/design/diff.md).
std::vector<Tool> ReviewTools() {
  return {
      {"branches_diff",
       "Diff",
       "The entity changes from one branch head or commit to another, one page: {from, to, "
       "types, changes, next_page_token?}. What a branch did: from its merge preview's "
       "base_commit_id (from_snapshot) to the branch.",
       false,
       "read",
       true,
       false,
       "GET",
       "/diff",
       {{"from", "string", false, Into::kQuery, "from", "a branch (default main)"},
        {"from_snapshot", "string", false, Into::kQuery, "from_snapshot", "a commit id"},
        {"to", "string", false, Into::kQuery, "to", "a branch"},
        {"to_snapshot", "string", false, Into::kQuery, "to_snapshot", "a commit id"},
        {"limit", "integer", false, Into::kQuery, "limit", "page size (default 1000)"},
        {"page_token", "string", false, Into::kQuery, "page_token", "a next_page_token"},
        {"kind", "string", false, Into::kQuery, "kind", "node or edge"},
        {"type", "string", false, Into::kQuery, "type", "a type name"},
        {"op", "string", false, Into::kQuery, "op", "insert, update or delete"}}},
      {"branches_merge_preview",
       "Preview merge",
       "What merging a branch would do now, publishing nothing: the outcome, the merge base, "
       "how far each side is ahead, and every conflict.",
       false,
       "read",
       true,
       false,
       "GET",
       "/branches/merge/preview",
       {{"source", "string", true, Into::kQuery, "source", "the branch to merge"},
        {"target", "string", false, Into::kQuery, "target", "default main"}}},
  };
}

// The built-in tools that inspect the server and the graph (RFC-003 §5.2), in listing order.
std::vector<Tool> InspectTools() {
  return {
      {"health",
       "Server health",
       "Liveness: the server's status and version.",
       true,
       "",
       true,
       false,
       "GET",
       "/healthz",
       {}},
      {"graphs_list",
       "List graphs",
       "The graphs this server serves ({graphs:[{graph_id, uri}]}).",
       true,
       "graph_list",
       true,
       false,
       "GET",
       "/graphs",
       {}},
      {"snapshot",
       "Snapshot",
       "A branch head or one commit: its tables and row counts.",
       false,
       "read",
       true,
       false,
       "GET",
       "/snapshot",
       {kBranch, kSnapshot}},
      {"schema_get",
       "Get schema",
       "The accepted schema (.pg source in `source`) of a branch head or one commit.",
       false,
       "read",
       true,
       false,
       "GET",
       "/schema",
       {kBranch, kSnapshot}},
      {"branches_list",
       "List branches",
       "Every live branch: {branches}.",
       false,
       "read",
       true,
       false,
       "GET",
       "/branches",
       {}},
      {"commits_list",
       "List commits",
       "Commits newest first on a branch, one page.",
       false,
       "read",
       true,
       false,
       "GET",
       "/commits",
       {kBranch,
        {"limit", "integer", false, Into::kQuery, "limit", "page size (default 100)"},
        {"page_token", "string", false, Into::kQuery, "page_token", "a next_page_token"},
        {"actor", "string", false, Into::kQuery, "actor", "only this actor's commits"}}},
      {"commits_get",
       "Get commit",
       "One commit by id.",
       false,
       "read",
       true,
       false,
       "GET",
       "/commits/{commit_id}",
       {{"commit_id", "string", true, Into::kPath, "commit_id", "the graph commit id"}}},
  };
}

// The built-in tools that run queries, mutations and writes, in listing order.
std::vector<Tool> RunTools() {
  return {
      {"query", "Run a read query", "Runs a .gq read query at a branch head or a snapshot.", false,
       "read", true, false, "POST", "/query", QueryArgs()},
      {"read", "Run a read query", "Deprecated alias of `query`.", false, "read", true, false,
       "POST", "/query", QueryArgs(), "query"},
      {"mutate", "Run a mutation", "Runs a .gq mutation on a branch: one commit, or none.", false,
       "change", false, true, "POST", "/mutate", MutateArgs()},
      {"change", "Run a mutation", "Deprecated alias of `mutate`.", false, "change", false, true,
       "POST", "/mutate", MutateArgs(), "mutate"},
      {"ingest", "Load NDJSON", "Loads NDJSON rows as one commit.", false, "change", false, true,
       "POST", "/load", IngestArgs()},
      {"load", "Load NDJSON", "Alias of `ingest`.", false, "change", false, true, "POST", "/load",
       IngestArgs(), "ingest"},
      {"branches_create",
       "Create branch",
       "Creates a branch from the head of another (main).",
       false,
       "branch_create",
       false,
       false,
       "POST",
       "/branches",
       {{"name", "string", true, Into::kBody, "name", "the new branch"},
        {"from", "string", false, Into::kBody, "from", "default main"}}},
      {"branches_delete",
       "Delete branch",
       "Deletes a branch.",
       false,
       "branch_delete",
       false,
       true,
       "DELETE",
       "/branches/{name}",
       {{"name", "string", true, Into::kPath, "name", "the branch"}}},
      {"branches_merge",
       "Merge branch",
       "Merges a branch into another (default main).",
       false,
       "branch_merge",
       false,
       true,
       "POST",
       "/branches/merge",
       {{"source", "string", true, Into::kBody, "source", "the branch merged"},
        {"target", "string", false, Into::kBody, "target", "default main"},
        {"delete_branch", "boolean", false, Into::kBody, "delete_branch",
         "delete the source after"}}},
      {"schema_apply",
       "Apply schema",
       "Plans and applies a schema on main as one commit.",
       false,
       "schema_apply",
       false,
       true,
       "POST",
       "/schema/apply",
       {{"schema", "string", true, Into::kBody, "schema_source", "the .pg source"},
        {"allow_data_loss", "boolean", false, Into::kBody, "allow_data_loss",
         "allow dropping data"}}},
  };
}

// The built-in tools, in listing order.
const std::vector<Tool>& BuiltinTools() {
  static const std::vector<Tool> tools = [] {
    std::vector<Tool> all = InspectTools();
    for (Tool& t : ReviewTools()) all.push_back(std::move(t));
    for (Tool& t : RunTools()) all.push_back(std::move(t));
    return all;
  }();
  return tools;
}

// The default arguments a listing decides an action with (RFC-003 §5.4): the branch main, the
// target of a branch operation unnamed.
api::PolicyRequest ListingRequest(const McpScope& scope, std::string_view action) {
  api::PolicyRequest r{scope.actor,  std::string(action), std::nullopt,
                       std::nullopt, std::nullopt,        std::nullopt};
  if (scope.graph != nullptr) r.graph = scope.graph->id;
  if (action == "read" || action == "change" || action == "branch_create") r.branch = "main";
  if (action == "schema_apply" || action == "branch_merge") r.target_branch = "main";
  return r;
}

const Auth& AuthOf(const McpScope& scope) { return scope.service->auth(); }

// Whether the actor may do `action` (with the listing's default arguments): the deciders the
// routes' gates use (cluster bundle, graph bundle, grants), asked without logging a denial.
bool Permits(const McpScope& scope, std::string_view action) {
  if (action.empty()) return true;
  const Auth& auth = AuthOf(scope);
  if (action == "graph_list") return auth.DecideGraphList(scope.actor).allowed;
  if (auth.unauthenticated()) return true;
  if (scope.graph != nullptr && scope.graph->policy) {
    return scope.graph->policy->Decide(ListingRequest(scope, action)).allowed;
  }
  return scope.actor && auth.Allowed(*scope.actor, action);
}

// Whether the actor may call stored query `q`: `invoke_query` for it, and `change` for a
// mutation (server/invoke_gate.h, whose decision for a bundle this is).
bool PermitsQuery(const McpScope& scope, const StoredQuery& q) {
  const Auth& auth = AuthOf(scope);
  if (auth.unauthenticated()) return true;
  if (scope.graph->policy) {
    api::PolicyRequest r = ListingRequest(scope, "invoke_query");
    r.query = q.name;
    if (!scope.graph->policy->Decide(r).allowed) return false;
  } else if (!scope.actor || !auth.Allowed(*scope.actor, "invoke_query")) {
    return false;
  }
  return !q.mutation || Permits(scope, "change");
}

bool Serves(const McpScope& scope, const Tool& t) {
  if (t.server) return scope.server_tools;
  // A stored query of the same name is the tool of that name (docs/design/mcp.md).
  return scope.graph != nullptr && scope.graph->FindQuery(t.name) == nullptr;
}

Json Annotations(const std::string& title, bool read_only, bool destructive) {
  Json a = Json{{"title", title}, {"readOnlyHint", read_only}};
  if (!read_only) a["destructiveHint"] = destructive;
  a["openWorldHint"] = false;
  return a;
}

Json InputSchema(const Tool& t) {
  Json properties = Json::object();
  Json required = Json::array();
  for (const Arg& a : t.args) {
    properties[a.name] = Json{{"type", a.type}, {"description", a.description}};
    if (a.required) required.push_back(a.name);
  }
  Json schema = Json{{"type", "object"}, {"properties", std::move(properties)}};
  if (!required.empty()) schema["required"] = std::move(required);
  schema["additionalProperties"] = false;
  return schema;
}

std::string QueryDescription(const StoredQuery& q) {
  std::string text = q.description.value_or(
      "Stored " + std::string(q.mutation ? "mutation" : "read") + " query '" + q.name + "'.");
  if (q.instruction) text += "\n\n" + *q.instruction;
  return text;
}

std::string JsonSchemaType(const Json& v) {
  if (v.is_string()) return "string";
  if (v.is_boolean()) return "boolean";
  if (v.is_number_integer()) return "integer";
  if (v.is_number()) return "number";
  if (v.is_array()) return "array";
  if (v.is_object()) return "object";
  return "null";
}

// The arguments against the tool's schema: known names, their types, the required ones.
std::optional<std::string> CheckArgs(const Tool& t, const Json& args) {
  for (const Json::Member& m : args.members()) {
    auto it = std::find_if(t.args.begin(), t.args.end(),
                           [&m](const Arg& a) { return m.first == a.name; });
    if (it == t.args.end()) return "unknown argument '" + m.first + "' of tool '" + t.name + "'";
    const std::string got = JsonSchemaType(m.second);
    const bool number_ok = std::string_view(it->type) == "number" && got == "integer";
    if (got != it->type && !number_ok) {
      return "argument '" + m.first + "' of tool '" + t.name + "' must be " + it->type + ", not " +
             got;
    }
  }
  for (const Arg& a : t.args) {
    if (a.required && !args.contains(a.name)) {
      return "argument '" + std::string(a.name) + "' of tool '" + t.name + "' is required";
    }
  }
  return std::nullopt;
}

std::string ScalarText(const Json& v) { return v.is_string() ? v.string_value() : v.dump(); }

// The path a tool's route is served at for this scope: under /graphs/{id}/ for a graph tool.
std::string RoutePath(const McpScope& scope, const std::string& pattern) {
  return scope.graph == nullptr || pattern == "/healthz" || pattern == "/graphs"
             ? pattern
             : "/graphs/" + scope.graph->id + pattern;
}

HttpRequest BaseRequest(const McpScope& scope, std::string method, const std::string& pattern) {
  HttpRequest r;
  r.method = std::move(method);
  r.path = RoutePath(scope, pattern);
  if (!scope.authorization.empty()) r.headers["authorization"] = scope.authorization;
  return r;
}

// The route's request for a call of `t`, or why the arguments cannot make one.
std::variant<HttpRequest, std::string> BuildRequest(const McpScope& scope, const Tool& t,
                                                    const Json& args) {
  std::string pattern = t.path;
  if (std::string_view(t.name) == "mutate" || std::string_view(t.name) == "change") {
    if (args.contains("if_graph_commit")) pattern += "/if-graph-commit";
  }
  Json body = Json::object();
  HttpRequest r = BaseRequest(scope, t.method, "");
  for (const Arg& a : t.args) {
    if (!args.contains(a.name) || args[a.name].is_null()) continue;
    const Json& v = args[a.name];
    switch (a.into) {
      case Into::kQuery: r.query[a.as] = ScalarText(v); break;
      case Into::kBody: body[a.as] = v; break;
      case Into::kHeader: r.headers[Lower(a.as)] = ScalarText(v); break;
      case Into::kPath: {
        const std::string text = ScalarText(v);
        if (text.empty() ||
            (std::string_view(a.as) == "commit_id" && text.find('/') != std::string::npos)) {
          return "argument '" + std::string(a.name) + "' is not a valid " + a.as;
        }
        pattern.replace(pattern.find("{" + std::string(a.as) + "}"), std::strlen(a.as) + 2, text);
        break;
      }
    }
  }
  r.path = RoutePath(scope, pattern);
  if (std::string_view(t.method) == "POST") {
    r.headers["content-type"] = "application/json";
    r.body = body.dump();
  }
  return r;
}

// A route's answer as a CallToolResult: the body as text (and, being JSON, as structured
// content); a failure is a result with isError and ErrorOutput plus its http_status.
Json ToolResult(const HttpResponse& response) {
  const bool ok = response.status >= 200 && response.status < 300;
  api::Result<Json> parsed = api::ParseJson(response.body, "the route's answer");
  Json result = Json::object();
  if (ok) {
    result["content"] = Json::array();
    result["content"].push_back(Json{{"type", "text"}, {"text", response.body}});
    if (parsed.ok() && parsed->is_object()) result["structuredContent"] = *parsed;
    result["isError"] = false;
    return result;
  }
  Json error = parsed.ok() && parsed->is_object() ? *parsed : Json{{"error", response.body}};
  error["http_status"] = response.status;
  result["content"] = Json::array();
  result["content"].push_back(Json{{"type", "text"}, {"text", error.dump()}});
  result["structuredContent"] = error;
  result["isError"] = true;
  return result;
}

Json ErrorResult(const std::string& message) {
  Json result = Json::object();
  result["content"] = Json::array();
  result["content"].push_back(Json{{"type", "text"}, {"text", message}});
  result["isError"] = true;
  return result;
}

// A call the actor's listing does not show, refused by its route: answered as an unknown tool.
bool Refused(const HttpResponse& response) {
  return response.status == 403 || response.status == 404;
}

std::optional<Json> CallStored(const McpScope& scope, const StoredQuery& q, const Json& args) {
  const bool listed = PermitsQuery(scope, q);
  HttpRequest r = BaseRequest(scope, "POST", "/queries/" + q.name);
  r.headers["content-type"] = "application/json";
  r.body = Json{{"params", args}}.dump();
  HttpResponse response = scope.service->HandleInternal(r);
  if (!listed && Refused(response)) return std::nullopt;
  return ToolResult(response);
}

struct Resource {
  const char* uri;
  const char* name;
  const char* description;
  bool server;
  const char* action;
  const char* path;
  const char* mime_type;
  const char* member;  // the answer's member that is the text; "" for the whole JSON body
};

const std::vector<Resource>& Resources() {
  static const std::vector<Resource> resources = {
      {"omnigraph://schema", "schema", "The accepted schema of main (.pg source)", false, "read",
       "/schema", "text/plain", "schema_source"},
      {"omnigraph://branches", "branches", "Every live branch ({branches})", false, "read",
       "/branches", "application/json", ""},
      {"omnigraph://graphs", "graphs", "The graphs this server serves ({graphs})", true,
       "graph_list", "/graphs", "application/json", ""},
  };
  return resources;
}

bool Serves(const McpScope& scope, const Resource& r) {
  return r.server ? scope.server_tools : scope.graph != nullptr;
}

}  // namespace

Json McpListResources(const McpScope& scope) {
  Json out = Json::array();
  for (const Resource& r : Resources()) {
    if (!Serves(scope, r) || !Permits(scope, r.action)) continue;
    out.push_back(Json{{"uri", r.uri},
                       {"name", r.name},
                       {"description", r.description},
                       {"mimeType", r.mime_type}});
  }
  return out;
}

std::variant<Json, JsonRpcError> McpReadResource(const McpScope& scope, const std::string& uri) {
  const std::vector<Resource>& all = Resources();
  auto it =
      std::find_if(all.begin(), all.end(), [&uri](const Resource& r) { return uri == r.uri; });
  if (it == all.end() || !Serves(scope, *it) || !Permits(scope, it->action)) {
    return JsonRpcError{kResourceNotFound, "Resource not found", Json{{"uri", uri}}};
  }
  HttpRequest request = BaseRequest(scope, "GET", it->path);
  HttpResponse response = scope.service->HandleInternal(request);
  api::Result<Json> body = api::ParseJson(response.body, "the route's answer");
  if (response.status != 200 || !body.ok()) {
    return JsonRpcError{-32603,
                        "reading " + uri + " failed (HTTP " + std::to_string(response.status) + ")",
                        body.ok() ? *body : Json(response.body)};
  }
  std::string text = *it->member ? (*body)[it->member].string_value() : response.body;
  Json content = Json{{"uri", uri}, {"mimeType", it->mime_type}, {"text", std::move(text)}};
  Json contents = Json::array();
  contents.push_back(std::move(content));
  return Json{{"contents", std::move(contents)}};
}

Json StoredQueryInputSchema(const StoredQuery& query) {
  Json properties = Json::object();
  Json required = Json::array();
  for (const Json& p : query.params) {
    const std::string name = p["name"].string_value();
    properties[name] = ParamSchema(p);
    if (!p["nullable"].get<bool>()) required.push_back(name);
  }
  Json schema = Json{{"type", "object"}, {"properties", std::move(properties)}};
  if (!required.empty()) schema["required"] = std::move(required);
  schema["additionalProperties"] = false;
  return schema;
}

Json McpListTools(const McpScope& scope) {
  Json tools = Json::array();
  for (const Tool& t : BuiltinTools()) {
    if (!Serves(scope, t) || !Permits(scope, t.action)) continue;
    tools.push_back(Json{{"name", t.name},
                         {"title", t.title},
                         {"description", t.description},
                         {"inputSchema", InputSchema(t)},
                         {"annotations", Annotations(t.title, t.read_only, t.destructive)}});
  }
  if (scope.graph == nullptr) return tools;
  for (const auto& [name, q] : scope.graph->queries) {
    if (!PermitsQuery(scope, q)) continue;
    tools.push_back(Json{{"name", name},
                         {"title", name},
                         {"description", QueryDescription(q)},
                         {"inputSchema", StoredQueryInputSchema(q)},
                         {"annotations", Annotations(name, !q.mutation, q.mutation)}});
  }
  return tools;
}

std::optional<Json> McpCallTool(const McpScope& scope, const std::string& name,
                                const Json& arguments) {
  if (scope.graph != nullptr) {
    if (const StoredQuery* q = scope.graph->FindQuery(name))
      return CallStored(scope, *q, arguments);
  }
  const std::vector<Tool>& tools = BuiltinTools();
  auto it =
      std::find_if(tools.begin(), tools.end(), [&name](const Tool& t) { return name == t.name; });
  if (it == tools.end() || !Serves(scope, *it)) return std::nullopt;
  const bool listed = Permits(scope, it->action);
  if (std::optional<std::string> bad = CheckArgs(*it, arguments)) {
    if (!listed) return std::nullopt;
    return ErrorResult(*bad);
  }
  std::variant<HttpRequest, std::string> request = BuildRequest(scope, *it, arguments);
  if (auto* bad = std::get_if<std::string>(&request)) {
    if (!listed) return std::nullopt;
    return ErrorResult(*bad);
  }
  HttpResponse response = scope.service->HandleInternal(std::get<HttpRequest>(request));
  if (!listed && Refused(response)) return std::nullopt;
  return ToolResult(response);
}

}  // namespace omnigraph::server
