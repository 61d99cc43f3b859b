#include "commit/stream.h"

#include <algorithm>
#include <utility>

#include "base/executor.h"
#include "commit/testing_hooks.h"

namespace omnigraph::commit {

Status RetiredStatus(std::string_view key) {
  return Status(Code::kBranchNotFound, "branch stream '" + std::string(key) + "' has been deleted",
                StreamMetadataName(key));
}

Stream::Stream(const storage::Runtime& runtime, StreamMetadata metadata, StreamOptions options)
    : runtime_(runtime), metadata_(std::move(metadata)), options_(options) {
  OMNIGRAPH_CHECK(options_.checkpoint_interval > 0);
}

Stream::~Stream() { WaitForBackground(); }

Result<std::unique_ptr<Stream>> Stream::Open(const storage::Runtime& runtime, std::string_view key,
                                             StreamOptions options) {
  OMNIGRAPH_RETURN_IF_ERROR(ValidateStreamKey(key));
  const std::string name = StreamMetadataName(key);
  OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<BoundedRead> read,
                             ReadBounded(*runtime.store, name, kDocumentBytesMax));
  if (!read) {
    // Main is created with the graph and never deleted: its metadata missing is damage.
    if (key == kMainKey) {
      return Status(Code::kCorruption, "the main stream's metadata is missing", name);
    }
    return Status(Code::kBranchNotFound, "no stream '" + std::string(key) + "'", name);
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(StreamMetadata metadata, DecodeStreamMetadata(read->data, name));
  if (metadata.key != key) {
    return Status(Code::kCorruption, "stream metadata names key '" + metadata.key + "'", name);
  }
  return std::unique_ptr<Stream>(new Stream(runtime, std::move(metadata), options));
}

std::unique_ptr<Stream> Stream::FromMetadata(const storage::Runtime& runtime,
                                             StreamMetadata metadata, StreamOptions options,
                                             std::optional<std::optional<Hint>> hint) {
  std::unique_ptr<Stream> stream(new Stream(runtime, std::move(metadata), options));
  stream->prefetched_hint_ = hint;
  return stream;
}

Status Stream::GapStatus(uint64_t missing, const std::string& proof) const {
  return Status(Code::kCorruption,
                "stream '" + key() + "' has a gap: record " + std::to_string(missing) +
                    " is missing, but " + proof +
                    ". A missing record is damage, not the end of the stream: restore the object "
                    "from a backup or a versioned bucket (repair reports every gap)",
                RecordName(key(), missing));
}

Result<bool> Stream::RecordExists(uint64_t seq) {
  Result<storage::ObjectMeta> meta = runtime_.store->Head(RecordName(key(), seq));
  if (meta.ok()) return true;
  if (meta.status().kind() == Kind::kNotFound) return false;
  return meta.status();
}

std::string Stream::FoundAbove(uint64_t missing, const std::map<uint64_t, Record>& found) const {
  auto above = found.upper_bound(missing);
  if (above == found.end()) return "";
  return "record " + std::to_string(found.rbegin()->first) + " exists";
}

Result<std::optional<Record>> Stream::ProbeRecord(uint64_t seq) {
  const std::string name = RecordName(key(), seq);
  OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<BoundedRead> read,
                             ReadBounded(*runtime_.store, name, kRecordBytesMax));
  if (!read) return std::optional<Record>();
  OMNIGRAPH_ASSIGN_OR_RETURN(Record record, DecodeRecord(read->data, name));
  if (record.seq != seq || record.stream != key()) {
    return Status(Code::kCorruption,
                  "record names seq " + std::to_string(record.seq) + " of stream '" +
                      record.stream + "', but is stored as seq " + std::to_string(seq) + " of '" +
                      key() + "'",
                  name);
  }
  return std::optional<Record>(std::move(record));
}

Result<Record> Stream::ReadRecord(uint64_t seq) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<Record> record, ProbeRecord(seq));
  if (!record) {
    return Status(Code::kCommitNotFound, "no record at seq " + std::to_string(seq),
                  RecordName(key(), seq));
  }
  return std::move(*record);
}

