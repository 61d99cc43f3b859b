// The write path as one straight line (engine/write/write.h; docs/design/engine.md "The write
// path").
#include "engine/write/write.h"

#include <algorithm>

#include "base/executor.h"
#include "commit/change_set.h"
#include "commit/publish_loop.h"
#include "engine/graph/graph.h"
#include "engine/write/change_sets.h"
#include "engine/write/validate.h"
#include "engine/write/write_internal.h"
#include "engine/write/write_keyed.h"
#include "table/derived.h"

namespace omnigraph::engine {

namespace {

// KeyConflict when an in-memory append adds an id its table holds on `base` (staging would
// refuse it too, but only after other tables of the write were staged).
Status CheckAppends(Graph& graph, const commit::GraphState& base, const WriteRequest& request);

}  // namespace

// Appends and upserts commute with other writers' commits, so a lost race re-prepares them.
bool InsertOnly(const WriteRequest& request) {
  if (request.strict) return false;
  for (const auto& [key, change] : request.changes) {
    if (change.op != TableChange::Op::kAppend && change.op != TableChange::Op::kUpsert) {
      return false;
    }
  }
  return true;
}

WriteResult ReplayedWrite(commit::Record record, const Idempotency& idempotency) {
  WriteResult out;
  out.commit_id = record.commit_id;
  out.seq = record.seq;
  out.replayed = true;
  if (const Json* member = RecordKeyMember(record, idempotency.key)) {
    out.outcome = member->value("outcome", Json::object());
  }
  out.record = std::move(record);
  return out;
}

Result<WriteResult> AnsweredByKey(std::optional<KeyFence>& fence, const WriteRequest& request,
                                  const Status& failed) {
  if (!fence) return failed;
  Result<std::optional<commit::Record>> done = fence->Published();
  if (!done.ok() || !*done) return failed;
  return ReplayedWrite(std::move(**done), *request.idempotency);
}

Result<std::optional<WriteResult>> Replay(Graph& graph, std::string_view branch,
                                          const Idempotency& idempotency) {
  OMNIGRAPH_RETURN_IF_ERROR(ValidateIdempotencyKey(idempotency.key));
  bool warm = false;
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<commit::Stream> stream, graph.StreamOf(branch, warm));
  KeyFence fence(*graph.runtime().store, stream->key(), idempotency);
  OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<commit::Record> record, fence.Published());
  if (!record) return std::optional<WriteResult>();
  return std::optional<WriteResult>(ReplayedWrite(std::move(*record), idempotency));
}

Result<WriteResult> Write(Graph& graph, const WriteRequest& request) {
  if (request.changes.empty() && !request.publish_empty) {
    return InvalidArgument("a write needs at least one table change");
  }
  if (request.planned_on) {
    if (request.planned_on->stream() == nullptr) {
      return InvalidArgument("a write can be planned only on a branch head, not on a past commit");
    }
    return Commit(graph, request, *request.planned_on);
  }
  // 1. Capture: the branch head as the warm handle knows it (no reads when warm).
  bool warm = false;
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<commit::Stream> stream,
                             graph.StreamOf(request.branch, warm));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const commit::GraphState> head, stream->Captured());
  OMNIGRAPH_ASSIGN_OR_RETURN(Snapshot captured, graph.SnapshotOfState(std::move(head), stream));
  Result<WriteResult> written = Commit(graph, request, std::move(captured));
  if (written.ok() || written.status().code() != Code::kBranchNotFound) return written;
  // The handle's life of the branch was deleted; nothing was published (a retired stream takes
  // no record). Drop the handle, and when it was a warm one, try once more against the life the
  // name resolves to now (the branch may have been created again).
  graph.DropStream(request.branch);
  if (!warm) return written;
  OMNIGRAPH_ASSIGN_OR_RETURN(stream, graph.StreamOf(request.branch, warm));
  OMNIGRAPH_ASSIGN_OR_RETURN(head, stream->Captured());
  OMNIGRAPH_ASSIGN_OR_RETURN(captured, graph.SnapshotOfState(std::move(head), stream));
  return Commit(graph, request, std::move(captured));
}

