// Traversals that read their edges point by point (query/exec/exec_cache.h PointAdjacency,
// docs/design/query-execution.md "Point reads") answer exactly what the whole adjacency answers:
// one and several hops, hop ranges whose frontier outgrows the point bound mid-walk, edge
// bindings over parallel edges, self-loops, reverse walks, an edge type between two node types,
// and an edge version whose stored adjacency is a chain of deltas (read whole).
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "base/random.h"
#include "engine/ops/load.h"
#include "engine/read/query.h"
#include "storage/memory_store.h"
#include "table/derived.h"
#include "table/id_index.h"
#include "table/id_index_blocked.h"

namespace omnigraph::engine {
namespace {

constexpr std::string_view kSchema = R"(
node Person { name: String @key  age: I32 }
node City { name: String @key }
edge Knows: Person -> Person { since: I32 }
edge Lives: Person -> City
)";

constexpr std::string_view kQueries = R"(
query hop1($n: String) { match { $a: Person { name: $n }  $a knows $b } return { $b.name } }
query count1($n: String) { match { $a: Person { name: $n }  $a knows $b } return { count($b) as n } }
query hop2($n: String) { match { $a: Person { name: $n }  $a knows{2,2} $b } return { $b.name } }
query hops($n: String) { match { $a: Person { name: $n }  $a knows{1,3} $b } return { count($b) as n } }
query edges($n: String) {
  match { $a: Person { name: $n }  $a $k:knows $b }
  return { $b.name, $k.since }
  order { $k.since desc }
}
query back($n: String) { match { $a: Person { name: $n }  $b knows $a } return { $b.name } }
query city($n: String) {
  match { $a: Person { name: $n }  $a knows $b  $b lives $c }
  return { $c.name, count($b) as n }
}
query young() { match { $a: Person  $a.age < 40  $a knows $b } return { count($b) as n } }
query everyone() { match { $a: Person } return { $a.@id } }
query one($n: String) { match { $a: Person { name: $n } } return { $a.age } }
)";

constexpr int kPersons = 1200;

class PointReadTest : public testing::Test {
 protected:
  void SetUp() override {
    store_ = std::make_shared<storage::MemoryStore>();
    Result<std::unique_ptr<Graph>> g = Graph::Init(storage::Runtime::ForTest(store_, 5), kSchema);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    graph_ = std::move(*g);
    std::string lines;
    for (int i = 0; i < kPersons; ++i) {
      lines += "{\"type\":\"Person\",\"data\":{\"name\":\"p" + std::to_string(i) +
               "\",\"age\":" + std::to_string(i % 90) + "}}\n";
      lines += "{\"edge\":\"Lives\",\"from\":\"p" + std::to_string(i) + "\",\"to\":\"c" +
               std::to_string(i % 30) + "\"}\n";
    }
    for (int c = 0; c < 30; ++c) {
      lines += "{\"type\":\"City\",\"data\":{\"name\":\"c" + std::to_string(c) + "\"}}\n";
    }
    // Skewed sources (a few persons have hundreds of edges), self-loops and parallel edges.
    Random random(11);
    for (int e = 0; e < 9000; ++e) {
      const uint64_t s = random.Uniform(5) == 0 ? random.Uniform(6) : random.Uniform(kPersons);
      const uint64_t d = random.Uniform(30) == 0 ? s : random.Uniform(kPersons);
      lines += Knows(s, d, 2000 + static_cast<int>(random.Uniform(25)));
    }
    Load(lines);
  }

  static std::string Knows(uint64_t s, uint64_t d, int since) {
    return "{\"edge\":\"Knows\",\"from\":\"p" + std::to_string(s) + "\",\"to\":\"p" +
           std::to_string(d) + "\",\"data\":{\"since\":" + std::to_string(since) + "}}\n";
  }

  void Load(const std::string& lines) {
    Result<LoadResult> loaded = LoadJsonl(*graph_, "main", lines, LoadMode::kMerge);
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  }

  // The rows of `name` on a fresh cache, with point reads on (any edge count) or off.
  OrderedJson Rows(std::string_view name, const Json& params, bool points,
                   query::ExecCache::Stats* stats = nullptr) {
    query::ExecCache cache;
    RunOptions options;
    options.cache = &cache;
    // On: any edge table, and no byte budget (this graph's adjacency is smaller than a few
    // point reads, which would otherwise make the second hop read it whole).
    options.point_edges_min = points ? 0 : std::numeric_limits<uint64_t>::max();
    if (points) options.point_budget_bytes = std::numeric_limits<uint64_t>::max();
    Snapshot s = *graph_->SnapshotOfBranch("main");
    Result<OrderedJson> out = RunQuery(s, kQueries, name, params, options);
    EXPECT_TRUE(out.ok()) << name << ": " << out.status().ToString();
    if (stats != nullptr) *stats = cache.stats();
    return out.ok() ? (*out)["rows"] : OrderedJson();
  }

  void ExpectSameAnswers(const std::vector<std::string>& starts) {
    for (const char* name : {"hop1", "count1", "hop2", "hops", "edges", "back", "city"}) {
      for (const std::string& start : starts) {
        const Json params{{"n", start}};
        EXPECT_EQ(Rows(name, params, true), Rows(name, params, false)) << name << " " << start;
      }
    }
  }

