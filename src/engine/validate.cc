#include "engine/validate.h"

#include <re2/re2.h>

#include <charconv>
#include <cmath>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "query/rows.h"
#include "schema/keys.h"
#include "table/table_manifest.h"

namespace omnigraph::engine {

using schema::Value;

namespace {

using Op = TableChange::Op;

// Rust's f64 Display, which OmniGraph's messages use: integral values without a fraction,
// others in the shortest text that reads back.
std::string NumberText(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  if (v == std::trunc(v) && std::fabs(v) < 1e17) {
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, static_cast<int64_t>(v));
    return std::string(buf, end);
  }
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, end);
}

// A value as OmniGraph's messages quote it: text as is, other values as DebugString.
std::string ValueText(const Value& v) {
  return v.tag() == Value::Tag::kString ? v.string_value() : v.DebugString();
}

std::optional<double> NumericOf(const Value& v) {
  switch (v.tag()) {
    case Value::Tag::kInt: return static_cast<double>(v.int_value());
    case Value::Tag::kUInt: return static_cast<double>(v.uint_value());
    case Value::Tag::kFloat: return v.float_value();
    default: return std::nullopt;
  }
}

uint32_t ColumnIdOf(const schema::FieldRef& f) {
  if (!f.is_system()) return static_cast<uint32_t>(f.property_id);
  return f.name == "dst" ? table::kDstFieldId : table::kSrcFieldId;
}

bool HasRows(const TableChange& c) { return c.op != Op::kDelete; }

Status Violation(const RowLabel& label, std::string_view table_key, uint64_t row,
                 const std::string& message) {
  return InvalidArgument(label(table_key, row) + ": " + message);
}

std::string_view IdAt(const table::ColumnBatch& batch, uint64_t row) {
  return batch.FindColumn(table::kIdFieldId)->StringAt(row);
}

// Scans `version` projecting those of `field_ids` it has; `sink` sees, per batch, the column of
// each requested field or null when the version predates the property.
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
  table::ScanOptions options;
  options.field_ids = present;
  return version.Scan(options, [&](table::ColumnBatch batch) -> Status {
    std::vector<const table::Column*> cols;
    for (uint32_t id : field_ids) cols.push_back(batch.FindColumn(id));
    return sink(batch, cols);
  });
}

// One write, with the base versions it needs opened once.
class WriteValidator {
 public:
  WriteValidator(const schema::Catalog& catalog, const std::map<std::string, TableChange>& changes,
                 const OpenTableFn& open_base, const RowLabel& label, const RowBatchesFn& batches)
      : catalog_(catalog),
        changes_(changes),
        open_base_(open_base),
        label_(label),
        batches_(batches) {}

