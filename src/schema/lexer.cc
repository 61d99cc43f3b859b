#include "schema/lexer.h"

namespace omnigraph::schema {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsWordStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsWordChar(char c) { return IsWordStart(c) || IsDigit(c); }
bool IsEnumChar(char c) { return IsWordChar(c) || c == '-'; }

// Quotes a character for a message, escaping the invisible ones.
std::string QuoteChar(char c) {
  auto u = static_cast<unsigned char>(c);
  if (u < 0x20 || u >= 0x7f) {
    static constexpr char kHex[] = "0123456789abcdef";
    return std::string("byte 0x") + kHex[u >> 4] + kHex[u & 15];
  }
  return std::string("'") + c + "'";
}

}  // namespace

std::string Token::Describe() const {
  switch (kind) {
    case Tok::kEnd: return "end of input";
    case Tok::kString: return "string " + std::string(text);
    case Tok::kError: return "invalid input";
    default: return "'" + std::string(text) + "'";
  }
}

char Lexer::Peek(size_t ahead) const { return i_ + ahead < src_.size() ? src_[i_ + ahead] : '\0'; }

void Lexer::Advance(size_t n) {
  for (size_t k = 0; k < n && i_ < src_.size(); ++k) {
    if (src_[i_] == '\n') {
      ++pos_.line;
      pos_.column = 1;
    } else {
      ++pos_.column;
    }
    ++i_;
  }
}

void Lexer::ResetTo(size_t offset, SourcePos pos) {
  i_ = offset;
  pos_ = pos;
}

bool Lexer::SkipTrivia(std::string* error, SourcePos* error_pos) {
  while (i_ < src_.size()) {
    char c = Peek();
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      Advance();
    } else if (c == '/' && Peek(1) == '/') {
      while (i_ < src_.size() && Peek() != '\n') Advance();
    } else if (c == '/' && Peek(1) == '*') {
      SourcePos start = pos_;
      Advance(2);
      while (i_ < src_.size() && !(Peek() == '*' && Peek(1) == '/')) Advance();
      if (i_ >= src_.size()) {
        *error = "unterminated block comment (expected '*/' before end of input)";
        *error_pos = start;
        return false;
      }
      Advance(2);
    } else {
      return true;
    }
  }
  return true;
}

Token Lexer::Make(Tok kind, size_t start, SourcePos pos) const {
  Token t;
  t.kind = kind;
  t.text = src_.substr(start, i_ - start);
  t.pos = pos;
  t.offset = start;
  return t;
}

Token Lexer::LexNumber(size_t start, SourcePos pos) {
  if (Peek() == '-') Advance();
  while (IsDigit(Peek())) Advance();
  // A float needs digits on both sides of the '.', so "0..5" stays an integer and a range.
  if (Peek() == '.' && IsDigit(Peek(1))) {
    Advance();
    while (IsDigit(Peek())) Advance();
    return Make(Tok::kFloat, start, pos);
  }
  return Make(Tok::kInt, start, pos);
}

Token Lexer::LexString(size_t start, SourcePos pos) {
  Advance();  // Opening quote.
  std::string value;
  while (true) {
    if (i_ >= src_.size()) {
      Token t = Make(Tok::kError, start, pos);
      t.value = "unterminated string literal (expected '\"' before end of input)";
      return t;
    }
    char c = Peek();
    if (c == '"') {
      Advance();
      break;
    }
    if (c != '\\') {
      value += c;
      Advance();
      continue;
    }
    SourcePos escape_pos = pos_;
    char e = Peek(1);
    Advance(2);
    switch (e) {
      case '"': value += '"'; break;
      case '\\': value += '\\'; break;
      case 'n': value += '\n'; break;
      case 'r': value += '\r'; break;
      case 't': value += '\t'; break;
      default: {
        Token t = Make(Tok::kError, start, escape_pos);
        t.value =
            "unsupported escape sequence in string literal: expected one of \\\" \\\\ "
            "\\n \\r \\t, found " +
            (e == '\0' ? std::string("end of input") : "'\\" + std::string(1, e) + "'");
        return t;
      }
    }
  }
  Token t = Make(Tok::kString, start, pos);
  t.value = std::move(value);
  return t;
}

Token Lexer::Next() {
  std::string error;
  SourcePos error_pos;
  if (!SkipTrivia(&error, &error_pos)) {
    Token t = Make(Tok::kError, i_, error_pos);
    t.value = std::move(error);
    return t;
  }
  size_t start = i_;
  SourcePos pos = pos_;
  if (i_ >= src_.size()) return Make(Tok::kEnd, start, pos);
  char c = Peek();
  if (IsWordStart(c)) {
    while (IsWordChar(Peek())) Advance();
    return Make(Tok::kWord, start, pos);
  }
  if (IsDigit(c) || (c == '-' && IsDigit(Peek(1)))) return LexNumber(start, pos);
  if (c == '"') return LexString(start, pos);
  auto single = [&](Tok kind) {
    Advance();
    return Make(kind, start, pos);
  };
  switch (c) {
    case '{': return single(Tok::kLBrace);
    case '}': return single(Tok::kRBrace);
    case '(': return single(Tok::kLParen);
    case ')': return single(Tok::kRParen);
    case '[': return single(Tok::kLBracket);
    case ']': return single(Tok::kRBracket);
    case ':': return single(Tok::kColon);
    case ',': return single(Tok::kComma);
    case '?': return single(Tok::kQuestion);
    case '=': return single(Tok::kEquals);
    case '@': return single(Tok::kAt);
    default: break;
  }
  if (c == '-' && Peek(1) == '>') {
    Advance(2);
    return Make(Tok::kArrow, start, pos);
  }
  if (c == '.' && Peek(1) == '.') {
    Advance(2);
    return Make(Tok::kDotDot, start, pos);
  }
  Advance();
  Token t = Make(Tok::kError, start, pos);
  t.value = "unexpected character " + QuoteChar(c);
  return t;
}

Token Lexer::NextEnumValue() {
  std::string error;
  SourcePos error_pos;
  if (!SkipTrivia(&error, &error_pos)) {
    Token t = Make(Tok::kError, i_, error_pos);
    t.value = std::move(error);
    return t;
  }
  if (!IsEnumChar(Peek())) return Next();
  size_t start = i_;
  SourcePos pos = pos_;
  while (IsEnumChar(Peek())) Advance();
  return Make(Tok::kWord, start, pos);
}

}  // namespace omnigraph::schema
