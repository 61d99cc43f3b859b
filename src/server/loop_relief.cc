// The event loop's standby (server/loop_relief.h).
#include "server/loop_relief.h"

namespace omnigraph::server {

void LoopRelief::Begin() {
  bool wake = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++epoch_;
    running_ = true;
    wake = !watching_;
    watching_ = true;
  }
  // Only when the standby sleeps without a deadline: then it waits for this one. While the loop
  // keeps answering requests itself, the standby stays in its timed wait and is not woken here.
  if (wake) standby_cv_.notify_one();
}

void LoopRelief::End() {
  std::unique_lock<std::mutex> lock(mu_);
  running_ = false;
  if (!relieved_) return;
  back_ = true;
  loop_cv_.wait(lock, [this] { return !relieved_; });
}

bool LoopRelief::Relieved() const {
  std::lock_guard<std::mutex> lock(mu_);
  return relieved_;
}

void LoopRelief::Stand(const std::function<void()>& run_once) {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    if (!watching_) {
      standby_cv_.wait(lock, [this] { return stopping_ || watching_; });
      continue;
    }
    const uint64_t seen = epoch_;
    const bool was_running = running_;
    // A spurious wake-up shortens one lease at worst: the loop is then relieved a little early.
    standby_cv_.wait_for(lock, kLease, [this] { return stopping_; });
    if (stopping_) break;
    if (was_running && running_ && epoch_ == seen) {
      Relieve(lock, run_once);
    } else if (!running_ && epoch_ == seen) {
      watching_ = false;  // A whole lease without a request on the loop: sleep until the next.
    }
  }
}

void LoopRelief::Relieve(std::unique_lock<std::mutex>& lock,
                         const std::function<void()>& run_once) {
  relieved_ = true;
  ++reliefs_;
  while (!back_) {
    lock.unlock();
    run_once();
    lock.lock();
  }
  back_ = false;
  relieved_ = false;
  loop_cv_.notify_all();
}

void LoopRelief::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  standby_cv_.notify_all();
}

uint64_t LoopRelief::reliefs() const {
  std::lock_guard<std::mutex> lock(mu_);
  return reliefs_;
}

}  // namespace omnigraph::server
