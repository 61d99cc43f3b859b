// Publishing (docs/design/commit-record.md "Publishing"; D3, D9, D11 in docs/design/overview.md)
// and genesis of the main stream.
#include <algorithm>
#include <functional>

#include "base/executor.h"
#include "commit/publish_loop.h"
#include "commit/stream.h"
#include "commit/testing_hooks.h"

namespace omnigraph::commit {

namespace {

Record BuildRecord(const GraphState& base, const RecordContent& content, const CommitId& id,
                   const PublishRequest& request, int64_t now_micros) {
  Record r;
  r.kind = content.kind;
  r.seq = base.seq + 1;
  r.commit_id = id.ToString();
  r.parent_commit_id = base.head_commit_id;
  r.generation = std::max(base.head_generation, content.merged_generation) + 1;
  r.stream = base.stream;
  r.branch = request.branch;
  r.actor = request.actor;
  r.created_at = now_micros;
  r.schema = content.schema.value_or(base.schema);
  if (content.kind == RecordKind::kCommit) {
    r.pins = content.pins;
    r.registrations = content.registrations;
    r.tombstones = content.tombstones;
    r.renames = content.renames;
    r.lineage = content.lineage;
    r.change_set = content.change_set;
  }
  r.summary = content.summary;
  r.idempotency_key = content.idempotency_key;
  r.members = content.members;
  r.extra = content.extra;
  return r;
}

// A publish whose seq was found taken after a create of it returned Unknown, and whose read back
// then found `what`: the record there may have been ours.
Status TakenInDoubt(const Record& record, const std::string& what, std::string object) {
  return Status(Code::kPublicationInDoubt,
                "the outcome of publishing commit '" + record.commit_id +
                    "' is unknown: its seq was taken (perhaps by this publish's own earlier "
                    "request) and " +
                    what,
                std::move(object));
}

// Reads back record N+1 (`name`), shown taken (`gap` is the Corruption if it is now empty): true
// when it is ours, false another's, nullopt when the read kept failing (`last` its error). Empty
// or unreadable, it is never re-created: a gap (Corruption) or, after an Unknown create of ours,
// PublicationInDoubt (the record there may have been ours).
Result<std::optional<bool>> ReadBack(const Record& record, const std::string& name,
                                     const std::function<Result<std::optional<Record>>()>& probe,
                                     bool create_unknown, const Status& gap, Status& last) {
  for (int read_attempt = 0; read_attempt <= kRedrivesMax; ++read_attempt) {
    Result<std::optional<Record>> back = probe();
    if (back.ok()) {
      // The seq was shown taken, and now it holds nothing: the record that took it was deleted
      // since. That seq was published, so it is a gap (D21); re-driving the create would publish
      // into it — a fork.
      if (!*back) {
        if (!create_unknown) return gap;
        // An earlier request of ours had an Unknown outcome: the record that took the seq,
        // deleted since, may have been ours. Still never re-created; the commit id can be looked
        // up later.
        return TakenInDoubt(record, "is now empty. " + gap.message(), gap.object());
      }
      return std::optional<bool>((*back)->commit_id == record.commit_id);
    }
    if (back.status().kind() == Kind::kPermanent) {
      if (!create_unknown) return back.status();
      // The record at our seq is damaged (truncated, replaced): it may have been ours, landed by
      // an earlier request whose outcome was Unknown. Never re-created; in doubt, naming the
      // damaged record.
      return TakenInDoubt(record, "the record there cannot be read: " + back.status().message(),
                          name);
    }
    last = back.status();
  }
  return std::optional<bool>();
}

}  // namespace

Result<bool> Stream::CreateRecord(const Record& record, const std::string& encoded) {
  int64_t unknown_at = -1;
  Result<bool> created = CreateRecordAttempts(record, encoded, unknown_at);
  if (created.ok() || created.status().code() != Code::kPublicationInDoubt || unknown_at < 0) {
    return created;
  }
  return SettleInDoubt(record, unknown_at, created.status());
}

Result<bool> Stream::SettleInDoubt(const Record& record, int64_t unknown_at, const Status& doubt) {
  const int64_t window = runtime_.store->UnknownOutcomeWindowMicros();
  if (window <= 0) return doubt;
  const int64_t wait = unknown_at + window - runtime_.clock->MonotonicMicros();
  if (wait > 0) runtime_.clock->SleepMicros(wait);
  for (int attempt = 0; attempt <= kRedrivesMax; ++attempt) {
    if (attempt > 0) runtime_.clock->SleepMicros(kBackoffBaseMicros << std::min(attempt, 6));
    Result<std::optional<Record>> back = ProbeRecord(record.seq);
    if (back.ok()) {
      if (*back && (*back)->commit_id == record.commit_id) return true;
      return doubt;
    }
    if (back.status().kind() != Kind::kTransient && back.status().kind() != Kind::kUnknown) {
      return doubt;
    }
  }
  return doubt;
}

Result<bool> Stream::CreateRecordAttempts(const Record& record, const std::string& encoded,
                                          int64_t& unknown_at) {
  const std::string name = RecordName(key(), record.seq);
  auto probe = [this, seq = record.seq] { return ProbeRecord(seq); };
  Status last;
  // Only a create whose answer was lost (Unknown) can have landed our record unseen: it alone puts
  // the commit in doubt. A transient failure of a create had no effect, and a read back that
  // failed after "exists" found a record none of our requests created (none was Unknown), so
  // neither does: every attempt failed before any effect of ours and the caller may retry.
  bool create_unknown = false;
  bool readback_failed = false;  // The seq was found taken and the record could not be read.
  // The first attempt plus kRedrivesMax identical re-drives while the outcome stays unknown.
  for (int attempt = 0; attempt <= kRedrivesMax; ++attempt) {
    if (attempt > 0) {
      // The re-drive guard: the seq may have been taken and then deleted since the last attempt
      // (the lookahead and the placement check cover only the first). A record at N+2 proves N+1
      // was published: read it back instead of creating into what may be a gap. A re-drive is
      // sent only after this HEAD saw nothing there.
      Result<bool> published = RecordExists(record.seq + 1);
      if (!published.ok()) {
        last = published.status();
        runtime_.clock->SleepMicros(kBackoffBaseMicros << std::min(attempt, 6));
        continue;
      }
      if (*published) {
        OMNIGRAPH_ASSIGN_OR_RETURN(
            std::optional<bool> back,
            ReadBack(record, name, probe, create_unknown,
                     GapStatus(record.seq, "record " + std::to_string(record.seq + 1) + " exists"),
                     last));
        if (back) return *back;
        readback_failed = true;
        continue;
      }
    }
    Result<bool> created = runtime_.store->PutIfAbsent(name, encoded);
    if (created.ok()) {
      if (*created) return true;
      if (TestingHooks().skip_readback_on_exists) return false;  // Planted bug (test only).
      // "Exists": a retried request of our own may have landed first. Read it back.
      OMNIGRAPH_ASSIGN_OR_RETURN(
          std::optional<bool> back,
          ReadBack(record, name, probe, create_unknown,
                   GapStatus(record.seq, "the conditional create found it taken"), last));
      if (back) return *back;
      readback_failed = true;
      continue;
    }
    const Kind kind = created.status().kind();
    if (kind != Kind::kUnknown && kind != Kind::kTransient) return created.status();
    create_unknown = create_unknown || kind == Kind::kUnknown;
    if (kind == Kind::kUnknown) unknown_at = runtime_.clock->MonotonicMicros();
    last = created.status();
    if (kind == Kind::kUnknown && TestingHooks().absent_after_unknown_means_no_effect) {
      // Planted bug (test only): an absent read-back is taken as proof of no effect.
      Result<std::optional<Record>> back = ProbeRecord(record.seq);
      if (back.ok() && !*back) {
        return Status(Code::kTransient, "planted bug: absent after Unknown taken as no effect",
                      name);
      }
    }
    // Never conclude "no effect" from an absent read: re-drive the identical create instead.
    runtime_.clock->SleepMicros(kBackoffBaseMicros << std::min(attempt, 6));
  }
  if (!create_unknown) {
    return Status(Code::kTransient,
                  std::string(readback_failed ? "another writer took the seq and its record could "
                                                "not be read back"
                                              : "the store kept failing before any effect") +
                      "; commit '" + record.commit_id + "' was not published: " + last.message(),
                  name);
  }
  return Status(Code::kPublicationInDoubt,
                "the outcome of publishing commit '" + record.commit_id +
                    "' is unknown after every re-drive: " + last.message(),
                name);
}

Status Stream::CheckPlaced(const Record& record) {
  const uint64_t above = record.seq + 1;
  for (int attempt = 0; attempt <= kRedrivesMax; ++attempt) {
    if (attempt > 0) runtime_.clock->SleepMicros(kBackoffBaseMicros << std::min(attempt, 6));
    Result<bool> exists = RecordExists(above);
    if (exists.ok() && !*exists) return Status::Ok();  // The usual case: one HEAD.
    Result<std::optional<Record>> next =
        exists.ok() ? ProbeRecord(above) : Result<std::optional<Record>>(exists.status());
    if (next.ok() && !*next) continue;  // Seen, then gone: look again.
    if (next.ok() && (*next)->parent_commit_id == record.commit_id) return Status::Ok();
    if (next.ok()) {
      return Withdraw(record, "record " + std::to_string(above) + " exists and names parent '" +
                                  (*next)->parent_commit_id.value_or("") + "'");
    }
    const Kind kind = next.status().kind();
    // A record above that cannot be read was published on ours (a damaged record has one
    // damage, not two); our record stands.
    if (kind != Kind::kTransient && kind != Kind::kUnknown) return Status::Ok();
  }
  // The store kept failing: the record is published and nothing above it was seen to contradict
  // it (the residual window, docs/design/commit-record.md "Gaps").
  return Status::Ok();
}

Status Stream::Withdraw(const Record& record, const std::string& proof) {
  const std::string name = RecordName(key(), record.seq);
  const Status gap = GapStatus(record.seq, proof);
  Status last;
  for (int attempt = 0; attempt <= kRedrivesMax; ++attempt) {
    if (attempt > 0) runtime_.clock->SleepMicros(kBackoffBaseMicros << std::min(attempt, 6));
    Status deleted = runtime_.store->Delete(name);
    if (deleted.ok() || deleted.kind() == Kind::kNotFound) {
      return Status(Code::kCorruption,
                    gap.message() + ". This publish's commit '" + record.commit_id +
                        "' had been created in the gap and was withdrawn; nothing was published",
                    name);
    }
    last = deleted;
    if (deleted.kind() != Kind::kTransient && deleted.kind() != Kind::kUnknown) break;
  }
  return Status(Code::kCorruption,
                gap.message() + ". This publish's commit '" + record.commit_id +
                    "' was created in the gap and could not be withdrawn (" + last.message() +
                    "): delete that object, then restore the missing record",
                name);
}

Status CheckCaptured(const PublishPolicy& policy, const GraphState& base) {
  if (base.retired) return RetiredStatus(base.stream);
  if (policy.expected_head && *policy.expected_head != base.head_commit_id) {
    return Status(Code::kPreconditionFailed,
                  "expected head '" + *policy.expected_head + "' but the head is '" +
                      base.head_commit_id + "'",
                  RecordName(base.stream, base.seq));
  }
  return Status::Ok();
}

Status AfterLostRace(const PublishPolicy& policy, const GraphState& base, const GraphState& head,
                     int attempt) {
  if (head.retired) return RetiredStatus(head.stream);
  if (policy.expected_head) {
    return Status(Code::kPreconditionFailed,
                  "expected head '" + *policy.expected_head + "' but the head is '" +
                      head.head_commit_id + "'",
                  RecordName(head.stream, head.seq));
  }
  if (!policy.insert_only) {
    return Status(Code::kReadSetChanged,
                  "the branch moved to seq " + std::to_string(head.seq) + " ('" +
                      head.head_commit_id + "') while this write was prepared against seq " +
                      std::to_string(base.seq),
                  RecordName(base.stream, base.seq + 1));
  }
  if (attempt >= kPublishAttemptsMax) {
    return Status(Code::kRetriesExhausted,
                  "gave up after " + std::to_string(attempt) +
                      " attempts: other writers kept publishing first",
                  RecordName(head.stream, head.seq));
  }
  return Status::Ok();
}

void BackoffAfterLostRace(const storage::Runtime& runtime, int attempt) {
  const int64_t cap = std::min(kBackoffMaxMicros, kBackoffBaseMicros << std::min(attempt, 10));
  runtime.clock->SleepMicros(runtime.random->Range(0, cap));
}

Result<std::shared_ptr<const GraphState>> Stream::Captured() {
  std::lock_guard lock(mu_);
  if (!head_) {
    OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const GraphState> cold, ColdReadLocked({}));
    SetHeadLocked(std::move(cold));
  }
  return head_;
}

