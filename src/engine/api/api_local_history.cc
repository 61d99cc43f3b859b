// The local backend's history calls (api_local_internal.h): branches, commits and their
// changes, merges, diffs and the change feed.
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/api/api_local_internal.h"
#include "engine/ops/merge.h"

namespace omnigraph::engine::local_internal {

Json CommitJson(const commit::Record& r) {
  Json out = Json::object();
  out["graph_commit_id"] = r.commit_id;
  if (r.branch) out["graph_branch"] = *r.branch;
  out["graph_manifest_version"] = r.seq;
  if (r.parent_commit_id) out["parent_commit_id"] = *r.parent_commit_id;
  if (r.lineage) out["merged_parent_commit_id"] = r.lineage->merged_parent_commit_id;
  if (r.actor) out["actor_id"] = *r.actor;
  out["created_at"] = r.created_at;
  if (r.summary) out["summary"] = *r.summary;
  return out;
}

Json TouchedTablesJson(const commit::ChangeSet& c) {
  Json tables = Json::array();
  for (const commit::TableChangeSet& t : c.tables) {
    tables.push_back(Json{{"table_key", t.table_key},
                          {"inserted", t.inserted_count},
                          {"updated", t.updated_count},
                          {"deleted", t.deleted_count}});
  }
  return tables;
}

Json BranchJson(const commit::BranchInfo& b) {
  Json out = Json::object();
  out["name"] = b.branch;
  out["head_commit_id"] = b.head_commit_id;
  out["head_seq"] = b.head_seq;
  if (b.fork_commit_id) out["fork_commit_id"] = *b.fork_commit_id;
  return out;
}

Result<Json> Handle::CreateBranch(std::string_view name, std::string_view from,
                                  const Actor& actor) {
  OMNIGRAPH_RETURN_IF_ERROR(graph_->CreateBranch(name, from, std::nullopt, actor).status());
  Json out = Json::object();
  out["name"] = std::string(name);
  out["from"] = std::string(from);
  out["uri"] = uri_;
  if (actor) out["actor_id"] = *actor;
  return out;
}

Result<Json> Handle::DeleteBranch(std::string_view name, const Actor& actor) {
  OMNIGRAPH_RETURN_IF_ERROR(graph_->DeleteBranch(name, actor));
  Json out = Json::object();
  out["name"] = std::string(name);
  out["uri"] = uri_;
  if (actor) out["actor_id"] = *actor;
  return out;
}

bool Handle::MadeBy(const commit::Record& r, std::string_view actor) {
  if (r.actor && *r.actor == actor) return true;
  return std::any_of(r.members.begin(), r.members.end(), [actor](const commit::BatchMember& m) {
    return m.actor && *m.actor == actor;
  });
}

Result<Json> Handle::ListBranches() {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<commit::BranchInfo> all, graph_->ListBranches());
  Json out = Json::array();
  for (const commit::BranchInfo& b : all) out.push_back(BranchJson(b));
  return out;
}

Result<Json> Handle::ListCommits(std::string_view branch, size_t limit, std::string_view page_token,
                                 std::string_view actor) {
  commit::HistoryPosition from;
  if (page_token.empty()) {
    OMNIGRAPH_ASSIGN_OR_RETURN(engine::Snapshot head, graph_->SnapshotOfBranch(branch));
    from = commit::HistoryPosition{head.state().stream, head.state().seq};
  } else {
    OMNIGRAPH_ASSIGN_OR_RETURN(from, commit::HistoryPosition::FromCursor(page_token));
  }
  Json commits = Json::array();
  std::optional<commit::HistoryPosition> next = from;
  // With an actor, each read asks for no more records than matches are still wanted, so a
  // page never overshoots `limit` and `next` resumes right after the last record scanned.
  while (commits.size() < limit && next) {
    const size_t page = std::min(limit - commits.size(), commit::kHistoryPageSizeMax);
    OMNIGRAPH_ASSIGN_OR_RETURN(commit::HistoryPage got,
                               commit::ReadHistory(graph_->runtime(), *next, page));
    for (const commit::Record& r : got.commits) {
      if (actor.empty() || MadeBy(r, actor)) commits.push_back(CommitJson(r));
    }
    next = got.next;
  }
  Json out = Json{{"commits", commits}};
  if (next) out["next_page_token"] = next->ToCursor();
  return out;
}

