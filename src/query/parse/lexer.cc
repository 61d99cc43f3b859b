#include "query/parse/lexer.h"

#include "base/utf8.h"

namespace omnigraph::query {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsLower(char c) { return (c >= 'a' && c <= 'z') || c == '_'; }
bool IsWordStart(char c) { return IsLower(c) || (c >= 'A' && c <= 'Z'); }
bool IsWordChar(char c) { return IsWordStart(c) || IsDigit(c); }

std::string QuoteChar(char c) {
  auto u = static_cast<unsigned char>(c);
  if (u < 0x20 || u >= 0x7f) {
    static constexpr char kHex[] = "0123456789abcdef";
    return std::string("byte 0x") + kHex[u >> 4] + kHex[u & 15];
  }
  return std::string("'") + c + "'";
}

class Scanner {
 public:
  explicit Scanner(std::string_view src) : src_(src) {}

  std::vector<Token> Run() {
    std::vector<Token> out;
    // The source must be UTF-8 before anything of it reaches a literal, a name or a message.
    if (std::optional<size_t> bad = FindInvalidUtf8(src_)) {
      const TextPosition at = PositionAt(src_, *bad);
      out.push_back(
          Error(Pos{at.line, at.column, *bad},
                "the query text is not valid UTF-8 (" + DescribeInvalidUtf8(src_, *bad) + ")"));
      return out;
    }
    while (true) {
      Token t = Next();
      Tok kind = t.kind;
      out.push_back(std::move(t));
      if (kind == Tok::kEnd || kind == Tok::kError) break;
    }
    return out;
  }

 private:
  char Peek(size_t ahead = 0) const { return i_ + ahead < src_.size() ? src_[i_ + ahead] : '\0'; }
  bool AtEnd() const { return i_ >= src_.size(); }

  void Advance(size_t n = 1) {
    for (size_t k = 0; k < n && i_ < src_.size(); ++k) {
      if (src_[i_] == '\n') {
        ++pos_.line;
        pos_.column = 1;
      } else {
        ++pos_.column;
      }
      ++i_;
      pos_.offset = i_;
    }
  }

  Token Make(Tok kind, Pos start, std::string value = {}) const {
    Token t;
    t.kind = kind;
    t.text = src_.substr(start.offset, i_ - start.offset);
    t.value = std::move(value);
    t.span = Span{start, i_};
    return t;
  }

  Token Error(Pos at, std::string message) const {
    Token t;
    t.kind = Tok::kError;
    t.text = src_.substr(at.offset, at.offset < src_.size() ? 1 : 0);
    t.value = std::move(message);
    t.span = Span{at, at.offset + t.text.size()};
    return t;
  }

  // Skips whitespace and comments; false (with *error set) on an unterminated block comment.
  bool SkipTrivia(Token* error) {
    while (!AtEnd()) {
      char c = Peek();
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
        Advance();
      } else if (c == '/' && Peek(1) == '/') {
        while (!AtEnd() && Peek() != '\n') Advance();
      } else if (c == '/' && Peek(1) == '*') {
        Pos start = pos_;
        Advance(2);
        while (!AtEnd() && !(Peek() == '*' && Peek(1) == '/')) Advance();
        if (AtEnd()) {
          *error = Error(start, "unterminated block comment; close it with '*/'");
          return false;
        }
        Advance(2);
      } else {
        break;
      }
    }
    return true;
  }

