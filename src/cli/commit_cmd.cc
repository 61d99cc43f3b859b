// commit list [--branch B] [--limit N] | show ID
#include <memory>
#include <string>

#include "cli.h"

namespace omnigraph::cli {
namespace {

struct CommitOptions {
  std::string branch = "main";
  size_t limit = 100;
  std::string id;
};

void AddList(CLI::App* commit, Context& ctx, const std::shared_ptr<CommitOptions>& o) {
  CLI::App* list = commit->add_subcommand("list", "Commits of a branch, newest first");
  list->add_option("--branch", o->branch, "The branch (default main)");
  list->add_option("--limit", o->limit, "At most this many (default 100)")
      ->check(WholeNumberAtLeast(0));
  AddUriArg(list, ctx);
  list->callback([&ctx, o] {
    Result<std::unique_ptr<Database>> db = ctx.Open();
    Result<Json> out = db.ok() ? (*db)->ListCommits(o->branch, o->limit) : db.status();
    if (!out.ok()) {
      ctx.Fail(out.status());
      return;
    }
    std::string human;
    for (const Json& c : *out) {
      human += (human.empty() ? "" : "\n") + c["graph_commit_id"].get<std::string>() + "  #" +
               std::to_string(c["graph_manifest_version"].get<uint64_t>());
    }
    ctx.Print(*out, human);
  });
}

void AddShow(CLI::App* commit, Context& ctx, const std::shared_ptr<CommitOptions>& o) {
  CLI::App* show = commit->add_subcommand("show", "One commit");
  show->add_option("id", o->id)->required();
  AddUriArg(show, ctx);
  show->callback([&ctx, o] {
    Result<std::unique_ptr<Database>> db = ctx.Open();
    Result<Json> out = db.ok() ? (*db)->ShowCommit(o->id) : db.status();
    if (!out.ok()) {
      ctx.Fail(out.status());
      return;
    }
    ctx.Print(*out);
  });
}

}  // namespace

void AddCommitCommands(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<CommitOptions>();
  CLI::App* commit = app.add_subcommand("commit", "Commit history");
  commit->require_subcommand(1);
  AddList(commit, ctx, o);
  AddShow(commit, ctx, o);
}

}  // namespace omnigraph::cli
