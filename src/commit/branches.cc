#include "commit/branches.h"

#include <algorithm>
#include <map>

#include "base/executor.h"
#include "base/ids.h"

namespace omnigraph::commit {

namespace {

// Identical re-drives of a conditional create whose outcome is unknown.
constexpr int kCreateRedrivesMax = 6;

// Creates `name` with `bytes` unless it exists. true: our bytes are there (created now, or a
// re-driven request of ours landed earlier); false: other bytes hold the name.
Result<bool> CreateRedriven(const storage::Runtime& rt, const std::string& name,
                            const std::string& bytes) {
  Status last;
  bool unknown = false;  // An earlier request's outcome was Unknown: it may have landed.
  for (int attempt = 0; attempt <= kCreateRedrivesMax; ++attempt) {
    Result<bool> created = rt.store->PutIfAbsent(name, bytes);
    if (created.ok()) {
      if (*created) return true;
      Result<storage::GetResult> back = rt.store->Get(name);
      if (back.ok()) return back->data == bytes;
      if (back.status().kind() == Kind::kNotFound) {
        // Taken, and now empty: what took it was deleted since. Creating ours there would put a
        // second object under a name another writer already used (D21's rule, for names).
        // When an earlier request of ours had an Unknown outcome, what was deleted may have been
        // ours: the outcome is unknown, not a definite failure.
        if (unknown) {
          return Status(Code::kUnknown,
                        "the conditional create found this object taken (perhaps by an earlier "
                        "request of its own), but it is now missing: restore it from a backup or a "
                        "versioned bucket",
                        name);
        }
        return Status(Code::kCorruption,
                      "the conditional create found this object taken, but it is now missing: "
                      "restore it from a backup or a versioned bucket",
                      name);
      }
      if (back.status().kind() != Kind::kTransient) return back.status();
      last = back.status();
    } else if (created.status().kind() == Kind::kUnknown ||
               created.status().kind() == Kind::kTransient) {
      unknown = unknown || created.status().kind() == Kind::kUnknown;
      last = created.status();
    } else {
      return created.status();
    }
    rt.clock->SleepMicros(kBackoffBaseMicros << std::min(attempt, 6));
  }
  return Status(Code::kUnknown, "outcome unknown after every re-drive: " + last.message(), name);
}

Status BranchNotFound(std::string_view name) {
  return Status(Code::kBranchNotFound, "branch '" + std::string(name) + "' not found");
}

struct NameHead {
  uint64_t gen = 0;  // 0: the name never had a generation.
  std::optional<NameGeneration> doc;
};

Result<NameHead> ReadNameHead(const storage::Runtime& rt, std::string_view name) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<storage::ObjectMeta> gens,
                             storage::ListAll(*rt.store, NameGenerationPrefix(name)));
  NameHead head;
  if (gens.empty()) return head;
  // Generations are zero-padded, so byte order is numeric order: the last is the highest.
  const std::string& object = gens.back().name;
  OMNIGRAPH_ASSIGN_OR_RETURN(head.gen, GenerationFromFile(object.substr(object.rfind('/') + 1)));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<BoundedRead> read,
                             ReadBounded(*rt.store, object, kDocumentBytesMax));
  if (!read) return Status(Code::kUnknown, "name generation vanished", object);
  OMNIGRAPH_ASSIGN_OR_RETURN(NameGeneration doc, DecodeNameGeneration(read->data, object));
  if (doc.branch != name || doc.gen != head.gen || !ValidateStreamKey(doc.key).ok()) {
    return Status(Code::kCorruption, "name generation does not match its name", object);
  }
  head.doc = std::move(doc);
  return head;
}

Result<std::pair<StreamMetadata, std::string>> ReadMetadata(const storage::Runtime& rt,
                                                            std::string_view key) {
  const std::string name = StreamMetadataName(key);
  OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<BoundedRead> read,
                             ReadBounded(*rt.store, name, kDocumentBytesMax));
  if (!read) return Status(Code::kCorruption, "a name generation points at no stream", name);
  OMNIGRAPH_ASSIGN_OR_RETURN(StreamMetadata meta, DecodeStreamMetadata(read->data, name));
  // Another stream's metadata under this name would send this branch's writes to that stream.
  if (meta.key != key) {
    return Status(Code::kCorruption, "stream metadata names key '" + meta.key + "'", name);
  }
  return std::make_pair(std::move(meta), std::move(read->meta.etag));
}

