// omnigraph-server: OmniGraph's HTTP API over one graph or many (docs/design/server.md).
//
//   omnigraph-server (URI | --config omnigraph.yaml | --cluster DIR|URI) [--queries PATH]...
//                        [--require-all-graphs] [--bind 127.0.0.1:8080] [--unauthenticated]
//                        [--allow-writes ACTOR,... | --policy FILE] [--graph-id ID]
//                        [--max-body-bytes N] [--max-load-bytes N] [--workers N]
//                        [--max-connections N] [--keep-alive-timeout S]
//                        [--header-timeout S] [--body-timeout S]
//                        [--per-actor-inflight-max N] [--per-actor-bytes-max N]
//                        [--per-actor-rate N] [--per-actor-burst N]
//
// Opens each graph once (server/registry.h) and serves them from an event loop and a pool of
// workers that share those Databases (server/listener.h). The boot sources are exclusive
// (server/boot.h); OMNIGRAPH_UNAUTHENTICATED=1 is --unauthenticated and
// OMNIGRAPH_REQUIRE_ALL_GRAPHS=1 is --require-all-graphs.
// Prints one line, "omnigraph-server: listening on http://HOST:PORT ...", when it accepts
// connections. SIGTERM and SIGINT stop accepting, let requests in flight finish, and exit 0.
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "omnigraph/omnigraph.h"
#include "omnigraph/policy.h"
#include "server/auth.h"
#include "server/boot.h"
#include "server/listener.h"
#include "server/service.h"

