// SlotView: one value per slot of an adjacency (an edge's position, or its other end's ordinal),
// either a view of an array someone else owns or an array filled on first use.
//
// A revision-3 adjacency stores its slots bit-packed, and unpacking them makes arrays of 4 bytes
// per slot: at 24 M edges, 96 MB of fresh pages per array. So each array is filled when something
// first asks for it (the reverse side, an edge variable, a delta, a traversal's lists), not at
// decode (docs/design/decisions.md 233), and a whole-graph count walks the targets a run at a
// time through ForEachRun without ever filling them (decision 241). The values are checked at
// decode either way; filling cannot fail. Immutable once filled; thread-safe to share (the first
// span() from any thread fills, once; ForEachRun's runs are its own).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <utility>
#include <vector>

namespace omnigraph::table {

class SlotView {
 public:
  SlotView() = default;
  SlotView(std::span<const uint32_t> values)  // NOLINT(google-explicit-constructor): a view
      : values_(values), size_(values.size()) {}
  SlotView(const std::vector<uint32_t>& values)  // NOLINT(google-explicit-constructor)
      : SlotView(std::span<const uint32_t>(values)) {}

  // Writes the `count` values from position `first` to `out`, without filling the array.
  using UnpackRange = std::function<void(uint64_t first, size_t count, uint32_t* out)>;

  // `size` values that `fill` makes on the first span() and keeps alive as long as it lives (the
  // view's copies share it). With `range`, ForEachRun walks them unfilled.
  static SlotView Lazy(size_t size, std::function<std::span<const uint32_t>()> fill,
                       UnpackRange range = nullptr) {
    SlotView out;
    out.size_ = size;
    out.lazy_ = std::make_shared<LazyState>();
    out.lazy_->fill = std::move(fill);
    out.lazy_->range = std::move(range);
    return out;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Whether the values are there without filling (a view, or a lazy array already filled).
  bool filled() const { return lazy_ == nullptr || lazy_->filled.load(std::memory_order_acquire); }
  std::span<const uint32_t> span() const {
    if (lazy_ == nullptr) return values_;
    std::call_once(lazy_->once, [state = lazy_.get()] {
      state->values = state->fill();
      state->filled.store(true, std::memory_order_release);
    });
    return lazy_->values;
  }
  operator std::span<const uint32_t>() const { return span(); }  // NOLINT: a view
  const uint32_t* data() const { return span().data(); }
  uint32_t operator[](size_t i) const { return span()[i]; }
  auto begin() const { return span().begin(); }
  auto end() const { return span().end(); }

  // Calls visit(first, values) on consecutive runs that cover every value in order: one run of
  // the whole array when it is there (or cannot be unpacked a run at a time), otherwise runs of
  // up to kRun values unpacked into a buffer of this call's, filling nothing. For one pass over
  // every value that needs no array of them (decision 241).
  static constexpr size_t kRun = 4096;
  template <class Visit>
  void ForEachRun(Visit visit) const {
    if (filled() || lazy_->range == nullptr) {
      visit(uint64_t{0}, span());
      return;
    }
    std::vector<uint32_t> buffer(std::min(kRun, size_));
    for (uint64_t first = 0; first < size_; first += kRun) {
      const size_t count = static_cast<size_t>(std::min<uint64_t>(kRun, size_ - first));
      lazy_->range(first, count, buffer.data());
      visit(first, std::span<const uint32_t>(buffer.data(), count));
    }
  }

 private:
  struct LazyState {
    std::once_flag once;
    std::atomic<bool> filled{false};
    std::function<std::span<const uint32_t>()> fill;
    UnpackRange range;
    std::span<const uint32_t> values;
  };
  std::span<const uint32_t> values_;
  size_t size_ = 0;
  std::shared_ptr<LazyState> lazy_;
};

}  // namespace omnigraph::table