  Token Next() {
    Token error;
    if (!SkipTrivia(&error)) return error;
    Pos start = pos_;
    if (AtEnd()) return Make(Tok::kEnd, start);
    char c = Peek();
    if (IsWordStart(c)) {
      while (IsWordChar(Peek())) Advance();
      return Make(Tok::kWord, start);
    }
    if (IsDigit(c)) return LexNumber(start);
    if (c == '"') return LexString(start);
    if (c == '$') {
      Advance();
      if (!IsLower(Peek())) {
        return Error(start,
                     "expected a variable name after '$' (a lower-case letter or '_' first, as "
                     "in $name)");
      }
      size_t name_start = i_;
      while (IsWordChar(Peek())) Advance();
      return Make(Tok::kVariable, start, std::string(src_.substr(name_start, i_ - name_start)));
    }
    if (c == '@') {
      Advance();
      if (!IsWordStart(Peek())) {
        return Error(start, "expected an annotation name after '@' (@description, @instruction)");
      }
      size_t name_start = i_;
      while (IsWordChar(Peek())) Advance();
      return Make(Tok::kAnnotation, start, std::string(src_.substr(name_start, i_ - name_start)));
    }
    auto one = [&](Tok kind) {
      Advance();
      return Make(kind, start);
    };
    auto two = [&](Tok kind) {
      Advance(2);
      return Make(kind, start);
    };
    switch (c) {
      case '{': return one(Tok::kLBrace);
      case '}': return one(Tok::kRBrace);
      case '(': return one(Tok::kLParen);
      case ')': return one(Tok::kRParen);
      case '[': return one(Tok::kLBracket);
      case ']': return one(Tok::kRBracket);
      case ',': return one(Tok::kComma);
      case ':': return one(Tok::kColon);
      case '.': return one(Tok::kDot);
      case '?': return one(Tok::kQuestion);
      case '|': return one(Tok::kPipe);
      case '*': return one(Tok::kStar);
      case ';': return one(Tok::kSemicolon);
      case '=': return one(Tok::kEq);
      case '<': return Peek(1) == '=' ? two(Tok::kLe) : one(Tok::kLt);
      case '>': return Peek(1) == '=' ? two(Tok::kGe) : one(Tok::kGt);
      case '!':
        if (Peek(1) == '=') return two(Tok::kNe);
        return Error(start, "unexpected '!'; the only operator with '!' is '!='");
      default: break;
    }
    if (c == '-' && IsDigit(Peek(1))) {
      return Error(start,
                   "negative number literals are not supported by the query grammar; pass the "
                   "value as a parameter");
    }
    return Error(start, "unexpected character " + QuoteChar(c));
  }

  Token LexNumber(Pos start) {
    while (IsDigit(Peek())) Advance();
    if (Peek() == '.' && IsDigit(Peek(1))) {
      Advance();
      while (IsDigit(Peek())) Advance();
      return Make(Tok::kFloat, start);
    }
    return Make(Tok::kInt, start);
  }

  Token LexString(Pos start) {
    Advance();  // Opening quote.
    std::string value;
    while (true) {
      if (AtEnd()) return Error(start, "unterminated string literal; close it with '\"'");
      char c = Peek();
      if (c == '"') break;
      if (c == '\\') {
        Pos escape = pos_;
        Advance();
        if (AtEnd()) return Error(start, "unterminated string literal; close it with '\"'");
        char e = Peek();
        switch (e) {
          case '"': value += '"'; break;
          case '\\': value += '\\'; break;
          case 'n': value += '\n'; break;
          case 'r': value += '\r'; break;
          case 't': value += '\t'; break;
          default:
            return Error(escape, std::string("unsupported escape sequence: \\") + e +
                                     " (use \\\" \\\\ \\n \\r or \\t)");
        }
        Advance();
        continue;
      }
      value += c;
      Advance();
    }
    Advance();  // Closing quote.
    return Make(Tok::kString, start, std::move(value));
  }

  std::string_view src_;
  size_t i_ = 0;
  Pos pos_;
};

}  // namespace

std::string Token::Describe() const {
  switch (kind) {
    case Tok::kEnd: return "end of input";
    case Tok::kString: return "string " + std::string(text);
    case Tok::kVariable: return "variable '" + std::string(text) + "'";
    case Tok::kInt:
    case Tok::kFloat: return "number " + std::string(text);
    case Tok::kError: return "invalid input";
    default: return "'" + std::string(text) + "'";
  }
}

std::vector<Token> Tokenize(std::string_view source) { return Scanner(source).Run(); }

}  // namespace omnigraph::query
