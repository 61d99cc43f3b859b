// Stream: a handle on one branch life's record stream — reading its state (cold, warm, at a past
// seq) and publishing records to it (docs/design/commit-record.md).
//
// Reading: a cold read costs one hint read, the probes, one HEAD past the absent probe (the
// lookahead), one checkpoint read and the records after the checkpoint; a warm read (the handle
// holds the fold at N) is one GET of N+1 when nothing changed. Publishing: one HEAD of N+2 during
// staging, then one conditional create of record N+1 from the handle's fold at N; "exists" is
// resolved by reading the record back and comparing commit ids; an Unknown outcome is re-driven,
// never assumed to have had no effect. After acknowledging, the checkpoint (on interval
// boundaries) and then the hint are written off the caller's path. A record missing below a seq
// that is proven to exist (a gap) is kCorruption naming it, for reads and publishes alike (D21).
// A handle is bound to one stream key. Thread-safe: reads on one handle are serialized; publishing
// holds the handle's lock only to capture and to install a new head, so publishers sharing a handle
// meet at the conditional create like publishers in different processes.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/executor.h"
#include "commit/documents.h"
#include "commit/fold.h"
#include "commit/names.h"
#include "storage/uri.h"

namespace omnigraph::commit {

// Attempts of an insert-only publish before RetriesExhausted (§5 step 3).
inline constexpr int kPublishAttemptsMax = 32;
// Identical re-drives of a conditional create whose outcome was Unknown (§5 step 4, D3).
inline constexpr int kRedrivesMax = 6;
// Backoff between re-prepare attempts: uniform in [0, min(base * 2^attempt, max)].
inline constexpr int64_t kBackoffBaseMicros = 1000;
inline constexpr int64_t kBackoffMaxMicros = 100'000;

struct StreamOptions {
  uint64_t checkpoint_interval = kDefaultCheckpointInterval;
  // A writable handle backfills checkpoints it had to fall back past (D11).
  bool writable = true;
};

// What a commit changes; the publisher fills in seq, ids, parent, generation and times.
struct RecordContent {
  RecordKind kind = RecordKind::kCommit;
  // Unset: the schema of the state it was staged against.
  std::optional<SchemaRef> schema;
  std::vector<TablePin> pins;
  std::vector<Registration> registrations;
  std::vector<Tombstone> tombstones;
  std::vector<Rename> renames;
  std::optional<Lineage> lineage;
  // For merges: the other parent's generation (D7).
  uint64_t merged_generation = 0;
  // What the commit changed (commit/change_set.h) and what it did, in a line; both optional.
  std::optional<ChangeSet> change_set;
  std::optional<std::string> summary;
  // The write's idempotency key member (engine/write/idempotency.h), and a group commit's members.
  Json idempotency_key = nullptr;
  std::vector<BatchMember> members;
  Json extra = Json::object();
};

// Where a staging step stages against (D9): the captured state at (stream, seq).
using StageFn = std::function<Result<RecordContent>(const GraphState& base)>;

struct PublishRequest {
  StageFn stage;
  // Insert-only work re-prepares on a lost race; strict work gets ReadSetChanged at once.
  bool insert_only = true;
  // When set, the head must be this commit or the publish fails with PreconditionFailed.
  std::optional<std::string> expected_head;
  std::optional<std::string> branch;
  std::optional<std::string> actor;
};

// What a lost race means for a write (§5 step 3): insert-only work re-prepares, strict work and
// expected-head work get a typed conflict at once.
struct PublishPolicy {
  bool insert_only = true;
  std::optional<std::string> expected_head;
};

struct PublishResult {
  std::string commit_id;
  uint64_t seq = 0;
  // 1 when the first attempt won.
  int attempts = 0;
  std::shared_ptr<const GraphState> state;
  // The record that was published (for callers that report the commit object).
  Record record;
};

// What a publish prepared against a captured head: the record's content, and the gap guard's
// answer (D21): whether a record already exists two seqs up, which makes the next seq a gap.
struct Prepared {
  RecordContent content;
  bool record_above = false;
};

// One conditional create from a captured head: `won` when the record landed, else `head` is the
// state the handle refreshed to (another writer's record took the seq).
struct PublishAttempt {
  std::optional<PublishResult> won;
  std::shared_ptr<const GraphState> head;
};

// The hint of stream `key` (one bounded GET); nullopt when it is absent, oversized or unparsable
// (a hint is only ever "start probing here"). Storage errors as the store reports them.
Result<std::optional<Hint>> ReadHint(storage::ObjectStore& store, std::string_view key);
// Its seq alone.
Result<std::optional<uint64_t>> ReadHintSeq(storage::ObjectStore& store, std::string_view key);

// What a cold read hands its caller early (Stream::ReadHead), so that the reads that depend on
// the head go out beside the stream's own reads instead of a request round after them
// (docs/design/commit-record.md "Reading current state"). Guesses only: each is called from
// another thread while the read goes on, its errors are the caller's to ignore, and the head
// the read returns is the one it read, whatever the callbacks were given.
struct ReadAhead {
  // The schema the hint names, beside the reads of the records up to the hint.
  std::function<void(const SchemaRef&)> schema;
  // The state at the hint's seq, beside the probe for newer records: the head, unless the hint
  // is stale.
  std::function<void(const GraphState&)> state;
};

// One candidate checkpoint's read, made ahead of the fold that needs it.
struct PrefetchedCheckpoint {
  uint64_t seq = 0;
  std::optional<Result<std::optional<Checkpoint>>> read;
};

class Stream {
 public:
  // Reads the stream metadata (one GET). NotFound (kBranchNotFound) when absent.
  static Result<std::unique_ptr<Stream>> Open(const storage::Runtime& runtime, std::string_view key,
                                              StreamOptions options = {});
  // A handle over metadata the caller already holds (no reads). `hint`, when given, is what
  // ReadHint answered for this stream (read beside the metadata): the first cold read starts
  // from it instead of reading the hint again.
  static std::unique_ptr<Stream> FromMetadata(
      const storage::Runtime& runtime, StreamMetadata metadata, StreamOptions options = {},
      std::optional<std::optional<Hint>> hint = std::nullopt);
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  const StreamMetadata& metadata() const { return metadata_; }
  const std::string& key() const { return metadata_.key; }
  const storage::Runtime& runtime() const { return runtime_; }

