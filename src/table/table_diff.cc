#include "table/table_diff.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "table/row_gather.h"
#include "table/table_context.h"

namespace omnigraph::table {

namespace {

Status CheckComparable(const TableVersion& before, const TableVersion& after) {
  if (before.table() != after.table()) {
    return InvalidArgument("diff of versions of two tables: " + before.table().Root() + " and " +
                           after.table().Root());
  }
  if (before.schema() != after.schema()) {
    return Unsupported("diff of table '" + after.manifest().table_key + "' across a schema change");
  }
  return Status::Ok();
}

// Rows of `v` that are live in `v` but not in `other` (by fragment path and deletion vectors).
Result<std::vector<RowRef>> LiveOnlyIn(const TableVersion& v, const TableVersion& other) {
  internal::TableContext& ctx = v.context();
  std::map<std::string_view, const FragmentEntry*> other_fragments;
  for (const FragmentEntry& f : other.manifest().fragments) other_fragments[f.path] = &f;
  std::vector<RowRef> out;
  for (size_t i = 0; i < v.manifest().fragments.size(); ++i) {
    const FragmentEntry& f = v.manifest().fragments[i];
    OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const Roaring> mine, ctx.Deletion(v.manifest(), f));
    Roaring gone;  // Rows not live in `other`.
    auto it = other_fragments.find(f.path);
    if (it == other_fragments.end()) {
      gone.addRange(0, f.rows);
    } else {
      OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const Roaring> theirs,
                                 ctx.Deletion(other.manifest(), *it->second));
      gone = *theirs;
    }
    gone -= *mine;
    for (uint32_t row : gone) out.push_back(RowRef{static_cast<uint32_t>(i), row});
  }
  return out;
}

struct Side {
  ColumnBatch rows;                                    // Every column, in the refs' order.
  std::unordered_map<std::string_view, size_t> by_id;  // Row in `rows` of each id.
};

Result<Side> ReadSide(const TableVersion& v, std::span<const RowRef> refs) {
  Side side;
  OMNIGRAPH_ASSIGN_OR_RETURN(side.rows, v.Gather(v.schema(), refs));
  const Column* ids = side.rows.FindColumn(kIdFieldId);
  for (uint64_t row = 0; row < side.rows.num_rows(); ++row) side.by_id[ids->StringAt(row)] = row;
  return side;
}

// Classifies the rows of two sides (before's rows that are gone, after's rows that are new, or
// whole versions for ExactDiff) into a TableDiff.
Result<TableDiff> Classify(const Schema& schema, const Side& removed, const Side& added) {
  TableDiff diff;
  std::vector<std::pair<std::string_view, uint64_t>> inserted, deleted;
  std::vector<std::tuple<std::string_view, uint64_t, uint64_t>> updated;
  for (const auto& [id, row] : added.by_id) {
    auto it = removed.by_id.find(id);
    if (it == removed.by_id.end()) {
      inserted.emplace_back(id, row);
    } else if (RowImage(removed.rows, it->second) != RowImage(added.rows, row)) {
      updated.emplace_back(id, it->second, row);
    }
  }
  for (const auto& [id, row] : removed.by_id) {
    if (!added.by_id.contains(id)) deleted.emplace_back(id, row);
  }
  std::sort(inserted.begin(), inserted.end());
  std::sort(deleted.begin(), deleted.end());
  std::sort(updated.begin(), updated.end());
  std::vector<RowRef> inserted_rows, before_rows, after_rows;
  for (const auto& [id, row] : inserted) {
    diff.inserted_ids.emplace_back(id);
    inserted_rows.push_back(RowRef{0, static_cast<uint32_t>(row)});
  }
  for (const auto& [id, row] : deleted) diff.deleted_ids.emplace_back(id);
  for (const auto& [id, before, after] : updated) {
    diff.updated_ids.emplace_back(id);
    before_rows.push_back(RowRef{0, static_cast<uint32_t>(before)});
    after_rows.push_back(RowRef{0, static_cast<uint32_t>(after)});
  }
  std::vector<Column> ins, bef, aft;
  for (size_t c = 0; c < schema.size(); ++c) {
    const Column* a = &added.rows.column(c);
    const Column* r = &removed.rows.column(c);
    OMNIGRAPH_ASSIGN_OR_RETURN(Column x, GatherColumn(schema[c], std::span(&a, 1), inserted_rows));
    OMNIGRAPH_ASSIGN_OR_RETURN(Column y, GatherColumn(schema[c], std::span(&r, 1), before_rows));
    OMNIGRAPH_ASSIGN_OR_RETURN(Column z, GatherColumn(schema[c], std::span(&a, 1), after_rows));
    ins.push_back(std::move(x));
    bef.push_back(std::move(y));
    aft.push_back(std::move(z));
  }
  diff.inserted = ColumnBatch(schema, std::move(ins), inserted_rows.size());
  diff.updated_before = ColumnBatch(schema, std::move(bef), before_rows.size());
  diff.updated_after = ColumnBatch(schema, std::move(aft), after_rows.size());
  return diff;
}

}  // namespace

Result<TableDiff> Diff(const TableVersion& before, const TableVersion& after) {
  OMNIGRAPH_RETURN_IF_ERROR(CheckComparable(before, after));
  const TableManifest& a = after.manifest();
  if (a.operation == Operation::kDelete && a.base_staged_version == before.pin().staged_version) {
    TableDiff diff;
    OMNIGRAPH_ASSIGN_OR_RETURN(diff.deleted_ids, after.DeletedIds());
    std::sort(diff.deleted_ids.begin(), diff.deleted_ids.end());
    diff.inserted = EmptyBatch(a.schema);
    diff.updated_before = EmptyBatch(a.schema);
    diff.updated_after = EmptyBatch(a.schema);
    return diff;
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<RowRef> removed_refs, LiveOnlyIn(before, after));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<RowRef> added_refs, LiveOnlyIn(after, before));
  OMNIGRAPH_ASSIGN_OR_RETURN(Side removed, ReadSide(before, removed_refs));
  OMNIGRAPH_ASSIGN_OR_RETURN(Side added, ReadSide(after, added_refs));
  return Classify(a.schema, removed, added);
}

Result<TableDiff> ExactDiff(const TableVersion& before, const TableVersion& after) {
  OMNIGRAPH_RETURN_IF_ERROR(CheckComparable(before, after));
  Side sides[2];
  const TableVersion* versions[2] = {&before, &after};
  for (int s = 0; s < 2; ++s) {
    OMNIGRAPH_ASSIGN_OR_RETURN(sides[s].rows, versions[s]->ScanAll({}));
    const Column* ids = sides[s].rows.FindColumn(kIdFieldId);
    for (uint64_t row = 0; row < sides[s].rows.num_rows(); ++row) {
      if (!sides[s].by_id.emplace(ids->StringAt(row), row).second) {
        return Corruption("table version holds id '" + std::string(ids->StringAt(row)) + "' twice",
                          versions[s]->manifest_name());
      }
    }
  }
  return Classify(after.schema(), sides[0], sides[1]);
}

}  // namespace omnigraph::table
