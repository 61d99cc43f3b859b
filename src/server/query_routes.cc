// The stored-query routes (docs/design/stored-queries.md): GET /queries, the graph's typed
// catalog (QueriesCatalogOutput), and POST /queries/{name} (+ /if-graph-commit), which runs a
// stored query by name with the caller's parameters only — never query source. The answer is the
// same envelope as /query (a read) or /mutate (a mutation).
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "server/errors.h"
#include "server/invoke_gate.h"
#include "server/service.h"

namespace omnigraph::server {
namespace {

using api::Json;

std::string_view JsonTypeName(const Json& v) {
  if (v.is_string()) return "a string";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number_integer()) return "an integer";
  if (v.is_number()) return "a number";
  if (v.is_array()) return "an array";
  if (v.is_object()) return "an object";
  return "null";
}

// What JSON a parameter of `kind` takes, or empty when `v` fits it. bigint, date, datetime and
// blob travel as strings (a bigint also as an integer); the engine checks the text itself.
std::string KindMismatch(std::string_view kind, const Json& v) {
  if (kind == "string" || kind == "date" || kind == "datetime" || kind == "blob") {
    return v.is_string() ? "" : "a string";
  }
  if (kind == "bigint") return v.is_string() || v.is_number_integer() ? "" : "a string or integer";
  if (kind == "bool") return v.is_boolean() ? "" : "a boolean";
  if (kind == "int") return v.is_number_integer() ? "" : "an integer";
  if (kind == "float") return v.is_number() ? "" : "a number";
  return "";
}

// A 400 naming the parameter: ErrorOutput plus param_error {name, expected, got}.
HttpResponse ParamError(const std::string& query, const std::string& param,
                        const std::string& expected, std::string_view got, std::string message) {
  HttpResponse out = ErrorResponse(
      400, "stored query '" + query + "': parameter '" + param + "' " + std::move(message));
  api::Result<Json> body = api::ParseJson(out.body, "error");
  if (body.ok()) {
    (*body)["param_error"] =
        Json{{"name", param}, {"expected", expected}, {"got", std::string(got)}};
    out.body = body->dump();
  }
  return out;
}

// The caller's parameters against the query's declarations: every name declared, every value of
// its kind (list items and vector elements too), every non-nullable one present.
std::optional<HttpResponse> CheckParams(const StoredQuery& query, const Json& params) {
  for (const Json::Member& m : params.members()) {
    const std::string name = m.first.starts_with("$") ? m.first.substr(1) : m.first;
    const Json* declared = query.Param(name);
    if (declared == nullptr) {
      std::string names;
      for (const Json& p : query.params)
        names += (names.empty() ? "" : ", ") + p["name"].string_value();
      return ParamError(query.name, name, "a declared parameter", "unknown",
                        "is not declared (it declares: " + (names.empty() ? "none" : names) + ")");
    }
    const std::string kind = (*declared)["kind"].string_value();
    const Json& v = m.second;
    if (v.is_null()) {
      if ((*declared)["nullable"].get<bool>()) continue;
      return ParamError(query.name, name, kind, "null", "is not nullable: give it a value");
    }
    std::string want;
    if (kind == "list" || kind == "vector") {
      if (!v.is_array()) {
        want = "an array";
      } else {
        const std::string item =
            kind == "vector" ? "float" : (*declared)["item_kind"].string_value();
        for (const Json& e : v) {
          if (std::string w = KindMismatch(item, e); !w.empty()) {
            return ParamError(query.name, name, kind, JsonTypeName(e),
                              "must be an array of " + item + " (" + w + " each), not one with " +
                                  std::string(JsonTypeName(e)));
          }
        }
      }
    } else {
      want = KindMismatch(kind, v);
    }
    if (!want.empty()) {
      return ParamError(
          query.name, name, kind, JsonTypeName(v),
          "is " + kind + ": it takes " + want + ", not " + std::string(JsonTypeName(v)));
    }
  }
  for (const Json& p : query.params) {
    const std::string name = p["name"].string_value();
    if (!p["nullable"].get<bool>() && !params.contains(name) && !params.contains("$" + name)) {
      return ParamError(query.name, name, p["kind"].string_value(), "missing",
                        "is required (" + p["kind"].string_value() + ")");
    }
  }
  return std::nullopt;
}

// `name` from the query string or the body (either, or both when equal).
std::variant<std::string, HttpResponse> Input(const Call& call, const char* name) {
  const std::string from_query = call.request.Query(name);
  const Json& from_body = call.body[name];
  if (from_body.is_string() && !from_query.empty() && from_body.string_value() != from_query) {
    return ErrorResponse(400, std::string("'") + name +
                                  "' is given twice, in the query string and in the body, "
                                  "differently");
  }
  return from_body.is_string() ? from_body.string_value() : from_query;
}

HttpResponse WithCommit(HttpResponse response, const Json& result, std::string_view member) {
  if (result[member].is_string()) {
    response.headers.emplace_back(kCommitHeader, result[member].string_value());
  }
  return response;
}

HttpResponse Run(const Call& call, const StoredQuery& query, const std::string& branch,
                 const std::string& snapshot, const std::string& if_commit) {
  const Json params = call.body["params"].is_object() ? call.body["params"] : Json::object();
  if (std::optional<HttpResponse> bad = CheckParams(query, params)) return std::move(*bad);
  if (!query.mutation) {
    api::ReadTarget target;
    target.branch = branch.empty() ? "main" : branch;
    if (!snapshot.empty()) target.snapshot = snapshot;
    // invoke_query alone allows a stored read (the reference: stored reads are not also gated
    // by `read`), so with a bundle it runs on the graph's ungated handle, as the caller.
    api::Result<Json> out = call.graph->policy
                                ? call.graph->ungated->WithActor(call.actor)
                                      ->Query(query.source, query.name, params, target)
                                : call.db->Query(query.source, query.name, params, target);
    if (!out.ok()) return ErrorResponse(out.status());
    return WithCommit(JsonResponse(*out), *out, "graph_commit_id");
  }
  api::WriteTarget target;
  target.branch = branch.empty() ? "main" : branch;
  if (!if_commit.empty()) target.if_commit = if_commit;
  const std::string key = call.request.Header("Idempotency-Key");
  if (!key.empty()) target.idempotency_key = key;
  api::Result<Json> out = call.db->Mutate(query.source, query.name, params, target);
  if (!out.ok()) return ErrorResponse(out.status());
  return JsonResponse(*out);
}

HttpResponse InvokeRoute(const Call& call, bool if_commit) {
  const std::string& name = call.request.path_params.at("name");
  const StoredQuery* query = call.graph->FindQuery(name);
  // An unknown name and a caller the gate refuses get the same answer, byte for byte.
  const HttpResponse unknown =
      ErrorResponse(404, "no stored query '" + name + "' on graph '" + call.graph->id + "'");
  if (query == nullptr) return unknown;
  switch (InvokeQueryGate(*call.auth, call.actor, *call.graph, *query)) {
    case InvokeDecision::kDenyAsUnknown: return unknown;
    case InvokeDecision::kForbidden:
      return ErrorResponse(403, "actor '" + call.actor.value_or("") + "' may not change graph '" +
                                    call.graph->id + "': '" + name + "' is a stored mutation");
    case InvokeDecision::kAllow: break;
  }
  std::variant<std::string, HttpResponse> branch = Input(call, "branch");
  if (auto* bad = std::get_if<HttpResponse>(&branch)) return std::move(*bad);
  std::variant<std::string, HttpResponse> snapshot = Input(call, "snapshot");
  if (auto* bad = std::get_if<HttpResponse>(&snapshot)) return std::move(*bad);
  const std::string& b = std::get<std::string>(branch);
  const std::string& s = std::get<std::string>(snapshot);
  if (!b.empty() && !s.empty()) {
    return ErrorResponse(400, "a stored query reads a branch or a snapshot, not both");
  }
  const Json& expect = call.body["expect_mutation"];
  if (expect.is_boolean() && expect.get<bool>() != query->mutation) {
    return ErrorResponse(400, "stored query '" + name + "' is a " +
                                  (query->mutation ? "mutation" : "read") + ", not a " +
                                  (query->mutation ? "read" : "mutation"));
  }
  if (query->mutation && !s.empty()) {
    return ErrorResponse(400, "stored query '" + name +
                                  "' is a mutation: it writes a branch and cannot target a "
                                  "snapshot");
  }
  const std::string header = call.request.Header(kIfCommitHeader);
  if (if_commit && (header.empty() || !query->mutation)) {
    return ErrorResponse(400, query->mutation
                                  ? "POST /queries/{name}/if-graph-commit needs the "
                                    "Omnigraph-If-Graph-Commit header"
                                  : "stored query '" + name +
                                        "' is a read: /if-graph-commit is for stored mutations");
  }
  if (!if_commit && !header.empty()) {
    return ErrorResponse(400,
                         "the Omnigraph-If-Graph-Commit header is for "
                         "POST /queries/{name}/if-graph-commit");
  }
  return Run(call, *query, b, s, header);
}

HttpResponse CatalogRoute(const Call& call) {
  // The catalog is the server's, not the engine's: a bundle decides `read` here (no branch:
  // only an unscoped or `any` allow covers it, docs/design/policy.md "Unnamed branches").
  if (call.graph->policy) {
    // The catalog shows no entity: no types (a rule's `types` do not narrow it).
    const api::PolicyRequest request{call.actor,
                                     "read",
                                     std::nullopt,
                                     std::nullopt,
                                     call.graph->id,
                                     std::nullopt,
                                     std::vector<std::string>{}};
    const api::PolicyDecision d = call.graph->policy->Decide(request);
    if (!d.allowed) {
      LogDenied(request, d);
      return ErrorResponse(403, "permission denied: " + d.reason);
    }
  }
  Json queries = Json::array();
  for (const auto& [name, query] : call.graph->queries) queries.push_back(query.CatalogEntry());
  return JsonResponse(Json{{"queries", std::move(queries)}});
}

}  // namespace

