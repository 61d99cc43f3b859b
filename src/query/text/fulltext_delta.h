// A full-text index delta: what one write changed in the index of one property, over the index
// of the version it was staged from (payload format docs/format/fulltext.md "Deltas"; design
// docs/design/fulltext.md "Deltas").
//
// A delta names rows by id, not by position: the rows the write added (each with its analysed
// terms, or none when its text is null) and the ids it removed (deletes and the old side of
// updates). So a writer needs only the rows it wrote, never the base's documents nor its id order;
// a reader renumbers through the ids of the version it reads (which its dense numbering has in
// hand anyway). ApplyFullTextChain composes a whole chain into one net change and merges it into
// the full index once; the result is exactly what FullTextIndex::Build gives for the version.
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
#include "query/text/fulltext_index.h"

namespace omnigraph::query::text {

class FullTextDelta {
 public:
  // The id of added row `i` and its text (nullopt: null).
  using AddedRow =
      std::function<std::pair<std::string_view, std::optional<std::string_view>>(uint32_t i)>;

  // The delta of a write over a base index of `base_rows` rows that removed `removed` (distinct
  // ids, any order) and added `added_count` rows (distinct ids, any order). InvalidArgument
  // when an id repeats or the removals exceed the base.
  static Result<FullTextDelta> Build(uint32_t base_rows, std::vector<std::string> removed,
                                     uint32_t added_count, const AddedRow& added,
                                     Analyzer& analyzer);
  // The payload (docs/format/fulltext.md "Deltas"), deterministic for a given delta.
  std::string Encode() const;
  // Parses a payload; Corruption naming `name` when it is malformed.
  static Result<FullTextDelta> Decode(std::string_view payload, const std::string& name);

  uint32_t base_rows() const { return base_rows_; }
  uint32_t rows() const { return rows_; }
  const std::vector<std::string>& removed() const { return removed_; }
  size_t added() const { return added_.size(); }
  std::string_view added_id(size_t i) const { return added_[i].id; }
  // Added row `i` as FullTextIndex::Merge takes it, numbered `row`.
  FullTextIndex::AddedDoc Doc(size_t i, uint32_t row) const;

 private:
  struct Row {
    std::string id;
    uint32_t length = 0;                                  // kNoText when the text is null.
    std::vector<std::pair<uint32_t, uint32_t>> postings;  // (index into terms_, frequency).
  };
  static constexpr uint32_t kNoText = UINT32_MAX;

  uint32_t base_rows_ = 0;
  uint32_t rows_ = 0;
  std::vector<std::string> removed_;  // Ascending (bytewise).
  std::vector<std::string> terms_;    // Every term of the added rows, ascending.
  std::vector<Row> added_;            // Ascending by id.
};

// The ids of the version read, ascending: id `i` of `count`.
struct VersionIds {
  uint32_t count = 0;
  std::function<std::string_view(uint32_t i)> at;
};

// The index of the version whose ids are `ids`, from its chain: `full` (the index of the chain's
// first version) and `deltas` in order, the last one this version's. Corruption naming `name`
// when the links do not fit together (row counts, an id added twice or absent from the version).
Result<FullTextIndex> ApplyFullTextChain(const FullTextIndex& full,
                                         std::span<const FullTextDelta> deltas,
                                         const VersionIds& ids, const std::string& name);

}  // namespace omnigraph::query::text
