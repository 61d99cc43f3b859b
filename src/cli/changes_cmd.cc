// changes poll [--branch B] [--start now|beginning|after:ID | --cursor C] [--limit N] URI;
// changes baseline [--branch B] URI (docs/design/change-feed.md). Poll prints the page (with
// --json the API's envelope) and, in the human form, one line per entity change under a line per
// commit, then the cursor to continue from. Baseline writes the head's NDJSON export and the
// {"baseline":{...}} line to stdout, like `export`.
#include <iostream>
#include <memory>
#include <string>

#include "cli.h"

namespace omnigraph::cli {
namespace {

struct ChangesOptions {
  api::ChangePoll poll;
};

std::string PageText(const Json& page) {
  std::string text;
  for (const Json& c : page["blocks"]) {
    text += "commit " + c["cause"]["graph_commit_id"].string_value() + " #" +
            std::to_string(c["seq"].get<uint64_t>());
    if (c.contains("summary")) text += "  " + c["summary"].string_value();
    if (c.contains("schema_boundary")) text += "  (schema change)";
    text += "\n";
    for (const Json& e : c["changes"]) {
      const std::string& op = e["op"].string_value();
      const char* sign = op == "insert" ? "+" : op == "update" ? "~" : "-";
      text += "  " + std::string(sign) + " " + e["kind"].string_value() + " " +
              e["type"]["name"].string_value() + " " + e["id"].string_value() + "\n";
    }
  }
  if (page["blocks"].empty()) text += "(no new commits)\n";
  if (page["caught_up"].get<bool>())
    return text + "caught up; next: --cursor " + page["cursor"].string_value();
  return text + "more; next: --cursor " + page["next_page_token"].string_value();
}

void AddPoll(CLI::App* changes, Context& ctx, const std::shared_ptr<ChangesOptions>& o) {
  CLI::App* poll = changes->add_subcommand("poll", "One page of a branch's change feed");
  api::ChangePoll& p = o->poll;
  poll->add_option("--branch", p.branch, "The branch (default main)")->check(NonEmpty());
  auto* start = poll->add_option("--start", p.start, "now (default), beginning or after:COMMIT_ID")
                    ->check(NonEmpty());
  poll->add_option("--cursor", p.cursor,
                   "Continue from a previous page's cursor or next_page_token")
      ->check(NonEmpty())
      ->excludes(start);
  poll->add_option("--limit", p.limit, "At most this many commits (1..1000, default 100)")
      ->check(WholeNumberAtLeast(1));
  AddUriArg(poll, ctx);
  poll->callback([&ctx, o] {
    Result<std::unique_ptr<Database>> db = ctx.Open();
    Result<Json> out = db.ok() ? (*db)->PollChanges(o->poll) : db.status();
    if (!out.ok()) {
      ctx.Fail(out.status());
      return;
    }
    ctx.Print(*out, PageText(*out));
  });
}

void AddBaseline(CLI::App* changes, Context& ctx, const std::shared_ptr<ChangesOptions>& o) {
  CLI::App* baseline = changes->add_subcommand(
      "baseline", "The branch head as NDJSON, then a cursor to follow the feed from");
  baseline->add_option("--branch", o->poll.branch, "The branch (default main)")->check(NonEmpty());
  baseline->add_option("uri", ctx.globals().uri);
  baseline->callback([&ctx, o] {
    Result<std::unique_ptr<Database>> db = ctx.Open();
    Status s =
        db.ok() ? (*db)->ChangesBaseline(
                      o->poll.branch,
                      [](std::string_view chunk) {
                        std::cout.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
                        return std::cout ? Status::Ok() : Status(Code::kTransient, "stdout failed");
                      })
                : db.status();
    if (!s.ok()) ctx.Fail(s);
  });
}

}  // namespace

void AddChangesCommands(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<ChangesOptions>();
  CLI::App* changes = app.add_subcommand("changes", "The change feed: follow a branch's commits");
  changes->require_subcommand(1);
  AddPoll(changes, ctx, o);
  AddBaseline(changes, ctx, o);
}

}  // namespace omnigraph::cli
