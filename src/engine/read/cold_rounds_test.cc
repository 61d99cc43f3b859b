// Dependent request rounds of a fresh handle's first query (docs/design/storage.md "Wrappers",
// docs/benchmarks.md "Cold queries over a remote store"): on a store that answers every request
// after a fixed delay, a cold query waits for one delay per round, so independent reads must go
// out together. The store here delays each call by 30 ms (FaultStore latency) — far above the
// time a pool thread takes to pick up a task — so calls issued together finish in the same round
// and the counts are exact. A round that reappears is a read that went back to waiting for
// another.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "commit/documents.h"
#include "engine/graph/graph.h"
#include "engine/ops/load.h"
#include "engine/ops/merge.h"
#include "engine/ops/optimize.h"
#include "engine/read/prepared.h"
#include "engine/read/query.h"
#include "storage/counting_store.h"
#include "storage/fault_store.h"
#include "storage/forwarding_store.h"
#include "storage/memory_store.h"
#include "table/derived.h"
#include "table/fragment_format.h"
#include "table/table_store.h"

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

// `persons` persons p0, p1, …, each knowing the `degree` after it (around a ring).
std::shared_ptr<storage::MemoryStore> MakePersonsKnowing(int persons, int degree) {
  auto store = std::make_shared<storage::MemoryStore>();
  Result<std::unique_ptr<Graph>> g = Graph::Init(storage::Runtime::ForTest(store, 3), kSchema);
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  std::string lines;
  for (int i = 0; i < persons; ++i) {
    lines += "{\"type\":\"Person\",\"data\":{\"name\":\"p" + std::to_string(i) +
             "\",\"age\":" + std::to_string(i % 90) + "}}\n";
  }
  for (int i = 0; i < persons; ++i) {
    for (int d = 1; d <= degree; ++d) {
      lines += "{\"edge\":\"Knows\",\"from\":\"p" + std::to_string(i) + "\",\"to\":\"p" +
               std::to_string((i + d) % persons) + "\"}\n";
    }
  }
  Result<LoadResult> loaded = LoadJsonl(**g, "main", lines, LoadMode::kMerge);
  EXPECT_TRUE(loaded.ok()) << loaded.status().ToString();
  return store;
}

// 2,400 persons and 7,200 edges: both tables keep their id indexes (and Knows its adjacency).
std::shared_ptr<storage::MemoryStore> MakeGraph() { return MakePersonsKnowing(2400, 3); }

// The pool a handle on a remote store keeps (api::kRemoteStoreThreadsMin; the engine's tests
// do not include the public API).
constexpr size_t kRemoteThreads = 32;

// The memory store answering as a remote one (storage::ObjectStore::Remote, decision 213).
class RemoteLike : public storage::ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  bool Remote() const override { return true; }
};

// The threads the store's reads ran on.
class ThreadRecording : public storage::ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  Result<storage::GetResult> Get(std::string_view name,
                                 std::optional<storage::ByteRange> range) override {
    Record();
    return ForwardingStore::Get(name, range);
  }
  Result<storage::ObjectMeta> Head(std::string_view name) override {
    Record();
    return ForwardingStore::Head(name);
  }
  std::set<std::thread::id> Threads() const {
    std::lock_guard lock(mu_);
    return threads_;
  }

 private:
  void Record() {
    std::lock_guard lock(mu_);
    threads_.insert(std::this_thread::get_id());
  }
  mutable std::mutex mu_;
  std::set<std::thread::id> threads_;
};

struct ColdRunOptions {
  size_t threads = 4;         // The pool a process has.
  bool remote = false;        // The store says it is remote.
  bool reads_inline = false;  // Runtime::reads inline, as a handle on a local store.
  std::shared_ptr<ThreadRecording>* recorded = nullptr;  // Where the reads ran, when set.
  std::optional<uint64_t> point_edges_min;               // RunOptions::point_edges_min.
  std::string_view queries = kQueries;                   // The query source `name` is in.
};

