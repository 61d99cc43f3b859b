// commit list [--branch B] [--limit N] [--page-token T] [--actor A] | show ID | changes ID [--limit
// N] [--page-token T] [--kind K]... [--type T]... [--op O]...; snapshot [--branch B | --snapshot
// ID]. The human forms read like `git log --oneline`: one line per commit with a short id, the
// local date and time, the actor and what the commit did (the record's summary). `commit list` and
// `commit changes` read every page and print them as they come, unless
// `--page-token` or `--limit` asks for one page (decision 156).
#include <time.h>

#include <iostream>
#include <memory>
#include <string>

#include "cli.h"

namespace omnigraph::cli {
namespace {

struct CommitOptions {
  // The request size of a walk through every page (--page-size): by default the largest a page
  // of commits may be, the fewest round trips.
  size_t page_size = 1000;
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

// Every page of the history, printed as the pages come.
Status ListAll(Database& db, const CommitOptions& o, bool json) {
  std::unique_ptr<JsonArrayPrinter> printer;
  if (json) printer = std::make_unique<JsonArrayPrinter>(Json::object(), "commits");
  std::string token;
  size_t printed = 0;
  do {
    OMNIGRAPH_ASSIGN_OR_RETURN(Json page, db.CommitHistory(o.branch, o.page_size, token, o.actor));
    for (const Json& c : page["commits"]) {
      if (printer) {
        printer->Add(c);
      } else {
        std::cout << CommitLine(c) << "\n";
      }
      ++printed;
    }
    std::cout.flush();
    token = page.contains("next_page_token") ? page["next_page_token"].string_value() : "";
  } while (!token.empty());
  if (printer) printer->Finish(Json::object());
  if (!json && printed == 0) std::cout << "(no commits)\n";
  return Status::Ok();
}

void AddList(CLI::App* commit, Context& ctx, const std::shared_ptr<CommitOptions>& o) {
  CLI::App* list = commit->add_subcommand("list", "Commits of a branch, newest first");
  list->add_option("--branch", o->branch, "The branch (default main)");
  auto* limit = list->add_option("--limit", o->limit,
                                 "One page of at most this many (default: every commit)");
  limit->check(WholeNumberAtLeast(0));
  list->add_option("--page-size", o->page_size,
                   "Commits each page of the walk holds (default 1000)")
      ->check(WholeNumberAtLeast(1))
      ->excludes(limit);
  list->add_option("--page-token", o->page_token,
                   "Continue where a previous page ended (its next_page_token)");
  list->add_option("--actor", o->actor,
                   "Only the commits this actor made (a group commit: any member)");
  AddUriArg(list, ctx);
  list->callback([&ctx, o, limit] {
    Result<std::unique_ptr<Database>> db = ctx.Open();
    if (db.ok() && o->page_token.empty() && limit->count() == 0) {
      Status s = ListAll(**db, *o, ctx.globals().json);
      if (!s.ok()) ctx.Fail(s);
      return;
    }
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
std::string ChangeLine(const Json& c) {
  const std::string& op = c["op"].string_value();
  const char* sign = op == "insert" ? "+" : op == "update" ? "~" : "-";
  return std::string(sign) + " " + c["kind"].string_value() + " " +
         c["type"]["name"].string_value() + " " + c["id"].string_value();
}

std::string ChangesText(const Json& out) {
  std::string text;
  for (const Json& c : out["changes"]) text += (text.empty() ? "" : "\n") + ChangeLine(c);
  if (text.empty()) text = "(no entity changes)";
  if (out.contains("next_page_token")) {
    text += "\nmore: --page-token " + out["next_page_token"].string_value();
  }
  return text;
}

// Every page of the commit's changes, printed as the pages come.
Status ChangesAll(Database& db, const CommitOptions& o, bool json) {
  api::CommitChangesRequest request = o.changes;
  request.limit = o.page_size;
  std::unique_ptr<JsonArrayPrinter> printer;
  size_t printed = 0;
  do {
    OMNIGRAPH_ASSIGN_OR_RETURN(Json page, db.CommitChanges(o.id, request));
    if (json && !printer) {
      printer = std::make_unique<JsonArrayPrinter>(Json{{"cause", page["cause"]}}, "changes");
    }
    for (const Json& c : page["changes"]) {
      if (printer) {
        printer->Add(c);
      } else {
        std::cout << ChangeLine(c) << "\n";
      }
      ++printed;
    }
    std::cout.flush();
    request.page_token =
        page.contains("next_page_token") ? page["next_page_token"].string_value() : "";
  } while (!request.page_token.empty());
  if (printer) printer->Finish(Json::object());
  if (!json && printed == 0) std::cout << "(no entity changes)\n";
  return Status::Ok();
}

void AddChanges(CLI::App* commit, Context& ctx, const std::shared_ptr<CommitOptions>& o) {
  CLI::App* changes =
      commit->add_subcommand("changes", "The entity changes of one commit against its parent");
  changes->add_option("id", o->id, "The commit id")->required();
  auto* limit = changes->add_option("--limit", o->changes.limit,
                                    "One page of at most this many changes (1..10000)");
  changes
      ->add_option("--page-size", o->page_size,
                   "Changes each page of the walk holds (default 1000)")
      ->check(WholeNumberAtLeast(1))
      ->excludes(limit);
  changes->add_option("--page-token", o->changes.page_token, "Continue after a previous page");
  AddFilterOptions(changes, o->changes.filter);
  AddUriArg(changes, ctx);
  changes->callback([&ctx, o, limit] {
    Result<std::unique_ptr<Database>> db = ctx.Open();
    if (db.ok() && o->changes.page_token.empty() && limit->count() == 0) {
      Status s = ChangesAll(**db, *o, ctx.globals().json);
      if (!s.ok()) ctx.Fail(s);
      return;
    }
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