Result<std::optional<Checkpoint>> Stream::ReadCheckpoint(uint64_t seq) {
  const std::string name = CheckpointName(key(), seq);
  Result<std::optional<BoundedRead>> read = ReadBounded(*runtime_.store, name, kCheckpointBytesMax);
  // A checkpoint is derived state: a torn or oversized one is treated as missing.
  if (!read.ok()) {
    if (read.status().code() == Code::kCorruption) return std::optional<Checkpoint>();
    return read.status();
  }
  if (!*read) return std::optional<Checkpoint>();
  Result<Checkpoint> checkpoint = DecodeCheckpoint((*read)->data, name);
  if (!checkpoint.ok()) {
    // A checkpoint from a newer format must not be silently skipped: refuse.
    if (checkpoint.status().code() == Code::kFormatTooNew) return checkpoint.status();
    return std::optional<Checkpoint>();
  }
  if ((checkpoint->seq != seq || checkpoint->stream != key()) &&
      !TestingHooks().accept_checkpoint_unvalidated) {
    return std::optional<Checkpoint>();
  }
  return std::optional<Checkpoint>(std::move(*checkpoint));
}

std::vector<uint64_t> Stream::CheckpointCandidates(uint64_t seq) const {
  const uint64_t base = metadata_.base_seq();
  std::vector<uint64_t> out;
  for (uint64_t b = BoundaryAtOrBelow(seq, options_.checkpoint_interval); b > base;
       b -= options_.checkpoint_interval) {
    out.push_back(b);
    if (b < options_.checkpoint_interval) break;
  }
  out.push_back(base);
  return out;
}

Status Stream::ReadRecords(uint64_t from, uint64_t to, std::map<uint64_t, Record>& found) {
  std::vector<uint64_t> wanted;
  for (uint64_t s = from; s <= to && s >= from; ++s) {
    if (!found.count(s)) wanted.push_back(s);
  }
  if (wanted.empty()) return Status::Ok();
  std::vector<std::optional<Record>> results(wanted.size());
  TaskGroup group(runtime_.ReadExecutor());
  for (size_t i = 0; i < wanted.size(); ++i) {
    group.Add([this, &results, &wanted, i]() -> Status {
      OMNIGRAPH_ASSIGN_OR_RETURN(results[i], ProbeRecord(wanted[i]));
      return Status::Ok();
    });
  }
  OMNIGRAPH_RETURN_IF_ERROR(group.Wait());
  for (size_t i = 0; i < wanted.size(); ++i) {
    if (results[i]) found.emplace(wanted[i], std::move(*results[i]));
  }
  return Status::Ok();
}

Result<GraphState> Stream::FoldTo(uint64_t latest, std::map<uint64_t, Record>& found, bool backfill,
                                  uint64_t& missing, PrefetchedCheckpoint* prefetched) {
  std::vector<uint64_t> fallen_past;
  for (uint64_t candidate : CheckpointCandidates(latest)) {
    Result<std::optional<Checkpoint>> read = std::optional<Checkpoint>();
    if (prefetched != nullptr && prefetched->read && prefetched->seq == candidate) {
      read = *std::move(prefetched->read);
      prefetched->read.reset();
    } else {
      read = ReadCheckpoint(candidate);
    }
    OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<Checkpoint> checkpoint, std::move(read));
    if (!checkpoint) {
      fallen_past.push_back(candidate);
      continue;
    }
    OMNIGRAPH_RETURN_IF_ERROR(ReadRecords(candidate + 1, latest, found));
    // The records after the checkpoint must be contiguous up to `latest`.
    for (uint64_t s = candidate + 1; s <= latest; ++s) {
      if (!found.count(s)) {
        missing = s;
        return Status(Code::kNotFound, "no record at seq " + std::to_string(s),
                      RecordName(key(), s));
      }
    }
    auto next = found.find(candidate + 1);
    if (next != found.end() &&
        next->second.parent_commit_id.value_or("") != checkpoint->head_commit_id &&
        !TestingHooks().accept_checkpoint_unvalidated) {
      fallen_past.push_back(candidate);  // The checkpoint disagrees with the record after it.
      continue;
    }
    GraphState state = GraphState::FromCheckpoint(*checkpoint);
    for (uint64_t s = candidate + 1; s <= latest; ++s) {
      OMNIGRAPH_RETURN_IF_ERROR(state.Apply(found.at(s), RecordName(key(), s)));
      bool was_missing = std::find(fallen_past.begin(), fallen_past.end(), s) != fallen_past.end();
      if (backfill && was_missing && options_.writable && !state.retired) {
        // D11: the fold at exactly this seq replaces the missing checkpoint (best effort).
        Result<std::string> bytes = EncodeCheckpoint(state.ToCheckpoint());
        if (bytes.ok()) {
          runtime_.store->Put(CheckpointName(key(), s), *std::move(bytes)).IgnoreError();
        }
      }
    }
    return state;
  }
  return Status(
      Code::kCorruption,
      "the base checkpoint " + std::to_string(metadata_.base_seq()) + " is missing or invalid",
      CheckpointName(key(), metadata_.base_seq()));
}

