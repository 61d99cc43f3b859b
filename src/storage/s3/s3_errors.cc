#include "storage/s3/s3_errors.h"

#include <string>

#include "storage/s3/s3_xml.h"

namespace omnigraph::storage::s3 {

namespace {

std::string Where(const ErrorContext& c) {
  return "bucket '" + std::string(c.bucket) + "' at " + std::string(c.endpoint) + " (" +
         std::string(c.endpoint_source) + ")";
}

std::string Describe(const HttpResponse& r, const S3Error& e) {
  std::string out = "HTTP " + std::to_string(r.status);
  if (!e.code.empty()) out += " " + e.code;
  if (!e.message.empty()) out += ": " + e.message;
  return out;
}

Status AuthFailure(const HttpResponse& r, const S3Error& e, const ErrorContext& c) {
  // Name what the user set: the variables, or the properties of the profile in its file.
  const bool from_env = c.credentials_source.empty();
  const std::string of = from_env ? "" : " of " + std::string(c.credentials_source);
  const std::string key = from_env ? "AWS_ACCESS_KEY_ID" : "aws_access_key_id" + of;
  std::string hint;
  if (e.code == "InvalidAccessKeyId") {
    hint = "the access key in " + key + " is unknown to the server";
  } else if (e.code == "SignatureDoesNotMatch") {
    hint = "the signature does not match: check " +
           (from_env ? "AWS_SECRET_ACCESS_KEY (and AWS_REGION)"
                     : "aws_secret_access_key" + of + " (and the region)");
  } else if (e.code == "ExpiredToken" || e.code == "InvalidToken") {
    hint = "the session token in " + (from_env ? "AWS_SESSION_TOKEN" : "aws_session_token" + of) +
           " is expired or invalid";
  } else if (e.code == "RequestTimeTooSkewed") {
    hint = "this machine's clock differs too much from the server's";
  } else {
    hint = "access denied for the credentials in " + key;
  }
  return Status(Code::kConfiguration,
                "S3 refused the request to " + Where(c) + ": " + hint + " (" + Describe(r, e) + ")",
                std::string(c.object));
}

}  // namespace

bool NothingHappened(const HttpResponse& r) {
  if (r.transport == Transport::kNotSent) return true;
  if (r.transport != Transport::kAnswered) return false;
  if (r.status == 429) return true;
  if (r.status == 503 || r.status == 409) {
    const std::string code = ParseS3Error(r.body).code;
    return (r.status == 503 && code == "SlowDown") ||
           (r.status == 409 && code == "ConditionalRequestConflict");
  }
  return false;
}

bool OutcomeUnknown(const HttpResponse& r) { return http::OutcomeUnknown(r, NothingHappened(r)); }

Status MapFailure(const HttpResponse& r, RequestKind kind, const ErrorContext& c) {
  const std::string object(c.object);
  if (std::optional<Status> failed = http::TransportFailure(r, kind, "S3", Where(c), object)) {
    return *failed;
  }
  const S3Error e = ParseS3Error(r.body);
  const std::string what = Describe(r, e);
  switch (r.status) {
    case 404:
      if (e.code == "NoSuchBucket") {
        return Status(Code::kConfiguration, "the S3 " + Where(c) + " does not exist", object);
      }
      return Status(Code::kNotFound, "no such object (" + what + ")", object);
    case 412:
      return Status(Code::kPrecondition, "the condition did not hold (" + what + ")", object);
    case 409:
      if (e.code == "ConditionalRequestConflict") {
        return Status(
            Code::kUnknown,
            "a concurrent conditional write kept conflicting after every retry (" + what + ")",
            object);
      }
      if (kind == RequestKind::kConditionalWrite) {
        return Status(Code::kPrecondition, "the condition did not hold (" + what + ")", object);
      }
      return Status(Code::kPermanent, "unexpected conflict from " + Where(c) + " (" + what + ")",
                    object);
    case 401:
    case 403: return AuthFailure(r, e, c);
    case 301:
    case 307:
      return Status(Code::kConfiguration,
                    "the S3 " + Where(c) + " answered with a redirect (" + what +
                        "): the bucket is in another region than AWS_REGION or needs another "
                        "endpoint",
                    object);
    case 429: return Status(Code::kTransient, "S3 is throttling requests (" + what + ")", object);
    default: break;
  }
  if (e.code == "AuthorizationHeaderMalformed" || e.code == "PermanentRedirect" ||
      e.code == "IllegalLocationConstraintException") {
    return Status(Code::kConfiguration,
                  "the S3 " + Where(c) + " is not in region AWS_REGION (" + what + ")", object);
  }
  if (r.status == 503 && e.code == "SlowDown") {
    return Status(Code::kTransient, "S3 asked to slow down (" + what + ")", object);
  }
  if (r.status >= 500) return http::ServerFailure(r, kind, "S3", what, object);
  if (e.code == "KeyTooLongError") {
    return Status(Code::kInvalidArgument, "the object key is too long for S3 (" + what + ")",
                  object);
  }
  if (e.code == "InvalidBucketName") {
    return Status(Code::kConfiguration, "the S3 " + Where(c) + " has an invalid name", object);
  }
  if (e.code.empty()) {
    return Status(Code::kPermanent,
                  "unexpected answer from " + Where(c) + " (" + what +
                      " without an S3 error document): is it an S3 endpoint?",
                  object);
  }
  return Status(Code::kPermanent, "unexpected answer from " + Where(c) + " (" + what + ")", object);
}

}  // namespace omnigraph::storage::s3
