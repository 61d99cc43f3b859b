#include "query/parse/ast.h"

namespace omnigraph::query {

const char* AggFuncName(AggFunc func) {
  switch (func) {
    case AggFunc::kCount: return "count";
    case AggFunc::kSum: return "sum";
    case AggFunc::kAvg: return "avg";
    case AggFunc::kMin: return "min";
    case AggFunc::kMax: return "max";
  }
  return "?";
}

const char* CompOpName(CompOp op) {
  switch (op) {
    case CompOp::kEq: return "=";
    case CompOp::kNe: return "!=";
    case CompOp::kGt: return ">";
    case CompOp::kLt: return "<";
    case CompOp::kGe: return ">=";
    case CompOp::kLe: return "<=";
    case CompOp::kContains: return "contains";
    case CompOp::kStartsWith: return "starts_with";
  }
  return "?";
}

bool CompareHolds(CompOp op, int c) {
  switch (op) {
    case CompOp::kEq: return c == 0;
    case CompOp::kNe: return c != 0;
    case CompOp::kGt: return c > 0;
    case CompOp::kLt: return c < 0;
    case CompOp::kGe: return c >= 0;
    case CompOp::kLe: return c <= 0;
    default: return false;
  }
}

bool SameExpr(const Expr& a, const Expr& b) {
  if (a.kind != b.kind || a.var.text != b.var.text || a.prop.text != b.prop.text ||
      a.alias.text != b.alias.text || a.agg != b.agg || a.op != b.op || a.negated != b.negated ||
      a.args.size() != b.args.size()) {
    return false;
  }
  if (a.kind == ExprKind::kLiteral && !(a.literal.value == b.literal.value)) return false;
  if (a.block != b.block) return false;
  for (size_t i = 0; i < a.args.size(); ++i) {
    if (!SameExpr(a.args[i], b.args[i])) return false;
  }
  return true;
}

bool HasBlock(const Expr& e) {
  if (e.kind == ExprKind::kBlock) return true;
  for (const Expr& a : e.args) {
    if (HasBlock(a)) return true;
  }
  return false;
}

void CollectBlocks(const Expr& e, std::vector<const Negation*>& out) {
  if (e.kind == ExprKind::kBlock) out.push_back(e.block.get());
  for (const Expr& a : e.args) CollectBlocks(a, out);
}

const char* MutationKindName(MutationKind kind) {
  switch (kind) {
    case MutationKind::kInsert: return "insert";
    case MutationKind::kUpdate: return "update";
    case MutationKind::kDelete: return "delete";
  }
  return "?";
}

const char* BranchOpName(BranchOp op) {
  switch (op) {
    case BranchOp::kCreate: return "branch create";
    case BranchOp::kDelete: return "branch delete";
    case BranchOp::kMerge: return "branch merge";
    case BranchOp::kList: return "branch list";
  }
  return "?";
}

const char* BlockKindName(BlockKind kind) {
  switch (kind) {
    case BlockKind::kNot: return "not";
    case BlockKind::kExists: return "exists";
    case BlockKind::kCount: return "count";
    case BlockKind::kSum: return "sum";
  }
  return "?";
}

const Param* QueryDecl::FindParam(std::string_view param_name) const {
  for (const Param& p : params) {
    if (p.name.text == param_name) return &p;
  }
  return nullptr;
}

const QueryDecl* QueryFile::Find(std::string_view name) const {
  for (const QueryDecl& q : queries) {
    if (q.name.text == name) return &q;
  }
  return nullptr;
}

}  // namespace omnigraph::query