// True when the stream is closed: marked in its metadata, or (the authority) by a retire record.
Result<bool> IsRetired(const storage::Runtime& rt, const StreamMetadata& meta,
                       const StreamOptions& options) {
  if (meta.retired) return true;
  std::unique_ptr<Stream> stream = Stream::FromMetadata(rt, meta, options);
  Result<std::shared_ptr<const GraphState>> head = stream->ReadHead();
  if (head.ok()) return false;
  if (head.status().code() == Code::kBranchNotFound) return true;
  return head.status();
}

// `verb` is create or delete: the refusal of main is OmniGraph's "cannot <verb> branch 'main'".
Status ValidateUserBranch(std::string_view name, std::string_view verb) {
  OMNIGRAPH_RETURN_IF_ERROR(ValidateBranchName(name));
  if (name == kMainKey) {
    return InvalidArgument("cannot " + std::string(verb) +
                           " branch 'main': 'main' always exists, it cannot be created or deleted");
  }
  return Status::Ok();
}

}  // namespace

Result<uint64_t> ReclaimedBelowSeq(const storage::Runtime& runtime, std::string_view key) {
  const std::string name = HorizonName(key);
  OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<BoundedRead> read,
                             ReadBounded(*runtime.store, name, kDocumentBytesMax));
  if (!read) return uint64_t{0};
  OMNIGRAPH_ASSIGN_OR_RETURN(Horizon horizon, DecodeHorizon(read->data, name));
  return horizon.reclaimed_below_seq;
}

std::string HorizonName(std::string_view key) {
  return "_graph/" + std::string(key) + "/horizon.json";
}

std::string EncodeHorizon(const Horizon& h) {
  Json j = h.extra.is_object() ? h.extra : Json::object();
  j["format"] = kDocumentFormat;
  j["reclaimed_below_seq"] = h.reclaimed_below_seq;
  return CanonicalJson(j);
}

Result<Horizon> DecodeHorizon(std::string_view bytes, std::string_view object) {
  OMNIGRAPH_ASSIGN_OR_RETURN(Json j, ParseJson(bytes, object, /*as_corruption=*/true));
  if (!j.is_object() || !j.contains("format") || !j["format"].is_number_unsigned()) {
    return Status(Code::kCorruption, "horizon has no format", std::string(object));
  }
  if (j["format"].get<uint64_t>() > kDocumentFormat) {
    return Status(Code::kFormatTooNew, "horizon has a newer format", std::string(object));
  }
  if (!j.contains("reclaimed_below_seq") || !j["reclaimed_below_seq"].is_number_unsigned()) {
    return Status(Code::kCorruption, "horizon has no reclaimed_below_seq", std::string(object));
  }
  Horizon h;
  h.reclaimed_below_seq = j["reclaimed_below_seq"].get<uint64_t>();
  j.erase("format");
  j.erase("reclaimed_below_seq");
  h.extra = std::move(j);
  return h;
}

Result<ResolvedBranch> ResolveBranch(const storage::Runtime& runtime, std::string_view name,
                                     bool with_hint) {
  OMNIGRAPH_RETURN_IF_ERROR(ValidateBranchName(name));
  ResolvedBranch out;
  std::string key(kMainKey);
  if (name != kMainKey) {
    OMNIGRAPH_ASSIGN_OR_RETURN(NameHead head, ReadNameHead(runtime, name));
    if (!head.doc) return BranchNotFound(name);
    key = head.doc->key;
    out.generation = head.gen;
  }
  // The hint's name follows from the key alone, so it is read beside the metadata.
  Result<std::optional<Hint>> hint = std::optional<Hint>();
  TaskGroup hint_read(runtime.ReadExecutor());
  if (with_hint) {
    hint_read.Add([&runtime, &hint, &key]() -> Status {
      hint = ReadHint(*runtime.store, key);
      return Status::Ok();
    });
  }
  Result<std::pair<StreamMetadata, std::string>> meta = ReadMetadata(runtime, key);
  OMNIGRAPH_RETURN_IF_ERROR(hint_read.Wait());
  OMNIGRAPH_RETURN_IF_ERROR(meta.status());
  if (name != kMainKey && meta->first.retired) return BranchNotFound(name);
  out.metadata = std::move(meta->first);
  out.metadata_etag = std::move(meta->second);
  if (with_hint && hint.ok()) out.hint = *hint;
  return out;
}

