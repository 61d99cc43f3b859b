// The `invoke_query` gate of stored-query invocation (docs/design/stored-queries.md "Gate"): the
// one call site the policy layer ([33]) replaces. Today it allows what the server's auth allows
// for reads, and a stored mutation also needs `change`. A caller the gate refuses outright is
// answered exactly as an unknown query name is (404, same body), so the catalog cannot be probed;
// a caller it lets reach the query but not write gets 403. Pure; thread-safe.
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
