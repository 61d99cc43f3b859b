// omnigraph: the command-line front end (OmniGraph's CLI), over the public API only
// (include/omnigraph/omnigraph.h). CLI11 is included here and nowhere else (a heavy header).
//
// Every command takes the graph's URI as its last positional argument (a path, file://,
// memory://, s3://, az://) or --store URI. Results go to stdout (pretty JSON with --json, else a
// short human form); writes also echo "omnigraph <verb> → <target> (...)" to stderr unless
// --quiet. Options go before or after the URI; global options (--store, --as, --quiet) before or
// after the command. Exit status: 0 ok, 1 error (a usage error is one line naming the problem and
// the --help to read), 4 when an expected-commit precondition failed.
#include <CLI/CLI.hpp>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "omnigraph/omnigraph.h"

namespace omnigraph::cli {
namespace {

using api::CleanupRequest;
using api::Code;
using api::Database;
using api::DatabaseOptions;
using api::InvalidArgument;
using api::Json;
using api::ParseJson;
using api::ReadTarget;
using api::Result;
using api::Status;
using api::WriteTarget;

constexpr int kExitError = 1;
constexpr int kExitPrecondition = 4;

struct Globals {
  std::string uri;
  std::string store;
  std::string actor;
  bool quiet = false;
  bool json = false;
};

Result<std::string> ReadFile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return InvalidArgument("cannot read '" + path + "': it is a directory, not a file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return InvalidArgument("cannot read '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int Fail(const Status& s) {
  std::string where = s.object().empty() ? "" : " (" + s.object() + ")";
  std::fprintf(stderr, "omnigraph: error[%s]: %s%s\n", std::string(CodeName(s.code())).c_str(),
               s.message().c_str(), where.c_str());
  return s.code() == Code::kPreconditionFailed ? kExitPrecondition : kExitError;
}

// CLI11 validators for counts: digits only, so "-1" is refused instead of wrapping around.
CLI::Validator WholeNumberAtLeast(uint64_t min) {
  return CLI::Validator(
      [min](std::string& text) -> std::string {
        const std::string want = "expected a whole number of " + std::to_string(min) + " or more";
        if (text.empty() || text.size() > 19 ||
            text.find_first_not_of("0123456789") != std::string::npos) {
          return want + ", got '" + text + "'";
        }
        return std::stoull(text) < min ? want + ", got '" + text + "'" : std::string();
      },
      "N");
}

// "omnigraph branch create" for the deepest command the parse reached.
std::string CommandPath(CLI::App& app) {
  std::string path = app.get_name();
  for (CLI::App* at = &app; !at->get_subcommands().empty();) {
    at = at->get_subcommands().front();
    path += " " + at->get_name();
  }
  return path;
}

// A usage error (unknown command or option, missing argument, bad option value) as one line that
// names it and the --help to read; exit status 1.
int UsageError(CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
  std::string what = e.what();
  CLI::App* at = &app;
  while (!at->get_subcommands().empty()) at = at->get_subcommands().front();
  const bool needs_subcommand = what == "A subcommand is required";
  // Words nothing took are the likelier mistake than what they left missing (`init --bogus`
  // also lacks --schema): name the first of them.
  const std::vector<std::string> left = app.remaining(true);
  if (!left.empty() && !(needs_subcommand && at != &app)) {
    what = (left.front().starts_with("-") ? "unknown option '" : "unexpected argument '") +
           left.front() + "'";
  }
  if (at == &app) {
    // No command was recognized: name the word that should have been one.
    what = needs_subcommand && left.empty() ? "no command given" : what;
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg == "--store" || arg == "--as") {
        ++i;
      } else if (!arg.starts_with("-")) {
        what = "unknown command '" + arg + "'";
        break;
      }
    }
  } else if (needs_subcommand) {
    std::string names;
    for (const CLI::App* sub : at->get_subcommands({})) {
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    what = "'" + CommandPath(app) + "' needs one of: " + names;
  } else if (what.starts_with("args: ")) {
    what = "give at most a query name and the graph's URI";
  }
  what[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(what[0])));
  std::fprintf(stderr, "omnigraph: error[usage]: %s; see '%s --help'\n", what.c_str(),
               CommandPath(app).c_str());
  return kExitError;
}

