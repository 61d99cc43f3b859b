// The text analyzer of full-text search (docs/design/fulltext.md "Analysis"): turns a String into
// the terms an index stores and a query looks up. Unicode compatibility decomposition, case
// folding and removal of combining marks (utf8proc), then word segmentation into maximal runs of
// letters and digits, then the English Snowball stemmer (libstemmer). The same analyzer runs on
// documents and on every query form, so a query matches what it would match over raw text.
//
// An Analyzer owns a stemmer, which keeps scratch state: one Analyzer per thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

struct sb_stemmer;

namespace omnigraph::query::text {

// Longest token kept, in bytes after folding; longer runs are cut (every limit is explicit).
inline constexpr size_t kTokenBytesMax = 128;

// The code point at the start of `s` (non-empty) into `cp` (-1 for an invalid byte) and its
// length in bytes (at least 1).
size_t DecodeUtf8(std::string_view s, int32_t* cp);
// Whether `cp` belongs to a word: a letter or a digit (Unicode categories L and N).
bool IsWordCodePoint(int32_t cp);

class Analyzer {
 public:
  Analyzer();
  ~Analyzer();
  Analyzer(const Analyzer&) = delete;
  Analyzer& operator=(const Analyzer&) = delete;

  // The terms of `text` in order (repeats kept: positions and term frequencies come from them).
  // Invalid UTF-8 bytes are separators.
  std::vector<std::string> Terms(std::string_view text);
  // Calls `sink` with each term of `text` in order, without building a vector.
  template <typename Sink>
  void ForEachTerm(std::string_view text, Sink&& sink) {
    Fold(text, folded_);
    Segment(folded_, [&](std::string_view word) { sink(Stem(word)); });
  }

 private:
  // Folds `text` (normalized, case-folded, marks removed) into `out`.
  static void Fold(std::string_view text, std::string& out);
  // Calls `sink` with each maximal run of letters and digits of folded text.
  template <typename Sink>
  static void Segment(std::string_view folded, Sink&& sink);
  std::string_view Stem(std::string_view word);

  sb_stemmer* stemmer_ = nullptr;
  std::string folded_;
  std::string stemmed_;
};

// The Levenshtein distance of `a` and `b` (in bytes of folded terms), or `max + 1` when it is
// larger than `max` (the computation stops early).
uint32_t EditDistance(std::string_view a, std::string_view b, uint32_t max);

template <typename Sink>
void Analyzer::Segment(std::string_view folded, Sink&& sink) {
  size_t i = 0;
  const size_t n = folded.size();
  while (i < n) {
    // Skip separators.
    size_t start = n;
    while (i < n) {
      const unsigned char c = static_cast<unsigned char>(folded[i]);
      if (c < 0x80) {
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
          start = i;
          break;
        }
        ++i;
        continue;
      }
      int32_t cp = 0;
      const size_t len = DecodeUtf8(folded.substr(i), &cp);
      if (IsWordCodePoint(cp)) {
        start = i;
        break;
      }
      i += len;
    }
    if (start == n) return;
    while (i < n) {
      const unsigned char c = static_cast<unsigned char>(folded[i]);
      if (c < 0x80) {
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) break;
        ++i;
        continue;
      }
      int32_t cp = 0;
      const size_t len = DecodeUtf8(folded.substr(i), &cp);
      if (!IsWordCodePoint(cp)) break;
      i += len;
    }
    std::string_view word = folded.substr(start, i - start);
    if (word.size() > kTokenBytesMax) {
      size_t cut = kTokenBytesMax;
      while (cut > 0 && (static_cast<unsigned char>(word[cut]) & 0xC0) == 0x80) --cut;
      word = word.substr(0, cut);
    }
    sink(word);
  }
}

}  // namespace omnigraph::query::text
