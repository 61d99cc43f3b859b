// Write validation's edge checks: endpoints, dangling edges and @card (validate.h).
#include <charconv>
#include <cmath>
#include <cstring>
#include <set>
#include <unordered_map>

#include "base/executor.h"
#include "base/sorted_records.h"
#include "base/string_index.h"
#include "engine/write/validate_internal.h"
#include "query/exec/column_codec.h"
#include "schema/keys.h"
#include "table/table_manifest.h"

namespace omnigraph::engine::validate_internal {

// The kind byte of a touched-source record of the @card check: a new edge of the source, or a
// base edge the write takes away from it.
constexpr char kFresh = 'f';
constexpr char kGone = 'g';

Status WriteValidator::CheckEndpoints(const schema::TypeDef& edge, const std::string& key,
                                      const TableChange& change) {
  const schema::TypeDef* nodes[2] = {catalog_.FindById(edge.from.type_id),
                                     catalog_.FindById(edge.to.type_id)};
  for (int side = 0; side < 2; ++side) {
    if (nodes[side] == nullptr || nodes[side]->kind != schema::TypeKind::kNode) {
      const schema::TypeRef& ref = side == 0 ? edge.from : edge.to;
      return InvalidArgument("edge " + edge.name + " names endpoint type '" + ref.name +
                             "', which is not a node type");
    }
  }
  // The missing endpoint of the smallest row (the source side first on a tie).
  std::optional<std::tuple<uint64_t, int, std::string>> missing;
  auto miss = [&](uint64_t row, int side, std::string_view id) {
    if (!missing ||
        std::make_pair(row, side) < std::make_pair(std::get<0>(*missing), std::get<1>(*missing))) {
      missing.emplace(row, side, std::string(id));
    }
  };
  OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<NodeIdSet> src_nodes, FewNodeIds(*nodes[0]));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<NodeIdSet> dst_nodes, FewNodeIds(*nodes[1]));
  if (src_nodes && dst_nodes) {
    const NodeIdSet* sets[2] = {&*src_nodes, &*dst_nodes};
    OMNIGRAPH_RETURN_IF_ERROR(ProbeEndpoints(change, sets, miss));
  } else {
    OMNIGRAPH_RETURN_IF_ERROR(SortAndMergeEndpoints(change, nodes, miss));
  }
  if (!missing) return Status::Ok();
  const auto& [row, side, id] = *missing;
  return Violation(label_, key, row,
                   "edge " + edge.name + " " + (side == 0 ? "from" : "to") + " '" + id +
                       "' not found in " + nodes[side]->name);
}

Result<std::optional<WriteValidator::NodeIdSet>> WriteValidator::FewNodeIds(
    const schema::TypeDef& node) {
  NodeIdSet set;
  set.node_key = node.table_key();
  const TableChange* node_change = ChangeOf(set.node_key);
  if (node_change == nullptr) return std::optional<NodeIdSet>(std::move(set));
  set.base_counts = node_change->op != Op::kOverwrite;
  const SortedRecords* added = HasRows(*node_change) ? &ChangeIds(*node_change) : nullptr;
  const SortedRecords* removed = RemovedIds(*node_change);
  const uint64_t few = sort_bytes_ / 64;
  if ((added && added->size() > few) || (removed && removed->size() > few)) {
    return std::optional<NodeIdSet>();
  }
  // Every id is copied into `held` (sized for all of them, so it never moves, a move of the set
  // included), and viewed there.
  const SortedRecords* const lists[2] = {added, removed};
  uint64_t bytes = 0;
  for (const SortedRecords* records : lists) {
    if (records == nullptr) continue;
    OMNIGRAPH_RETURN_IF_ERROR(records->ForEachKey([&](std::string_view id) -> Status {
      bytes += id.size();
      return Status::Ok();
    }));
  }
  set.held.resize(bytes);
  if (added != nullptr) set.added = StringIndex(added->size());
  if (removed != nullptr) set.removed = StringIndex(removed->size());
  uint64_t at = 0;
  for (int list = 0; list < 2; ++list) {
    if (lists[list] == nullptr) continue;
    StringIndex& index = list == 0 ? set.added : set.removed;
    OMNIGRAPH_RETURN_IF_ERROR(lists[list]->ForEachKey([&](std::string_view id) -> Status {
      if (at + id.size() > bytes) return Internal("node ids changed while read");
      if (!id.empty()) std::memcpy(set.held.data() + at, id.data(), id.size());
      index.Insert(std::string_view(set.held.data() + at, id.size()));
      at += id.size();
      return Status::Ok();
    }));
  }
  return std::optional<NodeIdSet>(std::move(set));
}

