// The stored-query lanes of the command (docs/design/stored-queries.md "CLI"):
//
//   query NAME [ARG...] [--params JSON] --server URL [--graph ID]   (no --query, no -e)
//   query NAME [ARG...] http://HOST:PORT[/graphs/ID]
//       runs the stored query NAME the server serves for the graph; positional ARGs bind to its
//       declared parameters in order (each parsed as JSON, else taken as a string), --params wins
//       on a key both give.
//   queries list [--json] (--server URL | http://...)
//       the served graph's catalog: kind, name and typed parameters of each stored query.
//   queries validate --queries PATH... URI
//       checks query files against the graph's schema on main as the server does at boot: every
//       query must check and no name may be declared twice; exit 1 naming file, line and reason.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cli.h"

namespace omnigraph::cli {
namespace {

// "name: kind" of each parameter, "?" for a nullable one.
std::string ParamList(const Json& params) {
  std::string out;
  for (const Json& p : params) {
    std::string kind = p["kind"].string_value();
    if (kind == "list") kind = "[" + p["item_kind"].string_value() + "]";
    if (kind == "vector") kind += "(" + p["vector_dim"].dump() + ")";
    out += (out.empty() ? "" : ", ") + p["name"].string_value() + ": " + kind +
           (p["nullable"].get<bool>() ? "?" : "");
  }
  return out;
}

std::string CatalogText(const Json& catalog) {
  std::string out;
  for (const Json& q : catalog["queries"]) {
    out += std::string(q["mutation"].get<bool>() ? "mutation " : "read     ") +
           q["name"].string_value() + "(" + ParamList(q["params"]) + ")\n";
    if (q["description"].is_string()) {
      out += "    description: " + q["description"].string_value() + "\n";
    }
    if (q["instruction"].is_string()) {
      out += "    instruction: " + q["instruction"].string_value() + "\n";
    }
  }
  if (out.empty()) return "(no stored queries)";
  out.pop_back();
  return out;
}

struct ValidateOptions {
  std::vector<std::string> paths;
};

// Every file of `path` (a .gq file, or the *.gq of a folder), sorted.
Result<std::vector<std::string>> QueryFiles(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec)) {
    OMNIGRAPH_RETURN_IF_ERROR(CheckReadable(path));
    return std::vector<std::string>{path};
  }
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(path, ec)) {
    if (e.is_regular_file() && e.path().extension() == ".gq") out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The server's boot check, offline: {status, queries: [{name, file, line, mutation}]} or the
// first failure.
Result<Json> Validate(Database& db, const std::vector<std::string>& paths) {
  std::map<std::string, std::string> seen;  // name -> file:line
  Json queries = Json::array();
  for (const std::string& path : paths) {
    OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<std::string> files, QueryFiles(path));
    for (const std::string& file : files) {
      OMNIGRAPH_ASSIGN_OR_RETURN(std::string source, ReadFile(file));
      OMNIGRAPH_ASSIGN_OR_RETURN(Json report, db.Lint(source, "main"));
      for (const Json& f : report["findings"]) {
        if (f["severity"].string_value() != "error") continue;
        return InvalidArgument(file + ":" + f["position"]["line"].dump() + ": " +
                               f["message"].string_value());
      }
      for (const Json& q : report["queries"]) {
        const std::string name = q["name"].string_value();
        const std::string at = file + ":" + q["line"].dump();
        if (q["status"].string_value() != "ok") {
          return InvalidArgument("stored query '" + name + "' at " + file + ":" +
                                 q["diagnostic"]["position"]["line"].dump() +
                                 " does not check against the graph's schema: " +
                                 q["diagnostic"]["message"].string_value());
        }
        if (!seen.emplace(name, at).second) {
          return InvalidArgument("stored query '" + name + "' is declared twice: at " + seen[name] +
                                 " and at " + at);
        }
        queries.push_back(Json{{"name", name},
                               {"file", file},
                               {"line", q["line"]},
                               {"mutation", q["kind"].string_value() == "mutation"}});
      }
    }
  }
  return Json{{"status", "ok"}, {"queries", std::move(queries)}};
}

}  // namespace

Json ArgValue(const std::string& text) {
  Result<Json> parsed = api::ParseJson(text, "argument");
  return parsed.ok() ? *parsed : Json(text);
}

Status RunStoredQuery(Context& ctx, const std::string& name, const std::vector<std::string>& args,
                      const Json& given, const api::ReadTarget& target, const std::string& format) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::unique_ptr<Database> db, ctx.Open());
  Json params = Json::object();
  if (!args.empty()) {
    OMNIGRAPH_ASSIGN_OR_RETURN(Json catalog, db->StoredQueries());
    const Json* declared = nullptr;
    for (const Json& q : catalog["queries"]) {
      if (q["name"].string_value() == name) declared = &q;
    }
    if (declared == nullptr) {
      return Status(Code::kNotFound, "the server serves no stored query '" + name + "'");
    }
    if (args.size() > (*declared)["params"].size()) {
      return InvalidArgument("stored query '" + name + "' takes " +
                             std::to_string((*declared)["params"].size()) + " parameters (" +
                             ParamList((*declared)["params"]) + "), not " +
                             std::to_string(args.size()));
    }
    for (size_t i = 0; i < args.size(); ++i) {
      params[(*declared)["params"][i]["name"].string_value()] = ArgValue(args[i]);
    }
  }
  for (const Json::Member& m : given.members()) params[m.first] = m.second;
  OMNIGRAPH_ASSIGN_OR_RETURN(Json out, db->InvokeStoredQuery(name, params, target));
  if (!out.contains("rows")) {
    ctx.Print(out, CommitText(out));
    return Status::Ok();
  }
  return PrintQueryRows(out, ctx.QueryFormat(format), ctx.Table());
}

void AddQueriesCommands(CLI::App& app, Context& ctx) {
  CLI::App* queries = app.add_subcommand("queries", "The stored queries a server serves");
  queries->require_subcommand(1);
  CLI::App* list = queries->add_subcommand("list", "The served graph's stored-query catalog");
  AddUriArg(list, ctx);
  list->callback([&ctx] {
    Result<std::unique_ptr<Database>> db = ctx.Open();
    Result<Json> catalog = db.ok() ? (*db)->StoredQueries() : Result<Json>(db.status());
    if (!catalog.ok()) return ctx.Fail(catalog.status());
    ctx.Print(*catalog, CatalogText(*catalog));
  });
  auto o = std::make_shared<ValidateOptions>();
  CLI::App* validate = queries->add_subcommand(
      "validate",
      "Checks stored-query files against the graph's schema, as the server's boot does");
  validate->add_option("--queries", o->paths, "A .gq file or a folder of them (repeatable)")
      ->required()
      ->allow_extra_args(false);
  AddUriArg(validate, ctx);
  validate->callback([&ctx, o] {
    Result<std::unique_ptr<Database>> db = ctx.Open();
    Result<Json> report = db.ok() ? Validate(**db, o->paths) : Result<Json>(db.status());
    if (!report.ok()) return ctx.Fail(report.status());
    ctx.Print(*report, std::to_string((*report)["queries"].size()) + " stored queries check");
  });
}

}  // namespace omnigraph::cli
