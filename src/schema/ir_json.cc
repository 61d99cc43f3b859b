#include "schema/ir_json.h"

#include <set>
#include <utility>

#include "base/hash.h"

namespace omnigraph::schema {
namespace {

// ---- Encoding -----------------------------------------------------------------------------

Json AnnotationJson(const Annotation& a) {
  Json j = {{"name", a.name}};
  if (a.value) j["value"] = *a.value;
  if (!a.kwargs.empty()) j["kwargs"] = a.kwargs;
  return j;
}

void PutMetadata(const Metadata& m, Json* j) {
  if (m.description) (*j)["description"] = *m.description;
  if (m.instruction) (*j)["instruction"] = *m.instruction;
  if (m.rename_from) (*j)["rename_from"] = *m.rename_from;
  if (!m.other.empty()) {
    Json list = Json::array();
    for (const Annotation& a : m.other) list.push_back(AnnotationJson(a));
    (*j)["annotations"] = std::move(list);
  }
}

Json TypeRefJson(const TypeRef& r) { return {{"type_id", r.type_id}, {"name", r.name}}; }

Json BoundJson(const RangeBound& b) { return b.is_integer ? Json(b.integer) : Json(b.floating); }

Json PropTypeJson(const PropType& t) {
  Json j = {{"scalar", ScalarKindName(t.scalar)}, {"list", t.list}, {"nullable", t.nullable}};
  if (t.is_enum()) j["enum_values"] = t.enum_values;
  if (t.scalar == ScalarKind::kVector) j["vector_dim"] = t.vector_dim;
  return j;
}

Json PropertyJson(const PropertyDef& p) {
  Json j = {{"property_id", p.id}, {"name", p.name}, {"type", PropTypeJson(p.type)}};
  if (p.embed) {
    Json e = {{"source_property_id", p.embed->source_property_id},
              {"source_property", p.embed->source_property}};
    if (p.embed->model) e["model"] = *p.embed->model;
    j["embed"] = std::move(e);
  }
  PutMetadata(p.metadata, &j);
  return j;
}

Json ConstraintJson(const Constraint& c) {
  Json fields = Json::array();
  for (const FieldRef& f : c.fields)
    fields.push_back({{"property_id", f.property_id}, {"name", f.name}});
  Json j = {{"kind", ConstraintKindName(c.kind)}, {"fields", std::move(fields)}};
  if (c.min) j["min"] = BoundJson(*c.min);
  if (c.max) j["max"] = BoundJson(*c.max);
  if (c.kind == ConstraintKind::kCheck) j["pattern"] = c.pattern;
  return j;
}

Json TypeJson(const TypeDef& t) {
  Json j = {{"kind", TypeKindName(t.kind)}, {"type_id", t.id}, {"name", t.name}};
  if (t.kind != TypeKind::kInterface) j["incarnation"] = t.incarnation;
  if (t.kind == TypeKind::kNode) {
    Json list = Json::array();
    for (const TypeRef& r : t.implements) list.push_back(TypeRefJson(r));
    j["implements"] = std::move(list);
  }
  if (t.kind == TypeKind::kEdge) {
    j["from"] = TypeRefJson(t.from);
    j["to"] = TypeRefJson(t.to);
    Json card = {{"min", t.card.min}};
    if (t.card.max) card["max"] = *t.card.max;
    j["card"] = std::move(card);
  }
  Json props = Json::array();
  for (const PropertyDef& p : t.properties) props.push_back(PropertyJson(p));
  j["properties"] = std::move(props);
  Json constraints = Json::array();
  for (const Constraint& c : t.constraints) constraints.push_back(ConstraintJson(c));
  j["constraints"] = std::move(constraints);
  PutMetadata(t.metadata, &j);
  return j;
}

// ---- Decoding -----------------------------------------------------------------------------

// Thrown inside the decoder only; IrFromJson turns it into a Status.
struct DecodeError {
  std::string message;
};

[[noreturn]] void Fail(std::string message) { throw DecodeError{std::move(message)}; }

const Json& Member(const Json& j, const char* key) {
  if (!j.is_object()) Fail(std::string("expected an object holding '") + key + "'");
  auto it = j.find(key);
  if (it == j.end()) Fail(std::string("missing member '") + key + "'");
  return *it;
}

uint64_t U64(const Json& j, const char* key) {
  const Json& v = Member(j, key);
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (!v.is_number_integer() || v.get<int64_t>() < 0) {
    Fail(std::string("'") + key + "' must be a non-negative integer");
  }
  return static_cast<uint64_t>(v.get<int64_t>());
}

uint32_t U32(const Json& j, const char* key) {
  uint64_t v = U64(j, key);
  if (v > 0xffffffffULL) Fail(std::string("'") + key + "' does not fit in 32 bits");
  return static_cast<uint32_t>(v);
}

std::string Str(const Json& j, const char* key) {
  const Json& v = Member(j, key);
  if (!v.is_string()) Fail(std::string("'") + key + "' must be a string");
  return v.get<std::string>();
}

bool Bool(const Json& j, const char* key) {
  const Json& v = Member(j, key);
  if (!v.is_boolean()) Fail(std::string("'") + key + "' must be a boolean");
  return v.get<bool>();
}

std::optional<std::string> OptStr(const Json& j, const char* key) {
  if (!j.contains(key)) return std::nullopt;
  return Str(j, key);
}

const Json& Arr(const Json& j, const char* key) {
  const Json& v = Member(j, key);
  if (!v.is_array()) Fail(std::string("'") + key + "' must be an array");
  return v;
}

Metadata MetadataFrom(const Json& j) {
  Metadata m;
  m.description = OptStr(j, "description");
  m.instruction = OptStr(j, "instruction");
  m.rename_from = OptStr(j, "rename_from");
  if (j.contains("annotations")) {
    for (const Json& a : Arr(j, "annotations")) {
      Annotation ann;
      ann.name = Str(a, "name");
      ann.value = OptStr(a, "value");
      if (a.contains("kwargs")) {
        const Json& kw = Member(a, "kwargs");
        if (!kw.is_object()) Fail("'kwargs' must be an object");
        for (const auto& [k, v] : kw.items()) {
          if (!v.is_string()) Fail("annotation keyword values must be strings");
          ann.kwargs[k] = v.get<std::string>();
        }
      }
      m.other.push_back(std::move(ann));
    }
  }
  return m;
}

TypeRef TypeRefFrom(const Json& j) { return TypeRef{U64(j, "type_id"), Str(j, "name")}; }

RangeBound BoundFrom(const Json& j) {
  RangeBound b;
  if (j.is_number_integer()) {
    if (j.is_number_unsigned() && j.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
      Fail("@range bound out of range");
    }
    b.integer = j.get<int64_t>();
  } else if (j.is_number_float()) {
    b.is_integer = false;
    b.floating = j.get<double>();
  } else {
    Fail("@range bounds must be numbers");
  }
  return b;
}

PropType PropTypeFrom(const Json& j) {
  PropType t;
  std::string scalar = Str(j, "scalar");
  if (scalar == "Vector") {
    t.scalar = ScalarKind::kVector;
    t.vector_dim = U32(j, "vector_dim");
    if (t.vector_dim == 0 || t.vector_dim > kMaxVectorDim) Fail("bad Vector dimension");
  } else {
    auto kind = ParseBaseTypeName(scalar);
    if (!kind) Fail("unknown scalar type '" + scalar + "'");
    t.scalar = *kind;
    if (j.contains("vector_dim")) Fail("'vector_dim' on a non-Vector type");
  }
  t.list = Bool(j, "list");
  t.nullable = Bool(j, "nullable");
  if (j.contains("enum_values")) {
    for (const Json& v : Arr(j, "enum_values")) {
      if (!v.is_string()) Fail("enum values must be strings");
      t.enum_values.push_back(v.get<std::string>());
    }
    if (t.enum_values.empty() || t.scalar != ScalarKind::kString) Fail("malformed enum type");
    for (size_t i = 1; i < t.enum_values.size(); ++i) {
      if (!(t.enum_values[i - 1] < t.enum_values[i])) Fail("enum values are not sorted and unique");
    }
  }
  return t;
}

PropertyDef PropertyFrom(const Json& j) {
  PropertyDef p;
  p.id = U64(j, "property_id");
  p.name = Str(j, "name");
  p.type = PropTypeFrom(Member(j, "type"));
  if (j.contains("embed")) {
    const Json& e = Member(j, "embed");
    p.embed =
        EmbedSpec{U64(e, "source_property_id"), Str(e, "source_property"), OptStr(e, "model")};
  }
  p.metadata = MetadataFrom(j);
  return p;
}

Constraint ConstraintFrom(const Json& j) {
  Constraint c;
  std::string kind = Str(j, "kind");
  bool found = false;
  for (auto k : {ConstraintKind::kKey, ConstraintKind::kUnique, ConstraintKind::kIndex,
                 ConstraintKind::kRange, ConstraintKind::kCheck}) {
    if (ConstraintKindName(k) == kind) {
      c.kind = k;
      found = true;
    }
  }
  if (!found) Fail("unknown constraint kind '" + kind + "'");
  for (const Json& f : Arr(j, "fields"))
    c.fields.push_back(FieldRef{U64(f, "property_id"), Str(f, "name")});
  if (j.contains("min")) c.min = BoundFrom(j["min"]);
  if (j.contains("max")) c.max = BoundFrom(j["max"]);
  if (c.kind == ConstraintKind::kCheck) c.pattern = Str(j, "pattern");
  return c;
}

TypeDef TypeFrom(const Json& j, TypeKind kind) {
  TypeDef t;
  t.kind = kind;
  if (Str(j, "kind") != TypeKindName(kind)) Fail("type listed under the wrong kind");
  t.id = U64(j, "type_id");
  t.name = Str(j, "name");
  if (kind != TypeKind::kInterface) t.incarnation = U64(j, "incarnation");
  if (kind == TypeKind::kNode) {
    for (const Json& r : Arr(j, "implements")) t.implements.push_back(TypeRefFrom(r));
  }
  if (kind == TypeKind::kEdge) {
    t.from = TypeRefFrom(Member(j, "from"));
    t.to = TypeRefFrom(Member(j, "to"));
    const Json& card = Member(j, "card");
    t.card.min = U32(card, "min");
    if (card.contains("max")) t.card.max = U32(card, "max");
  }
  for (const Json& p : Arr(j, "properties")) t.properties.push_back(PropertyFrom(p));
  for (const Json& c : Arr(j, "constraints")) t.constraints.push_back(ConstraintFrom(c));
  t.metadata = MetadataFrom(j);
  return t;
}

// ---- Validation ---------------------------------------------------------------------------

Status Bad(std::string message) { return Corruption("invalid schema IR: " + message); }

Status ValidateType(const SchemaIr& ir, const TypeDef& t, std::set<uint64_t>* property_ids) {
  std::string who = t.table_key();
  std::set<std::string> names;
  for (const PropertyDef& p : t.properties) {
    if (p.id == 0 || p.id >= ir.allocator.next_property_id) {
      return Bad(who + " property '" + p.name + "' has id " + std::to_string(p.id) +
                 " outside the allocated range");
    }
    if (!property_ids->insert(p.id).second) {
      return Bad("property id " + std::to_string(p.id) + " is used twice");
    }
    if (!names.insert(p.name).second)
      return Bad(who + " has two properties named '" + p.name + "'");
    if (p.embed && t.FindPropertyById(p.embed->source_property_id) == nullptr) {
      return Bad(who + "." + p.name + " embeds from an unknown property");
    }
  }
  for (const Constraint& c : t.constraints) {
    if (c.fields.empty()) return Bad(who + " has a constraint without fields");
    for (const FieldRef& f : c.fields) {
      if (f.is_system() ? !(t.kind == TypeKind::kEdge && (f.name == "src" || f.name == "dst"))
                        : t.FindPropertyById(f.property_id) == nullptr) {
        return Bad(who + " constraint references unknown field '" + f.name + "'");
      }
    }
  }
  auto is_kind = [&](uint64_t id, const std::vector<TypeDef>& list) {
    for (const TypeDef& x : list) {
      if (x.id == id) return true;
    }
    return false;
  };
  for (const TypeRef& r : t.implements) {
    if (!is_kind(r.type_id, ir.interfaces)) return Bad(who + " implements an unknown interface");
  }
  if (t.kind == TypeKind::kEdge &&
      (!is_kind(t.from.type_id, ir.nodes) || !is_kind(t.to.type_id, ir.nodes))) {
    return Bad(who + " has an endpoint that is not a node type");
  }
  return Status::Ok();
}

}  // namespace

Json IrToJson(const SchemaIr& ir) {
  Json j;
  j["ir_version"] = ir.ir_version;
  j["allocator"] = {{"next_type_id", ir.allocator.next_type_id},
                    {"next_property_id", ir.allocator.next_property_id},
                    {"next_incarnation", ir.allocator.next_incarnation}};
  auto types = [](const std::vector<TypeDef>& list) {
    Json out = Json::array();
    for (const TypeDef& t : list) out.push_back(TypeJson(t));
    return out;
  };
  j["interfaces"] = types(ir.interfaces);
  j["nodes"] = types(ir.nodes);
  j["edges"] = types(ir.edges);
  Json retired = Json::array();
  for (const RetiredType& r : ir.retired_types) {
    retired.push_back({{"kind", TypeKindName(r.kind)},
                       {"type_id", r.id},
                       {"name", r.name},
                       {"incarnation", r.incarnation}});
  }
  j["retired_types"] = std::move(retired);
  Json retired_props = Json::array();
  for (const RetiredProperty& r : ir.retired_properties) {
    retired_props.push_back({{"owner_type_id", r.owner_type_id},
                             {"owner_name", r.owner_name},
                             {"property_id", r.id},
                             {"name", r.name}});
  }
  j["retired_properties"] = std::move(retired_props);
  return j;
}

Result<SchemaIr> IrFromJson(const Json& json) {
  SchemaIr ir;
  try {
    uint64_t version = U64(json, "ir_version");
    if (version > kIrVersion) {
      return Status(Code::kFormatTooNew, "schema IR version " + std::to_string(version) +
                                             " is newer than the supported version " +
                                             std::to_string(kIrVersion));
    }
    if (version == 0) Fail("ir_version must be at least 1");
    ir.ir_version = static_cast<uint32_t>(version);
    const Json& a = Member(json, "allocator");
    ir.allocator =
        IdAllocator{U64(a, "next_type_id"), U64(a, "next_property_id"), U64(a, "next_incarnation")};
    for (const Json& t : Arr(json, "interfaces"))
      ir.interfaces.push_back(TypeFrom(t, TypeKind::kInterface));
    for (const Json& t : Arr(json, "nodes")) ir.nodes.push_back(TypeFrom(t, TypeKind::kNode));
    for (const Json& t : Arr(json, "edges")) ir.edges.push_back(TypeFrom(t, TypeKind::kEdge));
    for (const Json& r : Arr(json, "retired_types")) {
      std::string kind = Str(r, "kind");
      TypeKind k = kind == "interface" ? TypeKind::kInterface
                                       : (kind == "edge" ? TypeKind::kEdge : TypeKind::kNode);
      if (TypeKindName(k) != kind) Fail("unknown retired type kind '" + kind + "'");
      ir.retired_types.push_back(
          RetiredType{k, U64(r, "type_id"), Str(r, "name"), U64(r, "incarnation")});
    }
    for (const Json& r : Arr(json, "retired_properties")) {
      ir.retired_properties.push_back(RetiredProperty{U64(r, "owner_type_id"), Str(r, "owner_name"),
                                                      U64(r, "property_id"), Str(r, "name")});
    }
  } catch (const DecodeError& e) {
    return Bad(e.message);
  } catch (const Json::exception& e) {
    return Bad(e.what());
  }
  Canonicalize(&ir);
  OMNIGRAPH_RETURN_IF_ERROR(ValidateIr(ir));
  return ir;
}

Status ValidateIr(const SchemaIr& ir) {
  const IdAllocator& alloc = ir.allocator;
  if (alloc.next_type_id == 0 || alloc.next_property_id == 0 || alloc.next_incarnation == 0) {
    return Bad("allocator marks must be nonzero");
  }
  std::set<uint64_t> type_ids;
  std::set<uint64_t> incarnations;
  std::set<std::string> names;
  auto check_type = [&](TypeKind kind, uint64_t id, uint64_t incarnation,
                        const std::string& name) -> Status {
    std::string who = TableKey(kind, name);
    if (id == 0 || id >= alloc.next_type_id)
      return Bad(who + " has a type id outside the allocated range");
    if (!type_ids.insert(id).second) return Bad("type id " + std::to_string(id) + " is used twice");
    if (kind == TypeKind::kInterface) return Status::Ok();
    if (incarnation == 0 || incarnation >= alloc.next_incarnation) {
      return Bad(who + " has an incarnation outside the allocated range");
    }
    if (!incarnations.insert(incarnation).second) {
      return Bad("table incarnation " + std::to_string(incarnation) + " is used twice");
    }
    return Status::Ok();
  };
  std::set<uint64_t> property_ids;
  for (const auto* list : {&ir.interfaces, &ir.nodes, &ir.edges}) {
    for (const TypeDef& t : *list) {
      OMNIGRAPH_RETURN_IF_ERROR(check_type(t.kind, t.id, t.incarnation, t.name));
      if (!names.insert(t.name).second) return Bad("type name '" + t.name + "' is used twice");
      OMNIGRAPH_RETURN_IF_ERROR(ValidateType(ir, t, &property_ids));
    }
  }
  for (const RetiredType& r : ir.retired_types) {
    OMNIGRAPH_RETURN_IF_ERROR(check_type(r.kind, r.id, r.incarnation, r.name));
  }
  for (const RetiredProperty& r : ir.retired_properties) {
    if (r.id == 0 || r.id >= alloc.next_property_id || !property_ids.insert(r.id).second) {
      return Bad("retired property id " + std::to_string(r.id) + " is invalid or reused");
    }
  }
  return Status::Ok();
}

std::string IrCanonicalJson(const SchemaIr& ir) { return CanonicalJson(IrToJson(ir)); }

std::string IrHash(const SchemaIr& ir) { return "sha256:" + Sha256Hex(IrCanonicalJson(ir)); }

Json PlanPropTypeJson(const PropType& type) {
  Json scalar = type.scalar == ScalarKind::kVector ? Json{{"Vector", type.vector_dim}}
                                                   : Json(ScalarKindName(type.scalar));
  return {{"scalar", std::move(scalar)},
          {"nullable", type.nullable},
          {"list", type.list},
          {"enum_values", type.is_enum() ? Json(type.enum_values) : Json(nullptr)}};
}

}  // namespace omnigraph::schema
