// Three-way graph merge (engine/ops/merge.h; docs/design/merge.md).
#include "engine/ops/merge.h"

#include <map>

#include "commit/change_set.h"
#include "commit/merge_base.h"
#include "commit/names.h"
#include "commit/publish_loop.h"
#include "commit/testing_hooks.h"
#include "engine/graph/graph.h"
#include "engine/write/change_sets.h"
#include "engine/write/derived_indexes.h"
#include "engine/write/validate.h"
#include "table/derived.h"
#include "table/index_delta.h"
#include "table/row_gather.h"
#include "table/table_diff.h"

namespace omnigraph::engine {

namespace {

// A branch merged into itself, in OmniGraph's words ("distinct source and target").
Status SelfMerge(const std::string& branch) {
  return InvalidArgument("cannot merge branch '" + branch +
                         "' into itself: a merge needs distinct source and target branches");
}

using Op = TableChange::Op;

// One side's change of one entity against the base: the op and the row it leaves (none for a
// delete), in that side's diff.
struct SideChange {
  enum class Kind { kInsert, kUpdate, kDelete } kind;
  const table::ColumnBatch* batch = nullptr;
  uint64_t row = 0;
};

std::map<std::string_view, SideChange> SideChanges(const table::TableDiff& d) {
  std::map<std::string_view, SideChange> out;
  for (uint64_t i = 0; i < d.inserted_ids.size(); ++i) {
    out.emplace(d.inserted_ids[i], SideChange{SideChange::Kind::kInsert, &d.inserted, i});
  }
  for (uint64_t i = 0; i < d.updated_ids.size(); ++i) {
    out.emplace(d.updated_ids[i], SideChange{SideChange::Kind::kUpdate, &d.updated_after, i});
  }
  for (const std::string& id : d.deleted_ids) {
    out.emplace(id, SideChange{SideChange::Kind::kDelete, nullptr, 0});
  }
  return out;
}

bool SameRow(const SideChange& a, const SideChange& b) {
  return table::RowImage(*a.batch, a.row) == table::RowImage(*b.batch, b.row);
}

// The table being merged, for conflicts: its kind and type name ("node:Person" -> node, Person).
struct TableLabel {
  std::string entity_kind;
  std::string type_name;
};

TableLabel LabelOf(const std::string& table_key) {
  const size_t colon = table_key.find(':');
  if (colon == std::string::npos) return {"node", table_key};
  return {table_key.substr(0, colon), table_key.substr(colon + 1)};
}

MergeConflict EntityConflict(const TableLabel& label, std::string_view id, std::string kind,
                             const std::string& what) {
  return MergeConflict{label.entity_kind, label.type_name, std::string(id), std::move(kind),
                       label.type_name + " '" + std::string(id) + "': " + what};
}

// The source's change of one entity, classified against the target's (engine/ops/merge.h). Appends
// a conflict, or the row to take / the id to delete; the same change on both sides adds nothing.
void ClassifyEntity(const TableLabel& label, std::string_view id, const SideChange& s,
                    const SideChange* t, std::vector<table::RowRef>& take,
                    std::vector<std::string>& remove, std::vector<MergeConflict>& conflicts) {
  using K = SideChange::Kind;
  if (t == nullptr) {
    if (s.kind == K::kDelete) {
      remove.emplace_back(id);
    } else {
      take.push_back({s.kind == K::kInsert ? 0u : 1u, static_cast<uint32_t>(s.row)});
    }
    return;
  }
  if (s.kind == K::kDelete && t->kind == K::kDelete) return;
  if (s.kind == K::kDelete || t->kind == K::kDelete) {
    conflicts.push_back(EntityConflict(label, id, "delete_vs_update",
                                       s.kind == K::kDelete
                                           ? "deleted on the source, updated on the target"
                                           : "updated on the source, deleted on the target"));
    return;
  }
  if (SameRow(s, *t)) return;
  if (commit::TestingHooks().merge_source_wins) {
    take.push_back({s.kind == K::kInsert ? 0u : 1u, static_cast<uint32_t>(s.row)});
    return;
  }
  if (s.kind == K::kInsert) {
    conflicts.push_back(EntityConflict(label, id, "divergent_insert",
                                       "inserted on both sides with different values"));
  } else {
    conflicts.push_back(
        EntityConflict(label, id, "divergent_update", "updated on both sides differently"));
  }
}

// The source's net change of a table as it applies to the target: a patch of the rows it
// inserted or updated and the ids it deleted, minus what the target changed too (classified
// above). With no target diff (the target kept the base's version) every change applies.
Result<TableChange> SourcePatch(const TableLabel& label, const table::Schema& schema,
                                const table::TableDiff& source, const table::TableDiff* target,
                                std::vector<MergeConflict>& conflicts) {
  std::map<std::string_view, SideChange> theirs;
  if (target != nullptr) theirs = SideChanges(*target);
  std::vector<table::RowRef> take;
  TableChange patch;
  patch.op = Op::kPatch;
  for (const auto& [id, change] : SideChanges(source)) {
    auto it = theirs.find(id);
    ClassifyEntity(label, id, change, it == theirs.end() ? nullptr : &it->second, take, patch.ids,
                   conflicts);
  }
  std::vector<table::Column> columns;
  for (const table::Field& field : schema) {
    const table::Column* inserted = source.inserted.FindColumn(field.id);
    const table::Column* updated = source.updated_after.FindColumn(field.id);
    if (inserted == nullptr) inserted = updated;
    if (updated == nullptr) updated = inserted;
    if (inserted == nullptr) {
      return Status(Code::kUnsupported,
                    "the diff of " + label.type_name + " lacks column " + std::to_string(field.id));
    }
    const table::Column* sources[] = {inserted, updated};
    OMNIGRAPH_ASSIGN_OR_RETURN(table::Column column, table::GatherColumn(field, sources, take));
    columns.push_back(std::move(column));
  }
  patch.rows = table::ColumnBatch(schema, std::move(columns), take.size());
  return patch;
}

// A validation failure of the merged result as one conflict, by what the check reports (the
// validator's wording: engine/write/validate*.cc; merge_test pins each kind).
MergeConflict ValidationConflict(const ValidationFailure& failure, const std::string& message) {
  const TableLabel label = LabelOf(failure.table_key);
  std::string kind;
  switch (failure.kind) {
    case ConstraintKind::kEndpoint:
    case ConstraintKind::kDangling: kind = "orphan_edge"; break;
    case ConstraintKind::kUnique: kind = "unique_violation"; break;
    case ConstraintKind::kCardinality: kind = "cardinality_violation"; break;
    case ConstraintKind::kValue: kind = "value_constraint_violation"; break;
  }
  return MergeConflict{label.entity_kind, label.type_name, std::nullopt, std::move(kind), message};
}

Status SchemaChanged(const MergeRequest& request, const commit::SchemaRef& source,
                     const commit::SchemaRef& target, const commit::SchemaRef& base) {
  auto name = [](const commit::SchemaRef& s) {
    return s.ir_hash + " (identity version " + std::to_string(s.identity_version) + ")";
  };
  return Status(Code::kUnsupported,
                "cannot merge '" + request.source + "' into '" + request.target +
                    "' across a schema change: the source has schema " + name(source) +
                    ", the target " + name(target) + ", their merge base " + name(base) +
                    "; apply the same schema on both first");
}

}  // namespace

const char* MergeOutcomeName(MergeOutcome outcome) {
  switch (outcome) {
    case MergeOutcome::kAlreadyUpToDate: return "already_up_to_date";
    case MergeOutcome::kFastForward: return "fast_forward";
    case MergeOutcome::kMerged: return "merged";
    case MergeOutcome::kConflicts: return "conflicts";
  }
  return "unknown";
}

Json MergePreviewJson(const MergeRequest& request, const MergeResult& result) {
  Json out = Json::object();
  out["source"] = request.source;
  out["target"] = request.target;
  out["dry_run"] = true;
  out["outcome"] = MergeOutcomeName(result.outcome);
  out["source_commit_id"] = result.source_commit_id;
  out["target_commit_id"] = result.target_commit_id;
  out["base_commit_id"] = result.base_commit_id;
  out["source_ahead"] = result.source_ahead;
  out["target_ahead"] = result.target_ahead;
  out["conflicts"] = MergeConflictsJson(result.conflicts);
  return out;
}

Json MergeConflictsJson(const std::vector<MergeConflict>& conflicts) {
  Json out = Json::array();
  for (const MergeConflict& c : conflicts) {
    Json one = {{"entity_kind", c.entity_kind}, {"type_name", c.type_name}};
    if (c.entity_id) one["entity_id"] = *c.entity_id;
    one["kind"] = c.kind;
    one["message"] = c.message;
    out.push_back(std::move(one));
  }
  return out;
}

Status MergeConflictsStatus(const MergeRequest& request,
                            const std::vector<MergeConflict>& conflicts) {
  std::string text;
  for (const MergeConflict& c : conflicts) text += "\n  " + c.kind + ": " + c.message;
  return Status(Code::kMergeConflicts,
                "merge conflicts: merging '" + request.source + "' into '" + request.target +
                    "' has " + std::to_string(conflicts.size()) +
                    " conflict(s); nothing was published:" + text,
                request.target);
}

namespace {

// A merge against one target head: the outcome so far, and what to publish — a fast-forward's
// pins, or for a three-way merge the base state the tables are merged from (set only then).
struct MergePlan {
  MergeResult result;
  commit::RecordContent content;
  std::shared_ptr<const commit::GraphState> base;
  // The merge base as a read view, to explain a failed read of its tables.
  std::optional<Snapshot> base_view;
};

// The three-way merge of every table from `base` to `source` and `target`: the record content
// pinning the merged versions (staged against the target), or with `conflicts` filled. With
// `stage` false (a preview) the tables changed on both sides are classified and validated but
// not staged, and their pins are left out of the content.
Result<commit::RecordContent> MergeTables(Graph& graph, const commit::GraphState& base,
                                          const commit::GraphState& source,
                                          const commit::GraphState& target,
                                          std::vector<MergeConflict>& conflicts,
                                          ProgressMeter& meter, bool stage = true) {
  std::map<std::string, TableChange> changes;  // Validated against the target.
  std::vector<std::string> staged_keys;        // Changed on both sides: staged as patches.
  commit::RecordContent content;
  meter.SetTotal(target.tables.size());
  meter.Phase("merging");
  uint64_t tables_done = 0;
  for (const auto& [identity, t] : target.tables) {
    meter.Update(tables_done++);
    const commit::TableState& b = base.tables.at(identity);
    const commit::TableState& s = source.tables.at(identity);
    if (s.pin == b.pin) continue;
    const std::string& key = t.registration.table_key;
    OMNIGRAPH_ASSIGN_OR_RETURN(auto bv, graph.tables().Open(b.pin));
    OMNIGRAPH_ASSIGN_OR_RETURN(auto sv, graph.tables().Open(s.pin));
    OMNIGRAPH_ASSIGN_OR_RETURN(table::TableDiff ds, table::Diff(*bv, *sv));
    const bool both = t.pin != b.pin && !commit::TestingHooks().merge_adopts_source_table;
    std::optional<table::TableDiff> dt;
    if (both) {
      OMNIGRAPH_ASSIGN_OR_RETURN(auto tv, graph.tables().Open(t.pin));
      OMNIGRAPH_ASSIGN_OR_RETURN(dt, table::Diff(*bv, *tv));
    }
    OMNIGRAPH_ASSIGN_OR_RETURN(TableChange patch, SourcePatch(LabelOf(key), sv->schema(), ds,
                                                              dt ? &*dt : nullptr, conflicts));
    if (!both) content.pins.push_back(s.pin);  // That side's version, as it is.
    if (patch.rows.num_rows() == 0 && patch.ids.empty()) continue;
    if (both) staged_keys.push_back(key);
    changes.emplace(key, std::move(patch));
  }
  meter.Update(tables_done);
  if (!conflicts.empty() || changes.empty()) return content;
  meter.Phase("validating");
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const schema::Catalog> catalog,
                             graph.CatalogFor(target.schema));
  ValidationFailure failure;
  const Status valid = ValidateWrite(
      *catalog, changes,
      [&](std::string_view key) -> Result<std::shared_ptr<const table::TableVersion>> {
        const commit::TableState* t = target.FindByKey(key);
        if (t == nullptr) return InvalidArgument("no table '" + std::string(key) + "'");
        return graph.tables().Open(t->pin);
      },
      [&](std::string_view key, uint64_t) { return std::string(key); }, {}, kSorterMemoryBytes,
      &failure, graph.runtime().executor.get());
  if (valid.code() == Code::kInvalidArgument) {
    conflicts.push_back(ValidationConflict(failure, valid.message()));
    return content;
  }
  OMNIGRAPH_RETURN_IF_ERROR(valid);
  if (!stage) return content;
  const table::StagedAgainst against{target.stream, target.seq};
  for (const std::string& key : staged_keys) {
    const TablePin& target_pin = target.FindByKey(key)->pin;
    const TableChange& patch = changes.at(key);
    OMNIGRAPH_ASSIGN_OR_RETURN(TablePin pin, graph.tables().StageWrite(target_pin, patch, against));
    // The read hint a write's pin carries (decision 227): where the version's index deltas will
    // stack (decision 235). A merge need not have read the target's index objects, so it reads
    // their headers, which the derived step after the publish reads anyway (then from the cache).
    OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::TableVersion> base_version,
                               graph.tables().Open(target_pin));
    const uint64_t changed = patch.rows.num_rows() + patch.ids.size();
    if (table::DeltaFits(base_version->entity_count(), changed, 0)) {
      for (const std::string& kind : base_version->IndexKinds()) {
        (void)base_version->ReadDerivedHeader(kind);  // A failure leaves the hint out.
      }
    }
    table::SetChainHints(pin.extra, base_version->IndexChainsForWrite(changed));
    content.pins.push_back(pin);
  }
  return content;
}

