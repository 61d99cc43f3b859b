// The derived-object step (derived_indexes.h).
#include "engine/write/derived_indexes.h"

#include <algorithm>

#include "engine/graph/graph.h"
#include "query/text/fulltext_index.h"
#include "query/text/fulltext_version.h"
#include "table/ann_delta.h"

namespace omnigraph::engine {

namespace {

// Whether `version` holds a readable `kind` (one ranged read of the header). A damaged object
// counts as missing: building replaces it.
bool HasDerived(const table::TableVersion& version, const std::string& kind) {
  return version.ReadDerivedRange(kind, 0, 0).ok();
}

std::vector<uint32_t> VectorFields(const table::TableVersion& version) {
  std::vector<uint32_t> out;
  for (const table::Field& f : version.schema()) {
    if (f.type.id == table::TypeId::kVector) out.push_back(f.id);
  }
  return out;
}

enum class Built { kStored, kNotNeeded, kFailed };

// Builds and stores one full-text or vector kind. An ANN build over too few non-null vectors
// stores nothing (exact search is as fast).
Built BuildOne(const table::TableVersion& version, const std::string& kind,
               const table::AnnBuildOptions& ann) {
  // Both kinds are "{fts|annl2}.{field_id}".
  const uint32_t field = static_cast<uint32_t>(std::stoul(kind.substr(kind.find('.') + 1)));
  // A small write over a base that stores the index gets a delta (query/text/fulltext_version.h).
  if (kind.starts_with("fts.") && query::text::StoreFullTextDelta(version, field)) {
    return Built::kStored;
  }
  if (kind.starts_with("annl2.") && table::StoreAnnDelta(version, field)) return Built::kStored;
  Result<std::string> payload = kind.starts_with("fts.")
                                    ? query::text::BuildFullTextPayload(version, field)
                                    : table::BuildAnnPayload(version, field, ann);
  if (!payload.ok()) return Built::kFailed;
  if (payload->empty() && !kind.starts_with("fts.")) return Built::kNotNeeded;
  return version.WriteDerived(kind, *payload).ok() ? Built::kStored : Built::kFailed;
}

// Stores the id index or the forward adjacency of a version that may have either in memory
// already (then it is not stored again by computing it).
Built StoreIndex(const table::TableVersion& version, const std::string& kind) {
  std::string payload;
  if (kind == table::kIdsKind) {
    Result<std::shared_ptr<const table::IdIndex>> ids = version.SortedIds();
    if (!ids.ok()) return Built::kFailed;
    payload = (*ids)->Encode(static_cast<uint32_t>(version.manifest().fragments.size()));
  } else {
    Result<std::shared_ptr<const table::EdgeCsr>> csr = version.Csr(table::EdgeDirection::kOut);
    if (!csr.ok()) return Built::kFailed;
    payload = (*csr)->Encode();
  }
  return version.WriteDerived(kind, payload).ok() ? Built::kStored : Built::kFailed;
}

// The index kinds stored as deltas over the version's base (none when its write was large or the
// base has no index); a failure leaves them to the full build or to a reader.
std::vector<std::string> IndexDeltasOf(const table::TableVersion& version) {
  Result<std::vector<std::string>> stored = version.WriteIndexDeltas();
  return stored.ok() ? *std::move(stored) : std::vector<std::string>{};
}

}  // namespace

std::vector<std::string> ExpectedDerivedKinds(const schema::TypeDef* type,
                                              const table::TableVersion& version,
                                              const table::AnnBuildOptions& ann) {
  std::vector<std::string> kinds = version.IndexKinds();
  if (type != nullptr && version.entity_count() > 0) {
    for (uint32_t field : query::text::FullTextFields(*type)) {
      kinds.push_back(query::text::FullTextKind(field));
    }
  }
  if (version.entity_count() >= ann.rows_min) {
    for (uint32_t field : VectorFields(version)) kinds.push_back(table::AnnKind(field));
  }
  return kinds;
}

DerivedBuildOutcome BuildMissingDerived(const schema::TypeDef* type,
                                        const table::TableVersion& version,
                                        const DerivedBuildOptions& options) {
  DerivedBuildOutcome out;
  const std::vector<std::string> index_kinds = version.IndexKinds();
  std::vector<std::string> missing;
  for (const std::string& kind : ExpectedDerivedKinds(type, version, options.ann)) {
    if (options.fresh || !HasDerived(version, kind)) missing.push_back(kind);
  }
  const auto is_index = [&](const std::string& kind) {
    return std::find(index_kinds.begin(), index_kinds.end(), kind) != index_kinds.end();
  };
  // A fresh version's id index and adjacency are stored as deltas over its base's when the
  // write was small (table/index_delta.h), else built together and stored as they are built.
  const bool fresh_indexes = options.fresh && !index_kinds.empty();
  const std::vector<std::string> deltas =
      fresh_indexes ? IndexDeltasOf(version) : std::vector<std::string>{};
  const bool fresh_ok =
      !fresh_indexes || deltas.size() == index_kinds.size() || version.BuildIndexes().ok();
  for (const std::string& kind : missing) {
    const Built built = !is_index(kind) ? BuildOne(version, kind, options.ann)
                        : options.fresh ? (fresh_ok ? Built::kStored : Built::kFailed)
                                        : StoreIndex(version, kind);
    if (built == Built::kStored) out.built.push_back(kind);
    if (built == Built::kFailed) out.pending.push_back(kind);
  }
  return out;
}

namespace {

// A load's step: BuildMissingDerived (fresh) over the versions `record` pins for the tables in
// `written`, typed by `catalog` (null: every table untyped).
void BuildWrittenDerived(const table::TableStore& tables, const schema::Catalog* catalog,
                         const commit::Record& record, const std::set<std::string>& written,
                         const table::AnnBuildOptions& ann) {
  DerivedBuildOptions options;
  options.ann = ann;
  options.fresh = true;
  for (const TablePin& pin : record.pins) {
    if (!written.count(pin.table_key)) continue;
    Result<std::shared_ptr<const table::TableVersion>> version = tables.Open(pin);
    if (!version.ok()) continue;
    const schema::TypeDef* type =
        catalog != nullptr ? catalog->FindByTableKey(pin.table_key) : nullptr;
    (void)BuildMissingDerived(type, **version, options);
  }
}

// A mutation's or a merge's index step: the id index and adjacency of each version `record` pins
// for the tables in `written`, as deltas over its base's (TableVersion::WriteIndexDeltas) when the
// write was small and the base has them; otherwise nothing is stored and the version's first
// reader builds and stores them in full (a small write never rewrites a whole index).
void StoreWrittenIndexDeltas(const table::TableStore& tables, const commit::Record& record,
                             const std::set<std::string>& written) {
  for (const TablePin& pin : record.pins) {
    // A small version keeps no index: it is not even opened.
    if (!written.count(pin.table_key) || pin.entity_count < tables.derived_rows_min()) continue;
    Result<std::shared_ptr<const table::TableVersion>> version = tables.Open(pin);
    if (version.ok()) (void)IndexDeltasOf(**version);
  }
}

// A mutation's or a merge's text step: for the tables in `written`, the full-text indexes whose
// write was small enough for a delta over a base that stores them
// (query/text/fulltext_version.h StoreFullTextDelta). Nothing else: a full rebuild stays the first
// reader's or `optimize`'s, as these writes are often small and frequent.
void StoreWrittenTextDeltas(const table::TableStore& tables, const schema::Catalog& catalog,
                            const commit::Record& record, const std::set<std::string>& written) {
  for (const TablePin& pin : record.pins) {
    const schema::TypeDef* type = catalog.FindByTableKey(pin.table_key);
    if (!written.count(pin.table_key) || type == nullptr) continue;
    const std::vector<uint32_t> fields = query::text::FullTextFields(*type);
    if (fields.empty()) continue;  // Nothing to store: not even the manifest is read.
    Result<std::shared_ptr<const table::TableVersion>> version = tables.Open(pin);
    if (!version.ok() || (*version)->entity_count() == 0) continue;
    for (uint32_t field : fields) {
      (void)query::text::StoreFullTextDelta(**version, field);
    }
  }
}

// A mutation's or a merge's vector step: for the tables in `written` that are large enough to
// keep a vector index, each Vector property's index as a delta over the base's when the write was
// small and the base stores it (table/ann_delta.h StoreAnnDelta); otherwise the version is
// answered exactly until a load or `optimize` builds it (a query never builds one, decision 51).
void StoreWrittenAnnDeltas(const table::TableStore& tables, const schema::Catalog& catalog,
                           const commit::Record& record, const std::set<std::string>& written) {
  for (const TablePin& pin : record.pins) {
    if (!written.count(pin.table_key) || pin.entity_count < table::kAnnRowsMin) continue;
    const schema::TypeDef* type = catalog.FindByTableKey(pin.table_key);
    const bool vectors =
        type != nullptr &&
        std::any_of(type->properties.begin(), type->properties.end(),
                    [](const auto& p) { return p.type.scalar == schema::ScalarKind::kVector; });
    if (!vectors) continue;  // Nothing to store: not even the manifest is read.
    Result<std::shared_ptr<const table::TableVersion>> version = tables.Open(pin);
    if (!version.ok()) continue;
    for (uint32_t field : VectorFields(**version)) (void)table::StoreAnnDelta(**version, field);
  }
}

}  // namespace

void StoreDerivedAfterPublish(const table::TableStore& tables, const schema::Catalog* catalog,
                              const commit::Record& record, const std::set<std::string>& written,
                              const AfterPublishOptions& options) {
  if (options.build_all) {
    BuildWrittenDerived(tables, catalog, record, written, options.ann);
    return;
  }
  StoreWrittenIndexDeltas(tables, record, written);
  if (catalog != nullptr) {
    StoreWrittenTextDeltas(tables, *catalog, record, written);
    StoreWrittenAnnDeltas(tables, *catalog, record, written);
  }
}

}  // namespace omnigraph::engine
