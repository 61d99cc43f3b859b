#include "engine/write/mutate.h"

#include <set>

#include "base/ids.h"
#include "engine/ops/jsonl_values.h"
#include "engine/ops/merge.h"
#include "engine/read/prepared.h"
#include "engine/write/derived_indexes.h"
#include "query/check/settings.h"
#include "query/check/typecheck.h"
#include "query/exec/executor.h"
#include "query/parse/parser.h"
#include "query/plan/mutation.h"
#include "query/prepare.h"

namespace omnigraph::engine {

namespace {

uint64_t ColumnBytes(const table::Column& c) {
  uint64_t n = c.validity().size() + c.offsets_buffer().size() + c.values_buffer().size();
  if (c.has_child()) n += ColumnBytes(c.child());
  return n;
}

uint64_t BatchBytes(const table::ColumnBatch& batch) {
  uint64_t n = 0;
  for (size_t i = 0; i < batch.num_columns(); ++i) n += ColumnBytes(batch.column(i));
  return n;
}

// What a branch statement run as a mutation asks the gate (the same as the branch verbs):
// create x from y: branch_create from y into x; delete x: branch_delete of x; merge x into y:
// branch_merge from x into y.
AuthorityRequest BranchAuthority(const query::BranchStatement& statement,
                                 const std::string& default_branch) {
  const std::string& name = statement.branch.text;
  const std::string other = statement.other ? statement.other->text : default_branch;
  switch (statement.op) {
    case query::BranchOp::kCreate: return {"branch_create", other, name, {}};
    case query::BranchOp::kDelete: return {"branch_delete", std::nullopt, name, {}};
    case query::BranchOp::kMerge: return {"branch_merge", name, other, {}};
    case query::BranchOp::kList: break;
  }
  return {"read", std::nullopt, std::nullopt, {}};
}

// Runs a branch statement as a mutation: no entities are affected and no commit is reported (a
// branch create or delete writes the branch's own records, not a data commit).
Result<MutationResult> RunBranchStatement(Graph& graph, const query::BranchStatement& statement,
                                          const MutationOptions& options) {
  OMNIGRAPH_RETURN_IF_ERROR(query::CheckBranchStatement(statement, /*as_mutation=*/true));
  const std::string& name = statement.branch.text;
  const std::string other = statement.other ? statement.other->text : options.branch;
  if (options.authorize)
    OMNIGRAPH_RETURN_IF_ERROR(options.authorize(BranchAuthority(statement, options.branch)));
  MutationResult result;
  result.query_name = query::BranchOpName(statement.op);
  result.branch = statement.op == query::BranchOp::kMerge ? other : name;
  result.actor = options.actor;
  switch (statement.op) {
    case query::BranchOp::kCreate:
      OMNIGRAPH_RETURN_IF_ERROR(
          graph.CreateBranch(name, other, std::nullopt, options.actor).status());
      return result;
    case query::BranchOp::kDelete:
      OMNIGRAPH_RETURN_IF_ERROR(graph.DeleteBranch(name, options.actor));
      return result;
    case query::BranchOp::kMerge: {
      const MergeRequest request{name, other, options.actor};
      OMNIGRAPH_ASSIGN_OR_RETURN(MergeResult merged, Merge(graph, request));
      if (merged.outcome == MergeOutcome::kConflicts) {
        return MergeConflictsStatus(request, merged.conflicts);
      }
      result.merge_outcome = MergeOutcomeName(merged.outcome);
      result.commit = merged.commit_id;
      result.commit_record = std::move(merged.record);
      return result;
    }
    case query::BranchOp::kList: break;
  }
  return Status(Code::kInternal, "unhandled branch statement");
}

Json MutationOutcome(const MutationResult& result) {
  return Json{{"affected_nodes", result.affected_nodes}, {"affected_edges", result.affected_edges}};
}

// A keyed mutation's answer from the record of its first run.
MutationResult ReplayedMutation(std::string query_name, const MutationOptions& options,
                                WriteResult done) {
  MutationResult result;
  result.query_name = std::move(query_name);
  result.branch = options.branch;
  result.actor = done.record.actor;
  result.affected_nodes = done.outcome.value("affected_nodes", uint64_t{0});
  result.affected_edges = done.outcome.value("affected_edges", uint64_t{0});
  result.commit = done.commit_id;
  result.commit_record = std::move(done.record);
  return result;
}

// Asks the gate `change` with the types the effects write (nodes, edges, cascaded edges).
Status AuthorizeEffects(const query::MutationEffects& effects, const MutationOptions& options) {
  if (!options.authorize || effects.empty()) return Status::Ok();
  AuthorityRequest request{"change", options.branch, std::nullopt, {}};
  for (const auto& [key, t] : effects.tables) {
    if (!t.rows.empty() || !t.deletes.empty()) request.types.push_back(t.type->name);
  }
  return options.authorize(request);
}

// Fills the context's params (and refused_blobs) for the checked query.
using ParamsFn =
    std::function<Status(const query::CheckedQuery& checked, query::MutationContext& context)>;

// The mutation query `query_name` of `file`, refused before any I/O when the gate refuses
// `change` on the branch, or it is explained, a read query, or mixes inserts/updates with deletes
// (the D2 rule needs no schema).
Result<const query::QueryDecl*> SelectMutation(const query::QueryFile& file,
                                               std::string_view query_name,
                                               const MutationOptions& options) {
  OMNIGRAPH_ASSIGN_OR_RETURN(const query::QueryDecl* decl, query::SelectQuery(file, query_name));
  // The gate's pre-check (no types yet), before anything is read.
  if (options.authorize) {
    OMNIGRAPH_RETURN_IF_ERROR(options.authorize({"change", options.branch, std::nullopt, {}}));
  }
  query_name = decl->name.text;
  if (decl->explain) {
    return InvalidArgument("query '" + std::string(query_name) +
                           "': explain prints the plan of a read query; mutations have none");
  }
  if (!decl->is_mutation()) {
    return InvalidArgument("query '" + std::string(query_name) +
                           "' is a read query; run it with query, not mutate");
  }
  bool deletes = false, others = false;
  for (const query::Mutation& m : decl->mutations) {
    (m.kind == query::MutationKind::kDelete ? deletes : others) = true;
  }
  if (deletes && others) {
    return InvalidArgument("mutation '" + std::string(query_name) +
                           "' on the same query mixes inserts/updates and deletes; split into "
                           "separate mutations: (1) inserts and updates, then (2) deletes");
  }
  return decl;
}

// One TableChange per table `effects` touches, each checked against the per-type limits
// (ResourceLimit past them).
Status AddTableChanges(query::MutationEffects& effects, const std::string& query_name,
                       WriteRequest& write) {
  for (auto& [key, t] : effects.tables) {
    const uint64_t entities = t.rows.size() + t.deletes.size();
    if (entities > kMutationEntitiesMax) {
      return Status(Code::kResourceLimit, "mutation '" + query_name + "' touches " +
                                              std::to_string(entities) + " entities of " +
                                              t.type->name + "; the limit is " +
                                              std::to_string(kMutationEntitiesMax) + " per type");
    }
    TableChange change;
    if (!t.deletes.empty()) {
      change.op = TableChange::Op::kDelete;
      change.ids.assign(t.deletes.begin(), t.deletes.end());
    } else {
      change.op = t.only_fresh ? TableChange::Op::kAppend : TableChange::Op::kUpsert;
      OMNIGRAPH_ASSIGN_OR_RETURN(change.rows, query::EffectRows(t));
      const uint64_t bytes = BatchBytes(change.rows);
      if (bytes > kMutationBytesMax) {
        return Status(Code::kResourceLimit, "mutation '" + query_name + "' writes " +
                                                std::to_string(bytes) + " bytes of " +
                                                t.type->name + "; the limit is " +
                                                std::to_string(kMutationBytesMax) + " per type");
      }
    }
    write.changes.emplace(key, std::move(change));
  }
  return Status::Ok();
}

// The one prepare step (query/prepare.h) of the mutation `name` against `head`'s catalog: through
// the handle's cache when it keeps one, else from the caller's parse `parsed` (taken).
Result<std::shared_ptr<const query::PreparedQuery>> PrepareMutation(
    std::string_view source, std::string_view name, const Snapshot& head, query::QueryFile* parsed,
    const MutationOptions& options) {
  if (options.prepared != nullptr) {
    return options.prepared->Get(source, name, head.shared_catalog(), parsed);
  }
  OMNIGRAPH_CHECK_MSG(parsed != nullptr, "an uncached mutation prepares from its own parse");
  OMNIGRAPH_ASSIGN_OR_RETURN(std::unique_ptr<query::PreparedQuery> prepared,
                             query::PrepareQuery(std::move(*parsed), name, head.shared_catalog()));
  return std::shared_ptr<const query::PreparedQuery>(std::move(prepared));
}

// Runs the source's parse `file` (its headers already resolved): a cached entry's, or `parsed`,
// the caller's own, which the prepare step takes (`file` is then not used after it).
Result<MutationResult> MutateFile(Graph& graph, std::string_view source,
                                  const query::QueryFile& file, query::QueryFile* parsed,
                                  std::string_view requested, const ParamsFn& bind,
                                  const MutationOptions& options) {
  if (file.show_all) {
    return InvalidArgument("`show all;` is a read statement; run it with query, not mutate");
  }
  if (file.statement) {
    if (!requested.empty()) {
      return InvalidArgument("the source is a `" +
                             std::string(query::BranchOpName(file.statement->op)) +
                             "` statement; it has no query named '" + std::string(requested) + "'");
    }
    if (options.idempotency) {
      return InvalidArgument("a branch statement takes no idempotency key");
    }
    return RunBranchStatement(graph, *file.statement, options);
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(const query::QueryDecl* decl,
                             SelectMutation(file, requested, options));
  const std::string query_name = decl->name.text;
  // A retry of a keyed mutation that committed answers from its record, before anything is
  // planned on a head that already holds its effects.
  if (options.idempotency) {
    OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<WriteResult> done,
                               Replay(graph, options.branch, *options.idempotency));
    if (done) return ReplayedMutation(query_name, options, std::move(*done));
  }
  // Capture: the head the mutation plans on and the write publishes from.
  OMNIGRAPH_ASSIGN_OR_RETURN(Snapshot head, graph.SnapshotOfBranch(options.branch));
  OMNIGRAPH_RETURN_IF_ERROR(
      commit::CheckCaptured(commit::PublishPolicy{true, options.expected_head}, head.state()));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const query::PreparedQuery> prepared,
                             PrepareMutation(source, requested, head, parsed, options));
  const query::CheckedQuery& checked = prepared->checked;

