#include "engine/ops/load.h"

#include <algorithm>
#include <deque>
#include <map>
#include <set>

#include "base/executor.h"
#include "base/ids.h"
#include "engine/ops/jsonl_reader.h"
#include "engine/ops/jsonl_values.h"
#include "engine/ops/progress.h"
#include "engine/write/derived_indexes.h"
#include "query/exec/column_codec.h"
#include "query/exec/table_schema.h"
#include "schema/keys.h"
#include "table/row_gather.h"
#include "table/table_cleanup.h"
#include "table/table_manifest.h"

namespace omnigraph::engine {

using schema::PropertyDef;
using schema::TypeDef;
using schema::Value;

namespace {

std::string LinePrefix(uint64_t line) { return "line " + std::to_string(line) + ": "; }

// A row's place in the pending fragments of its type: fragment, row, and the line that gave it,
// encoded big-endian so that a type's records of one id sort in input order.
std::string EncodePlace(uint32_t fragment, uint32_t row, uint64_t line) {
  std::string out;
  PutBigEndian(fragment, 4, &out);
  PutBigEndian(row, 4, &out);
  PutBigEndian(line, 8, &out);
  return out;
}

// The prefix of a type's records in the loader's id sort: its ordinal, big-endian.
std::string OrdinalPrefix(uint16_t ordinal) {
  std::string out;
  PutBigEndian(ordinal, 2, &out);
  return out;
}

// The ids of the rows of the batch being built, and the rows by id: an open-addressing table of
// row numbers over the ids kept end to end, so that an id costs no allocation of its own.
class BatchIds {
 public:
  // The id of row `row` of the batch (one appended).
  std::string_view IdAt(uint32_t row) const {
    const uint32_t begin = row == 0 ? 0 : ends_[row - 1];
    return std::string_view(bytes_).substr(begin, ends_[row] - begin);
  }
  // Appends the id of the next row (the rows' ids must be appended in order); the slot of that
  // id: the earlier row holding it + 1, or 0 when no row does (the caller stores a row + 1 there,
  // then calls Added()).
  uint32_t& Append(std::string_view id) {
    bytes_.append(id);
    ends_.push_back(static_cast<uint32_t>(bytes_.size()));
    if ((held_ + 1) * 2 > slots_.size()) Grow();
    const size_t mask = slots_.size() - 1;
    for (size_t i = std::hash<std::string_view>()(id) & mask;; i = (i + 1) & mask) {
      if (slots_[i] == 0 || IdAt(slots_[i] - 1) == id) return slots_[i];
    }
  }
  void Added() { ++held_; }
  // The row of an indexed id + 1, or 0 when no indexed row holds it.
  uint32_t Find(std::string_view id) const {
    if (slots_.empty()) return 0;
    const size_t mask = slots_.size() - 1;
    for (size_t i = std::hash<std::string_view>()(id) & mask;; i = (i + 1) & mask) {
      if (slots_[i] == 0 || IdAt(slots_[i] - 1) == id) return slots_[i];
    }
  }
  // Appends the id of the next row without indexing it: the row's id cannot repeat (the load
  // generated it), so looking it up would only cost a hash. IdAt still answers for the row.
  void AppendUnindexed(std::string_view id) {
    bytes_.append(id);
    ends_.push_back(static_cast<uint32_t>(bytes_.size()));
  }
  // Every indexed row the table holds (the latest of each id), in no particular order.
  template <typename Fn>
  void ForEachRow(const Fn& fn) const {
    for (uint32_t slot : slots_) {
      if (slot != 0) fn(slot - 1);
    }
  }
  // Empty, keeping its room for the next batch.
  void Clear() {
    std::fill(slots_.begin(), slots_.end(), 0);
    held_ = 0;
    bytes_.clear();
    ends_.clear();
  }

 private:
  size_t Home(uint32_t slot) const {
    return std::hash<std::string_view>()(IdAt(slot - 1)) & (slots_.size() - 1);
  }
  void Grow() {
    std::vector<uint32_t> old = std::move(slots_);
    slots_.assign(std::max<size_t>(1024, old.size() * 2), 0);
    const size_t mask = slots_.size() - 1;
    for (uint32_t slot : old) {
      if (slot == 0) continue;
      size_t i = Home(slot);
      while (slots_[i] != 0) i = (i + 1) & mask;
      slots_[i] = slot;
    }
  }

  std::string bytes_;
  std::vector<uint32_t> ends_;
  std::vector<uint32_t> slots_;  // Row + 1; 0 is empty.
  size_t held_ = 0;
};

// An entity's id, and whether the load generated it (a new ULID). Generated ids skip the id
// sort: they cannot repeat, and they come in ascending order already.
struct LoadId {
  std::string id;
  bool generated = false;
};

// What follows "line N: " when the given id of line N equals an id the load generated — possible
// only for a ULID this very load minted, but a table must never hold one id twice.
std::string EqualsGenerated(const TypeDef& type, std::string_view id) {
  return "id '" + std::string(id) + "' of " + type.table_key() + " equals an id the load generated";
}

// The rows of one type that the input names: the batch being built and the fragments written.
struct TypeRows {
  TypeRows(query::RowsBuilder b, table::TableId table, uint16_t type_ordinal,
           uint64_t generated_memory_bytes)
      : builder(std::move(b)), ordinal(type_ordinal), generated(generated_memory_bytes) {
    pending = std::make_shared<table::PendingRows>();
    pending->table = table;
  }

