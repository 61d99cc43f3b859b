// The MCP transport and JSON-RPC dispatch (server/mcp.h, docs/design/mcp.md): Streamable HTTP,
// POST only, stateless; each POST is one JSON-RPC message (or a batch), answered with one JSON
// body, a notification or a response with 202 and no body.
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "server/errors.h"
#include "server/mcp.h"
#include "server/service.h"

namespace omnigraph::server {

const std::vector<std::string> kMcpProtocolVersions = {"2025-11-25", "2025-06-18", "2025-03-26",
                                                       "2024-11-05"};

namespace {

using api::Json;

constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
// The transport's own refusals (a bad Origin, media type or protocol version), as the
// TypeScript SDK's server answers them.
constexpr int kTransportError = -32000;

Json ErrorMessage(const Json& id, int code, std::string message, Json data = Json()) {
  Json error = Json{{"code", code}, {"message", std::move(message)}};
  if (!data.is_null()) error["data"] = std::move(data);
  return Json{{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(error)}};
}

HttpResponse Reply(int status, const Json& body) {
  HttpResponse out;
  out.status = status;
  out.body = body.dump();
  return out;
}

HttpResponse Refuse(int status, std::string message) {
  return Reply(status, ErrorMessage(Json(), kTransportError, std::move(message)));
}

std::string LowerCase(std::string text) {
  for (char& c : text) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return text;
}

// Whether an Origin header names a loopback host (localhost, 127.0.0.1, [::1], any port).
bool LoopbackOrigin(std::string_view origin) {
  const size_t scheme = origin.find("://");
  if (scheme == std::string_view::npos) return false;
  std::string_view host = origin.substr(scheme + 3);
  if (host.starts_with("[::1]")) return host.size() == 5 || host[5] == ':';
  host = host.substr(0, host.find(':'));
  const std::string h = LowerCase(std::string(host));
  return h == "localhost" || h == "127.0.0.1";
}

// The transport's checks before the body is read as JSON-RPC: Origin (DNS rebinding), media
// types, and the MCP-Protocol-Version header.
std::optional<HttpResponse> CheckTransport(const HttpRequest& r) {
  const std::string origin = r.Header("origin");
  if (!origin.empty() && !LoopbackOrigin(origin)) {
    return Refuse(403, "Forbidden: Origin '" + origin +
                           "' is not a loopback origin (DNS rebinding protection)");
  }
  const std::string type = LowerCase(r.Header("content-type"));
  if (!type.starts_with("application/json")) {
    return Refuse(415, "Unsupported Media Type: POST a JSON-RPC message as application/json");
  }
  const std::string accept = LowerCase(r.Header("accept"));
  if (!accept.empty() && accept.find("application/json") == std::string::npos &&
      accept.find("*/*") == std::string::npos &&
      accept.find("application/*") == std::string::npos) {
    return Refuse(406, "Not Acceptable: this endpoint answers application/json");
  }
  const std::string version = r.Header("mcp-protocol-version");
  if (!version.empty() && std::find(kMcpProtocolVersions.begin(), kMcpProtocolVersions.end(),
                                    version) == kMcpProtocolVersions.end()) {
    return Refuse(400, "Bad Request: unsupported MCP-Protocol-Version '" + version + "'");
  }
  return std::nullopt;
}

Json Initialize(const McpScope& scope, const Json& params) {
  std::string version = kMcpProtocolVersions.front();
  const Json& asked = params["protocolVersion"];
  if (asked.is_string() && std::find(kMcpProtocolVersions.begin(), kMcpProtocolVersions.end(),
                                     asked.string_value()) != kMcpProtocolVersions.end()) {
    version = asked.string_value();
  }
  Json capabilities = Json{{"tools", Json{{"listChanged", false}}},
                           {"resources", Json{{"subscribe", false}, {"listChanged", false}}},
                           {"logging", Json::object()}};
  std::string instructions = "OmniGraph server: ";
  instructions += scope.graph == nullptr
                      ? "its server tools (health, graphs_list); each graph's tools are at "
                        "/graphs/{graph_id}/mcp."
                      : "graph '" + scope.graph->id +
                            "'. Read omnigraph://schema (or call schema_get) before writing a "
                            "query; prefer the stored-query tools, which take parameters only.";
  return Json{{"protocolVersion", version},
              {"capabilities", std::move(capabilities)},
              {"serverInfo",
               Json{{"name", "omnigraph-server"}, {"version", scope.service->options().version}}},
              {"instructions", std::move(instructions)}};
}

// A request's result, or the JSON-RPC error to answer.
std::variant<Json, JsonRpcError> Dispatch(const McpScope& scope, const std::string& method,
                                          const Json& params) {
  if (method == "initialize") return Initialize(scope, params);
  if (method == "ping") return Json::object();
  if (method == "tools/list") return Json{{"tools", McpListTools(scope)}};
  if (method == "resources/list") return Json{{"resources", McpListResources(scope)}};
  if (method == "resources/templates/list") return Json{{"resourceTemplates", Json::array()}};
  if (method == "prompts/list") return Json{{"prompts", Json::array()}};
  // Accepted and kept nowhere: a stateless endpoint sends no log notifications.
  if (method == "logging/setLevel") return Json::object();
  if (method == "tools/call") {
    const Json& name = params["name"];
    const Json& args = params["arguments"];
    if (!name.is_string()) return JsonRpcError{kInvalidParams, "tools/call needs 'name'", Json()};
    if (!args.is_null() && !args.is_object()) {
      return JsonRpcError{kInvalidParams, "tools/call 'arguments' must be an object", Json()};
    }
    std::optional<Json> result =
        McpCallTool(scope, name.string_value(), args.is_null() ? Json::object() : args);
    if (!result) {
      return JsonRpcError{kInvalidParams, "Unknown tool: " + name.string_value(), Json()};
    }
    return std::move(*result);
  }
  if (method == "resources/read") {
    if (!params["uri"].is_string()) {
      return JsonRpcError{kInvalidParams, "resources/read needs 'uri'", Json()};
    }
    return McpReadResource(scope, params["uri"].string_value());
  }
  return JsonRpcError{kMethodNotFound, "Method not found: " + method, Json()};
}

// One message's answer: a response, or nothing for a notification or a client's response.
std::optional<Json> HandleMessage(const McpScope& scope, const Json& message) {
  if (!message.is_object()) return ErrorMessage(Json(), kInvalidRequest, "not a JSON-RPC object");
  const Json& id = message["id"];
  const bool has_id = message.contains("id");
  const bool id_ok = id.is_string() || id.is_number_integer();
  if (!(message["jsonrpc"] == Json("2.0"))) {
    return ErrorMessage(id_ok ? id : Json(), kInvalidRequest, "'jsonrpc' must be \"2.0\"");
  }
  if (!message.contains("method")) {
    // A response to a request of ours (we send none): accepted and dropped.
    if (has_id && (message.contains("result") || message.contains("error"))) return std::nullopt;
    return ErrorMessage(id_ok ? id : Json(), kInvalidRequest, "a request needs 'method'");
  }
  if (!message["method"].is_string()) {
    return ErrorMessage(id_ok ? id : Json(), kInvalidRequest, "'method' must be a string");
  }
  if (has_id && !id_ok) {
    return ErrorMessage(Json(), kInvalidRequest, "'id' must be a string or an integer");
  }
  const Json& params = message["params"];
  if (!params.is_null() && !params.is_object()) {
    return has_id ? std::optional(ErrorMessage(id, kInvalidParams, "'params' must be an object"))
                  : std::nullopt;
  }
  if (!has_id) return std::nullopt;  // a notification (notifications/initialized, ...)
  std::variant<Json, JsonRpcError> out = Dispatch(scope, message["method"].string_value(), params);
  if (auto* error = std::get_if<JsonRpcError>(&out)) {
    return ErrorMessage(id, error->code, error->message, error->data);
  }
  return Json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::get<Json>(std::move(out))}};
}

