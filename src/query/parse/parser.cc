#include "query/parse/parser.h"

#include <charconv>
#include <map>

#include "query/parse/parser_internal.h"

namespace omnigraph::query {
namespace internal {
namespace {

bool IsMutationKeyword(const Token& t) {
  return t.kind == Tok::kWord && (t.text == "insert" || t.text == "update" || t.text == "delete");
}

std::string JoinAlternatives(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += i + 1 == items.size() ? " or " : ", ";
    out += items[i];
  }
  return out;
}

}  // namespace

bool IsReservedWord(std::string_view w) {
  return w == "not" || w == "and" || w == "or" || w == "in" || w == "is";
}

bool IsIdentToken(const Token& t) {
  return t.kind == Tok::kWord && !t.text.empty() &&
         ((t.text[0] >= 'a' && t.text[0] <= 'z') || t.text[0] == '_');
}

bool IsTypeNameToken(const Token& t) {
  return t.kind == Tok::kWord && !t.text.empty() && t.text[0] >= 'A' && t.text[0] <= 'Z';
}

void Parser::Expect(std::string what) {
  if (pos_ > furthest_) {
    furthest_ = pos_;
    expected_.clear();
  }
  if (pos_ == furthest_) {
    for (const std::string& e : expected_) {
      if (e == what) return;
    }
    expected_.push_back(std::move(what));
  }
}

void Parser::Summarize(size_t start, std::string what) {
  if (furthest_ == start) expected_ = {std::move(what)};
}

bool Parser::Hard(const Span& span, std::string message, std::string fix) {
  if (!hard_) {
    hard_ = Diagnostic{Severity::kError, kParseErrorCode, std::move(message), span, std::move(fix)};
  }
  return false;
}

bool Parser::Eat(Tok kind, const char* what) {
  if (Is(kind)) {
    Advance();
    return true;
  }
  Expect(what);
  return false;
}

bool Parser::EatWord(std::string_view word) {
  if (IsWord(word)) {
    Advance();
    return true;
  }
  Expect("'" + std::string(word) + "'");
  return false;
}

bool Parser::EatIdent(Name* out, const char* what) {
  if (!IsIdentToken(Cur())) {
    Expect(what);
    return false;
  }
  *out = NameOf(Cur());
  Advance();
  return true;
}

bool Parser::EatVariable(Name* out) {
  if (!Is(Tok::kVariable)) {
    Expect("a variable ($name)");
    return false;
  }
  *out = NameOf(Cur());
  Advance();
  return true;
}

Diagnostic Parser::TakeError() {
  if (hard_) return *hard_;
  const Token& t = toks_[furthest_];
  Diagnostic d;
  d.code = kParseErrorCode;
  d.span = t.span;
  if (t.kind == Tok::kError) {
    d.message = t.value;
  } else {
    d.message = "expected " + JoinAlternatives(expected_) + ", found " + t.Describe();
  }
  return d;
}

bool Parser::ParseFile(QueryFile* file) {
  std::map<std::string, Span> names;
  if (!ParseSettings(&file->settings)) return false;
  if (IsWord("show") && At(1).kind == Tok::kWord && At(1).text == "all") {
    Pos begin = Cur().span.begin;
    Advance();
    Advance();
    if (!Eat(Tok::kSemicolon, "';'")) return false;
    file->show_all = SpanFrom(begin);
    if (!Is(Tok::kEnd)) {
      Expect("end of input (`show all;` stands alone after the file headers)");
      return false;
    }
    return true;
  }
  if (IsWord("branch")) {
    BranchStatement statement;
    if (!ParseBranchStatement(&statement)) return false;
    if (!Is(Tok::kEnd)) {
      Expect("end of input (a branch statement stands alone in its source)");
      return false;
    }
    file->statement = std::move(statement);
    return true;
  }
  while (!Is(Tok::kEnd)) {
    QueryDecl q;
    if (IsWord("explain") && At(1).kind == Tok::kWord && At(1).text == "query") {
      q.explain = true;
      Advance();
    }
    if (!IsWord("query")) {
      Expect("'query'");
      if (file->queries.empty()) Expect("'branch'");  // Only a whole source is a statement.
      Expect("end of input");
      return false;
    }
    if (!ParseQuery(&q)) return false;
    auto [it, inserted] = names.emplace(q.name.text, q.name.span);
    if (!inserted) {
      return Hard(q.name.span,
                  "duplicate query name `" + q.name.text + "`; it is already declared at " +
                      std::to_string(it->second.begin.line) + ":" +
                      std::to_string(it->second.begin.column),
                  "rename one of the two queries");
    }
    file->queries.push_back(std::move(q));
  }
  return true;
}

bool Parser::ParseQuery(QueryDecl* q) {
  Pos begin = Cur().span.begin;
  if (!EatWord("query") || !EatIdent(&q->name, "a query name (lower-case identifier)")) {
    return false;
  }
  if (!Eat(Tok::kLParen, "'('")) return false;
  if (!Is(Tok::kRParen)) {
    while (true) {
      Param p;
      if (!ParseParam(&p)) return false;
      if (q->FindParam(p.name.text) != nullptr) {
        return Hard(p.name.span, "duplicate parameter `$" + p.name.text + "`",
                    "give each parameter a distinct name");
      }
      q->params.push_back(std::move(p));
      if (!Is(Tok::kComma)) break;
      Advance();
    }
  }
  if (!Eat(Tok::kRParen, "')'")) return false;
  if (!ParseAnnotations(q)) return false;
  if (!Eat(Tok::kLBrace, "'{'")) return false;
  if (IsWord("match")) {
    if (!ParseReadBody(q)) return false;
  } else if (IsMutationKeyword(Cur())) {
    while (IsMutationKeyword(Cur())) {
      Mutation m;
      if (!ParseMutation(&m)) return false;
      q->mutations.push_back(std::move(m));
    }
    Expect("'insert'");
    Expect("'update'");
    Expect("'delete'");
  } else {
    Expect("'match'");
    Expect("'insert'");
    Expect("'update'");
    Expect("'delete'");
    return false;
  }
  if (!Eat(Tok::kRBrace, "'}'")) return false;
  q->span = SpanFrom(begin);
  return true;
}

bool Parser::ParseAnnotations(QueryDecl* q) {
  while (Is(Tok::kAnnotation) && (Cur().value == "description" || Cur().value == "instruction")) {
    Token at = Cur();
    Advance();
    if (!Eat(Tok::kLParen, "'('")) return false;
    if (!Is(Tok::kString)) {
      Expect("a string literal");
      return false;
    }
    std::string value = Cur().value;
    Advance();
    if (!Eat(Tok::kRParen, "')'")) return false;
    std::optional<std::string>& slot = at.value == "description" ? q->description : q->instruction;
    if (slot.has_value()) {
      return Hard(
          at.span,
          "query `" + q->name.text + "` cannot include duplicate @" + at.value + " annotations",
          "keep one @" + at.value);
    }
    slot = std::move(value);
  }
  if (Is(Tok::kAnnotation)) {
    Expect("'@description'");
    Expect("'@instruction'");
  }
  return true;
}

bool Parser::ParseParam(Param* p) {
  if (!EatVariable(&p->name) || !Eat(Tok::kColon, "':'")) return false;
  Pos begin = Cur().span.begin;
  schema::PropType& type = p->type;
  auto base = [&]() -> bool {
    std::optional<schema::ScalarKind> kind;
    if (Is(Tok::kWord)) kind = schema::ParseBaseTypeName(Cur().text);
    if (!kind) {
      Expect("a type (String, Bool, I32, I64, U32, U64, F32, F64, Date, DateTime, Blob)");
      return false;
    }
    type.scalar = *kind;
    Advance();
    return true;
  };
  if (Is(Tok::kLBracket)) {
    Advance();
    type.list = true;
    if (!base() || !Eat(Tok::kRBracket, "']'")) return false;
  } else if (IsWord("Vector")) {
    Advance();
    if (!Eat(Tok::kLParen, "'('")) return false;
    if (!Is(Tok::kInt)) {
      Expect("a Vector dimension");
      return false;
    }
    const Token& dim = Cur();
    uint64_t n = 0;
    auto [ptr, ec] = std::from_chars(dim.text.data(), dim.text.data() + dim.text.size(), n);
    if (ec != std::errc() || n == 0 || n > schema::kMaxVectorDim) {
      return Hard(dim.span,
                  "unknown parameter type `Vector(" + std::string(dim.text) + ")` for `$" +
                      p->name.text + "`",
                  "a Vector dimension is between 1 and " + std::to_string(schema::kMaxVectorDim));
    }
    type.scalar = schema::ScalarKind::kVector;
    type.vector_dim = static_cast<uint32_t>(n);
    Advance();
    if (!Eat(Tok::kRParen, "')'")) return false;
  } else if (!base()) {
    Expect("'['");
    Expect("'Vector'");
    return false;
  }
  if (Is(Tok::kQuestion)) {
    type.nullable = true;
    Advance();
  }
  p->type_span = SpanFrom(begin);
  return true;
}

bool Parser::ParseReadBody(QueryDecl* q) {
  if (!EatWord("match") || !Eat(Tok::kLBrace, "'{'")) return false;
  if (!ParseClauses(&q->clauses)) return false;
  if (!EatWord("return") || !Eat(Tok::kLBrace, "'{'")) return false;
  do {
    Projection p;
    if (!ParseProjection(&p)) return false;
    q->projections.push_back(std::move(p));
    Expect("'}'");
  } while (!Is(Tok::kRBrace));
  Advance();
  if (IsWord("order")) {
    Advance();
    if (!Eat(Tok::kLBrace, "'{'")) return false;
    while (true) {
      Ordering o;
      if (!ParseOrdering(&o)) return false;
      q->orderings.push_back(std::move(o));
      if (!Is(Tok::kComma)) break;
      Advance();
    }
    Expect("','");
    if (!Eat(Tok::kRBrace, "'}'")) return false;
  } else {
    Expect("'order'");
  }
  if (IsWord("limit")) {
    Advance();
    if (!Is(Tok::kInt)) {
      Expect("a row count");
      return false;
    }
    const Token& n = Cur();
    uint64_t v = 0;
    auto [ptr, ec] = std::from_chars(n.text.data(), n.text.data() + n.text.size(), v);
    if (ec != std::errc()) {
      return Hard(n.span, "invalid limit: " + std::string(n.text) + " is out of range",
                  "use a limit below 2^64");
    }
    q->limit = v;
    q->limit_span = Span{Prev().span.begin, n.span.end};
    Advance();
  } else {
    Expect("'limit'");
  }
  return true;
}

// clause+ '}' (consumes the closing brace).
bool Parser::ParseClauses(std::vector<Clause>* out) {
  do {
    Clause c;
    if (!ParseClause(&c)) return false;
    out->push_back(std::move(c));
    Expect("'}'");
  } while (!Is(Tok::kRBrace));
  Advance();
  return true;
}

bool Parser::ParseClause(Clause* out) {
  size_t start = pos_;
  Pos begin = Cur().span.begin;
  bool ok = false;
  if (IsBlockStart()) {
    ok = ParseBlockClause(out);
  } else if (Is(Tok::kVariable) && At(1).kind == Tok::kColon) {
    ok = ParseBinding(out);
  } else {
    if (Is(Tok::kVariable)) {
      ok = ParseTraversal(out);
      if (!ok && !hard_failed()) pos_ = start;
    }
    if (!ok && !hard_failed()) ok = ParseFilter(out);
  }
  if (!ok) {
    Summarize(start, "a match clause (binding, traversal, filter or not { ... })");
    return false;
  }
  out->span = SpanFrom(begin);
  return true;
}

bool Parser::ParseBinding(Clause* out) {
  Binding b;
  if (!EatVariable(&b.var) || !Eat(Tok::kColon, "':'")) return false;
  if (!IsTypeNameToken(Cur())) {
    Expect("a node type name (capitalized, as in Person)");
    return false;
  }
  b.type = NameOf(Cur());
  Advance();
  if (Is(Tok::kLBrace)) {
    Advance();
    while (true) {
      PropMatch pm;
      if (!EatIdent(&pm.prop, "a property name") || !Eat(Tok::kColon, "':'") ||
          !ParseMatchValue(&pm.value)) {
        return false;
      }
      b.props.push_back(std::move(pm));
      if (Is(Tok::kComma)) {
        Advance();
        if (Is(Tok::kRBrace)) break;
        continue;
      }
      Expect("','");
      break;
    }
    if (!Eat(Tok::kRBrace, "'}'")) return false;
  }
  out->node = std::move(b);
  return true;
}

bool Parser::ParseTraversal(Clause* out) {
  Traversal t;
  if (!EatVariable(&t.src)) return false;
  if (Is(Tok::kVariable) && At(1).kind == Tok::kColon) {
    t.edge_var = NameOf(Cur());
    Advance();
    Advance();
  }
  if (Is(Tok::kLt)) {
    Advance();
    t.undirected = true;
    if (!ParseEdgeNames(&t) || !Eat(Tok::kGt, "'>'")) return false;
  } else {
    Expect("'<'");
    if (!ParseEdgeNames(&t)) return false;
  }
  if (Is(Tok::kLBrace)) {
    Pos begin = Cur().span.begin;
    Advance();
    t.has_bounds = true;
    if (!ParseHopBound(&t.min_hops, "min") || !Eat(Tok::kComma, "','")) return false;
    t.max_hops.reset();
    if (Is(Tok::kInt)) {
      uint32_t max = 0;
      if (!ParseHopBound(&max, "max")) return false;
      t.max_hops = max;
    } else {
      Expect("a maximum hop count");
    }
    if (!Eat(Tok::kRBrace, "'}'")) return false;
    t.bounds_span = SpanFrom(begin);
  } else {
    Expect("hop bounds {min,max}");
  }
  if (!EatVariable(&t.dst)) return false;
  out->node = std::move(t);
  return true;
}

bool Parser::ParseHopBound(uint32_t* out, const char* which) {
  if (!Is(Tok::kInt)) {
    Expect(std::string("a ") + which + " hop count");
    return false;
  }
  const Token& n = Cur();
  auto [ptr, ec] = std::from_chars(n.text.data(), n.text.data() + n.text.size(), *out);
  if (ec != std::errc()) {
    return Hard(n.span,
                std::string("invalid traversal ") + which + " bound: " + std::string(n.text) +
                    " is out of range",
                "hop bounds are small positive integers such as {1,3}");
  }
  Advance();
  return true;
}

// A filter clause: a comparison, or a Boolean expression (parser_bool.cc).
bool Parser::ParseFilter(Clause* out) { return ParseBooleanFilter(out); }

bool Parser::ParseProjection(Projection* out) {
  Pos begin = Cur().span.begin;
  if (!ParseCondition(&out->expr)) return false;
  if (IsWord("as") && IsIdentToken(At(1))) {
    Advance();
    out->alias = NameOf(Cur());
    Advance();
  } else {
    Expect("'as'");
  }
  out->span = SpanFrom(begin);
  if (Is(Tok::kComma)) {
    Advance();
  } else {
    Expect("','");
  }
  return true;
}

bool Parser::ParseOrdering(Ordering* out) {
  Pos begin = Cur().span.begin;
  if (!ParseCondition(&out->expr)) return false;
  if (IsWord("asc") || IsWord("desc")) {
    out->has_direction = true;
    out->descending = IsWord("desc");
    if (out->expr.kind == ExprKind::kNearest) {
      return Hard(
          Cur().span, "nearest() ordering does not accept asc/desc modifiers",
          "remove '" + std::string(Cur().text) + "'; nearest() always orders closest first");
    }
    Advance();
  } else {
    Expect("'asc'");
    Expect("'desc'");
  }
  out->span = SpanFrom(begin);
  return true;
}

}  // namespace internal