namespace omnigraph::server {
namespace {

constexpr std::string_view kUsage =
    "usage: omnigraph-server (URI | --config omnigraph.yaml | --cluster DIR|URI)\n"
    "                        [--queries FILE|DIR]... [--require-all-graphs]\n"
    "                        [--bind HOST:PORT] [--unauthenticated]\n"
    "                        [--allow-writes ACTOR,... | --policy FILE] [--graph-id ID]\n"
    "                        [--max-body-bytes N] [--max-load-bytes N] [--workers N]\n"
    "                        [--max-connections N] [--keep-alive-timeout S]\n"
    "                        [--header-timeout S] [--body-timeout S]\n"
    "                        [--per-actor-inflight-max N] [--per-actor-bytes-max N]\n"
    "                        [--per-actor-rate N] [--per-actor-burst N]\n"
    "Tokens: OMNIGRAPH_SERVER_BEARER_TOKEN (actor 'default'), or a JSON map actor -> token in\n"
    "OMNIGRAPH_SERVER_BEARER_TOKENS_JSON or the file OMNIGRAPH_SERVER_BEARER_TOKENS_FILE.\n"
    "OMNIGRAPH_UNAUTHENTICATED=1 is --unauthenticated; OMNIGRAPH_REQUIRE_ALL_GRAPHS=1 is\n"
    "--require-all-graphs. --policy FILE: a policy bundle (YAML) bound to the one graph, or a\n"
    "JSON grants file {\"grants\": {\"actor\": [\"change\", ...]}}; a cluster binds its own.\n"
    "Per-actor admission (429 with Retry-After beyond it; 0 = unbounded): mutating requests in\n"
    "flight (default 16) and their body bytes (default 4 GiB), graph requests per second (default\n"
    "0: no rate limit) and the burst; also OMNIGRAPH_PER_ACTOR_INFLIGHT_MAX, _BYTES_MAX, _RATE,\n"
    "_BURST.\n";
// A worker runs one request's handler at a time (connections wait on the event loop, not on a
// worker); the pool is larger than the machine's cores because handlers mostly wait on the store.
constexpr size_t kWorkersPerCore = 4;
constexpr size_t kWorkersMin = 8;
constexpr size_t kWorkersMax = 1024;
constexpr uint64_t kTimeoutSMax = 3600;
// File descriptors kept for everything but client connections (the store, logs, the loop's own).
constexpr uint64_t kFdsReserved = 256;

struct Flags {
  // The boot source: exactly one of these.
  std::string uri;
  std::string config;
  std::string cluster;
  std::vector<std::string> queries;  // --queries: stored-query files of a single-graph boot
  bool require_all = false;
  bool bind_given = false;
  bool graph_id_given = false;
  std::string host = "127.0.0.1";
  int port = 8080;
  bool unauthenticated = false;
  std::vector<std::string> allow_writes;
  std::string policy;
  ServiceOptions service;
  ListenerOptions listener;
};

std::atomic<Listener*> g_listener{nullptr};
std::atomic<bool> g_stop{false};

void OnSignal(int) {
  g_stop.store(true);
  if (Listener* l = g_listener.load()) l->Stop();
}

size_t Cores() {
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<size_t>(n) : 1;
}

std::optional<uint64_t> Count(const std::string& text, uint64_t min, uint64_t max) {
  if (text.empty() || text.size() > 19) return std::nullopt;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  if (v < min || v > max) return std::nullopt;
  return v;
}

api::Status ParseBind(const std::string& text, Flags& flags) {
  const size_t colon = text.rfind(':');
  std::optional<uint64_t> port =
      colon == std::string::npos ? std::nullopt : Count(text.substr(colon + 1), 0, 65535);
  if (!port || colon == 0) {
    return api::InvalidArgument("--bind takes HOST:PORT (PORT 0: any free port), not '" + text +
                                "'");
  }
  flags.host = text.substr(0, colon);
  flags.port = static_cast<int>(*port);
  return api::Status::Ok();
}

std::vector<std::string> SplitCommas(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    if (comma > start) out.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

// One option with a value; `value` is the next argument.
api::Status ParseOption(const std::string& name, const std::string& value, Flags& flags) {
  auto count = [&](uint64_t min, uint64_t max) -> api::Result<uint64_t> {
    std::optional<uint64_t> v = Count(value, min, max);
    if (!v) {
      return api::InvalidArgument(name + " takes a whole number from " + std::to_string(min) +
                                  " to " + std::to_string(max) + ", not '" + value + "'");
    }
    return *v;
  };
  if (name == "--bind") {
    flags.bind_given = true;
    return ParseBind(value, flags);
  }
  if (name == "--config") {
    flags.config = value;
  } else if (name == "--cluster") {
    flags.cluster = value;
  } else if (name == "--queries") {
    flags.queries.push_back(value);
  } else if (name == "--allow-writes") {
    flags.allow_writes = SplitCommas(value);
  } else if (name == "--policy") {
    flags.policy = value;
  } else if (name == "--graph-id") {
    flags.service.graph_id = value;
    flags.graph_id_given = true;
  } else if (name == "--max-body-bytes") {
    OMNIGRAPH_ASSIGN_OR_RETURN(flags.service.body_bytes_max, count(1, uint64_t{1} << 40));
  } else if (name == "--max-load-bytes") {
    OMNIGRAPH_ASSIGN_OR_RETURN(flags.service.load_bytes_max, count(1, uint64_t{1} << 40));
  } else if (name == "--per-actor-inflight-max") {
    OMNIGRAPH_ASSIGN_OR_RETURN(flags.service.admission.inflight_max, count(0, uint64_t{1} << 20));
  } else if (name == "--per-actor-bytes-max") {
    OMNIGRAPH_ASSIGN_OR_RETURN(flags.service.admission.bytes_max, count(0, uint64_t{1} << 50));
  } else if (name == "--per-actor-rate") {
    OMNIGRAPH_ASSIGN_OR_RETURN(flags.service.admission.rate_per_s, count(0, uint64_t{1} << 20));
  } else if (name == "--per-actor-burst") {
    OMNIGRAPH_ASSIGN_OR_RETURN(flags.service.admission.burst, count(0, uint64_t{1} << 20));
  } else if (name == "--workers") {
    OMNIGRAPH_ASSIGN_OR_RETURN(flags.listener.workers, count(1, kWorkersMax));
  } else if (name == "--max-connections") {
    OMNIGRAPH_ASSIGN_OR_RETURN(flags.listener.connections_max, count(1, 1 << 20));
  } else if (name == "--keep-alive-timeout") {
    OMNIGRAPH_ASSIGN_OR_RETURN(const uint64_t s, count(1, kTimeoutSMax));
    flags.listener.keep_alive_timeout_s = static_cast<int>(s);
  } else if (name == "--header-timeout") {
    OMNIGRAPH_ASSIGN_OR_RETURN(const uint64_t s, count(1, kTimeoutSMax));
    flags.listener.header_timeout_s = static_cast<int>(s);
  } else if (name == "--body-timeout") {
    OMNIGRAPH_ASSIGN_OR_RETURN(const uint64_t s, count(1, kTimeoutSMax));
    flags.listener.body_timeout_s = static_cast<int>(s);
  } else {
    return api::InvalidArgument("unknown option '" + name + "'");
  }
  return api::Status::Ok();
}

bool EnvSet(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && (std::string_view(v) == "1" || std::string_view(v) == "true");
}

// Exactly one boot source, and the options that go with it.
api::Status CheckBootSource(const Flags& flags) {
  std::vector<std::string> given;
  if (!flags.uri.empty()) given.push_back("a graph URI ('" + flags.uri + "')");
  if (!flags.config.empty()) given.push_back("--config");
  if (!flags.cluster.empty()) given.push_back("--cluster");
  if (given.empty()) {
    return api::InvalidArgument(
        "no boot source: give a graph URI, --config omnigraph.yaml or --cluster DIR|URI");
  }
  if (given.size() > 1) {
    return api::InvalidArgument(
        "the boot sources are exclusive: give one of a graph URI, "
        "--config and --cluster, not " +
        given[0] + " and " + given[1]);
  }
  if (!flags.cluster.empty() && !flags.queries.empty()) {
    return api::InvalidArgument(
        "--queries is for a single-graph boot: a cluster declares its stored queries");
  }
  if (!flags.cluster.empty() && flags.graph_id_given) {
    return api::InvalidArgument(
        "--graph-id is for a single-graph boot: a cluster names its graphs");
  }
  return api::Status::Ok();
}

api::Result<Flags> ParseFlags(int argc, char** argv) {
  Flags flags;
  // The environment's admission limits, which the flags override.
  OMNIGRAPH_ASSIGN_OR_RETURN(flags.service.admission,
                             AdmissionLimitsFromEnvironment(flags.service.admission));
  flags.listener.workers = 0;  // Chosen from the cores unless given.
  flags.unauthenticated = EnvSet("OMNIGRAPH_UNAUTHENTICATED");
  flags.require_all = EnvSet("OMNIGRAPH_REQUIRE_ALL_GRAPHS");
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--unauthenticated") {
      flags.unauthenticated = true;
    } else if (arg == "--require-all-graphs") {
      flags.require_all = true;
    } else if (arg.starts_with("--")) {
      if (i + 1 >= argc) return api::InvalidArgument("option '" + arg + "' needs a value");
      OMNIGRAPH_RETURN_IF_ERROR(ParseOption(arg, argv[++i], flags));
    } else if (flags.uri.empty()) {
      flags.uri = arg;
    } else {
      return api::InvalidArgument("unexpected argument '" + arg + "' (one graph URI only)");
    }
  }
  OMNIGRAPH_RETURN_IF_ERROR(CheckBootSource(flags));
  if (flags.service.graph_id.empty() || flags.service.graph_id.find('/') != std::string::npos) {
    return api::InvalidArgument("--graph-id must be a non-empty name without '/'");
  }
  if (!flags.allow_writes.empty() && !flags.policy.empty()) {
    return api::InvalidArgument("give --allow-writes or --policy, not both");
  }
  if (!flags.cluster.empty() && !flags.policy.empty()) {
    return api::InvalidArgument(
        "--policy is for a single-graph boot: a cluster binds its policy bundles in "
        "cluster.yaml (applies_to)");
  }
  return flags;
}

// The legacy grants file of --policy ({"grants": {...}}, JSON); anything else is a bundle.
bool IsGrantsFile(const std::string& text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || text[first] != '{') return false;
  api::Result<api::Json> json = api::ParseJson(text, "the policy file");
  return json.ok() && json->is_object() && json->contains("grants");
}

