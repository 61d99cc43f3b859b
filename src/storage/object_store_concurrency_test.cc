// Cross-process behaviour of the local backend: the conditional-create fence between processes
// and crash atomicity under SIGKILL.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <set>
#include <thread>
#include <vector>

#include "storage/local_store.h"
#include "storage/test_util.h"

namespace omnigraph::storage {
namespace {

// The content a writer puts at object `i`: recognisable, and complete only if every byte is there.
std::string Pattern(int i, size_t size_bytes) {
  std::string out;
  out.reserve(size_bytes);
  std::string unit = "<" + std::to_string(i) + ">";
  while (out.size() + unit.size() <= size_bytes) out += unit;
  out.resize(size_bytes, '.');
  return out;
}

TEST(LocalStoreProcessTest, PutIfAbsentHasOneWinnerPerNameAcrossProcesses) {
  constexpr int kProcesses = 8;
  constexpr int kNames = 100;
  TempDir dir;
  std::vector<ChildResult> children = RunChildrenTogether(kProcesses, [&](int p, int out) {
    auto store = LocalStore::Open(dir.path());
    if (!store.ok()) return 3;
    for (int n = 0; n < kNames; ++n) {
      Result<bool> r = (*store)->PutIfAbsent("race/" + std::to_string(n), "p" + std::to_string(p));
      if (!r.ok()) return 4;
      if (!WriteToFd(out, *r ? "1" : "0")) return 5;
    }
    return 0;
  });
  std::vector<int> winners(kNames, 0);
  std::vector<int> winner_of(kNames, -1);
  for (int p = 0; p < kProcesses; ++p) {
    ASSERT_TRUE(children[p].exited_zero())
        << "child " << p << " status " << children[p].wait_status;
    ASSERT_EQ(children[p].output.size(), static_cast<size_t>(kNames));
    for (int n = 0; n < kNames; ++n) {
      if (children[p].output[n] == '1') {
        ++winners[n];
        winner_of[n] = p;
      }
    }
  }
  auto store = *LocalStore::Open(dir.path());
  for (int n = 0; n < kNames; ++n) {
    EXPECT_EQ(winners[n], 1) << "name " << n;
    EXPECT_EQ(store->Get("race/" + std::to_string(n))->data, "p" + std::to_string(winner_of[n]));
  }
}

TEST(LocalStoreProcessTest, SigkillMidWriteLeavesOnlyCompleteObjects) {
  constexpr size_t kSize = 512 * 1024;
  TempDir dir;
  for (int round = 0; round < 3; ++round) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      auto store = LocalStore::Open(dir.path());
      if (!store.ok()) ::_exit(3);
      for (int i = 0;; ++i) {
        // Alternate the three write paths: create, replace, compare-and-swap.
        std::string name = "crash/" + std::to_string(i % 40);
        std::string data = Pattern(i, kSize);
        if (i % 3 == 0) {
          (*store)->PutIfAbsent(name, data).status().IgnoreError();
        } else if (i % 3 == 1) {
          (*store)->Put(name, data).IgnoreError();
        } else if (Result<ObjectMeta> m = (*store)->Head(name); m.ok()) {
          (*store)->PutIfMatch(name, data, m->etag).status().IgnoreError();
        }
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(150 + 70 * round));
    ASSERT_EQ(::kill(pid, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status));
  }
  auto store = *LocalStore::Open(dir.path());
  Result<std::vector<ObjectMeta>> all = ListAll(*store, "");
  ASSERT_TRUE(all.ok());
  ASSERT_FALSE(all->empty());
  for (const ObjectMeta& m : *all) {
    ASSERT_EQ(m.name.rfind("crash/", 0), 0u) << "unexpected object " << m.name;
    Result<GetResult> r = store->Get(m.name);
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->data.size(), kSize) << m.name;
    // The content is exactly one writer's complete pattern.
    size_t close = r->data.find('>');
    ASSERT_NE(close, std::string::npos);
    int i = std::stoi(r->data.substr(1, close - 1));
    EXPECT_EQ(r->data, Pattern(i, kSize)) << m.name;
    EXPECT_EQ(i % 40, std::stoi(m.name.substr(6)));
  }
}

}  // namespace
}  // namespace omnigraph::storage
