// Fuzz harness: a table version manifest and the deleted-ids side file (docs/design/fuzzing.md).
// The manifest's two readings must agree: whatever the scan reads (decision 243), the DOM reading
// reads too, to the same value.
#include "fuzz_util.h"
#include "table/table_manifest.h"
#include "table/table_manifest_internal.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace omnigraph;
  const std::string_view in = fuzz::Bytes(data, size);
  Result<table::TableManifest> m = table::DecodeManifest(in, "manifest.json");
  fuzz::ExpectNamed(m, "manifest.json");
  if (std::optional<table::TableManifest> scanned = table::internal::ScanManifest(in)) {
    Result<table::TableManifest> dom = table::internal::DecodeManifestFromJson(in, "manifest.json");
    if (!dom.ok())
      fuzz::Finding("the scan read a manifest the DOM reading refuses: " + dom.status().ToString());
    if (!(*dom == *scanned)) fuzz::Finding("the scan and the DOM reading differ");
  }
  // The side file of deleted ids, checked against what a manifest would say of it.
  if (size >= 2) {
    fuzz::ExpectNamed(
        table::DecodeDeletedIds(in, (uint64_t{1} << 63) | data[0], data[1], "ids.json"),
        "ids.json");
  }
  return 0;
}
