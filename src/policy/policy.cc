// Policy bundles: parsing with yaml-cpp, validation, and decisions (policy/policy.h).
#include "policy/policy.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <functional>
#include <set>
#include <utility>

namespace omnigraph::policy {

struct ActionInfo {
  Action action;
  std::string_view name;
};
constexpr ActionInfo kActionNames[] = {
    {Action::kRead, "read"},
    {Action::kExport, "export"},
    {Action::kChange, "change"},
    {Action::kSchemaApply, "schema_apply"},
    {Action::kBranchCreate, "branch_create"},
    {Action::kBranchDelete, "branch_delete"},
    {Action::kBranchMerge, "branch_merge"},
    {Action::kAdmin, "admin"},
    {Action::kInvokeQuery, "invoke_query"},
    {Action::kGraphList, "graph_list"},
};
constexpr std::string_view kActionList =
    "read, export, change, schema_apply, branch_create, branch_delete, branch_merge, admin, "
    "invoke_query, graph_list";

std::string_view ActionName(Action action) {
  for (const ActionInfo& a : kActionNames) {
    if (a.action == action) return a.name;
  }
  return "unknown";
}

std::optional<Action> ActionFromName(std::string_view name) {
  for (const ActionInfo& a : kActionNames) {
    if (a.name == name) return a.action;
  }
  return std::nullopt;
}

ScopeKind ScopeOf(Action action) {
  switch (action) {
    case Action::kRead:
    case Action::kExport:
    case Action::kChange: return ScopeKind::kBranch;
    case Action::kSchemaApply:
    case Action::kBranchCreate:
    case Action::kBranchDelete:
    case Action::kBranchMerge: return ScopeKind::kTargetBranch;
    case Action::kAdmin:
    case Action::kInvokeQuery:
    case Action::kGraphList: return ScopeKind::kNone;
  }
  return ScopeKind::kNone;
}

bool IsServerScoped(Action action) { return action == Action::kGraphList; }

bool MatchBranchPattern(std::string_view pattern, std::string_view name, std::string_view actor) {
  // Substitute {actor} first, then match `*` greedily with backtracking (iterative glob).
  std::string p;
  for (size_t i = 0; i < pattern.size();) {
    if (pattern.substr(i).starts_with("{actor}")) {
      p += actor;
      i += 7;
    } else {
      p += pattern[i++];
    }
  }
  size_t pi = 0, ni = 0, star = std::string::npos, mark = 0;
  while (ni < name.size()) {
    if (pi < p.size() && p[pi] == '*') {
      star = pi++;
      mark = ni;
    } else if (pi < p.size() && p[pi] == name[ni]) {
      ++pi;
      ++ni;
    } else if (star != std::string::npos) {
      pi = star + 1;
      ni = ++mark;
    } else {
      return false;
    }
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

// --- Parsing. Every check names the file, and the rule and key when there is one.

class Parser {
 public:
  Parser(std::string_view file, const Binding& binding) : file_(file), binding_(binding) {}
  Result<Policy> Run(std::string_view source);

 private:
  Status Error(const std::string& where, const std::string& message) const {
    return InvalidArgument(file_ + ": " + (where.empty() ? "" : where + ": ") + message, file_);
  }
  Status Top(const YAML::Node& root);
  Status Groups(const YAML::Node& node);
  Status Protected(const YAML::Node& node);
  Status Rules(const YAML::Node& node);
  Status OneRule(const YAML::Node& node, size_t index);
  Status RuleBody(const YAML::Node& body, Rule& rule, const std::string& rule_where);
  Status Actors(const YAML::Node& node, Rule& rule, const std::string& where);
  Status Actions(const YAML::Node& node, Rule& rule, const std::string& where);
  Status Queries(const YAML::Node& node, Rule& rule, const std::string& where);
  Status Types(const YAML::Node& node, Rule& rule, const std::string& where);
  Result<Scope> ParseScope(const YAML::Node& node, const std::string& where);
  Status CheckScopes(const Rule& rule, const std::string& where, const std::string& block) const;
  Status CheckKind();

  std::string file_;
  Binding binding_;
  Policy out_;
  std::optional<std::string> declared_kind_;
};

namespace {

std::string Quote(std::string_view s) { return "'" + std::string(s) + "'"; }

std::string TypeName(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Null: return "null";
    case YAML::NodeType::Scalar: return "a scalar";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Map: return "a mapping";
    default: return "nothing";
  }
}

// The keys of a mapping, refusing duplicates and keys not in `allowed`.
Status CheckKeys(const YAML::Node& map, std::initializer_list<std::string_view> allowed,
                 const std::function<Status(const std::string&, const std::string&)>& error,
                 const std::string& where) {
  std::set<std::string> seen;
  for (const auto& kv : map) {
    if (!kv.first.IsScalar()) return error(where, "a key must be a plain name");
    const std::string key = kv.first.Scalar();
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      std::string expected;
      for (std::string_view a : allowed)
        expected += (expected.empty() ? "" : ", ") + std::string(a);
      return error(where, "unknown key " + Quote(key) + " (expected one of: " + expected + ")");
    }
    if (!seen.insert(key).second) return error(where, "key " + Quote(key) + " appears twice");
  }
  return Status::Ok();
}

// A list of non-empty strings, or one string when `one_ok`.
Result<std::vector<std::string>> Strings(const YAML::Node& n, bool one_ok) {
  std::vector<std::string> out;
  if (one_ok && n.IsScalar()) {
    out.push_back(n.Scalar());
  } else if (n.IsSequence()) {
    for (const YAML::Node& item : n) {
      if (!item.IsScalar()) return InvalidArgument("must list names, found " + TypeName(item));
      out.push_back(item.Scalar());
    }
  } else {
    return InvalidArgument(std::string("must be ") + (one_ok ? "a name or " : "") +
                           "a list of names, found " + TypeName(n));
  }
  for (const std::string& s : out) {
    if (s.empty()) return InvalidArgument("names an empty string");
  }
  return out;
}

}  // namespace

Result<Policy> Parser::Run(std::string_view source) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(source));
  } catch (const YAML::Exception& e) {
    return InvalidArgument(file_ + ":" + std::to_string(e.mark.line + 1) + ":" +
                               std::to_string(e.mark.column + 1) + ": malformed YAML: " + e.msg,
                           file_);
  }
  try {
    OMNIGRAPH_RETURN_IF_ERROR(Top(root));
  } catch (const YAML::Exception& e) {
    return Error("", std::string("unreadable policy: ") + e.what());
  }
  out_.file_ = file_;
  out_.binding_ = binding_;
  return std::move(out_);
}