// `[NAME] URI` of query and mutate: with --store, a lone word is the query's name.
void SplitQueryArgs(const std::vector<std::string>& args, Globals& g, std::string& name) {
  if (args.size() == 2 || (args.size() == 1 && !g.store.empty())) name = args.front();
  if (args.size() == 2 || (args.size() == 1 && g.store.empty())) g.uri = args.back();
}

class Runner {
 public:
  Runner(Globals& g, CLI::App& app) : g_(g), app_(app) {}

  Result<std::string> Uri() const {
    if (!g_.store.empty() && !g_.uri.empty() && g_.store != g_.uri) {
      return InvalidArgument("give the graph once: a URI argument or --store, not both");
    }
    std::string uri = g_.store.empty() ? g_.uri : g_.store;
    if (uri.empty()) {
      return InvalidArgument("no graph given: add its URI (a path, s3://, ...); see '" +
                             CommandPath(app_) + " --help'");
    }
    return uri;
  }
  DatabaseOptions Options() const {
    DatabaseOptions o;
    if (!g_.actor.empty()) o.actor = g_.actor;
    return o;
  }
  Result<std::unique_ptr<Database>> Open() const {
    OMNIGRAPH_ASSIGN_OR_RETURN(std::string uri, Uri());
    return Database::Open(uri, Options());
  }
  void Echo(const std::string& verb, const std::string& detail) const {
    if (g_.quiet) return;
    std::string target = g_.store.empty() ? g_.uri : g_.store;
    std::fprintf(stderr, "omnigraph %s \u2192 %s (%s)\n", verb.c_str(), target.c_str(),
                 detail.c_str());
  }
  // Prints `out` as pretty JSON, or `human` when --json is off (empty = JSON anyway).
  void Print(const Json& out, const std::string& human = "") const {
    if (g_.json || human.empty()) {
      std::cout << out.dump(2) << "\n";
    } else {
      std::cout << human << "\n";
    }
  }

 private:
  Globals& g_;
  CLI::App& app_;
};

Result<std::string> QuerySource(const std::string& file, const std::string& text) {
  if (file.empty() == text.empty()) {
    return InvalidArgument("give the query with exactly one of --query FILE or -e SOURCE");
  }
  return file.empty() ? Result<std::string>(text) : ReadFile(file);
}

Result<Json> Params(const std::string& text, const std::string& file) {
  if (!text.empty() && !file.empty()) {
    return InvalidArgument("give parameters with --params or --params-file, not both");
  }
  std::string json = text;
  if (!file.empty()) {
    OMNIGRAPH_ASSIGN_OR_RETURN(json, ReadFile(file));
  }
  if (json.empty()) return Json::object();
  return ParseJson(json, file.empty() ? "--params" : file);
}

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

// A read or mutation ready to run.
struct QueryRun {
  std::string source;
  Json params;
  std::unique_ptr<Database> db;
};

std::string CommitText(const Json& j) {
  return j.contains("commit") && j["commit"].is_string()
             ? "commit " + j["commit"].get<std::string>()
             : "no commit";
}

