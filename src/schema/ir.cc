#include "schema/ir.h"

#include <algorithm>
#include <charconv>

namespace omnigraph::schema {
namespace {

constexpr std::string_view kScalarNames[] = {"String", "Bool",     "I32",  "I64",
                                             "U32",    "U64",      "F32",  "F64",
                                             "Date",   "DateTime", "Blob", "Vector"};

std::string BoundText(const RangeBound& bound) {
  if (bound.is_integer) return std::to_string(bound.integer);
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), bound.floating);
  std::string text = ec == std::errc() ? std::string(buf, end) : "nan";
  // Keep a float bound recognisable as one ("1.0", not "1").
  if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
  return text;
}

}  // namespace

std::string_view TypeKindName(TypeKind kind) {
  switch (kind) {
    case TypeKind::kInterface: return "interface";
    case TypeKind::kNode: return "node";
    case TypeKind::kEdge: return "edge";
  }
  return "unknown";
}

std::string_view ScalarKindName(ScalarKind kind) { return kScalarNames[static_cast<size_t>(kind)]; }

std::optional<ScalarKind> ParseBaseTypeName(std::string_view name) {
  for (size_t i = 0; i < std::size(kScalarNames); ++i) {
    auto kind = static_cast<ScalarKind>(i);
    if (kind != ScalarKind::kVector && kScalarNames[i] == name) return kind;
  }
  return std::nullopt;
}

bool IsNumeric(ScalarKind kind) {
  switch (kind) {
    case ScalarKind::kI32:
    case ScalarKind::kI64:
    case ScalarKind::kU32:
    case ScalarKind::kU64:
    case ScalarKind::kF32:
    case ScalarKind::kF64: return true;
    default: return false;
  }
}

bool IsInteger(ScalarKind kind) {
  return IsNumeric(kind) && kind != ScalarKind::kF32 && kind != ScalarKind::kF64;
}

std::string PropType::DisplayName() const {
  std::string base;
  if (is_enum()) {
    base = "enum(";
    for (size_t i = 0; i < enum_values.size(); ++i) {
      if (i > 0) base += ", ";
      base += enum_values[i];
    }
    base += ")";
  } else if (scalar == ScalarKind::kVector) {
    base = "Vector(" + std::to_string(vector_dim) + ")";
  } else {
    base = std::string(ScalarKindName(scalar));
  }
  if (list) base = "[" + base + "]";
  if (nullable) base += "?";
  return base;
}

std::string_view ConstraintKindName(ConstraintKind kind) {
  switch (kind) {
    case ConstraintKind::kKey: return "key";
    case ConstraintKind::kUnique: return "unique";
    case ConstraintKind::kIndex: return "index";
    case ConstraintKind::kRange: return "range";
    case ConstraintKind::kCheck: return "check";
  }
  return "unknown";
}

std::string Constraint::DisplayName() const {
  std::string out = "@" + std::string(ConstraintKindName(kind)) + "(";
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out += ", ";
    out += fields[i].name;
  }
  if (kind == ConstraintKind::kRange) {
    out += ", ";
    if (min) out += BoundText(*min);
    out += "..";
    if (max) out += BoundText(*max);
  } else if (kind == ConstraintKind::kCheck) {
    out += ", \"" + pattern + "\"";
  }
  return out + ")";
}

std::string TypeDef::table_key() const { return TableKey(kind, name); }

const PropertyDef* TypeDef::FindProperty(std::string_view property_name) const {
  for (const PropertyDef& p : properties) {
    if (p.name == property_name) return &p;
  }
  for (const auto& [alias, alias_id] : property_aliases) {
    if (alias == property_name) return FindPropertyById(alias_id);
  }
  return nullptr;
}

const PropertyDef* TypeDef::FindPropertyById(uint64_t property_id) const {
  auto it = std::lower_bound(properties.begin(), properties.end(), property_id,
                             [](const PropertyDef& p, uint64_t v) { return p.id < v; });
  return it != properties.end() && it->id == property_id ? &*it : nullptr;
}

