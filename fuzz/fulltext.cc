// Fuzz harness: a full-text index payload (derived kind fts.N) (docs/design/fuzzing.md).
#include "fuzz_util.h"
#include "query/text/fulltext_index.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace omnigraph;
  const std::string_view in = fuzz::Bytes(data, size);
  fuzz::ExpectNamed(query::text::FullTextIndex::Decode(in, "d.fts"), "d.fts");
  return 0;
}
