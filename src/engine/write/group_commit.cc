// Group commit's queue and the merging of members' changes (engine/write/group_commit.h).
#include "engine/write/group_commit.h"

#include <set>

#include "base/yield.h"

#include "table/row_gather.h"
#include "table/table_manifest.h"

namespace omnigraph::engine {

namespace {

uint64_t ColumnBytes(const table::Column& c) {
  uint64_t n = c.validity().size() + c.offsets_buffer().size() + c.values_buffer().size();
  if (c.has_child()) n += ColumnBytes(c.child());
  return n;
}

// The rows of `a` then `b`, leaving out rows of `a` whose id `drop` holds.
Result<table::ColumnBatch> Concat(const table::ColumnBatch& a, const table::ColumnBatch& b,
                                  const std::set<std::string>& drop) {
  std::vector<table::RowRef> rows;
  rows.reserve(a.num_rows() + b.num_rows());
  const table::Column* ids = a.FindColumn(table::kIdFieldId);
  for (uint64_t r = 0; r < a.num_rows(); ++r) {
    if (ids != nullptr && drop.count(std::string(ids->StringAt(r)))) continue;
    rows.push_back(table::RowRef{0, static_cast<uint32_t>(r)});
  }
  for (uint64_t r = 0; r < b.num_rows(); ++r) {
    rows.push_back(table::RowRef{1, static_cast<uint32_t>(r)});
  }
  std::vector<table::Column> columns;
  for (size_t c = 0; c < a.num_columns(); ++c) {
    const table::Column* sources[2] = {&a.column(c), &b.column(c)};
    OMNIGRAPH_ASSIGN_OR_RETURN(table::Column column,
                               table::GatherColumn(a.field(c), sources, rows));
    columns.push_back(std::move(column));
  }
  return table::ColumnBatch(a.schema(), std::move(columns), rows.size());
}

}  // namespace

Result<WriteResult> CommitQueue::Submit(BatchEntry& entry, const PublishBatchFn& publish) {
  std::unique_lock lock(mu_);
  queue_.push_back(&entry);
  // Lead when the queue is idle and this entry is first; or be answered by a leader.
  auto ready = [&] {
    return entry.result.has_value() || (!busy_ && !queue_.empty() && queue_.front() == &entry);
  };
  if (Yielder* yielder = ThreadYielder()) {
    // Under a deterministic scheduler the leader runs only when this thread gives up its turn.
    while (!ready()) {
      lock.unlock();
      yielder->Yield();
      lock.lock();
    }
  } else {
    cv_.wait(lock, ready);
  }
  if (entry.result) return *std::move(entry.result);
  busy_ = true;
  std::vector<BatchEntry*> batch;
  uint64_t bytes = 0;
  // A batch is the front entry alone when it cannot share, else the shareable entries behind it
  // up to the first that cannot (arrival order is kept) and within the bounds.
  const bool shares = Batchable(*entry.request);
  while (!queue_.empty() && batch.size() < (shares ? kGroupMembersMax : 1)) {
    BatchEntry* next = queue_.front();
    if (!batch.empty() && (!Batchable(*next->request) || bytes + next->bytes > kGroupBytesMax ||
                           next->request->branch != entry.request->branch)) {
      break;
    }
    bytes += next->bytes;
    batch.push_back(next);
    queue_.pop_front();
  }
  lock.unlock();
  std::vector<Result<WriteResult>> results = publish(batch);
  OMNIGRAPH_CHECK(results.size() == batch.size());
  lock.lock();
  // Answers are set under the lock the members wait on.
  for (size_t i = 0; i < batch.size(); ++i) batch[i]->result = std::move(results[i]);
  busy_ = false;
  cv_.notify_all();
  OMNIGRAPH_CHECK_MSG(entry.result.has_value(), "a batch left its leader without an answer");
  return *std::move(entry.result);
}

size_t CommitQueue::Waiting() {
  std::lock_guard lock(mu_);
  return queue_.size();
}

bool Batchable(const WriteRequest& request) {
  for (const auto& [key, change] : request.changes) {
    if (change.pending) return false;
    if (change.op != TableChange::Op::kAppend && change.op != TableChange::Op::kUpsert) {
      return false;
    }
  }
  return !request.changes.empty();
}

uint64_t RequestBytes(const WriteRequest& request) {
  uint64_t n = 0;
  for (const auto& [key, change] : request.changes) {
    for (size_t i = 0; i < change.rows.num_columns(); ++i) n += ColumnBytes(change.rows.column(i));
  }
  return n;
}

Result<std::map<std::string, TableChange>> MergeChanges(
    const std::map<std::string, TableChange>& into,
    const std::map<std::string, TableChange>& more) {
  std::map<std::string, TableChange> out;
  auto copy = [](const TableChange& c) -> Result<TableChange> {
    TableChange t;
    t.op = c.op;
    OMNIGRAPH_ASSIGN_OR_RETURN(t.rows, Concat(c.rows, table::EmptyBatch(c.rows.schema()), {}));
    return t;
  };
  for (const auto& [key, change] : into) {
    OMNIGRAPH_ASSIGN_OR_RETURN(TableChange t, copy(change));
    out.emplace(key, std::move(t));
  }
  for (const auto& [key, change] : more) {
    auto it = out.find(key);
    if (it == out.end()) {
      OMNIGRAPH_ASSIGN_OR_RETURN(TableChange t, copy(change));
      out.emplace(key, std::move(t));
      continue;
    }
    if (it->second.op != change.op || it->second.rows.schema() != change.rows.schema()) {
      return InvalidArgument("members of a batch write table '" + key +
                             "' with different operations or columns");
    }
    std::set<std::string> replaced;
    if (change.op == TableChange::Op::kUpsert) {
      if (const table::Column* ids = change.rows.FindColumn(table::kIdFieldId)) {
        for (uint64_t r = 0; r < change.rows.num_rows(); ++r) {
          replaced.emplace(ids->StringAt(r));
        }
      }
    }
    OMNIGRAPH_ASSIGN_OR_RETURN(it->second.rows, Concat(it->second.rows, change.rows, replaced));
  }
  return out;
}

}  // namespace omnigraph::engine
