// Group commit in the write path (engine/write/group_commit.h; docs/design/engine.md "Group
// commit"): a batch of concurrent writes on one branch handle admitted in order, staged once,
// published as one record.
#include "commit/names.h"
#include "commit/publish_loop.h"
#include "commit/testing_hooks.h"
#include "engine/graph/graph.h"
#include "engine/write/write_internal.h"
#include "engine/write/write_keyed.h"

namespace omnigraph::engine {

namespace {

struct Admitted {
  // Indexes into the batch, in order.
  std::vector<size_t> members;
  std::vector<std::optional<KeyFence>> fences;
  WriteRequest combined;
  // The planted bug group_commit_keeps_failed_member kept a failed member's rows in `combined`.
  bool kept_failed = false;
};

// One batch of the queue (engine/write/group_commit.h): a batch of one is WriteFrom; a larger one
// admits its members in order against the state including the earlier ones, stages every
// touched table once and publishes one record. Every member's answer, in order.
std::vector<Result<WriteResult>> PublishBatch(Graph& graph, std::span<BatchEntry* const> batch);

}  // namespace

Result<WriteResult> Commit(Graph& graph, const WriteRequest& request, Snapshot captured) {
  std::shared_ptr<CommitQueue> queue = graph.CommitQueueOf(captured.stream()->key());
  if (!queue) return WriteFrom(graph, request, std::move(captured));
  BatchEntry entry;
  entry.request = &request;
  entry.bytes = RequestBytes(request);
  entry.captured = std::move(captured);
  return queue->Submit(
      entry, [&graph](std::span<BatchEntry* const> batch) { return PublishBatch(graph, batch); });
}

namespace {

Status Rejected(const commit::GraphState& base, std::string why) {
  return Status(Code::kReadSetChanged,
                "the branch moved to seq " + std::to_string(base.seq) + " ('" +
                    base.head_commit_id + "') " + why,
                commit::RecordName(base.stream, base.seq + 1));
}

// Whether member `request`, captured at `captured`, may be validated against `base` after
// `earlier` members of its batch: its policy's checks, and a strict write only on the head it
// read with nobody before it.
Status AdmitOne(const commit::GraphState& base, const WriteRequest& request,
                const commit::GraphState& captured, size_t earlier) {
  OMNIGRAPH_RETURN_IF_ERROR(commit::ValidateActor(request.actor));
  OMNIGRAPH_RETURN_IF_ERROR(commit::CheckCaptured(
      commit::PublishPolicy{InsertOnly(request), request.expected_head}, base));
  if (InsertOnly(request)) return Status::Ok();
  if (captured.seq != base.seq) {
    return Rejected(base,
                    "while this write was prepared against seq " + std::to_string(captured.seq));
  }
  if (earlier > 0) {
    return Rejected(base, "and earlier writes of its group commit changed it before this write");
  }
  return Status::Ok();
}

// The planted bug group_commit_keeps_failed_member (test only; off, this does nothing): a
// member that failed validation keeps its rows in the batch.
void KeepFailedMember(const WriteRequest& r, std::map<std::string, TableChange>& combined,
                      bool& kept) {
  if (!commit::TestingHooks().group_commit_keeps_failed_member) return;
  Result<std::map<std::string, TableChange>> merged = MergeChanges(combined, r.changes);
  if (!merged.ok()) return;
  combined = std::move(*merged);
  kept = true;
}

// After a batch's record lost the race to `head`: each member's answer in `out` (its key's
// record, or AfterLostRace's conflict), or none. Whether any member goes again.
bool AfterBatchLostRace(std::span<BatchEntry* const> batch, const std::vector<size_t>& members,
                        std::vector<std::optional<KeyFence>>& fences,
                        const commit::GraphState& base, const commit::GraphState& head, int attempt,
                        std::vector<std::optional<Result<WriteResult>>>& out) {
  bool pending = false;
  for (size_t k = 0; k < members.size(); ++k) {
    const WriteRequest& r = *batch[members[k]]->request;
    std::optional<Result<WriteResult>>& answer = out[members[k]];
    if (fences[k]) {
      Result<std::optional<commit::Record>> done = fences[k]->Published();
      if (!done.ok() || *done) {
        answer = done.ok() ? Result<WriteResult>(ReplayedWrite(**done, *r.idempotency))
                           : Result<WriteResult>(done.status());
        continue;
      }
    }
    Status st = commit::AfterLostRace(commit::PublishPolicy{InsertOnly(r), r.expected_head}, base,
                                      head, attempt);
    if (!st.ok()) answer = st;
    pending = pending || !answer;
  }
  return pending;
}

// Members of `batch` that join the record at `base` (their answers in `out` otherwise).
Result<Admitted> AdmitMembers(Graph& graph, const commit::GraphState& base,
                              std::span<BatchEntry* const> batch,
                              std::vector<std::optional<Result<WriteResult>>>& out,
                              std::vector<size_t>& solo) {
  Admitted a;
  a.combined.branch = batch[0]->request->branch;
  for (size_t i = 0; i < batch.size(); ++i) {
    if (out[i]) continue;
    const WriteRequest& r = *batch[i]->request;
    Status s = AdmitOne(base, r, batch[i]->captured->state(), a.members.size());
    if (s.ok() && r.planned_schema && base.schema != *r.planned_schema) {
      s = CheckPlannedTables(graph, base, r);
    }
    // The first member is validated as it is (its errors name its own rows); a later one
    // together with the members before it, against whose rows it may validate (an edge to a
    // node an earlier member inserts).
    const bool admissible = s.ok();
    if (s.ok() && a.members.empty()) s = ValidateChanges(graph, base, r);
    using Changes = std::map<std::string, TableChange>;
    Result<Changes> merged =
        s.ok() ? MergeChanges(a.combined.changes, r.changes) : Result<Changes>(s);
    if (merged.ok() && !a.members.empty()) {
      WriteRequest together;
      together.branch = r.branch;
      together.changes = std::move(*merged);
      if (Status both = ValidateChanges(graph, base, together); !both.ok()) {
        // Its own error when it fails on its own too; otherwise the conflict with the others.
        Status alone = ValidateChanges(graph, base, r);
        merged = alone.ok()
                     ? Status(both.code(),
                              "with the earlier writes of its group commit: " + both.message(),
                              both.object())
                     : alone;
      } else {
        merged = std::move(together.changes);
      }
    }
    std::optional<KeyFence> fence;
    if (r.idempotency) fence.emplace(*graph.runtime().store, base.stream, *r.idempotency);
    if (!merged.ok()) {
      if (admissible) KeepFailedMember(r, a.combined.changes, a.kept_failed);
      out[i] = AnsweredByKey(fence, r, merged.status());
      continue;
    }
    if (r.idempotency) {
      Result<FenceVerdict> verdict = fence->Claim(base.seq + 1);
      if (!verdict.ok()) {
        out[i] = verdict.status();
        continue;
      }
      if (*verdict == FenceVerdict::kReplay) {
        out[i] = ReplayedWrite(fence->replayed(), *r.idempotency);
        continue;
      }
      // Fenced past this head: it publishes alone after the batch.
      if (*verdict == FenceVerdict::kStale) {
        solo.push_back(i);
        out[i] = Status(Code::kInternal, "deferred");
        continue;
      }
    }
    a.combined.changes = std::move(*merged);
    a.members.push_back(i);
    a.fences.push_back(std::move(fence));
  }
  return a;
}

// The combined request of a batch's admitted members (their rows are merged by AdmitMembers).
void FillCombined(std::span<BatchEntry* const> batch, Admitted& a) {
  WriteRequest& combined = a.combined;
  combined.prevalidated = true;
  combined.summary = "group commit of " + std::to_string(a.members.size()) + " writes";
  combined.members.clear();
  const std::optional<std::string>& actor = batch[a.members[0]]->request->actor;
  bool one_actor = true;
  for (size_t i : a.members) {
    const WriteRequest& r = *batch[i]->request;
    one_actor = one_actor && r.actor == actor;
    commit::BatchMember member;
    member.actor = r.actor;
    member.counts = r.counts;
    if (r.idempotency) member.idempotency_key = IdempotencyMember(*r.idempotency);
    combined.members.push_back(std::move(member));
  }
  if (one_actor) combined.actor = actor;
}

// The batch's publish loop from `captured` (commit/publish_loop.h): each attempt admits the
// members not yet answered, stages them as one write and publishes one record. Every member's
// answer in `out`, except those deferred to `solo` (fenced past the head: they write alone).
void PublishMembers(Graph& graph, const std::shared_ptr<commit::Stream>& stream,
                    std::shared_ptr<const commit::GraphState> captured,
                    std::span<BatchEntry* const> batch,
                    std::vector<std::optional<Result<WriteResult>>>& out,
                    std::vector<size_t>& solo) {
  Admitted a;
  table::StagedObjects objects;
  bool refused = false;                             // Staging refused the combined rows.
  std::shared_ptr<const commit::GraphState> alone;  // One member left: it writes alone from here.
  commit::PublishLoop loop;
  // Each attempt admits the members not yet answered against its head.
  loop.check = [&](const std::shared_ptr<const commit::GraphState>& base) -> Result<bool> {
    Result<Admitted> admitted = AdmitMembers(graph, *base, batch, out, solo);
    if (!admitted.ok() || admitted->members.empty()) return false;
    a = *std::move(admitted);
    // Alone after all: the ordinary write path from this head (its key, if any, is fenced here
    // already).
    if (a.members.size() == 1 && !a.kept_failed) {
      alone = base;
      return false;
    }
    FillCombined(batch, a);
    loop.meta.branch = a.combined.branch;
    loop.meta.actor = a.combined.actor;
    return true;
  };
  loop.stage = [&](const commit::GraphState& b) -> Result<std::optional<commit::RecordContent>> {
    OMNIGRAPH_ASSIGN_OR_RETURN(commit::RecordContent content,
                               ValidateAndStage(graph, b, a.combined, &objects));
    return std::optional<commit::RecordContent>(std::move(content));
  };
  // Staging refused the combined rows (an append of an id the branch holds, say) or the store
  // failed before anything was published: each member then publishes alone, and gets its own
  // answer.
  loop.refused = [&](const Status&) -> Status {
    DeleteStaged(graph, objects);
    refused = true;
    return Status::Ok();
  };
  // Another writer took the seq: strict members conflict, the others go again.
  loop.lost = [&](const commit::GraphState& base, const commit::GraphState& head,
                  int attempt) -> Result<bool> {
    DeleteStaged(graph, objects);  // No record can name it now.
    const bool pending = AfterBatchLostRace(batch, a.members, a.fences, base, head, attempt, out);
    commit::BackoffAfterLostRace(graph.runtime(), attempt);
    return pending;
  };
  Result<std::optional<commit::PublishResult>> won =
      commit::RunPublishLoop(*stream, std::move(captured), loop);
  if (alone) {
    const size_t i = a.members[0];
    Result<Snapshot> at = graph.SnapshotOfState(std::move(alone), stream);
    out[i] = at.ok() ? WriteFrom(graph, *batch[i]->request, *std::move(at)) : at.status();
    return;
  }
  if (refused) {
    for (size_t i : a.members) out[i] = WriteFrom(graph, *batch[i]->request, *batch[i]->captured);
    return;
  }
  for (size_t i : a.members) {
    if (out[i]) continue;
    // The record's publication failed or is in doubt (it may still land): that is every
    // member's answer, as it would be a lone write's. Publishing them again alone could put a
    // member in two records.
    if (!won.ok()) {
      out[i] = won.status();
    } else if (*won) {
      out[i] = WriteResult{(*won)->commit_id, (*won)->seq, (*won)->attempts, (*won)->record};
    }
  }
}

std::vector<Result<WriteResult>> PublishBatch(Graph& graph, std::span<BatchEntry* const> batch) {
  if (batch.size() == 1) return {WriteFrom(graph, *batch[0]->request, *batch[0]->captured)};
  std::vector<std::optional<Result<WriteResult>>> out(batch.size());
  std::vector<size_t> solo;
  const std::shared_ptr<commit::Stream> stream = batch[0]->captured->stream();
  Result<std::shared_ptr<const commit::GraphState>> captured = stream->Captured();
  if (captured.ok()) PublishMembers(graph, stream, *captured, batch, out, solo);
  for (size_t i : solo) out[i] = WriteFrom(graph, *batch[i]->request, *batch[i]->captured);
  std::vector<Result<WriteResult>> results;
  for (size_t i = 0; i < batch.size(); ++i) {
    if (out[i]) {
      results.push_back(*std::move(out[i]));
    } else {
      results.push_back(captured.ok() ? Status(Code::kInternal, "a batch member got no answer")
                                      : captured.status());
    }
  }
  return results;
}

}  // namespace

}  // namespace omnigraph::engine
