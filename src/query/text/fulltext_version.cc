// The full-text indexes of a table version (fulltext_version.h).
#include "query/text/fulltext_version.h"

#include <algorithm>
#include <optional>
#include <string_view>

#include "query/text/fulltext_delta.h"
#include "query/text/fulltext_index.h"
#include "table/derived.h"

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

bool FullTextDeltaFits(const table::TableVersion& version, const table::TableVersion& base,
                       uint32_t field_id) {
  const table::TableManifest& m = version.manifest();
  return m.base_staged_version == base.manifest().staged_version && m.table() == base.table() &&
         HasStringField(m.schema, field_id) && HasStringField(base.schema(), field_id) &&
         ChangedRows(m) * kFullTextDeltaShareInverse <= base.entity_count();
}

Result<std::string> BuildFullTextDeltaPayload(const table::TableVersion& version,
                                              const table::TableVersion& base, uint32_t field_id) {
  const table::TableManifest& m = version.manifest();
  if (m.base_staged_version != base.manifest().staged_version || m.table() != base.table()) {
    return InvalidArgument(version.manifest_name() + " was not staged from " +
                           base.manifest_name());
  }
  if (!HasStringField(m.schema, field_id) || !HasStringField(base.schema(), field_id)) {
    return InvalidArgument("table '" + m.table_key + "' has no String field " +
                           std::to_string(field_id) + " in both versions");
  }
  // The fragments the write added: every other one is the base's (deletion vectors aside).
  table::ScanOptions scan;
  scan.field_ids = {table::kIdFieldId, field_id};
  for (const table::FragmentEntry& f : m.fragments) {
    const auto& old = base.manifest().fragments;
    if (std::none_of(old.begin(), old.end(), [&](const auto& o) { return o.id == f.id; })) {
      scan.fragment_ids.push_back(f.id);
    }
  }
  std::vector<std::pair<std::string, std::optional<std::string>>> added;
  if (!scan.fragment_ids.empty()) {
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
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<std::string> removed, version.DeletedIds());
  if (m.updated_ids_count > 0) {
    // The old side of each update: the added ids the base holds (its id index says which).
    std::vector<std::string_view> ids;
    for (const auto& row : added) ids.push_back(row.first);
    OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<bool> held, base.Contains(ids));
    for (size_t i = 0; i < ids.size(); ++i) {
      if (held[i]) removed.emplace_back(ids[i]);
    }
  }
  if (removed.size() != m.deleted_ids_count + m.updated_ids_count ||
      base.entity_count() - removed.size() + added.size() != version.entity_count()) {
    return InvalidArgument(version.manifest_name() + ": the added and removed rows (" +
                           std::to_string(added.size()) + ", " + std::to_string(removed.size()) +
                           ") do not match the manifest's counts");
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
  // The base's row count follows from this manifest's counts (an update keeps the count), so a
  // write too large for a delta costs no read at all.
  const table::TableManifest& m = version.manifest();
  const uint64_t base_rows = m.entity_count + m.deleted_ids_count - m.inserted_ids_count;
  if (!m.base_staged_version || ChangedRows(m) * kFullTextDeltaShareInverse > base_rows) {
    return false;
  }
  Result<std::shared_ptr<const table::TableVersion>> base = version.Base();
  // The counts decide before anything is read; then the base's header (one ranged read).
  if (!base.ok() || !FullTextDeltaFits(version, **base, field_id)) return false;
  const std::string kind = FullTextKind(field_id);
  Result<table::DerivedHeader> header = (*base)->ReadDerivedHeader(kind);
  if (!header.ok()) return false;
  const uint32_t depth = header->delta ? header->delta->depth + 1 : 1;
  if (depth > table::kDerivedDeltaDepthMax) return false;
  Result<std::string> payload = BuildFullTextDeltaPayload(version, **base, field_id);
  return payload.ok() && version.WriteDerivedDelta(kind, *payload, (*base)->manifest(), depth).ok();
}

Result<FullTextIndex> ReadFullTextChain(const table::TableVersion& version, const std::string& kind,
                                        const VersionIds& ids) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<table::DerivedLink> chain, version.ReadDerivedChain(kind));
  auto name = [&](size_t link) {
    return table::DerivedName(chain[link].manifest->table(), chain[link].manifest->staged_version,
                              kind);
  };
  OMNIGRAPH_ASSIGN_OR_RETURN(FullTextIndex full, FullTextIndex::Decode(*chain[0].payload, name(0)));
  if (chain.size() == 1) return full;
  std::vector<FullTextDelta> deltas;
  deltas.reserve(chain.size() - 1);
  for (size_t link = 1; link < chain.size(); ++link) {
    OMNIGRAPH_ASSIGN_OR_RETURN(FullTextDelta delta,
                               FullTextDelta::Decode(*chain[link].payload, name(link)));
    deltas.push_back(std::move(delta));
  }
  return ApplyFullTextChain(full, deltas, ids, name(chain.size() - 1));
}

}  // namespace omnigraph::query::text
