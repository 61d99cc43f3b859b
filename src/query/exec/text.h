// The full-text forms of the executor (docs/design/fulltext.md "Execution"): search, fuzzy,
// match_text and bm25 compiled against a frame slot and the slot's full-text index, and rrf()
// compiled over a whole frame (ranks need every row). Single-threaded, like the ExecContext.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "query/exec/context.h"
#include "query/text/analyzer.h"
#include "query/text/fulltext_index.h"

namespace omnigraph::query::exec {

// One compiled full-text form over the documents of one slot's table image.
class TextMatch {
 public:
  TextMatch(ExprKind kind, std::shared_ptr<const text::FullTextIndex> index,
            const TableImage::ChunkedColumn* column)
      : kind_(kind), index_(std::move(index)), column_(column) {}

  // Prepares the query string (analyzed) and, for fuzzy, the edit budget.
  void Prepare(std::string_view query, uint32_t edits);
  // The value for document `dense`: Bool for the predicates, Float (BM25) for bm25.
  schema::Value Eval(uint32_t dense) const;

 private:
  bool AllTermsIn(uint32_t dense) const;
  bool PhraseIn(uint32_t dense) const;

  ExprKind kind_;
  std::shared_ptr<const text::FullTextIndex> index_;
  const TableImage::ChunkedColumn* column_;
  // Per query term (search, fuzzy, match_text): the vocabulary ids it matches (fuzzy: every term
  // within the budget; otherwise the term itself, or none).
  std::vector<std::vector<int64_t>> alternatives_;
  std::vector<int64_t> ids_;         // bm25: the query's term ids (-1 when absent).
  std::vector<std::string> phrase_;  // match_text: the analyzed query terms in order.
  mutable text::Analyzer analyzer_;  // match_text re-reads a candidate's terms in order.
};

// Compiles search/fuzzy/match_text/bm25 `e` against `frame`. InvalidArgument naming the @index
// to declare when the property has no full-text index.
Result<CExpr> CompileText(ExecContext& ctx, const Expr& e, const Frame& frame);
// Compiles rrf(a, b[, k]) `e` over every row of `frame`: each row's fused score
// Σ 1/(k + rank), ranks 1-based over the distinct (value, entity) pairs of each ranking.
Result<CExpr> CompileRrf(ExecContext& ctx, const Expr& e, const Frame& frame);

}  // namespace omnigraph::query::exec
