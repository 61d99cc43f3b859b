// Parser for the `.pg` schema language (OmniGraph's schema grammar): source text to a syntax tree.
//
// This is the syntactic half; ParseSchema in validate.h adds the semantic checks and is what
// callers normally use. Errors are InvalidArgument with messages of the form
// "line 3, column 14: expected ':' after property name 'age', found '{'". Bad input never
// crashes. Pure; thread-safe.
#pragma once

#include <cstddef>
#include <string_view>

#include "base/status.h"
#include "schema/ast.h"

namespace omnigraph::schema {

// The largest schema source accepted, in bytes (the archive document holding the source and
// its IR must stay well under the 1 MiB document limit of docs/format/commit-documents.md §1).
inline constexpr size_t kMaxSchemaSourceBytes = 256 * 1024;

// Parses `source` into a syntax tree. InvalidArgument on any syntax error (the first one), when
// the source exceeds kMaxSchemaSourceBytes or when it is not valid UTF-8 (naming the line and
// column of the first bad byte).
Result<SchemaAst> ParseSchemaSyntax(std::string_view source);

// "line L, column C: message" as an InvalidArgument status.
Status SchemaError(SourcePos pos, std::string_view message);

}  // namespace omnigraph::schema
