// Bearer tokens and grants (server/auth.h).
#include "server/auth.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "omnigraph/json.h"

namespace omnigraph::server {
namespace {

constexpr std::string_view kBearer = "Bearer ";
constexpr std::string_view kDefaultActor = "default";
// A token map or policy file is a few lines; anything larger is a mistake.
constexpr size_t kConfigFileBytesMax = 1 << 20;

std::array<unsigned char, 32> Sha256(std::string_view text) {
  std::array<unsigned char, 32> out{};
  unsigned int size = 0;
  // Fetched once (every request's token is digested): EVP_sha256() looks the implementation up
  // again on each digest. Kept for the process's life.
  static EVP_MD* const kSha256 = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  EVP_Digest(text.data(), text.size(), out.data(), &size, kSha256 ? kSha256 : EVP_sha256(),
             nullptr);
  return out;
}

api::Result<std::string> ReadSmallFile(std::string_view path, std::string_view what) {
  std::ifstream in{std::string(path), std::ios::binary};
  if (!in) {
    return api::Status(api::Code::kNotFound,
                       std::string(what) + " '" + std::string(path) + "' cannot be read");
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (text.str().size() > kConfigFileBytesMax) {
    return api::InvalidArgument(std::string(what) + " '" + std::string(path) + "' is over " +
                                std::to_string(kConfigFileBytesMax) + " bytes");
  }
  return text.str();
}

}  // namespace

const std::vector<std::string> kActions = {"read",         "export",        "change",
                                           "schema_apply", "branch_create", "branch_delete",
                                           "branch_merge", "invoke_query"};

std::string_view RuntimeStateName(RuntimeState state) {
  switch (state) {
    case RuntimeState::kOpen: return "open";
    case RuntimeState::kDefaultDeny: return "default-deny";
    case RuntimeState::kPolicyEnabled: return "policy-enabled";
  }
  return "open";
}

void LogDenied(const api::PolicyRequest& request, const api::PolicyDecision& decision) {
  api::Json line = api::Json::object();
  line["event"] = "policy_denied";
  line["actor"] = request.actor ? api::Json(*request.actor) : api::Json();
  line["action"] = request.action;
  if (request.graph) line["graph"] = *request.graph;
  if (request.branch) line["branch"] = *request.branch;
  if (request.target_branch) line["target_branch"] = *request.target_branch;
  if (request.query) line["query"] = *request.query;
  line["rule"] = decision.rule.empty() ? api::Json() : api::Json(decision.rule);
  line["reason"] = decision.reason;
  const std::string text = line.dump() + "\n";
  std::fwrite(text.data(), 1, text.size(), stderr);
}

api::PolicyDecision Auth::DecideGraphList(const std::optional<std::string>& actor) const {
  if (!cluster_policy_) {
    return api::PolicyDecision{false, "",
                               "no cluster-bound policy bundle grants graph_list (bind one in "
                               "cluster.yaml with applies_to: [cluster])"};
  }
  return cluster_policy_->Decide(api::PolicyRequest{actor, "graph_list", std::nullopt, std::nullopt,
                                                    std::nullopt, std::nullopt});
}

Auth Auth::Unauthenticated() {
  Auth auth;
  auth.unauthenticated_ = true;
  return auth;
}

api::Status Auth::AddToken(const std::string& actor, std::string_view token) {
  if (token.empty()) return api::InvalidArgument("the token of actor '" + actor + "' is empty");
  if (actor.empty()) return api::InvalidArgument("a token has an empty actor name");
  const Digest digest = Sha256(token);
  for (const Token& t : tokens_) {
    if (t.digest == digest) {
      return api::InvalidArgument("actors '" + t.actor + "' and '" + actor +
                                  "' have the same token; give each its own");
    }
  }
  tokens_.push_back(Token{actor, digest});
  return api::Status::Ok();
}

api::Result<Auth> Auth::FromEnvironment() {
  Auth auth;
  if (const char* one = std::getenv("OMNIGRAPH_SERVER_BEARER_TOKEN"); one && *one) {
    OMNIGRAPH_RETURN_IF_ERROR(auth.AddToken(std::string(kDefaultActor), one));
  }
  std::string map_text;
  std::string where = "OMNIGRAPH_SERVER_BEARER_TOKENS_JSON";
  if (const char* json = std::getenv("OMNIGRAPH_SERVER_BEARER_TOKENS_JSON"); json && *json) {
    map_text = json;
  } else if (const char* file = std::getenv("OMNIGRAPH_SERVER_BEARER_TOKENS_FILE"); file && *file) {
    OMNIGRAPH_ASSIGN_OR_RETURN(map_text, ReadSmallFile(file, "the token file"));
    where = file;
  }
  if (map_text.empty()) return auth;
  OMNIGRAPH_ASSIGN_OR_RETURN(api::Json map, api::ParseJson(map_text, where));
  if (!map.is_object()) {
    return api::InvalidArgument(where + " must be a JSON object {\"actor\": \"token\"}");
  }
  for (const api::Json::Member& m : map.members()) {
    if (!m.second.is_string()) {
      return api::InvalidArgument(where + ": the token of actor '" + m.first +
                                  "' must be a string");
    }
    OMNIGRAPH_RETURN_IF_ERROR(auth.AddToken(m.first, m.second.string_value()));
  }
  return auth;
}

api::Status Auth::Grant(const std::string& actor, const std::vector<std::string>& actions) {
  for (const std::string& action : actions) {
    if (std::find(kActions.begin(), kActions.end(), action) == kActions.end()) {
      return api::InvalidArgument("unknown action '" + action + "' granted to '" + actor +
                                  "' (expected one of: read, export, change, schema_apply, "
                                  "branch_create, branch_delete, branch_merge, invoke_query)");
    }
    grants_[actor].insert(action);
  }
  return api::Status::Ok();
}

api::Status Auth::LoadPolicy(std::string_view path) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::string text, ReadSmallFile(path, "the policy file"));
  OMNIGRAPH_ASSIGN_OR_RETURN(api::Json policy, api::ParseJson(text, path));
  const std::string where = "policy file '" + std::string(path) + "'";
  if (!policy.is_object() || !policy["grants"].is_object() || policy.size() != 1) {
    return api::InvalidArgument(where +
                                " must be {\"grants\": {\"actor\": [\"action\", ...], ...}}");
  }
  for (const api::Json::Member& m : policy["grants"].members()) {
    if (!m.second.is_array()) {
      return api::InvalidArgument(where + ": the grants of '" + m.first + "' must be an array");
    }
    std::vector<std::string> actions;
    for (const api::Json& a : m.second) {
      if (!a.is_string()) {
        return api::InvalidArgument(where + ": the grants of '" + m.first +
                                    "' must be action names");
      }
      actions.push_back(a.string_value());
    }
    OMNIGRAPH_RETURN_IF_ERROR(Grant(m.first, actions));
  }
  return api::Status::Ok();
}