Result<std::optional<Hint>> ReadHint(storage::ObjectStore& store, std::string_view key) {
  const std::string hint_name = HintName(key);
  Result<std::optional<BoundedRead>> read = ReadBounded(store, hint_name, kDocumentBytesMax);
  if (!read.ok() && read.status().code() != Code::kCorruption) return read.status();
  if (!read.ok() || !*read) return std::optional<Hint>();
  Result<Hint> hint = DecodeHint((*read)->data, hint_name);
  if (!hint.ok()) return std::optional<Hint>();  // An unparsable hint is treated as absent.
  return std::optional<Hint>(*std::move(hint));
}

Result<std::optional<uint64_t>> ReadHintSeq(storage::ObjectStore& store, std::string_view key) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<Hint> hint, ReadHint(store, key));
  if (!hint) return std::optional<uint64_t>();
  return std::optional<uint64_t>(hint->seq);
}

Result<std::optional<Hint>> Stream::ReadHint() { return commit::ReadHint(*runtime_.store, key()); }

Result<std::optional<Hint>> Stream::TakeHintLocked() {
  if (!prefetched_hint_) return ReadHint();
  std::optional<Hint> hinted = *std::move(prefetched_hint_);
  prefetched_hint_.reset();
  return hinted;
}

Result<std::optional<bool>> Stream::ProbeAbove(uint64_t& latest, std::map<uint64_t, Record>& found,
                                               std::function<void()> beside) {
  // The probe of latest + 1 goes out with the lookahead HEAD of latest + 2 beside it (and the
  // caller's reads ahead): with a fresh hint the probe finds nothing and the lookahead is
  // already answered (D21, decisions 203 and 205).
  bool above = false;
  TaskGroup group(runtime_.ReadExecutor());
  if (beside) {
    group.Add([fn = std::move(beside)]() -> Status {
      fn();
      return Status::Ok();
    });
  }
  group.Add([this, &above, seq = latest + 2]() -> Status {
    OMNIGRAPH_ASSIGN_OR_RETURN(above, RecordExists(seq));
    return Status::Ok();
  });
  Result<std::optional<Record>> probed = ProbeRecord(latest + 1);
  OMNIGRAPH_RETURN_IF_ERROR(group.Wait());
  OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<Record> record, std::move(probed));
  if (!record) return std::optional<bool>(above);
  // A stale hint: walk on, one GET at a time, as each found record is read before the next.
  found.emplace(latest + 1, std::move(*record));
  ++latest;
  while (true) {
    OMNIGRAPH_ASSIGN_OR_RETURN(record, ProbeRecord(latest + 1));
    if (!record) return std::optional<bool>();
    found.emplace(latest + 1, std::move(*record));
    ++latest;
  }
}

Result<GraphState> Stream::PlantedGapIsEnd(std::map<uint64_t, Record>& found, uint64_t& latest,
                                           uint64_t& missing, Result<GraphState> state) {
  // Planted bug (test only): the re-probe from the base that served the prefix before a gap.
  if (state.ok() || state.status().code() != Code::kNotFound) return state;
  found.clear();
  latest = metadata_.base_seq();
  while (true) {
    OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<Record> record, ProbeRecord(latest + 1));
    if (!record) break;
    found.emplace(latest + 1, std::move(*record));
    ++latest;
  }
  return FoldTo(latest, found, /*backfill=*/true, missing);
}

Result<std::optional<GraphState>> Stream::ReadToHint(uint64_t start, TaskGroup& checkpoint_read,
                                                     const PrefetchedCheckpoint& checkpoint,
                                                     std::map<uint64_t, Record>& found, bool fold) {
  // The records the fold takes up to the hint's seq are read before the probe above it, as the
  // probe reads each record it finds before the next: a record read only after the probe proved
  // the end could be one a held create wrote into a gap since (another writer's record at that
  // seq), and the answer would pair it with an end the stream never had with it (decision 124,
  // simulation.md "A reader in the withdrawal window"). The same GETs the fold makes, earlier.
  Status records = ReadRecords(checkpoint.seq + 1, start, found);
  OMNIGRAPH_RETURN_IF_ERROR(checkpoint_read.Wait());
  OMNIGRAPH_RETURN_IF_ERROR(records);
  if (!fold) return std::optional<GraphState>();
  // The fold of what was just read (the records and the checkpoint below them; more reads only
  // when one is missing or invalid, the records still all at or below the hint). A failed fold
  // is left to the fold after the probe, which reports it.
  PrefetchedCheckpoint copy = checkpoint;
  uint64_t missing = 0;
  Result<GraphState> folded = FoldTo(start, found, /*backfill=*/true, missing, &copy);
  if (!folded.ok()) return std::optional<GraphState>();
  return std::optional<GraphState>(*std::move(folded));
}