Result<Prepared> Stream::Prepare(const GraphState& base, const StageFn& stage) {
  // A record at N+2 while N+1 is free would make N+1 a gap: publishing there would fork the
  // stream (D21). One HEAD, concurrent with staging.
  Prepared prepared;
  TaskGroup lookahead(*runtime_.executor);
  lookahead.Add([this, &prepared, seq = base.seq + 2]() -> Status {
    OMNIGRAPH_ASSIGN_OR_RETURN(prepared.record_above, RecordExists(seq));
    return Status::Ok();
  });
  Result<RecordContent> content = stage(base);
  Status looked = lookahead.Wait();
  OMNIGRAPH_RETURN_IF_ERROR(content.status());
  OMNIGRAPH_RETURN_IF_ERROR(looked);
  if (TestingHooks().gap_is_end) prepared.record_above = false;  // Planted bug (test only).
  prepared.content = std::move(*content);
  return prepared;
}

Result<PublishAttempt> Stream::TryPublish(const std::shared_ptr<const GraphState>& base,
                                          const Prepared& prepared, const PublishRequest& request) {
  OMNIGRAPH_RETURN_IF_ERROR(ValidateActor(request.actor));
  {
    // Another publisher on this handle already took base.seq + 1: no need to ask the store.
    std::lock_guard lock(mu_);
    if (head_ && head_->seq > base->seq) return PublishAttempt{std::nullopt, head_};
  }
  if (!prepared.record_above) {
    CommitId id = CommitId::Mint(key(), base->seq + 1, *runtime_.random);
    Record record = BuildRecord(*base, prepared.content, id, request, runtime_.clock->NowMicros());
    GraphState next = *base;
    OMNIGRAPH_RETURN_IF_ERROR(next.Apply(record, RecordName(key(), record.seq)));
    // The conditional create is the publication door; its re-drives sleep without the lock.
    OMNIGRAPH_ASSIGN_OR_RETURN(std::string bytes, EncodeRecord(record));
    OMNIGRAPH_ASSIGN_OR_RETURN(bool ours, CreateRecord(record, std::move(bytes)));
    if (ours) {
      // The guard looked before the create; what was published meanwhile is seen only after it:
      // a record above that names another parent makes ours a record in a gap (D21).
      OMNIGRAPH_RETURN_IF_ERROR(CheckPlaced(record));
      auto state = std::make_shared<const GraphState>(std::move(next));
      {
        std::lock_guard lock(mu_);
        if (!head_ || head_->seq < state->seq) SetHeadLocked(state);
      }
      AfterPublish(state);
      return PublishAttempt{PublishResult{record.commit_id, record.seq, 0, state, record}, state};
    }
  }
  // Another writer won base.seq + 1, or base.seq + 2 exists: refresh from what this handle
  // knows. When the refresh cannot pass base.seq, record base.seq + 1 is a gap below a record
  // that exists.
  std::lock_guard lock(mu_);
  if (!head_ || head_->seq < base->seq) SetHeadLocked(base);
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const GraphState> refreshed, WarmReadLocked());
  SetHeadLocked(std::move(refreshed));
  if (prepared.record_above && head_->seq == base->seq) {
    return GapStatus(base->seq + 1, "record " + std::to_string(base->seq + 2) + " exists");
  }
  return PublishAttempt{std::nullopt, head_};
}

