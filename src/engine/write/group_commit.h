// Group commit: concurrent writes on one branch handle share one record
// (docs/design/engine.md "Group commit").
//
// A CommitQueue belongs to one stream handle. A write joins the queue; when no publication of the
// queue is in flight and it is at the front, it leads: it takes the writes queued behind it (up
// to kGroupMembersMax members and kGroupBytesMax bytes of rows) and publishes them as one batch,
// then hands the queue to the next write at the front. A write that arrives at an idle queue leads
// at once with a batch of itself: no added wait. The other members of a batch wait for their own
// answer, which the leader sets. Thread-safe.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "base/status.h"
#include "engine/graph/snapshot.h"
#include "engine/write/write.h"

namespace omnigraph::engine {

inline constexpr size_t kGroupMembersMax = 64;
inline constexpr uint64_t kGroupBytesMax = 8ull << 20;

// One write waiting in (or leading) a batch.
struct BatchEntry {
  const WriteRequest* request = nullptr;
  // The head it was captured at (a mutation's read, or the warm handle's head).
  std::optional<Snapshot> captured;
  // Rows' bytes, for the batch bound.
  uint64_t bytes = 0;
  std::optional<Result<WriteResult>> result;
};

// Publishes `batch` (one or more entries, in arrival order): every entry's answer, in order.
using PublishBatchFn =
    std::function<std::vector<Result<WriteResult>>(std::span<BatchEntry* const> batch)>;

class CommitQueue {
 public:
  // Runs `entry` as a member of a batch; returns its result once the batch it joined is
  // published (or it failed alone).
  Result<WriteResult> Submit(BatchEntry& entry, const PublishBatchFn& publish);
  // Writes waiting for a leader (observability; tests wait on it).
  size_t Waiting();

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<BatchEntry*> queue_;
  bool busy_ = false;
};

// Whether an entry can share a record with others: every change an append or upsert of rows in
// memory (a streaming load's pre-written fragments, deletes and overwrites publish alone).
bool Batchable(const WriteRequest& request);
// The bytes of an entry's rows.
uint64_t RequestBytes(const WriteRequest& request);
// `into` followed by `more`, per table: rows concatenated; for upserts a later member's row of an
// id replaces an earlier member's (as two upserts in sequence would). Both must be Batchable and
// agree on each shared table's operation and columns (InvalidArgument otherwise).
Result<std::map<std::string, TableChange>> MergeChanges(
    const std::map<std::string, TableChange>& into, const std::map<std::string, TableChange>& more);

}  // namespace omnigraph::engine
