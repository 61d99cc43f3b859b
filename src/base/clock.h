// Clock: the only source of time for library code (docs/design/overview.md "Layers").
//
// SystemClock reads the real clocks; ManualClock is set and advanced by tests and the simulator,
// and its SleepMicros advances time instead of blocking. Both are thread-safe.
#pragma once

#include <atomic>
#include <cstdint>

namespace omnigraph {

class Clock {
 public:
  virtual ~Clock() = default;
  // Wall-clock time as Unix microseconds.
  virtual int64_t NowMicros() = 0;
  // A monotonic reading in microseconds, for measuring intervals.
  virtual int64_t MonotonicMicros() = 0;
  // Waits for `micros` (a simulated clock advances instead).
  virtual void SleepMicros(int64_t micros) = 0;

  int64_t NowMillis() { return NowMicros() / 1000; }
};

class SystemClock final : public Clock {
 public:
  int64_t NowMicros() override;
  int64_t MonotonicMicros() override;
  void SleepMicros(int64_t micros) override;

  // A process-wide instance.
  static SystemClock* Default();
};

class ManualClock final : public Clock {
 public:
  explicit ManualClock(int64_t start_micros = 1'700'000'000'000'000) : now_(start_micros) {}

  int64_t NowMicros() override { return now_.load(std::memory_order_relaxed); }
  int64_t MonotonicMicros() override { return now_.load(std::memory_order_relaxed); }
  void SleepMicros(int64_t micros) override { Advance(micros); }

  void Advance(int64_t micros) { now_.fetch_add(micros, std::memory_order_relaxed); }
  void Set(int64_t micros) { now_.store(micros, std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> now_;
};

}  // namespace omnigraph