  query::RowsBuilder builder;
  uint16_t ordinal;  // The type's prefix in the loader's id sort.
  std::shared_ptr<table::PendingRows> pending;
  // The ids of the batch being built (cleared when it is written).
  BatchIds batch_ids;
  // Rows of the batch being built that a later line of the same id replaced.
  std::vector<uint64_t> superseded;
  // The line of each row of the batch being built, and whether its id was generated.
  std::vector<uint64_t> batch_lines;
  std::vector<bool> batch_generated;
  // The rows of the batch being built whose id was generated (so ascending by id), and how many
  // of its given ids have a ULID's length (only those can equal a generated id).
  std::vector<uint32_t> batch_generated_rows;
  uint32_t batch_ulid_sized_given = 0;
  // The generated ids of the written rows, in the order they were generated — ascending, since
  // UlidGenerator mints increasing ULIDs whose text sorts as they do and a type's rows are
  // added in the order of their lines. So they need no sort; ResolveIds merges them with the
  // sorted given ids.
  SortedRecordsWriter generated;
  std::string last_generated;
  // Whether any row of the type went to the id sort (a given or derived id).
  bool sorted_ids = false;
  // Per written fragment, the index of its first row's line in the lines file.
  std::vector<uint64_t> fragment_line_start;
  uint64_t batch_bytes = 0;  // Input bytes of the lines in the batch being built.
  uint64_t records = 0;

  // Appends a generated id to `generated`. Skipping the sort is correct only if they ascend, so
  // that is checked (strictly: a repeat would put one id in the table twice).
  Status AddGenerated(std::string_view id) {
    if (!last_generated.empty() && id <= last_generated) {
      return Internal("the load generated id '" + std::string(id) + "' of " +
                      builder.type().table_key() + " after '" + last_generated +
                      "'; generated ids must ascend");
    }
    last_generated.assign(id);
    return generated.Add(id);
  }
};

// The input line of each row the write validates, for its "line N" labels. The lines of every
// written row sit in a temporary file (8 bytes each, fragment after fragment), so they take no
// memory; a label is computed only for a violation.
class RowLines {
 public:
  struct Type {
    std::vector<uint64_t> fragment_line_start;
    std::vector<uint32_t> fragment_rows;
    std::map<uint32_t, std::vector<uint32_t>> superseded;
  };

  explicit RowLines(std::unique_ptr<TempFile> file) : file_(std::move(file)) {}
  TempFile& file() { return *file_; }
  void AddType(std::string key, Type type) { types_.emplace(std::move(key), std::move(type)); }
  // A type whose rows the write takes from memory: the line of each row, in row order.
  void AddMemoryType(std::string key, std::vector<uint64_t> lines) {
    memory_.emplace(std::move(key), std::move(lines));
  }

  // The line of live row `row` (rows numbered across fragments, superseded ones left out).
  std::string Label(std::string_view table_key, uint64_t row) const {
    if (auto m = memory_.find(table_key); m != memory_.end()) {
      if (row >= m->second.size()) return std::string(table_key);
      return "line " + std::to_string(m->second[row]);
    }
    auto it = types_.find(table_key);
    if (it == types_.end()) return std::string(table_key);
    const Type& t = it->second;
    for (uint32_t f = 0; f < t.fragment_rows.size(); ++f) {
      auto gone = t.superseded.find(f);
      const std::vector<uint32_t> none;
      const std::vector<uint32_t>& skip = gone == t.superseded.end() ? none : gone->second;
      const uint64_t live = t.fragment_rows[f] - skip.size();
      if (row >= live) {
        row -= live;
        continue;
      }
      // The row-th live row of fragment f: step over the superseded rows before it.
      uint64_t r = row;
      for (uint32_t s : skip) {
        if (s <= r) ++r;
      }
      char bytes[8];
      Result<size_t> got = file_->ReadAt((t.fragment_line_start[f] + r) * 8, bytes);
      if (!got.ok() || *got != 8) return std::string(table_key);
      return "line " + std::to_string(BigEndianAt(std::string_view(bytes, 8), 0, 8));
    }
    return std::string(table_key);
  }

 private:
  std::unique_ptr<TempFile> file_;
  std::map<std::string, Type, std::less<>> types_;
  std::map<std::string, std::vector<uint64_t>, std::less<>> memory_;
};

class Loader {
 public:
  Loader(Graph& graph, const Snapshot& head, LoadMode mode, const LoadLimits& limits,
         std::unique_ptr<TempFile> lines_file)
      : graph_(graph),
        head_(head),
        mode_(mode),
        limits_(limits),
        ulids_(*graph.runtime().clock, *graph.runtime().random),
        placed_(limits.sort_bytes),
        lines_(std::make_shared<RowLines>(std::move(lines_file))),
        writes_in_flight_max_(graph.runtime().executor->Parallelism() > 1 ? kLoadWritesInFlight
                                                                          : 0) {}