  Status Run() {
    for (const auto& [key, change] : changes_) {
      const schema::TypeDef* type = catalog_.FindByTableKey(key);
      if (type == nullptr) return InvalidArgument("no table '" + key + "' in the schema");
      if (HasRows(change)) {
        OMNIGRAPH_RETURN_IF_ERROR(
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
            }));
        OMNIGRAPH_RETURN_IF_ERROR(CheckUnique(*type, key, change));
      }
    }
    for (const auto& [key, change] : changes_) {
      const schema::TypeDef* type = catalog_.FindByTableKey(key);
      if (type->kind == schema::TypeKind::kEdge) {
        if (HasRows(change)) OMNIGRAPH_RETURN_IF_ERROR(CheckEndpoints(*type, key, change));
        OMNIGRAPH_RETURN_IF_ERROR(CheckCardinality(*type, key, change));
      } else if (change.op == Op::kDelete || change.op == Op::kOverwrite) {
        OMNIGRAPH_RETURN_IF_ERROR(CheckDangling(*type, key, change));
      }
    }
    return Status::Ok();
  }

 private:
  Result<std::shared_ptr<const table::TableVersion>> Base(const std::string& key) {
    auto it = bases_.find(key);
    if (it != bases_.end()) return it->second;
    OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::TableVersion> v, open_base_(key));
    bases_.emplace(key, v);
    return v;
  }

  // Visits the rows of a change with rows batch by batch, with the row number of each batch's
  // first row (a streaming load's pre-written fragments one at a time).
  Status ForEachBatch(const TableChange& c,
                      const std::function<Status(const table::ColumnBatch&, uint64_t)>& fn) {
    uint64_t first = 0;
    auto visit = [&](const table::ColumnBatch& batch) -> Status {
      OMNIGRAPH_RETURN_IF_ERROR(fn(batch, first));
      first += batch.num_rows();
      return Status::Ok();
    };
    if (batches_) return batches_(c, visit);
    return visit(c.rows);
  }

  // The ids the change puts into the table (views into the change, which outlives the check),
  // computed once per change.
  const std::unordered_set<std::string_view>& BatchIds(const TableChange& c) {
    auto [it, inserted] = ids_.try_emplace(&c);
    if (!inserted) return it->second;
    std::unordered_set<std::string_view>& out = it->second;
    if (c.pending) {
      out.insert(c.pending->ids.begin(), c.pending->ids.end());
    } else if (HasRows(c)) {
      for (uint64_t r = 0; r < c.rows.num_rows(); ++r) out.insert(IdAt(c.rows, r));
    }
    return out;
  }

  // True when the base row `id` survives `change` (null change = table untouched).
  static bool BaseRowSurvives(const TableChange* change,
                              const std::unordered_set<std::string_view>& replaced,
                              const std::unordered_set<std::string_view>& deleted,
                              std::string_view id) {
    if (change == nullptr) return true;
    if (change->op == Op::kOverwrite) return false;
    return !replaced.contains(id) && !deleted.contains(id);
  }

  Status CheckUnique(const schema::TypeDef& type, const std::string& key,
                     const TableChange& change) {
    std::vector<const schema::Constraint*> uniques;
    for (const schema::Constraint& c : type.constraints) {
      if (c.kind == schema::ConstraintKind::kUnique) uniques.push_back(&c);
    }
    if (uniques.empty()) return Status::Ok();
    const std::unordered_set<std::string_view>& replaced = BatchIds(change);
    for (const schema::Constraint* c : uniques) {
      std::vector<uint32_t> fields;
      std::string names;
      for (const schema::FieldRef& f : c->fields) {
        fields.push_back(ColumnIdOf(f));
        names += (names.empty() ? "" : ", ") + f.name;
      }
      const std::string what = type.name + "." + (fields.size() == 1 ? names : "(" + names + ")");
      auto tuple_text = [](const std::vector<Value>& t) {
        if (t.size() == 1) return ValueText(t[0]);
        std::string out = "(";
        for (size_t i = 0; i < t.size(); ++i) out += (i ? ", " : "") + ValueText(t[i]);
        return out + ")";
      };
      // Tuple -> (id, row) of the new rows.
      std::map<std::vector<Value>, std::pair<std::string, uint64_t>> held;
      OMNIGRAPH_RETURN_IF_ERROR(
          ForEachBatch(change, [&](const table::ColumnBatch& rows, uint64_t first) -> Status {
            for (uint64_t r = 0; r < rows.num_rows(); ++r) {
              std::vector<Value> tuple;
              bool has_null = false;
              for (uint32_t f : fields) {
                const table::Column* col = rows.FindColumn(f);
                Value v = col == nullptr ? Value::Null() : query::ValueAt(*col, r);
                has_null = has_null || v.is_null();
                tuple.push_back(std::move(v));
              }
              if (has_null) continue;
              std::string id(IdAt(rows, r));
              auto [it, inserted] = held.try_emplace(std::move(tuple), id, first + r);
              if (!inserted && it->second.first != id) {
                return Violation(label_, key, first + r,
                                 "@unique violation on " + what + ": value '" +
                                     tuple_text(it->first) + "' held by '" + it->second.first +
                                     "' and '" + id + "'");
              }
            }
            return Status::Ok();
          }));
      if (change.op == Op::kOverwrite || held.empty()) continue;
      OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::TableVersion> base, Base(key));
      std::vector<uint32_t> scan_fields = {table::kIdFieldId};
      scan_fields.insert(scan_fields.end(), fields.begin(), fields.end());
      static const std::unordered_set<std::string_view> kNone;
      OMNIGRAPH_RETURN_IF_ERROR(ScanFields(
          *base, scan_fields,
          [&](const table::ColumnBatch& batch, std::span<const table::Column*> cols) -> Status {
            for (uint64_t r = 0; r < batch.num_rows(); ++r) {
              std::string_view id = cols[0]->StringAt(r);
              if (!BaseRowSurvives(&change, replaced, kNone, id)) continue;
              std::vector<Value> tuple;
              bool has_null = false;
              for (size_t i = 1; i < cols.size(); ++i) {
                Value v = cols[i] == nullptr ? Value::Null() : query::ValueAt(*cols[i], r);
                has_null = has_null || v.is_null();
                tuple.push_back(std::move(v));
              }
              if (has_null) continue;
              auto it = held.find(tuple);
              if (it != held.end() && it->second.first != id) {
                return Violation(label_, key, it->second.second,
                                 "@unique violation on " + what + ": value '" +
                                     tuple_text(it->first) + "' held by '" + std::string(id) +
                                     "' and '" + it->second.first + "'");
              }
            }
            return Status::Ok();
          }));
    }
    return Status::Ok();
  }

  // Which of `ids` exist in node type `node` once the write applies.
  Result<std::vector<bool>> NodesExist(const schema::TypeDef& node,
                                       const std::vector<std::string>& ids) {
    const std::string key = node.table_key();
    auto it = changes_.find(key);
    const TableChange* change = it == changes_.end() ? nullptr : &it->second;
    static const std::unordered_set<std::string_view> kNoIds;
    const std::unordered_set<std::string_view>& added =
        change != nullptr ? BatchIds(*change) : kNoIds;
    std::unordered_set<std::string_view> deleted;
    if (change != nullptr && change->op == Op::kDelete) {
      deleted.insert(change->ids.begin(), change->ids.end());
    }
    std::vector<bool> found(ids.size(), false);
    std::vector<std::string> ask;
    std::vector<size_t> ask_index;
    for (size_t i = 0; i < ids.size(); ++i) {
      if (added.contains(ids[i])) {
        found[i] = true;
      } else if (change != nullptr && (change->op == Op::kOverwrite || deleted.contains(ids[i]))) {
        found[i] = false;
      } else {
        ask.push_back(ids[i]);
        ask_index.push_back(i);
      }
    }
    if (ask.empty()) return found;
    OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::TableVersion> base, Base(key));
    const uint32_t id_field[] = {table::kIdFieldId};
    OMNIGRAPH_ASSIGN_OR_RETURN(table::LookupResult looked, base->Lookup(ask, id_field));
    for (size_t j = 0; j < ask.size(); ++j) found[ask_index[j]] = looked.found[j];
    return found;
  }

  Status CheckEndpoints(const schema::TypeDef& edge, const std::string& key,
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
    // Batch by batch, so a streaming load holds one batch of endpoints at a time.
    return ForEachBatch(change, [&](const table::ColumnBatch& rows, uint64_t first) -> Status {
      for (int side = 0; side < 2; ++side) {
        const table::Column* col =
            rows.FindColumn(side == 0 ? table::kSrcFieldId : table::kDstFieldId);
        std::vector<std::string> ids;
        ids.reserve(rows.num_rows());
        for (uint64_t r = 0; r < rows.num_rows(); ++r) ids.emplace_back(col->StringAt(r));
        OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<bool> found, NodesExist(*nodes[side], ids));
        for (uint64_t r = 0; r < ids.size(); ++r) {
          if (!found[r]) {
            return Violation(label_, key, first + r,
                             "edge " + edge.name + " " + (side == 0 ? "from" : "to") + " '" +
                                 ids[r] + "': no " + nodes[side]->name + " with that id");
          }
        }
      }
      return Status::Ok();
    });
  }

  Status CheckDangling(const schema::TypeDef& node, const std::string& key,
                       const TableChange& change) {
    // The ids the write removes: named deletes, or the base ids an overwrite leaves out.
    std::unordered_map<std::string, uint64_t> removed;  // id -> row for the label
    if (change.op == Op::kDelete) {
      for (uint64_t i = 0; i < change.ids.size(); ++i) removed.emplace(change.ids[i], i);
    } else {
      const std::unordered_set<std::string_view>& kept = BatchIds(change);
      OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::TableVersion> base, Base(key));
      OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<std::string> ids, base->Ids());
      for (std::string& id : ids) {
        if (!kept.contains(id)) removed.emplace(std::move(id), 0);
      }
    }
    if (removed.empty()) return Status::Ok();
    for (const schema::TypeDef& edge : catalog_.edges()) {
      const bool from = edge.from.type_id == node.id, to = edge.to.type_id == node.id;
      if (!from && !to) continue;
      const std::string edge_key = edge.table_key();
      auto it = changes_.find(edge_key);
      const TableChange* edge_change = it == changes_.end() ? nullptr : &it->second;
      static const std::unordered_set<std::string_view> kNoIds;
      const std::unordered_set<std::string_view>& replaced =
          edge_change != nullptr ? BatchIds(*edge_change) : kNoIds;
      std::unordered_set<std::string_view> deleted;
      if (edge_change != nullptr && edge_change->op == Op::kDelete) {
        deleted.insert(edge_change->ids.begin(), edge_change->ids.end());
      }
      OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::TableVersion> base, Base(edge_key));
      OMNIGRAPH_RETURN_IF_ERROR(ScanFields(
          *base, {table::kIdFieldId, table::kSrcFieldId, table::kDstFieldId},
          [&](const table::ColumnBatch& batch, std::span<const table::Column*> cols) -> Status {
            for (uint64_t r = 0; r < batch.num_rows(); ++r) {
              std::string_view id = cols[0]->StringAt(r);
              if (!BaseRowSurvives(edge_change, replaced, deleted, id)) continue;
              for (int side = 0; side < 2; ++side) {
                if (!(side == 0 ? from : to)) continue;
                auto hit = removed.find(std::string(cols[1 + side]->StringAt(r)));
                if (hit != removed.end()) {
                  return Violation(label_, key, hit->second,
                                   "cannot remove " + node.name + " '" + hit->first + "': edge " +
                                       edge.name + " '" + std::string(id) +
                                       "' still references it");
                }
              }
            }
            return Status::Ok();
          }));
    }
    return Status::Ok();
  }

  Status CheckCardinality(const schema::TypeDef& edge, const std::string& key,
                          const TableChange& change) {
    if (edge.card.is_default()) return Status::Ok();
    // Sources the write touches: those of new rows and of the base rows it replaces or removes.
    std::map<std::string, int64_t> count;  // source -> edges after the write
    std::map<std::string, uint64_t> row_of;
    if (HasRows(change)) {
      OMNIGRAPH_RETURN_IF_ERROR(
          ForEachBatch(change, [&](const table::ColumnBatch& rows, uint64_t first) -> Status {
            const table::Column* src = rows.FindColumn(table::kSrcFieldId);
            for (uint64_t r = 0; r < rows.num_rows(); ++r) {
              std::string s(src->StringAt(r));
              ++count[s];
              row_of.try_emplace(s, first + r);
            }
            return Status::Ok();
          }));
    }
    const std::unordered_set<std::string_view>& replaced = BatchIds(change);
    std::unordered_set<std::string_view> deleted;
    if (change.op == Op::kDelete) deleted.insert(change.ids.begin(), change.ids.end());
    if (change.op != Op::kOverwrite) {
      OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::TableVersion> base, Base(key));
      // Removed or replaced base rows touch their sources too.
      std::vector<std::string> gone(replaced.begin(), replaced.end());
      gone.insert(gone.end(), deleted.begin(), deleted.end());
      if (!gone.empty()) {
        const uint32_t fields[] = {table::kSrcFieldId};
        OMNIGRAPH_ASSIGN_OR_RETURN(table::LookupResult looked, base->Lookup(gone, fields));
        const table::Column& gone_src = looked.rows.column(0);
        for (uint64_t r = 0; r < looked.rows.num_rows(); ++r) {
          count.try_emplace(std::string(gone_src.StringAt(r)), 0);
        }
      }
      if (count.empty()) return Status::Ok();
      OMNIGRAPH_RETURN_IF_ERROR(ScanFields(
          *base, {table::kIdFieldId, table::kSrcFieldId},
          [&](const table::ColumnBatch& batch, std::span<const table::Column*> cols) -> Status {
            for (uint64_t r = 0; r < batch.num_rows(); ++r) {
              auto it = count.find(std::string(cols[1]->StringAt(r)));
              if (it == count.end()) continue;
              if (BaseRowSurvives(&change, replaced, deleted, cols[0]->StringAt(r))) ++it->second;
            }
            return Status::Ok();
          }));
    }
    for (const auto& [source, n] : count) {
      auto row = row_of.find(source);
      const uint64_t label_row = row == row_of.end() ? 0 : row->second;
      if (edge.card.max && n > *edge.card.max) {
        return Violation(label_, key, label_row,
                         "@card violation on edge " + edge.name + ": source '" + source + "' has " +
                             std::to_string(n) + " edges (max " + std::to_string(*edge.card.max) +
                             ")");
      }
      if (n > 0 && n < edge.card.min) {
        return Violation(label_, key, label_row,
                         "@card violation on edge " + edge.name + ": source '" + source + "' has " +
                             std::to_string(n) + " edges (min " + std::to_string(edge.card.min) +
                             ")");
      }
    }
    return Status::Ok();
  }

  const schema::Catalog& catalog_;
  const std::map<std::string, TableChange>& changes_;
  const OpenTableFn& open_base_;
  const RowLabel& label_;
  const RowBatchesFn& batches_;
  std::map<std::string, std::shared_ptr<const table::TableVersion>> bases_;
  std::map<const TableChange*, std::unordered_set<std::string_view>> ids_;
};

}  // namespace

