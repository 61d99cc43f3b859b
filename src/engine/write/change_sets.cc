#include "engine/write/change_sets.h"

#include <algorithm>
#include <set>

#include "base/sorted_records.h"
#include "commit/testing_hooks.h"
#include "engine/graph/graph.h"
#include "table/table_diff.h"

namespace omnigraph::engine {

namespace {

using Op = table::TableWrite::Op;

// The ids of a write's rows (or its pending rows), ascending.
Result<std::vector<std::string>> WrittenIds(const table::TableWrite& change) {
  std::vector<std::string> ids;
  if (change.pending) {
    ids.reserve(change.pending->ids->size());
    OMNIGRAPH_RETURN_IF_ERROR(change.pending->ids->ForEachKey([&](std::string_view id) {
      ids.emplace_back(id);
      return Status::Ok();
    }));
    return ids;
  }
  const table::Column* column = change.rows.FindColumn(table::kIdFieldId);
  if (column == nullptr) return InvalidArgument("the rows have no id column");
  ids.reserve(change.rows.num_rows());
  for (uint64_t row = 0; row < change.rows.num_rows(); ++row) {
    ids.emplace_back(column->StringAt(row));
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

// Splits ascending `ids` by whether `base` holds them.
Result<std::pair<std::vector<std::string>, std::vector<std::string>>> SplitByBase(
    const table::TableVersion& base, std::vector<std::string> ids) {
  std::vector<std::string_view> views(ids.begin(), ids.end());
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<bool> held, base.Contains(views));
  std::pair<std::vector<std::string>, std::vector<std::string>> out;  // (absent, held)
  for (size_t i = 0; i < ids.size(); ++i) {
    (held[i] ? out.second : out.first).push_back(std::move(ids[i]));
  }
  return out;
}

}  // namespace

namespace {

// Bytes a change set's list spends on the ids `change` writes (each id's length, its quotes and
// a comma: commit::InlineIdBytes), counted up to just past `max`.
Result<uint64_t> WrittenIdBytes(const table::TableWrite& change, uint64_t max) {
  uint64_t n = 0;
  if (change.pending) {
    // Read only up to the bound: a load's ids (2.4 M at the peers graph's 1x) may sit in a
    // temporary file, and past the bound their count is all the caller uses (decision 245).
    std::unique_ptr<SortedRecords::Reader> reader = change.pending->ids->Open();
    std::string_view id, value;
    while (n <= max) {
      OMNIGRAPH_ASSIGN_OR_RETURN(bool more, reader->Next(&id, &value));
      if (!more) break;
      n += id.size() + 3;
    }
    return n;
  }
  const table::Column* column = change.rows.FindColumn(table::kIdFieldId);
  if (column == nullptr) return InvalidArgument("the rows have no id column");
  for (uint64_t row = 0; row < change.rows.num_rows() && n <= max; ++row) {
    n += column->StringAt(row).size() + 3;
  }
  return n;
}

// How many of the ids `change` writes (ascending, once each) `base` holds, and how many it
// writes: probed a batch at a time, so that the ids are never all held (none when the base is
// empty).
Result<std::pair<uint64_t, uint64_t>> HeldAndWritten(const table::TableVersion& base,
                                                     const table::TableWrite& change) {
  if (!change.pending) {
    OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<std::string> ids, WrittenIds(change));
    OMNIGRAPH_ASSIGN_OR_RETURN(auto split, SplitByBase(base, std::move(ids)));
    return std::make_pair(uint64_t{split.second.size()},
                          uint64_t{split.first.size() + split.second.size()});
  }
  const uint64_t written = change.pending->ids->size();
  if (base.entity_count() == 0) return std::make_pair(uint64_t{0}, written);
  constexpr size_t kBatch = 1 << 16;
  std::vector<std::string> batch;
  uint64_t held = 0;
  auto probe = [&]() -> Status {
    std::vector<std::string_view> views(batch.begin(), batch.end());
    OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<bool> found, base.Contains(views));
    held += static_cast<uint64_t>(std::count(found.begin(), found.end(), true));
    batch.clear();
    return Status::Ok();
  };
  OMNIGRAPH_RETURN_IF_ERROR(change.pending->ids->ForEachKey([&](std::string_view id) -> Status {
    batch.emplace_back(id);
    return batch.size() >= kBatch ? probe() : Status::Ok();
  }));
  OMNIGRAPH_RETURN_IF_ERROR(probe());
  return std::make_pair(held, written);
}

// The counts alone of a change whose lists are too long to keep (TableChangeOf's
// `list_bytes_max`).
Result<commit::TableChangeSet> CountsOnly(const table::TableVersion& base,
                                          const table::TableWrite& change,
                                          commit::TableChangeSet t) {
  if (change.op == Op::kAppend) {
    // Staging refuses an append of an id the base holds.
    if (change.pending) {
      t.inserted_count = change.pending->ids->size();
    } else {
      OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<std::string> ids, WrittenIds(change));
      t.inserted_count = ids.size();
    }
    return t;
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(auto counts, HeldAndWritten(base, change));
  const auto [held, written] = counts;
  t.updated_count = held;
  t.inserted_count = written - held;
  t.deleted_count = change.op == Op::kOverwrite ? base.entity_count() - held : 0;
  return t;
}

}  // namespace

