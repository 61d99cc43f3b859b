// Blob reads (docs/design/blob.md): one logical node or edge Blob cell of a snapshot, located by
// entity kind, type, id and property, then streamed from the fragment that holds it in bounded
// ranged reads (table/binary_cell.h). Nothing here buffers a whole value. Values; thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "base/json.h"
#include "engine/graph/snapshot.h"
#include "table/binary_cell.h"
#include "table/table_version.h"

namespace omnigraph::engine {

// Which cell: `entity` is "node" or "edge"; `type` and `property` are names of the snapshot's
// schema; `id` is the entity's id.
struct BlobSelector {
  std::string entity;
  std::string type;
  std::string id;
  std::string property;
};

// A located Blob: the table version that holds it, and its cell there — for a managed value
// the bytes of the value itself (past an escape tag, engine/read/external_blob.h); for an external
// reference, its URI.
struct LocatedBlob {
  std::shared_ptr<const table::TableVersion> version;
  table::BinaryCell cell;
  std::string commit_id;                    // The commit the snapshot is.
  std::optional<std::string> external_uri;  // Set for an external reference.
};

// Locates `selector` in `at`, reading the value's first kBlobTagBytes (and an external URI)
// when the cell may be tagged (BinaryCell::may_start_with_nul). InvalidArgument for an entity that
// is not node or edge, an unknown type, an unknown property or one that is not Blob; NotFound for
// an entity the snapshot does not hold and for a null cell (both name the selector); storage
// failures and Corruption as the table reports them, Corruption for a malformed tag.
Result<LocatedBlob> LocateBlob(const Snapshot& at, const BlobSelector& selector);

// {"kind": "managed", "size", "etag", "resolved_snapshot"} of a located managed Blob, or
// {"kind": "external", "uri", "resolved_snapshot"} of an external one (no payload read).
Json BlobStatJson(const LocatedBlob& blob);

// Streams [start, end) of a managed Blob to `sink` (0 <= start <= end <= size; the caller
// checks).
Status ReadBlob(const LocatedBlob& blob, uint64_t start, uint64_t end,
                const std::function<Status(std::string_view)>& sink);

}  // namespace omnigraph::engine
