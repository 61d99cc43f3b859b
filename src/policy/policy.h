// Policy bundles (docs/design/policy.md): parsing and validating a bundle's YAML into a Policy,
// and deciding whether an actor may perform an action on a branch. Pure: no I/O — the caller
// reads the file and passes its text, its name (for errors) and its binding (cluster.yaml's
// `applies_to`). A Policy is immutable once parsed and may be shared by any number of threads.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace omnigraph::policy {

// The actions a rule may name (the reference's list). graph_list is server-scoped; every other
// action is per-graph.
enum class Action {
  kRead,
  kExport,
  kChange,
  kSchemaApply,
  kBranchCreate,
  kBranchDelete,
  kBranchMerge,
  kAdmin,
  kInvokeQuery,
  kGraphList,
};
inline constexpr Action kAllActions[] = {
    Action::kRead,         Action::kExport,       Action::kChange,      Action::kSchemaApply,
    Action::kBranchCreate, Action::kBranchDelete, Action::kBranchMerge, Action::kAdmin,
    Action::kInvokeQuery,  Action::kGraphList};

std::string_view ActionName(Action action);
std::optional<Action> ActionFromName(std::string_view name);

// Which branch of a request an action's rules are scoped by: the source branch (read, export,
// change), the target branch (schema_apply, branch_create, branch_delete, branch_merge), or
// none (admin, invoke_query, graph_list).
enum class ScopeKind { kBranch, kTargetBranch, kNone };
ScopeKind ScopeOf(Action action);
bool IsServerScoped(Action action);

// What a bundle applies to (cluster.yaml's applies_to): the literal `cluster` (server-level
// rules), some graph ids (per-graph rules), or nothing known yet (a file checked on its own:
// then the bundle's own actions say which kind it is).
struct Binding {
  enum class Kind { kUnbound, kCluster, kGraphs };
  Kind kind = Kind::kUnbound;
  std::vector<std::string> graphs;

  static Binding Unbound() { return {}; }
  static Binding Cluster() { return {Kind::kCluster, {}}; }
  static Binding Graphs(std::vector<std::string> ids) { return {Kind::kGraphs, std::move(ids)}; }
};

// A branch scope: any | protected | unprotected, or a branch-name pattern where `*` matches any
// run of characters and `{actor}` stands for the requesting actor's id ("agent/*", "{actor}/*").
struct Scope {
  enum class Kind { kAny, kProtected, kUnprotected, kPattern };
  Kind kind = Kind::kAny;
  std::string text;  // As written.
};

struct Rule {
  std::string id;
  bool deny = false;  // A `deny:` block; otherwise `allow:`.
  std::vector<std::string> groups;
  std::vector<std::string> actor_ids;
  std::vector<Action> actions;
  std::optional<Scope> branch_scope;
  std::optional<Scope> target_branch_scope;
  // invoke_query rules only: the stored queries the rule covers (empty: every one). Beyond the
  // reference, whose invoke_query is coarse.
  std::vector<std::string> queries;
  // read, export and change rules only: the node and edge types the rule covers (empty: every
  // type). Beyond the reference, whose query-layer enforcement is not built.
  std::vector<std::string> types;
};

// One question to the policy. An absent actor is always denied (fail closed). An absent branch
// (a read by commit id, a branch listing) matches only an allow rule whose scope is `any` or
// unset, and every deny rule of the action (fail closed both ways).
struct Request {
  std::optional<std::string> actor;
  Action action = Action::kRead;
  std::optional<std::string> branch;
  std::optional<std::string> target_branch;
  // The graph asked about; checked against a graph binding when set.
  std::optional<std::string> graph;
  // invoke_query: the stored query's name. Unset matches only rules without `queries` (allow)
  // and every rule (deny), as an unnamed branch does.
  std::optional<std::string> query;
  // read, export, change: the node and edge types the call touches. Unset: not known, or every
  // type (a rule with `types` then allows nothing and denies everything it names: fail closed).
  // Set: each type is decided on its own and every one must be allowed; an empty set touches no
  // type (a rule with `types` allows it and denies nothing), which is also the pre-check a
  // writer makes before it knows its types: a request refused with no types is refused with any.
  std::optional<std::vector<std::string>> types;
};

struct Decision {
  bool allowed = false;
  std::string rule_id;  // The deciding rule; empty for a default deny.
  std::string reason;   // For people: why.
};

class Policy {
 public:
  // Parses and validates a bundle. InvalidArgument naming `file`, and the rule and key at fault
  // ("intel.policy.yaml: rule 'r1': key 'actions': unknown action 'write' ..."); a bundle with
  // any error yields no Policy at all.
  static Result<Policy> Parse(std::string_view source, std::string_view file,
                              const Binding& binding);

  Decision Decide(const Request& request) const;

  const std::string& file() const { return file_; }
  // "server" (server-scoped rules) or "graph".
  bool server_kind() const { return server_kind_; }
  const Binding& binding() const { return binding_; }
  const std::vector<Rule>& rules() const { return rules_; }
  const std::vector<std::pair<std::string, std::vector<std::string>>>& groups() const {
    return groups_;
  }
  const std::vector<std::string>& protected_branches() const { return protected_; }
  // Every actor id the bundle names (group members and ids), sorted, once each.
  std::vector<std::string> Actors() const;
  // Whether any rule names `types` (else a decision never depends on a request's types).
  bool HasTypedRules() const;
  bool IsProtected(std::string_view branch) const;

 private:
  friend class Parser;
  std::string file_;
  bool server_kind_ = false;
  Binding binding_;
  std::vector<std::pair<std::string, std::vector<std::string>>> groups_;
  std::vector<std::string> protected_;
  std::vector<Rule> rules_;
};

// Whether `name` matches the pattern `pattern` (`*` any run of characters, `{actor}` the actor).
bool MatchBranchPattern(std::string_view pattern, std::string_view name, std::string_view actor);

// One case of a policy test file (docs/design/policy.md "Test files").
struct TestCase {
  std::string id;
  Request request;
  bool expect_allow = false;
  std::optional<std::string> expect_rule;  // When set, the deciding rule must be this one.
};

// Parses a test file: {version: 1, cases: [{id, actor, action, branch?, target_branch?, graph?,
// query?, expect: allow|deny, rule?}]}. InvalidArgument naming the file, case and key.
Result<std::vector<TestCase>> ParseTests(std::string_view source, std::string_view file);

}  // namespace omnigraph::policy
