#include "base/json_writer.h"

#include <charconv>

#include "base/utf8.h"

namespace omnigraph {

void JsonWriter::Separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!has_value_.empty()) {
    if (has_value_.back()) out_->push_back(',');
    has_value_.back() = true;
  }
}

void JsonWriter::BeginObject() {
  Separate();
  out_->push_back('{');
  has_value_.push_back(false);
}

void JsonWriter::EndObject() {
  out_->push_back('}');
  has_value_.pop_back();
}

void JsonWriter::BeginArray() {
  Separate();
  out_->push_back('[');
  has_value_.push_back(false);
}

void JsonWriter::EndArray() {
  out_->push_back(']');
  has_value_.pop_back();
}

void JsonWriter::Number(std::string_view json_text) {
  Separate();
  out_->append(json_text);
}

void JsonWriter::Key(std::string_view key) {
  String(key);
  out_->push_back(':');
  after_key_ = true;
}

void JsonWriter::String(std::string_view value) {
  Separate();
  out_->push_back('"');
  size_t i = 0;
  while (i < value.size()) {
    // Copy the longest run that needs no escaping in one append.
    size_t run = i;
    while (run < value.size()) {
      unsigned char r = static_cast<unsigned char>(value[run]);
      if (r < 0x20 || r == '"' || r == '\\' || r >= 0x80) break;
      ++run;
    }
    if (run > i) {
      out_->append(value.data() + i, run - i);
      i = run;
      continue;
    }
    unsigned char c = static_cast<unsigned char>(value[i]);
    if (c >= 0x80) {
      size_t n = Utf8SequenceLength(value, i);
      if (n == 0) {
        ok_ = false;
        return;
      }
      out_->append(value.data() + i, n);
      i += n;
      continue;
    }
    switch (c) {
      case '"': out_->append("\\\""); break;
      case '\\': out_->append("\\\\"); break;
      case '\b': out_->append("\\b"); break;
      case '\f': out_->append("\\f"); break;
      case '\n': out_->append("\\n"); break;
      case '\r': out_->append("\\r"); break;
      case '\t': out_->append("\\t"); break;
      default:
        if (c < 0x20) {
          static constexpr char kHex[] = "0123456789abcdef";
          out_->append("\\u00");
          out_->push_back(kHex[c >> 4]);
          out_->push_back(kHex[c & 15]);
        } else {
          out_->push_back(static_cast<char>(c));
        }
    }
    ++i;
  }
  out_->push_back('"');
}

void JsonWriter::Uint(uint64_t value) {
  Separate();
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value);
  out_->append(buf, end);
}

void JsonWriter::Int(int64_t value) {
  Separate();
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value);
  out_->append(buf, end);
}

void JsonWriter::Null() {
  Separate();
  out_->append("null");
}

void JsonWriter::Bool(bool value) {
  Separate();
  out_->append(value ? "true" : "false");
}

void JsonWriter::Value(const Json& value) {
  Separate();
  out_->append(CanonicalJson(value));
}

}  // namespace omnigraph