std::optional<std::string> Auth::Authenticate(std::string_view authorization) const {
  if (unauthenticated_ || !authorization.starts_with(kBearer)) return std::nullopt;
  const Digest presented = Sha256(authorization.substr(kBearer.size()));
  // Every digest is compared, in constant time, so the time taken says nothing about which
  // token (if any) came close.
  const Token* found = nullptr;
  for (const Token& t : tokens_) {
    if (CRYPTO_memcmp(t.digest.data(), presented.data(), presented.size()) == 0) found = &t;
  }
  if (found == nullptr) return std::nullopt;
  return found->actor;
}

std::optional<std::string> AuthMemo::Authenticate(const Auth& auth,
                                                  std::string_view authorization) {
  // Compared in constant time for a header of the remembered length, as Auth compares digests:
  // the time taken says nothing about how much of a guess matched.
  if (actor_ && &auth == auth_ && authorization.size() == authorization_.size() &&
      CRYPTO_memcmp(authorization.data(), authorization_.data(), authorization.size()) == 0) {
    return actor_;
  }
  actor_ = auth.Authenticate(authorization);
  auth_ = &auth;
  if (actor_) {
    authorization_.assign(authorization);
  } else {
    authorization_.clear();
  }
  return actor_;
}

bool Auth::Allowed(const std::string& actor, std::string_view action) const {
  if (action == "graph_list") return false;
  if (unauthenticated_ || action == "read") return true;
  auto it = grants_.find(actor);
  return it != grants_.end() && it->second.contains(std::string(action));
}

}  // namespace omnigraph::server