Status Parser::Top(const YAML::Node& root) {
  if (!root.IsMap()) return Error("", "a policy bundle must be a mapping, found " + TypeName(root));
  auto error = [this](const std::string& w, const std::string& m) { return Error(w, m); };
  OMNIGRAPH_RETURN_IF_ERROR(
      CheckKeys(root, {"version", "kind", "groups", "protected_branches", "rules"}, error, ""));
  const YAML::Node version = root["version"];
  if (!version) return Error("key 'version'", "is required (version: 1)");
  if (!version.IsScalar() || version.Scalar() != "1") {
    return Error(
        "key 'version'",
        "must be 1, found " + (version.IsScalar() ? Quote(version.Scalar()) : TypeName(version)));
  }
  if (const YAML::Node kind = root["kind"]) {
    if (!kind.IsScalar() || (kind.Scalar() != "server" && kind.Scalar() != "graph")) {
      return Error("key 'kind'", "must be server or graph");
    }
    declared_kind_ = kind.Scalar();
  }
  if (root["groups"]) OMNIGRAPH_RETURN_IF_ERROR(Groups(root["groups"]));
  if (root["protected_branches"]) OMNIGRAPH_RETURN_IF_ERROR(Protected(root["protected_branches"]));
  if (root["rules"]) OMNIGRAPH_RETURN_IF_ERROR(Rules(root["rules"]));
  return CheckKind();
}

Status Parser::Groups(const YAML::Node& node) {
  if (!node.IsMap())
    return Error("key 'groups'", "must be a mapping of group names to actor lists");
  std::set<std::string> seen;
  for (const auto& kv : node) {
    if (!kv.first.IsScalar() || kv.first.Scalar().empty()) {
      return Error("key 'groups'", "a group name must be a non-empty name");
    }
    const std::string name = kv.first.Scalar();
    const std::string where = "group " + Quote(name);
    if (!seen.insert(name).second) return Error(where, "appears twice");
    Result<std::vector<std::string>> members = Strings(kv.second, false);
    if (!members.ok()) return Error(where, members.status().message());
    out_.groups_.emplace_back(name, std::move(*members));
  }
  return Status::Ok();
}

Status Parser::Protected(const YAML::Node& node) {
  Result<std::vector<std::string>> names = Strings(node, false);
  if (!names.ok()) return Error("key 'protected_branches'", names.status().message());
  out_.protected_ = std::move(*names);
  return Status::Ok();
}

