#include "table/model_table.h"

#include "table/column_builder.h"
#include "table/random_batch.h"
#include "table/row_gather.h"
#include "table/table_manifest.h"

namespace omnigraph::table {

Schema ModelSchema(bool edge) {
  Schema schema = {{kIdFieldId, "id", DataType::Scalar(TypeId::kString), false}};
  if (edge) {
    schema.push_back({kSrcFieldId, "src", DataType::Scalar(TypeId::kString), false});
    schema.push_back({kDstFieldId, "dst", DataType::Scalar(TypeId::kString), false});
  }
  for (Field& field : EveryTypeSchema()) schema.push_back(std::move(field));
  return schema;
}

ColumnBatch MakeRows(const Schema& schema, const std::vector<std::string>& ids, Random& random) {
  Schema plain;
  for (const Field& field : schema) {
    if (field.id < kReservedFieldIdMin) plain.push_back(field);
  }
  ColumnBatch values = RandomBatch(plain, ids.size(), random);
  std::vector<Column> released = values.ReleaseColumns();
  std::vector<Column> columns;
  size_t next = 0;
  for (const Field& field : schema) {
    if (field.id >= kReservedFieldIdMin) {
      ColumnBuilder builder(field.type, false);
      for (const std::string& id : ids) {
        builder.AppendString(field.id == kIdFieldId ? id
                                                    : "n" + std::to_string(random.Uniform(50)));
      }
      Result<Column> column = builder.Finish();
      OMNIGRAPH_CHECK(column.ok());
      columns.push_back(std::move(column).value());
    } else {
      columns.push_back(std::move(released[next++]));
    }
  }
  return ColumnBatch(schema, std::move(columns), ids.size());
}

void ApplyRows(Model& model, const ColumnBatch& rows) {
  const Column* ids = rows.FindColumn(kIdFieldId);
  for (uint64_t row = 0; row < rows.num_rows(); ++row) {
    model[std::string(ids->StringAt(row))] = RowImage(rows, row);
  }
}

Model ModelOf(const ColumnBatch& rows) {
  Model model;
  const Column* ids = rows.FindColumn(kIdFieldId);
  for (uint64_t row = 0; row < rows.num_rows(); ++row) {
    const bool inserted =
        model.emplace(std::string(ids->StringAt(row)), RowImage(rows, row)).second;
    OMNIGRAPH_CHECK_MSG(inserted, "a scan returned one id twice");
  }
  return model;
}

}  // namespace omnigraph::table
