// group_commit and idempotency: many writers meeting in one Graph's commit queue, and keyed writes
// retried until they have a definite answer (docs/design/simulation.md "Group commit and retried
// writes").
//
// The writers share one server Graph (SimModel::server), whose commit queue batches the writes
// that arrive while a publication is in flight; a member waiting for its leader yields its turn
// (base/yield.h), so the scheduler still runs one actor at a time. Each writer reads
// through a Graph of its own and plans every write on that read (WriteRequest::planned_on): two
// actors never use one stream handle, whose lock a read holds across store calls, and a thread
// blocked on a lock could not give its turn back.
#include <algorithm>
#include <cstdint>

#include "base/hash.h"
#include "commit/names.h"
#include "engine/write/idempotency.h"
#include "testing/sim_graph.h"
#include "testing/sim_model.h"

namespace omnigraph::testing {

namespace {

using engine::Graph;
using engine::TableChange;
using engine::WriteRequest;
using engine::WriteResult;

// Attempts of one keyed write before the writer gives up with its outcome in doubt.
constexpr int kKeyedAttemptsMax = 6;

std::string OutcomeCode(const Status& s) { return s.ok() ? "ok" : std::string(CodeName(s.code())); }

// A crashed leader's members are answered with its crash: whether their record landed is open.
OpOutcome OutcomeOf(const Status& s) {
  if (s.ok()) return OpOutcome::kAcked;
  if (s.code() == Code::kPublicationInDoubt) return OpOutcome::kInDoubt;
  if (s.code() == Code::kCancelled) return OpOutcome::kCrashed;
  return OpOutcome::kFailed;
}

// Opens `graph` when it is not open; false when that failed.
bool EnsureOpen(ActorContext& ctx, std::shared_ptr<Graph>& graph) {
  if (graph) return true;
  Result<std::unique_ptr<Graph>> opened = Graph::Open(ctx.runtime());
  if (!opened.ok()) return false;
  graph = std::move(*opened);
  return true;
}

// The writes only group_commit draws (roll 100-129); the rest are BuildWrite's.
Result<WriteRequest> BuildGroupWrite(Graph& own, const SimTypes& t, uint64_t roll, uint64_t pick,
                                     bool with_links, GraphOpEntry& op) {
  if (roll < 100) return BuildWrite(own, t, roll, pick, with_links, op);
  WriteRequest w;
  w.actor = op.op_id;
  w.branch = op.branch;
  OMNIGRAPH_ASSIGN_OR_RETURN(HeadView head, ReadHead(own, t, op.branch));
  w.planned_on = head.snapshot;
  const std::string& id = op.op_id;
  if (roll < 110) {
    // Fails validation: its destination does not exist.
    op.kind = "bad-link";
    const std::string src = head.items.empty() ? ItemId(t, "missing-src." + id)
                                               : head.items[pick % head.items.size()].first;
    GraphLink l{id, src, ItemId(t, "missing." + id)};
    OMNIGRAPH_ASSIGN_OR_RETURN(table::ColumnBatch rows, LinkRows(t, l));
    w.changes[kLinks] = TableChange{TableChange::Op::kAppend, std::move(rows), {}};
    op.effect.add_links.push_back(l);
    return w;
  }
  if (roll < 120) {
    // Fails: an append of an item the branch holds.
    op.kind = "dup-item";
    if (head.items.empty()) return Status(Code::kNotFound, "no items to duplicate");
    const auto& [item_id, name] = head.items[pick % head.items.size()];
    OMNIGRAPH_ASSIGN_OR_RETURN(table::ColumnBatch rows, ItemRows(t, item_id, name, id));
    w.changes[kItems] = TableChange{TableChange::Op::kAppend, std::move(rows), {}};
    op.effect.add_items.emplace_back(item_id, name);
    op.effect.set_tags.emplace_back(item_id, id);
    return w;
  }
  // `--if-commit`: a note, only on the head the writer read.
  op.kind = "if-commit-note";
  w.expected_head = head.snapshot->state().head_commit_id;
  OMNIGRAPH_ASSIGN_OR_RETURN(table::ColumnBatch notes, NoteRows(t, id));
  w.changes[kNotes] = TableChange{TableChange::Op::kAppend, std::move(notes), {}};
  op.effect.add_notes.push_back(id);
  return w;
}

// Records how one write ended in its model entry.
void RecordAnswer(GraphOpEntry& entry, const Result<WriteResult>& written) {
  entry.status = OutcomeCode(written.status());
  entry.outcome = OutcomeOf(written.status());
  if (written.ok()) {
    entry.commit_id = written->commit_id;
    entry.seq = written->seq;
  }
}

}  // namespace

ActorBody GroupWriter(SimModel& model, int ops) {
  return [&model, ops](ActorContext& ctx) {
    const SimTypes types = BuildTypes();
    // This incarnation's own reads (nothing cached survives a crash).
    std::shared_ptr<Graph> own;
    while (ctx.progress < ops && !ctx.crashed()) {
      const int n = ctx.progress++;
      // Every decision is drawn up front, so the draws do not depend on what the store did.
      const uint64_t roll = ctx.random().Uniform(130);
      const uint64_t pick = ctx.random().Next64();
      const bool with_links = ctx.random().Bernoulli(0.85);
      const bool keyed = ctx.random().Bernoulli(0.25);
      if (!EnsureOpen(ctx, own) || !EnsureOpen(ctx, model.server)) continue;
      std::shared_ptr<Graph> server = model.server;
      GraphOpEntry op;
      op.op_id = ctx.name() + "." + std::to_string(n);
      Result<WriteRequest> request = BuildGroupWrite(*own, types, roll, pick, with_links, op);
      if (!request.ok()) continue;  // Nothing was written.
      if (!request->planned_on) {
        Result<engine::Snapshot> head = own->SnapshotOfBranch(op.branch);
        if (!head.ok()) continue;
        request->planned_on = std::move(*head);
      }
      request->counts = EffectCounts(op.effect);
      // Some carry a key (sent once here), so that batches hold keyed members.
      if (keyed)
        request->idempotency = engine::Idempotency{op.op_id, Sha256Hex(op.op_id), request->counts};
      const size_t index = model.graph_ops.size();
      model.graph_ops.push_back(std::move(op));
      Result<WriteResult> written = engine::Write(*server, *request);
      GraphOpEntry& entry = model.graph_ops[index];
      RecordAnswer(entry, written);
      if (ctx.crashed()) {
        // The server process crashed with this write in flight: it restarts.
        entry.outcome = OpOutcome::kCrashed;
        if (model.server == server) model.server.reset();
        return;
      }
    }
    if (!ctx.crashed() && own) model.graphs[ctx.name()] = own;
  };
}

namespace {

// One attempt of keyed write `op_id`: the request, the same on every attempt but for the head it
// is planned on. An error means the attempt wrote nothing.
Result<WriteRequest> KeyedRequest(Graph& own, const SimTypes& t, KeyedOp& k, GraphOpEntry& op) {
  WriteRequest w;
  w.actor = op.op_id;
  w.branch = op.branch;
  const std::string& id = op.op_id;
  std::string request_text;
  if (k.roll < 70) {
    op.kind = "keyed-add-note";
    OMNIGRAPH_ASSIGN_OR_RETURN(table::ColumnBatch notes, NoteRows(t, id));
    w.changes[kNotes] = TableChange{TableChange::Op::kAppend, std::move(notes), {}};
    op.effect = GraphEffect{};
    op.effect.add_notes.push_back(id);
    request_text = "note " + id;
  } else {
    // A strict retag of an item chosen on the first attempt, planned on a fresh read each time.
    op.kind = "keyed-update-item";
    OMNIGRAPH_ASSIGN_OR_RETURN(HeadView head, ReadHead(own, t, op.branch));
    if (k.item_id.empty()) {
      if (head.items.empty()) return Status(Code::kNotFound, "no items to update");
      std::tie(k.item_id, k.item_name) = head.items[k.pick % head.items.size()];
    }
    OMNIGRAPH_ASSIGN_OR_RETURN(table::ColumnBatch rows, ItemRows(t, k.item_id, k.item_name, id));
    w.changes[kItems] = TableChange{TableChange::Op::kUpsert, std::move(rows), {}};
    w.strict = true;
    w.planned_on = head.snapshot;
    op.effect = GraphEffect{};
    op.effect.set_tags.emplace_back(k.item_id, id);
    request_text = "tag " + k.item_id + " " + id;
  }
  w.counts = EffectCounts(op.effect);
  w.idempotency = engine::Idempotency{id, Sha256Hex(request_text), w.counts};
  return w;
}

// Whether an answer leaves the write's outcome open, so that the writer retries it.
bool Retryable(const Status& s) {
  return s.code() == Code::kPublicationInDoubt || s.code() == Code::kCancelled ||
         s.kind() == Kind::kTransient || s.kind() == Kind::kUnknown;
}

// A keyed write's last answer: a definite one, or no more attempts (the outcome stays in doubt).
// An earlier dropped acknowledgement still binds: the write is acknowledged.
void Settle(KeyedOp& k, GraphOpEntry& entry, const Result<WriteResult>& written) {
  k.final_status = entry.status;
  k.definite_failure = !written.ok() && !Retryable(written.status());
  if (!written.ok() && !k.definite_failure) entry.outcome = OpOutcome::kInDoubt;
  for (const KeyedAnswer& a : k.answers) {
    if (entry.outcome != OpOutcome::kAcked) {
      entry.outcome = OpOutcome::kAcked;
      entry.commit_id = a.commit_id;
      entry.seq = a.seq;
    }
  }
}

}  // namespace

ActorBody KeyedWriter(SimModel& model, int ops) {
  return [&model, ops](ActorContext& ctx) {
    const SimTypes types = BuildTypes();
    std::shared_ptr<Graph> own;
    // ctx.progress advances only on a definite answer: a new incarnation retries the write its
    // predecessor crashed in, with the same key, from a fresh process.
    while (ctx.progress < ops && !ctx.crashed()) {
      const std::string op_id = ctx.name() + "." + std::to_string(ctx.progress);
      auto [it, first] = model.keyed.try_emplace(op_id);
      KeyedOp& k = it->second;
      if (first) {
        k.roll = ctx.random().Uniform(100);
        k.pick = ctx.random().Next64();
        k.graph_op = SIZE_MAX;
      }
      const bool via_server = ctx.random().Bernoulli(0.5);
      const bool fresh = ctx.random().Bernoulli(0.4);
      const bool drop_ack = ctx.random().Bernoulli(0.3);
      if (fresh && k.attempts > 0) own.reset();  // The retry comes from another process.
      if (!EnsureOpen(ctx, own) || (via_server && !EnsureOpen(ctx, model.server))) continue;
      std::shared_ptr<Graph> graph = via_server ? model.server : own;
      GraphOpEntry built;
      built.op_id = op_id;
      Result<WriteRequest> request = KeyedRequest(*own, types, k, built);
      if (request.ok() && via_server && !request->planned_on) {
        Result<engine::Snapshot> head = own->SnapshotOfBranch("main");
        request = head.ok() ? Result<WriteRequest>(*std::move(request)) : head.status();
        if (request.ok()) request->planned_on = std::move(*head);
      }
      if (!request.ok()) {
        // Nothing to update yet, or the read failed: no write was attempted.
        if (ctx.crashed()) return;
        if (request.status().code() == Code::kNotFound && k.graph_op == SIZE_MAX) {
          model.keyed.erase(it);
          ++ctx.progress;
        }
        continue;
      }
      if (k.graph_op == SIZE_MAX) {
        k.graph_op = model.graph_ops.size();
        model.graph_ops.push_back(std::move(built));
      }
      ++k.attempts;
      // As a keyed mutation or load does: a retry answers from the key's record, if any, before
      // it writes.
      Result<std::optional<WriteResult>> done =
          engine::Replay(*graph, "main", *request->idempotency);
      Result<WriteResult> written = !done.ok() ? Result<WriteResult>(done.status())
                                    : *done    ? Result<WriteResult>(**done)
                                               : engine::Write(*graph, *request);
      GraphOpEntry& entry = model.graph_ops[k.graph_op];
      RecordAnswer(entry, written);
      if (ctx.crashed()) {
        entry.outcome = OpOutcome::kCrashed;
        if (via_server && model.server == graph) model.server.reset();
        return;
      }
      if (written.ok()) {
        const bool dropped = drop_ack && k.attempts < kKeyedAttemptsMax;
        k.answers.push_back(KeyedAnswer{written->commit_id, written->seq, written->replayed,
                                        written->outcome, dropped});
        if (dropped) {
          entry.outcome = OpOutcome::kInDoubt;
          continue;
        }
      } else if (Retryable(written.status()) && k.attempts < kKeyedAttemptsMax) {
        continue;
      }
      Settle(k, entry, written);
      ++ctx.progress;
    }
    if (!ctx.crashed() && own) model.graphs[ctx.name()] = own;
  };
}

namespace {

// Every commit record of every stream on the quiet store.
Result<std::vector<commit::Record>> AllCommits(storage::ObjectStore& store) {
  std::vector<commit::Record> records;
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<storage::ObjectMeta> all,
                             storage::ListAll(store, "_graph/"));
  for (const storage::ObjectMeta& m : all) {
    if (!m.name.ends_with(".commit")) continue;
    Result<storage::GetResult> bytes = store.Get(m.name);
    if (!bytes.ok()) continue;  // The stream oracles report it.
    Result<commit::Record> r = commit::DecodeRecord(bytes->data, m.name);
    if (r.ok() && r->kind == commit::RecordKind::kCommit) records.push_back(std::move(*r));
  }
  return records;
}

}  // namespace

