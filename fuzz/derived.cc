// Fuzz harness: the derived-object envelope (derived/d{version}.{kind}) against its manifest
// (docs/design/fuzzing.md).
#include "table/derived.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace omnigraph;
  const std::string_view in = fuzz::Bytes(data, size);
  // Input: a manifest and the whole object (fuzz::Split); an unreadable manifest ends the case.
  auto [head, object] = fuzz::Split(in);
  Result<table::TableManifest> m = table::DecodeManifest(head, "manifest.json");
  if (!m.ok()) return 0;
  for (const char* kind : {"ids", "csr.out", "csr.in"}) {
    fuzz::ExpectNamed(table::DecodeDerivedObject(*m, kind, object, "d.obj"), "d.obj");
  }
  return 0;
}
