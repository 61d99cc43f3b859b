// The derived-object step: builds and stores the derived objects a table version lacks — the id
// index and an edge table's forward adjacency (large versions), the full-text index `fts.{field}`
// of every free-text String that declares `@index`, and the vector index `ann.{field}` of every
// Vector property with enough vectors (docs/design/tables.md "Derived indexes"). Every writer runs
// it once on the versions it published, after the commit (StoreDerivedAfterPublish); `optimize`
// runs it on every table version of a branch head. Derived objects are never authority: a failed
// build leaves the version without the object (its readers compute the data), so it is
// reported, never the caller's failure.
// Stateless functions; thread-safe as the table layer is.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "commit/documents.h"
#include "schema/catalog.h"
#include "table/ann_index.h"
#include "table/table_store.h"
#include "table/table_version.h"

namespace omnigraph::engine {

struct DerivedBuildOptions {
  table::AnnBuildOptions ann;
  // The version was just staged (a load's): nothing can be there yet, so nothing is looked up
  // before building. Otherwise each expected object is looked up first (one ranged read of its
  // header) and only the missing ones are built.
  bool fresh = false;
};

struct DerivedBuildOutcome {
  // Kinds built and stored by this call.
  std::vector<std::string> built;
  // Kinds the version should have that are still missing (their build or store failed).
  std::vector<std::string> pending;
};

// The derived kinds `version` of `type` should have (`type` may be null: a table the catalog
// does not know gets only its id index and adjacency).
std::vector<std::string> ExpectedDerivedKinds(const schema::TypeDef* type,
                                              const table::TableVersion& version,
                                              const table::AnnBuildOptions& ann);

// Builds and stores every expected kind `version` lacks.
DerivedBuildOutcome BuildMissingDerived(const schema::TypeDef* type,
                                        const table::TableVersion& version,
                                        const DerivedBuildOptions& options);

// What the derived step after a publish builds (StoreDerivedAfterPublish).
struct AfterPublishOptions {
  // A load's versions were just staged and are often large: every kind they should have is built
  // (BuildMissingDerived, fresh). A mutation's or a merge's write is often small and frequent:
  // only deltas over the base's objects are stored (the id index and adjacency, and the full-text
  // indexes of a small write), and a full build stays the first reader's or `optimize`'s.
  bool build_all = false;
  // The vector index build's options (build_all only).
  table::AnnBuildOptions ann;
};

// The derived-index step after a publish, the one call every writer makes once its commit won
// (a load, a mutation, a merge): the derived objects of the versions `record` pins for the tables
// in `written`, typed by `catalog`. `catalog` may be null (a merge whose staged schema does not
// compile): then no full-text or vector index is built, only the id index and adjacency. It
// stays after the writer's publish rather than inside the write path because a merge publishes
// through its own loop and a replayed write publishes nothing. Never authority: a failure leaves
// the version without the object (its readers compute the data), so nothing is returned.
void StoreDerivedAfterPublish(const table::TableStore& tables, const schema::Catalog* catalog,
                              const commit::Record& record, const std::set<std::string>& written,
                              const AfterPublishOptions& options);

}  // namespace omnigraph::engine
