// The full-text indexes of one table version: which properties of a type have one, and how the
// index of one of them is built straight from the version (its live rows in id order), without
// the executor's table image. What the post-load step and `optimize` use to store `fts.{field}`
// derived objects (docs/design/fulltext.md "Storage"); the executor reads the same objects.
// Stateless functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "query/text/fulltext_delta.h"
#include "query/text/fulltext_index.h"
#include "schema/catalog.h"
#include "table/table_version.h"

namespace omnigraph::query::text {

// Whether `prop` of `type` is a free-text String (not a list) that declares `@index`: the
// properties that get a full-text index.
bool HasFullTextIndex(const schema::TypeDef& type, const schema::PropertyDef& prop);
// The field ids of every such property of `type`, in declaration order.
std::vector<uint32_t> FullTextFields(const schema::TypeDef& type);

// The payload of the index of String field `field_id` of `version`, documents numbered by dense
// index (id order). InvalidArgument when the version has no such String field; storage and
// corruption errors from reading the fragments.
Result<std::string> BuildFullTextPayload(const table::TableVersion& version, uint32_t field_id);

// A delta (fulltext_delta.h) is written instead of a full index when the write changed at most
// one row in this many of its base's: added rows plus removed ones (an update counts twice).
// Beyond that the reader's merge of a long delta costs about what the writer saves.
inline constexpr uint64_t kFullTextDeltaShareInverse = 8;

// The delta payload of field `field_id` of `version` over `base`: the version it was staged
// from, or that version's base when `version` was staged on a step between (a merge's delete
// step, never published; at most table::kDeltaAncestorsMax - 1 steps). Added: the live rows of
// the fragments `base` lacks (their ids and text, the only fragments read). Removed: the ids
// every step deleted, and the added ids `base` holds (the old side of updates; from its id index,
// read only when some step updated rows or inserted ids between), each once. InvalidArgument
// when `version` was not staged from `base` that way, the field is not a String in every version on
// the way, or the rows do not match the manifests' counts; storage and corruption errors from
// the reads.
Result<std::string> BuildFullTextDeltaPayload(const table::TableVersion& version,
                                              const table::TableVersion& base, uint32_t field_id);

// Stores the index of field `field_id` of `version` as a delta over an ancestor's when that pays
// (docs/design/fulltext.md "Deltas"): the ancestor is the base version when it stores the kind,
// else the base's base when that does (the base is stepped over, as table::kDeltaAncestorsMax
// allows); it stores the kind at a depth below table::kDerivedDeltaDepthMax; the field is a
// String in every version on the way; and the rows the steps changed (their manifests' counts:
// inserted + 2 x updated + deleted, summed) are at most the ancestor's rows / 8, checked before
// each manifest is read. True when a delta was stored; false when a full index is due instead
// (nothing was written), also when reading or storing failed.
bool StoreFullTextDelta(const table::TableVersion& version, uint32_t field_id);

// The stored index `kind` of `version` — its chain, a full index then each delta — merged into
// the index of the version whose ids (ascending) are `ids`. NotFound when nothing is stored or a
// link is gone; Corruption naming the object when a link is damaged or the chain does not fit.
// The caller then builds the index and stores it with WriteDerived (which replaces a delta).
Result<FullTextIndex> ReadFullTextChain(const table::TableVersion& version, const std::string& kind,
                                        const VersionIds& ids);

}  // namespace omnigraph::query::text
