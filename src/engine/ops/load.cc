#include "engine/ops/load.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <algorithm>
#include <deque>
#include <map>
#include <set>

#include "base/executor.h"
#include "base/ids.h"
#include "engine/ops/jsonl_chunks.h"
#include "engine/ops/jsonl_reader.h"
#include "engine/ops/jsonl_values.h"
#include "engine/ops/load_internal.h"
#include "engine/ops/progress.h"
#include "engine/write/derived_indexes.h"
#include "query/exec/column_codec.h"
#include "query/exec/table_schema.h"
#include "schema/keys.h"
#include "table/row_gather.h"
#include "table/table_cleanup.h"
#include "table/table_manifest.h"

namespace omnigraph::engine {

using load_internal::Loader;
using load_internal::RowLines;
using schema::PropertyDef;
using schema::TypeDef;
using schema::Value;

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
  Result<std::optional<WriteResult>> done = Replay(graph, branch, *options.idempotency);
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

// Reads every line of `lines` into the loader, reporting the records read to `meter`. The lines
// are parsed on `executor` while this thread adds the records parsed before them, in input
// order (jsonl_chunks.h).
Status ReadInput(Loader& loader, LineSource& lines, Executor& executor, size_t chunk_bytes,
                 ProgressMeter& meter) {
  meter.Phase("reading");
  ChunkedJsonlReader reader(lines, executor, chunk_bytes);
  uint64_t consumed = 0;
  uint64_t records = 0;
  while (true) {
    Result<const JsonlRecord*> record = reader.Next();
    Status added = !record.ok()         ? record.status()
                   : *record != nullptr ? loader.Add(**record, reader.bytes_read() - consumed)
                                        : Status::Ok();
    // A line that fails comes after every line read so far: an id repeated across batches among
    // those (found only at the end otherwise) is the earlier error.
    if (!added.ok()) return loader.RepeatBefore(std::move(added));
    if (*record == nullptr) break;
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
// against that head. `write_started` is set once engine::Write was called.
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
    OMNIGRAPH_RETURN_IF_ERROR(CheckWrite(graph, head, request));
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
  Result<WriteResult> written = Write(graph, request);
  // The batches kept for validation go before the derived step, whose memory is the load's peak.
  // Their buffers lie among the heap's other blocks, and the derived step's large arrays are
  // fresh mappings that cannot reuse them: after a load that outgrew the budget (whose derived
  // step is the large one) the freed pages go back to the system, else they stay resident under
  // that peak (+200 MiB on the 10x graph). A smaller load skips it: its peak is far from any
  // bound, and faulting the pages in again would cost it time (decision 230).
  request.changes.clear();
#if defined(__GLIBC__)
  if (!loader.KeptEveryBatch()) malloc_trim(0);
#endif
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
    OMNIGRAPH_RETURN_IF_ERROR(ReadInput(loader, lines, *graph.runtime().executor,
                                        options.limits.parse_chunk_bytes, meter));
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
