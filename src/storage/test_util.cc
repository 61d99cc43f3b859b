#include "storage/test_util.h"

#include <cstdlib>
#include <filesystem>

#include "base/status.h"

namespace omnigraph::storage {

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = std::string(base && *base ? base : "/tmp") + "/omnigraph-test-XXXXXX";
  char* made = ::mkdtemp(pattern.data());
  OMNIGRAPH_CHECK_MSG(made != nullptr, "mkdtemp failed");
  path_ = made;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

}  // namespace omnigraph::storage
