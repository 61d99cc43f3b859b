#include "storage/azure/azure_errors.h"

#include "storage/http/xml.h"

namespace omnigraph::storage::azure {

namespace {

std::string Where(const ErrorContext& c) {
  return "container '" + std::string(c.container) + "' at " + std::string(c.endpoint) + " (" +
         std::string(c.endpoint_source) + ")";
}

std::string Describe(const HttpResponse& r, const std::string& code) {
  std::string out = "HTTP " + std::to_string(r.status);
  if (!code.empty()) out += " " + code;
  std::string message =
      http::XmlUnescape(http::XmlFirst(r.body, "Message").value_or("")).value_or("");
  size_t nl = message.find('\n');
  if (nl != std::string::npos) message.resize(nl);
  if (!message.empty()) out += ": " + message;
  return out;
}

}  // namespace

std::string ErrorCode(const HttpResponse& r) {
  std::string code = r.Header("x-ms-error-code");
  if (!code.empty() || r.body.find("<Error>") == std::string::npos) return code;
  return http::XmlUnescape(http::XmlFirst(r.body, "Code").value_or("")).value_or("");
}

bool NothingHappened(const HttpResponse& r) {
  if (r.transport == Transport::kNotSent) return true;
  if (r.transport != Transport::kAnswered) return false;
  return r.status == 429 || (r.status == 503 && ErrorCode(r) == "ServerBusy");
}

bool OutcomeUnknown(const HttpResponse& r) { return http::OutcomeUnknown(r, NothingHappened(r)); }

bool CreateFoundExisting(const HttpResponse& r) {
  return r.transport == Transport::kAnswered && (r.status == 409 || r.status == 412);
}

Status MapFailure(const HttpResponse& r, RequestKind kind, const ErrorContext& c) {
  const std::string object(c.object);
  if (std::optional<Status> failed =
          http::TransportFailure(r, kind, "Azure Blob", Where(c), object)) {
    return *failed;
  }
  const std::string code = ErrorCode(r);
  const std::string what = Describe(r, code);
  switch (r.status) {
    case 404:
      if (code == "ContainerNotFound") {
        return Status(Code::kConfiguration, "the Azure " + Where(c) + " does not exist", object);
      }
      return Status(Code::kNotFound, "no such blob (" + what + ")", object);
    case 412:
      return Status(Code::kPrecondition, "the condition did not hold (" + what + ")", object);
    case 409:
      if (kind == RequestKind::kConditionalWrite) {
        return Status(Code::kPrecondition, "the condition did not hold (" + what + ")", object);
      }
      return Status(Code::kPermanent, "unexpected conflict from " + Where(c) + " (" + what + ")",
                    object);
    case 401:
    case 403:
      return Status(Code::kConfiguration,
                    "Azure refused the request to " + Where(c) +
                        ": check AZURE_STORAGE_ACCOUNT and AZURE_STORAGE_KEY (or "
                        "AZURE_STORAGE_CONNECTION_STRING) and this machine's clock (" +
                        what + ")",
                    object);
    case 429:
      return Status(Code::kTransient, "Azure is throttling requests (" + what + ")", object);
    default: break;
  }
  if (r.status == 503 && code == "ServerBusy") {
    return Status(Code::kTransient, "Azure asked to slow down (" + what + ")", object);
  }
  if (r.status >= 500) return http::ServerFailure(r, kind, "Azure Blob", what, object);
  if (code == "InvalidResourceName" || code == "InvalidUri" || code == "OutOfRangeInput") {
    return Status(Code::kInvalidArgument, "Azure refused the blob name (" + what + ")", object);
  }
  if (code.empty()) {
    return Status(Code::kPermanent,
                  "unexpected answer from " + Where(c) + " (" + what +
                      " without an Azure error code): is it an Azure Blob endpoint?",
                  object);
  }
  return Status(Code::kPermanent, "unexpected answer from " + Where(c) + " (" + what + ")", object);
}

}  // namespace omnigraph::storage::azure
