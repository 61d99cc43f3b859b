// Fuzz harness: the server's request parsing (docs/design/fuzzing.md). The input is the bytes
// of one HTTP/1.1 request as a client sends them. Boost.Beast's parser reads them under the
// listener's limits, the listener's conversion turns the header into the Service's request
// (server/beast_request.h: target split and percent-decoded, header names folded), then the
// Service admits it and handles it whole: routing, authentication, media type, size, UTF-8, the
// JSON body checked against the route's members, and the handler on a small scratch graph
// (recreated every kResetEvery inputs, so that accepted writes do not accumulate). A 500
// response is a finding: the server says so only for its own bugs.
#include <unistd.h>

#include <filesystem>
#include <memory>

#include "fuzz_util.h"
#include "omnigraph/omnigraph.h"
#include "server/auth.h"
#include "server/beast_request.h"
#include "server/listener.h"
#include "server/service.h"

namespace {

namespace fs = std::filesystem;
namespace http = boost::beast::http;
using omnigraph::server::HttpRequest;
using omnigraph::server::HttpResponse;
using omnigraph::server::Service;

constexpr int kResetEvery = 512;
constexpr std::string_view kSchema =
    "node Person { name: String @key\n age: I32? }\n"
    "node Company { name: String @key }\n"
    "edge WorksAt: Person -> Company\n";

// The scratch graph and the service over it; a new one every kResetEvery calls.
Service& TheService() {
  static int calls = 0;
  static std::unique_ptr<Service> service;
  static const fs::path dir =
      fs::temp_directory_path() / ("omnigraph-fuzz-server-" + std::to_string(getpid()));
  if (service == nullptr || ++calls % kResetEvery == 0) {
    service.reset();
    fs::remove_all(dir);
    auto db = omnigraph::api::Database::Init(dir.string(), kSchema);
    if (!db.ok()) omnigraph::fuzz::Finding("cannot create the graph: " + db.status().ToString());
    service = std::make_unique<Service>(std::shared_ptr<omnigraph::api::Database>(std::move(*db)),
                                        omnigraph::server::Auth::Unauthenticated(),
                                        omnigraph::server::ServiceOptions{});
  }
  return *service;
}

// Beast's parse of the whole input as one request, under the listener's header limit and the
// load body limit; nullopt when Beast refuses it (the listener answers 400/413/431 then).
std::optional<http::request<http::string_body>> Parse(const uint8_t* data, size_t size) {
  http::request_parser<http::string_body> parser;
  parser.eager(true);
  parser.header_limit(omnigraph::server::kHeaderBytesMax);
  parser.body_limit(omnigraph::server::kLoadBodyBytesMaxDefault);
  boost::beast::error_code ec;
  size_t at = 0;
  while (!ec && !parser.is_done() && at < size) {
    const size_t used = parser.put(boost::asio::buffer(data + at, size - at), ec);
    if (used == 0) break;
    at += used;
  }
  // Beast asserts that a parser given an end of input has seen bytes; the listener reads none
  // from a connection closed at once and answers nothing.
  if (!ec && !parser.is_done() && parser.got_some()) parser.put_eof(ec);
  if (ec || !parser.is_done()) return std::nullopt;
  return parser.release();
}

void Check(const HttpResponse& response) {
  if (response.status < 200 || response.status > 599) {
    omnigraph::fuzz::Finding("response status " + std::to_string(response.status));
  }
  if (response.status == 500) omnigraph::fuzz::Finding("500: " + response.body);
  if (response.stream) (void)response.stream([](std::string_view) { return true; });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::optional<http::request<http::string_body>> parsed = Parse(data, size);
  if (!parsed || parsed->target().size() > omnigraph::server::kTargetBytesMax) return 0;
  HttpRequest request = omnigraph::server::beast_request::Convert(*parsed);
  request.body = std::move(parsed->body());
  if (request.method == "HEAD") request.method = "GET";
  Service& service = TheService();
  omnigraph::server::Admission admission = service.Admit(request);
  if (admission.refused) return Check(*admission.refused), 0;
  if (request.body.size() > admission.body_bytes_max) return 0;
  Check(service.Handle(request));
  return 0;
}
