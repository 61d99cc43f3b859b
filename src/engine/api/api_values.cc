// The public Status and Json (include/omnigraph/status.h, json.h) and their conversions to and
// from the engine's. Codes, kinds, their names and default kinds come from the one list in
// omnigraph/status_codes.h, as the engine's do, so the two sides cannot drift apart; the text
// forms come from the engine's own functions.
#include "engine/api/api_values.h"

#include <array>
#include <cmath>
#include <new>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

namespace omnigraph {

namespace engine {

// Both sides' enums are generated from omnigraph/status_codes.h; the asserts make sure no hand
// edit of either enum lets their numbers drift apart, so the mapping is a cast.
api::Code ToApi(Code code) {
#define OMNIGRAPH_SAME_CODE_(c, name, kind)                                            \
  static_assert(static_cast<uint16_t>(Code::c) == static_cast<uint16_t>(api::Code::c), \
                "engine and public code " name " differ");
  OMNIGRAPH_STATUS_CODES(OMNIGRAPH_SAME_CODE_)
#undef OMNIGRAPH_SAME_CODE_
  return static_cast<api::Code>(code);
}

Code FromApi(api::Code code) { return static_cast<Code>(code); }

api::Kind ToApi(Kind kind) {
#define OMNIGRAPH_SAME_KIND_(k, name)                                                \
  static_assert(static_cast<uint8_t>(Kind::k) == static_cast<uint8_t>(api::Kind::k), \
                "engine and public kind " name " differ");
  OMNIGRAPH_STATUS_KINDS(OMNIGRAPH_SAME_KIND_)
#undef OMNIGRAPH_SAME_KIND_
  return static_cast<api::Kind>(kind);
}

Kind FromApi(api::Kind kind) { return static_cast<Kind>(kind); }

namespace {

api::DiagnosticDetail ToApi(const DiagnosticDetail& d) {
  return api::DiagnosticDetail{d.code, d.line, d.column, d.fix};
}

DiagnosticDetail FromApi(const api::DiagnosticDetail& d) {
  return DiagnosticDetail{d.code, d.line, d.column, d.fix};
}

}  // namespace

api::Status ToApi(const Status& status) {
  if (status.ok()) return api::Status::Ok();
  api::Status out(ToApi(status.kind()), ToApi(status.code()), status.message(), status.object());
  if (const DiagnosticDetail* d = status.diagnostic()) return out.WithDiagnostic(ToApi(*d));
  return out;
}

Status FromApi(const api::Status& status) {
  if (status.ok()) return Status::Ok();
  Status out(FromApi(status.kind()), FromApi(status.code()), status.message(), status.object());
  if (const api::DiagnosticDetail* d = status.diagnostic()) {
    return out.WithDiagnostic(FromApi(*d));
  }
  return out;
}

namespace {

template <typename J>
api::Json ToApiImpl(const J& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::null:
    case nlohmann::json::value_t::discarded: return api::Json();
    case nlohmann::json::value_t::boolean: return api::Json(value.template get<bool>());
    case nlohmann::json::value_t::number_integer: return api::Json(value.template get<int64_t>());
    case nlohmann::json::value_t::number_unsigned: return api::Json(value.template get<uint64_t>());
    case nlohmann::json::value_t::number_float: return api::Json(value.template get<double>());
    case nlohmann::json::value_t::string:
      return api::Json(value.template get_ref<const std::string&>());
    case nlohmann::json::value_t::array: {
      api::Json out = api::Json::array();
      out.reserve(value.size());
      for (const J& element : value) out.push_back(ToApiImpl(element));
      return out;
    }
    case nlohmann::json::value_t::object: {
      api::Json out = api::Json::object();
      out.reserve(value.size());
      for (auto it = value.begin(); it != value.end(); ++it) out[it.key()] = ToApiImpl(*it);
      return out;
    }
    case nlohmann::json::value_t::binary: break;
  }
  OMNIGRAPH_CHECK_MSG(false, "binary JSON values are not part of any envelope");
  return api::Json();
}

template <typename J>
J FromApiImpl(const api::Json& value) {
  switch (value.type()) {
    case api::Json::Type::kNull: return J();
    case api::Json::Type::kBool: return J(value.get<bool>());
    case api::Json::Type::kInt: return J(value.get<int64_t>());
    case api::Json::Type::kUint: return J(value.get<uint64_t>());
    case api::Json::Type::kDouble: return J(value.get<double>());
    case api::Json::Type::kString: return J(value.string_value());
    case api::Json::Type::kArray: {
      J out = J::array();
      for (const api::Json& element : value) out.push_back(FromApiImpl<J>(element));
      return out;
    }
    case api::Json::Type::kObject: {
      J out = J::object();
      for (const api::Json::Member& m : value.members()) out[m.first] = FromApiImpl<J>(m.second);
      return out;
    }
  }
  return J();
}

}  // namespace

api::Json ToApi(const Json& value) { return ToApiImpl(value); }
api::Json ToApi(const OrderedJson& value) { return ToApiImpl(value); }
Json FromApi(const api::Json& value) { return FromApiImpl<Json>(value); }
OrderedJson FromApiOrdered(const api::Json& value) { return FromApiImpl<OrderedJson>(value); }

}  // namespace engine

