// Change sets on the record (docs/format/commit-documents.md "Change set"): what a commit
// inserted, updated and deleted per table, inline in its record up to kChangeSetInlineBytesMax of
// ids and otherwise in an immutable, content-addressed delta object the record names. The writer
// creates the delta (one conditional create) while it stages, before the record, like the schema
// archive; a reader fetches it only when it needs the ids. Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "commit/documents.h"
#include "storage/object_store.h"

namespace omnigraph::commit {

// Ids (their JSON bytes, summed over every list of every table) a record holds inline. With it, a
// record stays under 64 KiB unless it touches more than about 200 tables (docs/format).
inline constexpr uint64_t kChangeSetInlineBytesMax = 16 << 10;
// The largest delta object written and read. A commit whose ids would need more records no
// change set, and readers fall back to the exact table diff.
inline constexpr uint64_t kChangeSetDeltaBytesMax = 64 << 20;

// `_graph/{key}/changes/{sha256 hex}.json`.
std::string ChangeSetDeltaName(std::string_view stream_key, std::string_view sha256_hex);

// The bytes the id lists of `c` take inline (each id's JSON string plus a separator).
uint64_t InlineIdBytes(const ChangeSet& c);

// The change set a record of stream `stream_key` carries for `full` (every id listed): `full`
// itself when its ids fit inline; otherwise the counts and a delta created (conditional create;
// an existing object with these bytes is fine, other bytes are Corruption naming it) holding the
// ids; nullopt when even the delta would exceed kChangeSetDeltaBytesMax. Storage errors as
// reported.
Result<std::optional<ChangeSet>> SpillChangeSet(storage::ObjectStore& store,
                                                std::string_view stream_key, ChangeSet full);

// `c` with every id list present: itself when inline, else with the delta's lists read (one
// bounded GET). Corruption naming the delta when it is missing, too large, not the bytes its
// hash names, malformed, or lists other tables or counts than the record.
Result<ChangeSet> LoadChangeSetIds(storage::ObjectStore& store, const ChangeSet& c);

}  // namespace omnigraph::commit
