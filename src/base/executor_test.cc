#include "base/executor.h"

#include <gtest/gtest.h>

#include <atomic>

namespace omnigraph {
namespace {

TEST(TaskGroupTest, RunsEveryTaskOnAPool) {
  ThreadPool pool(4);
  std::atomic<int> sum{0};
  TaskGroup group(pool);
  for (int i = 1; i <= 100; ++i) {
    group.Add([&sum, i] {
      sum += i;
      return Status::Ok();
    });
  }
  EXPECT_TRUE(group.Wait().ok());
  EXPECT_EQ(sum.load(), 5050);
}

TEST(TaskGroupTest, ReturnsTheFirstFailureInAddOrder) {
  ThreadPool pool(3);
  TaskGroup group(pool);
  for (int i = 0; i < 20; ++i) {
    group.Add([i]() -> Status {
      if (i == 7 || i == 13) return InvalidArgument("task " + std::to_string(i));
      return Status::Ok();
    });
  }
  Status s = group.Wait();
  EXPECT_EQ(s.message(), "task 7");
}

TEST(TaskGroupTest, NestedGroupsOnASingleThreadDoNotDeadlock) {
  ThreadPool pool(1);
  std::atomic<int> leaves{0};
  TaskGroup outer(pool);
  for (int i = 0; i < 4; ++i) {
    outer.Add([&pool, &leaves] {
      TaskGroup inner(pool);
      for (int j = 0; j < 4; ++j) {
        inner.Add([&leaves] {
          ++leaves;
          return Status::Ok();
        });
      }
      return inner.Wait();
    });
  }
  EXPECT_TRUE(outer.Wait().ok());
  EXPECT_EQ(leaves.load(), 16);
}

TEST(TaskGroupTest, InlineExecutorRunsInOrder) {
  InlineExecutor inline_executor;
  std::vector<int> order;
  TaskGroup group(inline_executor);
  for (int i = 0; i < 5; ++i) {
    group.Add([&order, i] {
      order.push_back(i);
      return Status::Ok();
    });
  }
  EXPECT_TRUE(group.Wait().ok());
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
}

}  // namespace
}  // namespace omnigraph
