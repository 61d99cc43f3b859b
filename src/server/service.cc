// The request pipeline and the server's own routes (server/service.h).
#include "server/service.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <utility>
#include <variant>

#include "server/errors.h"

namespace omnigraph::server {
namespace {

// The media type of a Content-Type header, lower case, without parameters.
std::string MediaType(std::string_view content_type) {
  std::string out(content_type.substr(0, content_type.find(';')));
  while (!out.empty() && out.back() == ' ') out.pop_back();
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// Where `text` stops being UTF-8 (RFC 3629: no overlongs, surrogates or code points past
// U+10FFFF), or nullopt when it is valid.
std::optional<size_t> InvalidUtf8At(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    size_t n = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c < 0x80) {
      ++i;
      continue;
    } else if (c >= 0xC2 && c <= 0xDF) {
      n = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 2;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 3;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      return i;
    }
    for (size_t k = 1; k <= n; ++k) {
      if (i + k >= text.size()) return i;
      const auto b = static_cast<unsigned char>(text[i + k]);
      if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF)) return i;
    }
    i += n + 1;
  }
  return std::nullopt;
}

std::string_view TypeName(const api::Json& value) {
  if (value.is_string()) return "string";
  if (value.is_boolean()) return "boolean";
  if (value.is_number_integer()) return "integer";
  if (value.is_number()) return "number";
  if (value.is_array()) return "array";
  if (value.is_object()) return "object";
  return "null";
}

// The body's members against the route's: known names, their types, the required ones.
std::optional<HttpResponse> CheckMembers(const Route& route, const api::Json& body) {
  const std::string where = "the body of " + route.method + " " + route.pattern;
  if (!body.is_object()) return ErrorResponse(400, where + " must be a JSON object");
  for (const api::Json::Member& m : body.members()) {
    auto it = std::find_if(route.body_members.begin(), route.body_members.end(),
                           [&m](const Param& p) { return p.name == m.first; });
    if (it == route.body_members.end()) {
      std::string expected;
      for (const Param& p : route.body_members) expected += (expected.empty() ? "" : ", ") + p.name;
      return ErrorResponse(
          400, "unknown member '" + m.first + "' in " + where + " (expected: " + expected + ")");
    }
    if (TypeName(m.second) != it->type && !m.second.is_null()) {
      return ErrorResponse(400, "member '" + m.first + "' of " + where + " must be " +
                                    (it->type == "integer" ? "an " : "a ") + it->type + ", not " +
                                    std::string(TypeName(m.second)));
    }
  }
  for (const Param& p : route.body_members) {
    if (p.required && (!body.contains(p.name) || body[p.name].is_null())) {
      return ErrorResponse(400, "member '" + p.name + "' is required in " + where);
    }
  }
  return std::nullopt;
}

}  // namespace

namespace {

std::shared_ptr<const GraphRegistry> SingleRegistry(std::string id,
                                                    std::shared_ptr<api::Database> db) {
  // No query files: nothing to check, so this cannot fail.
  return *GraphRegistry::Single(std::move(id), std::move(db), {});
}

}  // namespace

Service::Service(std::shared_ptr<const GraphRegistry> registry, Auth auth, ServiceOptions options)
    : registry_(std::move(registry)),
      auth_(std::move(auth)),
      options_(std::move(options)),
      admission_(std::make_unique<ActorAdmission>(options_.admission)) {
  AddServerRoutes();
  AddGraphRoutes(routes_);
  AddBlobRoutes(routes_);
  AddReviewRoutes(routes_);
  AddUiRoutes(routes_);
  AddQueryRoutes(routes_);
  AddMcpRoutes(routes_, *this);
}

Service::Service(std::shared_ptr<api::Database> db, Auth auth, ServiceOptions options)
    : Service(SingleRegistry(options.graph_id, std::move(db)), std::move(auth), options) {}