api::Result<Auth> MakeAuth(const Flags& flags) {
  if (flags.unauthenticated) return Auth::Unauthenticated();
  OMNIGRAPH_ASSIGN_OR_RETURN(Auth auth, Auth::FromEnvironment());
  if (auth.token_count() == 0) {
    return api::Status(
        api::Code::kConfiguration,
        std::string(flags.policy.empty() ? "" : "a policy needs actors, and ") +
            "no bearer tokens: set OMNIGRAPH_SERVER_BEARER_TOKEN, "
            "OMNIGRAPH_SERVER_BEARER_TOKENS_JSON or OMNIGRAPH_SERVER_BEARER_TOKENS_FILE, "
            "or pass --unauthenticated to serve without auth");
  }
  std::vector<std::string> every_action(kActions.begin(), kActions.end());
  for (const std::string& actor : flags.allow_writes) {
    OMNIGRAPH_RETURN_IF_ERROR(auth.Grant(actor, every_action));
  }
  if (!flags.policy.empty()) {
    OMNIGRAPH_ASSIGN_OR_RETURN(PolicyFile file, ReadPolicyFile(flags.policy));
    if (IsGrantsFile(file.source)) OMNIGRAPH_RETURN_IF_ERROR(auth.LoadPolicy(flags.policy));
  }
  return auth;
}

