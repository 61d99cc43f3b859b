// Progress of a long verb on a terminal (cli.h "Progress"): one line on stderr, rewritten in
// place as the library reports, finished with a newline or cleared when the call fails.
#include <unistd.h>

#include <cstdio>
#include <string>

#include "cli.h"

namespace omnigraph::cli {
namespace {

// Whether a progress line is on the terminal now (not yet finished or cleared).
bool line_open = false;

// 1234567 -> "1,234,567".
std::string Grouped(uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

std::string Seconds(double s) {
  char text[32];
  std::snprintf(text, sizeof text, s < 10 ? "%.1f s" : "%.0f s", s);
  return text;
}

}  // namespace

std::string ProgressText(const api::Progress& p) {
  const double elapsed_s = static_cast<double>(p.elapsed_micros) / 1e6;
  const uint64_t rate = elapsed_s > 0 ? static_cast<uint64_t>(p.done / elapsed_s) : 0;
  std::string text = p.operation +
                     (p.finished        ? " done"
                      : p.phase.empty() ? ""
                                        : " " + p.phase) +
                     ": " + Grouped(p.done);
  if (p.total && !p.finished) text += " of " + Grouped(*p.total);
  text += " " + p.unit + ", " + Grouped(rate) + "/s, " + Seconds(elapsed_s);
  if (p.finished) return text;
  // The fraction done: of the input's bytes while a load reads a file, else of the total.
  double fraction = -1;
  if (p.bytes_total && *p.bytes_total > 0 && p.bytes_done > 0 && p.phase == "reading") {
    fraction = static_cast<double>(p.bytes_done) / static_cast<double>(*p.bytes_total);
  } else if (p.total && *p.total > 0 && p.done > 0) {
    fraction = static_cast<double>(p.done) / static_cast<double>(*p.total);
  }
  if (fraction > 0 && fraction <= 1) {
    char pct[16];
    std::snprintf(pct, sizeof pct, "%.0f%%", fraction * 100);
    text +=
        ", " + std::string(pct) + ", ~" + Seconds(elapsed_s * (1 - fraction) / fraction) + " left";
  }
  return text;
}

std::function<void(const api::Progress&)> TerminalProgress() {
  if (isatty(STDERR_FILENO) == 0) return nullptr;
  return [](const api::Progress& p) {
    // An export to the terminal itself would interleave with its own output.
    if (p.operation == "export" && isatty(STDOUT_FILENO) != 0) return;
    // Carriage return and erase-line: the line is rewritten in place.
    std::fprintf(stderr, "\r\033[K%s%s", ProgressText(p).c_str(), p.finished ? "\n" : "");
    std::fflush(stderr);
    line_open = !p.finished;
  };
}

void ClearProgress() {
  if (!line_open) return;
  std::fputs("\r\033[K", stderr);
  std::fflush(stderr);
  line_open = false;
}

}  // namespace omnigraph::cli
