// Per-actor admission control (docs/design/server.md "Per-actor admission control"): before a
// request's body is read, the server asks whether its actor may start it. Mutating requests
// (writes, loads, schema apply, branch create/delete/merge, stored mutations) are bounded per
// actor by a count in flight and by the body bytes in flight, as the reference's
// OMNIGRAPH_PER_ACTOR_INFLIGHT_MAX and OMNIGRAPH_PER_ACTOR_BYTES_MAX; every graph request is
// bounded per actor by a rate (a token bucket), beyond the reference. Beyond a bound the answer is
// 429 with Retry-After, and the actor's other requests and other actors are unaffected.
// Thread-safety: one ActorAdmission serves every thread (a mutex guards its state); a Ticket may
// be released on any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <variant>

#include "omnigraph/status.h"

namespace omnigraph::server {

struct AdmissionLimits {
  // Mutating requests of one actor in flight at once (from admission to the handler's end); 0:
  // unbounded. OMNIGRAPH_PER_ACTOR_INFLIGHT_MAX, --per-actor-inflight-max.
  uint64_t inflight_max = 16;
  // Their declared body bytes in flight at once; 0: unbounded. OMNIGRAPH_PER_ACTOR_BYTES_MAX,
  // --per-actor-bytes-max.
  uint64_t bytes_max = uint64_t{4} << 30;
  // Graph requests of one actor per second, sustained; 0: no rate limit (the default, as the
  // reference has none). OMNIGRAPH_PER_ACTOR_RATE, --per-actor-rate.
  uint64_t rate_per_s = 0;
  // How many may come at once after a quiet spell (the bucket's size); 0: the rate, at least 1.
  // OMNIGRAPH_PER_ACTOR_BURST, --per-actor-burst.
  uint64_t burst = 0;
};

// The limits the environment sets over `defaults`; InvalidArgument naming the variable for a
// value that is not a whole number.
api::Result<AdmissionLimits> AdmissionLimitsFromEnvironment(AdmissionLimits defaults);

class ActorAdmission {
 public:
  // Held while an admitted request is in flight; the last copy's destruction releases it.
  using Ticket = std::shared_ptr<void>;
  struct Refusal {
    int64_t retry_after_s = 1;  // When to try again (whole seconds, at least 1).
    std::string reason;
  };
  // `now` is a monotonic clock in microseconds (api::Database::MonotonicMicros by default).
  explicit ActorAdmission(AdmissionLimits limits, std::function<int64_t()> now = {});

  // Admits one request of `actor`: a Ticket, or the Refusal to answer with 429. `mutating`
  // requests count against the in-flight bounds with `bytes` (the declared body length); with
  // `count_rate` the request also takes a token of the actor's rate.
  std::variant<Ticket, Refusal> Enter(const std::string& actor, bool mutating, uint64_t bytes,
                                      bool count_rate = true);

  const AdmissionLimits& limits() const { return limits_; }
  // The actor's mutating requests in flight (tests).
  uint64_t InFlight(const std::string& actor) const;

 private:
  struct ActorState {
    uint64_t inflight = 0;
    uint64_t bytes = 0;
    double tokens = 0;        // The rate bucket's fill.
    int64_t refilled_at = 0;  // When `tokens` was last brought up to date.
    bool seen = false;
  };
  void Leave(const std::string& actor, uint64_t bytes);
  std::variant<Ticket, Refusal> TakeRate(const std::string& actor, ActorState& state, int64_t now);

  AdmissionLimits limits_;
  std::function<int64_t()> now_;
  mutable std::mutex mu_;
  std::map<std::string, ActorState, std::less<>> actors_;
};

}  // namespace omnigraph::server
