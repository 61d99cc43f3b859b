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

}  // namespace omnigraph::query::text
