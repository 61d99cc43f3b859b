#include "schema/planner.h"

#include <map>
#include <set>
#include <utility>

#include "schema/identity.h"
#include "schema/ir_json.h"
#include "schema/validate.h"

namespace omnigraph::schema {
namespace {

constexpr std::string_view kV1 = " is not supported in schema migration v1";

class MigrationPlanner {
 public:
  MigrationPlanner(const PlanOptions& options, std::vector<MigrationStep>* steps)
      : options_(options), steps_(*steps) {}

  void Types(TypeKind kind, const std::vector<TypeDef>& accepted,
             const std::vector<TypeDef>& desired);

 private:
  void Unsupported(std::string entity, std::string reason,
                   std::optional<std::string_view> code = std::nullopt);
  void Type(const TypeDef& a, const TypeDef& d);
  void Properties(const TypeDef& a, const TypeDef& d);
  void Property(const TypeDef& d, const PropertyDef& ap, const PropertyDef& dp);
  void Constraints(const TypeDef& a, const TypeDef& d);
  // Appends update_*_metadata or an unsupported step when metadata changed.
  void MetadataChange(const Metadata& a, const Metadata& d, const TypeDef& owner,
                      const PropertyDef* property);

  const PlanOptions& options_;
  std::vector<MigrationStep>& steps_;
};

std::string PropEntity(const TypeDef& t, std::string_view prop) {
  return t.table_key() + "." + std::string(prop);
}

std::vector<Annotation> MetadataAnnotations(const Metadata& m) {
  std::vector<Annotation> out;
  if (m.description) out.push_back(Annotation{"description", m.description, {}});
  if (m.instruction) out.push_back(Annotation{"instruction", m.instruction, {}});
  return out;
}

// The values `desired` adds when it is a pure widening of the enum `accepted`, else nullopt.
std::optional<std::vector<std::string>> EnumWidening(const PropType& accepted,
                                                     const PropType& desired) {
  if (!accepted.is_enum() || !desired.is_enum() || accepted.scalar != desired.scalar ||
      accepted.list != desired.list || accepted.nullable != desired.nullable ||
      accepted.enum_values == desired.enum_values) {
    return std::nullopt;
  }
  std::set<std::string> have(desired.enum_values.begin(), desired.enum_values.end());
  for (const std::string& v : accepted.enum_values) {
    if (!have.contains(v)) return std::nullopt;  // Narrowing or a renamed value.
  }
  std::set<std::string> old(accepted.enum_values.begin(), accepted.enum_values.end());
  std::vector<std::string> added;
  for (const std::string& v : desired.enum_values) {
    if (!old.contains(v)) added.push_back(v);
  }
  return added;
}

void MigrationPlanner::Unsupported(std::string entity, std::string reason,
                                   std::optional<std::string_view> code) {
  MigrationStep s;
  s.kind = StepKind::kUnsupportedChange;
  s.entity = std::move(entity);
  s.reason = std::move(reason);
  if (code) s.code = std::string(*code);
  steps_.push_back(std::move(s));
}

void MigrationPlanner::Types(TypeKind kind, const std::vector<TypeDef>& accepted,
                             const std::vector<TypeDef>& desired) {
  std::map<uint64_t, const TypeDef*> by_id;
  for (const TypeDef& a : accepted) by_id[a.id] = &a;
  std::set<uint64_t> seen;
  for (const TypeDef& d : desired) {
    auto it = by_id.find(d.id);
    if (it == by_id.end()) {
      MigrationStep s;
      s.kind = StepKind::kAddType;
      s.type_kind = kind;
      s.name = d.name;
      steps_.push_back(std::move(s));
      continue;
    }
    seen.insert(d.id);
    Type(*it->second, d);
  }
  for (const TypeDef& a : accepted) {
    if (seen.contains(a.id)) continue;
    if (kind == TypeKind::kInterface) {
      Unsupported(a.table_key(), "removing interface '" + a.name + "'" + std::string(kV1));
      continue;
    }
    MigrationStep s;
    s.kind = StepKind::kDropType;
    s.type_kind = kind;
    s.name = a.name;
    s.mode = options_.allow_data_loss ? DropMode::kHard : DropMode::kSoft;
    steps_.push_back(std::move(s));
  }
}

void MigrationPlanner::Type(const TypeDef& a, const TypeDef& d) {
  if (a.name != d.name) {
    if (d.kind == TypeKind::kInterface) {
      Unsupported(d.table_key(), "renaming interfaces" + std::string(kV1));
    } else {
      MigrationStep s;
      s.kind = StepKind::kRenameType;
      s.type_kind = d.kind;
      s.from = a.name;
      s.to = d.name;
      steps_.push_back(std::move(s));
    }
  }
  auto ids = [](const std::vector<TypeRef>& refs) {
    std::set<uint64_t> out;
    for (const TypeRef& r : refs) out.insert(r.type_id);
    return out;
  };
  if (ids(a.implements) != ids(d.implements)) {
    Unsupported(d.table_key(),
                "changing implemented interfaces on node '" + d.name + "'" + std::string(kV1));
  }
  if (d.kind == TypeKind::kEdge) {
    if (a.from.type_id != d.from.type_id || a.to.type_id != d.to.type_id) {
      Unsupported(d.table_key(), "changing edge endpoints on '" + d.name + "'" + std::string(kV1));
    }
    if (!(a.card == d.card)) {
      Unsupported(d.table_key(),
                  "changing cardinality on edge '" + d.name + "'" + std::string(kV1));
    }
  }
  MetadataChange(a.metadata, d.metadata, d, nullptr);
  Properties(a, d);
  Constraints(a, d);
}

void MigrationPlanner::Properties(const TypeDef& a, const TypeDef& d) {
  for (const PropertyDef& dp : d.properties) {
    const PropertyDef* ap = a.FindPropertyById(dp.id);
    if (ap != nullptr) {
      Property(d, *ap, dp);
      continue;
    }
    if (dp.type.nullable) {
      MigrationStep s;
      s.kind = StepKind::kAddProperty;
      s.type_kind = d.kind;
      s.type_name = d.name;
      s.property_name = dp.name;
      s.property_type = dp.type;
      steps_.push_back(std::move(s));
    } else {
      Unsupported(PropEntity(d, dp.name),
                  "adding required property '" + d.name + "." + dp.name +
                      "' requires a backfill and" + std::string(kV1),
                  kCodeAddRequiredProperty);
    }
  }
  for (const PropertyDef& ap : a.properties) {
    if (d.FindPropertyById(ap.id) != nullptr) continue;
    MigrationStep s;
    s.kind = StepKind::kDropProperty;
    s.type_kind = d.kind;
    s.type_name = d.name;
    s.property_name = ap.name;
    s.mode = options_.allow_data_loss ? DropMode::kHard : DropMode::kSoft;
    steps_.push_back(std::move(s));
  }
}

void MigrationPlanner::Property(const TypeDef& d, const PropertyDef& ap, const PropertyDef& dp) {
  if (ap.name != dp.name) {
    MigrationStep s;
    s.kind = StepKind::kRenameProperty;
    s.type_kind = d.kind;
    s.type_name = d.name;
    s.from = ap.name;
    s.to = dp.name;
    steps_.push_back(std::move(s));
  }
  std::string where = d.name + "." + dp.name;
  if (auto added = EnumWidening(ap.type, dp.type)) {
    MigrationStep s;
    s.kind = StepKind::kExtendEnum;
    s.type_kind = d.kind;
    s.type_name = d.name;
    s.property_name = dp.name;
    s.added_values = std::move(*added);
    steps_.push_back(std::move(s));
  } else if (!(ap.type == dp.type)) {
    Unsupported(PropEntity(d, dp.name),
                "changing property type for '" + where + "'" + std::string(kV1),
                kCodeChangePropertyType);
  }
  // The embedding space is identified by the source property's id (not its name) and the model.
  auto same_space = [](const std::optional<EmbedSpec>& x, const std::optional<EmbedSpec>& y) {
    if (!x || !y) return x.has_value() == y.has_value();
    return x->source_property_id == y->source_property_id && x->model == y->model;
  };
  if (!same_space(ap.embed, dp.embed)) {
    Unsupported(PropEntity(d, dp.name),
                "changing @embed source or model for '" + where + "'" + std::string(kV1) +
                    "; rebuild the graph so stored vectors and their declared embedding space "
                    "cannot diverge");
  }
  MetadataChange(ap.metadata, dp.metadata, d, &dp);
}

void MigrationPlanner::Constraints(const TypeDef& a, const TypeDef& d) {
  std::set<std::string> have;
  for (const Constraint& c : a.constraints) have.insert(ConstraintIdentity(c));
  std::set<std::string> want;
  for (const Constraint& c : d.constraints) want.insert(ConstraintIdentity(c));
  for (const std::string& k : have) {
    if (!want.contains(k)) {
      Unsupported(d.table_key(), "removing constraints from '" + d.name + "'" + std::string(kV1));
      break;
    }
  }
  for (const Constraint& c : d.constraints) {
    if (have.contains(ConstraintIdentity(c))) continue;
    if (c.kind == ConstraintKind::kIndex) {
      MigrationStep s;
      s.kind = StepKind::kAddConstraint;
      s.type_kind = d.kind;
      s.type_name = d.name;
      s.constraint = c;
      steps_.push_back(std::move(s));
    } else {
      Unsupported(d.table_key(), "adding constraint '" + c.DisplayName() + "' to '" + d.name + "'" +
                                     std::string(kV1));
    }
  }
}

void MigrationPlanner::MetadataChange(const Metadata& a, const Metadata& d, const TypeDef& owner,
                                      const PropertyDef* property) {
  std::string entity = property ? PropEntity(owner, property->name) : owner.table_key();
  if (a.other != d.other) {
    Unsupported(entity, "changing annotations beyond @description/@instruction" + std::string(kV1));
  }
  if (a.description == d.description && a.instruction == d.instruction) return;
  MigrationStep s;
  s.kind = property ? StepKind::kUpdatePropertyMetadata : StepKind::kUpdateTypeMetadata;
  s.type_kind = owner.kind;
  if (property) {
    s.type_name = owner.name;
    s.property_name = property->name;
  } else {
    s.name = owner.name;
  }
  s.annotations = MetadataAnnotations(d);
  steps_.push_back(std::move(s));
}

// The IR without what the planner deliberately ignores: hints, retirements and the allocator.
SchemaIr Semantic(SchemaIr ir) {
  ir.allocator = IdAllocator{};
  ir.retired_types.clear();
  ir.retired_properties.clear();
  for (auto* list : {&ir.interfaces, &ir.nodes, &ir.edges}) {
    for (TypeDef& t : *list) {
      t.metadata.rename_from.reset();
      for (PropertyDef& p : t.properties) p.metadata.rename_from.reset();
    }
  }
  return ir;
}

Json ConstraintPlanJson(const Constraint& c) {
  std::string tag(ConstraintKindName(c.kind));
  tag[0] = static_cast<char>(tag[0] - 'a' + 'A');
  Json names = Json::array();
  for (const FieldRef& f : c.fields) names.push_back(f.name);
  if (c.kind == ConstraintKind::kRange || c.kind == ConstraintKind::kCheck) {
    Json body = {{"property", c.fields.empty() ? "" : c.fields[0].name}};
    if (c.kind == ConstraintKind::kCheck) body["pattern"] = c.pattern;
    auto bound = [](const std::optional<RangeBound>& b) -> Json {
      if (!b) return nullptr;
      return b->is_integer ? Json{{"Integer", b->integer}} : Json{{"Float", b->floating}};
    };
    if (c.kind == ConstraintKind::kRange) {
      body["min"] = bound(c.min);
      body["max"] = bound(c.max);
    }
    return {{tag, std::move(body)}};
  }
  return {{tag, std::move(names)}};
}

}  // namespace

std::string_view StepKindName(StepKind kind) {
  switch (kind) {
    case StepKind::kAddType: return "add_type";
    case StepKind::kRenameType: return "rename_type";
    case StepKind::kAddProperty: return "add_property";
    case StepKind::kRenameProperty: return "rename_property";
    case StepKind::kAddConstraint: return "add_constraint";
    case StepKind::kExtendEnum: return "extend_enum";
    case StepKind::kUpdateTypeMetadata: return "update_type_metadata";
    case StepKind::kUpdatePropertyMetadata: return "update_property_metadata";
    case StepKind::kDropType: return "drop_type";
    case StepKind::kDropProperty: return "drop_property";
    case StepKind::kUnsupportedChange: return "unsupported_change";
  }
  return "unknown";
}

Json MigrationStep::ToJson() const {
  Json j = {{"kind", std::string(StepKindName(kind))}};
  if (kind == StepKind::kUnsupportedChange) {
    j["entity"] = entity;
    j["reason"] = reason;
    if (code) j["code"] = *code;
    return j;
  }
  j["type_kind"] = std::string(TypeKindName(type_kind));
  std::string drop_mode = mode == DropMode::kHard ? "hard" : "soft";
  auto annotation_list = [&] {
    Json list = Json::array();
    for (const Annotation& a : annotations) {
      list.push_back({{"name", a.name}, {"value", a.value ? Json(*a.value) : Json(nullptr)}});
    }
    return list;
  };
  switch (kind) {
    case StepKind::kAddType: j["name"] = name; break;
    case StepKind::kRenameType:
      j["from"] = from;
      j["to"] = to;
      break;
    case StepKind::kAddProperty:
      j["type_name"] = type_name;
      j["property_name"] = property_name;
      j["property_type"] = PlanPropTypeJson(property_type);
      break;
    case StepKind::kRenameProperty:
      j["type_name"] = type_name;
      j["from"] = from;
      j["to"] = to;
      break;
    case StepKind::kAddConstraint:
      j["type_name"] = type_name;
      j["constraint"] = ConstraintPlanJson(constraint);
      break;
    case StepKind::kExtendEnum:
      j["type_name"] = type_name;
      j["property_name"] = property_name;
      j["added_values"] = added_values;
      break;
    case StepKind::kUpdateTypeMetadata:
      j["name"] = name;
      j["annotations"] = annotation_list();
      break;
    case StepKind::kUpdatePropertyMetadata:
      j["type_name"] = type_name;
      j["property_name"] = property_name;
      j["annotations"] = annotation_list();
      break;
    case StepKind::kDropType:
      j["name"] = name;
      j["mode"] = drop_mode;
      break;
    case StepKind::kDropProperty:
      j["type_name"] = type_name;
      j["property_name"] = property_name;
      j["mode"] = drop_mode;
      break;
    case StepKind::kUnsupportedChange: break;
  }
  return j;
}

std::string MigrationStep::UnsupportedMessage() const {
  if (kind != StepKind::kUnsupportedChange) return "";
  return code ? "[" + *code + "] " + reason : reason;
}

Json MigrationPlan::ToJson() const {
  Json list = Json::array();
  for (const MigrationStep& s : steps) list.push_back(s.ToJson());
  return {{"supported", supported}, {"steps", std::move(list)}};
}

MigrationPlan PlanBetween(const SchemaIr& accepted, const SchemaIr& desired,
                          const PlanOptions& options) {
  MigrationPlan plan;
  plan.desired = desired;
  MigrationPlanner planner(options, &plan.steps);
  planner.Types(TypeKind::kInterface, accepted.interfaces, desired.interfaces);
  planner.Types(TypeKind::kNode, accepted.nodes, desired.nodes);
  planner.Types(TypeKind::kEdge, accepted.edges, desired.edges);
  if (plan.steps.empty() && !(Semantic(accepted) == Semantic(desired))) {
    MigrationStep s;
    s.kind = StepKind::kUnsupportedChange;
    s.entity = "schema";
    s.reason = "schema migration contains an unclassified semantic IR change";
    plan.steps.push_back(std::move(s));
  }
  for (const MigrationStep& s : plan.steps) {
    if (s.kind == StepKind::kUnsupportedChange) plan.supported = false;
  }
  // A no-op keeps the accepted IR as it is (a changed rename hint alone is not a change).
  if (plan.steps.empty()) plan.desired = accepted;
  return plan;
}

Result<MigrationPlan> PlanMigration(const SchemaIr& accepted, std::string_view new_source,
                                    const PlanOptions& options) {
  OMNIGRAPH_RETURN_IF_ERROR(ValidateIr(accepted));
  OMNIGRAPH_ASSIGN_OR_RETURN(CheckedSchema checked, ParseSchema(new_source));
  OMNIGRAPH_ASSIGN_OR_RETURN(SchemaIr desired, ResolveIdentity(accepted, checked));
  return PlanBetween(accepted, desired, options);
}

Result<SchemaIr> ApplyPlan(const MigrationPlan& plan) {
  if (plan.supported) return plan.desired;
  std::string message = "schema migration is not supported:";
  for (const MigrationStep& s : plan.steps) {
    if (s.kind == StepKind::kUnsupportedChange) message += " " + s.UnsupportedMessage() + ";";
  }
  message.pop_back();
  return Unsupported(std::move(message));
}

}  // namespace omnigraph::schema
