// Fuzz harness: the NDJSON load reader, engine::JsonlReader (docs/design/fuzzing.md): every line
// of the input parsed into a record until the end or the first refusal.
#include "engine/ops/jsonl_reader.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace omnigraph;
  engine::StringLines lines(fuzz::Bytes(data, size));
  engine::JsonlReader reader(lines);
  engine::JsonlRecord record;
  for (;;) {
    Result<bool> next = reader.Next(&record);
    fuzz::ExpectNamed(next, "");
    if (!next.ok() || !*next) break;
  }
  return 0;
}