void Service::AddServerRoutes() {
  const std::string version = options_.version;
  routes_.Add(Route{.method = "GET",
                    .pattern = "/healthz",
                    .graph_route = false,
                    .summary = "Liveness: {status, version, internal_schema_version}",
                    .handler = [version](const Call&) {
                      // OmniGraph's HealthOutput: the storage format this binary reads and
                      // writes is our storage stamp (docs/design/openapi.md).
                      const api::Json stamp = api::Database::Version()["storage_stamp"];
                      return JsonResponse(api::Json{{"status", "ok"},
                                                    {"version", version},
                                                    {"internal_schema_version", stamp}});
                    }});
  routes_.Add(Route{
      .method = "GET",
      .pattern = "/openapi.json",
      .graph_route = false,
      .summary = "This document, generated from the route table",
      .handler = [this](const Call&) { return JsonResponse(routes_.OpenApi(options_.version)); }});
  const GraphRegistry* registry = registry_.get();
  routes_.Add(Route{.method = "GET",
                    .pattern = "/graphs",
                    .action = "graph_list",
                    .graph_route = false,
                    .summary = "The graphs this server serves, by id (GraphListResponse: "
                               "{graphs:[{graph_id, uri}]}); a quarantined graph is not listed",
                    .handler = [registry](const Call&) {
                      api::Json graphs = api::Json::array();
                      for (const ServedGraph& g : registry->graphs()) {
                        if (!g.db) continue;
                        graphs.push_back(api::Json{{"graph_id", g.id}, {"uri", g.uri}});
                      }
                      return JsonResponse(api::Json{{"graphs", std::move(graphs)}});
                    }});
}

std::variant<const ServedGraph*, HttpResponse> Service::ResolveGraph(
    const RouteMatch& match, const HttpRequest& request) const {
  const ServedGraph* graph = nullptr;
  if (match.graph_id.empty()) {
    graph = registry_->Default();
    if (graph == nullptr) {
      return ErrorResponse(404, "no route " + request.method + " " + request.path +
                                    ": this server serves several graphs; address one as "
                                    "/graphs/{graph_id}" +
                                    request.path + " (GET /graphs lists them)");
    }
  } else {
    graph = registry_->Find(match.graph_id);
    if (graph == nullptr) {
      return ErrorResponse(404, "no graph '" + match.graph_id + "' on this server");
    }
  }
  if (!graph->db) {
    return ErrorResponse(503, "graph '" + graph->id + "' is quarantined: " + graph->quarantine);
  }
  return graph;
}

std::variant<Service::Admitted, HttpResponse> Service::Check(HttpRequest& request, bool log_denials,
                                                             AuthMemo* memo) const {
  RouteMatch match = routes_.Match(request);
  if (match.route == nullptr) {
    HttpResponse refused = ErrorResponse(match.status, match.message);
    if (match.status == 405) {
      std::string allow;
      for (const std::string& m : match.allowed_methods) allow += (allow.empty() ? "" : ", ") + m;
      refused.headers.emplace_back("Allow", allow);
    }
    return refused;
  }
  const Route& route = *match.route;
  const ServedGraph* graph = nullptr;
  const bool without_graph =
      route.graph_optional && match.graph_id.empty() && registry_->Default() == nullptr;
  if (route.graph_route && !without_graph) {
    std::variant<const ServedGraph*, HttpResponse> resolved = ResolveGraph(match, request);
    if (auto* refused = std::get_if<HttpResponse>(&resolved)) return std::move(*refused);
    graph = std::get<const ServedGraph*>(resolved);
  }
  for (const auto& [name, value] : request.query) {
    auto known = [&wanted = name](const Param& p) { return p.name == wanted; };
    if (std::none_of(route.query_params.begin(), route.query_params.end(), known)) {
      std::string expected;
      for (const Param& p : route.query_params) expected += (expected.empty() ? "" : ", ") + p.name;
      return ErrorResponse(400, "unknown query parameter '" + name + "' for " + route.method + " " +
                                    route.pattern +
                                    " (expected: " + (expected.empty() ? "none" : expected) + ")");
    }
  }
  Admitted admitted{&route, std::nullopt, graph};
  if (!route.action.empty() && !auth_.unauthenticated()) {
    const std::string authorization = request.Header("authorization");
    admitted.actor =
        memo ? memo->Authenticate(auth_, authorization) : auth_.Authenticate(authorization);
    if (!admitted.actor) {
      HttpResponse refused = ErrorResponse(
          401, authorization.empty() ? "this route needs an Authorization: Bearer <token> header"
                                     : "the bearer token is not one this server knows");
      refused.headers.emplace_back("WWW-Authenticate", "Bearer");
      return refused;
    }
  }
  if (!route.action.empty()) {
    if (std::optional<HttpResponse> refused = Authorize(route, admitted, log_denials)) {
      return std::move(*refused);
    }
  }
  const bool no_body =
      request.Header("content-type").empty() && request.body.empty() &&
      (request.Header("content-length").empty() || request.Header("content-length") == "0");
  if (route.body != BodyKind::kNone && !(route.body_optional && no_body)) {
    const std::string media = MediaType(request.Header("content-type"));
    const std::string want =
        route.body == BodyKind::kJson ? "application/json" : "application/x-ndjson";
    if (media != want) {
      return ErrorResponse(415, route.method + " " + route.pattern + " takes " + want + ", not " +
                                    (media.empty() ? "no Content-Type" : media));
    }
  }
  return admitted;
}

