// AzureConfig: where an Azure Blob Storage account is and how to sign for it — account, Shared Key,
// blob endpoint and timeouts — read from the environment; and the Shared Key signature
// (docs/design/azure.md).
//
// Variables: AZURE_STORAGE_CONNECTION_STRING (AccountName, AccountKey, BlobEndpoint or
// DefaultEndpointsProtocol + EndpointSuffix), or AZURE_STORAGE_ACCOUNT and AZURE_STORAGE_KEY with
// AZURE_BLOB_ENDPOINT (default https://<account>.blob.core.windows.net). The separate variables
// win over the connection string where both are set. Values; thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "storage/http/requests.h"

namespace omnigraph::storage::azure {

// The REST API version every request names (x-ms-version).
inline constexpr char kApiVersion[] = "2021-08-06";

struct AzureConfig {
  std::string account;
  // The account key, base64 as Azure shows it.
  std::string key;
  // scheme://host[:port][/path] without a trailing '/': the account's blob service. Azurite puts
  // the account in the path (http://127.0.0.1:10000/devstoreaccount1).
  std::string endpoint;
  // The variable the endpoint came from, for messages.
  std::string endpoint_source;

  int64_t connect_timeout_ms = 5'000;
  int64_t request_timeout_ms = 30'000;
  http::RetryPolicy retry;

  static Result<AzureConfig> FromEnvironment();
  // The same over any lookup (tests).
  static Result<AzureConfig> FromLookup(
      const std::function<std::optional<std::string>(std::string_view)>& lookup);
};

// The key=value fields of a connection string ("A=1;B=2;"); values may contain '='.
std::vector<std::pair<std::string, std::string>> ParseConnectionString(std::string_view text);

// What a Shared Key signature covers (the standard headers by their slot, the x-ms-* headers, the
// URL path as sent and the query parameters, decoded).
struct SignedRequest {
  std::string method;
  // Content-Length of the body; 0 signs as empty (API versions since 2015-02-21).
  uint64_t content_length = 0;
  std::string content_type;
  std::string if_match;
  std::string if_none_match;
  std::string range;
  // x-ms-* headers: name (any case) and value.
  std::vector<std::pair<std::string, std::string>> ms_headers;
  // The path of the URL after the host, as sent (percent-encoded), starting with '/'.
  std::string path;
  // Query parameters, decoded.
  std::vector<std::pair<std::string, std::string>> query;
};

// The Shared Key string-to-sign of `request` for `account`.
std::string StringToSign(const SignedRequest& request, std::string_view account);
// base64(HMAC-SHA256(base64-decoded key, string_to_sign)); Configuration when the key is not
// base64.
Result<std::string> SharedKeySignature(std::string_view key_base64,
                                       std::string_view string_to_sign);

}  // namespace omnigraph::storage::azure