namespace api {

using engine::FromApi;
using engine::ToApi;

// The engine's, through the cast above: both sides' names come from omnigraph/status_codes.h.
std::string_view CodeName(Code code) { return ::omnigraph::CodeName(FromApi(code)); }
std::string_view KindName(Kind kind) { return ::omnigraph::KindName(FromApi(kind)); }
Kind KindOf(Code code) { return ToApi(::omnigraph::KindOf(FromApi(code))); }

Status::Status(Code code, std::string message, std::string object)
    : Status(KindOf(code), code, std::move(message), std::move(object)) {}

Status::Status(Kind kind, Code code, std::string message, std::string object) {
  OMNIGRAPH_CHECK_MSG(code != Code::kOk && kind != Kind::kOk, "a failure status needs a code");
  rep_ = std::make_unique<Rep>(Rep{kind, code, std::move(message), std::move(object), {}});
}

Status::Status(const Status& other)
    : rep_(other.rep_ ? std::make_unique<Rep>(*other.rep_) : nullptr) {}

Status& Status::operator=(const Status& other) {
  if (this != &other) rep_ = other.rep_ ? std::make_unique<Rep>(*other.rep_) : nullptr;
  return *this;
}

const std::string& Status::message() const {
  static const std::string kEmpty;
  return rep_ ? rep_->message : kEmpty;
}

const std::string& Status::object() const {
  static const std::string kEmpty;
  return rep_ ? rep_->object : kEmpty;
}

const DiagnosticDetail* Status::diagnostic() const {
  return rep_ && rep_->diagnostic ? &*rep_->diagnostic : nullptr;
}

Status Status::WithDiagnostic(DiagnosticDetail detail) const {
  if (ok()) return *this;
  Status copy = *this;
  copy.rep_->diagnostic = std::move(detail);
  return copy;
}

std::string Status::ToString() const { return FromApi(*this).ToString(); }

bool operator==(const Status& a, const Status& b) { return FromApi(a) == FromApi(b); }

Status InvalidArgument(std::string message, std::string object) {
  return Status(Code::kInvalidArgument, std::move(message), std::move(object));
}

namespace internal {
void ResultHasNoValue(const Status& status) {
  ::omnigraph::CheckFailed(__FILE__, __LINE__, "result.ok()", status.ToString());
}
}  // namespace internal

// --- Json.

namespace {

const Json& Null() {
  static const Json kNull;
  return kNull;
}

void CheckType(bool ok, const char* wanted) {
  OMNIGRAPH_CHECK_MSG(ok, std::string("JSON value is not ") + wanted);
}

}  // namespace

Json::Json(Type type) : type_(type) {
  if (type == Type::kString) new (&string_) std::string();
  if (type == Type::kArray) new (&elements_) std::vector<Json>();
  if (type == Type::kObject) new (&members_) std::vector<Member>();
}

Json::Json(std::initializer_list<Member> members) : Json(Type::kObject) {
  members_.reserve(members.size());
  for (const Member& m : members) (*this)[m.first] = m.second;
}

Json::Json(const Json& other) : type_(other.type_) {
  switch (type_) {
    case Type::kString: new (&string_) std::string(other.string_); break;
    case Type::kArray: new (&elements_) std::vector<Json>(other.elements_); break;
    case Type::kObject: new (&members_) std::vector<Member>(other.members_); break;
    default: CopyScalar(other); break;
  }
}

void Json::CopyScalar(const Json& other) noexcept {
  switch (other.type_) {
    case Type::kBool: bool_ = other.bool_; break;
    case Type::kInt: int_ = other.int_; break;
    case Type::kUint: uint_ = other.uint_; break;
    case Type::kDouble: double_ = other.double_; break;
    default: break;
  }
}

Json::Json(Json&& other) noexcept { TakeFrom(other); }

Json& Json::operator=(Json other) noexcept {
  Reset();
  TakeFrom(other);
  return *this;
}

Json::~Json() { Reset(); }

void Json::Reset() noexcept {
  switch (type_) {
    case Type::kString: string_.~basic_string(); break;
    case Type::kArray: elements_.~vector(); break;
    case Type::kObject: members_.~vector(); break;
    default: break;
  }
  type_ = Type::kNull;
  uint_ = 0;
}

void Json::TakeFrom(Json& other) noexcept {
  type_ = other.type_;
  switch (type_) {
    case Type::kString: new (&string_) std::string(std::move(other.string_)); break;
    case Type::kArray: new (&elements_) std::vector<Json>(std::move(other.elements_)); break;
    case Type::kObject: new (&members_) std::vector<Member>(std::move(other.members_)); break;
    default: CopyScalar(other); break;
  }
  other.Reset();
}

const std::vector<Json>& Json::elements() const {
  static const std::vector<Json> kNone;
  return type_ == Type::kArray ? elements_ : kNone;
}

const std::vector<Json::Member>& Json::members() const {
  static const std::vector<Member> kNone;
  return type_ == Type::kObject ? members_ : kNone;
}

bool Json::BoolValue() const {
  CheckType(type_ == Type::kBool, "a boolean");
  return bool_;
}

int64_t Json::IntValue(int64_t min, uint64_t max) const {
  CheckType(is_number_integer(), "an integer");
  const bool fits = type_ == Type::kInt
                        ? int_ >= min && (int_ < 0 || static_cast<uint64_t>(int_) <= max)
                        : uint_ <= max;
  OMNIGRAPH_CHECK_MSG(fits, "JSON integer " + dump() + " does not fit the type asked for");
  return type_ == Type::kInt ? int_ : static_cast<int64_t>(uint_);
}

uint64_t Json::UintValue(uint64_t max) const {
  CheckType(is_number_integer(), "an integer");
  const bool fits =
      type_ == Type::kInt ? int_ >= 0 && static_cast<uint64_t>(int_) <= max : uint_ <= max;
  OMNIGRAPH_CHECK_MSG(fits, "JSON integer " + dump() + " does not fit the type asked for");
  return type_ == Type::kInt ? static_cast<uint64_t>(int_) : uint_;
}

double Json::DoubleValue() const {
  CheckType(is_number(), "a number");
  if (type_ == Type::kInt) return static_cast<double>(int_);
  if (type_ == Type::kUint) return static_cast<double>(uint_);
  return double_;
}

const std::string& Json::StringValue() const {
  CheckType(type_ == Type::kString, "a string");
  return string_;
}

size_t Json::size() const {
  if (type_ == Type::kArray) return elements_.size();
  if (type_ == Type::kObject) return members_.size();
  return 0;
}

bool Json::contains(std::string_view key) const {
  for (const Member& m : members()) {
    if (m.first == key) return true;
  }
  return false;
}

const Json& Json::operator[](std::string_view key) const {
  for (const Member& m : members()) {
    if (m.first == key) return m.second;
  }
  return Null();
}

Json& Json::operator[](std::string_view key) {
  if (type_ == Type::kNull) *this = Json(Type::kObject);
  CheckType(type_ == Type::kObject, "an object");
  for (Member& m : members_) {
    if (m.first == key) return m.second;
  }
  members_.emplace_back(std::string(key), Json());
  return members_.back().second;
}

const Json& Json::operator[](size_t index) const {
  CheckType(type_ == Type::kArray, "an array");
  OMNIGRAPH_CHECK_MSG(index < elements_.size(), "JSON array index " + std::to_string(index) +
                                                    " past the end (" +
                                                    std::to_string(elements_.size()) + ")");
  return elements_[index];
}

Json& Json::operator[](size_t index) {
  return const_cast<Json&>(static_cast<const Json&>(*this)[index]);
}

void Json::push_back(Json value) {
  if (type_ == Type::kNull) *this = Json(Type::kArray);
  CheckType(type_ == Type::kArray, "an array");
  elements_.push_back(std::move(value));
}

size_t Json::erase(std::string_view key) {
  if (type_ != Type::kObject) return 0;
  for (auto it = members_.begin(); it != members_.end(); ++it) {
    if (it->first == key) {
      members_.erase(it);
      return 1;
    }
  }
  return 0;
}

namespace {

// Writes `s` as a JSON string. Printable ASCII without quote or backslash is written as is; any
// other string goes through the engine's serializer, whose escapes (and U+FFFD for invalid
// UTF-8) are then ours too.
void DumpString(const std::string& s, std::string& out) {
  for (unsigned char c : s) {
    if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') {
      out += OrderedJson(s).dump(-1, ' ', /*ensure_ascii=*/false,
                                 OrderedJson::error_handler_t::replace);
      return;
    }
  }
  out += '"';
  out += s;
  out += '"';
}

void DumpNewline(int indent, int level, std::string& out) {
  out += '\n';
  out.append(static_cast<size_t>(indent) * static_cast<size_t>(level), ' ');
}

// The layout of the engine's serializer (nlohmann::json::dump): compact, or one member or
// element a line with `indent` spaces a level and ": " after a key; empty containers as {} / [].
void DumpTo(const Json& value, int indent, int level, std::string& out) {
  const bool pretty = indent >= 0;
  switch (value.type()) {
    case Json::Type::kNull: out += "null"; return;
    case Json::Type::kBool: out += value.get<bool>() ? "true" : "false"; return;
    case Json::Type::kInt: out += std::to_string(value.get<int64_t>()); return;
    case Json::Type::kUint: out += std::to_string(value.get<uint64_t>()); return;
    case Json::Type::kDouble: {
      const double d = value.get<double>();
      if (!std::isfinite(d)) {
        out += "null";
        return;
      }
      std::array<char, 64> buffer;
      // The engine serializer's shortest round-trip form ("0.1", "2.0", "1e+300").
      char* end = nlohmann::detail::to_chars(buffer.data(), buffer.data() + buffer.size(), d);
      out.append(buffer.data(), static_cast<size_t>(end - buffer.data()));
      return;
    }
    case Json::Type::kString: DumpString(value.string_value(), out); return;
    case Json::Type::kArray: {
      if (value.elements().empty()) {
        out += "[]";
        return;
      }
      out += '[';
      bool first = true;
      for (const Json& element : value.elements()) {
        if (!first) out += ',';
        first = false;
        if (pretty) DumpNewline(indent, level + 1, out);
        DumpTo(element, indent, level + 1, out);
      }
      if (pretty) DumpNewline(indent, level, out);
      out += ']';
      return;
    }
    case Json::Type::kObject: {
      if (value.members().empty()) {
        out += "{}";
        return;
      }
      out += '{';
      bool first = true;
      for (const Json::Member& m : value.members()) {
        if (!first) out += ',';
        first = false;
        if (pretty) DumpNewline(indent, level + 1, out);
        DumpString(m.first, out);
        out += pretty ? ": " : ":";
        DumpTo(m.second, indent, level + 1, out);
      }
      if (pretty) DumpNewline(indent, level, out);
      out += '}';
      return;
    }
  }
}

}  // namespace

