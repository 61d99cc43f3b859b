#include "engine/commit_changes.h"

#include <algorithm>
#include <tuple>

#include "base/json_writer.h"
#include "commit/change_set.h"
#include "engine/change_sets.h"
#include "engine/jsonl_values.h"
#include "query/column_codec.h"

namespace omnigraph::engine {

namespace {

struct Change {
  bool edge = false;
  uint64_t type_id = 0;
  std::string id;
  int op = 0;  // 0 insert, 1 update, 2 delete: the order changes are listed in.
  Json json;
};

constexpr const char* kOpNames[] = {"insert", "update", "delete"};

// The image of each found row of `ids` in `version`, by id (an absent id has none).
Result<std::map<std::string, std::string>> Images(const schema::TypeDef& type,
                                                  const table::TableVersion& version,
                                                  const std::vector<std::string>& ids) {
  std::map<std::string, std::string> out;
  if (ids.empty()) return out;
  OMNIGRAPH_ASSIGN_OR_RETURN(table::LookupResult found, version.Lookup(ids));
  const table::ColumnBatch& rows = found.rows;
  const bool edge = type.kind == schema::TypeKind::kEdge;
  const table::Column* src = edge ? rows.FindColumn(table::kSrcFieldId) : nullptr;
  const table::Column* dst = edge ? rows.FindColumn(table::kDstFieldId) : nullptr;
  uint64_t row = 0;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (!found.found[i]) continue;
    std::string image;
    JsonWriter w(&image);
    w.BeginObject();
    if (edge && src != nullptr && dst != nullptr) {
      w.Key("endpoints");
      w.BeginObject();
      w.Key("from");
      w.String(src->StringAt(row));
      w.Key("to");
      w.String(dst->StringAt(row));
      w.EndObject();
    }
    w.Key("properties");
    w.BeginObject();
    for (const schema::PropertyDef& p : type.properties) {
      const table::Column* c = rows.FindColumn(static_cast<uint32_t>(p.id));
      if (c == nullptr) continue;
      w.Key(p.name);
      WriteJson(w, query::ValueAt(*c, row), p.type);
    }
    w.EndObject();
    w.EndObject();
    if (!w.ok()) return Corruption("a string of " + type.table_key() + " is not valid UTF-8");
    out.emplace(ids[i], std::move(image));
    ++row;
  }
  return out;
}

const schema::TypeDef* TypeOf(const schema::Catalog& catalog, const commit::TableIdentity& id) {
  for (const auto* list : {&catalog.nodes(), &catalog.edges()}) {
    for (const schema::TypeDef& t : *list) {
      if (t.id == id.stable_table_id && t.incarnation == id.incarnation) return &t;
    }
  }
  return nullptr;
}

// The changes of one table: its listed ids, hydrated before and after.
Status TableChanges(const commit::TableChangeSet& t, const Snapshot& before, const Snapshot& after,
                    std::vector<Change>& out) {
  const schema::TypeDef* type = TypeOf(after.catalog(), t.identity());
  if (type == nullptr) type = TypeOf(before.catalog(), t.identity());
  if (type == nullptr) {
    return Corruption("the change set names table '" + t.table_key + "', which neither the " +
                      "commit nor its parent has");
  }
  std::map<std::string, std::string> old_images, new_images;
  auto images = [&](const Snapshot& s, std::vector<std::string> ids,
                    std::map<std::string, std::string>& into) -> Status {
    if (ids.empty()) return Status::Ok();
    OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::TableVersion> v,
                               s.Table(type->table_key()));
    OMNIGRAPH_ASSIGN_OR_RETURN(auto got, Images(*type, *v, ids));
    into.merge(got);
    return Status::Ok();
  };
  std::vector<std::string> old_ids = t.updated, new_ids = t.updated;
  old_ids.insert(old_ids.end(), t.deleted.begin(), t.deleted.end());
  new_ids.insert(new_ids.end(), t.inserted.begin(), t.inserted.end());
  OMNIGRAPH_RETURN_IF_ERROR(images(before, old_ids, old_images));
  OMNIGRAPH_RETURN_IF_ERROR(images(after, new_ids, new_images));
  const bool edge = type->kind == schema::TypeKind::kEdge;
  auto add = [&](const std::string& id, int op) -> Status {
    auto b = old_images.find(id);
    auto a = new_images.find(id);
    if ((op != 0 && b == old_images.end()) || (op != 2 && a == new_images.end())) {
      return Corruption("the change set lists " + std::string(kOpNames[op]) + " of '" + id +
                        "' in " + type->table_key() + ", which the tables do not hold");
    }
    if (op == 1 && b->second == a->second) return Status::Ok();  // A rewrite of the same row.
    Json c = Json::object();
    c["kind"] = edge ? "edge" : "node";
    c["type"] = Json{{"id", type->id}, {"name", type->name}};
    c["id"] = id;
    c["op"] = kOpNames[op];
    if (op != 0) {
      OMNIGRAPH_ASSIGN_OR_RETURN(c["before"], ParseJson(b->second, "image"));
    }
    if (op != 2) {
      OMNIGRAPH_ASSIGN_OR_RETURN(c["after"], ParseJson(a->second, "image"));
    }
    out.push_back(Change{edge, type->id, id, op, std::move(c)});
    return Status::Ok();
  };
  for (const std::string& id : t.inserted) OMNIGRAPH_RETURN_IF_ERROR(add(id, 0));
  for (const std::string& id : t.updated) OMNIGRAPH_RETURN_IF_ERROR(add(id, 1));
  for (const std::string& id : t.deleted) OMNIGRAPH_RETURN_IF_ERROR(add(id, 2));
  return Status::Ok();
}

}  // namespace

