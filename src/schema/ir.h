// The schema IR: the accepted schema as later layers see it, with stable identity.
//
// A SchemaIr is built from `.pg` source by AcceptInitial or by a migration (identity.h,
// planner.h) and is never edited by hand. Every interface, node and edge type has a nonzero
// stable type id; every property a nonzero stable property id; every node and edge type a table
// incarnation. Ids come from a monotonic allocator whose state lives in the IR, so an id is
// never reused: a rename keeps ids, a drop retires them, and a re-add mints new ones.
//
// Canonical order: interfaces, nodes and edges are sorted by name; properties by property id;
// constraints by (kind, fields); enum values sorted and deduplicated. Two IRs that mean the same
// thing are equal (operator==) and serialize to the same canonical JSON (ir_json.h).
// Values; no shared state; thread-compatible.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace omnigraph::schema {

// The largest Vector(N) dimension accepted (the reference's bound, i32::MAX).
inline constexpr uint32_t kMaxVectorDim = 2147483647;
// The version of the IR layout written into its JSON (`ir_version`).
inline constexpr uint32_t kIrVersion = 1;

enum class TypeKind : uint8_t { kInterface, kNode, kEdge };
// "interface", "node", "edge".
std::string_view TypeKindName(TypeKind kind);

enum class ScalarKind : uint8_t {
  kString,
  kBool,
  kI32,
  kI64,
  kU32,
  kU64,
  kF32,
  kF64,
  kDate,
  kDateTime,
  kBlob,
  kVector,
};
// The schema spelling: "String", "I32", "DateTime", "Vector" (without its dimension), ...
std::string_view ScalarKindName(ScalarKind kind);
// Parses a base type name (not Vector); nullopt when it is not one.
std::optional<ScalarKind> ParseBaseTypeName(std::string_view name);
bool IsNumeric(ScalarKind kind);
bool IsInteger(ScalarKind kind);

// The type of a property: a scalar, a list of scalars, an enum (a String restricted to a set of
// values) or a Vector(N) of f32; each may be nullable.
struct PropType {
  ScalarKind scalar = ScalarKind::kString;
  bool list = false;
  bool nullable = false;
  uint32_t vector_dim = 0;               // Nonzero exactly when scalar == kVector.
  std::vector<std::string> enum_values;  // Sorted, unique; non-empty exactly for enums.

  bool is_enum() const { return !enum_values.empty(); }
  // The schema spelling, e.g. "String?", "[I32]", "enum(a, b)?", "Vector(3)".
  std::string DisplayName() const;

  friend bool operator==(const PropType&, const PropType&) = default;
};

// An annotation kept as metadata: `@name`, `@name(value)`, `@name(value, k = literal, ...)`.
// String literals are stored decoded; other literals and identifiers as written.
struct Annotation {
  std::string name;
  std::optional<std::string> value;
  std::map<std::string, std::string> kwargs;

  friend bool operator==(const Annotation&, const Annotation&) = default;
  friend auto operator<=>(const Annotation&, const Annotation&) = default;
};

// Metadata annotations of a type or property. `rename_from` is the identity hint as written
// in the source that was accepted; it has no effect once ids are assigned.
struct Metadata {
  std::optional<std::string> description;
  std::optional<std::string> instruction;  // Types only.
  std::optional<std::string> rename_from;
  std::vector<Annotation> other;  // Unknown annotations, sorted and deduplicated.

  friend bool operator==(const Metadata&, const Metadata&) = default;
};

// `@embed("source", model = "...")` on a Vector property.
struct EmbedSpec {
  uint64_t source_property_id = 0;
  std::string source_property;
  std::optional<std::string> model;

  friend bool operator==(const EmbedSpec&, const EmbedSpec&) = default;
};

struct PropertyDef {
  uint64_t id = 0;
  std::string name;
  PropType type;
  Metadata metadata;
  std::optional<EmbedSpec> embed;

  friend bool operator==(const PropertyDef&, const PropertyDef&) = default;
};

// A reference from a constraint to a column: a property (by id, with its current name) or a
// system column of an edge (`src`, `dst`; property_id 0).
struct FieldRef {
  uint64_t property_id = 0;
  std::string name;

  bool is_system() const { return property_id == 0; }
  friend bool operator==(const FieldRef&, const FieldRef&) = default;
};

// A numeric @range bound, an integer or a float as written.
struct RangeBound {
  bool is_integer = true;
  int64_t integer = 0;
  double floating = 0;

  double AsDouble() const { return is_integer ? static_cast<double>(integer) : floating; }
  friend bool operator==(const RangeBound&, const RangeBound&) = default;
};

enum class ConstraintKind : uint8_t { kKey, kUnique, kIndex, kRange, kCheck };
// "key", "unique", "index", "range", "check".
std::string_view ConstraintKindName(ConstraintKind kind);

