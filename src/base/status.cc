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

// The switches are generated from omnigraph/status_codes.h and have no default, so a code or kind
// added there is named here with nothing else to edit.
std::string_view CodeName(Code code) {
  switch (code) {
#define OMNIGRAPH_CASE_(c, name, kind) \
  case Code::c: return name;
    OMNIGRAPH_STATUS_CODES(OMNIGRAPH_CASE_)
#undef OMNIGRAPH_CASE_
  }
  return "invalid_code";  // Not an enumerator (a number cast to Code).
}

std::string_view KindName(Kind kind) {
  switch (kind) {
#define OMNIGRAPH_CASE_(k, name) \
  case Kind::k: return name;
    OMNIGRAPH_STATUS_KINDS(OMNIGRAPH_CASE_)
#undef OMNIGRAPH_CASE_
  }
  return "invalid_kind";
}

Kind KindOf(Code code) {
  switch (code) {
#define OMNIGRAPH_CASE_(c, name, kind) \
  case Code::c: return Kind::kind;
    OMNIGRAPH_STATUS_CODES(OMNIGRAPH_CASE_)
#undef OMNIGRAPH_CASE_
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
  rep_ = std::make_unique<Rep>(Rep{kind, code, std::move(message), std::move(object), {}});
}

Status::Status(const Status& other)
    : rep_(other.rep_ ? std::make_unique<Rep>(*other.rep_) : nullptr) {}

Status& Status::operator=(const Status& other) {
  if (this != &other) rep_ = other.rep_ ? std::make_unique<Rep>(*other.rep_) : nullptr;
  return *this;
}

const std::string& Status::message() const { return rep_ ? rep_->message : EmptyString(); }
const std::string& Status::object() const { return rep_ ? rep_->object : EmptyString(); }

const DiagnosticDetail* Status::diagnostic() const {
  return rep_ && rep_->diagnostic ? &*rep_->diagnostic : nullptr;
}

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

Status Status::WithDiagnostic(DiagnosticDetail detail) const {
  if (ok()) return *this;
  Status copy = *this;
  if (!IsValidUtf8(detail.code)) detail.code = EscapeInvalidUtf8(detail.code);
  if (!IsValidUtf8(detail.fix)) detail.fix = EscapeInvalidUtf8(detail.fix);
  copy.rep_->diagnostic = std::move(detail);
  return copy;
}

bool operator==(const Status& a, const Status& b) {
  const DiagnosticDetail* da = a.diagnostic();
  const DiagnosticDetail* db = b.diagnostic();
  return a.kind() == b.kind() && a.code() == b.code() && a.message() == b.message() &&
         a.object() == b.object() && (da == nullptr) == (db == nullptr) &&
         (da == nullptr || *da == *db);
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