Status WriteValidator::ProbeEndpoints(const TableChange& change, const NodeIdSet* const sets[2],
                                      const MissFn& miss) {
  std::vector<std::string> ask[2];
  std::vector<uint64_t> ask_row[2];
  auto lookup = [&](int side) -> Status {
    if (ask[side].empty()) return Status::Ok();
    OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::TableVersion> base,
                               Base(sets[side]->node_key));
    const uint32_t id_field[] = {table::kIdFieldId};
    OMNIGRAPH_ASSIGN_OR_RETURN(table::LookupResult looked, base->Lookup(ask[side], id_field));
    for (size_t j = 0; j < ask[side].size(); ++j) {
      if (!looked.found[j]) miss(ask_row[side][j], side, ask[side][j]);
    }
    ask[side].clear();
    ask_row[side].clear();
    return Status::Ok();
  };
  const uint32_t end_fields[] = {table::kSrcFieldId, table::kDstFieldId};
  const Status streamed =
      ForEachBatch(change, [&](const table::ColumnBatch& rows, uint64_t first) -> Status {
        // The rows whose endpoint the write does not add, found a side per thread when there
        // are two (the sets are only read); what follows them (the base, a miss) is this
        // thread's, in row order per side as before (decision 245).
        const table::Column* cols[2] = {rows.FindColumn(end_fields[0]),
                                        rows.FindColumn(end_fields[1])};
        std::vector<uint32_t> not_added[2];
        const auto probe = [&](int side) {
          constexpr uint32_t kGroup = 256;
          std::string_view ids[kGroup];
          uint32_t found[kGroup];
          for (uint32_t at = 0; at < rows.num_rows(); at += kGroup) {
            const uint32_t n = std::min<uint64_t>(kGroup, rows.num_rows() - at);
            for (uint32_t j = 0; j < n; ++j) ids[j] = cols[side]->StringAt(at + j);
            sets[side]->added.FindMany(std::span(ids, n), std::span(found, n));
            for (uint32_t j = 0; j < n; ++j) {
              if (found[j] == StringIndex::kAbsent) not_added[side].push_back(at + j);
            }
          }
        };
        if (executor_ != nullptr && executor_->Parallelism() > 1) {
          TaskGroup sources(*executor_);
          sources.Add([&]() -> Status {
            probe(0);
            return Status::Ok();
          });
          probe(1);
          OMNIGRAPH_RETURN_IF_ERROR(sources.Wait());
        } else {
          probe(0);
          probe(1);
        }
        for (int side = 0; side < 2; ++side) {
          const NodeIdSet& set = *sets[side];
          for (uint32_t r : not_added[side]) {
            const std::string_view id = cols[side]->StringAt(r);
            if (!set.base_counts || set.removed.Contains(id)) {
              miss(first + r, side, id);
              continue;
            }
            ask[side].emplace_back(id);
            ask_row[side].push_back(first + r);
            if (ask[side].size() >= kValidateBatchRows) OMNIGRAPH_RETURN_IF_ERROR(lookup(side));
          }
        }
        return Status::Ok();
      });
  OMNIGRAPH_RETURN_IF_ERROR(streamed);
  OMNIGRAPH_RETURN_IF_ERROR(lookup(0));
  return lookup(1);
}

