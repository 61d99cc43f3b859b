// The operator's own verbs (docs/design/operator-config.md): login NAME, logout NAME,
// profile list | show [NAME], and alias NAME [ARG...] — a stored query on a named server.
#include <unistd.h>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli.h"
#include "operator_config.h"

namespace omnigraph::cli {
namespace {

void AddLogin(CLI::App& app, Context& ctx) {
  auto name = std::make_shared<std::string>();
  CLI::App* login = app.add_subcommand(
      "login", "Store a server's bearer token in the operator's credentials (mode 0600)");
  login->add_option("name", *name, "The server's name under servers: in config.yaml")
      ->required()
      ->check(NonEmpty());
  login->callback([&ctx, name] {
    Result<const OperatorConfig*> op = ctx.Operator();
    if (!op.ok()) return ctx.Fail(op.status());
    if (!(*op)->servers.contains(*name)) {
      return ctx.Fail(InvalidArgument("no server '" + *name + "' under servers: in " + (*op)->home +
                                      "/config.yaml; add its url first"));
    }
    std::string token = ctx.globals().token;
    if (token.empty()) {
      if (isatty(STDIN_FILENO)) std::cerr << "token for " << *name << ": " << std::flush;
      std::getline(std::cin, token);
      while (!token.empty() && (token.back() == '\r' || token.back() == ' ')) token.pop_back();
    }
    if (token.empty()) {
      return ctx.Fail(InvalidArgument("no token given (pass --token, or one line on stdin)"));
    }
    Status s = WriteCredential((*op)->home, *name, token);
    if (!s.ok()) return ctx.Fail(s);
    ctx.Print(Json{{"server", *name}, {"stored", true}},
              "login: stored the token for " + *name + " in " + (*op)->home + "/credentials");
  });
  login->add_flag("--json", ctx.globals().json, "Print JSON");
}

void AddLogout(CLI::App& app, Context& ctx) {
  auto name = std::make_shared<std::string>();
  CLI::App* logout =
      app.add_subcommand("logout", "Remove a server's bearer token from the credentials");
  logout->add_option("name", *name, "The server's name")->required()->check(NonEmpty());
  logout->add_flag("--json", ctx.globals().json, "Print JSON");
  logout->callback([&ctx, name] {
    Status s = WriteCredential(OperatorHome(), *name, "");
    if (!s.ok()) return ctx.Fail(s);
    ctx.Print(Json{{"server", *name}, {"removed", true}},
              "logout: no token is stored for " + *name);
  });
}

// A profile's binding as JSON (reference: binding, scope_kind, target, valid, error).
Json ProfileJson(const OperatorConfig& op, const std::string& name, const OperatorScope& s) {
  std::string kind = !s.server.empty() ? "server" : !s.cluster.empty() ? "cluster" : "store";
  std::string binding = !s.server.empty() ? s.server : !s.cluster.empty() ? s.cluster : s.store;
  std::string target = binding, error;
  if (kind == "server" && !binding.starts_with("http://") && !binding.starts_with("https://")) {
    auto it = op.servers.find(binding);
    target = it == op.servers.end() ? "" : it->second;
    if (target.empty()) error = "no server '" + binding + "' under servers:";
  } else if (kind == "cluster" && op.clusters.contains(binding)) {
    target = op.clusters.at(binding);
  }
  Json j{{"name", name},
         {"binding", binding},
         {"scope_kind", kind},
         {"target", target},
         {"default_graph", s.default_graph},
         {"valid", error.empty()}};
  if (!error.empty()) j["error"] = error;
  if (kind == "server" && error.empty()) {
    Result<std::optional<std::string>> token = TokenFor(op, target);
    j["token"] = token.ok() && token->has_value() ? "stored" : "none";
  }
  return j;
}

std::string ProfileLine(const Json& p) {
  return p["name"].string_value() + "  " + p["scope_kind"].string_value() + " " +
         p["binding"].string_value() +
         (p["target"].string_value() != p["binding"].string_value()
              ? " (" + p["target"].string_value() + ")"
              : "") +
         (p["default_graph"].string_value().empty()
              ? ""
              : "  graph " + p["default_graph"].string_value()) +
         (p["valid"].get<bool>() ? "" : "  invalid: " + p["error"].string_value());
}

void AddProfile(CLI::App& app, Context& ctx) {
  CLI::App* profile = app.add_subcommand("profile", "The profiles of the operator's config");
  profile->require_subcommand(1);
  CLI::App* list = profile->add_subcommand("list", "Each profile's binding and default graph");
  list->add_flag("--json", ctx.globals().json, "Print JSON");
  list->callback([&ctx] {
    Result<const OperatorConfig*> op = ctx.Operator();
    if (!op.ok()) return ctx.Fail(op.status());
    const std::string active = ctx.ActiveProfile();
    Json all = Json::array();
    std::string text;
    for (const auto& [name, scope] : (*op)->profiles) {
      Json p = ProfileJson(**op, name, scope);
      p["active"] = name == active;
      text += (name == active ? "* " : "  ") + ProfileLine(p) + "\n";
      all.push_back(p);
    }
    if (!text.empty()) text.pop_back();
    ctx.Print(Json{{"profiles", all}}, text.empty() ? "(no profiles)" : text);
  });
  auto name = std::make_shared<std::string>();
  CLI::App* show = profile->add_subcommand(
      "show", "One profile's scope (default: the active one, else the operator's defaults)");
  show->add_option("name", *name, "The profile");
  show->add_flag("--json", ctx.globals().json, "Print JSON");
  show->callback([&ctx, name] {
    Result<const OperatorConfig*> op = ctx.Operator();
    if (!op.ok()) return ctx.Fail(op.status());
    std::string which = name->empty() ? ctx.ActiveProfile() : *name;
    if (which.empty()) {
      const OperatorScope& d = (*op)->defaults;
      if (d.server.empty() && d.store.empty()) {
        return ctx.Print(Json{{"name", nullptr}, {"scope_kind", "none"}},
                         "no active profile and no defaults.server or defaults.store");
      }
      Json p = ProfileJson(**op, "defaults", d);
      return ctx.Print(p, ProfileLine(p));
    }
    auto it = (*op)->profiles.find(which);
    if (it == (*op)->profiles.end()) return ctx.Fail(ctx.UnknownProfile(which));
    Json p = ProfileJson(**op, which, it->second);
    ctx.Print(p, ProfileLine(p));
  });
}

struct AliasOptions {
  std::string name;
  std::vector<std::string> args;
  std::string params;
  std::string format;
};

Status RunAlias(Context& ctx, const AliasOptions& o) {
  OMNIGRAPH_ASSIGN_OR_RETURN(const OperatorConfig* op, ctx.Operator());
  auto it = op->aliases.find(o.name);
  if (it == op->aliases.end()) {
    std::string known;
    for (const auto& [n, a] : op->aliases) known += (known.empty() ? "" : ", ") + n;
    return Status(Code::kNotFound, "no alias '" + o.name + "' under aliases: in " + op->home +
                                       "/config.yaml" +
                                       (known.empty() ? "" : " (aliases: " + known + ")"));
  }
  const OperatorAlias& a = it->second;
  if (o.args.size() > a.args.size()) {
    return InvalidArgument("alias '" + o.name + "' takes " + std::to_string(a.args.size()) +
                           " arguments, not " + std::to_string(o.args.size()));
  }
  Json params = a.params;
  for (size_t i = 0; i < o.args.size(); ++i) params[a.args[i]] = ArgValue(o.args[i]);
  if (!o.params.empty()) {
    OMNIGRAPH_ASSIGN_OR_RETURN(Json given, api::ParseJson(o.params, "--params"));
    for (const Json::Member& m : given.members()) params[m.first] = m.second;
  }
  OMNIGRAPH_RETURN_IF_ERROR(ctx.UseServer(a.server, a.graph));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::unique_ptr<Database> db, ctx.Open());
  OMNIGRAPH_ASSIGN_OR_RETURN(Json catalog, db->StoredQueries());
  for (const Json& q : catalog["queries"]) {
    if (q["name"].string_value() == a.query && q["mutation"].get<bool>()) {
      return InvalidArgument("alias '" + o.name + "' names the stored mutation '" + a.query +
                             "': aliases are read-only (run it with 'omnigraph mutate')");
    }
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(Json out, db->InvokeStoredQuery(a.query, params, api::ReadTarget{}));
  std::string format = ctx.globals().json ? "json" : o.format;
  if (format.empty()) format = a.format;
  return PrintQueryRows(out, ctx.QueryFormat(format), ctx.Table());
}

void AddAlias(CLI::App& app, Context& ctx) {
  auto o = std::make_shared<AliasOptions>();
  CLI::App* alias = app.add_subcommand(
      "alias", "Invoke an operator alias: a stored query on a named server (config.yaml)");
  alias->add_option("name", o->name, "The alias")->required()->check(NonEmpty());
  alias->add_option("args", o->args, "Its positional arguments")->expected(0, -1);
  alias->add_option("--params", o->params, "Parameters as a JSON object (win over the alias's)");
  alias->add_option("--format", o->format, "table | json | jsonl | csv | kv");
  alias->add_flag("--json", ctx.globals().json, "Same as --format json");
  alias->callback([&ctx, o] {
    Status s = RunAlias(ctx, *o);
    if (!s.ok()) ctx.Fail(s);
  });
}

}  // namespace

void AddOperatorCommands(CLI::App& app, Context& ctx) {
  AddLogin(app, ctx);
  AddLogout(app, ctx);
  AddProfile(app, ctx);
  AddAlias(app, ctx);
}

}  // namespace omnigraph::cli
