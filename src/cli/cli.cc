// The omnigraph command's shared helpers (cli.h).
#include "cli.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "operator_config.h"

namespace omnigraph::cli {

using api::ParseJson;

namespace {

// The exit status of a failure (docs/design/api.md "Command line"): 4 when `--if-commit` did not
// match, 1 for any other error. Every code is named (no default), so a code added to
// omnigraph/status_codes.h does not build until it is given its exit status here.
int ExitStatusOf(Code code) {
  switch (code) {
    case Code::kPreconditionFailed: return kExitPrecondition;
    case Code::kOk:  // Not a failure; Fail is called with failures only.
    case Code::kInvalidArgument:
    case Code::kNotFound:
    case Code::kAlreadyExists:
    case Code::kPrecondition:
    case Code::kTransient:
    case Code::kUnknown:
    case Code::kConfiguration:
    case Code::kPermanent:
    case Code::kCorruption:
    case Code::kFormatTooNew:
    case Code::kTooLarge:
    case Code::kUnsupported:
    case Code::kInternal:
    case Code::kCancelled:
    case Code::kReadSetChanged:
    case Code::kRetriesExhausted:
    case Code::kPublicationInDoubt:
    case Code::kBranchNotFound:
    case Code::kBranchExists:
    case Code::kCommitNotFound:
    case Code::kAlreadyInitialized:
    case Code::kInitializationIncomplete:
    case Code::kKeyConflict:
    case Code::kMergeConflicts:
    case Code::kResourceLimit:
    case Code::kUnknownStamp:
    case Code::kVersionsReclaimed:
    case Code::kParentlessCommit:
    case Code::kSchemaBoundary:
    case Code::kIdempotencyConflict:
    case Code::kChangeCursorRejected:
    case Code::kChangeFeedGap: return kExitError;
  }
  return kExitError;  // Not an enumerator (a number cast to Code).
}

}  // namespace

int Fail(const Status& s) {
  ClearProgress();
  std::string where = s.object().empty() ? "" : " (" + s.object() + ")";
  std::fprintf(stderr, "omnigraph: error[%s]: %s%s\n", std::string(CodeName(s.code())).c_str(),
               s.message().c_str(), where.c_str());
  // A query diagnostic's repair goes on a line of its own, so the error line stays one line
  // whatever the repair says (the message already names the position and the code).
  if (const api::DiagnosticDetail* d = s.diagnostic(); d != nullptr && !d->fix.empty()) {
    std::fprintf(stderr, "  fix: %s\n", d->fix.c_str());
  }
  return ExitStatusOf(s.code());
}

void Context::Fail(const Status& s) { rc_ = cli::Fail(s); }

Result<cluster::AppliedGraph> Context::ClusterGraph() const {
  api::Result<cluster::AppliedCluster> applied = cluster::ReadApplied(g_.cluster);
  if (!applied.ok()) return applied.status();
  std::string ids;
  for (const cluster::AppliedGraph& g : applied->graphs) {
    if (g.id == g_.graph || (g_.graph.empty() && applied->graphs.size() == 1)) return g;
    ids += (ids.empty() ? "" : ", ") + g.id;
  }
  if (ids.empty()) {
    return Status(Code::kNotFound, "cluster " + applied->name + " (" + g_.cluster +
                                       ") has no applied graph; run 'omnigraph cluster apply'");
  }
  if (g_.graph.empty()) {
    return InvalidArgument("cluster " + applied->name + " has several graphs: add --graph ID (" +
                           ids + ")");
  }
  return Status(Code::kNotFound, "cluster " + applied->name + " has no applied graph '" + g_.graph +
                                     "' (applied: " + ids + ")");
}

Result<std::string> Context::Uri() const {
  OMNIGRAPH_RETURN_IF_ERROR(scope_status_);
  if (!g_.cluster.empty()) {
    if (!g_.uri.empty() || !g_.store.empty() || !g_.server.empty()) {
      return InvalidArgument(
          "--cluster is exclusive with a URI argument, --store or --server: give the graph one "
          "way");
    }
    OMNIGRAPH_ASSIGN_OR_RETURN(cluster::AppliedGraph graph, ClusterGraph());
    return graph.root_uri;
  }
  if (!g_.store.empty() && !g_.uri.empty() && g_.store != g_.uri) {
    return InvalidArgument("give the graph once: a URI argument or --store, not both");
  }
  if (!g_.server.empty() && (!g_.uri.empty() || !g_.store.empty())) {
    return InvalidArgument(
        "--server is exclusive with a URI argument or --store: give the graph one way");
  }
  if (!g_.graph.empty() && g_.server.empty()) {
    return InvalidArgument(
        "--graph names a graph of a server or a cluster: it needs --server URL or --cluster DIR");
  }
  std::string uri = !g_.server.empty() ? g_.server : g_.store.empty() ? g_.uri : g_.store;
  if (uri.empty()) {
    return InvalidArgument("no graph given: add its URI (a path, s3://, ...); see '" +
                           CommandPath(app_) + " --help'");
  }
  return uri;
}

DatabaseOptions Context::Options() const {
  DatabaseOptions o;
  if (const std::string actor = Actor(); !actor.empty()) o.actor = actor;
  if (!g_.quiet) o.progress = TerminalProgress();
  return o;
}

namespace {

bool IsServerUrl(const std::string& uri) {
  return uri.starts_with("http://") || uri.starts_with("https://");
}

}  // namespace

bool Context::Remote() const {
  return !g_.server.empty() || IsServerUrl(g_.store.empty() ? g_.uri : g_.store);
}

Context::Context(CLI::App& app) : app_(app) {}
Context::~Context() = default;

namespace {

// The deepest subcommand the parse reached.
CLI::App* DeepestCommand(CLI::App& app) {
  CLI::App* at = &app;
  for (bool deeper = true; deeper;) {
    deeper = false;
    for (CLI::App* sub : at->get_subcommands()) {
      at = sub;
      deeper = true;
      break;
    }
  }
  return at;
}

// A positional that names a graph rather than a query or an argument: a URI, a path, a graph
// folder.
bool LooksLikeGraphAddress(const std::string& arg) {
  std::error_code ec;
  return arg.find("://") != std::string::npos || arg.find('/') != std::string::npos ||
         arg.ends_with(".omni") || std::filesystem::is_directory(arg, ec);
}

}  // namespace

Result<const OperatorConfig*> Context::Operator() const {
  if (!op_status_.ok()) return op_status_;
  if (op_ == nullptr) return Status(Code::kInternal, "the operator's config was not read");
  return static_cast<const OperatorConfig*>(op_.get());
}

std::string Context::ActiveProfile() const {
  if (!g_.profile.empty()) return g_.profile;
  const char* env = std::getenv("OMNIGRAPH_PROFILE");
  return env == nullptr ? "" : env;
}

Status Context::UnknownProfile(const std::string& name) const {
  std::string known;
  if (op_ != nullptr) {
    for (const auto& [n, p] : op_->profiles) known += (known.empty() ? "" : ", ") + n;
  }
  return Status(Code::kNotFound, "no profile '" + name + "' in " + OperatorHome() +
                                     "/config.yaml (profiles: " + (known.empty() ? "none" : known) +
                                     ")");
}

Status Context::UseServer(const std::string& name, const std::string& graph) {
  OMNIGRAPH_ASSIGN_OR_RETURN(const OperatorConfig* op, Operator());
  if (IsServerUrl(name)) {
    g_.server = name;
  } else {
    auto it = op->servers.find(name);
    if (it == op->servers.end()) {
      std::string known;
      for (const auto& [n, u] : op->servers) known += (known.empty() ? "" : ", ") + n;
      return InvalidArgument("no server '" + name + "' under servers: in " + op->home +
                             "/config.yaml (servers: " + (known.empty() ? "none" : known) +
                             "); a literal address starts with http:// or https://");
    }
    g_.server = it->second;
    server_name_ = name;
  }
  if (g_.graph.empty()) g_.graph = graph;
  return Status::Ok();
}

std::string Context::QueryFormat(const std::string& explicit_format) const {
  if (!explicit_format.empty()) return explicit_format;
  if (op_ != nullptr && !op_->output.empty()) return op_->output;
  return "table";
}

TableStyle Context::Table() const {
  if (op_ == nullptr) return {};
  return TableStyle{op_->table_max_column_width, op_->table_wrap};
}

std::string Context::Actor() const {
  if (!g_.actor.empty()) return g_.actor;
  return op_ != nullptr ? op_->actor : "";
}

Status Context::ApplyProfileOrDefaults(const OperatorConfig& op) {
  const std::string profile = ActiveProfile();
  OperatorScope scope = op.defaults;
  if (!profile.empty()) {
    auto it = op.profiles.find(profile);
    if (it == op.profiles.end()) return UnknownProfile(profile);
    scope = it->second;
  }
  if (!scope.server.empty()) {
    OMNIGRAPH_RETURN_IF_ERROR(UseServer(scope.server, scope.default_graph));
  } else if (!scope.cluster.empty()) {
    if (DeepestCommand(app_)->get_option_no_throw("--cluster") == nullptr) {
      return InvalidArgument("profile '" + profile + "' binds the cluster " + scope.cluster +
                             ": a cluster scope reaches optimize, repair, cleanup and policy; "
                             "address this command's graph with --store <root>/graphs/<id>.omni "
                             "or --server");
    }
    auto it = op.clusters.find(scope.cluster);
    g_.cluster = it == op.clusters.end() ? scope.cluster : it->second;
    if (g_.graph.empty()) g_.graph = scope.default_graph;
  } else if (!scope.store.empty()) {
    g_.store = scope.store;
  }
  return Status::Ok();
}

bool Context::ResolveScope() {
  Result<OperatorConfig> loaded = LoadOperatorConfig(OperatorHome());
  if (!loaded.ok()) {
    op_status_ = scope_status_ = loaded.status();
    Fail(scope_status_);
    return false;
  }
  op_ = std::make_unique<OperatorConfig>(std::move(*loaded));
  for (const std::string& w : op_->warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  if (!g_.server.empty() && !IsServerUrl(g_.server)) {
    scope_status_ = UseServer(g_.server, "");
    if (!scope_status_.ok()) {
      Fail(scope_status_);
      return false;
    }
  }
  if (auto it = op_->clusters.find(g_.cluster); !g_.cluster.empty() && it != op_->clusters.end()) {
    g_.cluster = it->second;
  }
  CLI::App* cmd = DeepestCommand(app_);
  CLI::Option* args = cmd->get_option_no_throw("args");
  const bool addresses_graph = cmd->get_option_no_throw("uri") != nullptr || args != nullptr ||
                               cmd->get_option_no_throw("--cluster") != nullptr;
  bool explicit_address =
      !g_.uri.empty() || !g_.store.empty() || !g_.server.empty() || !g_.cluster.empty();
  if (args != nullptr && !args->results().empty()) {
    explicit_address = explicit_address || LooksLikeGraphAddress(args->results().back());
  }
  if (addresses_graph && !explicit_address) scope_status_ = ApplyProfileOrDefaults(*op_);
  if (!scope_status_.ok()) Fail(scope_status_);
  return scope_status_.ok();
}

Result<std::unique_ptr<Database>> Context::Open() const {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::string uri, Uri());
  if (!Remote()) {
    if (!g_.token.empty()) return InvalidArgument("--token is for a server: it needs --server URL");
    DatabaseOptions options = Options();
    if (!g_.policy.empty()) {
      OMNIGRAPH_ASSIGN_OR_RETURN(options.policy, LoadPolicy());
      options.policy_graph = g_.graph;
    }
    return Database::Open(uri, options);
  }
  if (!g_.policy.empty()) {
    return InvalidArgument("--policy is enforced on a store; a server enforces its own policy");
  }
  if (!g_.actor.empty()) {
    return InvalidArgument(
        "--as sets the actor of direct writes; a server publishes as the "
        "actor of the bearer token");
  }
  api::ConnectOptions options;
  options.graph_id = g_.graph;
  if (!g_.token.empty()) {
    options.bearer_token = g_.token;
  } else {
    OMNIGRAPH_ASSIGN_OR_RETURN(const OperatorConfig* op, Operator());
    OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<std::string> token, TokenFor(*op, uri));
    if (token) options.bearer_token = *token;
  }
  return Database::Connect(uri, options);
}

