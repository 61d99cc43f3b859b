// `query --alias NAME [ARG...]`: the older project-file alias form the published cookbooks use
// (docs/design/stored-queries.md "Project-file aliases"), kept because they still use it and
// deprecated with a one-line note on stderr. It reads ./omnigraph.yaml:
//
//   graphs: {NAME: {uri, bearer_token_env?}}   cli: {graph, branch, output_format}
//   query: {roots: [DIR...]}                    aliases: {ALIAS: {command, query, name, args,
//   format}}
//
// `command: read` runs query `name` of the file `query` (found under the first of query.roots, the
// file's folder first) with POST /query semantics, `command: change` as a mutation. Positional
// ARGs bind to `args` in order (each parsed as JSON, else a string); --params wins on a key both
// give. The graph is the command's own (URI, --store, --server) when given, else cli.graph's uri,
// whose bearer_token_env names the variable that holds its token. A token is never printed.
#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "cli.h"

namespace omnigraph::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kProjectFile = "omnigraph.yaml";

std::string Scalar(const YAML::Node& node, const std::string& fallback = "") {
  return node && node.IsScalar() ? node.as<std::string>() : fallback;
}

// A path of the project file as the file means it: relative to the file's folder.
std::string Resolve(const fs::path& dir, const std::string& path) {
  if (path.find("://") != std::string::npos || fs::path(path).is_absolute()) return path;
  return (dir / path).lexically_normal().string();
}

// The alias's query file: under the first of query.roots that holds it.
Result<std::string> FindQueryFile(const YAML::Node& project, const fs::path& dir,
                                  const std::string& file) {
  std::vector<std::string> roots;
  const YAML::Node listed = project["query"] ? project["query"]["roots"] : YAML::Node();
  if (listed && listed.IsSequence()) {
    for (const YAML::Node& r : listed) roots.push_back(Scalar(r));
  }
  if (roots.empty()) roots.push_back(".");
  std::string tried;
  for (const std::string& root : roots) {
    const std::string candidate = Resolve(dir, (fs::path(root) / file).string());
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec)) return candidate;
    tried += (tried.empty() ? "" : ", ") + candidate;
  }
  return InvalidArgument("alias query file '" + file + "' is under none of query.roots (tried " +
                         tried + ")");
}

// The graph from cli.graph when the command names none; its token from bearer_token_env.
Status UseProjectGraph(Context& ctx, const YAML::Node& project, const fs::path& dir) {
  Globals& g = ctx.globals();
  if (!g.uri.empty() || !g.store.empty() || !g.server.empty()) return Status::Ok();
  const std::string name = Scalar(project["cli"] ? project["cli"]["graph"] : YAML::Node());
  if (name.empty()) {
    return InvalidArgument(std::string(kProjectFile) +
                           ": cli.graph is missing and no graph was given (a URI, --store or "
                           "--server)");
  }
  const YAML::Node graph = project["graphs"] ? project["graphs"][name] : YAML::Node();
  const std::string uri = graph ? Scalar(graph["uri"]) : "";
  if (uri.empty()) {
    return InvalidArgument(std::string(kProjectFile) + ": cli.graph names '" + name +
                           "', which has no graphs." + name + ".uri");
  }
  g.uri = Resolve(dir, uri);
  const std::string env = Scalar(graph["bearer_token_env"]);
  if (!env.empty() && g.token.empty()) {
    if (const char* token = std::getenv(env.c_str()); token != nullptr && *token != '\0') {
      g.token = token;
    }
  }
  return Status::Ok();
}

Result<Json> AliasParams(const std::string& alias, const YAML::Node& spec,
                         const std::vector<std::string>& args, const Json& given) {
  std::vector<std::string> names;
  if (spec["args"] && spec["args"].IsSequence()) {
    for (const YAML::Node& a : spec["args"]) names.push_back(Scalar(a));
  }
  if (args.size() > names.size()) {
    std::string list;
    for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
    return InvalidArgument("alias '" + alias + "' takes " + std::to_string(names.size()) +
                           " arguments (" + (list.empty() ? "none" : list) + "), not " +
                           std::to_string(args.size()));
  }
  Json params = Json::object();
  for (size_t i = 0; i < args.size(); ++i) params[names[i]] = ArgValue(args[i]);
  for (const Json::Member& m : given.members()) params[m.first] = m.second;
  return params;
}

Result<YAML::Node> LoadProject() {
  std::error_code ec;
  if (!fs::is_regular_file(kProjectFile, ec)) {
    return InvalidArgument(std::string("--alias reads ./") + kProjectFile +
                           ", and there is none in " + fs::current_path(ec).string());
  }
  try {
    return YAML::LoadFile(kProjectFile);
  } catch (const YAML::Exception& e) {
    return InvalidArgument(std::string(kProjectFile) + ": not valid YAML: " + e.what());
  }
}

}  // namespace

Status RunProjectAlias(Context& ctx, const std::string& alias, const std::vector<std::string>& args,
                       const Json& given, const std::string& format) {
  std::fprintf(stderr,
               "warning: `omnigraph query --alias` (aliases in ./omnigraph.yaml) is deprecated; "
               "use `omnigraph alias NAME` with ~/.omnigraph/config.yaml\n");
  OMNIGRAPH_ASSIGN_OR_RETURN(YAML::Node project, LoadProject());
  const fs::path dir = fs::current_path();
  const YAML::Node spec = project["aliases"] ? project["aliases"][alias] : YAML::Node();
  if (!spec || !spec.IsMap()) {
    return InvalidArgument("no alias '" + alias + "' in ./" + kProjectFile);
  }
  const std::string command = Scalar(spec["command"], "read");
  if (command != "read" && command != "change") {
    return InvalidArgument("alias '" + alias + "': command must be read or change, not '" +
                           command + "'");
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(std::string file, FindQueryFile(project, dir, Scalar(spec["query"])));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::string source, ReadFile(file));
  OMNIGRAPH_ASSIGN_OR_RETURN(Json params, AliasParams(alias, spec, args, given));
  OMNIGRAPH_RETURN_IF_ERROR(UseProjectGraph(ctx, project, dir));
  const YAML::Node cli = project["cli"];
  const std::string branch = Scalar(cli ? cli["branch"] : YAML::Node(), "main");
  OMNIGRAPH_ASSIGN_OR_RETURN(std::unique_ptr<Database> db, ctx.Open());
  const std::string name = Scalar(spec["name"]);
  if (command == "change") {
    api::WriteTarget target;
    target.branch = branch;
    ctx.Echo("mutate");
    OMNIGRAPH_ASSIGN_OR_RETURN(Json out, db->Mutate(source, name, params, target));
    ctx.Print(out, CommitText(out));
    return Status::Ok();
  }
  api::ReadTarget target;
  target.branch = branch;
  OMNIGRAPH_ASSIGN_OR_RETURN(Json out, db->Query(source, name, params, target));
  std::string how = format;
  if (how.empty()) how = Scalar(spec["format"]);
  if (how.empty()) how = Scalar(cli ? cli["output_format"] : YAML::Node(), "table");
  return PrintQueryRows(out, how, ctx.Table());
}

}  // namespace omnigraph::cli
