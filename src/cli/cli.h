// The omnigraph command's shared pieces: the global options, the context every verb's callback
// runs in (the graph's URI, opening it, the write echo, printing, the exit status), and the
// helpers several verb groups use. Each verb group lives in its own file and registers its
// subcommands through one Add...Commands function, called by main.cc. CLI11 is included here and
// only by the command's own files (a heavy header). Single-threaded, like the command.
//
// Every command takes the graph's URI as its last positional argument (a path, file://,
// memory://, s3://, az://) or --store URI, or reaches a graph an omnigraph-server serves with
// --server URL [--token T] [--graph ID] (or an http:// or https:// URI argument); the output is
// the same either way. Results go to stdout (pretty JSON with --json, else a short human form);
// writes also echo "omnigraph <verb> → <target> (direct, local)" (or "(direct, remote)" for a
// store that is not a local path, "(served)" for a server) to stderr unless --quiet. Exit
// status: 0 ok, 1 error, 4 when an expected-commit precondition failed.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "omnigraph/cluster.h"
#include "omnigraph/omnigraph.h"

namespace omnigraph::cli {

using api::Code;
using api::Database;
using api::DatabaseOptions;
using api::InvalidArgument;
using api::Json;
using api::Result;
using api::Status;

constexpr int kExitError = 1;
constexpr int kExitPrecondition = 4;

// The options every command accepts (before or after the command) and the graph's URI.
struct Globals {
  std::string uri;
  std::string store;
  // An omnigraph-server's URL, its bearer token (else $OMNIGRAPH_BEARER_TOKEN) and a graph id.
  std::string server;
  std::string token;
  std::string graph;
  std::string actor;
  // A policy bundle file and its binding (cluster, or graph ids): `policy` commands check it;
  // every other command on a store installs it (DatabaseOptions::policy) and runs as --as.
  std::string policy;
  std::string applies_to;
  // A cluster's config directory or storage root (maintenance and policy verbs): the graph is
  // the one --graph names among those the cluster has applied (or its only one).
  std::string cluster;
  // A profile of the operator's config (else $OMNIGRAPH_PROFILE): the scope when none is given.
  std::string profile;
  bool quiet = false;
  bool json = false;
  // Consent to a destructive write (cleanup --confirm, load --mode overwrite, branch delete) on a
  // target that is not local (ConfirmDestructive).
  bool yes = false;
};

struct OperatorConfig;

// How the table format lays out cells (the operator's defaults.table_*): cut at max_width with
// '…', or wrapped onto more lines; 0 is no limit.
struct TableStyle {
  size_t max_width = 0;
  bool wrap = false;
};

// What a verb's callback needs: the global options, the graph, printing, and the exit status it
// sets. One per run of the command; the callbacks hold it by reference.
class Context {
 public:
  explicit Context(CLI::App& app);
  ~Context();

  Globals& globals() { return g_; }
  CLI::App& app() { return app_; }
  int rc() const { return rc_; }
  // Sets the exit status without a message (the output said what failed).
  void SetExit(int rc) { rc_ = rc; }
  // Reports `s` on stderr and sets the exit status it calls for.
  void Fail(const Status& s);
  // A failed expected-commit precondition: exit status 4; with --json OmniGraph's error envelope
  // {error, precondition_failure: {expected, actual?}} on stdout, else the error on stderr.
  void FailPrecondition(const Status& s, const std::string& expected,
                        const std::optional<std::string>& actual);

