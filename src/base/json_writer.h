// JsonWriter: a small streaming writer of compact JSON, for hot paths where building an
// nlohmann::json tree first costs more than the I/O it precedes (publishing a record).
//
// The caller writes members in the order it wants them; for canonical JSON that is sorted key
// order. String escaping matches CanonicalJson exactly (quote, backslash, \b \f \n \r \t, other
// control characters as \u00xx, UTF-8 passed through). A string that is not valid UTF-8 marks the
// writer failed, so the caller can fall back to CanonicalJson. Not thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/json.h"

namespace omnigraph {

class JsonWriter {
 public:
  explicit JsonWriter(std::string* out) : out_(out) {}

  void BeginObject();
  void EndObject();
  void BeginArray();
  void EndArray();
  // A member name inside an object; the value follows.
  void Key(std::string_view key);
  void String(std::string_view value);
  void Uint(uint64_t value);
  void Int(int64_t value);
  void Null();
  void Bool(bool value);
  // A number already rendered as JSON text (e.g. a float by std::to_chars); written as is.
  void Number(std::string_view json_text);
  // Any nlohmann value, serialized canonically.
  void Value(const Json& value);

  // False when a string was not valid UTF-8 (the output is then unusable).
  bool ok() const { return ok_; }

 private:
  void Separate();

  std::string* out_;
  // Per open container: whether a value was written in it yet.
  std::vector<bool> has_value_;
  bool after_key_ = false;
  bool ok_ = true;
};

}  // namespace omnigraph