  UlidGenerator ulids(*graph.runtime().clock, *graph.runtime().random);
  query::MutationContext context;
  context.catalog = &head.catalog();
  OMNIGRAPH_RETURN_IF_ERROR(bind(checked, context));
  context.now_ms = options.now_ms ? *options.now_ms : graph.runtime().clock->NowMicros() / 1000;
  context.open_table = [&](const schema::TypeDef& type) { return head.Table(type.table_key()); };
  context.mint_id = [&] { return ulids.NextString(); };
  OMNIGRAPH_ASSIGN_OR_RETURN(query::MutationEffects effects, query::PlanMutation(checked, context));
  OMNIGRAPH_RETURN_IF_ERROR(AuthorizeEffects(effects, options));

  MutationResult result;
  result.query_name = query_name;
  result.branch = options.branch;
  result.affected_nodes = effects.affected_nodes;
  result.affected_edges = effects.affected_edges;
  result.actor = options.actor;
  if (effects.empty()) return result;

  WriteRequest write;
  write.branch = options.branch;
  write.expected_head = options.expected_head;
  write.actor = options.actor;
  write.strict = effects.strict;
  write.planned_on = head;
  write.planned_schema = head.state().schema;
  write.summary = "mutate " + result.query_name;
  OMNIGRAPH_RETURN_IF_ERROR(AddTableChanges(effects, result.query_name, write));
  write.counts = MutationOutcome(result);
  if (options.idempotency) {
    write.idempotency = options.idempotency;
    write.idempotency->outcome = MutationOutcome(result);
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(WriteResult written, Write(graph, write));
  if (written.replayed) return ReplayedMutation(result.query_name, options, std::move(written));
  result.commit = written.commit_id;
  // Index and full-text deltas of the versions it wrote (engine/write/derived_indexes.h); never
  // authority.
  std::set<std::string> tables;
  for (const auto& [table_key, change] : write.changes) tables.insert(table_key);
  StoreDerivedAfterPublish(graph.tables(), &head.catalog(), written.record, tables, {});
  result.commit_record = std::move(written.record);
  return result;
}

Result<MutationResult> MutateWith(Graph& graph, std::string_view source,
                                  std::string_view query_name, const ParamsFn& bind,
                                  const MutationOptions& options) {
  // Everything that needs no I/O first: parse, check the headers, find the query. Headers are
  // checked like a read's: this engine stages one table at a time, which every
  // stage_write_concurrency allows; the reference's internal knobs are ignored, with a warning
  // in the result (a replayed keyed mutation's too: they are about the source).
  // A source the handle has prepared before is not parsed again: its entry holds the parse.
  std::shared_ptr<const query::PreparedQuery> known;
  if (options.prepared != nullptr) known = options.prepared->Find(source, query_name);
  query::QueryFile parsed;
  if (known == nullptr) {
    OMNIGRAPH_ASSIGN_OR_RETURN(parsed, query::ParseQueryFile(source));
  }
  const query::QueryFile& file = known != nullptr ? known->file : parsed;
  OMNIGRAPH_ASSIGN_OR_RETURN(query::QuerySettings settings, query::ResolveSettings(file.settings));
  OMNIGRAPH_ASSIGN_OR_RETURN(MutationResult result,
                             MutateFile(graph, source, file, known != nullptr ? nullptr : &parsed,
                                        query_name, bind, options));
  for (const query::Diagnostic& w : settings.warnings) result.warnings.push_back(w.Render());
  return result;
}

// A Blob parameter in JSON is text, as in a load line: "base64:<data>" becomes its stored
// bytes, and an external URI the graph's allow rules admit its stored reference
// (engine/read/external_blob.h); a refused URI is kept and noted as refused, for the mutation to
// refuse if it assigns it to a row (query::MutationContext::refused_blobs).
Status BlobFromText(const query::Param& param, schema::Value& value,
                    query::MutationContext& context, const ExternalBlobRules* rules) {
  if (param.type.scalar != schema::ScalarKind::kBlob || param.type.list) return Status::Ok();
  if (value.tag() != schema::Value::Tag::kString) return Status::Ok();
  Result<BlobText> blob = StoredBlobFromText(value.string_value(), rules);
  if (!blob.ok())
    return InvalidArgument("param '" + param.name.text + "': " + blob.status().message());
  if (blob->refusal) {
    context.refused_blobs.emplace(param.name.text, std::move(*blob->refusal));
  } else {
    value = schema::Value::String(std::move(blob->stored));
  }
  return Status::Ok();
}

}  // namespace

Result<MutationResult> Mutate(Graph& graph, std::string_view source, std::string_view query_name,
                              const std::map<std::string, schema::Value>& params,
                              const MutationOptions& options) {
  return MutateWith(
      graph, source, query_name,
      [&](const query::CheckedQuery&, query::MutationContext& context) {
        context.params = params;
        return Status::Ok();
      },
      options);
}

Result<MutationResult> Mutate(Graph& graph, std::string_view source, std::string_view query_name,
                              const Json& params, const MutationOptions& options) {
  return MutateWith(
      graph, source, query_name,
      [&](const query::CheckedQuery& checked, query::MutationContext& context) -> Status {
        OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<schema::Value> values,
                                   query::BindParams(checked, params));
        for (size_t i = 0; i < values.size(); ++i) {
          const query::Param& param = checked.decl->params[i];
          OMNIGRAPH_RETURN_IF_ERROR(
              BlobFromText(param, values[i], context, options.external_blobs.get()));
          context.params.emplace(param.name.text, std::move(values[i]));
        }
        return Status::Ok();
      },
      options);
}

}  // namespace omnigraph::engine
