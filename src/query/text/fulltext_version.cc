// The full-text indexes of a table version (fulltext_version.h).
#include "query/text/fulltext_version.h"

#include <algorithm>
#include <optional>
#include <string_view>

#include "query/text/fulltext_delta.h"
#include "query/text/fulltext_index.h"
#include "table/derived.h"
#include "table/index_delta.h"

namespace omnigraph::query::text {

namespace {

// Rows read from the version per id-order batch while collecting the documents.
constexpr uint64_t kBuildBatchRows = 64 * 1024;

bool HasStringField(const table::Schema& schema, uint32_t field_id) {
  return std::any_of(schema.begin(), schema.end(), [&](const table::Field& f) {
    return f.id == field_id && f.type.id == table::TypeId::kString;
  });
}

// The rows a write changed, by its manifest: added rows plus removed ones.
uint64_t ChangedRows(const table::TableManifest& m) {
  return m.inserted_ids_count + 2 * m.updated_ids_count + m.deleted_ids_count;
}

}  // namespace

bool HasFullTextIndex(const schema::TypeDef& type, const schema::PropertyDef& prop) {
  if (prop.type.scalar != schema::ScalarKind::kString || prop.type.list) return false;
  return std::any_of(type.constraints.begin(), type.constraints.end(),
                     [&](const schema::Constraint& c) {
                       return c.kind == schema::ConstraintKind::kIndex && c.fields.size() == 1 &&
                              c.fields[0].property_id == prop.id;
                     });
}

std::vector<uint32_t> FullTextFields(const schema::TypeDef& type) {
  std::vector<uint32_t> out;
  for (const schema::PropertyDef& prop : type.properties) {
    if (HasFullTextIndex(type, prop)) out.push_back(static_cast<uint32_t>(prop.id));
  }
  return out;
}

Result<std::string> BuildFullTextPayload(const table::TableVersion& version, uint32_t field_id) {
  if (!HasStringField(version.schema(), field_id)) {
    return InvalidArgument("table '" + version.manifest().table_key + "' has no String field " +
                           std::to_string(field_id) + " to index");
  }
  // The documents in dense order: the batches of an id-order scan, held until the build.
  std::vector<table::ColumnBatch> batches;
  std::vector<std::pair<uint32_t, uint32_t>> rows;  // Dense index -> (batch, row).
  const uint32_t fields[] = {field_id};
  OMNIGRAPH_RETURN_IF_ERROR(
      version.ScanInIdOrder(fields, kBuildBatchRows, [&](table::ColumnBatch batch) -> Status {
        const uint32_t b = static_cast<uint32_t>(batches.size());
        for (uint64_t r = 0; r < batch.num_rows(); ++r) rows.emplace_back(b, uint32_t(r));
        batches.push_back(std::move(batch));
        return Status::Ok();
      }));
  Analyzer analyzer;
  FullTextIndex index = FullTextIndex::Build(
      static_cast<uint32_t>(rows.size()),
      [&](uint32_t row) -> std::optional<std::string_view> {
        const table::Column& c = batches[rows[row].first].column(0);
        if (c.IsNull(rows[row].second)) return std::nullopt;
        return c.StringAt(rows[row].second);
      },
      analyzer);
  return index.Encode();
}

namespace {

// The versions strictly between `version` and `ancestor`, nearest first: empty when `ancestor`
// is `version`'s base. InvalidArgument unless `version` was staged from `ancestor` within
// table::kDeltaAncestorsMax steps.
Result<std::vector<std::shared_ptr<const table::TableVersion>>> StepsBetween(
    const table::TableVersion& version, const table::TableVersion& ancestor) {
  std::vector<std::shared_ptr<const table::TableVersion>> between;
  const table::TableVersion* at = &version;
  for (int step = 0; step < table::kDeltaAncestorsMax; ++step) {
    const table::TableManifest& m = at->manifest();
    if (!m.base_staged_version || m.table() != ancestor.table()) break;
    if (*m.base_staged_version == ancestor.manifest().staged_version) return between;
    OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::TableVersion> base, at->Base());
    between.push_back(std::move(base));
    at = between.back().get();
  }
  return InvalidArgument(version.manifest_name() + " was not staged from " +
                         ancestor.manifest_name() + " within " +
                         std::to_string(table::kDeltaAncestorsMax) + " steps");
}

using AddedText = std::vector<std::pair<std::string, std::optional<std::string>>>;

// The live rows (id, text) of the fragments `version` has and `ancestor` lacks: every other
// fragment is the ancestor's (deletion vectors aside), so only these are read.
Result<AddedText> RowsAddedSince(const table::TableVersion& version,
                                 const table::TableVersion& ancestor, uint32_t field_id) {
  table::ScanOptions scan;
  scan.field_ids = {table::kIdFieldId, field_id};
  const auto& old = ancestor.manifest().fragments;
  for (const table::FragmentEntry& f : version.manifest().fragments) {
    if (std::none_of(old.begin(), old.end(), [&](const auto& o) { return o.id == f.id; })) {
      scan.fragment_ids.push_back(f.id);
    }
  }
  AddedText added;
  if (scan.fragment_ids.empty()) return added;
  OMNIGRAPH_RETURN_IF_ERROR(version.Scan(scan, [&](table::ColumnBatch batch) -> Status {
    const table::Column& ids = batch.column(0);
    const table::Column& text = batch.column(1);
    for (uint64_t r = 0; r < batch.num_rows(); ++r) {
      added.emplace_back(
          std::string(ids.StringAt(r)),
          text.IsNull(r) ? std::nullopt : std::optional<std::string>(text.StringAt(r)));
    }
    return Status::Ok();
  }));
  return added;
}

// The ids of `ancestor`'s rows that `version` no longer holds as they were: every step's
// deleted ids (this version's and those of the steps `between`), and the added ids `ancestor`
// holds (the old side of updates, and ids a step between deleted and this version wrote again),
// each once. The ancestor's id index is asked only when some step updated rows or a step between
// inserted ids the ancestor lacks (their deletion later must not count); otherwise every deleted
// id is the ancestor's, and the only added ids it holds are ones a step between deleted.
Result<std::vector<std::string>> RowsRemovedSince(
    const table::TableVersion& version,
    std::span<const std::shared_ptr<const table::TableVersion>> between,
    const table::TableVersion& ancestor, const AddedText& added) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<std::string> deleted, version.DeletedIds());
  bool updates = version.manifest().updated_ids_count > 0, new_ids_between = false;
  for (const auto& step : between) {
    OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<std::string> more, step->DeletedIds());
    deleted.insert(deleted.end(), std::make_move_iterator(more.begin()),
                   std::make_move_iterator(more.end()));
    updates = updates || step->manifest().updated_ids_count > 0;
    new_ids_between = new_ids_between || step->manifest().inserted_ids_count > 0;
  }
  std::vector<std::string> removed;
  std::vector<std::string_view> asked;
  if (new_ids_between) {
    asked.assign(deleted.begin(), deleted.end());
  } else {
    removed = std::move(deleted);
  }
  if (updates || new_ids_between) {
    for (const auto& row : added) asked.push_back(row.first);
  }
  if (!asked.empty()) {
    OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<bool> held, ancestor.Contains(asked));
    for (size_t i = 0; i < asked.size(); ++i) {
      if (held[i]) removed.emplace_back(asked[i]);
    }
  }
  if (!between.empty()) {
    std::sort(removed.begin(), removed.end());
    removed.erase(std::unique(removed.begin(), removed.end()), removed.end());
  }
  return removed;
}

}  // namespace

