// Fuzz harness: a vector index payload (derived kind ann.N), opened through faiss
// (docs/design/fuzzing.md). OMNIGRAPH_FUZZ_PRINT=1 prints each outcome (to check that the seeds
// decode).
#include <cstdlib>

#include "fuzz_util.h"
#include "table/ann_index.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace omnigraph;
  const std::string_view in = fuzz::Bytes(data, size);
  Result<std::shared_ptr<const table::AnnIndex>> index = table::AnnIndex::Decode(in, "d.ann");
  fuzz::ExpectNamed(index, "d.ann");
  if (std::getenv("OMNIGRAPH_FUZZ_PRINT") != nullptr) {
    std::fprintf(stderr, "ann: %s\n",
                 index.ok() ? ("indexed " + std::to_string((*index)->indexed())).c_str()
                            : index.status().ToString().c_str());
  }
  return 0;
}