std::optional<HttpResponse> Service::Authorize(const Route& route, const Admitted& admitted,
                                               bool log_denials) const {
  if (route.action == "graph_list") {
    const api::PolicyDecision d = auth_.DecideGraphList(admitted.actor);
    if (d.allowed) return std::nullopt;
    if (log_denials) {
      LogDenied(api::PolicyRequest{admitted.actor, "graph_list", std::nullopt, std::nullopt,
                                   std::nullopt, std::nullopt},
                d);
    }
    return ErrorResponse(403, "permission denied: " + d.reason);
  }
  // A graph with a bundle: the engine's gate decides each call for the request's actor (the
  // handler's handle is WithActor(actor)); stored-query invocation gates in its handler.
  if (route.gate_in_handler || (admitted.graph != nullptr && admitted.graph->policy)) {
    return std::nullopt;
  }
  if (auth_.unauthenticated() || auth_.Allowed(*admitted.actor, route.action)) return std::nullopt;
  const api::PolicyDecision d{false, "",
                              "default deny: no policy bundle governs this graph and actor '" +
                                  *admitted.actor + "' has no grant of '" + route.action + "'"};
  if (log_denials) {
    LogDenied(api::PolicyRequest{admitted.actor, route.action, std::nullopt, std::nullopt,
                                 admitted.graph ? std::optional<std::string>(admitted.graph->id)
                                                : std::nullopt,
                                 std::nullopt},
              d);
  }
  return ErrorResponse(403, "actor '" + *admitted.actor + "' may not " + route.action +
                                " (grant it with --allow-writes or a grants file, or bind a "
                                "policy bundle)");
}

Admission Service::Admit(HttpRequest& request, AuthMemo* memo) const {
  // A request refused here is never handled: its denial is logged here, once.
  std::variant<Admitted, HttpResponse> checked = Check(request, true, memo);
  if (auto* refused = std::get_if<HttpResponse>(&checked)) return {std::move(*refused)};
  if (std::optional<HttpResponse> refused = AdmitActor(std::get<Admitted>(checked), request)) {
    return {std::move(*refused)};
  }
  const Route& route = *std::get<Admitted>(checked).route;
  Admission admission;
  admission.checked = std::get<Admitted>(std::move(checked));
  admission.body_bytes_max = route.load_body ? options_.load_bytes_max : options_.body_bytes_max;
  admission.on_loop = !route.graph_route;
  const std::string length = request.Header("content-length");
  if (!length.empty() && route.body != BodyKind::kNone) {
    uint64_t declared = 0;
    for (char c : length) {
      if (c < '0' || c > '9' || declared > (uint64_t{1} << 50)) return admission;
      declared = declared * 10 + static_cast<uint64_t>(c - '0');
    }
    if (declared > admission.body_bytes_max) {
      admission.refused = TooLargeResponse("request body", admission.body_bytes_max, declared);
    }
  }
  return admission;
}

namespace {

// Whether a request of `route` writes: the reference's admission gates every mutating handler;
// a stored query's invocation is one when the query is a mutation.
bool Mutating(const Route& route, const ServedGraph* graph, const HttpRequest& request) {
  static const std::set<std::string, std::less<>> kWrites = {
      "change", "schema_apply", "branch_create", "branch_delete", "branch_merge"};
  if (kWrites.contains(route.action)) return true;
  if (route.action != "invoke_query" || graph == nullptr) return false;
  auto name = request.path_params.find("name");
  if (name == request.path_params.end()) return false;
  const StoredQuery* query = graph->FindQuery(name->second);
  return query != nullptr && query->mutation;
}

uint64_t DeclaredLength(const HttpRequest& request) {
  uint64_t declared = 0;
  for (char c : request.Header("content-length")) {
    if (c < '0' || c > '9' || declared > (uint64_t{1} << 50)) return 0;
    declared = declared * 10 + static_cast<uint64_t>(c - '0');
  }
  return declared;
}

}  // namespace