Result<PublishResult> Stream::Publish(const PublishRequest& request) {
  OMNIGRAPH_RETURN_IF_ERROR(ValidateActor(request.actor));  // Before anything is staged.
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const GraphState> base, Captured());
  PublishLoop loop;
  loop.policy = PublishPolicy{request.insert_only, request.expected_head};
  loop.meta.branch = request.branch;
  loop.meta.actor = request.actor;
  loop.stage = [&request](const GraphState& b) -> Result<std::optional<RecordContent>> {
    OMNIGRAPH_ASSIGN_OR_RETURN(RecordContent content, request.stage(b));
    return std::optional<RecordContent>(std::move(content));
  };
  OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<PublishResult> won,
                             RunPublishLoop(*this, std::move(base), loop));
  if (!won) return Status(Code::kInternal, "the publish loop stopped without an answer");
  return *std::move(won);
}

void Stream::AfterPublish(std::shared_ptr<const GraphState> state) {
  {
    std::lock_guard lock(background_mu_);
    background_queue_.push_back(std::move(state));
    if (background_running_) return;  // The running task takes it.
    background_running_ = true;
  }
  auto work = [this] {
    while (true) {
      std::vector<std::shared_ptr<const GraphState>> batch;
      {
        std::lock_guard lock(background_mu_);
        if (background_queue_.empty()) {
          // Notify under the lock: once the waiter sees the task finished it may destroy this
          // handle, so nothing of it may be touched after the lock is released.
          background_running_ = false;
          background_cv_.notify_all();
          return;
        }
        batch.swap(background_queue_);
      }
      // Checkpoints first, so a reader that sees the new hint finds them. Both best effort. A
      // retire record is not a commit: no checkpoint and no hint follow it (D12).
      bool retired = false;
      for (const std::shared_ptr<const GraphState>& acked : batch) {
        retired = retired || acked->retired;
        if (!acked->retired && acked->seq % options_.checkpoint_interval == 0) {
          // Best effort: a checkpoint is redundant with the records it folds.
          Result<std::string> bytes = EncodeCheckpoint(acked->ToCheckpoint());
          if (bytes.ok()) {
            runtime_.store->PutIfAbsent(CheckpointName(key(), acked->seq), *std::move(bytes))
                .status()
                .IgnoreError();
          }
        }
      }
      if (!retired) {
        // The hint names the schema of its seq too, for a cold reader to read beside the records.
        const Hint hint{batch.back()->seq, batch.back()->schema, Json::object()};
        runtime_.store->Put(HintName(key()), EncodeHint(hint)).IgnoreError();
      }
    }
  };
  runtime_.executor->Submit(std::move(work));
}