Result<StreamMetadata> CreateBranch(const storage::Runtime& runtime, std::string_view name,
                                    const ForkPoint& fork, std::optional<std::string> creator,
                                    const StreamOptions& options) {
  OMNIGRAPH_RETURN_IF_ERROR(ValidateUserBranch(name, "create"));
  OMNIGRAPH_RETURN_IF_ERROR(ValidateActor(creator));
  if (fork.state.retired) return BranchNotFound(fork.parent_branch);
  if (!fork.from_head) {
    OMNIGRAPH_ASSIGN_OR_RETURN(uint64_t reclaimed_below,
                               ReclaimedBelowSeq(runtime, fork.state.stream));
    if (fork.state.seq < reclaimed_below) {
      return Status(Code::kVersionsReclaimed,
                    "cannot fork from seq " + std::to_string(fork.state.seq) +
                        ": retention may have removed its table versions (kept from seq " +
                        std::to_string(reclaimed_below) + ")",
                    HorizonName(fork.state.stream));
    }
  }
  // The name must be free (never used, or its current life deleted) before anything is written.
  OMNIGRAPH_ASSIGN_OR_RETURN(NameHead head, ReadNameHead(runtime, name));
  if (head.doc) {
    OMNIGRAPH_ASSIGN_OR_RETURN(auto current, ReadMetadata(runtime, head.doc->key));
    OMNIGRAPH_ASSIGN_OR_RETURN(bool retired, IsRetired(runtime, current.first, options));
    if (!retired) {
      return Status(Code::kBranchExists, "branch '" + std::string(name) + "' already exists",
                    NameGenerationName(name, head.gen));
    }
  }
  UlidGenerator ulids(*runtime.clock, *runtime.random);
  const std::string key = ulids.NextString();
  const int64_t now = runtime.clock->NowMicros();

  // 1. The fork checkpoint: the parent's fold at the fork seq, in the child's folder (D2).
  GraphState fork_state = fork.state;
  fork_state.stream = key;
  OMNIGRAPH_ASSIGN_OR_RETURN(std::string fork_bytes, EncodeCheckpoint(fork_state.ToCheckpoint()));
  OMNIGRAPH_ASSIGN_OR_RETURN(
      bool ok, CreateRedriven(runtime, CheckpointName(key, fork_state.seq), std::move(fork_bytes)));
  if (!ok) return Internal("a fresh stream key was already used", CheckpointName(key, 0));

  // 2. The stream metadata.
  StreamMetadata meta;
  meta.key = key;
  meta.branch = std::string(name);
  meta.native_name = std::string(name) + "." + key;
  meta.parent_stream = fork.state.stream;
  meta.fork_seq = fork.state.seq;
  meta.fork_commit_id = fork.state.head_commit_id;
  meta.creator = std::move(creator);
  meta.created_at = now;
  const std::string meta_name = StreamMetadataName(key);
  OMNIGRAPH_ASSIGN_OR_RETURN(ok, CreateRedriven(runtime, meta_name, EncodeStreamMetadata(meta)));
  if (!ok) return Internal("a fresh stream key was already used", meta_name);

  // 3. The next name generation: the fence between creators of one name.
  NameGeneration gen{std::string(name), key, head.gen + 1, Json::object()};
  OMNIGRAPH_ASSIGN_OR_RETURN(
      ok, CreateRedriven(runtime, NameGenerationName(name, gen.gen), EncodeNameGeneration(gen)));
  if (!ok) {
    // Another creator named its stream first: retire ours so listing streams never shows it live.
    meta.retired = Retired{meta.base_seq(), now};
    runtime.store->Put(meta_name, EncodeStreamMetadata(meta)).IgnoreError();
    return Status(Code::kBranchExists,
                  "branch '" + std::string(name) + "' was created concurrently by another writer",
                  NameGenerationName(name, gen.gen));
  }
  return meta;
}

