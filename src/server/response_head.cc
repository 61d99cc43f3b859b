// A response's head written directly (server/response_head.h).
#include "server/response_head.h"

#include <algorithm>
#include <cctype>

namespace omnigraph::server {
namespace {

bool EqualsLower(std::string_view name, std::string_view lower) {
  return name.size() == lower.size() &&
         std::equal(name.begin(), name.end(), lower.begin(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) == b;
         });
}

bool HasLineBreak(std::string_view text) {
  return text.find_first_of("\r\n") != std::string_view::npos;
}

// Whether a handler's header is one this writer copies as it is: not one Beast would replace
// with its own (Keep-Alive, Content-Length, Transfer-Encoding) and free of line breaks.
// Connection is dropped by both (the listener decides it).
bool Plain(std::string_view name, std::string_view value) {
  return !EqualsLower(name, "keep-alive") && !EqualsLower(name, "content-length") &&
         !EqualsLower(name, "transfer-encoding") && !HasLineBreak(name) && !HasLineBreak(value);
}

void AppendField(std::string& out, std::string_view name, std::string_view value) {
  out.append(name).append(": ").append(value).append("\r\n");
}

}  // namespace

std::string_view ReasonPhrase(int status) {
  switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 206: return "Partial Content";
    case 302: return "Found";
    case 304: return "Not Modified";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 412: return "Precondition Failed";
    case 413: return "Payload Too Large";
    case 414: return "URI Too Long";
    case 415: return "Unsupported Media Type";
    case 416: return "Range Not Satisfiable";
    case 428: return "Precondition Required";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return {};
  }
}

bool WriteResponseHead(const HttpResponse& response, size_t body_bytes, unsigned version, bool keep,
                       int keep_alive_timeout_s, std::string& out) {
  const std::string_view reason = ReasonPhrase(response.status);
  // A 1xx, 204 or 304 carries no body: Beast refuses one (it throws).
  const bool bodiless = response.status < 200 || response.status == 204 || response.status == 304;
  if ((version != 10 && version != 11) || reason.empty() || HasLineBreak(response.content_type) ||
      (bodiless && body_bytes > 0)) {
    return false;
  }
  for (const auto& [name, value] : response.headers) {
    if (!Plain(name, value)) return false;
  }
  out.append(version == 11 ? "HTTP/1.1 " : "HTTP/1.0 ")
      .append(std::to_string(response.status))
      .append(" ")
      .append(reason)
      .append("\r\n");
  if (!response.content_type.empty()) AppendField(out, "Content-Type", response.content_type);
  for (const auto& [name, value] : response.headers) {
    if (!EqualsLower(name, "connection")) AppendField(out, name, value);
  }
  // HTTP/1.1 keeps a connection unless told to close; HTTP/1.0 closes it unless told to keep it.
  if (version == 11 && !keep) AppendField(out, "Connection", "close");
  if (version == 10 && keep) AppendField(out, "Connection", "keep-alive");
  if (keep) AppendField(out, "Keep-Alive", "timeout=" + std::to_string(keep_alive_timeout_s));
  AppendField(out, "Content-Length", std::to_string(response.content_length.value_or(body_bytes)));
  out.append("\r\n");
  return true;
}

}  // namespace omnigraph::server