Result<WriteResult> WriteFrom(Graph& graph, const WriteRequest& request, Snapshot captured) {
  // Text that would go into the record is checked before anything is staged.
  OMNIGRAPH_RETURN_IF_ERROR(commit::ValidateActor(request.actor));
  std::optional<KeyFence> fence;
  if (request.idempotency) {
    OMNIGRAPH_RETURN_IF_ERROR(ValidateIdempotencyKey(request.idempotency->key));
    fence.emplace(*graph.runtime().store, captured.stream()->key(), *request.idempotency);
  }
  // What this attempt stages is deleted again whenever it is certain that no record will name
  // it (DeleteStaged); a publication in doubt keeps it (it may still land).
  table::StagedObjects objects;
  std::optional<WriteResult> answered;  // A replay: the key's record answers.
  commit::PublishLoop loop;
  loop.policy = commit::PublishPolicy{InsertOnly(request), request.expected_head};
  loop.meta.branch = request.branch;
  loop.meta.actor = request.actor;
  // 2. Plan: the captured head is the expected one, and the rows still fit its schema.
  loop.check = [&](const std::shared_ptr<const commit::GraphState>& base) -> Result<bool> {
    OMNIGRAPH_RETURN_IF_ERROR(commit::CheckCaptured(loop.policy, *base));
    if (request.planned_schema && base->schema != *request.planned_schema) {
      OMNIGRAPH_RETURN_IF_ERROR(CheckPlannedTables(graph, *base, request));
    }
    return true;
  };
  // 3-4. Validate and stage against (stream, seq) of the captured head.
  loop.stage = [&](const commit::GraphState& b) -> Result<std::optional<commit::RecordContent>> {
    OMNIGRAPH_ASSIGN_OR_RETURN(commit::RecordContent content,
                               ValidateAndStage(graph, b, request, &objects));
    return std::optional<commit::RecordContent>(std::move(content));
  };
  loop.refused = [&](const Status& failed) -> Status {
    DeleteStaged(graph, objects);
    OMNIGRAPH_ASSIGN_OR_RETURN(answered, AnsweredByKey(fence, request, failed));
    return Status::Ok();
  };
  // 5. Publish: one conditional create of seq + 1, which a key must be fenced to first.
  loop.gate = [&](const commit::GraphState& base,
                  commit::RecordContent& content) -> Result<commit::Gate> {
    Result<FenceVerdict> claimed = fence ? fence->Claim(base.seq + 1) : FenceVerdict::kPublish;
    if (!claimed.ok() || *claimed != FenceVerdict::kPublish) DeleteStaged(graph, objects);
    OMNIGRAPH_ASSIGN_OR_RETURN(FenceVerdict verdict, std::move(claimed));
    if (verdict == FenceVerdict::kReplay) {
      answered = ReplayedWrite(fence->replayed(), *request.idempotency);
      return commit::Gate::kAnswered;
    }
    // Fenced past this head by a retry of the same write: catch up first.
    if (verdict != FenceVerdict::kPublish) return commit::Gate::kCatchUp;
    if (fence) content.idempotency_key = IdempotencyMember(*request.idempotency);
    return commit::Gate::kPublish;
  };
  loop.lost = [&](const commit::GraphState& base, const commit::GraphState& head,
                  int attempt) -> Result<bool> {
    // Another record holds seq + 1, so this attempt's record can never be published.
    DeleteStaged(graph, objects);
    // A retry of this very write may have taken the seq (a strict write would otherwise call it
    // a conflict): its record answers.
    if (fence) {
      OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<commit::Record> done, fence->Published());
      if (done) {
        answered = ReplayedWrite(std::move(*done), *request.idempotency);
        return false;
      }
    }
    OMNIGRAPH_RETURN_IF_ERROR(commit::AfterLostRace(loop.policy, base, head, attempt));
    commit::BackoffAfterLostRace(graph.runtime(), attempt);
    return true;
  };
  OMNIGRAPH_ASSIGN_OR_RETURN(
      std::optional<commit::PublishResult> won,
      commit::RunPublishLoop(*captured.stream(), captured.shared_state(), loop));
  if (won) return WriteResult{won->commit_id, won->seq, won->attempts, won->record};
  if (!answered) {
    return Status(Code::kInternal, "the write's publish loop stopped without an answer");
  }
  return *std::move(answered);
}

