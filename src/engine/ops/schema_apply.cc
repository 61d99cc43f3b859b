// Schema plan and apply on main (OmniGraph's schema plan and apply; docs/format/commit-documents.md
// §8; docs/design/overview.md "Schema changes"; docs/design/engine.md "Schema apply").
//
// An apply is one strict commit on main. Its stage step, run against the captured head:
//   1. writes the new schema archive (conditional create, content-addressed) — before the record;
//   2. stages, in parallel, an empty first version of every new node or edge table and a
//      rewritten version of every surviving table whose columns changed (decisions.md #13);
//   3. returns the record content: the new schema ref, registrations of the new tables,
//      renames of renamed types (same identity, same table, no data copied), tombstones of
//      dropped types, and pins of every staged version.
#include <set>

#include "commit/names.h"
#include "engine/graph/graph.h"
#include "engine/graph/schema_archive.h"
#include "engine/ops/schema_apply.h"
#include "query/exec/table_schema.h"
#include "schema/archive.h"
#include "schema/identity.h"
#include "schema/ir_json.h"
#include "table/column_builder.h"

namespace omnigraph::engine {

namespace {

// Every node and edge type of an IR, by table identity.
std::map<TableId, const schema::TypeDef*> TablesOf(const schema::SchemaIr& ir) {
  std::map<TableId, const schema::TypeDef*> out;
  for (const schema::TypeDef& t : ir.nodes) out[{t.id, t.incarnation}] = &t;
  for (const schema::TypeDef& t : ir.edges) out[{t.id, t.incarnation}] = &t;
  return out;
}

Result<table::Column> NullColumn(const table::Field& field, uint64_t rows) {
  table::ColumnBuilder builder(field.type, field.nullable);
  builder.Reserve(rows);
  for (uint64_t i = 0; i < rows; ++i) builder.AppendNull();
  return builder.Finish();
}

// Stages a version of the table at `base` holding its live rows with the columns of `target`:
// columns are matched by field id (a renamed property keeps its column under the new name),
// fields the base lacks are filled with nulls, base columns `target` lacks are left out. The
// planner only lets nullable properties be added and never changes a column's type.
Result<TablePin> RewriteColumns(table::TableStore& tables, const TablePin& base,
                                const table::Schema& target, const table::StagedAgainst& against) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::TableVersion> version, tables.Open(base));
  OMNIGRAPH_ASSIGN_OR_RETURN(table::ColumnBatch rows, version->ScanAll({}));
  const uint64_t count = rows.num_rows();
  std::map<uint32_t, size_t> index;
  for (size_t i = 0; i < rows.num_columns(); ++i) index[rows.field(i).id] = i;
  const table::Schema old_schema = rows.schema();
  std::vector<table::Column> old_columns = rows.ReleaseColumns();
  std::vector<table::Column> columns;
  for (const table::Field& f : target) {
    auto it = index.find(f.id);
    if (it != index.end()) {
      const table::Field& old = old_schema[it->second];
      if (old.type != f.type || old.nullable != f.nullable) {
        return Status(Code::kInternal, "column '" + old.name + "' of table '" + base.table_key +
                                           "' changes type or nullability; the planner forbids it");
      }
      columns.push_back(std::move(old_columns[it->second]));
      continue;
    }
    if (!f.nullable) {
      return Status(Code::kInternal, "new column '" + f.name + "' of table '" + base.table_key +
                                         "' is not nullable; existing rows cannot be filled");
    }
    OMNIGRAPH_ASSIGN_OR_RETURN(table::Column nulls, NullColumn(f, count));
    columns.push_back(std::move(nulls));
  }
  return tables.Overwrite(base, table::ColumnBatch(target, std::move(columns), count), against);
}

Result<table::ColumnBatch> NoRows(const table::Schema& schema) {
  std::vector<table::Column> columns;
  for (const table::Field& f : schema) {
    OMNIGRAPH_ASSIGN_OR_RETURN(table::Column c, NullColumn(f, 0));
    columns.push_back(std::move(c));
  }
  return table::ColumnBatch(schema, std::move(columns), 0);
}

