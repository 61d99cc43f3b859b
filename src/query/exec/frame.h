// The executor's row representation and compiled expressions (docs/design/query-execution.md
// "Execution"): a Frame holds the rows of a match so far, column-major, one column of dense
// indices per bound variable; a CExpr is an expression compiled against a frame's slots, a Cond
// a condition on one frame row. Plain values; thread-compatible.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "query/check/typecheck.h"
#include "query/exec/exec_cache.h"
#include "query/parse/ast.h"
#include "schema/ir.h"
#include "schema/value.h"

namespace omnigraph::query::exec {

class TextMatch;  // exec/text.h

enum class SlotKind : uint8_t { kNode, kEdge, kOrigin };

// One bound variable of a frame.
struct Slot {
  std::string name;
  SlotKind kind = SlotKind::kNode;
  const schema::TypeDef* type = nullptr;
  const TableImage* image = nullptr;
};

// The rows of a match so far, column-major: cols[slot][row] is a dense index into the slot's
// table image (or, for the origin slot of a not-block, the outer row number).
struct Frame {
  std::vector<Slot> slots;
  std::vector<std::vector<uint32_t>> cols;
  size_t rows = 1;  // The unit frame: one row binding nothing.

  // The slot of variable `name`, or -1.
  int Find(std::string_view name) const;
  // Keeps the rows `keep` (ascending or not; duplicates allowed) in that order.
  void Gather(const std::vector<uint32_t>& keep);
};

// The dense indices 0, 1, … n − 1 (every row of a table; a frame's rows in order).
std::vector<uint32_t> DenseRange(size_t n);

// A compiled expression over a frame: a constant, a property or id of a bound slot, a bound
// entity itself, the squared L2 distance of a slot's Vector property to `query` (`nearest`; a
// null query or a null vector gives null), a Boolean form over `args` (`form` is its ExprKind,
// three-valued: query/exec/bool_eval.h), a full-text form over a slot's documents (`text`), or one
// value per frame row computed over the whole frame (`frame_values`: rrf).
struct CExpr {
  enum class Kind : uint8_t { kConst, kProp, kId, kEntity, kNearest, kBool, kText, kFrameValue };
  Kind kind = Kind::kConst;
  schema::Value constant;
  int slot = -1;
  const TableImage::ChunkedColumn* column = nullptr;
  std::vector<float> query;               // kNearest: the query vector; empty when it is null.
  ExprKind form = ExprKind::kCompare;     // kBool.
  CompOp op = CompOp::kEq;                // kBool kCompare.
  bool negated = false;                   // kBool kIsNull, kIn.
  std::vector<CExpr> args;                // kBool.
  std::shared_ptr<const TextMatch> text;  // kText.
  std::shared_ptr<const std::vector<schema::Value>> frame_values;  // kFrameValue, by frame row.
};

// The squared Euclidean distance sum((a_i - b_i)^2) of two vectors of the same dimension, as the
// reference reports it (Lance's default L2 metric, whose `_distance` is squared and Float32):
// summed in double, then rounded to float, so the value ranked is the value reported and equal
// vectors give equal distances. A zero vector is an ordinary point (decision 199).
double SquaredL2Distance(std::span<const float> a, std::span<const float> b);

// A condition on one frame row: `left op right` as the typechecker resolved it.
struct Cond {
  CExpr left;
  CExpr right;
  FilterKind kind = FilterKind::kCompare;
  CompOp op = CompOp::kEq;
};

// Whether `cond` holds for the values `l` and `r` of its sides. NULL never matches; a scalar
// against a list property is membership.
bool CondHolds(const Cond& cond, const schema::Value& l, const schema::Value& r);
// The three-way comparison of a filter: an integer against a float compares as two F64 values
// (the reference's numeric comparison); every other pair by schema::Value::Compare.
int CompareForFilter(const schema::Value& l, const schema::Value& r);

}  // namespace omnigraph::query::exec
