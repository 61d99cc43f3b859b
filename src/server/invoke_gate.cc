// The invoke_query gate (server/invoke_gate.h).
#include "server/invoke_gate.h"

namespace omnigraph::server {

InvokeDecision InvokeQueryGate(const Auth& auth, const std::optional<std::string>& actor,
                               const ServedGraph& graph, const StoredQuery& query) {
  if (auth.unauthenticated()) return InvokeDecision::kAllow;
  api::PolicyRequest request{actor,        "invoke_query", std::nullopt,
                             std::nullopt, graph.id,       query.name};
  if (graph.policy) {
    const api::PolicyDecision d = graph.policy->Decide(request);
    if (d.allowed) return InvokeDecision::kAllow;
    LogDenied(request, d);
    return InvokeDecision::kDenyAsUnknown;
  }
  if (!actor || !auth.Allowed(*actor, "invoke_query")) {
    LogDenied(request, api::PolicyDecision{false, "", "default deny: no grant of 'invoke_query'"});
    return InvokeDecision::kDenyAsUnknown;
  }
  if (query.mutation && !auth.Allowed(*actor, "change")) {
    request.action = "change";
    LogDenied(request, api::PolicyDecision{false, "", "default deny: no grant of 'change'"});
    return InvokeDecision::kForbidden;
  }
  return InvokeDecision::kAllow;
}

}  // namespace omnigraph::server
