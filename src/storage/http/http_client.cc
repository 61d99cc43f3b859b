#include "storage/http/http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>

namespace omnigraph::storage::http {

namespace {

void GlobalInit() {
  // curl_global_init is not thread-safe on every build; call it exactly once.
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

constexpr int kConnectionAgeMaxSeconds = 15;

// Where a transfer's body goes: the response, or the request's sink once the answer is a 2xx.
struct BodyTarget {
  CURL* curl;
  HttpResponse* response;
  const std::function<bool(std::string_view)>* sink;
};

size_t WriteBody(char* data, size_t size, size_t count, void* user) {
  auto* target = static_cast<BodyTarget*>(user);
  if (*target->sink) {
    long status = 0;
    curl_easy_getinfo(target->curl, CURLINFO_RESPONSE_CODE, &status);
    if (status >= 200 && status < 300) {
      // Any other count than the one given tells libcurl to stop the transfer.
      return (*target->sink)(std::string_view(data, size * count)) ? size * count : 0;
    }
  }
  target->response->body.append(data, size * count);
  return size * count;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

size_t WriteHeader(char* data, size_t size, size_t count, void* user) {
  auto* response = static_cast<HttpResponse*>(user);
  std::string_view line(data, size * count);
  if (line.starts_with("HTTP/")) {
    // A new status line (after "100 Continue" or a redirect): forget earlier headers.
    response->headers.clear();
    return size * count;
  }
  size_t colon = line.find(':');
  if (colon != std::string_view::npos) {
    std::string name(Trim(line.substr(0, colon)));
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    response->headers[name] = std::string(Trim(line.substr(colon + 1)));
  }
  return size * count;
}

// Counts the request's header blocks going out: more than one means libcurl re-sent the request
// (it does so silently when a reused connection dies before any answer).
int CountSends(CURL*, curl_infotype type, char*, size_t, void* user) {
  if (type == CURLINFO_HEADER_OUT) ++static_cast<HttpResponse*>(user)->sends;
  return 0;
}

bool NeverSent(CURLcode code) {
  return code == CURLE_COULDNT_RESOLVE_HOST || code == CURLE_COULDNT_RESOLVE_PROXY ||
         code == CURLE_COULDNT_CONNECT || code == CURLE_URL_MALFORMAT ||
         code == CURLE_UNSUPPORTED_PROTOCOL;
}

}  // namespace

std::string UriEncode(std::string_view s, bool encode_slash) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size() * 3);
  for (unsigned char c : s) {
    bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '.' || c == '_' || c == '~';
    if (unreserved || (c == '/' && !encode_slash)) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

std::string CanonicalQuery(std::vector<std::pair<std::string, std::string>> params) {
  for (auto& [name, value] : params) {
    name = UriEncode(name, true);
    value = UriEncode(value, true);
  }
  std::sort(params.begin(), params.end());
  std::string out;
  for (const auto& [name, value] : params) {
    if (!out.empty()) out.push_back('&');
    out += name + "=" + value;
  }
  return out;
}

std::string HttpResponse::Header(std::string_view name) const {
  auto it = headers.find(std::string(name));
  return it == headers.end() ? std::string() : it->second;
}

HttpClient::HttpClient(HttpClientOptions options) : options_(std::move(options)) { GlobalInit(); }

HttpClient::~HttpClient() {
  for (void* handle : idle_) curl_easy_cleanup(handle);
}

void* HttpClient::Acquire() {
  {
    std::lock_guard lock(mu_);
    if (!idle_.empty()) {
      void* handle = idle_.back();
      idle_.pop_back();
      return handle;
    }
  }
  return curl_easy_init();
}

void HttpClient::Release(void* handle) {
  std::lock_guard lock(mu_);
  if (idle_.size() < options_.idle_handles_max) {
    idle_.push_back(handle);
  } else {
    curl_easy_cleanup(handle);
  }
}

HttpResponse HttpClient::Send(const HttpRequest& request) {
  HttpResponse response;
  CURL* curl = Acquire();
  if (curl == nullptr) {
    response.transport = Transport::kNotSent;
    response.error = "libcurl could not create a handle";
    return response;
  }
  // Reset keeps the handle's live connections, so the next request reuses them.
  curl_easy_reset(curl);
  curl_slist* headers = nullptr;
  for (const std::string& h : request.headers) headers = curl_slist_append(headers, h.c_str());
  char error[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(curl, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_TCP_NODELAY, 1L);
  // Servers close idle keep-alive connections (AWS after about 20 s); a connection closed under a
  // write makes its outcome unknown, so do not reuse connections that old.
  curl_easy_setopt(curl, CURLOPT_MAXAGE_CONN, static_cast<long>(kConnectionAgeMaxSeconds));
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options_.connect_timeout_ms));
  const int64_t timeout_ms =
      request.timeout_ms > 0 ? request.timeout_ms : options_.request_timeout_ms;
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout_ms));
  BodyTarget body_target{curl, &response, &request.body_sink};
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &WriteBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body_target);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, &WriteHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &response);
  curl_easy_setopt(curl, CURLOPT_DEBUGFUNCTION, &CountSends);
  curl_easy_setopt(curl, CURLOPT_DEBUGDATA, &response);
  curl_easy_setopt(curl, CURLOPT_VERBOSE, 1L);
  if (!options_.sigv4.empty()) {
    curl_easy_setopt(curl, CURLOPT_AWS_SIGV4, options_.sigv4.c_str());
    curl_easy_setopt(curl, CURLOPT_USERPWD, options_.user_password.c_str());
  }
  if (request.method == "GET") {
    curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
  } else if (request.method == "HEAD") {
    curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
  } else if (request.method == "PUT" || request.method == "POST") {
    // POSTFIELDS rather than an upload callback: libcurl then hashes the payload for SigV4 and
    // sends no "Expect: 100-continue" (one round trip) for bodies under 1 MiB. The custom method
    // turns the POST into a PUT.
    if (request.method == "PUT") curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, "PUT");
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE,
                     static_cast<curl_off_t>(request.body.size()));
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.empty() ? "" : request.body.data());
  } else {
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  }
  CURLcode code = curl_easy_perform(curl);
  if (code == CURLE_OK) {
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response.status);
  } else {
    long sent_bytes = 0;
    curl_easy_getinfo(curl, CURLINFO_REQUEST_SIZE, &sent_bytes);
    response.transport =
        NeverSent(code) || sent_bytes == 0 ? Transport::kNotSent : Transport::kNoAnswer;
    response.error = error[0] != 0 ? std::string(error) : std::string(curl_easy_strerror(code));
  }
  curl_slist_free_all(headers);
  if (code == CURLE_OK) {
    Release(curl);
  } else {
    // A failed transfer may leave its connection in any state: do not reuse the handle.
    curl_easy_cleanup(curl);
  }
  return response;
}

}  // namespace omnigraph::storage::http
