// api::Policy (include/omnigraph/policy.h) over the policy layer (policy/policy.h).
#include "engine/api/api_values.h"
// After the engine's headers (base/status.h's macros first; see engine/api/api_local.cc).
#include "engine/api/api_policy.h"

namespace omnigraph::api {
namespace {

api::Json Strings(const std::vector<std::string>& values) {
  api::Json out = api::Json::array();
  for (const std::string& v : values) out.push_back(v);
  return out;
}

policy::Request ToRequest(const PolicyRequest& r, policy::Action action) {
  return policy::Request{r.actor, action, r.branch, r.target_branch, r.graph, r.query, r.types};
}

api::Json DecisionJson(const PolicyRequest& r, const PolicyDecision& d) {
  api::Json out = api::Json::object();
  out["actor"] = r.actor ? api::Json(*r.actor) : api::Json(nullptr);
  out["action"] = r.action;
  if (r.branch) out["branch"] = *r.branch;
  if (r.target_branch) out["target_branch"] = *r.target_branch;
  if (r.graph) out["graph"] = *r.graph;
  if (r.query) out["query"] = *r.query;
  if (r.types) out["types"] = Strings(*r.types);
  out["decision"] = d.allowed ? "allow" : "deny";
  out["rule"] = d.rule.empty() ? api::Json(nullptr) : api::Json(d.rule);
  out["reason"] = d.reason;
  return out;
}

}  // namespace

Policy::Policy(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Policy::~Policy() = default;

Result<std::shared_ptr<const Policy>> Policy::Parse(std::string_view source, std::string_view file,
                                                    const PolicyBinding& binding) {
  policy::Binding b;
  if (binding.cluster && !binding.graphs.empty()) {
    return InvalidArgument(std::string(file) +
                           ": a bundle applies to graphs or to cluster, never both");
  }
  if (binding.cluster) b = policy::Binding::Cluster();
  if (!binding.graphs.empty()) b = policy::Binding::Graphs(binding.graphs);
  ::omnigraph::Result<policy::Policy> parsed = policy::Policy::Parse(source, file, b);
  if (!parsed.ok()) return engine::ToApi(parsed.status());
  return std::shared_ptr<const Policy>(
      std::make_shared<Policy>(std::make_unique<Impl>(Impl{std::move(*parsed)})));
}

PolicyDecision Policy::Decide(const PolicyRequest& request) const {
  std::optional<policy::Action> action = policy::ActionFromName(request.action);
  if (!action) return {false, "", "unknown action '" + request.action + "'"};
  policy::Decision d = impl_->policy.Decide(ToRequest(request, *action));
  return {d.allowed, std::move(d.rule_id), std::move(d.reason)};
}

bool Policy::HasTypedRules() const { return impl_->policy.HasTypedRules(); }

Json Policy::Summary() const {
  const policy::Policy& p = impl_->policy;
  Json out = Json::object();
  out["file"] = p.file();
  out["kind"] = p.server_kind() ? "server" : "graph";
  const policy::Binding& b = p.binding();
  out["applies_to"] = b.kind == policy::Binding::Kind::kCluster  ? Strings({"cluster"})
                      : b.kind == policy::Binding::Kind::kGraphs ? Strings(b.graphs)
                                                                 : Json(nullptr);
  Json rules = Json::array();
  for (const policy::Rule& r : p.rules()) rules.push_back(r.id);
  out["rules"] = rules;
  Json groups = Json::object();
  for (const auto& [name, members] : p.groups()) groups[name] = Strings(members);
  out["groups"] = groups;
  out["actors"] = Strings(p.Actors());
  out["protected_branches"] = Strings(p.protected_branches());
  return out;
}

Json Policy::Explain(const PolicyRequest& request) const {
  return DecisionJson(request, Decide(request));
}

Result<Json> Policy::RunTests(std::string_view tests_source, std::string_view tests_file) const {
  ::omnigraph::Result<std::vector<policy::TestCase>> cases =
      policy::ParseTests(tests_source, tests_file);
  if (!cases.ok()) return engine::ToApi(cases.status());
  Json results = Json::array();
  uint64_t passed = 0;
  for (const policy::TestCase& c : *cases) {
    const policy::Decision d = impl_->policy.Decide(c.request);
    const bool ok = d.allowed == c.expect_allow && (!c.expect_rule || *c.expect_rule == d.rule_id);
    passed += ok ? 1 : 0;
    Json one = Json::object();
    one["id"] = c.id;
    one["expect"] = c.expect_allow ? "allow" : "deny";
    if (c.expect_rule) one["expect_rule"] = *c.expect_rule;
    if (c.request.types) one["types"] = Strings(*c.request.types);
    one["decision"] = d.allowed ? "allow" : "deny";
    one["rule"] = d.rule_id.empty() ? Json(nullptr) : Json(d.rule_id);
    one["reason"] = d.reason;
    one["ok"] = ok;
    results.push_back(std::move(one));
  }
  Json out = Json::object();
  out["file"] = std::string(tests_file);
  out["passed"] = passed;
  out["failed"] = static_cast<uint64_t>(cases->size()) - passed;
  out["cases"] = std::move(results);
  return out;
}

}  // namespace omnigraph::api
