// Snapshot: one read view of a graph — every table at one (stream, seq) and the schema that
// commit accepted. Graph hands them out (engine/graph/graph.h); a Snapshot is a value that shares
// the graph's table store, catalog cache and clock, so it stays usable after the Graph is gone.
// Immutable and thread-safe.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "base/status.h"
#include "commit/fold.h"
#include "commit/stream.h"
#include "schema/catalog.h"
#include "table/table_store.h"

namespace omnigraph::engine {

class Graph;

// One read view: every table at one (stream, seq), and the schema that commit accepted.
class Snapshot {
 public:
  const commit::GraphState& state() const { return *state_; }
  const std::string& commit_id() const { return state_->head_commit_id; }
  const schema::Catalog& catalog() const { return *catalog_; }
  // The same catalog, shared (what a prepared query is bound to).
  const std::shared_ptr<const schema::Catalog>& shared_catalog() const { return catalog_; }
  // The version of one table (`node:Person`). NotFound for an unknown table key; a version that
  // is gone as ExplainReadFailure says.
  Result<std::shared_ptr<const table::TableVersion>> Table(std::string_view table_key) const;
  // Reads the manifests of the tables `table_keys` names (unknown keys skipped) together, so the
  // Table calls of a run that reads several find them cached (TableStore::Prefetch).
  void PrefetchTables(std::span<const std::string> table_keys,
                      const table::TableStore::PrefetchOptions& options = {}) const;
  // What a failed read of this snapshot's tables means. A table object that is missing (NotFound
  // for an object under `tables/`) was either reclaimed by cleanup — this commit's seq is below
  // its stream's horizon, which cleanup raises before it deletes anything — and then the read
  // gets VersionsReclaimed naming the commit; or it is damage (the commit is retained, so nothing
  // of OmniGraph's deleted it) and the read gets Corruption naming the object. Any other failure
  // comes back as it is. Reads the horizon (one small object) only for a missing table object.
  Status ExplainReadFailure(const Status& failure) const;
  // The graph's Runtime clock: what a query's now() reads when the caller fixes no time.
  Clock& clock() const { return *clock_; }
  // Whether the graph's store is remote (storage::ObjectStore::Remote): readers then prefer
  // fewer, larger reads (decision 213).
  bool remote_store() const;
  // The state, shared: what the write path's publish loop starts from.
  const std::shared_ptr<const commit::GraphState>& shared_state() const { return state_; }
  // The warm handle the head was read from; null for a snapshot at a past commit. A write
  // planned on this snapshot publishes through it (engine/write/write.h).
  const std::shared_ptr<commit::Stream>& stream() const { return stream_; }

 private:
  friend class Graph;
  std::shared_ptr<const commit::GraphState> state_;
  // The warm handle the head was read from (unset for a snapshot at a past commit): a write
  // planned on this snapshot publishes through it from state_, with no further read.
  std::shared_ptr<commit::Stream> stream_;
  std::shared_ptr<const schema::Catalog> catalog_;
  std::shared_ptr<table::TableStore> tables_;
  std::shared_ptr<Clock> clock_;
};

}  // namespace omnigraph::engine
