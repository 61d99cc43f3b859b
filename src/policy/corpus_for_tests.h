// The policy test corpus (docs/design/policy.md "Tests"): every action × scope kind ×
// protected/unprotected branch × group membership × allow/deny, as bundles and requests with the
// expected decision, written out by hand-simple rules rather than by the engine's matcher. Pure
// standard library, so the decision-level test (policy_test) and the API gate test
// (api_policy_test, which sees the public API only) share it.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace omnigraph::policy_corpus {

struct Case {
  std::string name;    // For failure messages.
  std::string bundle;  // The bundle's YAML.
  std::string actor;
  std::string action;
  std::optional<std::string> branch;
  std::optional<std::string> target_branch;
  bool expect_allow = false;
};

struct ActionSpec {
  std::string name;
  const char* scope_key;  // branch_scope, target_branch_scope, or nullptr (takes none).
  bool server = false;
};

inline std::vector<ActionSpec> Actions() {
  return {{"read", "branch_scope"},
          {"export", "branch_scope"},
          {"change", "branch_scope"},
          {"schema_apply", "target_branch_scope"},
          {"branch_create", "target_branch_scope"},
          {"branch_delete", "target_branch_scope"},
          {"branch_merge", "target_branch_scope"},
          {"admin", nullptr},
          {"invoke_query", nullptr},
          {"graph_list", nullptr, true}};
}

// The scopes a rule may carry: none, the three kinds, and two patterns.
inline const std::vector<std::string>& Scopes() {
  static const std::vector<std::string> scopes = {"",        "any",      "protected", "unprotected",
                                                  "agent/*", "{actor}/*"};
  return scopes;
}

// Branches asked about: protected main, unprotected ones that match a pattern or not.
inline const std::vector<std::string>& Branches() {
  static const std::vector<std::string> branches = {"main", "agent/x", "act-member/wip", "feature"};
  return branches;
}

// Whether `scope` covers `branch` for actor `actor` (main alone is protected), by hand.
inline bool Covers(const std::string& scope, const std::string& branch, const std::string& actor) {
  if (scope.empty() || scope == "any") return true;
  if (scope == "protected") return branch == "main";
  if (scope == "unprotected") return branch != "main";
  if (scope == "agent/*") return branch.rfind("agent/", 0) == 0;
  return branch.rfind(actor + "/", 0) == 0;  // {actor}/*
}

inline std::string Bundle(const ActionSpec& a, const std::string& scope, bool deny) {
  std::string scope_line;
  if (!scope.empty()) scope_line = std::string("      ") + a.scope_key + ": \"" + scope + "\"\n";
  std::string out =
      "version: 1\ngroups:\n  team: [act-member]\n  everyone: [act-member, act-other]\n";
  if (!a.server) out += "protected_branches: [main]\n";
  out += "rules:\n";
  if (deny) {
    // Everyone is allowed everywhere; the team is denied within the scope.
    out +=
        "  - id: everyone-allowed\n    allow:\n      actors: { group: everyone }\n"
        "      actions: [" +
        a.name + "]\n";
    out += "  - id: team-denied\n    deny:\n      actors: { group: team }\n      actions: [" +
           a.name + "]\n" + scope_line;
  } else {
    out += "  - id: team-allowed\n    allow:\n      actors: { group: team }\n      actions: [" +
           a.name + "]\n" + scope_line;
  }
  return out;
}

inline std::vector<Case> Corpus() {
  std::vector<Case> out;
  for (const ActionSpec& a : Actions()) {
    for (const std::string& scope : Scopes()) {
      if (a.scope_key == nullptr && !scope.empty()) continue;  // Takes no scope.
      for (bool deny : {false, true}) {
        const std::string bundle = Bundle(a, scope, deny);
        for (const std::string& actor : {std::string("act-member"), std::string("act-other")}) {
          const bool member = actor == "act-member";
          for (const std::string& branch : Branches()) {
            if (a.scope_key == nullptr && branch != "main") continue;  // No branch to vary.
            Case c;
            c.name = a.name + " scope=" + (scope.empty() ? "(none)" : scope) +
                     (deny ? " deny" : " allow") + " actor=" + actor + " branch=" + branch;
            c.bundle = bundle;
            c.actor = actor;
            c.action = a.name;
            if (a.scope_key != nullptr && std::string(a.scope_key) == "branch_scope") {
              c.branch = branch;
            } else if (a.scope_key != nullptr) {
              c.branch = "feature";  // The source of a merge or create: never scoped.
              c.target_branch = branch;
            }
            const bool in_scope = member && Covers(scope, branch, actor);
            c.expect_allow = deny ? !in_scope : in_scope;
            out.push_back(std::move(c));
          }
        }
      }
    }
  }
  return out;
}

}  // namespace omnigraph::policy_corpus
