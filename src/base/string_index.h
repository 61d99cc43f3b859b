// StringIndex: the distinct strings of a column, each numbered in the order it was first seen.
// An open-addressing table (linear probing) of ordinals over string_views the caller keeps alive.
// It replaces std::unordered_map<std::string_view, uint32_t> on the hot paths of load and index
// builds (millions of endpoint ids over a few hundred thousand distinct ones), where a node
// allocation per string and a memcmp per probe dominated.
//
// Each slot is 16 bytes: the ordinal, a tag (24 bits of the string's hash above its length, up to
// 255) and the string's first 8 bytes. A probe compares the tag and those bytes in the slot; only
// a string longer than 8 bytes is then compared in full. So a probe for a short id (a person's
// "p17" or "17") touches one cache line, not four (slot, hash, view, bytes). Not thread-safe; one
// owner.
#pragma once

#include <cstdint>
#include <span>
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
  // out[i] = Find(ss[i]) for each i (`out` as long as `ss`). The slots of a group of strings are
  // asked of memory together before any is compared, so a table larger than the cache waits
  // about once per group instead of once per string (decision 245).
  void FindMany(std::span<const std::string_view> ss, std::span<uint32_t> out) const;
  bool Contains(std::string_view s) const { return Find(s) != kAbsent; }

  size_t size() const { return strings_.size(); }
  // The string of ordinal `i`.
  std::string_view At(uint32_t i) const { return strings_[i]; }

 private:
  struct Slot {
    uint32_t ordinal = 0;  // Ordinal + 1; 0 is empty.
    uint32_t tag = 0;      // Hash bits 0-23 above the length (255 for 255 bytes or more).
    uint64_t head = 0;     // The first 8 bytes, zero-padded.
  };

  static uint64_t HashOf(std::string_view s);
  uint32_t FindHashed(std::string_view s, uint64_t hash) const;
  void Grow();
  // Whether `slot` holds `s`, whose tag and head are `tag` and `head`.
  bool Holds(const Slot& slot, std::string_view s, uint32_t tag, uint64_t head) const {
    return slot.tag == tag && slot.head == head &&
           (s.size() <= 8 || strings_[slot.ordinal - 1] == s);
  }

  std::vector<std::string_view> strings_;  // By ordinal.
  std::vector<Slot> slots_;
  size_t mask_ = 0;
};

}  // namespace omnigraph
