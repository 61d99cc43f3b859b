// The MCP endpoint (docs/design/mcp.md): the Model Context Protocol over Streamable HTTP, JSON-RPC
// 2.0 in a POST, answered with one application/json body (no SSE, no session). POST
// /graphs/{graph_id}/mcp serves that graph's tools; POST /mcp the server's (health, graphs_list)
// and, in single-graph mode, the graph's too. A tool is the built-in operational tools of the
// reference's RFC-003 and one tool per stored query; every call runs the tool's HTTP route
// through Service::HandleInternal — the same handler, authentication and gate — as the bearer
// token's actor. tools/list shows an actor only the tools it may call; calling one it may not is
// answered as an unknown tool is. Thread-safety: stateless; any number of threads.
#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "omnigraph/json.h"
#include "server/http.h"
#include "server/registry.h"
#include "server/routes.h"

namespace omnigraph::server {

class Service;

// The protocol versions this endpoint speaks, newest first.
extern const std::vector<std::string> kMcpProtocolVersions;

// What one MCP request is addressed to: the graph (null on the server endpoint of multi-graph
// mode), whether the server tools are served too, and who asks.
struct McpScope {
  const Service* service = nullptr;
  const ServedGraph* graph = nullptr;
  bool server_tools = false;
  std::optional<std::string> actor;
  std::string authorization;  // the request's Authorization header, for the tools' own routes
};

// The JSON Schema (draft 2020-12) of a stored query's parameters: one property per declared
// parameter by its kind (docs/design/mcp.md "Stored-query tools"), a non-nullable one required.
api::Json StoredQueryInputSchema(const StoredQuery& query);

// tools/list's `tools`: every tool of `scope` its actor may call.
api::Json McpListTools(const McpScope& scope);

// tools/call of `name` with `arguments` (an object): the CallToolResult, or nullopt when the tool
// is unknown to this actor (the caller answers JSON-RPC -32602 "Unknown tool").
std::optional<api::Json> McpCallTool(const McpScope& scope, const std::string& name,
                                     const api::Json& arguments);

// A JSON-RPC error: code, message and data (null when none).
struct JsonRpcError {
  int code = 0;
  std::string message;
  api::Json data;
};
inline constexpr int kResourceNotFound = -32002;

// resources/list's `resources`, and resources/read of `uri`: its ReadResourceResult, or
// kResourceNotFound (no such resource for this actor) or the route's failure as -32603.
api::Json McpListResources(const McpScope& scope);
std::variant<api::Json, JsonRpcError> McpReadResource(const McpScope& scope,
                                                      const std::string& uri);

}  // namespace omnigraph::server
