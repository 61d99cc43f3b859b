// The verbs that look after a graph as a whole: cleanup, export, optimize, repair, and version.
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cli.h"

namespace omnigraph::cli {
namespace {

using api::CleanupRequest;

// "7d", "12h", "30m", "45s" as microseconds.
Result<int64_t> DurationMicros(const std::string& text) {
  static const std::map<char, int64_t> kUnit = {
      {'d', 86400000000LL}, {'h', 3600000000LL}, {'m', 60000000LL}, {'s', 1000000LL}};
  if (text.size() < 2 || !kUnit.contains(text.back())) {
    return InvalidArgument("bad duration '" + text + "' (use a number and d, h, m or s: 7d)");
  }
  int64_t n = 0;
  for (size_t i = 0; i + 1 < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9' || n > 1000000) {
      return InvalidArgument("bad duration '" + text + "' (use a number and d, h, m or s: 7d)");
    }
    n = n * 10 + (text[i] - '0');
  }
  return n * kUnit.at(text.back());
}

struct CleanupOptions {
  uint64_t keep = 0;
  std::string older_than;
  bool confirm = false;
};

// cleanup (--keep N | --older-than 7d) [--confirm] URI
void AddCleanup(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<CleanupOptions>();
  CLI::App* cleanup = app.add_subcommand("cleanup", "Remove what no retained commit needs");
  cleanup->add_option("--keep", o->keep, "Keep the newest N commits of every branch")
      ->check(WholeNumberAtLeast(1));
  cleanup->add_option("--older-than", o->older_than,
                      "Keep commits younger than this (7d, 12h, 30m)");
  cleanup->add_flag("--confirm", o->confirm, "Remove (without it, only report what would go)");
  AddUriArg(cleanup, ctx);
  AddClusterTarget(cleanup, ctx);
  cleanup->callback([&ctx, o] {
    CleanupRequest request;
    if (o->keep > 0) request.keep = o->keep;
    if (!o->older_than.empty()) {
      Result<int64_t> micros = DurationMicros(o->older_than);
      if (!micros.ok()) {
        ctx.Fail(micros.status());
        return;
      }
      request.older_than_micros = *micros;
    }
    request.dry_run = !o->confirm;
    if (o->confirm) {
      if (Status consent = ctx.ConfirmDestructive("cleanup"); !consent.ok()) {
        return ctx.Fail(consent);
      }
    }
    Result<std::unique_ptr<Database>> db = ctx.Open();
    Result<Json> out = db.ok() ? (*db)->Cleanup(request) : db.status();
    if (!out.ok()) {
      ctx.Fail(out.status());
      return;
    }
    const std::string verb = o->confirm ? "removed " : "would remove ";
    const std::string objects = std::to_string((*out)["objects_removed"].get<uint64_t>());
    ctx.Echo("cleanup");
    ctx.Print(*out, verb + objects + " objects (" +
                        std::to_string((*out)["bytes_removed"].get<uint64_t>()) + " bytes)" +
                        (o->confirm ? "" : "; add --confirm to remove them"));
  });
}

struct ExportOptions {
  std::string branch = "main";
  std::vector<std::string> types;
};

// export [--branch B] [--type T]... URI
void AddExport(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<ExportOptions>();
  CLI::App* exp = app.add_subcommand("export", "Write a branch's data as NDJSON to stdout");
  exp->add_option("--branch", o->branch, "The branch (default main)")->check(NonEmpty());
  // One value per --type, so that a URI after it stays the URI.
  exp->add_option("--type", o->types, "Only these types (repeatable)")->allow_extra_args(false);
  exp->add_option("uri", ctx.globals().uri);
  exp->callback([&ctx, o] {
    Result<std::unique_ptr<Database>> db = ctx.Open();
    Status s =
        db.ok() ? (*db)->Export(
                      o->branch, o->types,
                      [](std::string_view chunk) {
                        std::cout.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
                        return std::cout ? Status::Ok() : Status(Code::kTransient, "stdout failed");
                      })
                : db.status();
    if (!s.ok()) ctx.Fail(s);
  });
}

// The repair report as a table: one line per defect, then what to do.
std::string RepairText(const Json& out) {
  const Json& defects = out["defects"];
  if (defects.empty()) return "no defects: the commit layer's derived state is sound";
  std::string text;
  size_t fixable = 0;
  for (const Json& d : defects) {
    const std::string state = d["fixed"].get<bool>()     ? "fixed"
                              : d["fixable"].get<bool>() ? "fixable"
                                                         : "not fixable";
    fixable += d["fixable"].get<bool>() && !d["fixed"].get<bool>() ? 1 : 0;
    text += d["kind"].get<std::string>() + "  " + d["object"].get<std::string>() + "  seq " +
            std::to_string(d["seq"].get<uint64_t>()) + "  " + state + ": " +
            d["detail"].get<std::string>() + "\n";
    if (!d["advice"].get<std::string>().empty()) {
      text += "  advice: " + d["advice"].get<std::string>() + "\n";
    }
  }
  text += std::to_string(defects.size()) + (defects.size() == 1 ? " defect" : " defects");
  if (fixable > 0)
    text += "; add --confirm to rewrite the hints and checkpoints of " + std::to_string(fixable);
  return text;
}

// repair [--confirm] URI
void AddRepair(CLI::App& app, Context& ctx) {
  auto confirm = std::make_shared<bool>(false);
  CLI::App* repair = app.add_subcommand(
      "repair", "Report defects of the commit history's derived state; fix hints and checkpoints");
  repair->add_flag("--confirm", *confirm,
                   "Rewrite hints and checkpoints (never a record); without it, only report");
  AddUriArg(repair, ctx);
  AddClusterTarget(repair, ctx);
  repair->callback([&ctx, confirm] {
    Result<std::unique_ptr<Database>> db = ctx.Open();
    Result<Json> out = db.ok() ? (*db)->Repair(*confirm) : db.status();
    if (!out.ok()) {
      ctx.Fail(out.status());
      return;
    }
    if (*confirm) ctx.Echo("repair");
    ctx.Print(*out, RepairText(*out));
  });
}

// The optimize report as text: one line per table it compacted or indexed, then the commit.
std::string OptimizeText(const Json& out) {
  std::string text;
  for (const Json& t : out["tables"]) {
    std::string line;
    if (t["committed"].get<bool>()) {
      line = "compacted " + std::to_string(t["fragments_removed"].get<uint64_t>()) +
             " fragments into " + std::to_string(t["fragments_added"].get<uint64_t>());
    }
    for (const Json& kind : t["indexes_built"]) {
      line += (line.empty() ? "built " : ", built ") + kind.get<std::string>();
    }
    for (const Json& kind : t["pending_indexes"]) {
      line += (line.empty() ? "could not build " : ", could not build ") + kind.get<std::string>();
    }
    if (!line.empty()) text += t["type_key"].get<std::string>() + ": " + line + "\n";
  }
  const Json& commit = out["commit"];
  if (commit.is_null()) return text + "nothing to compact: no commit";
  return text + "commit " + commit["graph_commit_id"].get<std::string>();
}

// optimize [--branch B] [--json] URI
void AddOptimize(CLI::App& app, Context& ctx) {
  auto branch = std::make_shared<std::string>("main");
  CLI::App* optimize = app.add_subcommand(
      "optimize", "Compact tables of many small fragments and build missing indexes");
  optimize->add_option("--branch", *branch, "The branch (default main)")->check(NonEmpty());
  AddUriArg(optimize, ctx);
  AddClusterTarget(optimize, ctx);
  optimize->callback([&ctx, branch] {
    Result<std::unique_ptr<Database>> db = ctx.Open();
    Result<Json> out = db.ok() ? (*db)->Optimize(*branch) : db.status();
    if (!out.ok()) {
      ctx.Fail(out.status());
      return;
    }
    if (!(*out)["commit"].is_null()) ctx.Echo("optimize");
    ctx.Print(*out, OptimizeText(*out));
  });
}

// version [--json] (also `omnigraph -v`): this build's version, the internal schema version it
// serves (OmniGraph's name for the storage format, as GET /healthz reports it: our storage
// stamp), the storage stamp itself and the build type.
void AddVersion(CLI::App& app, Context& ctx) {
  CLI::App* version =
      app.add_subcommand("version", "Print the version and the internal schema version (also: -v)");
  version->add_flag("--json", ctx.globals().json, "Print the JSON envelope");
  version->callback([&ctx] {
    Json v = Database::Version();
    const uint64_t stamp = v["storage_stamp"].get<uint64_t>();
    Json out = Json::object();
    out["build"] = v["build"];
    out["internal_schema_version"] = stamp;
    out["storage_stamp"] = stamp;
    out["version"] = v["version"];
    ctx.Print(out, "omnigraph " + v["version"].get<std::string>() + "\ninternal schema version " +
                       std::to_string(stamp) + "\nstorage-stamp " + std::to_string(stamp) +
                       "\nbuild " + v["build"].get<std::string>());
  });
}

}  // namespace

void AddMaintenanceCommands(CLI::App& app, Context& ctx) {
  AddCleanup(app, ctx);
  AddExport(app, ctx);
  AddOptimize(app, ctx);
  AddRepair(app, ctx);
  AddVersion(app, ctx);
}

}  // namespace omnigraph::cli
