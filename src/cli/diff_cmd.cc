// diff FROM TO [URI] [--from-snapshot ID] [--to-snapshot ID] [--limit N] [--page-token T]
// [--kind K] [--type T] [--op O]: the entity changes from one read view to another
// (docs/design/diff.md). FROM and TO are branches; a side given by --from-snapshot or
// --to-snapshot (a commit id) takes no positional argument, and the argument after the sides is
// the graph's URI.
#include <memory>
#include <string>
#include <vector>

#include "cli.h"

namespace omnigraph::cli {
namespace {

struct DiffOptions {
  std::vector<std::string> args;
  std::string from_snapshot;
  std::string to_snapshot;
  api::DiffRequest request;
};

// The sides and the URI from the positional arguments: one per side not given as a snapshot,
// then the URI (else --store, --server or the operator's scope).
Status SplitDiffArgs(DiffOptions& o, Globals& g) {
  std::vector<api::ReadTarget*> sides;
  for (auto [target, snapshot] :
       {std::pair{&o.request.from, &o.from_snapshot}, std::pair{&o.request.to, &o.to_snapshot}}) {
    if (snapshot->empty()) {
      sides.push_back(target);
    } else {
      target->snapshot = *snapshot;
    }
  }
  // Without --store, --server, --cluster or the operator's scope, the last argument is the graph.
  std::vector<std::string> names = o.args;
  const bool elsewhere =
      !g.uri.empty() || !g.store.empty() || !g.server.empty() || !g.cluster.empty();
  if (!elsewhere && !names.empty()) {
    g.uri = names.back();
    names.pop_back();
  }
  if (names.size() != sides.size()) {
    std::string got;
    for (const std::string& n : names) got += (got.empty() ? "" : ", ") + n;
    return InvalidArgument("diff takes " + std::to_string(sides.size()) +
                           " branch name(s) (FROM TO; a side given by --from-snapshot or "
                           "--to-snapshot takes none), then the graph's URI; got " +
                           std::to_string(names.size()) + (got.empty() ? "" : ": " + got));
  }
  for (size_t i = 0; i < sides.size(); ++i) sides[i]->branch = names[i];
  return Status::Ok();
}

std::string SideText(const Json& side) {
  const std::string commit = side["graph_commit_id"].string_value();
  return side.contains("branch") ? side["branch"].string_value() + " (" + commit + ")" : commit;
}

// The properties an update changed: " age 36 → 37, email – → a@b".
std::string ChangedProperties(const Json& change) {
  const Json& before = change["before"]["properties"];
  const Json& after = change["after"]["properties"];
  std::string out;
  for (const Json::Member& p : after.members()) {
    const Json& was = before[p.first];  // Null when the property was absent.
    if (was == p.second) continue;
    out += (out.empty() ? " " : ", ") + p.first + " " + (was.is_null() ? "–" : was.dump()) + " → " +
           (p.second.is_null() ? "–" : p.second.dump());
  }
  return out;
}

std::string DiffText(const Json& out) {
  std::string text = "diff " + SideText(out["from"]) + " → " + SideText(out["to"]);
  for (const Json& t : out["types"]) {
    text += "\n  " + t["kind"].string_value() + " " + t["type"]["name"].string_value() + "  +" +
            std::to_string(t["inserted"].get<uint64_t>()) + " ~" +
            std::to_string(t["updated"].get<uint64_t>()) + " -" +
            std::to_string(t["deleted"].get<uint64_t>());
  }
  if (out["changes"].empty()) text += "\n(no entity changes)";
  for (const Json& c : out["changes"]) {
    const std::string& op = c["op"].string_value();
    const char* sign = op == "insert" ? "+" : op == "update" ? "~" : "-";
    text += "\n" + std::string(sign) + " " + c["kind"].string_value() + " " +
            c["type"]["name"].string_value() + " " + c["id"].string_value();
    if (op == "update") text += ":" + ChangedProperties(c);
  }
  if (out.contains("next_page_token")) {
    text += "\nmore: --page-token " + out["next_page_token"].string_value();
  }
  return text;
}

}  // namespace

void AddDiffCommand(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<DiffOptions>();
  CLI::App* diff =
      app.add_subcommand("diff", "The entity changes from one branch head (or commit) to another");
  diff->add_option("args", o->args, "FROM TO [URI]: two branches, then the graph");
  diff->add_option("--from-snapshot", o->from_snapshot, "A commit id as the FROM side");
  diff->add_option("--to-snapshot", o->to_snapshot, "A commit id as the TO side");
  diff->add_option("--limit", o->request.limit, "Changes a page holds at most (1..10000)");
  diff->add_option("--page-token", o->request.page_token, "Continue after a previous page");
  AddFilterOptions(diff, o->request.filter);
  diff->add_flag("--json", ctx.globals().json, "Print the JSON envelope");
  diff->footer(
      "To see what a branch changed since it forked (or since it was last merged), diff from its "
      "merge base: `branch merge --dry-run B` names it as base_commit_id.");
  diff->callback([&ctx, o] {
    if (Status split = SplitDiffArgs(*o, ctx.globals()); !split.ok()) {
      ctx.Fail(split);
      return;
    }
    Result<std::unique_ptr<Database>> db = ctx.Open();
    Result<Json> out = db.ok() ? (*db)->Diff(o->request) : db.status();
    if (!out.ok()) {
      ctx.Fail(out.status());
      return;
    }
    ctx.Print(*out, DiffText(*out));
  });
}

}  // namespace omnigraph::cli
