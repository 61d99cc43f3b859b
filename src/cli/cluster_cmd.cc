// cluster validate|import|plan|apply|approve RESOURCE|status|refresh|force-unlock LOCK_ID
// [--config DIR] [--as ACTOR] [--json] · graphs list --cluster DIR|URI [--json]
// (docs/design/cluster.md; include/omnigraph/cluster.h does the work). Exit status: 0 ok (a
// partially applied plan too: `converged` says whether it is done), 1 error.
#include <cstdlib>
#include <memory>
#include <string>

#include "cli.h"
#include "omnigraph/cluster.h"

namespace omnigraph::cli {
namespace {

struct ClusterOptions {
  std::string config = ".";
  std::string resource;
  std::string lock_id;
  std::string cluster;
};

std::string Str(const Json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

// "  Create graph.spike [applied]" lines, with schema migration steps and the summary.
std::string ChangesText(const Json& out) {
  std::string text;
  const Json& changes = out["changes"];
  for (size_t i = 0; i < changes.size(); ++i) {
    const Json& c = changes[i];
    std::string action = Str(c, "action");
    if (!action.empty()) action[0] = static_cast<char>(action[0] - 'a' + 'A');
    text += "  " + action + " " + Str(c, "resource") + " [" + Str(c, "disposition");
    if (c.contains("metadata_change")) text += ", bindings";
    text += "]";
    if (c.contains("reason")) text += "  " + Str(c, "reason");
    text += "\n";
    if (c.contains("migration")) {
      const Json& steps = c["migration"]["steps"];
      for (size_t s = 0; s < steps.size(); ++s) text += "      " + steps[s].dump() + "\n";
    }
  }
  const Json& w = out["warnings"];
  for (size_t i = 0; i < w.size(); ++i) {
    text += "warning: " + Str(w[i], "code") + ": " + Str(w[i], "message") + "\n";
  }
  if (changes.size() == 0) text += "  no changes\n";
  return text;
}

std::string HumanText(const std::string& verb, const Json& out) {
  if (verb == "validate") {
    return "cluster validate: " + Str(out, "cluster") + " is valid (" +
           std::to_string(out["graphs"].size()) + " graphs, " +
           std::to_string(out["queries"].size()) + " queries, " +
           std::to_string(out["policies"].size()) + " policies)";
  }
  if (verb == "plan") {
    const Json& s = out["summary"];
    return "cluster plan: " + Str(out, "cluster") + " (state revision " +
           out["state_revision"].dump() + ")\n" + ChangesText(out) + "Plan: " + s["create"].dump() +
           " to create, " + s["update"].dump() + " to update, " + s["delete"].dump() +
           " to delete.";
  }
  if (verb == "apply") {
    return "cluster apply: " + Str(out, "cluster") + "\n" + ChangesText(out) +
           "converged: " + out["converged"].dump() +
           ", state_written: " + out["state_written"].dump() + ", state revision " +
           out["state_revision"].dump();
  }
  if (verb == "approve") {
    const Json& a = out["approval"];
    return "cluster approve: delete " + Str(a, "resource") + " approved by " +
           Str(a, "approved_by") + " (approval " + Str(a, "approval_id") + ")";
  }
  if (verb == "force-unlock") return "cluster force-unlock: removed lock " + Str(out, "lock_id");
  if (verb == "import") return "cluster import: state ledger created\n" + out.dump(2);
  return "";  // status, refresh: the JSON
}

void AddVerb(CLI::App* cluster, Context& ctx, const std::shared_ptr<ClusterOptions>& o,
             const std::string& verb, const std::string& help) {
  CLI::App* sub = cluster->add_subcommand(verb, help);
  sub->add_option("--config", o->config, "The cluster's config directory (holds cluster.yaml)")
      ->check(NonEmpty());
  sub->add_flag("--json", ctx.globals().json, "Print the JSON report");
  if (verb == "approve") {
    sub->add_option("resource", o->resource, "The resource to approve (graph.<id>)")->required();
  }
  if (verb == "force-unlock") {
    sub->add_option("lock_id", o->lock_id, "The held lock's id (cluster status)")->required();
  }
  sub->callback([&ctx, o, verb] {
    cluster::Options opts;
    opts.config_dir = o->config;
    opts.actor = ctx.Actor();
    if (opts.actor.empty()) {
      if (const char* env = std::getenv("OMNIGRAPH_ACTOR"); env != nullptr) opts.actor = env;
    }
    Result<Json> out = verb == "validate"  ? cluster::Validate(opts)
                       : verb == "import"  ? cluster::Import(opts)
                       : verb == "plan"    ? cluster::Plan(opts)
                       : verb == "apply"   ? cluster::Apply(opts)
                       : verb == "approve" ? cluster::Approve(opts, o->resource)
                       : verb == "status"  ? cluster::StatusReport(opts)
                       : verb == "refresh" ? cluster::Refresh(opts)
                                           : cluster::ForceUnlock(opts, o->lock_id);
    if (!out.ok()) {
      ctx.Fail(out.status());
      return;
    }
    ctx.Print(*out, HumanText(verb, *out));
  });
}

void AddGraphsList(CLI::App& app, Context& ctx, const std::shared_ptr<ClusterOptions>& o) {
  CLI::App* graphs = app.add_subcommand("graphs", "The graphs of a cluster");
  graphs->require_subcommand(1);
  CLI::App* list = graphs->add_subcommand("list", "List the graphs a cluster has applied");
  list->add_option("--cluster", o->cluster, "The cluster's config directory or storage root URI")
      ->required()
      ->check(NonEmpty());
  list->add_flag("--json", ctx.globals().json, "Print the JSON list");
  list->callback([&ctx, o] {
    api::Result<cluster::AppliedCluster> applied = cluster::ReadApplied(o->cluster);
    if (!applied.ok()) {
      ctx.Fail(applied.status());
      return;
    }
    Json graphs_json = Json::array();
    std::string human;
    for (const cluster::AppliedGraph& g : applied->graphs) {
      graphs_json.push_back(Json{{"id", g.id},
                                 {"root_uri", g.root_uri},
                                 {"query_files", static_cast<uint64_t>(g.queries.size())}});
      human += g.id + "  " + g.root_uri + "\n";
    }
    if (!human.empty()) human.pop_back();
    ctx.Print(Json{{"cluster", applied->name}, {"graphs", graphs_json}},
              human.empty() ? "(no graphs)" : human);
  });
}

}  // namespace

void AddClusterCommands(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<ClusterOptions>();
  CLI::App* cluster =
      app.add_subcommand("cluster", "Declarative cluster control plane (cluster.yaml)");
  cluster->require_subcommand(1);
  AddVerb(cluster, ctx, o, "validate", "Check cluster.yaml and every file it references");
  AddVerb(cluster, ctx, o, "import", "Create the state ledger from the config and the graphs");
  AddVerb(cluster, ctx, o, "plan", "Show what apply would change");
  AddVerb(cluster, ctx, o, "apply", "Converge the cluster to its config");
  AddVerb(cluster, ctx, o, "approve", "Approve a destructive change (graph.<id> deletion)");
  AddVerb(cluster, ctx, o, "status", "The state ledger, the lock and catalog integrity");
  AddVerb(cluster, ctx, o, "refresh", "Re-observe the graphs and record drift");
  AddVerb(cluster, ctx, o, "force-unlock", "Remove a held lock by its exact id");
  AddGraphsList(app, ctx, o);
}

}  // namespace omnigraph::cli
