// The inverted index of one free-text String property over one table version (docs/design/
// fulltext.md; payload format docs/format/fulltext.md). Documents are the version's live rows
// numbered by dense index (id order, query/exec/exec_cache.h); each has a length in terms (null
// text: no document). Every term of the vocabulary has a postings list of (document, term
// frequency), documents ascending. Corpus statistics — the document count, the average length, each
// term's document frequency — are those of the whole version, whatever a query filters.
//
// BM25 (Robertson/Sparck Jones with Lucene's idf): for query terms t (deduplicated),
//   score(d) = Σ idf(t) · tf·(k1+1) / (tf + k1·(1 − b + b·|d|/avgdl)),
//   idf(t)  = ln(1 + (N − df + 0.5) / (df + 0.5)),  k1 = 1.2, b = 0.75.
//
// Immutable after Build or Decode; thread-safe to read.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "query/text/analyzer.h"

namespace omnigraph::query::text {

inline constexpr double kBm25K1 = 1.2;
inline constexpr double kBm25B = 0.75;
// The derived-object kind of the index of property `field_id` (docs/format/derived.md).
std::string FullTextKind(uint64_t field_id);
// The largest edit budget `fuzzy` accepts (each edit widens the vocabulary scan).
inline constexpr uint32_t kFuzzyEditsMax = 4;
// The budget of `fuzzy(f, q)` without a third argument.
inline constexpr uint32_t kFuzzyEditsDefault = 2;

class FullTextIndex {
 public:
  // The text of document `row` (0 <= row < rows), or nullopt when the property is null there.
  using TextOf = std::function<std::optional<std::string_view>(uint32_t row)>;

  // Analyzes every row and builds the index.
  static FullTextIndex Build(uint32_t rows, const TextOf& text, Analyzer& analyzer);
  // The payload (docs/format/fulltext.md), deterministic for a given index.
  std::string Encode() const;
  // Parses a payload; Corruption naming `name` when it is malformed.
  static Result<FullTextIndex> Decode(std::string_view payload, const std::string& name);

  // One row a later version adds, numbered in that version.
  struct AddedDoc {
    uint32_t row = 0;
    bool is_doc = false;  // False when the row's text is null: a row, not a document.
    uint32_t length = 0;  // Terms in the document.
    std::vector<std::pair<std::string_view, uint32_t>> terms;  // (term, frequency), ascending.
  };
  // The index of a later version of `rows` rows: `base` without its rows `removed` (ascending),
  // the remaining rows renumbered in order into the rows `added` leaves free, and `added` (rows
  // ascending) merged in; terms no document holds any more leave the vocabulary. The result is
  // what Build gives for the later version. Corruption naming `name` when the pieces do not fit.
  static Result<FullTextIndex> Merge(const FullTextIndex& base, std::span<const uint32_t> removed,
                                     std::span<const AddedDoc> added, uint32_t rows,
                                     const std::string& name);

  uint32_t rows() const { return static_cast<uint32_t>(doc_len_.size()); }
  uint32_t docs() const { return docs_; }  // Rows with non-null text (N).
  uint64_t total_terms() const { return total_terms_; }
  double avg_length() const { return docs_ == 0 ? 0 : double(total_terms_) / docs_; }
  size_t vocabulary() const { return terms_.size(); }
  bool IsDoc(uint32_t row) const { return doc_len_[row] != kNull; }

  // The id of `term`, or -1 when no document has it.
  int64_t Find(std::string_view term) const;
  const std::string& term(size_t id) const { return terms_[id]; }
  // The documents (ascending) and term frequencies of term `id`.
  std::span<const uint32_t> Docs(size_t id) const;
  std::span<const uint32_t> Tfs(size_t id) const;
  // The frequency of term `id` in document `row` (0 when absent).
  uint32_t Tf(size_t id, uint32_t row) const;
  // The BM25 weight of term `id` (its idf).
  double Idf(size_t id) const;
  // The BM25 score of document `row` for the query terms `ids` (deduplicated by the caller; -1
  // entries, terms no document has, contribute nothing).
  double Bm25(std::span<const int64_t> ids, uint32_t row) const;
  // The ids of every term within `edits` of `term` (Levenshtein over bytes), ascending.
  std::vector<int64_t> FuzzyTerms(std::string_view term, uint32_t edits) const;
  // The `k` best documents by BM25 for `ids`, best first (ties by row ascending). With
  // `require_all` only documents holding every term count (a -1 id then matches nothing);
  // otherwise any.
  std::vector<std::pair<uint32_t, double>> TopK(std::span<const int64_t> ids, size_t k,
                                                bool require_all) const;

  // Approximate bytes held in memory.
  uint64_t bytes() const;

 private:
  static constexpr uint32_t kNull = UINT32_MAX;
  // The new row of each base row (kNull when removed) and the new document lengths; false when
  // the rows do not add up.
  static bool Renumber(const FullTextIndex& base, std::span<const uint32_t> removed,
                       std::span<const AddedDoc> added, FullTextIndex& out,
                       std::vector<uint32_t>& moved);
  double TermScore(size_t id, uint32_t tf, uint32_t row) const;

  std::vector<uint32_t> doc_len_;
  uint32_t docs_ = 0;
  uint64_t total_terms_ = 0;
  std::vector<std::string> terms_;  // Ascending (bytewise).
  std::vector<uint64_t> offsets_;   // terms_.size() + 1 entries into post_docs_/post_tfs_.
  std::vector<uint32_t> post_docs_;
  std::vector<uint32_t> post_tfs_;
};

// The analyzed, deduplicated terms of a query string, in first-appearance order.
std::vector<std::string> QueryTerms(Analyzer& analyzer, std::string_view query);

}  // namespace omnigraph::query::text
