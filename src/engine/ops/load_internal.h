// The internals of a load (load.h), shared by the files that carry its three reasons to change:
// load_rows.cc turns NDJSON lines into rows (the envelope, ids, authorization, the batch being
// built); load_fragments.cc writes batches ahead as pending fragments and resolves the ids given
// in more than one of them; load.cc drives a load into a branch (replay, branch creation, the
// write, the derived step). Only those files include it. A Loader serves one load on one thread
// (its batch writes run on the runtime's executor).
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/executor.h"
#include "base/ids.h"
#include "base/sorted_records.h"
#include "engine/ops/jsonl_reader.h"
#include "engine/ops/load.h"
#include "query/exec/column_codec.h"
#include "table/table_manifest.h"

namespace omnigraph::engine::load_internal {

using schema::PropertyDef;
using schema::TypeDef;
using schema::Value;

// "line N: ", the prefix of a line's error.
std::string LinePrefix(uint64_t line);

// A row's place in the pending fragments of its type: fragment, row, and the line that gave it,
// encoded big-endian so that a type's records of one id sort in input order.
std::string EncodePlace(uint32_t fragment, uint32_t row, uint64_t line);

// The prefix of a type's records in the loader's id sort: its ordinal, big-endian.
std::string OrdinalPrefix(uint16_t ordinal);

// What follows "line N: " when the given id of line N equals an id the load generated — possible
// only for a ULID this very load minted, but a table must never hold one id twice.
std::string EqualsGenerated(const TypeDef& type, std::string_view id);

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
// sort: they cannot repeat, and they come in ascending order already. The id is viewed where it
// was read or made (the record, or the loader's text of its latest derived or generated id), so
// an id costs no allocation of its own; it is valid until the next record is added.
struct LoadId {
  std::string_view id;
  bool generated = false;
};

// The rows of one type that the input names: the batch being built and the fragments written.
struct TypeRows {
  TypeRows(query::RowsBuilder b, TableId table, uint16_t type_ordinal,
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
  // Whether every batch written ahead was kept for validation (LoadLimits::kept_bytes): false
  // once the input outgrew the budget.
  bool KeptEveryBatch() const { return batches_passed_ == 0; }
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
  // finishes it). With `more`, rows of the type are still to come: the next batch's buffers are
  // reserved at this one's size.
  Status Flush(TypeRows& rows, bool more);
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
  // Generated ids are minted in runs of this many: the clock is read and the generator asked once
  // per run, and the run's ids after its first are its text stepped (Ulid::StepText).
  static constexpr uint32_t kUlidRun = 64;
  uint32_t ulid_ids_left_ = 0;                             // Ids of the run left to hand out.
  std::string ulid_text_;                                  // The latest generated id.
  std::string derived_id_;                                 // The latest derived (@key) id.
  std::map<std::string, std::unique_ptr<TypeRows>> rows_;  // By table key.
  std::vector<TypeRows*> by_ordinal_;
  // (type ordinal + id) -> place of every written row whose id the load did not generate: what
  // checks ids across batches without holding them (the sorter spills past limits_.sort_bytes).
  ExternalSorter placed_;
  std::shared_ptr<RowLines> lines_;
  // Every fragment written ahead, by store name (DeleteWritten).
  table::StagedObjects written_;
  uint64_t lines_written_ = 0;
  // A batch's lines as Flush writes them; kept from batch to batch (cleared, not freed).
  std::string line_bytes_;
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
    // The batch, kept in its type's pending rows once written while limits_.kept_bytes allows.
    std::shared_ptr<const table::ColumnBatch> batch;
    std::unique_ptr<TaskGroup> group;
  };
  uint64_t kept_bytes_ = 0;      // Of the batches kept in the pending rows.
  uint64_t batches_passed_ = 0;  // Written batches the budget left out.
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

}  // namespace omnigraph::engine::load_internal
