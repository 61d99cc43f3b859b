#include "schema/catalog.h"

#include <utility>

#include "schema/ir_json.h"

namespace omnigraph::schema {

Catalog::Catalog(SchemaIr ir) : ir_(std::move(ir)) {}

Result<Catalog> Catalog::Build(SchemaIr ir) {
  OMNIGRAPH_RETURN_IF_ERROR(ValidateIr(ir));
  Catalog catalog(std::move(ir));
  catalog.Index();
  return catalog;
}

Result<Catalog> Catalog::WithNamesOf(const Catalog& past, const Catalog& today) {
  SchemaIr ir = past.ir();
  std::vector<std::pair<std::string, uint64_t>> type_aliases;  // today's name -> past type id
  for (auto* list : {&ir.nodes, &ir.edges}) {
    for (TypeDef& t : *list) {
      const TypeDef* now = today.FindById(t.id);
      if (now == nullptr || now->kind != t.kind || now->incarnation != t.incarnation) continue;
      if (now->name != t.name) type_aliases.emplace_back(now->name, t.id);
      for (const PropertyDef& p : t.properties) {
        const PropertyDef* q = now->FindPropertyById(p.id);
        if (q == nullptr || q->name == p.name) continue;
        bool taken = false;
        for (const PropertyDef& other : t.properties) taken = taken || other.name == q->name;
        if (!taken) t.property_aliases.emplace_back(q->name, p.id);
      }
    }
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(Catalog catalog, Build(std::move(ir)));
  // A name today gives to another type (or to a reincarnation) is withheld first, so that an
  // alias may then take it when today's type of that name is one the past holds under another.
  for (const auto* list : {&catalog.ir_.nodes, &catalog.ir_.edges}) {
    for (const TypeDef& t : *list) {
      const TypeDef* now = today.FindTable(t.name);
      if (now == nullptr || now->name != t.name) continue;
      if (now->id == t.id && now->kind == t.kind && now->incarnation == t.incarnation) continue;
      catalog.by_name_.erase(t.name);
      auto folded = catalog.edges_folded_.find(FoldCase(t.name));
      if (folded != catalog.edges_folded_.end() && folded->second == &t) {
        catalog.edges_folded_.erase(folded);
      }
      catalog.not_at_snapshot_.emplace(t.name, now->kind == TypeKind::kEdge ? "edge" : "node");
    }
  }
  // emplace keeps a name the past schema has: its own declaration wins over an alias.
  for (const auto& [name, id] : type_aliases) {
    const TypeDef* t = catalog.FindById(id);
    catalog.by_name_.emplace(name, t);
    if (t->kind == TypeKind::kEdge) catalog.edges_folded_.emplace(FoldCase(name), t);
  }
  return catalog;
}

std::string Catalog::NotAtSnapshot(std::string_view name) const {
  auto it = not_at_snapshot_.find(name);
  if (it == not_at_snapshot_.end()) return "";
  return it->second + " type '" + std::string(name) + "' does not exist at this snapshot";
}

// Pointers into ir_'s vectors stay valid when the Catalog is moved: moving a vector keeps its
// buffer.
void Catalog::Index() {
  for (const auto* list : {&ir_.interfaces, &ir_.nodes, &ir_.edges}) {
    for (const TypeDef& t : *list) {
      by_name_.emplace(t.name, &t);
      by_id_.emplace(t.id, &t);
    }
  }
  for (const TypeDef& e : ir_.edges) edges_folded_.emplace(FoldCase(e.name), &e);
}

const TypeDef* Catalog::FindNode(std::string_view name) const {
  auto it = by_name_.find(name);
  return it != by_name_.end() && it->second->kind == TypeKind::kNode ? it->second : nullptr;
}

const TypeDef* Catalog::FindEdge(std::string_view name) const {
  auto it = by_name_.find(name);
  if (it != by_name_.end() && it->second->kind == TypeKind::kEdge) return it->second;
  auto folded = edges_folded_.find(FoldCase(name));
  return folded != edges_folded_.end() ? folded->second : nullptr;
}

const TypeDef* Catalog::FindInterface(std::string_view name) const {
  auto it = by_name_.find(name);
  return it != by_name_.end() && it->second->kind == TypeKind::kInterface ? it->second : nullptr;
}

const TypeDef* Catalog::FindTable(std::string_view name) const {
  auto it = by_name_.find(name);
  return it != by_name_.end() && it->second->kind != TypeKind::kInterface ? it->second : nullptr;
}

const TypeDef* Catalog::FindById(uint64_t type_id) const {
  auto it = by_id_.find(type_id);
  return it != by_id_.end() ? it->second : nullptr;
}

const TypeDef* Catalog::FindByTableKey(std::string_view key) const {
  if (key.starts_with("node:")) return FindNode(key.substr(5));
  if (key.starts_with("edge:")) {
    auto it = by_name_.find(key.substr(5));
    return it != by_name_.end() && it->second->kind == TypeKind::kEdge ? it->second : nullptr;
  }
  return nullptr;
}

Result<const TypeDef*> Catalog::Node(std::string_view name) const {
  if (const TypeDef* t = FindNode(name)) return t;
  return NotFound("unknown node type '" + std::string(name) + "'", std::string(name));
}

Result<const TypeDef*> Catalog::Edge(std::string_view name) const {
  if (const TypeDef* t = FindEdge(name)) return t;
  return NotFound("unknown edge type '" + std::string(name) + "'", std::string(name));
}

Result<const PropertyDef*> Catalog::Property(const TypeDef& type, std::string_view name) {
  if (const PropertyDef* p = type.FindProperty(name)) return p;
  return NotFound("unknown property '" + std::string(name) + "' on " + type.table_key(),
                  type.table_key());
}

std::vector<const TypeDef*> Catalog::EdgesFrom(uint64_t node_type_id) const {
  std::vector<const TypeDef*> out;
  for (const TypeDef& e : ir_.edges) {
    if (e.from.type_id == node_type_id) out.push_back(&e);
  }
  return out;
}

std::vector<const TypeDef*> Catalog::EdgesTo(uint64_t node_type_id) const {
  std::vector<const TypeDef*> out;
  for (const TypeDef& e : ir_.edges) {
    if (e.to.type_id == node_type_id) out.push_back(&e);
  }
  return out;
}

std::vector<const TypeDef*> Catalog::Implementors(uint64_t interface_type_id) const {
  std::vector<const TypeDef*> out;
  for (const TypeDef& n : ir_.nodes) {
    for (const TypeRef& r : n.implements) {
      if (r.type_id == interface_type_id) out.push_back(&n);
    }
  }
  return out;
}

}  // namespace omnigraph::schema