struct Constraint {
  ConstraintKind kind = ConstraintKind::kIndex;
  // Key, unique, index: one or more fields. Key fields are in property-id order (the order of
  // the key tuple); unique and index fields likewise, system fields first. Range and check:
  // exactly one field.
  std::vector<FieldRef> fields;
  std::optional<RangeBound> min;  // Range only; absent = open.
  std::optional<RangeBound> max;
  std::string pattern;  // Check only (RE2 syntax, unanchored search).

  // The schema spelling with current names, e.g. "@unique(src, dst)", "@range(age, 0..150)".
  std::string DisplayName() const;
  friend bool operator==(const Constraint&, const Constraint&) = default;
};

struct TypeRef {
  uint64_t type_id = 0;
  std::string name;

  friend bool operator==(const TypeRef&, const TypeRef&) = default;
};

// Edge cardinality: outgoing edges per source node, `min..max`; max absent = unbounded.
struct Cardinality {
  uint32_t min = 0;
  std::optional<uint32_t> max;

  bool is_default() const { return min == 0 && !max.has_value(); }
  friend bool operator==(const Cardinality&, const Cardinality&) = default;
};

// One interface, node or edge type.
struct TypeDef {
  TypeKind kind = TypeKind::kNode;
  uint64_t id = 0;
  std::string name;
  uint64_t incarnation = 0;             // Nodes and edges; 0 for interfaces.
  std::vector<TypeRef> implements;      // Nodes only; sorted by type id.
  TypeRef from;                         // Edges only.
  TypeRef to;                           // Edges only.
  Cardinality card;                     // Edges only.
  std::vector<PropertyDef> properties;  // Sorted by property id.
  std::vector<Constraint> constraints;  // Canonical order.
  Metadata metadata;
  // Other names of properties, by property id: set only in a catalog that reads a past commit
  // with today's names as well (Catalog::WithNamesOf), never in an accepted IR, and not encoded.
  std::vector<std::pair<std::string, uint64_t>> property_aliases;

  // "node:Person", "edge:Knows", "interface:Named".
  std::string table_key() const;
  // The property named exactly `name`, else the one a property alias names; or null.
  const PropertyDef* FindProperty(std::string_view name) const;
  const PropertyDef* FindPropertyById(uint64_t id) const;
  // The @key constraint, or null for an unkeyed type.
  const Constraint* key() const;
  // The key properties in key-tuple order (stable property id order); empty when unkeyed.
  std::vector<const PropertyDef*> KeyProperties() const;
  bool IsKeyProperty(uint64_t property_id) const;

  friend bool operator==(const TypeDef&, const TypeDef&) = default;
};

// The allocator's high-water marks: the next id of each family to hand out. Ids start at 1.
struct IdAllocator {
  uint64_t next_type_id = 1;
  uint64_t next_property_id = 1;
  uint64_t next_incarnation = 1;

  friend bool operator==(const IdAllocator&, const IdAllocator&) = default;
};

// A type that a migration dropped; kept so the record of its ids (and, for soft drops, the
// table incarnation whose data stays reachable by time travel) is never lost.
struct RetiredType {
  TypeKind kind = TypeKind::kNode;
  uint64_t id = 0;
  std::string name;
  uint64_t incarnation = 0;

  friend bool operator==(const RetiredType&, const RetiredType&) = default;
};

struct RetiredProperty {
  uint64_t owner_type_id = 0;
  std::string owner_name;
  uint64_t id = 0;
  std::string name;

  friend bool operator==(const RetiredProperty&, const RetiredProperty&) = default;
};

struct SchemaIr {
  uint32_t ir_version = kIrVersion;
  IdAllocator allocator;
  std::vector<TypeDef> interfaces;                  // Sorted by name.
  std::vector<TypeDef> nodes;                       // Sorted by name.
  std::vector<TypeDef> edges;                       // Sorted by name.
  std::vector<RetiredType> retired_types;           // Sorted by id.
  std::vector<RetiredProperty> retired_properties;  // Sorted by id.

  friend bool operator==(const SchemaIr&, const SchemaIr&) = default;
};

// Puts a type into the canonical order described above: properties by id, implements by type
// id, constraint fields (edge `src`, `dst`, then properties by id), constraints by
// ConstraintIdentity, unknown annotations sorted and deduplicated.
void CanonicalizeType(TypeDef* type);
// Canonicalizes every type and sorts the type and retired lists.
void Canonicalize(SchemaIr* ir);

// Identifies a constraint by kind, field ids (system fields by name) and arguments, not by
// property names, so a rename does not change it. Canonical constraint order sorts by it.
std::string ConstraintIdentity(const Constraint& c);

// "node:Person" etc.
std::string TableKey(TypeKind kind, std::string_view name);

// The lower-case ASCII fold used for case-insensitive edge lookup.
std::string FoldCase(std::string_view name);

}  // namespace omnigraph::schema
