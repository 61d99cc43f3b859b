// How long the server's event loop keeps looking for work without sleeping after its last piece
// of work (decision 231, docs/design/server.md "Connections, limits and threads"). On an idle
// machine a thread that sleeps in epoll_wait gives its core up, and waking an idle core costs a
// request tens of microseconds (on this VM more than the server's own work); a client that sends
// its next request within a few tens of microseconds of its answer finds the loop still polling.
// The window adapts as a guest's halt-polling does: a wait longer than the window but within
// kMax grows it (a longer poll would have caught that request), a wait past kMax halves it (the
// poll was spent for nothing), so traffic that comes less often than kMax costs at most a few
// halving polls and then none. The loop never polls more than kMax after its last work, so an
// idle server uses no CPU beyond that. And it polls only when the machine has a core to spare
// (SpareCore): when every core has work, a wake-up finds its core awake anyway, and a loop that
// polled would take CPU from that work and lose the priority the scheduler gives a thread that
// slept, so its requests would wait behind the other work (measured: p90 50-100 -> 160-440 µs
// under a load average of 12). Thread-safety: one thread (the loop's).
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string_view>

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

// Whether the machine has a core to spare: no more threads runnable right now (the count in
// /proc/loadavg, the caller included) than the machine's online cores — both counts are the
// machine's, so a server pinned to some cores still polls when the machine is idle. Read at most
// once per kRecheck; true when it cannot be read (then the window alone bounds the polling). The
// time is the caller's (the loop's clock, since any fixed point).
class SpareCore {
 public:
  static constexpr std::chrono::milliseconds kRecheck{1};

  SpareCore();
  ~SpareCore();
  SpareCore(const SpareCore&) = delete;
  SpareCore& operator=(const SpareCore&) = delete;

  bool Spare(std::chrono::nanoseconds now);

  // The runnable threads of /proc/loadavg's text ("0.42 1.66 2.08 3/456 12345": 3); nullopt
  // when the text is not of that form.
  static std::optional<size_t> Runnable(std::string_view loadavg);

 private:
  int fd_ = -1;
  size_t cores_ = 1;
  bool spare_ = true;
  std::optional<std::chrono::nanoseconds> checked_;
};

}  // namespace omnigraph::server