// One table's part of the apply.
struct TableWork {
  enum class Kind { kCreate, kRewrite } kind = Kind::kCreate;
  const schema::TypeDef* type = nullptr;
  TablePin base;  // kRewrite: the pinned version, with the new alias.
  table::Schema columns;
};

}  // namespace

Result<schema::MigrationPlan> PlanSchema(Graph& graph, std::string_view new_source,
                                         const schema::PlanOptions& options) {
  bool warm = false;
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<commit::Stream> stream, graph.StreamOf("main", warm));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const commit::GraphState> head, stream->ReadHead());
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const schema::Catalog> catalog,
                             graph.CatalogFor(head->schema));
  return schema::PlanMigration(catalog->ir(), new_source, options);
}

namespace {

// Schema changes are accepted only on main; and OmniGraph applies one only to a graph whose one
// branch is main: a branch forked before the change could never merge back ("across a schema
// change", engine/ops/merge.cc), so it is refused up front with the reference's message (its
// schema_apply.rs), naming the branches (decision 140). Unsupported for a branch other than
// main; SchemaBoundary (kind Conflict) naming every branch but main, when there is one.
Status CheckApplyTarget(Graph& graph, std::string_view branch) {
  if (branch != commit::kMainKey) {
    return Status(Code::kUnsupported,
                  "schema changes are accepted only on main (so that stable ids are minted on one "
                  "lineage), not on branch '" +
                      std::string(branch) + "'; apply on main, then create the branch from it");
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<commit::BranchInfo> branches, graph.ListBranches());
  std::string names;
  for (const commit::BranchInfo& b : branches) {
    if (b.branch == commit::kMainKey || b.branch == commit::kReservedBranchName) continue;
    names += (names.empty() ? "" : ", ") + b.branch;
  }
  if (names.empty()) return Status::Ok();
  return Status(Kind::kConflict, Code::kSchemaBoundary,
                "schema apply requires a graph with only main; found non-main branches: " + names);
}

}  // namespace