Status Parser::Rules(const YAML::Node& node) {
  if (!node.IsSequence()) return Error("key 'rules'", "must be a list, found " + TypeName(node));
  for (size_t i = 0; i < node.size(); ++i) OMNIGRAPH_RETURN_IF_ERROR(OneRule(node[i], i));
  return Status::Ok();
}

Status Parser::OneRule(const YAML::Node& node, size_t index) {
  std::string where = "rule " + std::to_string(index + 1);
  if (!node.IsMap()) return Error(where, "must be a mapping, found " + TypeName(node));
  Rule rule;
  const YAML::Node id = node["id"];
  if (!id || !id.IsScalar() || id.Scalar().empty()) return Error(where, "key 'id': is required");
  rule.id = id.Scalar();
  where = "rule " + Quote(rule.id);
  for (const Rule& r : out_.rules_) {
    if (r.id == rule.id) return Error(where, "key 'id': two rules have this id");
  }
  auto error = [this](const std::string& w, const std::string& m) { return Error(w, m); };
  OMNIGRAPH_RETURN_IF_ERROR(CheckKeys(node, {"id", "allow", "deny"}, error, where));
  const YAML::Node allow = node["allow"];
  const YAML::Node deny = node["deny"];
  if (static_cast<bool>(allow) == static_cast<bool>(deny)) {
    return Error(where, "needs exactly one of the keys 'allow' and 'deny'");
  }
  rule.deny = static_cast<bool>(deny);
  OMNIGRAPH_RETURN_IF_ERROR(RuleBody(rule.deny ? deny : allow, rule, where));
  out_.rules_.push_back(std::move(rule));
  return Status::Ok();
}

Status Parser::RuleBody(const YAML::Node& body, Rule& rule, const std::string& rule_where) {
  const std::string block = rule.deny ? "deny" : "allow";
  auto key = [&](std::string_view k) {
    return rule_where + ": key '" + block + "." + std::string(k) + "'";
  };
  const std::string where = rule_where + ": key '" + block + "'";
  if (!body.IsMap()) return Error(where, "must be a mapping, found " + TypeName(body));
  auto error = [this](const std::string& w, const std::string& m) { return Error(w, m); };
  OMNIGRAPH_RETURN_IF_ERROR(CheckKeys(
      body, {"actors", "actions", "branch_scope", "target_branch_scope", "queries", "types"}, error,
      where));
  if (!body["actors"]) return Error(key("actors"), "is required");
  if (!body["actions"]) return Error(key("actions"), "is required");
  OMNIGRAPH_RETURN_IF_ERROR(Actors(body["actors"], rule, key("actors")));
  OMNIGRAPH_RETURN_IF_ERROR(Actions(body["actions"], rule, key("actions")));
  if (const YAML::Node s = body["branch_scope"]) {
    OMNIGRAPH_ASSIGN_OR_RETURN(rule.branch_scope, ParseScope(s, key("branch_scope")));
  }
  if (const YAML::Node s = body["target_branch_scope"]) {
    OMNIGRAPH_ASSIGN_OR_RETURN(rule.target_branch_scope, ParseScope(s, key("target_branch_scope")));
  }
  if (const YAML::Node q = body["queries"])
    OMNIGRAPH_RETURN_IF_ERROR(Queries(q, rule, key("queries")));
  if (const YAML::Node t = body["types"]) OMNIGRAPH_RETURN_IF_ERROR(Types(t, rule, key("types")));
  return CheckScopes(rule, rule_where, block);
}

Status Parser::Queries(const YAML::Node& node, Rule& rule, const std::string& where) {
  Result<std::vector<std::string>> names = Strings(node, false);
  if (!names.ok()) return Error(where, names.status().message());
  if (names->empty()) return Error(where, "names no query (leave the key out for every query)");
  for (Action a : rule.actions) {
    if (a != Action::kInvokeQuery) {
      return Error(where, "only invoke_query takes queries, and the rule also grants " +
                              Quote(ActionName(a)));
    }
  }
  rule.queries = std::move(*names);
  return Status::Ok();
}

Status Parser::Types(const YAML::Node& node, Rule& rule, const std::string& where) {
  Result<std::vector<std::string>> names = Strings(node, false);
  if (!names.ok()) return Error(where, names.status().message());
  if (names->empty()) return Error(where, "names no type (leave the key out for every type)");
  for (Action a : rule.actions) {
    if (a != Action::kRead && a != Action::kExport && a != Action::kChange) {
      return Error(where, "only read, export and change take types, and the rule also grants " +
                              Quote(ActionName(a)));
    }
  }
  rule.types = std::move(*names);
  return Status::Ok();
}