  // From now on each type is asked `change` on `branch` (LoadOptions::authorize) before the
  // first line of it is added; a refusal is the line's error.
  void AuthorizeTypes(std::string_view branch, Authorize authorize) {
    authorize_branch_ = std::string(branch);
    authorize_ = std::move(authorize);
  }
  // External Blob URIs are admitted by `rules` (none: every one is refused).
  void AdmitExternalBlobs(std::shared_ptr<const ExternalBlobRules> rules) {
    external_blobs_ = std::move(rules);
  }
  // Adds one record of `bytes` input bytes; may write a batch.
  Status Add(const JsonlRecord& r, uint64_t bytes);
  // `failure`, met on a line after every line added so far — unless, for an append, one of
  // those lines repeats an id of an earlier batch: that KeyConflict comes first.
  Status RepeatBefore(Status failure);
  // Writes the last batches; the changes to publish, one per type named; the per-type record
  // counts into `result`.
  Result<std::map<std::string, TableChange>> Finish(LoadResult* result);
  // The input line of each row the write validates (complete after Finish).
  std::shared_ptr<const RowLines> lines() const { return lines_; }
  // The most input bytes the unwritten batches held at once.
  uint64_t buffered_bytes_peak() const { return buffered_bytes_peak_; }
  // Waits for the batches being written and deletes every fragment the loader wrote (a refused
  // load's: no record names them, and no other writer knows their names). Best effort; the
  // number of fragments it asked the store to delete.
  size_t DeleteWritten();

 private:
  Status AuthorizeType(const TypeDef& type, uint64_t line);
  Result<TypeRows*> RowsOf(const TypeDef& type);
  Result<LoadId> IdOf(const JsonlRecord& r, const TypeDef& type,
                      const std::vector<std::optional<Value>>& values);
  // KeyConflict ("line N", N the line that gave the id) when `id`, of the row of `line`, equals
  // an id of the batch being built and one of the two was generated: BatchIds does not index
  // generated ids, and a fragment must hold an id once.
  Status CheckApartInBatch(const TypeRows& rows, const LoadId& id, uint64_t line);
  // Adds a row with its values complete; may write a batch.
  Status AddRow(TypeRows& rows, LoadId id, std::string_view from, std::string_view to,
                const std::vector<std::optional<Value>>& values, uint64_t line, uint64_t bytes);
  // The batch being built without the rows a later line of the same id replaced; leaves the
  // batch's lines (and generated marks) as those of the rows returned.
  Result<table::ColumnBatch> TakeBatch(TypeRows& rows);
  // Writes the batch being built as a pending fragment (on the runtime's executor; CollectWrite
  // finishes it).
  Status Flush(TypeRows& rows);
  // Waits for the oldest batch being written and puts its fragment in its type's pending rows.
  Status CollectWrite();
  // Resolves ids given in more than one fragment (append: KeyConflict; merge and overwrite: the
  // last line wins) and collects each type's live ids, ascending.
  Status ResolveIds();

