// Value: one typed scalar or list value, as the load, mutation and query layers carry it.
//
// A Value is null, a Bool, a signed or unsigned 64-bit integer, a 64-bit float, a UTF-8 string,
// a Date (days since 1970-01-01), a DateTime (milliseconds since the Unix epoch, UTC) or a list
// of values. The column type (schema::PropType) says how wide a value is stored; a Value only
// says what kind of value it is, so an I32 column holds kInt values and an F32 column kFloat
// values. Values have a total order (Compare) that the query layer uses for `order` and
// grouping: null sorts first; the three numeric tags compare by mathematical value with each
// other (Int(1) == Float(1.0), -0.0 == 0.0, NaN after every other number and equal to itself);
// other tags sort by tag. Value is a regular value type; no shared state; thread-compatible.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace omnigraph::schema {

class Value {
 public:
  // The kind of value held. The order of the tags is the cross-tag sort order.
  enum class Tag : uint8_t {
    kNull = 0,
    kBool,
    kInt,    // int64_t
    kUInt,   // uint64_t
    kFloat,  // double
    kString,
    kDate,      // int32_t days since 1970-01-01
    kDateTime,  // int64_t ms since 1970-01-01T00:00:00Z
    kList,
  };

  // Null.
  Value() = default;

  static Value Null() { return Value(); }
  static Value Bool(bool v) { return Value(Rep(std::in_place_index<1>, v)); }
  static Value Int(int64_t v) { return Value(Rep(std::in_place_index<2>, v)); }
  static Value UInt(uint64_t v) { return Value(Rep(std::in_place_index<3>, v)); }
  static Value Float(double v) { return Value(Rep(std::in_place_index<4>, v)); }
  static Value String(std::string v) { return Value(Rep(std::in_place_index<5>, std::move(v))); }
  static Value Date(int32_t days) { return Value(Rep(std::in_place_index<6>, DateRep{days})); }
  static Value DateTime(int64_t ms) { return Value(Rep(std::in_place_index<7>, DateTimeRep{ms})); }
  static Value List(std::vector<Value> items) {
    return Value(Rep(std::in_place_index<8>, std::move(items)));
  }

  Tag tag() const { return static_cast<Tag>(rep_.index()); }
  bool is_null() const { return tag() == Tag::kNull; }
  bool is_numeric() const {
    return tag() == Tag::kInt || tag() == Tag::kUInt || tag() == Tag::kFloat;
  }

  // Accessors; calling one that does not match tag() is a programmer error (checked).
  bool bool_value() const;
  int64_t int_value() const;
  uint64_t uint_value() const;
  double float_value() const;
  const std::string& string_value() const;
  int32_t date_days() const;
  int64_t datetime_ms() const;
  const std::vector<Value>& list_items() const;

  // The total order described above: negative, zero or positive.
  static int Compare(const Value& a, const Value& b);
  friend bool operator==(const Value& a, const Value& b) { return Compare(a, b) == 0; }
  friend std::weak_ordering operator<=>(const Value& a, const Value& b) {
    int c = Compare(a, b);
    return c < 0 ? std::weak_ordering::less
                 : (c > 0 ? std::weak_ordering::greater : std::weak_ordering::equivalent);
  }

  // A hash consistent with operator== (equal values hash equally, across numeric tags too).
  size_t Hash() const;

  // A short rendering for messages: null, true, 42, 1.5, "text", date:19000, datetime:123, [1, 2].
  std::string DebugString() const;

 private:
  struct DateRep {
    int32_t days;
  };
  struct DateTimeRep {
    int64_t ms;
  };
  using Rep = std::variant<std::monostate, bool, int64_t, uint64_t, double, std::string, DateRep,
                           DateTimeRep, std::vector<Value>>;

  explicit Value(Rep rep) : rep_(std::move(rep)) {}

  Rep rep_;
};

// The lower-case name of a tag ("null", "bool", "int", "uint", "float", "string", "date",
// "datetime", "list").
std::string_view ValueTagName(Value::Tag tag);

struct ValueHash {
  size_t operator()(const Value& v) const { return v.Hash(); }
};

}  // namespace omnigraph::schema