// A result cell as text for the table, csv and kv formats.
std::string CellText(const Json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// Prints a query envelope in one of OmniGraph's CLI's formats.
Status PrintRows(const Json& result, const std::string& format) {
  std::vector<std::string> columns;
  for (const Json& c : result["columns"]) {
    columns.push_back(c.is_object() ? c["name"].get<std::string>() : c.get<std::string>());
  }
  const Json& rows = result["rows"];
  if (format == "json") {
    std::cout << result.dump(2) << "\n";
  } else if (format == "jsonl") {
    Json meta = result;
    meta.erase("rows");
    std::cout << meta.dump() << "\n";
    for (const Json& row : rows) std::cout << row.dump() << "\n";
  } else if (format == "csv") {
    for (size_t i = 0; i < columns.size(); ++i) std::cout << (i ? "," : "") << CsvField(columns[i]);
    std::cout << "\n";
    for (const Json& row : rows) {
      for (size_t i = 0; i < columns.size(); ++i) {
        std::cout << (i ? "," : "") << CsvField(CellText(row[columns[i]]));
      }
      std::cout << "\n";
    }
  } else if (format == "kv") {
    for (size_t r = 0; r < rows.size(); ++r) {
      if (r > 0) std::cout << "\n";
      for (const std::string& c : columns) std::cout << c << ": " << CellText(rows[r][c]) << "\n";
    }
  } else if (format == "table") {
    std::vector<size_t> width;
    for (const std::string& c : columns) width.push_back(c.size());
    for (const Json& row : rows) {
      for (size_t i = 0; i < columns.size(); ++i) {
        width[i] = std::max(width[i], CellText(row[columns[i]]).size());
      }
    }
    auto line = [&](const std::vector<std::string>& cells) {
      for (size_t i = 0; i < cells.size(); ++i) {
        std::cout << (i ? "  " : "") << cells[i]
                  << std::string(i + 1 < cells.size() ? width[i] - cells[i].size() : 0, ' ');
      }
      std::cout << "\n";
    };
    line(columns);
    std::vector<std::string> rule;
    for (size_t w : width) rule.push_back(std::string(w, '-'));
    line(rule);
    for (const Json& row : rows) {
      std::vector<std::string> cells;
      for (const std::string& c : columns) cells.push_back(CellText(row[c]));
      line(cells);
    }
    std::cout << "(" << rows.size() << (rows.size() == 1 ? " row)\n" : " rows)\n");
  } else {
    return InvalidArgument("unknown format '" + format + "' (table, json, jsonl, csv, kv)");
  }
  return Status::Ok();
}

}  // namespace

