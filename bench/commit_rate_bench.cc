// omnigraph-bench commit-rate: many concurrent single-row writers on one branch, with group
// commit off and on (docs/design/engine.md "Group commit"). For each writer count: commits/s,
// writes/s, p50/p99 acknowledgement latency, and the on/off ratio of writes/s.
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <thread>

#include "bench/bench.h"
#include "engine/graph/graph.h"
#include "engine/write/mutate.h"
#include "storage/local_store.h"
#include "storage/memory_store.h"
#include "storage/uri.h"

namespace omnigraph::bench {
namespace {

constexpr std::string_view kSchema = "node Fact { key: String @key  value: I64 }\n";
constexpr std::string_view kInsert =
    "query add($key: String, $value: I64) { insert Fact { key: $key, value: $value } }";

struct Run {
  double seconds = 0;
  uint64_t commits = 0;
  uint64_t writes = 0;
  uint64_t failures = 0;
  double p50_ms = 0;
  double p99_ms = 0;
};

Result<std::shared_ptr<storage::ObjectStore>> FreshStore(const std::string& backend,
                                                         const std::string& root, int run) {
  const std::string tag = "run-" + std::to_string(run) + "-" + std::to_string(NowNanos());
  if (backend == "memory")
    return std::shared_ptr<storage::ObjectStore>(std::make_shared<storage::MemoryStore>());
  if (backend == "file") {
    const std::string dir =
        (root.empty() ? std::filesystem::temp_directory_path().string() + "/omnigraph-bench-rate"
                      : root) +
        "/" + tag;
    OMNIGRAPH_ASSIGN_OR_RETURN(auto store, storage::LocalStore::Open(dir));
    return std::shared_ptr<storage::ObjectStore>(std::move(store));
  }
  if (root.empty()) return InvalidArgument("--root URI is needed for backend " + backend);
  return storage::OpenStore(root + "/" + tag);
}

// `writers` threads, each doing `per_writer` single-row inserts back to back.
Result<Run> Measure(const std::string& backend, const std::string& root, int run, int writers,
                    int per_writer, bool group) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<storage::ObjectStore> store,
                             FreshStore(backend, root, run));
  storage::Runtime rt = storage::Runtime::ForStore(store, 4);
  OMNIGRAPH_ASSIGN_OR_RETURN(std::unique_ptr<engine::Graph> graph,
                             engine::Graph::Init(rt, kSchema));
  graph->SetGroupCommit(engine::GroupCommitOptions{group});
  OMNIGRAPH_ASSIGN_OR_RETURN(engine::Snapshot start, graph->SnapshotOfBranch("main"));
  std::vector<std::vector<double>> latencies(writers);
  std::atomic<uint64_t> failures{0};
  std::vector<std::thread> threads;
  const int64_t began = NowNanos();
  for (int w = 0; w < writers; ++w) {
    threads.emplace_back([&, w] {
      for (int i = 0; i < per_writer; ++i) {
        const std::map<std::string, schema::Value> params = {
            {"key", schema::Value::String("w" + std::to_string(w) + "-" + std::to_string(i))},
            {"value", schema::Value::Int(i)}};
        const int64_t t0 = NowNanos();
        Result<engine::MutationResult> r = engine::Mutate(*graph, kInsert, "add", params);
        latencies[w].push_back((NowNanos() - t0) / 1e6);
        if (!r.ok()) {
          if (failures++ == 0)
            std::fprintf(stderr, "write failed: %s\n", r.status().ToString().c_str());
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  Run out;
  out.seconds = (NowNanos() - began) / 1e9;
  OMNIGRAPH_ASSIGN_OR_RETURN(engine::Snapshot end, graph->SnapshotOfBranch("main"));
  out.commits = end.state().seq - start.state().seq;
  out.failures = failures.load();
  out.writes = static_cast<uint64_t>(writers) * per_writer - out.failures;
  std::vector<double> all;
  for (auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
  out.p50_ms = Percentile(all, 50);
  out.p99_ms = Percentile(all, 99);
  return out;
}

int Main(const std::vector<std::string>& args) {
  Flags flags(args, {"backend", "root", "writers", "writes", "json"});
  if (!flags.error().empty()) {
    std::fprintf(stderr, "omnigraph-bench commit-rate: %s\n", flags.error().c_str());
    return 2;
  }
  const std::string backend = flags.Get("backend", "file");
  const std::string root = flags.Get("root");
  // Writes per run (split among the writers), so every writer count does the same work.
  const int64_t total = flags.GetInt("writes", 256);
  const bool json = flags.Has("json");
  int run = 0;
  for (int64_t writers : flags.GetIntList("writers", {1, 4, 16, 64})) {
    const int per_writer = static_cast<int>(std::max<int64_t>(1, total / writers));
    Run result[2];
    for (int group = 0; group < 2; ++group) {
      Result<Run> r = Measure(backend, root, run++, static_cast<int>(writers), per_writer, group);
      if (!r.ok()) {
        std::fprintf(stderr, "omnigraph-bench commit-rate: %s\n", r.status().ToString().c_str());
        return 1;
      }
      result[group] = *r;
    }
    for (int group = 0; group < 2; ++group) {
      const Run& r = result[group];
      const double writes_s = r.writes / r.seconds;
      const double ratio = writes_s / (result[0].writes / result[0].seconds);
      if (json) {
        std::printf(
            "{\"backend\":\"%s\",\"writers\":%lld,\"group_commit\":%s,\"writes\":%llu,"
            "\"failures\":%llu,\"commits\":%llu,\"seconds\":%.3f,\"commits_per_s\":%.1f,"
            "\"writes_per_s\":%.1f,\"p50_ms\":%.2f,\"p99_ms\":%.2f,\"ratio_writes_per_s\":%.2f}\n",
            backend.c_str(), static_cast<long long>(writers), group ? "true" : "false",
            static_cast<unsigned long long>(r.writes), static_cast<unsigned long long>(r.failures),
            static_cast<unsigned long long>(r.commits), r.seconds, r.commits / r.seconds, writes_s,
            r.p50_ms, r.p99_ms, ratio);
      } else {
        std::printf(
            "%-7s writers=%-3lld group=%-3s writes=%-5llu commits=%-5llu %8.1f commits/s %8.1f "
            "writes/s p50=%7.2f ms p99=%7.2f ms ratio=%.2f\n",
            backend.c_str(), static_cast<long long>(writers), group ? "on" : "off",
            static_cast<unsigned long long>(r.writes), static_cast<unsigned long long>(r.commits),
            r.commits / r.seconds, writes_s, r.p50_ms, r.p99_ms, ratio);
      }
      std::fflush(stdout);
    }
  }
  return 0;
}

Registrar registrar("commit-rate",
                    "Concurrent single-row writers on one branch, group commit off and on", &Main);

}  // namespace
}  // namespace omnigraph::bench
