// ErrorOutput and the status mapping (server/errors.h).
#include "server/errors.h"

#include <cctype>
#include <optional>
#include <string_view>
#include <utility>

namespace omnigraph::server {

using api::Code;

// Every code is named (no default), so a code added to omnigraph/status_codes.h does not build
// until it is given its HTTP status here (-Wswitch, an error with OMNIGRAPH_WERROR).
int HttpStatusOf(Code code) {
  switch (code) {
    case Code::kOk: return 200;
    case Code::kInvalidArgument:
    case Code::kChangeCursorRejected:
    case Code::kUnsupported: return 400;
    case Code::kNotFound:
    case Code::kBranchNotFound:
    case Code::kCommitNotFound: return 404;
    case Code::kAlreadyExists:
    case Code::kBranchExists:
    case Code::kKeyConflict:
    case Code::kIdempotencyConflict:
    case Code::kReadSetChanged:
    case Code::kRetriesExhausted:
    case Code::kMergeConflicts:
    case Code::kParentlessCommit:
    case Code::kSchemaBoundary:
    case Code::kAlreadyInitialized: return 409;
    case Code::kVersionsReclaimed:
    case Code::kChangeFeedGap: return 410;
    case Code::kPrecondition:
    case Code::kPreconditionFailed: return 412;
    case Code::kTooLarge:
    case Code::kResourceLimit: return 413;
    case Code::kInitializationIncomplete: return 503;
    // Storage, corruption, an outcome in doubt, a bug: the server could not do it.
    case Code::kTransient:
    case Code::kUnknown:
    case Code::kConfiguration:
    case Code::kPermanent:
    case Code::kCorruption:
    case Code::kFormatTooNew:
    case Code::kInternal:
    case Code::kCancelled:
    case Code::kPublicationInDoubt:
    case Code::kUnknownStamp: return 500;
  }
  return 500;  // Not an enumerator (a number cast to Code).
}

std::string_view ErrorCodeOf(int http_status) {
  switch (http_status) {
    case 400:
    case 408:
    case 413:
    case 414:
    case 415:
    case 431: return "bad_request";
    case 401: return "unauthorized";
    case 403: return "forbidden";
    case 404: return "not_found";
    case 405: return "method_not_allowed";
    case 409: return "conflict";
    case 429: return "too_many_requests";
    case 410:
    case 412:
    case 424:
    case 503: return "";
    default: return "internal";
  }
}

HttpResponse JsonResponse(const api::Json& value, int http_status) {
  HttpResponse out;
  out.status = http_status;
  out.body = value.dump();
  return out;
}

namespace {

api::Json Envelope(int http_status, std::string message) {
  api::Json out = api::Json::object();
  out["error"] = std::move(message);
  std::string_view code = ErrorCodeOf(http_status);
  if (!code.empty()) out["code"] = code;
  return out;
}

}  // namespace

HttpResponse ErrorResponse(int http_status, std::string message) {
  return JsonResponse(Envelope(http_status, std::move(message)), http_status);
}

namespace {

// The text between `'` after the first `after` in `message`, or nullopt.
std::optional<std::string> QuotedAfter(std::string_view message, std::string_view after) {
  const size_t at = message.find(after);
  if (at == std::string_view::npos) return std::nullopt;
  const size_t open = at + after.size();
  const size_t close = message.find('\'', open);
  if (close == std::string_view::npos) return std::nullopt;
  return std::string(message.substr(open, close - open));
}

// OmniGraph's KeyConflictOutput {entity_kind, type_name, entity_id?}, from the engine's message,
// which names the table ("node:Person") and the id ("id 'Ada'"); null when it names no table
// (decision 141).
api::Json KeyConflictDetail(std::string_view message) {
  for (std::string_view kind : {"node", "edge"}) {
    const std::string prefix = std::string(kind) + ":";
    size_t at = message.find(prefix);
    while (at != std::string_view::npos && at > 0 &&
           (std::isalnum(static_cast<unsigned char>(message[at - 1])) || message[at - 1] == '_')) {
      at = message.find(prefix, at + 1);
    }
    if (at == std::string_view::npos) continue;
    size_t end = at + prefix.size();
    while (end < message.size() &&
           (std::isalnum(static_cast<unsigned char>(message[end])) || message[end] == '_')) {
      ++end;
    }
    if (end == at + prefix.size()) continue;
    api::Json out = api::Json{
        {"entity_kind", std::string(kind)},
        {"type_name", std::string(message.substr(at + prefix.size(), end - at - prefix.size()))}};
    if (std::optional<std::string> id = QuotedAfter(message, "id '")) out["entity_id"] = *id;
    return out;
  }
  return api::Json();
}

// OmniGraph's PreconditionFailureOutput {expected, actual}: the publish protocol's message is
// "expected head 'E' but the head is 'A'" (commit/publish.cc); null for another message.
api::Json PreconditionDetail(std::string_view message) {
  std::optional<std::string> expected = QuotedAfter(message, "expected head '");
  if (!expected) return api::Json();
  api::Json out = api::Json{{"expected", *expected}};
  if (std::optional<std::string> actual = QuotedAfter(message, "but the head is '")) {
    out["actual"] = *actual;
  }
  return out;
}

api::Json ErrorEnvelope(const api::Status& status) {
  const int http_status = HttpStatusOf(status.code());
  api::Json out = Envelope(http_status, status.message());
  out["omnigraph_code"] = api::CodeName(status.code());
  out["kind"] = api::KindName(status.kind());
  if (!status.object().empty()) out["object"] = status.object();
  switch (status.code()) {
    case Code::kKeyConflict: {
      api::Json detail = KeyConflictDetail(status.message());
      if (!detail.is_null()) out["key_conflict"] = std::move(detail);
      break;
    }
    case Code::kReadSetChanged:
      // ReadSetConflictOutput: the member whose authority changed (the record the write lost).
      out["read_set_conflict"] = api::Json{
          {"member", status.object().empty() ? std::string("graph_head") : status.object()}};
      break;
    case Code::kPreconditionFailed:
    case Code::kPrecondition: {
      api::Json detail = PreconditionDetail(status.message());
      if (!detail.is_null()) out["precondition_failure"] = std::move(detail);
      break;
    }
    case Code::kParentlessCommit:
    case Code::kSchemaBoundary:
      // ChangeDiffRefusalOutput, for a commit's diff refused ("commit 'ID' has no parent ...");
      // a schema apply refused for open branches names no commit and carries none.
      if (std::optional<std::string> commit = QuotedAfter(status.message(), "commit '")) {
        out["change_diff_refusal"] = api::Json{
            {"reason", std::string(api::CodeName(status.code()))}, {"graph_commit_id", *commit}};
      }
      break;
    default: break;  // Deliberately: the other codes carry no detail object beyond the above.
  }
  // A query's diagnostic as fields (decision 200), so a remote handle returns what an embedded
  // one does. ErrorOutput allows members beyond its own (it is not additionalProperties: false).
  if (const api::DiagnosticDetail* d = status.diagnostic()) {
    api::Json detail = api::Json{{"code", d->code}, {"line", d->line}, {"column", d->column}};
    if (!d->fix.empty()) detail["fix"] = d->fix;
    out["diagnostic"] = std::move(detail);
  }
  return out;
}

}  // namespace

namespace {

// The engine's policy gate refuses with Configuration "permission denied: ..." (omnigraph.h
// DatabaseOptions::policy): 403, as the server's own refusals.
bool PolicyDenied(const api::Status& status) {
  return status.code() == Code::kConfiguration &&
         status.message().starts_with("permission denied:");
}

}  // namespace

HttpResponse ErrorResponse(const api::Status& status) {
  if (PolicyDenied(status)) {
    api::Json out = ErrorEnvelope(status);
    out["code"] = ErrorCodeOf(403);
    return JsonResponse(out, 403);
  }
  return JsonResponse(ErrorEnvelope(status), HttpStatusOf(status.code()));
}

HttpResponse MergeConflictsResponse(const api::Status& status, const api::Json& conflicts) {
  api::Json out = ErrorEnvelope(status);
  out["merge_conflicts"] = conflicts;
  return JsonResponse(out, HttpStatusOf(status.code()));
}

HttpResponse TooLargeResponse(std::string_view resource, uint64_t limit, uint64_t actual) {
  api::Json out = Envelope(413, std::string(resource) + " is " + std::to_string(actual) +
                                    " bytes, over the limit of " + std::to_string(limit));
  out["resource_limit"] =
      api::Json{{"resource", std::string(resource)}, {"limit", limit}, {"actual", actual}};
  return JsonResponse(out, 413);
}

}  // namespace omnigraph::server
