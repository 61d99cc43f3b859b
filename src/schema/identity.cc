#include "schema/identity.h"

#include <limits>
#include <map>
#include <set>
#include <utility>

#include "schema/parser.h"

namespace omnigraph::schema {
namespace {

Result<uint64_t> Allocate(uint64_t* next, std::string_view family) {
  if (*next == 0 || *next == std::numeric_limits<uint64_t>::max()) {
    return Internal("the " + std::string(family) + " allocator is exhausted");
  }
  return (*next)++;
}

std::string Entity(TypeKind kind, std::string_view name) {
  return std::string(TypeKindName(kind)) + " '" + std::string(name) + "'";
}

class Resolver {
 public:
  Resolver(const SchemaIr* accepted, const CheckedSchema& desired)
      : accepted_(accepted), desired_(desired) {
    if (accepted_ != nullptr) {
      alloc_ = accepted_->allocator;
      for (const auto* list : {&accepted_->interfaces, &accepted_->nodes, &accepted_->edges}) {
        for (const TypeDef& t : *list) accepted_types_.push_back(&t);
      }
    }
  }

  Result<SchemaIr> Run();

 private:
  Status MatchTypes();
  Status MatchProperties(size_t index);
  Result<TypeDef> Build(size_t index);
  Result<uint64_t> TypeIdOf(std::string_view name) const;

