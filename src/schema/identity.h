// Identity assignment: turns a checked schema into a SchemaIr with stable ids.
//
// At init (AcceptInitial) ids are minted 1..n in source order: type ids over interfaces, nodes
// and edges as declared; property ids type by type, each type's own properties as declared and
// then those injected from its interfaces; table incarnations over nodes and edges as declared.
// `@rename_from` hints are inert at init.
//
// Against an accepted IR (ResolveIdentity) a declaration keeps the ids of the accepted one with
// the same kind and name; failing that, its `@rename_from("Old")` names the accepted one of the
// same kind (types) or of the same owner (properties) whose ids it keeps, incarnation included.
// Everything else gets fresh ids from the accepted IR's allocator, so an id is never reused,
// even for a type or property dropped earlier and re-added under its old name. Accepted types
// and properties that nothing matched are recorded as retired. Never infers identity from
// positions or from names other than the exact name and the explicit hint. Pure; thread-safe.
#pragma once

#include <string_view>

#include "base/status.h"
#include "schema/ir.h"
#include "schema/validate.h"

namespace omnigraph::schema {

// Parses, checks and mints the initial IR of a new graph. InvalidArgument on a bad schema.
Result<SchemaIr> AcceptInitial(std::string_view source);

// The initial IR of an already checked schema.
Result<SchemaIr> BuildInitialIr(const CheckedSchema& schema);

// The IR `desired` would have as the successor of `accepted`. InvalidArgument (with line and
// column) when a @rename_from hint names nothing accepted, crosses declaration kinds or owners,
// or when one accepted declaration would be claimed twice; Internal when an allocator would
// overflow.
Result<SchemaIr> ResolveIdentity(const SchemaIr& accepted, const CheckedSchema& desired);

}  // namespace omnigraph::schema
