// Progress of a long operation (load, export, cleanup, merge) for a front end that shows it
// (docs/design/api.md "Progress"). The operation calls a ProgressMeter at natural points (a
// record read, a batch written, a table done); the meter reads the Runtime's monotonic clock and
// passes at most one event per kProgressIntervalMicros to the sink, plus a last event with
// `finished` set when the operation ends. With no sink the meter does nothing (no clock read).
// Not thread-safe: one meter per operation, called from the thread that runs it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>

#include "base/clock.h"

namespace omnigraph::engine {

// Least time between two events of one meter: at most ten a second.
inline constexpr int64_t kProgressIntervalMicros = 100'000;

// One report. The views stay valid for the duration of the sink's call only.
struct ProgressEvent {
  std::string_view operation;  // "load", "export", "cleanup", "merge".
  std::string_view phase;      // What it is doing now ("reading", "committing", ...).
  std::string_view unit;       // What `done` counts: "entities", "tables".
  uint64_t done = 0;
  std::optional<uint64_t> total;  // Of `done`, when known up front.
  // Input bytes read and, when the input's size is known (a file), their total.
  uint64_t bytes_done = 0;
  std::optional<uint64_t> bytes_total;
  int64_t elapsed_micros = 0;
  bool finished = false;
};

using ProgressSink = std::function<void(const ProgressEvent&)>;

class ProgressMeter {
 public:
  // `sink` may be empty (then every call is a no-op); `clock` must outlive the meter.
  ProgressMeter(ProgressSink sink, Clock& clock, std::string_view operation, std::string_view unit,
                std::optional<uint64_t> total = std::nullopt);

  bool active() const { return static_cast<bool>(sink_); }
  void SetTotal(std::optional<uint64_t> total) { event_.total = total; }
  void SetBytesTotal(std::optional<uint64_t> bytes) { event_.bytes_total = bytes; }
  // A new phase, reported at once (phases are few).
  void Phase(std::string_view phase);
  // The counts so far; reported when the last event is older than the interval.
  void Update(uint64_t done, uint64_t bytes_done = 0);
  // The last event, `finished` set. Later calls do nothing.
  void Finish();

 private:
  void Emit(int64_t now);

  ProgressSink sink_;
  Clock& clock_;
  ProgressEvent event_;
  int64_t started_us_ = 0;
  int64_t last_us_ = 0;
};

}  // namespace omnigraph::engine