Status WriteValidator::SortAndMergeEndpoints(const TableChange& change,
                                             const schema::TypeDef* const nodes[2],
                                             const MissFn& miss) {
  // Both sides in one pass over the rows (half the budget each).
  ExternalSorter src_ends(sort_bytes_ / 2), dst_ends(sort_bytes_ / 2);
  const uint32_t end_fields[] = {table::kSrcFieldId, table::kDstFieldId};
  ExternalSorter* const end_sorters[] = {&src_ends, &dst_ends};
  OMNIGRAPH_RETURN_IF_ERROR(SortColumnsWithRows(change, end_fields, end_sorters));
  for (int side = 0; side < 2; ++side) {
    OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const SortedRecords> sorted,
                               end_sorters[side]->Finish());
    const std::string node_key = nodes[side]->table_key();
    const TableChange* node_change = ChangeOf(node_key);
    SortedProbe added(node_change != nullptr && HasRows(*node_change) ? &ChangeIds(*node_change)
                                                                      : nullptr);
    SortedProbe deleted(node_change != nullptr ? RemovedIds(*node_change) : nullptr);
    const bool base_counts = node_change == nullptr || node_change->op != Op::kOverwrite;
    std::vector<std::string> ask;
    std::vector<uint64_t> ask_row;
    auto lookup = [&]() -> Status {
      if (ask.empty()) return Status::Ok();
      OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::TableVersion> base, Base(node_key));
      const uint32_t id_field[] = {table::kIdFieldId};
      OMNIGRAPH_ASSIGN_OR_RETURN(table::LookupResult looked, base->Lookup(ask, id_field));
      for (size_t j = 0; j < ask.size(); ++j) {
        if (!looked.found[j]) miss(ask_row[j], side, ask[j]);
      }
      ask.clear();
      ask_row.clear();
      return Status::Ok();
    };
    std::unique_ptr<SortedRecords::Reader> reader = sorted->Open();
    std::string last;
    bool any = false;
    std::string_view id, row;
    while (true) {
      OMNIGRAPH_ASSIGN_OR_RETURN(bool more, reader->Next(&id, &row));
      if (!more) break;
      // The first record of an id holds its smallest row.
      if (any && id == last) continue;
      any = true;
      last.assign(id);
      OMNIGRAPH_ASSIGN_OR_RETURN(bool is_added, added.Contains(id));
      if (is_added) continue;
      OMNIGRAPH_ASSIGN_OR_RETURN(bool is_deleted, deleted.Contains(id));
      if (!base_counts || is_deleted) {
        miss(BigEndianAt(row, 0), side, id);
        continue;
      }
      ask.emplace_back(id);
      ask_row.push_back(BigEndianAt(row, 0));
      if (ask.size() >= kValidateBatchRows) OMNIGRAPH_RETURN_IF_ERROR(lookup());
    }
    OMNIGRAPH_RETURN_IF_ERROR(lookup());
  }
  return Status::Ok();
}

Status WriteValidator::CheckDangling(const schema::TypeDef& node, const std::string& key,
                                     const TableChange& change) {
  // Removed id -> the row to label a violation with.
  ExternalSorter removed_sorter(sort_bytes_);
  if (NamesRemovedIds(change)) {
    std::string row;
    for (uint64_t i = 0; i < change.ids.size(); ++i) {
      row.clear();
      PutBigEndian(i, 8, &row);
      OMNIGRAPH_RETURN_IF_ERROR(removed_sorter.Add(change.ids[i], row));
    }
  } else {
    SortedProbe kept(&ChangeIds(change));
    OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::TableVersion> base, Base(key));
    const std::string row(8, '\0');
    const Status scanned = ScanFields(
        *base, {table::kIdFieldId},
        [&](const table::ColumnBatch& batch, std::span<const table::Column*> cols) -> Status {
          for (uint64_t r = 0; r < batch.num_rows(); ++r) {
            OMNIGRAPH_ASSIGN_OR_RETURN(bool is_kept, kept.Contains(cols[0]->StringAt(r)));
            if (!is_kept) OMNIGRAPH_RETURN_IF_ERROR(removed_sorter.Add(cols[0]->StringAt(r), row));
          }
          return Status::Ok();
        });
    OMNIGRAPH_RETURN_IF_ERROR(scanned);
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const SortedRecords> removed, removed_sorter.Finish());
  if (removed->empty()) return Status::Ok();
  for (const schema::TypeDef& edge : catalog_.edges()) {
    const bool from = edge.from.type_id == node.id, to = edge.to.type_id == node.id;
    if (!from && !to) continue;
    const std::string edge_key = edge.table_key();
    const Status joined = JoinKeys(
        *removed,
        [&](const EmitFn& emit) {
          return ScanBase(
              edge_key, ChangeOf(edge_key), {table::kSrcFieldId, table::kDstFieldId},
              [&](std::span<const table::Column*> cols, uint64_t r, bool kept) -> Status {
                if (!kept) return Status::Ok();
                if (from)
                  OMNIGRAPH_RETURN_IF_ERROR(emit(cols[1]->StringAt(r), cols[0]->StringAt(r)));
                if (to) OMNIGRAPH_RETURN_IF_ERROR(emit(cols[2]->StringAt(r), cols[0]->StringAt(r)));
                return Status::Ok();
              });
        },
        [&](std::string_view id, std::string_view row, const JoinHit& hit) -> Status {
          if (hit.matches == 0) return Status::Ok();
          return Violation(label_, key, BigEndianAt(row, 0),
                           "cannot remove " + node.name + " '" + std::string(id) + "': edge " +
                               edge.name + " '" + hit.first_payload + "' still references it");
        });
    OMNIGRAPH_RETURN_IF_ERROR(joined);
  }
  return Status::Ok();
}

