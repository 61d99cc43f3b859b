// Lets the server's event loop answer a request itself without holding up every other connection
// for long (decision 220, docs/design/server.md "Connections, limits and threads"). The loop
// thread brackets a request it runs itself with Begin and End. A standby thread (Stand) watches:
// when the same such request is running at two of its looks one kLease apart (so it has run at
// least kLease, and at most two), the standby runs the event loop instead
// (`run_once`, one step at a time) until End, so other connections are read, dispatched to
// workers and written meanwhile; End then waits for the standby to hand the loop back, so the
// loop's state is never touched by two threads at once. A request shorter than kLease, nearly
// every read, costs the loop two uncontended locks and no thread wake-up; the standby wakes at
// most once per kLease while the loop keeps answering requests itself, and not at all when idle.
// Thread-safety: Begin, End and Relieved on the loop thread; Stand on the standby thread; Stop on
// any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>

namespace omnigraph::server {

class LoopRelief {
 public:
  // How long the loop may run one request itself before the standby takes the loop over.
  static constexpr std::chrono::milliseconds kLease{2};
  // The longest a step of the loop on the standby waits for an event: End waits at most about
  // this long for the loop back. (A post from the loop thread, which is inside a step of the
  // loop itself, would go to its own queue and not wake the standby.)
  static constexpr std::chrono::milliseconds kStep{1};

  // A request run on the loop starts.
  void Begin();
  // It ended: returns once the loop is the calling thread's again (at once when the standby did
  // not take it; otherwise when the standby's current step returns).
  void End();
  // True while the standby runs the loop: the thread running a step of the loop is the standby
  // then, and must not run a request itself (the loop thread waits in End for it).
  bool Relieved() const;

  // The standby's body, until Stop: waits for a request on the loop to pass kLease (it looks once
  // per kLease, so between one and two leases after the request began), then calls
  // `run_once` (one step of the loop, returning within about kStep even when nothing happens)
  // until End asks for the loop back.
  void Stand(const std::function<void()>& run_once);
  void Stop();

  // Times the standby took the loop over (tests, and the benchmark's explanation).
  uint64_t reliefs() const;

 private:
  // Runs the loop on the standby until End asks for it back; `lock` held on entry and exit.
  void Relieve(std::unique_lock<std::mutex>& lock, const std::function<void()>& run_once);

  mutable std::mutex mu_;
  std::condition_variable standby_cv_;  // the standby waits here
  std::condition_variable loop_cv_;     // End waits here for the loop back
  uint64_t epoch_ = 0;                  // requests begun on the loop
  bool running_ = false;                // one is running now
  bool watching_ = false;               // the standby is in a timed wait (no need to wake it)
  bool relieved_ = false;               // the standby runs the loop
  bool back_ = false;                   // End asked for the loop back
  bool stopping_ = false;
  uint64_t reliefs_ = 0;
};

}  // namespace omnigraph::server
