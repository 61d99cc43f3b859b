// The simulator's model of what the actors did (operation outcomes, retention plans) and the
// oracles that judge the store against it. Internal to src/testing. The model is shared by the
// actors of one world; only the actor holding the turn touches it, so it needs no lock.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "commit/fold.h"
#include "commit/retention.h"
#include "table/table_store.h"
#include "testing/sim_world.h"

namespace omnigraph::engine {
class Graph;
}

namespace omnigraph::testing {

// Checkpoint interval of every simulated stream: small, so runs cross many boundaries.
inline constexpr uint64_t kSimCheckpointInterval = 4;
// The record member that carries an operation id.
inline constexpr const char* kOpIdMember = "sim_op";

enum class OpOutcome { kPending, kAcked, kFailed, kInDoubt, kCrashed };

// One publish an actor attempted: the pin it meant to set and how the publish ended.
struct OpEntry {
  std::string op_id;
  std::string branch;
  uint64_t table = 0;
  uint64_t staged_version = 0;
  OpOutcome outcome = OpOutcome::kPending;
  // Acknowledged commits: where the publisher was told its commit landed.
  std::string stream_key;
  std::string commit_id;
  uint64_t seq = 0;
  std::string status;
  // damage: where a failure pointed (Status::object and message), and whether the scenario's one
  // damage had been done when the operation ended.
  std::string error_object;
  std::string error_message;
  bool after_damage = false;
};

// damage: the one object the scenario damaged (docs/design/simulation.md "Operator damage").
struct SimDamage {
  bool done = false;
  std::string kind;    // "record", "checkpoint", "hint" or "metadata"
  std::string action;  // "delete", "truncate" or "replace"
  std::string object;
  std::string original;
  std::optional<std::string> damaged;  // nullopt: deleted.
};

// damage: one read of a stream's current state (a reader's cold read, or the oracle's own read
// of the damaged store), judged after the damaged object is restored.
struct SimRead {
  std::string who;
  std::string key;
  bool ok = false;
  uint64_t seq = 0;
  std::string head_commit_id;
  // The newest seq acknowledged on `key` before the read began: a cold read below it is a
  // rollback. `acked_any` is false when nothing was.
  uint64_t acked_before = 0;
  bool acked_any = false;
  std::string error_code;
  std::string error_object;
  std::string error_message;
  bool after_damage = false;
};

// graph_writes: what one graph write meant to do, in the model's own terms (docs/design/
// simulation.md "Graph writes"). Items are keyed nodes (name = key), notes unkeyed nodes, links
// edges Item -> Item.
struct GraphLink {
  std::string id;
  std::string src;
  std::string dst;
};
struct GraphEffect {
  std::vector<std::pair<std::string, std::string>> add_items;  // (id, name); tag null.
  std::vector<std::string> add_notes;                          // Note id; text = the op id.
  std::vector<GraphLink> add_links;
  std::vector<std::string> del_items;
  std::vector<std::string> del_notes;
  std::vector<std::string> del_links;
  std::vector<std::pair<std::string, std::string>> set_tags;  // (item id, tag).
};

// One graph write an actor attempted. The op id is carried as the record's actor and is the
// name, note id, link id or tag the write adds, so it is findable both in records and in data.
struct GraphOpEntry {
  std::string op_id;
  std::string kind;
  std::string branch = "main";
  GraphEffect effect;
  OpOutcome outcome = OpOutcome::kPending;
  std::string status;
  // Acknowledged writes: the commit and seq (on `branch`) the WriteResult named.
  std::string commit_id;
  uint64_t seq = 0;
};

// idempotency: one answer a keyed writer got for one attempt of its write.
struct KeyedAnswer {
  std::string commit_id;
  uint64_t seq = 0;
  bool replayed = false;
  Json outcome;
  // The writer dropped it (a lost acknowledgement) and retried.
  bool dropped = false;
};

// idempotency: one keyed write, retried with the same key and request until a definite answer.
struct KeyedOp {
  size_t graph_op = 0;  // Its entry in SimModel::graph_ops.
  int attempts = 0;
  uint64_t roll = 0;
  uint64_t pick = 0;
  // A keyed update: the item it retags (chosen on the first attempt, so every retry is the same
  // request).
  std::string item_id;
  std::string item_name;
  std::vector<KeyedAnswer> answers;
  // The last attempt failed definitely (not in doubt, not a crash).
  bool definite_failure = false;
  std::string final_status;
};

struct SimModel {
  std::vector<OpEntry> ops;
  std::vector<GraphOpEntry> graph_ops;
  // graph_writes: the Graph each writer's last incarnation ended with, by actor name. After the
  // run each must still be able to write to every live branch (a liveness oracle).
  std::map<std::string, std::shared_ptr<engine::Graph>> graphs;
  // group_commit, idempotency: the Graph the writers share (one server process, whose commit
  // queue batches their writes); reset when an actor crashed while using it.
  std::shared_ptr<engine::Graph> server;
  // idempotency: every keyed write, by key.
  std::map<std::string, KeyedOp> keyed;
  std::vector<commit::RetentionPlan> plans;
  SimDamage damage;
  std::vector<SimRead> reads;
  // Violations found while the run was going (the in-doubt oracle).
  std::vector<std::string> violations;
};

struct OracleCounts {
  int streams = 0;
  int records = 0;
  int plans_checked = 0;
  // graph_writes: seqs whose table contents were compared with the model's fold, and table pins
  // opened.
  int graph_seqs = 0;
  int pins_opened = 0;
  // Records whose change set was recomputed from the tables and compared.
  int change_sets = 0;
};

// Runs every end-of-run oracle against the world's backing store (no faults); appends what it
// finds to `violations`.
OracleCounts CheckOracles(SimWorld& world, const SimModel& model,
                          std::vector<std::string>& violations);

// graph_writes, the liveness oracle (before the others): on the quiet store, every writer's last
// Graph writes one note to main and to every live branch; these writes join the model, and one
// that fails is a violation.
void CheckGraphLiveness(SimWorld& world, SimModel& model, std::vector<std::string>& violations);

// graph_writes: compares the graph on the backing store with the model's graph operations
// (every acknowledged write present once where it was acknowledged, no definite failure visible,
// in-doubt and crashed writes at most once, the tables read through Graph::SnapshotAtCommit at
// every seq of every stream life equal to the model's fold there, every pin of every record
// opens).
void CheckGraphOracles(SimWorld& world, const SimModel& model, std::vector<std::string>& violations,
                       OracleCounts& counts);

// The change-set oracle (sim_change_sets.cc): the change set of record `r` (its delta read when it
// spilled) against the exact diff of the tables from `before` (its first parent's state) to
// `after` (its own): inserted and deleted ids equal, every updated id listed, and an update the
// diff does not see (a rewrite with the same row) live on both sides; `schema_boundary` exactly
// when the schemas differ. A record without a change set is a violation (every graph writer
// records one).
void CheckChangeSet(const storage::Runtime& rt, const table::TableStore& tables,
                    const commit::Record& r, const commit::GraphState& before,
                    const commit::GraphState& after, std::vector<std::string>& v, int& checked);

// The in-doubt oracle, checked when a publish returns PublicationInDoubt (sim_scenarios.cc).
void CheckInDoubt(ActorContext& ctx, const Status& status, SimModel& model);

// A graph_writes writer: `ops` graph writes to `branches`, each tagged with a unique op id
// (sim_graph.cc).
ActorBody GraphWriter(SimModel& model, std::vector<std::string> branches, int ops);
// A graph_writes branch admin: creates (from main) and deletes `branch` through its own Graph.
ActorBody GraphBranchAdmin(std::string branch, int ops);

// group_commit (sim_group.cc): `ops` writes to main through the shared server Graph, planned on
// the writer's own reads: inserts, links, strict updates and deletes, writes that fail validation
// (a link to a missing item, an item that exists) and writes with an expected head.
ActorBody GroupWriter(SimModel& model, int ops);
// idempotency (sim_group.cc): `ops` keyed writes, each retried with the same key and request after
// an answer in doubt, a crash or a dropped acknowledgement, through the server Graph or a fresh
// one of its own (another process).
ActorBody KeyedWriter(SimModel& model, int ops);
// idempotency, the exactly-once oracle: at most one record names each key; an acknowledged
// write's record is the one every answer named, and a replayed answer reports the first write's
// counts; a definitely failed write's key is in no record.
void CheckKeyedOracles(SimWorld& world, const SimModel& model, std::vector<std::string>& v);

// Records of more than one member, members with an idempotency key, and replayed answers.
void CountBatches(SimWorld& world, const SimModel& model, int& batches, int& keyed_members,
                  int& replays);

// The schema of the graph_writes scenario.
inline constexpr const char* kSimGraphSchema = R"(
node Item { name: String @key  tag: String? }
node Note { text: String? }
edge Link: Item -> Item { }
)";

commit::StreamOptions SimStreamOptions();

// damage (sim_damage.cc): the chaos step that damages one object once, on its `countdown`-th call;
// DamageNow does it at once (a run that ended first is damaged on the quiet store).
ChaosFn DamageChaos(SimModel& model, int countdown);
void DamageNow(storage::ObjectStore& store, Random& random, SimWorld& world, SimModel& model);
// A reader that opens a fresh handle on one of `branches` and reads its head cold, `rounds` times.
ActorBody DamageReader(SimModel& model, std::vector<std::string> branches, int rounds);
// The damage oracle, before the standard oracles: on the damaged store, every Corruption an
// operation met names the damaged object and none came before the damage, no cold read rolled
// back, the oracle's own reads of every stream are correct or Corruption naming the object, and
// repair reports a deleted record; then the damaged object is restored (a record name taken by
// another record meanwhile is a fork), so that the standard oracles judge what remains.
void CheckDamagedStore(SimWorld& world, SimModel& model, std::vector<std::string>& violations);
// After the standard oracles: every read that succeeded on the damaged store named the head the
// restored store holds at that seq.
void CheckReadsAfterRestore(SimWorld& world, const SimModel& model,
                            std::vector<std::string>& violations);

}  // namespace omnigraph::testing
