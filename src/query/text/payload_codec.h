// Little-endian fixed-width integers, LEB128 varints and a bounds-checked reader: the pieces the
// full-text payloads (docs/format/fulltext.md) are written and parsed with. Header-only; the
// reader is a value owned by one parse.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace omnigraph::query::text::codec {

inline void PutU32(std::string& out, uint32_t v) {
  char b[4];
  for (int i = 0; i < 4; ++i) b[i] = static_cast<char>(v >> (8 * i));
  out.append(b, 4);
}

inline void PutU64(std::string& out, uint64_t v) {
  PutU32(out, static_cast<uint32_t>(v));
  PutU32(out, static_cast<uint32_t>(v >> 32));
}

inline void PutVarint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

// A varint length, then the bytes.
inline void PutBytes(std::string& out, std::string_view bytes) {
  PutVarint(out, bytes.size());
  out += bytes;
}

// Reads a payload front to back; every read checks the bounds and remembers the first failure
// (a failed read returns 0 or an empty view, so a parse checks ok() once per section).
class Reader {
 public:
  explicit Reader(std::string_view s) : s_(s) {}
  bool ok() const { return ok_; }
  bool done() const { return pos_ == s_.size(); }
  size_t remaining() const { return s_.size() - pos_; }
  uint64_t Fixed(int bytes) {
    if (!ok_ || s_.size() - pos_ < static_cast<size_t>(bytes)) return Fail();
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i)
      v |= uint64_t(static_cast<unsigned char>(s_[pos_ + i])) << (8 * i);
    pos_ += static_cast<size_t>(bytes);
    return v;
  }
  uint64_t Varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (!ok_ || pos_ >= s_.size()) return Fail();
      const unsigned char c = static_cast<unsigned char>(s_[pos_++]);
      v |= uint64_t(c & 0x7f) << shift;
      if ((c & 0x80) == 0) return v;
    }
    return Fail();
  }
  std::string_view Bytes(uint64_t n) {
    if (!ok_ || s_.size() - pos_ < n) {
      Fail();
      return {};
    }
    std::string_view v = s_.substr(pos_, n);
    pos_ += n;
    return v;
  }
  // A varint length, then that many bytes.
  std::string_view LengthPrefixed() { return Bytes(Varint()); }

 private:
  uint64_t Fail() {
    ok_ = false;
    return 0;
  }
  std::string_view s_;
  size_t pos_ = 0;
  bool ok_ = true;
};

}  // namespace omnigraph::query::text::codec