void Context::FailPrecondition(const Status& s, const std::string& expected,
                               const std::optional<std::string>& actual) {
  if (!g_.json) {
    Fail(s);
    return;
  }
  Json failure = Json{{"expected", expected}};
  if (actual) failure["actual"] = *actual;
  std::cout << Json{{"error", s.message()}, {"precondition_failure", failure}}.dump(2) << "\n";
  rc_ = kExitPrecondition;
}

void Context::Echo(const std::string& verb) const {
  if (g_.quiet) return;
  std::string target = !g_.server.empty() ? g_.server : g_.store.empty() ? g_.uri : g_.store;
  std::fprintf(stderr, "omnigraph %s \u2192 %s (%s)\n", verb.c_str(), target.c_str(),
               AccessPath(target).c_str());
}

std::string AccessPath(const std::string& uri) {
  if (IsServerUrl(uri)) return "served";
  const bool local = uri.find("://") == std::string::npos || uri.starts_with("file://");
  return local ? "direct, local" : "direct, remote";
}

Status Context::ConfirmDestructive(const std::string& verb) const {
  Result<std::string> uri = Uri();
  // No target: opening the graph reports that.
  if (!uri.ok() || g_.yes || AccessPath(*uri) == "direct, local") return Status::Ok();
  const std::string where = *uri + " (" + AccessPath(*uri) + ")";
  if (!g_.json && isatty(STDIN_FILENO) && isatty(STDERR_FILENO)) {
    std::cerr << "omnigraph " << verb << " is destructive and its target is not local: " << where
              << ". Proceed? [y/N] " << std::flush;
    std::string answer;
    std::getline(std::cin, answer);
    if (answer == "y" || answer == "Y" || answer == "yes") return Status::Ok();
    return InvalidArgument(verb + " not confirmed: nothing was changed");
  }
  return InvalidArgument(verb + " is destructive and its target is not local: " + where +
                         "; pass --yes to confirm (there is no terminal to ask on" +
                         (g_.json ? ", and --json never asks)" : ")"));
}

