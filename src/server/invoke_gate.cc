// The invoke_query gate (server/invoke_gate.h).
#include "server/invoke_gate.h"

namespace omnigraph::server {

InvokeDecision InvokeQueryGate(const Auth& auth, const std::optional<std::string>& actor,
                               const ServedGraph&, const StoredQuery& query) {
  if (auth.unauthenticated() || !actor) return InvokeDecision::kAllow;
  // [33] replaces this with the policy's `invoke_query` decision for (actor, graph, query).
  if (!auth.Allowed(*actor, "read")) return InvokeDecision::kDenyAsUnknown;
  if (query.mutation && !auth.Allowed(*actor, "change")) return InvokeDecision::kForbidden;
  return InvokeDecision::kAllow;
}

}  // namespace omnigraph::server
