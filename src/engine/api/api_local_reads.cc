// The local backend's reads (api_local_internal.h): snapshots, queries, export, Blobs and the
// schema.
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/api/api_local_internal.h"

namespace omnigraph::engine::local_internal {

Json SnapshotJson(const engine::Snapshot& s, const std::string& branch) {
  const commit::GraphState& state = s.state();
  Json datasets = Json::array();
  for (const auto& [id, t] : state.tables) {
    const std::string& key = t.registration.table_key;
    const size_t colon = key.find(':');
    datasets.push_back(Json{{"entity_kind", t.registration.kind},
                            {"type_name", colon == std::string::npos ? key : key.substr(colon + 1)},
                            {"dataset_path", TableId{id.stable_table_id, id.incarnation}.Root()},
                            {"published_dataset_version", t.pin.target_version},
                            {"entity_count", t.pin.entity_count}});
  }
  return Json{{"graph_commit_id", state.head_commit_id},
              {"graph_branch", branch},
              {"graph_manifest_version", state.seq},
              {"internal_schema_version", state.schema.identity_version},
              {"datasets", datasets}};
}

Result<Json> Handle::SnapshotOf(const ReadTarget& target) {
  if (!target.snapshot) {
    OMNIGRAPH_ASSIGN_OR_RETURN(engine::Snapshot head, graph_->SnapshotOfBranch(target.branch));
    return SnapshotJson(head, target.branch);
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(engine::Snapshot at, graph_->SnapshotAtCommit(*target.snapshot));
  OMNIGRAPH_ASSIGN_OR_RETURN(commit::Record r,
                             commit::LookupCommit(*graph_->runtime().store, *target.snapshot));
  return SnapshotJson(at, r.branch.value_or(""));
}

Status Handle::Export(const ReadTarget& target, const std::vector<std::string>& types,
                      const std::function<Status(std::string_view chunk)>& sink) {
  // At a past commit a type may be named as it is named today (engine.md "Reads at a past
  // commit").
  OMNIGRAPH_ASSIGN_OR_RETURN(engine::Snapshot at, NamedSnapshotFor(target));
  engine::ExportOptions options;
  options.types = types;
  options.progress = progress_;
  return engine::Export(at, options, sink);
}

Result<Json> Handle::StatBlob(const api::BlobSelector& cell, const ReadTarget& target) {
  OMNIGRAPH_ASSIGN_OR_RETURN(engine::LocatedBlob blob, LocateBlob(cell, target));
  return engine::BlobStatJson(blob);
}

Result<Json> Handle::ReadBlob(const api::BlobSelector& cell, const ReadTarget& target,
                              std::optional<api::BlobRange> range,
                              const std::function<Status(std::string_view chunk)>& sink) {
  if (range && range->end <= range->start) {
    return InvalidArgument("a Blob byte range must hold at least one byte");
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(engine::LocatedBlob blob, LocateBlob(cell, target));
  if (blob.external_uri) {
    // OmniGraph's words: the graph never opens a caller-owned object.
    return Status(Code::kUnsupported,
                  "external Blob is not downloaded; URI: " + *blob.external_uri +
                      "; use `blob stat --json` to inspect the descriptor");
  }
  const uint64_t size = blob.cell.size();
  uint64_t start = 0, end = size;
  if (range) {
    if (range->start >= size) {
      return InvalidArgument("the byte range starting at " + std::to_string(range->start) +
                             " is not satisfiable: the Blob is " + std::to_string(size) + " bytes");
    }
    start = range->start;
    end = std::min(range->end, size);
  }
  OMNIGRAPH_RETURN_IF_ERROR(engine::ReadBlob(blob, start, end, sink));
  Json out = engine::BlobStatJson(blob);
  out["start"] = start;
  out["end"] = end;
  return out;
}

Result<std::string> Handle::ResolveCommit(const ReadTarget& target) {
  if (!target.snapshot) {
    OMNIGRAPH_ASSIGN_OR_RETURN(engine::Snapshot head, graph_->SnapshotOfBranch(target.branch));
    return head.commit_id();
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(Json commit, ShowCommit(*target.snapshot));
  return commit["graph_commit_id"].get<std::string>();
}

Result<OrderedJson> Handle::Query(std::string_view source, std::string_view name,
                                  const Json& params, const ReadTarget& target,
                                  const engine::Authorize& authorize) {
  engine::RunOptions options;
  options.authorize = authorize;
  options.cache = &cache_;
  options.prepared = &prepared_;
  if (target.snapshot) {
    options.snapshot = target.snapshot;
  } else {
    options.branch = target.branch;
  }
  return engine::RunReadJson(*graph_, source, name, params, options);
}

Result<Json> Handle::ShowSchema(const ReadTarget& target) {
  OMNIGRAPH_ASSIGN_OR_RETURN(engine::Snapshot head, SnapshotFor(target));
  const commit::SchemaRef& ref = head.state().schema;
  OMNIGRAPH_ASSIGN_OR_RETURN(schema::SchemaArchive archive, graph_->ReadSchemaArchive(ref));
  Json out = Json::object();
  out["source"] = archive.source;
  out["ir_hash"] = ref.ir_hash;
  out["identity_version"] = ref.identity_version;
  out["graph_commit_id"] = head.commit_id();
  return out;
}

Result<engine::LocatedBlob> Handle::LocateBlob(const api::BlobSelector& cell,
                                               const ReadTarget& target) {
  OMNIGRAPH_ASSIGN_OR_RETURN(engine::Snapshot at, NamedSnapshotFor(target));
  return engine::LocateBlob(at,
                            engine::BlobSelector{cell.entity, cell.type, cell.id, cell.property});
}

Result<engine::Snapshot> Handle::SnapshotFor(const ReadTarget& target) {
  if (target.snapshot) return graph_->SnapshotAtCommit(*target.snapshot);
  return graph_->SnapshotOfBranch(target.branch);
}

Result<engine::Snapshot> Handle::NamedSnapshotFor(const ReadTarget& target) {
  OMNIGRAPH_ASSIGN_OR_RETURN(engine::Snapshot at, SnapshotFor(target));
  if (!target.snapshot) return at;
  return graph_->WithTodaysNames(at);
}

}  // namespace omnigraph::engine::local_internal