  Graph& graph_;
  std::shared_ptr<const ExternalBlobRules> external_blobs_;
  const Snapshot& head_;
  std::string authorize_branch_;
  Authorize authorize_;
  std::set<std::string> authorized_;  // Type names the gate allowed.
  LoadMode mode_;
  LoadLimits limits_;
  UlidGenerator ulids_;
  static constexpr uint32_t kUlidClockReads = 64;
  uint64_t ulid_now_ms_ = 0;    // The time the next generated ids carry.
  uint32_t ulid_ids_left_ = 0;  // Ids to generate before the clock is read again.
  std::map<std::string, std::unique_ptr<TypeRows>> rows_;  // By table key.
  std::vector<TypeRows*> by_ordinal_;
  // (type ordinal + id) -> place of every written row whose id the load did not generate: what
  // checks ids across batches without holding them (the sorter spills past limits_.sort_bytes).
  ExternalSorter placed_;
  std::shared_ptr<RowLines> lines_;
  // Every fragment written ahead, by store name (DeleteWritten).
  table::StagedObjects written_;
  uint64_t lines_written_ = 0;
  uint64_t buffered_bytes_ = 0;  // Over every type's batch, and the batches being written.
  uint64_t buffered_bytes_peak_ = 0;
  // A batch being written on the runtime's executor while the next lines are parsed: its
  // fragment's slot in its type's pending rows is filled when the write is collected, oldest
  // first. The group's destructor waits for the write, so a loader that stops early leaves no
  // task behind.
  struct Writing {
    TypeRows* rows = nullptr;
    uint32_t fragment = 0;
    uint64_t bytes = 0;  // Input bytes of its lines.
    std::shared_ptr<table::FragmentEntry> entry;
    std::unique_ptr<TaskGroup> group;
  };
  std::deque<Writing> writing_;
  // Writes left outstanding when a flush returns: the flush that submits one more waits for the
  // oldest, so at most this many + 1 run at once — enough to overlap parsing with encoding,
  // compressing and storing, and counted by the memory bound (decision 20). None with an inline
  // executor: each batch is written as it is flushed.
  size_t writes_in_flight_max_;
  // The type of the latest record and its rows (RowsOf).
  const TypeDef* last_type_ = nullptr;
  TypeRows* last_rows_ = nullptr;
  // The values of the record being added (reused from record to record).
  std::vector<std::optional<Value>> values_;
};

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
    // The clock is read once per kUlidClockReads ids: the generator steps the random part within
    // a millisecond, so the ids still ascend, and 2.4 M edges do not pay 2.4 M clock reads.
    if (ulid_ids_left_ == 0) {
      ulid_now_ms_ = static_cast<uint64_t>(graph_.runtime().clock->NowMillis());
      ulid_ids_left_ = kUlidClockReads;
    }
    --ulid_ids_left_;
    return LoadId{ulids_.NextAt(ulid_now_ms_).ToString(), true};
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
  return LoadId{std::move(*derived), false};
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
        return Status(Code::kKeyConflict, LinePrefix(line) + "id '" + id.id + "' of " +
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
  if (rows->builder.num_rows() >= limits_.batch_rows) return Flush(*rows);
  if (buffered_bytes_ > limits_.buffer_bytes) {
    // Write the largest batch: the buffered rows of every type stay under the bound.
    TypeRows* largest = rows;
    for (auto& [key, other] : rows_) {
      if (other->batch_bytes > largest->batch_bytes) largest = other.get();
    }
    return Flush(*largest);
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
        [&](uint32_t r, const std::string& v) { return rows.batch_ids.IdAt(r) < v; });
    if (it == minted.end() || rows.batch_ids.IdAt(*it) != id.id) return Status::Ok();
    given_line = line;
  }
  return Status(Code::kKeyConflict,
                LinePrefix(given_line) + EqualsGenerated(rows.builder.type(), id.id));
}

// `batch` without the rows in `drop` (sorted ascending, unique).
Result<table::ColumnBatch> WithoutRows(const table::ColumnBatch& batch,
                                       std::vector<uint64_t> drop) {
  std::sort(drop.begin(), drop.end());
  std::vector<table::RowRef> keep;
  size_t d = 0;
  for (uint64_t row = 0; row < batch.num_rows(); ++row) {
    if (d < drop.size() && drop[d] == row) {
      ++d;
      continue;
    }
    keep.push_back(table::RowRef{0, static_cast<uint32_t>(row)});
  }
  return table::GatherRows(batch, keep);
}

Result<table::ColumnBatch> Loader::TakeBatch(TypeRows& rows) {
  OMNIGRAPH_ASSIGN_OR_RETURN(table::ColumnBatch batch, rows.builder.Finish());
  if (!rows.superseded.empty()) {
    // A fragment holds each id once: drop the replaced rows (and their lines and marks).
    std::sort(rows.superseded.begin(), rows.superseded.end());
    std::vector<uint64_t> lines;
    std::vector<bool> generated;
    for (uint64_t r = 0, s = 0; r < rows.batch_lines.size(); ++r) {
      if (s < rows.superseded.size() && rows.superseded[s] == r) {
        ++s;
      } else {
        lines.push_back(rows.batch_lines[r]);
        generated.push_back(rows.batch_generated[r]);
      }
    }
    rows.batch_lines = std::move(lines);
    rows.batch_generated = std::move(generated);
    OMNIGRAPH_ASSIGN_OR_RETURN(batch, WithoutRows(batch, std::move(rows.superseded)));
    rows.superseded.clear();
  }
  return batch;
}

Status Loader::Flush(TypeRows& rows) {
  if (rows.builder.num_rows() == 0) return Status::Ok();
  OMNIGRAPH_ASSIGN_OR_RETURN(table::ColumnBatch batch, TakeBatch(rows));
  // The batch is encoded, compressed and stored on the executor while this thread records its
  // ids and lines (reading the batch, as the write does) and goes on parsing.
  auto written = std::make_shared<const table::ColumnBatch>(std::move(batch));
  const uint32_t f = static_cast<uint32_t>(rows.pending->fragments.size());
  rows.pending->fragments.emplace_back();  // CollectWrite fills it in.
  Writing writing{&rows, f, rows.batch_bytes, std::make_shared<table::FragmentEntry>(),
                  std::make_unique<TaskGroup>(*graph_.runtime().executor)};
  writing.group->Add([&tables = graph_.tables(), table = rows.pending->table, written,
                      entry = writing.entry, log = &written_]() -> Status {
    OMNIGRAPH_ASSIGN_OR_RETURN(*entry, tables.WriteFragment(table, *written, log));
    return Status::Ok();
  });
  writing_.push_back(std::move(writing));
  const table::ColumnBatch& batch_rows = *written;
  // Every written row's place goes to the id sort (a generated id to its type's list instead),
  // its line to the lines file.
  const table::Column* ids = batch_rows.FindColumn(table::kIdFieldId);
  std::string key = OrdinalPrefix(rows.ordinal);
  std::string line_bytes;
  line_bytes.reserve(batch_rows.num_rows() * 8);
  for (uint32_t r = 0; r < batch_rows.num_rows(); ++r) {
    const std::string_view id = ids->StringAt(r);
    if (rows.batch_generated[r]) {
      OMNIGRAPH_RETURN_IF_ERROR(rows.AddGenerated(id));
    } else {
      key.resize(2);
      key.append(id);
      OMNIGRAPH_RETURN_IF_ERROR(placed_.Add(key, EncodePlace(f, r, rows.batch_lines[r])));
      rows.sorted_ids = true;
    }
    PutBigEndian(rows.batch_lines[r], 8, &line_bytes);
  }
  rows.fragment_line_start.push_back(lines_written_);
  OMNIGRAPH_RETURN_IF_ERROR(lines_->file().Append(line_bytes));
  lines_written_ += batch_rows.num_rows();
  rows.batch_lines.clear();
  rows.batch_generated.clear();
  rows.batch_generated_rows.clear();
  rows.batch_ulid_sized_given = 0;
  rows.batch_ids.Clear();
  // The batch's bytes stay counted in buffered_bytes_ until its write is collected.
  rows.batch_bytes = 0;
  while (!writing_.empty() &&
         (writing_.size() > writes_in_flight_max_ || buffered_bytes_ > limits_.buffer_bytes)) {
    OMNIGRAPH_RETURN_IF_ERROR(CollectWrite());
  }
  return Status::Ok();
}

Status Loader::CollectWrite() {
  Writing writing = std::move(writing_.front());
  writing_.pop_front();
  buffered_bytes_ -= writing.bytes;
  OMNIGRAPH_RETURN_IF_ERROR(writing.group->Wait());
  writing.rows->pending->fragments[writing.fragment] = std::move(*writing.entry);
  return Status::Ok();
}

size_t Loader::DeleteWritten() {
  while (!writing_.empty()) {
    writing_.front().group->Wait().IgnoreError();
    writing_.pop_front();
  }
  std::vector<std::string> names = written_.Take();
  for (const std::string& name : names) graph_.runtime().store->Delete(name).IgnoreError();
  return names.size();
}

Status Loader::RepeatBefore(Status failure) {
  if (mode_ != LoadMode::kAppend) return failure;
  // The ids of the batches being built join the written ones; their fragment index sorts after
  // every written fragment's. Generated ids follow their type's written ones, still ascending.
  for (TypeRows* rows : by_ordinal_) {
    std::string key = OrdinalPrefix(rows->ordinal);
    const uint32_t next = static_cast<uint32_t>(rows->pending->fragments.size());
    bool added = true;
    rows->batch_ids.ForEachRow([&](uint32_t row) {
      key.resize(2);
      key.append(rows->batch_ids.IdAt(row));
      added = added && placed_.Add(key, EncodePlace(next, row, rows->batch_lines[row])).ok();
      rows->sorted_ids = true;
    });
    for (uint32_t row = 0; added && row < rows->batch_generated.size(); ++row) {
      if (rows->batch_generated[row]) added = rows->AddGenerated(rows->batch_ids.IdAt(row)).ok();
    }
    if (!added) return failure;
  }
  Status repeat = ResolveIds();
  return repeat.code() == Code::kKeyConflict ? repeat : failure;
}

// One type's live ids as ResolveIds collects them: the ids read from the id sort, ascending,
// merged with the type's generated ids (ascending too). A type's ids stay in memory up to a 64th
// of the sort budget, then go to a file.
class LiveIds {
 public:
  explicit LiveIds(uint64_t memory_bytes) : live_(memory_bytes) {}

