#include "storage/s3/s3_config.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "storage/s3/aws_profile.h"

namespace omnigraph::storage::s3 {

namespace {

Status ConfigError(std::string message) { return Status(Code::kConfiguration, std::move(message)); }

// The value of the first variable of `names` that is set and not empty, and which it was.
std::optional<AwsSetting> FirstVariable(const EnvLookup& lookup,
                                        std::initializer_list<std::string_view> names) {
  for (std::string_view name : names) {
    std::optional<std::string> value = lookup(name);
    if (value && !value->empty()) return AwsSetting{*value, std::string(name), {}};
  }
  return std::nullopt;
}

// The words object_store accepts for a boolean option (AWS_ALLOW_HTTP and the path-style flag).
Result<std::optional<bool>> ParseBool(const EnvLookup& lookup, std::string_view variable) {
  std::optional<std::string> value = lookup(variable);
  if (!value || value->empty()) return std::optional<bool>();
  std::string v = *value;
  std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
  if (v == "true" || v == "1" || v == "yes" || v == "y" || v == "on") {
    return std::optional<bool>(true);
  }
  if (v == "false" || v == "0" || v == "no" || v == "n" || v == "off") {
    return std::optional<bool>(false);
  }
  return ConfigError(std::string(variable) + " is '" + *value + "'; expected true or false");
}

// The credentials: both environment variables, else the profile's aws_access_key_id and
// aws_secret_access_key (the SDKs' order: the environment, then the shared files). A half-set
// pair is an error rather than a fall-through, so a typo cannot silently pick other credentials.
Status ReadCredentials(const EnvLookup& lookup, const AwsProfile& profile, S3Config* config) {
  std::optional<AwsSetting> key = FirstVariable(lookup, {"AWS_ACCESS_KEY_ID"});
  std::optional<AwsSetting> secret = FirstVariable(lookup, {"AWS_SECRET_ACCESS_KEY"});
  if (key || secret) {
    if (!key) return ConfigError("S3 credentials are missing: AWS_ACCESS_KEY_ID is not set");
    if (!secret) return ConfigError("S3 credentials are missing: AWS_SECRET_ACCESS_KEY is not set");
    config->access_key_id = key->value;
    config->secret_access_key = secret->value;
    config->session_token =
        FirstVariable(lookup, {"AWS_SESSION_TOKEN"}).value_or(AwsSetting{}).value;
    config->credentials_source.clear();
    return Status::Ok();
  }
  const std::string in_profile = "profile '" + profile.name + "' (" + profile.files + ")";
  key = profile.Get("aws_access_key_id");
  secret = profile.Get("aws_secret_access_key");
  if (!key && !secret) {
    std::string missing = "S3 credentials are missing: AWS_ACCESS_KEY_ID is not set, and ";
    if (!profile.found) return ConfigError(missing + "there is no " + in_profile);
    for (const char* other : {"role_arn", "credential_process", "sso_session", "sso_start_url",
                              "web_identity_token_file", "credential_source"}) {
      if (profile.Get(other)) {
        return ConfigError(missing + in_profile + " gets them by " + other +
                           ", which OmniGraph does not read; give the profile "
                           "aws_access_key_id and aws_secret_access_key, or set AWS_ACCESS_KEY_ID "
                           "and AWS_SECRET_ACCESS_KEY");
      }
    }
    return ConfigError(missing + in_profile + " has no aws_access_key_id");
  }
  if (!secret) return ConfigError(key->where + " has no aws_secret_access_key beside it");
  if (!key) return ConfigError(secret->where + " has no aws_access_key_id beside it");
  config->access_key_id = key->value;
  config->secret_access_key = secret->value;
  config->session_token = profile.Get("aws_session_token").value_or(AwsSetting{}).value;
  config->credentials_source = "profile '" + profile.name + "' in " + key->file;
  return Status::Ok();
}

Status ReadRegion(const EnvLookup& lookup, const AwsProfile& profile, S3Config* config) {
  std::optional<AwsSetting> region = FirstVariable(lookup, {"AWS_REGION", "AWS_DEFAULT_REGION"});
  if (!region) region = profile.Get("region");
  if (!region) return Status::Ok();
  for (char c : region->value) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-') {
      return ConfigError(region->where + " '" + region->value + "' is not a region name");
    }
  }
  config->region = region->value;
  return Status::Ok();
}

