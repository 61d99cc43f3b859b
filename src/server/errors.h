// The error envelope (OmniGraph's ErrorOutput) and the mapping of the public API's codes to HTTP
// statuses (docs/design/server.md "Errors"). Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "omnigraph/json.h"
#include "omnigraph/status.h"
#include "server/http.h"

namespace omnigraph::server {

// The HTTP status of a failed API call: 400 bad input, 404 missing branch/commit/graph, 409
// conflicts, 410 reclaimed history, 412 a stale expected commit, 413 limits, 500 the rest.
int HttpStatusOf(api::Code code);

// The ErrorOutput `code` for an HTTP status; empty where OmniGraph omits it (410, 412, 424, 503).
std::string_view ErrorCodeOf(int http_status);

// The response for a failed API call: ErrorOutput with the message, the API's code and kind
// names, the object, and the conflict detail the code calls for.
HttpResponse ErrorResponse(const api::Status& status);

// A merge refused for its conflicts (409): ErrorOutput with `merge_conflicts`, the API's array.
HttpResponse MergeConflictsResponse(const api::Status& status, const api::Json& conflicts);

// A response for a failure the server finds itself (auth, routing, limits, malformed bodies).
HttpResponse ErrorResponse(int http_status, std::string message);

// 413 for a body over a limit, with resource_limit {resource, limit, actual}.
HttpResponse TooLargeResponse(std::string_view resource, uint64_t limit, uint64_t actual);

// A 200 response whose body is `value` as JSON.
HttpResponse JsonResponse(const api::Json& value, int http_status = 200);

}  // namespace omnigraph::server