Status WriteValidator::SortTouchedSources(const schema::TypeDef& edge, const std::string& key,
                                          const TableChange& change, ExternalSorter& touched) {
  auto add = [&](std::string_view source, uint64_t row, char kind) {
    std::string value;
    PutBigEndian(row, 8, &value);
    value.push_back(kind);
    return touched.Add(source, value);
  };
  auto add_new_rows = [&](const std::function<Status(std::string_view, uint64_t)>& also) {
    return ForEachBatch(change, [&](const table::ColumnBatch& rows, uint64_t first) -> Status {
      const table::Column* src = rows.FindColumn(table::kSrcFieldId);
      for (uint64_t r = 0; r < rows.num_rows(); ++r) {
        OMNIGRAPH_RETURN_IF_ERROR(add(src->StringAt(r), first + r, kFresh));
        if (also) OMNIGRAPH_RETURN_IF_ERROR(also(IdAt(rows, r), first + r));
      }
      return Status::Ok();
    });
  };
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::TableVersion> base, Base(key));
  if (change.op == Op::kOverwrite) {
    OMNIGRAPH_RETURN_IF_ERROR(add_new_rows({}));
    if (edge.card.min == 0) return Status::Ok();
    return ScanFields(
        *base, {table::kSrcFieldId},
        [&](const table::ColumnBatch& batch, std::span<const table::Column*> cols) -> Status {
          for (uint64_t r = 0; r < batch.num_rows(); ++r) {
            OMNIGRAPH_RETURN_IF_ERROR(add(cols[0]->StringAt(r), 0, kGone));
          }
          return Status::Ok();
        });
  }
  // The base rows the change replaces or removes, looked up a batch at a time.
  std::vector<std::string> ask;
  std::vector<uint64_t> ask_row;
  auto lookup = [&]() -> Status {
    if (ask.empty()) return Status::Ok();
    const uint32_t fields[] = {table::kSrcFieldId};
    OMNIGRAPH_ASSIGN_OR_RETURN(table::LookupResult looked, base->Lookup(ask, fields));
    const table::Column& src = looked.rows.column(0);
    uint64_t at = 0;
    for (size_t j = 0; j < ask.size(); ++j) {
      if (looked.found[j]) OMNIGRAPH_RETURN_IF_ERROR(add(src.StringAt(at++), ask_row[j], kGone));
    }
    ask.clear();
    ask_row.clear();
    return Status::Ok();
  };
  auto named = [&](std::string_view id, uint64_t row) -> Status {
    ask.emplace_back(id);
    ask_row.push_back(row);
    return ask.size() >= kValidateBatchRows ? lookup() : Status::Ok();
  };
  if (change.op != Op::kDelete) OMNIGRAPH_RETURN_IF_ERROR(add_new_rows(named));
  if (NamesRemovedIds(change)) {
    // A patch's removed ids are labelled after its rows.
    const uint64_t first = change.op == Op::kPatch ? change.rows.num_rows() : 0;
    for (uint64_t i = 0; i < change.ids.size(); ++i) {
      OMNIGRAPH_RETURN_IF_ERROR(named(change.ids[i], first + i));
    }
  }
  return lookup();
}

