#include "base/ids.h"

#include <cstdio>

namespace omnigraph {

namespace {
__extension__ typedef unsigned __int128 U128;

int CrockfordValue(char c) {
  if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  size_t pos = kCrockfordAlphabet.find(c);
  return pos == std::string_view::npos ? -1 : static_cast<int>(pos);
}
}  // namespace

std::string CrockfordEncode(std::span<const uint8_t> bytes) {
  std::string out;
  out.reserve((bytes.size() * 8 + 4) / 5);
  uint32_t buffer = 0;
  int bits = 0;
  for (uint8_t b : bytes) {
    buffer = (buffer << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out.push_back(kCrockfordAlphabet[(buffer >> (bits - 5)) & 31]);
      bits -= 5;
    }
  }
  if (bits > 0) out.push_back(kCrockfordAlphabet[(buffer << (5 - bits)) & 31]);
  return out;
}

Result<std::string> CrockfordDecode(std::string_view text, size_t byte_count) {
  if (text.size() != (byte_count * 8 + 4) / 5) {
    return InvalidArgument("base32 text '" + std::string(text) + "' has " +
                           std::to_string(text.size()) + " characters, expected " +
                           std::to_string((byte_count * 8 + 4) / 5));
  }
  std::string out;
  out.reserve(byte_count);
  uint32_t buffer = 0;
  int bits = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    int v = CrockfordValue(text[i]);
    if (v < 0) {
      return InvalidArgument("invalid base32 character '" + std::string(1, text[i]) +
                             "' at position " + std::to_string(i) + " in '" + std::string(text) +
                             "'");
    }
    buffer = (buffer << 5) | static_cast<uint32_t>(v);
    bits += 5;
    if (bits >= 8) {
      out.push_back(static_cast<char>((buffer >> (bits - 8)) & 0xff));
      bits -= 8;
    }
  }
  if (bits > 0 && (buffer & ((1u << bits) - 1)) != 0) {
    return InvalidArgument("base32 text '" + std::string(text) + "' has non-zero padding bits");
  }
  return out;
}

std::string RandomCrockford(Random& random, size_t length) {
  std::string out(length, '0');
  for (char& c : out) c = kCrockfordAlphabet[random.Uniform(32)];
  return out;
}

uint64_t Ulid::timestamp_ms() const {
  uint64_t t = 0;
  for (int i = 0; i < 6; ++i) t = (t << 8) | bytes[i];
  return t;
}

std::string Ulid::ToString() const {
  // 128 bits as 26 characters: the first character carries the top 3 bits.
  std::string out(kTextLength, '0');
  U128 v = 0;
  for (uint8_t b : bytes) v = (v << 8) | b;
  for (int i = kTextLength - 1; i >= 0; --i) {
    out[i] = kCrockfordAlphabet[static_cast<size_t>(v & 31)];
    v >>= 5;
  }
  return out;
}

bool Ulid::StepText(std::span<char> text) {
  if (text.size() != kTextLength) return false;
  for (size_t i = kTextLength; i-- > 0;) {
    const int digit = CrockfordValue(text[i]);
    // The first character carries only the top 3 bits: past '7' the value would overflow.
    const int top = i == 0 ? 7 : 31;
    if (digit < 0 || digit > top) return false;
    if (digit < top) {
      text[i] = kCrockfordAlphabet[static_cast<size_t>(digit + 1)];
      for (size_t j = i + 1; j < kTextLength; ++j) text[j] = '0';
      return true;
    }
  }
  return false;  // Every character at its largest: 2^128 - 1 has no successor.
}

Result<Ulid> Ulid::Parse(std::string_view text) {
  if (text.size() != kTextLength) {
    return InvalidArgument("ULID '" + std::string(text) + "' has " + std::to_string(text.size()) +
                           " characters, expected 26");
  }
  U128 v = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    int d = CrockfordValue(text[i]);
    if (d < 0) {
      return InvalidArgument("invalid character '" + std::string(1, text[i]) + "' at position " +
                             std::to_string(i) + " in ULID '" + std::string(text) + "'");
    }
    if (i == 0 && d > 7) {
      return InvalidArgument("ULID '" + std::string(text) + "' is larger than 2^128 - 1");
    }
    v = (v << 5) | static_cast<unsigned>(d);
  }
  Ulid ulid;
  for (int i = 15; i >= 0; --i) {
    ulid.bytes[i] = static_cast<uint8_t>(v & 0xff);
    v >>= 8;
  }
  return ulid;
}

Ulid UlidGenerator::NextAt(uint64_t now_ms) { return NextRunAt(now_ms, 1); }

Ulid UlidGenerator::NextRunAt(uint64_t now_ms, uint32_t count) {
  std::lock_guard lock(mu_);
  Ulid next;
  if (has_last_ && now_ms <= last_.timestamp_ms()) {
    // Same (or an earlier) millisecond: keep the last timestamp and add one to the random part,
    // so ids stay strictly increasing even when the clock steps back.
    next = last_;
    for (int i = 15; i >= 6; --i) {
      if (++next.bytes[i] != 0) break;
      if (i == 6) {
        // The 80 random bits overflowed: move to the next millisecond.
        uint64_t t = last_.timestamp_ms() + 1;
        for (int j = 5; j >= 0; --j, t >>= 8) next.bytes[j] = static_cast<uint8_t>(t & 0xff);
      }
    }
  } else {
    uint64_t t = now_ms;
    for (int j = 5; j >= 0; --j, t >>= 8) next.bytes[j] = static_cast<uint8_t>(t & 0xff);
    random_.Fill(std::span<uint8_t>(next.bytes.data() + 6, 10));
  }
  // The run's last id is `count - 1` above its first: adding to the 128-bit value steps the
  // random part, and its overflow the timestamp, as count - 1 more calls of NextAt would.
  last_ = next;
  uint64_t carry = count - 1;
  for (int i = 15; i >= 0 && carry != 0; --i) {
    carry += last_.bytes[i];
    last_.bytes[i] = static_cast<uint8_t>(carry & 0xff);
    carry >>= 8;
  }
  has_last_ = true;
  return next;
}

std::string NewUuidV7(Clock& clock, Random& random) {
  std::array<uint8_t, 16> b{};
  uint64_t t = static_cast<uint64_t>(clock.NowMillis());
  for (int j = 5; j >= 0; --j, t >>= 8) b[j] = static_cast<uint8_t>(t & 0xff);
  random.Fill(std::span<uint8_t>(b.data() + 6, 10));
  b[6] = static_cast<uint8_t>(0x70 | (b[6] & 0x0f));
  b[8] = static_cast<uint8_t>(0x80 | (b[8] & 0x3f));
  char out[37];
  std::snprintf(out, sizeof(out),
                "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
                b[15]);
  return std::string(out, 36);
}

}  // namespace omnigraph
