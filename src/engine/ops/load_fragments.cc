// A load's fragments (load_internal.h): the batches written ahead as pending fragments on the
// runtime's executor, and the ids given in more than one of them resolved at the end.
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

std::string EncodePlace(uint32_t fragment, uint32_t row, uint64_t line) {
  std::string out;
  PutBigEndian(fragment, 4, &out);
  PutBigEndian(row, 4, &out);
  PutBigEndian(line, 8, &out);
  return out;
}

std::string OrdinalPrefix(uint16_t ordinal) {
  std::string out;
  PutBigEndian(ordinal, 2, &out);
  return out;
}

namespace {

// The memory a column's buffers hold (their capacity), its child's included.
uint64_t ColumnBytes(const table::Column& column) {
  uint64_t bytes = column.validity().capacity() + column.offsets_buffer().capacity() +
                   column.values_buffer().capacity();
  return column.has_child() ? bytes + ColumnBytes(column.child()) : bytes;
}

uint64_t BatchBytes(const table::ColumnBatch& batch) {
  uint64_t bytes = 0;
  for (size_t i = 0; i < batch.num_columns(); ++i) bytes += ColumnBytes(batch.column(i));
  return bytes;
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

}  // namespace

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

Status Loader::Flush(TypeRows& rows, bool more) {
  if (rows.builder.num_rows() == 0) return Status::Ok();
  OMNIGRAPH_ASSIGN_OR_RETURN(table::ColumnBatch batch, TakeBatch(rows));
  // Batches of a type are alike (batch_rows rows of like values): the next one is given this
  // one's room at once instead of growing into it by doubling, which copied each buffer as it
  // grew and touched twice its pages (decision 249).
  if (more) rows.builder.ReserveLike(batch);
  // The batch is encoded, compressed and stored on the executor while this thread records its
  // ids and lines (reading the batch, as the write does) and goes on parsing.
  auto written = std::make_shared<const table::ColumnBatch>(std::move(batch));
  const uint32_t f = static_cast<uint32_t>(rows.pending->fragments.size());
  rows.pending->fragments.emplace_back();  // CollectWrite fills it in.
  Writing writing{&rows,
                  f,
                  rows.batch_bytes,
                  std::make_shared<table::FragmentEntry>(),
                  written,
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
  std::string& line_bytes = line_bytes_;
  line_bytes.clear();
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
  table::PendingRows& pending = *writing.rows->pending;
  pending.fragments[writing.fragment] = std::move(*writing.entry);
  // The written batch stays in memory for validation while the budget allows; the first batches
  // fill it, the rest are read back.
  const uint64_t bytes = BatchBytes(*writing.batch);
  if (kept_bytes_ + bytes <= limits_.kept_bytes) {
    kept_bytes_ += bytes;
    pending.written.resize(pending.fragments.size());
    pending.written[writing.fragment] = std::move(writing.batch);
  } else {
    ++batches_passed_;
  }
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
    if (!rows->pending->fragments.empty()) OMNIGRAPH_RETURN_IF_ERROR(Flush(*rows, false));
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

}  // namespace omnigraph::engine::load_internal
