// The `invoke_query` gate of stored-query invocation (docs/design/stored-queries.md "Gate",
// docs/design/policy.md "Server"). A graph with a policy bundle: the bundle's `invoke_query`
// decision for (actor, graph, query name) — a rule's `queries:` scope applies — and a stored
// mutation's `change` is then the engine gate's (403 from the handler's call). Without one
// (DefaultDeny): the `invoke_query` grant, and a stored mutation also needs `change`. A caller
// the gate refuses outright is answered exactly as an unknown query name is (404, same body), so
// the catalog cannot be probed; a caller it lets reach the query but not write gets 403. Each
// refusal is logged (LogDenied). Thread-safe.
#pragma once

#include <optional>
#include <string>

#include "server/auth.h"
#include "server/registry.h"

namespace omnigraph::server {

enum class InvokeDecision {
  kAllow,
  kDenyAsUnknown,  // answer as for an unknown name (404)
  kForbidden,      // the inner `change` gate of a stored mutation (403)
};

// Whether `actor` (none when the server is unauthenticated) may invoke `query` of `graph`.
InvokeDecision InvokeQueryGate(const Auth& auth, const std::optional<std::string>& actor,
                               const ServedGraph& graph, const StoredQuery& query);

}  // namespace omnigraph::server