// The store calls of a fresh handle's open and first run of `name` over `store`, every call
// delayed by 30 ms.
storage::OpCounts ColdRun(const std::shared_ptr<storage::MemoryStore>& store, std::string_view name,
                          OrderedJson* rows, const ColdRunOptions& run = {},
                          const Json& params = Json{{"n", "p7"}}) {
  std::shared_ptr<storage::ObjectStore> base = store;
  if (run.remote) base = std::make_shared<RemoteLike>(base);
  auto delayed = std::make_shared<storage::FaultStore>(base);
  storage::FaultRule latency;
  latency.kind = storage::FaultKind::kLatency;
  latency.times = -1;
  latency.latency_micros = 30'000;
  delayed->AddRule(latency);
  auto recording = std::make_shared<ThreadRecording>(delayed);
  if (run.recorded != nullptr) *run.recorded = recording;
  auto counting = std::make_shared<storage::CountingStore>(recording);
  storage::Runtime runtime = storage::Runtime::ForStore(counting, run.threads);
  if (run.reads_inline) runtime.reads = std::make_shared<InlineExecutor>();
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
  Result<OrderedJson> out = RunReadJson(**graph, run.queries, name, params, options);
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

// A handle on a local store runs a read's independent store calls on the caller's thread
// (Runtime::reads, decision 229): the same calls and answers as with the pool, each call a round
// of its own, and none on a pool thread.
TEST(ColdRoundsTest, WithReadsInlineAFreshReadMakesTheSameCallsOnTheCallersThread) {
  const auto store = MakeGraph();
  for (const char* name : {"lookup", "hop1"}) {
    OrderedJson pooled_rows, inline_rows;
    const storage::OpCounts pooled = ColdRun(store, name, &pooled_rows);
    std::shared_ptr<ThreadRecording> recorded;
    ColdRunOptions run;
    run.reads_inline = true;
    run.recorded = &recorded;
    const storage::OpCounts c = ColdRun(store, name, &inline_rows, run);
    EXPECT_EQ(inline_rows, pooled_rows) << name;
    EXPECT_EQ(c.gets, pooled.gets) << name << ": " << c.ToString();
    EXPECT_EQ(c.heads, pooled.heads) << name << ": " << c.ToString();
    EXPECT_EQ(c.lists, 0u) << name << ": " << c.ToString();
    EXPECT_EQ(c.rounds, c.gets + c.heads) << name << ": " << c.ToString();
    ASSERT_NE(recorded, nullptr);
    EXPECT_EQ(recorded->Threads(), std::set<std::thread::id>{std::this_thread::get_id()}) << name;
  }
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
  const storage::OpCounts c =
      ColdRun(store, "hop1", &rows, {.threads = kRemoteThreads, .remote = true});
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
  const storage::OpCounts c = ColdRun(
      store, "hop1", &rows, {.threads = kRemoteThreads, .remote = true, .point_edges_min = 0});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["n"].get<int64_t>(), 3);
  EXPECT_EQ(c.lists, 0u) << c.ToString();
  // The eleven of the whole read's run (the adjacency's first bytes in place of the object),
  // then one read for the window round and none for the targets' round.
  EXPECT_EQ(c.gets, 12u) << c.ToString();
  EXPECT_EQ(c.heads, 2u) << c.ToString();
  EXPECT_EQ(c.rounds, 4u) << c.ToString();
}

