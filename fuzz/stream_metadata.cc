// Fuzz harness: stream metadata and the other small graph documents (name generation, storage
// stamp, horizon) (docs/design/fuzzing.md).
#include "commit/branches.h"
#include "commit/documents.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace omnigraph;
  const std::string_view in = fuzz::Bytes(data, size);
  fuzz::ExpectNamed(commit::DecodeStreamMetadata(in, "stream.json"), "stream.json");
  fuzz::ExpectNamed(commit::DecodeNameGeneration(in, "name.json"), "name.json");
  fuzz::ExpectNamed(commit::DecodeStorageStamp(in, "storage.json"), "storage.json");
  fuzz::ExpectNamed(commit::DecodeHorizon(in, "horizon.json"), "horizon.json");
  return 0;
}
