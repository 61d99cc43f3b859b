// The parts the aggregate operator (aggregate.cc) shares with its grouping by value
// (value_groups.cc): a partial aggregate, the aggregate columns' arguments, a result group, and
// the vectorized grouping of frame rows by one property's values (docs/design/query-execution.md
// "Grouping by a value, column at a time"). Plain values; thread-compatible.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#include "base/status.h"
#include "query/exec/context.h"
#include "query/exec/frame.h"
#include "query/plan/plan.h"
#include "schema/value.h"

namespace omnigraph::query::exec {

// One aggregate column's running value over some rows. Integers add exactly (rounded to F64
// once, at the end, unless the sum leaves the I64 range); floats add in row order.
struct Partial {
  int64_t count = 0;  // Non-null numeric values for sum/avg; non-null values for the others.
  int64_t int_sum = 0;
  bool int_overflow = false;
  double float_sum = 0;
  schema::Value best;  // min/max: the best non-null value so far (null when none).

  void AddInt(int64_t v) {
    int64_t sum = 0;
    if (int_overflow || __builtin_add_overflow(int_sum, v, &sum)) {
      if (!int_overflow) float_sum += static_cast<double>(int_sum);
      int_overflow = true;
      int_sum = 0;
      float_sum += static_cast<double>(v);
    } else {
      int_sum = sum;
    }
  }
  void Add(AggFunc func, const schema::Value& v);
  void Merge(AggFunc func, const Partial& o);
  schema::Value Result(AggFunc func) const;
};

// What each aggregate column needs per row: nothing but the row (a count of an entity or id,
// which is never null), or its argument's value.
struct AggregateArgs {
  std::vector<AggFunc> funcs;
  std::vector<CExpr> exprs;
  std::vector<bool> counts_rows;
  // Per aggregate: its argument, when its compile is deferred (a min or max of a String node key
  // whose column is not loaded; decision 254): exprs[a] is then a kProp of its slot without a
  // column. GroupByValue takes a group's min or max from its first or last row when the rows
  // ascend (the key is the id, and the ids ascend with the dense index), reading one id per
  // group instead of every id of the table; any other use compiles it first (CompileDeferred).
  std::vector<const Expr*> deferred;
};

// Compiles aggregate `a`'s deferred argument (loading its column), if it has one.
Status CompileDeferred(ExecContext& ctx, const Frame& frame, AggregateArgs& args, size_t a);

// A group of the result: its group-key values and one partial per aggregate column.
struct ResultGroup {
  std::vector<schema::Value> keys;
  std::vector<Partial> partials;
};

// The groups of `frame`'s rows by the value of the aggregate's one group key, when that key is
// a plain property of the `by` slot `by_slot` of an integral, Bool, Date, DateTime, String or
// Blob column and every aggregate can be computed column at a time (GroupByValue's file says
// which). The groups come in the aggregate's group order (ascending smallest dense index of
// `by_slot` among their rows), with exactly the values the grouping by entities then by key
// value would give. `row_counts`, when not empty, says how many rows each frame row stands for
// in a count of rows (the counts of a count from the adjacency, whose frame has a row per
// counted node); then every aggregate must be such a count. nullopt when the shape does not
// qualify (nothing is charged or counted); storage failures reading a column as reported.
Result<std::optional<std::vector<ResultGroup>>> GroupByValue(ExecContext& ctx, const Frame& frame,
                                                             const AggregateStep& step, int by_slot,
                                                             AggregateArgs& args,
                                                             std::span<const int64_t> row_counts);

}  // namespace omnigraph::query::exec