// Sets the change set (and the summary's counts) of a merge's record `content` published on
// `head`: what its pins change against the target's head.
Status RecordMergeChanges(Graph& graph, const commit::GraphState& head,
                          commit::RecordContent& content) {
  // Against the first parent (the target's head): the exact diff of the tables the merge pins,
  // which the merge has just read (a fast-forward's tables are diffed here).
  commit::GraphState after = head;
  for (const TablePin& p : content.pins) {
    auto it = after.tables.find(p.table());
    if (it != after.tables.end()) it->second.pin = p;
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(commit::ChangeSet changes, DiffChangeSet(graph.tables(), head, after));
  OMNIGRAPH_ASSIGN_OR_RETURN(content.change_set,
                             commit::SpillChangeSet(*graph.runtime().store, head.stream, changes));
  if (content.summary) content.summary = SummaryOf(*content.summary, changes);
  return Status::Ok();
}

Result<MergePlan> PlanMerge(Graph& graph, const MergeRequest& request, const Snapshot& source,
                            const commit::GraphState& target) {
  MergePlan plan;
  const commit::GraphState& s = source.state();
  OMNIGRAPH_ASSIGN_OR_RETURN(
      commit::MergeBase found,
      commit::FindMergeBase(*graph.runtime().store, s.head_commit_id, target.head_commit_id));
  plan.result.base_commit_id = found.base.commit_id;
  plan.result.base_records_read = found.records_read;
  plan.result.source_commit_id = s.head_commit_id;
  plan.result.target_commit_id = target.head_commit_id;
  plan.result.source_ahead = found.a_only;
  plan.result.target_ahead = found.b_only;
  if (found.base.commit_id == s.head_commit_id) return plan;  // Already up to date.
  OMNIGRAPH_ASSIGN_OR_RETURN(Snapshot base, graph.SnapshotAtCommit(found.base.commit_id));
  const commit::GraphState& b = base.state();
  auto same_tables = [](const commit::GraphState& x, const commit::GraphState& y) {
    if (x.tables.size() != y.tables.size()) return false;
    for (const auto& [identity, t] : x.tables) {
      if (!y.tables.contains(identity)) return false;
    }
    return true;
  };
  if (s.schema != target.schema || b.schema != target.schema || !same_tables(s, target) ||
      !same_tables(b, target)) {
    return SchemaChanged(request, s.schema, target.schema, b.schema);
  }
  plan.content.lineage =
      commit::Lineage{"merge", s.stream, s.seq, s.head_commit_id, Json::object()};
  plan.content.merged_generation = s.head_generation;
  plan.content.summary = "merge " + request.source + " → " + request.target;
  if (found.base.commit_id == target.head_commit_id) {
    plan.result.outcome = MergeOutcome::kFastForward;
    for (const auto& [identity, t] : target.tables) {
      const commit::TableState& from = s.tables.at(identity);
      if (from.pin != t.pin) plan.content.pins.push_back(from.pin);
    }
    return plan;
  }
  plan.result.outcome = MergeOutcome::kMerged;
  plan.base = base.shared_state();
  plan.base_view = base;
  return plan;
}

// The tables whose versions `merged` pins anew on `target` (their derived deltas are written).
std::set<std::string> PinnedAnew(const commit::GraphState& target,
                                 const commit::RecordContent& merged) {
  std::set<std::string> written;
  for (const TablePin& pin : merged.pins) {
    const commit::TableState* was = target.FindByKey(pin.table_key);
    if (was == nullptr || was->pin.staged_version != pin.staged_version) {
      written.insert(pin.table_key);
    }
  }
  return written;
}

// The target moved during every attempt of the merge.
Status RetriesExhausted(const MergeRequest& request) {
  return Status(Code::kRetriesExhausted,
                "the target branch '" + request.target + "' moved during each of " +
                    std::to_string(kMergeAttemptsMax) + " merge attempts; merge again",
                request.target);
}

}  // namespace

