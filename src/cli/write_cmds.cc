// The verbs that write data: init, load, mutate.
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli.h"

namespace omnigraph::cli {
namespace {

using api::WriteTarget;

// What `init --force` found and did, for its output: what it replaced (an unfinished init) and
// what it left in place (objects that are not a graph). Empty when the root was empty.
std::string ForcedText(const Json& report) {
  const Json& found = report["found"];
  if (!found.is_array() || found.empty()) return "";
  std::string names;
  for (const Json& n : found) names += (names.empty() ? "'" : ", '") + n.get<std::string>() + "'";
  const bool more = report["found_more"].is_boolean() && report["found_more"].get<bool>();
  const std::string count = more ? "more than " + std::to_string(found.size()) + " objects"
                                 : std::to_string(found.size()) + " object(s)";
  if (report.contains("completed_graph_id")) {
    return "\n--force: replaced the unfinished init of graph " +
           report["completed_graph_id"].get<std::string>() +
           " (its stamp kept; its genesis now pins this schema) among " + count + ": " + names;
  }
  return "\n--force: the root held " + count + " that are not a graph, left in place: " + names;
}

// init [--force] --schema F.pg URI
void AddInit(CLI::App& app, Context& ctx) {
  auto schema_file = std::make_shared<std::string>();
  auto force = std::make_shared<bool>(false);
  CLI::App* init = app.add_subcommand("init", "Create a graph from a .pg schema");
  init->add_option("--schema", *schema_file, "The schema file (.pg)")
      ->required()
      ->check(NonEmpty());
  init->add_flag("--force", *force,
                 "Initialise a root that is not empty: among objects that are not a graph "
                 "(left in place), or over an unfinished init; never over a graph");
  AddUriArg(init, ctx);
  init->callback([&ctx, schema_file, force] {
    if (ctx.Remote()) {
      ctx.Fail(Status(Code::kUnsupported,
                      "init creates a graph on a store: give the store's URI (omnigraph-server "
                      "serves a graph that exists)"));
      return;
    }
    Result<std::string> schema = ReadFile(*schema_file);
    Result<std::string> uri = ctx.Uri();
    if (!schema.ok() || !uri.ok()) {
      ctx.Fail(!schema.ok() ? schema.status() : uri.status());
      return;
    }
    DatabaseOptions options = ctx.Options();
    options.init_force = *force;
    Result<std::unique_ptr<Database>> db = Database::Init(*uri, *schema, options);
    if (!db.ok()) {
      ctx.Fail(db.status());
      return;
    }
    ctx.Echo("init");
    // Keys in byte order, like every envelope of the engine but a query's.
    Json out{{"initialized", true}, {"uri", *uri}};
    const Json report = (*db)->InitReport();
    if (*force) out["forced"] = report;
    ctx.Print(out, "initialized " + *uri + ForcedText(report));
  });
}

// OmniGraph's human form of a load, and a line when nothing was published.
std::string LoadText(const Json& out) {
  std::string text = "loaded " + out["uri"].get<std::string>() + " on branch " +
                     out["branch"].get<std::string>() + " with " + out["mode"].get<std::string>() +
                     ": " + std::to_string(out["total_entities"].get<uint64_t>()) +
                     " entities across " + std::to_string(out["nodes"].size()) +
                     " node types and " + std::to_string(out["edges"].size()) + " edge types";
  if (out["branch_created"].get<bool>() && out.contains("base_branch")) {
    text += "\nbranch " + out["branch"].get<std::string>() + " created from " +
            out["base_branch"].get<std::string>();
  }
  if (out["commit"].is_null()) text += "\nno commit: the input holds no entity";
  return text;
}

// OmniGraph's human form of a mutation.
std::string MutateText(const Json& out) {
  std::string text = "changed " + out["branch"].get<std::string>() + " via " +
                     out["query_name"].get<std::string>() + ": " +
                     std::to_string(out["affected_nodes"].get<uint64_t>()) + " nodes, " +
                     std::to_string(out["affected_edges"].get<uint64_t>()) + " edges";
  if (out.contains("actor_id")) text += "\nactor_id: " + out["actor_id"].get<std::string>();
  text += "\n" + CommitText(out);
  return text;
}

// The head of `branch` now, for the `actual` of a failed precondition (none when unreadable).
std::optional<std::string> HeadOf(Database& db, const std::string& branch) {
  Result<Json> all = db.ListBranches();
  if (!all.ok()) return std::nullopt;
  for (const Json& b : *all) {
    if (b["name"] == branch) return b["head_commit_id"].get<std::string>();
  }
  return std::nullopt;
}

struct LoadOptions {
  std::string data_file;
  std::string mode;
  std::string branch = "main";
  std::string from;
  std::string idempotency_key;
};

// Loads `o.data_file` as `verb` (load, ingest) does: the file streamed (Database::LoadFile),
// never held whole; the write echoed; the load envelope printed.
void RunLoad(Context& ctx, const LoadOptions& o, const char* verb) {
  Status readable = CheckReadable(o.data_file);
  if (!readable.ok()) return ctx.Fail(readable);
  if (o.mode == "overwrite") {
    if (Status consent = ctx.ConfirmDestructive(std::string(verb) + " --mode overwrite");
        !consent.ok()) {
      return ctx.Fail(consent);
    }
  }
  Result<std::unique_ptr<Database>> db = ctx.Open();
  if (!db.ok()) return ctx.Fail(db.status());
  WriteTarget target;
  target.branch = o.branch;
  if (!o.from.empty()) target.from = o.from;
  if (!o.idempotency_key.empty()) target.idempotency_key = o.idempotency_key;
  Result<Json> out = (*db)->LoadFile(o.data_file, o.mode, target);
  if (!out.ok()) return ctx.Fail(out.status());
  ctx.Echo(verb);
  ctx.Print(*out, LoadText(*out));
}

// load --data F --mode M [--branch B [--from BASE]] URI
void AddLoad(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<LoadOptions>();
  CLI::App* load = app.add_subcommand("load", "Load NDJSON data as one commit");
  load->add_option("--data", o->data_file, "The NDJSON file")->required()->check(NonEmpty());
  load->add_option("--mode", o->mode, "append | merge | overwrite")->required();
  load->add_option("--branch", o->branch, "The branch to load into (default main)")
      ->check(NonEmpty());
  load->add_option("--from", o->from, "Create the branch from this one when it does not exist")
      ->check(NonEmpty());
  load->add_option("--idempotency-key", o->idempotency_key,
                   "Safe to retry: a load with a key already committed answers as it did")
      ->check(NonEmpty());
  load->footer(
      "A load whose input holds no entity still publishes one commit that changes no table, as "
      "OmniGraph's does; a mutation that changes nothing publishes none.");
  AddUriArg(load, ctx);
  load->callback([&ctx, o] { RunLoad(ctx, *o, "load"); });
}

// ingest --data F [--branch B] [--from BASE] [--mode M] URI: OmniGraph's deprecated loader, with
// its defaults (--from main --mode merge) and a one-line warning; the load itself is `load`'s
// (decision 158).
void AddIngest(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<LoadOptions>();
  o->mode = "merge";
  o->from = "main";
  CLI::App* ingest =
      app.add_subcommand("ingest", "Deprecated: load with --from main --mode merge by default");
  ingest->add_option("--data", o->data_file, "The NDJSON file")->required()->check(NonEmpty());
  ingest->add_option("--mode", o->mode, "append | merge (default) | overwrite")->check(NonEmpty());
  ingest->add_option("--branch", o->branch, "The branch to load into (default main)")
      ->check(NonEmpty());
  ingest->add_option("--from", o->from, "Create the branch from this one (default main)")
      ->check(NonEmpty());
  AddUriArg(ingest, ctx);
  ingest->callback([&ctx, o] {
    std::fprintf(stderr,
                 "warning: `omnigraph ingest` is deprecated; use `omnigraph load --data F --mode "
                 "M` (strict: the mode is required)\n");
    RunLoad(ctx, *o, "ingest");
  });
}

struct MutateOptions {
  QueryOptions query;
  std::string if_commit;
  std::string idempotency_key;
};

// mutate [NAME] (--query F | -e SRC) [--params JSON | --params-file F] [--branch B]
//        [--if-commit ID] URI
void AddMutate(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<MutateOptions>();
  CLI::App* mutate = app.add_subcommand("mutate", "Run a mutation query as one commit");
  mutate->alias("change");
  mutate
      ->add_option("args", o->query.args,
                   "[NAME] URI: the query to run (default: the source's only query) and the "
                   "graph")
      ->expected(0, 2);
  AddQueryOptions(mutate, o->query);
  mutate->add_option("--if-commit", o->if_commit, "Only if the branch head is this commit")
      ->check(NonEmpty());
  mutate
      ->add_option("--idempotency-key", o->idempotency_key,
                   "Safe to retry: a mutation with a key already committed answers as it did")
      ->check(NonEmpty());
  mutate->add_flag("--json", ctx.globals().json, "Print the JSON envelope");
  mutate->callback([&ctx, o] {
    Result<QueryRun> q = PrepareQuery(o->query, ctx);
    if (!q.ok()) {
      ctx.Fail(q.status());
      return;
    }
    WriteTarget target;
    target.branch = o->query.branch;
    if (!o->if_commit.empty()) target.if_commit = o->if_commit;
    if (!o->idempotency_key.empty()) target.idempotency_key = o->idempotency_key;
    Result<Json> out = q->db->Mutate(q->source, o->query.name, q->params, target);
    if (!out.ok() && out.status().code() == Code::kPreconditionFailed && !o->if_commit.empty()) {
      ctx.FailPrecondition(out.status(), o->if_commit, HeadOf(*q->db, o->query.branch));
      return;
    }
    if (!out.ok()) {
      ctx.Fail(out.status());
      return;
    }
    ctx.Echo("mutate");
    // Warnings go to stderr in every format, as a query's do; --json also carries them.
    if (out->contains("warnings")) {
      for (const Json& w : (*out)["warnings"]) {
        std::cerr << "warning: " << w.get<std::string>() << "\n";
      }
    }
    ctx.Print(*out, MutateText(*out));
  });
}

}  // namespace

void AddWriteCommands(CLI::App& app, Context& ctx) {
  AddInit(app, ctx);
  AddLoad(app, ctx);
  AddIngest(app, ctx);
  AddMutate(app, ctx);
}

}  // namespace omnigraph::cli
