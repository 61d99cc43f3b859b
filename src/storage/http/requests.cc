#include "storage/http/requests.h"

#include <algorithm>
#include <cstdio>

namespace omnigraph::storage::http {

bool Succeeded(const HttpResponse& r) {
  return r.transport == Transport::kAnswered && r.status >= 200 && r.status < 300;
}

bool IsStatus(const HttpResponse& r, long status) {
  return r.transport == Transport::kAnswered && r.status == status;
}

bool OutcomeUnknown(const HttpResponse& r, bool nothing_happened) {
  if (r.transport == Transport::kNoAnswer) return true;
  return r.transport == Transport::kAnswered && r.status >= 500 && !nothing_happened;
}

HttpResponse SendWithRetries(const std::function<HttpResponse()>& send_once, RequestKind kind,
                             const RetryPolicy& policy,
                             const std::function<bool(const HttpResponse&)>& nothing_happened,
                             Clock& clock, Random& random) {
  for (int attempt = 1;; ++attempt) {
    HttpResponse r = send_once();
    if (Succeeded(r) || attempt >= policy.attempts_max) return r;
    const bool harmless = nothing_happened(r);
    if (!harmless && !(kind == RequestKind::kRead && OutcomeUnknown(r, harmless))) return r;
    // Full jitter: a random wait up to the doubled base, so racing clients spread out.
    int64_t ceiling = std::min(policy.backoff_max_micros,
                               policy.backoff_base_micros << std::min(attempt - 1, 20));
    clock.SleepMicros(static_cast<int64_t>(random.Uniform(static_cast<uint64_t>(ceiling) + 1)));
  }
}

std::string NewWriteToken(Random& random) {
  char token[33];
  std::snprintf(token, sizeof(token), "%016llx%016llx",
                static_cast<unsigned long long>(random.Next64()),
                static_cast<unsigned long long>(random.Next64()));
  return token;
}

std::optional<Status> TransportFailure(const HttpResponse& r, RequestKind kind,
                                       std::string_view service, std::string_view where,
                                       std::string_view object) {
  const std::string name(object);
  if (r.transport == Transport::kNotSent) {
    return Status(Code::kTransient,
                  "could not reach the " + std::string(service) + " endpoint of " +
                      std::string(where) + ": " + r.error,
                  name);
  }
  if (r.transport == Transport::kNoAnswer) {
    if (kind == RequestKind::kRead) {
      return Status(Code::kTransient, "no answer from " + std::string(where) + ": " + r.error,
                    name);
    }
    return Status(Code::kUnknown,
                  "no answer from " + std::string(where) + " (" + r.error +
                      "); the write may or may not have taken effect",
                  name);
  }
  return std::nullopt;
}

Status ServerFailure(const HttpResponse&, RequestKind kind, std::string_view service,
                     std::string_view what, std::string_view object) {
  if (kind == RequestKind::kRead) {
    return Status(Code::kTransient,
                  std::string(service) + " server error (" + std::string(what) + ")",
                  std::string(object));
  }
  return Status(Code::kUnknown,
                std::string(service) + " server error (" + std::string(what) +
                    "); the write may or may not have taken effect",
                std::string(object));
}

Result<bool> SettleCreate(const HttpResponse& r, bool exists, bool outcome_unknown,
                          const Status& failure, const std::function<Result<bool>()>& mine,
                          std::string_view name) {
  if (Succeeded(r)) return true;
  if (exists) {
    if (r.sends <= 1) return false;
    // libcurl re-sent the create: the name may exist because our first copy landed.
    Result<bool> ours = mine();
    if (ours.ok()) return *ours;
    return Status(Code::kUnknown,
                  "the create was re-sent and heard 'exists', and reading it back failed: " +
                      ours.status().message(),
                  std::string(name));
  }
  if (!outcome_unknown) return failure;
  // The create may have landed with its answer lost. Finding our own token settles it; anything
  // else leaves it unknown (the request may still be in flight), for the caller to re-drive.
  Result<bool> ours = mine();
  if (ours.ok() && *ours) return true;
  return failure;
}

}  // namespace omnigraph::storage::http
