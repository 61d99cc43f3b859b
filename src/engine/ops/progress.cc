#include "engine/ops/progress.h"

#include <utility>

namespace omnigraph::engine {

ProgressMeter::ProgressMeter(ProgressSink sink, Clock& clock, std::string_view operation,
                             std::string_view unit, std::optional<uint64_t> total)
    : sink_(std::move(sink)), clock_(clock) {
  event_.operation = operation;
  event_.unit = unit;
  event_.total = total;
  if (sink_) {
    started_us_ = clock_.MonotonicMicros();
    last_us_ = started_us_;
  }
}

void ProgressMeter::Phase(std::string_view phase) {
  if (!sink_ || event_.finished) return;
  event_.phase = phase;
  Emit(clock_.MonotonicMicros());
}

void ProgressMeter::Update(uint64_t done, uint64_t bytes_done) {
  if (!sink_ || event_.finished) return;
  event_.done = done;
  event_.bytes_done = bytes_done;
  const int64_t now = clock_.MonotonicMicros();
  if (now - last_us_ >= kProgressIntervalMicros) Emit(now);
}

void ProgressMeter::Finish() {
  if (!sink_ || event_.finished) return;
  event_.finished = true;
  Emit(clock_.MonotonicMicros());
}

void ProgressMeter::Emit(int64_t now) {
  last_us_ = now;
  event_.elapsed_micros = now - started_us_;
  sink_(event_);
}

}  // namespace omnigraph::engine
