// A whole response's head — status line and fields — written directly into a string for the
// responses the server sends nearly always (docs/design/server.md "Connections, limits and
// threads"): the bytes Boost.Beast's serializer writes for the same response, field for field
// and in the same order, without building Beast's field list and running its serializer
// (about a microsecond and a half of each request's path). A response outside that common case
// is left to Beast (server/beast_response.h); response_head_test compares the two.
// Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "server/http.h"

namespace omnigraph::server {

// The reason phrase Beast writes for `status`, for the statuses this writer knows; empty for
// any other (which it leaves to Beast).
std::string_view ReasonPhrase(int status);

// Appends the head of `response`, whose body is `body_bytes` long, for an HTTP/1.`version % 10`
// client (`version` 10 or 11) to `out`: the status line; Content-Type; the handler's headers but
// Connection; Connection as the keep-alive decision `keep` and the version need it; Keep-Alive:
// timeout=`keep_alive_timeout_s` when `keep`; Content-Length (response.content_length, else the
// body's, on every status: Beast's too); the blank line. False, with
// `out` unchanged, for a response it does not write: another version, a status without a
// phrase here, a handler header Beast would replace or that holds CR or LF, a body on a status
// that may not have one.
bool WriteResponseHead(const HttpResponse& response, size_t body_bytes, unsigned version, bool keep,
                       int keep_alive_timeout_s, std::string& out);

}  // namespace omnigraph::server