Status Parser::Actors(const YAML::Node& node, Rule& rule, const std::string& where) {
  if (!node.IsMap()) {
    return Error(where, "must be a mapping such as { group: NAME } or { id: ACTOR }, found " +
                            TypeName(node));
  }
  auto error = [this](const std::string& w, const std::string& m) { return Error(w, m); };
  OMNIGRAPH_RETURN_IF_ERROR(CheckKeys(node, {"group", "id"}, error, where));
  if (const YAML::Node g = node["group"]) {
    Result<std::vector<std::string>> groups = Strings(g, true);
    if (!groups.ok()) return Error(where + ": key 'group'", groups.status().message());
    for (const std::string& name : *groups) {
      const bool known = std::any_of(out_.groups_.begin(), out_.groups_.end(),
                                     [&](const auto& kv) { return kv.first == name; });
      if (!known) return Error(where + ": key 'group'", "unknown group " + Quote(name));
    }
    rule.groups = std::move(*groups);
  }
  if (const YAML::Node i = node["id"]) {
    Result<std::vector<std::string>> ids = Strings(i, true);
    if (!ids.ok()) return Error(where + ": key 'id'", ids.status().message());
    rule.actor_ids = std::move(*ids);
  }
  if (rule.groups.empty() && rule.actor_ids.empty()) {
    return Error(where, "names no actor (give a group or an id)");
  }
  return Status::Ok();
}

Status Parser::Actions(const YAML::Node& node, Rule& rule, const std::string& where) {
  Result<std::vector<std::string>> names = Strings(node, false);
  if (!names.ok()) return Error(where, names.status().message());
  if (names->empty()) return Error(where, "names no action");
  for (const std::string& name : *names) {
    std::optional<Action> a = ActionFromName(name);
    if (!a) {
      return Error(where, "unknown action " + Quote(name) +
                              " (expected one of: " + std::string(kActionList) + ")");
    }
    if (std::find(rule.actions.begin(), rule.actions.end(), *a) == rule.actions.end()) {
      rule.actions.push_back(*a);
    }
  }
  return Status::Ok();
}

Result<Scope> Parser::ParseScope(const YAML::Node& node, const std::string& where) {
  if (!node.IsScalar() || node.Scalar().empty()) {
    return Error(
        where, "must be any, protected, unprotected or a branch pattern, found " + TypeName(node));
  }
  Scope scope;
  scope.text = node.Scalar();
  if (scope.text == "any") return scope;
  if (scope.text == "protected") return Scope{Scope::Kind::kProtected, scope.text};
  if (scope.text == "unprotected") return Scope{Scope::Kind::kUnprotected, scope.text};
  for (size_t i = 0; i < scope.text.size(); ++i) {
    const char c = scope.text[i];
    if (c == '{' && !scope.text.substr(i).starts_with("{actor}")) {
      return Error(where, "pattern " + Quote(scope.text) + ": the only placeholder is {actor}");
    }
    if (c == '}' && (i < 6 || scope.text.substr(i - 6, 7) != "{actor}")) {
      return Error(where, "pattern " + Quote(scope.text) + ": unmatched '}'");
    }
    if (static_cast<unsigned char>(c) <= ' ') {
      return Error(where, "pattern " + Quote(scope.text) + " holds a space or control character");
    }
  }
  return Scope{Scope::Kind::kPattern, scope.text};
}

Status Parser::CheckScopes(const Rule& rule, const std::string& where,
                           const std::string& block) const {
  if (rule.branch_scope && rule.target_branch_scope) {
    return Error(where + ": key '" + block + "'",
                 "a rule may use at most one of branch_scope and target_branch_scope");
  }
  for (Action a : rule.actions) {
    const ScopeKind kind = ScopeOf(a);
    const std::string name(ActionName(a));
    if (kind == ScopeKind::kNone && (rule.branch_scope || rule.target_branch_scope)) {
      return Error(where + ": key '" + block + "." +
                       (rule.branch_scope ? "branch_scope" : "target_branch_scope") + "'",
                   "action " + Quote(name) + " takes no branch scope (" +
                       (IsServerScoped(a) ? "it is server-scoped" : "it is graph-scoped") + ")");
    }
    if (kind == ScopeKind::kTargetBranch && rule.branch_scope) {
      return Error(
          where + ": key '" + block + ".branch_scope'",
          "action " + Quote(name) + " is scoped by its target branch: use target_branch_scope");
    }
    if (kind == ScopeKind::kBranch && rule.target_branch_scope) {
      return Error(where + ": key '" + block + ".target_branch_scope'",
                   "action " + Quote(name) + " is scoped by its source branch: use branch_scope");
    }
  }
  return Status::Ok();
}