Status WriteValidator::CheckCardinality(const schema::TypeDef& edge, const std::string& key,
                                        const TableChange& change) {
  if (edge.card.is_default()) return Status::Ok();
  ExternalSorter touched_sorter(sort_bytes_);
  OMNIGRAPH_RETURN_IF_ERROR(SortTouchedSources(edge, key, change, touched_sorter));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const SortedRecords> touched_rows,
                             touched_sorter.Finish());
  // One record per touched source: (new edges, the row to name: its smallest new row, else the
  // smallest row that took one of its base edges away).
  SortedRecordsWriter touched_writer(sort_bytes_);
  {
    std::unique_ptr<SortedRecords::Reader> reader = touched_rows->Open();
    std::string source, value;
    uint64_t fresh = 0, first_fresh = UINT64_MAX, first_gone = UINT64_MAX;
    auto end_source = [&]() -> Status {
      value.clear();
      PutBigEndian(fresh, 8, &value);
      PutBigEndian(fresh > 0 ? first_fresh : first_gone, 8, &value);
      return touched_writer.Add(source, value);
    };
    bool any = false;
    std::string_view k, v;
    while (true) {
      OMNIGRAPH_ASSIGN_OR_RETURN(bool more, reader->Next(&k, &v));
      if (!more || !any || k != source) {
        if (any) OMNIGRAPH_RETURN_IF_ERROR(end_source());
        if (!more) break;
        any = true;
        source.assign(k);
        fresh = 0;
        first_fresh = first_gone = UINT64_MAX;
      }
      const uint64_t row = BigEndianAt(v, 0);
      if (v[8] == kFresh) {
        ++fresh;
        first_fresh = std::min(first_fresh, row);
      } else {
        first_gone = std::min(first_gone, row);
      }
    }
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const SortedRecords> touched, touched_writer.Finish());
  // Whether a source is still a node after the write: a delete of its type names the ids it
  // removes, an overwrite the ids it keeps. Asked in ascending source order, as the join
  // visits the touched sources.
  const schema::TypeDef* from = catalog_.FindById(edge.from.type_id);
  const TableChange* nodes = from == nullptr ? nullptr : ChangeOf(from->table_key());
  if (nodes != nullptr && !NamesRemovedIds(*nodes) && nodes->op != Op::kOverwrite) {
    nodes = nullptr;
  }
  SortedProbe node_ids(nodes == nullptr              ? nullptr
                       : nodes->op == Op::kOverwrite ? &ChangeIds(*nodes)
                                                     : RemovedIds(*nodes));
  auto survives = [&](std::string_view source) -> Result<bool> {
    if (nodes == nullptr) return true;
    OMNIGRAPH_ASSIGN_OR_RETURN(bool named, node_ids.Contains(source));
    return nodes->op == Op::kOverwrite ? named : !named;
  };
  auto violation = [&](std::string_view source, int64_t n, uint64_t row, bool over_max) {
    const std::string bound =
        over_max ? "max " + std::to_string(*edge.card.max) : "min " + std::to_string(edge.card.min);
    return Violation(label_, key, row,
                     "@card violation on edge " + edge.name + ": source '" + std::string(source) +
                         "' has " + std::to_string(n) + " edges (" + bound + ")");
  };
  return JoinKeys(
      *touched,
      [&](const EmitFn& emit) -> Status {
        if (change.op == Op::kOverwrite) return Status::Ok();
        return ScanBase(key, &change, {table::kSrcFieldId},
                        [&](std::span<const table::Column*> cols, uint64_t r, bool kept) {
                          return kept ? emit(cols[1]->StringAt(r), {}) : Status::Ok();
                        });
      },
      [&](std::string_view source, std::string_view value, const JoinHit& hit) -> Status {
        const int64_t n = static_cast<int64_t>(BigEndianAt(value, 0) + hit.matches);
        const uint64_t row = BigEndianAt(value, 8);
        if (edge.card.max && n > *edge.card.max) return violation(source, n, row, true);
        if (n >= static_cast<int64_t>(edge.card.min)) return Status::Ok();
        if (n == 0) {
          OMNIGRAPH_ASSIGN_OR_RETURN(bool still_a_node, survives(source));
          if (!still_a_node) return Status::Ok();
        }
        return violation(source, n, row, false);
      });
}

}  // namespace omnigraph::engine::validate_internal