// Point by point over an adjacency of degree 1 (150,000 keys): its prefix is larger than what
// opening reads for its edges (CsrOpenReadBytes assumes a degree of 4 or more), so the read ahead
// sizes it by the keys too, which are at most the rows of Person, the node table the query reads
// (decision 235). The prefix then comes beside the probe, p7's fence window and slots in round
// 4, its target's group of ids in round 5 (at this size outside the window's read): five rounds,
// the issue's goal. Sized by the edges alone, the prefix was read again in a round of its own
// (six rounds, 18 GETs).
TEST(ColdRoundsTest, AColdOneHopOverALowDegreeAdjacencyReadPointByPointWaitsForFiveRounds) {
  const auto store = MakePersonsKnowing(150'000, 1);
  OrderedJson rows;
  const storage::OpCounts c = ColdRun(
      store, "hop1", &rows, {.threads = kRemoteThreads, .remote = true, .point_edges_min = 0});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["n"].get<int64_t>(), 1);
  EXPECT_EQ(c.gets, 17u) << c.ToString();
  EXPECT_EQ(c.rounds, 5u) << c.ToString();
}

// The graph above after `appends` one-line appends, line i of which is `line(i)`: each small
// write stores its tables' id index (and an edge table's adjacency) as a delta over the version
// before (docs/format/indexes.md "Deltas"), so the chains are that deep.
std::shared_ptr<storage::MemoryStore> AfterAppends(int appends,
                                                   const std::function<std::string(int)>& line) {
  auto store = MakeGraph();
  Result<std::unique_ptr<Graph>> g = Graph::Open(storage::Runtime::ForTest(store, 5));
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  for (int i = 0; i < appends; ++i) {
    Result<LoadResult> loaded = LoadJsonl(**g, "main", line(i), LoadMode::kAppend);
    EXPECT_TRUE(loaded.ok()) << loaded.status().ToString();
  }
  return store;
}

// One-person appends: Person's id index a chain of `appends` deltas.
std::shared_ptr<storage::MemoryStore> MakeDeepGraph(int appends) {
  return AfterAppends(appends, [](int i) {
    return "{\"type\":\"Person\",\"data\":{\"name\":\"q" + std::to_string(i) + "\",\"age\":1}}\n";
  });
}

// At depth: five more commits, and Person's id index a chain of four deltas. With a pool as large
// as a handle on a remote store keeps (api::kRemoteStoreThreadsMin, 32), the records up to the
// hint still go out together. The record that made the top version carries its writer's read
// hint (`derived_below`, decision 227): the versions the chain stacks on, which its writer knew
// from the base's index it had read. So the top delta, every lower link and their manifests go
// out beside the probe, and then the fragment: four rounds at any depth, the issue's goal. Without
// the hint the chain's list is known only once its top delta is read (decision 209: five rounds);
// link by link it took two per delta (eleven).
TEST(ColdRoundsTest, AColdKeyLookupOverADeepIndexChainWaitsForFourRounds) {
  const auto store = MakeDeepGraph(4);
  OrderedJson rows;
  const storage::OpCounts c = ColdRun(store, "lookup", &rows, {.threads = kRemoteThreads});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["p.age"].get<int64_t>(), 7);
  // Round 2 holds the checkpoint, five records and the schema; round 3 the probe, the lookahead,
  // and the five links' manifests and objects.
  EXPECT_EQ(c.gets, 22u) << c.ToString();
  EXPECT_EQ(c.lists, 0u) << c.ToString();
  EXPECT_EQ(c.heads, 2u) << c.ToString();
  EXPECT_EQ(c.rounds, 4u) << c.ToString();
}

// One-edge appends from p7: Knows' id index and adjacency chains of `appends` deltas.
std::shared_ptr<storage::MemoryStore> MakeDeepEdgeGraph(int appends) {
  return AfterAppends(appends, [](int i) {
    return "{\"edge\":\"Knows\",\"from\":\"p7\",\"to\":\"p" + std::to_string(100 + i) + "\"}\n";
  });
}