Result<std::string> BuildFullTextDeltaPayload(const table::TableVersion& version,
                                              const table::TableVersion& base, uint32_t field_id) {
  const table::TableManifest& m = version.manifest();
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<std::shared_ptr<const table::TableVersion>> between,
                             StepsBetween(version, base));
  const bool in_all =
      HasStringField(m.schema, field_id) && HasStringField(base.schema(), field_id) &&
      std::all_of(between.begin(), between.end(),
                  [&](const auto& step) { return HasStringField(step->schema(), field_id); });
  if (!in_all) {
    return InvalidArgument("table '" + m.table_key + "' has no String field " +
                           std::to_string(field_id) + " in every version from " +
                           base.manifest_name());
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(AddedText added, RowsAddedSince(version, base, field_id));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<std::string> removed,
                             RowsRemovedSince(version, between, base, added));
  // One step removes exactly its deletes and updates; over several, a row can be removed by one
  // and written again by the next, so only the sum bounds them.
  uint64_t removals = m.deleted_ids_count + m.updated_ids_count;
  for (const auto& step : between) {
    removals += step->manifest().deleted_ids_count + step->manifest().updated_ids_count;
  }
  const bool counts_fit = between.empty() ? removed.size() == removals : removed.size() <= removals;
  if (!counts_fit || base.entity_count() < removed.size() ||
      base.entity_count() - removed.size() + added.size() != version.entity_count()) {
    return InvalidArgument(version.manifest_name() + ": the added and removed rows (" +
                           std::to_string(added.size()) + ", " + std::to_string(removed.size()) +
                           ") over " + base.manifest_name() +
                           " do not match the manifests' counts");
  }
  Analyzer analyzer;
  OMNIGRAPH_ASSIGN_OR_RETURN(
      FullTextDelta delta,
      FullTextDelta::Build(
          static_cast<uint32_t>(base.entity_count()), std::move(removed),
          static_cast<uint32_t>(added.size()),
          [&](uint32_t i) -> std::pair<std::string_view, std::optional<std::string_view>> {
            if (!added[i].second) return {added[i].first, std::nullopt};
            return {added[i].first, std::string_view(*added[i].second)};
          },
          analyzer));
  return delta.Encode();
}