std::string DefaultRowLabel(std::string_view table_key, uint64_t row) {
  return std::string(table_key) + " row " + std::to_string(row);
}

Status ValidateRows(const schema::TypeDef& type, const table::ColumnBatch& rows,
                    const RowLabel& label) {
  const std::string key = type.table_key();
  // Enums.
  for (const schema::PropertyDef& p : type.properties) {
    if (!p.type.is_enum() || p.type.list) continue;  // Enum lists are not in the language.
    const table::Column* col = rows.FindColumn(static_cast<uint32_t>(p.id));
    if (col == nullptr) continue;
    const std::set<std::string_view> allowed(p.type.enum_values.begin(), p.type.enum_values.end());
    auto bad = [&](uint64_t r, std::string_view v) {
      std::string expected;
      for (const std::string& a : p.type.enum_values)
        expected += (expected.empty() ? "" : ", ") + a;
      return Violation(label, key, r,
                       "invalid enum value '" + std::string(v) + "' for " + type.name + "." +
                           p.name + " (expected: " + expected + ")");
    };
    for (uint64_t r = 0; r < rows.num_rows(); ++r) {
      if (col->IsNull(r)) continue;
      if (!allowed.contains(col->StringAt(r))) {
        return bad(r, col->StringAt(r));
      }
    }
  }
  for (const schema::Constraint& c : type.constraints) {
    if (c.kind != schema::ConstraintKind::kRange && c.kind != schema::ConstraintKind::kCheck) {
      continue;
    }
    const schema::FieldRef& f = c.fields.at(0);
    const table::Column* col = rows.FindColumn(ColumnIdOf(f));
    if (col == nullptr) continue;
    const std::string what = type.name + "." + f.name;
    if (c.kind == schema::ConstraintKind::kRange) {
      for (uint64_t r = 0; r < rows.num_rows(); ++r) {
        std::optional<double> v = NumericOf(query::ValueAt(*col, r));
        if (!v) continue;  // Null.
        if (std::isnan(*v)) {
          return Violation(label, key, r, "@range violation on " + what + ": value is NaN");
        }
        if (c.min && *v < c.min->AsDouble()) {
          return Violation(label, key, r,
                           "@range violation on " + what + ": value " + NumberText(*v) + " < min " +
                               NumberText(c.min->AsDouble()));
        }
        if (c.max && *v > c.max->AsDouble()) {
          return Violation(label, key, r,
                           "@range violation on " + what + ": value " + NumberText(*v) + " > max " +
                               NumberText(c.max->AsDouble()));
        }
      }
    } else {
      if (col->type().id != table::TypeId::kString) continue;
      RE2 re(c.pattern, RE2::Quiet);
      if (!re.ok()) {
        return InvalidArgument("@check on " + what + " has invalid regex '" + c.pattern +
                               "': " + re.error());
      }
      for (uint64_t r = 0; r < rows.num_rows(); ++r) {
        if (col->IsNull(r)) continue;
        std::string_view v = col->StringAt(r);
        if (!RE2::PartialMatch(v, re)) {
          return Violation(label, key, r,
                           "@check violation on " + what + ": value '" + std::string(v) +
                               "' does not match pattern '" + c.pattern + "'");
        }
      }
    }
  }
  // Keyed nodes: the id is the one derived from the key.
  if (type.kind == schema::TypeKind::kNode && type.key() != nullptr) {
    if (rows.FindColumn(table::kIdFieldId) == nullptr) {
      return InvalidArgument("the rows for " + key + " have no id column");
    }
    std::vector<const schema::PropertyDef*> key_props = type.KeyProperties();
    std::vector<const table::Column*> cols;
    for (const schema::PropertyDef* p : key_props) {
      cols.push_back(rows.FindColumn(static_cast<uint32_t>(p->id)));
    }
    std::vector<Value> values(key_props.size());
    for (uint64_t r = 0; r < rows.num_rows(); ++r) {
      for (size_t i = 0; i < cols.size(); ++i) {
        values[i] = cols[i] == nullptr ? Value::Null() : query::ValueAt(*cols[i], r);
      }
      Result<std::string> derived = schema::DeriveNodeId(type, values);
      if (!derived.ok()) return Violation(label, key, r, derived.status().message());
      if (*derived != IdAt(rows, r)) {
        return Violation(label, key, r,
                         "id '" + std::string(IdAt(rows, r)) + "' of keyed " + type.name +
                             " is not the id its key derives ('" + *derived + "')");
      }
    }
  }
  return Status::Ok();
}

Status ValidateWrite(const schema::Catalog& catalog,
                     const std::map<std::string, TableChange>& changes,
                     const OpenTableFn& open_base, const RowLabel& label,
                     const RowBatchesFn& batches) {
  const RowLabel fallback = DefaultRowLabel;
  return WriteValidator(catalog, changes, open_base, label ? label : fallback, batches).Run();
}

}  // namespace omnigraph::engine
