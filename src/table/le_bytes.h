// Little-endian fixed-width values in byte strings: the one encoding every table-layer binary
// format uses for its integers and floats (fragments, derived objects and their index payloads;
// docs/format/). The build requires a little-endian host, so a value's bytes are its memory
// image. Header-only pure functions; thread-safe.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

namespace omnigraph::table {

static_assert(std::endian::native == std::endian::little,
              "table formats are little-endian and read by memcpy");

// Appends `value`'s sizeof(T) bytes to `out`.
template <typename T>
inline void AppendLe(std::string& out, T value) {
  static_assert(std::is_trivially_copyable_v<T>);
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.append(bytes, sizeof(T));
}

// The T at byte `pos` of `bytes`. The caller has checked that sizeof(T) bytes are there.
template <typename T>
inline T LoadLe(std::string_view bytes, size_t pos) {
  static_assert(std::is_trivially_copyable_v<T>);
  T value;
  std::memcpy(&value, bytes.data() + pos, sizeof(T));
  return value;
}

// `n` rounded up to a multiple of 8: where the next 8-byte-aligned section starts.
inline constexpr uint64_t Padded8(uint64_t n) { return (n + 7) / 8 * 8; }

}  // namespace omnigraph::table
