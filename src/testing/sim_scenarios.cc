// The scenarios: fault profiles drawn from the seed, the actors, the chaos step and the run.
#include <cstdio>
#include <map>
#include <memory>

#include "commit/branches.h"
#include "commit/repair.h"
#include "commit/testing_hooks.h"
#include "engine/graph/graph.h"
#include "testing/sim_merge.h"
#include "testing/sim_model.h"
#include "testing/sim_scenarios.h"

namespace omnigraph::testing {

namespace {

using commit::GraphState;
using commit::PublishRequest;
using commit::PublishResult;
using commit::RecordContent;
using commit::Stream;

constexpr uint64_t kTables = 3;
constexpr const char* kTableKeys[kTables] = {"node:Person", "node:Company", "edge:WorksAt"};

TablePin GenesisPin(uint64_t id) {
  return TablePin{id,        1, kTableKeys[id - 1], 0, (1ULL << 63) | (id << 32),
                  "genesis", 0, Json::object()};
}

RecordContent Genesis() {
  RecordContent c;
  c.schema = commit::SchemaRef{"sim-graph", "sha256:sim", 1, "sim", Json::object()};
  for (uint64_t id = 1; id <= kTables; ++id) {
    c.registrations.push_back(
        commit::Registration{id, 1, kTableKeys[id - 1], id == 3 ? "edge" : "node", Json::object()});
    c.pins.push_back(GenesisPin(id));
  }
  return c;
}

double Pick(Random& r, std::initializer_list<double> choices) {
  auto it = choices.begin();
  std::advance(it, static_cast<long>(r.Uniform(choices.size())));
  return *it;
}

// Swarm testing: each seed gets its own mix of faults, some seeds none at all.
FaultProfile DrawProfile(Random& r) {
  FaultProfile f;
  f.transient = Pick(r, {0, 0.02, 0.08});
  f.unknown_after_effect = Pick(r, {0, 0.03, 0.1});
  f.deferred = Pick(r, {0, 0.03, 0.1});
  f.unknown_burst = Pick(r, {0, 0.05, 0.3});
  f.deferred_landing = Pick(r, {0.05, 0.2, 0.5});
  f.crash = Pick(r, {0, 0.2, 0.5});
  f.chaos = Pick(r, {0, 0.02, 0.06});
  return f;
}

// The stream handles one incarnation of an actor holds, by branch name (lost on a crash).
class Handles {
 public:
  explicit Handles(ActorContext& ctx) : ctx_(ctx) {}

  // Opens main, or resolves a branch through names/; null when that failed.
  Stream* Get(const std::string& branch) {
    auto it = handles_.find(branch);
    if (it != handles_.end()) return it->second.get();
    std::unique_ptr<Stream> s;
    if (branch == "main") {
      auto opened = Stream::Open(ctx_.runtime(), "main", SimStreamOptions());
      if (!opened.ok()) return nullptr;
      s = std::move(*opened);
    } else {
      auto resolved = commit::ResolveBranch(ctx_.runtime(), branch);
      if (!resolved.ok()) return nullptr;
      s = Stream::FromMetadata(ctx_.runtime(), resolved->metadata, SimStreamOptions());
    }
    return handles_.emplace(branch, std::move(s)).first->second.get();
  }
  void Drop(const std::string& branch) { handles_.erase(branch); }

