// Fuzz harness: a deletion vector (deletions/….del) against a manifest ref
// (docs/design/fuzzing.md).
#include "table/deletion_vector.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace omnigraph;
  const std::string_view in = fuzz::Bytes(data, size);
  // The fragment's row count and the ref's cardinality come from the input's first 16 bytes; the
  // ref's size and checksum are those of the rest (a writer computes them from the bytes).
  if (size < 16) return 0;
  uint64_t rows = 0, count = 0;
  std::memcpy(&rows, data, 8);
  std::memcpy(&count, data + 8, 8);
  const std::string_view bytes = in.substr(16);
  const table::DeletionRef ref{"deletions/x.del", count, bytes.size(),
                               table::DeletionChecksum(bytes)};
  fuzz::ExpectNamed(table::DecodeDeletionVector(bytes, ref, rows, "x.del"), "x.del");
  return 0;
}
