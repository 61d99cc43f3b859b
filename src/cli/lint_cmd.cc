// lint --query F [--schema F.pg | --schema URI | URI] [--json]: OmniGraph's query lint, offline
// against a schema file or against a graph's accepted schema. Exit status 1 only when the report
// is an error (a parse error, a query that does not check); warnings never fail it.
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include "cli.h"

namespace omnigraph::cli {
namespace {

struct LintOptions {
  std::string query_file;
  std::string schema;
};

// OmniGraph's lint report with where the schema and the queries came from, in its order:
// {status, schema_source: {kind: file, path} | {kind: graph, uri}, query_path, ...the report}.
Json WithSources(const Json& report, const Json& schema_source, const std::string& query_path) {
  Json out = Json::object();
  out["status"] = report["status"];
  out["schema_source"] = schema_source;
  out["query_path"] = query_path;
  for (const auto& [key, value] : report.members()) {
    if (key != "status") out[key] = value;
  }
  return out;
}

// OmniGraph's human form: one line per query, its warnings, the findings, a summary line.
std::string LintText(const Json& r) {
  std::string text;
  auto line = [&](const std::string& s) { text += (text.empty() ? "" : "\n") + s; };
  for (const Json& q : r["results"]) {
    const std::string name = q["name"].get<std::string>();
    if (q["status"] == "ok") {
      line("OK    query `" + name + "` (" + q["kind"].get<std::string>() + ")");
    } else {
      line("ERROR query `" + name + "`: " + q["error"].get<std::string>());
    }
    for (const Json& w : q["warnings"]) line("WARN  query `" + name + "`: " + w.get<std::string>());
  }
  for (const Json& f : r["findings"]) {
    const std::string severity = f["severity"].get<std::string>();
    const std::string label = severity == "error"     ? "ERROR"
                              : severity == "warning" ? "WARN "
                                                      : "INFO ";
    line(label + " " + f["message"].get<std::string>());
  }
  line("INFO  Lint complete: " + std::to_string(r["queries_processed"].get<uint64_t>()) +
       " queries processed (" + std::to_string(r["errors"].get<uint64_t>()) + " error(s), " +
       std::to_string(r["warnings"].get<uint64_t>()) + " warning(s), " +
       std::to_string(r["infos"].get<uint64_t>()) + " info item(s))");
  return text;
}

// The report: offline when --schema names a file, else against the graph --schema, the URI
// argument or --store names.
Result<Json> RunLint(const LintOptions& o, Context& ctx, const std::string& source) {
  std::error_code ec;
  if (!o.schema.empty() && std::filesystem::is_regular_file(o.schema, ec)) {
    OMNIGRAPH_ASSIGN_OR_RETURN(std::string schema, ReadFile(o.schema));
    OMNIGRAPH_ASSIGN_OR_RETURN(Json report, Database::LintWithSchema(schema, source));
    return WithSources(report, Json{{"kind", "file"}, {"path", o.schema}}, o.query_file);
  }
  if (!o.schema.empty() && o.schema.find("://") == std::string::npos &&
      !std::filesystem::is_directory(o.schema, ec)) {
    return InvalidArgument("cannot read '" + o.schema + "': No such file or directory");
  }
  if (o.schema.empty() && ctx.Remote()) {
    OMNIGRAPH_ASSIGN_OR_RETURN(std::unique_ptr<Database> db, ctx.Open());
    OMNIGRAPH_ASSIGN_OR_RETURN(Json report, db->Lint(source));
    return WithSources(report, Json{{"kind", "graph"}, {"uri", db->uri()}}, o.query_file);
  }
  std::string uri = o.schema;
  if (uri.empty()) {
    if (ctx.globals().uri.empty() && ctx.globals().store.empty()) {
      return InvalidArgument(
          "lint requires --schema <schema.pg> (offline) or a graph target (a URI argument or "
          "--store)");
    }
    OMNIGRAPH_ASSIGN_OR_RETURN(uri, ctx.Uri());
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(std::unique_ptr<Database> db, Database::Open(uri, ctx.Options()));
  OMNIGRAPH_ASSIGN_OR_RETURN(Json report, db->Lint(source));
  return WithSources(report, Json{{"kind", "graph"}, {"uri", uri}}, o.query_file);
}

}  // namespace

void AddLintCommand(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<LintOptions>();
  CLI::App* lint =
      app.add_subcommand("lint", "Check every query of a .gq file against a schema (also: check)");
  lint->add_option("--query", o->query_file, "The .gq file")->required();
  lint->add_option("--schema", o->schema,
                   "A .pg schema file (offline), or a graph's URI (its accepted schema)");
  AddUriArg(lint, ctx);
  lint->callback([&ctx, o] {
    Result<std::string> source = ReadFile(o->query_file);
    Result<Json> out = source.ok() ? RunLint(*o, ctx, *source) : source.status();
    if (!out.ok()) {
      ctx.Fail(out.status());
      return;
    }
    ctx.Print(*out, LintText(*out));
    if ((*out)["status"] != "ok") ctx.SetExit(kExitError);
  });
}

}  // namespace omnigraph::cli
