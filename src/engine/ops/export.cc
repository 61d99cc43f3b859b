#include "engine/ops/export.h"

#include "base/json_writer.h"
#include "engine/ops/jsonl_values.h"
#include "query/exec/column_codec.h"
#include "table/types.h"

namespace omnigraph::engine {

using schema::TypeDef;

namespace {

// The types to export, nodes then edges, each in name order.
Result<std::vector<const TypeDef*>> Selected(const schema::Catalog& catalog,
                                             const ExportOptions& options) {
  std::vector<const TypeDef*> out;
  if (options.types.empty()) {
    for (const TypeDef& t : catalog.nodes()) out.push_back(&t);
    for (const TypeDef& t : catalog.edges()) out.push_back(&t);
    return out;
  }
  std::vector<const TypeDef*> nodes, edges;
  for (const std::string& name : options.types) {
    if (const TypeDef* n = catalog.FindNode(name)) {
      nodes.push_back(n);
    } else if (const TypeDef* e = catalog.FindEdge(name)) {
      edges.push_back(e);
    } else {
      const std::string gone = catalog.NotAtSnapshot(name);
      return NotFound(gone.empty() ? "unknown type '" + name + "'" : gone);
    }
  }
  auto by_name = [](const TypeDef* a, const TypeDef* b) { return a->name < b->name; };
  for (auto* list : {&nodes, &edges}) {
    std::sort(list->begin(), list->end(), by_name);
    list->erase(std::unique(list->begin(), list->end()), list->end());
    out.insert(out.end(), list->begin(), list->end());
  }
  return out;
}

// One batch of a type's rows as lines.
Status WriteBatch(const TypeDef& type, const table::ColumnBatch& batch, std::string* out) {
  const bool edge = type.kind == schema::TypeKind::kEdge;
  const table::Column* id = batch.FindColumn(table::kIdFieldId);
  const table::Column* src = edge ? batch.FindColumn(table::kSrcFieldId) : nullptr;
  const table::Column* dst = edge ? batch.FindColumn(table::kDstFieldId) : nullptr;
  std::vector<const table::Column*> props;
  for (const schema::PropertyDef& p : type.properties) {
    const table::Column* c = batch.FindColumn(static_cast<uint32_t>(p.id));
    if (c == nullptr) {
      return Corruption("table " + type.table_key() + " has no column for property '" + p.name +
                        "'");
    }
    props.push_back(c);
  }
  if (id == nullptr || (edge && (src == nullptr || dst == nullptr))) {
    return Corruption("table " + type.table_key() + " lacks its id/src/dst columns");
  }
  const bool id_is_property = type.FindProperty("id") != nullptr;
  for (uint64_t row = 0; row < batch.num_rows(); ++row) {
    JsonWriter w(out);
    w.BeginObject();
    if (edge) {
      w.Key("edge");
      w.String(type.name);
      w.Key("from");
      w.String(src->StringAt(row));
      w.Key("to");
      w.String(dst->StringAt(row));
    } else {
      w.Key("type");
      w.String(type.name);
    }
    // The id goes in data unless a property of the type is named `id`; then it is the top-level
    // id, which load reads the same way (docs/design/load.md).
    if (id_is_property) {
      w.Key("id");
      w.String(id->StringAt(row));
    }
    w.Key("data");
    w.BeginObject();
    if (!id_is_property) {
      w.Key("id");
      w.String(id->StringAt(row));
    }
    for (size_t i = 0; i < props.size(); ++i) {
      w.Key(type.properties[i].name);
      WriteJson(w, query::ValueAt(*props[i], row), type.properties[i].type);
    }
    w.EndObject();
    w.EndObject();
    if (!w.ok()) {
      return Corruption("a string of " + type.table_key() + " row '" +
                        std::string(id->StringAt(row)) + "' is not valid UTF-8");
    }
    out->push_back('\n');
  }
  return Status::Ok();
}

}  // namespace

Status Export(const Snapshot& snapshot, const ExportOptions& options, const ExportSink& sink) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<const TypeDef*> types,
                             Selected(snapshot.catalog(), options));
  ProgressMeter meter(options.progress, snapshot.clock(), "export", "entities");
  if (meter.active()) {
    uint64_t total = 0;
    for (const TypeDef* type : types) {
      OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::TableVersion> version,
                                 snapshot.Table(type->table_key()));
      total += version->entity_count();
    }
    meter.SetTotal(total);
    meter.Phase("writing");
  }
  uint64_t written = 0;
  for (const TypeDef* type : types) {
    OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::TableVersion> version,
                               snapshot.Table(type->table_key()));
    auto write = [&](table::ColumnBatch batch) -> Status {
      std::string chunk;
      OMNIGRAPH_RETURN_IF_ERROR(WriteBatch(*type, batch, &chunk));
      OMNIGRAPH_RETURN_IF_ERROR(sink(chunk));
      written += batch.num_rows();
      meter.Update(written);
      return Status::Ok();
    };
    const Status scanned = version->ScanInIdOrder({}, kExportBatchRows, write);
    if (!scanned.ok()) return snapshot.ExplainReadFailure(scanned);
  }
  meter.Finish();
  return Status::Ok();
}

Result<std::string> ExportToString(const Snapshot& snapshot, const ExportOptions& options) {
  std::string out;
  OMNIGRAPH_RETURN_IF_ERROR(Export(snapshot, options, [&](std::string_view chunk) {
    out.append(chunk);
    return Status::Ok();
  }));
  return out;
}

}  // namespace omnigraph::engine
