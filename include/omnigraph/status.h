// OmniGraph C++ — how the public API reports failure: Status and Result<T>.
//
// A Status carries a coarse Kind that tells the caller what to do (fix the input, refresh and
// decide, retry, fix the setup, give up), a specific Code that says what happened, a message for
// people, the name of the object involved when there is one, and, for a query's error, where in
// the query it points (DiagnosticDetail). Codes and kinds are listed once, in
// omnigraph/status_codes.h, with their stable lower-case names (CodeName), which the CLI prints
// and the HTTP API returns; the engine's are generated from the same list.
// Result<T> holds either a T or a non-OK Status. Both are [[nodiscard]] values.
//
// Self-contained: the standard library and status_codes.h only (no src/ header, no JSON library),
// so an embedder compiles against include/ alone. Thread-safety: values; no shared state.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "omnigraph/status_codes.h"

namespace omnigraph::api {

// What the caller should do about a failure, and what happened, more precisely than the kind:
// generated from omnigraph/status_codes.h, which says what each means. Each code has a default
// kind (KindOf).
enum class Kind : uint8_t {
#define OMNIGRAPH_KIND_ENUMERATOR_(kind, name) kind,
  OMNIGRAPH_STATUS_KINDS(OMNIGRAPH_KIND_ENUMERATOR_)
#undef OMNIGRAPH_KIND_ENUMERATOR_
};

enum class Code : uint16_t {
#define OMNIGRAPH_CODE_ENUMERATOR_(code, name, kind) code,
  OMNIGRAPH_STATUS_CODES(OMNIGRAPH_CODE_ENUMERATOR_)
#undef OMNIGRAPH_CODE_ENUMERATOR_
};

// The stable lower-case name of a code or kind ("branch_not_found", "not_found").
std::string_view CodeName(Code code);
std::string_view KindName(Kind kind);
// The kind a code carries unless the creator of the status says otherwise.
Kind KindOf(Code code);

// Where in a query's source a failure points, as fields (the message says it in text too,
// "1:62: T33: ..."): the diagnostic's code ("Q000" for a parse error, "T33", "D2"), the 1-based
// line and column (columns count bytes) and how to repair it when there is a clear repair. The
// same fields come back from an embedded handle and from one connected to omnigraph-server.
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
  // A failure; `code` must not be kOk.
  Status(Code code, std::string message, std::string object = {});
  Status(Kind kind, Code code, std::string message, std::string object = {});

  static Status Ok() { return Status(); }

  bool ok() const { return rep_ == nullptr; }
  Kind kind() const { return rep_ ? rep_->kind : Kind::kOk; }
  Code code() const { return rep_ ? rep_->code : Code::kOk; }
  // The message for people; empty when OK.
  const std::string& message() const;
  // The object name the failure concerns, or empty.
  const std::string& object() const;
  // The query diagnostic the failure comes from (a parse or type error of a query), or nullptr.
  const DiagnosticDetail* diagnostic() const;
  // A copy carrying `detail` (replacing any it had); OK stays OK.
  Status WithDiagnostic(DiagnosticDetail detail) const;
  // "kind/code: message [object]", or "OK".
  std::string ToString() const;

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

// The common failure of a front end's own input checks.
Status InvalidArgument(std::string message, std::string object = {});

namespace internal {
// Aborts the process: value() of a failed Result is a programmer error.
[[noreturn]] void ResultHasNoValue(const Status& status);
}  // namespace internal

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

  // The value; calling these on a failed result aborts (a programmer error).
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
  void CheckOk() const {
    if (!ok()) internal::ResultHasNoValue(std::get<Status>(value_));
  }
  std::variant<T, Status> value_;
};

}  // namespace omnigraph::api

// The early-return helpers, for front ends. The engine's internal status header defines macros
// of the same names for its own Status; the API's implementation includes that header first, and
// these definitions then stand aside (a second, different definition would be a compiler warning,
// so a wrong order cannot go unnoticed). OMNIGRAPH_ASSIGN_OR_RETURN has the same text in both.
namespace omnigraph::internal {
inline api::Status ToStatus(const api::Status& s) { return s; }
template <typename T>
api::Status ToStatus(const api::Result<T>& r) {
  return r.status();
}
}  // namespace omnigraph::internal

#ifndef OMNIGRAPH_RETURN_IF_ERROR
#define OMNIGRAPH_CONCAT_INNER_(a, b) a##b
#define OMNIGRAPH_CONCAT_(a, b) OMNIGRAPH_CONCAT_INNER_(a, b)

// Returns the status of `expr` (a Status or a Result) from the enclosing function when it failed.
#define OMNIGRAPH_RETURN_IF_ERROR(expr)                                                 \
  do {                                                                                  \
    ::omnigraph::api::Status omnigraph_status_ = ::omnigraph::internal::ToStatus(expr); \
    if (!omnigraph_status_.ok()) return omnigraph_status_;                              \
  } while (0)

// `OMNIGRAPH_ASSIGN_OR_RETURN(auto x, F());` declares/assigns x from a Result, or returns its
// status.
#define OMNIGRAPH_ASSIGN_OR_RETURN(lhs, expr) \
  OMNIGRAPH_ASSIGN_OR_RETURN_IMPL_(OMNIGRAPH_CONCAT_(omnigraph_result_, __LINE__), lhs, expr)
#define OMNIGRAPH_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                     \
  if (!tmp.ok()) return tmp.status();                    \
  lhs = std::move(tmp).value()
#endif  // OMNIGRAPH_RETURN_IF_ERROR