// Raises the soft limit on open files toward what --max-connections needs (the hard limit caps
// it), and lowers the connection limit to what the files allow, so that the server refuses a
// connection with 503 rather than failing to accept it.
void FitConnectionsToFileLimit(ListenerOptions& options) {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
  const rlim_t want = static_cast<rlim_t>(options.connections_max + kFdsReserved);
  if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < want) {
    rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max == RLIM_INFINITY ? want : std::min(want, limit.rlim_max);
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < want) {
    const uint64_t fit =
        limit.rlim_cur > 2 * kFdsReserved ? limit.rlim_cur - kFdsReserved : limit.rlim_cur / 2;
    std::cerr << "omnigraph-server: the open-file limit is " << limit.rlim_cur
              << "; serving at most " << fit << " connections\n";
    options.connections_max = static_cast<size_t>(std::max<uint64_t>(fit, 1));
  }
}

int Fail(const api::Status& status) {
  std::cerr << "omnigraph-server: error[" << api::CodeName(status.code())
            << "]: " << status.message();
  if (!status.object().empty()) std::cerr << " (" << status.object() << ")";
  std::cerr << "\n";
  return 1;
}

// The graphs to serve, from the boot source; `flags` takes server.bind and the graph id from
// --config when they are not given. A single graph's bundle is --policy's (unless a grants file)
// or the config's policy.file.
api::Result<ClusterBoot> BootSpecs(Flags& flags) {
  if (!flags.cluster.empty()) return ClusterGraphSpecs(flags.cluster);
  std::string uri = flags.uri;
  std::optional<std::string> policy_file;
  if (!flags.policy.empty()) policy_file = flags.policy;
  if (!flags.config.empty()) {
    OMNIGRAPH_ASSIGN_OR_RETURN(ServerConfig config, ReadServerConfig(flags.config));
    uri = config.uri;
    if (config.bind && !flags.bind_given) OMNIGRAPH_RETURN_IF_ERROR(ParseBind(*config.bind, flags));
    if (!flags.graph_id_given) flags.service.graph_id = config.graph;
    if (!policy_file) policy_file = config.policy_file;
  }
  GraphSpec spec{flags.service.graph_id, uri, {}, {}};
  for (const std::string& path : flags.queries) {
    OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<StoredQueryFile> files, ReadQueryFiles(path));
    spec.queries.insert(spec.queries.end(), files.begin(), files.end());
  }
  if (policy_file) {
    OMNIGRAPH_ASSIGN_OR_RETURN(PolicyFile file, ReadPolicyFile(*policy_file));
    if (!IsGrantsFile(file.source)) spec.policies.push_back(std::move(file));
  }
  if (!spec.policies.empty() && flags.unauthenticated) {
    return api::Status(api::Code::kConfiguration,
                       "a policy bundle (" + spec.policies.front().name +
                           ") needs bearer tokens: its rules name actors, and --unauthenticated "
                           "requests have none");
  }
  return ClusterBoot{{std::move(spec)}, {}};
}

// The cluster-bound bundle (at most one) onto `auth`; with --unauthenticated the bundles of a
// cluster are parsed (a bad one refuses the boot) but not enforced.
api::Status InstallClusterPolicy(const ClusterBoot& boot, bool unauthenticated, Auth& auth) {
  if (boot.cluster_policies.size() > 1) {
    return api::InvalidArgument(std::to_string(boot.cluster_policies.size()) +
                                " policy bundles are bound to cluster; bind one (merge their "
                                "groups and rules into one file)");
  }
  size_t bundles = boot.cluster_policies.size();
  for (const GraphSpec& g : boot.graphs) bundles += g.policies.size();
  if (unauthenticated && bundles > 0) {
    std::cerr << "omnigraph-server: --unauthenticated: the cluster's " << bundles
              << " policy bundle(s) are checked but not enforced (requests have no actor)\n";
  }
  if (boot.cluster_policies.empty()) return api::Status::Ok();
  const PolicyFile& file = boot.cluster_policies.front();
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const api::Policy> policy,
                             api::Policy::Parse(file.source, file.name, {true, {}}));
  auth.SetClusterPolicy(std::move(policy));
  return api::Status::Ok();
}