Result<std::shared_ptr<const GraphState>> Stream::ColdReadLocked(const ReadAhead& ahead) {
  const uint64_t base = metadata_.base_seq();
  // A readable hint names a seq that was published (hints are written only after a record is
  // acknowledged), so the stream reaches at least that far: records missing below it are a gap,
  // never a shorter history (D21). A hint read beside the metadata serves the first cold read.
  OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<Hint> hint, TakeHintLocked());
  const uint64_t start = hint && hint->seq > base ? hint->seq : base;
  std::map<uint64_t, Record> found;
  // Beside the records: the checkpoint the fold starts from when the hint is fresh, and the
  // schema the hint names, for the caller (commit-record.md "Reading current state").
  PrefetchedCheckpoint checkpoint;
  checkpoint.seq = CheckpointCandidates(start).front();
  TaskGroup checkpoint_read(runtime_.ReadExecutor());
  checkpoint_read.Add([this, &checkpoint]() -> Status {
    checkpoint.read = ReadCheckpoint(checkpoint.seq);
    return Status::Ok();
  });
  if (ahead.schema && start > base && hint->schema) {
    checkpoint_read.Add([&] { return ahead.schema(*hint->schema), Status::Ok(); });
  }
  // The state at the hint's seq (folded before the probe for a caller that reads ahead): the
  // head when the probe finds nothing above the hint.
  std::optional<GraphState> likely;
  if (start > base) {
    OMNIGRAPH_ASSIGN_OR_RETURN(likely, ReadToHint(start, checkpoint_read, checkpoint, found,
                                                  /*fold=*/static_cast<bool>(ahead.state)));
  }
  std::function<void()> beside;
  if (likely) beside = [&ahead, &likely] { ahead.state(*likely); };
  uint64_t latest = start;
  while (true) {
    OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<bool> first_above,
                               ProbeAbove(latest, found, std::exchange(beside, {})));
    OMNIGRAPH_RETURN_IF_ERROR(checkpoint_read.Wait());
    // The probe stopped at an absent latest + 1. A record at latest + 2 would make that a gap
    // rather than the end: one HEAD, concurrent with the fold when the first probe did not
    // answer it (D21).
    bool above = first_above.value_or(false);
    TaskGroup lookahead(runtime_.ReadExecutor());
    if (!first_above) {
      lookahead.Add([this, &above, seq = latest + 2]() -> Status {
        OMNIGRAPH_ASSIGN_OR_RETURN(above, RecordExists(seq));
        return Status::Ok();
      });
    }
    uint64_t missing = 0;
    Result<GraphState> state = GraphState();
    if (likely && latest == start) {
      state = *std::exchange(likely, std::nullopt);
    } else {
      state = FoldTo(latest, found, /*backfill=*/true, missing, &checkpoint);
    }
    Status looked = lookahead.Wait();
    if (TestingHooks().gap_is_end) {
      above = false;
      state = PlantedGapIsEnd(found, latest, missing, std::move(state));
    }
    if (!state.ok()) {
      if (state.status().code() != Code::kNotFound) return state.status();
      // Every seq up to `latest` was proven before the fold read it: it is a record the probe
      // found, or the hint's seq. So the absent record was deleted, not yet to be written.
      std::string proof = FoundAbove(missing, found);
      if (proof.empty()) {
        proof = "the hint " + HintName(key()) + " names seq " + std::to_string(latest);
      }
      return GapStatus(missing, proof);
    }
    OMNIGRAPH_RETURN_IF_ERROR(looked);
    if (!above) return std::make_shared<const GraphState>(std::move(*state));
    // Writers may have published latest + 1 and + 2 since the probe: look again. Absent now,
    // after latest + 2 was seen, it was deleted.
    OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<Record> record, ProbeRecord(latest + 1));
    if (!record) {
      return GapStatus(latest + 1, "record " + std::to_string(latest + 2) + " exists");
    }
    found.emplace(latest + 1, std::move(*record));
    ++latest;
  }
}

