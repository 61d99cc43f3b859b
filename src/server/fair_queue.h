// The queue in front of the server's workers, fair between callers (docs/design/server.md
// "Connections, limits and threads"): one queue per key (a caller: its bearer token, or its peer
// address), served round robin, so a caller with many requests queued delays another's by about
// one request, not by its whole queue; no caller runs on more than `share_max` workers at once, so
// however many requests one caller has in flight, some workers are left for the others; and no
// more than `workers` requests run at once, counting a request the event loop runs itself
// (TryStart, decision 220). Thread-safe: every member may be called from any thread.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <unordered_map>
#include <utility>

namespace omnigraph::server {

class FairQueue {
 public:
  using Task = std::function<void()>;

  // `workers`: requests running at once, at most (at least one); `share_max`: of one key.
  FairQueue(size_t workers, size_t share_max);

  // Queues `task` for `key` and wakes one waiting worker, after unlocking: a worker woken under
  // the lock would at once block again on it, one more context switch on the request's path.
  void Push(size_t key, Task task);
  // The next task of the first caller in turn below its share, once fewer than `workers` run, and
  // its key; an empty task once stopped and drained. The caller reports Done(key) when the task
  // has run.
  std::pair<size_t, Task> Pop();
  // Whether a request of `key` may run now on the caller's thread (the event loop) instead of
  // being queued: only when nothing is queued and nothing runs, so that it overtakes nobody and
  // an idle worker is all it would have gone to (decision 220). When true it counts as running,
  // as a popped task does (against the share and the worker bound), until Done(key).
  bool TryStart(size_t key);
  // A task's end makes at most one queued task runnable (the next of its caller, held back by
  // the share, or any, held back by the worker bound), so it wakes at most one worker, and none
  // when nothing waits: waking every idle worker on every request cost each request as many
  // context switches as there are workers.
  void Done(size_t key);
  // Pop returns an empty task to every worker once the queue is drained.
  void Stop();

  // Tasks running (popped or started, not yet done), of every key (tests).
  size_t Running() const;

 private:
  const size_t workers_;
  const size_t share_max_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::unordered_map<size_t, std::deque<Task>> queues_;
  std::unordered_map<size_t, size_t> running_;  // tasks running per key
  size_t running_total_ = 0;
  std::deque<size_t> turns_;  // keys with queued tasks, in serving order
  bool stopping_ = false;
};

}  // namespace omnigraph::server
