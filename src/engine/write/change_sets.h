// Change sets: what a commit inserted, updated and deleted per table (commit/change_set.h;
// docs/format/commit-documents.md "Change set").
//
// The write path knows its set from the operations it stages (TableChangeOf): an append inserts
// its ids; an upsert inserts the ids its base lacks and updates (rewrites) the ones it holds; a
// delete deletes the ids its base holds; an overwrite inserts, updates and deletes by comparing
// its ids with the base's. Readers take the set from the record and, for a record without one,
// from the exact diff of the table versions the commit and its first parent pin (ChangeSetOf).
// Stateless; thread-safe.
#pragma once

#include <optional>

#include "commit/documents.h"
#include "commit/fold.h"
#include "table/table_store.h"

namespace omnigraph::engine {

// What `change` does to the table at `base` (its id index, no rows read). When the ids the
// change writes would take more than `list_bytes_max` bytes of a change set's lists (an id's
// length + 3 each, commit::InlineIdBytes), no change set can hold them: only the counts are
// filled and `*lists_omitted` is set (a load of millions of rows never holds its ids as
// strings). Errors as reading the index reports.
Result<commit::TableChangeSet> TableChangeOf(const table::TableVersion& base,
                                             const table::TableWrite& change,
                                             uint64_t list_bytes_max = UINT64_MAX,
                                             bool* lists_omitted = nullptr);

// A record's summary: `what` ("mutate join", "load merge") and the counts of `c`, e.g.
// "mutate join: +1 node +1 edge", "load merge: +20 nodes ~5 nodes" (+ inserted, ~ updated,
// - deleted), or "`what`: no entity changes".
std::string SummaryOf(std::string_view what, const commit::ChangeSet& c);

// A group commit's members as `commit show` and the change feed give them: [{actor_id?,
// idempotency_key?, counts}] in the order they were validated (docs/design/engine.md "Group
// commit"); empty for a record of one write.
Json BatchMembersJson(const commit::Record& r);

// The change set of the commit whose state is `after`, against its first parent's state
// `before`, computed from table state: every table whose pinned version differs is diffed
// (table::Diff; an update whose row images are equal is no change). A table that is new in
// `after` lists all its ids as inserted; a table gone from it lists all of `before`'s as deleted.
// `schema_boundary` (and no tables) when the schemas differ. Errors as opening and diffing the
// versions report.
Result<commit::ChangeSet> DiffChangeSet(const table::TableStore& tables,
                                        const commit::GraphState& before,
                                        const commit::GraphState& after);

}  // namespace omnigraph::engine
