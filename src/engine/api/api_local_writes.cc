// The local backend's writes (api_local_internal.h): loads (a string, a file, a stream) and
// mutations.
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/api/api_local_internal.h"

namespace omnigraph::engine::local_internal {

Result<Json> Handle::Load(std::string_view ndjson, std::string_view mode, const WriteTarget& target,
                          const Actor& actor, const engine::Authorize& authorize) {
  engine::StringLines lines(ndjson);
  return LoadLines(
      lines, ndjson.size(), [&] { return Result<std::string>(Sha256Hex(ndjson)); }, mode, target,
      actor, authorize);
}

Result<Json> Handle::LoadFile(const std::string& path, std::string_view mode,
                              const WriteTarget& target, const Actor& actor,
                              const engine::Authorize& authorize) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return InvalidArgument("cannot read '" + path + "': it is a directory, not a file");
  }
  Result<std::unique_ptr<engine::FileLines>> lines = engine::FileLines::Open(path);
  if (!lines.ok()) {
    return InvalidArgument("cannot read '" + path + "': " + std::strerror(errno));
  }
  // The key's request names the whole input: hash the file in a pass of its own first.
  auto content_sha = [&] { return HashFile(path); };
  return LoadLines(**lines, (*lines)->size_bytes(), content_sha, mode, target, actor, authorize);
}

Result<Json> Handle::LoadStream(const engine::ChunkReader& read, std::string_view mode,
                                const WriteTarget& target, const Actor& actor,
                                const engine::Authorize& authorize) {
  if (!target.idempotency_key) {
    engine::ReaderLines lines(read, "the load's reader");
    return LoadLines(lines, std::nullopt, nullptr, mode, target, actor, authorize);
  }
  // A keyed load's request names the whole input before the load starts: spool it to a
  // temporary file (bounded memory), hashing as it goes, and load from there.
  OMNIGRAPH_ASSIGN_OR_RETURN(std::unique_ptr<TempFile> spool, TempFile::Create());
  Sha256Hasher hasher;
  std::string chunk(engine::ReaderLines::kChunkBytes, '\0');
  while (true) {
    OMNIGRAPH_ASSIGN_OR_RETURN(size_t got, read(chunk.data(), chunk.size()));
    if (got == 0) break;
    const std::string_view piece(chunk.data(), std::min(got, chunk.size()));
    hasher.Update(piece);
    OMNIGRAPH_RETURN_IF_ERROR(spool->Append(piece));
  }
  const std::string sha = hasher.FinishHex();
  uint64_t offset = 0;
  engine::ReaderLines lines(
      [&](char* buffer, size_t capacity) -> Result<size_t> {
        OMNIGRAPH_ASSIGN_OR_RETURN(size_t n, spool->ReadAt(offset, std::span(buffer, capacity)));
        offset += n;
        return n;
      },
      "the load's reader");
  return LoadLines(
      lines, spool->size(), [&] { return Result<std::string>(sha); }, mode, target, actor,
      authorize);
}

Result<Json> Handle::Mutate(std::string_view source, std::string_view name, const Json& params,
                            const WriteTarget& target, const Actor& actor,
                            const engine::Authorize& authorize) {
  if (target.from) return InvalidArgument("mutate does not create branches; create it first");
  if (!params.is_object()) return InvalidArgument("parameters must be a JSON object");
  engine::MutationOptions options;
  options.branch = target.branch;
  options.expected_head = target.if_commit;
  options.actor = actor;
  options.authorize = authorize;
  options.external_blobs = external_blobs_;
  options.prepared = &prepared_;
  if (target.idempotency_key) {
    const Json request =
        Json::array({"mutate", target.branch, source, name, params, target.if_commit.value_or("")});
    options.idempotency =
        engine::Idempotency{*target.idempotency_key, Sha256Hex(request.dump()), Json::object()};
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(engine::MutationResult r,
                             engine::Mutate(*graph_, source, name, params, options));
  Json out = Json::object();
  out["query_name"] = r.query_name;
  out["branch"] = r.branch;
  out["affected_nodes"] = r.affected_nodes;
  out["affected_edges"] = r.affected_edges;
  if (r.actor) out["actor_id"] = *r.actor;
  out["commit"] = r.commit_record ? CommitJson(*r.commit_record) : Json(nullptr);
  if (r.merge_outcome) out["outcome"] = *r.merge_outcome;
  if (!r.warnings.empty()) out["warnings"] = r.warnings;
  return out;
}

Result<Json> Handle::LoadLines(engine::LineSource& lines, std::optional<uint64_t> input_bytes,
                               const std::function<Result<std::string>()>& content_sha,
                               std::string_view mode, const WriteTarget& target, const Actor& actor,
                               const engine::Authorize& authorize) {
  OMNIGRAPH_ASSIGN_OR_RETURN(engine::LoadMode m, engine::ParseLoadMode(mode));
  if (target.if_commit) {
    return InvalidArgument("load does not take an expected commit; use a branch and merge");
  }
  engine::LoadOptions options;
  options.from = target.from;
  options.actor = actor;
  options.progress = progress_;
  options.input_bytes = input_bytes;
  options.authorize = authorize;
  options.external_blobs = external_blobs_;
  if (target.idempotency_key) {
    OMNIGRAPH_ASSIGN_OR_RETURN(std::string sha, content_sha());
    // The request a key names: where it goes and what it loads.
    const Json request =
        Json::array({"load", target.branch, mode, target.from.value_or(""), std::move(sha)});
    options.idempotency =
        engine::Idempotency{*target.idempotency_key, Sha256Hex(request.dump()), Json::object()};
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(engine::LoadResult r,
                             engine::LoadFrom(*graph_, target.branch, lines, m, options));
  Json out = r.ToJson();
  out["uri"] = uri_;
  out["commit"] = r.commit_record ? CommitJson(*r.commit_record) : Json(nullptr);
  return out;
}

Result<std::string> Handle::HashFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return InvalidArgument("cannot read '" + path + "': " + std::strerror(errno));
  Sha256Hasher hasher;
  std::string chunk(engine::ReaderLines::kChunkBytes, '\0');
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    hasher.Update(std::string_view(chunk.data(), static_cast<size_t>(in.gcount())));
  }
  if (in.bad()) return Status(Code::kTransient, "reading '" + path + "' failed");
  return hasher.FinishHex();
}

}  // namespace omnigraph::engine::local_internal
