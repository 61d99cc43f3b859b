// omnigraph-bench fragments: whether many small fragments slow scans (docs/design/decisions.md,
// "optimize").
//
// Loads the same `--rows` Person rows into two graphs: once as one load (one fragment per
// table), and as `--loads` loads of rows/loads rows each (one fragment per load). Then, on each
// graph, runs a full scan with a filter (count of people older than 50) `--reps` times, cold (a
// fresh Graph handle, so the fragments are read from the store) and warm (one handle whose
// execution cache keeps the table images), and reports the median times, the store GETs of a
// cold scan and the ratio many/one; then the many-load graph again after `optimize`
// (engine/ops/optimize.h), which compacts it to one fragment. On a local directory (`--store file`)
// or in memory. Timing is reported, never asserted.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "bench/bench.h"
#include "engine/graph/graph.h"
#include "engine/ops/load.h"
#include "engine/ops/optimize.h"
#include "engine/read/query.h"
#include "query/exec/exec_cache.h"
#include "storage/counting_store.h"
#include "storage/local_store.h"
#include "storage/memory_store.h"

namespace omnigraph::bench {
namespace {

constexpr std::string_view kSchema = "node Person { name: String @key  age: I32 }\n";
constexpr std::string_view kScan =
    "query old() { match { $p: Person  $p.age > 50 } return { count($p) as n } }";

std::string Rows(int64_t from, int64_t count) {
  std::string out;
  for (int64_t i = from; i < from + count; ++i) {
    out += "{\"type\":\"Person\",\"data\":{\"name\":\"p" + std::to_string(i) +
           "\",\"age\":" + std::to_string(i % 97) + "}}\n";
  }
  return out;
}

struct Measured {
  double cold_ms = 0;
  double warm_ms = 0;
  uint64_t cold_gets = 0;
  int64_t count = 0;
};

Result<Measured> Measure(const std::shared_ptr<storage::ObjectStore>& store, int reps) {
  Measured m;
  std::vector<double> cold, warm;
  for (int r = 0; r < reps; ++r) {
    auto counting = std::make_shared<storage::CountingStore>(store);
    storage::Runtime rt = storage::Runtime::ForStore(counting, 2);
    const int64_t t0 = NowNanos();
    OMNIGRAPH_ASSIGN_OR_RETURN(std::unique_ptr<engine::Graph> g, engine::Graph::Open(rt));
    OMNIGRAPH_ASSIGN_OR_RETURN(engine::Snapshot s, g->SnapshotOfBranch("main"));
    OMNIGRAPH_ASSIGN_OR_RETURN(OrderedJson out, engine::RunQuery(s, kScan, "", Json::object()));
    cold.push_back(static_cast<double>(NowNanos() - t0) / 1e6);
    m.cold_gets = counting->Snapshot().gets;
    m.count = out["rows"][0]["n"].get<int64_t>();
  }
  storage::Runtime rt = storage::Runtime::ForStore(store, 2);
  OMNIGRAPH_ASSIGN_OR_RETURN(std::unique_ptr<engine::Graph> g, engine::Graph::Open(rt));
  query::ExecCache cache;
  engine::RunOptions options;
  options.cache = &cache;
  for (int r = 0; r <= reps; ++r) {
    OMNIGRAPH_ASSIGN_OR_RETURN(engine::Snapshot s, g->SnapshotOfBranch("main"));
    const int64_t t0 = NowNanos();
    OMNIGRAPH_RETURN_IF_ERROR(engine::RunQuery(s, kScan, "", Json::object(), options).status());
    if (r > 0) warm.push_back(static_cast<double>(NowNanos() - t0) / 1e6);  // r 0 fills it.
  }
  m.cold_ms = Percentile(cold, 50);
  m.warm_ms = Percentile(warm, 50);
  return m;
}

Result<std::shared_ptr<storage::ObjectStore>> Build(const std::string& kind,
                                                    const std::string& root, int64_t rows,
                                                    int64_t loads, bool optimize) {
  std::shared_ptr<storage::ObjectStore> store;
  if (kind == "memory") {
    store = std::make_shared<storage::MemoryStore>();
  } else {
    std::filesystem::remove_all(root);
    std::filesystem::create_directories(root);
    OMNIGRAPH_ASSIGN_OR_RETURN(store, storage::LocalStore::Open(root));
  }
  storage::Runtime rt = storage::Runtime::ForStore(store, 2);
  OMNIGRAPH_ASSIGN_OR_RETURN(std::unique_ptr<engine::Graph> g, engine::Graph::Init(rt, kSchema));
  const int64_t per = rows / loads;
  for (int64_t l = 0; l < loads; ++l) {
    OMNIGRAPH_RETURN_IF_ERROR(
        engine::Load(*g, "main", Rows(l * per, per), engine::LoadMode::kAppend).status());
  }
  if (optimize) OMNIGRAPH_RETURN_IF_ERROR(engine::Optimize(*g, {}).status());
  return store;
}

int Main(const std::vector<std::string>& args) {
  Flags flags(args, {"rows", "loads", "reps", "store"});
  if (!flags.error().empty()) {
    std::fprintf(stderr, "omnigraph-bench fragments: %s\n", flags.error().c_str());
    return 2;
  }
  const int64_t rows = flags.GetInt("rows", 20000);
  const int64_t loads = flags.GetInt("loads", 200);
  const int reps = static_cast<int>(flags.GetInt("reps", 5));
  const std::string kind = flags.Get("store", "file");
  const std::string root = std::filesystem::temp_directory_path() / "omnigraph-bench-fragments";
  std::printf("%-8s %8s %10s %10s %10s %8s\n", "graph", "loads", "cold_ms", "warm_ms", "cold_gets",
              "count");
  Measured got[3];
  const int64_t counts[3] = {1, loads, loads};
  const char* const names[3] = {"one", "many", "compact"};
  for (int i = 0; i < 3; ++i) {
    Result<std::shared_ptr<storage::ObjectStore>> store =
        Build(kind, root + std::to_string(i), rows, counts[i], i == 2);
    Result<Measured> m = store.ok() ? Measure(*store, reps) : store.status();
    if (!m.ok()) {
      std::fprintf(stderr, "omnigraph-bench fragments: %s\n", m.status().ToString().c_str());
      return 1;
    }
    got[i] = *m;
    std::printf("%-8s %8lld %10.2f %10.2f %10llu %8lld\n", names[i],
                static_cast<long long>(counts[i]), m->cold_ms, m->warm_ms,
                static_cast<unsigned long long>(m->cold_gets), static_cast<long long>(m->count));
  }
  std::printf("ratio many/one: cold %.2fx, warm %.2fx, cold gets %.1fx\n",
              got[1].cold_ms / got[0].cold_ms, got[1].warm_ms / got[0].warm_ms,
              static_cast<double>(got[1].cold_gets) / static_cast<double>(got[0].cold_gets));
  std::printf("ratio compact/one: cold %.2fx, warm %.2fx, cold gets %.1fx\n",
              got[2].cold_ms / got[0].cold_ms, got[2].warm_ms / got[0].warm_ms,
              static_cast<double>(got[2].cold_gets) / static_cast<double>(got[0].cold_gets));
  for (int i = 0; i < 3; ++i) std::filesystem::remove_all(root + std::to_string(i));
  return got[0].count == got[1].count && got[0].count == got[2].count ? 0 : 1;
}

Registrar registrar("fragments", "scans over one fragment per table beside many small ones", &Main);

}  // namespace
}  // namespace omnigraph::bench