  // The current state: cold on the first call, warm afterwards. BranchNotFound on a retired
  // stream; kCorruption when the stream is inconsistent. A cold read calls `ahead`'s callbacks
  // (above) with what the head most likely is, so that the caller reads what it needs from it
  // in the same request rounds as the stream's own reads; a warm read calls neither.
  Result<std::shared_ptr<const GraphState>> ReadHead(const ReadAhead& ahead = {});
  // Like ReadHead, but a retired stream reads as its final state (retention, repair).
  Result<std::shared_ptr<const GraphState>> ReadLatest(const ReadAhead& ahead = {});
  // The state at a past seq (time travel). CommitNotFound when the seq is beyond the stream's end
  // or below its fork point; kCorruption naming the missing record when a record the fold needs
  // is missing below a seq that is proven to exist (a gap, D21).
  Result<GraphState> ReadAt(uint64_t seq);
  // The record at seq (one read). NotFound when absent.
  Result<Record> ReadRecord(uint64_t seq);

  // The state a write captures: the handle's fold (a cold read on first use, no reads after).
  // It may lag the store; publishing from it finds out. A retired stream's final state is
  // returned as it is (CheckCaptured refuses it).
  Result<std::shared_ptr<const GraphState>> Captured();
  // Runs `stage` against `base` while one HEAD asks whether record base.seq + 2 exists (the gap
  // guard, D21), holding no lock. Errors of either.
  Result<Prepared> Prepare(const GraphState& base, const StageFn& stage);
  // One attempt at publishing prepared.content as record base.seq + 1 (§5 steps 3-4): one
  // conditional create, re-driven while its outcome is Unknown, holding no lock meanwhile. Lost
  // (or a record above, so nothing is created): the handle refreshes (warm reads from base) and
  // returns the new head; when it cannot pass base.seq, base.seq + 1 is a gap and the result is
  // Corruption naming it. PublicationInDoubt, Transient and storage errors as CreateRecord
  // reports them; nothing is retried here.
  Result<PublishAttempt> TryPublish(const std::shared_ptr<const GraphState>& base,
                                    const Prepared& prepared, const PublishRequest& request);
  // Publishes one record built by request.stage through the publish loop (commit/publish_loop.h):
  // capture, stage, TryPublish, and on a lost race AfterLostRace's verdict and a backoff, then
  // again from the refreshed head. Staging and backoff hold no lock, so reads and other writes on
  // the handle are not held up.
  Result<PublishResult> Publish(const PublishRequest& request);
  // Waits until checkpoint and hint writes queued by earlier publishes have finished.
  void WaitForBackground();

