// Semantic checking of a parsed schema: the rules of OmniGraph's schema language that the grammar
// alone does not express, producing the identity-free model that identity assignment (identity.h)
// turns into a SchemaIr.
//
// Checks, each reported as InvalidArgument "line L, column C: ...": duplicate type names (across
// interfaces, nodes and edges, and edge names equal after case folding), duplicate properties,
// reserved property names, unknown interfaces and edge endpoints, interface property type
// conflicts, constraint targets (unknown properties; @key on non-null scalars that are not Blob
// or Vector, at most one @key, an edge's naming both @src and @dst; @unique/@index not on Blob;
// @range on numeric scalars; @check on String scalars with an RE2-valid pattern; edge bodies
// only @key, @unique and @index), annotation arity (@description/@instruction/@rename_from take
// one non-empty string, at most once; @instruction only on types) and @embed (on a Vector, naming
// a String property).
// Pure; thread-safe.
#pragma once

#include <string_view>
#include <vector>

#include "base/status.h"
#include "schema/ast.h"
#include "schema/ir.h"

namespace omnigraph::schema {

// A property after checking. `def.id` is 0 and `def.embed->source_property_id` is 0 until
// identity assignment.
struct CheckedProperty {
  PropertyDef def;
  SourcePos pos;
  SourcePos rename_pos;   // Of its @rename_from, when it has one.
  bool injected = false;  // Copied from an implemented interface, not written in the body.
};

// A type after checking. `def` has no ids; its constraints name fields by name only
// (property_id 0), with `@src`/`@dst` as edge system fields (identity assignment names them
// `src`/`dst`); its properties are empty (see
// `properties`, in declaration order, interface-injected ones last).
struct CheckedType {
  TypeDef def;
  std::vector<CheckedProperty> properties;
  SourcePos pos;
  SourcePos rename_pos;
};

struct CheckedSchema {
  std::vector<CheckedType> types;  // Source order.
};

// Checks a syntax tree. InvalidArgument naming the first problem found.
Result<CheckedSchema> CheckSchema(const SchemaAst& ast);

// Parses and checks `source` (ParseSchemaSyntax then CheckSchema).
Result<CheckedSchema> ParseSchema(std::string_view source);

}  // namespace omnigraph::schema
