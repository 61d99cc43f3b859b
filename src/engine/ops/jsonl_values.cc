#include "engine/ops/jsonl_values.h"

#include <array>
#include <charconv>
#include <limits>

#include "engine/read/external_blob.h"
#include "schema/temporal.h"

namespace omnigraph::engine {

using schema::PropType;
using schema::ScalarKind;
using schema::Value;

namespace {

constexpr std::string_view kBase64Prefix = "base64:";
// The largest integer a JSON reader that uses doubles reads exactly: 2^53 − 1.
constexpr uint64_t kJsonSafeIntegerMax = (1ull << 53) - 1;

// A decimal integer string ("-12", "42") as kInt or kUInt; nullopt when it is not one.
std::optional<Value> ParseDecimal(std::string_view s) {
  if (s.empty()) return std::nullopt;
  const char* begin = s.data();
  const char* end = s.data() + s.size();
  if (s[0] == '-') {
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(begin, end, v);
    if (ec != std::errc() || ptr != end) return std::nullopt;
    return Value::Int(v);
  }
  uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(begin, end, v);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return v <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
             ? Value::Int(static_cast<int64_t>(v))
             : Value::UInt(v);
}

Result<Value> ScalarFromJson(const Value& json, ScalarKind kind, const ExternalBlobRules* rules) {
  const bool is_string = json.tag() == Value::Tag::kString;
  switch (kind) {
    case ScalarKind::kI32:
    case ScalarKind::kI64:
    case ScalarKind::kU32:
    case ScalarKind::kU64:
      if (is_string) {
        std::optional<Value> v = ParseDecimal(json.string_value());
        if (!v) {
          return InvalidArgument("invalid integer literal '" + json.string_value() + "'");
        }
        return *v;
      }
      return json;
    case ScalarKind::kDate:
      if (is_string) {
        std::optional<int32_t> days = schema::ParseDate(json.string_value());
        if (!days) return InvalidArgument("invalid Date literal '" + json.string_value() + "'");
        return Value::Date(*days);
      }
      if (json.tag() == Value::Tag::kInt || json.tag() == Value::Tag::kUInt) {
        const bool fits = json.tag() == Value::Tag::kInt
                              ? json.int_value() >= std::numeric_limits<int32_t>::min() &&
                                    json.int_value() <= std::numeric_limits<int32_t>::max()
                              : json.uint_value() <= std::numeric_limits<int32_t>::max();
        if (!fits) return InvalidArgument("Date value out of range: " + json.DebugString());
        return Value::Date(static_cast<int32_t>(json.tag() == Value::Tag::kInt
                                                    ? json.int_value()
                                                    : static_cast<int64_t>(json.uint_value())));
      }
      return json;
    case ScalarKind::kDateTime:
      if (is_string) {
        std::optional<int64_t> ms = schema::ParseDateTime(json.string_value());
        if (!ms) {
          return InvalidArgument("invalid DateTime literal '" + json.string_value() + "'");
        }
        return Value::DateTime(*ms);
      }
      if (json.tag() == Value::Tag::kInt) return Value::DateTime(json.int_value());
      if (json.tag() == Value::Tag::kUInt) {
        return InvalidArgument("DateTime value out of range: " + json.DebugString());
      }
      return json;
    case ScalarKind::kBlob:
      if (is_string) {
        OMNIGRAPH_ASSIGN_OR_RETURN(BlobText blob, StoredBlobFromText(json.string_value(), rules));
        if (blob.refusal) return InvalidArgument(*blob.refusal);
        return Value::String(std::move(blob.stored));
      }
      return json;
    default: return json;
  }
}

std::string ShortestFloat(double v, bool f32) {
  std::array<char, 64> buf;
  auto [ptr, ec] = f32 ? std::to_chars(buf.data(), buf.data() + buf.size(), static_cast<float>(v))
                       : std::to_chars(buf.data(), buf.data() + buf.size(), v);
  OMNIGRAPH_CHECK(ec == std::errc());
  std::string text(buf.data(), ptr);
  // "3" and "-0" would read back as integers (and -0 lose its sign); write "3.0", "-0.0".
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

void WriteScalar(JsonWriter& out, const Value& v, ScalarKind kind) {
  switch (v.tag()) {
    case Value::Tag::kNull: out.Null(); return;
    case Value::Tag::kBool: out.Bool(v.bool_value()); return;
    case Value::Tag::kInt: {
      const int64_t i = v.int_value();
      const uint64_t magnitude = i < 0 ? 0 - static_cast<uint64_t>(i) : static_cast<uint64_t>(i);
      if (magnitude > kJsonSafeIntegerMax) {
        out.String(std::to_string(i));
      } else {
        out.Int(i);
      }
      return;
    }
    case Value::Tag::kUInt:
      if (v.uint_value() > kJsonSafeIntegerMax) {
        out.String(std::to_string(v.uint_value()));
      } else {
        out.Uint(v.uint_value());
      }
      return;
    case Value::Tag::kFloat: {
      const double f = v.float_value();
      // F32 columns are finite; a non-finite F64 has no JSON spelling and is written as null.
      if (f != f || f == std::numeric_limits<double>::infinity() ||
          f == -std::numeric_limits<double>::infinity()) {
        out.Null();
      } else {
        out.Number(ShortestFloat(f, kind == ScalarKind::kF32 || kind == ScalarKind::kVector));
      }
      return;
    }
    case Value::Tag::kString:
      if (kind == ScalarKind::kBlob) {
        // An external reference is its URI, as OmniGraph's export shows it; a damaged tag (which
        // a Blob read reports as Corruption) is shown as the bytes stored.
        Result<StoredBlob> stored = ClassifyStoredBlob(v.string_value());
        if (stored.ok() && stored->external) {
          out.String(std::string(stored->payload));
        } else {
          out.String(std::string(kBase64Prefix) +
                     Base64Encode(stored.ok() ? stored->payload : v.string_value()));
        }
      } else {
        out.String(v.string_value());
      }
      return;
    case Value::Tag::kDate: out.String(schema::FormatDate(v.date_days())); return;
    case Value::Tag::kDateTime: out.String(schema::FormatDateTime(v.datetime_ms())); return;
    case Value::Tag::kList:
      out.BeginArray();
      for (const Value& item : v.list_items()) WriteScalar(out, item, kind);
      out.EndArray();
      return;
  }
}

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

}  // namespace

Result<std::optional<std::string>> BlobBytesFromText(std::string_view text) {
  if (!text.starts_with(kBase64Prefix)) return std::optional<std::string>();
  Result<std::string> bytes = Base64Decode(text.substr(kBase64Prefix.size()));
  if (!bytes.ok()) return InvalidArgument("invalid base64 blob data: " + bytes.status().message());
  return std::optional<std::string>(std::move(*bytes));
}

Result<Value> FromJson(const Value& json, const PropType& type, const ExternalBlobRules* rules) {
  if (json.is_null()) return json;
  if ((type.list || type.scalar == ScalarKind::kVector) && json.tag() == Value::Tag::kList) {
    if (type.scalar == ScalarKind::kVector) return json;
    std::vector<Value> items;
    items.reserve(json.list_items().size());
    for (const Value& item : json.list_items()) {
      OMNIGRAPH_ASSIGN_OR_RETURN(Value v, ScalarFromJson(item, type.scalar, rules));
      items.push_back(std::move(v));
    }
    return Value::List(std::move(items));
  }
  if (type.list) return json;
  return ScalarFromJson(json, type.scalar, rules);
}

void WriteJson(JsonWriter& out, const Value& value, const PropType& type) {
  WriteScalar(out, value, type.scalar);
}

std::string Base64Encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t n = (static_cast<uint8_t>(bytes[i]) << 16) |
                       (static_cast<uint8_t>(bytes[i + 1]) << 8) |
                       static_cast<uint8_t>(bytes[i + 2]);
    out.push_back(kAlphabet[n >> 18]);
    out.push_back(kAlphabet[(n >> 12) & 63]);
    out.push_back(kAlphabet[(n >> 6) & 63]);
    out.push_back(kAlphabet[n & 63]);
  }
  if (i < bytes.size()) {
    uint32_t n = static_cast<uint8_t>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) n |= static_cast<uint8_t>(bytes[i + 1]) << 8;
    out.push_back(kAlphabet[n >> 18]);
    out.push_back(kAlphabet[(n >> 12) & 63]);
    out.push_back(i + 1 < bytes.size() ? kAlphabet[(n >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

Result<std::string> Base64Decode(std::string_view text) {
  while (!text.empty() && text.back() == '=') text.remove_suffix(1);
  if (text.size() % 4 == 1) return InvalidArgument("base64 text has an impossible length");
  std::string out;
  out.reserve(text.size() * 3 / 4);
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const size_t k = kAlphabet.find(text[i]);
    if (k == std::string_view::npos) {
      return InvalidArgument("invalid base64 character at offset " + std::to_string(i));
    }
    acc = (acc << 6) | static_cast<uint32_t>(k);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return out;
}

}  // namespace omnigraph::engine
