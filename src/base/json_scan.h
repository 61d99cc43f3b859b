// JsonScan: a pull reader of the plain JSON that this code writes itself — objects, arrays,
// strings without escapes, integers, true, false and null — over the bytes, without building a
// document. For decoders on a fresh process's path (a 10× graph's edge manifest is 54 KB, and a
// DOM parse of it took a quarter of a fresh 1-hop; decision 243).
//
// It reads a strict subset of what ParseJson (base/json.h) accepts, and says so rather than
// guessing: a string with an escape or a control character, a number with a fraction, an
// exponent, a leading zero or a value outside 64 bits, or anything ParseJson would refuse stops
// the scan (`ok()` turns false and every later call returns false). A decoder built on it
// therefore falls back to its ParseJson path whenever the scan stops, and that path reports what
// is wrong; where the scan finishes, every value it gave is the one ParseJson reads from the
// same bytes (strings are valid UTF-8; duplicate members are the caller's to refuse).
// A value type over borrowed bytes; not thread-safe.
#pragma once

#include <cstdint>
#include <string_view>

namespace omnigraph {

class JsonScan {
 public:
  explicit JsonScan(std::string_view text) : text_(text) {}

  // False once the scan stopped (the bytes left the subset, or a call found another token).
  bool ok() const { return ok_; }
  // Stops the scan: a caller that met something it does not decode itself.
  bool Stop() { return ok_ = false; }

  // The next member of an object whose '{' was consumed (BeginObject): true with its name, the
  // ':' consumed, the value next; false at the closing '}' (consumed) or when the scan stopped.
  // `first` starts true for each object and is cleared by the call.
  bool NextMember(bool& first, std::string_view& name);
  // The next element of an array whose '[' was consumed (BeginArray): true when a value is next;
  // false at the closing ']' (consumed) or when the scan stopped.
  bool NextElement(bool& first);

  bool BeginObject() { return Take('{'); }
  bool BeginArray() { return Take('['); }
  // A string's bytes between its quotes (valid UTF-8, no escapes).
  bool String(std::string_view& out);
  // A non-negative integer that fits 64 bits.
  bool U64(uint64_t& out);
  // An integer that fits a signed 64 bits.
  bool I64(int64_t& out);
  bool Bool(bool& out);
  // Whether `null` is next (consumed when it is).
  bool Null();
  // True when only whitespace is left.
  bool End();

 private:
  // Skips whitespace; the next byte, or 0 at the end.
  char Peek();
  bool Take(char c);
  // The separator before an object's member or an array's element: false at `close` (consumed).
  bool Next(char close, bool& first);
  // A run of decimal digits with no leading zero, fitting 64 bits.
  bool Digits(uint64_t& out);

  std::string_view text_;
  size_t at_ = 0;
  bool ok_ = true;
};

}  // namespace omnigraph
