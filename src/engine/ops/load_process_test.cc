// Loads across processes (docs/design/load.md): two processes appending to one branch at once both
// land; a load killed after it has written table data leaves no visible effect.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "engine/ops/export.h"
#include "engine/ops/load.h"
#include "storage/forwarding_store.h"
#include "storage/local_store.h"
#include "storage/test_util.h"

namespace omnigraph::engine {
namespace {

constexpr std::string_view kSchema = R"(
node Person { name: String @key  age: I32? }
edge Knows: Person -> Person { since: Date? }
)";
constexpr int kPeoplePerLoad = 300;
constexpr std::string_view kMarker = "test-marker-fragment-written";

// A runtime over the graph root in `dir`: seeded, inline executor, real clock (so that the
// publish backoff really waits for the other process).
storage::Runtime Runtime(const std::string& dir, uint64_t seed) {
  auto store = storage::LocalStore::Open(dir);
  OMNIGRAPH_CHECK(store.ok());
  storage::Runtime rt =
      storage::Runtime::ForTest(std::shared_ptr<storage::ObjectStore>(std::move(*store)), seed);
  rt.clock = std::shared_ptr<Clock>(SystemClock::Default(), [](Clock*) {});
  return rt;
}

// People `prefix`0.. and a chain of Knows edges between them.
std::string Input(const std::string& prefix) {
  std::string out;
  for (int i = 0; i < kPeoplePerLoad; ++i) {
    out += R"({"type":"Person","data":{"name":")" + prefix + std::to_string(i) + R"(","age":)" +
           std::to_string(i % 90) + "}}\n";
  }
  for (int i = 1; i < kPeoplePerLoad; ++i) {
    out += R"({"edge":"Knows","from":")" + prefix + std::to_string(i - 1) + R"(","to":")" + prefix +
           std::to_string(i) + R"(","data":{"since":"2020-01-01"}})" + "\n";
  }
  return out;
}

uint64_t Count(Graph& g, std::string_view table_key) {
  Result<Snapshot> s = g.SnapshotOfBranch("main");
  OMNIGRAPH_CHECK(s.ok());
  return (*s->Table(table_key))->entity_count();
}

TEST(LoadProcessTest, TwoProcessesAppendingToOneBranchBothLand) {
  storage::TempDir dir;
  ASSERT_TRUE(Graph::Init(Runtime(dir.path(), 1), kSchema).ok());
  std::vector<storage::ChildResult> children =
      storage::RunChildrenTogether(2, [&](int index, int out) {
        Result<std::unique_ptr<Graph>> g = Graph::Open(Runtime(dir.path(), 100 + index));
        if (!g.ok()) return 3;
        Result<LoadResult> r =
            LoadJsonl(**g, "main", Input("p" + std::to_string(index) + "-"), LoadMode::kAppend);
        if (!r.ok()) {
          std::fprintf(stderr, "child %d: %s\n", index, r.status().ToString().c_str());
          return 4;
        }
        return storage::WriteToFd(out, *r->commit + "\n") ? 0 : 5;
      });
  std::vector<std::string> commits;
  for (const storage::ChildResult& child : children) {
    ASSERT_TRUE(child.exited_zero()) << "status " << child.wait_status;
    commits.push_back(child.output.substr(0, child.output.find('\n')));
  }
  EXPECT_NE(commits[0], commits[1]);
  Result<std::unique_ptr<Graph>> g = Graph::Open(Runtime(dir.path(), 7));
  ASSERT_TRUE(g.ok());
  Result<Snapshot> head = (*g)->SnapshotOfBranch("main");
  EXPECT_EQ(head->state().seq, 2u) << "each load is exactly one commit";
  EXPECT_EQ(Count(**g, "node:Person"), 2u * kPeoplePerLoad);
  EXPECT_EQ(Count(**g, "edge:Knows"), 2u * (kPeoplePerLoad - 1));
  for (const std::string& id : commits) EXPECT_TRUE((*g)->SnapshotAtCommit(id).ok()) << id;
}

// Writes through to `inner`, then blocks forever after the first table fragment it writes (and
// drops a marker so that the parent knows it got there).
class PauseAfterFragmentStore final : public storage::ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  Result<bool> PutIfAbsent(std::string_view n, std::string_view d) override {
    Result<bool> r = inner().PutIfAbsent(n, d);
    if (n.find("/data/") != std::string_view::npos && n.ends_with(".ogf")) {
      inner().Put(kMarker, "x").IgnoreError();
      for (;;) ::pause();
    }
    return r;
  }
};

TEST(LoadProcessTest, ALoadKilledAfterWritingTableDataLeavesNoVisibleEffect) {
  storage::TempDir dir;
  {
    Result<std::unique_ptr<Graph>> g = Graph::Init(Runtime(dir.path(), 1), kSchema);
    ASSERT_TRUE(g.ok());
    ASSERT_TRUE(LoadJsonl(**g, "main", Input("old-"), LoadMode::kAppend).ok());
  }
  Result<std::unique_ptr<Graph>> before_graph = Graph::Open(Runtime(dir.path(), 2));
  ASSERT_TRUE(before_graph.ok());
  Result<Snapshot> before = (*before_graph)->SnapshotOfBranch("main");
  const std::string exported_before = *ExportToString(*before);

  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    storage::Runtime rt = Runtime(dir.path(), 3);
    rt.store = std::make_shared<PauseAfterFragmentStore>(rt.store);
    Result<std::unique_ptr<Graph>> g = Graph::Open(rt);
    if (g.ok()) LoadJsonl(**g, "main", Input("new-"), LoadMode::kMerge).status().IgnoreError();
    ::_exit(0);
  }
  storage::Runtime rt = Runtime(dir.path(), 4);
  bool reached = false;
  for (int i = 0; i < 2000 && !reached; ++i) {
    reached = rt.store->Head(kMarker).ok();
    if (!reached) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(reached) << "the child never wrote a fragment";
  ASSERT_TRUE(WIFSIGNALED(status));

  Result<std::unique_ptr<Graph>> g = Graph::Open(rt);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  Result<Snapshot> after = (*g)->SnapshotOfBranch("main");
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->commit_id(), before->commit_id());
  EXPECT_EQ(*ExportToString(*after), exported_before);
  // The graph takes the next load as if nothing happened.
  Result<LoadResult> next = LoadJsonl(**g, "main", Input("new-"), LoadMode::kMerge);
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  EXPECT_EQ(Count(**g, "node:Person"), 2u * kPeoplePerLoad);
  EXPECT_EQ((*g)->SnapshotOfBranch("main")->state().seq, before->state().seq + 1);
}

}  // namespace
}  // namespace omnigraph::engine
