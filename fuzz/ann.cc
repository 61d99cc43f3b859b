// Fuzz harness: a vector index payload (derived kind ann.N), opened through faiss
// (docs/design/fuzzing.md).
#include "fuzz_util.h"
#include "table/ann_index.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace omnigraph;
  const std::string_view in = fuzz::Bytes(data, size);
  fuzz::ExpectNamed(table::AnnIndex::Decode(in, "d.ann"), "d.ann");
  return 0;
}
