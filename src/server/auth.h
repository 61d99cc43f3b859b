// Bearer-token authentication and per-actor grants (docs/design/server.md "Auth").
//
// Tokens come from OMNIGRAPH_SERVER_BEARER_TOKEN (actor `default`) and/or a JSON object
// {"actor": "token", ...} in OMNIGRAPH_SERVER_BEARER_TOKENS_JSON or the file named by
// OMNIGRAPH_SERVER_BEARER_TOKENS_FILE. Only their SHA-256 digests are kept, and a presented token
// is compared with every digest in constant time. The actor comes from the token, never from the
// request. Every token may `read` (and list graphs); any other action needs a grant, from
// --allow-writes (every action) or a policy file {"grants": {"actor": ["change", ...]}}.
// Thread-safety: immutable once loaded; used from any number of threads.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "omnigraph/status.h"

namespace omnigraph::server {

// Every action a grant may name.
extern const std::vector<std::string> kActions;

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
  // Whether `actor` may do `action` ("read" and "graph_list" always; unauthenticated: all).
  bool Allowed(const std::string& actor, std::string_view action) const;

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
};

}  // namespace omnigraph::server
