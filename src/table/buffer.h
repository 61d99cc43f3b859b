// Buffer: an owned, 64-byte-aligned, growable byte buffer whose new bytes are left uninitialized.
//
// Columns keep their validity bitmaps, offsets and values in Buffers (Arrow recommends 64-byte
// alignment so that scans can use wide loads). Unlike std::vector, growing or allocating a
// Buffer does not zero it, so the fragment reader can decompress straight into a fresh Buffer
// without touching its bytes twice. Move-only; thread-compatible.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

namespace omnigraph::table {

class Buffer {
 public:
  static constexpr size_t kAlignmentBytes = 64;

  Buffer() = default;
  // A buffer of `size_bytes` uninitialized bytes.
  explicit Buffer(size_t size_bytes) { Resize(size_bytes); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  Buffer(Buffer&& other) noexcept;
  Buffer& operator=(Buffer&& other) noexcept;
  ~Buffer();

  // A buffer holding a copy of `bytes`.
  static Buffer CopyOf(std::span<const uint8_t> bytes);

  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  bool empty() const { return size_ == 0; }
  std::span<const uint8_t> bytes() const { return {data_, size_}; }

  // Makes room for `capacity_bytes` without changing size().
  void Reserve(size_t capacity_bytes);
  // Changes size(); kept bytes keep their values, new bytes are uninitialized.
  void Resize(size_t size_bytes);
  void Clear() { size_ = 0; }

  void Append(const void* bytes, size_t length) {
    if (size_ + length > capacity_) Grow(size_ + length);
    if (length > 0) std::memcpy(data_ + size_, bytes, length);
    size_ += length;
  }
  template <typename T>
  void Push(T value) {
    if (size_ + sizeof(T) > capacity_) Grow(size_ + sizeof(T));
    std::memcpy(data_ + size_, &value, sizeof(T));
    size_ += sizeof(T);
  }
  // Appends `length` zero bytes.
  void AppendZeros(size_t length) {
    if (size_ + length > capacity_) Grow(size_ + length);
    if (length > 0) std::memset(data_ + size_, 0, length);
    size_ += length;
  }

  // The contents as values of T; size() must be a multiple of sizeof(T).
  template <typename T>
  std::span<const T> As() const {
    return {reinterpret_cast<const T*>(data_), size_ / sizeof(T)};
  }
  template <typename T>
  std::span<T> MutableAs() {
    return {reinterpret_cast<T*>(data_), size_ / sizeof(T)};
  }

 private:
  // Grows the capacity geometrically to at least `needed_bytes`.
  void Grow(size_t needed_bytes);

  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

}  // namespace omnigraph::table
