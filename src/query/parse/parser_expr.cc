// Expressions, literals and match values of the `.gq` parser (see parser_internal.h).

#include <charconv>
#include <cmath>
#include <cstdlib>

#include "query/parse/parser_internal.h"
#include "schema/temporal.h"

namespace omnigraph::query::internal {
namespace {

bool IsAggregateName(std::string_view w, AggFunc* func) {
  static const std::pair<std::string_view, AggFunc> kAggs[] = {{"count", AggFunc::kCount},
                                                               {"sum", AggFunc::kSum},
                                                               {"avg", AggFunc::kAvg},
                                                               {"min", AggFunc::kMin},
                                                               {"max", AggFunc::kMax}};
  for (const auto& [name, f] : kAggs) {
    if (w == name) {
      *func = f;
      return true;
    }
  }
  return false;
}

bool IsCallName(std::string_view w) {
  AggFunc unused;
  return w == "now" || w == "nearest" || w == "search" || w == "fuzzy" || w == "match_text" ||
         w == "bm25" || w == "rrf" || IsAggregateName(w, &unused);
}

}  // namespace

bool Parser::ParseExpr(Expr* out) {
  size_t start = pos_;
  Pos begin = Cur().span.begin;
  const Token& t = Cur();
  bool ok = false;
  if (t.kind == Tok::kWord && At(1).kind == Tok::kLParen && IsCallName(t.text)) {
    ok = ParseCall(t.text, out);
  } else if (t.kind == Tok::kVariable) {
    out->var = NameOf(t);
    Advance();
    if (Is(Tok::kDot)) {
      Advance();
      out->kind = ExprKind::kProp;
      if (Is(Tok::kAnnotation)) {
        // A meta-field: `$p.@id`, `$e.@src`, `$e.@dst`, `$e.@type`.
        out->prop = Name{"@" + Cur().value, Cur().span};
        Advance();
        ok = true;
      } else {
        ok = EatIdent(&out->prop, "a property name");
      }
    } else {
      out->kind = ExprKind::kVariable;
      ok = true;
    }
  } else if (t.kind == Tok::kString || t.kind == Tok::kInt || t.kind == Tok::kFloat ||
             t.kind == Tok::kLBracket ||
             (t.kind == Tok::kWord && (t.text == "true" || t.text == "false")) ||
             (t.kind == Tok::kWord && (t.text == "date" || t.text == "datetime") &&
              At(1).kind == Tok::kLParen)) {
    out->kind = ExprKind::kLiteral;
    ok = ParseLiteral(&out->literal);
  } else if (IsIdentToken(t)) {
    out->kind = ExprKind::kAlias;
    out->alias = NameOf(t);
    Advance();
    ok = true;
  } else {
    Expect("an expression");
  }
  if (!ok) {
    Summarize(start, "an expression");
    return false;
  }
  out->span = SpanFrom(begin);
  return true;
}

bool Parser::ParseCall(std::string_view name, Expr* out) {
  AggFunc func;
  if (name == "now") {
    Advance();
    Advance();
    out->kind = ExprKind::kNow;
    return Eat(Tok::kRParen, "')'");
  }
  if (name == "nearest") return ParseNearest(out);
  if (IsAggregateName(name, &func)) {
    out->kind = ExprKind::kAggregate;
    out->agg = func;
    Advance();
    return ParseArgs(out, 1, 1);
  }
  if (name == "rrf") {
    out->kind = ExprKind::kRrf;
    Advance();
    Advance();
    for (int i = 0; i < 2; ++i) {
      Expr rank;
      if (!ParseRank(&rank)) return false;
      out->args.push_back(std::move(rank));
      if (i == 0 && !Eat(Tok::kComma, "','")) return false;
    }
    if (Is(Tok::kComma)) {
      Advance();
      Expr k;
      if (!ParseExpr(&k)) return false;
      out->args.push_back(std::move(k));
    } else {
      Expect("','");
    }
    return Eat(Tok::kRParen, "')'");
  }
  Advance();
  if (name == "search") {
    out->kind = ExprKind::kSearch;
    return ParseArgs(out, 2, 2);
  }
  if (name == "fuzzy") {
    out->kind = ExprKind::kFuzzy;
    return ParseArgs(out, 2, 3);
  }
  if (name == "match_text") {
    out->kind = ExprKind::kMatchText;
    return ParseArgs(out, 2, 2);
  }
  out->kind = ExprKind::kBm25;
  return ParseArgs(out, 2, 2);
}

// '(' expr (',' expr){min-1..max-1} ')'; the current token is '('.
bool Parser::ParseArgs(Expr* out, size_t min_args, size_t max_args) {
  if (!Eat(Tok::kLParen, "'('")) return false;
  while (true) {
    Expr arg;
    if (!ParseExpr(&arg)) return false;
    out->args.push_back(std::move(arg));
    if (out->args.size() == max_args) break;
    if (out->args.size() >= min_args && !Is(Tok::kComma)) {
      Expect("','");
      break;
    }
    if (!Eat(Tok::kComma, "','")) return false;
  }
  return Eat(Tok::kRParen, "')'");
}

// nearest '(' $v '.' prop ',' expr ')'; the current token is `nearest`.
bool Parser::ParseNearest(Expr* out) {
  Advance();
  out->kind = ExprKind::kNearest;
  if (!Eat(Tok::kLParen, "'('") || !EatVariable(&out->var) || !Eat(Tok::kDot, "'.'") ||
      !EatIdent(&out->prop, "a property name") || !Eat(Tok::kComma, "','")) {
    return false;
  }
  Expr query;
  if (!ParseExpr(&query)) return false;
  out->args.push_back(std::move(query));
  return Eat(Tok::kRParen, "')'");
}

// An rrf() rank argument: nearest(...) or bm25(...).
bool Parser::ParseRank(Expr* out) {
  Pos begin = Cur().span.begin;
  bool ok = false;
  if (IsWord("nearest") && At(1).kind == Tok::kLParen) {
    ok = ParseNearest(out);
  } else if (IsWord("bm25") && At(1).kind == Tok::kLParen) {
    Advance();
    out->kind = ExprKind::kBm25;
    ok = ParseArgs(out, 2, 2);
  } else {
    Expect("nearest(...) or bm25(...)");
  }
  if (ok) out->span = SpanFrom(begin);
  return ok;
}

bool Parser::ParseLiteral(Literal* out) {
  size_t start = pos_;
  Pos begin = Cur().span.begin;
  const Token& t = Cur();
  bool ok = true;
  switch (t.kind) {
    case Tok::kString:
      out->value = schema::Value::String(t.value);
      Advance();
      break;
    case Tok::kInt: {
      int64_t v = 0;
      auto [ptr, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
      if (ec != std::errc()) {
        return Hard(t.span, "invalid integer: " + std::string(t.text) + " is out of range for I64",
                    "integers are between 0 and 9223372036854775807; pass larger values as "
                    "parameters");
      }
      out->value = schema::Value::Int(v);
      Advance();
      break;
    }
    case Tok::kFloat: {
      double v = std::strtod(std::string(t.text).c_str(), nullptr);
      if (!std::isfinite(v)) {
        return Hard(t.span, "invalid float: " + std::string(t.text) + " is out of range");
      }
      out->value = schema::Value::Float(v);
      Advance();
      break;
    }
    case Tok::kLBracket: ok = ParseListLiteral(out); break;
    default:
      if (IsWord("true") || IsWord("false")) {
        out->value = schema::Value::Bool(IsWord("true"));
        Advance();
      } else if ((IsWord("date") || IsWord("datetime")) && At(1).kind == Tok::kLParen) {
        ok = ParseDateLiteral(IsWord("datetime"), out);
      } else {
        Expect("a literal");
        ok = false;
      }
  }
  if (!ok) {
    Summarize(start, "a literal");
    return false;
  }
  out->span = SpanFrom(begin);
  return true;
}

bool Parser::ParseListLiteral(Literal* out) {
  Advance();  // '['
  std::vector<schema::Value> items;
  if (!Is(Tok::kRBracket)) {
    while (true) {
      Literal item;
      if (!ParseLiteral(&item)) return false;
      items.push_back(std::move(item.value));
      if (!Is(Tok::kComma)) break;
      Advance();
    }
    Expect("','");
  }
  if (!Eat(Tok::kRBracket, "']'")) return false;
  out->value = schema::Value::List(std::move(items));
  return true;
}

bool Parser::ParseDateLiteral(bool datetime, Literal* out) {
  Advance();
  Advance();  // `date` / `datetime` and '('.
  if (!Is(Tok::kString)) {
    Expect("a string literal");
    return false;
  }
  const Token& s = Cur();
  if (datetime) {
    std::optional<int64_t> ms = schema::ParseDateTime(s.value);
    if (!ms) {
      return Hard(s.span, "invalid DateTime literal '" + s.value + "'",
                  "write an RFC 3339 timestamp such as datetime(\"2024-01-31T09:30:00Z\")");
    }
    out->value = schema::Value::DateTime(*ms);
  } else {
    std::optional<int32_t> days = schema::ParseDate(s.value);
    if (!days) {
      return Hard(s.span, "invalid Date literal '" + s.value + "'",
                  "write a calendar date such as date(\"2024-01-31\")");
    }
    out->value = schema::Value::Date(*days);
  }
  Advance();
  return Eat(Tok::kRParen, "')'");
}

bool Parser::ParseMatchValue(MatchValue* out) {
  size_t start = pos_;
  Pos begin = Cur().span.begin;
  bool ok = false;
  if (Is(Tok::kVariable)) {
    out->kind = MatchValue::Kind::kVariable;
    out->variable = NameOf(Cur());
    Advance();
    ok = true;
  } else if (IsWord("now") && At(1).kind == Tok::kLParen) {
    out->kind = MatchValue::Kind::kNow;
    Advance();
    Advance();
    ok = Eat(Tok::kRParen, "')'");
  } else if (!plain_values_ && (IsIdentToken(Cur()) || Is(Tok::kLParen)) && !IsWord("true") &&
             !IsWord("false") && !IsWord("date") && !IsWord("datetime")) {
    return ParseConstantValue(start, out);
  } else {
    out->kind = MatchValue::Kind::kLiteral;
    ok = ParseLiteral(&out->literal);
  }
  // `$v.prop` is no constant, but parsed as one it gets its typed error (T45).
  if (ok && !plain_values_ && (AtConstantOperator() || Is(Tok::kDot))) {
    return ParseConstantValue(start, out);
  }
  if (!ok) {
    Summarize(start, "a value (a literal, a $parameter or now())");
    return false;
  }
  out->span = SpanFrom(begin);
  return true;
}

}  // namespace omnigraph::query::internal
