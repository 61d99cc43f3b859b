// Full-text index deltas (fulltext_delta.h; docs/format/fulltext.md "Deltas").
#include "query/text/fulltext_delta.h"

#include <algorithm>
#include <map>

#include "query/text/payload_codec.h"

namespace omnigraph::query::text {

namespace {

constexpr char kDeltaMagic[4] = {'O', 'G', 'F', 'D'};
constexpr uint32_t kDeltaFormat = 1;

// Whether `ids` is strictly ascending (so also free of repeats).
bool StrictlyAscending(const std::vector<std::string>& ids) {
  return std::adjacent_find(ids.begin(), ids.end(), std::greater_equal<>()) == ids.end();
}

}  // namespace

Result<FullTextDelta> FullTextDelta::Build(uint32_t base_rows, std::vector<std::string> removed,
                                           uint32_t added_count, const AddedRow& added,
                                           Analyzer& analyzer) {
  FullTextDelta delta;
  delta.base_rows_ = base_rows;
  std::sort(removed.begin(), removed.end());
  if (!StrictlyAscending(removed)) return InvalidArgument("a full-text delta removes an id twice");
  if (removed.size() > base_rows) {
    return InvalidArgument("a full-text delta removes " + std::to_string(removed.size()) +
                           " rows from a base of " + std::to_string(base_rows));
  }
  delta.removed_ = std::move(removed);
  // Each row's terms as strings first; the vocabulary is known only after the last row.
  std::vector<std::vector<std::pair<std::string, uint32_t>>> terms(added_count);
  std::vector<std::string> doc;
  delta.added_.resize(added_count);
  for (uint32_t i = 0; i < added_count; ++i) {
    const auto [id, text] = added(i);
    delta.added_[i].id = std::string(id);
    if (!text) {
      delta.added_[i].length = kNoText;
      continue;
    }
    doc.clear();
    analyzer.ForEachTerm(*text, [&](std::string_view t) { doc.emplace_back(t); });
    delta.added_[i].length = static_cast<uint32_t>(doc.size());
    std::sort(doc.begin(), doc.end());
    for (size_t a = 0; a < doc.size();) {
      size_t b = a;
      while (b < doc.size() && doc[b] == doc[a]) ++b;
      terms[i].emplace_back(doc[a], static_cast<uint32_t>(b - a));
      delta.terms_.push_back(doc[a]);
      a = b;
    }
  }
  std::sort(delta.terms_.begin(), delta.terms_.end());
  delta.terms_.erase(std::unique(delta.terms_.begin(), delta.terms_.end()), delta.terms_.end());
  for (uint32_t i = 0; i < added_count; ++i) {
    for (const auto& [term, tf] : terms[i]) {
      const auto at = std::lower_bound(delta.terms_.begin(), delta.terms_.end(), term);
      delta.added_[i].postings.emplace_back(static_cast<uint32_t>(at - delta.terms_.begin()), tf);
    }
  }
  std::sort(delta.added_.begin(), delta.added_.end(),
            [](const Row& a, const Row& b) { return a.id < b.id; });
  for (size_t i = 1; i < delta.added_.size(); ++i) {
    if (delta.added_[i - 1].id == delta.added_[i].id) {
      return InvalidArgument("a full-text delta adds id '" + delta.added_[i].id + "' twice");
    }
  }
  delta.rows_ = base_rows - static_cast<uint32_t>(delta.removed_.size()) + added_count;
  return delta;
}

std::string FullTextDelta::Encode() const {
  using codec::PutBytes;
  using codec::PutU32;
  using codec::PutVarint;
  std::string out(kDeltaMagic, 4);
  PutU32(out, kDeltaFormat);
  PutU32(out, base_rows_);
  PutU32(out, rows_);
  PutU32(out, static_cast<uint32_t>(removed_.size()));
  PutU32(out, static_cast<uint32_t>(added_.size()));
  PutU32(out, static_cast<uint32_t>(terms_.size()));
  for (const std::string& id : removed_) PutBytes(out, id);
  for (const std::string& term : terms_) PutBytes(out, term);
  for (const Row& row : added_) {
    PutBytes(out, row.id);
    PutVarint(out, row.length == kNoText ? 0 : uint64_t(row.length) + 1);
    PutVarint(out, row.postings.size());
    uint32_t prev = 0;
    for (size_t p = 0; p < row.postings.size(); ++p) {
      PutVarint(out, row.postings[p].first - (p == 0 ? 0 : prev));
      PutVarint(out, row.postings[p].second);
      prev = row.postings[p].first;
    }
  }
  return out;
}

Result<FullTextDelta> FullTextDelta::Decode(std::string_view payload, const std::string& name) {
  auto bad = [&](const std::string& what) {
    return Corruption("full-text index delta " + name + ": " + what, name);
  };
  codec::Reader r(payload);
  if (r.Bytes(4) != std::string_view(kDeltaMagic, 4)) return bad("not a full-text delta (magic)");
  if (r.Fixed(4) != kDeltaFormat) return bad("unknown format");
  FullTextDelta delta;
  delta.base_rows_ = static_cast<uint32_t>(r.Fixed(4));
  delta.rows_ = static_cast<uint32_t>(r.Fixed(4));
  const uint64_t removed = r.Fixed(4), added = r.Fixed(4), terms = r.Fixed(4);
  // Every id and term takes at least a byte, so no count can exceed the payload.
  if (!r.ok() || removed + added + terms > payload.size()) return bad("truncated header");
  if (removed > delta.base_rows_ || uint64_t(delta.base_rows_) - removed + added != delta.rows_) {
    return bad("the row counts do not add up");
  }
  for (uint64_t i = 0; i < removed && r.ok(); ++i) delta.removed_.emplace_back(r.LengthPrefixed());
  for (uint64_t i = 0; i < terms && r.ok(); ++i) delta.terms_.emplace_back(r.LengthPrefixed());
  if (!r.ok()) return bad("truncated ids or vocabulary");
  if (!StrictlyAscending(delta.removed_)) return bad("removed ids out of order");
  if (!StrictlyAscending(delta.terms_) || (terms > 0 && delta.terms_[0].empty())) {
    return bad("vocabulary out of order");
  }
  std::vector<bool> used(terms, false);
  for (uint64_t i = 0; i < added && r.ok(); ++i) {
    Row row;
    row.id = std::string(r.LengthPrefixed());
    const uint64_t length = r.Varint(), count = r.Varint();
    if (!r.ok() || row.id.empty() || (i > 0 && row.id <= delta.added_.back().id)) {
      return bad("added ids out of order at row " + std::to_string(i));
    }
    if (length > UINT32_MAX || count > r.remaining() || (length == 0 && count > 0)) {
      return bad("document length out of range at id '" + row.id + "'");
    }
    row.length = length == 0 ? kNoText : static_cast<uint32_t>(length - 1);
    uint64_t term = 0, sum = 0;
    for (uint64_t p = 0; p < count && r.ok(); ++p) {
      const uint64_t step = r.Varint(), tf = r.Varint();
      term = p == 0 ? step : term + step;
      if ((p > 0 && step == 0) || term >= terms || tf == 0 || tf > row.length) {
        return bad("postings out of range at id '" + row.id + "'");
      }
      used[term] = true;
      sum += tf;
      row.postings.emplace_back(static_cast<uint32_t>(term), static_cast<uint32_t>(tf));
    }
    if (r.ok() && length != 0 && sum != row.length) {
      return bad("postings do not add up to the length at id '" + row.id + "'");
    }
    delta.added_.push_back(std::move(row));
  }
  if (!r.ok() || !r.done()) return bad("truncated or trailing bytes");
  if (std::find(used.begin(), used.end(), false) != used.end()) {
    return bad("a vocabulary term no added row holds");
  }
  return delta;
}

FullTextIndex::AddedDoc FullTextDelta::Doc(size_t i, uint32_t row) const {
  const Row& r = added_[i];
  FullTextIndex::AddedDoc doc;
  doc.row = row;
  doc.is_doc = r.length != kNoText;
  doc.length = doc.is_doc ? r.length : 0;
  for (const auto& [term, tf] : r.postings) doc.terms.emplace_back(terms_[term], tf);
  return doc;
}

Result<FullTextIndex> ApplyFullTextChain(const FullTextIndex& full,
                                         std::span<const FullTextDelta> deltas,
                                         const VersionIds& ids, const std::string& name) {
  auto bad = [&](const std::string& what) {
    return Corruption("full-text index " + name + ": " + what, name);
  };
  // The net change over `full`: the rows added by some delta and removed by none after it
  // (id -> delta, row), and the ids of `full`'s rows some delta removed.
  std::map<std::string_view, std::pair<size_t, size_t>> alive;
  std::vector<std::string_view> removed;
  uint32_t rows = full.rows();
  for (size_t k = 0; k < deltas.size(); ++k) {
    const FullTextDelta& d = deltas[k];
    if (d.base_rows() != rows) {
      return bad("delta " + std::to_string(k + 1) + " is over " + std::to_string(d.base_rows()) +
                 " rows; its base has " + std::to_string(rows));
    }
    for (const std::string& id : d.removed()) {
      if (alive.erase(id) == 0) removed.push_back(id);
    }
    for (size_t i = 0; i < d.added(); ++i) {
      if (!alive.emplace(d.added_id(i), std::make_pair(k, i)).second) {
        return bad("delta " + std::to_string(k + 1) + " adds id '" + std::string(d.added_id(i)) +
                   "', which its base holds");
      }
    }
    rows = d.rows();
  }
  if (rows != ids.count) {
    return bad("the chain ends at " + std::to_string(rows) + " rows; the version has " +
               std::to_string(ids.count));
  }
  std::sort(removed.begin(), removed.end());
  if (std::adjacent_find(removed.begin(), removed.end()) != removed.end()) {
    return bad("two deltas remove the same row");
  }
  // Position of an id among the version's ids: how many are smaller.
  auto rank = [&](std::string_view id) {
    uint32_t lo = 0, hi = ids.count;
    while (lo < hi) {
      const uint32_t mid = lo + (hi - lo) / 2;
      if (ids.at(mid) < id) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  };
  std::vector<FullTextIndex::AddedDoc> added;
  added.reserve(alive.size());
  for (const auto& [id, at] : alive) {
    const uint32_t row = rank(id);
    if (row == ids.count || ids.at(row) != id) {
      return bad("a delta adds id '" + std::string(id) + "', which the version does not hold");
    }
    added.push_back(deltas[at.first].Doc(at.second, row));
  }
  // full's ids are the version's without the net additions, with the net removals: a removed
  // id's row in `full` counts the smaller ones of each.
  std::vector<uint32_t> removed_rows;
  removed_rows.reserve(removed.size());
  auto next_alive = alive.begin();
  uint32_t alive_below = 0;
  for (size_t i = 0; i < removed.size(); ++i) {
    for (; next_alive != alive.end() && next_alive->first < removed[i]; ++next_alive) {
      ++alive_below;
    }
    removed_rows.push_back(rank(removed[i]) - alive_below + static_cast<uint32_t>(i));
  }
  return FullTextIndex::Merge(full, removed_rows, added, ids.count, name);
}

}  // namespace omnigraph::query::text
