// BindParams (executor.h): the JSON parameters of a run as typed values.
#include <cmath>
#include <limits>

#include "base/utf8.h"
#include "query/exec/executor.h"
#include "schema/temporal.h"

namespace omnigraph::query {

using schema::PropType;
using schema::ScalarKind;
using schema::Value;

namespace {

constexpr int64_t kJsSafeMax = 9007199254740991;  // 2^53 - 1

std::string JsonTypeName(const Json& v) {
  switch (v.type()) {
    case Json::value_t::null: return "null";
    case Json::value_t::boolean: return "boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
    case Json::value_t::number_float: return "number";
    case Json::value_t::string: return "string";
    case Json::value_t::array: return "array";
    default: return "object";
  }
}

Status ParamError(const std::string& key, const std::string& what) {
  return InvalidArgument("param '" + key + "': " + what);
}

// An integer parameter as a (negative flag, magnitude) pair read from a JSON number within the
// JS-safe range or a decimal string.
Result<Value> ParseInteger(const std::string& key, const Json& v, ScalarKind kind) {
  const std::string type_name(schema::ScalarKindName(kind));
  if (v.is_number_integer() || v.is_number_unsigned()) {
    if (v.is_number_unsigned()) {
      uint64_t u = v.get<uint64_t>();
      if (u > static_cast<uint64_t>(kJsSafeMax)) {
        return ParamError(key, "integer " + std::to_string(u) +
                                   " exceeds JS safe integer range; use a decimal string");
      }
      return Value::UInt(u);
    }
    int64_t i = v.get<int64_t>();
    if (i > kJsSafeMax || i < -kJsSafeMax) {
      return ParamError(key, "integer " + std::to_string(i) +
                                 " exceeds JS safe integer range; use a decimal string");
    }
    return Value::Int(i);
  }
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    bool negative = !s.empty() && s[0] == '-';
    size_t start = negative ? 1 : 0;
    if (s.size() == start || s.size() - start > 20) {
      return ParamError(
          key, "expected a decimal integer string for " + type_name + ", got \"" + s + "\"");
    }
    uint64_t magnitude = 0;
    for (size_t i = start; i < s.size(); ++i) {
      if (s[i] < '0' || s[i] > '9') {
        return ParamError(
            key, "expected a decimal integer string for " + type_name + ", got \"" + s + "\"");
      }
      uint64_t digit = static_cast<uint64_t>(s[i] - '0');
      if (magnitude > (std::numeric_limits<uint64_t>::max() - digit) / 10) {
        return ParamError(key, "value " + s + " exceeds " + type_name + " range");
      }
      magnitude = magnitude * 10 + digit;
    }
    if (!negative) return Value::UInt(magnitude);
    if (magnitude > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + 1) {
      return ParamError(key, "value " + s + " exceeds " + type_name + " range");
    }
    return Value::Int(magnitude == static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + 1
                          ? std::numeric_limits<int64_t>::min()
                          : -static_cast<int64_t>(magnitude));
  }
  return ParamError(key, "expected integer, got " + JsonTypeName(v));
}

Result<Value> RangeChecked(const std::string& key, Value v, ScalarKind kind) {
  const std::string type_name(schema::ScalarKindName(kind));
  bool negative = v.tag() == Value::Tag::kInt && v.int_value() < 0;
  uint64_t magnitude = v.tag() == Value::Tag::kUInt ? v.uint_value()
                       : negative                   ? 0
                                                    : static_cast<uint64_t>(v.int_value());
  auto out = [&] {
    return ParamError(key, "value " + v.DebugString() + " exceeds " + type_name + " range");
  };
  switch (kind) {
    case ScalarKind::kI32:
      if (negative ? v.int_value() < std::numeric_limits<int32_t>::min()
                   : magnitude > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
        return out();
      }
      return negative ? v : Value::Int(static_cast<int64_t>(magnitude));
    case ScalarKind::kI64:
      if (!negative && magnitude > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        return out();
      }
      return negative ? v : Value::Int(static_cast<int64_t>(magnitude));
    case ScalarKind::kU32:
      if (negative || magnitude > std::numeric_limits<uint32_t>::max()) return out();
      return Value::UInt(magnitude);
    case ScalarKind::kU64:
      if (negative) return out();
      return Value::UInt(magnitude);
    default: break;
  }
  return out();
}

Result<Value> ScalarParam(const std::string& key, const Json& v, const PropType& type) {
  switch (type.scalar) {
    case ScalarKind::kString:
    case ScalarKind::kBlob:
      if (!v.is_string()) return ParamError(key, "expected string, got " + JsonTypeName(v));
      // A parsed JSON document is valid UTF-8 already; a Json built by an embedding program
      // need not be.
      if (type.scalar == ScalarKind::kString) {
        Status utf8 = CheckUtf8(v.get_ref<const std::string&>(), "string");
        if (!utf8.ok()) return ParamError(key, utf8.message());
      }
      if (type.is_enum()) {
        const std::string& s = v.get_ref<const std::string&>();
        bool found = false;
        for (const std::string& e : type.enum_values) found = found || e == s;
        if (!found) {
          std::string allowed;
          for (const std::string& e : type.enum_values)
            allowed += (allowed.empty() ? "" : ", ") + e;
          return ParamError(key, "invalid enum value '" + s + "' (expected: " + allowed + ")");
        }
      }
      return Value::String(v.get<std::string>());
    case ScalarKind::kBool:
      if (!v.is_boolean()) return ParamError(key, "expected boolean, got " + JsonTypeName(v));
      return Value::Bool(v.get<bool>());
    case ScalarKind::kI32:
    case ScalarKind::kI64:
    case ScalarKind::kU32:
    case ScalarKind::kU64: {
      OMNIGRAPH_ASSIGN_OR_RETURN(Value i, ParseInteger(key, v, type.scalar));
      return RangeChecked(key, std::move(i), type.scalar);
    }
    case ScalarKind::kF32:
    case ScalarKind::kF64: {
      if (!v.is_number()) return ParamError(key, "expected float, got " + JsonTypeName(v));
      double d = v.get<double>();
      if (type.scalar == ScalarKind::kF32 && !std::isfinite(static_cast<float>(d))) {
        return ParamError(key, "value " + v.dump() + " exceeds F32 range");
      }
      return Value::Float(
          type.scalar == ScalarKind::kF32 ? static_cast<double>(static_cast<float>(d)) : d);
    }
    case ScalarKind::kDate: {
      if (v.is_number_integer()) {
        const bool fits = v.is_number_unsigned()
                              ? v.get<uint64_t>() <= std::numeric_limits<int32_t>::max()
                              : v.get<int64_t>() >= std::numeric_limits<int32_t>::min() &&
                                    v.get<int64_t>() <= std::numeric_limits<int32_t>::max();
        if (!fits) return ParamError(key, "date " + v.dump() + " is out of range");
        return Value::Date(static_cast<int32_t>(v.get<int64_t>()));
      }
      if (!v.is_string()) return ParamError(key, "expected date string, got " + JsonTypeName(v));
      std::optional<int32_t> days = schema::ParseDate(v.get_ref<const std::string&>());
      if (!days) return ParamError(key, "invalid Date literal '" + v.get<std::string>() + "'");
      return Value::Date(*days);
    }
    case ScalarKind::kDateTime: {
      if (v.is_number_integer()) {
        if (v.is_number_unsigned() &&
            v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
          return ParamError(key, "datetime " + v.dump() + " is out of range");
        }
        return Value::DateTime(v.get<int64_t>());
      }
      if (!v.is_string()) {
        return ParamError(key, "expected datetime string, got " + JsonTypeName(v));
      }
      std::optional<int64_t> ms = schema::ParseDateTime(v.get_ref<const std::string&>());
      if (!ms) return ParamError(key, "invalid DateTime literal '" + v.get<std::string>() + "'");
      return Value::DateTime(*ms);
    }
    case ScalarKind::kVector: break;
  }
  return ParamError(key, "unsupported parameter type " + type.DisplayName());
}

// A key the query does not declare is a mistake (a typo, or the wrong query), never ignored:
// all such keys are named at once, with what the query does declare.
Status CheckNoUnknownParams(const QueryDecl& decl, const Json& params) {
  if (!params.is_object()) return Status::Ok();
  std::vector<std::string> unknown;
  for (auto it = params.begin(); it != params.end(); ++it) {
    bool declared = false;
    for (const Param& p : decl.params) declared = declared || p.name.text == it.key();
    if (!declared) unknown.push_back("'" + it.key() + "'");
  }
  if (unknown.empty()) return Status::Ok();
  std::string names, declares;
  for (const std::string& u : unknown) names += (names.empty() ? "" : ", ") + u;
  for (const Param& p : decl.params) declares += (declares.empty() ? "$" : ", $") + p.name.text;
  return InvalidArgument(
      std::string(unknown.size() == 1 ? "unknown parameter " : "unknown parameters ") + names +
      " for query '" + decl.name.text + "' (it declares " +
      (declares.empty() ? "no parameters" : declares) + ")");
}

}  // namespace