Status CheckPlannedTables(Graph& graph, const commit::GraphState& base,
                          const WriteRequest& request) {
  auto changed = [&](const std::string& key, const std::string& what) {
    return Status(Code::kReadSetChanged,
                  "the schema changed after this write was planned: " + what +
                      "; read the branch again and redo the write (table '" + key + "')",
                  request.branch);
  };
  for (const auto& [key, change] : request.changes) {
    const commit::TableState* t = base.FindByKey(key);
    if (t == nullptr) return changed(key, "the table is gone");
    if (change.op == TableChange::Op::kDelete) continue;
    OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::TableVersion> version,
                               graph.tables().Open(t->pin));
    if (change.pending && change.pending->table != version->table()) {
      return changed(key, "the table was dropped and created again");
    }
    const table::Schema& planned = change.pending ? change.pending->schema : change.rows.schema();
    if (planned != version->schema())
      return changed(key, "its columns are not those the rows have");
  }
  return Status::Ok();
}

void DeleteStaged(Graph& graph, table::StagedObjects& staged) {
  for (const std::string& name : staged.Take()) graph.runtime().store->Delete(name).IgnoreError();
}

bool NothingPublished(const Status& status) {
  switch (status.code()) {
    case Code::kInvalidArgument:
    case Code::kKeyConflict:
    case Code::kReadSetChanged:
    case Code::kPreconditionFailed:
    case Code::kResourceLimit:
    case Code::kBranchNotFound:
    case Code::kIdempotencyConflict: return true;
    // Any other failure may have come after something was published (or says nothing about
    // it), so staged objects are kept. Every code is named (no default): a new one is decided.
    case Code::kOk:
    case Code::kNotFound:
    case Code::kAlreadyExists:
    case Code::kPrecondition:
    case Code::kTransient:
    case Code::kUnknown:
    case Code::kConfiguration:
    case Code::kPermanent:
    case Code::kCorruption:
    case Code::kFormatTooNew:
    case Code::kTooLarge:
    case Code::kUnsupported:
    case Code::kInternal:
    case Code::kCancelled:
    case Code::kRetriesExhausted:
    case Code::kPublicationInDoubt:
    case Code::kBranchExists:
    case Code::kCommitNotFound:
    case Code::kAlreadyInitialized:
    case Code::kInitializationIncomplete:
    case Code::kMergeConflicts:
    case Code::kUnknownStamp:
    case Code::kVersionsReclaimed:
    case Code::kParentlessCommit:
    case Code::kSchemaBoundary:
    case Code::kChangeCursorRejected:
    case Code::kChangeFeedGap: return false;
  }
  return false;  // Not an enumerator (a number cast to Code).
}

Status CheckWrite(Graph& graph, const Snapshot& at, const WriteRequest& request) {
  if (at.stream() == nullptr) return InvalidArgument("a write is checked only on a branch head");
  OMNIGRAPH_RETURN_IF_ERROR(commit::ValidateActor(request.actor));
  OMNIGRAPH_RETURN_IF_ERROR(ValidateChanges(graph, at.state(), request));
  return CheckAppends(graph, at.state(), request);
}

namespace {

Status CheckAppends(Graph& graph, const commit::GraphState& base, const WriteRequest& request) {
  for (const auto& [key, change] : request.changes) {
    if (change.op != TableChange::Op::kAppend || change.pending) continue;
    const commit::TableState* t = base.FindByKey(key);
    if (t == nullptr) continue;  // Staging names the missing table.
    OMNIGRAPH_RETURN_IF_ERROR(graph.tables().CheckAppend(t->pin, change.rows));
  }
  return Status::Ok();
}

}  // namespace

Status ValidateChanges(Graph& graph, const commit::GraphState& base, const WriteRequest& request) {
  auto table_of = [&](std::string_view key) -> Result<const commit::TableState*> {
    const commit::TableState* t = base.FindByKey(key);
    if (t == nullptr) {
      return InvalidArgument("no table '" + std::string(key) + "' on branch " + request.branch);
    }
    return t;
  };
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const schema::Catalog> catalog,
                             graph.CatalogFor(base.schema));
  return ValidateWrite(
      *catalog, request.changes,
      [&](std::string_view key) -> Result<std::shared_ptr<const table::TableVersion>> {
        OMNIGRAPH_ASSIGN_OR_RETURN(const commit::TableState* t, table_of(key));
        return graph.tables().Open(t->pin);
      },
      request.row_label,
      // A streaming load's rows are read back one pre-written fragment at a time.
      [&](const TableChange& change,
          const std::function<Status(const table::ColumnBatch&)>& sink) -> Status {
        if (!change.pending) return sink(change.rows);
        return graph.tables().ScanPending(*change.pending, sink);
      },
      request.sort_bytes, nullptr, graph.runtime().executor.get());
}

