#include "base/string_index.h"

#include <algorithm>
#include <bit>

// XXH3 inlined: the probe loops hash short ids (tens of bytes), where a call costs as much as
// the hash.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace omnigraph {

namespace {

uint64_t HashOf(std::string_view s) { return XXH3_64bits(s.data(), s.size()); }

}  // namespace

StringIndex::StringIndex(size_t expected) {
  // At most half full: a table of at least twice the strings, a power of two.
  const size_t slots = std::bit_ceil(std::max<size_t>(16, expected * 2));
  slots_.assign(slots, 0);
  hashes_.assign(slots, 0);
  mask_ = slots - 1;
  strings_.reserve(expected);
}

uint32_t StringIndex::Insert(std::string_view s, bool* added) {
  if ((strings_.size() + 1) * 2 > slots_.size()) Grow();
  const uint64_t h = HashOf(s);
  const uint32_t tag = static_cast<uint32_t>(h);
  for (size_t i = (h >> 32) & mask_;; i = (i + 1) & mask_) {
    const uint32_t slot = slots_[i];
    if (slot == 0) {
      const uint32_t ordinal = static_cast<uint32_t>(strings_.size());
      strings_.push_back(s);
      slots_[i] = ordinal + 1;
      hashes_[i] = tag;
      if (added != nullptr) *added = true;
      return ordinal;
    }
    if (hashes_[i] == tag && strings_[slot - 1] == s) {
      if (added != nullptr) *added = false;
      return slot - 1;
    }
  }
}

uint32_t StringIndex::Find(std::string_view s) const {
  const uint64_t h = HashOf(s);
  const uint32_t tag = static_cast<uint32_t>(h);
  for (size_t i = (h >> 32) & mask_;; i = (i + 1) & mask_) {
    const uint32_t slot = slots_[i];
    if (slot == 0) return kAbsent;
    if (hashes_[i] == tag && strings_[slot - 1] == s) return slot - 1;
  }
}

void StringIndex::Grow() {
  const size_t slots = slots_.size() * 2;
  slots_.assign(slots, 0);
  hashes_.assign(slots, 0);
  mask_ = slots - 1;
  for (uint32_t ordinal = 0; ordinal < strings_.size(); ++ordinal) {
    const uint64_t h = HashOf(strings_[ordinal]);
    size_t i = (h >> 32) & mask_;
    while (slots_[i] != 0) i = (i + 1) & mask_;
    slots_[i] = ordinal + 1;
    hashes_[i] = static_cast<uint32_t>(h);
  }
}

}  // namespace omnigraph