  // The graph's URI from the positional argument, --store, --server or --cluster; an error when
  // none is given, or two that differ.
  Result<std::string> Uri() const;
  // Applies the operator's config (docs/design/operator-config.md) once the command line is
  // parsed: --server and --cluster names, then for a command that addresses a graph and names
  // none, --profile / $OMNIGRAPH_PROFILE, else the defaults. False, with the error reported, when
  // the config cannot be read or the scope does not resolve: the command then does not run.
  bool ResolveScope();
  // The operator's config.yaml (read once; an absent file is empty).
  Result<const OperatorConfig*> Operator() const;
  // --profile, else $OMNIGRAPH_PROFILE ("" for none).
  std::string ActiveProfile() const;
  // NotFound naming the profiles the config has.
  Status UnknownProfile(const std::string& name) const;
  // Points the command at the operator's server `name` (and graph), as --server NAME would.
  Status UseServer(const std::string& name, const std::string& graph);
  // The query output format: `explicit_format` if given, else defaults.output, else table.
  std::string QueryFormat(const std::string& explicit_format) const;
  TableStyle Table() const;
  // The actor of direct writes: --as, else the operator's operator.actor ("" for none).
  std::string Actor() const;
  // With --cluster: the applied graph --graph names (or the cluster's only one), its root and
  // policy bundles as `cluster apply` recorded them.
  Result<cluster::AppliedGraph> ClusterGraph() const;
  // Whether the graph is one an omnigraph-server serves (--server, or an http(s):// URI).
  bool Remote() const;
  DatabaseOptions Options() const;
  // The bundle of --policy and --applies-to (policy_cmd.cc); InvalidArgument without --policy.
  Result<std::shared_ptr<const api::Policy>> LoadPolicy() const;
  // The graph: opened on its store, or connected to its server (Database::Connect).
  Result<std::unique_ptr<Database>> Open() const;
  // "omnigraph <verb> → <target> (<access path>)" on stderr unless --quiet.
  void Echo(const std::string& verb) const;
  // OmniGraph's destructive confirmation (docs/user/cli/reference.md "Write diagnostics &
  // destructive confirmation", decision 159): Ok for a local target (a path or file://), with
  // --yes, or when the operator answers y on a terminal (stdin and stderr are terminals and
  // --json is off); else InvalidArgument saying the write is destructive, where it would land
  // and that --yes confirms it. Checked before the graph is opened.
  Status ConfirmDestructive(const std::string& verb) const;
  // Prints `out` as pretty JSON, or `human` when --json is off (empty = JSON anyway).
  void Print(const Json& out, const std::string& human = "") const;

 private:
  Status ApplyProfileOrDefaults(const OperatorConfig& op);

  Globals g_;
  CLI::App& app_;
  int rc_ = 0;
  // The operator's config, read by ResolveScope; a scope error, reported by Uri().
  std::unique_ptr<OperatorConfig> op_;
  Status op_status_;
  Status scope_status_;
  // The server's name when --server (or a profile, default or alias) named one.
  std::string server_name_;
};

// Prints, as Print prints with --json, the object {before's members, name: [items], after's
// members}, the array an item at a time: a command that reads every page (commit list, commit
// changes, changes poll) holds one page, never all of them. Members print in the order given, so
// the caller keeps the envelope's sorted key order by putting the keys that sort before `name` in
// `before`.
class JsonArrayPrinter {
 public:
  JsonArrayPrinter(const Json& before, const std::string& name);
  void Add(const Json& item);
  void Finish(const Json& after);

