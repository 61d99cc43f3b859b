// Deletion vectors: the rows of one fragment that a table version no longer holds, as a portable
// roaring bitmap (the format of the Java, Go and C roaring libraries; docs/format/table-version.md
// §3). Each version's vector for a fragment is cumulative: it holds every row deleted up to that
// version, so a reader needs only the vector the manifest names. The manifest records the
// vector's size, cardinality and XXH64, which the reader checks: the portable format has no
// checksum of its own. Pure functions; thread-safe.
#pragma once

#include <roaring/roaring.hh>

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"
#include "table/table_manifest.h"

namespace omnigraph::table {

// The portable serialization of `rows` (run-optimized first).
std::string EncodeDeletionVector(Roaring rows);

// XXH64 with seed 0, as recorded in DeletionRef::xxhash64.
uint64_t DeletionChecksum(std::string_view bytes);

// Decodes a vector read from `object` and checks it against the manifest's `ref` and the
// fragment's row count: Corruption naming the object when the size, checksum, cardinality or
// largest row does not match, or the bytes do not parse.
Result<Roaring> DecodeDeletionVector(std::string_view bytes, const DeletionRef& ref,
                                     uint64_t fragment_rows, std::string_view object);

}  // namespace omnigraph::table
