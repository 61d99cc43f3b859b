// The router and the OpenAPI document over one route table (server/routes.h).
#include "server/routes.h"

#include <algorithm>
#include <cctype>
#include <utility>

namespace omnigraph::server {
namespace {

constexpr std::string_view kGraphsPrefix = "/graphs/";

std::vector<std::string> Segments(std::string_view path) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    if (slash > start) out.emplace_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return out;
}

bool IsParam(std::string_view segment) {
  return segment.size() > 2 && segment.front() == '{' && segment.back() == '}';
}

// The parameter's name without braces and a trailing '+' (which takes the rest of the path).
std::string ParamName(std::string_view segment) {
  std::string_view name = segment.substr(1, segment.size() - 2);
  if (name.ends_with('+')) name.remove_suffix(1);
  return std::string(name);
}

// Whether `path` (as segments) fits `pattern`; fills `params` when it does.
bool Fits(const std::vector<std::string>& pattern, const std::vector<std::string>& path,
          std::map<std::string, std::string>& params) {
  params.clear();
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (i >= path.size()) return false;
    const std::string& p = pattern[i];
    if (!IsParam(p)) {
      if (p != path[i]) return false;
      continue;
    }
    if (p[p.size() - 2] == '+') {
      std::string rest = path[i];
      for (size_t j = i + 1; j < path.size(); ++j) rest += "/" + path[j];
      params[ParamName(p)] = std::move(rest);
      return true;
    }
    params[ParamName(p)] = path[i];
  }
  return pattern.size() == path.size();
}

api::Json ParamSchema(const Param& p) {
  api::Json schema = api::Json::object();
  schema["type"] = p.type;
  return schema;
}

api::Json Parameters(const Route& route, bool nested) {
  api::Json out = api::Json::array();
  auto path_param = [&out](const std::string& name) {
    api::Json p = api::Json::object();
    p["name"] = name;
    p["in"] = "path";
    p["required"] = true;
    p["schema"] = api::Json{{"type", "string"}};
    out.push_back(std::move(p));
  };
  if (nested) path_param("graph_id");
  for (const std::string& segment : Segments(route.pattern)) {
    if (IsParam(segment)) path_param(ParamName(segment));
  }
  for (const Param& q : route.query_params) {
    api::Json p = api::Json::object();
    p["name"] = q.name;
    p["in"] = "query";
    p["required"] = q.required;
    if (!q.description.empty()) p["description"] = q.description;
    p["schema"] = ParamSchema(q);
    out.push_back(std::move(p));
  }
  return out;
}

api::Json RequestBody(const Route& route) {
  api::Json schema = api::Json::object();
  std::string media = "application/json";
  if (route.body == BodyKind::kNdjson) {
    media = "application/x-ndjson";
    schema["type"] = "string";
  } else {
    schema["type"] = "object";
    api::Json properties = api::Json::object();
    api::Json required = api::Json::array();
    for (const Param& m : route.body_members) {
      api::Json property = ParamSchema(m);
      if (!m.description.empty()) property["description"] = m.description;
      properties[m.name] = std::move(property);
      if (m.required) required.push_back(m.name);
    }
    schema["properties"] = std::move(properties);
    if (!required.empty()) schema["required"] = std::move(required);
    schema["additionalProperties"] = false;
  }
  api::Json content = api::Json::object();
  content[media] = api::Json{{"schema", std::move(schema)}};
  return api::Json{{"required", true}, {"content", std::move(content)}};
}