Result<commit::TableChangeSet> TableChangeOf(const table::TableVersion& base,
                                             const table::TableWrite& change,
                                             uint64_t list_bytes_max, bool* lists_omitted) {
  commit::TableChangeSet t;
  t.stable_table_id = base.table().stable_table_id;
  t.incarnation = base.table().incarnation;
  t.table_key = base.manifest().table_key;
  if (change.op != Op::kDelete) {
    // Lists that no change set could hold are not built: only their counts are needed.
    OMNIGRAPH_ASSIGN_OR_RETURN(uint64_t bytes, WrittenIdBytes(change, list_bytes_max));
    if (bytes > list_bytes_max) {
      if (lists_omitted != nullptr) *lists_omitted = true;
      return CountsOnly(base, change, std::move(t));
    }
  }
  if (change.op == Op::kDelete) {
    std::vector<std::string> ids(change.ids.begin(), change.ids.end());
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    OMNIGRAPH_ASSIGN_OR_RETURN(auto split, SplitByBase(base, std::move(ids)));
    t.deleted = std::move(split.second);
  } else if (change.op == Op::kOverwrite) {
    OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<std::string> ids, WrittenIds(change));
    OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<std::string> old, base.Ids());
    // One merge of the two ascending lists, moving each id to its list.
    size_t i = 0, j = 0;
    while (i < ids.size() || j < old.size()) {
      if (j == old.size() || (i < ids.size() && ids[i] < old[j])) {
        t.inserted.push_back(std::move(ids[i++]));
      } else if (i == ids.size() || old[j] < ids[i]) {
        t.deleted.push_back(std::move(old[j++]));
      } else {
        t.updated.push_back(std::move(ids[i++]));
        ++j;
      }
    }
  } else {
    OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<std::string> ids, WrittenIds(change));
    if (change.op == Op::kAppend) {
      t.inserted = std::move(ids);  // Staging refuses an append of an id the base holds.
    } else {
      OMNIGRAPH_ASSIGN_OR_RETURN(auto split, SplitByBase(base, std::move(ids)));
      t.inserted = std::move(split.first);
      t.updated = std::move(split.second);
      if (commit::TestingHooks().change_set_upserts_as_inserts) {  // Planted bug (test only).
        t.inserted.insert(t.inserted.end(), t.updated.begin(), t.updated.end());
        std::sort(t.inserted.begin(), t.inserted.end());
        t.updated.clear();
      }
    }
  }
  t.inserted_count = t.inserted.size();
  t.updated_count = t.updated.size();
  t.deleted_count = t.deleted.size();
  return t;
}

