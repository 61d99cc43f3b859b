// The full-text analyzer (analyzer.h; docs/design/fulltext.md "Analysis").
#include "query/text/analyzer.h"

#include <libstemmer.h>
#include <utf8proc.h>

#include <algorithm>
#include <cstdlib>

#include "base/status.h"

namespace omnigraph::query::text {

size_t DecodeUtf8(std::string_view s, int32_t* cp) {
  utf8proc_int32_t out = -1;
  const utf8proc_ssize_t len = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(s.data()),
                                                static_cast<utf8proc_ssize_t>(s.size()), &out);
  if (len <= 0) {
    *cp = -1;
    return 1;
  }
  *cp = out;
  return static_cast<size_t>(len);
}

bool IsWordCodePoint(int32_t cp) {
  if (cp < 0) return false;
  switch (utf8proc_category(cp)) {
    case UTF8PROC_CATEGORY_LU:
    case UTF8PROC_CATEGORY_LL:
    case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_LO:
    case UTF8PROC_CATEGORY_ND:
    case UTF8PROC_CATEGORY_NL:
    case UTF8PROC_CATEGORY_NO: return true;
    default: return false;
  }
}

Analyzer::Analyzer() {
  stemmer_ = sb_stemmer_new("english", "UTF_8");
  OMNIGRAPH_CHECK(stemmer_ != nullptr);
}

Analyzer::~Analyzer() { sb_stemmer_delete(stemmer_); }

void Analyzer::Fold(std::string_view text, std::string& out) {
  out.clear();
  const bool ascii = std::all_of(text.begin(), text.end(),
                                 [](char c) { return static_cast<unsigned char>(c) < 0x80; });
  if (ascii) {
    // ASCII needs no normalization: folding is lowercasing (the common case, kept fast).
    out.resize(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
      const char c = text[i];
      out[i] = c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
    }
    return;
  }
  utf8proc_uint8_t* mapped = nullptr;
  const utf8proc_ssize_t len = utf8proc_map(
      reinterpret_cast<const utf8proc_uint8_t*>(text.data()),
      static_cast<utf8proc_ssize_t>(text.size()), &mapped,
      static_cast<utf8proc_option_t>(UTF8PROC_COMPAT | UTF8PROC_DECOMPOSE | UTF8PROC_CASEFOLD |
                                     UTF8PROC_STRIPMARK | UTF8PROC_IGNORE));
  if (len < 0) {
    // Invalid UTF-8: fold byte by byte, so invalid bytes become separators and the valid ASCII
    // around them still matches.
    out.resize(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
      const unsigned char c = static_cast<unsigned char>(text[i]);
      out[i] = c >= 0x80                ? ' '
               : (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a')
                                        : text[i];
    }
    return;
  }
  out.assign(reinterpret_cast<const char*>(mapped), static_cast<size_t>(len));
  std::free(mapped);
}

std::string_view Analyzer::Stem(std::string_view word) {
  const sb_symbol* s = sb_stemmer_stem(stemmer_, reinterpret_cast<const sb_symbol*>(word.data()),
                                       static_cast<int>(word.size()));
  if (s == nullptr) return word;  // Out of memory in the stemmer: the bare word still matches.
  stemmed_.assign(reinterpret_cast<const char*>(s),
                  static_cast<size_t>(sb_stemmer_length(stemmer_)));
  return stemmed_;
}

std::vector<std::string> Analyzer::Terms(std::string_view text) {
  std::vector<std::string> out;
  ForEachTerm(text, [&](std::string_view t) { out.emplace_back(t); });
  return out;
}

uint32_t EditDistance(std::string_view a, std::string_view b, uint32_t max) {
  const size_t diff = a.size() > b.size() ? a.size() - b.size() : b.size() - a.size();
  if (diff > max) return max + 1;
  std::vector<uint32_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = static_cast<uint32_t>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = static_cast<uint32_t>(i);
    uint32_t row_min = cur[0];
    for (size_t j = 1; j <= b.size(); ++j) {
      const uint32_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
      row_min = std::min(row_min, cur[j]);
    }
    if (row_min > max) return max + 1;
    std::swap(prev, cur);
  }
  return std::min(prev[b.size()], max + 1);
}

}  // namespace omnigraph::query::text