  // Takes the generated ids of `rows`; to be merged when the type has sorted ids too.
  Status Start(TypeRows& rows) {
    sorted_ = rows.sorted_ids;
    OMNIGRAPH_ASSIGN_OR_RETURN(generated_, rows.generated.Finish());
    if (!sorted_ || generated_->empty()) return Status::Ok();
    reader_ = generated_->Open();
    return NextGenerated();
  }
  // Adds the next sorted id (ascending), after the generated ids below it; sets
  // `*equals_generated` when a generated id equals it (that one is left out).
  Status AddSorted(std::string_view id, bool* equals_generated) {
    OMNIGRAPH_RETURN_IF_ERROR(AddGeneratedBelow(id));
    *equals_generated = more_ && generated_id_ == id;
    if (*equals_generated) OMNIGRAPH_RETURN_IF_ERROR(NextGenerated());
    return live_.Add(id);
  }
  // Every live id, ascending: the generated list as it stands when the type had no other ids.
  Result<std::shared_ptr<const SortedRecords>> Finish() {
    if (!sorted_) return std::move(generated_);
    OMNIGRAPH_RETURN_IF_ERROR(AddGeneratedBelow(std::nullopt));
    return live_.Finish();
  }

 private:
  Status NextGenerated() {
    std::string_view value;
    OMNIGRAPH_ASSIGN_OR_RETURN(more_, reader_->Next(&generated_id_, &value));
    return Status::Ok();
  }
  // The generated ids below `bound` (all of them without one).
  Status AddGeneratedBelow(std::optional<std::string_view> bound) {
    while (more_ && (!bound || generated_id_ < *bound)) {
      OMNIGRAPH_RETURN_IF_ERROR(live_.Add(generated_id_));
      OMNIGRAPH_RETURN_IF_ERROR(NextGenerated());
    }
    return Status::Ok();
  }

