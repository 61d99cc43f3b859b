// Write validation (validate.h): the entry points, and the WriteValidator members every constraint
// family shares; the families are validate_values.cc, validate_keys.cc and validate_edges.cc.
#include "engine/write/validate.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <set>
#include <unordered_map>

#include "base/sorted_records.h"
#include "base/string_index.h"
#include "engine/write/validate_internal.h"
#include "query/exec/column_codec.h"
#include "schema/keys.h"
#include "table/table_manifest.h"

namespace omnigraph::engine {

namespace validate_internal {

Status Violation(const RowLabel& label, std::string_view table_key, uint64_t row,
                 const std::string& message) {
  return InvalidArgument(label(table_key, row) + ": " + message);
}

std::string_view IdAt(const table::ColumnBatch& batch, uint64_t row) {
  return batch.FindColumn(table::kIdFieldId)->StringAt(row);
}

using ColumnsSink =
    std::function<Status(const table::ColumnBatch& batch, std::span<const table::Column*> cols)>;
Status ScanFields(const table::TableVersion& version, const std::vector<uint32_t>& field_ids,
                  const ColumnsSink& sink) {
  std::vector<uint32_t> present;
  for (uint32_t id : field_ids) {
    for (const table::Field& f : version.schema()) {
      if (f.id == id) {
        present.push_back(id);
        break;
      }
    }
  }
  return version.ScanInIdOrder(present, kValidateBatchRows, [&](table::ColumnBatch batch) {
    std::vector<const table::Column*> cols;
    for (uint32_t id : field_ids) cols.push_back(batch.FindColumn(id));
    return sink(batch, cols);
  });
}

void PutText(std::string_view text, std::string* out) {
  PutBigEndian(text.size(), 8, out);
  out->append(text);
}

std::string_view TextAt(std::string_view bytes, size_t* offset) {
  const uint64_t n = BigEndianAt(bytes, *offset);
  std::string_view text = bytes.substr(*offset + 8, n);
  *offset += 8 + n;
  return text;
}

Status WriteValidator::Run() {
  for (const auto& [table_key, change] : changes_) {
    const std::string& key = table_key;  // Named: lambdas below capture it (clang < 16).
    const schema::TypeDef* type = catalog_.FindByTableKey(key);
    if (type == nullptr) return InvalidArgument("no table '" + key + "' in the schema");
    if (HasRows(change)) {
      OMNIGRAPH_RETURN_IF_ERROR(
          Tag(ConstraintKind::kValue, key,
              ForEachBatch(change, [&](const table::ColumnBatch& rows, uint64_t first) -> Status {
                if (rows.FindColumn(table::kIdFieldId) == nullptr) {
                  return InvalidArgument("the rows for " + key + " have no id column");
                }
                if (type->kind == schema::TypeKind::kEdge &&
                    (rows.FindColumn(table::kSrcFieldId) == nullptr ||
                     rows.FindColumn(table::kDstFieldId) == nullptr)) {
                  return InvalidArgument("the rows for " + key + " have no src/dst columns");
                }
                return ValidateRows(*type, rows, [&](std::string_view k, uint64_t row) {
                  return label_(k, first + row);
                });
              })));
      OMNIGRAPH_RETURN_IF_ERROR(Tag(ConstraintKind::kUnique, key, CheckUnique(*type, key, change)));
    }
  }
  for (const auto& [table_key, change] : changes_) {
    const std::string& key = table_key;  // Named: lambdas below capture it (clang < 16).
    const schema::TypeDef* type = catalog_.FindByTableKey(key);
    if (type->kind == schema::TypeKind::kEdge) {
      if (HasRows(change)) {
        OMNIGRAPH_RETURN_IF_ERROR(
            Tag(ConstraintKind::kEndpoint, key, CheckEndpoints(*type, key, change)));
      }
      OMNIGRAPH_RETURN_IF_ERROR(
          Tag(ConstraintKind::kCardinality, key, CheckCardinality(*type, key, change)));
    } else if (change.op == Op::kDelete || change.op == Op::kOverwrite ||
               (change.op == Op::kPatch && !change.ids.empty())) {
      OMNIGRAPH_RETURN_IF_ERROR(
          Tag(ConstraintKind::kDangling, key, CheckDangling(*type, key, change)));
    }
  }
  return Status::Ok();
}

Result<std::shared_ptr<const table::TableVersion>> WriteValidator::Base(const std::string& key) {
  auto it = bases_.find(key);
  if (it != bases_.end()) return it->second;
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::TableVersion> v, open_base_(key));
  bases_.emplace(key, v);
  return v;
}

const TableChange* WriteValidator::ChangeOf(const std::string& key) const {
  auto it = changes_.find(key);
  return it == changes_.end() ? nullptr : &it->second;
}

Status WriteValidator::ForEachBatch(
    const TableChange& c, const std::function<Status(const table::ColumnBatch&, uint64_t)>& fn) {
  uint64_t first = 0;
  auto visit = [&](const table::ColumnBatch& batch) -> Status {
    OMNIGRAPH_RETURN_IF_ERROR(fn(batch, first));
    first += batch.num_rows();
    return Status::Ok();
  };
  if (batches_) return batches_(c, visit);
  return visit(c.rows);
}

Status WriteValidator::SortColumnsWithRows(const TableChange& change,
                                           std::span<const uint32_t> fields,
                                           std::span<ExternalSorter* const> sorters) {
  return ForEachBatch(change, [&](const table::ColumnBatch& rows, uint64_t first) -> Status {
    std::string row;
    for (size_t i = 0; i < fields.size(); ++i) {
      const table::Column* col = rows.FindColumn(fields[i]);
      for (uint64_t r = 0; r < rows.num_rows(); ++r) {
        row.clear();
        PutBigEndian(first + r, 8, &row);
        OMNIGRAPH_RETURN_IF_ERROR(sorters[i]->Add(col->StringAt(r), row));
      }
    }
    return Status::Ok();
  });
}

const SortedRecords& WriteValidator::ChangeIds(const TableChange& c) {
  auto [it, inserted] = ids_.try_emplace(&c);
  if (!inserted) return *it->second;
  if (c.pending) {
    // Staging refuses pending rows without ids; validation sees them as naming none.
    it->second = c.pending->ids ? c.pending->ids : SortedRecords::FromKeys({});
  } else if (HasRows(c)) {
    std::vector<std::string_view> ids;
    for (uint64_t r = 0; r < c.rows.num_rows(); ++r) ids.push_back(IdAt(c.rows, r));
    it->second = SortedRecords::FromKeys(std::move(ids));
  } else {
    it->second = SortedRecords::FromKeys({c.ids.begin(), c.ids.end()});
  }
  return *it->second;
}

const SortedRecords* WriteValidator::RemovedIds(const TableChange& c) {
  if (!NamesRemovedIds(c)) return nullptr;
  if (c.op == Op::kDelete) return &ChangeIds(c);
  auto [it, inserted] = removed_.try_emplace(&c);
  if (inserted) it->second = SortedRecords::FromKeys({c.ids.begin(), c.ids.end()});
  return it->second.get();
}

Status WriteValidator::ScanBase(const std::string& key, const TableChange* change,
                                std::vector<uint32_t> fields, const BaseRowFn& fn) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::TableVersion> base, Base(key));
  fields.insert(fields.begin(), table::kIdFieldId);
  SortedProbe named(change != nullptr && change->op != Op::kOverwrite ? &ChangeIds(*change)
                                                                      : nullptr);
  // A patch also removes the ids it names beside its rows.
  SortedProbe removed(change != nullptr && change->op == Op::kPatch ? RemovedIds(*change)
                                                                    : nullptr);
  return ScanFields(
      *base, fields,
      [&](const table::ColumnBatch& batch, std::span<const table::Column*> cols) -> Status {
        for (uint64_t r = 0; r < batch.num_rows(); ++r) {
          bool kept = true;
          if (change != nullptr && change->op == Op::kOverwrite) {
            kept = false;
          } else {
            OMNIGRAPH_ASSIGN_OR_RETURN(bool hit, named.Contains(cols[0]->StringAt(r)));
            OMNIGRAPH_ASSIGN_OR_RETURN(bool gone, removed.Contains(cols[0]->StringAt(r)));
            kept = !hit && !gone;
          }
          OMNIGRAPH_RETURN_IF_ERROR(fn(cols, r, kept));
        }
        return Status::Ok();
      });
}

