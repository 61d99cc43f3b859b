#include "commit/retention.h"

#include <algorithm>

#include "commit/merge_base.h"
#include "commit/testing_hooks.h"

namespace omnigraph::commit {

namespace {

struct StreamInfo {
  StreamMetadata meta;
  int64_t last_modified_micros = 0;
};

// Every stream life, named or not.
Result<std::map<std::string, StreamInfo>> ListStreams(const storage::Runtime& rt) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<storage::ObjectMeta> objects,
                             storage::ListAll(*rt.store, kStreamsPrefix));
  std::map<std::string, StreamInfo> out;
  for (const storage::ObjectMeta& m : objects) {
    OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<BoundedRead> read,
                               ReadBounded(*rt.store, m.name, kDocumentBytesMax));
    if (!read) continue;  // Deleted meanwhile (never happens: metadata is never deleted).
    OMNIGRAPH_ASSIGN_OR_RETURN(StreamMetadata meta, DecodeStreamMetadata(read->data, m.name));
    // Take the key first: the right side of an assignment is evaluated before the left.
    std::string key = meta.key;
    out[key] = StreamInfo{std::move(meta), read->meta.last_modified_micros};
  }
  return out;
}

// Seqs [from, to] of one stream whose folds must keep their table versions.
struct Span {
  uint64_t from = UINT64_MAX;
  uint64_t to = 0;
  void Add(uint64_t f, uint64_t t) {
    from = std::min(from, f);
    to = std::max(to, t);
  }
};

void AddPins(const GraphState& state, std::set<PinRef>& keep) {
  for (const auto& [id, t] : state.tables) keep.insert(PinRef{id, t.pin.staged_version});
}

class RetentionPlanner {
 public:
  RetentionPlanner(const storage::Runtime& rt, const RetentionOptions& options,
                   std::map<std::string, StreamInfo> streams)
      : rt_(rt), options_(options), streams_(std::move(streams)) {}

  // Retains the newest commits of the live branch at (key, head): its own commits only. A branch
  // never reads its parent's stream (docs/design/overview.md D2): its fork checkpoint holds the
  // parent's state at the fork point, and the caller keeps that checkpoint's pins, so the parent's
  // older commits are the parent's business (each branch's horizon is its own; decision 24).
  Status RetainBranch(const std::string& key, uint64_t head) {
    const uint64_t need = options_.keep.value_or(1);
    std::optional<int64_t> cutoff;
    if (options_.older_than_micros) cutoff = rt_.clock->NowMicros() - *options_.older_than_micros;
    auto it = streams_.find(key);
    if (it == streams_.end()) {
      return Status(Code::kCorruption, "a live branch names a stream with no metadata",
                    StreamMetadataName(key));
    }
    const StreamMetadata& meta = it->second.meta;
    // The branch's own commits start after its fork point; seq 0 (genesis) is main's own.
    const uint64_t lowest = meta.parent_stream ? meta.base_seq() + 1 : 0;
    uint64_t from = head;
    uint64_t counted = 1;
    // Walk down while the count or the age still asks for more commits.
    while (from > lowest) {
      bool by_count = counted < need;
      bool by_age = false;
      if (!by_count && cutoff) {
        OMNIGRAPH_ASSIGN_OR_RETURN(Record below, Handle(key).ReadRecord(from - 1));
        by_age = below.created_at >= *cutoff;
      }
      if (!by_count && !by_age) break;
      --from;
      ++counted;
    }
    spans_[key].Add(from, head);
    return Status::Ok();
  }

  Stream& Handle(const std::string& key) {
    auto it = handles_.find(key);
    if (it == handles_.end()) {
      it = handles_.emplace(key, Stream::FromMetadata(rt_, streams_.at(key).meta, options_.stream))
               .first;
    }
    return *it->second;
  }

