// Fuzz harness: an id index payload (derived kind ids) against its manifest
// (docs/design/fuzzing.md). A blocked, prefixed or stepped payload (revision 2, 3 or 4) is
// decoded twice: as given, and with its checksums recomputed over the mutated bytes
// (ResealBlockedIds), since its open checks only the checksums and the directory and a mutation
// would otherwise never reach a block's entries.
// Every index that opens is then asked point calls and made whole; each may refuse only with
// Corruption naming the object (decision 215).
#include "table/id_index.h"
#include "fuzz_util.h"
#include "table/id_index_blocked.h"
#include "table/le_bytes.h"

namespace {

using namespace omnigraph;

void Exercise(const table::IdIndex& index) {
  const size_t n = index.size();
  if (n == 0) return;
  for (const size_t i : {size_t{0}, n / 2, n - 1}) {
    const Result<std::string_view> id = index.IdAtPosition(i);
    fuzz::ExpectNamed(id, "d.ids");
    fuzz::ExpectNamed(index.RefAtPosition(i), "d.ids");
    if (!id.ok()) continue;
    const Result<int64_t> at = index.Locate(*id);
    fuzz::ExpectNamed(at, "d.ids");
    if (at.ok() && *at != static_cast<int64_t>(i)) fuzz::Finding("an id found at another place");
  }
  fuzz::ExpectNamed(index.Locate("01KBV00000000000000000000X"), "d.ids");
  const Result<const table::IdIndex*> whole = index.Whole();
  fuzz::ExpectNamed(whole, "d.ids");
  if (whole.ok() && (*whole)->size() != n) fuzz::Finding("the whole index has another size");
}

void DecodeAndExercise(const table::TableManifest& m, std::string payload) {
  const auto bytes = table::Aligned8(storage::SharedBytes::FromString(std::move(payload)));
  const Result<table::IdIndex> index = table::IdIndex::Decode(bytes, m, "d.ids");
  fuzz::ExpectNamed(index, "d.ids");
  if (index.ok()) Exercise(*index);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view in = fuzz::Bytes(data, size);
  // Input: a manifest and the payload (fuzz::Split); an unreadable manifest ends the case.
  auto [head, payload] = fuzz::Split(in);
  Result<table::TableManifest> m = table::DecodeManifest(head, "manifest.json");
  if (!m.ok()) return 0;
  DecodeAndExercise(*m, std::string(payload));
  constexpr size_t kRevisionAt = 20;
  const uint32_t revision =
      payload.size() >= kRevisionAt + 4 ? table::LoadLe<uint32_t>(payload, kRevisionAt) : 0;
  if (revision == table::kIdsRevisionBlocked || revision == table::kIdsRevisionPrefixed ||
      revision == table::kIdsRevisionStepped) {
    DecodeAndExercise(*m, table::ResealBlockedIds(payload));
  }
  return 0;
}
