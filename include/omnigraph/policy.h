// OmniGraph C++ — policy bundles in the public API (docs/design/policy.md): parse and validate a
// bundle, ask it for decisions, run a test file against it, and install it on a local handle
// (DatabaseOptions::policy) so that every write — and, with a policy installed, every read — is
// checked for the handle's actor by one gate in the engine's local backend.
//
// Self-contained like omnigraph.h (standard library only). A Policy is immutable once parsed and
// may be shared by any number of handles and threads.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "omnigraph/json.h"
#include "omnigraph/status.h"

namespace omnigraph::api {

// What a bundle applies to (cluster.yaml's `applies_to`): `cluster` (server-level rules, i.e.
// graph_list) or some graph ids, never both. Neither: a file checked on its own, whose actions
// say which kind it is.
struct PolicyBinding {
  bool cluster = false;
  std::vector<std::string> graphs;
};

// One question: may `actor` do `action` (read, export, change, schema_apply, branch_create,
// branch_delete, branch_merge, admin, invoke_query, graph_list) on `branch` / into
// `target_branch`, in `graph`?
struct PolicyRequest {
  std::optional<std::string> actor;
  std::string action;
  std::optional<std::string> branch;
  std::optional<std::string> target_branch;
  std::optional<std::string> graph;
  // invoke_query: the stored query's name (a rule may list the queries it covers).
  std::optional<std::string> query;
  // read, export, change: the node and edge types the call touches (unset: unknown or every
  // type). A rule with `types` covers only those; each type is decided on its own
  // (docs/design/policy.md "Per-type authority").
  std::optional<std::vector<std::string>> types;
};

struct PolicyDecision {
  bool allowed = false;
  std::string rule;    // The deciding rule's id; empty for a default deny.
  std::string reason;  // For people.
};

class Policy {
 public:
  // Parses and validates a bundle's YAML; `file` names it in errors. InvalidArgument naming the
  // file, rule and key at fault; nothing is returned for a bundle with any error.
  static Result<std::shared_ptr<const Policy>> Parse(std::string_view source, std::string_view file,
                                                     const PolicyBinding& binding = {});
  ~Policy();
  Policy(const Policy&) = delete;
  Policy& operator=(const Policy&) = delete;

  // The decision for one request. An unknown action is denied; so is a request without an actor.
  PolicyDecision Decide(const PolicyRequest& request) const;
  // Whether any rule names `types` (else no decision depends on a request's types).
  bool HasTypedRules() const;
  // What `policy validate` prints: {file, kind ("graph" | "server"), applies_to, rules, groups,
  // actors (the distinct actor ids it names), protected_branches}.
  Json Summary() const;
  // What `policy explain` prints: {actor, action, branch?, target_branch?, graph?, query?, types?,
  // decision
  // ("allow" | "deny"), rule (id or null), reason}.
  Json Explain(const PolicyRequest& request) const;
  // Runs a test file (docs/design/policy.md "Test files") against this bundle: {file, passed,
  // failed, cases: [{id, expect, decision, rule, reason, ok}]}. InvalidArgument for a malformed
  // file (naming it, the case and the key).
  Result<Json> RunTests(std::string_view tests_source, std::string_view tests_file) const;

  struct Impl;
  explicit Policy(std::unique_ptr<Impl> impl);
  const Impl& impl() const { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace omnigraph::api
