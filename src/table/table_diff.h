// Diffs of two versions of one table: which ids were inserted, which updated (with the row
// before and after) and which deleted, going from `before` to `after`.
//
// Diff works from the manifests: a row is live in a version when its fragment is listed and the
// row is not in that fragment's deletion vector, so the rows that changed are exactly the live
// rows of one version that are not live in the other, found from the fragment lists and
// deletion vectors alone. Only the fragments holding such rows are read. An id among both the
// removed and the added rows is an update when its row images differ (and no change otherwise);
// when `after` was staged directly on `before` by a delete, the recorded deleted ids are the
// whole diff and no fragment is read. The versions may be on different branches.
// ExactDiff compares the full row images of both versions instead; it exists to check Diff.
// Thread-safe.
#pragma once

#include <string>
#include <vector>

#include "table/column.h"
#include "table/table_version.h"

namespace omnigraph::table {

struct TableDiff {
  std::vector<std::string> inserted_ids;  // Ascending.
  std::vector<std::string> updated_ids;   // Ascending.
  std::vector<std::string> deleted_ids;   // Ascending.
  ColumnBatch inserted;                   // The rows of inserted_ids in `after`, in that order.
  ColumnBatch updated_before;             // The rows of updated_ids in `before`.
  ColumnBatch updated_after;              // The rows of updated_ids in `after`.
};

// The diff from `before` to `after`. InvalidArgument when they are versions of different tables;
// Unsupported when their schemas differ; Corruption and storage failures as reads report them.
Result<TableDiff> Diff(const TableVersion& before, const TableVersion& after);

// The same diff computed by comparing every row of both versions.
Result<TableDiff> ExactDiff(const TableVersion& before, const TableVersion& after);

}  // namespace omnigraph::table
