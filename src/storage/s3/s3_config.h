// S3Config: where an S3 bucket is and how to reach it — endpoint, addressing style, region,
// credentials and timeouts — read as the AWS SDKs and the reference read them: the usual AWS_*
// environment variables, then the shared credentials and config files (aws_profile.h); and the
// URL and query-string encoding that SigV4 needs (docs/design/s3.md).
//
// Sources, first one set wins:
//   credentials   AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY (+ AWS_SESSION_TOKEN); else the
//                 profile's aws_access_key_id + aws_secret_access_key (+ aws_session_token)
//   region        AWS_REGION, AWS_DEFAULT_REGION, the profile's region (default us-east-1)
//   endpoint      AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, the profile's services s3 endpoint_url,
//                 the profile's endpoint_url (default https://s3.<region>.amazonaws.com); an
//                 http:// endpoint only with AWS_ALLOW_HTTP=true
//   addressing    AWS_S3_FORCE_PATH_STYLE or S3_FORCE_PATH_STYLE = true|false; default: path-style
//                 for a custom endpoint, virtual-hosted for AWS itself
//   profile       AWS_PROFILE (default "default") in AWS_SHARED_CREDENTIALS_FILE and
//                 AWS_CONFIG_FILE (default ~/.aws/credentials and ~/.aws/config)
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
  // Where the credentials came from, for messages: empty for the AWS_* variables, else
  // "profile 'dev' in /root/.aws/credentials".
  std::string credentials_source;
  // true: http://host/bucket/key; false: http://bucket.host/key.
  bool path_style = true;

  int64_t connect_timeout_ms = 5'000;
  int64_t request_timeout_ms = 30'000;
  // Retries of requests that are safe to repeat (storage/http/requests.h).
  http::RetryPolicy retry;

  // Reads the environment and the shared files it points at. Configuration naming the variable
  // when credentials are missing or a value is malformed (AWS_ALLOW_HTTP when the endpoint is
  // http:// and it is not true), the profile and files when AWS_PROFILE names no profile, the
  // file and line when a file does not parse or a profile's value is malformed.
  static Result<S3Config> FromEnvironment();
  // The same over any lookup (tests): HOME, AWS_PROFILE and the file variables come from it too.
  static Result<S3Config> FromLookup(
      const std::function<std::optional<std::string>(std::string_view)>& lookup);
};

// The URL of `key` in `bucket` (empty key: the bucket itself), with `query` (canonical) appended.
std::string BucketUrl(const S3Config& config, std::string_view bucket, std::string_view key,
                      std::string_view query = {});

}  // namespace omnigraph::storage::s3
