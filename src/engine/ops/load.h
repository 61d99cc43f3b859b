// Load: NDJSON graph data into a branch, as one commit (OmniGraph's load format;
// docs/design/load.md).
//
// Input is one JSON object per non-blank line:
//   {"type":"Person","data":{"name":"Ada","age":36}}
//   {"edge":"Knows","from":"Ada","to":"Grace","data":{"since":"2020-01-01"}}
// A node has `type` (and `data`), an edge `edge`, `from`, `to` (and `data`); `data` defaults to
// {}; an id is `data.id` or a top-level `id` (not both). Keyed nodes take the id derived from
// their key (a given id must equal it); other entities take the given id or a new ULID.
//
// The loader checks the format (JSON syntax, duplicate members, the envelope, unknown types and
// properties, reserved fields, ids, value conversions and types) and reports the first problem
// as InvalidArgument "line N: ..."; constraint checks (enums, @range, @check, @unique, edge
// endpoints, @card) are the write path's (engine::Write), whose messages the loader's row label
// also prefixes with "line N". A rejected load publishes nothing.
//
// Modes: append inserts (an id the branch or the file already holds is KeyConflict); merge
// upserts (the last line of an id wins); overwrite replaces the whole image of every type the
// input names and leaves the others alone. One load is one commit (none for empty input).
//
// Streaming (docs/design/load.md): the input is read line by line; each type's rows are built
// in column form and written as a fragment every `batch_rows` rows (or earlier, when the rows
// buffered over all types pass `buffer_bytes` of input), and only the ids (with where their row
// is) are kept until the end, when one engine::Write stages every table version from those
// fragments against the head it captures. Memory while reading: the buffered batches plus the
// ids; the write path then reads the rows back, in column form, to validate them (see
// docs/design/load.md). Thread-safe as Graph is.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/json.h"
#include "base/sorted_records.h"
#include "base/status.h"
#include "engine/graph/graph.h"
#include "engine/ops/jsonl_chunks.h"
#include "engine/ops/jsonl_reader.h"
#include "engine/ops/progress.h"
#include "engine/read/external_blob.h"
#include "engine/write/authority.h"
#include "table/ann_index.h"

