// damage: one object damaged the way an operator or a bucket lifecycle rule would — a record,
// checkpoint, hint or stream metadata deleted, truncated or replaced — at a seeded point of a run
// (docs/design/simulation.md "Operator damage"; decision 21). The oracle: every failure the damage
// causes is a typed Corruption naming the object, every answer is correct, no cold read rolls
// back, and once the object is restored the store passes every standard oracle (so no writer
// forked the stream or lost a commit).
#include <map>
#include <memory>

#include "commit/branches.h"
#include "commit/documents.h"
#include "commit/repair.h"
#include "testing/sim_model.h"

namespace omnigraph::testing {

namespace {

std::string KindOf(const std::string& name) {
  if (name.starts_with(commit::kStreamsPrefix)) return "metadata";
  if (name.ends_with("/latest.json")) return "hint";
  if (name.find("/checkpoints/") != std::string::npos) return "checkpoint";
  if (name.ends_with(".commit")) return "record";
  return "";
}

// The stream key of `_graph/{key}/...`.
std::string KeyOf(const std::string& name) { return name.substr(7, name.find('/', 7) - 7); }

// Garbage an operator's mistake might leave: nothing, an empty object, not JSON, a bare format.
constexpr const char* kGarbage[] = {"", "{}", "not json", R"({"format":1})"};

// True when `s` names the damaged object, as its object or in its message.
bool NamesDamage(const SimModel& model, const std::string& object, const std::string& message) {
  return object == model.damage.object || message.find(model.damage.object) != std::string::npos;
}

uint64_t AckedMax(const SimModel& model, const std::string& key, bool& any) {
  uint64_t max = 0;
  any = false;
  for (const OpEntry& op : model.ops) {
    if (op.outcome == OpOutcome::kAcked && op.stream_key == key) {
      max = any ? std::max(max, op.seq) : op.seq;
      any = true;
    }
  }
  return max;
}

void Observe(SimRead& read, const Result<std::shared_ptr<const commit::GraphState>>& state) {
  read.ok = state.ok();
  if (state.ok()) {
    read.seq = (*state)->seq;
    read.head_commit_id = (*state)->head_commit_id;
  } else {
    read.error_code = std::string(CodeName(state.status().code()));
    read.error_object = state.status().object();
    read.error_message = state.status().message();
  }
}

}  // namespace

void DamageNow(storage::ObjectStore& store, Random& random, SimWorld& world, SimModel& model) {
  if (model.damage.done) return;
  Result<std::vector<storage::ObjectMeta>> all = storage::ListAll(store, "_graph/");
  if (!all.ok()) return;
  std::map<std::string, std::vector<std::string>> by_kind;
  std::map<std::string, std::pair<uint64_t, std::string>> newest;  // key -> (seq, name)
  for (const storage::ObjectMeta& m : *all) {
    const std::string kind = KindOf(m.name);
    if (kind.empty()) continue;
    by_kind[kind].push_back(m.name);
    if (kind != "record") continue;
    Result<uint64_t> seq = commit::SeqFromRecordFile(m.name.substr(m.name.rfind('/') + 1));
    if (!seq.ok()) continue;
    auto [it, fresh] = newest.emplace(KeyOf(m.name), std::make_pair(*seq, m.name));
    if (!fresh && *seq > it->second.first) it->second = {*seq, m.name};
  }
  std::vector<std::string> kinds;
  for (const auto& [kind, names] : by_kind) kinds.push_back(kind);
  if (kinds.empty()) return;
  SimDamage& d = model.damage;
  d.kind = kinds[random.Uniform(kinds.size())];
  const char* kActions[] = {"delete", "truncate", "replace"};
  d.action = kActions[random.Uniform(3)];
  std::vector<std::string> candidates = by_kind[d.kind];
  if (d.kind == "record" && d.action == "delete") {
    // The newest record of a stream deleted, with nothing newer naming it, is indistinguishable
    // from one never written: only records in the middle of a stream are deleted.
    std::erase_if(candidates,
                  [&](const std::string& name) { return newest.at(KeyOf(name)).second == name; });
    if (candidates.empty()) {
      d.action = "truncate";
      candidates = by_kind[d.kind];
    }
  }
  d.object = candidates[random.Uniform(candidates.size())];
  // A request to the object still in flight lands first: the store's latency is bounded far below
  // an operator's action, and a request sent before the damage that lands after it is not
  // something a writer can prevent (a conditional create sent while the name was taken fills the
  // name once it is deleted). Requests sent after the damage stay deferred: those are the
  // writers' to avoid (decision 121).
  world.LandInFlight(d.object);
  Result<storage::GetResult> read = store.Get(d.object);
  if (!read.ok()) return;
  d.original = read->data;
  if (d.action == "delete") {
    d.damaged.reset();
  } else if (d.action == "truncate") {
    d.damaged = d.original.substr(0, random.Uniform(std::max<size_t>(d.original.size(), 1)));
  } else {
    // Another object of the same kind (a foreign document), or garbage.
    const std::vector<std::string>& same = by_kind[d.kind];
    const std::string& donor = same[random.Uniform(same.size())];
    Result<storage::GetResult> donated = store.Get(donor);
    if (random.Bernoulli(0.5) && donated.ok() && donated->data != d.original) {
      d.damaged = donated->data;
    } else {
      d.damaged = kGarbage[random.Uniform(std::size(kGarbage))];
    }
  }
  world.Trace("damage " + d.action + " " + d.object);
  Status done = d.damaged ? store.Put(d.object, *d.damaged) : store.Delete(d.object);
  OMNIGRAPH_CHECK_MSG(done.ok(), done.ToString());
  d.done = true;
}

ChaosFn DamageChaos(SimModel& model, int countdown) {
  auto left = std::make_shared<int>(countdown);
  return [&model, left](storage::ObjectStore& store, Random& random, SimWorld& world) {
    if (model.damage.done || --*left > 0) return;
    DamageNow(store, random, world, model);
  };
}

ActorBody DamageReader(SimModel& model, std::vector<std::string> branches, int rounds) {
  return [&model, branches, rounds](ActorContext& ctx) {
    while (ctx.progress < rounds && !ctx.crashed()) {
      ++ctx.progress;
      const std::string& branch = branches[ctx.random().Uniform(branches.size())];
      SimRead read;
      read.who = ctx.name() + " reading " + branch;
      std::unique_ptr<commit::Stream> stream;
      if (branch == "main") {
        Result<std::unique_ptr<commit::Stream>> opened =
            commit::Stream::Open(ctx.runtime(), "main", SimStreamOptions());
        if (opened.ok()) stream = std::move(*opened);
        if (!opened.ok()) Observe(read, opened.status());
      } else {
        Result<commit::ResolvedBranch> resolved = commit::ResolveBranch(ctx.runtime(), branch);
        if (resolved.ok()) {
          stream =
              commit::Stream::FromMetadata(ctx.runtime(), resolved->metadata, SimStreamOptions());
        } else {
          Observe(read, resolved.status());
        }
      }
      if (ctx.crashed()) return;
      if (stream) {
        read.key = stream->key();
        read.acked_before = AckedMax(model, read.key, read.acked_any);
        Result<std::shared_ptr<const commit::GraphState>> state = stream->ReadLatest();
        if (ctx.crashed()) return;
        Observe(read, state);
      }
      read.after_damage = model.damage.done;
      model.reads.push_back(std::move(read));
    }
  };
}

namespace {

// A Corruption must come after the damage and name the damaged object.
void JudgeCorruption(const SimModel& model, std::vector<std::string>& violations,
                     const std::string& who, const std::string& code, const std::string& object,
                     const std::string& message, bool after_damage) {
  if (code != CodeName(Code::kCorruption)) return;
  if (!after_damage) {
    violations.push_back(who + ": Corruption before any damage: " + message + " (" + object + ")");
  } else if (!NamesDamage(model, object, message)) {
    violations.push_back(who + ": Corruption that does not name the damaged object " +
                         model.damage.object + ": " + message + " (" + object + ")");
  }
}

// The oracle's own cold reads of every stream, and time travel to every acknowledged seq, on the
// damaged store (read-only handles over the metadata as it was, so that damaged metadata does
// not hide the streams). Adds them to model.reads.
void ReadEveryStreamOnTheDamagedStore(SimWorld& world, SimModel& model) {
  const SimDamage& d = model.damage;
  storage::ObjectStore& store = *world.direct_runtime().store;
  Result<std::vector<storage::ObjectMeta>> metas = storage::ListAll(store, commit::kStreamsPrefix);
  OMNIGRAPH_CHECK(metas.ok());
  std::vector<std::string> names;
  for (const storage::ObjectMeta& m : *metas) names.push_back(m.name);
  if (d.kind == "metadata" && !d.damaged) names.push_back(d.object);
  for (const std::string& name : names) {
    std::string bytes = name == d.object ? d.original : store.Get(name)->data;
    Result<commit::StreamMetadata> meta = commit::DecodeStreamMetadata(bytes, name);
    if (!meta.ok()) continue;
    commit::StreamOptions options = SimStreamOptions();
    options.writable = false;
    auto stream = commit::Stream::FromMetadata(world.direct_runtime(), *meta, options);
    SimRead read;
    read.who = "oracle reading " + meta->key;
    read.key = meta->key;
    read.after_damage = true;
    read.acked_before = AckedMax(model, read.key, read.acked_any);
    Observe(read, stream->ReadLatest());
    model.reads.push_back(read);
    for (uint64_t seq = meta->base_seq(); read.acked_any && seq <= read.acked_before; ++seq) {
      Result<commit::GraphState> at = stream->ReadAt(seq);
      SimRead past;
      past.who = "oracle reading " + meta->key + "@" + std::to_string(seq);
      past.key = meta->key;
      past.after_damage = true;
      if (at.ok()) {
        past.ok = true;
        past.seq = at->seq;
        past.head_commit_id = at->head_commit_id;
      } else {
        past.error_code = std::string(CodeName(at.status().code()));
        past.error_object = at.status().object();
        past.error_message = at.status().message();
      }
      model.reads.push_back(std::move(past));
    }
  }
}

// Whether damaged bytes still hold the record they replaced (a truncation that only cut the
// trailing newline): then there is nothing for repair to report.
bool StillTheSameRecord(const SimDamage& d) {
  if (!d.damaged) return false;
  Result<commit::Record> was = commit::DecodeRecord(d.original, d.object);
  Result<commit::Record> is = commit::DecodeRecord(*d.damaged, d.object);
  return was.ok() && is.ok() && was->commit_id == is->commit_id && was->seq == is->seq &&
         was->parent_commit_id == is->parent_commit_id;
}

// Whether a deleted record's name holds its very bytes again: the record's own writer had a
// create of it held by the store, which landed after the damage (decision 124). The stream is
// whole — the same record, nothing forked — so there is nothing for repair to report either.
bool RelandedByItsWriter(storage::ObjectStore& store, const SimDamage& d) {
  if (d.damaged) return false;
  Result<storage::GetResult> now = store.Get(d.object);
  return now.ok() && now->data == d.original;
}

// Repair reports every damaged record under its own name: a deleted one (always one in the
// middle of its stream) as missing, a truncated or replaced one as unparsable, misnamed or with
// the wrong parent.
void CheckRepairReportsTheDamage(SimWorld& world, const SimModel& model,
                                 std::vector<std::string>& violations) {
  const SimDamage& d = model.damage;
  commit::RepairOptions repair_options;
  repair_options.stream = SimStreamOptions();
  Result<commit::RepairReport> report = commit::Repair(world.direct_runtime(), repair_options);
  if (!report.ok()) {
    JudgeCorruption(model, violations, "repair", std::string(CodeName(report.status().code())),
                    report.status().object(), report.status().message(), true);
  } else if (d.kind == "record" && !StillTheSameRecord(d) &&
             !RelandedByItsWriter(*world.direct_runtime().store, d)) {
    bool reported = false;
    for (const commit::Defect& defect : report->defects) {
      const bool right_kind = d.damaged ? defect.kind != commit::DefectKind::kRecordMissing
                                        : defect.kind == commit::DefectKind::kRecordMissing;
      reported = reported || (right_kind && defect.object == d.object);
    }
    if (!reported) {
      violations.push_back("repair did not report the " +
                           std::string(d.damaged ? "damaged" : "missing") + " record " + d.object +
                           ": " + report->ToJson().dump());
    }
  }
}

}  // namespace

void CheckDamagedStore(SimWorld& world, SimModel& model, std::vector<std::string>& violations) {
  const SimDamage& d = model.damage;
  storage::ObjectStore& store = *world.direct_runtime().store;
  for (const OpEntry& op : model.ops) {
    JudgeCorruption(model, violations, op.op_id, op.status, op.error_object, op.error_message,
                    op.after_damage);
  }
  ReadEveryStreamOnTheDamagedStore(world, model);
  for (const SimRead& read : model.reads) {
    if (!read.ok) {
      JudgeCorruption(model, violations, read.who, read.error_code, read.error_object,
                      read.error_message, read.after_damage);
      if (read.who.starts_with("oracle") && read.error_code != CodeName(Code::kCorruption)) {
        violations.push_back(read.who + " failed with " + read.error_code + ": " +
                             read.error_message);
      }
    } else if (read.acked_any && read.seq < read.acked_before) {
      // Only cold reads of the head carry acked_before; time travel does not.
      violations.push_back(read.who + " rolled back: it read seq " + std::to_string(read.seq) +
                           " after seq " + std::to_string(read.acked_before) + " was acknowledged");
    }
  }
  CheckRepairReportsTheDamage(world, model, violations);
  // Restore the object, as an operator would from a backup. Hints and checkpoints may have been
  // rewritten meanwhile (correctly, by publishers and backfill); a record never is, so a record
  // name that holds anything else now was published into: a fork.
  Result<storage::GetResult> now = store.Get(d.object);
  const bool untouched = d.damaged ? (now.ok() && now->data == *d.damaged) : !now.ok();
  if (untouched) {
    OMNIGRAPH_CHECK(store.Put(d.object, d.original).ok());
  } else if (d.kind == "record" && !RelandedByItsWriter(store, d)) {
    // (The same record back, put there by its own writer's held create, is no fork.)
    violations.push_back("a writer published into the damaged record " + d.object +
                         " (a fork): it now holds another record");
  }
}

void CheckReadsAfterRestore(SimWorld& world, const SimModel& model,
                            std::vector<std::string>& violations) {
  storage::ObjectStore& store = *world.direct_runtime().store;
  for (const SimRead& read : model.reads) {
    if (!read.ok) continue;
    std::string want;
    Result<storage::GetResult> record = store.Get(commit::RecordName(read.key, read.seq));
    if (record.ok()) {
      Result<commit::Record> decoded = commit::DecodeRecord(record->data, "record");
      if (decoded.ok()) want = decoded->commit_id;
    } else {
      // A branch's fork seq has no record of its own: its head is the fork commit.
      Result<storage::GetResult> meta = store.Get(commit::StreamMetadataName(read.key));
      if (meta.ok()) {
        Result<commit::StreamMetadata> decoded =
            commit::DecodeStreamMetadata(meta->data, "metadata");
        if (decoded.ok()) want = decoded->fork_commit_id.value_or("");
      }
    }
    if (read.head_commit_id != want) {
      violations.push_back(read.who + " read head '" + read.head_commit_id + "' at seq " +
                           std::to_string(read.seq) + ", but the store holds '" + want + "' there");
    }
  }
}

}  // namespace omnigraph::testing
