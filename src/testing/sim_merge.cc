// The `merges` scenario (testing/sim_merge.h).
//
// The model keeps its own commit DAG: every commit the graph publishes gets a model commit with
// its parents, generation and the full state of the branch (items by name with their tag; links
// by their unique label with their endpoints). Its merge base is computed from full ancestor sets
// (the common ancestors of the highest generation, then the smallest commit id), not by the
// engine's queue walk; its merge is per entity with set semantics; a merged state with a link
// whose endpoint is gone is an orphan_edge. After every step every live branch's export must equal
// the model's state, and every merge's outcome (and conflict kinds) the model's prediction.
#include "testing/sim_merge.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "base/hash.h"
#include "base/json.h"
#include "base/random.h"
#include "engine/graph/graph.h"
#include "engine/ops/export.h"
#include "engine/ops/merge.h"
#include "engine/write/mutate.h"
#include "storage/memory_store.h"

namespace omnigraph::testing {
namespace {

constexpr std::string_view kMergeSchema = R"(
node Item { name: String @key  tag: String? }
edge Link: Item -> Item { label: String }
)";

constexpr std::string_view kMergeQueries = R"(
query add($n: String, $t: String) { insert Item { name: $n, tag: $t } }
query retag($n: String, $t: String) { update Item set { tag: $t } where name = $n }
query drop($n: String) { delete Item where name = $n }
query link($a: String, $b: String, $l: String) { insert Link { from: $a, to: $b, label: $l } }
query unlink($l: String) { delete Link where label = $l }
)";

constexpr int kStepsPerRun = 16;
constexpr int kItemNames = 6;
constexpr int kBranchNames = 4;

struct MState {
  std::map<std::string, std::string> items;                          // name -> tag
  std::map<std::string, std::pair<std::string, std::string>> links;  // label -> (from, to)
  bool operator==(const MState&) const = default;
};

struct MCommit {
  std::string id;
  std::vector<int> parents;
  uint64_t gen = 0;
  MState state;
};

struct Model {
  std::vector<MCommit> commits;
  std::map<std::string, int> heads;  // Live branch -> commit index.

  std::set<int> Ancestors(int c) const {
    std::set<int> out;
    std::vector<int> stack{c};
    while (!stack.empty()) {
      const int at = stack.back();
      stack.pop_back();
      if (!out.insert(at).second) continue;
      for (int p : commits[at].parents) stack.push_back(p);
    }
    return out;
  }
  int MergeBase(int a, int b) const {
    const std::set<int> x = Ancestors(a), y = Ancestors(b);
    int best = -1;
    for (int c : x) {
      if (!y.contains(c)) continue;
      if (best < 0 || commits[c].gen > commits[best].gen ||
          (commits[c].gen == commits[best].gen && commits[c].id < commits[best].id)) {
        best = c;
      }
    }
    return best;
  }
  void Commit(const std::string& branch, const std::string& id, MState state, int merged = -1) {
    MCommit c;
    c.id = id;
    c.parents = {heads.at(branch)};
    c.gen = commits[heads.at(branch)].gen + 1;
    if (merged >= 0) {
      c.parents.push_back(merged);
      c.gen = std::max(c.gen, commits[merged].gen + 1);
    }
    c.state = std::move(state);
    commits.push_back(std::move(c));
    heads[branch] = static_cast<int>(commits.size()) - 1;
  }
};

// Per-entity three-way merge of one map; conflict kinds into `kinds`.
template <typename V>
std::map<std::string, V> MergeMap(const std::map<std::string, V>& b,
                                  const std::map<std::string, V>& s,
                                  const std::map<std::string, V>& t,
                                  std::vector<std::string>& kinds) {
  std::set<std::string> keys;
  for (const auto* m : {&b, &s, &t}) {
    for (const auto& [k, v] : *m) keys.insert(k);
  }
  std::map<std::string, V> out;
  auto get = [](const std::map<std::string, V>& m, const std::string& k) -> std::optional<V> {
    auto it = m.find(k);
    return it == m.end() ? std::nullopt : std::optional<V>(it->second);
  };
  for (const std::string& k : keys) {
    const std::optional<V> vb = get(b, k), vs = get(s, k), vt = get(t, k);
    std::optional<V> result;
    if (vs == vb) {
      result = vt;
    } else if (vt == vb || vs == vt) {
      result = vs;
    } else if (!vb) {
      kinds.push_back("divergent_insert");
    } else if (!vs || !vt) {
      kinds.push_back("delete_vs_update");
    } else {
      kinds.push_back("divergent_update");
    }
    if (result) out.emplace(k, *result);
  }
  return out;
}

// The model's merge of `source` into `target`: the outcome, conflict kinds and merged state.
struct Predicted {
  engine::MergeOutcome outcome;
  std::vector<std::string> kinds;
  MState state;
};

