// Boost.Beast's head of a whole response (status line and fields): the path the listener
// (server/listener.cc) takes for every response the direct writer (server/response_head.h) does
// not write, and the oracle response_head_test compares that writer with. Header-only, as
// beast_request.h; only the listener and tests include Boost.
#pragma once

#include <string>

#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "server/beast_request.h"
#include "server/http.h"

namespace omnigraph::server::beast_response {

namespace beast = boost::beast;
namespace http = beast::http;

// The response's status and fields as Beast's message: Content-Type, the handler's headers but
// Connection, then Connection and Keep-Alive by the keep-alive decision.
inline http::response<http::string_body> Head(const HttpResponse& from, unsigned version, bool keep,
                                              int keep_alive_timeout_s) {
  http::response<http::string_body> res(static_cast<http::status>(from.status), version);
  if (!from.content_type.empty()) res.set(http::field::content_type, from.content_type);
  for (const auto& [name, value] : from.headers) {
    if (beast_request::Lower(name) != "connection") res.insert(name, value);
  }
  res.keep_alive(keep);
  if (keep) res.set(http::field::keep_alive, "timeout=" + std::to_string(keep_alive_timeout_s));
  return res;
}

// The serialized head of `from` with `body` as its body (moved into the message and back out,
// so that its Content-Length is the body's unless from.content_length says otherwise).
inline std::string SerializedHead(const HttpResponse& from, std::string& body, unsigned version,
                                  bool keep, int keep_alive_timeout_s) {
  http::response<http::string_body> res = Head(from, version, keep, keep_alive_timeout_s);
  res.body() = std::move(body);
  res.prepare_payload();
  if (from.content_length) res.content_length(*from.content_length);
  std::string head;
  http::response_serializer<http::string_body> sr(res);
  sr.split(true);
  beast::error_code ec;
  while (!ec && !sr.is_header_done()) {
    sr.next(ec, [&](beast::error_code&, const auto& buffers) {
      const size_t before = head.size();
      for (const auto b : beast::buffers_range_ref(buffers)) {
        head.append(static_cast<const char*>(b.data()), b.size());
      }
      sr.consume(head.size() - before);
    });
  }
  body = std::move(res.body());
  return head;
}

}  // namespace omnigraph::server::beast_response
