// Per-actor admission control (server/admission.h).
#include "server/admission.h"

#include <cmath>
#include <cstdlib>
#include <optional>

#include "omnigraph/omnigraph.h"

namespace omnigraph::server {
namespace {

constexpr double kMicrosPerSecond = 1e6;

std::optional<uint64_t> WholeNumber(std::string_view text) {
  if (text.empty() || text.size() > 19) return std::nullopt;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  return v;
}

double BucketSize(const AdmissionLimits& limits) {
  if (limits.burst > 0) return static_cast<double>(limits.burst);
  return std::max(1.0, static_cast<double>(limits.rate_per_s));
}

}  // namespace

api::Result<AdmissionLimits> AdmissionLimitsFromEnvironment(AdmissionLimits defaults) {
  const std::pair<const char*, uint64_t*> vars[] = {
      {"OMNIGRAPH_PER_ACTOR_INFLIGHT_MAX", &defaults.inflight_max},
      {"OMNIGRAPH_PER_ACTOR_BYTES_MAX", &defaults.bytes_max},
      {"OMNIGRAPH_PER_ACTOR_RATE", &defaults.rate_per_s},
      {"OMNIGRAPH_PER_ACTOR_BURST", &defaults.burst}};
  for (const auto& [name, field] : vars) {
    const char* text = std::getenv(name);
    if (text == nullptr) continue;
    std::optional<uint64_t> v = WholeNumber(text);
    if (!v) {
      return api::InvalidArgument(std::string(name) +
                                  " takes a whole number (0: unbounded), not '" + text + "'");
    }
    *field = *v;
  }
  return defaults;
}

ActorAdmission::ActorAdmission(AdmissionLimits limits, std::function<int64_t()> now)
    : limits_(limits), now_(now ? std::move(now) : &api::Database::MonotonicMicros) {}

std::variant<ActorAdmission::Ticket, ActorAdmission::Refusal> ActorAdmission::TakeRate(
    const std::string& actor, ActorState& state, int64_t now) {
  const double size = BucketSize(limits_);
  const double rate = static_cast<double>(limits_.rate_per_s);
  if (!state.seen) {
    state.tokens = size;
    state.refilled_at = now;
    state.seen = true;
  }
  const double elapsed_s = static_cast<double>(now - state.refilled_at) / kMicrosPerSecond;
  state.tokens = std::min(size, state.tokens + elapsed_s * rate);
  state.refilled_at = now;
  if (state.tokens >= 1.0) {
    state.tokens -= 1.0;
    return Ticket();
  }
  const auto wait_s = static_cast<int64_t>(std::ceil((1.0 - state.tokens) / rate));
  return Refusal{std::max<int64_t>(1, wait_s),
                 "actor '" + actor + "' is over its request rate of " +
                     std::to_string(limits_.rate_per_s) + " per second (burst " +
                     std::to_string(static_cast<uint64_t>(size)) + ")"};
}

std::variant<ActorAdmission::Ticket, ActorAdmission::Refusal> ActorAdmission::Enter(
    const std::string& actor, bool mutating, uint64_t bytes, bool count_rate) {
  const bool rated = count_rate && limits_.rate_per_s > 0;
  const int64_t now = rated ? now_() : 0;
  std::lock_guard lock(mu_);
  ActorState& state = actors_[actor];
  if (mutating && limits_.inflight_max > 0 && state.inflight >= limits_.inflight_max) {
    return Refusal{1, "actor '" + actor + "' has " + std::to_string(state.inflight) +
                          " mutating requests in flight, the limit (per-actor-inflight-max)"};
  }
  if (mutating && limits_.bytes_max > 0 && state.bytes + bytes > limits_.bytes_max) {
    return Refusal{1, "actor '" + actor + "' would have " + std::to_string(state.bytes + bytes) +
                          " request bytes in flight, over the limit of " +
                          std::to_string(limits_.bytes_max) + " (per-actor-bytes-max)"};
  }
  if (rated) {
    std::variant<Ticket, Refusal> rate = TakeRate(actor, state, now);
    if (std::holds_alternative<Refusal>(rate)) return rate;
  }
  if (!mutating) return Ticket();
  ++state.inflight;
  state.bytes += bytes;
  // The ticket's deleter gives the slot back; it runs wherever the last copy goes.
  return Ticket(static_cast<void*>(this), [this, actor, bytes](void*) { Leave(actor, bytes); });
}

void ActorAdmission::Leave(const std::string& actor, uint64_t bytes) {
  std::lock_guard lock(mu_);
  ActorState& state = actors_[actor];
  --state.inflight;
  state.bytes -= bytes;
}

uint64_t ActorAdmission::InFlight(const std::string& actor) const {
  std::lock_guard lock(mu_);
  auto it = actors_.find(actor);
  return it == actors_.end() ? 0 : it->second.inflight;
}

}  // namespace omnigraph::server
