// The engine's side of per-type authority (docs/design/policy.md "Per-type authority"): a
// write or read asks its caller's gate about what it actually does once it knows — the node and
// edge types a load's lines, a mutation's effects or a read query touch, and the branch action
// a branch statement run as a mutation performs — before it stages or reads anything of them.
// The API's local backend installs the gate when a policy is; without one nothing is asked.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"

namespace omnigraph::engine {

struct AuthorityRequest {
  std::string action;  // read, change, branch_create, branch_delete, branch_merge
  std::optional<std::string> branch;
  std::optional<std::string> target_branch;
  // The types touched (names); empty: none yet known (a pre-check before any I/O).
  std::vector<std::string> types;
};

// Ok, or the refusal to return unchanged.
using Authorize = std::function<Status(const AuthorityRequest&)>;

}  // namespace omnigraph::engine
