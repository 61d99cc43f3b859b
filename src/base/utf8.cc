#include "base/utf8.h"

#include <cstring>

namespace omnigraph {

namespace {

constexpr char kHex[] = "0123456789abcdef";

std::string HexByte(unsigned char c) { return std::string("0x") + kHex[c >> 4] + kHex[c & 15]; }

}  // namespace

size_t Utf8SequenceLength(std::string_view text, size_t offset) {
  const auto c = static_cast<unsigned char>(text[offset]);
  const size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
  if (n == 0 || offset + n > text.size()) return 0;
  uint32_t cp = n == 1 ? c : n == 2 ? (c & 0x1f) : n == 3 ? (c & 0x0f) : (c & 0x07);
  for (size_t k = 1; k < n; ++k) {
    const auto cc = static_cast<unsigned char>(text[offset + k]);
    if ((cc >> 6) != 2) return 0;
    cp = (cp << 6) | (cc & 0x3f);
  }
  // Overlong forms, surrogates and values beyond U+10FFFF are invalid.
  if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
      (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) {
    return 0;
  }
  return n;
}

std::optional<size_t> FindInvalidUtf8(std::string_view text) {
  constexpr uint64_t kHighBits = 0x8080808080808080ULL;
  size_t i = 0;
  while (i < text.size()) {
    // ASCII runs, eight bytes at a time: most text is mostly ASCII.
    if (i + 8 <= text.size()) {
      uint64_t word = 0;
      std::memcpy(&word, text.data() + i, sizeof word);
      if ((word & kHighBits) == 0) {
        i += 8;
        continue;
      }
    }
    const size_t n = Utf8SequenceLength(text, i);
    if (n == 0) return i;
    i += n;
  }
  return std::nullopt;
}

std::string DescribeInvalidUtf8(std::string_view text, size_t offset) {
  return "byte " + HexByte(static_cast<unsigned char>(text[offset])) + " at offset " +
         std::to_string(offset);
}

Status CheckUtf8(std::string_view text, std::string_view what) {
  std::optional<size_t> bad = FindInvalidUtf8(text);
  if (!bad) return Status::Ok();
  return InvalidArgument(std::string(what) + " is not valid UTF-8 (" +
                         DescribeInvalidUtf8(text, *bad) + ")");
}

TextPosition PositionAt(std::string_view text, size_t offset) {
  TextPosition pos;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++pos.line;
      pos.column = 1;
    } else {
      ++pos.column;
    }
  }
  return pos;
}

std::string EscapeInvalidUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const size_t n = Utf8SequenceLength(text, i);
    if (n == 0) {
      out += "\\x";
      const auto c = static_cast<unsigned char>(text[i]);
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
      ++i;
    } else {
      out.append(text.data() + i, n);
      i += n;
    }
  }
  return out;
}

}  // namespace omnigraph
