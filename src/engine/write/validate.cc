#include "engine/write/validate.h"

#include <re2/re2.h>

#include <charconv>
#include <cmath>
#include <cstring>
#include <set>
#include <unordered_map>

#include "base/sorted_records.h"
#include "base/string_index.h"
#include "query/exec/column_codec.h"
#include "schema/keys.h"
#include "table/table_manifest.h"

namespace omnigraph::engine {

using schema::Value;

namespace {

using Op = TableChange::Op;

// Rows per base batch the checks read, and per batch of ids they look up.
constexpr uint64_t kValidateBatchRows = 1 << 16;

// The kind byte of a touched-source record of the @card check: a new edge of the source, or a
// base edge the write takes away from it.
constexpr char kFresh = 'f';
constexpr char kGone = 'g';

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
// A delete names the ids it removes; so does a patch (a merge's net change), beside its rows.
bool NamesRemovedIds(const TableChange& c) { return c.op == Op::kDelete || c.op == Op::kPatch; }

Status Violation(const RowLabel& label, std::string_view table_key, uint64_t row,
                 const std::string& message) {
  return InvalidArgument(label(table_key, row) + ": " + message);
}

std::string_view IdAt(const table::ColumnBatch& batch, uint64_t row) {
  return batch.FindColumn(table::kIdFieldId)->StringAt(row);
}

// Scans `version` in id order, projecting those of `field_ids` it has; `sink` sees, per batch,
// the column of each requested field or null when the version predates the property.
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

// Bytes equal exactly when the values are (a column holds one type, so tags do not mix).
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

// A length-prefixed string inside a sort record's value.
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

// Reads a sorted id list alongside an ascending sequence of probes: Contains(id) for ids given
// in ascending order.
class SortedProbe {
 public:
  explicit SortedProbe(const SortedRecords* records)
      : reader_(records == nullptr ? nullptr : records->Open()) {}
  Result<bool> Contains(std::string_view id) {
    if (reader_ == nullptr) return false;
    if (!started_) {
      started_ = true;
      OMNIGRAPH_ASSIGN_OR_RETURN(more_, reader_->Next(&next_, &value_));
    }
    while (more_ && next_ < id) {
      OMNIGRAPH_ASSIGN_OR_RETURN(more_, reader_->Next(&next_, &value_));
    }
    return more_ && next_ == id;
  }

 private:
  std::unique_ptr<SortedRecords::Reader> reader_;
  bool started_ = false, more_ = false;
  std::string_view next_, value_;
};

// One write, with the base versions it needs opened once. What crosses batches goes through
// ExternalSorters (memory `sort_bytes` each, the rest in temporary files) and merges in id
// order, so a check holds one batch of rows at a time however large the change or the base.
class WriteValidator {
 public:
  WriteValidator(const schema::Catalog& catalog, const std::map<std::string, TableChange>& changes,
                 const OpenTableFn& open_base, const RowLabel& label, const RowBatchesFn& batches,
                 uint64_t sort_bytes)
      : catalog_(catalog),
        changes_(changes),
        open_base_(open_base),
        label_(label),
        batches_(batches),
        sort_bytes_(sort_bytes) {}

  // Run, reporting which check failed (ValidationFailure) for a violation.
  Status Run(ValidationFailure* failure) {
    Status s = Run();
    if (failure != nullptr && !s.ok()) *failure = failure_;
    return s;
  }

 private:
  // `s`, noting `kind` and `key` as the failed check when it is a violation.
  Status Tag(ConstraintKind kind, const std::string& key, Status s) {
    if (!s.ok() && s.code() == Code::kInvalidArgument) failure_ = ValidationFailure{key, kind};
    return s;
  }

  Status Run() {
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
        OMNIGRAPH_RETURN_IF_ERROR(
            Tag(ConstraintKind::kUnique, key, CheckUnique(*type, key, change)));
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

  Result<std::shared_ptr<const table::TableVersion>> Base(const std::string& key) {
    auto it = bases_.find(key);
    if (it != bases_.end()) return it->second;
    OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::TableVersion> v, open_base_(key));
    bases_.emplace(key, v);
    return v;
  }

