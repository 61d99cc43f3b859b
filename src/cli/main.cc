// omnigraph: the command-line front end (OmniGraph's CLI), over the public API only
// (include/omnigraph/omnigraph.h). This file holds the global options, the usage errors and the
// parse; each verb group registers its subcommands from its own file (cli.h lists them).
//
// Options go before or after the URI; global options (--store, --server, --token, --graph, --as,
// --quiet) before or after the command. Exit status: 0 ok, 1 error (a usage error is one line
// naming the problem and the
// --help to read), 4 when an expected-commit precondition failed.

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli.h"

namespace omnigraph::cli {

// cluster ..., graphs list (cluster_cmd.cc).
void AddClusterCommands(CLI::App& app, Context& ctx);

namespace {

// A global option whose value is the next word (not a command).
bool TakesValue(const std::string& arg) {
  return arg == "--store" || arg == "--as" || arg == "--server" || arg == "--token" ||
         arg == "--graph" || arg == "--profile" || arg == "--policy" || arg == "--applies-to";
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
      if (TakesValue(arg)) {
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

// The index in `args` (argv without the program's name) of the command word, or args.size().
size_t CommandIndex(const std::vector<std::string>& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (TakesValue(args[i])) {
      ++i;
    } else if (!args[i].starts_with("-")) {
      return i;
    }
  }
  return args.size();
}

// OmniGraph's deprecated verb names, each run as its successor after a one-line warning on
// stderr (docs/user/cli/reference.md): `check` is `lint`, `read` is `query`, `change` is `mutate`,
// `query lint` and `query check` are `lint`.
// `-v` with no command is `version` (`--version` prints the release alone, CLI11's flag). Returns
// the arguments in CLI11's order (reversed, without the program's name).
std::vector<std::string> RewriteDeprecated(int argc, char** argv) {
  static constexpr std::pair<const char*, const char*> kRenamed[] = {
      {"check", "lint"}, {"read", "query"}, {"change", "mutate"}};
  std::vector<std::string> args(argv + 1, argv + argc);
  const size_t command = CommandIndex(args);
  for (const auto& [old_name, successor] : kRenamed) {
    if (command < args.size() && args[command] == old_name) {
      std::fprintf(stderr, "warning: `omnigraph %s` is deprecated; use `omnigraph %s` instead\n",
                   old_name, successor);
      args[command] = successor;
    }
  }
  // `query lint` and `query check`, lint's names before it was a top-level verb.
  if (command + 1 < args.size() && args[command] == "query" &&
      (args[command + 1] == "lint" || args[command + 1] == "check")) {
    std::fprintf(stderr,
                 "warning: `omnigraph query %s` is deprecated; use `omnigraph lint` instead\n",
                 args[command + 1].c_str());
    args.erase(args.begin() + static_cast<std::ptrdiff_t>(command));
    args[command] = "lint";
  }
  if (command == args.size()) {
    for (std::string& arg : args) {
      if (arg == "-v") {
        arg = "version";
        break;
      }
    }
  }
  std::reverse(args.begin(), args.end());
  return args;
}

// A `load` or `ingest` of a large local file runs with its heap on transparent huge pages where
// the kernel gives them cheaply (api::Database::LoadWantsHugePageHeap): glibc reads that setting
// (GLIBC_TUNABLES=glibc.malloc.hugetlb=1) only when a process starts, so the process executes
// itself again, once, with it, before reading anything (decision 250). On a machine where a fresh
// 4 KiB page is dear (a virtual machine's shadow page tables) a load faults a third as often.
// OMNIGRAPH_LOAD_HUGE_PAGES=0 leaves the process as it is; so does any failure to re-execute.
void MaybeReexecuteForLoad(char** argv, int argc) {
  const char* setting = std::getenv("OMNIGRAPH_LOAD_HUGE_PAGES");
  if (setting != nullptr && std::string(setting) == "0") return;
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  const std::string before = tunables != nullptr ? tunables : "";
  if (before.find("glibc.malloc.hugetlb") != std::string::npos) return;
  std::string command;
  std::string data;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--server" || arg.starts_with("--server=")) return;  // The server loads.
    if (arg == "--data" && i + 1 < argc) {
      data = argv[++i];
    } else if (arg.starts_with("--data=")) {
      data = arg.substr(7);
    } else if (command.empty() && TakesValue(arg)) {
      ++i;
    } else if (command.empty() && !arg.starts_with("-")) {
      command = arg;
    }
  }
  if (command != "load" && command != "ingest") return;
  struct stat st {};
  if (data.empty() || ::stat(data.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
  if (!api::Database::LoadWantsHugePageHeap(static_cast<uint64_t>(st.st_size))) return;
  const std::string with = (before.empty() ? "" : before + ":") + "glibc.malloc.hugetlb=1";
  if (::setenv("GLIBC_TUNABLES", with.c_str(), 1) != 0) return;
  ::execv("/proc/self/exe", argv);
  // Still here: the load runs on base pages, with the environment it was given.
  if (tunables != nullptr) {
    ::setenv("GLIBC_TUNABLES", before.c_str(), 1);
  } else {
    ::unsetenv("GLIBC_TUNABLES");
  }
}

}  // namespace

int Main(int argc, char** argv) {
  MaybeReexecuteForLoad(argv, argc);
  CLI::App app{"OmniGraph C++: a typed property graph with branches, on an object store",
               "omnigraph"};
  app.require_subcommand(1);
  // Global options may also follow the command (subcommands inherit this on creation).
  app.fallthrough();
  Context ctx(app);
  Globals& g = ctx.globals();
  app.add_option("--store", g.store, "The graph's store URI (instead of the positional URI)")
      ->check(NonEmpty());
  app.add_option("--as", g.actor, "The actor recorded on commits")->check(NonEmpty());
  app.add_option("--server", g.server,
                 "An omnigraph-server's URL (http://HOST:PORT), or the name of one under "
                 "servers: in the operator's config.yaml: run the command against it")
      ->check(NonEmpty());
  app.add_option("--token", g.token,
                 std::string("The server's bearer token (default: $") + kBearerTokenEnv + ")")
      ->check(NonEmpty());
  app.add_option("--graph", g.graph, "The graph id on a server that serves several")
      ->check(NonEmpty());
  app.add_option("--policy", g.policy,
                 "A policy bundle (YAML): checked by `policy`, enforced on a store for --as")
      ->check(NonEmpty());
  app.add_option("--applies-to", g.applies_to,
                 "What --policy is bound to: cluster, or graph ids separated by commas")
      ->check(NonEmpty());
  app.add_option("--profile", g.profile,
                 "A profile of the operator's config.yaml (default: $OMNIGRAPH_PROFILE)")
      ->check(NonEmpty());
  app.add_flag("--quiet", g.quiet, "Do not echo writes to stderr");
  app.add_flag("--yes", g.yes,
               "Confirm a destructive write (cleanup --confirm, load --mode overwrite, branch "
               "delete) on a target that is not local");
  AddWriteCommands(app, ctx);
  AddBranchCommands(app, ctx);
  AddCommitCommands(app, ctx);
  AddDiffCommand(app, ctx);
  AddChangesCommands(app, ctx);
  AddQueryCommand(app, ctx);
  AddSchemaCommands(app, ctx);
  AddMaintenanceCommands(app, ctx);
  AddBlobCommands(app, ctx);
  AddLintCommand(app, ctx);
  AddEmbedCommand(app, ctx);
  AddClusterCommands(app, ctx);
  AddPolicyCommands(app, ctx);
  AddQueriesCommands(app, ctx);
  AddOperatorCommands(app, ctx);
  // Scopes from the operator's config, once the command line is parsed and before any verb runs.
  app.parse_complete_callback([&ctx] {
    if (!ctx.ResolveScope()) throw CLI::RuntimeError(ctx.rc());
  });
  app.set_version_flag("--version", "omnigraph " + Database::Version()["version"].string_value());
  std::vector<std::string> args = RewriteDeprecated(argc, argv);
  try {
    app.parse(args);
  } catch (const CLI::RuntimeError& e) {
    return e.get_exit_code();  // the error was reported where it was found (ResolveScope)
  } catch (const CLI::ParseError& e) {
    // --help prints the usage and exits 0; everything else is a usage error.
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);
    return UsageError(app, e, argc, argv);
  }
  return ctx.rc();
}

}  // namespace omnigraph::cli

int main(int argc, char** argv) { return omnigraph::cli::Main(argc, argv); }
