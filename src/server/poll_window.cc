// The event loop's poll window (server/poll_window.h).
#include "server/poll_window.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>

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

SpareCore::SpareCore() : fd_(::open("/proc/loadavg", O_RDONLY | O_CLOEXEC)) {
  const long online = ::sysconf(_SC_NPROCESSORS_ONLN);
  cores_ = online > 0 ? static_cast<size_t>(online) : 1;
}

SpareCore::~SpareCore() {
  if (fd_ >= 0) ::close(fd_);
}

bool SpareCore::Spare(std::chrono::nanoseconds now) {
  if (fd_ < 0 || (checked_ && now - *checked_ < kRecheck)) return spare_;
  checked_ = now;
  char text[128];
  const ssize_t n = ::pread(fd_, text, sizeof text - 1, 0);
  if (n <= 0) return spare_ = true;
  const std::optional<size_t> runnable = Runnable(std::string_view(text, static_cast<size_t>(n)));
  return spare_ = !runnable || *runnable <= cores_;
}

std::optional<size_t> SpareCore::Runnable(std::string_view loadavg) {
  // Three averages, then "runnable/threads".
  size_t at = 0;
  for (int field = 0; field < 3; ++field) {
    at = loadavg.find(' ', at);
    if (at == std::string_view::npos) return std::nullopt;
    ++at;
  }
  size_t runnable = 0;
  const char* end = loadavg.data() + loadavg.size();
  const auto [next, ec] = std::from_chars(loadavg.data() + at, end, runnable);
  if (ec != std::errc() || next == end || *next != '/') return std::nullopt;
  return runnable;
}

}  // namespace omnigraph::server
