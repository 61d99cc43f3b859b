// The event loop's poll window (server/poll_window.h).
#include "server/poll_window.h"

#include <algorithm>

namespace omnigraph::server {

void PollWindow::Idle(std::chrono::nanoseconds idle) {
  if (idle <= window_) return;  // Caught by the poll, or would have been.
  if (idle <= kMax) {
    window_ = std::min<std::chrono::nanoseconds>(
        kMax, std::max<std::chrono::nanoseconds>(2 * window_, kGrowFrom));
    return;
  }
  window_ /= 2;
  if (window_ < kGrowFrom) window_ = std::chrono::nanoseconds::zero();
}

}  // namespace omnigraph::server