  SortedRecordsWriter live_;
  bool sorted_ = false;
  std::shared_ptr<const SortedRecords> generated_;
  std::unique_ptr<SortedRecords::Reader> reader_;
  std::string_view generated_id_;  // The next generated id while `more_`.
  bool more_ = false;
};

Status Loader::ResolveIds() {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const SortedRecords> placed, placed_.Finish());
  std::unique_ptr<SortedRecords::Reader> reader = placed->Open();
  // Append: of the ids given twice, the one whose second line comes first is reported, as a
  // one-pass reader would have.
  std::optional<Status> conflict;
  uint64_t conflict_line = 0;
  auto note_conflict = [&](uint64_t line, std::string message) {
    if (conflict && line >= conflict_line) return;
    conflict_line = line;
    conflict = Status(Code::kKeyConflict, LinePrefix(line) + message);
  };
  // Reserved: a LiveIds holds a view into its reader, which it should not move under.
  std::vector<LiveIds> live;
  live.reserve(by_ordinal_.size());
  for (TypeRows* rows : by_ordinal_) {
    live.emplace_back(limits_.sort_bytes / 64);
    OMNIGRAPH_RETURN_IF_ERROR(live.back().Start(*rows));
  }
  std::string id;    // The id of the group being read (type prefix included).
  std::string last;  // Its latest place.
  uint64_t first_line = 0;
  auto end_group = [&]() -> Status {
    if (id.empty()) return Status::Ok();
    const uint16_t ordinal = static_cast<uint16_t>(BigEndianAt(id, 0, 2));
    const std::string_view given = std::string_view(id).substr(2);
    bool equals_generated = false;
    OMNIGRAPH_RETURN_IF_ERROR(live[ordinal].AddSorted(given, &equals_generated));
    // A second row of the id that no bookkeeping supersedes: never publish that.
    if (equals_generated) {
      note_conflict(BigEndianAt(last, 8, 8),
                    EqualsGenerated(by_ordinal_[ordinal]->builder.type(), given));
    }
    return Status::Ok();
  };
  std::string_view key, value;
  while (true) {
    OMNIGRAPH_ASSIGN_OR_RETURN(bool more, reader->Next(&key, &value));
    if (more && key == id) {
      // The same id again, in a later fragment.
      TypeRows& rows = *by_ordinal_[BigEndianAt(key, 0, 2)];
      const uint64_t line = BigEndianAt(value, 8, 8);
      if (mode_ == LoadMode::kAppend) {
        note_conflict(line, "id '" + std::string(key.substr(2)) + "' of " +
                                rows.builder.type().table_key() + " was already given on line " +
                                std::to_string(first_line));
      } else {
        rows.pending->superseded[static_cast<uint32_t>(BigEndianAt(last, 0, 4))].push_back(
            static_cast<uint32_t>(BigEndianAt(last, 4, 4)));
      }
      last.assign(value);
      continue;
    }
    OMNIGRAPH_RETURN_IF_ERROR(end_group());
    if (!more) break;
    id.assign(key);
    last.assign(value);
    first_line = BigEndianAt(value, 8, 8);
  }
  if (conflict) return *conflict;
  for (TypeRows* rows : by_ordinal_) {
    for (auto& [fragment, superseded] : rows->pending->superseded) {
      std::sort(superseded.begin(), superseded.end());
    }
    OMNIGRAPH_ASSIGN_OR_RETURN(rows->pending->ids, live[rows->ordinal].Finish());
  }
  return Status::Ok();
}

Result<std::map<std::string, TableChange>> Loader::Finish(LoadResult* result) {
  // A type none of whose batches was written is staged from memory, after the write path has
  // validated it (nothing is written for a load refused there); the others are written ahead.
  for (auto& [key, rows] : rows_) {
    if (!rows->pending->fragments.empty()) OMNIGRAPH_RETURN_IF_ERROR(Flush(*rows));
  }
  while (!writing_.empty()) OMNIGRAPH_RETURN_IF_ERROR(CollectWrite());
  OMNIGRAPH_RETURN_IF_ERROR(ResolveIds());
  std::map<std::string, TableChange> changes;
  for (auto& [key, rows] : rows_) {
    TableChange change;
    change.op = mode_ == LoadMode::kAppend  ? TableChange::Op::kAppend
                : mode_ == LoadMode::kMerge ? TableChange::Op::kUpsert
                                            : TableChange::Op::kOverwrite;
    const TypeDef& type = rows->builder.type();
    LoadedType loaded{type.name, rows->records};
    (type.kind == schema::TypeKind::kEdge ? result->edges : result->nodes).push_back(loaded);
    result->total_entities += rows->records;
    if (rows->pending->fragments.empty()) {
      OMNIGRAPH_ASSIGN_OR_RETURN(change.rows, TakeBatch(*rows));
      lines_->AddMemoryType(key, std::move(rows->batch_lines));
      changes.emplace(key, std::move(change));
      continue;
    }
    RowLines::Type lines;
    lines.fragment_line_start = std::move(rows->fragment_line_start);
    for (const table::FragmentEntry& f : rows->pending->fragments) {
      lines.fragment_rows.push_back(static_cast<uint32_t>(f.rows));
    }
    lines.superseded = rows->pending->superseded;
    lines_->AddType(key, std::move(lines));
    change.pending = std::move(rows->pending);
    changes.emplace(key, std::move(change));
  }
  auto by_name = [](const LoadedType& a, const LoadedType& b) { return a.name < b.name; };
  std::sort(result->nodes.begin(), result->nodes.end(), by_name);
  std::sort(result->edges.begin(), result->edges.end(), by_name);
  return changes;
}

}  // namespace

std::string_view LoadModeName(LoadMode mode) {
  switch (mode) {
    case LoadMode::kAppend: return "append";
    case LoadMode::kMerge: return "merge";
    case LoadMode::kOverwrite: return "overwrite";
  }
  return "merge";
}

Result<LoadMode> ParseLoadMode(std::string_view name) {
  if (name == "append") return LoadMode::kAppend;
  if (name == "merge") return LoadMode::kMerge;
  if (name == "overwrite") return LoadMode::kOverwrite;
  return InvalidArgument("unknown load mode '" + std::string(name) +
                         "' (expected append, merge or overwrite)");
}

