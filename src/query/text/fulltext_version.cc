// The full-text indexes of a table version (fulltext_version.h).
#include "query/text/fulltext_version.h"

#include <algorithm>
#include <optional>
#include <string_view>

#include "query/text/fulltext_index.h"

namespace omnigraph::query::text {

namespace {

// Rows read from the version per id-order batch while collecting the documents.
constexpr uint64_t kBuildBatchRows = 64 * 1024;

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
  const table::Schema& schema = version.schema();
  const bool string_field = std::any_of(schema.begin(), schema.end(), [&](const table::Field& f) {
    return f.id == field_id && f.type.id == table::TypeId::kString;
  });
  if (!string_field) {
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

}  // namespace omnigraph::query::text