 private:
  ActorContext& ctx_;
  std::map<std::string, std::unique_ptr<Stream>> handles_;
};

std::string OutcomeCode(const Status& s) { return s.ok() ? "ok" : std::string(CodeName(s.code())); }

// Publishes `ops` one-pin commits, each to a branch drawn from `branches`.
ActorBody Publisher(SimModel& model, std::vector<std::string> branches, int ops) {
  return [&model, branches, ops](ActorContext& ctx) {
    Handles handles(ctx);
    while (ctx.progress < ops && !ctx.crashed()) {
      const int n = ctx.progress++;
      const std::string& branch = branches[ctx.random().Uniform(branches.size())];
      const uint64_t mode = ctx.random().Uniform(100);
      const uint64_t table = 1 + ctx.random().Uniform(kTables);
      Stream* stream = handles.Get(branch);
      if (!stream) continue;
      OpEntry op;
      op.op_id = ctx.name() + "." + std::to_string(n);
      op.branch = branch;
      op.table = table;
      op.staged_version =
          (1ULL << 62) | (static_cast<uint64_t>(ctx.id()) << 32) | static_cast<uint64_t>(n);
      PublishRequest request;
      request.branch = branch;
      request.actor = ctx.name();
      request.insert_only = mode < 70;
      if (mode >= 85) {
        auto head = stream->ReadHead();
        if (!head.ok()) continue;
        request.expected_head = (*head)->head_commit_id;
      }
      const std::string op_id = op.op_id;
      const uint64_t version = op.staged_version;
      request.stage = [op_id, table, version](const GraphState& base) -> Result<RecordContent> {
        auto it = base.tables.find(TableId{table, 1});
        if (it == base.tables.end()) return InvalidArgument("no table " + std::to_string(table));
        TablePin pin = it->second.pin;
        pin.staged_version = version;
        pin.target_version += 1;
        pin.transaction_uuid = op_id;
        RecordContent content;
        content.pins.push_back(std::move(pin));
        content.extra[kOpIdMember] = op_id;
        return content;
      };
      const size_t index = model.ops.size();
      model.ops.push_back(std::move(op));
      ctx.ClearCreates();
      Result<PublishResult> published = stream->Publish(request);
      OpEntry& entry = model.ops[index];
      if (ctx.crashed()) {
        entry.outcome = OpOutcome::kCrashed;
        return;
      }
      entry.status = OutcomeCode(published.status());
      entry.after_damage = model.damage.done;
      if (!published.ok()) {
        entry.error_object = published.status().object();
        entry.error_message = published.status().message();
      }
      if (published.ok()) {
        entry.outcome = OpOutcome::kAcked;
        entry.stream_key = stream->key();
        entry.commit_id = published->commit_id;
        entry.seq = published->seq;
      } else if (published.status().code() == Code::kPublicationInDoubt) {
        entry.outcome = OpOutcome::kInDoubt;
        CheckInDoubt(ctx, published.status(), model);
      } else {
        entry.outcome = OpOutcome::kFailed;
        // A handle bound to a deleted life must re-resolve the name.
        if (published.status().code() == Code::kBranchNotFound) handles.Drop(branch);
      }
    }
  };
}

// Creates and deletes branches named in `names`, forking from main or another branch.
ActorBody BranchAdmin(std::vector<std::string> names, int ops) {
  return [names, ops](ActorContext& ctx) {
    Handles handles(ctx);
    while (ctx.progress < ops && !ctx.crashed()) {
      ++ctx.progress;
      const std::string& name = names[ctx.random().Uniform(names.size())];
      if (ctx.random().Uniform(100) < 60) {
        std::string parent = ctx.random().Bernoulli(0.7)
                                 ? std::string("main")
                                 : names[ctx.random().Uniform(names.size())];
        if (parent == name) parent = "main";
        Stream* stream = handles.Get(parent);
        if (!stream) continue;
        auto head = stream->ReadHead();
        if (!head.ok()) {
          handles.Drop(parent);
          continue;
        }
        commit::ForkPoint fork{**head, parent, true};
        commit::CreateBranch(ctx.runtime(), name, fork, ctx.name(), SimStreamOptions())
            .status()
            .IgnoreError();
      } else {
        commit::DeleteBranch(ctx.runtime(), name, ctx.name(), SimStreamOptions()).IgnoreError();
      }
    }
  };
}

// Plans retention (keep 1-3, no grace) and removes the checkpoints the plan names.
ActorBody Retention(SimModel& model, int rounds) {
  return [&model, rounds](ActorContext& ctx) {
    while (ctx.progress < rounds && !ctx.crashed()) {
      ++ctx.progress;
      commit::RetentionOptions options;
      options.keep = 1 + ctx.random().Uniform(3);
      options.grace_micros = 0;
      options.stream = SimStreamOptions();
      Result<commit::RetentionPlan> plan = commit::PlanRetention(ctx.runtime(), options);
      if (!plan.ok() || ctx.crashed()) continue;
      model.plans.push_back(*plan);
      commit::ApplyCheckpointRetention(ctx.runtime(), options, *plan).status().IgnoreError();
    }
  };
}

// Repairs hints and checkpoints while publishers run.
ActorBody Repairer(int rounds) {
  return [rounds](ActorContext& ctx) {
    while (ctx.progress < rounds && !ctx.crashed()) {
      ++ctx.progress;
      commit::RepairOptions options;
      options.confirm = ctx.random().Bernoulli(0.7);
      options.stream = SimStreamOptions();
      commit::Repair(ctx.runtime(), options).status().IgnoreError();
    }
  };
}

// Derived state going bad between calls: hints deleted or stale, checkpoints other than a base
// deleted, truncated or replaced by another checkpoint's bytes (which a reader must reject).
void Chaos(storage::ObjectStore& store, Random& random, SimWorld& world) {
  Result<std::vector<storage::ObjectMeta>> all = storage::ListAll(store, "_graph/");
  if (!all.ok()) return;
  std::vector<std::string> hints, checkpoints;
  std::map<std::string, uint64_t> bases;
  for (const storage::ObjectMeta& m : *all) {
    if (m.name.ends_with("/latest.json")) {
      hints.push_back(m.name);
      continue;
    }
    const size_t at = m.name.find("/checkpoints/");
    if (at == std::string::npos) continue;
    const std::string key = m.name.substr(7, at - 7);
    auto base = bases.find(key);
    if (base == bases.end()) {
      auto meta = store.Get(commit::StreamMetadataName(key));
      if (!meta.ok()) continue;
      auto decoded = commit::DecodeStreamMetadata(meta->data, m.name);
      if (!decoded.ok()) continue;
      base = bases.emplace(key, decoded->base_seq()).first;
    }
    if (m.name != commit::CheckpointName(key, base->second)) checkpoints.push_back(m.name);
  }
  const uint64_t action = random.Uniform(5);
  if (action < 2 && !hints.empty()) {
    const std::string& hint = hints[random.Uniform(hints.size())];
    if (action == 0) {
      world.Trace("chaos delete " + hint);
      store.Delete(hint).IgnoreError();
      return;
    }
    auto read = store.Get(hint);
    if (!read.ok()) return;
    auto decoded = commit::DecodeHint(read->data, hint);
    if (!decoded.ok()) return;
    commit::Hint stale{decoded->seq - std::min(decoded->seq, 1 + random.Uniform(5)), std::nullopt,
                       Json::object()};
    world.Trace("chaos stale " + hint);
    store.Put(hint, commit::EncodeHint(stale)).IgnoreError();
    return;
  }
  if (checkpoints.empty()) return;
  const std::string& victim = checkpoints[random.Uniform(checkpoints.size())];
  if (action == 2) {
    world.Trace("chaos delete " + victim);
    store.Delete(victim).IgnoreError();
  } else if (action == 3) {
    auto read = store.Get(victim);
    if (!read.ok() || read->data.empty()) return;
    world.Trace("chaos truncate " + victim);
    store.Put(victim, read->data.substr(0, random.Uniform(read->data.size()))).IgnoreError();
  } else {
    const std::string& donor = checkpoints[random.Uniform(checkpoints.size())];
    if (donor == victim) return;
    auto read = store.Get(donor);
    if (!read.ok()) return;
    world.Trace("chaos foreign " + victim + " <- " + donor);
    store.Put(victim, read->data).IgnoreError();
  }
}

// The actors of each scenario; sizes drawn from the seed but kept small.
Status AddActors(std::string_view scenario, Random& shape, SimWorld& world, SimModel& model) {
  const std::vector<std::string> kBranches = {"b1", "b2"};
  if (scenario == "publishers") {
    const int publishers = static_cast<int>(shape.Range(2, 4));
    for (int i = 0; i < publishers; ++i) {
      world.AddActor("p" + std::to_string(i),
                     Publisher(model, {"main"}, static_cast<int>(shape.Range(4, 9))));
    }
  } else if (scenario == "branches") {
    world.AddActor("admin", BranchAdmin(kBranches, static_cast<int>(shape.Range(3, 7))));
    world.AddActor("p0",
                   Publisher(model, {"main", "b1", "b2"}, static_cast<int>(shape.Range(4, 8))));
    world.AddActor("p1",
                   Publisher(model, {"main", "b1", "b2"}, static_cast<int>(shape.Range(4, 8))));
    world.AddActor("p2", Publisher(model, {"b1", "b2"}, static_cast<int>(shape.Range(3, 6))));
  } else if (scenario == "maintenance") {
    world.AddActor("admin", BranchAdmin({"b1"}, static_cast<int>(shape.Range(1, 3))));
    world.AddActor("p0", Publisher(model, {"main", "b1"}, static_cast<int>(shape.Range(5, 10))));
    world.AddActor("p1", Publisher(model, {"main", "b1"}, static_cast<int>(shape.Range(5, 10))));
    world.AddActor("retention", Retention(model, static_cast<int>(shape.Range(2, 4))));
    world.AddActor("repair", Repairer(static_cast<int>(shape.Range(1, 2))));
  } else if (scenario == "damage") {
    world.AddActor("admin", BranchAdmin({"b1"}, static_cast<int>(shape.Range(1, 2))));
    world.AddActor("p0", Publisher(model, {"main", "b1"}, static_cast<int>(shape.Range(4, 8))));
    world.AddActor("p1", Publisher(model, {"main"}, static_cast<int>(shape.Range(4, 8))));
    world.AddActor("p2", Publisher(model, {"main", "b1"}, static_cast<int>(shape.Range(3, 6))));
    world.AddActor(
        "reader", DamageReader(model, {"main", "main", "b1"}, static_cast<int>(shape.Range(3, 8))));
  } else if (scenario == "graph_writes") {
    world.AddActor("admin", GraphBranchAdmin("b1", static_cast<int>(shape.Range(1, 3))));
    const int writers = static_cast<int>(shape.Range(2, 4));
    for (int i = 0; i < writers; ++i) {
      world.AddActor("w" + std::to_string(i), GraphWriter(model, {"main", "main", "main", "b1"},
                                                          static_cast<int>(shape.Range(3, 6))));
    }
  } else if (scenario == "group_commit") {
    const int writers = static_cast<int>(shape.Range(3, 6));
    for (int i = 0; i < writers; ++i) {
      world.AddActor("g" + std::to_string(i),
                     GroupWriter(model, static_cast<int>(shape.Range(3, 6))));
    }
  } else if (scenario == "idempotency") {
    const int writers = static_cast<int>(shape.Range(2, 4));
    for (int i = 0; i < writers; ++i) {
      world.AddActor("k" + std::to_string(i),
                     KeyedWriter(model, static_cast<int>(shape.Range(2, 5))));
    }
  } else {
    return InvalidArgument("unknown scenario '" + std::string(scenario) +
                           "' (publishers, branches, maintenance, graph_writes, damage, merges, "
                           "group_commit, idempotency or all)");
  }
  return Status::Ok();
}

}  // namespace

// The in-doubt oracle: PublicationInDoubt only when the conditional creates of the record left
// its outcome open — at least one returned Unknown (so it may land) and none was answered
// definitely (created, or "exists" to be resolved by reading it back). Transient answers after an
// Unknown resolve nothing, so they may be among the re-drives. Nor does an "exists" for the record
// that damage deleted: its read back found nothing, and the record deleted may have been ours.
void CheckInDoubt(ActorContext& ctx, const Status& status, SimModel& model) {
  int unknown = 0;
  const bool taken_then_deleted = model.damage.done && status.object() == model.damage.object;
  for (const CreateAttempt& a : ctx.creates()) {
    if (a.name != status.object()) continue;
    if (a.outcome == 'U') ++unknown;
    if (a.outcome == 'C' || (a.outcome == 'E' && !taken_then_deleted)) {
      model.violations.push_back(ctx.name() + ": PublicationInDoubt for " + status.object() +
                                 " although a conditional create of it returned '" +
                                 std::string(1, a.outcome) + "' (" + status.message() + ")");
      return;
    }
  }
  if (unknown == 0) {
    model.violations.push_back(ctx.name() + ": PublicationInDoubt for " + status.object() +
                               " although no conditional create of it returned Unknown");
  }
}

commit::StreamOptions SimStreamOptions() {
  commit::StreamOptions options;
  options.checkpoint_interval = kSimCheckpointInterval;
  return options;
}

std::vector<std::string> SimScenarioNames() {
  return {"publishers", "branches", "maintenance",  "graph_writes",
          "damage",     "merges",   "group_commit", "idempotency"};
}

std::string SimRunResult::Summary() const {
  char buf[512];
  std::snprintf(
      buf, sizeof(buf),
      "%s seed=%llu %s trace=%016llx steps=%llu faults=%llu landed=%llu crashes=%llu "
      "chaos=%llu ops(acked=%d failed=%d in_doubt=%d crashed=%d) streams=%d "
      "records=%d plans=%d graph_seqs=%d pins=%d change_sets=%d batches=%d keyed=%d "
      "replays=%d [%s]",
      scenario.c_str(), static_cast<unsigned long long>(seed), passed ? "PASS" : "FAIL",
      static_cast<unsigned long long>(trace_hash), static_cast<unsigned long long>(stats.steps),
      static_cast<unsigned long long>(stats.faults),
      static_cast<unsigned long long>(stats.deferred_landed),
      static_cast<unsigned long long>(stats.crashes), static_cast<unsigned long long>(stats.chaos),
      ops_acked, ops_failed, ops_in_doubt, ops_crashed, streams, records, plans_checked, graph_seqs,
      pins_opened, change_sets, batches, keyed_members, replays, faults.ToString().c_str());
  std::string out = buf;
  for (const auto& [outcome, n] : outcome_counts) out += " " + outcome + "=" + std::to_string(n);
  return out;
}

namespace {

// Tallies every operation's outcome into the run's counts.
void CountOutcomes(const SimModel& model, SimRunResult& out) {
  std::vector<OpOutcome> outcomes;
  for (const OpEntry& op : model.ops) outcomes.push_back(op.outcome);
  for (const GraphOpEntry& op : model.graph_ops) outcomes.push_back(op.outcome);
  for (OpOutcome outcome : outcomes) {
    switch (outcome) {
      case OpOutcome::kAcked: ++out.ops_acked; break;
      case OpOutcome::kFailed: ++out.ops_failed; break;
      case OpOutcome::kInDoubt: ++out.ops_in_doubt; break;
      default: ++out.ops_crashed; break;
    }
  }
}

}  // namespace

Result<SimRunResult> RunSimulation(std::string_view scenario, uint64_t seed,
                                   const std::function<void(SimModel&)>& tamper) {
  SimRunResult out;
  out.scenario = std::string(scenario);
  out.seed = seed;
  if (scenario == "merges") {
    // Sequential over a real graph against the merge model (testing/sim_merge.h); no faults.
    RunMergeScenario(seed, out);
    return out;
  }
  // The scenario's shape and fault mix come from the seed, apart from the world's own stream.
  Random shape(seed ^ 0x9e3779b97f4a7c15ULL);
  out.faults = DrawProfile(shape);
  const bool damage = scenario == "damage";
  // damage: its chaos step runs at every scheduling step and damages one object, once.
  if (damage) out.faults.chaos = 1;
  SimWorld world(seed, out.faults);
  SimModel model;
  OMNIGRAPH_RETURN_IF_ERROR(AddActors(scenario, shape, world, model));
  const bool graph =
      scenario == "graph_writes" || scenario == "group_commit" || scenario == "idempotency";
  if (graph) {
    // A real graph: stamp, schema archive, empty tables, main stream.
    Result<std::unique_ptr<engine::Graph>> init =
        engine::Graph::Init(world.direct_runtime(), kSimGraphSchema,
                            engine::InitOptions{std::string("setup"), kSimCheckpointInterval});
    if (!init.ok()) return init.status().WithContext("simulation graph init");
  } else {
    Result<commit::Record> genesis =
        commit::CreateMainStream(world.direct_runtime(), Genesis(), std::string("setup"));
    if (!genesis.ok()) return genesis.status().WithContext("simulation genesis");
  }
  world.SetChaos(damage ? DamageChaos(model, static_cast<int>(shape.Range(10, 200))) : Chaos);
  out.stats = world.Run();
  if (damage) DamageNow(world.backing(), world.random(), world, model);
  if (out.stats.stuck) {
    out.violations.push_back("the run did not finish within " + std::to_string(kSimStepsMax) +
                             " scheduled calls");
  }
  if (scenario == "maintenance") {
    // One more plan with everything quiet, so every run checks retention at least once.
    commit::RetentionOptions options;
    options.keep = 1 + shape.Uniform(3);
    options.grace_micros = 0;
    options.stream = SimStreamOptions();
    Result<commit::RetentionPlan> plan = commit::PlanRetention(world.direct_runtime(), options);
    if (plan.ok()) {
      model.plans.push_back(*plan);
    } else {
      out.violations.push_back("retention planning failed on a quiet store: " +
                               plan.status().ToString());
    }
  }
  if (graph) CheckGraphLiveness(world, model, out.violations);
  if (damage) CheckDamagedStore(world, model, out.violations);
  if (tamper) tamper(model);
  out.violations.insert(out.violations.end(), model.violations.begin(), model.violations.end());
  OracleCounts counts = CheckOracles(world, model, out.violations);
  if (graph) CheckGraphOracles(world, model, out.violations, counts);
  if (scenario == "idempotency") CheckKeyedOracles(world, model, out.violations);
  if (graph) CountBatches(world, model, out.batches, out.keyed_members, out.replays);
  if (damage) CheckReadsAfterRestore(world, model, out.violations);
  out.graph_seqs = counts.graph_seqs;
  out.pins_opened = counts.pins_opened;
  out.change_sets = counts.change_sets;
  out.streams = counts.streams;
  out.records = counts.records;
  out.plans_checked = counts.plans_checked;
  CountOutcomes(model, out);
  out.passed = out.violations.empty();
  out.trace_hash = world.trace_hash();
  out.trace_tail = world.trace_tail();
  return out;
}

std::vector<PlantedBug> AllPlantedBugs() {
  return {PlantedBug::kSkipReadbackOnExists,
          PlantedBug::kAbsentAfterUnknownIsNoEffect,
          PlantedBug::kUnvalidatedCheckpoint,
          PlantedBug::kRetentionRecordPins,
          PlantedBug::kGapIsEnd,
          PlantedBug::kChangeSetUpsertsAsInserts,
          PlantedBug::kMergeBaseFirstParentOnly,
          PlantedBug::kMergeSourceWins,
          PlantedBug::kMergeAdoptsSourceTable,
          PlantedBug::kGroupCommitKeepsFailedMember,
          PlantedBug::kKeyFenceIgnoresRecord};
}

std::string_view PlantedBugName(PlantedBug bug) {
  switch (bug) {
    case PlantedBug::kNone: return "none";
    case PlantedBug::kSkipReadbackOnExists: return "skip-readback";
    case PlantedBug::kAbsentAfterUnknownIsNoEffect: return "absent-is-no-effect";
    case PlantedBug::kUnvalidatedCheckpoint: return "unvalidated-checkpoint";
    case PlantedBug::kRetentionRecordPins: return "retention-record-pins";
    case PlantedBug::kGapIsEnd: return "gap-is-end";
    case PlantedBug::kChangeSetUpsertsAsInserts: return "change-set-upserts-as-inserts";
    case PlantedBug::kMergeBaseFirstParentOnly: return "merge-base-first-parent";
    case PlantedBug::kMergeSourceWins: return "merge-source-wins";
    case PlantedBug::kMergeAdoptsSourceTable: return "merge-adopts-source-table";
    case PlantedBug::kGroupCommitKeepsFailedMember: return "group-commit-keeps-failed-member";
    case PlantedBug::kKeyFenceIgnoresRecord: return "key-fence-ignores-record";
  }
  return "none";
}

Result<PlantedBug> ParsePlantedBug(std::string_view name) {
  if (name == "none") return PlantedBug::kNone;
  for (PlantedBug bug : AllPlantedBugs()) {
    if (PlantedBugName(bug) == name) return bug;
  }
  return InvalidArgument("unknown planted bug '" + std::string(name) +
                         "' (skip-readback, absent-is-no-effect, unvalidated-checkpoint, "
                         "retention-record-pins, gap-is-end, change-set-upserts-as-inserts, "
                         "merge-base-first-parent, merge-source-wins, merge-adopts-source-table, "
                         "group-commit-keeps-failed-member, key-fence-ignores-record)");
}

PlantedBugScope::PlantedBugScope(PlantedBug bug) {
  commit::PlantedBugs& hooks = commit::TestingHooks();
  hooks.Reset();
  hooks.skip_readback_on_exists = bug == PlantedBug::kSkipReadbackOnExists;
  hooks.absent_after_unknown_means_no_effect = bug == PlantedBug::kAbsentAfterUnknownIsNoEffect;
  hooks.accept_checkpoint_unvalidated = bug == PlantedBug::kUnvalidatedCheckpoint;
  hooks.retention_uses_record_pins = bug == PlantedBug::kRetentionRecordPins;
  hooks.gap_is_end = bug == PlantedBug::kGapIsEnd;
  hooks.change_set_upserts_as_inserts = bug == PlantedBug::kChangeSetUpsertsAsInserts;
  hooks.merge_base_first_parent_only = bug == PlantedBug::kMergeBaseFirstParentOnly;
  hooks.merge_source_wins = bug == PlantedBug::kMergeSourceWins;
  hooks.merge_adopts_source_table = bug == PlantedBug::kMergeAdoptsSourceTable;
  hooks.group_commit_keeps_failed_member = bug == PlantedBug::kGroupCommitKeepsFailedMember;
  hooks.key_fence_ignores_record = bug == PlantedBug::kKeyFenceIgnoresRecord;
}

PlantedBugScope::~PlantedBugScope() { commit::TestingHooks().Reset(); }

std::string ReplayCommand(std::string_view scenario, uint64_t seed, PlantedBug bug) {
  std::string cmd = "OMNIGRAPH_SIM_SEED=" + std::to_string(seed) + " omnigraph-sim --scenario " +
                    std::string(scenario) + " --seeds 1";
  if (bug != PlantedBug::kNone) cmd += " --bug " + std::string(PlantedBugName(bug));
  return cmd;
}

Result<std::vector<RegressionSeed>> ParseRegressionSeeds(std::string_view text) {
  std::vector<RegressionSeed> out;
  int line_no = 0;
  while (!text.empty()) {
    ++line_no;
    size_t end = text.find('\n');
    std::string line(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    if (size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    char scenario[64] = {0}, bug[64] = {0};
    unsigned long long seed = 0;
    int fields = std::sscanf(line.c_str(), "%63s %llu %63s", scenario, &seed, bug);
    if (fields <= 0) continue;  // Blank or comment.
    if (fields < 2) {
      return InvalidArgument("regression list line " + std::to_string(line_no) +
                             ": expected `scenario seed [bug]`");
    }
    RegressionSeed r{scenario, seed, PlantedBug::kNone};
    if (fields == 3) {
      OMNIGRAPH_ASSIGN_OR_RETURN(r.bug, ParsePlantedBug(bug));
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace omnigraph::testing
