// Fuzz harness: a checkpoint, commit::DecodeCheckpoint (docs/design/fuzzing.md).
#include "commit/documents.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace omnigraph;
  const std::string_view in = fuzz::Bytes(data, size);
  fuzz::ExpectNamed(commit::DecodeCheckpoint(in, "checkpoint.json"), "checkpoint.json");
  return 0;
}
