// Policy test files (policy/policy.h ParseTests; docs/design/policy.md "Test files").
#include <yaml-cpp/yaml.h>

#include <set>

#include "policy/policy.h"

namespace omnigraph::policy {
namespace {

std::string Quote(std::string_view s) { return "'" + std::string(s) + "'"; }

class TestParser {
 public:
  explicit TestParser(std::string_view file) : file_(file) {}

  Status Error(const std::string& where, const std::string& message) const {
    return InvalidArgument(file_ + ": " + (where.empty() ? "" : where + ": ") + message, file_);
  }

  Result<std::vector<TestCase>> Top(const YAML::Node& root) {
    if (!root.IsMap()) return Error("", "a policy test file must be a mapping");
    for (const auto& kv : root) {
      const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "";
      if (key != "version" && key != "cases") {
        return Error("", "unknown key " + Quote(key) + " (expected one of: version, cases)");
      }
    }
    const YAML::Node version = root["version"];
    if (!version || !version.IsScalar() || version.Scalar() != "1") {
      return Error("key 'version'", "must be 1");
    }
    const YAML::Node cases = root["cases"];
    if (!cases || !cases.IsSequence()) return Error("key 'cases'", "must be a list of cases");
    std::vector<TestCase> out;
    std::set<std::string> ids;
    for (size_t i = 0; i < cases.size(); ++i) {
      OMNIGRAPH_ASSIGN_OR_RETURN(TestCase c, Case(cases[i], i));
      if (!ids.insert(c.id).second) return Error("case " + Quote(c.id), "two cases have this id");
      out.push_back(std::move(c));
    }
    return out;
  }

 private:
  // The string under `key`, when present; an error when it is not a non-empty scalar.
  Result<std::optional<std::string>> Text(const YAML::Node& node, const char* key,
                                          const std::string& where) {
    const YAML::Node v = node[key];
    if (!v) return std::optional<std::string>();
    if (!v.IsScalar() || v.Scalar().empty()) {
      return Error(where + ": key " + Quote(key), "must be a non-empty string");
    }
    return std::optional<std::string>(v.Scalar());
  }

  // The case's `types` (the types the call touches), when present: a list of type names.
  Result<std::optional<std::vector<std::string>>> TypeList(const YAML::Node& node,
                                                           const std::string& where) {
    const YAML::Node v = node["types"];
    if (!v) return std::optional<std::vector<std::string>>();
    if (!v.IsSequence()) return Error(where + ": key 'types'", "must be a list of type names");
    std::vector<std::string> out;
    for (const YAML::Node& t : v) {
      if (!t.IsScalar() || t.Scalar().empty()) {
        return Error(where + ": key 'types'", "must be a list of type names");
      }
      out.push_back(t.Scalar());
    }
    return std::optional<std::vector<std::string>>(std::move(out));
  }

  Result<TestCase> Case(const YAML::Node& node, size_t index) {
    std::string where = "case " + std::to_string(index + 1);
    if (!node.IsMap()) return Error(where, "must be a mapping");
    for (const auto& kv : node) {
      static const std::set<std::string> kKeys = {
          "id",    "actor", "action", "branch", "target_branch",
          "graph", "query", "types",  "expect", "rule"};
      const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "";
      if (!kKeys.contains(key)) {
        return Error(where, "unknown key " + Quote(key) +
                                " (expected one of: id, actor, action, branch, target_branch, "
                                "graph, query, types, expect, rule)");
      }
    }
    TestCase c;
    OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<std::string> id, Text(node, "id", where));
    if (!id) return Error(where, "key 'id' is required");
    c.id = *id;
    where = "case " + Quote(c.id);
    OMNIGRAPH_ASSIGN_OR_RETURN(c.request.actor, Text(node, "actor", where));
    OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<std::string> action, Text(node, "action", where));
    if (!action) return Error(where, "key 'action' is required");
    std::optional<Action> a = ActionFromName(*action);
    if (!a) return Error(where + ": key 'action'", "unknown action " + Quote(*action));
    c.request.action = *a;
    OMNIGRAPH_ASSIGN_OR_RETURN(c.request.branch, Text(node, "branch", where));
    OMNIGRAPH_ASSIGN_OR_RETURN(c.request.target_branch, Text(node, "target_branch", where));
    OMNIGRAPH_ASSIGN_OR_RETURN(c.request.graph, Text(node, "graph", where));
    OMNIGRAPH_ASSIGN_OR_RETURN(c.request.query, Text(node, "query", where));
    OMNIGRAPH_ASSIGN_OR_RETURN(c.request.types, TypeList(node, where));
    OMNIGRAPH_ASSIGN_OR_RETURN(c.expect_rule, Text(node, "rule", where));
    OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<std::string> expect, Text(node, "expect", where));
    if (!expect || (*expect != "allow" && *expect != "deny")) {
      return Error(where + ": key 'expect'", "must be allow or deny");
    }
    c.expect_allow = *expect == "allow";
    return c;
  }

  std::string file_;
};

}  // namespace

Result<std::vector<TestCase>> ParseTests(std::string_view source, std::string_view file) {
  TestParser parser(file);
  try {
    const YAML::Node root = YAML::Load(std::string(source));
    return parser.Top(root);
  } catch (const YAML::Exception& e) {
    return InvalidArgument(std::string(file) + ":" + std::to_string(e.mark.line + 1) + ":" +
                               std::to_string(e.mark.column + 1) + ": malformed YAML: " + e.msg,
                           std::string(file));
  }
}

}  // namespace omnigraph::policy
