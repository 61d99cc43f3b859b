// Fuzz harness: a stream hint, commit::DecodeHint (docs/design/fuzzing.md).
#include "commit/documents.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace omnigraph;
  const std::string_view in = fuzz::Bytes(data, size);
  fuzz::ExpectNamed(commit::DecodeHint(in, "hint.json"), "hint.json");
  return 0;
}
