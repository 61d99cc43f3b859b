// Free huge blocks from /proc/buddyinfo and the kernel's huge page mode (base/huge_pages.h).
#include "base/huge_pages.h"

#include <unistd.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <string_view>

namespace omnigraph {

size_t FreeHugeBlockBytes(std::string_view buddyinfo, size_t page_bytes, size_t huge_bytes) {
  // Each line: "Node 0, zone   Normal  c0 c1 c2 ...", c_k free blocks of page_bytes << k.
  size_t total = 0;
  std::istringstream lines{std::string(buddyinfo)};
  for (std::string line; std::getline(lines, line);) {
    const size_t zone = line.find("zone");
    if (zone == std::string::npos) continue;
    std::istringstream fields(line.substr(zone + 4));
    std::string name;
    fields >> name;
    size_t block = page_bytes;
    for (unsigned long long count = 0; fields >> count; block *= 2) {
      if (block >= huge_bytes) total += static_cast<size_t>(count) * block;
    }
  }
  return total;
}

bool HugePagesCheap(size_t bytes, size_t free_huge_bytes) {
  return free_huge_bytes >= bytes && free_huge_bytes - bytes >= kHugeHeadroomBytes;
}

bool HugePagesCheapNow(size_t bytes) {
  FILE* file = std::fopen("/proc/buddyinfo", "re");
  if (file == nullptr) return true;
  std::string text(4096, '\0');
  const size_t n = std::fread(text.data(), 1, text.size(), file);
  std::fclose(file);
  if (n == 0) return true;
  text.resize(n);
  const long page = sysconf(_SC_PAGESIZE);
  return HugePagesCheap(bytes, FreeHugeBlockBytes(text, page > 0 ? static_cast<size_t>(page) : 4096,
                                                  size_t{2} << 20));
}

bool HugePagesAdvisedOnly() {
  FILE* file = std::fopen("/sys/kernel/mm/transparent_hugepage/enabled", "re");
  if (file == nullptr) return false;
  char mode[128] = {};
  const size_t n = std::fread(mode, 1, sizeof(mode) - 1, file);
  std::fclose(file);
  return std::string_view(mode, n).find("[madvise]") != std::string_view::npos;
}

}  // namespace omnigraph
