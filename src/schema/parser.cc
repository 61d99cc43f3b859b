#include "schema/parser.h"

#include <algorithm>
#include <charconv>
#include <deque>
#include <string>

#include "base/utf8.h"

namespace omnigraph::schema {
namespace {

constexpr std::string_view kTypeList =
    "String, Bool, I32, I64, U32, U64, F32, F64, Date, DateTime, Blob, Vector(N), enum(...) or [T]";

bool IsConstraintName(std::string_view w) {
  return w == "key" || w == "unique" || w == "index" || w == "range" || w == "check";
}
bool IsIdent(std::string_view w) {
  return !w.empty() && ((w[0] >= 'a' && w[0] <= 'z') || w[0] == '_');
}
bool IsTypeName(std::string_view w) { return !w.empty() && w[0] >= 'A' && w[0] <= 'Z'; }

ConstraintKind ConstraintKindOf(std::string_view w) {
  if (w == "key") return ConstraintKind::kKey;
  if (w == "unique") return ConstraintKind::kUnique;
  if (w == "index") return ConstraintKind::kIndex;
  if (w == "range") return ConstraintKind::kRange;
  return ConstraintKind::kCheck;
}

// One argument of a body constraint before it is interpreted.
struct ConstraintArg {
  // kMeta: an edge endpoint written `@src` or `@dst` (token is the word after the '@').
  enum Kind { kIdent, kMeta, kString, kNumber, kBool, kRange } kind = kIdent;
  Token token;
  std::optional<RangeBound> min;
  std::optional<RangeBound> max;
};

class Parser {
 public:
  explicit Parser(std::string_view source) : lexer_(source) {}

  Result<SchemaAst> ParseFile();

 private:
  const Token& Peek(size_t k = 0);
  Token Take();
  bool PeekIs(Tok kind, size_t k = 0) { return Peek(k).kind == kind; }
  bool PeekWord(std::string_view w, size_t k = 0) {
    return Peek(k).kind == Tok::kWord && Peek(k).text == w;
  }
  // Fails with "expected <what>, found <token>" at the next token (or the lexer's own error).
  Status Expected(std::string_view what);
  Status Expect(Tok kind, std::string_view what, Token* out = nullptr);
  Result<AstName> ExpectTypeName(std::string_view what);
  Result<AstName> ExpectIdent(std::string_view what);

  Status ParseInterface(AstType* t);
  Status ParseNode(AstType* t);
  Status ParseEdge(AstType* t);
  // Parses `{ (prop | bodyC)* }`; body constraints only when `allow_constraints`.
  Status ParseBody(AstType* t, bool allow_constraints);
  bool AtBodyConstraint() {
    return PeekIs(Tok::kAt) && Peek(1).kind == Tok::kWord && IsConstraintName(Peek(1).text) &&
           PeekIs(Tok::kLParen, 2);
  }
  Status ParseProperty(AstProperty* p);
  Status ParseTypeRef(PropType* type);
  Status ParseEnumValues(PropType* type);
  Status ParseAnnotation(AstAnnotation* a);
  Status ParseCard(AstType* t);
  Status ParseBodyConstraint(AstConstraint* c);
  Status ParseConstraintArg(ConstraintArg* arg);
  Result<RangeBound> ParseBound(const Token& t);
  Result<uint32_t> ParseU32(const Token& t, std::string_view what);

