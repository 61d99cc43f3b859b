// The end-of-run oracles: an independent fold of the records the store holds, compared with the
// operation log, with the commit layer's reads and with every retention plan.
#include <map>
#include <set>

#include "testing/sim_model.h"

namespace omnigraph::testing {

namespace {

using commit::Record;
using commit::StreamMetadata;

// The model's fold at one seq: table id -> staged version, and the head commit there.
struct ModelState {
  std::map<uint64_t, uint64_t> pins;
  std::string head_commit_id;
  bool retired = false;
};

struct StreamModel {
  StreamMetadata meta;
  uint64_t first = 0;  // The first record seq of this life (0 on main, fork + 1 on a branch).
  std::map<uint64_t, Record> records;
  std::map<uint64_t, ModelState> folds;  // From the base seq to the last record.
  bool folded = false;
};

struct Occurrence {
  std::string key;
  uint64_t seq = 0;
  std::string commit_id;
};

class Oracles {
 public:
  Oracles(SimWorld& world, const SimModel& model, std::vector<std::string>& violations)
      : world_(world), model_(model), v_(violations) {}

  OracleCounts Run() {
    if (!LoadStreams()) return counts_;
    for (auto& [key, s] : streams_) Fold(key);
    for (auto& [key, s] : streams_) {
      CheckBaseCheckpoint(s);
      CheckReads(s);
    }
    CheckOperations();
    CheckPlans();
    return counts_;
  }

 private:
  void Fail(std::string what) { v_.push_back(std::move(what)); }

  // Every stream life, its records, contiguity and parent chains.
  bool LoadStreams() {
    storage::ObjectStore& store = *world_.direct_runtime().store;
    auto metas = storage::ListAll(store, commit::kStreamsPrefix);
    if (!metas.ok()) return Fail("listing streams: " + metas.status().ToString()), false;
    for (const storage::ObjectMeta& m : *metas) {
      auto read = store.Get(m.name);
      if (!read.ok()) return Fail("reading " + m.name + ": " + read.status().ToString()), false;
      auto meta = commit::DecodeStreamMetadata(read->data, m.name);
      if (!meta.ok()) return Fail(meta.status().ToString()), false;
      StreamModel s;
      s.meta = *meta;
      s.first = meta->parent_stream ? meta->base_seq() + 1 : 0;
      LoadRecords(store, s);
      streams_.emplace(meta->key, std::move(s));
    }
    counts_.streams = static_cast<int>(streams_.size());
    return true;
  }

  void LoadRecords(storage::ObjectStore& store, StreamModel& s) {
    const std::string& key = s.meta.key;
    auto objects = storage::ListAll(store, commit::RecordPrefix(key));
    if (!objects.ok()) return Fail("listing records of " + key);
    for (const storage::ObjectMeta& m : *objects) {
      const std::string file = m.name.substr(m.name.rfind('/') + 1);
      if (!file.ends_with(".commit")) continue;
      auto seq = commit::SeqFromRecordFile(file);
      auto read = store.Get(m.name);
      if (!seq.ok() || !read.ok()) {
        Fail("unreadable record " + m.name);
        continue;
      }
      auto record = commit::DecodeRecord(read->data, m.name);
      if (!record.ok()) {
        Fail("undecodable record: " + record.status().ToString());
        continue;
      }
      if (record->seq != *seq || record->stream != key)
        Fail("record under the wrong name: " + m.name);
      s.records.emplace(*seq, std::move(*record));
      ++counts_.records;
    }
    uint64_t expect = s.first;
    for (const auto& [seq, r] : s.records) {
      if (seq != expect) {
        Fail("stream " + key + " has a gap: seq " + std::to_string(seq) + " follows " +
             std::to_string(expect) + " - 1");
        break;
      }
      ++expect;
    }
    if (!s.meta.parent_stream && !s.records.count(0)) Fail("main has no genesis record");
    for (const auto& [seq, r] : s.records) {
      std::optional<std::string> parent;
      if (seq == s.first && s.meta.parent_stream) parent = s.meta.fork_commit_id;
      auto prev = s.records.find(seq - 1);
      if (seq != s.first && prev != s.records.end()) parent = prev->second.commit_id;
      if (seq != 0 && r.parent_commit_id != parent) {
        Fail("record " + key + "@" + std::to_string(seq) + " has parent '" +
             r.parent_commit_id.value_or("") + "', expected '" + parent.value_or("") + "'");
      }
      if (r.kind == commit::RecordKind::kRetire && seq != s.records.rbegin()->first) {
        Fail("stream " + key + " continues after its retire record at " + std::to_string(seq));
      }
    }
  }

