// schema plan|apply --schema F [--allow-data-loss] URI · schema show [--branch B | --snapshot ID]
// URI
#include <memory>
#include <string>

#include "cli.h"
#include "omnigraph/cluster.h"

namespace omnigraph::cli {
namespace {

struct SchemaOptions {
  std::string schema_file;
  bool allow_data_loss = false;
  std::string branch = "main";
  std::string snapshot;
};

// False (after reporting it) when the graph is managed by a cluster: its schema evolves through
// `cluster apply`, which records it in the cluster's ledger (docs/design/cluster.md).
bool RefuseClusterManaged(Context& ctx) {
  Result<std::string> uri = ctx.Uri();
  if (!uri.ok() || ctx.Remote()) return true;
  Result<bool> managed = cluster::IsClusterManaged(*uri);
  if (!managed.ok() || !*managed) return true;
  ctx.Fail(InvalidArgument("schema apply: " + *uri +
                           " is managed by a cluster; edit the schema file the cluster's "
                           "cluster.yaml names and run `omnigraph cluster plan`, then "
                           "`omnigraph cluster apply`"));
  return false;
}

void AddPlanOrApply(CLI::App* schema, Context& ctx, const std::shared_ptr<SchemaOptions>& o,
                    const std::string& verb) {
  CLI::App* sub =
      schema->add_subcommand(verb, verb == "plan" ? "Plan a migration to a new schema"
                                                  : "Apply a new schema on main (one commit)");
  sub->add_option("--schema", o->schema_file, "The new schema (.pg)")
      ->required()
      ->check(NonEmpty());
  sub->add_flag("--allow-data-loss", o->allow_data_loss, "Drops become hard");
  AddUriArg(sub, ctx);
  sub->callback([&ctx, o, verb] {
    if (verb == "apply" && !RefuseClusterManaged(ctx)) return;
    Result<std::string> text = ReadFile(o->schema_file);
    Result<std::unique_ptr<Database>> db =
        text.ok() ? ctx.Open() : Result<std::unique_ptr<Database>>(text.status());
    if (!db.ok()) {
      ctx.Fail(db.status());
      return;
    }
    Result<Json> out = verb == "plan" ? (*db)->PlanSchema(*text, o->allow_data_loss)
                                      : (*db)->ApplySchema(*text, o->allow_data_loss);
    if (!out.ok()) {
      ctx.Fail(out.status());
      return;
    }
    if (verb == "apply") ctx.Echo("schema apply");
    ctx.Print(*out);
  });
}

void AddShow(CLI::App* schema, Context& ctx, const std::shared_ptr<SchemaOptions>& o) {
  CLI::App* show = schema->add_subcommand("show", "Print the accepted schema (also: get)");
  show->alias("get");
  auto* branch =
      show->add_option("--branch", o->branch, "The branch (default main)")->check(NonEmpty());
  show->add_option("--snapshot", o->snapshot, "A commit id: the schema that commit accepted")
      ->excludes(branch)
      ->check(NonEmpty());
  AddUriArg(show, ctx);
  show->callback([&ctx, o] {
    Result<std::unique_ptr<Database>> db = ctx.Open();
    api::ReadTarget target{o->branch, std::nullopt};
    if (!o->snapshot.empty()) target.snapshot = o->snapshot;
    Result<Json> out = db.ok() ? (*db)->ShowSchema(target) : db.status();
    if (!out.ok()) {
      ctx.Fail(out.status());
      return;
    }
    ctx.Print(*out, (*out)["source"].get<std::string>());
  });
}

}  // namespace

void AddSchemaCommands(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<SchemaOptions>();
  CLI::App* schema = app.add_subcommand("schema", "Show, plan and apply schema changes");
  schema->require_subcommand(1);
  AddPlanOrApply(schema, ctx, o, "plan");
  AddPlanOrApply(schema, ctx, o, "apply");
  AddShow(schema, ctx, o);
}

}  // namespace omnigraph::cli
