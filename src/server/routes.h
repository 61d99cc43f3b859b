// The route table the server dispatches on and documents: every route's method, path pattern,
// the action a caller must be granted, the body it takes, and its handler. The router matches a
// request to a route (404 for an unknown path, 405 for a known path with another method), and
// the OpenAPI document (/openapi.json) is generated from the same table, so the two cannot drift
// (docs/design/server.md "Routes").
//
// Graph routes are served under /graphs/{graph_id}/ for every graph the server serves, and at the
// plain paths for the one graph of single-graph mode; server routes (/healthz, /openapi.json,
// /graphs) only at their plain paths. The table matches shapes only: which graph an id names (and
// whether it is served) is the registry's answer (server/registry.h, server/service.h).
// Thread-safety: immutable once built; matched from any number of threads.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "omnigraph/json.h"
#include "omnigraph/omnigraph.h"
#include "server/http.h"

namespace omnigraph::server {

// What a route's request body is.
enum class BodyKind {
  kNone,    // No body (GET, DELETE).
  kJson,    // A JSON object, Content-Type application/json.
  kNdjson,  // NDJSON, Content-Type application/x-ndjson; the load body limit applies.
};

// A documented query parameter or request-body member.
struct Param {
  std::string name;
  std::string type;  // "string", "boolean", "integer", "object", "array"
  bool required = false;
  std::string description;
};

class Auth;
struct ServedGraph;

// One dispatched request: the request, the actor its token names (none when the server is
// unauthenticated), for a JSON route its body parsed and checked against the route's members
// (known names, their types, the required ones present), and for a graph route the graph it
// resolved to (served, never quarantined) and the server's auth (for the gates a handler runs).
struct Call {
  const HttpRequest& request;
  std::optional<std::string> actor;
  api::Json body;
  const ServedGraph* graph = nullptr;
  std::shared_ptr<api::Database> db;
  const Auth* auth = nullptr;
};

struct Route {
  std::string method;   // "GET", "POST", "DELETE"
  std::string pattern;  // "/branches/{name}": a {name} segment takes the rest of the path
  // The action a caller needs ("read", "export", "change", "schema_apply", "branch_create",
  // "branch_delete", "branch_merge", "graph_list"); empty for the open routes (health, document).
  std::string action;
  BodyKind body = BodyKind::kNone;
  bool graph_route = true;  // also served under /graphs/{graph_id}/
  std::string summary;
  std::vector<Param> query_params;
  std::vector<Param> body_members;  // for kJson bodies
  // The media type of a successful response.
  std::string response_type = "application/json";
  // The body limit is the load limit (32 MiB by default), not the request limit (1 MiB).
  bool load_body = false;
  // A JSON body that may be left out (no Content-Type, empty): the handler sees {}.
  bool body_optional = false;
  // The handler runs the route's gate itself (stored-query invocation: a denial answers as an
  // unknown name does, server/query_routes.cc); the pipeline only authenticates.
  bool gate_in_handler = false;
  // A graph route whose plain path is also served in multi-graph mode, without a graph
  // (Call::graph null): POST /mcp, the server's own MCP tools (server/mcp.h).
  bool graph_optional = false;
  // A deprecated alias (OmniGraph's /read, /change, /ingest): the path of the route that replaces
  // it ("query"). Its responses carry `Deprecation: true` and `Link: <query>;
  // rel="successor-version"` (RFC 9745, RFC 8288); the document marks it `deprecated`.
  std::string successor;
  std::function<HttpResponse(const Call& call)> handler;
};

// How a request path resolved against the table.
struct RouteMatch {
  const Route* route = nullptr;  // null: see `status`
  // Matched under /graphs/{graph_id}/: the id (not yet resolved); empty for a plain path.
  std::string graph_id;
  int status = 200;     // 404 (no such path or graph) or 405 (path served, not method)
  std::string message;  // why, for 404 and 405
  std::vector<std::string> allowed_methods;  // for 405's Allow header
};

class RouteTable {
 public:
  void Add(Route route);
  const std::vector<Route>& routes() const { return routes_; }

  // Matches `request` (its method and path) and fills request.path_params.
  RouteMatch Match(HttpRequest& request) const;

  // The OpenAPI 3.1 document of every route: each graph route at its plain path and under
  // /graphs/{graph_id}/, with its parameters, body and the error envelope.
  api::Json OpenApi(std::string_view version) const;

 private:
  std::vector<Route> routes_;
  // Each route's pattern split into segments once, not per request.
  std::vector<std::vector<std::string>> patterns_;
};

// The OpenAPI path of `route` ({graph_id} prefixed when `nested`).
std::string OpenApiPath(const Route& route, bool nested);

}  // namespace omnigraph::server