  // The independent fold: genesis pins (or the parent's fold at the fork), then each record's.
  void Fold(const std::string& key) {
    StreamModel& s = streams_.at(key);
    if (s.folded) return;
    s.folded = true;
    ModelState state;
    uint64_t base = s.meta.base_seq();
    if (s.meta.parent_stream) {
      auto parent = streams_.find(*s.meta.parent_stream);
      if (parent == streams_.end()) return Fail("stream " + key + " names a missing parent");
      Fold(parent->first);
      auto at = parent->second.folds.find(base);
      if (at == parent->second.folds.end()) {
        return Fail("stream " + key + " forks at " + std::to_string(base) +
                    ", past its parent's end");
      }
      state = at->second;
      if (state.head_commit_id != s.meta.fork_commit_id.value_or("")) {
        Fail("stream " + key + " names fork commit '" + s.meta.fork_commit_id.value_or("") +
             "' but the parent holds '" + state.head_commit_id + "' there");
      }
      state.retired = false;
      s.folds[base] = state;
    }
    for (const auto& [seq, r] : s.records) {
      for (const TablePin& p : r.pins) state.pins[p.stable_table_id] = p.staged_version;
      state.head_commit_id = r.commit_id;
      if (r.kind == commit::RecordKind::kRetire) state.retired = true;
      s.folds[seq] = state;
    }
  }

  void CheckBaseCheckpoint(const StreamModel& s) {
    const std::string name = commit::CheckpointName(s.meta.key, s.meta.base_seq());
    auto read = world_.direct_runtime().store->Get(name);
    if (!read.ok())
      return Fail("base checkpoint " + name + " is gone: " + read.status().ToString());
    auto cp = commit::DecodeCheckpoint(read->data, name);
    if (!cp.ok()) return Fail("base checkpoint unreadable: " + cp.status().ToString());
    auto want = s.folds.find(s.meta.base_seq());
    if (want == s.folds.end()) return;
    std::map<uint64_t, uint64_t> pins;
    for (const commit::CheckpointTable& t : cp->tables) {
      pins[t.pin.stable_table_id] = t.pin.staged_version;
    }
    if (cp->head_commit_id != want->second.head_commit_id || pins != want->second.pins) {
      Fail("base checkpoint " + name + " differs from the model's fold there");
    }
  }

  static std::string Describe(const std::map<uint64_t, uint64_t>& pins) {
    std::string out;
    for (const auto& [t, v] : pins) out += " t" + std::to_string(t) + "=" + std::to_string(v);
    return out;
  }

  // Reads through the commit layer at every seq must equal the model's fold.
  void CheckReads(const StreamModel& s) {
    commit::StreamOptions options = SimStreamOptions();
    options.writable = false;
    auto stream = commit::Stream::FromMetadata(world_.direct_runtime(), s.meta, options);
    const std::string& key = s.meta.key;
    for (const auto& [seq, want] : s.folds) {
      Result<commit::GraphState> got = stream->ReadAt(seq);
      if (!got.ok()) {
        Fail("ReadAt(" + key + "@" + std::to_string(seq) + ") failed: " + got.status().ToString());
        continue;
      }
      std::map<uint64_t, uint64_t> pins;
      for (const auto& [id, t] : got->tables) pins[id.stable_table_id] = t.pin.staged_version;
      if (pins != want.pins || got->head_commit_id != want.head_commit_id || got->seq != seq) {
        Fail("ReadAt(" + key + "@" + std::to_string(seq) + ") =" + Describe(pins) + " head " +
             got->head_commit_id + "; the model's fold is" + Describe(want.pins) + " head " +
             want.head_commit_id);
      }
    }
    auto latest = stream->ReadLatest();
    if (!latest.ok()) return Fail("ReadLatest(" + key + ") failed: " + latest.status().ToString());
    if (!s.folds.empty() && (*latest)->seq != s.folds.rbegin()->first) {
      Fail("ReadLatest(" + key + ") ends at " + std::to_string((*latest)->seq) +
           ", the records at " + std::to_string(s.folds.rbegin()->first));
    }
  }

