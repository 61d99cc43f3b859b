// A load on a thread pool (docs/design/load.md "Batches written while reading"): batches are
// written on the runtime's executor while the next lines are parsed, at most kLoadWritesInFlight
// at a time; the graph is the one an inline load makes, and a failed write fails the load with
// nothing published.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "base/executor.h"
#include "engine/ops/export.h"
#include "engine/ops/load.h"
#include "storage/forwarding_store.h"
#include "storage/memory_store.h"

namespace omnigraph::engine {
namespace {

constexpr std::string_view kSchema = R"(
node Person { name: String @key  age: I32? }
node Note { text: String }
edge Knows: Person -> Person
)";

// People (with `repeats`, some named twice: the last line wins), notes with generated ids, and
// a chain of Knows edges.
std::string Input(int people, bool repeats = true) {
  std::string out;
  for (int i = 0; i < people; ++i) {
    out += R"({"type":"Person","data":{"name":"p)" + std::to_string(i) + R"(","age":)" +
           std::to_string(i % 90) + "}}\n";
    if (repeats && i % 7 == 3) {
      out += R"({"type":"Person","data":{"name":"p)" + std::to_string(i / 2) + R"(","age":99}})" +
             std::string("\n");
    }
    out += R"({"type":"Note","data":{"text":"note )" + std::to_string(i) + "\"}}\n";
  }
  for (int i = 1; i < people; ++i) {
    out += R"({"edge":"Knows","from":"p)" + std::to_string(i - 1) + R"(","to":"p)" +
           std::to_string(i) + "\"}\n";
  }
  return out;
}

// Fragment writes (objects under a table's data/ folder) slowed by `delay`, with how many run at
// once; the `fail_at`-th of them (1-based; 0 = none) fails permanently.
class SlowFragmentStore : public storage::ForwardingStore {
 public:
  SlowFragmentStore(std::shared_ptr<storage::ObjectStore> inner, std::chrono::milliseconds delay,
                    int fail_at = 0)
      : ForwardingStore(std::move(inner)), delay_(delay), fail_at_(fail_at) {}

