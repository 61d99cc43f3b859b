// How S3 answers become Status kinds: the HTTP → failure mapping of docs/design/overview.md
// "Failures", in one place (docs/design/s3.md has the table). Pure functions; thread-safe.
#pragma once

#include <string_view>

#include "base/status.h"
#include "storage/http/http_client.h"
#include "storage/http/requests.h"

namespace omnigraph::storage::s3 {

using http::HttpClient;
using http::HttpClientOptions;
using http::HttpRequest;
using http::HttpResponse;
using http::RequestKind;
using http::Transport;

// Where the request went, for messages.
struct ErrorContext {
  std::string_view object;
  std::string_view bucket;
  std::string_view endpoint;
  std::string_view endpoint_source;
  // S3Config::credentials_source: empty for the AWS_* variables, else the profile and its file.
  std::string_view credentials_source;
};

// True when the answer proves the request had no effect, so sending it again is safe whatever it
// was: never sent, 429, 503 SlowDown, 409 ConditionalRequestConflict.
bool NothingHappened(const HttpResponse& response);

// True when the request may or may not have taken effect: sent without a complete answer, or a
// 5xx that is not SlowDown.
bool OutcomeUnknown(const HttpResponse& response);

// The Status for a response that is not a success (§9):
//   not sent, 429, 503 SlowDown                    → Transient
//   404                                            → NotFound (NoSuchBucket: Configuration)
//   412; 409 on a conditional request              → Precondition ("already exists" to a create)
//   409 ConditionalRequestConflict (retries spent) → Unknown
//   401, 403, 301, 307, wrong region               → Configuration, naming the variable
//   other 5xx, timeout, reset                      → Unknown on a write, Transient on a read
//   400 KeyTooLongError                            → InvalidArgument; anything else → Permanent
Status MapFailure(const HttpResponse& response, RequestKind kind, const ErrorContext& context);

}  // namespace omnigraph::storage::s3
