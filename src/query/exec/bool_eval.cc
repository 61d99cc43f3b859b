#include "query/exec/bool_eval.h"

namespace omnigraph::query {

using schema::Value;

namespace {

bool ListHas(const Value& list, const Value& item) {
  for (const Value& x : list.list_items()) {
    if (!x.is_null() && Value::Compare(x, item) == 0) return true;
  }
  return false;
}

bool ListHasNull(const Value& list) {
  for (const Value& x : list.list_items()) {
    if (x.is_null()) return true;
  }
  return false;
}

}  // namespace

Value CompareValues(CompOp op, const Value& l, const Value& r) {
  if (l.is_null() || r.is_null()) return Value::Null();
  const bool l_list = l.tag() == Value::Tag::kList;
  const bool r_list = r.tag() == Value::Tag::kList;
  switch (op) {
    case CompOp::kContains:
      if (l.tag() == Value::Tag::kString && r.tag() == Value::Tag::kString) {
        return Value::Bool(l.string_value().find(r.string_value()) != std::string::npos);
      }
      return Value::Bool(l_list && ListHas(l, r));
    case CompOp::kStartsWith:
      return Value::Bool(l.tag() == Value::Tag::kString && r.tag() == Value::Tag::kString &&
                         l.string_value().starts_with(r.string_value()));
    default: break;
  }
  if (l_list && !r_list) {
    if (op == CompOp::kEq) return Value::Bool(ListHas(l, r));
    if (op == CompOp::kNe) return Value::Bool(!ListHas(l, r));
    return Value::Bool(false);
  }
  return Value::Bool(CompareHolds(op, Value::Compare(l, r)));
}

Value AndValues(const Value& l, const Value& r) {
  const bool l_false = !l.is_null() && !l.bool_value();
  const bool r_false = !r.is_null() && !r.bool_value();
  if (l_false || r_false) return Value::Bool(false);
  if (l.is_null() || r.is_null()) return Value::Null();
  return Value::Bool(true);
}

Value OrValues(const Value& l, const Value& r) {
  if (IsTrue(l) || IsTrue(r)) return Value::Bool(true);
  if (l.is_null() || r.is_null()) return Value::Null();
  return Value::Bool(false);
}

Value NotValue(const Value& v) {
  return v.is_null() ? Value::Null() : Value::Bool(!v.bool_value());
}

Value IsNullValue(const Value& v, bool negated) { return Value::Bool(v.is_null() != negated); }

Value InValues(const Value& v, const Value& list, bool negated) {
  if (v.is_null() || list.is_null() || list.tag() != Value::Tag::kList) return Value::Null();
  if (ListHas(list, v)) return Value::Bool(!negated);
  if (ListHasNull(list)) return Value::Null();
  return Value::Bool(negated);
}

bool IsTrue(const Value& v) { return v.tag() == Value::Tag::kBool && v.bool_value(); }

}  // namespace omnigraph::query