 private:
  Stream(const storage::Runtime& runtime, StreamMetadata metadata, StreamOptions options);

  Result<std::shared_ptr<const GraphState>> ColdReadLocked(const ReadAhead& ahead);
  // The hint read beside the metadata when there is one (used once), else one read of it.
  Result<std::optional<Hint>> TakeHintLocked();
  // The cold read's probe above `latest` (advanced past every record found, which go to
  // `found`): a GET of latest + 1 with the lookahead HEAD of latest + 2 and `beside` (when set)
  // alongside it. The lookahead's answer when latest + 1 was absent; nullopt when records were
  // found and the walk went on to an absent one, whose lookahead is the caller's to make.
  Result<std::optional<bool>> ProbeAbove(uint64_t& latest, std::map<uint64_t, Record>& found,
                                         std::function<void()> beside);
  // The cold read's records from the checkpoint boundary below the hint's seq `start` up to it
  // (into `found`), then the wait for `checkpoint_read` (the checkpoint, and the caller's schema
  // read ahead). With `fold`: the fold of them, nullopt when it fails (the fold after the probe
  // reports why).
  Result<std::optional<GraphState>> ReadToHint(uint64_t start, TaskGroup& checkpoint_read,
                                               const PrefetchedCheckpoint& checkpoint,
                                               std::map<uint64_t, Record>& found, bool fold);
  // TestingHooks::gap_is_end: after a fold that met an absent record, re-probes from the base
  // and folds the prefix before the gap (the planted bug the simulator must catch).
  Result<GraphState> PlantedGapIsEnd(std::map<uint64_t, Record>& found, uint64_t& latest,
                                     uint64_t& missing, Result<GraphState> state);
  Result<std::shared_ptr<const GraphState>> WarmReadLocked();
  // Folds from the best valid checkpoint at or below `latest` through `latest`, using (and
  // adding to) `found`. Writes back checkpoints it fell back past when writable. NotFound, with
  // `missing` set to the first absent seq, when a record after the checkpoint is absent.
  // `prefetched`, when set, is the read of one candidate checkpoint made earlier (the cold read
  // issues it beside the records); it is used for that candidate and cleared.
  Result<GraphState> FoldTo(uint64_t latest, std::map<uint64_t, Record>& found, bool backfill,
                            uint64_t& missing, PrefetchedCheckpoint* prefetched = nullptr);
  // Sets head_ and raises seen_.
  void SetHeadLocked(std::shared_ptr<const GraphState> state);
  // kCorruption naming record `missing`: a gap, proven by `proof` (D21).
  Status GapStatus(uint64_t missing, const std::string& proof) const;
  // "record N exists" for the highest record in `found` above `missing`, else empty.
  std::string FoundAbove(uint64_t missing, const std::map<uint64_t, Record>& found) const;
  // After a fold met an absent record at `missing`: what proves a seq at or above it was
  // published (a record found above it, this handle's head, the hint, the next record, the next
  // checkpoint), or empty when nothing does and `missing` is the end of the stream.
  Result<std::string> ProofOfSeq(uint64_t missing, const std::map<uint64_t, Record>& found);
  // ReadHint (above) of this stream.
  Result<std::optional<Hint>> ReadHint();
  // One HEAD: whether an object is stored under the record name of `seq`.
  Result<bool> RecordExists(uint64_t seq);
  // Reads records [from, to] not already in `found`, concurrently. Missing ones are left out.
  Status ReadRecords(uint64_t from, uint64_t to, std::map<uint64_t, Record>& found);
  // nullopt when absent.
  Result<std::optional<Record>> ProbeRecord(uint64_t seq);
  Result<std::optional<Checkpoint>> ReadCheckpoint(uint64_t seq);
  // Candidate checkpoint seqs at or below `seq`, newest first, ending with the base.
  std::vector<uint64_t> CheckpointCandidates(uint64_t seq) const;