Result<commit::RecordContent> ValidateAndStage(Graph& graph, const commit::GraphState& base,
                                               const WriteRequest& request,
                                               table::StagedObjects* staged_objects) {
  if (!request.prevalidated) OMNIGRAPH_RETURN_IF_ERROR(ValidateChanges(graph, base, request));
  // An append of an id the base holds is refused before any table is staged, so that one
  // table's conflict leaves no other table's objects behind.
  OMNIGRAPH_RETURN_IF_ERROR(CheckAppends(graph, base, request));
  auto table_of = [&](std::string_view key) -> Result<const commit::TableState*> {
    const commit::TableState* t = base.FindByKey(key);
    if (t == nullptr) {
      return InvalidArgument("no table '" + std::string(key) + "' on branch " + request.branch);
    }
    return t;
  };
  // Every touched table in parallel.
  const table::StagedAgainst against{base.stream, base.seq};
  std::vector<std::pair<const std::string*, const TableChange*>> work;
  for (const auto& [key, change] : request.changes) work.emplace_back(&key, &change);
  std::vector<TablePin> staged(work.size());
  // What each table's change did, from its base's id index (which staging builds anyway).
  commit::ChangeSet changes;
  changes.tables.resize(work.size());
  // Tables whose lists no change set could hold (then the record carries none).
  std::vector<char> omitted(work.size(), 0);
  TaskGroup group(*graph.runtime().executor);
  for (size_t i = 0; i < work.size(); ++i) {
    group.Add([&, i]() -> Status {
      OMNIGRAPH_ASSIGN_OR_RETURN(const commit::TableState* t, table_of(*work[i].first));
      OMNIGRAPH_ASSIGN_OR_RETURN(
          staged[i], graph.tables().StageWrite(t->pin, *work[i].second, against, staged_objects));
      if (request.rewrite) return Status::Ok();
      OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::TableVersion> base_version,
                                 graph.tables().Open(t->pin));
      bool lists_omitted = false;
      OMNIGRAPH_ASSIGN_OR_RETURN(changes.tables[i],
                                 TableChangeOf(*base_version, *work[i].second,
                                               commit::kChangeSetDeltaBytesMax, &lists_omitted));
      omitted[i] = lists_omitted ? 1 : 0;
      // Where the version's index deltas will most likely stack, for a cold reader to fetch the
      // whole chain with its top (a read hint in the pin, docs/format/commit-documents.md).
      const commit::TableChangeSet& c = changes.tables[i];
      table::SetChainHints(
          staged[i].extra,
          base_version->IndexChainsForWrite(c.inserted_count + c.updated_count + c.deleted_count));
      return Status::Ok();
    });
  }
  OMNIGRAPH_RETURN_IF_ERROR(group.Wait());
  if (request.rewrite) changes.tables.clear();  // No entity changed (WriteRequest::rewrite).
  commit::RecordContent content;
  for (const TablePin& p : staged) content.pins.push_back(p);
  std::sort(changes.tables.begin(), changes.tables.end(),
            [](const auto& a, const auto& b) { return a.identity() < b.identity(); });
  if (request.summary) content.summary = SummaryOf(*request.summary, changes);
  // Inline, or spilled to a delta object created now, before the record that names it; none when
  // a table's lists were too long to build (SpillChangeSet would refuse them too).
  if (std::find(omitted.begin(), omitted.end(), 1) == omitted.end()) {
    OMNIGRAPH_ASSIGN_OR_RETURN(
        content.change_set,
        commit::SpillChangeSet(*graph.runtime().store, base.stream, std::move(changes)));
  }
  content.members = request.members;
  return content;
}

}  // namespace omnigraph::engine
