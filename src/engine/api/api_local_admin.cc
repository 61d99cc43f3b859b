// The local backend's schema changes and maintenance (api_local_internal.h): schema plan and
// apply, cleanup, optimize, repair and lint.
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/api/api_local_internal.h"
#include "engine/ops/cleanup.h"
#include "engine/ops/schema_apply.h"

namespace omnigraph::engine::local_internal {

Result<Json> Handle::PlanSchema(std::string_view schema_source, bool allow_data_loss) {
  schema::PlanOptions options;
  options.allow_data_loss = allow_data_loss;
  OMNIGRAPH_ASSIGN_OR_RETURN(schema::MigrationPlan plan,
                             engine::PlanSchema(*graph_, schema_source, options));
  Json out = plan.ToJson();
  out["uri"] = uri_;
  out["step_count"] = plan.steps.size();
  return out;
}

Result<Json> Handle::ApplySchema(std::string_view schema_source, bool allow_data_loss,
                                 const Actor& actor) {
  engine::SchemaApplyOptions options;
  options.plan.allow_data_loss = allow_data_loss;
  options.actor = actor;
  OMNIGRAPH_ASSIGN_OR_RETURN(engine::SchemaApplyResult r,
                             engine::ApplySchema(*graph_, schema_source, options));
  Json plan = r.plan.ToJson();
  Json out = Json::object();
  out["uri"] = uri_;
  out["supported"] = plan["supported"];
  out["applied"] = r.applied;
  out["step_count"] = r.plan.steps.size();
  out["steps"] = plan["steps"];
  out["graph_manifest_version"] = r.seq;
  if (r.applied) out["commit"] = r.commit_id;
  return out;
}

Result<commit::ChangeSet> Handle::CountsOf(const commit::Record& r) {
  if (r.change_set) return *r.change_set;
  commit::ChangeSet c;
  if (!r.parent_commit_id) {
    for (const TablePin& p : r.pins) {
      commit::TableChangeSet t;
      t.stable_table_id = p.stable_table_id;
      t.incarnation = p.incarnation;
      t.table_key = p.table_key;
      t.inserted_count = p.entity_count;
      c.tables.push_back(std::move(t));
    }
    return c;
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(engine::Snapshot before,
                             graph_->SnapshotAtCommit(*r.parent_commit_id));
  OMNIGRAPH_ASSIGN_OR_RETURN(engine::Snapshot after, graph_->SnapshotAtCommit(r.commit_id));
  return engine::DiffChangeSet(graph_->tables(), before.state(), after.state());
}

Result<Json> Handle::Cleanup(const CleanupRequest& request) {
  engine::CleanupOptions options;
  options.keep = request.keep;
  options.older_than_micros = request.older_than_micros;
  options.dry_run = request.dry_run;
  options.progress = progress_;
  if (request.grace_micros) options.grace_micros = *request.grace_micros;
  OMNIGRAPH_ASSIGN_OR_RETURN(engine::GraphCleanupReport r, engine::Cleanup(*graph_, options));
  Json tables = Json::array();
  for (const engine::TableCleanupRow& t : r.tables) {
    Json row = Json::object();
    row["table_key"] = t.table_key;
    row["versions_removed"] = t.versions_removed;
    row["fragments_removed"] = t.fragments_removed;
    row["deletion_vectors_removed"] = t.deletion_vectors_removed;
    row["bytes_removed"] = t.bytes_removed;
    row["versions_spared"] = t.versions_spared;
    if (t.error) row["error"] = *t.error;
    tables.push_back(std::move(row));
  }
  Json out = Json::object();
  out["dry_run"] = r.dry_run;
  out["checkpoints_removed"] = r.checkpoints_removed.size();
  out["objects_removed"] = r.removed.size();
  out["bytes_removed"] = r.bytes_removed;
  out["tables"] = std::move(tables);
  return out;
}

Result<Json> Handle::Optimize(std::string_view branch, const Actor& actor) {
  engine::OptimizeOptions options;
  options.branch = std::string(branch);
  options.actor = actor;
  OMNIGRAPH_ASSIGN_OR_RETURN(engine::OptimizeReport r, engine::Optimize(*graph_, options));
  Json tables = Json::array();
  for (const engine::OptimizeTableRow& t : r.tables) {
    tables.push_back(Json{{"type_key", t.type_key},
                          {"fragments_removed", t.fragments_removed},
                          {"fragments_added", t.fragments_added},
                          {"committed", t.committed},
                          {"skipped", t.skipped},
                          {"published_dataset_version", t.published_dataset_version},
                          {"indexes_built", t.indexes_built},
                          {"pending_indexes", t.pending_indexes}});
  }
  Json out = Json::object();
  out["uri"] = uri_;
  out["branch"] = r.branch;
  out["commit"] = r.commit ? CommitJson(*r.commit) : Json(nullptr);
  out["tables"] = std::move(tables);
  return out;
}

Result<Json> Handle::Repair(bool confirm) {
  commit::RepairOptions options;
  options.confirm = confirm;
  options.stream = commit::StreamOptions{graph_->stamp().checkpoint_interval, true};
  OMNIGRAPH_ASSIGN_OR_RETURN(commit::RepairReport r, commit::Repair(graph_->runtime(), options));
  Json out = r.ToJson();
  out["confirmed"] = confirm;
  return out;
}

Result<OrderedJson> Handle::Lint(std::string_view query_source, std::string_view branch) {
  OMNIGRAPH_ASSIGN_OR_RETURN(engine::Snapshot head, graph_->SnapshotOfBranch(branch));
  return query::LintQuerySource(head.catalog(), query_source).ToJson();
}

}  // namespace omnigraph::engine::local_internal
