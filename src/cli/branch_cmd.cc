// branch create [--from S] N | list | delete N
#include <memory>
#include <string>

#include "cli.h"

namespace omnigraph::cli {
namespace {

struct BranchOptions {
  std::string name;
  std::string from = "main";
};

void AddCreate(CLI::App* branch, Context& ctx, const std::shared_ptr<BranchOptions>& o) {
  CLI::App* create = branch->add_subcommand("create", "Create a branch");
  create->add_option("name", o->name)->required();
  create->add_option("--from", o->from, "The branch to fork (default main)");
  create->add_option("uri", ctx.globals().uri);
  create->add_flag("--json", ctx.globals().json);
  create->callback([&ctx, o] {
    Result<std::unique_ptr<Database>> db = ctx.Open();
    Result<Json> out = db.ok() ? (*db)->CreateBranch(o->name, o->from) : db.status();
    if (!out.ok()) {
      ctx.Fail(out.status());
      return;
    }
    ctx.Echo("branch create", o->name + " from " + o->from);
    ctx.Print(*out, "created " + o->name);
  });
}

void AddList(CLI::App* branch, Context& ctx) {
  CLI::App* list = branch->add_subcommand("list", "List branches");
  AddUriArg(list, ctx);
  list->callback([&ctx] {
    Result<std::unique_ptr<Database>> db = ctx.Open();
    Result<Json> out = db.ok() ? (*db)->ListBranches() : db.status();
    if (!out.ok()) {
      ctx.Fail(out.status());
      return;
    }
    std::string human;
    for (const Json& b : *out) {
      human += (human.empty() ? "" : "\n") + b["name"].get<std::string>() + "  " +
               b["head_commit_id"].get<std::string>();
    }
    ctx.Print(*out, human);
  });
}

void AddDelete(CLI::App* branch, Context& ctx, const std::shared_ptr<BranchOptions>& o) {
  CLI::App* del = branch->add_subcommand("delete", "Delete a branch");
  del->add_option("name", o->name)->required();
  del->add_option("uri", ctx.globals().uri);
  del->callback([&ctx, o] {
    Result<std::unique_ptr<Database>> db = ctx.Open();
    Status s = db.ok() ? (*db)->DeleteBranch(o->name) : db.status();
    if (!s.ok()) {
      ctx.Fail(s);
      return;
    }
    ctx.Echo("branch delete", o->name);
  });
}

}  // namespace

void AddBranchCommands(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<BranchOptions>();
  CLI::App* branch = app.add_subcommand("branch", "Create, list and delete branches");
  branch->require_subcommand(1);
  AddCreate(branch, ctx, o);
  AddList(branch, ctx);
  AddDelete(branch, ctx, o);
}

}  // namespace omnigraph::cli
