// Fuzz harness: a full-text index delta payload (delta derived object of fts.N)
// (docs/design/fuzzing.md).
#include "query/text/fulltext_delta.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace omnigraph;
  const std::string_view in = fuzz::Bytes(data, size);
  fuzz::ExpectNamed(query::text::FullTextDelta::Decode(in, "d.fts"), "d.fts");
  return 0;
}