std::optional<HttpResponse> Service::AdmitActor(const Admitted& admitted, HttpRequest& request,
                                                bool count_rate) const {
  // Policy and grants were decided first (Check), so a denied request takes no slot. A request
  // without an actor (--unauthenticated) is not metered: there is nobody to meter.
  if (!admitted.actor || !admitted.route->graph_route) return std::nullopt;
  std::variant<ActorAdmission::Ticket, ActorAdmission::Refusal> entered =
      admission_->Enter(*admitted.actor, Mutating(*admitted.route, admitted.graph, request),
                        DeclaredLength(request), count_rate);
  if (auto* ticket = std::get_if<ActorAdmission::Ticket>(&entered)) {
    request.admission = std::move(*ticket);
    return std::nullopt;
  }
  const ActorAdmission::Refusal& refusal = std::get<ActorAdmission::Refusal>(entered);
  HttpResponse refused = ErrorResponse(
      429, refusal.reason + "; retry after " + std::to_string(refusal.retry_after_s) + " s");
  refused.headers.emplace_back("Retry-After", std::to_string(refusal.retry_after_s));
  return refused;
}

HttpResponse Service::HandleInternal(HttpRequest& request) const {
  std::variant<Admitted, HttpResponse> checked = Check(request, true);
  if (auto* refused = std::get_if<HttpResponse>(&checked)) return std::move(*refused);
  // A tool call is admitted as its route would be (its in-flight bounds; the MCP request that
  // carries it already took its rate token).
  if (std::optional<HttpResponse> refused =
          AdmitActor(std::get<Admitted>(checked), request, /*count_rate=*/false)) {
    return std::move(*refused);
  }
  return Handle(request, std::get<Admitted>(std::move(checked)));
}

HttpResponse Service::Handle(HttpRequest& request, std::optional<CheckedRequest> checked) const {
  // The admission ticket goes back when the handler returns (a stream's producer is not
  // counted: only mutating requests hold slots, and none of them streams).
  struct Release {
    HttpRequest& request;
    ~Release() { request.admission.reset(); }
  } release{request};
  if (!checked) {
    std::variant<Admitted, HttpResponse> found = Check(request, false);
    if (auto* refused = std::get_if<HttpResponse>(&found)) return std::move(*refused);
    checked = std::get<Admitted>(std::move(found));
  }
  Admitted admitted = std::move(*checked);
  const Route& route = *admitted.route;
  Call call{request, std::move(admitted.actor), api::Json(), admitted.graph, nullptr, &auth_};
  if (admitted.graph != nullptr) {
    // Every call of every route, reads included, runs as the token's actor (never a header's).
    call.db = call.actor ? std::shared_ptr<api::Database>(admitted.graph->db->WithActor(call.actor))
                         : admitted.graph->db;
  }
  if (route.body != BodyKind::kNone) {
    const uint64_t limit = route.load_body ? options_.load_bytes_max : options_.body_bytes_max;
    if (request.body.size() > limit) {
      return TooLargeResponse("request body", limit, request.body.size());
    }
    if (std::optional<size_t> at = InvalidUtf8At(request.body)) {
      return ErrorResponse(
          400, "the request body is not valid UTF-8 (byte offset " + std::to_string(*at) + ")");
    }
  }
  if (route.body == BodyKind::kJson && route.body_optional && request.body.empty() &&
      request.Header("content-type").empty()) {
    call.body = api::Json::object();
  } else if (route.body == BodyKind::kJson) {
    api::Result<api::Json> parsed = api::ParseJson(request.body, "the request body");
    if (!parsed.ok()) return ErrorResponse(400, parsed.status().message());
    if (std::optional<HttpResponse> bad = CheckMembers(route, *parsed)) return std::move(*bad);
    call.body = std::move(*parsed);
  }
  HttpResponse out = route.handler(call);
  if (!route.successor.empty()) {
    out.headers.emplace_back("Deprecation", "true");
    out.headers.emplace_back("Link", "<" + route.successor + ">; rel=\"successor-version\"");
  }
  return out;
}

}  // namespace omnigraph::server
