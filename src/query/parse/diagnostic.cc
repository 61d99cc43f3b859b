#include "query/parse/diagnostic.h"

#include <algorithm>
#include <utility>

namespace omnigraph::query {

Span Join(const Span& a, const Span& b) { return Span{a.begin, std::max(a.end, b.end)}; }

const char* SeverityName(Severity severity) {
  return severity == Severity::kError ? "error" : "warning";
}

std::string Diagnostic::CodedMessage() const {
  return code.empty() ? message : code + ": " + message;
}

std::string Diagnostic::Render() const {
  return std::to_string(span.begin.line) + ":" + std::to_string(span.begin.column) + ": " +
         CodedMessage();
}

Status DiagnosticError(const Diagnostic& diagnostic, std::string object) {
  return InvalidArgument(diagnostic.Render(), std::move(object))
      .WithDiagnostic(DiagnosticDetail{diagnostic.code, diagnostic.span.begin.line,
                                       diagnostic.span.begin.column, diagnostic.fix});
}

}  // namespace omnigraph::query
