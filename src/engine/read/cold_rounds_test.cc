// Dependent request rounds of a fresh handle's first query (docs/design/storage.md "Wrappers",
// docs/benchmarks.md "Cold queries over a remote store"): on a store that answers every request
// after a fixed delay, a cold query waits for one delay per round, so independent reads must go
// out together. The store here delays each call by 30 ms (FaultStore latency) — far above the
// time a pool thread takes to pick up a task — so calls issued together finish in the same round
// and the counts are exact. A round that reappears is a read that went back to waiting for
// another.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>

#include "engine/graph/graph.h"
#include "engine/ops/load.h"
#include "engine/read/prepared.h"
#include "engine/read/query.h"
#include "storage/counting_store.h"
#include "storage/fault_store.h"
#include "storage/forwarding_store.h"
#include "storage/memory_store.h"

namespace omnigraph::engine {
namespace {

constexpr std::string_view kSchema = R"(
node Person { name: String @key  age: I32 }
edge Knows: Person -> Person
)";

constexpr std::string_view kQueries = R"(
query lookup($n: String) { match { $p: Person { name: $n } } return { $p.name, $p.age } }
query hop1($n: String) { match { $a: Person { name: $n }  $a knows $b } return { count($b) as n } }
)";

// 2,400 persons and 7,200 edges: both tables keep their id indexes (and Knows its adjacency).
std::shared_ptr<storage::MemoryStore> MakeGraph() {
  auto store = std::make_shared<storage::MemoryStore>();
  Result<std::unique_ptr<Graph>> g = Graph::Init(storage::Runtime::ForTest(store, 3), kSchema);
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  std::string lines;
  constexpr int kPersons = 2400;
  for (int i = 0; i < kPersons; ++i) {
    lines += "{\"type\":\"Person\",\"data\":{\"name\":\"p" + std::to_string(i) +
             "\",\"age\":" + std::to_string(i % 90) + "}}\n";
  }
  for (int i = 0; i < kPersons; ++i) {
    for (int d = 1; d <= 3; ++d) {
      lines += "{\"edge\":\"Knows\",\"from\":\"p" + std::to_string(i) + "\",\"to\":\"p" +
               std::to_string((i + d) % kPersons) + "\"}\n";
    }
  }
  Result<LoadResult> loaded = LoadJsonl(**g, "main", lines, LoadMode::kMerge);
  EXPECT_TRUE(loaded.ok()) << loaded.status().ToString();
  return store;
}

// The memory store answering as a remote one (storage::ObjectStore::Remote, decision 213).
class RemoteLike : public storage::ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  bool Remote() const override { return true; }
};

struct ColdRunOptions {
  size_t threads = 4;                       // The pool a process has.
  bool remote = false;                      // The store says it is remote.
  std::optional<uint64_t> point_edges_min;  // RunOptions::point_edges_min.
};

// The store calls of a fresh handle's open and first run of `name` over `store`, every call
// delayed by 30 ms.
storage::OpCounts ColdRun(const std::shared_ptr<storage::MemoryStore>& store, std::string_view name,
                          OrderedJson* rows, const ColdRunOptions& run = {}) {
  std::shared_ptr<storage::ObjectStore> base = store;
  if (run.remote) base = std::make_shared<RemoteLike>(base);
  auto delayed = std::make_shared<storage::FaultStore>(base);
  storage::FaultRule latency;
  latency.kind = storage::FaultKind::kLatency;
  latency.times = -1;
  latency.latency_micros = 30'000;
  delayed->AddRule(latency);
  auto counting = std::make_shared<storage::CountingStore>(delayed);
  const storage::Runtime runtime = storage::Runtime::ForStore(counting, run.threads);
  Result<std::unique_ptr<Graph>> graph = Graph::Open(runtime);
  EXPECT_TRUE(graph.ok()) << graph.status().ToString();
  if (!graph.ok()) return {};
  // As a Database handle runs a read: through its caches, on the head of main.
  query::ExecCache cache;
  PreparedQueries prepared;
  RunOptions options;
  options.cache = &cache;
  options.prepared = &prepared;
  options.point_edges_min = run.point_edges_min;
  Result<OrderedJson> out = RunReadJson(**graph, kQueries, name, Json{{"n", "p7"}}, options);
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  if (out.ok()) *rows = (*out)["rows"];
  return counting->Snapshot();
}

// Open: the stamp with the genesis HEAD and main's metadata with its hint (decision 205). The
// head: the hint's record with the checkpoint below it and the schema the hint names; the probe
// above the hint with the lookahead HEAD and, read ahead from the state at the hint, Person's
// manifest and its id index. Then the fragment holding p7's row: four rounds, the issue's goal.
TEST(ColdRoundsTest, AColdKeyLookupWaitsForFourRounds) {
  const auto store = MakeGraph();
  OrderedJson rows;
  const storage::OpCounts c = ColdRun(store, "lookup", &rows);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["p.age"].get<int64_t>(), 7);
  EXPECT_EQ(c.gets, 10u) << c.ToString();
  EXPECT_EQ(c.heads, 2u) << c.ToString();
  EXPECT_EQ(c.lists, 0u) << c.ToString();
  EXPECT_EQ(c.rounds, 4u) << c.ToString();
}