  const TableChange* ChangeOf(const std::string& key) const {
    auto it = changes_.find(key);
    return it == changes_.end() ? nullptr : &it->second;
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

  // Adds (value of string column fields[i], row as 8 big-endian bytes) to sorters[i] for every
  // row of `change`, in one pass over its rows, so the records of one value sort in row order.
  Status SortColumnsWithRows(const TableChange& change, std::span<const uint32_t> fields,
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

  // The ids a change names, ascending: those it writes (a streaming load's are sorted already),
  // or those it deletes. Computed once per change.
  const SortedRecords& ChangeIds(const TableChange& c) {
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

  // The ids a delete or a patch removes, ascending; for other changes none. Computed once.
  const SortedRecords* RemovedIds(const TableChange& c) {
    if (!NamesRemovedIds(c)) return nullptr;
    if (c.op == Op::kDelete) return &ChangeIds(c);
    auto [it, inserted] = removed_.try_emplace(&c);
    if (inserted) it->second = SortedRecords::FromKeys({c.ids.begin(), c.ids.end()});
    return it->second.get();
  }

  // Calls `fn(cols, row, kept)` for every row of the base version of `key`, in id order, with
  // `kept` false when `change` replaces or removes the row (an overwrite removes them all; a
  // null change keeps them). cols[0] is the id column.
  using BaseRowFn =
      std::function<Status(std::span<const table::Column*> cols, uint64_t row, bool kept)>;
  Status ScanBase(const std::string& key, const TableChange* change, std::vector<uint32_t> fields,
                  const BaseRowFn& fn) {
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

  Status CheckUnique(const schema::TypeDef& type, const std::string& key,
                     const TableChange& change) {
    for (const schema::Constraint& c : type.constraints) {
      if (c.kind != schema::ConstraintKind::kUnique) continue;
      OMNIGRAPH_RETURN_IF_ERROR(CheckUniqueConstraint(type, key, change, c));
    }
    return Status::Ok();
  }

  // The tuple of `fields` at row `r` of `cols`: its sort key (empty when a value is null, which
  // @unique exempts) and its text for messages.
  static std::pair<std::string, std::string> TupleAt(std::span<const table::Column*> cols,
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

  // Within the change: records (tuple) -> (row, id, text) sorted, so rows holding one tuple are
  // adjacent in row order; the violation reported is the one a row-order pass meets first.
  // Against the base: the kept base rows' tuples, sorted, merged with the change's.
  Status CheckUniqueConstraint(const schema::TypeDef& type, const std::string& key,
                               const TableChange& change, const schema::Constraint& c) {
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
          return ScanBase(
              key, &change, fields,
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

  // How a streamed key met the records of a smaller sorted set: how many streamed keys equal a
  // record's key, and the payload of the first (streams here come in id order, so the first is
  // the smallest of them).
  struct JoinHit {
    uint64_t matches = 0;
    std::string first_payload;
  };
  using EmitFn = std::function<Status(std::string_view key, std::string_view payload)>;
  using ProduceFn = std::function<Status(const EmitFn& emit)>;
  using JoinedFn =
      std::function<Status(std::string_view key, std::string_view value, const JoinHit& hit)>;

  // Calls `each` for every record of `small` (in order) with what `produce` streamed against
  // it. A `small` that fits the budget is probed through a hash map while the keys stream;
  // a larger one is merged with the streamed keys, sorted.
  Status JoinKeys(const SortedRecords& small, const ProduceFn& produce, const JoinedFn& each) {
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

  // Every endpoint of the new edges against the node ids the write adds or deletes and, for the
  // rest, the base node table (looked up a batch at a time): probed in hash sets when few node
  // ids change, else sorted and merged.
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
    // The missing endpoint of the smallest row (the source side first on a tie).
    std::optional<std::tuple<uint64_t, int, std::string>> missing;
    auto miss = [&](uint64_t row, int side, std::string_view id) {
      if (!missing || std::make_pair(row, side) <
                          std::make_pair(std::get<0>(*missing), std::get<1>(*missing))) {
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

  // The node ids a write adds to and removes from one node table, in hash sets, when there are
  // few enough of them to hold (the join rule above: at most budget / 128 of each); none when
  // there are more.
  struct NodeIdSet {
    std::string node_key;
    bool base_counts = true;        // An overwrite of the node table replaces its base ids.
    std::vector<std::string> held;  // The ids the views below point into.
    StringIndex added, removed;
  };
  Result<std::optional<NodeIdSet>> FewNodeIds(const schema::TypeDef& node) {
    NodeIdSet set;
    set.node_key = node.table_key();
    const TableChange* node_change = ChangeOf(set.node_key);
    if (node_change == nullptr) return std::optional<NodeIdSet>(std::move(set));
    set.base_counts = node_change->op != Op::kOverwrite;
    const SortedRecords* added = HasRows(*node_change) ? &ChangeIds(*node_change) : nullptr;
    const SortedRecords* removed = RemovedIds(*node_change);
    const uint64_t few = sort_bytes_ / 128;
    if ((added && added->size() > few) || (removed && removed->size() > few)) {
      return std::optional<NodeIdSet>();
    }
    // Every id is copied into `held` first (reserved, so the strings never move), then viewed.
    set.held.reserve((added ? added->size() : 0) + (removed ? removed->size() : 0));
    for (const SortedRecords* records : {added, removed}) {
      if (records == nullptr) continue;
      OMNIGRAPH_RETURN_IF_ERROR(records->ForEachKey([&](std::string_view id) -> Status {
        set.held.emplace_back(id);
        return Status::Ok();
      }));
    }
    const size_t added_count = added ? added->size() : 0;
    for (size_t i = 0; i < set.held.size(); ++i) {
      (i < added_count ? set.added : set.removed).Insert(set.held[i]);
    }
    return std::optional<NodeIdSet>(std::move(set));
  }

  using MissFn = std::function<void(uint64_t row, int side, std::string_view id)>;

  // Few node ids change: every endpoint is probed in their sets as the rows stream (no sort);
  // those neither added nor removed are looked up in the base a batch at a time.
  Status ProbeEndpoints(const TableChange& change, const NodeIdSet* const sets[2],
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
          for (int side = 0; side < 2; ++side) {
            const table::Column* col = rows.FindColumn(end_fields[side]);
            const NodeIdSet& set = *sets[side];
            for (uint64_t r = 0; r < rows.num_rows(); ++r) {
              const std::string_view id = col->StringAt(r);
              if (set.added.Contains(id)) continue;
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

  // Many node ids change: every endpoint of the new edges is sorted and merged with the sorted
  // ids the write adds or deletes; the rest are looked up in the base a batch at a time.
  Status SortAndMergeEndpoints(const TableChange& change, const schema::TypeDef* const nodes[2],
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

  // The ids the write removes (named deletes, or the base ids an overwrite leaves out) against
  // the endpoints of every edge the write keeps.
  Status CheckDangling(const schema::TypeDef& node, const std::string& key,
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
              if (!is_kept)
                OMNIGRAPH_RETURN_IF_ERROR(removed_sorter.Add(cols[0]->StringAt(r), row));
            }
            return Status::Ok();
          });
      OMNIGRAPH_RETURN_IF_ERROR(scanned);
    }
    OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const SortedRecords> removed,
                               removed_sorter.Finish());
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
                  if (to)
                    OMNIGRAPH_RETURN_IF_ERROR(emit(cols[2]->StringAt(r), cols[0]->StringAt(r)));
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

  // The sources whose edges of `edge` the write changes, into `touched` as records (source ->
  // row, kind): one per new row (kFresh), and one per base row the write replaces or removes
  // (kGone, with the row or delete index that took it away). An overwrite takes every base row
  // away; those are added, as row 0, only when the edge has a min (no count falls below 0).
  Status SortTouchedSources(const schema::TypeDef& edge, const std::string& key,
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

  // Every touched source's outgoing count after the write — its new edges plus the base edges
  // the write keeps — is within min..max. A touched source left with no edges had some before
  // (only a base row the write took away can have touched it), so its count went down: it is
  // checked against min too (decision 23), unless the same write removes the source node. A
  // node that never had an edge of the type is not checked, as in the reference.
  Status CheckCardinality(const schema::TypeDef& edge, const std::string& key,
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
    OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const SortedRecords> touched,
                               touched_writer.Finish());
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
      const std::string bound = over_max ? "max " + std::to_string(*edge.card.max)
                                         : "min " + std::to_string(edge.card.min);
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

  const schema::Catalog& catalog_;
  const std::map<std::string, TableChange>& changes_;
  const OpenTableFn& open_base_;
  const RowLabel& label_;
  const RowBatchesFn& batches_;
  const uint64_t sort_bytes_;
  std::map<std::string, std::shared_ptr<const table::TableVersion>> bases_;
  std::map<const TableChange*, std::shared_ptr<const SortedRecords>> ids_;
  std::map<const TableChange*, std::shared_ptr<const SortedRecords>> removed_;
  ValidationFailure failure_;
};

// Keyed nodes and edges: each row's id is the one its key derives (an edge's from its endpoints
// and key properties).
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
  return CheckDerivedIds(type, rows, label);
}

Status ValidateWrite(const schema::Catalog& catalog,
                     const std::map<std::string, TableChange>& changes,
                     const OpenTableFn& open_base, const RowLabel& label,
                     const RowBatchesFn& batches, uint64_t sort_bytes, ValidationFailure* failure) {
  const RowLabel fallback = DefaultRowLabel;
  return WriteValidator(catalog, changes, open_base, label ? label : fallback, batches, sort_bytes)
      .Run(failure);
}

}  // namespace omnigraph::engine
