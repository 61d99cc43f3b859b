// A load's rows (load_internal.h): each NDJSON record becomes a row of its type's batch — its
// envelope and values checked, its id given, derived or generated, its type authorized.
#include <algorithm>
#include <deque>
#include <map>
#include <set>

#include "base/executor.h"
#include "base/ids.h"
#include "engine/ops/jsonl_reader.h"
#include "engine/ops/jsonl_values.h"
#include "engine/ops/load_internal.h"
#include "engine/ops/progress.h"
#include "query/exec/column_codec.h"
#include "query/exec/table_schema.h"
#include "schema/keys.h"
#include "table/row_gather.h"
#include "table/table_cleanup.h"
#include "table/table_manifest.h"

namespace omnigraph::engine::load_internal {

std::string LinePrefix(uint64_t line) { return "line " + std::to_string(line) + ": "; }

std::string EqualsGenerated(const TypeDef& type, std::string_view id) {
  return "id '" + std::string(id) + "' of " + type.table_key() + " equals an id the load generated";
}

Result<TypeRows*> Loader::RowsOf(const TypeDef& type) {
  // Inputs come in runs of one type: the last one answers without building its key.
  if (&type == last_type_) return last_rows_;
  const std::string key = type.table_key();
  auto it = rows_.find(key);
  if (it != rows_.end()) {
    last_type_ = &type;
    last_rows_ = it->second.get();
    return last_rows_;
  }
  if (by_ordinal_.size() > UINT16_MAX) {
    return Status(Code::kResourceLimit, "a load names more than 65,536 types");
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(query::RowsBuilder builder, query::RowsBuilder::Make(type));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::TableVersion> version, head_.Table(key));
  // Generated ids are bounded as each type's live ids are (ResolveIds).
  auto rows = std::make_unique<TypeRows>(std::move(builder), version->table(),
                                         static_cast<uint16_t>(by_ordinal_.size()),
                                         limits_.sort_bytes / 64);
  OMNIGRAPH_ASSIGN_OR_RETURN(rows->pending->schema, query::TableSchemaFor(type));
  TypeRows* raw = rows.get();
  by_ordinal_.push_back(raw);
  rows_.emplace(key, std::move(rows));
  last_type_ = &type;
  last_rows_ = raw;
  return raw;
}

// The explicit id (data.id or top-level id, which must be strings), the derived id of a keyed
// node or edge (which an explicit id must equal), or a new ULID (marked generated).
Result<LoadId> Loader::IdOf(const JsonlRecord& r, const TypeDef& type,
                            const std::vector<std::optional<Value>>& values) {
  // data.id is the explicit id unless the type declares a property `id` (then it is that
  // property's value, and only a top-level id names the entity).
  const Value* given = nullptr;
  const bool id_is_property = type.FindProperty("id") != nullptr;
  for (const auto& [name, value] : r.data) {
    if (name == "id" && !id_is_property) given = &value;
  }
  if (given != nullptr && r.top_id.has_value()) {
    return InvalidArgument(LinePrefix(r.line) +
                           "id given both at the top level and in 'data'; give one");
  }
  if (given == nullptr && r.top_id.has_value()) given = &*r.top_id;
  if (given != nullptr && given->tag() != Value::Tag::kString) {
    return InvalidArgument(LinePrefix(r.line) + "input entity of type '" + type.name +
                           "' field 'id' must be a string, got " + given->DebugString());
  }
  if (given != nullptr &&
      (given->string_value().empty() || given->string_value().size() > table::kIdBytesMax)) {
    return InvalidArgument(LinePrefix(r.line) + "input entity of type '" + type.name +
                           "' field 'id' must be 1 to " + std::to_string(table::kIdBytesMax) +
                           " bytes");
  }
  if (type.key() == nullptr) {
    if (given != nullptr) return LoadId{given->string_value(), false};
    // The clock is read once per run of kUlidRun ids (decision 245): the generator steps the
    // random part within a millisecond, so the run's ids are its first's text stepped one by
    // one — the ids kUlidRun calls of NextAt would return, without encoding 128 bits per id,
    // and 2.4 M edges do not pay 2.4 M clock reads or locks.
    if (ulid_ids_left_ == 0) {
      const auto now_ms = static_cast<uint64_t>(graph_.runtime().clock->NowMillis());
      ulid_text_ = ulids_.NextRunAt(now_ms, kUlidRun).ToString();
      ulid_ids_left_ = kUlidRun;
    } else if (!Ulid::StepText(ulid_text_)) {
      return Internal("the load's generated id '" + ulid_text_ + "' has no successor");
    }
    --ulid_ids_left_;
    return LoadId{ulid_text_, true};
  }
  // The key values as the columns will store them, so the id is that of the stored value.
  std::vector<Value> key_values;
  for (const PropertyDef* p : type.KeyProperties()) {
    const size_t index = static_cast<size_t>(p - type.properties.data());
    Result<Value> coerced = query::CoerceValue(values[index].value_or(Value()), p->type);
    if (!coerced.ok()) {
      return InvalidArgument(LinePrefix(r.line) + "property '" + p->name + "' of " +
                             type.table_key() + ": " + coerced.status().message());
    }
    key_values.push_back(std::move(*coerced));
  }
  Result<std::string> derived = r.is_edge ? schema::DeriveEdgeId(type, r.from, r.to, key_values)
                                          : schema::DeriveNodeId(type, key_values);
  if (!derived.ok()) return InvalidArgument(LinePrefix(r.line) + derived.status().message());
  if (given != nullptr && given->string_value() != *derived) {
    return InvalidArgument(LinePrefix(r.line) + std::string(schema::TypeKindName(type.kind)) + " " +
                           type.name + " explicit id '" + given->string_value() +
                           "' does not match its canonical @key id '" + *derived + "'");
  }
  derived_id_ = std::move(*derived);
  return LoadId{derived_id_, false};
}

Status Loader::AuthorizeType(const TypeDef& type, uint64_t line) {
  if (!authorize_ || authorized_.contains(type.name)) return Status::Ok();
  Status allowed = authorize_(AuthorityRequest{"change", authorize_branch_, std::nullopt,
                                               std::vector<std::string>{type.name}});
  if (!allowed.ok()) {
    // The message keeps its "permission denied: " head (the server's 403 reads it).
    return Status(allowed.code(), allowed.message() + " (input line " + std::to_string(line) + ")",
                  allowed.object());
  }
  authorized_.insert(type.name);
  return Status::Ok();
}

Status Loader::Add(const JsonlRecord& r, uint64_t bytes) {
  const schema::Catalog& catalog = head_.catalog();
  const TypeDef* type = r.is_edge ? catalog.FindEdge(r.type) : catalog.FindNode(r.type);
  if (type == nullptr) {
    return InvalidArgument(LinePrefix(r.line) + "unknown " + (r.is_edge ? "edge" : "node") +
                           " type '" + r.type + "'");
  }
  OMNIGRAPH_RETURN_IF_ERROR(AuthorizeType(*type, r.line));
  std::vector<std::optional<Value>>& values = values_;
  values.assign(type->properties.size(), std::nullopt);
  for (const auto& [name, json] : r.data) {
    const PropertyDef* p = type->FindProperty(name);
    if (name == "id" && p == nullptr) continue;
    if (IsReservedPhysicalField(name)) {
      return InvalidArgument(LinePrefix(r.line) + "input field '" + name +
                             "' is reserved physical state");
    }
    if (r.is_edge && (name == "src" || name == "dst") && p == nullptr) {
      return InvalidArgument(LinePrefix(r.line) + "edge data field '" + name +
                             "' is reserved structural state");
    }
    if (p == nullptr) {
      return InvalidArgument(LinePrefix(r.line) + "unknown input field '" + name + "' for '" +
                             type->table_key() + "'");
    }
    Result<Value> v = FromJson(json, p->type, external_blobs_.get());
    if (!v.ok()) {
      return InvalidArgument(LinePrefix(r.line) + "property '" + p->name + "' of " +
                             type->table_key() + ": " + v.status().message());
    }
    values[static_cast<size_t>(p - type->properties.data())] = std::move(*v);
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(LoadId id, IdOf(r, *type, values));
  OMNIGRAPH_ASSIGN_OR_RETURN(TypeRows * rows, RowsOf(*type));
  return AddRow(*rows, std::move(id), r.from, r.to, values, r.line, bytes);
}

Status Loader::AddRow(TypeRows& row_set, LoadId id, std::string_view from, std::string_view to,
                      const std::vector<std::optional<Value>>& values, uint64_t line,
                      uint64_t bytes) {
  TypeRows* rows = &row_set;
  const uint64_t row = rows->builder.num_rows();
  OMNIGRAPH_RETURN_IF_ERROR(CheckApartInBatch(*rows, id, line));
  Status appended = rows->builder.Append(id.id, from, to, values);
  if (!appended.ok()) return InvalidArgument(LinePrefix(line) + appended.message());
  ++rows->records;
  rows->batch_lines.push_back(line);
  rows->batch_generated.push_back(id.generated);
  if (id.generated) {
    // A generated id cannot repeat: it need not be indexed (ResolveIds finds a given id of an
    // earlier or later batch that equals it).
    rows->batch_ids.AppendUnindexed(id.id);
    rows->batch_generated_rows.push_back(static_cast<uint32_t>(row));
  } else {
    if (id.id.size() == Ulid::kTextLength) ++rows->batch_ulid_sized_given;
    // Within the batch; ids repeated across batches are resolved at the end (ResolveIds).
    uint32_t& slot = rows->batch_ids.Append(id.id);
    if (slot == 0) {
      rows->batch_ids.Added();
    } else {
      const uint32_t earlier = slot - 1;
      if (mode_ == LoadMode::kAppend) {
        return Status(Code::kKeyConflict, LinePrefix(line) + "id '" + std::string(id.id) + "' of " +
                                              rows->builder.type().table_key() +
                                              " was already given on line " +
                                              std::to_string(rows->batch_lines[earlier]));
      }
      // Merge and overwrite: the last line of an id wins.
      rows->superseded.push_back(earlier);
    }
    slot = static_cast<uint32_t>(row) + 1;
  }
  rows->batch_bytes += bytes;
  buffered_bytes_ += bytes;
  buffered_bytes_peak_ = std::max(buffered_bytes_peak_, buffered_bytes_);
  if (rows->builder.num_rows() >= limits_.batch_rows) return Flush(*rows, true);
  if (buffered_bytes_ > limits_.buffer_bytes) {
    // Write the largest batch: the buffered rows of every type stay under the bound.
    TypeRows* largest = rows;
    for (auto& [key, other] : rows_) {
      if (other->batch_bytes > largest->batch_bytes) largest = other.get();
    }
    return Flush(*largest, true);
  }
  return Status::Ok();
}

Status Loader::CheckApartInBatch(const TypeRows& rows, const LoadId& id, uint64_t line) {
  if (id.id.size() != Ulid::kTextLength) return Status::Ok();
  uint64_t given_line = 0;
  if (id.generated) {
    if (rows.batch_ulid_sized_given == 0) return Status::Ok();
    const uint32_t slot = rows.batch_ids.Find(id.id);
    if (slot == 0) return Status::Ok();
    given_line = rows.batch_lines[slot - 1];
  } else {
    // The batch's generated ids ascend with their rows: a binary search.
    const std::vector<uint32_t>& minted = rows.batch_generated_rows;
    auto it = std::lower_bound(
        minted.begin(), minted.end(), id.id,
        [&](uint32_t r, std::string_view v) { return rows.batch_ids.IdAt(r) < v; });
    if (it == minted.end() || rows.batch_ids.IdAt(*it) != id.id) return Status::Ok();
    given_line = line;
  }
  return Status(Code::kKeyConflict,
                LinePrefix(given_line) + EqualsGenerated(rows.builder.type(), id.id));
}

}  // namespace omnigraph::engine::load_internal