std::string Json::dump(int indent) const {
  // The same bytes as the engine's serializer (api_values_test compares them), so an envelope
  // prints the same on both sides of the API; written directly, without building its tree.
  std::string out;
  DumpTo(*this, indent, 0, out);
  return out;
}

void Json::reserve(size_t n) {
  if (type_ == Type::kArray) elements_.reserve(n);
  if (type_ == Type::kObject) members_.reserve(n);
}

bool operator==(const Json& a, const Json& b) {
  if (a.is_number() && b.is_number()) {
    if (a.is_number_integer() && b.is_number_integer()) {
      const bool a_neg = a.type_ == Json::Type::kInt && a.int_ < 0;
      const bool b_neg = b.type_ == Json::Type::kInt && b.int_ < 0;
      if (a_neg != b_neg) return false;
      if (a_neg) return a.int_ == b.int_;
      return a.get<uint64_t>() == b.get<uint64_t>();
    }
    return a.get<double>() == b.get<double>();
  }
  if (a.type_ != b.type_) return false;
  switch (a.type_) {
    case Json::Type::kNull: return true;
    case Json::Type::kBool: return a.bool_ == b.bool_;
    case Json::Type::kString: return a.string_ == b.string_;
    case Json::Type::kArray: return a.elements_ == b.elements_;
    case Json::Type::kObject:
      // Member order does not make two objects different.
      if (a.members_.size() != b.members_.size()) return false;
      for (const Json::Member& m : a.members_) {
        if (!b.contains(m.first) || !(b[m.first] == m.second)) return false;
      }
      return true;
    default: return false;
  }
}

