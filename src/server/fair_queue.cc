// The fair queue in front of the workers (server/fair_queue.h).
#include "server/fair_queue.h"

#include <algorithm>

namespace omnigraph::server {

FairQueue::FairQueue(size_t workers, size_t share_max)
    : workers_(std::max<size_t>(1, workers)), share_max_(std::max<size_t>(1, share_max)) {}

void FairQueue::Push(size_t key, Task task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::deque<Task>& queue = queues_[key];
    if (queue.empty()) turns_.push_back(key);
    queue.push_back(std::move(task));
  }
  cv_.notify_one();
}

std::pair<size_t, FairQueue::Task> FairQueue::Pop() {
  std::unique_lock<std::mutex> lock(mu_);
  auto pick = turns_.end();
  cv_.wait(lock, [&] {
    pick = turns_.end();
    if (running_total_ < workers_) {
      pick = std::find_if(turns_.begin(), turns_.end(), [this](size_t key) {
        auto it = running_.find(key);
        return it == running_.end() || it->second < share_max_;
      });
    }
    return pick != turns_.end() || (stopping_ && turns_.empty());
  });
  if (pick == turns_.end()) return {0, Task()};
  const size_t key = *pick;
  turns_.erase(pick);
  auto it = queues_.find(key);
  Task task = std::move(it->second.front());
  it->second.pop_front();
  if (it->second.empty()) {
    queues_.erase(it);
  } else {
    turns_.push_back(key);
  }
  ++running_[key];
  ++running_total_;
  return {key, std::move(task)};
}

bool FairQueue::TryStart(size_t key) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_ || !turns_.empty() || running_total_ > 0) return false;
  ++running_[key];
  ++running_total_;
  return true;
}

void FairQueue::Done(size_t key) {
  bool queued = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = running_.find(key);
    if (it != running_.end() && --it->second == 0) running_.erase(it);
    if (running_total_ > 0) --running_total_;
    queued = !turns_.empty();
  }
  if (queued) cv_.notify_one();
}

void FairQueue::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
}

size_t FairQueue::Running() const {
  std::lock_guard<std::mutex> lock(mu_);
  return running_total_;
}

}  // namespace omnigraph::server
