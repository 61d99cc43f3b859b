// The schema IR as JSON: encoding, decoding with validation, canonical bytes and ir_hash.
//
// Layout (canonical JSON sorts the keys; absent optional members are omitted):
//   {"ir_version":1,
//    "allocator":{"next_type_id":N,"next_property_id":N,"next_incarnation":N},
//    "interfaces":[Type], "nodes":[Type], "edges":[Type],
//    "retired_types":[{"kind","type_id","name","incarnation"}],
//    "retired_properties":[{"owner_type_id","owner_name","property_id","name"}]}
//   Type: {"kind","type_id","name","incarnation"?, "implements":[{"type_id","name"}]?,
//          "from":{"type_id","name"}?, "to":{...}?, "card":{"min","max"?}?,
//          "properties":[Property], "constraints":[Constraint], Metadata...}
//   Property: {"property_id","name","type":{"scalar","list","nullable","enum_values"?,
//              "vector_dim"?}, "embed":{"source_property_id","source_property","model"?}?,
//              Metadata...}
//   Constraint: {"kind":"key|unique|index|range|check","fields":[{"property_id","name"}],
//                "min"?,"max"?,"pattern"?}
//   Metadata: "description"?, "instruction"?, "rename_from"?,
//             "annotations":[{"name","value"?,"kwargs"?}]?
// Pure; thread-safe.
#pragma once

#include <string>

#include "base/json.h"
#include "base/status.h"
#include "schema/ir.h"

namespace omnigraph::schema {

Json IrToJson(const SchemaIr& ir);

// Decodes and validates an IR (ids nonzero, unique and below the allocator's marks; references
// resolve; enum values sorted and unique). Corruption when it is malformed, kFormatTooNew when
// its ir_version is newer than kIrVersion. The result is in canonical order.
Result<SchemaIr> IrFromJson(const Json& json);

// Checks the invariants IrFromJson checks on an IR built in memory. Corruption when violated.
Status ValidateIr(const SchemaIr& ir);

// The canonical JSON bytes of the IR (sorted keys, compact).
std::string IrCanonicalJson(const SchemaIr& ir);

// "sha256:" + lower-case hex SHA-256 of IrCanonicalJson(ir).
std::string IrHash(const SchemaIr& ir);

// The JSON of a property type as the migration plan shows it (the reference's shape):
// {"scalar":"String"|{"Vector":N},"nullable":b,"list":b,"enum_values":[...]|null}.
Json PlanPropTypeJson(const PropType& type);

}  // namespace omnigraph::schema
