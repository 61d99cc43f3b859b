#include "base/json_scan.h"

#include <limits>

#include "base/utf8.h"

namespace omnigraph {

char JsonScan::Peek() {
  while (at_ < text_.size()) {
    const char c = text_[at_];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return c;
    ++at_;
  }
  return 0;
}

bool JsonScan::Take(char c) {
  if (!ok_ || Peek() != c) return Stop();
  ++at_;
  return true;
}

bool JsonScan::Next(char close, bool& first) {
  if (!ok_) return false;
  if (Peek() == close) {
    ++at_;
    return false;
  }
  if (!first && !Take(',')) return false;
  first = false;
  return true;
}

bool JsonScan::NextMember(bool& first, std::string_view& name) {
  return Next('}', first) && String(name) && Take(':');
}

bool JsonScan::NextElement(bool& first) { return Next(']', first); }

bool JsonScan::String(std::string_view& out) {
  if (!Take('"')) return false;
  const size_t start = at_;
  while (at_ < text_.size()) {
    const unsigned char c = static_cast<unsigned char>(text_[at_]);
    if (c == '"') {
      out = text_.substr(start, at_ - start);
      ++at_;
      return true;
    }
    if (c == '\\' || c < 0x20) return Stop();
    if (c < 0x80) {
      ++at_;
      continue;
    }
    const size_t length = Utf8SequenceLength(text_, at_);
    if (length == 0) return Stop();
    at_ += length;
  }
  return Stop();
}

bool JsonScan::Digits(uint64_t& out) {
  const size_t start = at_;
  uint64_t value = 0;
  while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9') {
    const uint64_t digit = static_cast<uint64_t>(text_[at_] - '0');
    if (value > (std::numeric_limits<uint64_t>::max() - digit) / 10) return Stop();
    value = value * 10 + digit;
    ++at_;
  }
  const size_t length = at_ - start;
  if (length == 0 || (length > 1 && text_[start] == '0')) return Stop();
  // A fraction or an exponent makes the number a double in ParseJson's reading.
  if (at_ < text_.size() && (text_[at_] == '.' || text_[at_] == 'e' || text_[at_] == 'E')) {
    return Stop();
  }
  out = value;
  return true;
}

bool JsonScan::U64(uint64_t& out) {
  if (!ok_ || Peek() == '-') return Stop();
  return Digits(out);
}

bool JsonScan::I64(int64_t& out) {
  if (!ok_) return false;
  const bool negative = Peek() == '-';
  if (negative) ++at_;
  uint64_t magnitude = 0;
  if (!Digits(magnitude)) return false;
  constexpr uint64_t kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  // "-0" and the most negative value are left to ParseJson, whose reading of them this scan
  // does not repeat.
  if (magnitude > kMax || (negative && magnitude == 0)) return Stop();
  out = negative ? -static_cast<int64_t>(magnitude) : static_cast<int64_t>(magnitude);
  return true;
}

bool JsonScan::Bool(bool& out) {
  if (!ok_) return false;
  Peek();
  const std::string_view rest = text_.substr(at_);
  if (rest.starts_with("true")) {
    at_ += 4;
    out = true;
    return true;
  }
  if (rest.starts_with("false")) {
    at_ += 5;
    out = false;
    return true;
  }
  return Stop();
}

bool JsonScan::Null() {
  if (!ok_ || Peek() != 'n') return false;
  if (!text_.substr(at_).starts_with("null")) return Stop();
  at_ += 4;
  return true;
}

bool JsonScan::End() { return ok_ && Peek() == 0 && at_ == text_.size(); }

}  // namespace omnigraph