 private:
  size_t count_ = 0;
};

// Progress (load, export, cleanup, branch merge): on a terminal, one line on stderr rewritten in
// place — what is done, the rate, the time so far and, where the total is known, the share done
// and an estimate of the time left — finished with a newline, or cleared by Fail. Nothing when
// stderr is not a terminal or with --quiet.
// The callback DatabaseOptions::progress takes, or none when stderr is not a terminal.
std::function<void(const api::Progress&)> TerminalProgress();
// "load reading: 120,000 entities, 80,000/s, 1.5 s, 40%, ~2.3 s left" (tests call it).
std::string ProgressText(const api::Progress& p);
// Erases an unfinished progress line (before an error is printed).
void ClearProgress();

// Prints `s` as one line on stderr, followed by "  fix: <text>" when it carries a query
// diagnostic with a repair; returns the exit status it calls for (4 for a failed precondition,
// else 1).
int Fail(const Status& s);

// Ok, or the error ReadFile would give for a missing file or a directory.
Status CheckReadable(const std::string& path);
// The whole of a file; an error naming it when it is missing, unreadable or a directory.
Result<std::string> ReadFile(const std::string& path);

// A CLI11 validator for counts: digits only, so "-1" is refused instead of wrapping around.
CLI::Validator WholeNumberAtLeast(uint64_t min);

// A CLI11 validator that refuses an empty value: "must not be empty".
CLI::Validator NonEmpty();

// "omnigraph branch create" for the deepest command the parse reached.
std::string CommandPath(CLI::App& app);

// The positional URI and --json of a command.
void AddUriArg(CLI::App* cmd, Context& ctx);
// --cluster DIR|URI: the command addresses a graph of a cluster by its id (--graph).
void AddClusterTarget(CLI::App* cmd, Context& ctx);
// OmniGraph's change filters `--kind K`, `--type T`, `--op O`, each repeatable (one value per
// occurrence, so a URI after one is not taken as a second value): changes poll|baseline, commit
// changes, diff.
void AddFilterOptions(CLI::App* cmd, api::ChangeFilter& f);

// "commit <id>" of a write's output (whose `commit` is the commit object), or "no commit".
std::string CommitText(const Json& j);

// How the command reaches the graph at `uri`: "served" for an omnigraph-server's http(s):// URL,
// "direct, local" for a path or file://, else "direct, remote" (OmniGraph's write echo's words).
std::string AccessPath(const std::string& uri);

// The query source, parameters and branch that query and mutate share.
struct QueryOptions {
  std::string name;
  std::string file;
  std::string source;
  std::string params_text;
  std::string params_file;
  std::string branch = "main";
  std::vector<std::string> args;  // [NAME] URI
};

// A read or mutation ready to run.
struct QueryRun {
  std::string source;
  Json params;
  std::unique_ptr<Database> db;
};

// The environment variable a --server command takes its bearer token from without --token.
constexpr const char* kBearerTokenEnv = "OMNIGRAPH_BEARER_TOKEN";

// Adds --query, -e, --params, --params-file and --branch to `cmd`.
void AddQueryOptions(CLI::App* cmd, QueryOptions& q);
// Splits the `[NAME] URI` arguments, reads the source and the parameters, opens the graph.
Result<QueryRun> PrepareQuery(QueryOptions& q, Context& ctx);

// Prints a query envelope as table, json, jsonl, csv or kv (query_cmd.cc).
Status PrintQueryRows(const Json& result, const std::string& format, const TableStyle& style = {});

// A positional argument as a parameter value: JSON when it parses ("29", "true", "{...}"), else
// the text as a string (stored_cmds.cc).
Json ArgValue(const std::string& text);
// Runs stored query `name` on the served graph (stored_cmds.cc): `args` bind to its declared
// parameters in order, `given` (--params) wins on a key both name.
Status RunStoredQuery(Context& ctx, const std::string& name, const std::vector<std::string>& args,
                      const Json& given, const api::ReadTarget& target, const std::string& format);
// `query --alias NAME ARGS...`: an alias of the project file ./omnigraph.yaml (alias_cmd.cc);
// `format` is --format when given, else empty.
Status RunProjectAlias(Context& ctx, const std::string& alias, const std::vector<std::string>& args,
                       const Json& given, const std::string& format);

// The verb groups, each in its own file.
void AddWriteCommands(CLI::App& app, Context& ctx);        // init, load, mutate
void AddBranchCommands(CLI::App& app, Context& ctx);       // branch create|list|delete
void AddCommitCommands(CLI::App& app, Context& ctx);       // commit list|show|changes, snapshot
void AddDiffCommand(CLI::App& app, Context& ctx);          // diff
void AddChangesCommands(CLI::App& app, Context& ctx);      // changes poll|baseline
void AddQueryCommand(CLI::App& app, Context& ctx);         // query
void AddSchemaCommands(CLI::App& app, Context& ctx);       // schema plan|apply|show
void AddMaintenanceCommands(CLI::App& app, Context& ctx);  // cleanup, export, repair, version
void AddBlobCommands(CLI::App& app, Context& ctx);         // blob get|stat
void AddLintCommand(CLI::App& app, Context& ctx);          // lint (also check)
void AddEmbedCommand(CLI::App& app, Context& ctx);         // embed (offline JSONL pipeline)
void AddPolicyCommands(CLI::App& app, Context& ctx);       // policy validate|test|explain
void AddQueriesCommands(CLI::App& app, Context& ctx);      // queries list|validate
void AddOperatorCommands(CLI::App& app, Context& ctx);     // login, logout, profile, alias

}  // namespace omnigraph::cli
