// Catalog: read-only lookups over one accepted SchemaIr, for the query typechecker, the load
// path and the engine.
//
// Lookup rules: node, interface and type-by-name lookups are exact (type names are
// case-sensitive); edge lookups are exact first and then case-insensitive (ASCII), because the
// query language spells edge `Knows` as `knows` (OmniGraph's match semantics) and load accepts
// either; validation guarantees no two edges fold to the same name. Property lookups are exact.
// A catalog made by WithNamesOf also answers to the aliases it was given.
// Pointers returned point into the catalog's own IR and live as long as the Catalog.
// Immutable after construction; safe to share between threads.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "schema/ir.h"

namespace omnigraph::schema {

class Catalog {
 public:
  // Builds a catalog over `ir`, which must satisfy ValidateIr (Corruption otherwise).
  static Result<Catalog> Build(SchemaIr ir);
  // A catalog over `past`'s IR (a schema a past commit accepted) that also answers to `today`'s
  // names: a node, edge or property that today has another name under the same stable id (and,
  // for a table, the same incarnation) is found by either name. A name of `past` wins over an
  // alias of another declaration, except a node or edge name that `today` gives to another type
  // (another id, or the same id reincarnated): that name means today's type, which `past` does
  // not hold, so it is not found (OmniGraph resolves a past read by today's catalog) and
  // NotAtSnapshot says why. Pointers point into the new catalog's own IR.
  static Result<Catalog> WithNamesOf(const Catalog& past, const Catalog& today);

  Catalog(Catalog&&) noexcept = default;
  Catalog& operator=(Catalog&&) noexcept = default;
  Catalog(const Catalog&) = delete;
  Catalog& operator=(const Catalog&) = delete;

  const SchemaIr& ir() const { return ir_; }
  const std::vector<TypeDef>& nodes() const { return ir_.nodes; }
  const std::vector<TypeDef>& edges() const { return ir_.edges; }
  const std::vector<TypeDef>& interfaces() const { return ir_.interfaces; }

  // The node type named exactly `name`, or null.
  const TypeDef* FindNode(std::string_view name) const;
  // The edge type named `name`, exactly or else ignoring ASCII case, or null.
  const TypeDef* FindEdge(std::string_view name) const;
  const TypeDef* FindInterface(std::string_view name) const;
  // A node or edge named exactly `name` (type names are unique across kinds), or null.
  const TypeDef* FindTable(std::string_view name) const;
  // Any type (interface, node or edge) by stable type id, or null.
  const TypeDef* FindById(uint64_t type_id) const;
  // The node or edge whose table_key() is `key` ("node:Person"), or null.
  const TypeDef* FindByTableKey(std::string_view key) const;

  // For a name WithNamesOf withheld, OmniGraph's words: "node type 'Person' does not exist at this
  // snapshot"; otherwise empty.
  std::string NotAtSnapshot(std::string_view name) const;

  // NotFound naming the type when absent; for callers that report errors to users.
  Result<const TypeDef*> Node(std::string_view name) const;
  Result<const TypeDef*> Edge(std::string_view name) const;
  // NotFound "unknown property 'x' on node:Person".
  static Result<const PropertyDef*> Property(const TypeDef& type, std::string_view name);

  // Edge types whose source (or target) is the node type with id `node_type_id`.
  std::vector<const TypeDef*> EdgesFrom(uint64_t node_type_id) const;
  std::vector<const TypeDef*> EdgesTo(uint64_t node_type_id) const;
  // Node types implementing the interface with id `interface_type_id`.
  std::vector<const TypeDef*> Implementors(uint64_t interface_type_id) const;

 private:
  explicit Catalog(SchemaIr ir);
  void Index();

  SchemaIr ir_;
  std::map<std::string, const TypeDef*, std::less<>> by_name_;
  std::map<std::string, const TypeDef*, std::less<>> edges_folded_;
  std::map<uint64_t, const TypeDef*> by_id_;
  // Names WithNamesOf withheld, with the kind today's type has ("node" or "edge").
  std::map<std::string, std::string, std::less<>> not_at_snapshot_;
};

}  // namespace omnigraph::schema
