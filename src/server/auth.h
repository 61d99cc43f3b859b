// Bearer-token authentication and per-actor grants (docs/design/server.md "Auth").
//
// Tokens come from OMNIGRAPH_SERVER_BEARER_TOKEN (actor `default`) and/or a JSON object
// {"actor": "token", ...} in OMNIGRAPH_SERVER_BEARER_TOKENS_JSON or the file named by
// OMNIGRAPH_SERVER_BEARER_TOKENS_FILE. Only their SHA-256 digests are kept, and a presented token
// is compared with every digest in constant time. The actor comes from the token, never from the
// request. Without a policy bundle every token may `read`; any other action needs a grant, from
// --allow-writes (every action) or a grants file {"grants": {"actor": ["change", ...]}}. A graph
// with a bundle (server/registry.h) is decided by it instead, through the engine's gate.
// Thread-safety: immutable once loaded; used from any number of threads.
#pragma once

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "omnigraph/policy.h"
#include "omnigraph/status.h"

namespace omnigraph::server {

// Every action a grant may name.
extern const std::vector<std::string> kActions;

// What the server does with a request (docs/design/policy.md "Server runtime states"): Open
// (--unauthenticated: everything but GET /graphs), DefaultDeny (tokens, no bundle: `read`, and
// what --allow-writes or a grants file grant), PolicyEnabled (tokens and a bundle: a graph with
// a bundle is decided by it, GET /graphs by the cluster-bound one).
enum class RuntimeState { kOpen, kDefaultDeny, kPolicyEnabled };
std::string_view RuntimeStateName(RuntimeState state);

// The audit line of a denied request (docs/design/server.md "Audit"): one JSON object on one
// line to stderr, {"event":"policy_denied", actor, action, graph?, branch?, target_branch?,
// query?, rule (the deciding rule's id, or null for a default deny), reason}. Thread-safe (one
// write per line).
void LogDenied(const api::PolicyRequest& request, const api::PolicyDecision& decision);

class Auth {
 public:
  // No tokens and every action allowed: --unauthenticated.
  static Auth Unauthenticated();
  // Tokens from the environment (see above). InvalidArgument for a malformed token map, an empty
  // token or two actors with one token; NotFound for a token file that cannot be read.
  static api::Result<Auth> FromEnvironment();

  // Grants `actions` (each one of kActions; InvalidArgument otherwise) to `actor`.
  api::Status Grant(const std::string& actor, const std::vector<std::string>& actions);
  // Grants from a policy file {"grants": {"actor": ["action", ...]}}.
  api::Status LoadPolicy(std::string_view path);

  bool unauthenticated() const { return unauthenticated_; }
  size_t token_count() const { return tokens_.size(); }
  // The actor whose token `authorization` ("Bearer <token>") carries; nullopt when there is no
  // such token (or the header is missing or malformed). Always nullopt when unauthenticated.
  std::optional<std::string> Authenticate(std::string_view authorization) const;
  // Whether `actor` may do `action` by the grants ("read" always; unauthenticated: all but
  // graph_list, which only a cluster-bound bundle grants).
  bool Allowed(const std::string& actor, std::string_view action) const;

  // The bundle bound to `cluster` (server-scoped actions: graph_list); null without one.
  void SetClusterPolicy(std::shared_ptr<const api::Policy> policy) {
    cluster_policy_ = std::move(policy);
  }
  const api::Policy* cluster_policy() const { return cluster_policy_.get(); }
  // GET /graphs: the cluster-bound bundle's `graph_list` decision for `actor`; denied without a
  // bundle, in every state (as the reference).
  api::PolicyDecision DecideGraphList(const std::optional<std::string>& actor) const;

 private:
  using Digest = std::array<unsigned char, 32>;
  struct Token {
    std::string actor;
    Digest digest;
  };
  api::Status AddToken(const std::string& actor, std::string_view token);

  bool unauthenticated_ = false;
  std::vector<Token> tokens_;
  std::map<std::string, std::set<std::string>, std::less<>> grants_;
  std::shared_ptr<const api::Policy> cluster_policy_;
};

// What one connection's bearer token authenticated as, so that a keep-alive connection's next
// request with the same Authorization header is not digested again (SHA-256 and the comparison
// with every token: about a microsecond and a half per request). Sound because an Auth is fixed
// once loaded (the server reads its tokens at boot and never reloads them): the same header bytes
// always name the same actor. A different header (or Auth) is authenticated afresh and replaces
// the memo; a header no token matches is not remembered. One per connection; not thread-safe (the
// listener touches it only from the thread running its event loop).
class AuthMemo {
 public:
  // Auth::Authenticate(authorization), or the actor remembered for these exact header bytes.
  std::optional<std::string> Authenticate(const Auth& auth, std::string_view authorization);

 private:
  const Auth* auth_ = nullptr;  // the tokens that authenticated it
  std::string authorization_;   // the header that authenticated as actor_
  std::optional<std::string> actor_;
};

}  // namespace omnigraph::server
