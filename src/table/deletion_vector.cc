#include "table/deletion_vector.h"

#include <exception>

#include "base/hash.h"

namespace omnigraph::table {

std::string EncodeDeletionVector(Roaring rows) {
  rows.runOptimize();
  std::string out(rows.getSizeInBytes(/*portable=*/true), '\0');
  const size_t written = rows.write(out.data(), /*portable=*/true);
  out.resize(written);
  return out;
}

uint64_t DeletionChecksum(std::string_view bytes) { return XxHash64(bytes, 0); }

Result<Roaring> DecodeDeletionVector(std::string_view bytes, const DeletionRef& ref,
                                     uint64_t fragment_rows, std::string_view object) {
  const std::string name(object);
  if (bytes.size() != ref.bytes) {
    return Corruption("deletion vector is " + std::to_string(bytes.size()) +
                          " bytes; the manifest says " + std::to_string(ref.bytes),
                      name);
  }
  if (DeletionChecksum(bytes) != ref.xxhash64) {
    return Corruption("deletion vector checksum does not match the manifest", name);
  }
  Roaring rows;
  // The roaring library reports malformed input by throwing; no exception leaves this function.
  try {
    rows = Roaring::readSafe(bytes.data(), bytes.size());
  } catch (const std::exception& e) {
    return Corruption(std::string("deletion vector does not parse: ") + e.what(), name);
  }
  if (rows.getSizeInBytes(/*portable=*/true) != bytes.size()) {
    return Corruption("deletion vector has trailing or missing bytes", name);
  }
  if (rows.cardinality() != ref.count) {
    return Corruption("deletion vector holds " + std::to_string(rows.cardinality()) +
                          " rows; the manifest says " + std::to_string(ref.count),
                      name);
  }
  if (!rows.isEmpty() && rows.maximum() >= fragment_rows) {
    return Corruption("deletion vector names row " + std::to_string(rows.maximum()) +
                          " of a fragment of " + std::to_string(fragment_rows) + " rows",
                      name);
  }
  return rows;
}

}  // namespace omnigraph::table
