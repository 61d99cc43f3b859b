#include "base/status.h"

#include <cstdio>
#include <cstdlib>

#include "base/utf8.h"

namespace omnigraph {

namespace {
const std::string& EmptyString() {
  static const std::string* empty = new std::string();
  return *empty;
}
}  // namespace

std::string_view CodeName(Code code) {
  switch (code) {
    case Code::kOk: return "ok";
    case Code::kInvalidArgument: return "invalid_argument";
    case Code::kNotFound: return "not_found";
    case Code::kAlreadyExists: return "already_exists";
    case Code::kPrecondition: return "precondition";
    case Code::kTransient: return "transient";
    case Code::kUnknown: return "unknown";
    case Code::kConfiguration: return "configuration";
    case Code::kPermanent: return "permanent";
    case Code::kCorruption: return "corruption";
    case Code::kFormatTooNew: return "format_too_new";
    case Code::kTooLarge: return "too_large";
    case Code::kUnsupported: return "unsupported";
    case Code::kInternal: return "internal";
    case Code::kCancelled: return "cancelled";
    case Code::kReadSetChanged: return "read_set_changed";
    case Code::kRetriesExhausted: return "retries_exhausted";
    case Code::kPublicationInDoubt: return "publication_in_doubt";
    case Code::kBranchNotFound: return "branch_not_found";
    case Code::kBranchExists: return "branch_exists";
    case Code::kCommitNotFound: return "commit_not_found";
    case Code::kAlreadyInitialized: return "already_initialized";
    case Code::kInitializationIncomplete: return "initialization_incomplete";
    case Code::kKeyConflict: return "key_conflict";
    case Code::kPreconditionFailed: return "precondition_failed";
    case Code::kMergeConflicts: return "merge_conflicts";
    case Code::kResourceLimit: return "resource_limit";
    case Code::kUnknownStamp: return "unknown_stamp";
    case Code::kVersionsReclaimed: return "versions_reclaimed";
    case Code::kParentlessCommit: return "parentless_commit";
    case Code::kSchemaBoundary: return "schema_boundary";
    case Code::kIdempotencyConflict: return "idempotency_conflict";
    case Code::kChangeCursorRejected: return "change_cursor_rejected";
    case Code::kChangeFeedGap: return "change_feed_gap";
  }
  return "invalid_code";
}

std::string_view KindName(Kind kind) {
  switch (kind) {
    case Kind::kOk: return "ok";
    case Kind::kInvalidArgument: return "invalid_argument";
    case Kind::kNotFound: return "not_found";
    case Kind::kAlreadyExists: return "already_exists";
    case Kind::kPrecondition: return "precondition";
    case Kind::kConflict: return "conflict";
    case Kind::kTransient: return "transient";
    case Kind::kUnknown: return "unknown";
    case Kind::kConfiguration: return "configuration";
    case Kind::kPermanent: return "permanent";
    case Kind::kResourceLimit: return "resource_limit";
    case Kind::kUnsupported: return "unsupported";
    case Kind::kInternal: return "internal";
  }
  return "invalid_kind";
}

Kind KindOf(Code code) {
  switch (code) {
    case Code::kOk: return Kind::kOk;
    case Code::kInvalidArgument: return Kind::kInvalidArgument;
    case Code::kNotFound:
    case Code::kBranchNotFound:
    case Code::kCommitNotFound: return Kind::kNotFound;
    case Code::kAlreadyExists:
    case Code::kBranchExists:
    case Code::kAlreadyInitialized: return Kind::kAlreadyExists;
    case Code::kPrecondition:
    case Code::kPreconditionFailed:
    case Code::kChangeCursorRejected: return Kind::kPrecondition;
    case Code::kReadSetChanged:
    case Code::kRetriesExhausted:
    case Code::kKeyConflict:
    case Code::kIdempotencyConflict:
    case Code::kMergeConflicts: return Kind::kConflict;
    case Code::kTransient: return Kind::kTransient;
    case Code::kUnknown:
    case Code::kPublicationInDoubt: return Kind::kUnknown;
    case Code::kConfiguration:
    case Code::kUnknownStamp: return Kind::kConfiguration;
    case Code::kPermanent:
    case Code::kCorruption:
    case Code::kFormatTooNew:
    case Code::kInitializationIncomplete:
    case Code::kVersionsReclaimed:
    case Code::kChangeFeedGap: return Kind::kPermanent;
    case Code::kTooLarge:
    case Code::kResourceLimit: return Kind::kResourceLimit;
    case Code::kUnsupported:
    case Code::kParentlessCommit:
    case Code::kSchemaBoundary: return Kind::kUnsupported;
    case Code::kInternal:
    case Code::kCancelled: return Kind::kInternal;
  }
  return Kind::kInternal;
}

Status::Status(Code code, std::string message, std::string object)
    : Status(KindOf(code), code, std::move(message), std::move(object)) {}

Status::Status(Kind kind, Code code, std::string message, std::string object) {
  OMNIGRAPH_CHECK_MSG(code != Code::kOk && kind != Kind::kOk, "a failure status needs a code");
  // Messages quote inputs and stored names; keep them valid UTF-8 so that whoever prints one in
  // JSON (an error envelope) never meets bytes its writer refuses.
  if (!IsValidUtf8(message)) message = EscapeInvalidUtf8(message);
  if (!IsValidUtf8(object)) object = EscapeInvalidUtf8(object);
  rep_ = std::make_unique<Rep>(Rep{kind, code, std::move(message), std::move(object)});
}

Status::Status(const Status& other)
    : rep_(other.rep_ ? std::make_unique<Rep>(*other.rep_) : nullptr) {}

Status& Status::operator=(const Status& other) {
  if (this != &other) rep_ = other.rep_ ? std::make_unique<Rep>(*other.rep_) : nullptr;
  return *this;
}

const std::string& Status::message() const { return rep_ ? rep_->message : EmptyString(); }
const std::string& Status::object() const { return rep_ ? rep_->object : EmptyString(); }

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string out;
  out.append(KindName(rep_->kind)).append("/").append(CodeName(rep_->code));
  out.append(": ").append(rep_->message);
  if (!rep_->object.empty()) out.append(" [").append(rep_->object).append("]");
  return out;
}