Result<std::shared_ptr<const GraphState>> Stream::WarmReadLocked() {
  GraphState state = *head_;
  bool changed = false;
  while (true) {
    OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<Record> record, ProbeRecord(state.seq + 1));
    if (!record) break;
    OMNIGRAPH_RETURN_IF_ERROR(state.Apply(*record, RecordName(key(), record->seq)));
    changed = true;
  }
  if (!changed) return head_;
  return std::make_shared<const GraphState>(std::move(state));
}

void Stream::SetHeadLocked(std::shared_ptr<const GraphState> state) {
  head_ = std::move(state);
  uint64_t seen = seen_.load();
  while (seen < head_->seq + 1 && !seen_.compare_exchange_weak(seen, head_->seq + 1)) {
  }
}

Result<std::shared_ptr<const GraphState>> Stream::ReadLatest(const ReadAhead& ahead) {
  std::lock_guard lock(mu_);
  Result<std::shared_ptr<const GraphState>> state =
      head_ ? WarmReadLocked() : ColdReadLocked(ahead);
  if (!state.ok()) return state.status();
  SetHeadLocked(*state);
  return head_;
}

Result<std::shared_ptr<const GraphState>> Stream::ReadHead(const ReadAhead& ahead) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const GraphState> state, ReadLatest(ahead));
  if (state->retired) return RetiredStatus(key());
  return state;
}

Result<GraphState> Stream::ReadAt(uint64_t seq) {
  if (seq < metadata_.base_seq()) {
    return Status(Code::kCommitNotFound,
                  "seq " + std::to_string(seq) + " is before this branch's fork point " +
                      std::to_string(metadata_.base_seq()) + "; read it on the parent stream",
                  RecordName(key(), seq));
  }
  std::map<uint64_t, Record> found;
  while (true) {
    uint64_t missing = 0;
    Result<GraphState> state = FoldTo(seq, found, /*backfill=*/true, missing);
    if (state.ok() || state.status().code() != Code::kNotFound) return state;
    OMNIGRAPH_ASSIGN_OR_RETURN(std::string proof, ProofOfSeq(missing, found));
    if (proof.empty()) {
      return Status(Code::kCommitNotFound, "no commit at seq " + std::to_string(seq),
                    RecordName(key(), seq));
    }
    // The proof was seen after the record was found absent, and writers may have published it
    // meanwhile: look again. Still absent after its proof was seen, it was deleted.
    OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<Record> record, ProbeRecord(missing));
    if (!record) return GapStatus(missing, proof);
    found.emplace(missing, std::move(*record));
  }
}

Result<std::string> Stream::ProofOfSeq(uint64_t missing, const std::map<uint64_t, Record>& found) {
  if (TestingHooks().gap_is_end) return std::string();  // Planted bug (test only).
  // Cheapest first; this is the failure path only, so its reads cost the healthy path nothing.
  std::string proof = FoundAbove(missing, found);
  if (!proof.empty()) return proof;
  // Not under mu_: a staging step may time-travel on the handle that is publishing.
  if (const uint64_t seen = seen_.load(); seen > missing) {
    return "this handle has read seq " + std::to_string(seen - 1);
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<uint64_t> hinted,
                             commit::ReadHintSeq(*runtime_.store, key()));
  if (hinted && *hinted >= missing) {
    return "the hint " + HintName(key()) + " names seq " + std::to_string(*hinted);
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(bool next, RecordExists(missing + 1));
  if (next) return "record " + std::to_string(missing + 1) + " exists";
  // A valid checkpoint at the next boundary was written after its seq was published.
  const uint64_t boundary =
      BoundaryAtOrBelow(missing, options_.checkpoint_interval) + options_.checkpoint_interval;
  OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<Checkpoint> checkpoint, ReadCheckpoint(boundary));
  if (checkpoint) return "checkpoint " + CheckpointName(key(), boundary) + " exists";
  return std::string();
}

Result<Record> LookupCommit(storage::ObjectStore& store, std::string_view commit_id) {
  OMNIGRAPH_ASSIGN_OR_RETURN(CommitId id, CommitId::Parse(commit_id));
  const std::string name = RecordName(id.key, id.seq);
  OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<BoundedRead> read,
                             ReadBounded(store, name, kRecordBytesMax));
  if (!read) {
    return Status(Code::kCommitNotFound, "no commit '" + std::string(commit_id) + "'", name);
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(Record record, DecodeRecord(read->data, name));
  if (record.commit_id != commit_id) {
    return Status(Code::kCommitNotFound,
                  "no commit '" + std::string(commit_id) + "' (seq " + std::to_string(id.seq) +
                      " holds '" + record.commit_id + "')",
                  name);
  }
  return record;
}

}  // namespace omnigraph::commit
