#include "base/executor.h"

namespace omnigraph {

ThreadPool::ThreadPool(size_t threads) : threads_max_(threads) { OMNIGRAPH_CHECK(threads > 0); }

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  // A task still running may Submit more (the workers drain the queue before they stop); it
  // finds the threads started, so threads_ is not changed while they are joined.
  for (std::thread& t : threads_) t.join();
}

void ThreadPool::Submit(std::function<void()> task) {
  {
    std::lock_guard lock(mu_);
    if (threads_.empty() && !stopping_) {
      threads_.reserve(threads_max_);
      for (size_t i = 0; i < threads_max_; ++i) threads_.emplace_back([this] { Run(); });
    }
    queue_.push_back(std::move(task));
  }
  cv_.notify_one();
}

void ThreadPool::Run() {
  while (true) {
    std::function<void()> task;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // Stopping with nothing left to do.
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
  }
}

struct TaskGroup::State {
  std::mutex mu;
  std::condition_variable done_cv;
  std::deque<std::pair<size_t, std::function<Status()>>> pending;
  std::vector<Status> results;
  size_t unfinished = 0;
};

TaskGroup::TaskGroup(Executor& executor) : executor_(executor), state_(std::make_shared<State>()) {}

TaskGroup::~TaskGroup() { Wait().IgnoreError(); }

void TaskGroup::Add(std::function<Status()> task) {
  {
    std::lock_guard lock(state_->mu);
    size_t index = state_->results.size();
    state_->results.emplace_back();
    state_->pending.emplace_back(index, std::move(task));
    ++state_->unfinished;
  }
  std::shared_ptr<State> state = state_;
  executor_.Submit([state] { RunOne(state); });
}

void TaskGroup::RunOne(const std::shared_ptr<State>& state) {
  std::pair<size_t, std::function<Status()>> item;
  {
    std::lock_guard lock(state->mu);
    if (state->pending.empty()) return;  // The waiting thread took it.
    item = std::move(state->pending.front());
    state->pending.pop_front();
  }
  Status status = item.second();
  {
    std::lock_guard lock(state->mu);
    state->results[item.first] = std::move(status);
    --state->unfinished;
  }
  state->done_cv.notify_all();
}

Status TaskGroup::Wait() {
  // Run whatever no worker has picked up yet on this thread.
  while (true) {
    {
      std::lock_guard lock(state_->mu);
      if (state_->pending.empty()) break;
    }
    RunOne(state_);
  }
  std::unique_lock lock(state_->mu);
  state_->done_cv.wait(lock, [this] { return state_->unfinished == 0; });
  for (const Status& s : state_->results) {
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

}  // namespace omnigraph