const Constraint* TypeDef::key() const {
  for (const Constraint& c : constraints) {
    if (c.kind == ConstraintKind::kKey) return &c;
  }
  return nullptr;
}

std::vector<const PropertyDef*> TypeDef::KeyProperties() const {
  std::vector<const PropertyDef*> out;
  if (const Constraint* k = key()) {
    for (const FieldRef& f : k->fields) {
      if (const PropertyDef* p = FindPropertyById(f.property_id)) out.push_back(p);
    }
  }
  return out;
}

bool TypeDef::IsKeyProperty(uint64_t property_id) const {
  const Constraint* k = key();
  if (k == nullptr) return false;
  return std::any_of(k->fields.begin(), k->fields.end(),
                     [&](const FieldRef& f) { return f.property_id == property_id; });
}

namespace {

// Edge system fields first (src before dst), then properties by id.
uint64_t FieldRank(const FieldRef& f) {
  if (!f.is_system()) return f.property_id + 2;
  return f.name == "src" ? 0 : 1;
}

std::string BoundIdentity(const std::optional<RangeBound>& b) {
  if (!b) return "";
  if (b->is_integer) return "i" + std::to_string(b->integer);
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), b->floating);
  return "f" + (ec == std::errc() ? std::string(buf, end) : std::string("?"));
}

}  // namespace

std::string ConstraintIdentity(const Constraint& c) {
  std::string out(ConstraintKindName(c.kind));
  out += ":";
  for (size_t i = 0; i < c.fields.size(); ++i) {
    if (i > 0) out += ",";
    out += c.fields[i].is_system() ? c.fields[i].name : std::to_string(c.fields[i].property_id);
  }
  if (c.kind == ConstraintKind::kRange)
    out += ":" + BoundIdentity(c.min) + ".." + BoundIdentity(c.max);
  if (c.kind == ConstraintKind::kCheck) out += ":" + c.pattern;
  return out;
}

void CanonicalizeType(TypeDef* type) {
  auto by_id = [](const auto& a, const auto& b) { return a.id < b.id; };
  std::sort(type->properties.begin(), type->properties.end(), by_id);
  std::sort(type->implements.begin(), type->implements.end(),
            [](const TypeRef& a, const TypeRef& b) { return a.type_id < b.type_id; });
  for (Constraint& c : type->constraints) {
    std::stable_sort(c.fields.begin(), c.fields.end(), [](const FieldRef& a, const FieldRef& b) {
      return FieldRank(a) < FieldRank(b);
    });
  }
  auto less = [](const Constraint& a, const Constraint& b) {
    return ConstraintIdentity(a) < ConstraintIdentity(b);
  };
  auto same = [](const Constraint& a, const Constraint& b) {
    return ConstraintIdentity(a) == ConstraintIdentity(b);
  };
  std::sort(type->constraints.begin(), type->constraints.end(), less);
  type->constraints.erase(std::unique(type->constraints.begin(), type->constraints.end(), same),
                          type->constraints.end());
  auto dedupe = [](std::vector<Annotation>* v) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  };
  dedupe(&type->metadata.other);
  for (PropertyDef& p : type->properties) dedupe(&p.metadata.other);
}

void Canonicalize(SchemaIr* ir) {
  auto by_name = [](const TypeDef& a, const TypeDef& b) { return a.name < b.name; };
  for (auto* list : {&ir->interfaces, &ir->nodes, &ir->edges}) {
    for (TypeDef& t : *list) CanonicalizeType(&t);
    std::sort(list->begin(), list->end(), by_name);
  }
  std::sort(ir->retired_types.begin(), ir->retired_types.end(),
            [](const RetiredType& a, const RetiredType& b) { return a.id < b.id; });
  std::sort(ir->retired_properties.begin(), ir->retired_properties.end(),
            [](const RetiredProperty& a, const RetiredProperty& b) { return a.id < b.id; });
}

std::string TableKey(TypeKind kind, std::string_view name) {
  return std::string(TypeKindName(kind)) + ":" + std::string(name);
}

std::string FoldCase(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace omnigraph::schema
