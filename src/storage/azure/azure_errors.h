// How Azure Blob answers become Status kinds: the HTTP → failure mapping of docs/design/overview.md
// "Failures" for Azure, in one place (docs/design/azure.md has the table). The transport half and
// the 5xx rule are shared with S3 (storage/http/requests.h). Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "storage/http/http_client.h"
#include "storage/http/requests.h"

namespace omnigraph::storage::azure {

using http::HttpResponse;
using http::RequestKind;
using http::Transport;

// Where the request went, for messages.
struct ErrorContext {
  std::string_view object;
  std::string_view container;
  std::string_view endpoint;
  std::string_view endpoint_source;
};

// The Azure error code of an answer: the x-ms-error-code header, else <Code> of the error body.
std::string ErrorCode(const HttpResponse& response);

// True when the answer proves the request had no effect, so sending it again is safe whatever it
// was: never sent, 429, 503 ServerBusy.
bool NothingHappened(const HttpResponse& response);
bool OutcomeUnknown(const HttpResponse& response);

// True when a conditional create heard "the name exists": 409 BlobAlreadyExists (Azure and
// Azurite), or 412 (a server that answers If-None-Match: * like S3).
bool CreateFoundExisting(const HttpResponse& response);

// The Status for a response that is not a success (§9):
//   not sent, 429, 503 ServerBusy                         → Transient
//   404 BlobNotFound                                      → NotFound
//   404 ContainerNotFound                                 → Configuration
//   412 ConditionNotMet; 409 on a conditional request     → Precondition ("exists" to a create)
//   401, 403 (AuthenticationFailed, AuthorizationFailure) → Configuration, naming the variable
//   other 5xx, timeout, reset                             → Unknown on a write, Transient on a read
//   400 InvalidResourceName, InvalidUri, too long         → InvalidArgument; anything else
//   Permanent
Status MapFailure(const HttpResponse& response, RequestKind kind, const ErrorContext& context);

}  // namespace omnigraph::storage::azure