void Stream::WaitForBackground() {
  std::unique_lock lock(background_mu_);
  background_cv_.wait(lock, [this] { return !background_running_; });
}

Result<Record> CreateMainStream(const storage::Runtime& runtime, RecordContent genesis,
                                std::optional<std::string> actor) {
  OMNIGRAPH_RETURN_IF_ERROR(ValidateActor(actor));
  const int64_t now = runtime.clock->NowMicros();
  StreamMetadata metadata;
  metadata.key = std::string(kMainKey);
  metadata.branch = "main";
  metadata.native_name = "main";
  metadata.creator = actor;
  metadata.created_at = now;
  const std::string metadata_name = StreamMetadataName(kMainKey);
  OMNIGRAPH_RETURN_IF_ERROR(
      runtime.store->PutIfAbsent(metadata_name, EncodeStreamMetadata(metadata)).status());

  Record record;
  record.kind = RecordKind::kCommit;
  record.seq = 0;
  record.commit_id = CommitId::Mint(kMainKey, 0, *runtime.random).ToString();
  record.generation = 0;
  record.stream = std::string(kMainKey);
  record.branch = "main";
  record.actor = std::move(actor);
  record.created_at = now;
  record.schema = genesis.schema.value_or(SchemaRef{});
  record.pins = std::move(genesis.pins);
  record.registrations = std::move(genesis.registrations);
  record.extra = std::move(genesis.extra);
  const std::string record_name = RecordName(kMainKey, 0);
  OMNIGRAPH_ASSIGN_OR_RETURN(std::string record_bytes, EncodeRecord(record));
  OMNIGRAPH_ASSIGN_OR_RETURN(bool created,
                             runtime.store->PutIfAbsent(record_name, std::move(record_bytes)));
  if (!created) {
    // An earlier, interrupted genesis published first: complete from its record.
    OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<BoundedRead> read,
                               ReadBounded(*runtime.store, record_name, kRecordBytesMax));
    if (!read) return Status(Code::kUnknown, "genesis record vanished", record_name);
    OMNIGRAPH_ASSIGN_OR_RETURN(record, DecodeRecord(read->data, record_name));
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(GraphState state, GraphState::Genesis(record, record_name));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::string checkpoint_bytes, EncodeCheckpoint(state.ToCheckpoint()));
  OMNIGRAPH_RETURN_IF_ERROR(
      runtime.store->PutIfAbsent(CheckpointName(kMainKey, 0), std::move(checkpoint_bytes))
          .status());
  OMNIGRAPH_RETURN_IF_ERROR(
      runtime.store
          ->PutIfAbsent(HintName(kMainKey), EncodeHint(Hint{0, std::nullopt, Json::object()}))
          .status());
  return record;
}

}  // namespace omnigraph::commit