Result<SchemaApplyResult> ApplySchema(Graph& graph, std::string_view new_source,
                                      const SchemaApplyOptions& options) {
  OMNIGRAPH_RETURN_IF_ERROR(CheckApplyTarget(graph, options.branch));
  bool warm = false;
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<commit::Stream> stream, graph.StreamOf("main", warm));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const commit::GraphState> head, stream->ReadHead());
  if (options.expected_head && *options.expected_head != head->head_commit_id) {
    return Status(Code::kPreconditionFailed, "expected head '" + *options.expected_head +
                                                 "' but the head is '" + head->head_commit_id +
                                                 "'");
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const schema::Catalog> accepted,
                             graph.CatalogFor(head->schema));
  SchemaApplyResult result;
  OMNIGRAPH_ASSIGN_OR_RETURN(result.plan,
                             schema::PlanMigration(accepted->ir(), new_source, options.plan));
  result.commit_id = head->head_commit_id;
  result.seq = head->seq;
  if (result.plan.is_noop()) return result;  // Same schema: nothing to publish.
  // Unsupported, with every refusal's message, before anything is written.
  OMNIGRAPH_ASSIGN_OR_RETURN(schema::SchemaIr desired, schema::ApplyPlan(result.plan));

  // What happens to each table, decided from the planned head: the stage step checks that it
  // runs against exactly that head.
  const std::map<TableId, const schema::TypeDef*> before = TablesOf(accepted->ir());
  const std::map<TableId, const schema::TypeDef*> after = TablesOf(desired);
  commit::RecordContent content;
  std::vector<TableWork> work;
  for (const auto& [identity, type] : after) {
    OMNIGRAPH_ASSIGN_OR_RETURN(table::Schema columns, query::TableSchemaFor(*type));
    auto live = head->tables.find(identity);
    if (live == head->tables.end()) {
      content.registrations.push_back(commit::Registration{
          identity.stable_table_id, identity.incarnation, type->table_key(),
          type->kind == schema::TypeKind::kEdge ? "edge" : "node", Json::object()});
      work.push_back(TableWork{TableWork::Kind::kCreate, type, {}, std::move(columns)});
      continue;
    }
    const std::string& old_key = live->second.registration.table_key;
    if (old_key != type->table_key()) {
      content.renames.push_back(commit::Rename{identity.stable_table_id, identity.incarnation,
                                               old_key, type->table_key(), Json::object()});
    }
    auto old_type = before.find(identity);
    if (old_type == before.end()) {
      return Status(Code::kCorruption,
                    "table '" + old_key + "' is live but the accepted schema has no type for it",
                    commit::SchemaArchiveName(head->schema.content_hash));
    }
    OMNIGRAPH_ASSIGN_OR_RETURN(table::Schema old_columns, query::TableSchemaFor(*old_type->second));
    if (old_columns != columns) {
      TablePin base = live->second.pin;
      base.table_key = type->table_key();
      work.push_back(TableWork{TableWork::Kind::kRewrite, type, base, std::move(columns)});
      result.rewritten_tables.push_back(type->table_key());
    }
  }
  for (const auto& [identity, t] : head->tables) {
    if (after.count(identity)) continue;
    content.tombstones.push_back(commit::Tombstone{identity.stable_table_id, identity.incarnation,
                                                   t.registration.table_key, Json::object()});
  }

  const std::string archive = schema::ArchiveBytes(
      head->schema.identity_domain, head->schema.identity_version + 1, new_source, desired);
  const std::string content_hash = schema::ContentHash(archive);
  content.schema =
      commit::SchemaRef{head->schema.identity_domain, schema::IrHash(desired),
                        head->schema.identity_version + 1, content_hash, Json::object()};
  const std::string planned_head = head->head_commit_id;
  // A schema change is a boundary of the entity history: its change set lists no ids.
  content.change_set = commit::ChangeSet{};
  content.change_set->schema_boundary = true;
  const size_t steps = result.plan.steps.size();
  content.summary = "schema apply: " + std::to_string(steps) + (steps == 1 ? " step" : " steps");

  commit::PublishRequest publish;
  publish.insert_only = false;  // The apply read the whole schema and the rewritten tables.
  publish.expected_head = options.expected_head;
  publish.branch = "main";
  publish.actor = options.actor;
  publish.stage = [&](const commit::GraphState& base) -> Result<commit::RecordContent> {
    OMNIGRAPH_RETURN_IF_ERROR(CheckApplyTarget(graph, "main"));  // Again: a branch made meanwhile.
    if (base.head_commit_id != planned_head) {
      return Status(Code::kReadSetChanged,
                    "main moved to '" + base.head_commit_id + "' while the schema apply was " +
                        "planned against '" + planned_head + "'",
                    commit::RecordName(commit::kMainKey, base.seq + 1));
    }
    // 1. The archive, before the record that names it.
    OMNIGRAPH_RETURN_IF_ERROR(StoreSchemaArchive(*graph.runtime().store, archive).status());
    // 2. Every new or rewritten table, in parallel, staged against the captured head (D9).
    const table::StagedAgainst against{base.stream, base.seq};
    std::vector<TablePin> staged(work.size());
    TaskGroup group(*graph.runtime().executor);
    for (size_t i = 0; i < work.size(); ++i) {
      group.Add([&, i]() -> Status {
        const TableWork& w = work[i];
        if (w.kind == TableWork::Kind::kRewrite) {
          OMNIGRAPH_ASSIGN_OR_RETURN(staged[i],
                                     RewriteColumns(graph.tables(), w.base, w.columns, against));
          return Status::Ok();
        }
        OMNIGRAPH_ASSIGN_OR_RETURN(table::ColumnBatch empty, NoRows(w.columns));
        table::NewTable table{TableId{w.type->id, w.type->incarnation}, w.type->table_key(),
                              w.columns};
        OMNIGRAPH_ASSIGN_OR_RETURN(staged[i], graph.tables().Create(table, empty, against));
        return Status::Ok();
      });
    }
    OMNIGRAPH_RETURN_IF_ERROR(group.Wait());
    commit::RecordContent out = content;
    for (const TablePin& p : staged) out.pins.push_back(p);
    return out;
  };
  OMNIGRAPH_ASSIGN_OR_RETURN(commit::PublishResult published, stream->Publish(publish));
  result.applied = true;
  result.commit_id = published.commit_id;
  result.seq = published.seq;
  return result;
}

}  // namespace omnigraph::engine
