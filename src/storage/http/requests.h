// The request discipline every HTTP object-store backend shares (S3, Azure Blob;
// docs/design/overview.md §9): which failures may be retried, bounded retries with jittered
// backoff, write tokens, the transport half of the failure mapping, and settling a conditional
// create whose answer was ambiguous. Each backend supplies only what its service says differently
// (which answers prove that nothing happened, how it reads a token back). Pure functions;
// thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "base/random.h"
#include "base/status.h"
#include "storage/http/http_client.h"

namespace omnigraph::storage::http {

// What the failed request was, which decides Transient versus Unknown.
enum class RequestKind {
  kRead,              // GET, HEAD, LIST: never changes anything.
  kWrite,             // PUT, DELETE without conditions.
  kConditionalWrite,  // PUT with If-None-Match or If-Match.
};

struct RetryPolicy {
  // Attempts of one request that is safe to repeat (the first included).
  int attempts_max = 4;
  // The first backoff; each retry doubles it (with full jitter), up to backoff_max_micros.
  int64_t backoff_base_micros = 20'000;
  int64_t backoff_max_micros = 1'000'000;
};

// A 2xx answer.
bool Succeeded(const HttpResponse& response);
// An answer with this status.
bool IsStatus(const HttpResponse& response, long status);

// True when the request may or may not have taken effect: sent without a complete answer, or a
// 5xx that the service's `nothing_happened` does not vouch for.
bool OutcomeUnknown(const HttpResponse& response, bool nothing_happened);

// Sends with `send_once`, again (after a full-jitter backoff on `clock`) while the answer proves
// nothing happened, and for reads also while the outcome is unknown, up to attempts_max times.
// A mutating request whose outcome is unknown is never repeated blindly: that is for the caller's
// read-back.
HttpResponse SendWithRetries(const std::function<HttpResponse()>& send_once, RequestKind kind,
                             const RetryPolicy& policy,
                             const std::function<bool(const HttpResponse&)>& nothing_happened,
                             Clock& clock, Random& random);

// A fresh write token: 128 random bits as 32 hex digits (two writers never share one).
std::string NewWriteToken(Random& random);

// The transport half of §9, the same for every service: not sent → Transient; sent without an
// answer → Unknown on a write, Transient on a read. nullopt when the server answered. `where`
// names the container or bucket and endpoint for the message.
std::optional<Status> TransportFailure(const HttpResponse& response, RequestKind kind,
                                       std::string_view service, std::string_view where,
                                       std::string_view object);
// A 5xx the service does not vouch for: Unknown on a write, Transient on a read.
Status ServerFailure(const HttpResponse& response, RequestKind kind, std::string_view service,
                     std::string_view what, std::string_view object);

// Settles a conditional create (PutIfAbsent) from its final answer. `exists`: the server said the
// name exists; `failure`: the mapped status of a non-success answer. `mine` reads the name back
// and says whether it holds this create's write token (false when absent or another write's).
//   success                                   → true
//   "exists", sent once                       → false
//   "exists" after libcurl re-sent it         → mine() (our first copy may have landed)
//   outcome unknown                           → true when mine(), else `failure` (Unknown)
//   anything else                             → `failure`
Result<bool> SettleCreate(const HttpResponse& response, bool exists, bool outcome_unknown,
                          const Status& failure, const std::function<Result<bool>()>& mine,
                          std::string_view name);

}  // namespace omnigraph::storage::http
