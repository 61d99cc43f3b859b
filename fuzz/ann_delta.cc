// Fuzz harness: a vector index delta payload (delta derived objects of kind annl2.N,
// docs/format/vector-index.md "Deltas"; docs/design/fuzzing.md). A delta that decodes must
// encode back to exactly its bytes (every field is checked, nothing is ignored).
#include <cstdlib>

#include "fuzz_util.h"
#include "table/ann_delta.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace omnigraph;
  const std::string_view in = fuzz::Bytes(data, size);
  Result<table::AnnDelta> delta = table::DecodeAnnDelta(in, "d.annl2");
  fuzz::ExpectNamed(delta, "d.annl2");
  if (delta.ok() && table::EncodeAnnDelta(*delta) != in) {
    fuzz::Finding("a decoded vector index delta does not encode back to its bytes");
  }
  if (std::getenv("OMNIGRAPH_FUZZ_PRINT") != nullptr) {
    std::fprintf(stderr, "ann_delta: %s\n",
                 delta.ok() ? ("added " + std::to_string(delta->added.size())).c_str()
                            : delta.status().ToString().c_str());
  }
  return 0;
}
