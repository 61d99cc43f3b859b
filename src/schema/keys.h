// Key rendering and id derivation for keyed nodes and edges (OmniGraph's data model), shared by
// load and mutations.
//
// The id of a node whose type declares @key is derived from its complete typed key tuple:
//   - one key property: the canonical text of its value;
//   - several: a JSON array of the canonical texts, in stable property id order (so renaming a
//     key property never changes ids), e.g. ["acme","42"].
// Canonical text: String as is; Bool `true`/`false`; integers in decimal; Date the epoch day and
// DateTime the epoch millisecond as decimal integers; floats at their stored width (F32 values
// are rounded to float first) in the shortest text that reads back to the same value, in plain
// decimal notation, with -0 written `0`. Null, NaN and infinities cannot be key values.
//
// An edge type's @key names both endpoints and any further properties, `@key(@src, @dst[, p…])`;
// its tuple is the source node id, the target node id, then the key properties' canonical texts
// in stable property id order, always at least two parts, so always a JSON array, e.g.
// ["alice","bob"] or ["alice","bob","2024"]. Pure; thread-safe.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "base/status.h"
#include "schema/ir.h"
#include "schema/value.h"

namespace omnigraph::schema {

// The canonical text of `value` stored in a column of type `type` (a non-list scalar other than
// Blob and Vector). InvalidArgument when the value is null, NaN or infinite, does not fit the
// column (an I32 beyond 32 bits, a negative U64), or its tag does not match the column type.
// Integer columns accept kInt and kUInt values; float columns also accept integers.
Result<std::string> CanonicalKeyText(const Value& value, const PropType& type);

// One part as is; several as a compact JSON array of strings.
std::string RenderKeyTuple(std::span<const std::string> parts);

// The id of a node of keyed type `node` whose key values are `key_values`, aligned with
// node.KeyProperties() (stable property id order). InvalidArgument when the type has no @key,
// the count is wrong, or a value is not a valid key value (the message names the property).
Result<std::string> DeriveNodeId(const TypeDef& node, std::span<const Value> key_values);

// As above, reading each key property's value through `value_of` (null pointer = missing).
using PropertyValueFn = std::function<const Value*(const PropertyDef&)>;
Result<std::string> DeriveNodeId(const TypeDef& node, const PropertyValueFn& value_of);

// The id of an edge of keyed type `edge` from `src` to `dst` (node ids) whose key property values
// are `key_values`, aligned with edge.KeyProperties() (empty for @key(@src, @dst)). The errors of
// DeriveNodeId.
Result<std::string> DeriveEdgeId(const TypeDef& edge, std::string_view src, std::string_view dst,
                                 std::span<const Value> key_values);
// As above, reading each key property's value through `value_of` (null pointer = missing).
Result<std::string> DeriveEdgeId(const TypeDef& edge, std::string_view src, std::string_view dst,
                                 const PropertyValueFn& value_of);

// True when `type` is an edge type whose ids its @key derives.
bool IsKeyedEdge(const TypeDef& type);

}  // namespace omnigraph::schema
