// Export: a snapshot's nodes and edges as NDJSON in the load format (OmniGraph's load format;
// docs/design/load.md), so that export → Load(overwrite) round-trips.
//
// Lines: node types first, then edge types, each in name order; a type's rows in ascending id
// order. A node is {"type":T,"data":{"id":..., every property...}}, an edge
// {"edge":E,"from":src,"to":dst,"data":{"id":..., every property...}}; properties appear in
// stable property id order with null for a null value; values as jsonl_values.h WriteJson says.
// Reads the tables in batches of kExportBatchRows rows, so memory is bounded by a batch, not the
// snapshot. Thread-safe (a Snapshot is immutable).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "engine/graph/graph.h"
#include "engine/ops/progress.h"

namespace omnigraph::engine {

// Rows read from a table per batch.
inline constexpr uint64_t kExportBatchRows = 4096;

struct ExportOptions {
  // Node and edge type names to export (edge names case-insensitive); empty = every type.
  std::vector<std::string> types;
  // Receives the entities written of the snapshot's total (engine/ops/progress.h).
  ProgressSink progress;
};

// Receives the output in chunks of whole lines; a failure stops the export and is returned.
using ExportSink = std::function<Status(std::string_view chunk)>;

// Writes the snapshot to `sink`. NotFound "unknown type 'X'" for a name that is neither a node
// nor an edge type; storage failures as reported.
Status Export(const Snapshot& snapshot, const ExportOptions& options, const ExportSink& sink);

// The whole export as one string (tests, small graphs).
Result<std::string> ExportToString(const Snapshot& snapshot, const ExportOptions& options = {});

}  // namespace omnigraph::engine
