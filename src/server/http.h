// The server's view of one HTTP exchange, independent of the HTTP library (server/listener.cc is
// the only file that sees cpp-httplib): the request as routed, and the response a handler makes,
// either a whole body or a stream of chunks. Values; no shared state.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace omnigraph::server {

struct HttpRequest {
  std::string method;
  // The path without the query string, percent-decoded.
  std::string path;
  // Query parameters, decoded; a repeated name keeps its first value here and every value, in
  // order, in `query_list` (OmniGraph's repeatable filters).
  std::map<std::string, std::string> query;
  std::vector<std::pair<std::string, std::string>> query_list;
  // Header names in lower case.
  std::map<std::string, std::string> headers;
  std::string body;
  // The request was a HEAD: `method` says GET (so that every GET route answers it, with its body
  // dropped), and a route of method HEAD, when the path has one, is preferred (routes.h).
  bool head = false;
  // Set by Service::Admit for an admitted request (server/admission.h): held until the handler
  // returns (or the request is dropped), then released.
  std::shared_ptr<void> admission;
  // Filled by the router: the {name} segments of the route's pattern.
  std::map<std::string, std::string> path_params;

  // The header `name`, in any case (names are case-insensitive: RFC 9110 5.1), or empty.
  std::string Header(std::string_view name) const {
    std::string lower(name);
    for (char& c : lower) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    auto it = headers.find(lower);
    return it == headers.end() ? std::string() : it->second;
  }
  // The query parameter `name`, or empty.
  std::string Query(std::string_view name) const {
    auto it = query.find(std::string(name));
    return it == query.end() ? std::string() : it->second;
  }
  // Every value of the repeatable query parameter `name`, in order (a request built without
  // `query_list`, as the MCP tools build theirs, has the one value `query` holds).
  std::vector<std::string> QueryAll(std::string_view name) const {
    std::vector<std::string> out;
    for (const auto& [key, value] : query_list) {
      if (key == name) out.push_back(value);
    }
    if (out.empty() && query.count(std::string(name))) out.push_back(Query(name));
    return out;
  }
};

// Writes one chunk of a streamed body; false when the client has gone (stop producing).
using ChunkWriter = std::function<bool(std::string_view chunk)>;

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  // When set, the Content-Length sent instead of the body's: a HEAD's or a 304's (the length of
  // the representation, without its bytes), or a stream's known length — that stream is then
  // sent as it is, not chunked, and one that stops early closes the connection short of it.
  std::optional<uint64_t> content_length;
  // When set, the body is streamed (chunked) by calling this once the status and headers are
  // sent. It returns false when it stopped early (a failure after the status was sent, or the
  // client went away): the stream then ends without its last chunk, so the client sees a
  // truncated response rather than a short one that looks complete.
  std::function<bool(const ChunkWriter& write)> stream;
};

}  // namespace omnigraph::server
