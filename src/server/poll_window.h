// How long the server's event loop keeps looking for work without sleeping after its last piece
// of work (decision 231, docs/design/server.md "Connections, limits and threads"). On an idle
// machine a thread that sleeps in epoll_wait gives its core up, and waking an idle core costs a
// request tens of microseconds (on this VM more than the server's own work); a client that sends
// its next request within a few tens of microseconds of its answer finds the loop still polling.
// The window adapts as a guest's halt-polling does: a wait longer than the window but within
// kMax grows it (a longer poll would have caught that request), a wait past kMax halves it (the
// poll was spent for nothing), so traffic that comes less often than kMax costs at most a few
// halving polls and then none. The loop never polls more than kMax after its last work, so an
// idle server uses no CPU beyond that. Thread-safety: one thread (the loop's).
#pragma once

#include <chrono>

namespace omnigraph::server {

class PollWindow {
 public:
  // The most the loop polls after its last work: about three times the client's turn (its
  // wake-up, reading the answer, sending the next request) measured on loopback, 20-40 µs.
  static constexpr std::chrono::microseconds kMax{100};
  // A window grown from nothing starts here.
  static constexpr std::chrono::microseconds kGrowFrom{10};

  // How long the loop polls now after its last work before it sleeps.
  std::chrono::nanoseconds window() const { return window_; }
  // Work came after `idle` without any: adjusts the window (see above).
  void Idle(std::chrono::nanoseconds idle);

 private:
  std::chrono::nanoseconds window_ = kMax;
};

}  // namespace omnigraph::server
