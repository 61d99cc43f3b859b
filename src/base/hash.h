// Hashing: SHA-256 and HMAC-SHA256 (OpenSSL), xxhash64, and hex encoding.
// Pure functions; thread-safe (a Sha256Hasher is one caller's).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace omnigraph {

using Sha256Digest = std::array<uint8_t, 32>;

Sha256Digest Sha256(std::string_view data);
std::string Sha256Hex(std::string_view data);
Sha256Digest HmacSha256(std::string_view key, std::string_view data);

// SHA-256 of data given in pieces (an input streamed through once): Sha256Hex of their
// concatenation.
class Sha256Hasher {
 public:
  Sha256Hasher();
  ~Sha256Hasher();
  Sha256Hasher(const Sha256Hasher&) = delete;
  Sha256Hasher& operator=(const Sha256Hasher&) = delete;
  void Update(std::string_view data);
  // The digest of everything given, in lower-case hex; the hasher is then spent.
  std::string FinishHex();

 private:
  struct Context;
  std::unique_ptr<Context> context_;
};

uint64_t XxHash64(std::string_view data, uint64_t seed = 0);
uint64_t XxHash64(std::span<const uint8_t> data, uint64_t seed = 0);

// XxHash64 of data given in pieces: Finish() equals XxHash64 of their concatenation (seed 0).
class XxHash64Hasher {
 public:
  XxHash64Hasher();
  ~XxHash64Hasher();
  XxHash64Hasher(const XxHash64Hasher&) = delete;
  XxHash64Hasher& operator=(const XxHash64Hasher&) = delete;
  void Update(std::string_view data);
  uint64_t Finish() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Lower-case hex of the bytes.
std::string HexEncode(std::span<const uint8_t> bytes);
inline std::string HexEncode(std::string_view bytes) {
  return HexEncode(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
}

}  // namespace omnigraph