api::Json Operation(const Route& route, bool nested) {
  api::Json op = api::Json::object();
  op["summary"] = route.summary;
  std::string id = route.method + OpenApiPath(route, nested);
  std::replace_if(
      id.begin(), id.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); },
      '_');
  op["operationId"] = id;
  op["x-omnigraph-action"] = route.action.empty() ? "none" : route.action;
  if (!route.successor.empty()) op["deprecated"] = true;
  if (route.action.empty()) op["security"] = api::Json::array();
  op["parameters"] = Parameters(route, nested);
  if (route.body != BodyKind::kNone) op["requestBody"] = RequestBody(route);
  api::Json ok_content = api::Json::object();
  ok_content[route.response_type] = api::Json{{"schema", api::Json::object()}};
  api::Json error = api::Json{
      {"description", "ErrorOutput (docs/design/server.md \"Errors\")"},
      {"content",
       api::Json{
           {"application/json",
            api::Json{{"schema", api::Json{{"$ref", "#/components/schemas/ErrorOutput"}}}}}}}};
  op["responses"] =
      api::Json{{"200", api::Json{{"description", "success"}, {"content", std::move(ok_content)}}},
                {"default", std::move(error)}};
  return op;
}

api::Json ErrorOutputSchema() {
  api::Json properties = api::Json::object();
  for (const char* name : {"error", "code", "omnigraph_code", "kind", "object"}) {
    properties[name] = api::Json{{"type", "string"}};
  }
  for (const char* name : {"key_conflict", "read_set_conflict", "precondition_failure",
                           "resource_limit", "merge_conflicts", "diagnostic"}) {
    properties[name] = api::Json::object();
  }
  return api::Json{
      {"type", "object"}, {"required", api::Json::array()}, {"properties", std::move(properties)}};
}

}  // namespace

std::string OpenApiPath(const Route& route, bool nested) {
  std::string out = nested ? "/graphs/{graph_id}" : "";
  for (const std::string& segment : Segments(route.pattern)) {
    out += "/";
    out += IsParam(segment) ? "{" + ParamName(segment) + "}" : segment;
  }
  return out;
}

void RouteTable::Add(Route route) {
  patterns_.push_back(Segments(route.pattern));
  routes_.push_back(std::move(route));
}

RouteMatch RouteTable::Match(HttpRequest& request) const {
  RouteMatch out;
  std::vector<std::string> path = Segments(request.path);
  bool nested = false;
  if (request.path.starts_with(kGraphsPrefix) && path.size() >= 2) {
    out.graph_id = path[1];
    path.erase(path.begin(), path.begin() + 2);
    nested = true;
  }
  std::map<std::string, std::string> params;
  for (size_t i = 0; i < routes_.size(); ++i) {
    const Route& route = routes_[i];
    if (nested && !route.graph_route) continue;
    if (!Fits(patterns_[i], path, params)) continue;
    // A HEAD request (method GET, `head` set) takes the path's HEAD route when it has one,
    // listed before its GET route; a GET never takes a HEAD route.
    if (route.method == request.method || (route.method == "HEAD" && request.head)) {
      out.route = &route;
      request.path_params = params;
      return out;
    }
    out.allowed_methods.push_back(route.method);
  }
  if (!out.allowed_methods.empty()) {
    out.status = 405;
    out.message = "method " + request.method + " is not allowed on " + request.path;
    return out;
  }
  out.status = 404;
  out.message = "no route " + request.method + " " + request.path;
  return out;
}

api::Json RouteTable::OpenApi(std::string_view version) const {
  api::Json paths = api::Json::object();
  for (bool nested : {false, true}) {
    for (const Route& route : routes_) {
      if (nested && !route.graph_route) continue;
      std::string method = route.method;
      std::transform(method.begin(), method.end(), method.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      paths[OpenApiPath(route, nested)][method] = Operation(route, nested);
    }
  }
  api::Json doc = api::Json::object();
  doc["openapi"] = "3.1.0";
  doc["info"] = api::Json{{"title", "OmniGraph C++ server"}, {"version", std::string(version)}};
  doc["security"] = api::Json{};
  doc["security"].push_back(api::Json{{"bearer", api::Json::array()}});
  doc["paths"] = std::move(paths);
  doc["components"] = api::Json{
      {"securitySchemes", api::Json{{"bearer", api::Json{{"type", "http"}, {"scheme", "bearer"}}}}},
      {"schemas", api::Json{{"ErrorOutput", ErrorOutputSchema()}}}};
  return doc;
}

}  // namespace omnigraph::server
