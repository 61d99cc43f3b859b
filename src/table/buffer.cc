#include "table/buffer.h"

#include <sys/mman.h>

#include <cstdlib>
#include <new>
#include <utility>

namespace omnigraph::table {

namespace {

// From this capacity on, a buffer is aligned to this (a huge page) and advised to use huge pages
// (madvise MADV_HUGEPAGE; the kernel may ignore it).
constexpr size_t kHugeBytes = size_t{2} << 20;

}  // namespace

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
  // A large buffer is aligned to and sized in huge pages, which it asks the kernel for: a
  // million-row column then costs a few page faults, not a thousand (each of which a virtual
  // machine makes dear). Smaller ones keep 64 bytes; aligned_alloc needs a size that is a
  // multiple of the alignment.
  const size_t align = capacity_bytes >= kHugeBytes ? kHugeBytes : kAlignmentBytes;
  const size_t rounded = (capacity_bytes + align - 1) / align * align;
  auto* fresh = static_cast<uint8_t*>(std::aligned_alloc(align, rounded));
  if (fresh == nullptr) throw std::bad_alloc();
  if (align == kHugeBytes) ::madvise(fresh, rounded, MADV_HUGEPAGE);  // Advice: errors ignored.
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
