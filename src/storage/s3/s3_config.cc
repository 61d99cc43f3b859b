#include "storage/s3/s3_config.h"

#include <algorithm>
#include <cstdlib>

namespace omnigraph::storage::s3 {

namespace {

Status ConfigError(std::string message) { return Status(Code::kConfiguration, std::move(message)); }

Result<std::optional<bool>> ParseBool(
    const std::function<std::optional<std::string>(std::string_view)>& lookup,
    std::string_view variable) {
  std::optional<std::string> value = lookup(variable);
  if (!value || value->empty()) return std::optional<bool>();
  std::string v = *value;
  std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
  if (v == "true" || v == "1" || v == "yes") return std::optional<bool>(true);
  if (v == "false" || v == "0" || v == "no") return std::optional<bool>(false);
  return ConfigError(std::string(variable) + " is '" + *value + "'; expected true or false");
}

}  // namespace

Result<S3Config> S3Config::FromEnvironment() {
  return FromLookup([](std::string_view name) -> std::optional<std::string> {
    const char* value = std::getenv(std::string(name).c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  });
}

Result<S3Config> S3Config::FromLookup(
    const std::function<std::optional<std::string>(std::string_view)>& lookup) {
  auto first = [&](std::initializer_list<std::string_view> names,
                   std::string* source) -> std::optional<std::string> {
    for (std::string_view name : names) {
      std::optional<std::string> value = lookup(name);
      if (value && !value->empty()) {
        if (source) *source = std::string(name);
        return value;
      }
    }
    return std::nullopt;
  };
  S3Config config;
  std::optional<std::string> key = first({"AWS_ACCESS_KEY_ID"}, nullptr);
  if (!key) return ConfigError("S3 credentials are missing: AWS_ACCESS_KEY_ID is not set");
  std::optional<std::string> secret = first({"AWS_SECRET_ACCESS_KEY"}, nullptr);
  if (!secret) return ConfigError("S3 credentials are missing: AWS_SECRET_ACCESS_KEY is not set");
  config.access_key_id = *key;
  config.secret_access_key = *secret;
  config.session_token = first({"AWS_SESSION_TOKEN"}, nullptr).value_or("");
  config.region = first({"AWS_REGION", "AWS_DEFAULT_REGION"}, nullptr).value_or("us-east-1");
  for (char c : config.region) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-') {
      return ConfigError("AWS_REGION '" + config.region + "' is not a region name");
    }
  }
  std::string source;
  std::optional<std::string> endpoint = first({"AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"}, &source);
  if (endpoint) {
    std::string e = *endpoint;
    while (!e.empty() && e.back() == '/') e.pop_back();
    if (!e.starts_with("http://") && !e.starts_with("https://")) {
      return ConfigError(source + " '" + *endpoint + "' must start with http:// or https://");
    }
    if (e.find('/', e.find("//") + 2) != std::string::npos || e.find('?') != std::string::npos) {
      return ConfigError(source + " '" + *endpoint +
                         "' must be scheme://host[:port] without a path or query");
    }
    config.endpoint = e;
    config.endpoint_source = source;
    config.path_style = true;
  } else {
    config.endpoint = "https://s3." + config.region + ".amazonaws.com";
    config.endpoint_source = "the default AWS endpoint for AWS_REGION";
    config.path_style = false;
  }
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
