#include "schema/validate.h"

#include <re2/re2.h>

#include <algorithm>
#include <map>
#include <set>

#include "schema/parser.h"

namespace omnigraph::schema {
namespace {

constexpr std::string_view kStorageReserved[] = {
    "_rowid", "_rowaddr", "_rowoffset", "_row_created_at_version", "_row_last_updated_at_version"};

bool IsConstraintAnnotation(std::string_view n) {
  return n == "key" || n == "unique" || n == "index";
}

std::string Owner(const AstType& t) {
  return std::string(TypeKindName(t.kind)) + " " + t.name.name;
}

// Reads one string-valued metadata annotation (description, instruction, rename_from).
Status TakeStringAnnotation(const AstAnnotation& a, std::string_view target,
                            std::optional<std::string>* slot) {
  const std::string& name = a.annotation.name;
  if (slot->has_value()) {
    return SchemaError(a.pos, std::string(target) + " declares @" + name + " multiple times");
  }
  const auto& value = a.annotation.value;
  if (!value || value->find_first_not_of(" \t\r\n") == std::string::npos) {
    return SchemaError(a.pos, "@" + name + " on " + std::string(target) +
                                  " requires a non-empty value, e.g. @" + name + "(\"...\")");
  }
  if (!a.annotation.kwargs.empty()) {
    return SchemaError(
        a.pos, "@" + name + " on " + std::string(target) + " does not accept keyword arguments");
  }
  *slot = value;
  return Status::Ok();
}

// Type-level annotations of a node or edge (interfaces have none).
Status CheckTypeAnnotations(const AstType& t, CheckedType* out) {
  std::string target = Owner(t);
  Metadata& m = out->def.metadata;
  for (const AstAnnotation& a : t.annotations) {
    const std::string& n = a.annotation.name;
    if (IsConstraintAnnotation(n) || n == "embed") {
      if (t.kind == TypeKind::kEdge) {
        return SchemaError(a.pos, "@" + n + " is not supported on edges (" + target + ")");
      }
      return SchemaError(a.pos, "@" + n +
                                    " is only supported on node properties or as a body "
                                    "constraint (" +
                                    target + ")");
    }
    if (n == "card") return SchemaError(a.pos, "@card is only supported on edges (" + target + ")");
    if (n == "description") {
      OMNIGRAPH_RETURN_IF_ERROR(TakeStringAnnotation(a, target, &m.description));
    } else if (n == "instruction") {
      OMNIGRAPH_RETURN_IF_ERROR(TakeStringAnnotation(a, target, &m.instruction));
    } else if (n == "rename_from") {
      OMNIGRAPH_RETURN_IF_ERROR(TakeStringAnnotation(a, target, &m.rename_from));
      out->rename_pos = a.pos;
    } else {
      m.other.push_back(a.annotation);
    }
  }
  return Status::Ok();
}

// Property-level annotations; property-level @key/@unique/@index become constraints.
Status CheckPropertyAnnotations(const AstType& t, const AstProperty& p,
                                const std::vector<AstProperty>& all, CheckedProperty* out,
                                std::vector<AstConstraint>* constraints) {
  std::string target = "property " + t.name.name + "." + p.name.name;
  std::string where = t.name.name + "." + p.name.name;
  bool is_edge = t.kind == TypeKind::kEdge;
  bool is_vector = p.type.scalar == ScalarKind::kVector;
  bool is_blob = p.type.scalar == ScalarKind::kBlob;
  std::set<std::string> seen;
  Metadata& m = out->def.metadata;
  for (const AstAnnotation& a : p.annotations) {
    const std::string& n = a.annotation.name;
    bool structural = IsConstraintAnnotation(n) || n == "embed";
    if (structural && !seen.insert(n).second) {
      return SchemaError(a.pos, "property " + where + " declares @" + n + " multiple times");
    }
    if (structural && p.type.list) {
      return SchemaError(a.pos, "@" + n + " is not supported on list property " + where);
    }
    if (is_vector && (n == "key" || n == "unique")) {
      return SchemaError(a.pos, "@" + n + " is not supported on vector property " + where);
    }
    if (is_blob && structural) {
      return SchemaError(a.pos, "@" + n + " is not supported on blob property " + where);
    }
    if (is_edge && n == "embed") {
      return SchemaError(a.pos, "@embed is not supported on edge properties (edge " + where + ")");
    }
    if (is_edge && n == "key") {
      return SchemaError(a.pos, "@key is not supported on edge properties (edge " + where +
                                    "); an edge key names its endpoints: @key(@src, @dst, " +
                                    p.name.name + ")");
    }
    if (IsConstraintAnnotation(n)) {
      AstConstraint c;
      c.kind = n == "key" ? ConstraintKind::kKey
                          : (n == "unique" ? ConstraintKind::kUnique : ConstraintKind::kIndex);
      c.pos = a.pos;
      c.fields.push_back(AstName{p.name.name, a.pos});
      constraints->push_back(std::move(c));
    } else if (n == "embed") {
      if (!is_vector) {
        return SchemaError(a.pos, "@embed is only supported on vector properties (" + where + ")");
      }
      const auto& source = a.annotation.value;
      if (!source || source->empty()) {
        return SchemaError(a.pos, "@embed on " + where + " requires a source property name");
      }
      auto it = std::find_if(all.begin(), all.end(),
                             [&](const AstProperty& q) { return q.name.name == *source; });
      if (it == all.end()) {
        return SchemaError(a.pos,
                           "@embed on " + where + " references unknown source property " + *source);
      }
      if (it->type.list || it->type.scalar != ScalarKind::kString) {
        return SchemaError(a.pos, "@embed source property " + t.name.name + "." + *source +
                                      " must be String, got " + it->type.DisplayName());
      }
      for (const auto& [key, value] : a.annotation.kwargs) {
        if (key != "model") {
          return SchemaError(a.pos, "@embed on " + where + " has unknown argument '" + key +
                                        "=' (only 'model' is supported)");
        }
      }
      EmbedSpec spec;
      spec.source_property = *source;
      auto model = a.annotation.kwargs.find("model");
      if (model != a.annotation.kwargs.end()) spec.model = model->second;
      out->def.embed = std::move(spec);
    } else if (n == "instruction") {
      return SchemaError(a.pos,
                         "@instruction is only supported on node and edge types (" + target + ")");
    } else if (n == "description") {
      OMNIGRAPH_RETURN_IF_ERROR(TakeStringAnnotation(a, target, &m.description));
    } else if (n == "rename_from") {
      OMNIGRAPH_RETURN_IF_ERROR(TakeStringAnnotation(a, target, &m.rename_from));
      out->rename_pos = a.pos;
    } else {
      m.other.push_back(a.annotation);
    }
  }
  std::sort(m.other.begin(), m.other.end());
  m.other.erase(std::unique(m.other.begin(), m.other.end()), m.other.end());
  return Status::Ok();
}

Status CheckPropertyName(const AstName& name) {
  for (std::string_view r : kStorageReserved) {
    if (name.name == r) {
      return SchemaError(
          name.pos, "property name '" + name.name + "' is reserved for a storage system column");
    }
  }
  return Status::Ok();
}

// The effective properties of `t`: its own, then those injected from its interfaces.
Result<std::vector<AstProperty>> EffectiveProperties(
    const AstType& t, const std::map<std::string, const AstType*>& interfaces) {
  std::vector<AstProperty> props = t.properties;
  std::set<std::string> implemented;
  for (const AstName& iface_name : t.implements) {
    auto it = interfaces.find(iface_name.name);
    if (it == interfaces.end()) {
      return SchemaError(iface_name.pos, "node " + t.name.name + " implements unknown interface '" +
                                             iface_name.name + "'");
    }
    if (!implemented.insert(iface_name.name).second) {
      return SchemaError(iface_name.pos, "node " + t.name.name + " implements interface '" +
                                             iface_name.name + "' more than once");
    }
    for (const AstProperty& ip : it->second->properties) {
      auto existing = std::find_if(props.begin(), props.end(), [&](const AstProperty& p) {
        return p.name.name == ip.name.name;
      });
      if (existing == props.end()) {
        props.push_back(ip);
      } else if (!(existing->type == ip.type)) {
        return SchemaError(existing->name.pos,
                           "node " + t.name.name + " property '" + ip.name.name + "' has type " +
                               existing->type.DisplayName() + " but interface " + iface_name.name +
                               " declares it as " + ip.type.DisplayName());
      }
    }
  }
  return props;
}

// The edge endpoint a constraint field names, or nullopt for a property: `@src`/`@dst` always;
// a plain `src`/`dst` (the 0.10 spelling) unless the edge declares a property of that name.
std::optional<std::string> SystemField(const AstType& t, const AstName& f,
                                       const std::vector<AstProperty>& props) {
  if (t.kind != TypeKind::kEdge) return std::nullopt;
  if (f.name == "@src" || f.name == "@dst") return f.name;
  if (f.name != "src" && f.name != "dst") return std::nullopt;
  bool is_property = std::any_of(props.begin(), props.end(),
                                 [&](const AstProperty& p) { return p.name.name == f.name; });
  if (is_property) return std::nullopt;
  return "@" + f.name;
}

// The rules of one @key: at most one per type; on an edge it names both endpoints.
Status CheckKeyShape(const AstType& t, const AstConstraint& c, const Constraint& checked,
                     bool* has_key) {
  if (*has_key) {
    return SchemaError(c.pos, std::string(TypeKindName(t.kind)) + " type " + t.name.name +
                                  " has multiple @key constraints; only one is supported (use "
                                  "@key(a, b) for a composite key)");
  }
  *has_key = true;
  if (t.kind != TypeKind::kEdge) return Status::Ok();
  auto names = [&](std::string_view endpoint) {
    return std::any_of(checked.fields.begin(), checked.fields.end(),
                       [&](const FieldRef& f) { return f.name == endpoint; });
  };
  if (!names("@src") || !names("@dst")) {
    return SchemaError(c.pos, "@key on edge " + t.name.name +
                                  " must name both endpoints, e.g. @key(@src, @dst) or "
                                  "@key(@src, @dst, property)");
  }
  return Status::Ok();
}

// The property types a constraint of `kind` accepts on the property `where` (Type.prop).
Status CheckFieldType(ConstraintKind kind_of, const PropType& type, const std::string& where,
                      SourcePos pos) {
  std::string kind(ConstraintKindName(kind_of));
  switch (kind_of) {
    case ConstraintKind::kKey:
      if (type.nullable) return SchemaError(pos, "@key property " + where + " cannot be nullable");
      if (type.list) return SchemaError(pos, "@key is not supported on list property " + where);
      if (type.scalar == ScalarKind::kVector) {
        return SchemaError(pos, "@key is not supported on vector property " + where);
      }
      [[fallthrough]];
    case ConstraintKind::kUnique:
    case ConstraintKind::kIndex:
      if (type.scalar == ScalarKind::kBlob) {
        return SchemaError(pos, "@" + kind + " is not supported on blob property " + where);
      }
      break;
    case ConstraintKind::kRange:
      if (!IsNumeric(type.scalar) || type.list) {
        return SchemaError(
            pos, "@range on " + where + " requires a numeric type, got " + type.DisplayName());
      }
      break;
    case ConstraintKind::kCheck:
      if (type.scalar != ScalarKind::kString || type.list) {
        return SchemaError(
            pos, "@check on " + where + " requires String type, got " + type.DisplayName());
      }
      break;
  }
  return Status::Ok();
}

Status CheckConstraint(const AstType& t, const AstConstraint& c,
                       const std::vector<AstProperty>& props, bool* has_key, Constraint* out) {
  std::string kind(ConstraintKindName(c.kind));
  bool is_edge = t.kind == TypeKind::kEdge;
  if (is_edge && c.kind != ConstraintKind::kUnique && c.kind != ConstraintKind::kIndex &&
      c.kind != ConstraintKind::kKey) {
    return SchemaError(c.pos, "@" + kind + " constraint is not supported on edges (edge " +
                                  t.name.name +
                                  "); edge bodies allow only @key, @unique and @index");
  }
  out->kind = c.kind;
  std::set<std::string> seen;
  for (const AstName& f : c.fields) {
    std::optional<std::string> system = SystemField(t, f, props);
    if (!system && (f.name == "@src" || f.name == "@dst")) {
      return SchemaError(f.pos, f.name + " names an edge endpoint; " + Owner(t) + " has none");
    }
    const std::string& name = system ? *system : f.name;
    if (!seen.insert(name).second) {
      return SchemaError(f.pos, "@" + kind + " on " + t.name.name + " lists " +
                                    (system ? "endpoint " : "property ") + "'" + name +
                                    "' more than once");
    }
    out->fields.push_back(FieldRef{0, name});
    if (system) continue;
    auto it = std::find_if(props.begin(), props.end(),
                           [&](const AstProperty& p) { return p.name.name == f.name; });
    if (it == props.end()) {
      return SchemaError(f.pos, "@" + kind + " on " + t.name.name +
                                    " references unknown property '" + f.name + "'");
    }
    OMNIGRAPH_RETURN_IF_ERROR(CheckFieldType(c.kind, it->type, t.name.name + "." + f.name, f.pos));
  }
  if (c.kind == ConstraintKind::kKey) {
    OMNIGRAPH_RETURN_IF_ERROR(CheckKeyShape(t, c, *out, has_key));
  }
  out->min = c.min;
  out->max = c.max;
  out->pattern = c.pattern;
  if (c.kind == ConstraintKind::kRange && c.min && c.max && c.min->AsDouble() > c.max->AsDouble()) {
    return SchemaError(c.pos, "@range on " + t.name.name + "." + c.fields[0].name + " has min " +
                                  "greater than max: " + out->DisplayName());
  }
  if (c.kind == ConstraintKind::kCheck) {
    RE2 re(c.pattern, RE2::Quiet);
    if (!re.ok()) {
      return SchemaError(c.pattern_pos, "@check on " + t.name.name + "." + c.fields[0].name +
                                            " has an invalid regular expression: " + re.error());
    }
  }
  return Status::Ok();
}

Status CheckNames(const SchemaAst& ast) {
  std::map<std::string, const AstType*> by_name;
  std::map<std::string, const AstType*> edges_folded;
  for (const AstType& t : ast.decls) {
    auto [it, fresh] = by_name.emplace(t.name.name, &t);
    if (!fresh) {
      return SchemaError(t.name.pos, "duplicate type name '" + t.name.name +
                                         "': already declared as " +
                                         std::string(TypeKindName(it->second->kind)) + " at line " +
                                         std::to_string(it->second->name.pos.line));
    }
    if (t.kind != TypeKind::kEdge) continue;
    auto [fit, ffresh] = edges_folded.emplace(FoldCase(t.name.name), &t);
    if (!ffresh) {
      return SchemaError(t.name.pos, "edge name collision after case folding: '" + t.name.name +
                                         "' conflicts with '" + fit->second->name.name +
                                         "' (edge names are looked up case-insensitively)");
    }
  }
  for (const AstType& t : ast.decls) {
    if (t.kind != TypeKind::kEdge) continue;
    for (const AstName* end : {&t.from, &t.to}) {
      const char* role = end == &t.from ? "source" : "target";
      auto it = by_name.find(end->name);
      if (it == by_name.end()) {
        return SchemaError(end->pos, "edge " + t.name.name + " references unknown " + role +
                                         " type: " + end->name);
      }
      if (it->second->kind != TypeKind::kNode) {
        return SchemaError(end->pos, "edge " + t.name.name + " " + role + " type " + end->name +
                                         " is " + std::string(TypeKindName(it->second->kind)) +
                                         ", not a node type");
      }
    }
  }
  return Status::Ok();
}

Result<CheckedType> CheckType(const AstType& t,
                              const std::map<std::string, const AstType*>& interfaces) {
  CheckedType out;
  out.pos = t.name.pos;
  out.def.kind = t.kind;
  out.def.name = t.name.name;
  if (t.kind != TypeKind::kInterface) OMNIGRAPH_RETURN_IF_ERROR(CheckTypeAnnotations(t, &out));
  for (const AstName& i : t.implements) out.def.implements.push_back(TypeRef{0, i.name});
  if (t.kind == TypeKind::kEdge) {
    out.def.from = TypeRef{0, t.from.name};
    out.def.to = TypeRef{0, t.to.name};
    out.def.card = t.card.value_or(Cardinality{});
  }
  std::set<std::string> names;
  for (const AstProperty& p : t.properties) {
    OMNIGRAPH_RETURN_IF_ERROR(CheckPropertyName(p.name));
    if (!names.insert(p.name.name).second) {
      return SchemaError(p.name.pos, "duplicate property '" + p.name.name + "' in " + Owner(t));
    }
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<AstProperty> props, EffectiveProperties(t, interfaces));
  std::vector<AstConstraint> constraints;
  for (size_t i = 0; i < props.size(); ++i) {
    CheckedProperty cp;
    cp.def.name = props[i].name.name;
    cp.def.type = props[i].type;
    cp.pos = props[i].name.pos;
    cp.injected = i >= t.properties.size();
    OMNIGRAPH_RETURN_IF_ERROR(CheckPropertyAnnotations(t, props[i], props, &cp, &constraints));
    out.properties.push_back(std::move(cp));
  }
  if (t.kind == TypeKind::kInterface) return out;
  constraints.insert(constraints.end(), t.constraints.begin(), t.constraints.end());
  bool has_key = false;
  for (const AstConstraint& c : constraints) {
    Constraint checked;
    OMNIGRAPH_RETURN_IF_ERROR(CheckConstraint(t, c, props, &has_key, &checked));
    out.def.constraints.push_back(std::move(checked));
  }
  return out;
}

}  // namespace

Result<CheckedSchema> CheckSchema(const SchemaAst& ast) {
  OMNIGRAPH_RETURN_IF_ERROR(CheckNames(ast));
  std::map<std::string, const AstType*> interfaces;
  for (const AstType& t : ast.decls) {
    if (t.kind == TypeKind::kInterface) interfaces.emplace(t.name.name, &t);
  }
  CheckedSchema out;
  for (const AstType& t : ast.decls) {
    OMNIGRAPH_ASSIGN_OR_RETURN(CheckedType checked, CheckType(t, interfaces));
    out.types.push_back(std::move(checked));
  }
  return out;
}

Result<CheckedSchema> ParseSchema(std::string_view source) {
  OMNIGRAPH_ASSIGN_OR_RETURN(SchemaAst ast, ParseSchemaSyntax(source));
  return CheckSchema(ast);
}

}  // namespace omnigraph::schema