Status Parser::CheckKind() {
  const Rule* server_rule = nullptr;
  const Rule* graph_rule = nullptr;
  for (const Rule& r : out_.rules_) {
    for (Action a : r.actions) (IsServerScoped(a) ? server_rule : graph_rule) = &r;
  }
  if (server_rule && graph_rule) {
    return Error(
        "rule " + Quote(server_rule->id) + ": key 'actions'",
        "a bundle cannot mix server-scoped actions (graph_list) with per-graph ones (rule " +
            Quote(graph_rule->id) + "); split them into two bundles");
  }
  bool server = server_rule != nullptr;
  if (declared_kind_) {
    const bool declared_server = *declared_kind_ == "server";
    if (declared_server != server && (server_rule || graph_rule)) {
      return Error("key 'kind'", "says " + *declared_kind_ + " but rule " +
                                     Quote((server_rule ? server_rule : graph_rule)->id) +
                                     " grants " + (server ? "server-scoped" : "per-graph") +
                                     " actions");
    }
    server = declared_server;
  }
  if (binding_.kind == Binding::Kind::kCluster) {
    if (graph_rule) {
      return Error("rule " + Quote(graph_rule->id) + ": key 'actions'",
                   "the bundle applies to cluster, which takes only server-scoped actions "
                   "(graph_list)");
    }
    server = true;
  } else if (binding_.kind == Binding::Kind::kGraphs) {
    if (server_rule || (declared_kind_ && *declared_kind_ == "server")) {
      return Error(
          server_rule ? "rule " + Quote(server_rule->id) + ": key 'actions'" : "key 'kind'",
          "the bundle applies to graphs, which take only per-graph actions; bind "
          "server-scoped rules to cluster");
    }
    if (binding_.graphs.empty()) return Error("", "the bundle applies to no graph");
    server = false;
  }
  out_.server_kind_ = server;
  return Status::Ok();
}

Result<Policy> Policy::Parse(std::string_view source, std::string_view file,
                             const Binding& binding) {
  if (binding.kind == Binding::Kind::kCluster && !binding.graphs.empty()) {
    return InvalidArgument(std::string(file) +
                           ": a bundle applies to graphs or to cluster, never both");
  }
  return Parser(file, binding).Run(source);
}

// --- Decisions.

std::vector<std::string> Policy::Actors() const {
  std::set<std::string> all;
  for (const auto& [name, members] : groups_) all.insert(members.begin(), members.end());
  for (const Rule& r : rules_) all.insert(r.actor_ids.begin(), r.actor_ids.end());
  return {all.begin(), all.end()};
}

bool Policy::IsProtected(std::string_view branch) const {
  return std::any_of(protected_.begin(), protected_.end(),
                     [&](const std::string& p) { return MatchBranchPattern(p, branch, ""); });
}

