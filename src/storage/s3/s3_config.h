// S3Config: where an S3 bucket is and how to reach it — endpoint, addressing style, region,
// credentials and timeouts — read from the usual AWS_* environment variables; and the URL and
// query-string encoding that SigV4 needs (docs/design/s3.md).
//
// Variables, first one set wins:
//   credentials   AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY (both required), AWS_SESSION_TOKEN
//   region        AWS_REGION, AWS_DEFAULT_REGION (default us-east-1)
//   endpoint      AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL (default https://s3.<region>.amazonaws.com)
//   addressing    AWS_S3_FORCE_PATH_STYLE or S3_FORCE_PATH_STYLE = true|false; default: path-style
//                 for a custom endpoint, virtual-hosted for AWS itself
// Values; thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "storage/http/http_client.h"
#include "storage/http/requests.h"

namespace omnigraph::storage::s3 {

using http::CanonicalQuery;
using http::UriEncode;

struct S3Config {
  // scheme://host[:port] without a trailing '/'.
  std::string endpoint;
  // The variable the endpoint came from ("AWS_ENDPOINT_URL"), or "the default AWS endpoint".
  std::string endpoint_source;
  std::string region = "us-east-1";
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;
  // true: http://host/bucket/key; false: http://bucket.host/key.
  bool path_style = true;

  int64_t connect_timeout_ms = 5'000;
  int64_t request_timeout_ms = 30'000;
  // Retries of requests that are safe to repeat (storage/http/requests.h).
  http::RetryPolicy retry;

  // Reads the environment. Configuration naming the variable when credentials are missing or a
  // value is malformed.
  static Result<S3Config> FromEnvironment();
  // The same over any lookup (tests).
  static Result<S3Config> FromLookup(
      const std::function<std::optional<std::string>(std::string_view)>& lookup);
};

// The URL of `key` in `bucket` (empty key: the bucket itself), with `query` (canonical) appended.
std::string BucketUrl(const S3Config& config, std::string_view bucket, std::string_view key,
                      std::string_view query = {});

}  // namespace omnigraph::storage::s3
