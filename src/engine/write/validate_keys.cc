// Write validation's key checks: keyed ids derived from their keys, and @unique (validate.h).
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

namespace omnigraph::engine::validate_internal {

void EncodeValue(const Value& v, std::string* out) {
  out->push_back(static_cast<char>(v.tag()));
  switch (v.tag()) {
    case Value::Tag::kNull: break;
    case Value::Tag::kBool: out->push_back(v.bool_value() ? 1 : 0); break;
    case Value::Tag::kInt: PutBigEndian(static_cast<uint64_t>(v.int_value()), 8, out); break;
    case Value::Tag::kUInt: PutBigEndian(v.uint_value(), 8, out); break;
    case Value::Tag::kFloat: {
      const double d = v.float_value() == 0 ? 0.0 : v.float_value();  // -0 == 0
      uint64_t bits;
      std::memcpy(&bits, &d, sizeof bits);
      PutBigEndian(bits, 8, out);
      break;
    }
    case Value::Tag::kString:
      PutBigEndian(v.string_value().size(), 8, out);
      out->append(v.string_value());
      break;
    case Value::Tag::kDate: PutBigEndian(static_cast<uint32_t>(v.date_days()), 4, out); break;
    case Value::Tag::kDateTime: PutBigEndian(static_cast<uint64_t>(v.datetime_ms()), 8, out); break;
    case Value::Tag::kList:
      PutBigEndian(v.list_items().size(), 8, out);
      for (const Value& item : v.list_items()) EncodeValue(item, out);
      break;
  }
}

Status CheckDerivedIds(const schema::TypeDef& type, const table::ColumnBatch& rows,
                       const RowLabel& label) {
  if (type.key() == nullptr) return Status::Ok();
  const std::string key = type.table_key();
  const bool edge = type.kind == schema::TypeKind::kEdge;
  const table::Column* src = rows.FindColumn(table::kSrcFieldId);
  const table::Column* dst = rows.FindColumn(table::kDstFieldId);
  if (rows.FindColumn(table::kIdFieldId) == nullptr ||
      (edge && (src == nullptr || dst == nullptr))) {
    return InvalidArgument("the rows for " + key + " have no id or endpoint columns");
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
    Result<std::string> derived =
        edge ? schema::DeriveEdgeId(type, src->StringAt(r), dst->StringAt(r), values)
             : schema::DeriveNodeId(type, values);
    if (!derived.ok()) return Violation(label, key, r, derived.status().message());
    if (*derived != IdAt(rows, r)) {
      return Violation(label, key, r,
                       "id '" + std::string(IdAt(rows, r)) + "' of keyed " + type.name +
                           " is not the id its key derives ('" + *derived + "')");
    }
  }
  return Status::Ok();
}

Status WriteValidator::CheckUnique(const schema::TypeDef& type, const std::string& key,
                                   const TableChange& change) {
  for (const schema::Constraint& c : type.constraints) {
    if (c.kind != schema::ConstraintKind::kUnique) continue;
    OMNIGRAPH_RETURN_IF_ERROR(CheckUniqueConstraint(type, key, change, c));
  }
  return Status::Ok();
}

std::pair<std::string, std::string> WriteValidator::TupleAt(std::span<const table::Column*> cols,
                                                            uint64_t r) {
  std::string key, text;
  for (size_t i = 0; i < cols.size(); ++i) {
    Value v = cols[i] == nullptr ? Value::Null() : query::ValueAt(*cols[i], r);
    if (v.is_null()) return {};
    EncodeValue(v, &key);
    text += (i == 0 ? "" : ", ") + ValueText(v);
  }
  if (cols.size() > 1) text = "(" + text + ")";
  return {std::move(key), std::move(text)};
}

Status WriteValidator::CheckUniqueConstraint(const schema::TypeDef& type, const std::string& key,
                                             const TableChange& change,
                                             const schema::Constraint& c) {
  std::vector<uint32_t> fields;
  std::string names;
  for (const schema::FieldRef& f : c.fields) {
    fields.push_back(ColumnIdOf(f));
    names += (names.empty() ? "" : ", ") + f.name;
  }
  const std::string what = type.name + "." + (fields.size() == 1 ? names : "(" + names + ")");
  auto message = [&](std::string_view text, std::string_view held, std::string_view other) {
    return "@unique violation on " + what + ": value '" + std::string(text) + "' held by '" +
           std::string(held) + "' and '" + std::string(other) + "'";
  };
  ExternalSorter sorter(sort_bytes_);
  const Status rows_checked =
      ForEachBatch(change, [&](const table::ColumnBatch& rows, uint64_t first) -> Status {
        std::vector<const table::Column*> cols;
        for (uint32_t f : fields) cols.push_back(rows.FindColumn(f));
        for (uint64_t r = 0; r < rows.num_rows(); ++r) {
          auto [tuple, text] = TupleAt(cols, r);
          if (tuple.empty()) continue;
          std::string value;
          PutBigEndian(first + r, 8, &value);
          PutText(IdAt(rows, r), &value);
          PutText(text, &value);
          OMNIGRAPH_RETURN_IF_ERROR(sorter.Add(tuple, value));
        }
        return Status::Ok();
      });
  OMNIGRAPH_RETURN_IF_ERROR(rows_checked);
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const SortedRecords> held, sorter.Finish());
  if (held->empty()) return Status::Ok();
  {
    std::optional<std::pair<uint64_t, std::string>> first_violation;  // (row, message)
    std::unique_ptr<SortedRecords::Reader> reader = held->Open();
    std::string tuple, holder;
    std::string_view k, v;
    while (true) {
      OMNIGRAPH_ASSIGN_OR_RETURN(bool more, reader->Next(&k, &v));
      if (!more) break;
      size_t at = 8;
      const uint64_t row = BigEndianAt(v, 0);
      const std::string_view id = TextAt(v, &at);
      if (k != tuple) {
        tuple.assign(k);
        holder.assign(id);
        continue;
      }
      if (id == holder || (first_violation && first_violation->first <= row)) continue;
      first_violation.emplace(row, message(TextAt(v, &at), holder, id));
    }
    if (first_violation) {
      return Violation(label_, key, first_violation->first, first_violation->second);
    }
  }
  if (change.op == Op::kOverwrite) return Status::Ok();
  // The tuples of the base rows the change keeps, joined with the new ones.
  std::optional<std::pair<uint64_t, std::string>> first_violation;  // (row, message)
  OMNIGRAPH_RETURN_IF_ERROR(JoinKeys(
      *held,
      [&](const EmitFn& emit) {
        return ScanBase(key, &change, fields,
                        [&](std::span<const table::Column*> cols, uint64_t r, bool kept) -> Status {
                          if (!kept) return Status::Ok();
                          auto [tuple, text] = TupleAt(cols.subspan(1), r);
                          return tuple.empty() ? Status::Ok() : emit(tuple, cols[0]->StringAt(r));
                        });
      },
      [&](std::string_view, std::string_view value, const JoinHit& hit) -> Status {
        size_t at = 8;
        const uint64_t row = BigEndianAt(value, 0);
        const std::string_view id = TextAt(value, &at);
        if (hit.matches > 0 && hit.first_payload != id &&
            (!first_violation || row < first_violation->first)) {
          first_violation.emplace(row, message(TextAt(value, &at), hit.first_payload, id));
        }
        return Status::Ok();
      }));
  if (first_violation) {
    return Violation(label_, key, first_violation->first, first_violation->second);
  }
  return Status::Ok();
}

}  // namespace omnigraph::engine::validate_internal