  std::shared_ptr<storage::MemoryStore> store_;
  std::unique_ptr<Graph> graph_;
};

TEST_F(PointReadTest, PointReadsAnswerAsTheWholeAdjacency) {
  std::vector<std::string> starts = {"p0", "p1", "p5", "nobody"};
  for (int i = 0; i < 12; ++i) starts.push_back("p" + std::to_string(i * 97 % kPersons));
  ExpectSameAnswers(starts);
  // A key lookup's one node is read point by point; nothing is built.
  query::ExecCache::Stats stats;
  EXPECT_FALSE(Rows("count1", Json{{"n", "p3"}}, true, &stats).empty());
  EXPECT_EQ(stats.point_loads, 1u);
  EXPECT_EQ(stats.adjacency_builds, 0u);
  // Two hops from a node of a few edges: the start, then its neighbours in one batch.
  EXPECT_FALSE(Rows("hop2", Json{{"n", "p100"}}, true, &stats).empty());
  EXPECT_GT(stats.point_loads, 1u);
  EXPECT_EQ(stats.adjacency_builds, 0u);
  // p3 is one of the six persons with hundreds of edges: its second hop is too wide to read
  // point by point, and the walk goes on over the whole adjacency.
  EXPECT_FALSE(Rows("hop2", Json{{"n", "p3"}}, true, &stats).empty());
  EXPECT_EQ(stats.point_loads, 1u);
  EXPECT_EQ(stats.adjacency_builds, 1u);
  // Hundreds of starts: the whole adjacency, built once.
  EXPECT_FALSE(Rows("young", Json::object(), true, &stats).empty());
  EXPECT_EQ(stats.point_loads, 0u);
  EXPECT_EQ(stats.adjacency_builds, 1u);
  // Off: built even for one start.
  EXPECT_FALSE(Rows("count1", Json{{"n", "p3"}}, false, &stats).empty());
  EXPECT_EQ(stats.point_loads, 0u);
  EXPECT_EQ(stats.adjacency_builds, 1u);
}

// A warm handle reads point by point until what it read adds up to the stored adjacency's size,
// then reads it whole once, and every later walk uses the built adjacency.
TEST_F(PointReadTest, AWarmHandleBuildsTheAdjacencyOnceItsPointReadsCostAsMuch) {
  query::ExecCache cache;
  RunOptions options;
  options.cache = &cache;
  options.point_edges_min = 0;
  Snapshot s = *graph_->SnapshotOfBranch("main");
  uint64_t runs = 0;
  while (cache.stats().adjacency_builds == 0 && runs < 100) {
    const Json params{{"n", "p" + std::to_string(100 + runs)}};
    ASSERT_TRUE(RunQuery(s, kQueries, "count1", params, options).ok());
    ++runs;
  }
  // This adjacency is small: the second walk's reads already pass its size.
  EXPECT_EQ(runs, 2u);
  EXPECT_EQ(cache.stats().point_loads, 1u);
  ASSERT_TRUE(RunQuery(s, kQueries, "hop2", Json{{"n", "p7"}}, options).ok());
  EXPECT_EQ(cache.stats().point_loads, 1u);
  EXPECT_EQ(cache.stats().adjacency_builds, 1u);
}

// Damage that a point read finds makes the walk read the adjacency whole, which finds it too and
// rebuilds the adjacency from the fragments and replaces the object: the answer is unchanged,
// and the next cold walk reads the repaired object point by point again.
TEST_F(PointReadTest, ADamagedAdjacencyIsReadWholeRebuiltAndReplaced) {
  const OrderedJson expected = Rows("hop1", Json{{"n", "p100"}}, false);
  Result<std::vector<storage::ObjectMeta>> listed = storage::ListAll(*store_, "tables/");
  ASSERT_TRUE(listed.ok());
  // Knows' forward adjacency: the largest one (Lives has one too).
  std::string name;
  uint64_t largest = 0;
  for (const storage::ObjectMeta& m : *listed) {
    if (m.name.ends_with(".csr.out") && m.size_bytes > largest) {
      name = m.name;
      largest = m.size_bytes;
    }
  }
  const std::string good = store_->Get(name)->data;
  // Every 4 KiB, a flipped byte: some block each key's reads need is damaged.
  std::string bad = good;
  for (size_t at = 600; at < bad.size(); at += 4096) bad[at] ^= 0x40;
  ASSERT_TRUE(store_->Put(name, bad).ok());
  // A fresh graph handle: nothing of the object is cached.
  Result<std::unique_ptr<Graph>> reopened = Graph::Open(storage::Runtime::ForTest(store_, 6));
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  graph_ = std::move(*reopened);
  query::ExecCache::Stats stats;
  EXPECT_EQ(Rows("hop1", Json{{"n", "p100"}}, true, &stats), expected);
  EXPECT_EQ(stats.adjacency_builds, 1u);
  // The rebuild is byte for byte the loaded object.
  EXPECT_TRUE(store_->Get(name)->data == good);
  reopened = Graph::Open(storage::Runtime::ForTest(store_, 7));
  ASSERT_TRUE(reopened.ok());
  graph_ = std::move(*reopened);
  EXPECT_EQ(Rows("hop1", Json{{"n", "p100"}}, true, &stats), expected);
  EXPECT_EQ(stats.point_loads, 1u);
  EXPECT_EQ(stats.adjacency_builds, 0u);
}

