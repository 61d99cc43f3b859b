// Fuzz harness: a fragment file (.ogf): open it (tail, footer) and read every column
// (docs/design/fuzzing.md).
#include "fuzz_util.h"
#include "storage/memory_store.h"
#include "table/fragment_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace omnigraph;
  const std::string_view in = fuzz::Bytes(data, size);
  static storage::MemoryStore store;
  const std::string name = "tables/1-1/data/f.ogf";
  if (!store.Put(name, in).ok()) fuzz::Finding("memory store put failed");
  auto reader = table::OpenFragment(store, name, size);
  fuzz::ExpectNamed(reader, name);
  if (reader.ok()) fuzz::ExpectNamed((*reader)->ReadAll(), name);
  return 0;
}