std::ostream& operator<<(std::ostream& out, const Json& value) { return out << value.dump(); }

namespace {

// Builds a Json straight from the JSON library's parse events: the value, error and duplicate
// member that ParseOrderedJson and then ToApi gave (the same parser underneath: its lexer checks
// the text, numbers keep their kind, strings their UTF-8), without the library's tree in between
// or a callback with a set of names per object — about a tenth of the server's own CPU on a point
// read (decision 231). Containers being filled are pointers into the tree: a container only grows
// while it is the innermost open one, so the pointers to the ones around it stay valid.
class Builder {
 public:
  using Library = OrderedJson;
  explicit Builder(std::string_view what) : what_(what) {}

  bool null() { return Add(Json()); }
  bool boolean(bool v) { return Add(Json(v)); }
  bool number_integer(Library::number_integer_t v) { return Add(Json(static_cast<int64_t>(v))); }
  bool number_unsigned(Library::number_unsigned_t v) { return Add(Json(static_cast<uint64_t>(v))); }
  bool number_float(Library::number_float_t v, const std::string& /*text*/) {
    return Add(Json(static_cast<double>(v)));
  }
  bool string(std::string& v) { return Add(Json(std::move(v))); }
  bool binary(Library::binary_t& /*bytes*/) { return false; }  // not in JSON text
  bool start_object(std::size_t /*size*/) { return Open(Json::object()); }
  bool start_array(std::size_t /*size*/) { return Open(Json::array()); }
  bool end_object() { return Close(); }
  bool end_array() { return Close(); }
  // The first member name an object repeats is the error, once the whole text has parsed.
  bool key(std::string& name) {
    if (duplicate_.empty() && open_.back()->contains(name)) duplicate_ = name;
    key_ = std::move(name);
    return true;
  }
  // A syntax error names its byte, as the library's exception did; the rest (a number past a
  // double's range) say only what the library says.
  template <typename Exception>
  bool parse_error(std::size_t /*position*/, const std::string& /*token*/, const Exception& e) {
    std::string message = "invalid JSON in " + std::string(what_);
    if constexpr (std::is_same_v<Exception, nlohmann::detail::parse_error>) {
      message += " at byte " + std::to_string(e.byte);
    }
    error_ = ::omnigraph::Status(::omnigraph::Code::kInvalidArgument, message + ": " + e.what());
    return false;
  }