Json LoadResult::ToJson() const {
  auto types = [](const std::vector<LoadedType>& list) {
    Json out = Json::array();
    for (const LoadedType& t : list) {
      out.push_back(Json{{"name", t.name}, {"entities_loaded", t.entities_loaded}});
    }
    return out;
  };
  Json out = {{"branch", branch},           {"branch_created", branch_created},
              {"mode", LoadModeName(mode)}, {"nodes", types(nodes)},
              {"edges", types(edges)},      {"total_entities", total_entities}};
  if (base_branch) out["base_branch"] = *base_branch;
  if (commit) out["commit"] = *commit;
  if (actor_id) out["actor_id"] = *actor_id;
  return out;
}

namespace {

// What a keyed load records to answer its retries with: its per-type counts.
Json LoadOutcome(const LoadResult& result) {
  Json out = result.ToJson();
  return Json{
      {"nodes", out["nodes"]}, {"edges", out["edges"]}, {"total_entities", out["total_entities"]}};
}

// A keyed load's answer from the record of its first run.
LoadResult ReplayedLoad(LoadResult result, WriteResult done) {
  auto types = [](const Json& list) {
    std::vector<LoadedType> out;
    for (const Json& t : list.is_array() ? list : Json::array()) {
      out.push_back(
          LoadedType{t.value("name", std::string()), t.value("entities_loaded", uint64_t{0})});
    }
    return out;
  };
  result.nodes = types(done.outcome.value("nodes", Json::array()));
  result.edges = types(done.outcome.value("edges", Json::array()));
  result.total_entities = done.outcome.value("total_entities", uint64_t{0});
  result.actor_id = done.record.actor;
  result.commit = done.commit_id;
  result.commit_record = std::move(done.record);
  return result;
}

// The keyed load's earlier answer on `branch`, if it has one (a branch that does not exist yet
// has none).
Result<std::optional<WriteResult>> LoadReplay(Graph& graph, std::string_view branch,
                                              const LoadOptions& options) {
  if (!options.idempotency) return std::optional<WriteResult>();
  Result<std::optional<WriteResult>> done = graph.Replay(branch, *options.idempotency);
  if (!done.ok() && done.status().code() == Code::kBranchNotFound && options.from) {
    return std::optional<WriteResult>();
  }
  return done;
}

// Fragments written ahead are unreferenced until the commit: cleanup may take them once they
// are older than its grace period, so a load that took too long must not publish them.
Status CheckLoadDuration(Graph& graph, int64_t started_us) {
  const int64_t elapsed_us = graph.runtime().clock->NowMicros() - started_us;
  if (elapsed_us <= kLoadDurationMaxMicros) return Status::Ok();
  return Status(Code::kResourceLimit, "the load read its input for " +
                                          std::to_string(elapsed_us / 1000000) + " s; at most " +
                                          std::to_string(kLoadDurationMaxMicros / 1000000) +
                                          " s are allowed (split the input)");
}

// Creates the branch a load into a new branch writes to (a rival that created it meanwhile is
// fine: the load goes on it).
Status CreateLoadBranch(Graph& graph, std::string_view branch, const LoadOptions& options,
                        LoadResult& result) {
  Result<commit::StreamMetadata> created =
      graph.CreateBranch(branch, *options.from, std::nullopt, options.actor);
  if (created.ok()) {
    result.branch_created = true;
  } else if (created.status().code() != Code::kBranchExists) {
    return created.status();
  }
  return Status::Ok();
}

// Reads every line of `lines` into the loader, reporting the records read to `meter`.
Status ReadInput(Loader& loader, LineSource& lines, ProgressMeter& meter) {
  meter.Phase("reading");
  JsonlReader reader(lines);
  JsonlRecord record;
  uint64_t consumed = 0;
  uint64_t records = 0;
  while (true) {
    Result<bool> more = reader.Next(&record);
    Status added =
        more.ok() && *more ? loader.Add(record, reader.bytes_read() - consumed) : more.status();
    // A line that fails comes after every line read so far: an id repeated across batches among
    // those (found only at the end otherwise) is the earlier error.
    if (!added.ok()) return loader.RepeatBefore(std::move(added));
    if (!*more) break;
    consumed = reader.bytes_read();
    meter.Update(++records, consumed);
  }
  return Status::Ok();
}

// Deletes the branch a refused load created, unless a record was published on it since
// (`created_at` is its head right after the create): another process that found the branch may
// have written to it, and its acknowledged commit must not go with the branch.
void DropCreatedBranch(Graph& graph, std::string_view branch, const std::string& created_at,
                       const LoadOptions& options) {
  Result<Snapshot> now = graph.SnapshotOfBranch(branch);
  if (!now.ok() || now->commit_id() != created_at) return;
  graph.DeleteBranch(branch, options.actor).IgnoreError();
}

// The write of a load whose input was read (`changes`), on `branch` or, when `create`, a new
// branch from `head` (the base's head) that is created only once the write passed every check
// against that head. `write_started` is set once Graph::Write was called.
Result<LoadResult> PublishLoad(Graph& graph, std::string_view branch, const Snapshot& head,
                               bool create, std::map<std::string, TableChange> changes,
                               const Loader& loader, LoadMode mode, const LoadOptions& options,
                               LoadResult result, bool& write_started, ProgressMeter& meter) {
  WriteRequest request;
  request.branch = std::string(branch);
  request.changes = std::move(changes);
  request.actor = options.actor;
  request.row_label = [lines = loader.lines()](std::string_view table_key, uint64_t row) {
    return lines->Label(table_key, row);
  };
  request.sort_bytes = options.limits.sort_bytes;
  request.planned_schema = head.state().schema;
  request.summary = "load " + std::string(LoadModeName(mode));
  request.counts = LoadOutcome(result);
  request.idempotency = options.idempotency;
  if (request.idempotency) request.idempotency->outcome = LoadOutcome(result);
  // A new branch is created only for a load that its base's head accepts: a refused load never
  // creates it (checked twice, since the write validates again on the branch it captures).
  if (create && !request.changes.empty())
    OMNIGRAPH_RETURN_IF_ERROR(graph.CheckWrite(head, request));
  if (create) OMNIGRAPH_RETURN_IF_ERROR(CreateLoadBranch(graph, branch, options, result));
  // A load of no entity still publishes one commit with no table change, as OmniGraph's does.
  request.publish_empty = true;
  std::string created_at;
  if (result.branch_created) {
    OMNIGRAPH_ASSIGN_OR_RETURN(Snapshot fork, graph.SnapshotOfBranch(branch));
    created_at = fork.commit_id();
  }
  std::set<std::string> loaded;
  for (const auto& [table_key, change] : request.changes) loaded.insert(table_key);
  write_started = true;
  Result<WriteResult> written = graph.Write(request);
  if (!written.ok()) {
    // Refused after the branch was created (another writer used the branch meanwhile, or the
    // store failed): the branch goes again only while nobody published on it.
    if (result.branch_created && NothingPublished(written.status())) {
      DropCreatedBranch(graph, branch, created_at, options);
    }
    return written.status();
  }
  if (written->replayed) return ReplayedLoad(std::move(result), *std::move(written));
  result.commit = written->commit_id;
  // The derived objects of every version the load published (engine/write/derived_indexes.h); never
  // authority, so a failure there leaves the load committed and the next reader builds them.
  AfterPublishOptions derived;
  derived.build_all = true;
  derived.ann = options.ann;
  StoreDerivedAfterPublish(graph.tables(), &head.catalog(), written->record, loaded, derived);
  result.commit_record = std::move(written->record);
  meter.Finish();
  return result;
}

Result<LoadResult> LoadLines(Graph& graph, std::string_view branch, LineSource& lines,
                             LoadMode mode, const LoadOptions& options) {
  LoadResult result;
  result.branch = std::string(branch);
  result.base_branch = options.from;
  result.mode = mode;
  result.actor_id = options.actor;
  const int64_t started_us = graph.runtime().clock->NowMicros();
  OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<WriteResult> done, LoadReplay(graph, branch, options));
  if (done) return ReplayedLoad(std::move(result), std::move(*done));
  // The schema to read the input with: the branch's, or the base's when the branch is new.
  Result<Snapshot> head = graph.SnapshotOfBranch(branch);
  bool create = false;
  if (!head.ok() && head.status().code() == Code::kBranchNotFound && options.from) {
    head = graph.SnapshotOfBranch(*options.from);
    create = true;
  }
  OMNIGRAPH_RETURN_IF_ERROR(head.status());

