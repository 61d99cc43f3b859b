#include "schema/value.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <functional>

#include "base/status.h"

namespace omnigraph::schema {
namespace {

constexpr double kTwoPow63 = 9223372036854775808.0;
constexpr double kTwoPow64 = 18446744073709551616.0;

int Sign(auto a, auto b) { return a < b ? -1 : (a > b ? 1 : 0); }

// Compares a finite or infinite (not NaN) double with an int64 exactly.
int CompareFloatInt(double d, int64_t i) {
  if (d < -kTwoPow63) return -1;
  if (d >= kTwoPow63) return 1;
  double t = std::trunc(d);
  auto ti = static_cast<int64_t>(t);
  if (ti != i) return Sign(ti, i);
  return Sign(d - t, 0.0);
}

int CompareFloatUInt(double d, uint64_t u) {
  if (d < 0) return -1;
  if (d >= kTwoPow64) return 1;
  double t = std::trunc(d);
  auto tu = static_cast<uint64_t>(t);
  if (tu != u) return Sign(tu, u);
  return Sign(d - t, 0.0);
}

int CompareNumeric(const Value& a, const Value& b) {
  using T = Value::Tag;
  // NaN sorts after every other number and equals itself.
  bool a_nan = a.tag() == T::kFloat && std::isnan(a.float_value());
  bool b_nan = b.tag() == T::kFloat && std::isnan(b.float_value());
  if (a_nan || b_nan) return Sign(a_nan, b_nan);
  switch (a.tag()) {
    case T::kInt:
      switch (b.tag()) {
        case T::kInt: return Sign(a.int_value(), b.int_value());
        case T::kUInt:
          return a.int_value() < 0 ? -1
                                   : Sign(static_cast<uint64_t>(a.int_value()), b.uint_value());
        default: return -CompareFloatInt(b.float_value(), a.int_value());
      }
    case T::kUInt:
      switch (b.tag()) {
        case T::kInt:
          return b.int_value() < 0 ? 1 : Sign(a.uint_value(), static_cast<uint64_t>(b.int_value()));
        case T::kUInt: return Sign(a.uint_value(), b.uint_value());
        default: return -CompareFloatUInt(b.float_value(), a.uint_value());
      }
    default:
      switch (b.tag()) {
        case T::kInt: return CompareFloatInt(a.float_value(), b.int_value());
        case T::kUInt: return CompareFloatUInt(a.float_value(), b.uint_value());
        default: return Sign(a.float_value(), b.float_value());  // -0.0 == 0.0.
      }
  }
}

// Numeric tags share one rank so that they compare with each other.
int Rank(Value::Tag tag) {
  using T = Value::Tag;
  switch (tag) {
    case T::kInt:
    case T::kUInt:
    case T::kFloat: return static_cast<int>(T::kInt);
    default: return static_cast<int>(tag);
  }
}

size_t Mix(size_t seed, size_t value) {
  return seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

size_t HashNumeric(const Value& v) {
  constexpr size_t kNumericSeed = 0x4e554d;
  switch (v.tag()) {
    case Value::Tag::kInt: return Mix(kNumericSeed, static_cast<uint64_t>(v.int_value()));
    case Value::Tag::kUInt: return Mix(kNumericSeed, v.uint_value());
    default: break;
  }
  double d = v.float_value();
  if (std::isnan(d)) return Mix(kNumericSeed, 0x7ff8);
  // Integral floats hash like the integer they equal.
  if (d == std::trunc(d) && d >= -kTwoPow63 && d < kTwoPow64) {
    uint64_t bits =
        d < 0 ? static_cast<uint64_t>(static_cast<int64_t>(d)) : static_cast<uint64_t>(d);
    return Mix(kNumericSeed, bits);
  }
  return Mix(kNumericSeed + 1, std::bit_cast<uint64_t>(d));
}

}  // namespace

bool Value::bool_value() const {
  OMNIGRAPH_CHECK(tag() == Tag::kBool);
  return std::get<1>(rep_);
}
int64_t Value::int_value() const {
  OMNIGRAPH_CHECK(tag() == Tag::kInt);
  return std::get<2>(rep_);
}
uint64_t Value::uint_value() const {
  OMNIGRAPH_CHECK(tag() == Tag::kUInt);
  return std::get<3>(rep_);
}
double Value::float_value() const {
  OMNIGRAPH_CHECK(tag() == Tag::kFloat);
  return std::get<4>(rep_);
}
const std::string& Value::string_value() const {
  OMNIGRAPH_CHECK(tag() == Tag::kString);
  return std::get<5>(rep_);
}
int32_t Value::date_days() const {
  OMNIGRAPH_CHECK(tag() == Tag::kDate);
  return std::get<6>(rep_).days;
}
int64_t Value::datetime_ms() const {
  OMNIGRAPH_CHECK(tag() == Tag::kDateTime);
  return std::get<7>(rep_).ms;
}
const std::vector<Value>& Value::list_items() const {
  OMNIGRAPH_CHECK(tag() == Tag::kList);
  return std::get<8>(rep_);
}

int Value::Compare(const Value& a, const Value& b) {
  int ra = Rank(a.tag());
  int rb = Rank(b.tag());
  if (ra != rb) return Sign(ra, rb);
  switch (a.tag()) {
    case Tag::kNull: return 0;
    case Tag::kBool: return Sign(a.bool_value(), b.bool_value());
    case Tag::kInt:
    case Tag::kUInt:
    case Tag::kFloat: return CompareNumeric(a, b);
    case Tag::kString: {
      int c = a.string_value().compare(b.string_value());
      return Sign(c, 0);
    }
    case Tag::kDate: return Sign(a.date_days(), b.date_days());
    case Tag::kDateTime: return Sign(a.datetime_ms(), b.datetime_ms());
    case Tag::kList: {
      const auto& x = a.list_items();
      const auto& y = b.list_items();
      for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
        int c = Compare(x[i], y[i]);
        if (c != 0) return c;
      }
      return Sign(x.size(), y.size());
    }
  }
  return 0;
}

size_t Value::Hash() const {
  switch (tag()) {
    case Tag::kNull: return 0x6e756c6c;
    case Tag::kBool: return Mix(1, bool_value() ? 1 : 0);
    case Tag::kInt:
    case Tag::kUInt:
    case Tag::kFloat: return HashNumeric(*this);
    case Tag::kString: return Mix(5, std::hash<std::string>()(string_value()));
    case Tag::kDate: return Mix(6, static_cast<size_t>(static_cast<int64_t>(date_days())));
    case Tag::kDateTime: return Mix(7, static_cast<size_t>(datetime_ms()));
    case Tag::kList: {
      size_t h = 8;
      for (const Value& item : list_items()) h = Mix(h, item.Hash());
      return h;
    }
  }
  return 0;
}

std::string Value::DebugString() const {
  switch (tag()) {
    case Tag::kNull: return "null";
    case Tag::kBool: return bool_value() ? "true" : "false";
    case Tag::kInt: return std::to_string(int_value());
    case Tag::kUInt: return std::to_string(uint_value());
    case Tag::kFloat: {
      char buf[64];
      auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), float_value());
      return ec == std::errc() ? std::string(buf, end) : "float";
    }
    case Tag::kString: return "\"" + string_value() + "\"";
    case Tag::kDate: return "date:" + std::to_string(date_days());
    case Tag::kDateTime: return "datetime:" + std::to_string(datetime_ms());
    case Tag::kList: {
      std::string out = "[";
      for (size_t i = 0; i < list_items().size(); ++i) {
        if (i > 0) out += ", ";
        out += list_items()[i].DebugString();
      }
      return out + "]";
    }
  }
  return "?";
}

std::string_view ValueTagName(Value::Tag tag) {
  switch (tag) {
    case Value::Tag::kNull: return "null";
    case Value::Tag::kBool: return "bool";
    case Value::Tag::kInt: return "int";
    case Value::Tag::kUInt: return "uint";
    case Value::Tag::kFloat: return "float";
    case Value::Tag::kString: return "string";
    case Value::Tag::kDate: return "date";
    case Value::Tag::kDateTime: return "datetime";
    case Value::Tag::kList: return "list";
  }
  return "unknown";
}

}  // namespace omnigraph::schema
