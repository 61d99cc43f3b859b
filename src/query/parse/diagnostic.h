// Diagnostic: one error or warning about a `.gq` file, with the place it points at.
//
// Parse errors carry code Q000, type errors the reference's codes T1..T24 (OmniGraph's diagnostics
// and lint), the mutation mixing rule code D2 (OmniGraph's mutation rules) and lint findings L201
// (or no code for per-query lint warnings). `message` is the text after the code, worded like the
// reference's; `fix` says how to repair the query when there is a clear repair. Rendered as "3:14:
// T7: message". Plain values; thread-compatible.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "base/status.h"

namespace omnigraph::query {

// A place in the source: 1-based line and column (columns count bytes) and the byte offset.
struct Pos {
  uint32_t line = 1;
  uint32_t column = 1;
  size_t offset = 0;

  friend bool operator==(const Pos&, const Pos&) = default;
};

// A source range: where it begins and the byte offset one past its end.
struct Span {
  Pos begin;
  size_t end = 0;

  friend bool operator==(const Span&, const Span&) = default;
};

// A span covering both `a` and `b` (a before b).
Span Join(const Span& a, const Span& b);

enum class Severity : uint8_t { kError, kWarning };
// "error", "warning".
const char* SeverityName(Severity severity);

struct Diagnostic {
  Severity severity = Severity::kError;
  std::string code;     // "Q000", "T7", "D2", "L201"; empty for uncoded lint warnings.
  std::string message;  // Without the code prefix.
  Span span;
  std::string fix;  // How to repair it; may be empty.

  // "line:column: CODE: message" (the code part omitted when empty).
  std::string Render() const;
  // "CODE: message", the reference's wording.
  std::string CodedMessage() const;
};

// An error diagnostic as a failure: InvalidArgument whose message is Render()'s text and which
// carries the code, the line and column and the fix as fields (Status::diagnostic), naming
// `object` (e.g. "query:name") when given.
Status DiagnosticError(const Diagnostic& diagnostic, std::string object = {});

// The parse-error code of lint output (OmniGraph's diagnostics and lint).
inline constexpr const char* kParseErrorCode = "Q000";
// The code of the mutation mixing rule (OmniGraph's mutation rules, "D₂").
inline constexpr const char* kMutationMixCode = "D2";

}  // namespace omnigraph::query