  Lexer lexer_;
  std::deque<Token> ahead_;
};

const Token& Parser::Peek(size_t k) {
  while (ahead_.size() <= k) {
    // Once the lexer reports an error or the end, keep returning it.
    if (!ahead_.empty() && (ahead_.back().kind == Tok::kError || ahead_.back().kind == Tok::kEnd)) {
      ahead_.push_back(ahead_.back());
    } else {
      ahead_.push_back(lexer_.Next());
    }
  }
  return ahead_[k];
}

Token Parser::Take() {
  Peek();
  Token t = ahead_.front();
  ahead_.pop_front();
  return t;
}

Status Parser::Expected(std::string_view what) {
  const Token& t = Peek();
  if (t.kind == Tok::kError) return SchemaError(t.pos, t.value);
  return SchemaError(t.pos, "expected " + std::string(what) + ", found " + t.Describe());
}

Status Parser::Expect(Tok kind, std::string_view what, Token* out) {
  if (!PeekIs(kind)) return Expected(what);
  Token t = Take();
  if (out != nullptr) *out = std::move(t);
  return Status::Ok();
}

Result<AstName> Parser::ExpectTypeName(std::string_view what) {
  if (!PeekIs(Tok::kWord) || !IsTypeName(Peek().text)) return Expected(what);
  Token t = Take();
  return AstName{std::string(t.text), t.pos};
}

Result<AstName> Parser::ExpectIdent(std::string_view what) {
  if (!PeekIs(Tok::kWord) || !IsIdent(Peek().text)) return Expected(what);
  Token t = Take();
  return AstName{std::string(t.text), t.pos};
}

Result<SchemaAst> Parser::ParseFile() {
  SchemaAst ast;
  while (!PeekIs(Tok::kEnd)) {
    AstType t;
    t.decl_pos = Peek().pos;
    if (PeekWord("interface")) {
      OMNIGRAPH_RETURN_IF_ERROR(ParseInterface(&t));
    } else if (PeekWord("node")) {
      OMNIGRAPH_RETURN_IF_ERROR(ParseNode(&t));
    } else if (PeekWord("edge")) {
      OMNIGRAPH_RETURN_IF_ERROR(ParseEdge(&t));
    } else {
      return Expected("'interface', 'node' or 'edge'");
    }
    ast.decls.push_back(std::move(t));
  }
  return ast;
}

Status Parser::ParseInterface(AstType* t) {
  Take();
  t->kind = TypeKind::kInterface;
  OMNIGRAPH_ASSIGN_OR_RETURN(t->name,
                             ExpectTypeName("interface name (starting with an upper-case letter)"));
  if (PeekIs(Tok::kAt)) {
    return SchemaError(Peek().pos, "interface " + t->name.name +
                                       " cannot carry annotations: expected '{', found '@'");
  }
  OMNIGRAPH_RETURN_IF_ERROR(
      Expect(Tok::kLBrace, "'{' after interface name '" + t->name.name + "'"));
  return ParseBody(t, /*allow_constraints=*/false);
}

Status Parser::ParseNode(AstType* t) {
  Take();
  t->kind = TypeKind::kNode;
  OMNIGRAPH_ASSIGN_OR_RETURN(t->name,
                             ExpectTypeName("node type name (starting with an upper-case letter)"));
  while (PeekIs(Tok::kAt)) {
    if (AtBodyConstraint()) {
      return SchemaError(Peek().pos, "@" + std::string(Peek(1).text) + "(...) on node " +
                                         t->name.name + " belongs inside its body: expected '{'" +
                                         " or 'implements', found '@" + std::string(Peek(1).text) +
                                         "('");
    }
    AstAnnotation a;
    OMNIGRAPH_RETURN_IF_ERROR(ParseAnnotation(&a));
    t->annotations.push_back(std::move(a));
  }
  if (PeekWord("implements")) {
    Take();
    do {
      OMNIGRAPH_ASSIGN_OR_RETURN(AstName iface,
                                 ExpectTypeName("interface name after 'implements'"));
      t->implements.push_back(std::move(iface));
    } while (PeekIs(Tok::kComma) && (Take(), true));
  }
  OMNIGRAPH_RETURN_IF_ERROR(Expect(Tok::kLBrace, "'{' to open the body of node " + t->name.name));
  return ParseBody(t, /*allow_constraints=*/true);
}

Status Parser::ParseEdge(AstType* t) {
  Take();
  t->kind = TypeKind::kEdge;
  OMNIGRAPH_ASSIGN_OR_RETURN(t->name,
                             ExpectTypeName("edge type name (starting with an upper-case letter)"));
  OMNIGRAPH_RETURN_IF_ERROR(Expect(Tok::kColon, "':' after edge name '" + t->name.name + "'"));
  OMNIGRAPH_ASSIGN_OR_RETURN(t->from, ExpectTypeName("source node type of edge " + t->name.name));
  OMNIGRAPH_RETURN_IF_ERROR(
      Expect(Tok::kArrow, "'->' between the endpoint types of edge " + t->name.name));
  OMNIGRAPH_ASSIGN_OR_RETURN(t->to, ExpectTypeName("target node type of edge " + t->name.name));
  while (PeekIs(Tok::kAt)) {
    if (PeekWord("card", 1)) {
      OMNIGRAPH_RETURN_IF_ERROR(ParseCard(t));
      continue;
    }
    if (AtBodyConstraint()) {
      return SchemaError(Peek().pos, "@" + std::string(Peek(1).text) + "(...) on edge " +
                                         t->name.name + " belongs inside its body");
    }
    AstAnnotation a;
    OMNIGRAPH_RETURN_IF_ERROR(ParseAnnotation(&a));
    t->annotations.push_back(std::move(a));
  }
  if (!PeekIs(Tok::kLBrace)) return Status::Ok();
  Take();
  return ParseBody(t, /*allow_constraints=*/true);
}

Status Parser::ParseBody(AstType* t, bool allow_constraints) {
  std::string kind(TypeKindName(t->kind));
  while (!PeekIs(Tok::kRBrace)) {
    if (allow_constraints && AtBodyConstraint()) {
      AstConstraint c;
      OMNIGRAPH_RETURN_IF_ERROR(ParseBodyConstraint(&c));
      t->constraints.push_back(std::move(c));
      continue;
    }
    if (PeekIs(Tok::kWord) && IsIdent(Peek().text)) {
      AstProperty p;
      OMNIGRAPH_RETURN_IF_ERROR(ParseProperty(&p));
      t->properties.push_back(std::move(p));
      continue;
    }
    if (allow_constraints) {
      return Expected(
          "property name, body constraint (@key, @unique, @index, @range, @check) or "
          "'}' in " +
          kind + " " + t->name.name);
    }
    return Expected("property name or '}' in interface " + t->name.name);
  }
  Take();
  return Status::Ok();
}

Status Parser::ParseProperty(AstProperty* p) {
  Token name = Take();
  p->name = AstName{std::string(name.text), name.pos};
  OMNIGRAPH_RETURN_IF_ERROR(Expect(Tok::kColon, "':' after property name '" + p->name.name + "'"));
  p->type_pos = Peek().pos;
  OMNIGRAPH_RETURN_IF_ERROR(ParseTypeRef(&p->type));
  // A constraint keyword followed by '(' starts a body constraint, not an annotation.
  while (PeekIs(Tok::kAt) && !AtBodyConstraint()) {
    AstAnnotation a;
    OMNIGRAPH_RETURN_IF_ERROR(ParseAnnotation(&a));
    p->annotations.push_back(std::move(a));
  }
  return Status::Ok();
}

Status Parser::ParseTypeRef(PropType* type) {
  if (PeekIs(Tok::kLBracket)) {
    Take();
    if (!PeekIs(Tok::kWord)) return Expected("list element type (a base type such as String)");
    const Token& elem = Peek();
    std::optional<ScalarKind> kind = ParseBaseTypeName(elem.text);
    if (!kind) {
      return SchemaError(elem.pos,
                         "expected list element type (String, Bool, I32, I64, U32, U64, "
                         "F32, F64, Date, DateTime), found " +
                             elem.Describe() + " (lists hold scalars only)");
    }
    if (*kind == ScalarKind::kBlob) return SchemaError(elem.pos, "list of Blob is not supported");
    Take();
    type->scalar = *kind;
    type->list = true;
    OMNIGRAPH_RETURN_IF_ERROR(Expect(Tok::kRBracket, "']' to close the list type"));
  } else if (PeekWord("enum") && PeekIs(Tok::kLParen, 1)) {
    Take();
    OMNIGRAPH_RETURN_IF_ERROR(ParseEnumValues(type));
  } else if (PeekWord("Vector")) {
    Take();
    OMNIGRAPH_RETURN_IF_ERROR(Expect(Tok::kLParen, "'(' after Vector"));
    Token dim;
    OMNIGRAPH_RETURN_IF_ERROR(Expect(Tok::kInt, "Vector dimension (a positive integer)", &dim));
    if (dim.text.starts_with("-")) {
      return SchemaError(
          dim.pos, "Vector dimension must be greater than zero, found " + std::string(dim.text));
    }
    OMNIGRAPH_ASSIGN_OR_RETURN(uint32_t n, ParseU32(dim, "Vector dimension"));
    if (n == 0) return SchemaError(dim.pos, "Vector dimension must be greater than zero");
    if (n > kMaxVectorDim) {
      return SchemaError(dim.pos, "Vector dimension " + std::to_string(n) +
                                      " exceeds the maximum " + std::to_string(kMaxVectorDim));
    }
    OMNIGRAPH_RETURN_IF_ERROR(Expect(Tok::kRParen, "')' after the Vector dimension"));
    type->scalar = ScalarKind::kVector;
    type->vector_dim = n;
  } else {
    if (!PeekIs(Tok::kWord)) return Expected("a type (" + std::string(kTypeList) + ")");
    std::optional<ScalarKind> kind = ParseBaseTypeName(Peek().text);
    if (!kind) return Expected("a type (" + std::string(kTypeList) + ")");
    Take();
    type->scalar = *kind;
  }
  if (PeekIs(Tok::kQuestion)) {
    Take();
    type->nullable = true;
  }
  return Status::Ok();
}

Status Parser::ParseEnumValues(PropType* type) {
  OMNIGRAPH_RETURN_IF_ERROR(Expect(Tok::kLParen, "'(' after enum"));
  // Enum values may contain '-', which the ordinary tokens do not, so rescan from here.
  const Token& first = Peek();
  lexer_.ResetTo(first.offset, first.pos);
  ahead_.clear();
  std::vector<std::string> values;
  std::vector<SourcePos> positions;
  while (true) {
    Token v = lexer_.NextEnumValue();
    if (v.kind != Tok::kWord) {
      ahead_.push_back(v);
      if (v.kind == Tok::kRParen && values.empty()) {
        return SchemaError(v.pos, "enum type must include at least one value");
      }
      return Expected("enum value ([A-Za-z0-9_-]+)");
    }
    values.emplace_back(v.text);
    positions.push_back(v.pos);
    Token sep = lexer_.Next();
    if (sep.kind == Tok::kRParen) break;
    if (sep.kind != Tok::kComma) {
      ahead_.push_back(sep);
      return Expected("',' or ')' after enum value '" + values.back() + "'");
    }
  }
  for (size_t i = 1; i < values.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (values[i] == values[j]) {
        return SchemaError(positions[i], "enum type cannot include duplicate values: '" +
                                             values[i] + "' appears more than once");
      }
    }
  }
  std::sort(values.begin(), values.end());
  type->scalar = ScalarKind::kString;
  type->enum_values = std::move(values);
  return Status::Ok();
}

Status Parser::ParseAnnotation(AstAnnotation* a) {
  a->pos = Take().pos;  // '@'
  OMNIGRAPH_ASSIGN_OR_RETURN(AstName name, ExpectIdent("annotation name (a lower-case identifier) "
                                                       "after '@'"));
  a->annotation.name = std::move(name.name);
  if (!PeekIs(Tok::kLParen)) return Status::Ok();
  Take();
  a->has_args = true;
  const Token& v = Peek();
  switch (v.kind) {
    case Tok::kString: a->annotation.value = v.value; break;
    case Tok::kInt:
    case Tok::kFloat: a->annotation.value = std::string(v.text); break;
    case Tok::kWord:
      if (IsIdent(v.text)) {
        a->annotation.value = std::string(v.text);
        break;
      }
      [[fallthrough]];
    default:
      return Expected("annotation argument (a string, number, true, false or identifier) for @" +
                      a->annotation.name);
  }
  Take();
  while (PeekIs(Tok::kComma)) {
    Take();
    OMNIGRAPH_ASSIGN_OR_RETURN(AstName key,
                               ExpectIdent("keyword argument name in @" + a->annotation.name));
    OMNIGRAPH_RETURN_IF_ERROR(
        Expect(Tok::kEquals, "'=' after keyword argument '" + key.name + "'"));
    const Token& lit = Peek();
    bool is_bool = lit.kind == Tok::kWord && (lit.text == "true" || lit.text == "false");
    if (lit.kind != Tok::kString && lit.kind != Tok::kInt && lit.kind != Tok::kFloat && !is_bool) {
      return Expected("literal value for keyword argument '" + key.name + "'");
    }
    std::string value = lit.kind == Tok::kString ? lit.value : std::string(lit.text);
    Take();
    if (!a->annotation.kwargs.emplace(key.name, std::move(value)).second) {
      return SchemaError(key.pos,
                         "keyword argument '" + key.name + "' repeated in @" + a->annotation.name);
    }
  }
  return Expect(Tok::kRParen, "',' or ')' in the arguments of @" + a->annotation.name);
}

Status Parser::ParseCard(AstType* t) {
  SourcePos pos = Take().pos;  // '@'
  Take();                      // 'card'
  if (t->card) return SchemaError(pos, "edge " + t->name.name + " declares @card more than once");
  OMNIGRAPH_RETURN_IF_ERROR(Expect(Tok::kLParen, "'(' after @card"));
  Token min_tok;
  OMNIGRAPH_RETURN_IF_ERROR(
      Expect(Tok::kInt, "minimum count (a non-negative integer) in @card", &min_tok));
  OMNIGRAPH_ASSIGN_OR_RETURN(uint32_t min, ParseU32(min_tok, "@card minimum"));
  OMNIGRAPH_RETURN_IF_ERROR(Expect(Tok::kDotDot, "'..' in @card(min..max)"));
  Cardinality card{min, std::nullopt};
  if (PeekIs(Tok::kInt)) {
    Token max_tok = Take();
    OMNIGRAPH_ASSIGN_OR_RETURN(uint32_t max, ParseU32(max_tok, "@card maximum"));
    if (min > max) {
      return SchemaError(max_tok.pos, "cardinality min (" + std::to_string(min) +
                                          ") exceeds max (" + std::to_string(max) + ")");
    }
    card.max = max;
  }
  OMNIGRAPH_RETURN_IF_ERROR(Expect(Tok::kRParen, "')' to close @card"));
  t->card = card;
  t->card_pos = pos;
  return Status::Ok();
}

Result<uint32_t> Parser::ParseU32(const Token& t, std::string_view what) {
  uint32_t v = 0;
  auto [end, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
  if (ec != std::errc() || end != t.text.data() + t.text.size()) {
    return SchemaError(t.pos, std::string(what) + " '" + std::string(t.text) +
                                  "' is not an integer between 0 and 4294967295");
  }
  return v;
}

Result<RangeBound> Parser::ParseBound(const Token& t) {
  RangeBound b;
  const char* first = t.text.data();
  const char* last = first + t.text.size();
  if (t.kind == Tok::kInt) {
    auto [end, ec] = std::from_chars(first, last, b.integer);
    if (ec != std::errc() || end != last) {
      return SchemaError(t.pos, "@range bound '" + std::string(t.text) +
                                    "' does not fit in a 64-bit signed integer");
    }
    return b;
  }
  b.is_integer = false;
  auto [end, ec] = std::from_chars(first, last, b.floating);
  if (ec != std::errc() || end != last) {
    return SchemaError(t.pos, "@range bound '" + std::string(t.text) + "' is not a finite number");
  }
  return b;
}

Status Parser::ParseConstraintArg(ConstraintArg* arg) {
  const Token& t = Peek();
  arg->token = t;
  bool number = t.kind == Tok::kInt || t.kind == Tok::kFloat;
  if (t.kind == Tok::kDotDot || (number && PeekIs(Tok::kDotDot, 1))) {
    arg->kind = ConstraintArg::kRange;
    if (number) {
      OMNIGRAPH_ASSIGN_OR_RETURN(arg->min, ParseBound(Take()));
    }
    Take();  // '..'
    if (PeekIs(Tok::kInt) || PeekIs(Tok::kFloat)) {
      OMNIGRAPH_ASSIGN_OR_RETURN(arg->max, ParseBound(Take()));
    } else if (!arg->min) {
      return Expected("upper bound after '..' in range");
    }
    return Status::Ok();
  }
  if (t.kind == Tok::kAt && Peek(1).kind == Tok::kWord &&
      (Peek(1).text == "src" || Peek(1).text == "dst")) {
    const SourcePos at = Take().pos;  // '@'
    arg->token = Take();
    arg->token.pos = at;
    arg->kind = ConstraintArg::kMeta;
    return Status::Ok();
  }
  if (number) {
    arg->kind = ConstraintArg::kNumber;
  } else if (t.kind == Tok::kString) {
    arg->kind = ConstraintArg::kString;
  } else if (t.kind == Tok::kWord && (t.text == "true" || t.text == "false")) {
    arg->kind = ConstraintArg::kBool;
  } else if (t.kind == Tok::kWord && IsIdent(t.text)) {
    arg->kind = ConstraintArg::kIdent;
  } else {
    return Expected("constraint argument (property name, literal or range)");
  }
  Take();
  return Status::Ok();
}

Status Parser::ParseBodyConstraint(AstConstraint* c) {
  c->pos = Take().pos;  // '@'
  std::string name(Take().text);
  c->kind = ConstraintKindOf(name);
  Take();  // '('
  std::vector<ConstraintArg> args;
  do {
    ConstraintArg arg;
    OMNIGRAPH_RETURN_IF_ERROR(ParseConstraintArg(&arg));
    args.push_back(std::move(arg));
  } while (PeekIs(Tok::kComma) && (Take(), true));
  OMNIGRAPH_RETURN_IF_ERROR(Expect(Tok::kRParen, "',' or ')' in @" + name + "(...)"));
  auto want_ident = [&](const ConstraintArg& a) -> Status {
    if (a.kind == ConstraintArg::kMeta && c->kind != ConstraintKind::kRange &&
        c->kind != ConstraintKind::kCheck) {
      // Kept with its '@', which no property name has: validation tells the endpoint apart
      // from a property that happens to be called `src` or `dst` (decision 74).
      c->fields.push_back(AstName{"@" + std::string(a.token.text), a.token.pos});
      return Status::Ok();
    }
    if (a.kind != ConstraintArg::kIdent) {
      return SchemaError(a.token.pos,
                         "expected property name in @" + name + ", found " + a.token.Describe());
    }
    c->fields.push_back(AstName{std::string(a.token.text), a.token.pos});
    return Status::Ok();
  };
  if (c->kind == ConstraintKind::kRange || c->kind == ConstraintKind::kCheck) {
    bool range = c->kind == ConstraintKind::kRange;
    std::string usage = range ? "@range(property, min..max)" : "@check(property, \"regex\")";
    if (args.size() != 2) {
      return SchemaError(c->pos, "@" + name + " takes exactly two arguments: " + usage +
                                     ", found " + std::to_string(args.size()));
    }
    OMNIGRAPH_RETURN_IF_ERROR(want_ident(args[0]));
    const ConstraintArg& second = args[1];
    if (range && second.kind != ConstraintArg::kRange) {
      return SchemaError(second.token.pos,
                         "expected range bounds (min..max, min.. or ..max) in "
                         "@range, found " +
                             second.token.Describe());
    }
    if (!range && second.kind != ConstraintArg::kString) {
      return SchemaError(second.token.pos,
                         "expected a string pattern in @check, found " + second.token.Describe());
    }
    c->min = second.min;
    c->max = second.max;
    c->pattern = second.token.value;
    c->pattern_pos = second.token.pos;
    return Status::Ok();
  }
  for (const ConstraintArg& a : args) OMNIGRAPH_RETURN_IF_ERROR(want_ident(a));
  return Status::Ok();
}

}  // namespace

Status SchemaError(SourcePos pos, std::string_view message) {
  return InvalidArgument("line " + std::to_string(pos.line) + ", column " +
                         std::to_string(pos.column) + ": " + std::string(message));
}

Result<SchemaAst> ParseSchemaSyntax(std::string_view source) {
  if (source.size() > kMaxSchemaSourceBytes) {
    return InvalidArgument("schema source is " + std::to_string(source.size()) +
                           " bytes; the limit is " + std::to_string(kMaxSchemaSourceBytes));
  }
  // The source must be UTF-8 before anything of it reaches a name, a literal or a message.
  if (std::optional<size_t> bad = FindInvalidUtf8(source)) {
    const TextPosition at = PositionAt(source, *bad);
    return SchemaError(
        SourcePos{static_cast<int>(at.line), static_cast<int>(at.column)},
        "the schema text is not valid UTF-8 (" + DescribeInvalidUtf8(source, *bad) + ")");
  }
  Parser parser(source);
  return parser.ParseFile();
}

}  // namespace omnigraph::schema