Result<std::vector<Value>> BindParams(const CheckedQuery& checked, const Json& params) {
  if (!params.is_null() && !params.is_object()) {
    return InvalidArgument("params must be an object, got " + JsonTypeName(params));
  }
  std::vector<Value> out;
  const std::vector<Param>& decls = checked.decl->params;
  OMNIGRAPH_RETURN_IF_ERROR(CheckNoUnknownParams(*checked.decl, params));
  for (size_t i = 0; i < decls.size(); ++i) {
    const std::string& key = decls[i].name.text;
    const PropType& type = checked.param_types[i];
    const Json* v = nullptr;
    if (params.is_object()) {
      auto it = params.find(key);
      if (it != params.end()) v = &*it;
    }
    if (v == nullptr || v->is_null()) {
      if (!type.nullable) {
        return ParamError(key, v == nullptr ? "missing value for non-nullable parameter"
                                            : "null is not accepted for non-nullable parameter");
      }
      out.push_back(Value::Null());
      continue;
    }
    if (type.scalar == ScalarKind::kVector) {
      if (!v->is_array()) {
        return ParamError(key,
                          "expected array for " + type.DisplayName() + ", got " + JsonTypeName(*v));
      }
      if (v->size() != type.vector_dim) {
        return ParamError(key, "expected " + std::to_string(type.vector_dim) + " values for " +
                                   type.DisplayName() + ", got " + std::to_string(v->size()));
      }
      std::vector<Value> items;
      for (const Json& item : *v) {
        if (!item.is_number())
          return ParamError(key, "vector element '" + item.dump() + "' is not numeric");
        // Stored vectors are f32: an element must round to a finite one.
        const float f = static_cast<float>(item.get<double>());
        if (!std::isfinite(f)) {
          return ParamError(key, "vector element " + item.dump() + " exceeds F32 range");
        }
        items.push_back(Value::Float(f));
      }
      out.push_back(Value::List(std::move(items)));
      continue;
    }
    if (type.list) {
      if (!v->is_array()) {
        return ParamError(key,
                          "expected array for " + type.DisplayName() + ", got " + JsonTypeName(*v));
      }
      PropType element = type;
      element.list = false;
      element.nullable = false;
      std::vector<Value> items;
      for (const Json& item : *v) {
        OMNIGRAPH_ASSIGN_OR_RETURN(Value x, ScalarParam(key, item, element));
        items.push_back(std::move(x));
      }
      out.push_back(Value::List(std::move(items)));
      continue;
    }
    OMNIGRAPH_ASSIGN_OR_RETURN(Value x, ScalarParam(key, *v, type));
    out.push_back(std::move(x));
  }
  return out;
}

}  // namespace omnigraph::query