// Person's stored id index crafted: two ids of its second block swapped, every checksum made
// right (the payload's and its envelope's). A key lookup that needs that block is Corruption
// naming the object, never an answer or a crash; one in another block answers. A query that
// reads every id reads the index whole, which finds the damage and treats it as any
// damaged derived object: rebuilt from the fragments and replaced, byte for byte what the load
// stored, with unchanged answers; a fresh process then looks up the same key (decision 215).
TEST_F(PointReadTest, ACraftedIdIndexBlockIsCorruptionAndTheWholeReadReplacesIt) {
  std::shared_ptr<const table::TableVersion> person =
      *graph_->SnapshotOfBranch("main")->Table("node:Person");
  const table::TableManifest& manifest = person->manifest();
  const std::string name =
      table::DerivedName(manifest.table(), manifest.staged_version, table::kIdsKind);
  const std::string good = store_->Get(name)->data;
  Result<std::shared_ptr<const table::IdIndex>> index = person->SortedIds();
  ASSERT_TRUE(index.ok()) << index.status().ToString();
  std::vector<std::string> ids;
  for (size_t i = 0; i < (*index)->size(); ++i) ids.emplace_back((*index)->IdAt(i));
  const std::string inside = ids[131];  // Block 1 holds positions 128 to 255.
  const OrderedJson expected = Rows("hop1", Json{{"n", inside}}, true);
  const OrderedJson one = Rows("one", Json{{"n", ids[5]}}, false);
  ASSERT_EQ(one.size(), 1u);
  const OrderedJson everyone = Rows("everyone", Json::object(), false);
  ASSERT_EQ(everyone.size(), static_cast<size_t>(kPersons));
  std::swap(ids[130], ids[131]);
  std::string blob;
  std::vector<uint32_t> ends;
  for (const std::string& id : ids) ends.push_back(static_cast<uint32_t>((blob += id).size()));
  const std::vector<table::RowRef> refs((*index)->refs().begin(), (*index)->refs().end());
  const std::string crafted = table::IdIndex(blob, ends, refs)
                                  .EncodeRevision(static_cast<uint32_t>(manifest.fragments.size()),
                                                  table::kIdsRevisionBlocked);
  ASSERT_TRUE(store_->Put(name, table::EncodeDerived(manifest, table::kIdsKind, crafted)).ok());

  Result<std::unique_ptr<Graph>> reopened = Graph::Open(storage::Runtime::ForTest(store_, 6));
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  graph_ = std::move(*reopened);
  query::ExecCache cache;
  RunOptions options;
  options.cache = &cache;
  Snapshot snapshot = *graph_->SnapshotOfBranch("main");
  Result<OrderedJson> bad = RunQuery(snapshot, kQueries, "hop1", Json{{"n", inside}}, options);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Code::kCorruption) << bad.status().ToString();
  EXPECT_EQ(bad.status().object(), name);
  Result<OrderedJson> other = RunQuery(snapshot, kQueries, "one", Json{{"n", ids[5]}}, options);
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  EXPECT_EQ((*other)["rows"], one);
  // Every id, read per row (`$a.@id`): the index whole, rebuilt and replaced; the cache's image
  // answers from the rebuilt index afterwards.
  Result<OrderedJson> scanned = RunQuery(snapshot, kQueries, "everyone", Json::object(), options);
  ASSERT_TRUE(scanned.ok()) << scanned.status().ToString();
  EXPECT_EQ((*scanned)["rows"], everyone);
  EXPECT_TRUE(store_->Get(name)->data == good);
  Result<OrderedJson> again = RunQuery(snapshot, kQueries, "hop1", Json{{"n", inside}}, options);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ((*again)["rows"], expected);

  reopened = Graph::Open(storage::Runtime::ForTest(store_, 7));
  ASSERT_TRUE(reopened.ok());
  graph_ = std::move(*reopened);
  EXPECT_EQ(Rows("hop1", Json{{"n", inside}}, true), expected);
}

TEST_F(PointReadTest, AChainOfDeltasIsReadWholeWithTheSameAnswers) {
  // A small load stores the adjacency of the new Knows version as a delta over the loaded one:
  // such a chain is read whole, never point by point.
  Load(Knows(3, 4, 1999) + Knows(3, 3, 1998) + Knows(7, 3, 1997));
  query::ExecCache::Stats stats;
  EXPECT_FALSE(Rows("count1", Json{{"n", "p3"}}, true, &stats).empty());
  EXPECT_EQ(stats.point_loads, 0u);
  EXPECT_EQ(stats.adjacency_builds, 1u);
  ExpectSameAnswers({"p3", "p7", "p0", "p200"});
}

}  // namespace
}  // namespace omnigraph::engine
