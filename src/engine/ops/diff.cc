// The diff of two read views (engine/ops/diff.h).
#include "engine/ops/diff.h"

#include <algorithm>
#include <tuple>

#include "engine/write/change_sets.h"

namespace omnigraph::engine {

namespace {

const schema::TypeDef* TypeOf(const schema::Catalog& catalog, const TableId& id) {
  for (const auto* list : {&catalog.nodes(), &catalog.edges()}) {
    for (const schema::TypeDef& t : *list) {
      if (t.id == id.stable_table_id && t.incarnation == id.incarnation) return &t;
    }
  }
  return nullptr;
}

// The per-type counts of `set`, in the order pages list changes: nodes before edges, then type id.
Result<Json> TypeCounts(const commit::ChangeSet& set, const schema::Catalog& catalog) {
  struct Row {
    bool edge;
    uint64_t type_id;
    Json json;
  };
  std::vector<Row> rows;
  for (const commit::TableChangeSet& t : set.tables) {
    const schema::TypeDef* type = TypeOf(catalog, t.identity());
    if (type == nullptr) {
      return Corruption("the diff names table '" + t.table_key + "', which the schema lacks");
    }
    const bool edge = type->kind == schema::TypeKind::kEdge;
    rows.push_back(Row{edge, type->id,
                       Json{{"kind", edge ? "edge" : "node"},
                            {"type", Json{{"id", type->id}, {"name", type->name}}},
                            {"inserted", t.inserted.size()},
                            {"updated", t.updated.size()},
                            {"deleted", t.deleted.size()}}});
  }
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return std::tie(a.edge, a.type_id) < std::tie(b.edge, b.type_id);
  });
  Json out = Json::array();
  for (Row& r : rows) out.push_back(std::move(r.json));
  return out;
}

}  // namespace

Result<Json> Diff(Graph& graph, const Snapshot& from, const Snapshot& to,
                  const CommitChangesRequest& request) {
  const std::string& a = from.state().head_commit_id;
  const std::string& b = to.state().head_commit_id;
  if (from.state().schema != to.state().schema) {
    return Status(Code::kSchemaBoundary,
                  "cannot diff '" + a + "' and '" + b + "': they hold different schemas (" +
                      from.state().schema.ir_hash + " and " + to.state().schema.ir_hash +
                      "); a diff lists entity changes under one schema");
  }
  Result<commit::ChangeSet> set = DiffChangeSet(graph.tables(), from.state(), to.state());
  if (!set.ok()) {
    // A table object cleanup reclaimed is VersionsReclaimed naming the commit it belongs to.
    Status by_to = to.ExplainReadFailure(set.status());
    if (by_to.code() == Code::kVersionsReclaimed) return by_to;
    return from.ExplainReadFailure(set.status());
  }
  const std::string scope_id = a + ".." + b;
  const ChangesScope scope{"diff", scope_id, "a diff"};
  std::string next;
  OMNIGRAPH_ASSIGN_OR_RETURN(Json changes, ChangesPage(*set, from, to, request, scope, &next));
  Json out = Json::object();
  out["from"] = Json{{"graph_commit_id", a}};
  out["to"] = Json{{"graph_commit_id", b}};
  OMNIGRAPH_ASSIGN_OR_RETURN(out["types"], TypeCounts(*set, to.catalog()));
  out["changes"] = std::move(changes);
  if (!next.empty()) out["next_page_token"] = next;
  return out;
}

}  // namespace omnigraph::engine
