// cpp-httplib under the Service (server/listener.h).
#include "server/listener.h"

#include <httplib.h>

#include <algorithm>
#include <cctype>
#include <utility>

#include "server/errors.h"

namespace omnigraph::server {
namespace {

// Without TCP_NODELAY a small response waits for the peer's delayed ACK (about 40 ms on Linux;
// docs/design/server.md "HTTP library" has the numbers).
constexpr bool kTcpNoDelay = true;
// Requests a connection may carry before the server closes it; high, so clients keep their
// connections (httplib's default of 5 would reconnect constantly).
constexpr size_t kKeepAliveRequestsMax = 100000;
constexpr time_t kKeepAliveTimeoutS = 5;
// A 32 MiB load over a slow link needs more than httplib's default of 5 s between reads.
constexpr time_t kReadTimeoutS = 30;
constexpr time_t kWriteTimeoutS = 30;

HttpRequest Convert(const httplib::Request& req, bool with_body) {
  HttpRequest out;
  out.method = req.method;
  out.path = req.path;
  for (const auto& [name, value] : req.params) out.query.emplace(name, value);
  for (const auto& [name, value] : req.headers) {
    std::string lower = name;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    out.headers.emplace(std::move(lower), value);
  }
  if (with_body) out.body = req.body;
  return out;
}

void Write(HttpResponse from, httplib::Response& to) {
  to.status = from.status;
  for (const auto& [name, value] : from.headers) to.set_header(name, value);
  if (!from.stream) {
    to.set_content(from.body, from.content_type.c_str());
    return;
  }
  auto stream = std::move(from.stream);
  to.set_chunked_content_provider(from.content_type, [stream](size_t, httplib::DataSink& sink) {
    const bool whole =
        stream([&sink](std::string_view chunk) { return sink.write(chunk.data(), chunk.size()); });
    // Without done() the stream ends with no last chunk: the
    // client sees a truncated response.
    if (whole) sink.done();
    return whole;
  });
}

}  // namespace

struct Listener::Impl {
  httplib::Server http;
};

Listener::Listener(const Service& service, size_t workers) : impl_(std::make_unique<Impl>()) {
  httplib::Server& http = impl_->http;
  http.new_task_queue = [workers] { return new httplib::ThreadPool(workers); };
  http.set_tcp_nodelay(kTcpNoDelay);
  http.set_keep_alive_max_count(kKeepAliveRequestsMax);
  http.set_keep_alive_timeout(kKeepAliveTimeoutS);
  http.set_read_timeout(kReadTimeoutS, 0);
  http.set_write_timeout(kWriteTimeoutS, 0);
  const ServiceOptions& limits = service.options();
  http.set_payload_max_length(std::max(limits.body_bytes_max, limits.load_bytes_max));
  const Service* s = &service;
  http.set_pre_routing_handler([s](const httplib::Request& req, httplib::Response& res) {
    HttpRequest request = Convert(req, false);
    std::optional<HttpResponse> refused = s->Admit(request);
    if (!refused) return httplib::Server::HandlerResponse::Unhandled;
    // The body was not read: the connection cannot carry another request.
    refused->headers.emplace_back("Connection", "close");
    Write(std::move(*refused), res);
    return httplib::Server::HandlerResponse::Handled;
  });
  auto dispatch = [s](const httplib::Request& req, httplib::Response& res) {
    HttpRequest request = Convert(req, true);
    Write(s->Handle(request), res);
  };
  for (const char* method : {"GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}) {
    const std::string m = method;
    if (m == "GET") http.Get(".*", dispatch);
    if (m == "POST") http.Post(".*", dispatch);
    if (m == "PUT") http.Put(".*", dispatch);
    if (m == "PATCH") http.Patch(".*", dispatch);
    if (m == "DELETE") http.Delete(".*", dispatch);
    if (m == "OPTIONS") http.Options(".*", dispatch);
  }
  // Failures httplib finds itself (a malformed request line, a body over the payload limit, an
  // unknown method) get the error envelope too.
  http.set_error_handler(
      httplib::Server::HandlerWithResponse([](const httplib::Request&, httplib::Response& res) {
        if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
        Write(ErrorResponse(res.status, "the request was refused before routing (HTTP " +
                                            std::to_string(res.status) +
                                            "): malformed, too large, or an unknown method"),
              res);
        return httplib::Server::HandlerResponse::Handled;
      }));
  http.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
        Write(ErrorResponse(500, "internal error while handling the request"), res);
      });
}

Listener::~Listener() = default;

api::Result<int> Listener::Bind(const std::string& host, int port) {
  if (port == 0) {
    const int bound = impl_->http.bind_to_any_port(host);
    if (bound > 0) return bound;
  } else if (impl_->http.bind_to_port(host, port)) {
    return port;
  }
  return api::Status(api::Code::kConfiguration,
                     "cannot listen on " + host + ":" + std::to_string(port));
}

bool Listener::Run() { return impl_->http.listen_after_bind(); }

void Listener::Stop() { impl_->http.stop(); }

}  // namespace omnigraph::server
