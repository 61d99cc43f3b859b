// The operator's own configuration (docs/design/operator-config.md): `config.yaml` and
// `credentials` in `$OMNIGRAPH_HOME`, else `~/.omnigraph` (the reference's cli/reference.md,
// "Config surfaces"). config.yaml says who the operator is (operator.actor), the servers and
// cluster roots they use by name, the scope a command takes when it names none (defaults,
// profiles) and their aliases; it never holds a token. credentials holds bearer tokens keyed by
// server name, written by `omnigraph login` with mode 0600.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "omnigraph/omnigraph.h"

namespace omnigraph::cli {

// A scope: exactly one of server / cluster / store (names or literal addresses), and the graph a
// server or cluster scope selects when --graph is not given.
struct OperatorScope {
  std::string server;
  std::string cluster;
  std::string store;
  std::string default_graph;
};

// A personal name for invoking a stored query on a named server.
struct OperatorAlias {
  std::string server;
  std::string graph;
  std::string query;
  std::vector<std::string> args;  // positional arguments bind to these parameters, in order
  api::Json params = api::Json::object();  // fixed defaults; positionals and --params win
  std::string format;
};

struct OperatorConfig {
  std::string home;   // the directory the files were read from
  std::string actor;  // operator.actor: the default of --as for direct writes
  std::map<std::string, std::string> servers;   // name -> url
  std::map<std::string, std::string> clusters;  // name -> storage root
  OperatorScope defaults;                       // defaults.server | defaults.store (+ graph)
  std::string output;                           // defaults.output: the query format default
  size_t table_max_column_width = 0;            // 0: no limit
  bool table_wrap = false;                      // table_cell_layout: wrap (else truncate)
  std::map<std::string, OperatorScope> profiles;
  std::map<std::string, OperatorAlias> aliases;
  std::vector<std::string> warnings;  // unknown keys: reported, not fatal
};

// The directory of the operator's files: $OMNIGRAPH_HOME, else $HOME/.omnigraph.
std::string OperatorHome();

// Reads `<home>/config.yaml`; an absent file is an empty config. Errors name the file, line and
// key; unknown keys are warnings (a file written for a newer CLI still loads).
api::Result<OperatorConfig> LoadOperatorConfig(const std::string& home);

// The bearer token for a server URL: the server whose `url` prefixes it (its name N) gives
// $OMNIGRAPH_TOKEN_<N>, then the [N] section of the credentials file; otherwise, or when neither
// has one, $OMNIGRAPH_BEARER_TOKEN. A keyed token is sent only to the server it is keyed to.
api::Result<std::optional<std::string>> TokenFor(const OperatorConfig& config,
                                                 const std::string& url);

// Stores (or, with an empty token, removes) the [name] token in `<home>/credentials`, created
// with mode 0600. Refuses a credentials file that others may read.
api::Status WriteCredential(const std::string& home, const std::string& name,
                            const std::string& token);

// The environment variable of a server name's token: prod -> OMNIGRAPH_TOKEN_PROD.
std::string TokenEnvOf(const std::string& server_name);

}  // namespace omnigraph::cli