// On a remote store, a 1-hop over Knows' adjacency four deltas deep: the read hint of the record
// that made the top version lists the chain, so the read ahead beside the probe fetches the whole
// chain of the adjacency with Person's id index, and the count needs no round of its own: three
// rounds, as on a freshly loaded graph.
TEST(ColdRoundsTest, AColdOneHopOverADeepAdjacencyChainOnARemoteStoreWaitsForThreeRounds) {
  const auto store = MakeDeepEdgeGraph(4);
  OrderedJson rows;
  const storage::OpCounts c =
      ColdRun(store, "hop1", &rows, {.threads = kRemoteThreads, .remote = true});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["n"].get<int64_t>(), 7);
  // Rounds 1 and 2 as above (ten GETs, the HEAD); round 3 the probe and lookahead, Person's
  // manifest and id index, and Knows' five manifests, five adjacency objects and five id index
  // objects (the chain is applied through the edges' ids).
  EXPECT_EQ(c.gets, 28u) << c.ToString();
  EXPECT_EQ(c.heads, 2u) << c.ToString();
  EXPECT_EQ(c.lists, 0u) << c.ToString();
  EXPECT_EQ(c.rounds, 3u) << c.ToString();
}

// People with a note of 24 random hex digits after their age: a fragment whose age column lies
// outside the last kFooterReadBytes (the note's bytes follow it, and zstd cannot shrink them).
constexpr std::string_view kWideSchema = R"(
node Wide { name: String @key  age: I32  note: String }
)";
constexpr std::string_view kWideQueries = R"(
query age($n: String) { match { $p: Wide { name: $n } } return { $p.age } }
)";
std::string WideNote(int i, int digits) {
  uint64_t x = 0x9e3779b97f4a7c15ull * static_cast<uint64_t>(i + 1);
  std::string hex;
  for (int d = 0; d < digits; ++d, x = x * 6364136223846793005ull + 1442695040888963407ull) {
    hex += "0123456789abcdef"[x >> 60];
  }
  return hex;
}

std::shared_ptr<storage::MemoryStore> MakeWidePersons(int persons, int note_digits = 24) {
  auto store = std::make_shared<storage::MemoryStore>();
  Result<std::unique_ptr<Graph>> g = Graph::Init(storage::Runtime::ForTest(store, 3), kWideSchema);
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  std::string lines;
  for (int i = 0; i < persons; ++i) {
    lines += "{\"type\":\"Wide\",\"data\":{\"name\":\"w" + std::to_string(i) +
             "\",\"age\":" + std::to_string(i % 90) + ",\"note\":\"" + WideNote(i, note_digits) +
             "\"}}\n";
  }
  Result<LoadResult> loaded = LoadJsonl(**g, "main", lines, LoadMode::kMerge);
  EXPECT_TRUE(loaded.ok()) << loaded.status().ToString();
  return store;
}

// A fragment larger than an open's first read costs two dependent reads on a local store when
// the row's column lies before the bytes the open read (its footer, then the column); a remote
// store reads a fragment of up to kRemoteFragmentReadBytes whole in one (decision 228), so the
// lookup keeps its four rounds.
TEST(ColdRoundsTest, AColdKeyLookupOnARemoteStoreReadsAModerateFragmentWhole) {
  const auto store = MakeWidePersons(12'000);
  Result<std::vector<storage::ObjectMeta>> data =
      storage::ListAll(*store, "tables/0000000000000001-0000000000000001/data/");
  ASSERT_TRUE(data.ok() && data->size() == 1u);
  ASSERT_GT((*data)[0].size_bytes, table::kFooterReadBytes);
  ASSERT_LT((*data)[0].size_bytes, table::kRemoteFragmentReadBytes);
  for (bool remote : {false, true}) {
    SCOPED_TRACE(remote ? "remote" : "local");
    OrderedJson rows;
    const storage::OpCounts c = ColdRun(
        store, "age", &rows, {.threads = kRemoteThreads, .remote = remote, .queries = kWideQueries},
        Json{{"n", "w7"}});
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0]["p.age"].get<int64_t>(), 7);
    EXPECT_EQ(c.rounds, remote ? 4u : 5u) << c.ToString();
  }
}