  const SchemaIr* accepted_;
  const CheckedSchema& desired_;
  IdAllocator alloc_;
  std::vector<const TypeDef*> accepted_types_;
  // Per desired type (source order): the accepted type it continues, or null.
  std::vector<const TypeDef*> matched_;
  std::vector<uint64_t> type_ids_;
  std::vector<uint64_t> incarnations_;
  // Per desired type, per property (declaration order): its id.
  std::vector<std::vector<uint64_t>> property_ids_;
  std::set<uint64_t> consumed_types_;
  std::set<uint64_t> consumed_properties_;
};

Status Resolver::MatchTypes() {
  size_t n = desired_.types.size();
  matched_.assign(n, nullptr);
  // Exact (kind, name) matches first, so a hint can never steal an exactly matched type.
  for (size_t i = 0; i < n; ++i) {
    const TypeDef& d = desired_.types[i].def;
    for (const TypeDef* a : accepted_types_) {
      if (a->kind == d.kind && a->name == d.name) {
        matched_[i] = a;
        consumed_types_.insert(a->id);
      }
    }
  }
  for (size_t i = 0; i < n; ++i) {
    const CheckedType& ct = desired_.types[i];
    const auto& hint = ct.def.metadata.rename_from;
    if (matched_[i] != nullptr || !hint || accepted_ == nullptr) continue;
    const TypeDef* same_kind = nullptr;
    bool any = false;
    for (const TypeDef* a : accepted_types_) {
      if (a->name != *hint) continue;
      any = true;
      if (a->kind == ct.def.kind) same_kind = a;
    }
    std::string who = Entity(ct.def.kind, ct.def.name);
    if (!any) {
      return SchemaError(ct.rename_pos, who + " declares @rename_from(\"" + *hint +
                                            "\") but no accepted declaration has that name");
    }
    if (same_kind == nullptr) {
      return SchemaError(ct.rename_pos,
                         who + " cannot rename accepted '" + *hint + "' across declaration kinds");
    }
    if (!consumed_types_.insert(same_kind->id).second) {
      return SchemaError(ct.rename_pos, "accepted " + Entity(same_kind->kind, same_kind->name) +
                                            " is consumed by more than one desired declaration");
    }
    matched_[i] = same_kind;
  }
  type_ids_.resize(n);
  incarnations_.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    if (matched_[i] != nullptr) {
      type_ids_[i] = matched_[i]->id;
      incarnations_[i] = matched_[i]->incarnation;
    } else {
      OMNIGRAPH_ASSIGN_OR_RETURN(type_ids_[i], Allocate(&alloc_.next_type_id, "type id"));
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (matched_[i] == nullptr && desired_.types[i].def.kind != TypeKind::kInterface) {
      OMNIGRAPH_ASSIGN_OR_RETURN(incarnations_[i],
                                 Allocate(&alloc_.next_incarnation, "table incarnation"));
    }
  }
  return Status::Ok();
}

Status Resolver::MatchProperties(size_t index) {
  const CheckedType& ct = desired_.types[index];
  const TypeDef* owner = matched_[index];
  std::vector<uint64_t>& ids = property_ids_[index];
  ids.assign(ct.properties.size(), 0);
  if (owner != nullptr) {
    for (size_t j = 0; j < ct.properties.size(); ++j) {
      if (const PropertyDef* p = owner->FindProperty(ct.properties[j].def.name)) {
        ids[j] = p->id;
        consumed_properties_.insert(p->id);
      }
    }
  }
  for (size_t j = 0; j < ct.properties.size(); ++j) {
    const CheckedProperty& cp = ct.properties[j];
    const auto& hint = cp.def.metadata.rename_from;
    if (ids[j] != 0 || !hint || accepted_ == nullptr) continue;
    std::string who = "property '" + ct.def.name + "." + cp.def.name + "'";
    if (owner == nullptr) {
      return SchemaError(cp.rename_pos, "new owner '" + TableKey(ct.def.kind, ct.def.name) +
                                            "' cannot import property identity with "
                                            "@rename_from(\"" +
                                            *hint + "\")");
    }
    const PropertyDef* source = owner->FindProperty(*hint);
    if (source == nullptr) {
      bool elsewhere = false;
      for (const TypeDef* a : accepted_types_) {
        if (a->id != owner->id && a->FindProperty(*hint) != nullptr) elsewhere = true;
      }
      return SchemaError(cp.rename_pos,
                         who + " declares @rename_from(\"" + *hint + "\"): " +
                             (elsewhere ? "property moves across stable owners are not supported"
                                        : "no accepted property with that name exists under the "
                                          "stable owner"));
    }
    if (!consumed_properties_.insert(source->id).second) {
      return SchemaError(cp.rename_pos, "accepted property '" + owner->name + "." + source->name +
                                            "' is consumed by more than one desired property");
    }
    ids[j] = source->id;
  }
  return Status::Ok();
}

Result<uint64_t> Resolver::TypeIdOf(std::string_view name) const {
  for (size_t i = 0; i < desired_.types.size(); ++i) {
    if (desired_.types[i].def.name == name) return type_ids_[i];
  }
  return Internal("checked schema names unknown type '" + std::string(name) + "'");
}

Result<TypeDef> Resolver::Build(size_t index) {
  const CheckedType& ct = desired_.types[index];
  TypeDef t = ct.def;
  t.id = type_ids_[index];
  t.incarnation = incarnations_[index];
  for (TypeRef& r : t.implements) {
    OMNIGRAPH_ASSIGN_OR_RETURN(r.type_id, TypeIdOf(r.name));
  }
  if (t.kind == TypeKind::kEdge) {
    OMNIGRAPH_ASSIGN_OR_RETURN(t.from.type_id, TypeIdOf(t.from.name));
    OMNIGRAPH_ASSIGN_OR_RETURN(t.to.type_id, TypeIdOf(t.to.name));
  }
  std::map<std::string, uint64_t, std::less<>> ids;
  for (size_t j = 0; j < ct.properties.size(); ++j) {
    PropertyDef p = ct.properties[j].def;
    p.id = property_ids_[index][j];
    ids[p.name] = p.id;
    t.properties.push_back(std::move(p));
  }
  for (PropertyDef& p : t.properties) {
    if (p.embed) p.embed->source_property_id = ids[p.embed->source_property];
  }
  for (Constraint& c : t.constraints) {
    for (FieldRef& f : c.fields) {
      // Checking names an edge endpoint `@src`/`@dst`, which no property is called; the IR
      // names it `src`/`dst` with property id 0.
      if (f.name == "@src" || f.name == "@dst") {
        f.name.erase(0, 1);
        f.property_id = 0;
        continue;
      }
      auto it = ids.find(f.name);
      f.property_id = it == ids.end() ? 0 : it->second;
    }
  }
  CanonicalizeType(&t);
  return t;
}

Result<SchemaIr> Resolver::Run() {
  OMNIGRAPH_RETURN_IF_ERROR(MatchTypes());
  property_ids_.resize(desired_.types.size());
  for (size_t i = 0; i < desired_.types.size(); ++i) {
    OMNIGRAPH_RETURN_IF_ERROR(MatchProperties(i));
  }
  // New properties get ids in source order, after every match is known.
  for (size_t i = 0; i < desired_.types.size(); ++i) {
    for (uint64_t& id : property_ids_[i]) {
      if (id == 0) {
        OMNIGRAPH_ASSIGN_OR_RETURN(id, Allocate(&alloc_.next_property_id, "property id"));
      }
    }
  }
  SchemaIr ir;
  ir.allocator = alloc_;
  for (size_t i = 0; i < desired_.types.size(); ++i) {
    OMNIGRAPH_ASSIGN_OR_RETURN(TypeDef t, Build(i));
    switch (t.kind) {
      case TypeKind::kInterface: ir.interfaces.push_back(std::move(t)); break;
      case TypeKind::kNode: ir.nodes.push_back(std::move(t)); break;
      case TypeKind::kEdge: ir.edges.push_back(std::move(t)); break;
    }
  }
  if (accepted_ != nullptr) {
    ir.retired_types = accepted_->retired_types;
    ir.retired_properties = accepted_->retired_properties;
    for (const TypeDef* a : accepted_types_) {
      if (!consumed_types_.contains(a->id)) {
        ir.retired_types.push_back(RetiredType{a->kind, a->id, a->name, a->incarnation});
        continue;
      }
      for (const PropertyDef& p : a->properties) {
        if (!consumed_properties_.contains(p.id)) {
          ir.retired_properties.push_back(RetiredProperty{a->id, a->name, p.id, p.name});
        }
      }
    }
  }
  Canonicalize(&ir);
  return ir;
}

}  // namespace

Result<SchemaIr> BuildInitialIr(const CheckedSchema& schema) {
  Resolver resolver(nullptr, schema);
  return resolver.Run();
}

Result<SchemaIr> AcceptInitial(std::string_view source) {
  OMNIGRAPH_ASSIGN_OR_RETURN(CheckedSchema schema, ParseSchema(source));
  return BuildInitialIr(schema);
}

Result<SchemaIr> ResolveIdentity(const SchemaIr& accepted, const CheckedSchema& desired) {
  Resolver resolver(&accepted, desired);
  return resolver.Run();
}

}  // namespace omnigraph::schema
