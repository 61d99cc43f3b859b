// branch create [--from S] N | list | delete N | merge SRC [--into TGT] [--delete-branch |
// --dry-run]
#include <algorithm>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli.h"

namespace omnigraph::cli {
namespace {

struct BranchOptions {
  std::string name;
  std::string from = "main";
  std::string into = "main";
  bool delete_branch = false;
  bool dry_run = false;
};

void AddCreate(CLI::App* branch, Context& ctx, const std::shared_ptr<BranchOptions>& o) {
  CLI::App* create = branch->add_subcommand("create", "Create a branch");
  create->add_option("name", o->name, "The new branch's name")->required()->check(NonEmpty());
  create->add_option("--from", o->from, "The branch to fork (default main)")->check(NonEmpty());
  create->footer(
      "Names are 1-255 bytes of UTF-8 without control characters or edge spaces; 'main' and "
      "OmniGraph's reserved __schema_apply_lock__ are refused. Unlike OmniGraph, names need not be "
      "prefix-disjoint: 'review' and 'review/x' may both exist.");
  create->add_option("uri", ctx.globals().uri);
  create->add_flag("--json", ctx.globals().json, "Print the JSON envelope");
  create->callback([&ctx, o] {
    Result<std::unique_ptr<Database>> db = ctx.Open();
    Result<Json> out = db.ok() ? (*db)->CreateBranch(o->name, o->from) : db.status();
    if (!out.ok()) {
      ctx.Fail(out.status());
      return;
    }
    ctx.Echo("branch create");
    ctx.Print(*out, "created branch " + o->name + " from " + o->from);
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
    // OmniGraph's envelope: the names, sorted; one per line without --json.
    std::vector<std::string> names;
    for (const Json& b : *out) names.push_back(b["name"].get<std::string>());
    std::sort(names.begin(), names.end());
    std::string human;
    for (const std::string& n : names) human += (human.empty() ? "" : "\n") + n;
    Json sorted = Json::array();
    for (const std::string& n : names) sorted.push_back(Json(n));
    ctx.Print(Json{{"branches", sorted}}, human);
  });
}

void AddDelete(CLI::App* branch, Context& ctx, const std::shared_ptr<BranchOptions>& o) {
  CLI::App* del = branch->add_subcommand("delete", "Delete a branch");
  del->add_option("name", o->name, "The branch to delete")->required()->check(NonEmpty());
  del->footer(
      "Unlike OmniGraph, a branch may be deleted while branches forked from it live on: a branch "
      "never reads its parent after the fork. 'main' cannot be deleted.");
  del->add_option("uri", ctx.globals().uri);
  del->add_flag("--json", ctx.globals().json, "Print the JSON envelope");
  del->callback([&ctx, o] {
    if (Status consent = ctx.ConfirmDestructive("branch delete"); !consent.ok()) {
      return ctx.Fail(consent);
    }
    Result<std::unique_ptr<Database>> db = ctx.Open();
    Result<Json> out = db.ok() ? (*db)->DeleteBranch(o->name) : db.status();
    if (!out.ok()) {
      ctx.Fail(out.status());
      return;
    }
    ctx.Echo("branch delete");
    ctx.Print(*out, "deleted branch " + o->name);
  });
}

// `branch merge --dry-run`: the preview (Database::PreviewMerge). Conflicts are its answer: listed,
// with exit status 0, as a review reads them.
std::string PreviewText(const Json& p) {
  std::string text = "would " + std::string(p["outcome"].string_value() == "conflicts"
                                                ? "conflict"
                                                : "be " + p["outcome"].string_value());
  text += "\nsource " + p["source"].string_value() + " " + p["source_commit_id"].string_value() +
          " (" + std::to_string(p["source_ahead"].get<uint64_t>()) + " ahead)";
  text += "\ntarget " + p["target"].string_value() + " " + p["target_commit_id"].string_value() +
          " (" + std::to_string(p["target_ahead"].get<uint64_t>()) + " ahead)";
  text += "\nbase   " + p["base_commit_id"].string_value();
  for (const Json& c : p["conflicts"]) {
    text += "\n  " + c["kind"].string_value() + ": " + c["message"].string_value();
  }
  return text;
}

void RunPreview(Context& ctx, const BranchOptions& o) {
  Result<std::unique_ptr<Database>> db = ctx.Open();
  Result<Json> out = db.ok() ? (*db)->PreviewMerge(o.name, o.into) : db.status();
  if (!out.ok()) {
    ctx.Fail(out.status());
    return;
  }
  ctx.Print(*out, PreviewText(*out));
}

// On conflicts the error goes to stderr as for every failure; with --json the conflicts also go
// to stdout as {error, code, merge_conflicts}, so a script can walk them.
void AddMerge(CLI::App* branch, Context& ctx, const std::shared_ptr<BranchOptions>& o) {
  CLI::App* merge = branch->add_subcommand("merge", "Merge a branch into another (default main)");
  merge->add_option("source", o->name, "The branch to merge")->required();
  merge->add_option("--into", o->into, "The branch to merge into (default main)");
  auto* deleting = merge->add_flag(
      "--delete-branch", o->delete_branch,
      "Delete the source after a successful merge (its failure never fails the merge)");
  merge
      ->add_flag("--dry-run", o->dry_run,
                 "Say what the merge would do now (outcome, base, every conflict); publish nothing")
      ->excludes(deleting);
  merge->add_option("uri", ctx.globals().uri);
  merge->add_flag("--json", ctx.globals().json);
  merge->callback([&ctx, o] {
    if (o->dry_run) {
      RunPreview(ctx, *o);
      return;
    }
    Result<std::unique_ptr<Database>> db = ctx.Open();
    api::MergeOptions options;
    options.target = o->into;
    options.delete_branch = o->delete_branch;
    Json conflicts;
    Result<Json> out = db.ok() ? (*db)->Merge(o->name, options, &conflicts) : db.status();
    if (!out.ok()) {
      if (ctx.globals().json && conflicts.is_array()) {
        Json error = Json::object();
        error["error"] = out.status().message();
        error["code"] = "conflict";
        error["merge_conflicts"] = conflicts;
        std::cout << error.dump(2) << "\n";
      }
      ctx.Fail(out.status());
      return;
    }
    const std::string outcome = (*out)["outcome"].get<std::string>();
    ctx.Echo("branch merge");
    std::string human = outcome;
    if (out->contains("commit")) human += " " + (*out)["commit"].get<std::string>();
    if (out->contains("branch_delete_error")) {
      // OmniGraph's warning, on stderr in every output form: the merge itself succeeded.
      std::fprintf(stderr, "warning: merged, but could not delete branch '%s': %s\n",
                   o->name.c_str(), (*out)["branch_delete_error"].get<std::string>().c_str());
    }
    ctx.Print(*out, human);
  });
}

}  // namespace

void AddBranchCommands(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<BranchOptions>();
  CLI::App* branch = app.add_subcommand("branch", "Create, list, delete and merge branches");
  branch->require_subcommand(1);
  AddCreate(branch, ctx, o);
  AddList(branch, ctx);
  AddDelete(branch, ctx, o);
  AddMerge(branch, ctx, o);
}

}  // namespace omnigraph::cli
