// policy validate | test | explain (docs/design/policy.md "CLI"): checks a policy bundle file
// and asks it questions, without a graph. The bundle is the global --policy FILE, bound by
// --applies-to (cluster, or graph ids separated by commas; default: unbound, its actions say its
// kind); explain's --graph (global) names the graph asked about.
//
//   validate                       parse and check; prints the rule, group and actor counts
//   test --tests FILE              runs the cases of a test file; exit 1 when any fails
//   explain --actor A --action X [--branch B] [--target-branch T] [--query Q] [--type T ...]
//                                  the decision, the deciding rule and why
//
// With --json each prints the public API's object (Policy::Summary, RunTests, Explain). A bad
// bundle or test file exits 1 with the error naming the file, rule and key.
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include "cli.h"
#include "omnigraph/policy.h"

namespace omnigraph::cli {
namespace {

struct PolicyOptions {
  std::string tests;
  std::string actor;
  std::string action;
  std::string branch;
  std::string target_branch;
  std::string query;
  std::vector<std::string> types;
};

api::PolicyBinding BindingOf(const std::string& applies_to) {
  api::PolicyBinding b;
  std::stringstream in(applies_to);
  std::string id;
  while (std::getline(in, id, ',')) {
    if (id == "cluster") {
      b.cluster = true;
    } else if (!id.empty()) {
      b.graphs.push_back(id);
    }
  }
  return b;
}

}  // namespace

Result<std::shared_ptr<const api::Policy>> Context::LoadPolicy() const {
  if (!g_.cluster.empty()) {
    if (!g_.policy.empty()) {
      return InvalidArgument("give the bundle one way: --policy FILE or --cluster DIR, not both");
    }
    OMNIGRAPH_ASSIGN_OR_RETURN(cluster::AppliedGraph graph, ClusterGraph());
    if (graph.policy_files.empty()) {
      return Status(Code::kNotFound,
                    "no policy bundle applies to graph " + graph.id + " in cluster " + g_.cluster);
    }
    return api::Policy::Parse(graph.policy_files.front(), "graph " + graph.id + "'s bundle",
                              api::PolicyBinding{false, {graph.id}});
  }
  if (g_.policy.empty()) return InvalidArgument("give the policy bundle with --policy FILE");
  OMNIGRAPH_ASSIGN_OR_RETURN(std::string text, ReadFile(g_.policy));
  return api::Policy::Parse(text, g_.policy, BindingOf(g_.applies_to));
}

namespace {

std::string Count(const Json& list, const char* what) {
  return std::to_string(list.size()) + " " + what + (list.size() == 1 ? "" : "s");
}

// "policy intel.policy.yaml is valid: graph bundle, 3 rules, 2 groups, 2 actors".
std::string SummaryText(const Json& s) {
  return "policy " + s["file"].string_value() + " is valid: " + s["kind"].string_value() +
         " bundle, " + Count(s["rules"], "rule") + ", " + Count(s["groups"], "group") + ", " +
         Count(s["actors"], "actor");
}

std::string DecisionText(const Json& d) {
  return d["decision"].string_value() + ": " + d["reason"].string_value();
}

std::string TestsText(const Json& r) {
  std::string text;
  for (const Json& c : r["cases"]) {
    const bool ok = c["ok"].get<bool>();
    text += (ok ? "PASS " : "FAIL ") + c["id"].string_value();
    if (!ok) {
      text += ": expected " + c["expect"].string_value();
      if (c.contains("expect_rule")) text += " by rule '" + c["expect_rule"].string_value() + "'";
      text += ", got " + c["decision"].string_value();
    }
    text += " (" + c["reason"].string_value() + ")\n";
  }
  return text + std::to_string(r["passed"].get<uint64_t>()) + " passed, " +
         std::to_string(r["failed"].get<uint64_t>()) + " failed";
}

void AddFileOptions(CLI::App* cmd, Context& ctx) {
  cmd->add_flag("--json", ctx.globals().json, "Print JSON");
  AddClusterTarget(cmd, ctx);
}

void AddValidate(CLI::App* policy, Context& ctx) {
  CLI::App* cmd = policy->add_subcommand("validate", "Parse and check a policy bundle");
  AddFileOptions(cmd, ctx);
  cmd->callback([&ctx] {
    Result<std::shared_ptr<const api::Policy>> p = ctx.LoadPolicy();
    if (!p.ok()) return ctx.Fail(p.status());
    Json s = (*p)->Summary();
    s["valid"] = true;
    ctx.Print(s, SummaryText(s));
  });
}

void AddTest(CLI::App* policy, Context& ctx, const std::shared_ptr<PolicyOptions>& o) {
  CLI::App* cmd = policy->add_subcommand("test", "Run a test file's cases against a bundle");
  AddFileOptions(cmd, ctx);
  cmd->add_option("--tests", o->tests, "The test file (YAML)")->required()->check(NonEmpty());
  cmd->callback([&ctx, o] {
    Result<std::shared_ptr<const api::Policy>> p = ctx.LoadPolicy();
    Result<std::string> tests = p.ok() ? ReadFile(o->tests) : p.status();
    Result<Json> r = tests.ok() ? (*p)->RunTests(*tests, o->tests) : tests.status();
    if (!r.ok()) return ctx.Fail(r.status());
    ctx.Print(*r, TestsText(*r));
    if ((*r)["failed"].get<uint64_t>() != 0) ctx.SetExit(kExitError);
  });
}

void AddExplain(CLI::App* policy, Context& ctx, const std::shared_ptr<PolicyOptions>& o) {
  CLI::App* cmd = policy->add_subcommand("explain", "Show the decision for one request and why");
  AddFileOptions(cmd, ctx);
  cmd->add_option("--actor", o->actor, "The actor id")->required()->check(NonEmpty());
  cmd->add_option("--action", o->action, "The action (read, change, branch_merge, ...)")
      ->required()
      ->check(NonEmpty());
  cmd->add_option("--branch", o->branch, "The source branch")->check(NonEmpty());
  cmd->add_option("--target-branch", o->target_branch, "The target branch")->check(NonEmpty());
  cmd->add_option("--query", o->query, "The stored query (invoke_query)")->check(NonEmpty());
  cmd->add_option("--type", o->types,
                  "A node or edge type the call touches (read, export, change; repeatable)")
      ->check(NonEmpty());
  cmd->callback([&ctx, o] {
    Result<std::shared_ptr<const api::Policy>> p = ctx.LoadPolicy();
    if (!p.ok()) return ctx.Fail(p.status());
    api::PolicyRequest q;
    q.actor = o->actor;
    q.action = o->action;
    if (!o->branch.empty()) q.branch = o->branch;
    if (!o->target_branch.empty()) q.target_branch = o->target_branch;
    if (!ctx.globals().graph.empty()) q.graph = ctx.globals().graph;
    if (!o->query.empty()) q.query = o->query;
    if (!o->types.empty()) q.types = o->types;
    const Json d = (*p)->Explain(q);
    ctx.Print(d, DecisionText(d));
  });
}

}  // namespace

void AddPolicyCommands(CLI::App& app, Context& ctx) {
  CLI::App* policy = app.add_subcommand("policy", "Check policy bundles: validate, test, explain");
  policy->require_subcommand(1);
  auto o = std::make_shared<PolicyOptions>();
  AddValidate(policy, ctx);
  AddTest(policy, ctx, o);
  AddExplain(policy, ctx, o);
}

}  // namespace omnigraph::cli
