#include "schema/keys.h"

#include <charconv>
#include <cmath>
#include <limits>

#include "base/json.h"

namespace omnigraph::schema {
namespace {

Status Mismatch(const Value& value, const PropType& type) {
  return InvalidArgument("a " + std::string(ValueTagName(value.tag())) + " value (" +
                         value.DebugString() + ") cannot be stored in a " + type.DisplayName() +
                         " key column");
}

template <typename T>
std::string ShortestFixed(T v) {
  char buf[512];  // Enough for any double in fixed notation (at most ~330 digits).
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::fixed);
  return ec == std::errc() ? std::string(buf, end) : std::string();
}

Result<std::string> FloatText(const Value& value, const PropType& type) {
  double d = 0;
  switch (value.tag()) {
    case Value::Tag::kFloat: d = value.float_value(); break;
    case Value::Tag::kInt: d = static_cast<double>(value.int_value()); break;
    case Value::Tag::kUInt: d = static_cast<double>(value.uint_value()); break;
    default: return Mismatch(value, type);
  }
  if (!std::isfinite(d)) {
    return InvalidArgument("non-finite " + std::string(ScalarKindName(type.scalar)) + " value " +
                           value.DebugString() + " cannot identify an entity");
  }
  if (type.scalar == ScalarKind::kF32) {
    auto f = static_cast<float>(d);
    if (!std::isfinite(f)) {
      return InvalidArgument("value " + value.DebugString() + " overflows F32");
    }
    if (f == 0.0f) return std::string("0");
    return ShortestFixed(f);
  }
  if (d == 0.0) return std::string("0");
  return ShortestFixed(d);
}

Result<std::string> IntegerText(const Value& value, const PropType& type) {
  bool is_signed = type.scalar == ScalarKind::kI32 || type.scalar == ScalarKind::kI64;
  bool narrow = type.scalar == ScalarKind::kI32 || type.scalar == ScalarKind::kU32;
  auto out_of_range = [&] {
    return InvalidArgument("value " + value.DebugString() + " is out of range for " +
                           std::string(ScalarKindName(type.scalar)));
  };
  if (value.tag() == Value::Tag::kInt) {
    int64_t v = value.int_value();
    if (is_signed && narrow &&
        (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max())) {
      return out_of_range();
    }
    if (!is_signed && (v < 0 || (narrow && v > std::numeric_limits<uint32_t>::max()))) {
      return out_of_range();
    }
    return std::to_string(v);
  }
  if (value.tag() == Value::Tag::kUInt) {
    uint64_t v = value.uint_value();
    uint64_t max = is_signed ? (narrow ? std::numeric_limits<int32_t>::max()
                                       : std::numeric_limits<int64_t>::max())
                             : (narrow ? std::numeric_limits<uint32_t>::max()
                                       : std::numeric_limits<uint64_t>::max());
    if (v > max) return out_of_range();
    return std::to_string(v);
  }
  return Mismatch(value, type);
}

}  // namespace

Result<std::string> CanonicalKeyText(const Value& value, const PropType& type) {
  if (value.is_null()) return InvalidArgument("a key value cannot be null");
  if (type.list || type.scalar == ScalarKind::kBlob || type.scalar == ScalarKind::kVector) {
    return InvalidArgument(type.DisplayName() + " values cannot be part of a key");
  }
  switch (type.scalar) {
    case ScalarKind::kString:
      if (value.tag() != Value::Tag::kString) return Mismatch(value, type);
      return value.string_value();
    case ScalarKind::kBool:
      if (value.tag() != Value::Tag::kBool) return Mismatch(value, type);
      return std::string(value.bool_value() ? "true" : "false");
    case ScalarKind::kI32:
    case ScalarKind::kI64:
    case ScalarKind::kU32:
    case ScalarKind::kU64: return IntegerText(value, type);
    case ScalarKind::kF32:
    case ScalarKind::kF64: return FloatText(value, type);
    case ScalarKind::kDate:
      if (value.tag() != Value::Tag::kDate) return Mismatch(value, type);
      return std::to_string(value.date_days());
    case ScalarKind::kDateTime:
      if (value.tag() != Value::Tag::kDateTime) return Mismatch(value, type);
      return std::to_string(value.datetime_ms());
    case ScalarKind::kBlob:
    case ScalarKind::kVector: break;
  }
  return InvalidArgument(type.DisplayName() + " values cannot be part of a key");
}

std::string RenderKeyTuple(std::span<const std::string> parts) {
  if (parts.size() == 1) return parts[0];
  Json array = Json::array();
  for (const std::string& p : parts) array.push_back(p);
  // Key parts come from validated UTF-8 input; replace rather than throw if one is not.
  return array.dump(-1, ' ', false, Json::error_handler_t::replace);
}

namespace {

// The key tuple of `type`: `leading` (an edge's endpoint ids), then the canonical texts of
// `key_values`, aligned with type.KeyProperties().
Result<std::string> RenderKey(const TypeDef& type, std::vector<std::string> parts,
                              std::span<const Value> key_values) {
  std::vector<const PropertyDef*> props = type.KeyProperties();
  if (type.key() == nullptr) {
    return InvalidArgument(type.table_key() + " has no @key; its ids are not derived");
  }
  if (props.size() != key_values.size()) {
    return InvalidArgument(type.table_key() + " has " + std::to_string(props.size()) +
                           " key properties, got " + std::to_string(key_values.size()) + " values");
  }
  for (size_t i = 0; i < props.size(); ++i) {
    auto text = CanonicalKeyText(key_values[i], props[i]->type);
    if (!text.ok()) {
      return text.status().WithContext("key property " + type.name + "." + props[i]->name);
    }
    parts.push_back(std::move(text).value());
  }
  return RenderKeyTuple(parts);
}

Result<std::vector<Value>> KeyValues(const TypeDef& type, const PropertyValueFn& value_of) {
  std::vector<Value> values;
  for (const PropertyDef* p : type.KeyProperties()) {
    const Value* v = value_of(*p);
    if (v == nullptr) {
      return InvalidArgument("key property " + type.name + "." + p->name + " is missing");
    }
    values.push_back(*v);
  }
  return values;
}

}  // namespace

Result<std::string> DeriveNodeId(const TypeDef& node, std::span<const Value> key_values) {
  if (node.kind == TypeKind::kEdge) {
    return InvalidArgument(node.table_key() + " is an edge type; its key names its endpoints");
  }
  return RenderKey(node, {}, key_values);
}

Result<std::string> DeriveNodeId(const TypeDef& node, const PropertyValueFn& value_of) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<Value> values, KeyValues(node, value_of));
  return DeriveNodeId(node, values);
}

bool IsKeyedEdge(const TypeDef& type) {
  return type.kind == TypeKind::kEdge && type.key() != nullptr;
}

Result<std::string> DeriveEdgeId(const TypeDef& edge, std::string_view src, std::string_view dst,
                                 std::span<const Value> key_values) {
  if (edge.kind != TypeKind::kEdge) {
    return InvalidArgument(edge.table_key() + " is not an edge type");
  }
  // Canonical key fields put the endpoints first (ir.h), src before dst.
  return RenderKey(edge, {std::string(src), std::string(dst)}, key_values);
}

Result<std::string> DeriveEdgeId(const TypeDef& edge, std::string_view src, std::string_view dst,
                                 const PropertyValueFn& value_of) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<Value> values, KeyValues(edge, value_of));
  return DeriveEdgeId(edge, src, dst, values);
}

}  // namespace omnigraph::schema
