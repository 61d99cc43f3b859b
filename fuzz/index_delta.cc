// Fuzz harness: the id-index and adjacency deltas (delta derived objects of ids and csr.*)
// (docs/design/fuzzing.md).
#include "table/index_delta.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace omnigraph;
  const std::string_view in = fuzz::Bytes(data, size);
  fuzz::ExpectNamed(table::DecodeIdsDelta(in, "d.ids"), "d.ids");
  fuzz::ExpectNamed(table::DecodeEdgesDelta(in, "d.csr"), "d.csr");
  return 0;
}
