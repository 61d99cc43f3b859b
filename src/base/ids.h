// Identifiers: Crockford base32, ULIDs and UUIDv7, minted from a Clock and a Random.
//
// A ULID is 48 bits of Unix milliseconds and 80 random bits, written as 26 Crockford base32
// characters. UlidGenerator makes the ids it mints strictly increasing: within one millisecond it
// increments the random part instead of drawing a new one. UlidGenerator is thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "base/random.h"
#include "base/status.h"

namespace omnigraph {

// Crockford's base32 alphabet: 0-9 and A-Z without I, L, O and U.
inline constexpr std::string_view kCrockfordAlphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

// Encodes bytes as base32, most significant bit first; the last group is zero-padded.
std::string CrockfordEncode(std::span<const uint8_t> bytes);
// Decodes what CrockfordEncode produced for `byte_count` bytes; lower case is accepted, any
// character outside the alphabet (including I, L, O, U) is InvalidArgument.
Result<std::string> CrockfordDecode(std::string_view text, size_t byte_count);
// `length` random Crockford characters (commit-id nonces use 10).
std::string RandomCrockford(Random& random, size_t length);

struct Ulid {
  static constexpr size_t kTextLength = 26;
  std::array<uint8_t, 16> bytes{};

  uint64_t timestamp_ms() const;
  std::string ToString() const;
  // Makes `text`, the 26 characters of a ULID, those of the ULID one greater (the 128-bit value
  // plus one, as UlidGenerator steps within a millisecond); false, `text` unchanged, when it
  // spells the largest ULID or is not 26 characters, or a character it steps is not Crockford
  // base32 (the text ToString wrote always is). A caller minting a run of ids writes the
  // first with ToString and steps the text for the rest, instead of encoding 128 bits per id.
  static bool StepText(std::span<char> text);
  // Parses 26 characters; rejects wrong length, characters outside the alphabet and values above
  // 2^128 - 1 (a first character above '7').
  static Result<Ulid> Parse(std::string_view text);

  auto operator<=>(const Ulid&) const = default;
};

class UlidGenerator {
 public:
  UlidGenerator(Clock& clock, Random& random) : clock_(clock), random_(random) {}
  // A new ULID, greater than every one this generator returned before.
  Ulid Next() { return NextAt(static_cast<uint64_t>(clock_.NowMillis())); }
  std::string NextString() { return Next().ToString(); }
  // As Next, with the time given instead of read from the clock (a caller minting many ids reads
  // the clock once per batch of them); an earlier time than the last id's is treated as the
  // same millisecond, as a clock stepping back is.
  Ulid NextAt(uint64_t now_ms);
  // The first of `count` (>= 1) consecutive ULIDs, each one greater than the one before: what
  // `count` calls of NextAt(now_ms) return, for one lock instead of `count`. The generator goes
  // on after the last of them.
  Ulid NextRunAt(uint64_t now_ms, uint32_t count);

 private:
  Clock& clock_;
  Random& random_;
  std::mutex mu_;
  Ulid last_{};
  bool has_last_ = false;
};

// A UUID version 7 (RFC 9562): 48-bit Unix ms, version, 74 random bits; lower-case hex 8-4-4-4-12.
std::string NewUuidV7(Clock& clock, Random& random);

}  // namespace omnigraph