  Status CollectPins(RetentionPlan& plan) {
    for (auto& [key, span] : spans_) {
      // Commits below a horizon an earlier cleanup recorded are reclaimed already: a larger keep
      // now cannot bring their versions back, so they are not retained (time travel there fails).
      const std::string horizon_name = HorizonName(key);
      OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<BoundedRead> read,
                                 ReadBounded(*rt_.store, horizon_name, kDocumentBytesMax));
      if (read) {
        OMNIGRAPH_ASSIGN_OR_RETURN(Horizon horizon, DecodeHorizon(read->data, horizon_name));
        span.from = std::max(span.from, horizon.reclaimed_below_seq);
      }
      if (span.from > span.to) continue;
      Stream& stream = Handle(key);
      if (TestingHooks().retention_uses_record_pins) {
        // Planted bug (test only): the oldest retained record's own pins, not its fold.
        OMNIGRAPH_ASSIGN_OR_RETURN(Record first, stream.ReadRecord(span.from));
        for (const TablePin& p : first.pins) plan.keep.insert(PinRef{p.table(), p.staged_version});
      } else {
        OMNIGRAPH_ASSIGN_OR_RETURN(GraphState state, stream.ReadAt(span.from));
        AddPins(state, plan.keep);
      }
      for (uint64_t seq = span.from + 1; seq <= span.to; ++seq) {
        OMNIGRAPH_ASSIGN_OR_RETURN(Record record, stream.ReadRecord(seq));
        for (const TablePin& p : record.pins) plan.keep.insert(PinRef{p.table(), p.staged_version});
      }
      plan.horizons[key] = span.from;
      plan.retained_through[key] = span.to;
    }
    return Status::Ok();
  }

  // Merge bases are roots (docs/design/retention.md "Merge bases"): a later merge of any two
  // live branches reads the fold at their merge base, so that fold's pins stay, and so does the
  // checkpoint it folds from (recorded in `base_seqs`). One base search per pair of branches.
  Status RetainMergeBases(const std::vector<BranchInfo>& live, RetentionPlan& plan,
                          std::map<std::string, std::set<uint64_t>>& base_seqs) {
    if (TestingHooks().retention_ignores_merge_bases) return Status::Ok();
    for (size_t i = 0; i < live.size(); ++i) {
      for (size_t j = i + 1; j < live.size(); ++j) {
        OMNIGRAPH_ASSIGN_OR_RETURN(
            MergeBase found,
            FindMergeBase(*rt_.store, live[i].head_commit_id, live[j].head_commit_id));
        const Record& base = found.base;
        auto span = spans_.find(base.stream);
        if (span != spans_.end() && span->second.from <= base.seq && base.seq <= span->second.to) {
          continue;  // Retained already.
        }
        if (IsForkPoint(live, base)) continue;  // Its state is a fork checkpoint: a root already.
        if (!base_seqs[base.stream].insert(base.seq).second) continue;
        OMNIGRAPH_ASSIGN_OR_RETURN(GraphState state, Handle(base.stream).ReadAt(base.seq));
        AddPins(state, plan.keep);
      }
    }
    return Status::Ok();
  }

  static bool IsForkPoint(const std::vector<BranchInfo>& live, const Record& commit) {
    for (const BranchInfo& b : live) {
      if (b.parent_stream == commit.stream && b.fork_seq == commit.seq) return true;
    }
    return false;
  }

  std::map<std::string, Span>& spans() { return spans_; }
  std::map<std::string, StreamInfo>& streams() { return streams_; }

 private:
  const storage::Runtime& rt_;
  const RetentionOptions& options_;
  std::map<std::string, StreamInfo> streams_;
  std::map<std::string, Span> spans_;
  std::map<std::string, std::unique_ptr<Stream>> handles_;
};

// The newest checkpoint seq at or below `seq` among `existing`, or the base.
uint64_t FoldBaseFor(uint64_t seq, uint64_t base, const std::set<uint64_t>& existing) {
  auto it = existing.upper_bound(seq);
  if (it == existing.begin()) return base;
  return std::max(base, *std::prev(it));
}

}  // namespace

Result<RetentionPlan> PlanRetention(const storage::Runtime& runtime,
                                    const RetentionOptions& options) {
  if (!options.keep && !options.older_than_micros) {
    return InvalidArgument("retention needs keep N and/or older_than");
  }
  if (options.keep && *options.keep == 0) {
    return InvalidArgument("keep must be at least 1: the head is always kept");
  }
  RetentionPlan plan;
  plan.computed_at_micros = runtime.clock->NowMicros();
  OMNIGRAPH_ASSIGN_OR_RETURN(auto streams, ListStreams(runtime));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<BranchInfo> live, ListBranches(runtime, options.stream));
  RetentionPlanner planner(runtime, options, std::move(streams));
  for (const BranchInfo& b : live)
    OMNIGRAPH_RETURN_IF_ERROR(planner.RetainBranch(b.key, b.head_seq));
  // Every stream younger than the grace period keeps everything, named or not, retired or not.
  for (auto& [key, info] : planner.streams()) {
    if (info.last_modified_micros < plan.computed_at_micros - options.grace_micros) continue;
    plan.young_streams.push_back(key);
    OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const GraphState> end,
                               planner.Handle(key).ReadLatest());
    planner.spans()[key].Add(info.meta.base_seq(), end->seq);
  }
  OMNIGRAPH_RETURN_IF_ERROR(planner.CollectPins(plan));
  std::map<std::string, std::set<uint64_t>> merge_bases;
  OMNIGRAPH_RETURN_IF_ERROR(planner.RetainMergeBases(live, plan, merge_bases));
  // A stream nothing retains (a deleted branch no live branch reaches) may lose every version:
  // its horizon says so, so that a later, larger keep never counts its commits as retained.
  for (const auto& [key, info] : planner.streams()) {
    if (!plan.horizons.count(key)) plan.horizons[key] = UINT64_MAX;
  }
  // Base checkpoints (checkpoint 0 and every live branch's fork checkpoint) are never deleted,
  // and readers may fall back to them, so their pins are roots too.
  for (const BranchInfo& b : live) {
    const StreamMetadata& meta = planner.streams().at(b.key).meta;
    const std::string name = CheckpointName(b.key, meta.base_seq());
    OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<BoundedRead> read,
                               ReadBounded(*runtime.store, name, kCheckpointBytesMax));
    if (!read) return Status(Code::kCorruption, "base checkpoint is missing", name);
    OMNIGRAPH_ASSIGN_OR_RETURN(Checkpoint base, DecodeCheckpoint(read->data, name));
    AddPins(GraphState::FromCheckpoint(base), plan.keep);
  }
  // Checkpoints below the fold base of each stream's oldest retained commit are not needed.
  for (const auto& [key, info] : planner.streams()) {
    OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<storage::ObjectMeta> objects,
                               storage::ListAll(*runtime.store, CheckpointPrefix(key)));
    std::set<uint64_t> existing;
    std::map<uint64_t, std::string> names;
    for (const storage::ObjectMeta& m : objects) {
      std::string file = m.name.substr(m.name.rfind('/') + 1);
      if (file.size() != 25 || file.substr(20) != ".json") continue;
      Result<uint64_t> seq = GenerationFromFile(file);  // Same zero-padded shape.
      if (!seq.ok()) continue;
      existing.insert(*seq);
      names[*seq] = m.name;
    }
    const uint64_t base = info.meta.base_seq();
    auto span = planner.spans().find(key);
    // A stream nothing retains keeps only its base checkpoint.
    uint64_t needed_from =
        span == planner.spans().end() ? UINT64_MAX : FoldBaseFor(span->second.from, base, existing);
    std::set<uint64_t> needed;  // The checkpoints merge bases fold from.
    for (uint64_t seq : merge_bases[key]) needed.insert(FoldBaseFor(seq, base, existing));
    for (uint64_t seq : existing) {
      if (seq != base && seq < needed_from && !needed.count(seq)) {
        plan.deletable_checkpoints.push_back(names[seq]);
      }
    }
  }
  return plan;
}