Predicted PredictMerge(const Model& m, const std::string& source, const std::string& target) {
  const int s = m.heads.at(source), t = m.heads.at(target);
  const int base = m.MergeBase(s, t);
  Predicted p;
  if (base == s) return {engine::MergeOutcome::kAlreadyUpToDate, {}, m.commits[t].state};
  if (base == t) return {engine::MergeOutcome::kFastForward, {}, m.commits[s].state};
  const MState &b = m.commits[base].state, &ss = m.commits[s].state, &ts = m.commits[t].state;
  p.state.items = MergeMap(b.items, ss.items, ts.items, p.kinds);
  p.state.links = MergeMap(b.links, ss.links, ts.links, p.kinds);
  if (p.kinds.empty()) {
    for (const auto& [label, ends] : p.state.links) {
      if (!p.state.items.contains(ends.first) || !p.state.items.contains(ends.second)) {
        p.kinds.push_back("orphan_edge");
        break;
      }
    }
  }
  std::sort(p.kinds.begin(), p.kinds.end());
  p.outcome = p.kinds.empty() ? engine::MergeOutcome::kMerged : engine::MergeOutcome::kConflicts;
  return p;
}

// One run: the graph, the model, the seeded choices and what was seen.
class MergeRun {
 public:
  MergeRun(uint64_t seed, SimRunResult& out) : random_(seed ^ 0x6d65726765ULL), out_(out) {}

  void Run(uint64_t seed) {
    auto store = std::make_shared<storage::MemoryStore>();
    Result<std::unique_ptr<engine::Graph>> g = engine::Graph::Init(
        storage::Runtime::ForTest(store, seed), kMergeSchema, engine::InitOptions{"sim", 4});
    if (!g.ok()) return Violation("init: " + g.status().ToString());
    graph_ = std::move(*g);
    MCommit genesis;
    genesis.id = graph_->SnapshotOfBranch("main")->commit_id();
    model_.commits.push_back(genesis);
    model_.heads["main"] = 0;
    // Two branches to start with, so that most runs merge from the first steps.
    for (const char* name : {"b1", "b2"}) {
      Trace(std::string("create ") + name + " from main");
      Status s = graph_->CreateBranch(name, "main").status();
      if (!s.ok()) return Violation("create failed: " + s.ToString());
      model_.heads[name] = 0;
    }
    for (int step = 0; step < kStepsPerRun && out_.violations.empty(); ++step) {
      Step();
      Check();
    }
  }

 private:
  void Violation(const std::string& what) {
    out_.violations.push_back("step " + std::to_string(steps_) + " (" + last_ + "): " + what);
  }
  void Trace(const std::string& event) {
    last_ = event;
    out_.trace_hash = XxHash64(event, out_.trace_hash);
    out_.trace_tail.push_back(event);
    if (out_.trace_tail.size() > 20) out_.trace_tail.erase(out_.trace_tail.begin());
  }
  std::string Pick(const std::vector<std::string>& from) {
    return from[random_.Uniform(from.size())];
  }
  std::vector<std::string> Live() const {
    std::vector<std::string> out;
    for (const auto& [name, head] : model_.heads) out.push_back(name);
    return out;
  }
  const MState& StateOf(const std::string& branch) const {
    return model_.commits[model_.heads.at(branch)].state;
  }

  // A mutation on `branch`; the model's state after it when it published.
  void Mutate(const std::string& branch, std::string_view query,
              std::map<std::string, schema::Value> params, MState after) {
    engine::MutationOptions options;
    options.branch = branch;
    Result<engine::MutationResult> r =
        engine::Mutate(*graph_, kMergeQueries, query, params, options);
    if (!r.ok()) return Violation("mutation failed: " + r.status().ToString());
    ++out_.ops_acked;
    if (r->commit) model_.Commit(branch, *r->commit, std::move(after));
  }

  void Step();
  void Write(const std::string& branch, uint64_t roll);
  void Merge(const std::string& source, const std::string& target);
  void Check();

  Random random_;
  SimRunResult& out_;
  std::unique_ptr<engine::Graph> graph_;
  Model model_;
  int steps_ = 0;
  int labels_ = 0;
  std::string last_;
};

void MergeRun::Step() {
  ++steps_;
  const uint64_t roll = random_.Uniform(100);
  std::vector<std::string> live = Live();
  if (roll < 12 && live.size() < 1 + kBranchNames) {
    std::string name;
    do {
      name = "b" + std::to_string(1 + random_.Uniform(kBranchNames));
    } while (model_.heads.contains(name));
    const std::string from = Pick(live);
    Trace("create " + name + " from " + from);
    Status s = graph_->CreateBranch(name, from).status();
    if (!s.ok()) return Violation("create failed: " + s.ToString());
    model_.heads[name] = model_.heads.at(from);
    return;
  }
  if (roll < 17 && live.size() > 1) {
    std::string name;
    do {
      name = Pick(live);
    } while (name == "main");
    Trace("delete " + name);
    Status s = graph_->DeleteBranch(name);
    if (!s.ok()) return Violation("delete failed: " + s.ToString());
    model_.heads.erase(name);
    return;
  }
  if (roll < 45 && live.size() > 1) {
    const std::string source = Pick(live);
    std::string target;
    do {
      target = Pick(live);
    } while (target == source);
    return Merge(source, target);
  }
  Write(Pick(live), random_.Uniform(100));
}

