// Status and Result<T>: how every fallible operation in OmniGraph reports failure.
//
// A Status carries a coarse Kind that tells the caller what to do (retry, refresh, fix the input,
// give up), a specific Code that says what happened, a message for people, and the name of the
// object involved when there is one (docs/design/overview.md "Failures"). Status is a value type;
// copying it is cheap when it is OK. Result<T> holds either a T or a non-OK Status. Both are
// [[nodiscard]]. Thread-safety: values; no shared state.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "omnigraph/status_codes.h"

namespace omnigraph {

// What the caller should do about a failure, and what happened, more precisely than the kind.
// Both are generated from the one list in omnigraph/status_codes.h, which says what each means;
// the public API's enums (omnigraph/status.h) come from the same list, so they agree number for
// number and name for name.
enum class Kind : uint8_t {
#define OMNIGRAPH_KIND_ENUMERATOR_(kind, name) kind,
  OMNIGRAPH_STATUS_KINDS(OMNIGRAPH_KIND_ENUMERATOR_)
#undef OMNIGRAPH_KIND_ENUMERATOR_
};

// Each code has a default kind (KindOf).
enum class Code : uint16_t {
#define OMNIGRAPH_CODE_ENUMERATOR_(code, name, kind) code,
  OMNIGRAPH_STATUS_CODES(OMNIGRAPH_CODE_ENUMERATOR_)
#undef OMNIGRAPH_CODE_ENUMERATOR_
};

// The stable lower-case name of a code or kind ("read_set_changed", "not_found").
std::string_view CodeName(Code code);
std::string_view KindName(Kind kind);
// The kind a code carries unless the creator of the status says otherwise.
Kind KindOf(Code code);

// Where in a query's source a failure points, as fields (the message says it in text too,
// "1:62: T33: ..."): the diagnostic's code ("Q000", "T33", "D2"), the 1-based line and column
// (columns count bytes) and how to repair it when there is a clear repair
// (query/parse/diagnostic.h).
struct DiagnosticDetail {
  std::string code;
  uint32_t line = 0;
  uint32_t column = 0;
  std::string fix;  // May be empty.

  friend bool operator==(const DiagnosticDetail&, const DiagnosticDetail&) = default;
};

class [[nodiscard]] Status {
 public:
  // OK.
  Status() = default;
  Status(Code code, std::string message, std::string object = {});
  Status(Kind kind, Code code, std::string message, std::string object = {});

  static Status Ok() { return Status(); }

  bool ok() const { return rep_ == nullptr; }
  Kind kind() const { return rep_ ? rep_->kind : Kind::kOk; }
  Code code() const { return rep_ ? rep_->code : Code::kOk; }
  // The message for people; empty when OK. Always valid UTF-8: bytes of a message or object
  // name that are not are written as "\xNN" when the status is made (base/utf8.h).
  const std::string& message() const;
  // The object name the failure concerns, or empty.
  const std::string& object() const;
  // The query diagnostic the failure comes from, or nullptr (OK, or not a query's diagnostic).
  const DiagnosticDetail* diagnostic() const;

  // "kind/code: message [object]", or "OK" (the diagnostic is in the message already).
  std::string ToString() const;

  // A copy with "context: " prefixed to the message; OK stays OK.
  Status WithContext(std::string_view context) const;
  // A copy naming `object` when it names none yet.
  Status WithObject(std::string_view object) const;
  // A copy carrying `detail` (replacing any it had); OK stays OK.
  Status WithDiagnostic(DiagnosticDetail detail) const;

  // Explicitly ignores a status where failure is acceptable (best-effort writes).
  void IgnoreError() const {}

  Status(const Status& other);
  Status& operator=(const Status& other);
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;
  ~Status() = default;

 private:
  struct Rep {
    Kind kind;
    Code code;
    std::string message;
    std::string object;
    std::optional<DiagnosticDetail> diagnostic;
  };
  std::unique_ptr<Rep> rep_;
};

bool operator==(const Status& a, const Status& b);

// Short constructors for the common codes.
Status InvalidArgument(std::string message, std::string object = {});
Status NotFound(std::string message, std::string object = {});
Status Corruption(std::string message, std::string object = {});
Status Internal(std::string message, std::string object = {});
Status Unsupported(std::string message, std::string object = {});

template <typename T>
class [[nodiscard]] Result {
 public:
  // Implicit from a value or a non-OK status, so functions can `return value;` or `return status;`.
  Result(T value) : value_(std::move(value)) {}        // NOLINT(google-explicit-constructor)
  Result(Status status) : value_(std::move(status)) {  // NOLINT(google-explicit-constructor)
    if (std::get<Status>(value_).ok()) {
      value_ = Status(Code::kInternal, "Result constructed from an OK status");
    }
  }

  bool ok() const { return std::holds_alternative<T>(value_); }
  // The failure, or OK.
  Status status() const { return ok() ? Status() : std::get<Status>(value_); }

  // The value; calling these on a failed result is a programmer error (checked).
  T& value() & {
    CheckOk();
    return std::get<T>(value_);
  }
  const T& value() const& {
    CheckOk();
    return std::get<T>(value_);
  }
  T&& value() && {
    CheckOk();
    return std::get<T>(std::move(value_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  T value_or(T fallback) const& { return ok() ? std::get<T>(value_) : std::move(fallback); }

 private:
  void CheckOk() const;
  std::variant<T, Status> value_;
};

[[noreturn]] void CheckFailed(const char* file, int line, const char* condition,
                              std::string_view message);

template <typename T>
void Result<T>::CheckOk() const {
  if (!ok()) {
    CheckFailed(__FILE__, __LINE__, "result.ok()", std::get<Status>(value_).ToString());
  }
}

namespace internal {
inline Status ToStatus(const Status& s) { return s; }
inline Status ToStatus(Status&& s) { return std::move(s); }
template <typename T>
Status ToStatus(const Result<T>& r) {
  return r.status();
}
}  // namespace internal

}  // namespace omnigraph

#define OMNIGRAPH_CONCAT_INNER_(a, b) a##b
#define OMNIGRAPH_CONCAT_(a, b) OMNIGRAPH_CONCAT_INNER_(a, b)

// Returns the status of `expr` (a Status or a Result) from the enclosing function when it failed.
#define OMNIGRAPH_RETURN_IF_ERROR(expr)                                            \
  do {                                                                             \
    ::omnigraph::Status omnigraph_status_ = ::omnigraph::internal::ToStatus(expr); \
    if (!omnigraph_status_.ok()) return omnigraph_status_;                         \
  } while (0)

// `OMNIGRAPH_ASSIGN_OR_RETURN(auto x, F());` declares/assigns x from a Result, or returns its
// status.
#define OMNIGRAPH_ASSIGN_OR_RETURN(lhs, expr) \
  OMNIGRAPH_ASSIGN_OR_RETURN_IMPL_(OMNIGRAPH_CONCAT_(omnigraph_result_, __LINE__), lhs, expr)
#define OMNIGRAPH_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                     \
  if (!tmp.ok()) return tmp.status();                    \
  lhs = std::move(tmp).value()

// Programmer-error check, always on. Never for user input.
#define OMNIGRAPH_CHECK(cond)                                             \
  do {                                                                    \
    if (!(cond)) ::omnigraph::CheckFailed(__FILE__, __LINE__, #cond, ""); \
  } while (0)
#define OMNIGRAPH_CHECK_MSG(cond, msg)                                       \
  do {                                                                       \
    if (!(cond)) ::omnigraph::CheckFailed(__FILE__, __LINE__, #cond, (msg)); \
  } while (0)