namespace {

bool InGroup(const Policy& p, const std::string& group, const std::string& actor) {
  for (const auto& [name, members] : p.groups()) {
    if (name == group) return std::find(members.begin(), members.end(), actor) != members.end();
  }
  return false;
}

bool ActorMatches(const Policy& p, const Rule& r, const std::string& actor) {
  if (std::find(r.actor_ids.begin(), r.actor_ids.end(), actor) != r.actor_ids.end()) return true;
  return std::any_of(r.groups.begin(), r.groups.end(),
                     [&](const std::string& g) { return InGroup(p, g, actor); });
}

// Whether `scope` covers `branch`. An unknown branch is covered by `any` alone for an allow and
// by every scope for a deny (fail closed either way).
bool ScopeMatches(const Policy& p, const std::optional<Scope>& scope,
                  const std::optional<std::string>& branch, const std::string& actor, bool deny) {
  if (!scope || scope->kind == Scope::Kind::kAny) return true;
  if (!branch) return deny;
  switch (scope->kind) {
    case Scope::Kind::kProtected: return p.IsProtected(*branch);
    case Scope::Kind::kUnprotected: return !p.IsProtected(*branch);
    case Scope::Kind::kPattern: return MatchBranchPattern(scope->text, *branch, actor);
    case Scope::Kind::kAny: return true;
  }
  return false;
}

// Whether the rule's `queries` cover the request's stored query (an unnamed one: as for
// branches, only a rule without `queries` for an allow, every rule for a deny).
bool QueryMatches(const Rule& r, const Request& q) {
  if (r.queries.empty()) return true;
  if (!q.query) return r.deny;
  return std::find(r.queries.begin(), r.queries.end(), *q.query) != r.queries.end();
}

// Whether the rule's `types` cover the request's (one type, or none, or unknown: Decide splits
// a set). Unknown types: only a rule without `types` for an allow, every rule for a deny; no
// types: every rule for an allow, only a rule without `types` for a deny.
bool TypesMatch(const Rule& r, const Request& q) {
  if (r.types.empty()) return true;
  if (!q.types) return r.deny;
  if (q.types->empty()) return !r.deny;
  return std::find(r.types.begin(), r.types.end(), q.types->front()) != r.types.end();
}

bool RuleMatches(const Policy& p, const Rule& r, const Request& q) {
  if (std::find(r.actions.begin(), r.actions.end(), q.action) == r.actions.end()) return false;
  if (!ActorMatches(p, r, *q.actor)) return false;
  if (!QueryMatches(r, q)) return false;
  if (!TypesMatch(r, q)) return false;
  switch (ScopeOf(q.action)) {
    case ScopeKind::kBranch: return ScopeMatches(p, r.branch_scope, q.branch, *q.actor, r.deny);
    case ScopeKind::kTargetBranch:
      return ScopeMatches(p, r.target_branch_scope, q.target_branch, *q.actor, r.deny);
    case ScopeKind::kNone: return true;
  }
  return false;
}

std::string Describe(const Request& q) {
  std::string out = Quote(ActionName(q.action));
  if (ScopeOf(q.action) == ScopeKind::kBranch) {
    out += q.branch ? " on branch " + Quote(*q.branch) : " on an unnamed branch";
  } else if (ScopeOf(q.action) == ScopeKind::kTargetBranch) {
    out += q.target_branch ? " into branch " + Quote(*q.target_branch) : " into an unnamed branch";
  } else if (q.action == Action::kInvokeQuery && q.query) {
    out += " of query " + Quote(*q.query);
  }
  if (q.types && q.types->size() == 1) out += " of type " + Quote(q.types->front());
  return out;
}

}  // namespace

bool Policy::HasTypedRules() const {
  return std::any_of(rules_.begin(), rules_.end(), [](const Rule& r) { return !r.types.empty(); });
}

Decision Policy::Decide(const Request& q) const {
  if (!q.actor || q.actor->empty()) {
    return {false, "", "no actor: a policy is installed, so every request needs one (fail closed)"};
  }
  if (IsServerScoped(q.action) != server_kind_) {
    return {false, "",
            std::string("this bundle governs ") +
                (server_kind_ ? "the server (cluster)" : "graphs") + "; " +
                Quote(ActionName(q.action)) + " is decided by a " +
                (server_kind_ ? "graph" : "cluster") + "-bound bundle"};
  }
  if (q.graph && binding_.kind == Binding::Kind::kGraphs &&
      std::find(binding_.graphs.begin(), binding_.graphs.end(), *q.graph) ==
          binding_.graphs.end()) {
    return {false, "", "this bundle does not apply to graph " + Quote(*q.graph)};
  }
  if (q.types && q.types->size() > 1) {
    // Each type on its own; the first refused type decides, else the last type's allow.
    Decision last;
    for (const std::string& type : *q.types) {
      Request one = q;
      one.types = std::vector<std::string>{type};
      last = Decide(one);
      if (!last.allowed) return last;
    }
    return last;
  }
  const Rule* allow = nullptr;
  for (const Rule& r : rules_) {
    if (!RuleMatches(*this, r, q)) continue;
    if (r.deny) {
      return {false, r.id,
              "rule " + Quote(r.id) + " denies " + Quote(*q.actor) + " " + Describe(q) +
                  " (an explicit deny wins over any allow)"};
    }
    if (allow == nullptr) allow = &r;
  }
  if (allow != nullptr) {
    return {true, allow->id,
            "rule " + Quote(allow->id) + " allows " + Quote(*q.actor) + " " + Describe(q)};
  }
  return {false, "", "no rule allows " + Quote(*q.actor) + " " + Describe(q) + " (default deny)"};
}

}  // namespace omnigraph::policy