  Result<Json> Take() {
    if (!error_.ok()) return ToApi(error_);
    if (!duplicate_.empty()) {
      return ToApi(
          ::omnigraph::Status(::omnigraph::Code::kInvalidArgument,
                              "duplicate member '" + duplicate_ + "' in " + std::string(what_)));
    }
    return std::move(root_);
  }

 private:
  // Places `value` in the innermost open container (or as the whole value); the place.
  Json* Place(Json value) {
    if (open_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    Json& container = *open_.back();
    if (container.is_array()) {
      container.push_back(std::move(value));
      return &container[container.size() - 1];
    }
    Json& member = container[key_];
    member = std::move(value);
    return &member;
  }
  bool Add(Json value) {
    Place(std::move(value));
    return true;
  }
  bool Open(Json container) {
    open_.push_back(Place(std::move(container)));
    return true;
  }
  bool Close() {
    open_.pop_back();
    return true;
  }

  std::string_view what_;
  Json root_;
  std::vector<Json*> open_;
  std::string key_;
  std::string duplicate_;
  ::omnigraph::Status error_ = ::omnigraph::Status::Ok();
};

}  // namespace

Result<Json> ParseJson(std::string_view text, std::string_view what) {
  Builder builder(what);
  OrderedJson::sax_parse(text.begin(), text.end(), &builder);
  return builder.Take();
}

}  // namespace api
}  // namespace omnigraph