void AddQueryRoutes(RouteTable& table) {
  const std::vector<Param> invoke_query = {
      Param{"branch", "string", false, "default main"},
      Param{"snapshot", "string", false, "a commit id (stored reads only)"}};
  const std::vector<Param> invoke_body = {
      Param{"params", "object", false, "the query's declared parameters"},
      Param{"branch", "string", false, "default main"},
      Param{"snapshot", "string", false, "a commit id (stored reads only)"},
      Param{"expect_mutation", "boolean", false, "refuse (400) a query of the other kind"}};
  table.Add(Route{.method = "GET",
                  .pattern = "/queries",
                  .action = "read",
                  .summary = "The graph's stored queries as a typed catalog (QueriesCatalogOutput)",
                  .handler = CatalogRoute});
  for (bool if_commit : {false, true}) {
    table.Add(Route{
        .method = "POST",
        .pattern = if_commit ? "/queries/{name}/if-graph-commit" : "/queries/{name}",
        .action = "invoke_query",
        .body = BodyKind::kJson,
        .summary = if_commit ? "Runs a stored mutation only if the branch head is the commit named "
                               "by the Omnigraph-If-Graph-Commit header (412 otherwise)"
                             : "Runs a stored query by name with parameters only (the /query or "
                               "/mutate envelope); 404 for an unknown name or a refused caller",
        .query_params = invoke_query,
        .body_members = invoke_body,
        .body_optional = true,
        .gate_in_handler = true,
        .handler = [if_commit](const Call& call) { return InvokeRoute(call, if_commit); }});
  }
}

}  // namespace omnigraph::server
