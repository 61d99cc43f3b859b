// Cleanup: removes what no retained commit needs — checkpoints, and table versions with their
// fragments, deletion vectors and deleted-id files (docs/design/engine.md "Cleanup").
// Cleanup (below), over the graph handle (engine/graph/graph.h), takes and returns these; the
// implementation is engine/ops/cleanup.cc.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "engine/ops/progress.h"
#include "table/table_cleanup.h"

namespace omnigraph::engine {

// Cleanup (OmniGraph's maintenance commands; D10 (docs/design/overview.md); docs/design/engine.md
// "Cleanup"). At least one of `keep` and `older_than_micros` is required; a commit either rule
// keeps is retained.
struct CleanupOptions {
  // Keep the newest `keep` commits of every live branch (>= 1; the head is always kept).
  std::optional<uint64_t> keep;
  // Also keep every commit created less than this long ago.
  std::optional<int64_t> older_than_micros;
  // Nothing younger than this (store last-modified time) is deleted.
  int64_t grace_micros = table::kDefaultGraceMicros;
  // Report what would be removed; write and delete nothing.
  bool dry_run = false;
  // Receives the tables done of those the store holds (engine/ops/progress.h).
  ProgressSink progress;
};

// What cleanup removed (or would remove, on a dry run) from one table.
struct TableCleanupRow {
  uint64_t stable_table_id = 0;
  uint64_t incarnation = 0;
  // The alias written in the table's newest manifest (a tombstoned table keeps its last name).
  std::string table_key;
  uint64_t versions_removed = 0;
  uint64_t fragments_removed = 0;
  uint64_t deletion_vectors_removed = 0;
  uint64_t deleted_id_files_removed = 0;
  uint64_t derived_removed = 0;  // Derived objects (indexes) of removed versions.
  uint64_t bytes_removed = 0;
  // Versions no retained commit pins that were kept: staged against a head that may still
  // publish them (D9), or younger than the grace period.
  uint64_t versions_spared = 0;
  // Set when the table was skipped (an unreadable manifest, a failed delete); others go on.
  std::optional<std::string> error;
};

struct GraphCleanupReport {
  bool dry_run = false;
  std::vector<std::string> checkpoints_removed;
  uint64_t checkpoint_bytes_removed = 0;
  std::vector<TableCleanupRow> tables;
  // Change-set delta objects removed with their records' retention.
  std::vector<std::string> deltas_removed;
  // Every object removed (checkpoints, table objects and deltas), and their bytes.
  std::vector<std::string> removed;
  uint64_t bytes_removed = 0;
};

class Graph;

// Removes what no retained commit needs from `graph` (docs/design/engine.md "Cleanup"):
// checkpoints, and table versions with their fragments, deletion vectors and deleted-id files.
// InvalidArgument without keep or older_than; storage failures of planning as reported.
Result<GraphCleanupReport> Cleanup(Graph& graph, const CleanupOptions& options);

}  // namespace omnigraph::engine