int Main(int argc, char** argv) {
  CLI::App app{"OmniGraph C++: a typed property graph with branches, on an object store",
               "omnigraph"};
  app.require_subcommand(1);
  // Global options may also follow the command (subcommands inherit this on creation).
  app.fallthrough();
  Globals g;
  app.add_option("--store", g.store, "The graph's store URI (instead of the positional URI)");
  app.add_option("--as", g.actor, "The actor recorded on commits");
  app.add_flag("--quiet", g.quiet, "Do not echo writes to stderr");
  Runner run(g, app);
  int rc = 0;
  auto uri_arg = [&](CLI::App* cmd) {
    cmd->add_option("uri", g.uri,
                    "The graph: a path, file://, memory://, s3://bucket/prefix, az://");
    cmd->add_flag("--json", g.json, "Print the JSON envelope");
  };

  // init --schema F.pg URI
  std::string schema_file;
  CLI::App* init = app.add_subcommand("init", "Create a graph from a .pg schema");
  init->add_option("--schema", schema_file, "The schema file (.pg)")->required();
  uri_arg(init);
  init->callback([&] {
    Result<std::string> schema = ReadFile(schema_file);
    Result<std::string> uri = run.Uri();
    if (!schema.ok() || !uri.ok()) {
      rc = Fail(!schema.ok() ? schema.status() : uri.status());
      return;
    }
    Result<std::unique_ptr<Database>> db = Database::Init(*uri, *schema, run.Options());
    if (!db.ok()) {
      rc = Fail(db.status());
      return;
    }
    run.Echo("init", "schema " + schema_file);
    // Keys in byte order, like every envelope of the engine but a query's.
    run.Print(Json{{"initialized", true}, {"uri", *uri}}, "initialized " + *uri);
  });

  // load --data F --mode M [--branch B [--from BASE]] URI
  std::string data_file, mode, branch = "main", from;
  CLI::App* load = app.add_subcommand("load", "Load NDJSON data as one commit");
  load->add_option("--data", data_file, "The NDJSON file")->required();
  load->add_option("--mode", mode, "append | merge | overwrite")->required();
  load->add_option("--branch", branch, "The branch to load into (default main)");
  load->add_option("--from", from, "Create the branch from this one when it does not exist");
  uri_arg(load);
  load->callback([&] {
    Result<std::string> data = ReadFile(data_file);
    if (!data.ok()) {
      rc = Fail(data.status());
      return;
    }
    Result<std::unique_ptr<Database>> db = run.Open();
    if (!db.ok()) {
      rc = Fail(db.status());
      return;
    }
    WriteTarget target;
    target.branch = branch;
    if (!from.empty()) target.from = from;
    Result<Json> out = (*db)->Load(*data, mode, target);
    if (!out.ok()) {
      rc = Fail(out.status());
      return;
    }
    run.Echo("load", mode + " " + std::to_string((*out)["total_entities"].get<uint64_t>()) +
                         " entities into " + branch + ", " + CommitText(*out));
    run.Print(*out, "loaded " + std::to_string((*out)["total_entities"].get<uint64_t>()) +
                        " entities (" + CommitText(*out) + ")");
  });

  // mutate [NAME] (--query F | -e SRC) [--params JSON | --params-file F] [--branch B]
  //        [--if-commit ID] URI
  std::string query_name, query_file, query_src, params_text, params_file, if_commit;
  // What read and mutate both do first: read the source and the parameters, open the graph.
  auto prepare_query = [&]() -> Result<QueryRun> {
    QueryRun q;
    OMNIGRAPH_ASSIGN_OR_RETURN(q.source, QuerySource(query_file, query_src));
    OMNIGRAPH_ASSIGN_OR_RETURN(q.params, Params(params_text, params_file));
    OMNIGRAPH_ASSIGN_OR_RETURN(q.db, run.Open());
    return q;
  };
  // The options read and mutate share: the source, the parameters, the branch.
  auto query_options = [&](CLI::App* cmd) {
    cmd->add_option("--query", query_file, "A .gq file");
    cmd->add_option("-e", query_src, "Query source text");
    cmd->add_option("--params", params_text, "Parameters as a JSON object (keys without '$')");
    cmd->add_option("--params-file", params_file, "Parameters from a JSON file");
    cmd->add_option("--branch", branch, "The branch (default main)");
  };
  CLI::App* mutate = app.add_subcommand("mutate", "Run a mutation query as one commit");
  mutate->alias("change");
  std::vector<std::string> mutate_args;
  mutate
      ->add_option("args", mutate_args,
                   "[NAME] URI: the query to run (default: the source's only query) and the "
                   "graph")
      ->expected(0, 2);
  query_options(mutate);
  mutate->add_option("--if-commit", if_commit, "Only if the branch head is this commit");
  mutate->add_flag("--json", g.json, "Print the JSON envelope");
  mutate->callback([&] {
    SplitQueryArgs(mutate_args, g, query_name);
    Result<QueryRun> q = prepare_query();
    if (!q.ok()) {
      rc = Fail(q.status());
      return;
    }
    WriteTarget target;
    target.branch = branch;
    if (!if_commit.empty()) target.if_commit = if_commit;
    Result<Json> out = q->db->Mutate(q->source, query_name, q->params, target);
    if (!out.ok()) {
      rc = Fail(out.status());
      return;
    }
    run.Echo("mutate",
             (*out)["query_name"].get<std::string>() + " on " + branch + ", " + CommitText(*out));
    run.Print(*out);
  });

  // branch create [--from S] N | list | delete N
  std::string branch_name, branch_from = "main";
  CLI::App* branch_cmd = app.add_subcommand("branch", "Create, list and delete branches");
  branch_cmd->require_subcommand(1);
  CLI::App* bcreate = branch_cmd->add_subcommand("create", "Create a branch");
  bcreate->add_option("name", branch_name)->required();
  bcreate->add_option("--from", branch_from, "The branch to fork (default main)");
  bcreate->add_option("uri", g.uri);
  bcreate->add_flag("--json", g.json);
  bcreate->callback([&] {
    Result<std::unique_ptr<Database>> db = run.Open();
    Result<Json> out = db.ok() ? (*db)->CreateBranch(branch_name, branch_from) : db.status();
    if (!out.ok()) {
      rc = Fail(out.status());
      return;
    }
    run.Echo("branch create", branch_name + " from " + branch_from);
    run.Print(*out, "created " + branch_name);
  });
  CLI::App* blist = branch_cmd->add_subcommand("list", "List branches");
  uri_arg(blist);
  blist->callback([&] {
    Result<std::unique_ptr<Database>> db = run.Open();
    Result<Json> out = db.ok() ? (*db)->ListBranches() : db.status();
    if (!out.ok()) {
      rc = Fail(out.status());
      return;
    }
    std::string human;
    for (const Json& b : *out) {
      human += (human.empty() ? "" : "\n") + b["name"].get<std::string>() + "  " +
               b["head_commit_id"].get<std::string>();
    }
    run.Print(*out, human);
  });
  CLI::App* bdelete = branch_cmd->add_subcommand("delete", "Delete a branch");
  bdelete->add_option("name", branch_name)->required();
  bdelete->add_option("uri", g.uri);
  bdelete->callback([&] {
    Result<std::unique_ptr<Database>> db = run.Open();
    Status s = db.ok() ? (*db)->DeleteBranch(branch_name) : db.status();
    if (!s.ok()) {
      rc = Fail(s);
      return;
    }
    run.Echo("branch delete", branch_name);
  });

  // commit list [--branch B] | show ID
  std::string commit_id;
  size_t limit = 100;
  CLI::App* commit_cmd = app.add_subcommand("commit", "Commit history");
  commit_cmd->require_subcommand(1);
  CLI::App* clist = commit_cmd->add_subcommand("list", "Commits of a branch, newest first");
  clist->add_option("--branch", branch, "The branch (default main)");
  clist->add_option("--limit", limit, "At most this many (default 100)")
      ->check(WholeNumberAtLeast(0));
  uri_arg(clist);
  clist->callback([&] {
    Result<std::unique_ptr<Database>> db = run.Open();
    Result<Json> out = db.ok() ? (*db)->ListCommits(branch, limit) : db.status();
    if (!out.ok()) {
      rc = Fail(out.status());
      return;
    }
    std::string human;
    for (const Json& c : *out) {
      human += (human.empty() ? "" : "\n") + c["graph_commit_id"].get<std::string>() + "  #" +
               std::to_string(c["graph_manifest_version"].get<uint64_t>());
    }
    run.Print(*out, human);
  });
  CLI::App* cshow = commit_cmd->add_subcommand("show", "One commit");
  cshow->add_option("id", commit_id)->required();
  uri_arg(cshow);
  cshow->callback([&] {
    Result<std::unique_ptr<Database>> db = run.Open();
    Result<Json> out = db.ok() ? (*db)->ShowCommit(commit_id) : db.status();
    if (!out.ok()) {
      rc = Fail(out.status());
      return;
    }
    run.Print(*out);
  });

  // query [NAME] (--query F | -e SRC) [--params JSON | --params-file F] [--branch B | --snapshot
  // ID]
  //       [--format table|json|jsonl|csv|kv | --json] URI
  std::string snapshot_id, format = "table";
  std::vector<std::string> query_args;
  CLI::App* query_cmd = app.add_subcommand("query", "Run a read query");
  query_cmd->alias("read");
  query_cmd->add_option("args", query_args, "[NAME] URI")->expected(0, 2);
  query_options(query_cmd);
  query_cmd->add_option("--snapshot", snapshot_id, "Read at this commit instead");
  query_cmd->add_option("--format", format, "table | json | jsonl | csv | kv");
  query_cmd->add_flag("--json", g.json, "Same as --format json");
  query_cmd->callback([&] {
    SplitQueryArgs(query_args, g, query_name);
    Result<QueryRun> q = prepare_query();
    if (!q.ok()) {
      rc = Fail(q.status());
      return;
    }
    ReadTarget target;
    target.branch = branch;
    if (!snapshot_id.empty()) target.snapshot = snapshot_id;
    Result<Json> out = q->db->Query(q->source, query_name, q->params, target);
    Status printed = out.ok() ? PrintRows(*out, g.json ? "json" : format) : out.status();
    if (!printed.ok()) rc = Fail(printed);
  });

  // schema plan|apply --schema F [--allow-data-loss] URI · schema show URI
  bool allow_data_loss = false;
  CLI::App* schema_cmd = app.add_subcommand("schema", "Show, plan and apply schema changes");
  schema_cmd->require_subcommand(1);
  for (const char* verb : {"plan", "apply"}) {
    CLI::App* sub = schema_cmd->add_subcommand(
        verb, std::string(verb) == "plan" ? "Plan a migration to a new schema"
                                          : "Apply a new schema on main (one commit)");
    sub->add_option("--schema", schema_file, "The new schema (.pg)")->required();
    sub->add_flag("--allow-data-loss", allow_data_loss, "Drops become hard");
    uri_arg(sub);
    const std::string name = verb;
    sub->callback([&, name] {
      Result<std::string> text = ReadFile(schema_file);
      Result<std::unique_ptr<Database>> db =
          text.ok() ? run.Open() : Result<std::unique_ptr<Database>>(text.status());
      if (!db.ok()) {
        rc = Fail(db.status());
        return;
      }
      Result<Json> out = name == "plan" ? (*db)->PlanSchema(*text, allow_data_loss)
                                        : (*db)->ApplySchema(*text, allow_data_loss);
      if (!out.ok()) {
        rc = Fail(out.status());
        return;
      }
      if (name == "apply") {
        run.Echo("schema apply", (*out)["applied"].get<bool>()
                                     ? std::to_string((*out)["step_count"].get<uint64_t>()) +
                                           " steps, commit " + (*out)["commit"].get<std::string>()
                                     : "no change");
      }
      run.Print(*out);
    });
  }
  CLI::App* schema_show = schema_cmd->add_subcommand("show", "Print the accepted schema");
  schema_show->add_option("--branch", branch, "The branch (default main)");
  uri_arg(schema_show);
  schema_show->callback([&] {
    Result<std::unique_ptr<Database>> db = run.Open();
    Result<Json> out = db.ok() ? (*db)->ShowSchema(branch) : db.status();
    if (!out.ok()) {
      rc = Fail(out.status());
      return;
    }
    run.Print(*out, (*out)["source"].get<std::string>());
  });

  // cleanup (--keep N | --older-than 7d) [--confirm] URI
  uint64_t keep = 0;
  std::string older_than;
  bool confirm = false;
  CLI::App* cleanup = app.add_subcommand("cleanup", "Remove what no retained commit needs");
  cleanup->add_option("--keep", keep, "Keep the newest N commits of every branch")
      ->check(WholeNumberAtLeast(1));
  cleanup->add_option("--older-than", older_than, "Keep commits younger than this (7d, 12h, 30m)");
  cleanup->add_flag("--confirm", confirm, "Remove (without it, only report what would go)");
  uri_arg(cleanup);
  cleanup->callback([&] {
    CleanupRequest request;
    if (keep > 0) request.keep = keep;
    if (!older_than.empty()) {
      Result<int64_t> micros = DurationMicros(older_than);
      if (!micros.ok()) {
        rc = Fail(micros.status());
        return;
      }
      request.older_than_micros = *micros;
    }
    request.dry_run = !confirm;
    Result<std::unique_ptr<Database>> db = run.Open();
    Result<Json> out = db.ok() ? (*db)->Cleanup(request) : db.status();
    if (!out.ok()) {
      rc = Fail(out.status());
      return;
    }
    run.Echo("cleanup", std::string(confirm ? "removed " : "would remove ") +
                            std::to_string((*out)["objects_removed"].get<uint64_t>()) + " objects");
    run.Print(*out, std::string(confirm ? "removed " : "would remove ") +
                        std::to_string((*out)["objects_removed"].get<uint64_t>()) + " objects (" +
                        std::to_string((*out)["bytes_removed"].get<uint64_t>()) + " bytes)" +
                        (confirm ? "" : "; add --confirm to remove them"));
  });

  // export [--branch B] [--type T]... URI
  std::vector<std::string> types;
  CLI::App* exp = app.add_subcommand("export", "Write a branch's data as NDJSON to stdout");
  exp->add_option("--branch", branch, "The branch (default main)");
  // One value per --type, so that a URI after it stays the URI.
  exp->add_option("--type", types, "Only these types (repeatable)")->allow_extra_args(false);
  exp->add_option("uri", g.uri);
  exp->callback([&] {
    Result<std::unique_ptr<Database>> db = run.Open();
    Status s =
        db.ok() ? (*db)->Export(
                      branch, types,
                      [](std::string_view chunk) {
                        std::cout.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
                        return std::cout ? Status::Ok() : Status(Code::kTransient, "stdout failed");
                      })
                : db.status();
    if (!s.ok()) rc = Fail(s);
  });

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help prints the usage and exits 0; everything else is a usage error.
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);
    return UsageError(app, e, argc, argv);
  }
  return rc;
}

}  // namespace omnigraph::cli

int main(int argc, char** argv) { return omnigraph::cli::Main(argc, argv); }
