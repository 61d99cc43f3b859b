// changes poll [--branch B] [--start now|beginning|after:ID | --cursor C | --page-token T]
// [--limit N | --page-size N] [--kind K]... [--type T]... [--op O]... URI;
// changes baseline [--branch B] [--kind K]... [--type T]... [--op O]... [--out PATH] URI
// (docs/design/change-feed.md "Front ends").
//
// Poll reads every page up to the branch head and prints the blocks as the pages come (with
// --json the API's envelope of them all), then the cursor to continue from: the terminal cursor
// only once the last page is read, each page of --page-size commits (default 1000).
// `--page-token` or `--limit` asks for one page instead (decision 156). Baseline writes the head's
// NDJSON export and the {"baseline":{...}} line to stdout, like `export`; with --out it installs
// the export at PATH durably (a file beside it, fsynced, renamed over PATH, the directory fsynced)
// and only then prints the handshake.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include "cli.h"

namespace omnigraph::cli {
namespace {

struct ChangesOptions {
  api::ChangePoll poll;
  size_t page_size = 1000;
  std::string page_token;
  std::string out;
};

std::string BlocksText(const Json& page) {
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
  return text;
}

std::string EndText(const Json& page, size_t blocks) {
  std::string text = blocks == 0 ? "(no new commits)\n" : "";
  if (page["caught_up"].get<bool>())
    return text + "caught up; next: --cursor " + page["cursor"].string_value();
  return text + "more; next: --page-token " + page["next_page_token"].string_value();
}

// Every page from where `o` starts up to the head, printed as the pages come.
Status PollAll(Database& db, ChangesOptions& o, bool json) {
  api::ChangePoll poll = o.poll;
  std::unique_ptr<JsonArrayPrinter> printer;
  size_t blocks = 0;
  while (true) {
    OMNIGRAPH_ASSIGN_OR_RETURN(Json page, db.PollChanges(poll));
    if (json && !printer) printer = std::make_unique<JsonArrayPrinter>(Json::object(), "blocks");
    for (const Json& b : page["blocks"]) {
      if (printer) printer->Add(b);
      ++blocks;
    }
    if (!json) std::cout << BlocksText(page) << std::flush;
    if (page["caught_up"].get<bool>()) {
      if (printer) {
        printer->Finish(Json{{"caught_up", true},
                             {"cursor", page["cursor"].string_value()},
                             {"stream", page["stream"].string_value()}});
      } else {
        std::cout << EndText(page, blocks) << "\n";
      }
      return Status::Ok();
    }
    poll.cursor = page["next_page_token"].string_value();
  }
}

void AddPoll(CLI::App* changes, Context& ctx, const std::shared_ptr<ChangesOptions>& o) {
  CLI::App* poll = changes->add_subcommand("poll", "Follow a branch's change feed to its head");
  api::ChangePoll& p = o->poll;
  poll->add_option("--branch", p.branch, "The branch (default main)")->check(NonEmpty());
  auto* start = poll->add_option("--start", p.start, "now (default), beginning or after:COMMIT_ID")
                    ->check(NonEmpty());
  auto* cursor = poll->add_option("--cursor", p.cursor, "Continue from a terminal page's cursor")
                     ->check(NonEmpty())
                     ->excludes(start);
  poll->add_option("--page-token", o->page_token,
                   "Print exactly the one page after this next_page_token")
      ->check(NonEmpty())
      ->excludes(start)
      ->excludes(cursor);
  auto* limit = poll->add_option("--limit", p.limit,
                                 "One page of at most this many commits (1..1000) instead of all");
  limit->check(WholeNumberAtLeast(1));
  poll->add_option("--page-size", o->page_size,
                   "Commits each page of the walk covers (1..1000, default 1000)")
      ->check(WholeNumberAtLeast(1))
      ->excludes(limit);
  AddFilterOptions(poll, p.filter);
  AddUriArg(poll, ctx);
  poll->callback([&ctx, o, limit] {
    Result<std::unique_ptr<Database>> db = ctx.Open();
    if (!db.ok()) return ctx.Fail(db.status());
    if (o->page_token.empty() && limit->count() == 0) {
      o->poll.limit = o->page_size;
      Status s = PollAll(**db, *o, ctx.globals().json);
      if (!s.ok()) ctx.Fail(s);
      return;
    }
    if (!o->page_token.empty()) o->poll.cursor = o->page_token;
    Result<Json> out = (*db)->PollChanges(o->poll);
    if (!out.ok()) return ctx.Fail(out.status());
    ctx.Print(*out, BlocksText(*out) + EndText(*out, (*out)["blocks"].size()));
  });
}

Status Errno(const std::string& what, const std::string& path) {
  return Status(Code::kPermanent, what + " '" + path + "': " + std::strerror(errno));
}

// The baseline written to `path` durably: the export's lines go to a file beside it, the
// handshake line (the last) is held back and returned; the file is fsynced, renamed over `path`
// and the directory fsynced before the caller prints the handshake (OmniGraph's durable --out).
Result<Json> BaselineToFile(Database& db, const ChangesOptions& o) {
  const std::filesystem::path target(o.out);
  const std::filesystem::path dir =
      target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  const std::string temp = (dir / ("." + target.filename().string() + ".partial")).string();
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Errno("cannot create", temp);
  std::string held;  // the last complete line so far and what follows it
  auto write_all = [fd](std::string_view data) {
    while (!data.empty()) {
      const ssize_t n = ::write(fd, data.data(), data.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return false;
      data.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  };
  Status s = db.ChangesBaseline(o.poll.branch, o.poll.filter, [&](std::string_view chunk) {
    held.append(chunk);
    // Keep back the last complete line (it may be the handshake) and any partial one after it.
    const size_t last = held.ends_with('\n') ? held.size() - 1 : held.rfind('\n');
    if (last == std::string::npos || last == 0) return Status::Ok();
    const size_t before = held.rfind('\n', last - 1);
    const size_t keep = before == std::string::npos ? 0 : before + 1;
    if (!write_all(std::string_view(held).substr(0, keep))) return Errno("cannot write", temp);
    held.erase(0, keep);
    return Status::Ok();
  });
  Result<Json> line = s.ok() ? api::ParseJson(held, "the baseline's last line") : Result<Json>(s);
  if (s.ok() && line.ok() && !(*line)["baseline"].is_object()) {
    line = Status(Code::kPermanent, "the baseline ended without its handshake line");
  }
  if (line.ok() && ::fsync(fd) != 0) line = Errno("cannot fsync", temp);
  if (::close(fd) != 0 && line.ok()) line = Errno("cannot close", temp);
  if (line.ok() && ::rename(temp.c_str(), o.out.c_str()) != 0)
    line = Errno("cannot replace", o.out);
  if (!line.ok()) {
    ::unlink(temp.c_str());
    return line.status();
  }
  const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0 || ::fsync(dir_fd) != 0) {
    Status failed = Errno("cannot fsync the directory", dir.string());
    if (dir_fd >= 0) ::close(dir_fd);
    return failed;
  }
  ::close(dir_fd);
  return (*line)["baseline"];
}

void AddBaseline(CLI::App* changes, Context& ctx, const std::shared_ptr<ChangesOptions>& o) {
  CLI::App* baseline = changes->add_subcommand(
      "baseline", "The branch head as NDJSON, then a cursor to follow the feed from");
  baseline->add_option("--branch", o->poll.branch, "The branch (default main)")->check(NonEmpty());
  baseline
      ->add_option("--out", o->out,
                   "Install the export at this file durably, then print the handshake")
      ->check(NonEmpty());
  AddFilterOptions(baseline, o->poll.filter);
  AddUriArg(baseline, ctx);
  baseline->callback([&ctx, o] {
    Result<std::unique_ptr<Database>> db = ctx.Open();
    if (!db.ok()) return ctx.Fail(db.status());
    if (!o->out.empty()) {
      Result<Json> handshake = BaselineToFile(**db, *o);
      if (!handshake.ok()) return ctx.Fail(handshake.status());
      ctx.Print(*handshake, "snapshot " + (*handshake)["snapshot_commit_id"].string_value() +
                                " written to " + o->out + "\nnext: --cursor " +
                                (*handshake)["resume_cursor"].string_value());
      return;
    }
    Status s = (*db)->ChangesBaseline(o->poll.branch, o->poll.filter, [](std::string_view chunk) {
      std::cout.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
      return std::cout ? Status::Ok() : Status(Code::kTransient, "stdout failed");
    });
    if (!s.ok()) ctx.Fail(s);
  });
}

}  // namespace

void AddFilterOptions(CLI::App* cmd, api::ChangeFilter& f) {
  cmd->add_option("--kind", f.kinds, "Only node or edge changes (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--type", f.types, "Only changes of this type (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--op", f.ops, "Only insert, update or delete changes (repeatable)")
      ->allow_extra_args(false);
}

void AddChangesCommands(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<ChangesOptions>();
  CLI::App* changes = app.add_subcommand("changes", "The change feed: follow a branch's commits");
  changes->require_subcommand(1);
  AddPoll(changes, ctx, o);
  AddBaseline(changes, ctx, o);
}

}  // namespace omnigraph::cli
