// Lexer for the `.pg` schema language: turns source text into tokens with line and column.
//
// Whitespace, `// line` and `/* block */` comments separate tokens. Words are identifiers and
// type names alike ([A-Za-z_][A-Za-z0-9_]*); the parser decides by context. Numbers are decimal
// integers or `digits.digits` floats, optionally with a leading '-'. Strings are double-quoted
// with the escapes \" \\ \n \r \t. A lexical error comes back as a kError token carrying its
// message. Pure; a Lexer borrows the source and is used by one thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace omnigraph::schema {

// A 1-based line and column (columns count bytes).
struct SourcePos {
  int line = 1;
  int column = 1;
};

enum class Tok {
  kEnd,
  kError,
  kWord,
  kInt,
  kFloat,
  kString,
  kLBrace,
  kRBrace,
  kLParen,
  kRParen,
  kLBracket,
  kRBracket,
  kColon,
  kComma,
  kQuestion,
  kArrow,
  kDotDot,
  kEquals,
  kAt,
};

struct Token {
  Tok kind = Tok::kEnd;
  std::string_view text;  // The token as written (strings include their quotes).
  std::string value;      // Decoded string literal, or the error message of a kError token.
  SourcePos pos;
  size_t offset = 0;  // Byte offset of the token's first character.

  // How a message names the token: "'{'", "'name'", "string \"x\"", "end of input".
  std::string Describe() const;
};

class Lexer {
 public:
  explicit Lexer(std::string_view source) : src_(source) {}

  // The next token (kEnd at the end, forever).
  Token Next();
  // Restarts scanning at `offset`, which must be the offset of a token Next() returned.
  void ResetTo(size_t offset, SourcePos pos);
  // Scans one enum value ([A-Za-z0-9_-]+) after skipping whitespace and comments; a kWord
  // token, or kError/other when none starts here (the caller reports it).
  Token NextEnumValue();

 private:
  // Skips whitespace and comments; returns false (and sets *error) on an unterminated comment.
  bool SkipTrivia(std::string* error, SourcePos* error_pos);
  char Peek(size_t ahead = 0) const;
  void Advance(size_t n = 1);
  Token Make(Tok kind, size_t start, SourcePos pos) const;
  Token LexNumber(size_t start, SourcePos pos);
  Token LexString(size_t start, SourcePos pos);

  std::string_view src_;
  size_t i_ = 0;
  SourcePos pos_;
};

}  // namespace omnigraph::schema
