// Subquery predicates, edge alternation and the edge wildcard (typecheck_internal.h;
// docs/design/query-language.md "Subquery predicates" and "Edge alternation and the wildcard").

#include <algorithm>

#include "query/check/typecheck_internal.h"

namespace omnigraph::query::internal {
namespace {

std::string Endpoints(const TypeDef& edge) {
  return "`" + edge.name + ": " + edge.from.name + " -> " + edge.to.name + "`";
}

}  // namespace

bool Checker::CheckSubqueryPredicate(const Negation& block, const Scope& outer,
                                     const Scope& inner) {
  if (block.kind == BlockKind::kSum) {
    const Expr& arg = block.sum_arg;
    if (arg.kind != ExprKind::kProp) {
      return Fail("T8", arg.span, "sum { } adds up a property of the block's rows",
                  "write it as `sum($v.prop) { ... } > n`");
    }
    ExprType t;
    if (!Resolve(arg, inner, &t)) return false;
    if (!t.is_value() || t.value.list || !schema::IsNumeric(t.value.scalar)) {
      return Fail("T8", arg.span, "sum requires numeric type, got " + t.DisplayName());
    }
  }
  if (block.kind == BlockKind::kExists) return true;
  ExprType threshold;
  if (!Resolve(block.threshold, outer, &threshold)) return false;
  if (!threshold.is_value() || threshold.value.list || !schema::IsNumeric(threshold.value.scalar)) {
    const char* what = block.kind == BlockKind::kCount ? "count { } (I64)" : "sum { } (F64)";
    return Fail("T7", block.op_span,
                std::string("cannot compare ") + what + " with " + threshold.DisplayName(),
                "compare with a number, a numeric parameter or a numeric outer property");
  }
  return true;
}

bool Checker::ResolveBlock(const Expr& e, const Scope& scope, ExprType* out) {
  const Negation& block = *e.block;
  if (!in_match_filter_) {
    return Fail("T44", block.keyword_span,
                std::string("`") + BlockKindName(block.kind) +
                    " { ... }` can only appear in a match filter; it tests each match row",
                std::string("move it into `match`, as in `match { ... ") +
                    BlockKindName(block.kind) + " { ... } }`");
  }
  auto done = checked_blocks_.find(&block);
  if (done != checked_blocks_.end()) {
    *out = done->second;
    return true;
  }
  if (!CheckBlock(block, e.span, scope)) return false;
  // `not { }` and `exists { }` are never unknown; a count or sum compared with a null
  // threshold is.
  bool nullable = false;
  if (block.kind == BlockKind::kCount || block.kind == BlockKind::kSum) {
    ExprType threshold;
    if (!Resolve(block.threshold, scope, &threshold)) return false;
    nullable = threshold.value.nullable;
  }
  *out = ExprType::Scalar(ScalarKind::kBool, nullable);
  checked_blocks_.emplace(&block, *out);
  return true;
}

bool Checker::CheckEdgeSet(const Traversal& t, Scope* scope, bool negated) {
  if (t.edge_var) {
    return Fail("T23", t.edge_var->span,
                "edge binding `$" + t.edge_var->text +
                    "` cannot be combined with edge alternation or the wildcard; an edge "
                    "binding names one edge type",
                "bind each edge type in its own traversal");
  }
  std::vector<const TypeDef*> edges;
  if (t.wildcard) {
    auto typed = [&](const Name& var) -> const TypeDef* {
      auto it = scope->find(var.text);
      if (it == scope->end() || it->second.kind != VarKind::kNode) return nullptr;
      return it->second.type;
    };
    const TypeDef* src = typed(t.src);
    const TypeDef* dst = typed(t.dst);
    if (src == nullptr || dst == nullptr) {
      const Name& untyped = src == nullptr ? t.src : t.dst;
      return Fail("T49", untyped.span,
                  "the edge wildcard `*` needs typed endpoints, but `$" + untyped.text +
                      "` is not bound to a node type before it",
                  "bind it first, as in `$" + untyped.text + ": Person`");
    }
    // Edges from the source's type to the destination's; when there are none, the reverse.
    for (int reverse = 0; reverse < 2 && edges.empty(); ++reverse) {
      for (const TypeDef& e : catalog_.edges()) {
        const uint64_t from = reverse ? dst->id : src->id;
        const uint64_t to = reverse ? src->id : dst->id;
        if (e.from.type_id == from && e.to.type_id == to) edges.push_back(&e);
      }
    }
    if (edges.empty()) {
      return Fail("T4", t.edge.span,
                  "no edge type connects `" + src->name + "` and `" + dst->name + "`",
                  "the wildcard `*` walks the edge types between the two ends' node types");
    }
  } else {
    for (const Name& n : t.alternatives) {
      const TypeDef* e = nullptr;
      if (!FindEdgeType(n, &e)) return false;
      if (std::find(edges.begin(), edges.end(), e) != edges.end()) continue;
      if (!edges.empty() &&
          (e->from.type_id != edges[0]->from.type_id || e->to.type_id != edges[0]->to.type_id)) {
        return Fail("T48", n.span,
                    "edge alternatives must connect the same node types, but " +
                        Endpoints(*edges[0]) + " and " + Endpoints(*e) + " differ",
                    "write one traversal per edge type");
      }
      edges.push_back(e);
    }
  }
  if (!CheckTraversalEdge(t, *edges[0], scope, negated)) return false;
  out_->traversals.back().edges = std::move(edges);
  return true;
}

}  // namespace omnigraph::query::internal
