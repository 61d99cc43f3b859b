// The derived-object step: builds and stores the derived objects a table version lacks — the id
// index and an edge table's forward adjacency (large versions), the full-text index `fts.{field}`
// of every free-text String that declares `@index`, and the vector index `ann.{field}` of every
// Vector property with enough vectors (docs/design/tables.md "Derived indexes"). A load runs it
// on the versions it published, after the commit; `optimize` runs it on every table version of
// a branch head. Derived objects are never authority: a failed build leaves the version without
// the object (its readers compute the data), so it is reported, never the caller's failure.
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

// The post-load step: BuildMissingDerived (fresh) over the versions `record` pins for the tables
// in `written`, typed by `catalog`.
void BuildWrittenDerived(const table::TableStore& tables, const schema::Catalog& catalog,
                         const commit::Record& record, const std::set<std::string>& written,
                         const table::AnnBuildOptions& ann);

// After a mutation or a merge: the id index and adjacency of each version `record` pins for the
// tables in `written`, as deltas over its base's (TableVersion::WriteIndexDeltas) when the write
// was small and the base has them; otherwise nothing is stored and the version's first reader
// builds and stores them in full (a small write never rewrites a whole index).
void StoreWrittenIndexDeltas(const table::TableStore& tables, const commit::Record& record,
                             const std::set<std::string>& written);

// The step after a mutation or a merge: for the tables in `written`, the full-text indexes whose
// write was small enough for a delta over a base that stores them (query/text/fulltext_version.h
// StoreFullTextDelta). Nothing else: a full rebuild stays the first reader's or `optimize`'s, as
// these writes are often small and frequent. Failures are not reported (never authority).
void StoreWrittenTextDeltas(const table::TableStore& tables, const schema::Catalog& catalog,
                            const commit::Record& record, const std::set<std::string>& written);

}  // namespace omnigraph::engine