Status Status::WithContext(std::string_view context) const {
  if (ok()) return *this;
  Status copy = *this;
  copy.rep_->message = EscapeInvalidUtf8(context) + ": " + copy.rep_->message;
  return copy;
}

Status Status::WithObject(std::string_view object) const {
  if (ok() || !rep_->object.empty()) return *this;
  Status copy = *this;
  copy.rep_->object = EscapeInvalidUtf8(object);
  return copy;
}

bool operator==(const Status& a, const Status& b) {
  return a.kind() == b.kind() && a.code() == b.code() && a.message() == b.message() &&
         a.object() == b.object();
}

Status InvalidArgument(std::string message, std::string object) {
  return Status(Code::kInvalidArgument, std::move(message), std::move(object));
}
Status NotFound(std::string message, std::string object) {
  return Status(Code::kNotFound, std::move(message), std::move(object));
}
Status Corruption(std::string message, std::string object) {
  return Status(Code::kCorruption, std::move(message), std::move(object));
}
Status Internal(std::string message, std::string object) {
  return Status(Code::kInternal, std::move(message), std::move(object));
}
Status Unsupported(std::string message, std::string object) {
  return Status(Code::kUnsupported, std::move(message), std::move(object));
}

void CheckFailed(const char* file, int line, const char* condition, std::string_view message) {
  std::fprintf(stderr, "%s:%d: OMNIGRAPH_CHECK failed: %s %.*s\n", file, line, condition,
               static_cast<int>(message.size()), message.data());
  std::fflush(stderr);
  std::abort();
}

}  // namespace omnigraph
