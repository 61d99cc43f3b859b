// Fuzz harness: an adjacency payload (derived kinds csr.out, csr.in) against its manifest
// (docs/design/fuzzing.md).
#include "fuzz_util.h"
#include "table/edge_csr.h"
#include "table/id_index.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace omnigraph;
  const std::string_view in = fuzz::Bytes(data, size);
  // Input: a manifest and the payload (fuzz::Split); an unreadable manifest ends the case.
  auto [head, payload] = fuzz::Split(in);
  Result<table::TableManifest> m = table::DecodeManifest(head, "manifest.json");
  if (!m.ok()) return 0;
  const auto bytes = table::Aligned8(storage::SharedBytes::FromString(std::string(payload)));
  fuzz::ExpectNamed(table::EdgeCsr::Decode(bytes, *m, "d.csr"), "d.csr");
  // The ranged reader's view of a revision-2 payload: its table, then its fence.
  Result<table::CsrLayout> layout = table::DecodeCsrLayout(bytes.view(), bytes.size(), "d.csr");
  fuzz::ExpectNamed(layout, "d.csr");
  if (layout.ok() &&
      layout->section_offset[table::kCsrFence] + layout->section_length[table::kCsrFence] <=
          bytes.size()) {
    fuzz::ExpectNamed(
        table::CsrFence::Parse(bytes.view().substr(layout->section_offset[table::kCsrFence],
                                                   layout->section_length[table::kCsrFence]),
                               *layout, "d.csr"),
        "d.csr");
  }
  return 0;
}
