// Executor: where library code runs work concurrently (docs/design/overview.md "Layers").
//
// ThreadPool runs tasks on a fixed set of threads; InlineExecutor runs each task at once on the
// caller's thread, which makes tests deterministic. TaskGroup runs a batch of Status-returning
// tasks and waits for all of them; the waiting thread runs queued tasks itself, so groups nest
// inside pool tasks without deadlock. All classes are thread-safe.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "base/status.h"

namespace omnigraph {

class Executor {
 public:
  virtual ~Executor() = default;
  // Runs `task` at some point; tasks must not throw.
  virtual void Submit(std::function<void()> task) = 0;
  // How many tasks may run at once (1 for inline).
  virtual size_t Parallelism() const = 0;
};

class InlineExecutor final : public Executor {
 public:
  void Submit(std::function<void()> task) override { task(); }
  size_t Parallelism() const override { return 1; }
};

// The threads start with the first Submit, so a process that never hands work to its pool (a
// fresh process answering one read on a local store) does not pay for starting them.
class ThreadPool final : public Executor {
 public:
  explicit ThreadPool(size_t threads);
  // Finishes every queued task, then joins the threads.
  ~ThreadPool() override;
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  void Submit(std::function<void()> task) override;
  size_t Parallelism() const override { return threads_max_; }

 private:
  void Run();

  const size_t threads_max_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;  // Empty until the first Submit; guarded by mu_.
};

// A batch of tasks that finishes together. Add() queues a task; Wait() runs what is still queued
// on the calling thread, waits for the rest, and returns the first failure in Add() order.
class TaskGroup {
 public:
  explicit TaskGroup(Executor& executor);
  ~TaskGroup();
  TaskGroup(const TaskGroup&) = delete;
  TaskGroup& operator=(const TaskGroup&) = delete;

  void Add(std::function<Status()> task);
  Status Wait();

 private:
  struct State;
  static void RunOne(const std::shared_ptr<State>& state);

  Executor& executor_;
  std::shared_ptr<State> state_;
};

}  // namespace omnigraph