ParseOutcome ParseQueries(std::string_view source) {
  ParseOutcome out;
  if (source.size() > kMaxQuerySourceBytes) {
    out.error = Diagnostic{Severity::kError, kParseErrorCode,
                           "query source is " + std::to_string(source.size()) +
                               " bytes; the limit is " + std::to_string(kMaxQuerySourceBytes),
                           Span{}, "split the queries into several files"};
    return out;
  }
  internal::Parser parser(Tokenize(source));
  QueryFile file;
  if (parser.ParseFile(&file)) {
    out.file = std::move(file);
  } else {
    out.error = parser.TakeError();
  }
  return out;
}

Result<QueryFile> ParseQueryFile(std::string_view source) {
  ParseOutcome out = ParseQueries(source);
  if (out.error) return DiagnosticError(*out.error);
  return std::move(*out.file);
}

Result<const QueryDecl*> SelectQuery(const QueryFile& file, std::string_view name) {
  if (name.empty()) {
    if (file.queries.size() != 1) {
      std::string names;
      for (const QueryDecl& q : file.queries) names += (names.empty() ? "" : ", ") + q.name.text;
      return InvalidArgument(file.queries.empty() ? std::string("the source holds no query")
                                                  : "the source holds multiple queries (" + names +
                                                        "); name the one to run");
    }
    return &file.queries.front();
  }
  const QueryDecl* decl = file.Find(name);
  if (decl == nullptr) return InvalidArgument("query '" + std::string(name) + "' not found");
  return decl;
}

}  // namespace omnigraph::query
