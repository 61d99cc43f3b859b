// The server's request pipeline over the route table (docs/design/server.md): route, then
// authenticate and authorize, then check the body (media type, size, UTF-8, JSON shape), then
// call the handler. Every failure is an ErrorOutput with a 4xx status and changes nothing; a
// graph route resolves its graph through the registry (server/registry.h: 404 for an unknown id,
// 503 with the reason for a quarantined one) and its handler calls the public API on that graph's
// Database, opened once and shared by every worker.
// Thread-safety: a Service is immutable once built and handles requests from any number of
// threads (the Database is thread-safe, omnigraph/omnigraph.h).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>

#include "omnigraph/omnigraph.h"
#include "server/admission.h"
#include "server/auth.h"
#include "server/http.h"
#include "server/registry.h"
#include "server/routes.h"

namespace omnigraph::server {

// Request body limits; both configurable (--max-body-bytes, --max-load-bytes).
inline constexpr uint64_t kRequestBodyBytesMaxDefault = uint64_t{1} << 20;
inline constexpr uint64_t kLoadBodyBytesMaxDefault = uint64_t{32} << 20;

// The response header that names the commit a read was served at.
inline constexpr const char* kCommitHeader = "Omnigraph-Graph-Commit";
// The request header of POST /mutate/if-graph-commit: the commit the branch head must be.
inline constexpr const char* kIfCommitHeader = "omnigraph-if-graph-commit";

struct ServiceOptions {
  // The graph id of the one-Database constructor (single-graph mode).
  std::string graph_id = "default";
  std::string version;
  uint64_t body_bytes_max = kRequestBodyBytesMaxDefault;
  uint64_t load_bytes_max = kLoadBodyBytesMaxDefault;
  // Per-actor admission control (server/admission.h).
  AdmissionLimits admission;
};

// A request that passed Service's checks (route, auth, grants, media type): its route, its
// caller, its graph. None of them changes between Admit and Handle (the route table, the tokens
// and the registry are fixed at boot), so Handle takes Admit's rather than checking again.
struct CheckedRequest {
  const Route* route = nullptr;
  std::optional<std::string> actor;
  const ServedGraph* graph = nullptr;  // a graph route's graph
};

// What Service::Admit decided about a request whose header has been read.
struct Admission {
  // Set: refuse the request with this response, without reading its body.
  std::optional<HttpResponse> refused;
  // The route's body limit (the load limit for the load routes).
  uint64_t body_bytes_max = 0;
  // A server route that makes no engine call (/healthz, /openapi.json, /graphs): cheap enough to
  // answer on the listener's event loop.
  bool on_loop = false;
  // Set when not refused: what the checks found, for Handle.
  std::optional<CheckedRequest> checked;
};

class Service {
 public:
  // Serves the graphs of `registry`.
  Service(std::shared_ptr<const GraphRegistry> registry, Auth auth, ServiceOptions options);
  // Serves one graph, as options.graph_id, with no stored queries (single-graph mode).
  Service(std::shared_ptr<api::Database> db, Auth auth, ServiceOptions options);

  const RouteTable& routes() const { return routes_; }
  const ServiceOptions& options() const { return options_; }
  const GraphRegistry& registry() const { return *registry_; }
  const Auth& auth() const { return auth_; }

  // The checks that need no body (route, auth, media type, declared length), so that a request
  // that will be refused is refused before its body is read. `memo`, the connection's (the
  // listener keeps one per connection), spares digesting the same bearer token again.
  Admission Admit(HttpRequest& request, AuthMemo* memo = nullptr) const;
  // The whole pipeline for a request whose body has been read; `checked`, Admit's finding for
  // this request, spares checking it again (without it, Handle checks).
  HttpResponse Handle(HttpRequest& request,
                      std::optional<CheckedRequest> checked = std::nullopt) const;
  // The whole pipeline for a request made inside the server — an MCP tool call (server/mcp.h)
  // runs its route this way: route, auth, gate (a denial logged), body checks, handler.
  HttpResponse HandleInternal(HttpRequest& request) const;

 private:
  using Admitted = CheckedRequest;
  // A graph route's graph: served, or the 404 (unknown id, or a plain path in multi-graph mode)
  // or 503 (quarantined) to answer.
  std::variant<const ServedGraph*, HttpResponse> ResolveGraph(const RouteMatch& match,
                                                              const HttpRequest& request) const;
  // Route, auth and media type; the response when refused (a denial logged when `log_denials`:
  // Admit runs first and a request it refuses is never handled).
  std::variant<Admitted, HttpResponse> Check(HttpRequest& request, bool log_denials,
                                             AuthMemo* memo = nullptr) const;
  // The route's action for the authenticated caller: GET /graphs by the cluster-bound bundle, a
  // graph with a bundle left to the engine's gate, any other by the grants (DefaultDeny). The
  // 403 to answer (the denial logged) or nothing.
  std::optional<HttpResponse> Authorize(const Route& route, const Admitted& admitted,
                                        bool log_denials) const;
  void AddServerRoutes();
  // Per-actor admission of a checked request (the 429 to answer, or nothing: then
  // request.admission holds its ticket).
  std::optional<HttpResponse> AdmitActor(const Admitted& admitted, HttpRequest& request,
                                         bool count_rate = true) const;

  std::shared_ptr<const GraphRegistry> registry_;
  Auth auth_;
  ServiceOptions options_;
  RouteTable routes_;
  std::unique_ptr<ActorAdmission> admission_;
};

// Adds the graph routes (query, mutate, load, export, schema, branches, commits); each handler
// runs on the Database of the call's graph (Call::db).
void AddGraphRoutes(RouteTable& table);
// Adds GET and HEAD /blob, Blob delivery (server/blob_routes.cc, docs/design/blob.md).
void AddBlobRoutes(RouteTable& table);
// Adds the review routes: GET /diff and GET /branches/merge/preview (server/review_routes.cc).
void AddReviewRoutes(RouteTable& table);
// Adds the review page (GET /ui/ and its files) and GET /access (server/ui_routes.cc).
void AddUiRoutes(RouteTable& table);
// Adds the stored-query routes: the catalog and invocation (server/query_routes.cc).
void AddQueryRoutes(RouteTable& table);
// Adds the MCP endpoint, POST /mcp and POST /graphs/{graph_id}/mcp (server/mcp.h); its tool
// calls run their routes through `service`.
void AddMcpRoutes(RouteTable& table, const Service& service);

}  // namespace omnigraph::server