// The Wide table's one fragment and the manifest entry that lists it.
constexpr std::string_view kWideRoot = "tables/0000000000000001-0000000000000001/";
std::vector<storage::ObjectMeta> Listed(storage::MemoryStore& store, const std::string& prefix) {
  Result<std::vector<storage::ObjectMeta>> listed = storage::ListAll(store, prefix);
  EXPECT_TRUE(listed.ok()) << listed.status().ToString();
  return listed.ok() ? *std::move(listed) : std::vector<storage::ObjectMeta>{};
}

// Rewrites every manifest of the Wide table with `edit` applied to each fragment entry.
void EditFragmentEntries(storage::MemoryStore& store, const std::function<void(Json&)>& edit) {
  for (const storage::ObjectMeta& meta : Listed(store, std::string(kWideRoot) + "versions/")) {
    Result<storage::GetResult> got = store.Get(meta.name);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    Json json = ParseJson(got->data, meta.name).value();
    for (Json& f : json["fragments"]) edit(f);
    ASSERT_TRUE(store.Put(meta.name, CanonicalJson(json)).ok());
  }
}

// 40,000 people with notes of 64 random hex digits: one fragment of about 2 MiB, above what an
// open on a remote store reads whole (kRemoteFragmentReadBytes), its age column more than that
// before its end. Its manifest entry records where its columns begin (decision 235), so the
// lookup reads the footer and the age column side by side: four rounds, on a remote store and a
// local one. Without the offsets (a manifest written before them) it reads the footer and then
// the column: five; offsets that are wrong cost the same round and change no answer.
TEST(ColdRoundsTest, AColdKeyLookupInAFragmentAboveAMiBWaitsForFourRounds) {
  const auto store = MakeWidePersons(40'000, 64);
  const std::vector<storage::ObjectMeta> data = Listed(*store, std::string(kWideRoot) + "data/");
  ASSERT_EQ(data.size(), 1u);
  ASSERT_GT(data[0].size_bytes, table::kRemoteFragmentReadBytes);
  const auto lookup = [&](bool remote) {
    OrderedJson rows;
    const storage::OpCounts c = ColdRun(
        store, "age", &rows, {.threads = kRemoteThreads, .remote = remote, .queries = kWideQueries},
        Json{{"n", "w7"}});
    EXPECT_EQ(rows.size(), 1u);
    if (rows.size() == 1) {
      EXPECT_EQ(rows[0]["p.age"].get<int64_t>(), 7);
    }
    return c;
  };
  for (bool remote : {false, true}) {
    SCOPED_TRACE(remote ? "remote" : "local");
    const storage::OpCounts c = lookup(remote);
    // The ten of a lookup in a small fragment, and the age column beside the footer.
    EXPECT_EQ(c.gets, 11u) << c.ToString();
    EXPECT_EQ(c.rounds, 4u) << c.ToString();
    // The footer's read is the last 64 KiB, not the last MiB.
    EXPECT_LT(c.bytes_read, data[0].size_bytes / 2) << c.ToString();
  }
  EditFragmentEntries(*store, [](Json& f) {  // Each column but the first a byte late.
    Json& at = f["column_offsets"];
    for (size_t c = 1; c < at.size(); ++c) at[c] = at[c].get<uint64_t>() + 1;
  });
  EXPECT_EQ(lookup(true).rounds, 5u);
  EditFragmentEntries(*store, [](Json& f) { f.erase("column_offsets"); });
  EXPECT_EQ(lookup(true).rounds, 5u);
  EXPECT_EQ(lookup(false).rounds, 5u);
}

// The records of main, newest first.
std::vector<commit::Record> RecordsNewestFirst(storage::MemoryStore& store) {
  Result<std::vector<storage::ObjectMeta>> listed = storage::ListAll(store, "_graph/main/");
  EXPECT_TRUE(listed.ok()) << listed.status().ToString();
  std::vector<commit::Record> out;
  if (!listed.ok()) return out;
  for (const storage::ObjectMeta& meta : *listed) {  // Names ascend as seqs descend.
    if (!meta.name.ends_with(".commit")) continue;
    Result<storage::GetResult> got = store.Get(meta.name);
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    Result<commit::Record> record = commit::DecodeRecord(got->data, meta.name);
    EXPECT_TRUE(record.ok()) << record.status().ToString();
    if (record.ok()) out.push_back(*std::move(record));
  }
  return out;
}

const TablePin* PinOf(const commit::Record& record, std::string_view table_key) {
  for (const TablePin& pin : record.pins) {
    if (pin.table_key == table_key) return &pin;
  }
  return nullptr;
}

// The hint each one-person append writes is the chain its delta then stacks on: the version it
// was staged from, then the versions under that one, down to the load's full index — which are
// the Person versions the earlier records pin, newest first.
TEST(ColdRoundsTest, ARecordsReadHintListsTheChainItsIndexDeltaStacksOn) {
  const auto store = MakeDeepGraph(4);
  const std::vector<commit::Record> records = RecordsNewestFirst(*store);
  std::vector<uint64_t> person_versions;  // Newest first, each once.
  for (const commit::Record& r : records) {
    const TablePin* pin = PinOf(r, "node:Person");
    if (pin != nullptr &&
        (person_versions.empty() || person_versions.back() != pin->staged_version))
      person_versions.push_back(pin->staged_version);
  }
  ASSERT_GE(person_versions.size(), 5u);
  const TablePin* top = PinOf(records.front(), "node:Person");
  ASSERT_NE(top, nullptr);
  ASSERT_EQ(top->staged_version, person_versions[0]);
  const std::vector<uint64_t> hint = table::ChainHint(top->extra, table::kIdsKind);
  const std::vector<uint64_t> expected(person_versions.begin() + 1, person_versions.begin() + 5);
  EXPECT_EQ(hint, expected) << top->extra.dump();
}

// Runs `step` on a fresh handle of `store`, as a CLI process would (so nothing an earlier step
// read is in its cache).
void InFreshProcess(const std::shared_ptr<storage::MemoryStore>& store,
                    const std::function<void(Graph&)>& step) {
  Result<std::unique_ptr<Graph>> g = Graph::Open(storage::Runtime::ForTest(store, 4));
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  step(**g);
}

void AppendPerson(Graph& g, std::string_view branch, std::string_view name) {
  Result<LoadResult> loaded = LoadJsonl(
      g, branch,
      "{\"type\":\"Person\",\"data\":{\"name\":\"" + std::string(name) + "\",\"age\":1}}\n",
      LoadMode::kAppend);
  EXPECT_TRUE(loaded.ok()) << loaded.status().ToString();
}

// A merge whose both sides appended a person stages Person from main's version with the branch's
// row, and its process stores the id index as a delta over main's chain; its record's pin now
// carries the read hint as a write's does, so a cold lookup after it waits for four rounds,
// where without the hint the chain's lower links came a round after its top (five).
TEST(ColdRoundsTest, AColdKeyLookupAfterAMergeWaitsForFourRounds) {
  const auto store = MakeDeepGraph(2);
  InFreshProcess(store, [](Graph& g) { ASSERT_TRUE(g.CreateBranch("side", "main").ok()); });
  InFreshProcess(store, [](Graph& g) { AppendPerson(g, "side", "s1"); });
  InFreshProcess(store, [](Graph& g) { AppendPerson(g, "main", "m1"); });
  InFreshProcess(store, [](Graph& g) {
    Result<MergeResult> merged = Merge(g, MergeRequest{"side", "main", std::nullopt});
    ASSERT_TRUE(merged.ok()) << merged.status().ToString();
    EXPECT_EQ(merged->outcome, MergeOutcome::kMerged);
  });
  const std::vector<commit::Record> records = RecordsNewestFirst(*store);
  ASSERT_FALSE(records.empty());
  const TablePin* top = PinOf(records.front(), "node:Person");
  ASSERT_NE(top, nullptr);
  EXPECT_FALSE(table::ChainHint(top->extra, table::kIdsKind).empty()) << top->extra.dump();
  for (const char* name : {"p7", "s1"}) {
    OrderedJson rows;
    const storage::OpCounts c =
        ColdRun(store, "lookup", &rows, {.threads = kRemoteThreads}, Json{{"n", name}});
    ASSERT_EQ(rows.size(), 1u) << name;
    EXPECT_EQ(c.rounds, 4u) << name << ": " << c.ToString();
  }
}

// After `optimize` (a rewrite: its record carries no read hint, and needs none, since the
// compacted version's indexes are whole objects a cold read fetches beside the probe) and two
// one-person appends over it, each a delta whose hint lists the chain: four rounds.
TEST(ColdRoundsTest, AColdKeyLookupAfterOptimizeAndAppendsWaitsForFourRounds) {
  const auto store = MakeDeepGraph(4);
  InFreshProcess(store, [](Graph& g) {
    Result<OptimizeReport> report = Optimize(g, OptimizeOptions{});
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    ASSERT_TRUE(report->commit.has_value());
  });
  for (int appended = 0; appended <= 2; ++appended) {
    SCOPED_TRACE("appends after optimize: " + std::to_string(appended));
    if (appended > 0) {
      InFreshProcess(store,
                     [&](Graph& g) { AppendPerson(g, "main", "o" + std::to_string(appended)); });
    }
    OrderedJson rows;
    const storage::OpCounts c = ColdRun(store, "lookup", &rows, {.threads = kRemoteThreads});
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0]["p.age"].get<int64_t>(), 7);
    EXPECT_EQ(c.rounds, 4u) << c.ToString();
  }
}