  OMNIGRAPH_ASSIGN_OR_RETURN(std::unique_ptr<TempFile> lines_file, TempFile::Create());
  Loader loader(graph, *head, mode, options.limits, std::move(lines_file));
  loader.AuthorizeTypes(branch, options.authorize);
  loader.AdmitExternalBlobs(options.external_blobs);
  ProgressMeter meter(options.progress, *graph.runtime().clock, "load", "entities");
  meter.SetBytesTotal(options.input_bytes);
  bool write_started = false;
  Result<LoadResult> out = [&]() -> Result<LoadResult> {
    OMNIGRAPH_RETURN_IF_ERROR(ReadInput(loader, lines, meter));
    meter.Phase("committing");
    OMNIGRAPH_ASSIGN_OR_RETURN(auto changes, loader.Finish(&result));
    result.buffered_bytes_peak = loader.buffered_bytes_peak();
    OMNIGRAPH_RETURN_IF_ERROR(CheckLoadDuration(graph, started_us));
    return PublishLoad(graph, branch, *head, create, std::move(changes), loader, mode, options,
                       std::move(result), write_started, meter);
  }();
  // A refused load deletes the fragments it wrote ahead: until a record names them they are
  // only this load's (docs/design/load.md "A refused load leaves nothing"). Not when the
  // publication may have happened after all.
  if (!out.ok() && (!write_started || NothingPublished(out.status()))) loader.DeleteWritten();
  return out;
}

}  // namespace

Result<LoadResult> Load(Graph& graph, std::string_view branch, std::string_view ndjson,
                        LoadMode mode, const LoadOptions& options) {
  StringLines lines(ndjson);
  return LoadLines(graph, branch, lines, mode, options);
}

Result<LoadResult> LoadFile(Graph& graph, std::string_view branch, const std::string& path,
                            LoadMode mode, const LoadOptions& options) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::unique_ptr<FileLines> lines, FileLines::Open(path));
  LoadOptions with_size = options;
  if (!with_size.input_bytes) with_size.input_bytes = lines->size_bytes();
  return LoadLines(graph, branch, *lines, mode, with_size);
}

Result<LoadResult> LoadFrom(Graph& graph, std::string_view branch, LineSource& lines, LoadMode mode,
                            const LoadOptions& options) {
  return LoadLines(graph, branch, lines, mode, options);
}

Result<LoadResult> LoadJsonl(Graph& graph, std::string_view branch, std::string_view ndjson,
                             LoadMode mode) {
  return Load(graph, branch, ndjson, mode);
}

}  // namespace omnigraph::engine
