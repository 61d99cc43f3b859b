// The workers' fair queue (server/fair_queue.h), the event loop's standby
// (server/loop_relief.h) and its poll window (server/poll_window.h): turns between callers, the
// share and the worker bound, a request the loop runs itself only when nothing is queued or
// running (decision 220), the standby taking the loop over from a request that runs long and
// handing it back, and how long the loop polls before it sleeps (decision 231).
#include "server/fair_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "server/loop_relief.h"
#include "server/poll_window.h"

namespace omnigraph::server {
namespace {

// Pops and runs `count` queued tasks on this thread, one at a time.
void Drain(FairQueue& queue, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    auto [key, task] = queue.Pop();
    task();
    queue.Done(key);
  }
}

TEST(FairQueueTest, CallersAreServedInTurn) {
  FairQueue queue(4, 3);
  std::vector<std::string> ran;
  for (int i = 0; i < 3; ++i) queue.Push(1, [&ran, i] { ran.push_back("a" + std::to_string(i)); });
  queue.Push(2, [&ran] { ran.push_back("b0"); });
  queue.Push(3, [&ran] { ran.push_back("c0"); });
  Drain(queue, 5);
  EXPECT_EQ(ran, (std::vector<std::string>{"a0", "b0", "c0", "a1", "a2"}));
}

TEST(FairQueueTest, TheLoopRunsARequestOnlyWhenNothingIsQueuedOrRunning) {
  FairQueue queue(4, 3);
  EXPECT_TRUE(queue.TryStart(1));  // idle: the loop may run it
  EXPECT_EQ(queue.Running(), 1u);
  EXPECT_FALSE(queue.TryStart(2));  // one runs: the next goes to a worker
  queue.Done(1);
  EXPECT_EQ(queue.Running(), 0u);
  queue.Push(2, [] {});
  EXPECT_FALSE(queue.TryStart(1));  // queued work would be overtaken
  auto [key, task] = queue.Pop();
  EXPECT_EQ(key, 2u);
  EXPECT_FALSE(queue.TryStart(1));  // a worker runs
  queue.Done(key);
  EXPECT_TRUE(queue.TryStart(1));
  queue.Done(1);
  queue.Stop();
  EXPECT_FALSE(queue.TryStart(1));  // stopping: nothing new starts
}

// A request the loop runs counts against its caller's share and the worker bound: a queued task
// of that caller waits for it, and its end wakes a worker for it.
TEST(FairQueueTest, ARequestOnTheLoopHoldsItsShareAndItsEndWakesAWorker) {
  FairQueue queue(2, 1);
  ASSERT_TRUE(queue.TryStart(7));
  queue.Push(7, [] {});
  std::atomic<bool> popped{false};
  std::thread worker([&] {
    auto [key, task] = queue.Pop();
    EXPECT_EQ(key, 7u);
    popped = true;
    task();
    queue.Done(key);
  });
  // The worker cannot take caller 7's task while the loop runs 7's request (share 1). Not a
  // timing assertion: whatever the wait, the task must still be queued.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(popped.load());
  queue.Done(7);
  worker.join();
  EXPECT_TRUE(popped.load());
  EXPECT_EQ(queue.Running(), 0u);
}

TEST(FairQueueTest, NoMoreThanTheWorkersRunAtOnceCountingTheLoop) {
  FairQueue queue(1, 1);
  ASSERT_TRUE(queue.TryStart(1));
  queue.Push(2, [] {});  // another caller, under its share: held back by the worker bound only
  std::atomic<bool> popped{false};
  std::thread worker([&] {
    auto [key, task] = queue.Pop();
    popped = true;
    queue.Done(key);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(popped.load());
  queue.Done(1);
  worker.join();
  EXPECT_TRUE(popped.load());
}

// A request on the loop that runs long: the standby runs the loop meanwhile (any number of steps)
// and hands it back at End, after which no step of the loop runs on the standby.
TEST(LoopReliefTest, TheStandbyRunsTheLoopWhileARequestOnItRunsLongAndHandsItBack) {
  LoopRelief relief;
  std::atomic<int> steps{0};
  std::atomic<bool> in_step{false};
  std::thread standby([&] {
    relief.Stand([&] {
      in_step = true;
      ++steps;
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      in_step = false;
    });
  });
  relief.Begin();
  // The request "runs" until the standby has run the loop: without a standby it never would.
  while (steps.load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_TRUE(relief.Relieved());
  relief.End();
  EXPECT_FALSE(relief.Relieved());
  EXPECT_FALSE(in_step.load());
  const int after_end = steps.load();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(steps.load(), after_end);  // the loop is the loop thread's again
  EXPECT_EQ(relief.reliefs(), 1u);
  relief.Stop();
  standby.join();
}

// Requests on the loop that end before the lease never hand the loop over: the standby is never
// relieved while none is running, whatever its timing (Begin and End in a tight loop, then idle).
TEST(LoopReliefTest, AnIdleLoopIsNeverTakenOver) {
  LoopRelief relief;
  std::atomic<int> steps{0};
  std::thread standby([&] { relief.Stand([&] { ++steps; }); });
  for (int i = 0; i < 1000; ++i) {
    relief.Begin();
    relief.End();
  }
  std::this_thread::sleep_for(LoopRelief::kLease * 5);
  EXPECT_FALSE(relief.Relieved());
  const int idle = steps.load();
  std::this_thread::sleep_for(LoopRelief::kLease * 5);
  EXPECT_EQ(steps.load(), idle);
  relief.Stop();
  standby.join();
}

using std::chrono::microseconds;
using std::chrono::nanoseconds;

// Requests that come within the window leave it as it is; a wait longer than the window but
// within kMax grows it (doubling, from kGrowFrom when it was nothing), never past kMax.
TEST(PollWindowTest, AWaitAPollWouldHaveCaughtGrowsTheWindowUpToItsBound) {
  PollWindow window;
  EXPECT_EQ(window.window(), PollWindow::kMax);
  window.Idle(microseconds(30));
  window.Idle(PollWindow::kMax);
  EXPECT_EQ(window.window(), PollWindow::kMax);
  window.Idle(PollWindow::kMax * 3);
  EXPECT_EQ(window.window(), PollWindow::kMax / 2);
  window.Idle(PollWindow::kMax / 2 + microseconds(1));  // a longer poll would have caught it
  EXPECT_EQ(window.window(), PollWindow::kMax);
  for (int i = 0; i < 20; ++i) window.Idle(std::chrono::seconds(1));
  ASSERT_EQ(window.window(), nanoseconds::zero());
  window.Idle(microseconds(1));
  EXPECT_EQ(window.window(), PollWindow::kGrowFrom);
  window.Idle(microseconds(15));
  EXPECT_EQ(window.window(), PollWindow::kGrowFrom * 2);
  for (int i = 0; i < 10; ++i) window.Idle(PollWindow::kMax);
  EXPECT_EQ(window.window(), PollWindow::kMax);
}

// Traffic that comes less often than kMax stops the polling after a few halvings: from kMax to
// nothing in as many waits as halvings take it under kGrowFrom, and then it stays at nothing.
TEST(PollWindowTest, WaitsPastTheBoundShrinkTheWindowToNothing) {
  PollWindow window;
  int waits = 0;
  while (window.window() > nanoseconds::zero()) {
    const nanoseconds before = window.window();
    window.Idle(PollWindow::kMax + microseconds(1));
    EXPECT_LT(window.window(), before);
    ++waits;
  }
  EXPECT_EQ(waits, 4);  // 100 -> 50 -> 25 -> 12.5 -> under 10 µs: nothing
  window.Idle(std::chrono::hours(1));
  EXPECT_EQ(window.window(), nanoseconds::zero());
}

// The loop polls only when a core is spare: the runnable count is /proc/loadavg's fourth field's
// first number, and anything else reads as unknown (then the window alone bounds the polling).
TEST(PollWindowTest, TheRunnableThreadsAreReadFromLoadavg) {
  EXPECT_EQ(SpareCore::Runnable("0.42 1.66 2.08 3/456 12345\n"), 3u);
  EXPECT_EQ(SpareCore::Runnable("12.49 13.67 12.63 17/189 26903"), 17u);
  EXPECT_EQ(SpareCore::Runnable("0.00 0.00 0.00 1/80 1"), 1u);
  EXPECT_EQ(SpareCore::Runnable("0.42 1.66 2.08 3"), std::nullopt);
  EXPECT_EQ(SpareCore::Runnable("0.42 1.66 2.08 x/456 1"), std::nullopt);
  EXPECT_EQ(SpareCore::Runnable("0.42 1.66"), std::nullopt);
  EXPECT_EQ(SpareCore::Runnable(""), std::nullopt);
  SpareCore here;  // On this machine's /proc: an answer either way, and the same within kRecheck.
  const nanoseconds now = std::chrono::seconds(100);
  const bool spare = here.Spare(now);
  EXPECT_EQ(here.Spare(now + SpareCore::kRecheck / 2), spare);
}

}  // namespace
}  // namespace omnigraph::server
