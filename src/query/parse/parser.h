// Parser for the `.gq` query language (OmniGraph's query grammar and mutations): source text to a
// QueryFile.
//
// Recursive descent over the token stream with the reference grammar's ordered choices: a
// clause is `not {..}`, a binding, a traversal, a filter or a bare text-search call, tried in
// that order, so `$a contains $b` is a traversal over an edge named `contains` (OmniGraph's match
// semantics). A syntax error is reported at the furthest token any alternative reached, naming what
// was expected there ("expected ':' or an edge name, found '}'"), like the reference's PEG parser.
// Every parse error is code Q000; parsing stops at the first one. Pure; thread-safe.
#pragma once

#include <optional>
#include <string_view>

#include "base/status.h"
#include "query/parse/ast.h"
#include "query/parse/diagnostic.h"

namespace omnigraph::query {

struct ParseOutcome {
  std::optional<QueryFile> file;    // Set on success.
  std::optional<Diagnostic> error;  // Set on failure (code Q000).
};

// Parses a whole `.gq` file. Besides syntax errors, refuses sources over
// kMaxQuerySourceBytes, duplicate query names and parameters, duplicate @description or
// @instruction, out-of-range integers, hop bounds and limits, Vector dimensions outside
// 1..2147483647 and malformed date()/datetime() literals.
ParseOutcome ParseQueries(std::string_view source);

// ParseQueries as a Result: InvalidArgument whose message is the rendered diagnostic
// ("3:14: Q000: expected ...").
Result<QueryFile> ParseQueryFile(std::string_view source);

// The query named `name` in `file`, or with an empty name the file's only query.
// InvalidArgument "query 'x' not found", or naming how many queries there are to choose from.
Result<const QueryDecl*> SelectQuery(const QueryFile& file, std::string_view name);

}  // namespace omnigraph::query
