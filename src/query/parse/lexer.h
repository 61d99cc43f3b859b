// Lexer for the `.gq` query language: source text to tokens with spans.
//
// Whitespace, `// line` and `/* block */` comments separate tokens. Words ([A-Za-z_][A-Za-z0-9_]*)
// cover keywords, identifiers and type names alike; the parser decides by context and by the
// case of the first letter. `$name` is one variable token ([a-z_] first). Numbers are unsigned
// decimal integers or `digits.digits` floats (the grammar has no sign). Strings are
// double-quoted with the escapes \" \\ \n \r \t. `@word` is an annotation token. `|`, `*` and `;`
// (edge alternation, the edge wildcard, the end of a file header) are punctuation tokens. The first
// lexical error ends the token stream with a kError token carrying its message; a source that is
// not valid UTF-8 is one such error, at its first bad byte. Pure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "query/parse/diagnostic.h"

namespace omnigraph::query {

enum class Tok : uint8_t {
  kEnd,
  kError,
  kWord,
  kVariable,    // value = name without '$'
  kAnnotation,  // value = name without '@'
  kInt,
  kFloat,
  kString,  // value = decoded contents
  kLBrace,
  kRBrace,
  kLParen,
  kRParen,
  kLBracket,
  kRBracket,
  kComma,
  kColon,
  kDot,
  kQuestion,
  kLt,
  kGt,
  kLe,
  kGe,
  kEq,
  kNe,
  kPipe,       // `|` of edge alternation
  kStar,       // `*` of the edge wildcard
  kSemicolon,  // ends a file header or a statement
};

struct Token {
  Tok kind = Tok::kEnd;
  std::string_view text;  // As written.
  std::string value;      // See Tok; the message of a kError token.
  Span span;

  // How a message names the token: "'match'", "variable '$p'", "string \"x\"", "end of input".
  std::string Describe() const;
};

// The largest `.gq` source accepted, in bytes.
inline constexpr size_t kMaxQuerySourceBytes = 1024 * 1024;

// Every token of `source`, ending with kEnd, or with kError at the first lexical error.
std::vector<Token> Tokenize(std::string_view source);

}  // namespace omnigraph::query