  Result<bool> PutIfAbsent(std::string_view name, std::string_view data) override {
    if (name.find("/data/") == std::string_view::npos) return inner().PutIfAbsent(name, data);
    const int n = ++fragments_;
    const int now = ++running_;
    int seen = most_;
    while (now > seen && !most_.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(delay_);
    --running_;
    if (n == fail_at_) return Status(Code::kPermanent, "injected: fragment write refused");
    return inner().PutIfAbsent(name, data);
  }

  int most_at_once() const { return most_; }
  int fragments() const { return fragments_; }

 private:
  std::chrono::milliseconds delay_;
  int fail_at_;
  std::atomic<int> fragments_{0};
  std::atomic<int> running_{0};
  std::atomic<int> most_{0};
};

// A graph whose runtime runs tasks on a pool of four threads (or inline), over `store`.
std::unique_ptr<Graph> NewGraph(std::shared_ptr<storage::ObjectStore> store, bool pool) {
  storage::Runtime rt = storage::Runtime::ForTest(std::move(store), 5);
  if (pool) rt.executor = std::make_shared<ThreadPool>(4);
  Result<std::unique_ptr<Graph>> g = Graph::Init(rt, kSchema);
  OMNIGRAPH_CHECK_MSG(g.ok(), g.status().ToString());
  return std::move(*g);
}

std::string ExportOf(Graph& g) {
  Result<Snapshot> s = g.SnapshotOfBranch("main");
  OMNIGRAPH_CHECK(s.ok());
  ExportOptions options;
  options.types = {"Person", "Knows"};  // Notes' ids are generated: they differ by run.
  Result<std::string> out = ExportToString(*s, options);
  OMNIGRAPH_CHECK_MSG(out.ok(), out.status().ToString());
  return *out;
}

TEST(LoadOnAPoolTest, BatchesWrittenOnAPoolLoadTheGraphAnInlineLoadDoes) {
  const std::string input = Input(120);
  for (LoadMode mode : {LoadMode::kAppend, LoadMode::kMerge, LoadMode::kOverwrite}) {
    SCOPED_TRACE(std::string(LoadModeName(mode)));
    // An append refuses a repeated id: it loads the input without the repeats.
    const std::string in = mode == LoadMode::kAppend ? Input(120, false) : input;
    auto slow = std::make_shared<SlowFragmentStore>(std::make_shared<storage::MemoryStore>(),
                                                    std::chrono::milliseconds(2));
    std::unique_ptr<Graph> pooled = NewGraph(slow, true);
    std::unique_ptr<Graph> inline_graph = NewGraph(std::make_shared<storage::MemoryStore>(), false);
    LoadOptions options;
    options.limits = LoadLimits{5, 1 << 20, 256};  // Tiny batches; the sorts spill.
    Result<LoadResult> a = Load(*pooled, "main", in, mode, options);
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    Result<LoadResult> b = Load(*inline_graph, "main", in, mode, options);
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    EXPECT_EQ(ExportOf(*pooled), ExportOf(*inline_graph));
    EXPECT_EQ(a->total_entities, b->total_entities);
    Result<Snapshot> s = pooled->SnapshotOfBranch("main");
    ASSERT_TRUE(s.ok());
    Result<std::shared_ptr<const table::TableVersion>> notes = s->Table("node:Note");
    ASSERT_TRUE(notes.ok());
    EXPECT_EQ((*notes)->entity_count(), 120u);
    EXPECT_GE((*notes)->manifest().fragments.size(), 20u) << "the rows were written in batches";
    // Every fragment the version names was written (none left as an empty slot).
    for (const auto& f : (*notes)->manifest().fragments) EXPECT_FALSE(f.path.empty());
    EXPECT_GE(slow->most_at_once(), 2) << "batches were written while the next were read";
    EXPECT_LE(slow->most_at_once(), static_cast<int>(kLoadWritesInFlight + 1));
  }
}

TEST(LoadOnAPoolTest, AtMostTheBoundOfBatchesAreBeingWrittenAtOnce) {
  auto slow = std::make_shared<SlowFragmentStore>(std::make_shared<storage::MemoryStore>(),
                                                  std::chrono::milliseconds(20));
  std::unique_ptr<Graph> g = NewGraph(slow, true);
  LoadOptions options;
  options.limits = LoadLimits{4, 1 << 20, 1 << 20};
  std::string notes;
  for (int i = 0; i < 80; ++i)
    notes += R"({"type":"Note","data":{"text":"n"}})"
             "\n";
  Result<LoadResult> r = Load(*g, "main", notes, LoadMode::kAppend, options);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(slow->fragments(), 20);
  // The batch being flushed joins at most kLoadWritesInFlight already in flight before the
  // oldest is waited for.
  EXPECT_LE(slow->most_at_once(), static_cast<int>(kLoadWritesInFlight + 1));
  EXPECT_GE(slow->most_at_once(), 2);
}

TEST(LoadOnAPoolTest, AFailedBatchWriteFailsTheLoadAndPublishesNothing) {
  for (int fail_at : {1, 4, 9}) {
    SCOPED_TRACE("fragment write " + std::to_string(fail_at) + " fails");
    auto slow = std::make_shared<SlowFragmentStore>(std::make_shared<storage::MemoryStore>(),
                                                    std::chrono::milliseconds(1), fail_at);
    std::unique_ptr<Graph> g = NewGraph(slow, true);
    const std::string before = ExportOf(*g);
    Result<Snapshot> head = g->SnapshotOfBranch("main");
    ASSERT_TRUE(head.ok());
    LoadOptions options;
    options.limits = LoadLimits{5, 1 << 20, 1 << 20};
    Result<LoadResult> r = Load(*g, "main", Input(30), LoadMode::kMerge, options);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), Code::kPermanent) << r.status().ToString();
    EXPECT_NE(r.status().message().find("injected"), std::string::npos);
    Result<Snapshot> after = g->SnapshotOfBranch("main");
    ASSERT_TRUE(after.ok());
    EXPECT_EQ(after->commit_id(), head->commit_id()) << "nothing was published";
    EXPECT_EQ(ExportOf(*g), before);
  }
}

}  // namespace
}  // namespace omnigraph::engine