// A hint is never authority: a pin whose hint names versions that are not its chain (here two
// that do not exist) costs reads and changes no answer.
TEST(ColdRoundsTest, AWrongReadHintOnlyWastesReads) {
  const auto store = MakeDeepGraph(4);
  auto counting = std::make_shared<storage::CountingStore>(store);
  Result<std::unique_ptr<Graph>> graph = Graph::Open(storage::Runtime::ForTest(counting, 4));
  ASSERT_TRUE(graph.ok()) << graph.status().ToString();
  Result<Snapshot> head = (*graph)->SnapshotOfBranch("main");
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  const commit::TableState* person = head->state().FindByKey("node:Person");
  ASSERT_NE(person, nullptr);
  TablePin wrong = person->pin;
  table::SetChainHints(wrong.extra, {{std::string(table::kIdsKind), {12345, 67890}}});
  table::TableStore::PrefetchOptions ahead;
  ahead.ids_of = {"node:Person"};
  ahead.reads_min = 1;
  const storage::OpCounts before = counting->Snapshot();
  (*graph)->tables().Prefetch(std::span<const TablePin>(&wrong, 1), ahead);
  // The top's manifest and index, and each hinted link's manifest and object (all four fail).
  EXPECT_EQ((counting->Snapshot() - before).gets, 6u) << (counting->Snapshot() - before).ToString();
  Result<OrderedJson> out = RunReadJson(**graph, kQueries, "lookup", Json{{"n", "p7"}}, {});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ((*out)["rows"].size(), 1u);
  EXPECT_EQ((*out)["rows"][0]["p.age"].get<int64_t>(), 7);
  Result<OrderedJson> appended = RunReadJson(**graph, kQueries, "lookup", Json{{"n", "q3"}}, {});
  ASSERT_TRUE(appended.ok()) << appended.status().ToString();
  ASSERT_EQ((*appended)["rows"].size(), 1u);
  EXPECT_EQ((*appended)["rows"][0]["p.age"].get<int64_t>(), 1);
}

}  // namespace
}  // namespace omnigraph::engine