void CountBatches(SimWorld& world, const SimModel& model, int& batches, int& keyed_members,
                  int& replays) {
  Result<std::vector<commit::Record>> records = AllCommits(world.backing());
  for (const commit::Record& r : records.ok() ? *records : std::vector<commit::Record>{}) {
    if (r.members.size() > 1) ++batches;
    for (const commit::BatchMember& m : r.members) keyed_members += m.idempotency_key.is_object();
  }
  for (const auto& [key, k] : model.keyed) {
    for (const KeyedAnswer& a : k.answers) replays += a.replayed;
  }
}

void CheckKeyedOracles(SimWorld& world, const SimModel& model, std::vector<std::string>& v) {
  Result<std::vector<commit::Record>> all = AllCommits(world.backing());
  if (!all.ok()) return v.push_back("keys: listing failed: " + all.status().ToString());
  const std::vector<commit::Record>& records = *all;
  for (const auto& [key, k] : model.keyed) {
    std::vector<const commit::Record*> naming;
    for (const commit::Record& r : records) {
      if (engine::RecordKeyMember(r, key) != nullptr) naming.push_back(&r);
    }
    const GraphOpEntry& op = model.graph_ops[k.graph_op];
    std::string where;
    for (const commit::Record* r : naming)
      where += " " + r->commit_id + "@" + std::to_string(r->seq);
    if (naming.size() > 1) {
      v.push_back("keys: key " + key + " (" + op.kind + ", " + std::to_string(k.attempts) +
                  " attempts) is named by " + std::to_string(naming.size()) + " records:" + where);
      continue;
    }
    if (op.outcome == OpOutcome::kFailed && !naming.empty()) {
      v.push_back("keys: " + key + " failed with " + op.status + " but a record names it:" + where);
    }
    if (k.definite_failure && !k.answers.empty()) {
      v.push_back("keys: a retry of " + key + ", which had landed as " + k.answers[0].commit_id +
                  ", failed with " + k.final_status + " instead of answering with that commit");
    }
    for (const KeyedAnswer& a : k.answers) {
      if (naming.empty() || a.commit_id != naming[0]->commit_id) {
        v.push_back("keys: an answer to " + key + " named " + a.commit_id +
                    (a.replayed ? " (replayed)" : "") + " but the record naming the key is" +
                    (naming.empty() ? std::string(" none") : where));
      } else if (a.replayed && a.outcome != EffectCounts(op.effect)) {
        v.push_back("keys: a replayed answer to " + key + " reported " + a.outcome.dump() +
                    ", not the first write's counts " + EffectCounts(op.effect).dump());
      }
    }
  }
}

}  // namespace omnigraph::testing
