// Fuzz harness: a change-set delta object (_graph/{key}/changes/…json),
// commit::DecodeChangeSetDelta (docs/design/fuzzing.md).
#include "commit/documents.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace omnigraph;
  const std::string_view in = fuzz::Bytes(data, size);
  fuzz::ExpectNamed(commit::DecodeChangeSetDelta(in, "delta.json"), "delta.json");
  return 0;
}
