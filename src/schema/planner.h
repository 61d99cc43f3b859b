// Migration planning (OmniGraph's schema plan and apply): what changes between the accepted schema
// and a new source, and whether schema migration v1 can apply it.
//
// PlanMigration parses and checks the new source, resolves its identity against the accepted IR
// (identity.h: exact names, then @rename_from hints) and compares the two IRs by stable id. The
// plan is `{supported, steps[]}`; each step is tagged `kind`. Supported: adding types, adding
// nullable properties, renames (which keep ids), adding @index, pure enum widening, changing
// @description/@instruction, and dropping types and properties (soft by default; hard with
// allow_data_loss). Anything else becomes an `unsupported_change` step and makes the plan
// unsupported; its message says "... is not supported in schema migration v1" and renders as
// "[CODE] reason" when it carries a code. An empty plan means the sources are equivalent and
// applying it is a no-op. Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/json.h"
#include "base/status.h"
#include "schema/ir.h"

namespace omnigraph::schema {

// Stable diagnostic codes carried by unsupported changes (the reference's catalog).
inline constexpr std::string_view kCodeAddRequiredProperty = "OG-MF-103";
inline constexpr std::string_view kCodeChangePropertyType = "OG-MF-106";
// Catalogued for drops of populated types and properties; the engine, which knows whether a
// table holds data, attaches them (the planner is pure and does not).
inline constexpr std::string_view kCodeDropPopulatedNodeType = "OG-DS-102";
inline constexpr std::string_view kCodeDropPopulatedEdgeType = "OG-DS-103";
inline constexpr std::string_view kCodeDropPopulatedProperty = "OG-DS-104";

enum class StepKind : uint8_t {
  kAddType,
  kRenameType,
  kAddProperty,
  kRenameProperty,
  kAddConstraint,
  kExtendEnum,
  kUpdateTypeMetadata,
  kUpdatePropertyMetadata,
  kDropType,
  kDropProperty,
  kUnsupportedChange,
};
// The JSON tag: "add_type", "rename_type", ..., "unsupported_change".
std::string_view StepKindName(StepKind kind);

enum class DropMode : uint8_t { kSoft, kHard };

// One plan step. Which members are meaningful depends on `kind` (see ToJson).
struct MigrationStep {
  StepKind kind = StepKind::kUnsupportedChange;
  TypeKind type_kind = TypeKind::kNode;
  std::string name;           // add_type, update_type_metadata, drop_type.
  std::string from;           // rename_type, rename_property.
  std::string to;             // rename_type, rename_property.
  std::string type_name;      // Property steps and add_constraint.
  std::string property_name;  // add_property, extend_enum, update_property_metadata, drop_property.
  PropType property_type;     // add_property.
  Constraint constraint;      // add_constraint.
  std::vector<std::string> added_values;  // extend_enum.
  std::vector<Annotation> annotations;    // update_*_metadata: the desired metadata annotations.
  DropMode mode = DropMode::kSoft;        // drop_type, drop_property.
  std::string entity;                     // unsupported_change: "node:Person.age".
  std::string reason;                     // unsupported_change.
  std::optional<std::string> code;        // unsupported_change.

  // The step object, e.g. {"kind":"add_type","type_kind":"node","name":"Tag"}.
  Json ToJson() const;
  // "[CODE] reason" (or just the reason without a code) for unsupported_change; else empty.
  std::string UnsupportedMessage() const;
};

struct MigrationPlan {
  bool supported = true;
  std::vector<MigrationStep> steps;
  // The IR the graph has once the plan is applied (ids kept for renames, minted for additions,
  // drops recorded as retired).
  SchemaIr desired;

  // {"supported":b,"steps":[...]}.
  Json ToJson() const;
  // True when applying the plan changes nothing.
  bool is_noop() const { return steps.empty(); }
};

struct PlanOptions {
  // Drops become `hard` (data removed at apply) instead of `soft` (tombstoned).
  bool allow_data_loss = false;
};

// Plans the migration from `accepted` to `new_source`. InvalidArgument when the source does not
// parse or check, or its @rename_from hints cannot be resolved; unsupported changes are plan
// steps, not errors.
Result<MigrationPlan> PlanMigration(const SchemaIr& accepted, std::string_view new_source,
                                    const PlanOptions& options = {});

// Plans between two IRs of one identity lineage (`desired` resolved against `accepted`).
MigrationPlan PlanBetween(const SchemaIr& accepted, const SchemaIr& desired,
                          const PlanOptions& options = {});

// The IR to accept after applying `plan`. Unsupported, listing every unsupported step's
// message, when the plan is not supported.
Result<SchemaIr> ApplyPlan(const MigrationPlan& plan);

}  // namespace omnigraph::schema