  // One conditional create of `record`, re-driven on Unknown; true = ours landed. A seq found
  // taken and then empty or unreadable is a gap (Corruption naming it), or PublicationInDoubt
  // when an earlier request of this create had an Unknown outcome (the record may have been ours).
  // PublicationInDoubt exactly when some create of it returned Unknown: a read back that failed
  // does not put it in doubt (the record there is not ours), it ends as Transient.
  // In doubt, it first waits until no request of it can still land (SettleInDoubt).
  Result<bool> CreateRecord(const Record& record, const std::string& encoded);
  // CreateRecord's attempts; `unknown_at` is set to the clock reading after the last create
  // that answered Unknown (untouched when none did).
  Result<bool> CreateRecordAttempts(const Record& record, const std::string& encoded,
                                    int64_t& unknown_at);
  // A create in doubt (`doubt`) had a request answered Unknown at `unknown_at`, which the store
  // may still land until its UnknownOutcomeWindowMicros has passed — into the gap the doubt may
  // be about. The window is waited out and the record read once more: ours there means the
  // request landed, true (the caller's placement check then withdraws it from a gap); anything
  // else and the doubt stands. A store whose window is 0 is not read again.
  Result<bool> SettleInDoubt(const Record& record, int64_t unknown_at, const Status& doubt);
  // After `record` landed: one HEAD of the seq above it. A record there whose parent is not ours
  // was published on a record that damage removed since the gap guard looked, so ours sits in a
  // gap: it is withdrawn (Withdraw). Ok otherwise (also when the store keeps failing).
  Status CheckPlaced(const Record& record);
  // Deletes our record from the gap that `proof` shows and returns Corruption naming it.
  Status Withdraw(const Record& record, const std::string& proof);
  void AfterPublish(std::shared_ptr<const GraphState> state);

  storage::Runtime runtime_;
  StreamMetadata metadata_;
  StreamOptions options_;
  std::mutex mu_;
  // The hint read beside the metadata, for the first cold read (guarded by mu_).
  std::optional<std::optional<Hint>> prefetched_hint_;
  std::shared_ptr<const GraphState> head_;
  // 1 + the highest seq head_ has held (0: none yet); read without mu_ by ReadAt.
  std::atomic<uint64_t> seen_{0};

  // Checkpoint and hint writes after publishing. At most one background task runs per handle: it
  // takes every acknowledged state queued so far, writes the checkpoints due among them in seq
  // order, then one hint for the newest. So a hint that a newer publish superseded before it was
  // written is skipped, and publishing faster than the store writes hints costs no extra task
  // hand-offs or hint writes (decision 16).
  std::mutex background_mu_;
  std::condition_variable background_cv_;
  std::vector<std::shared_ptr<const GraphState>> background_queue_;
  bool background_running_ = false;
};

// BranchNotFound for a stream closed by a retire record.
Status RetiredStatus(std::string_view key);

// The captured head is usable for a write: not retired (BranchNotFound), and the expected head
// when one is given (PreconditionFailed).
Status CheckCaptured(const PublishPolicy& policy, const GraphState& base);
// After another writer took base.seq + 1 and the head is now `head`: Ok to re-prepare, or the
// typed conflict — BranchNotFound (retired), PreconditionFailed (expected head),
// ReadSetChanged (strict work), RetriesExhausted (after kPublishAttemptsMax attempts).
Status AfterLostRace(const PublishPolicy& policy, const GraphState& base, const GraphState& head,
                     int attempt);
// Sleeps a jittered backoff before attempt + 1: uniform in [0, min(base * 2^attempt, max)].
void BackoffAfterLostRace(const storage::Runtime& runtime, int attempt);

// Looks a commit up by id: one read of the record its id names. CommitNotFound when absent or
// when the record there carries another id.
Result<Record> LookupCommit(storage::ObjectStore& store, std::string_view commit_id);

// Writes the main stream's metadata, genesis record (seq 0), checkpoint 0 and hint, each created
// only if absent (so an interrupted genesis can be completed). `genesis` supplies the body; its
// seq, stream, ids and parent are set here. Returns the genesis record as stored.
Result<Record> CreateMainStream(const storage::Runtime& runtime, RecordContent genesis,
                                std::optional<std::string> actor);

}  // namespace omnigraph::commit