void Context::Print(const Json& out, const std::string& human) const {
  if (g_.json || human.empty()) {
    std::cout << out.dump(2) << "\n";
  } else {
    std::cout << human << "\n";
  }
}

Status CheckReadable(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return InvalidArgument("cannot read '" + path + "': it is a directory, not a file");
  }
  if (!std::filesystem::exists(path, ec)) {
    return InvalidArgument("cannot read '" + path + "': No such file or directory");
  }
  return Status::Ok();
}

Result<std::string> ReadFile(const std::string& path) {
  OMNIGRAPH_RETURN_IF_ERROR(CheckReadable(path));
  std::ifstream in(path, std::ios::binary);
  if (!in) return InvalidArgument("cannot read '" + path + "': " + std::strerror(errno));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

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

std::string CommandPath(CLI::App& app) {
  std::string path = app.get_name();
  for (CLI::App* at = &app; !at->get_subcommands().empty();) {
    at = at->get_subcommands().front();
    path += " " + at->get_name();
  }
  return path;
}

void AddUriArg(CLI::App* cmd, Context& ctx) {
  cmd->add_option("uri", ctx.globals().uri,
                  "The graph: a path, file://, memory://, s3://bucket/prefix, az://");
  cmd->add_flag("--json", ctx.globals().json, "Print the JSON envelope");
}

void AddClusterTarget(CLI::App* cmd, Context& ctx) {
  cmd->add_option("--cluster", ctx.globals().cluster,
                  "A cluster's config directory or storage root URI; the graph is --graph ID "
                  "(or its only graph)")
      ->check(NonEmpty());
}

std::string CommitText(const Json& j) {
  return j.contains("commit") && j["commit"].is_object()
             ? "commit " + j["commit"]["graph_commit_id"].get<std::string>()
             : "no commit";
}

namespace {

// `text` (a dump(2)) with every line after the first indented by `spaces` more.
std::string Indent(const std::string& text, size_t spaces) {
  std::string out;
  for (char c : text) {
    out += c;
    if (c == '\n') out.append(spaces, ' ');
  }
  return out;
}

}  // namespace

JsonArrayPrinter::JsonArrayPrinter(const Json& before, const std::string& name) {
  std::string head = "{\n";
  for (const Json::Member& m : before.members()) {
    head += "  " + Json(m.first).dump() + ": " + Indent(m.second.dump(2), 2) + ",\n";
  }
  std::cout << head << "  " << Json(name).dump() << ": [";
}

void JsonArrayPrinter::Add(const Json& item) {
  std::cout << (count_++ == 0 ? "\n    " : ",\n    ") << Indent(item.dump(2), 4);
  std::cout.flush();
}

void JsonArrayPrinter::Finish(const Json& after) {
  std::string tail = count_ == 0 ? "]" : "\n  ]";
  for (const Json::Member& m : after.members()) {
    tail += ",\n  " + Json(m.first).dump() + ": " + Indent(m.second.dump(2), 2);
  }
  std::cout << tail << "\n}\n";
}

CLI::Validator NonEmpty() {
  return CLI::Validator(
      [](std::string& text) { return text.empty() ? std::string("must not be empty") : ""; }, "");
}

void AddQueryOptions(CLI::App* cmd, QueryOptions& q) {
  cmd->add_option("--query", q.file, "A .gq file")->check(NonEmpty());
  auto* e = cmd->add_option("-e", q.source, "Query source text")->check(NonEmpty());
  // OmniGraph's long name for -e; an option of its own so that errors about -e still say -e.
  cmd->add_option("--query-string", q.source, "Query source text (the same as -e)")
      ->check(NonEmpty())
      ->excludes(e);
  cmd->add_option("--params", q.params_text, "Parameters as a JSON object (keys without '$')")
      ->check(NonEmpty());
  cmd->add_option("--params-file", q.params_file, "Parameters from a JSON file")->check(NonEmpty());
  cmd->add_option("--branch", q.branch, "The branch (default main)")->check(NonEmpty());
}

namespace {

Result<std::string> QuerySource(const std::string& file, const std::string& text) {
  if (!file.empty() && !text.empty()) {
    return InvalidArgument("--query and -e conflict: give the query with one of them, not both");
  }
  if (file.empty() && text.empty()) {
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

// `[NAME] URI` of query and mutate: with --store or --server, a lone word is the query's name.
void SplitQueryArgs(const std::vector<std::string>& args, Globals& g, std::string& name) {
  const bool elsewhere = !g.store.empty() || !g.server.empty();
  if (args.size() == 2 || (args.size() == 1 && elsewhere)) name = args.front();
  if (args.size() == 2 || (args.size() == 1 && !elsewhere)) g.uri = args.back();
}

}  // namespace

Result<QueryRun> PrepareQuery(QueryOptions& q, Context& ctx) {
  SplitQueryArgs(q.args, ctx.globals(), q.name);
  QueryRun run;
  OMNIGRAPH_ASSIGN_OR_RETURN(run.source, QuerySource(q.file, q.source));
  OMNIGRAPH_ASSIGN_OR_RETURN(run.params, Params(q.params_text, q.params_file));
  OMNIGRAPH_ASSIGN_OR_RETURN(run.db, ctx.Open());
  return run;
}

}  // namespace omnigraph::cli
