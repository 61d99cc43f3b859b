// OmniGraph C++ — the JSON value the public API hands out and takes in.
//
// The API's results are OmniGraph's JSON envelopes. A Json is an owned tree a front end can walk
// (the CLI renders tables and CSV from it) and serialize (`dump`, what the CLI prints and the HTTP
// server will send as a body). Objects keep their members in insertion order: a query envelope's
// columns and each row's cells are in projection order; the other envelopes come with their keys
// sorted. Numbers keep their kind: signed and unsigned 64-bit integers and doubles. Members are
// found by a linear search: envelopes and rows are small.
//
// The member names follow the JSON library the engine uses inside (nlohmann::json's is_string,
// get<T>, dump, contains, ...) so code reads the same on both sides of the API; that library is
// not part of this interface. Misuse (get<std::string>() of a number, an index past the end) is a
// programmer error and aborts; check the type first when the input is not yours.
//
// Self-contained: the standard library only. Thread-safety: a value; const use from many threads
// is safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <limits>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "omnigraph/status.h"

namespace omnigraph::api {

class Json {
 public:
  enum class Type : uint8_t { kNull, kBool, kInt, kUint, kDouble, kString, kArray, kObject };
  using Member = std::pair<std::string, Json>;

  // null.
  Json() noexcept {}
  Json(std::nullptr_t) {}                         // NOLINT(google-explicit-constructor)
  Json(bool b) : type_(Type::kBool), bool_(b) {}  // NOLINT(google-explicit-constructor)
  template <typename T,
            std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Json(T n) {  // NOLINT(google-explicit-constructor)
    if constexpr (std::is_signed_v<T>) {
      type_ = Type::kInt;
      int_ = static_cast<int64_t>(n);
    } else {
      type_ = Type::kUint;
      uint_ = static_cast<uint64_t>(n);
    }
  }
  Json(double d) : type_(Type::kDouble), double_(d) {}  // NOLINT(google-explicit-constructor)
  Json(const char* s) : Json(std::string(s)) {}         // NOLINT(google-explicit-constructor)
  Json(std::string s) : type_(Type::kString) {          // NOLINT(google-explicit-constructor)
    new (&string_) std::string(std::move(s));
  }
  Json(std::string_view s) : Json(std::string(s)) {}  // NOLINT(google-explicit-constructor)
  // An object from its members in order: Json{{"name", "Ada"}, {"born", "1815-12-10"}}.
  Json(std::initializer_list<Member> members);  // NOLINT(google-explicit-constructor)

  Json(const Json& other);
  Json(Json&& other) noexcept;
  // By value: serves copy and move, and is safe when `other` is a part of this value.
  Json& operator=(Json other) noexcept;
  ~Json();

  static Json object() { return Json(Type::kObject); }
  static Json array() { return Json(Type::kArray); }

  Type type() const { return type_; }
  bool is_null() const { return type_ == Type::kNull; }
  bool is_boolean() const { return type_ == Type::kBool; }
  bool is_number() const { return is_number_integer() || type_ == Type::kDouble; }
  bool is_number_integer() const { return type_ == Type::kInt || type_ == Type::kUint; }
  bool is_string() const { return type_ == Type::kString; }
  bool is_array() const { return type_ == Type::kArray; }
  bool is_object() const { return type_ == Type::kObject; }

  // The value as T: bool, an integer type (checked to fit), double (from any number) or
  // std::string.
  template <typename T>
  T get() const {
    if constexpr (std::is_same_v<T, bool>) {
      return BoolValue();
    } else if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(std::is_signed_v<T> ? IntValue(MinOf<T>(), MaxOf<T>())
                                                : UintValue(MaxOf<T>()));
    } else if constexpr (std::is_floating_point_v<T>) {
      return static_cast<T>(DoubleValue());
    } else {
      static_assert(std::is_same_v<T, std::string>, "get<T>: bool, integers, double, string");
      return StringValue();
    }
  }
  // The string of a string value, without a copy.
  const std::string& string_value() const { return StringValue(); }

  // Elements of an array or members of an object; 0 for anything else.
  size_t size() const;
  bool empty() const { return size() == 0; }
  // Whether an object has member `key` (false for a non-object).
  bool contains(std::string_view key) const;

  // Member `key` of an object; a null value when it is missing or this is not an object.
  const Json& operator[](std::string_view key) const;
  // Member `key` of an object, added as null when missing; a null value becomes an object.
  Json& operator[](std::string_view key);
  // Element `index` of an array (checked).
  const Json& operator[](size_t index) const;
  Json& operator[](size_t index);
  // Overloads for literals, so j["name"] and j[0] are not ambiguous.
  const Json& operator[](const char* key) const { return (*this)[std::string_view(key)]; }
  Json& operator[](const char* key) { return (*this)[std::string_view(key)]; }
  const Json& operator[](const std::string& key) const { return (*this)[std::string_view(key)]; }
  Json& operator[](const std::string& key) { return (*this)[std::string_view(key)]; }
  const Json& operator[](int index) const { return (*this)[static_cast<size_t>(index)]; }
  Json& operator[](int index) { return (*this)[static_cast<size_t>(index)]; }

  // The elements of an array (empty for anything else), for range-for.
  const std::vector<Json>& elements() const;
  std::vector<Json>::const_iterator begin() const { return elements().begin(); }
  std::vector<Json>::const_iterator end() const { return elements().end(); }
  // The members of an object in order (empty for anything else).
  const std::vector<Member>& members() const;

  // Appends to an array; a null value becomes an array.
  void push_back(Json value);
  // Room for `n` elements of an array or members of an object (else nothing).
  void reserve(size_t n);
  // Removes member `key` of an object; returns how many were removed (0 or 1).
  size_t erase(std::string_view key);

  // The JSON text: compact when `indent` < 0, else pretty with `indent` spaces a level. UTF-8 is
  // written as is; invalid UTF-8 in a string (which the engine never produces) becomes U+FFFD.
  std::string dump(int indent = -1) const;

  friend bool operator==(const Json& a, const Json& b);

 private:
  explicit Json(Type type);
  // Destroys the string or container this value holds; it is then null.
  void Reset() noexcept;
  // Takes what `other` holds, leaving it null; this value must be null.
  void TakeFrom(Json& other) noexcept;
  // Copies the scalar of `other` (a null, bool or number) into this value of the same type.
  void CopyScalar(const Json& other) noexcept;
  template <typename T>
  static constexpr int64_t MinOf() {
    return static_cast<int64_t>(std::numeric_limits<T>::min());
  }
  template <typename T>
  static constexpr uint64_t MaxOf() {
    return static_cast<uint64_t>(std::numeric_limits<T>::max());
  }
  bool BoolValue() const;
  int64_t IntValue(int64_t min, uint64_t max) const;
  uint64_t UintValue(uint64_t max) const;
  double DoubleValue() const;
  const std::string& StringValue() const;

  // One of these is live, as type_ says (40 bytes a value).
  Type type_ = Type::kNull;
  union {
    bool bool_;
    int64_t int_;
    uint64_t uint_ = 0;
    double double_;
    std::string string_;
    std::vector<Json> elements_;
    std::vector<Member> members_;
  };
};

// Prints dump() (for test failure messages).
std::ostream& operator<<(std::ostream& out, const Json& value);

// Parses one JSON document. `what` names the input in errors ("--params", a file name):
// InvalidArgument with the byte offset of a syntax error, or naming a duplicate member.
Result<Json> ParseJson(std::string_view text, std::string_view what);

}  // namespace omnigraph::api