Status WriteValidator::JoinKeys(const SortedRecords& small, const ProduceFn& produce,
                                const JoinedFn& each) {
  if (small.empty()) return Status::Ok();
  if (!small.spilled() && small.size() <= sort_bytes_ / 128) {
    // Views into the in-memory records, which `small` holds for the whole call.
    std::unordered_map<std::string_view, JoinHit> hits;
    OMNIGRAPH_RETURN_IF_ERROR(small.ForEachKey([&](std::string_view k) -> Status {
      hits.try_emplace(k);
      return Status::Ok();
    }));
    OMNIGRAPH_RETURN_IF_ERROR(produce([&](std::string_view key, std::string_view payload) {
      auto it = hits.find(key);
      if (it != hits.end() && it->second.matches++ == 0) it->second.first_payload = payload;
      return Status::Ok();
    }));
    std::unique_ptr<SortedRecords::Reader> reader = small.Open();
    std::string_view k, v;
    while (true) {
      OMNIGRAPH_ASSIGN_OR_RETURN(bool more, reader->Next(&k, &v));
      if (!more) return Status::Ok();
      OMNIGRAPH_RETURN_IF_ERROR(each(k, v, hits[k]));
    }
  }
  ExternalSorter sorter(sort_bytes_);
  OMNIGRAPH_RETURN_IF_ERROR(produce(
      [&](std::string_view key, std::string_view payload) { return sorter.Add(key, payload); }));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const SortedRecords> streamed, sorter.Finish());
  std::unique_ptr<SortedRecords::Reader> s = streamed->Open(), r = small.Open();
  std::string_view sk, sv, k, v;
  OMNIGRAPH_ASSIGN_OR_RETURN(bool s_more, s->Next(&sk, &sv));
  while (true) {
    OMNIGRAPH_ASSIGN_OR_RETURN(bool more, r->Next(&k, &v));
    if (!more) return Status::Ok();
    JoinHit hit;
    while (s_more && sk < k) {
      OMNIGRAPH_ASSIGN_OR_RETURN(s_more, s->Next(&sk, &sv));
    }
    while (s_more && sk == k) {
      if (hit.matches++ == 0) hit.first_payload = sv;
      OMNIGRAPH_ASSIGN_OR_RETURN(s_more, s->Next(&sk, &sv));
    }
    OMNIGRAPH_RETURN_IF_ERROR(each(k, v, hit));
  }
}

}  // namespace validate_internal

std::string DefaultRowLabel(std::string_view table_key, uint64_t row) {
  return std::string(table_key) + " row " + std::to_string(row);
}

Status ValidateWrite(const schema::Catalog& catalog,
                     const std::map<std::string, TableChange>& changes,
                     const OpenTableFn& open_base, const RowLabel& label,
                     const RowBatchesFn& batches, uint64_t sort_bytes, ValidationFailure* failure,
                     Executor* executor) {
  const RowLabel fallback = DefaultRowLabel;
  return validate_internal::WriteValidator(catalog, changes, open_base, label ? label : fallback,
                                           batches, sort_bytes, executor)
      .Run(failure);
}

}  // namespace omnigraph::engine