  // Acknowledged: exactly once, where the publisher was told. Failed: never. Otherwise: at most
  // once. And every landed commit carries the pin its operation staged.
  void CheckOperations() {
    std::map<std::string, std::vector<Occurrence>> seen;
    std::map<std::string, const OpEntry*> ops;
    for (const OpEntry& op : model_.ops) ops[op.op_id] = &op;
    for (const auto& [key, s] : streams_) {
      for (const auto& [seq, r] : s.records) {
        auto op_id = r.extra.find(kOpIdMember);
        if (op_id == r.extra.end() || !op_id->is_string()) continue;
        const std::string id = op_id->get<std::string>();
        seen[id].push_back(Occurrence{key, seq, r.commit_id});
        auto op = ops.find(id);
        if (op == ops.end()) {
          Fail("record " + key + "@" + std::to_string(seq) + " carries unknown operation " + id);
        } else if (r.pins.size() != 1 || r.pins[0].stable_table_id != op->second->table ||
                   r.pins[0].staged_version != op->second->staged_version) {
          Fail("record " + key + "@" + std::to_string(seq) + " does not carry the pin of " + id);
        }
      }
    }
    for (const OpEntry& op : model_.ops) {
      const std::vector<Occurrence>& at = seen[op.op_id];
      std::string where;
      for (const Occurrence& o : at) where += " " + o.key + "@" + std::to_string(o.seq);
      switch (op.outcome) {
        case OpOutcome::kAcked:
          if (at.size() != 1) {
            Fail("acknowledged " + op.op_id + " (" + op.commit_id + ") is present " +
                 std::to_string(at.size()) + " times:" + where);
          } else if (at[0].commit_id != op.commit_id || at[0].key != op.stream_key ||
                     at[0].seq != op.seq) {
            Fail("acknowledged " + op.op_id + " as " + op.commit_id + " but it landed as " +
                 at[0].commit_id);
          } else if (auto found =
                         commit::LookupCommit(*world_.direct_runtime().store, op.commit_id);
                     !found.ok()) {
            Fail("LookupCommit(" + op.commit_id + ") failed: " + found.status().ToString());
          }
          break;
        case OpOutcome::kFailed:
          if (!at.empty()) {
            Fail(op.op_id + " failed with " + op.status + " but is visible:" + where);
          }
          break;
        default:
          if (at.size() > 1)
            Fail(op.op_id + " landed " + std::to_string(at.size()) + " times:" + where);
          break;
      }
    }
  }

  // Retention: every pin of the fold at every commit a plan retains is kept.
  void CheckPlans() {
    for (size_t i = 0; i < model_.plans.size(); ++i) {
      const commit::RetentionPlan& plan = model_.plans[i];
      ++counts_.plans_checked;
      for (const auto& [key, horizon] : plan.horizons) {
        auto through = plan.retained_through.find(key);
        auto s = streams_.find(key);
        if (horizon == UINT64_MAX || through == plan.retained_through.end()) continue;
        if (s == streams_.end()) {
          Fail("retention plan " + std::to_string(i) + " retains unknown stream " + key);
          continue;
        }
        for (uint64_t seq = horizon; seq <= through->second; ++seq) {
          auto fold = s->second.folds.find(seq);
          if (fold == s->second.folds.end()) {
            Fail("retention plan " + std::to_string(i) + " retains " + key + "@" +
                 std::to_string(seq) + ", which does not exist");
            break;
          }
          for (const auto& [table, version] : fold->second.pins) {
            if (!plan.keep.count(commit::PinRef{TableId{table, 1}, version})) {
              Fail("retention plan " + std::to_string(i) + " retains " + key + "@" +
                   std::to_string(seq) + " but not its table " + std::to_string(table) +
                   " version " + std::to_string(version));
              return;
            }
          }
        }
      }
    }
  }

  SimWorld& world_;
  const SimModel& model_;
  std::vector<std::string>& v_;
  std::map<std::string, StreamModel> streams_;
  OracleCounts counts_;
};

}  // namespace

OracleCounts CheckOracles(SimWorld& world, const SimModel& model,
                          std::vector<std::string>& violations) {
  return Oracles(world, model, violations).Run();
}

}  // namespace omnigraph::testing
