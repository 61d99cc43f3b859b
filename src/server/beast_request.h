// Beast's parsed request header to the Service's HttpRequest (server/http.h): target splitting,
// percent-decoding and header-name folding. Used by the listener (server/listener.cc) and by the
// request fuzz harness (fuzz/server_request.cc), which runs the same conversion over Beast's
// parser; nothing else includes Boost.
#pragma once

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

#include <boost/beast/http.hpp>

#include "server/http.h"

namespace omnigraph::server::beast_request {

namespace http = boost::beast::http;

inline std::string Str(boost::string_view text) { return std::string(text.data(), text.size()); }

inline std::string Lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

inline int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Percent-decoding; '+' is a space in query components only. A malformed escape stays as it is.
inline std::string Decode(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && HexDigit(text[i + 1]) >= 0 &&
        HexDigit(text[i + 2]) >= 0) {
      out += static_cast<char>(HexDigit(text[i + 1]) * 16 + HexDigit(text[i + 2]));
      i += 2;
    } else {
      out += plus_is_space && text[i] == '+' ? ' ' : text[i];
    }
  }
  return out;
}

// The request as the Service sees it (server/http.h): the method, the target split into its
// percent-decoded path and query parameters, the header names in lower case. The body is moved
// in by the caller once read.
template <typename Fields>
HttpRequest Convert(const http::request_header<Fields>& req) {
  HttpRequest out;
  out.method = Str(req.method_string());
  const std::string_view target(req.target().data(), req.target().size());
  const size_t question = target.find('?');
  out.path = Decode(target.substr(0, question), false);
  if (question != std::string_view::npos) {
    std::string_view rest = target.substr(question + 1);
    while (!rest.empty()) {
      const std::string_view pair = rest.substr(0, rest.find('&'));
      rest.remove_prefix(std::min(rest.size(), pair.size() + 1));
      if (pair.empty()) continue;
      const size_t eq = pair.find('=');
      std::string name = Decode(pair.substr(0, eq), true);
      std::string value = eq == std::string_view::npos ? "" : Decode(pair.substr(eq + 1), true);
      out.query.emplace(name, value);
      out.query_list.emplace_back(std::move(name), std::move(value));
    }
  }
  for (const auto& field : req) {
    out.headers.emplace(Lower(Str(field.name_string())), Str(field.value()));
  }
  return out;
}

}  // namespace omnigraph::server::beast_request
