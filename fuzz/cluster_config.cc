// Fuzz harness: the cluster YAML reader, cluster::LoadConfig (docs/design/fuzzing.md). The input
// is cluster.yaml in a scratch directory; OMNIGRAPH_FUZZ_CLUSTER_FILES may name a directory
// whose files (schemas, queries, policy bundles) are copied beside it once, so that the
// references of a real config resolve and their sources are checked too.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cluster/config.h"
#include "fuzz_util.h"

namespace {

namespace fs = std::filesystem;

const std::string& Scratch() {
  static const std::string dir = [] {
    std::string d =
        (fs::temp_directory_path() / ("omnigraph-fuzz-cluster-" + std::to_string(getpid())))
            .string();
    fs::create_directories(d);
    if (const char* files = std::getenv("OMNIGRAPH_FUZZ_CLUSTER_FILES")) {
      std::error_code ec;
      fs::copy(files, d, fs::copy_options::recursive | fs::copy_options::overwrite_existing, ec);
    }
    return d;
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace omnigraph;
  const std::string& dir = Scratch();
  {
    std::ofstream out(dir + "/cluster.yaml", std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  fuzz::ExpectNamed(cluster::LoadConfig(dir, true), "");
  fuzz::ExpectNamed(cluster::ReadStorageKey(dir), "");
  return 0;
}