// The same first two rounds; then beside the probe the manifests of Person and Knows (the tables
// the checked query reads) and Person's id index; then Knows' stored adjacency: four rounds (the
// goal is five).
TEST(ColdRoundsTest, AColdOneHopCountWaitsForFourRounds) {
  const auto store = MakeGraph();
  OrderedJson rows;
  const storage::OpCounts c = ColdRun(store, "hop1", &rows);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["n"].get<int64_t>(), 3);
  EXPECT_EQ(c.lists, 0u) << c.ToString();
  EXPECT_EQ(c.gets, 11u) << c.ToString();
  EXPECT_EQ(c.heads, 2u) << c.ToString();
  EXPECT_EQ(c.rounds, 4u) << c.ToString();
}

// On a remote store a walk reads an adjacency below kRemotePointEdgesMin edges whole, and the
// read ahead beside the probe reads it with Person's id index (decision 213), on the pool a
// handle on a remote store keeps (api::kRemoteStoreThreadsMin): three rounds.
TEST(ColdRoundsTest, AColdOneHopOnARemoteStoreReadsTheAdjacencyAheadInThreeRounds) {
  const auto store = MakeGraph();
  OrderedJson rows;
  const storage::OpCounts c = ColdRun(store, "hop1", &rows, {.threads = 16, .remote = true});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["n"].get<int64_t>(), 3);
  EXPECT_EQ(c.lists, 0u) << c.ToString();
  EXPECT_EQ(c.gets, 11u) << c.ToString();
  EXPECT_EQ(c.heads, 2u) << c.ToString();
  EXPECT_EQ(c.rounds, 3u) << c.ToString();
}

// Above the bound the walk reads point by point (revision 3 of the adjacency, decision 214): the
// read ahead beside the probe reads the adjacency's first bytes (its table, fence, other-id
// starts and block checksums) with Person's id index, so opening it costs no round of its own;
// then the rounds for p7's edges: its fence window with the window's packed slots, then its
// targets' groups of ids, which on this 7,200-edge object the first round's read already holds
// (its sections lie within the coalescing gap, so that read spans them) and the reader takes
// from the blocks it kept (decision 225): four rounds, where revision 2 took nine (two to open,
// four for the edges) and revision 3 without kept blocks five.
TEST(ColdRoundsTest, AColdOneHopReadPointByPointWaitsForFourRounds) {
  const auto store = MakeGraph();
  OrderedJson rows;
  const storage::OpCounts c =
      ColdRun(store, "hop1", &rows, {.threads = 16, .remote = true, .point_edges_min = 0});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["n"].get<int64_t>(), 3);
  EXPECT_EQ(c.lists, 0u) << c.ToString();
  // The eleven of the whole read's run (the adjacency's first bytes in place of the object),
  // then one read for the window round and none for the targets' round.
  EXPECT_EQ(c.gets, 12u) << c.ToString();
  EXPECT_EQ(c.heads, 2u) << c.ToString();
  EXPECT_EQ(c.rounds, 4u) << c.ToString();
}

// The graph above after `appends` one-person appends: each small write stores Person's id index
// as a delta over the version before (docs/format/indexes.md "Deltas"), so its chain is that deep.
std::shared_ptr<storage::MemoryStore> MakeDeepGraph(int appends) {
  auto store = MakeGraph();
  Result<std::unique_ptr<Graph>> g = Graph::Open(storage::Runtime::ForTest(store, 5));
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  for (int i = 0; i < appends; ++i) {
    const std::string line =
        "{\"type\":\"Person\",\"data\":{\"name\":\"q" + std::to_string(i) + "\",\"age\":1}}\n";
    Result<LoadResult> loaded = LoadJsonl(**g, "main", line, LoadMode::kAppend);
    EXPECT_TRUE(loaded.ok()) << loaded.status().ToString();
  }
  return store;
}

// At depth: five more commits, and Person's id index a chain of four deltas. With a pool as large
// as a handle on a remote store keeps (api::kRemoteStoreThreadsMin, 16), the records up to the
// hint still go out together, and the chain costs one round whatever its depth: its top delta
// (read ahead beside the probe) lists the versions below, whose manifests and objects are read
// together (decision 209). Then the fragment: five rounds, where a chain read link by link took
// two per delta (eleven).
TEST(ColdRoundsTest, AColdKeyLookupOverADeepIndexChainWaitsForFiveRounds) {
  const auto store = MakeDeepGraph(4);
  OrderedJson rows;
  const storage::OpCounts c = ColdRun(store, "lookup", &rows, {.threads = 16});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["p.age"].get<int64_t>(), 7);
  // Round 2 holds the checkpoint, five records and the schema; round 4 the four lower links'
  // manifests and objects.
  EXPECT_EQ(c.gets, 22u) << c.ToString();
  EXPECT_EQ(c.lists, 0u) << c.ToString();
  EXPECT_EQ(c.heads, 2u) << c.ToString();
  EXPECT_EQ(c.rounds, 5u) << c.ToString();
}

}  // namespace
}  // namespace omnigraph::engine
