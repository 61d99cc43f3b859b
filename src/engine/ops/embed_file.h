// The offline embedding pipeline of `omnigraph embed` (docs/design/query-execution.md
// "Embeddings", OmniGraph's reference docs/user/search/embeddings.md): it reads a seed JSONL file
// and writes it again with the `@embed` vectors filled, re-embedded or removed. It works on files,
// never on a graph; the written file is then loaded like any seed. Stateless; the embedder comes
// from the environment (query/exec/embedder.h) and is built only when a vector is needed.
//
// A spec says, per node type, which field receives the vector and which fields make its text:
// {"dimension": N, "types": {"Chunk": {"target": "embedding", "fields": ["text"]}}}.
// The text of a record is "type: T" then "field: value" for each non-empty field, one per line.
#pragma once

#include <string>
#include <vector>

#include "base/clock.h"
#include "base/json.h"
#include "base/status.h"

namespace omnigraph::engine {

// Records embedded together, so that one request carries many texts (query/exec/embedder.h batches
// them per provider) while the output keeps the input's order.
inline constexpr size_t kEmbedFileBatchRecords = 64;
// Records held before they are written, whether or not they wait for a vector.
inline constexpr size_t kEmbedFileHeldRecordsMax = 4096;

enum class EmbedFileMode { kFillMissing, kReembedAll, kClean };

struct EmbedFileJob {
  std::string input;
  std::string output;
  // The spec document (above).
  Json spec;
  EmbedFileMode mode = EmbedFileMode::kFillMissing;
  // Only records of these types (all when empty).
  std::vector<std::string> types;
  // `Type:field=value` or `field=value`; a record is selected when any matches. With selectors,
  // fill-missing re-embeds the selected records even when they have a vector.
  std::vector<std::string> selectors;
};

// Runs `job`, writing the output through a temporary file renamed over it. Returns the
// reference's summary: {input, output, records, selected_records, embedded_records,
// cleaned_records, mode, dimension, model} (and `warning` when the mock flag overrode a
// provider). InvalidArgument for a bad spec, selector, input line (named by number) or a missing
// input; the embedder's errors; Permanent when a file cannot be read or written. On error the
// output is not replaced.
Result<Json> RunEmbedFile(const EmbedFileJob& job, Clock& clock);

}  // namespace omnigraph::engine