RuntimeState StateOf(const Auth& auth, const GraphRegistry& registry) {
  if (auth.unauthenticated()) return RuntimeState::kOpen;
  bool policy = auth.cluster_policy() != nullptr;
  for (const ServedGraph& g : registry.graphs()) policy = policy || g.policy != nullptr;
  return policy ? RuntimeState::kPolicyEnabled : RuntimeState::kDefaultDeny;
}

// "graph 'id' at URI" or "3 graphs (a, b, c; 1 quarantined)".
std::string Serving(const GraphRegistry& registry) {
  if (const ServedGraph* only = registry.Default()) {
    return "graph '" + only->id + "' at " + only->uri;
  }
  std::string ids;
  size_t quarantined = 0;
  for (const ServedGraph& g : registry.graphs()) {
    ids += (ids.empty() ? "" : ", ") + g.id;
    quarantined += g.db ? 0 : 1;
  }
  return std::to_string(registry.graphs().size()) + " graphs (" + ids +
         (quarantined > 0 ? "; " + std::to_string(quarantined) + " quarantined" : "") + ")";
}

int Serve(Flags flags, Auth auth) {
  api::Result<ClusterBoot> boot = BootSpecs(flags);
  if (!boot.ok()) return Fail(boot.status());
  if (api::Status s = InstallClusterPolicy(*boot, flags.unauthenticated, auth); !s.ok()) {
    return Fail(s);
  }
  RegistryOptions registry_options;
  registry_options.multi = !flags.cluster.empty();
  registry_options.require_all = flags.require_all;
  registry_options.database.threads = Cores();
  registry_options.database.on_policy_denied = LogDenied;
  registry_options.enforce_policies = !flags.unauthenticated;
  api::Result<std::shared_ptr<const GraphRegistry>> registry =
      GraphRegistry::Open(boot->graphs, registry_options);
  if (!registry.ok()) return Fail(registry.status());
  const RuntimeState state = StateOf(auth, **registry);
  ServiceOptions service_options = flags.service;
  service_options.version = OMNIGRAPH_VERSION;
  Service service(*registry, std::move(auth), service_options);
  ListenerOptions listener_options = flags.listener;
  if (listener_options.workers == 0) {
    listener_options.workers = std::clamp(Cores() * kWorkersPerCore, kWorkersMin, kWorkersMax);
  }
  FitConnectionsToFileLimit(listener_options);
  Listener listener(service, listener_options);
  api::Result<int> port = listener.Bind(flags.host, flags.port);
  if (!port.ok()) return Fail(port.status());
  g_listener.store(&listener);
  std::signal(SIGTERM, OnSignal);
  std::signal(SIGINT, OnSignal);
  std::signal(SIGPIPE, SIG_IGN);
  std::cout << "omnigraph-server: listening on http://" << flags.host << ":" << *port << " ("
            << Serving(**registry) << ", " << listener_options.workers << " workers"
            << (flags.unauthenticated ? ", unauthenticated" : "") << ", " << RuntimeStateName(state)
            << ")" << std::endl;
  // A signal before listening starts finds no server to stop; it stops here instead.
  const bool clean = g_stop.load() || listener.Run();
  g_listener.store(nullptr);
  std::cout << "omnigraph-server: stopped" << std::endl;
  return clean ? 0 : 1;
}

}  // namespace
}  // namespace omnigraph::server

int main(int argc, char** argv) {
  using namespace omnigraph::server;
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--help" || std::string_view(argv[i]) == "-h") {
      std::cout << kUsage;
      return 0;
    }
  }
  omnigraph::api::Result<Flags> flags = ParseFlags(argc, argv);
  if (!flags.ok()) {
    std::cerr << "omnigraph-server: error[usage]: " << flags.status().message() << "\n" << kUsage;
    return 1;
  }
  omnigraph::api::Result<Auth> auth = MakeAuth(*flags);
  if (!auth.ok()) return Fail(auth.status());
  return Serve(std::move(*flags), std::move(*auth));
}
