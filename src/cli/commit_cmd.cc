// commit list [--branch B] [--limit N] [--page-token T] [--actor A] | show ID | changes ID [--limit
// N]
// [--page-token T] [--kind K] [--type T] [--op O]; snapshot [--branch B | --snapshot ID].
// The human forms read like `git log --oneline`: one line per commit with a short
// id, the local date and time, the actor and what the commit did (the record's summary).
#include <time.h>

#include <memory>
#include <string>

#include "cli.h"

namespace omnigraph::cli {
namespace {

struct CommitOptions {
  std::string branch = "main";
  size_t limit = 100;
  std::string page_token;
  std::string actor;
  std::string id;
  std::string snapshot;
  api::CommitChangesRequest changes;
};

// "2026-12-01 10:23:37" in the local time zone, from Unix microseconds.
std::string LocalTime(int64_t micros) {
  const time_t seconds = static_cast<time_t>(micros / 1000000);
  struct tm local {};
  localtime_r(&seconds, &local);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &local);
  return buf;
}

// The nonce of a commit id ("main.3.J2C6S7SD8M" -> "J2C6S7SD8M"): enough to tell commits apart
// on screen; `--json` and `commit show` use the whole id.
std::string ShortId(const std::string& id) {
  const size_t dot = id.rfind('.');
  return dot == std::string::npos ? id : id.substr(dot + 1);
}

std::string Str(const Json& j, const char* key, const std::string& otherwise) {
  return j.contains(key) ? j[key].string_value() : otherwise;
}

// What a commit did: its summary, "init" for genesis, or "commit" for a record without one.
std::string What(const Json& c) {
  if (c.contains("summary")) return c["summary"].string_value();
  return c.contains("parent_commit_id") ? "commit" : "init";
}

std::string CommitLine(const Json& c) {
  std::string line = ShortId(c["graph_commit_id"].string_value()) + "  " +
                     LocalTime(c["created_at"].get<int64_t>()) + "  " + Str(c, "actor_id", "-") +
                     "  ";
  if (c.contains("merged_parent_commit_id")) line += "(merge) ";
  return line + What(c);
}

void AddList(CLI::App* commit, Context& ctx, const std::shared_ptr<CommitOptions>& o) {
  CLI::App* list = commit->add_subcommand("list", "Commits of a branch, newest first");
  list->add_option("--branch", o->branch, "The branch (default main)");
  list->add_option("--limit", o->limit, "At most this many (default 100)")
      ->check(WholeNumberAtLeast(0));
  list->add_option("--page-token", o->page_token,
                   "Continue where a previous page ended (its next_page_token)");
  list->add_option("--actor", o->actor,
                   "Only the commits this actor made (a group commit: any member)");
  AddUriArg(list, ctx);
  list->callback([&ctx, o] {
    Result<std::unique_ptr<Database>> db = ctx.Open();
    Result<Json> out =
        db.ok() ? (*db)->CommitHistory(o->branch, o->limit, o->page_token, o->actor) : db.status();
    if (!out.ok()) {
      ctx.Fail(out.status());
      return;
    }
    std::string human;
    for (const Json& c : (*out)["commits"]) human += (human.empty() ? "" : "\n") + CommitLine(c);
    if (out->contains("next_page_token")) {
      human += "\n(more: --page-token " + (*out)["next_page_token"].string_value() + ")";
    }
    ctx.Print(*out, human.empty() ? "(no commits)" : human);
  });
}

std::string ShowText(const Json& c) {
  std::string out = "commit   " + c["graph_commit_id"].string_value() + "\n";
  out += "branch   " + Str(c, "graph_branch", "-") + " #" +
         std::to_string(c["graph_manifest_version"].get<uint64_t>()) + "\n";
  out += "parents  " + Str(c, "parent_commit_id", "(none)");
  if (c.contains("merged_parent_commit_id")) {
    out += " " + c["merged_parent_commit_id"].string_value() + " (merged)";
  }
  out += "\nactor    " + Str(c, "actor_id", "-") + "\n";
  out += "date     " + LocalTime(c["created_at"].get<int64_t>()) + "\n";
  out += "did      " + What(c) + "\n";
  if (c.contains("schema_boundary")) out += "schema   changed\n";
  out += "tables";
  if (c["tables"].empty()) out += "   (none)";
  for (const Json& t : c["tables"]) {
    out += "\n  " + t["table_key"].string_value() + "  +" +
           std::to_string(t["inserted"].get<uint64_t>()) + " ~" +
           std::to_string(t["updated"].get<uint64_t>()) + " -" +
           std::to_string(t["deleted"].get<uint64_t>());
  }
  // A group commit: each member's actor, key and own counts, in the order they were validated.
  if (c.contains("members")) {
    out += "\nmembers  " + std::to_string(c["members"].size());
    for (const Json& m : c["members"]) {
      out += "\n  " + Str(m, "actor_id", "-");
      if (m.contains("idempotency_key")) out += "  key " + m["idempotency_key"].string_value();
      out += "  " + m["counts"].dump();
    }
  }
  return out;
}

void AddShow(CLI::App* commit, Context& ctx, const std::shared_ptr<CommitOptions>& o) {
  CLI::App* show = commit->add_subcommand("show", "One commit: parents, actor, date, tables");
  show->add_option("id", o->id, "The commit id")->required();
  AddUriArg(show, ctx);
  show->callback([&ctx, o] {
    Result<std::unique_ptr<Database>> db = ctx.Open();
    Result<Json> out = db.ok() ? (*db)->ShowCommit(o->id) : db.status();
    if (!out.ok()) {
      ctx.Fail(out.status());
      return;
    }
    ctx.Print(*out, ShowText(*out));
  });
}

// One line per entity change: "+ node Person ada", "~ edge Knows k1", "- node Person bob".
std::string ChangesText(const Json& out) {
  std::string text;
  for (const Json& c : out["changes"]) {
    const std::string& op = c["op"].string_value();
    const char* sign = op == "insert" ? "+" : op == "update" ? "~" : "-";
    text += (text.empty() ? "" : "\n") + std::string(sign) + " " + c["kind"].string_value() + " " +
            c["type"]["name"].string_value() + " " + c["id"].string_value();
  }
  if (text.empty()) text = "(no entity changes)";
  if (out.contains("next_page_token")) {
    text += "\nmore: --page-token " + out["next_page_token"].string_value();
  }
  return text;
}

void AddChanges(CLI::App* commit, Context& ctx, const std::shared_ptr<CommitOptions>& o) {
  CLI::App* changes =
      commit->add_subcommand("changes", "The entity changes of one commit against its parent");
  changes->add_option("id", o->id, "The commit id")->required();
  changes->add_option("--limit", o->changes.limit, "Changes a page holds at most (1..10000)");
  changes->add_option("--page-token", o->changes.page_token, "Continue after a previous page");
  changes->add_option("--kind", o->changes.kind, "Only node or only edge changes");
  changes->add_option("--type", o->changes.type, "Only changes of this type");
  changes->add_option("--op", o->changes.op, "Only insert, update or delete changes");
  AddUriArg(changes, ctx);
  changes->callback([&ctx, o] {
    Result<std::unique_ptr<Database>> db = ctx.Open();
    Result<Json> out = db.ok() ? (*db)->CommitChanges(o->id, o->changes) : db.status();
    if (!out.ok()) {
      ctx.Fail(out.status());
      return;
    }
    ctx.Print(*out, ChangesText(*out));
  });
}

std::string SnapshotText(const Json& s) {
  std::string out = s["graph_commit_id"].string_value() + "  " + s["graph_branch"].string_value() +
                    " #" + std::to_string(s["graph_manifest_version"].get<uint64_t>()) +
                    "  schema v" + std::to_string(s["internal_schema_version"].get<uint64_t>());
  for (const Json& d : s["datasets"]) {
    out += "\n  " + d["entity_kind"].string_value() + " " + d["type_name"].string_value() + "  " +
           std::to_string(d["entity_count"].get<uint64_t>()) + " entities  version " +
           std::to_string(d["published_dataset_version"].get<uint64_t>());
  }
  return out;
}

void AddSnapshot(CLI::App& app, Context& ctx, const std::shared_ptr<CommitOptions>& o) {
  CLI::App* snapshot =
      app.add_subcommand("snapshot", "The tables of a branch head or of one commit");
  auto* branch = snapshot->add_option("--branch", o->branch, "The branch (default main)");
  snapshot->add_option("--snapshot", o->snapshot, "A commit id instead of a branch head")
      ->excludes(branch);
  AddUriArg(snapshot, ctx);
  snapshot->callback([&ctx, o] {
    Result<std::unique_ptr<Database>> db = ctx.Open();
    api::ReadTarget target;
    target.branch = o->branch;
    if (!o->snapshot.empty()) target.snapshot = o->snapshot;
    Result<Json> out = db.ok() ? (*db)->Snapshot(target) : db.status();
    if (!out.ok()) {
      ctx.Fail(out.status());
      return;
    }
    ctx.Print(*out, SnapshotText(*out));
  });
}

}  // namespace

void AddCommitCommands(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<CommitOptions>();
  CLI::App* commit = app.add_subcommand("commit", "Commit history");
  commit->require_subcommand(1);
  AddList(commit, ctx, o);
  AddShow(commit, ctx, o);
  AddChanges(commit, ctx, o);
  AddSnapshot(app, ctx, o);
}

}  // namespace omnigraph::cli