void MergeRun::Write(const std::string& branch, uint64_t roll) {
  using schema::Value;
  MState after = StateOf(branch);
  std::vector<std::string> present;
  for (const auto& [name, tag] : after.items) present.push_back(name);
  const std::string tag = "t" + std::to_string(random_.Uniform(3));
  if (roll < 30 || present.empty()) {
    const std::string name = "i" + std::to_string(random_.Uniform(kItemNames));
    if (after.items.contains(name)) return Write(branch, 40);
    Trace("add " + name + " " + tag + " on " + branch);
    after.items[name] = tag;
    return Mutate(branch, "add", {{"n", Value::String(name)}, {"t", Value::String(tag)}}, after);
  }
  if (roll < 55) {
    const std::string name = Pick(present);
    Trace("retag " + name + " " + tag + " on " + branch);
    after.items[name] = tag;
    return Mutate(branch, "retag", {{"n", Value::String(name)}, {"t", Value::String(tag)}}, after);
  }
  if (roll < 70) {
    const std::string name = Pick(present);
    Trace("drop " + name + " on " + branch);
    after.items.erase(name);
    std::erase_if(after.links,
                  [&](const auto& l) { return l.second.first == name || l.second.second == name; });
    return Mutate(branch, "drop", {{"n", Value::String(name)}}, after);
  }
  if (roll < 90 || after.links.empty()) {
    const std::string a = Pick(present), b = Pick(present);
    const std::string label = "l" + std::to_string(++labels_);
    Trace("link " + a + "->" + b + " " + label + " on " + branch);
    after.links[label] = {a, b};
    return Mutate(branch, "link",
                  {{"a", Value::String(a)}, {"b", Value::String(b)}, {"l", Value::String(label)}},
                  after);
  }
  std::vector<std::string> labels;
  for (const auto& [label, ends] : after.links) labels.push_back(label);
  const std::string label = Pick(labels);
  Trace("unlink " + label + " on " + branch);
  after.links.erase(label);
  Mutate(branch, "unlink", {{"l", Value::String(label)}}, after);
}

void MergeRun::Merge(const std::string& source, const std::string& target) {
  Trace("merge " + source + " into " + target);
  const Predicted want = PredictMerge(model_, source, target);
  Result<engine::MergeResult> got =
      engine::Merge(*graph_, engine::MergeRequest{source, target, std::nullopt});
  if (!got.ok()) return Violation("merge failed: " + got.status().ToString());
  std::vector<std::string> kinds;
  for (const engine::MergeConflict& c : got->conflicts) kinds.push_back(c.kind);
  std::sort(kinds.begin(), kinds.end());
  Trace("merge " + source + " into " + target + " -> " + engine::MergeOutcomeName(got->outcome));
  ++out_.outcome_counts[engine::MergeOutcomeName(got->outcome)];
  if (got->outcome != want.outcome || kinds != want.kinds) {
    std::string k, w;
    for (const std::string& x : kinds) k += " " + x;
    for (const std::string& x : want.kinds) w += " " + x;
    return Violation(std::string("merge outcome ") + engine::MergeOutcomeName(got->outcome) + k +
                     ", the model says " + engine::MergeOutcomeName(want.outcome) + w);
  }
  if (got->outcome == engine::MergeOutcome::kConflicts) {
    ++out_.ops_failed;
    return;
  }
  ++out_.ops_acked;
  if (got->commit_id) model_.Commit(target, *got->commit_id, want.state, model_.heads.at(source));
}

// Every live branch (and no other) exists, and its export equals the model's state.
void MergeRun::Check() {
  Result<std::vector<commit::BranchInfo>> listed = graph_->ListBranches();
  if (!listed.ok()) return Violation("list branches: " + listed.status().ToString());
  std::set<std::string> names;
  for (const commit::BranchInfo& b : *listed) names.insert(b.branch);
  const std::vector<std::string> live = Live();
  if (names != std::set<std::string>(live.begin(), live.end())) {
    return Violation("the live branches differ from the model's");
  }
  for (const std::string& branch : live) {
    Result<engine::Snapshot> snap = graph_->SnapshotOfBranch(branch);
    if (!snap.ok()) return Violation("read " + branch + ": " + snap.status().ToString());
    Result<std::string> text = engine::ExportToString(*snap);
    if (!text.ok()) return Violation("export " + branch + ": " + text.status().ToString());
    MState seen;
    std::istringstream in(*text);
    for (std::string line; std::getline(in, line);) {
      const Json j = Json::parse(line);
      if (j.contains("type")) {
        seen.items[j["data"]["name"]] = j["data"]["tag"];
      } else {
        seen.links[j["data"]["label"]] = {j["from"], j["to"]};
      }
    }
    ++out_.graph_seqs;
    if (seen != StateOf(branch)) return Violation("branch " + branch + " differs from the model");
  }
}

}  // namespace

void RunMergeScenario(uint64_t seed, SimRunResult& out) {
  MergeRun run(seed, out);
  run.Run(seed);
  out.passed = out.violations.empty();
}

}  // namespace omnigraph::testing
