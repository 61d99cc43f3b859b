// Subquery predicates: `exists { }`, `count { } op e` and `sum($v.p) { } op e` (operators.h;
// docs/design/query-execution.md "Subquery predicates"), as clauses and as operands of Boolean
// filters (with `not { }`). Each runs its block correlated with the outer rows exactly as an
// anti join does (RunBlock), then judges every outer row by the inner rows that extend it.
#include "query/exec/bool_eval.h"
#include "query/exec/operators.h"

namespace omnigraph::query::exec {

using schema::Value;

namespace {

// The F64 of a numeric value; nullopt for null (and anything else, which the typechecker
// excludes).
std::optional<double> NumberOf(const Value& v) {
  switch (v.tag()) {
    case Value::Tag::kInt: return static_cast<double>(v.int_value());
    case Value::Tag::kUInt: return static_cast<double>(v.uint_value());
    case Value::Tag::kFloat: return v.float_value();
    default: return std::nullopt;
  }
}

}  // namespace

Result<std::vector<Value>> BlockTruth(ExecContext& ctx, const Frame& frame, size_t scope,
                                      const Negation& block) {
  std::vector<Value> truth(frame.rows, Value::Bool(false));
  if (frame.rows == 0) return truth;
  Frame inner;
  size_t origin_slot = 0;
  OMNIGRAPH_RETURN_IF_ERROR(RunBlock(ctx, frame, scope, inner, origin_slot));
  const std::vector<uint32_t>& origin = inner.cols[origin_slot];
  // Every inner row is one distinct match of the block for its outer row, counted once.
  std::vector<uint64_t> counts(frame.rows, 0);
  std::vector<double> sums(frame.rows, 0);
  for (size_t i = 0; i < inner.rows; ++i) ++counts[origin[i]];
  if (block.kind == BlockKind::kSum) {
    OMNIGRAPH_ASSIGN_OR_RETURN(CExpr arg, ctx.Compile(block.sum_arg, inner));
    for (size_t i = 0; i < inner.rows; ++i) {
      if (std::optional<double> x = NumberOf(ctx.Eval(arg, inner, i))) sums[origin[i]] += *x;
    }
  }
  if (block.kind == BlockKind::kNot || block.kind == BlockKind::kExists) {
    const bool want = block.kind == BlockKind::kExists;
    for (size_t r = 0; r < frame.rows; ++r) truth[r] = Value::Bool((counts[r] > 0) == want);
    return truth;
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(CExpr threshold, ctx.Compile(block.threshold, frame));
  for (size_t r = 0; r < frame.rows; ++r) {
    const Value t = ctx.Eval(threshold, frame, r);
    if (t.is_null()) {
      truth[r] = Value::Null();  // NULL never satisfies a comparison: unknown.
      continue;
    }
    const Value got = block.kind == BlockKind::kCount ? Value::Int(static_cast<int64_t>(counts[r]))
                                                      : Value::Float(sums[r]);
    truth[r] = Value::Bool(CompareHolds(block.op, CompareForFilter(got, t)));
  }
  return truth;
}

Status RunStep(ExecContext& ctx, ScopeState&, Frame& frame, const SubqueryStep& step) {
  if (frame.rows == 0) return Status::Ok();
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<Value> truth,
                             BlockTruth(ctx, frame, step.scope, *step.block));
  std::vector<uint32_t> keep;
  for (uint32_t r = 0; r < frame.rows; ++r) {
    if (IsTrue(truth[r])) keep.push_back(r);
  }
  frame.Gather(keep);
  return Status::Ok();
}

Result<CExpr> ExecContext::CompileBlock(const Expr& e, const Frame& frame) {
  auto scope = plan_.block_scopes.find(e.block.get());
  if (scope == plan_.block_scopes.end()) return Internal("a block operand was not planned");
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<Value> truth,
                             BlockTruth(*this, frame, scope->second, *e.block));
  CExpr out;
  out.kind = CExpr::Kind::kFrameValue;
  out.frame_values = std::make_shared<const std::vector<Value>>(std::move(truth));
  return out;
}

}  // namespace omnigraph::query::exec
