// Fuzz harness: an id index payload (derived kind ids) against its manifest
// (docs/design/fuzzing.md).
#include "table/id_index.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace omnigraph;
  const std::string_view in = fuzz::Bytes(data, size);
  // Input: a manifest and the payload (fuzz::Split); an unreadable manifest ends the case.
  auto [head, payload] = fuzz::Split(in);
  Result<table::TableManifest> m = table::DecodeManifest(head, "manifest.json");
  if (!m.ok()) return 0;
  const auto bytes = table::Aligned8(storage::SharedBytes::FromString(std::string(payload)));
  fuzz::ExpectNamed(table::IdIndex::Decode(bytes, *m, "d.ids"), "d.ids");
  return 0;
}