Result<Json> Handle::Merge(std::string_view source, const MergeOptions& options, const Actor& actor,
                           Json& conflicts) {
  engine::MergeRequest request{std::string(source), options.target, actor, progress_};
  OMNIGRAPH_ASSIGN_OR_RETURN(engine::MergeResult merged, engine::Merge(*graph_, request));
  if (merged.outcome == engine::MergeOutcome::kConflicts) {
    conflicts = engine::MergeConflictsJson(merged.conflicts);
    return engine::MergeConflictsStatus(request, merged.conflicts);
  }
  Json out = {{"source", std::string(source)},
              {"target", options.target},
              {"outcome", engine::MergeOutcomeName(merged.outcome)}};
  if (merged.commit_id) out["commit"] = *merged.commit_id;
  if (actor) out["actor_id"] = *actor;
  if (options.delete_branch) {
    const Status deleted = graph_->DeleteBranch(source, actor);
    out["branch_deleted"] = deleted.ok();
    if (!deleted.ok()) out["branch_delete_error"] = deleted.message();
  }
  return out;
}

Result<Json> Handle::PreviewMerge(std::string_view source, std::string_view target) {
  engine::MergeRequest request{std::string(source), std::string(target), std::nullopt, nullptr};
  OMNIGRAPH_ASSIGN_OR_RETURN(engine::MergeResult preview, engine::PreviewMerge(*graph_, request));
  return engine::MergePreviewJson(request, preview);
}

Result<Json> Handle::Diff(const api::DiffRequest& r) {
  OMNIGRAPH_ASSIGN_OR_RETURN(engine::Snapshot from, SnapshotFor(r.from));
  OMNIGRAPH_ASSIGN_OR_RETURN(engine::Snapshot to, SnapshotFor(r.to));
  OMNIGRAPH_ASSIGN_OR_RETURN(
      Json out,
      engine::Diff(*graph_, from, to,
                   engine::CommitChangesRequest{r.limit, r.page_token, FilterOf(r.filter)}));
  if (!r.from.snapshot) out["from"]["branch"] = r.from.branch;
  if (!r.to.snapshot) out["to"]["branch"] = r.to.branch;
  return out;
}

Result<Json> Handle::ShowCommit(std::string_view commit_id) {
  OMNIGRAPH_ASSIGN_OR_RETURN(commit::Record r,
                             commit::LookupCommit(*graph_->runtime().store, commit_id));
  if (r.kind != commit::RecordKind::kCommit) {
    return Status(Code::kCommitNotFound, "'" + std::string(commit_id) + "' is not a commit");
  }
  Json out = CommitJson(r);
  OMNIGRAPH_ASSIGN_OR_RETURN(commit::ChangeSet changes, CountsOf(r));
  out["tables"] = TouchedTablesJson(changes);
  if (changes.schema_boundary) out["schema_boundary"] = true;
  if (!r.members.empty()) out["members"] = BatchMembersJson(r);
  if (const Json* key = r.idempotency_key.is_object() ? &r.idempotency_key : nullptr) {
    out["idempotency_key"] = key->value("key", Json(nullptr));
  }
  return out;
}

Result<Json> Handle::CommitChanges(std::string_view commit_id,
                                   const api::CommitChangesRequest& request) {
  return engine::CommitChanges(
      *graph_, commit_id,
      engine::CommitChangesRequest{request.limit, request.page_token, FilterOf(request.filter)});
}

Result<Json> Handle::PollChanges(const api::ChangePoll& poll) {
  engine::FeedRequest request;
  request.branch = poll.branch;
  request.start = poll.start;
  request.cursor = poll.cursor;
  request.limit = poll.limit;
  request.filter = FilterOf(poll.filter);
  return feed_->Poll(request);
}

Status Handle::ChangesBaseline(std::string_view branch, const api::ChangeFilter& filter,
                               const std::function<Status(std::string_view chunk)>& sink) {
  return feed_->Baseline(branch, FilterOf(filter), sink);
}

engine::ChangeFilter Handle::FilterOf(const api::ChangeFilter& f) {
  return engine::ChangeFilter{{f.kinds.begin(), f.kinds.end()},
                              {f.types.begin(), f.types.end()},
                              {f.ops.begin(), f.ops.end()}};
}

}  // namespace omnigraph::engine::local_internal
