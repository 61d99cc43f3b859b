#include "base/string_index.h"

#include <algorithm>
#include <bit>
#include <cstring>

// XXH3 inlined: the probe loops hash short ids (tens of bytes), where a call costs as much as
// the hash.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace omnigraph {
namespace {

// A string's tag (24 bits of its hash above its length, capped at 255) and first 8 bytes.
uint32_t TagOf(uint64_t h, std::string_view s) {
  return (static_cast<uint32_t>(h) << 8) | static_cast<uint32_t>(std::min<size_t>(s.size(), 255));
}
uint64_t HeadOf(std::string_view s) {
  uint64_t head = 0;
  // An empty view may have no data pointer, which memcpy may not be given even for 0 bytes.
  if (!s.empty()) std::memcpy(&head, s.data(), std::min<size_t>(s.size(), 8));
  return head;
}

}  // namespace

uint64_t StringIndex::HashOf(std::string_view s) { return XXH3_64bits(s.data(), s.size()); }

StringIndex::StringIndex(size_t expected) {
  // At most half full: a table of at least twice the strings, a power of two.
  const size_t slots = std::bit_ceil(std::max<size_t>(16, expected * 2));
  slots_.assign(slots, Slot{});
  mask_ = slots - 1;
  strings_.reserve(expected);
}

uint32_t StringIndex::Insert(std::string_view s, bool* added) {
  if ((strings_.size() + 1) * 2 > slots_.size()) Grow();
  const uint64_t h = HashOf(s);
  const uint32_t tag = TagOf(h, s);
  const uint64_t head = HeadOf(s);
  for (size_t i = (h >> 32) & mask_;; i = (i + 1) & mask_) {
    Slot& slot = slots_[i];
    if (slot.ordinal == 0) {
      const uint32_t ordinal = static_cast<uint32_t>(strings_.size());
      strings_.push_back(s);
      slot = Slot{ordinal + 1, tag, head};
      if (added != nullptr) *added = true;
      return ordinal;
    }
    if (Holds(slot, s, tag, head)) {
      if (added != nullptr) *added = false;
      return slot.ordinal - 1;
    }
  }
}

uint32_t StringIndex::Find(std::string_view s) const { return FindHashed(s, HashOf(s)); }

uint32_t StringIndex::FindHashed(std::string_view s, uint64_t h) const {
  const uint32_t tag = TagOf(h, s);
  const uint64_t head = HeadOf(s);
  for (size_t i = (h >> 32) & mask_;; i = (i + 1) & mask_) {
    const Slot& slot = slots_[i];
    if (slot.ordinal == 0) return kAbsent;
    if (Holds(slot, s, tag, head)) return slot.ordinal - 1;
  }
}

void StringIndex::FindMany(std::span<const std::string_view> ss, std::span<uint32_t> out) const {
  constexpr size_t kGroup = 16;
  uint64_t hashes[kGroup];
  for (size_t at = 0; at < ss.size(); at += kGroup) {
    const size_t n = std::min(kGroup, ss.size() - at);
    for (size_t j = 0; j < n; ++j) {
      hashes[j] = HashOf(ss[at + j]);
      __builtin_prefetch(&slots_[(hashes[j] >> 32) & mask_]);
    }
    for (size_t j = 0; j < n; ++j) out[at + j] = FindHashed(ss[at + j], hashes[j]);
  }
}

void StringIndex::Grow() {
  const size_t slots = slots_.size() * 2;
  slots_.assign(slots, Slot{});
  mask_ = slots - 1;
  for (uint32_t ordinal = 0; ordinal < strings_.size(); ++ordinal) {
    const std::string_view s = strings_[ordinal];
    const uint64_t h = HashOf(s);
    size_t i = (h >> 32) & mask_;
    while (slots_[i].ordinal != 0) i = (i + 1) & mask_;
    slots_[i] = Slot{ordinal + 1, TagOf(h, s), HeadOf(s)};
  }
}

}  // namespace omnigraph