namespace omnigraph::engine {

enum class LoadMode { kAppend, kMerge, kOverwrite };
// "append", "merge", "overwrite".
std::string_view LoadModeName(LoadMode mode);
// InvalidArgument for any other spelling.
Result<LoadMode> ParseLoadMode(std::string_view name);

// Rows of one type written as one fragment (the batch).
inline constexpr uint64_t kLoadBatchRows = 1 << 16;
// Input bytes buffered over all types before the largest batch is written early.
inline constexpr uint64_t kLoadBufferBytes = 64ull << 20;
// Of the batches a load wrote ahead, it keeps this many bytes in memory (their columns' buffers)
// until its write has validated them, so that validation reads back and decodes only the rest
// (decision 230). The peers graph at 1x keeps every batch (about 125 MB of values and
// offsets); a larger input keeps its first batches, and the memory a load holds still does not
// grow with its input.
inline constexpr uint64_t kLoadKeptBytes = 256ull << 20;
// Batch writes a load leaves running on the runtime's executor while it reads on
// (engine/ops/load_fragments.cc Flush; the flush that submits one more waits for the oldest).
inline constexpr size_t kLoadWritesInFlight = 2;
// A load that read its input for longer than this publishes nothing (ResourceLimit): its
// fragments were written ahead and cleanup may take unreferenced objects older than its grace
// period (table::kDefaultGraceMicros, an hour); half of it leaves room for the publish.
inline constexpr int64_t kLoadDurationMaxMicros = 1800ll * 1000 * 1000;

struct LoadLimits {
  uint64_t batch_rows = kLoadBatchRows;
  uint64_t buffer_bytes = kLoadBufferBytes;
  // Memory for the load's id bookkeeping and the write's validation sorts; past it they go to
  // temporary files (base/sorted_records.h).
  uint64_t sort_bytes = kSorterMemoryBytes;
  // Written batches kept for validation (0: none; validation reads every one back).
  uint64_t kept_bytes = kLoadKeptBytes;
  // The input is parsed on the runtime's executor in chunks of this many bytes of lines
  // (jsonl_chunks.h); smaller only in tests, to cut an input into many chunks.
  size_t parse_chunk_bytes = kParseChunkBytes;
};

struct LoadOptions {
  // When set and the branch does not exist, it is created from the head of this branch first.
  std::optional<std::string> from;
  std::optional<std::string> actor;
  LoadLimits limits;
  // Retry-safety (engine/write/idempotency.h): `outcome` is filled in here. A load whose key a
  // record of the branch already names reads nothing more and answers with that record's commit and
  // counts.
  std::optional<Idempotency> idempotency;
  // After the commit, the load builds the ANN index of every Vector property of the tables it
  // wrote (table/ann_index.h) with these options.
  table::AnnBuildOptions ann;
  // Receives the load's progress (engine/ops/progress.h): records read of `input_bytes`, then the
  // commit.
  ProgressSink progress;
  // The input's size when known (a file), for the progress's estimate.
  std::optional<uint64_t> input_bytes;
  // When set, asked `change` on the branch for each type the input holds, when its first line
  // is read and before that line is staged (engine/write/authority.h); a refusal fails the load and
  // deletes what it staged.
  Authorize authorize;
  // The graph's external-Blob allow rules (engine/read/external_blob.h); none: deny.
  std::shared_ptr<const ExternalBlobRules> external_blobs;
};

struct LoadedType {
  std::string name;
  uint64_t entities_loaded = 0;
};

// OmniGraph's load output.
struct LoadResult {
  std::string branch;
  std::optional<std::string> base_branch;
  bool branch_created = false;
  LoadMode mode = LoadMode::kMerge;
  std::vector<LoadedType> nodes;  // Sorted by name; only types the input names.
  std::vector<LoadedType> edges;
  uint64_t total_entities = 0;
  std::optional<std::string> commit;            // Absent when the input held no entity.
  std::optional<commit::Record> commit_record;  // The published record, with `commit`.
  std::optional<std::string> actor_id;
  // The most input bytes the unwritten batches held at once (bounded by LoadLimits; tests).
  uint64_t buffered_bytes_peak = 0;

  // {branch, base_branch?, branch_created, mode, nodes, edges, total_entities, commit?,
  // actor_id?}.
  Json ToJson() const;
};

// Loads `ndjson` into `branch`. InvalidArgument "line N: ..." for bad input; BranchNotFound
// when the branch does not exist and no `from` is given; KeyConflict for an append of an id
// that exists; the write path's errors (constraint violations, ReadSetChanged for an overwrite
// whose branch moved) otherwise. Nothing is published unless the whole input is accepted; a
// branch that this call created is deleted again when the load is rejected.
Result<LoadResult> Load(Graph& graph, std::string_view branch, std::string_view ndjson,
                        LoadMode mode, const LoadOptions& options = {});

// As Load, streaming the NDJSON file at `path` (NotFound when it cannot be opened).
Result<LoadResult> LoadFile(Graph& graph, std::string_view branch, const std::string& path,
                            LoadMode mode, const LoadOptions& options = {});

// As Load, streaming the lines of `lines` (a file, a caller's reader: engine/ops/jsonl_reader.h).
Result<LoadResult> LoadFrom(Graph& graph, std::string_view branch, LineSource& lines, LoadMode mode,
                            const LoadOptions& options = {});

// The short form for tests and embedding: Load with no options.
Result<LoadResult> LoadJsonl(Graph& graph, std::string_view branch, std::string_view ndjson,
                             LoadMode mode);

}  // namespace omnigraph::engine
