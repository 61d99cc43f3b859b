// HttpClient: the one place OmniGraph talks HTTP, on libcurl easy handles (docs/design/overview.md
// "Failures").
//
// A client owns a small pool of easy handles. Each handle keeps its own connection cache, so a
// handle taken back from the pool reuses its keep-alive connection; a request never waits for a
// handle (a new one is made when the pool is empty). Requests may be signed with AWS Signature
// Version 4 by libcurl itself (CURLOPT_AWS_SIGV4); the caller supplies the headers that SigV4
// needs from it (x-amz-content-sha256) and canonical query strings. Azure's Shared Key is signed
// by the caller (storage/azure) and sent as an ordinary Authorization header. The client never
// retries: retry policy belongs to the caller, which knows whether a request is safe to repeat.
// Thread-safe. A client must not be used on both sides of a fork (the pooled connections would
// be shared by two processes); open a new one in the child.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace omnigraph::storage::http {

// Percent-encodes as SigV4 and Azure Shared Key want: unreserved bytes (A-Z a-z 0-9 - . _ ~) stay,
// every other byte becomes %XX (upper-case hex); '/' stays unless `encode_slash`.
std::string UriEncode(std::string_view s, bool encode_slash);

// A canonical query string: parameters sorted by name, names and values UriEncoded, joined by '&'.
// libcurl 7.88 signs the query exactly as given (SigV4), so it must already be canonical.
std::string CanonicalQuery(std::vector<std::pair<std::string, std::string>> params);

struct HttpRequest {
  // "GET", "HEAD", "PUT", "POST" or "DELETE".
  std::string method;
  // The full URL, with its query already canonical (sorted, percent-encoded).
  std::string url;
  // Extra request headers, each "Name: value".
  std::vector<std::string> headers;
  // The body of a PUT or POST; borrowed for the duration of Send.
  std::string_view body;
  // When set, the body of a 2xx answer is handed here as it arrives instead of being kept in
  // HttpResponse::body (the body of any other answer is still kept, for its error); returning
  // false stops the transfer, which then ends as kNoAnswer. For streamed answers (an export).
  std::function<bool(std::string_view chunk)> body_sink;
  // When above zero, this request's whole-request timeout instead of the client's (a caller
  // with an overall deadline gives each attempt only the time left).
  int64_t timeout_ms = 0;
};

// How far a request got, which decides whether repeating it is safe.
enum class Transport {
  // The server answered with a status line.
  kAnswered,
  // No byte of the request reached the server (resolving or connecting failed): nothing happened.
  kNotSent,
  // The request was sent but no complete answer came back (timeout, reset): it may have happened.
  kNoAnswer,
};

struct HttpResponse {
  Transport transport = Transport::kAnswered;
  long status = 0;
  // Response headers by lower-case name (the last value wins).
  std::map<std::string, std::string> headers;
  std::string body;
  // libcurl's description of a transport failure.
  std::string error;
  // How many times the request went out. libcurl re-sends a request, once, when the reused
  // connection it went out on dies before any answer; a write may then have landed twice, and
  // the answer is the second copy's (an "exists" may be our own first copy).
  int sends = 0;

  // The value of header `name` (lower-case), or empty.
  std::string Header(std::string_view name) const;
};

struct HttpClientOptions {
  int64_t connect_timeout_ms = 5'000;
  // The whole request, first byte to last.
  int64_t request_timeout_ms = 30'000;
  // CURLOPT_AWS_SIGV4 ("aws:amz:us-east-1:s3"); empty means unsigned.
  std::string sigv4;
  // "access-key:secret" for SigV4.
  std::string user_password;
  // Idle handles kept for reuse; more are closed when returned.
  size_t idle_handles_max = 16;
};

class HttpClient {
 public:
  explicit HttpClient(HttpClientOptions options);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Sends one request and returns what came back; transport failures are described in the
  // response, never thrown.
  HttpResponse Send(const HttpRequest& request);

 private:
  void* Acquire();
  void Release(void* handle);

  const HttpClientOptions options_;
  std::mutex mu_;
  std::vector<void*> idle_;
};

}  // namespace omnigraph::storage::http
