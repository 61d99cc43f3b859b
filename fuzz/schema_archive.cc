// Fuzz harness: a stored schema archive (_graph/schemas/…), schema::ParseArchive
// (docs/design/fuzzing.md).
#include "fuzz_util.h"
#include "schema/archive.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace omnigraph;
  const std::string_view in = fuzz::Bytes(data, size);
  fuzz::ExpectNamed(schema::ParseArchive(in), "");
  return 0;
}
