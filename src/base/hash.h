// Hashing: SHA-256 and HMAC-SHA256 (OpenSSL), xxhash64, and hex encoding.
// Pure functions; thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace omnigraph {

using Sha256Digest = std::array<uint8_t, 32>;

Sha256Digest Sha256(std::string_view data);
std::string Sha256Hex(std::string_view data);
Sha256Digest HmacSha256(std::string_view key, std::string_view data);

uint64_t XxHash64(std::string_view data, uint64_t seed = 0);
uint64_t XxHash64(std::span<const uint8_t> data, uint64_t seed = 0);

// Lower-case hex of the bytes.
std::string HexEncode(std::span<const uint8_t> bytes);
inline std::string HexEncode(std::string_view bytes) {
  return HexEncode(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
}

}  // namespace omnigraph