Result<CheckpointCleanup> ApplyCheckpointRetention(const storage::Runtime& runtime,
                                                   const RetentionOptions& options,
                                                   const RetentionPlan& plan) {
  // Horizons first: once versions may go, forks below them must be refused. Never lowered.
  for (const auto& [key, from] : plan.horizons) {
    const std::string name = HorizonName(key);
    OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<BoundedRead> read,
                               ReadBounded(*runtime.store, name, kDocumentBytesMax));
    Horizon horizon;
    if (read) {
      OMNIGRAPH_ASSIGN_OR_RETURN(horizon, DecodeHorizon(read->data, name));
      if (horizon.reclaimed_below_seq >= from) continue;
    }
    horizon.reclaimed_below_seq = from;
    OMNIGRAPH_RETURN_IF_ERROR(runtime.store->Put(name, EncodeHorizon(horizon)));
  }
  CheckpointCleanup out;
  const int64_t now = runtime.clock->NowMicros();
  std::vector<std::pair<std::string, uint64_t>> candidates;
  for (const std::string& name : plan.deletable_checkpoints) {
    Result<storage::ObjectMeta> meta = runtime.store->Head(name);
    if (!meta.ok()) continue;
    if (meta->last_modified_micros > now - options.grace_micros) {
      out.spared.push_back(name);
    } else {
      candidates.emplace_back(name, meta->size_bytes);
    }
  }
  // Recompute the roots after listing: a commit published meanwhile may need a candidate.
  OMNIGRAPH_ASSIGN_OR_RETURN(RetentionPlan again, PlanRetention(runtime, options));
  std::set<std::string> still(again.deletable_checkpoints.begin(),
                              again.deletable_checkpoints.end());
  for (const auto& [name, size] : candidates) {
    if (!still.count(name)) {
      out.spared.push_back(name);
      continue;
    }
    OMNIGRAPH_RETURN_IF_ERROR(runtime.store->Delete(name));
    out.deleted.push_back(name);
    out.bytes_removed += size;
  }
  return out;
}

Result<StagedFate> FateOfStagedVersion(const storage::Runtime& runtime, std::string_view stream_key,
                                       uint64_t staged_against_seq, const PinRef& version) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::unique_ptr<Stream> stream, Stream::Open(runtime, stream_key));
  Result<Record> next = stream->ReadRecord(staged_against_seq + 1);
  if (next.ok()) {
    for (const TablePin& p : next->pins) {
      if (p.table() == version.table && p.staged_version == version.staged_version) {
        return StagedFate::kPublished;
      }
    }
    return StagedFate::kNeverPublished;
  }
  if (next.status().code() != Code::kCommitNotFound) return next.status();
  // Nothing at N+1 yet: a writer may still create it, unless the stream is closed.
  if (stream->metadata().retired) return StagedFate::kNeverPublished;
  Result<std::shared_ptr<const GraphState>> latest = stream->ReadLatest();
  OMNIGRAPH_RETURN_IF_ERROR(latest.status());
  return (*latest)->retired ? StagedFate::kNeverPublished : StagedFate::kMayStillPublish;
}

Result<bool> StagedVersionIsDead(const storage::Runtime& runtime, std::string_view stream_key,
                                 uint64_t staged_against_seq, const PinRef& version) {
  OMNIGRAPH_ASSIGN_OR_RETURN(StagedFate fate,
                             FateOfStagedVersion(runtime, stream_key, staged_against_seq, version));
  return fate == StagedFate::kNeverPublished;
}

}  // namespace omnigraph::commit
