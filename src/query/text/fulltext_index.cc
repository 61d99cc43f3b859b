// The full-text inverted index (fulltext_index.h; docs/format/fulltext.md).
#include "query/text/fulltext_index.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <queue>
#include <unordered_map>

#include "query/text/payload_codec.h"

namespace omnigraph::query::text {

using codec::PutU32;
using codec::PutU64;
using codec::PutVarint;
using codec::Reader;

namespace {

constexpr char kMagic[4] = {'O', 'G', 'F', 'T'};
constexpr uint32_t kFormat = 1;

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

}  // namespace

std::string FullTextKind(uint64_t field_id) { return "fts." + std::to_string(field_id); }

FullTextIndex FullTextIndex::Build(uint32_t rows, const TextOf& text, Analyzer& analyzer) {
  FullTextIndex index;
  index.doc_len_.assign(rows, kNull);
  std::unordered_map<std::string, uint32_t, StringHash, std::equal_to<>> ids;
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> postings;  // By build id.
  std::vector<uint32_t> doc_terms;
  for (uint32_t row = 0; row < rows; ++row) {
    std::optional<std::string_view> t = text(row);
    if (!t) continue;
    doc_terms.clear();
    analyzer.ForEachTerm(*t, [&](std::string_view term) {
      auto it = ids.find(term);
      if (it == ids.end()) {
        it = ids.emplace(std::string(term), static_cast<uint32_t>(postings.size())).first;
        postings.emplace_back();
      }
      doc_terms.push_back(it->second);
    });
    index.doc_len_[row] = static_cast<uint32_t>(doc_terms.size());
    index.total_terms_ += doc_terms.size();
    ++index.docs_;
    std::sort(doc_terms.begin(), doc_terms.end());
    for (size_t i = 0; i < doc_terms.size();) {
      size_t j = i;
      while (j < doc_terms.size() && doc_terms[j] == doc_terms[i]) ++j;
      postings[doc_terms[i]].emplace_back(row, static_cast<uint32_t>(j - i));
      i = j;
    }
  }
  std::vector<std::pair<std::string_view, uint32_t>> order(ids.begin(), ids.end());
  std::sort(order.begin(), order.end());
  index.terms_.reserve(order.size());
  index.offsets_.reserve(order.size() + 1);
  index.offsets_.push_back(0);
  for (const auto& [term, id] : order) {
    index.terms_.emplace_back(term);
    for (const auto& [row, tf] : postings[id]) {
      index.post_docs_.push_back(row);
      index.post_tfs_.push_back(tf);
    }
    index.offsets_.push_back(index.post_docs_.size());
    std::vector<std::pair<uint32_t, uint32_t>>().swap(postings[id]);
  }
  return index;
}

std::string FullTextIndex::Encode() const {
  std::string out(kMagic, 4);
  PutU32(out, kFormat);
  PutU32(out, rows());
  PutU32(out, docs_);
  PutU64(out, total_terms_);
  PutU64(out, terms_.size());
  // Document lengths: length + 1, 0 for a null row.
  for (uint32_t len : doc_len_) PutVarint(out, len == kNull ? 0 : uint64_t(len) + 1);
  for (size_t t = 0; t < terms_.size(); ++t) {
    PutVarint(out, terms_[t].size());
    out += terms_[t];
    const uint64_t begin = offsets_[t], end = offsets_[t + 1];
    PutVarint(out, end - begin);
    uint32_t prev = 0;
    for (uint64_t p = begin; p < end; ++p) {
      PutVarint(out, post_docs_[p] - (p == begin ? 0 : prev));
      PutVarint(out, post_tfs_[p]);
      prev = post_docs_[p];
    }
  }
  return out;
}

Result<FullTextIndex> FullTextIndex::Decode(std::string_view payload, const std::string& name) {
  auto bad = [&](const std::string& what) {
    return Corruption("full-text index " + name + ": " + what, name);
  };
  Reader r(payload);
  if (r.Bytes(4) != std::string_view(kMagic, 4)) return bad("not a full-text index (magic)");
  if (r.Fixed(4) != kFormat) return bad("unknown format");
  FullTextIndex index;
  const uint32_t rows = static_cast<uint32_t>(r.Fixed(4));
  index.docs_ = static_cast<uint32_t>(r.Fixed(4));
  index.total_terms_ = r.Fixed(8);
  const uint64_t term_count = r.Fixed(8);
  // Every row and every term takes at least a byte, so neither count can exceed the payload.
  if (!r.ok() || term_count > payload.size() || rows > payload.size()) {
    return bad("truncated header");
  }
  index.doc_len_.resize(rows);
  uint32_t docs = 0;
  uint64_t total = 0;
  for (uint32_t i = 0; i < rows && r.ok(); ++i) {
    const uint64_t v = r.Varint();
    if (v > UINT32_MAX) return bad("document length out of range");
    index.doc_len_[i] = v == 0 ? kNull : static_cast<uint32_t>(v - 1);
    docs += v != 0;
    total += v == 0 ? 0 : v - 1;
  }
  if (!r.ok() || docs != index.docs_ || total != index.total_terms_) {
    return bad("document lengths do not match the header");
  }
  index.terms_.reserve(term_count);
  index.offsets_.push_back(0);
  uint64_t postings_total = 0;
  for (uint64_t t = 0; t < term_count && r.ok(); ++t) {
    std::string_view term = r.Bytes(r.Varint());
    if (!r.ok() || term.empty() || (t > 0 && term <= index.terms_.back())) {
      return bad("vocabulary out of order at term " + std::to_string(t));
    }
    index.terms_.emplace_back(term);
    const uint64_t df = r.Varint();
    if (df == 0 || df > rows)
      return bad("document frequency out of range at term " + index.terms_.back());
    uint64_t row = 0;
    for (uint64_t p = 0; p < df && r.ok(); ++p) {
      const uint64_t delta = r.Varint();
      row = p == 0 ? delta : row + delta;
      const uint64_t tf = r.Varint();
      if ((p > 0 && delta == 0) || row >= rows || tf == 0 || index.doc_len_[row] == kNull ||
          tf > index.doc_len_[row]) {
        return bad("postings out of range at term " + index.terms_.back());
      }
      index.post_docs_.push_back(static_cast<uint32_t>(row));
      index.post_tfs_.push_back(static_cast<uint32_t>(tf));
      postings_total += tf;
    }
    index.offsets_.push_back(index.post_docs_.size());
  }
  if (!r.ok() || !r.done()) return bad("truncated or trailing bytes");
  if (postings_total != index.total_terms_) return bad("postings do not add up to the lengths");
  return index;
}

bool FullTextIndex::Renumber(const FullTextIndex& base, std::span<const uint32_t> removed,
                             std::span<const AddedDoc> added, FullTextIndex& out,
                             std::vector<uint32_t>& moved) {
  const uint32_t rows = out.rows();
  moved.assign(base.rows(), kNull);
  size_t a = 0, r = 0;
  uint32_t old = 0;
  for (uint32_t row = 0; row < rows; ++row) {
    if (a < added.size() && added[a].row == row) {
      out.doc_len_[row] = added[a].is_doc ? added[a].length : kNull;
      ++a;
      continue;
    }
    for (; r < removed.size() && removed[r] == old; ++r) ++old;
    if (old >= base.rows()) return false;
    moved[old] = row;
    out.doc_len_[row] = base.doc_len_[old++];
  }
  for (; r < removed.size() && removed[r] == old; ++r) ++old;
  // Every base row is kept or removed once, every added row was placed (rows ascending).
  return a == added.size() && r == removed.size() && old == base.rows();
}

Result<FullTextIndex> FullTextIndex::Merge(const FullTextIndex& base,
                                           std::span<const uint32_t> removed,
                                           std::span<const AddedDoc> added, uint32_t rows,
                                           const std::string& name) {
  FullTextIndex out;
  out.doc_len_.assign(rows, kNull);
  std::vector<uint32_t> moved;
  if (!Renumber(base, removed, added, out, moved)) {
    return Corruption("full-text index " + name + ": the delta's rows do not fit its base of " +
                          std::to_string(base.rows()) + " rows",
                      name);
  }
  for (uint32_t len : out.doc_len_) {
    if (len == kNull) continue;
    ++out.docs_;
    out.total_terms_ += len;
  }
  // The added postings in (term, row) order, merged with the base's vocabulary term by term.
  struct Posting {
    std::string_view term;
    uint32_t row, tf;
    bool operator<(const Posting& o) const { return term != o.term ? term < o.term : row < o.row; }
  };
  std::vector<Posting> fresh;
  for (const AddedDoc& d : added) {
    for (const auto& [term, tf] : d.terms) fresh.push_back(Posting{term, d.row, tf});
  }
  std::sort(fresh.begin(), fresh.end());
  out.offsets_.push_back(0);
  size_t bt = 0, f = 0;
  while (bt < base.terms_.size() || f < fresh.size()) {
    const bool from_base =
        bt < base.terms_.size() &&
        (f == fresh.size() || std::string_view(base.terms_[bt]) <= fresh[f].term);
    const std::string_view term = from_base ? std::string_view(base.terms_[bt]) : fresh[f].term;
    uint64_t p = from_base ? base.offsets_[bt] : 0, end = from_base ? base.offsets_[bt + 1] : 0;
    if (from_base) ++bt;
    auto emit = [&](uint32_t row, uint32_t tf) {
      out.post_docs_.push_back(row);
      out.post_tfs_.push_back(tf);
    };
    for (;;) {
      while (p < end && moved[base.post_docs_[p]] == kNull) ++p;
      const bool more_fresh = f < fresh.size() && fresh[f].term == term;
      if (p == end && !more_fresh) break;
      if (p < end && (!more_fresh || moved[base.post_docs_[p]] < fresh[f].row)) {
        emit(moved[base.post_docs_[p]], base.post_tfs_[p]);
        ++p;
      } else {
        emit(fresh[f].row, fresh[f].tf);
        ++f;
      }
    }
    if (out.post_docs_.size() == out.offsets_.back()) continue;  // No document holds it now.
    out.terms_.emplace_back(term);
    out.offsets_.push_back(out.post_docs_.size());
  }
  return out;
}

int64_t FullTextIndex::Find(std::string_view term) const {
  auto it = std::lower_bound(terms_.begin(), terms_.end(), term,
                             [](const std::string& a, std::string_view b) { return a < b; });
  if (it == terms_.end() || *it != term) return -1;
  return it - terms_.begin();
}

std::span<const uint32_t> FullTextIndex::Docs(size_t id) const {
  return {post_docs_.data() + offsets_[id], static_cast<size_t>(offsets_[id + 1] - offsets_[id])};
}

std::span<const uint32_t> FullTextIndex::Tfs(size_t id) const {
  return {post_tfs_.data() + offsets_[id], static_cast<size_t>(offsets_[id + 1] - offsets_[id])};
}

uint32_t FullTextIndex::Tf(size_t id, uint32_t row) const {
  std::span<const uint32_t> d = Docs(id);
  auto it = std::lower_bound(d.begin(), d.end(), row);
  if (it == d.end() || *it != row) return 0;
  return Tfs(id)[static_cast<size_t>(it - d.begin())];
}

double FullTextIndex::Idf(size_t id) const {
  const double df = static_cast<double>(offsets_[id + 1] - offsets_[id]);
  return std::log(1 + (docs_ - df + 0.5) / (df + 0.5));
}

double FullTextIndex::TermScore(size_t id, uint32_t tf, uint32_t row) const {
  const double norm = kBm25K1 * (1 - kBm25B + kBm25B * doc_len_[row] / avg_length());
  return Idf(id) * tf * (kBm25K1 + 1) / (tf + norm);
}

double FullTextIndex::Bm25(std::span<const int64_t> ids, uint32_t row) const {
  double score = 0;
  if (!IsDoc(row)) return 0;
  for (int64_t id : ids) {
    if (id < 0) continue;
    const uint32_t tf = Tf(static_cast<size_t>(id), row);
    if (tf > 0) score += TermScore(static_cast<size_t>(id), tf, row);
  }
  return score;
}

std::vector<int64_t> FullTextIndex::FuzzyTerms(std::string_view term, uint32_t edits) const {
  std::vector<int64_t> out;
  for (size_t t = 0; t < terms_.size(); ++t) {
    if (EditDistance(term, terms_[t], edits) <= edits) out.push_back(static_cast<int64_t>(t));
  }
  return out;
}

std::vector<std::pair<uint32_t, double>> FullTextIndex::TopK(std::span<const int64_t> ids, size_t k,
                                                             bool require_all) const {
  using Hit = std::pair<uint32_t, double>;
  // A min-heap of the best k: the worst (lowest score, then highest row) on top.
  auto worse = [](const Hit& a, const Hit& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  };
  std::priority_queue<Hit, std::vector<Hit>, decltype(worse)> heap(worse);
  auto offer = [&](uint32_t row, double score) {
    if (heap.size() < k) {
      heap.emplace(row, score);
    } else if (k > 0 && worse(Hit{row, score}, heap.top())) {
      heap.pop();
      heap.emplace(row, score);
    }
  };
  std::vector<size_t> terms;
  for (int64_t id : ids) {
    if (id >= 0) {
      terms.push_back(static_cast<size_t>(id));
    } else if (require_all) {
      return {};
    }
  }
  if (terms.empty()) return {};
  if (require_all) {
    // Drive by the rarest term; look the others up from a moving cursor.
    std::sort(terms.begin(), terms.end(),
              [&](size_t a, size_t b) { return Docs(a).size() < Docs(b).size(); });
    std::vector<size_t> cursor(terms.size(), 0);
    std::span<const uint32_t> lead = Docs(terms[0]);
    for (size_t p = 0; p < lead.size(); ++p) {
      const uint32_t row = lead[p];
      double score = TermScore(terms[0], Tfs(terms[0])[p], row);
      bool all = true;
      for (size_t i = 1; i < terms.size() && all; ++i) {
        std::span<const uint32_t> d = Docs(terms[i]);
        auto it = std::lower_bound(d.begin() + static_cast<ptrdiff_t>(cursor[i]), d.end(), row);
        cursor[i] = static_cast<size_t>(it - d.begin());
        if (it == d.end() || *it != row) {
          all = false;
        } else {
          score += TermScore(terms[i], Tfs(terms[i])[cursor[i]], row);
        }
      }
      if (all) offer(row, score);
    }
  } else {
    // Merge the lists in row order, summing each row's terms.
    std::vector<size_t> pos(terms.size(), 0);
    for (;;) {
      uint32_t row = UINT32_MAX;
      for (size_t i = 0; i < terms.size(); ++i) {
        if (pos[i] < Docs(terms[i]).size()) row = std::min(row, Docs(terms[i])[pos[i]]);
      }
      if (row == UINT32_MAX) break;
      double score = 0;
      for (size_t i = 0; i < terms.size(); ++i) {
        if (pos[i] < Docs(terms[i]).size() && Docs(terms[i])[pos[i]] == row) {
          score += TermScore(terms[i], Tfs(terms[i])[pos[i]], row);
          ++pos[i];
        }
      }
      offer(row, score);
    }
  }
  std::vector<Hit> out;
  out.reserve(heap.size());
  while (!heap.empty()) {
    out.push_back(heap.top());
    heap.pop();
  }
  std::reverse(out.begin(), out.end());
  return out;
}

uint64_t FullTextIndex::bytes() const {
  uint64_t b = doc_len_.size() * 4 + offsets_.size() * 8 + post_docs_.size() * 8;
  for (const std::string& t : terms_) b += sizeof(std::string) + t.size();
  return b;
}

std::vector<std::string> QueryTerms(Analyzer& analyzer, std::string_view query) {
  std::vector<std::string> out;
  analyzer.ForEachTerm(query, [&](std::string_view t) {
    if (std::find(out.begin(), out.end(), t) == out.end()) out.emplace_back(t);
  });
  return out;
}

}  // namespace omnigraph::query::text