// The endpoint, in the SDKs' order: AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, the profile's
// services section, the profile's endpoint_url; else AWS itself. Plain HTTP only with
// AWS_ALLOW_HTTP=true, as object_store (the reference's S3 client) has it (decision 150).
Status ReadEndpoint(const EnvLookup& lookup, const AwsProfile& profile, S3Config* config) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<bool> allow_http, ParseBool(lookup, "AWS_ALLOW_HTTP"));
  std::optional<AwsSetting> endpoint =
      FirstVariable(lookup, {"AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"});
  if (!endpoint) endpoint = profile.s3_endpoint_url;
  if (!endpoint) endpoint = profile.Get("endpoint_url");
  if (!endpoint) {
    config->endpoint = "https://s3." + config->region + ".amazonaws.com";
    config->endpoint_source = "the default AWS endpoint for AWS_REGION";
    config->path_style = false;
    return Status::Ok();
  }
  std::string e = endpoint->value;
  while (!e.empty() && e.back() == '/') e.pop_back();
  const std::string named = endpoint->where + " '" + endpoint->value + "'";
  if (!e.starts_with("http://") && !e.starts_with("https://")) {
    return ConfigError(named + " must start with http:// or https://");
  }
  if (e.find('/', e.find("//") + 2) != std::string::npos || e.find('?') != std::string::npos) {
    return ConfigError(named + " must be scheme://host[:port] without a path or query");
  }
  if (e.starts_with("http://") && !allow_http.value_or(false)) {
    return ConfigError(named + " is plain HTTP; set AWS_ALLOW_HTTP=true to allow it");
  }
  config->endpoint = e;
  config->endpoint_source = endpoint->where;
  config->path_style = true;
  return Status::Ok();
}

}  // namespace

Result<S3Config> S3Config::FromEnvironment() {
  return FromLookup([](std::string_view name) -> std::optional<std::string> {
    const char* value = std::getenv(std::string(name).c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  });
}

Result<S3Config> S3Config::FromLookup(const EnvLookup& lookup) {
  OMNIGRAPH_ASSIGN_OR_RETURN(AwsProfile profile, LoadAwsProfile(lookup));
  S3Config config;
  OMNIGRAPH_RETURN_IF_ERROR(ReadCredentials(lookup, profile, &config));
  OMNIGRAPH_RETURN_IF_ERROR(ReadRegion(lookup, profile, &config));
  OMNIGRAPH_RETURN_IF_ERROR(ReadEndpoint(lookup, profile, &config));
  for (std::string_view variable : {"AWS_S3_FORCE_PATH_STYLE", "S3_FORCE_PATH_STYLE"}) {
    OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<bool> forced, ParseBool(lookup, variable));
    if (forced) {
      config.path_style = *forced;
      break;
    }
  }
  return config;
}

std::string BucketUrl(const S3Config& config, std::string_view bucket, std::string_view key,
                      std::string_view query) {
  std::string url;
  if (config.path_style) {
    url = config.endpoint + "/" + std::string(bucket);
    if (!key.empty()) url += "/" + UriEncode(key, false);
  } else {
    size_t host = config.endpoint.find("//") + 2;
    url = config.endpoint.substr(0, host) + std::string(bucket) + "." +
          config.endpoint.substr(host) + "/" + UriEncode(key, false);
  }
  if (!query.empty()) url += "?" + std::string(query);
  return url;
}

}  // namespace omnigraph::storage::s3