HttpResponse Endpoint(const Service& service, const Call& call) {
  const HttpRequest& r = call.request;
  if (std::optional<HttpResponse> refused = CheckTransport(r)) return std::move(*refused);
  api::Result<Json> parsed = api::ParseJson(r.body, "the JSON-RPC message");
  if (!parsed.ok()) {
    return Reply(400,
                 ErrorMessage(Json(), kParseError, "Parse error: " + parsed.status().message()));
  }
  McpScope scope{&service, call.graph, !r.path.starts_with("/graphs/"), call.actor,
                 r.Header("authorization")};
  HttpResponse accepted;
  accepted.status = 202;
  accepted.content_type.clear();
  if (!parsed->is_array()) {
    std::optional<Json> answer = HandleMessage(scope, *parsed);
    if (!answer) return accepted;
    const Json& a = *answer;
    const bool bad = a["error"].is_object() && a["id"].is_null();
    return Reply(bad ? 400 : 200, *answer);
  }
  if (parsed->empty()) return Reply(400, ErrorMessage(Json(), kInvalidRequest, "an empty batch"));
  Json answers = Json::array();
  for (const Json& message : *parsed) {
    if (std::optional<Json> answer = HandleMessage(scope, message)) answers.push_back(*answer);
  }
  return answers.empty() ? accepted : Reply(200, answers);
}

}  // namespace

void AddMcpRoutes(RouteTable& table, const Service& service) {
  table.Add(Route{
      .method = "POST",
      .pattern = "/mcp",
      .action = "mcp",
      .summary = "The MCP endpoint (Streamable HTTP, JSON-RPC 2.0; docs/design/mcp.md): a graph's "
                 "tools under /graphs/{graph_id}/, the server's at /mcp (and, with one graph, "
                 "its tools too); each tool call is gated as its own route",
      .load_body = true,
      .gate_in_handler = true,
      .graph_optional = true,
      .handler = [&service](const Call& call) { return Endpoint(service, call); }});
}

}  // namespace omnigraph::server