bool StoreFullTextDelta(const table::TableVersion& version, uint32_t field_id) {
  const std::string kind = FullTextKind(field_id);
  // The versions walked back so far (this one's base first); the last is the candidate base.
  std::vector<std::shared_ptr<const table::TableVersion>> steps;
  uint64_t changed = 0;
  for (int step = 0; step < table::kDeltaAncestorsMax; ++step) {
    const table::TableVersion& at = steps.empty() ? version : *steps.back();
    const table::TableManifest& m = at.manifest();
    // The base's row count follows from this manifest's counts (an update keeps the count), so
    // a write too large for a delta costs no read at all.
    changed += ChangedRows(m);
    const uint64_t base_rows = m.entity_count + m.deleted_ids_count - m.inserted_ids_count;
    if (!m.base_staged_version || !HasStringField(m.schema, field_id) ||
        changed * kFullTextDeltaShareInverse > base_rows) {
      return false;
    }
    Result<std::shared_ptr<const table::TableVersion>> base = at.Base();
    if (!base.ok() || changed * kFullTextDeltaShareInverse > (*base)->entity_count() ||
        !HasStringField((*base)->schema(), field_id)) {
      return false;
    }
    steps.push_back(*std::move(base));
    // Then the base's header (one ranged read). A base without the kind (a merge's delete step,
    // never published) is stepped over, carrying its changes.
    Result<table::DerivedHeader> header = steps.back()->ReadDerivedHeader(kind);
    if (!header.ok()) continue;
    const uint32_t depth = header->delta ? header->delta->depth + 1 : 1;
    if (depth > table::kDerivedDeltaDepthMax) return false;
    Result<std::string> payload = BuildFullTextDeltaPayload(version, *steps.back(), field_id);
    return payload.ok() && version
                               .WriteDerivedDelta(kind, *payload, steps.back()->manifest(), depth,
                                                  table::ChainBelow(*header))
                               .ok();
  }
  return false;
}

Result<FullTextIndex> ReadFullTextChain(const table::TableVersion& version, const std::string& kind,
                                        const VersionIds& ids) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<table::DerivedLink> chain, version.ReadDerivedChain(kind));
  auto name = [&](size_t link) {
    return table::DerivedName(chain[link].manifest->table(), chain[link].manifest->staged_version,
                              kind);
  };
  OMNIGRAPH_ASSIGN_OR_RETURN(FullTextIndex full,
                             FullTextIndex::Decode(chain[0].payload.view(), name(0)));
  if (chain.size() == 1) return full;
  std::vector<FullTextDelta> deltas;
  deltas.reserve(chain.size() - 1);
  for (size_t link = 1; link < chain.size(); ++link) {
    OMNIGRAPH_ASSIGN_OR_RETURN(FullTextDelta delta,
                               FullTextDelta::Decode(chain[link].payload.view(), name(link)));
    deltas.push_back(std::move(delta));
  }
  return ApplyFullTextChain(full, deltas, ids, name(chain.size() - 1));
}

}  // namespace omnigraph::query::text
