// A merge racing writes from another process (docs/design/merge.md "Validation, conflicts,
// publishing"): one process merges a branch into main while another appends to main; the merge
// lands on whichever head it meets (computed again when main moved), nothing is lost, and main
// stays writable.
#include <gtest/gtest.h>

#include "engine/graph/graph.h"
#include "engine/ops/load.h"
#include "engine/ops/merge.h"
#include "storage/local_store.h"
#include "storage/test_util.h"

namespace omnigraph::engine {
namespace {

constexpr std::string_view kSchema = R"(
node Person { name: String @key  age: I32? }
edge Knows: Person -> Person { }
)";
// Each lost attempt of the merge means one of these writes landed, so with fewer writes than
// kMergeAttemptsMax the merge always succeeds.
constexpr int kWrites = 15;
static_assert(kWrites < kMergeAttemptsMax);
constexpr int kRounds = 3;

// A runtime over the graph root in `dir`: seeded, real clock (the backoff really waits).
storage::Runtime Runtime(const std::string& dir, uint64_t seed) {
  auto store = storage::LocalStore::Open(dir);
  OMNIGRAPH_CHECK(store.ok());
  storage::Runtime rt =
      storage::Runtime::ForTest(std::shared_ptr<storage::ObjectStore>(std::move(*store)), seed);
  rt.clock = std::shared_ptr<Clock>(SystemClock::Default(), [](Clock*) {});
  return rt;
}

std::string People(const std::string& prefix, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) {
    out += R"({"type":"Person","data":{"name":")" + prefix + std::to_string(i) + R"("}})" + "\n";
  }
  for (int i = 1; i < n; ++i) {
    out += R"({"edge":"Knows","from":")" + prefix + std::to_string(i - 1) + R"(","to":")" + prefix +
           std::to_string(i) + R"("})" + "\n";
  }
  return out;
}

uint64_t Count(Graph& g, std::string_view key) {
  return (*g.SnapshotOfBranch("main")->Table(key))->entity_count();
}

TEST(MergeProcessTest, AMergeRacingWritesFromAnotherProcessLoseNothing) {
  storage::TempDir dir;
  {
    std::unique_ptr<Graph> g = std::move(*Graph::Init(Runtime(dir.path(), 1), kSchema));
    ASSERT_TRUE(LoadJsonl(*g, "main", People("seed-", 5), LoadMode::kAppend).ok());
  }
  uint64_t people = 5, knows = 4;
  for (int round = 0; round < kRounds; ++round) {
    const std::string branch = "x" + std::to_string(round);
    {
      std::unique_ptr<Graph> g = std::move(*Graph::Open(Runtime(dir.path(), 2)));
      ASSERT_TRUE(g->CreateBranch(branch, "main").ok());
      ASSERT_TRUE(LoadJsonl(*g, branch, People(branch + "-", 10), LoadMode::kAppend).ok());
      // Main moves after the fork, so the merge is three-way.
      ASSERT_TRUE(LoadJsonl(*g, "main", People(branch + "-m-", 2), LoadMode::kAppend).ok());
    }
    std::vector<storage::ChildResult> children =
        storage::RunChildrenTogether(2, [&](int index, int out) {
          Result<std::unique_ptr<Graph>> g = Graph::Open(Runtime(dir.path(), 10 + index));
          if (!g.ok()) return 3;
          if (index == 0) {
            Result<MergeResult> r = Merge(**g, MergeRequest{branch, "main", std::nullopt});
            if (!r.ok() || r->outcome != MergeOutcome::kMerged) {
              std::fprintf(stderr, "merge: %s\n",
                           r.ok() ? MergeOutcomeName(r->outcome) : r.status().ToString().c_str());
              return 4;
            }
            return storage::WriteToFd(out, std::to_string(r->attempts) + "\n") ? 0 : 5;
          }
          for (int i = 0; i < kWrites; ++i) {
            const std::string prefix = branch + "-w" + std::to_string(i) + "-";
            if (!LoadJsonl(**g, "main", People(prefix, 2), LoadMode::kAppend).ok()) return 6;
          }
          return 0;
        });
    for (const storage::ChildResult& child : children) {
      ASSERT_TRUE(child.exited_zero()) << "status " << child.wait_status;
    }
    std::printf("round %d: merged in %s", round, children[0].output.c_str());
    people += 2 + 10 + 2 * kWrites;
    knows += 1 + 9 + kWrites;
    std::unique_ptr<Graph> g = std::move(*Graph::Open(Runtime(dir.path(), 3)));
    EXPECT_EQ(Count(*g, "node:Person"), people);
    EXPECT_EQ(Count(*g, "edge:Knows"), knows);
    // The branch's head is an ancestor of main now, and main takes writes.
    Result<MergeResult> again = Merge(*g, MergeRequest{branch, "main", std::nullopt});
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->outcome, MergeOutcome::kAlreadyUpToDate);
  }
}

}  // namespace
}  // namespace omnigraph::engine
