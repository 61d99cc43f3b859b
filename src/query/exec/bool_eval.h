// Three-valued logic over schema::Values for the Boolean expressions of filters, projections,
// order keys and mutation `where`s (docs/design/query-language.md "Boolean expressions"): a
// Boolean result is Bool(true), Bool(false) or Null (unknown). NULL never satisfies a
// comparison (the comparison is unknown); `not` of unknown is unknown; `and` is false when
// either side is false, `or` true when either side is true, otherwise unknown when a side is.
// A filter keeps a row only when its condition is true. Pure; thread-safe.
#pragma once

#include "query/parse/ast.h"
#include "schema/value.h"

namespace omnigraph::query {

// `l op r`: unknown when either side is null. `contains` is substring on a String left side
// and membership on a list; `=` / `!=` of a list against a scalar is membership, as in a
// binding's property match.
schema::Value CompareValues(CompOp op, const schema::Value& l, const schema::Value& r);
schema::Value AndValues(const schema::Value& l, const schema::Value& r);
schema::Value OrValues(const schema::Value& l, const schema::Value& r);
schema::Value NotValue(const schema::Value& v);
// `v is null` (`is not null` when negated): never unknown.
schema::Value IsNullValue(const schema::Value& v, bool negated);
// `v in list` (`not in` when negated): unknown when `v` or `list` is null, or when `v` is not
// in the list and the list holds a null.
schema::Value InValues(const schema::Value& v, const schema::Value& list, bool negated);
// Whether a condition's value keeps a row: true only for Bool(true).
bool IsTrue(const schema::Value& v);

}  // namespace omnigraph::query