std::string SummaryOf(std::string_view what, const commit::ChangeSet& c) {
  // (sign, kind) -> count, in the order + ~ -, nodes before edges.
  uint64_t counts[3][2] = {};
  for (const commit::TableChangeSet& t : c.tables) {
    const int kind = t.table_key.starts_with("edge:") ? 1 : 0;
    counts[0][kind] += t.inserted_count;
    counts[1][kind] += t.updated_count;
    counts[2][kind] += t.deleted_count;
  }
  std::string out(what);
  out += ":";
  const char signs[3] = {'+', '~', '-'};
  bool any = false;
  for (int s = 0; s < 3; ++s) {
    for (int k = 0; k < 2; ++k) {
      const uint64_t n = counts[s][k];
      if (n == 0) continue;
      any = true;
      out += std::string(" ") + signs[s] + std::to_string(n) + (k == 0 ? " node" : " edge") +
             (n == 1 ? "" : "s");
    }
  }
  if (!any) out += " no entity changes";
  return out;
}

namespace {

Result<commit::TableChangeSet> DiffTable(const table::TableStore& tables,
                                         const commit::TableState* before,
                                         const commit::TableState* after) {
  const commit::TableState& some = after != nullptr ? *after : *before;
  commit::TableChangeSet t;
  t.stable_table_id = some.registration.stable_table_id;
  t.incarnation = some.registration.incarnation;
  t.table_key = some.registration.table_key;
  if (before == nullptr || after == nullptr) {
    OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::TableVersion> v, tables.Open(some.pin));
    OMNIGRAPH_ASSIGN_OR_RETURN((before == nullptr ? t.inserted : t.deleted), v->Ids());
  } else {
    OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::TableVersion> b,
                               tables.Open(before->pin));
    OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::TableVersion> a,
                               tables.Open(after->pin));
    OMNIGRAPH_ASSIGN_OR_RETURN(table::TableDiff diff, table::Diff(*b, *a));
    t.inserted = std::move(diff.inserted_ids);
    t.updated = std::move(diff.updated_ids);
    t.deleted = std::move(diff.deleted_ids);
  }
  t.inserted_count = t.inserted.size();
  t.updated_count = t.updated.size();
  t.deleted_count = t.deleted.size();
  return t;
}

}  // namespace

Result<commit::ChangeSet> DiffChangeSet(const table::TableStore& tables,
                                        const commit::GraphState& before,
                                        const commit::GraphState& after) {
  commit::ChangeSet c;
  if (before.schema != after.schema) {
    c.schema_boundary = true;
    return c;
  }
  std::set<TableId> identities;
  for (const auto& [id, t] : before.tables) identities.insert(id);
  for (const auto& [id, t] : after.tables) identities.insert(id);
  for (const TableId& id : identities) {
    auto b = before.tables.find(id);
    auto a = after.tables.find(id);
    const commit::TableState* bs = b == before.tables.end() ? nullptr : &b->second;
    const commit::TableState* as = a == after.tables.end() ? nullptr : &a->second;
    if (bs != nullptr && as != nullptr && bs->pin == as->pin) continue;
    OMNIGRAPH_ASSIGN_OR_RETURN(commit::TableChangeSet t, DiffTable(tables, bs, as));
    if (t.inserted.empty() && t.updated.empty() && t.deleted.empty()) continue;
    c.tables.push_back(std::move(t));
  }
  return c;
}

Json BatchMembersJson(const commit::Record& r) {
  Json members = Json::array();
  for (const commit::BatchMember& m : r.members) {
    Json one{{"counts", m.counts}};
    if (m.actor) one["actor_id"] = *m.actor;
    if (m.idempotency_key.is_object()) one["idempotency_key"] = m.idempotency_key.value("key", "");
    members.push_back(std::move(one));
  }
  return members;
}

}  // namespace omnigraph::engine