Result<MergeResult> PreviewMerge(Graph& graph, const MergeRequest& request) {
  if (request.source == request.target) {
    return SelfMerge(request.source);
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(Snapshot source, graph.SnapshotOfBranch(request.source));
  OMNIGRAPH_ASSIGN_OR_RETURN(Snapshot target, graph.SnapshotOfBranch(request.target));
  OMNIGRAPH_ASSIGN_OR_RETURN(MergePlan plan, PlanMerge(graph, request, source, target.state()));
  plan.result.attempts = 1;
  if (plan.base == nullptr) return plan.result;  // Up to date, or a fast-forward.
  ProgressMeter meter(request.progress, *graph.runtime().clock, "merge", "tables");
  std::vector<MergeConflict> conflicts;
  Result<commit::RecordContent> three_way =
      MergeTables(graph, *plan.base, source.state(), target.state(), conflicts, meter, false);
  if (!three_way.ok()) {
    return plan.base_view->ExplainReadFailure(three_way.status())
        .WithContext("merge base " + plan.result.base_commit_id);
  }
  if (!conflicts.empty()) {
    plan.result.outcome = MergeOutcome::kConflicts;
    plan.result.conflicts = std::move(conflicts);
  }
  return plan.result;
}

Result<MergeResult> Merge(Graph& graph, const MergeRequest& request) {
  OMNIGRAPH_RETURN_IF_ERROR(commit::ValidateActor(request.actor));
  if (request.source == request.target) {
    return SelfMerge(request.source);
  }
  // The source is captured once: a precondition of the merge, not part of its arbitration.
  OMNIGRAPH_ASSIGN_OR_RETURN(Snapshot source, graph.SnapshotOfBranch(request.source));
  bool warm = false;
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<commit::Stream> stream,
                             graph.StreamOf(request.target, warm));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const commit::GraphState> head, stream->Captured());
  ProgressMeter meter(request.progress, *graph.runtime().clock, "merge", "tables");
  std::optional<MergePlan> plan;
  std::vector<MergeConflict> conflicts;
  int attempts = 0;
  // Of the last staging (the one that publishes): the tables it pins anew, and the schema.
  std::set<std::string> written;
  commit::SchemaRef staged_schema;
  commit::PublishLoop loop;
  loop.policy = commit::PublishPolicy{false, std::nullopt};
  loop.meta.branch = request.target;
  loop.meta.actor = request.actor;
  // Plan against the target's head; "already up to date" ends the merge without publishing.
  loop.check = [&](const std::shared_ptr<const commit::GraphState>& target) -> Result<bool> {
    OMNIGRAPH_RETURN_IF_ERROR(commit::CheckCaptured(loop.policy, *target));
    OMNIGRAPH_ASSIGN_OR_RETURN(plan, PlanMerge(graph, request, source, *target));
    plan->result.attempts = ++attempts;
    return plan->result.outcome != MergeOutcome::kAlreadyUpToDate;
  };
  // Stage (a three-way merge's patches) while the gap guard looks two seqs up (D21); conflicts
  // end the merge without publishing.
  loop.stage = [&](const commit::GraphState& h) -> Result<std::optional<commit::RecordContent>> {
    commit::RecordContent merged = plan->content;
    if (plan->base != nullptr) {
      Result<commit::RecordContent> three_way =
          MergeTables(graph, *plan->base, source.state(), h, conflicts, meter);
      if (!three_way.ok()) {
        // A table object of the base that cleanup reclaimed is VersionsReclaimed naming the
        // base commit; one missing elsewhere is damage.
        return plan->base_view->ExplainReadFailure(three_way.status())
            .WithContext("merge base " + plan->result.base_commit_id);
      }
      merged = std::move(*three_way);
      merged.lineage = plan->content.lineage;
      merged.merged_generation = plan->content.merged_generation;
      merged.summary = plan->content.summary;
    }
    if (!conflicts.empty()) return std::optional<commit::RecordContent>();
    OMNIGRAPH_RETURN_IF_ERROR(RecordMergeChanges(graph, h, merged));
    written = PinnedAnew(h, merged);
    staged_schema = h.schema;
    meter.Phase("committing");
    return std::optional<commit::RecordContent>(std::move(merged));
  };
  // The target moved: merge again against its new head (a merge is re-planned, not refused).
  loop.lost = [&](const commit::GraphState&, const commit::GraphState&,
                  int attempt) -> Result<bool> {
    commit::BackoffAfterLostRace(graph.runtime(), attempt);
    if (attempt < kMergeAttemptsMax) return true;
    return RetriesExhausted(request);
  };
  OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<commit::PublishResult> won,
                             commit::RunPublishLoop(*stream, std::move(head), loop));
  if (!won) {
    if (!conflicts.empty()) {
      plan->result.outcome = MergeOutcome::kConflicts;
      plan->result.conflicts = std::move(conflicts);
    }
    return plan->result;
  }
  meter.Finish();
  // Index and text deltas of the versions the merge pins anew (engine/write/derived_indexes.h).
  Result<std::shared_ptr<const schema::Catalog>> catalog = graph.CatalogFor(staged_schema);
  StoreDerivedAfterPublish(graph.tables(), catalog.ok() ? catalog->get() : nullptr, won->record,
                           written, {});
  plan->result.commit_id = won->commit_id;
  plan->result.seq = won->seq;
  plan->result.record = std::move(won->record);
  return plan->result;
}

}  // namespace omnigraph::engine
