// OmniGraph C++ — how the public API reports failure: Status and Result<T>.
//
// A Status carries a coarse Kind that tells the caller what to do (fix the input, refresh and
// decide, retry, fix the setup, give up), a specific Code that says what happened, a message for
// people, and the name of the object involved when there is one. Codes and kinds mirror the
// engine's one for one and keep their stable lower-case names (CodeName), which the CLI prints
// and the HTTP API will return; a new code is added here when the engine gains one.
// Result<T> holds either a T or a non-OK Status. Both are [[nodiscard]] values.
//
// Self-contained: the standard library only (no src/ header, no JSON library), so an embedder
// compiles against include/ alone. Thread-safety: values; no shared state.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace omnigraph::api {

// What the caller should do about a failure.
enum class Kind : uint8_t {
  kOk = 0,
  kInvalidArgument,  // The input is wrong; fix it. Nothing was changed.
  kNotFound,         // The thing named does not exist.
  kAlreadyExists,    // The thing to create exists already.
  kPrecondition,     // An expected-state check (e.g. WriteTarget::if_commit) did not hold.
  kConflict,         // Another writer got there first; refresh and decide.
  kTransient,        // Nothing happened; retrying the same call is safe.
  kUnknown,          // A write may or may not have taken effect; look before retrying.
  kConfiguration,    // Credentials, permissions, URI, missing bucket: fix the setup.
  kPermanent,        // Corruption or protocol violation; retrying will not help.
  kResourceLimit,    // A named limit was exceeded.
  kUnsupported,      // Not implemented or not allowed by this version.
  kInternal,         // A bug in OmniGraph.
};

// What happened, more precisely than Kind. Each code has a default kind (KindOf).
enum class Code : uint16_t {
  kOk = 0,
  kInvalidArgument,
  kNotFound,
  kAlreadyExists,
  kPrecondition,
  kTransient,
  kUnknown,
  kConfiguration,
  kPermanent,
  kCorruption,
  kFormatTooNew,
  kTooLarge,
  kUnsupported,
  kInternal,
  kCancelled,
  kReadSetChanged,      // A concurrent commit changed what a strict write read.
  kRetriesExhausted,    // Publishing lost the race too many times.
  kPublicationInDoubt,  // The commit may exist; look at the branch before retrying.
  kBranchNotFound,
  kBranchExists,
  kCommitNotFound,
  kAlreadyInitialized,        // Database::Init found a graph.
  kInitializationIncomplete,  // A graph root whose init did not finish.
  kKeyConflict,               // A write would repeat a key.
  kPreconditionFailed,        // WriteTarget::if_commit is not the branch head.
  kMergeConflicts,
  kResourceLimit,
  kUnknownStamp,          // The store's stamp is not an OmniGraph graph this version knows.
  kVersionsReclaimed,     // The commit's data was removed by cleanup.
  kParentlessCommit,      // A per-commit diff of a commit without a parent (genesis).
  kSchemaBoundary,        // A per-commit diff of a commit that changed the schema.
  kIdempotencyConflict,   // An idempotency key was already used for a different request.
  kChangeCursorRejected,  // A feed cursor of another graph or branch life, or damaged.
  kChangeFeedGap,         // Cleanup reclaimed what a feed cursor needs; take a baseline.
};

// The stable lower-case name of a code or kind ("branch_not_found", "not_found").
std::string_view CodeName(Code code);
std::string_view KindName(Kind kind);
// The kind a code carries unless the creator of the status says otherwise.
Kind KindOf(Code code);

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
