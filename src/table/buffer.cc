#include "table/buffer.h"

#include <cstdlib>
#include <new>
#include <utility>

namespace omnigraph::table {

Buffer::Buffer(Buffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      capacity_(std::exchange(other.capacity_, 0)) {}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    std::free(data_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    capacity_ = std::exchange(other.capacity_, 0);
  }
  return *this;
}

Buffer::~Buffer() { std::free(data_); }

Buffer Buffer::CopyOf(std::span<const uint8_t> bytes) {
  Buffer buffer;
  buffer.Append(bytes.data(), bytes.size());
  return buffer;
}

void Buffer::Reserve(size_t capacity_bytes) {
  if (capacity_bytes <= capacity_) return;
  // aligned_alloc needs a size that is a multiple of the alignment.
  const size_t rounded = (capacity_bytes + kAlignmentBytes - 1) / kAlignmentBytes * kAlignmentBytes;
  auto* fresh = static_cast<uint8_t*>(std::aligned_alloc(kAlignmentBytes, rounded));
  if (fresh == nullptr) throw std::bad_alloc();
  if (size_ > 0) std::memcpy(fresh, data_, size_);
  std::free(data_);
  data_ = fresh;
  capacity_ = rounded;
}

void Buffer::Resize(size_t size_bytes) {
  if (size_bytes > capacity_) Reserve(size_bytes);
  size_ = size_bytes;
}

void Buffer::Grow(size_t needed_bytes) {
  size_t target = capacity_ < kAlignmentBytes ? kAlignmentBytes : capacity_ * 2;
  while (target < needed_bytes) target *= 2;
  Reserve(target);
}

}  // namespace omnigraph::table
