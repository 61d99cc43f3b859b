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
  // The ranged reader's view of a revision-2 or -3 payload: its table, then its fence, and
  // (revision 3) the slot ranges of each fence window and the other-id groups it reads by the
  // prefix alone, which must lie inside their sections (the reader's Fetch checks that as a
  // programmer error).
  Result<table::CsrLayout> layout = table::DecodeCsrLayout(bytes.view(), bytes.size(), "d.csr");
  fuzz::ExpectNamed(layout, "d.csr");
  if (!layout.ok()) return 0;
  const auto section = [&](table::CsrSection s) {
    return bytes.view().substr(layout->section_offset[s], layout->section_length[s]);
  };
  Result<table::CsrFence> fence =
      table::CsrFence::Parse(section(table::kCsrFence), *layout, "d.csr");
  fuzz::ExpectNamed(fence, "d.csr");
  if (!fence.ok() || layout->revision != 3) return 0;
  for (uint64_t j = 0; j < fence->samples(); ++j) {
    for (table::CsrSection s : {table::kCsrEdges, table::kCsrTargets}) {
      const auto [at, length] = layout->SlotBytes(s, fence->FirstSlot(j), fence->FirstSlot(j + 1));
      if (at + length > layout->section_offset[s] + layout->section_length[s]) {
        fuzz::Finding("a fence window's slots lie outside their section");
      }
    }
  }
  return 0;
}
