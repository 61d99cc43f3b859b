// The change-set oracle (docs/design/simulation.md): every record's change set recomputed from
// physical table state, by comparing every row of the table versions the commit and its first
// parent pin (table::ExactDiff).
#include <algorithm>
#include <set>

#include "commit/change_set.h"
#include "engine/graph/graph.h"
#include "table/table_diff.h"
#include "testing/sim_model.h"

namespace omnigraph::testing {

namespace {

std::string Join(const std::vector<std::string>& ids) {
  std::string out = "[";
  for (const std::string& id : ids) out += (out.size() > 1 ? "," : "") + id;
  return out + "]";
}

// The exact diff of one table between two states; a table on one side only is all inserted or
// all deleted.
Result<commit::TableChangeSet> ExactTableChange(const table::TableStore& tables,
                                                const commit::TableState* before,
                                                const commit::TableState* after) {
  commit::TableChangeSet t;
  if (before == nullptr || after == nullptr) {
    const commit::TableState& some = after != nullptr ? *after : *before;
    OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::TableVersion> v, tables.Open(some.pin));
    OMNIGRAPH_ASSIGN_OR_RETURN((before == nullptr ? t.inserted : t.deleted), v->Ids());
    return t;
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::TableVersion> b,
                             tables.Open(before->pin));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::TableVersion> a, tables.Open(after->pin));
  OMNIGRAPH_ASSIGN_OR_RETURN(table::TableDiff diff, table::ExactDiff(*b, *a));
  t.inserted = std::move(diff.inserted_ids);
  t.updated = std::move(diff.updated_ids);
  t.deleted = std::move(diff.deleted_ids);
  return t;
}

// Whether every id of `ids` is live in both versions.
bool LiveOnBothSides(const table::TableStore& tables, const commit::TableState& before,
                     const commit::TableState& after, const std::vector<std::string>& ids) {
  std::vector<std::string_view> views(ids.begin(), ids.end());
  for (const commit::TableState* s : {&before, &after}) {
    Result<std::shared_ptr<const table::TableVersion>> v = tables.Open(s->pin);
    if (!v.ok()) return false;
    Result<std::vector<bool>> found = (*v)->Contains(views);
    if (!found.ok() || std::count(found->begin(), found->end(), false) > 0) return false;
  }
  return true;
}

}  // namespace

void CheckChangeSet(const storage::Runtime& rt, const table::TableStore& tables,
                    const commit::Record& r, const commit::GraphState& before,
                    const commit::GraphState& after, std::vector<std::string>& v, int& checked) {
  const std::string where = "the change set of " + r.commit_id;
  if (!r.change_set) return v.push_back(where + " is missing (every graph writer records one)");
  ++checked;
  if (r.change_set->schema_boundary != (before.schema != after.schema)) {
    return v.push_back(
        where + " says schema_boundary=" + (r.change_set->schema_boundary ? "true" : "false") +
        " but the schemas of the commit and its parent say otherwise");
  }
  if (r.change_set->schema_boundary) return;
  Result<commit::ChangeSet> full = commit::LoadChangeSetIds(*rt.store, *r.change_set);
  if (!full.ok()) return v.push_back(where + " does not load: " + full.status().ToString());
  std::map<TableId, const commit::TableChangeSet*> recorded;
  for (const commit::TableChangeSet& t : full->tables) recorded[t.identity()] = &t;
  std::set<TableId> identities;
  for (const auto& [id, t] : before.tables) identities.insert(id);
  for (const auto& [id, t] : after.tables) identities.insert(id);
  for (const auto& [id, t] : recorded) identities.insert(id);
  for (const TableId& id : identities) {
    auto b = before.tables.find(id);
    auto a = after.tables.find(id);
    const commit::TableState* bs = b == before.tables.end() ? nullptr : &b->second;
    const commit::TableState* as = a == after.tables.end() ? nullptr : &a->second;
    commit::TableChangeSet exact;
    if (!(bs != nullptr && as != nullptr && bs->pin == as->pin)) {
      Result<commit::TableChangeSet> got = ExactTableChange(tables, bs, as);
      if (!got.ok())
        return v.push_back(where + ": the exact diff failed: " + got.status().ToString());
      exact = std::move(*got);
    }
    static const commit::TableChangeSet kNone;
    const commit::TableChangeSet& rec = recorded.count(id) ? *recorded[id] : kNone;
    const std::string table =
        " table " + std::to_string(id.stable_table_id) + "/" + std::to_string(id.incarnation);
    // Inserts and deletes are exact. An update the diff sees is recorded; a recorded update the
    // diff does not see is a rewrite with the same row image, so it must be live on both sides.
    const bool updates_listed = std::includes(rec.updated.begin(), rec.updated.end(),
                                              exact.updated.begin(), exact.updated.end());
    if (rec.inserted != exact.inserted || rec.deleted != exact.deleted || !updates_listed) {
      v.push_back(where + table + " records inserted=" + Join(rec.inserted) +
                  " updated=" + Join(rec.updated) + " deleted=" + Join(rec.deleted) +
                  " but the tables say " + "inserted=" + Join(exact.inserted) +
                  " updated=" + Join(exact.updated) + " deleted=" + Join(exact.deleted));
    } else if (!rec.updated.empty() && (bs == nullptr || as == nullptr)) {
      v.push_back(where + table + " records updates of a table that is new or gone");
    } else if (rec.updated.size() != exact.updated.size()) {
      std::vector<std::string> rewrites;
      std::set_difference(rec.updated.begin(), rec.updated.end(), exact.updated.begin(),
                          exact.updated.end(), std::back_inserter(rewrites));
      if (!LiveOnBothSides(tables, *bs, *as, rewrites)) {
        v.push_back(where + table + " records updates of ids that are not live before and after: " +
                    Join(rewrites));
      }
    }
  }
}

}  // namespace omnigraph::testing
