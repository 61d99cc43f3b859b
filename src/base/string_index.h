// StringIndex: the distinct strings of a column, each numbered in the order it was first seen.
// An open-addressing table (linear probing) of ordinals over string_views the caller keeps alive,
// with each string's hash beside its slot so that a probe compares bytes only when the hashes
// agree. It replaces std::unordered_map<std::string_view, uint32_t> on the hot paths of load and
// index builds (millions of endpoint ids over a few hundred thousand distinct ones), where a node
// allocation per string and a memcmp per probe dominated. Not thread-safe; one owner.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace omnigraph {

class StringIndex {
 public:
  static constexpr uint32_t kAbsent = UINT32_MAX;

  // Room for `expected` strings without growing.
  explicit StringIndex(size_t expected = 0);

  // The ordinal of `s`; when absent, `s` is added with the next ordinal (size() before the call)
  // and *added is set. `s` must outlive the index.
  uint32_t Insert(std::string_view s, bool* added = nullptr);
  // The ordinal of `s`, or kAbsent.
  uint32_t Find(std::string_view s) const;
  bool Contains(std::string_view s) const { return Find(s) != kAbsent; }

  size_t size() const { return strings_.size(); }
  // The string of ordinal `i`.
  std::string_view At(uint32_t i) const { return strings_[i]; }

 private:
  void Grow();

  std::vector<std::string_view> strings_;  // By ordinal.
  std::vector<uint32_t> slots_;            // Ordinal + 1; 0 is empty.
  std::vector<uint32_t> hashes_;           // The low 32 bits of the hash of each slot's string.
  size_t mask_ = 0;
};

}  // namespace omnigraph