Json CauseOf(const commit::Record& r) {
  Json cause = Json::object();
  cause["graph_commit_id"] = r.commit_id;
  cause["parent_commit_id"] = *r.parent_commit_id;
  if (r.lineage) cause["merged_parent_commit_id"] = r.lineage->merged_parent_commit_id;
  cause["authored_branch"] = r.branch.value_or("");
  if (r.actor) cause["actor_id"] = *r.actor;
  cause["authored_at"] = r.created_at;
  return cause;
}

Result<Json> CommitChanges(Graph& graph, std::string_view commit_id) {
  OMNIGRAPH_ASSIGN_OR_RETURN(commit::Record r,
                             commit::LookupCommit(*graph.runtime().store, commit_id));
  if (r.kind != commit::RecordKind::kCommit) {
    return Status(Code::kCommitNotFound, "'" + std::string(commit_id) + "' is not a commit");
  }
  if (!r.parent_commit_id) {
    return Status(Code::kParentlessCommit,
                  "commit '" + r.commit_id + "' has no parent (genesis): it has no diff");
  }
  if (r.change_set && r.change_set->schema_boundary) {
    return Status(Code::kSchemaBoundary,
                  "commit '" + r.commit_id + "' changed the schema: its entities are not diffed");
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(Snapshot before, graph.SnapshotAtCommit(*r.parent_commit_id));
  OMNIGRAPH_ASSIGN_OR_RETURN(Snapshot after, graph.SnapshotAtCommit(r.commit_id));
  Json out = Json::object();
  out["cause"] = CauseOf(r);
  OMNIGRAPH_ASSIGN_OR_RETURN(out["changes"], ChangesOf(graph, r, before, after));
  return out;
}

Result<Json> ChangesOf(Graph& graph, const commit::Record& r, const Snapshot& before,
                       const Snapshot& after) {
  commit::ChangeSet changes;
  if (r.change_set) {
    OMNIGRAPH_ASSIGN_OR_RETURN(changes,
                               commit::LoadChangeSetIds(*graph.runtime().store, *r.change_set));
  } else {
    // A record without a change set: the exact diff of the tables.
    OMNIGRAPH_ASSIGN_OR_RETURN(changes,
                               DiffChangeSet(graph.tables(), before.state(), after.state()));
    if (changes.schema_boundary) {
      return Status(Code::kSchemaBoundary,
                    "commit '" + r.commit_id + "' changed the schema: its entities are not diffed");
    }
  }
  std::vector<Change> list;
  for (const commit::TableChangeSet& t : changes.tables) {
    OMNIGRAPH_RETURN_IF_ERROR(TableChanges(t, before, after, list));
  }
  std::sort(list.begin(), list.end(), [](const Change& a, const Change& b) {
    return std::tie(a.edge, a.type_id, a.id, a.op) < std::tie(b.edge, b.type_id, b.id, b.op);
  });
  Json out = Json::array();
  for (Change& c : list) out.push_back(std::move(c.json));
  return out;
}

}  // namespace omnigraph::engine
