// omnigraph-bench merge: what a three-way merge costs against the size of the change, on a graph
// far larger than the change (docs/design/merge.md "Cost").
//
// Loads `--rows` Person rows (default 1,000,000) into one graph on a local directory. For each
// change size k in `--sizes` (default 1,100,10000), `--reps` times: a branch is created from
// main, k existing people are updated on it (a merge-mode load of k rows), one new person is
// added on main (so the merge is a real three-way merge, not a fast-forward), and the branch is
// merged into main. The reference, in the same run on the same store: the same k-row load onto
// another fresh branch. Reported per k: median merge and load latency, their ratio, and the
// object operations of each (a CountingStore under the handle). Timing is reported, never
// asserted; `--json` prints one JSON object for bench/results.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "base/json.h"
#include "bench/bench.h"
#include "engine/graph/graph.h"
#include "engine/ops/load.h"
#include "engine/ops/merge.h"
#include "storage/counting_store.h"
#include "storage/local_store.h"

namespace omnigraph::bench {
namespace {

constexpr std::string_view kSchema = "node Person { name: String @key  age: I32 }\n";

std::string People(int64_t from, int64_t count, int64_t step, int64_t age) {
  std::string out;
  for (int64_t i = 0; i < count; ++i) {
    out += "{\"type\":\"Person\",\"data\":{\"name\":\"p" + std::to_string(from + i * step) +
           "\",\"age\":" + std::to_string(age) + "}}\n";
  }
  return out;
}

struct Sample {
  std::vector<double> merge_ms, load_ms;
  storage::OpCounts merge_ops, load_ops;
  std::string outcome;
};

// One rep of size k: returns the merge and the reference load's time and operations.
Status Rep(engine::Graph& g, storage::CountingStore& counting, int64_t rows, int64_t k, int rep,
           Sample& out) {
  const std::string tag = std::to_string(k) + "-" + std::to_string(rep);
  const std::string change = People(rep, k, rows / k, 1000 + rep);
  // The reference: the same rows loaded onto a branch of their own.
  OMNIGRAPH_RETURN_IF_ERROR(g.CreateBranch("load-" + tag, "main").status());
  counting.Reset();
  int64_t t0 = NowNanos();
  OMNIGRAPH_RETURN_IF_ERROR(
      engine::Load(g, "load-" + tag, change, engine::LoadMode::kMerge).status());
  out.load_ms.push_back(static_cast<double>(NowNanos() - t0) / 1e6);
  out.load_ops = counting.Snapshot();
  // The merge: k updates on the branch, one insert on main, then the branch into main.
  OMNIGRAPH_RETURN_IF_ERROR(g.CreateBranch("b-" + tag, "main").status());
  OMNIGRAPH_RETURN_IF_ERROR(engine::Load(g, "b-" + tag, change, engine::LoadMode::kMerge).status());
  OMNIGRAPH_RETURN_IF_ERROR(
      engine::Load(g, "main", People(rows + 1000 * rep + k, 1, 1, 7), engine::LoadMode::kAppend)
          .status());
  counting.Reset();
  t0 = NowNanos();
  OMNIGRAPH_ASSIGN_OR_RETURN(
      engine::MergeResult merged,
      engine::Merge(g, engine::MergeRequest{"b-" + tag, "main", std::nullopt}));
  out.merge_ms.push_back(static_cast<double>(NowNanos() - t0) / 1e6);
  out.merge_ops = counting.Snapshot();
  out.outcome = engine::MergeOutcomeName(merged.outcome);
  if (merged.outcome != engine::MergeOutcome::kMerged) {
    return Internal("merge of " + std::to_string(k) + " changes ended " + out.outcome);
  }
  return Status::Ok();
}

Json OpsJson(const storage::OpCounts& c) {
  return Json{{"gets", c.gets},
              {"heads", c.heads},
              {"lists", c.lists},
              {"puts", c.puts},
              {"put_if_absent", c.put_if_absent},
              {"bytes_read", c.bytes_read},
              {"bytes_written", c.bytes_written}};
}

int Main(const std::vector<std::string>& args) {
  Flags flags(args, {"rows", "sizes", "reps", "json"});
  if (!flags.error().empty()) {
    std::fprintf(stderr, "omnigraph-bench merge: %s\n", flags.error().c_str());
    return 2;
  }
  const int64_t rows = flags.GetInt("rows", 1000000);
  const std::vector<int64_t> sizes = flags.GetIntList("sizes", {1, 100, 10000});
  const int reps = static_cast<int>(flags.GetInt("reps", 3));
  const std::string root = std::filesystem::temp_directory_path() / "omnigraph-bench-merge";
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root);
  auto fail = [](const Status& s) {
    std::fprintf(stderr, "omnigraph-bench merge: %s\n", s.ToString().c_str());
    return 1;
  };
  Result<std::unique_ptr<storage::LocalStore>> local = storage::LocalStore::Open(root);
  if (!local.ok()) return fail(local.status());
  auto counting = std::make_shared<storage::CountingStore>(
      std::shared_ptr<storage::LocalStore>(std::move(*local)));
  Result<std::unique_ptr<engine::Graph>> g =
      engine::Graph::Init(storage::Runtime::ForStore(counting, 2), kSchema);
  if (!g.ok()) return fail(g.status());
  const int64_t t0 = NowNanos();
  Status loaded =
      engine::Load(**g, "main", People(0, rows, 1, 1), engine::LoadMode::kAppend).status();
  if (!loaded.ok()) return fail(loaded);
  const double load_all_s = static_cast<double>(NowNanos() - t0) / 1e9;
  Json results = Json::array();
  if (!flags.Has("json")) {
    std::printf("graph: %lld people loaded in %.1f s\n", static_cast<long long>(rows), load_all_s);
    std::printf("%8s %10s %10s %8s %10s %10s %10s %10s\n", "changed", "merge_ms", "load_ms",
                "ratio", "merge_gets", "load_gets", "merge_puts", "load_puts");
  }
  for (int64_t k : sizes) {
    Sample s;
    for (int rep = 0; rep < reps; ++rep) {
      Status st = Rep(**g, *counting, rows, k, rep, s);
      if (!st.ok()) return fail(st);
    }
    const double merge_ms = Percentile(s.merge_ms, 50), load_ms = Percentile(s.load_ms, 50);
    results.push_back(Json{{"changed", k},
                           {"merge_ms_p50", merge_ms},
                           {"load_ms_p50", load_ms},
                           {"ratio_merge_to_load", merge_ms / load_ms},
                           {"merge_ops", OpsJson(s.merge_ops)},
                           {"load_ops", OpsJson(s.load_ops)}});
    if (!flags.Has("json")) {
      std::printf("%8lld %10.2f %10.2f %8.2f %10llu %10llu %10llu %10llu\n",
                  static_cast<long long>(k), merge_ms, load_ms, merge_ms / load_ms,
                  static_cast<unsigned long long>(s.merge_ops.gets),
                  static_cast<unsigned long long>(s.load_ops.gets),
                  static_cast<unsigned long long>(s.merge_ops.writes()),
                  static_cast<unsigned long long>(s.load_ops.writes()));
    }
  }
  if (flags.Has("json")) {
    Json out{{"bench", "merge"},
             {"store", "file"},
             {"rows", rows},
             {"reps", reps},
             {"initial_load_s", load_all_s},
             {"results", results}};
    std::printf("%s\n", out.dump(2).c_str());
  }
  std::filesystem::remove_all(root);
  return 0;
}

Registrar registrar("merge", "three-way merge of 1..10k changed entities beside loading them",
                    &Main);

}  // namespace
}  // namespace omnigraph::bench