Status DeleteBranch(const storage::Runtime& runtime, std::string_view name,
                    std::optional<std::string> actor, const StreamOptions& options) {
  OMNIGRAPH_RETURN_IF_ERROR(ValidateUserBranch(name, "delete"));
  OMNIGRAPH_ASSIGN_OR_RETURN(ResolvedBranch branch, ResolveBranch(runtime, name));
  std::unique_ptr<Stream> stream = Stream::FromMetadata(runtime, branch.metadata, options);
  PublishRequest request;
  request.stage = [](const GraphState&) -> Result<RecordContent> {
    RecordContent retire;
    retire.kind = RecordKind::kRetire;
    return retire;
  };
  // A writer that takes latest + 1 first only moves the retire record up: retry (D12).
  request.insert_only = true;
  request.branch = std::string(name);
  request.actor = std::move(actor);
  Result<PublishResult> published = stream->Publish(request);
  if (!published.ok() && published.status().code() != Code::kBranchNotFound) {
    return published.status();
  }
  // Mark the metadata retired (best effort: the retire record is the authority).
  StreamMetadata meta = branch.metadata;
  const uint64_t at_seq = published.ok() ? published->seq : meta.base_seq();
  meta.retired = Retired{at_seq, runtime.clock->NowMicros()};
  Result<std::string> marked = runtime.store->PutIfMatch(
      StreamMetadataName(meta.key), EncodeStreamMetadata(meta), branch.metadata_etag);
  marked.status().IgnoreError();
  if (!published.ok()) return BranchNotFound(name);  // Deleted already.
  return Status::Ok();
}

Result<std::vector<BranchInfo>> ListBranches(const storage::Runtime& runtime,
                                             const StreamOptions& options) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<storage::ObjectMeta> gens,
                             storage::ListAll(*runtime.store, "_graph/names/"));
  // The highest generation of each name folder.
  std::map<std::string, std::string> highest;
  for (const storage::ObjectMeta& m : gens) {
    highest[m.name.substr(0, m.name.rfind('/'))] = m.name;
  }
  std::vector<StreamMetadata> live;
  OMNIGRAPH_ASSIGN_OR_RETURN(auto main_meta, ReadMetadata(runtime, kMainKey));
  live.push_back(std::move(main_meta.first));
  for (const auto& [folder, object] : highest) {
    OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<BoundedRead> read,
                               ReadBounded(*runtime.store, object, kDocumentBytesMax));
    if (!read) continue;
    OMNIGRAPH_ASSIGN_OR_RETURN(NameGeneration doc, DecodeNameGeneration(read->data, object));
    OMNIGRAPH_ASSIGN_OR_RETURN(auto meta, ReadMetadata(runtime, doc.key));
    if (!meta.first.retired) live.push_back(std::move(meta.first));
  }
  std::vector<BranchInfo> out;
  for (const StreamMetadata& meta : live) {
    std::unique_ptr<Stream> stream = Stream::FromMetadata(runtime, meta, options);
    Result<std::shared_ptr<const GraphState>> head = stream->ReadHead();
    if (!head.ok()) {
      if (head.status().code() == Code::kBranchNotFound) continue;  // Retire record, unmarked.
      return head.status();
    }
    out.push_back(BranchInfo{meta.branch, meta.key, (*head)->seq, (*head)->head_commit_id,
                             meta.parent_stream, meta.fork_seq, meta.fork_commit_id});
  }
  std::sort(out.begin() + 1, out.end(),
            [](const BranchInfo& a, const BranchInfo& b) { return a.branch < b.branch; });
  return out;
}

}  // namespace omnigraph::commit
