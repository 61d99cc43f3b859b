// SharedBytes: immutable bytes with shared ownership — a read-only mapping of a local object file,
// or bytes a store read into memory — and slices of them that keep the whole alive.
//
// What ObjectStore::GetShared returns, so that a reader of a large object (an id index, an
// adjacency) can decode it as views into the bytes instead of copying every section. A value
// type: copying one copies a pointer and bumps a reference count. Thread-safe to share (the
// bytes never change).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace omnigraph::storage {

class SharedBytes {
 public:
  SharedBytes() = default;
  // `view` must stay valid as long as `owner` lives.
  SharedBytes(std::shared_ptr<const void> owner, std::string_view view)
      : owner_(std::move(owner)), view_(view) {}
  // Takes ownership of `data`.
  static SharedBytes FromString(std::string data);

  std::string_view view() const { return view_; }
  const char* data() const { return view_.data(); }
  size_t size() const { return view_.size(); }
  bool empty() const { return view_.empty(); }
  // The bytes [offset, offset + length) clamped to the end, sharing this buffer's owner.
  SharedBytes Slice(uint64_t offset, uint64_t length) const;
  // What keeps the bytes alive (for an aliasing shared_ptr to something decoded from them).
  const std::shared_ptr<const void>& owner() const { return owner_; }

 private:
  std::shared_ptr<const void> owner_;
  std::string_view view_;
};

}  // namespace omnigraph::storage
