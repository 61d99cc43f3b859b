// The graph routes (docs/design/server.md "Routes"): each one reads its inputs from the checked
// request and calls the public API on the shared Database; results are the API's JSON as it is,
// wrapped only where the API hands out a bare list ({branches}, {commits}). Every read says the
// commit it was served at in the Omnigraph-Graph-Commit header.
//
// The change feed is GET /changes (one page) and POST /changes/baseline (the head as NDJSON, then
// the cursor line), docs/design/change-feed.md.
#include <algorithm>
#include <charconv>
#include <memory>
#include <utility>

#include "server/errors.h"
#include "server/service.h"

namespace omnigraph::server {
namespace {

using api::Database;
using api::Json;

constexpr size_t kCommitListDefault = 100;
constexpr size_t kCommitListMax = 10000;
constexpr std::string_view kDefaultLoadMode = "merge";
constexpr std::string_view kIdempotencyKeyHeader = "Idempotency-Key";

using DbPtr = std::shared_ptr<Database>;

std::string StringOr(const Json& body, std::string_view name, std::string fallback) {
  const Json& v = body[name];
  return v.is_string() ? v.string_value() : std::move(fallback);
}

HttpResponse WithCommit(HttpResponse response, std::string_view commit) {
  if (!commit.empty()) response.headers.emplace_back(kCommitHeader, std::string(commit));
  return response;
}

// The API's result as the response, or its error.
HttpResponse Reply(const api::Result<Json>& result, std::string_view commit_member = {}) {
  if (!result.ok()) return ErrorResponse(result.status());
  std::string commit;
  if (!commit_member.empty() && (*result)[commit_member].is_string()) {
    commit = (*result)[commit_member].string_value();
  }
  return WithCommit(JsonResponse(*result), commit);
}

// A handle that publishes as the request's actor.
std::unique_ptr<Database> As(const DbPtr& db, const Call& call) {
  return db->WithActor(call.actor);
}

Param Member(std::string name, std::string type, bool required, std::string description = {}) {
  return Param{std::move(name), std::move(type), required, std::move(description)};
}

// A branch delete's answer: the API's envelope when it returns one, else {name, uri, actor_id?}
// built here (overloaded on what Database::DeleteBranch returns).
[[maybe_unused]] HttpResponse DeleteReply(const api::Result<Json>& deleted, const DbPtr&,
                                          const Call&, const std::string&) {
  return Reply(deleted);
}

[[maybe_unused]] HttpResponse DeleteReply(const api::Status& deleted, const DbPtr& db,
                                          const Call& call, const std::string& name) {
  if (!deleted.ok()) return ErrorResponse(deleted);
  Json out = Json{{"name", name}, {"uri", db->uri()}};
  if (call.actor) out["actor_id"] = *call.actor;
  return JsonResponse(out);
}

HttpResponse QueryRoute(const DbPtr& db, const Call& call) {
  const Json& body = call.body;
  if (body.contains("branch") && body.contains("snapshot")) {
    return ErrorResponse(400, "a query reads a branch or a snapshot, not both");
  }
  api::ReadTarget target;
  target.branch = StringOr(body, "branch", "main");
  if (body["snapshot"].is_string()) target.snapshot = body["snapshot"].string_value();
  const Json params = body["params"].is_object() ? body["params"] : Json::object();
  return Reply(db->Query(body["query"].string_value(), StringOr(body, "name", ""), params, target),
               "graph_commit_id");
}

// POST /read: the query with OmniGraph's legacy member names, answered without the commit id in
// the body (its LegacyReadOutput is byte-stable); the header still names the commit.
HttpResponse LegacyReadRoute(const DbPtr& db, const Call& call) {
  const Json& body = call.body;
  if (body.contains("branch") && body.contains("snapshot")) {
    return ErrorResponse(400, "a query reads a branch or a snapshot, not both");
  }
  api::ReadTarget target;
  target.branch = StringOr(body, "branch", "main");
  if (body["snapshot"].is_string()) target.snapshot = body["snapshot"].string_value();
  const Json params = body["params"].is_object() ? body["params"] : Json::object();
  api::Result<Json> read = db->Query(body["query_source"].string_value(),
                                     StringOr(body, "query_name", ""), params, target);
  if (!read.ok()) return ErrorResponse(read.status());
  const std::string commit = (*read)["graph_commit_id"].is_string()
                                 ? (*read)["graph_commit_id"].string_value()
                                 : std::string();
  Json out = *read;
  out.erase("graph_commit_id");
  return WithCommit(JsonResponse(out), commit);
}

// A write's Idempotency-Key header makes it safe to retry (docs/design/idempotency.md); the
// engine checks the key's text.
void SetIdempotencyKey(const Call& call, api::WriteTarget& target) {
  const std::string key = call.request.Header(kIdempotencyKeyHeader);
  if (!key.empty()) target.idempotency_key = key;
}

HttpResponse MutateRoute(const DbPtr& db, const Call& call, bool if_commit) {
  const Json& body = call.body;
  const std::string header = call.request.Header(kIfCommitHeader);
  if (if_commit && header.empty()) {
    return ErrorResponse(400,
                         "POST /mutate/if-graph-commit needs the Omnigraph-If-Graph-Commit "
                         "header (the commit the branch head must be)");
  }
  if (!if_commit && !header.empty()) {
    return ErrorResponse(400,
                         "the Omnigraph-If-Graph-Commit header is for "
                         "POST /mutate/if-graph-commit; POST /mutate does not check it");
  }
  if (body.contains("query") == body.contains("query_source")) {
    return ErrorResponse(400, "a mutation needs exactly one of 'query' and 'query_source'");
  }
  if (body.contains("name") && body.contains("query_name")) {
    return ErrorResponse(400, "give 'name' or its alias 'query_name', not both");
  }
  const std::string source = StringOr(body, "query", StringOr(body, "query_source", ""));
  const std::string name = StringOr(body, "name", StringOr(body, "query_name", ""));
  api::WriteTarget target;
  target.branch = StringOr(body, "branch", "main");
  if (if_commit) target.if_commit = header;
  SetIdempotencyKey(call, target);
  const Json params = body["params"].is_object() ? body["params"] : Json::object();
  return Reply(As(db, call)->Mutate(source, name, params, target));
}

HttpResponse LoadRoute(const DbPtr& db, const Call& call, std::string_view data, std::string branch,
                       std::string from, std::string mode) {
  api::WriteTarget target;
  target.branch = branch.empty() ? "main" : std::move(branch);
  if (!from.empty()) target.from = std::move(from);
  SetIdempotencyKey(call, target);
  return Reply(As(db, call)->Load(data, mode.empty() ? kDefaultLoadMode : mode, target));
}

// NotFound "unknown type 'T'" (the engine's export message) for a name that is no node or edge
// type of the commit `at`, whose snapshot lists a dataset per type.
api::Status CheckTypesExist(Database& reader, const api::ReadTarget& at,
                            const std::vector<std::string>& types) {
  api::Result<Json> snapshot = reader.Snapshot(at);
  if (!snapshot.ok()) return snapshot.status();
  for (const std::string& name : types) {
    bool found = false;
    for (const Json& d : (*snapshot)["datasets"]) found |= d["type_name"].string_value() == name;
    if (!found) return api::Status(api::Code::kNotFound, "unknown type '" + name + "'");
  }
  return api::Status::Ok();
}

HttpResponse ExportRoute(const DbPtr& db, const Call& call) {
  if (call.body.contains("branch") && call.body.contains("snapshot")) {
    return ErrorResponse(400, "an export reads a branch or a snapshot, not both");
  }
  api::ReadTarget head;
  head.branch = StringOr(call.body, "branch", "main");
  if (call.body["snapshot"].is_string()) head.snapshot = call.body["snapshot"].string_value();
  std::vector<std::string> types;
  for (const Json& t : call.body["type_names"]) {
    if (!t.is_string()) return ErrorResponse(400, "'type_names' must be an array of type names");
    types.push_back(t.string_value());
  }
  // The commit is resolved first, so that the header (sent before the first chunk) names the
  // state the stream is: the export reads that commit, not whatever the head is by then. That
  // pinned read names no branch, so with a bundle `export` is decided here for the branch asked
  // (as the engine's gate decides Export) and the reads run ungated, as the caller.
  DbPtr reader = db;
  if (call.graph != nullptr && call.graph->policy) {
    // The types exported (every type when none is named), as the engine's gate asks them.
    std::optional<std::vector<std::string>> exported;
    if (!types.empty()) exported = types;
    const api::PolicyRequest request{call.actor,
                                     "export",
                                     head.snapshot ? std::nullopt : std::optional(head.branch),
                                     std::nullopt,
                                     call.graph->id,
                                     std::nullopt,
                                     std::move(exported)};
    const api::PolicyDecision d = call.graph->policy->Decide(request);
    if (!d.allowed) {
      LogDenied(request, d);
      return ErrorResponse(api::Status(api::Code::kConfiguration, "permission denied: " + d.reason,
                                       d.rule.empty() ? "policy" : "policy rule " + d.rule));
    }
    reader = call.graph->ungated->WithActor(call.actor);
  }
  api::Result<std::string> commit = reader->ResolveCommit(head);
  if (!commit.ok()) return ErrorResponse(commit.status());
  api::ReadTarget at;
  at.branch = head.branch;
  at.snapshot = *commit;
  // A type the commit does not have is refused before the stream's 200 goes out: once it has,
  // a failure can only cut the stream short (OmniGraph answers 4xx, not a cut-off 200).
  if (!types.empty()) {
    api::Status known = CheckTypesExist(*reader, at, types);
    if (!known.ok()) return ErrorResponse(known);
  }
  HttpResponse out;
  out.content_type = "application/x-ndjson";
  out.stream = [reader, at, types](const ChunkWriter& write) {
    api::Status done = reader->Export(at, types, [&write](std::string_view chunk) {
      if (write(chunk)) return api::Status::Ok();
      return api::Status(api::Code::kCancelled, "the client went away");
    });
    return done.ok();
  };
  return WithCommit(std::move(out), *commit);
}

HttpResponse CommitsRoute(const DbPtr& db, const Call& call) {
  std::string branch = call.request.Query("branch");
  size_t limit = kCommitListDefault;
  const std::string text = call.request.Query("limit");
  if (!text.empty()) {
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), limit);
    if (ec != std::errc() || end != text.data() + text.size() || limit > kCommitListMax) {
      return ErrorResponse(400, "'limit' must be a whole number from 0 to " +
                                    std::to_string(kCommitListMax) + ", not '" + text + "'");
    }
  }
  // One page: {commits, next_page_token?}; a page token continues where a page ended.
  api::Result<Json> page =
      db->CommitHistory(branch.empty() ? "main" : branch, limit, call.request.Query("page_token"),
                        call.request.Query("actor"));
  if (!page.ok()) return ErrorResponse(page.status());
  std::string head;
  if (!(*page)["commits"].empty()) head = (*page)["commits"][0]["graph_commit_id"].string_value();
  return WithCommit(JsonResponse(*page), head);
}

// GET /commits/{id}/changes: one page of a commit's entity changes, filtered by kind, type, op.
HttpResponse CommitChangesRoute(const DbPtr& db, const Call& call) {
  const HttpRequest& r = call.request;
  api::CommitChangesRequest request;
  const std::string text = r.Query("limit");
  if (!text.empty()) {
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), request.limit);
    if (ec != std::errc() || end != text.data() + text.size()) {
      return ErrorResponse(400,
                           "'limit' must be a whole number from 1 to 10000, not '" + text + "'");
    }
  }
  request.page_token = r.Query("page_token");
  request.filter = api::ChangeFilter{r.QueryAll("kind"), r.QueryAll("type"), r.QueryAll("op")};
  return Reply(db->CommitChanges(r.path_params.at("commit_id"), request));
}

// GET /changes: one page of the feed from `cursor`, or on `branch` from `start`.
HttpResponse ChangesRoute(const DbPtr& db, const Call& call) {
  api::ChangePoll poll;
  const HttpRequest& r = call.request;
  if (!r.Query("branch").empty()) poll.branch = r.Query("branch");
  if (!r.Query("start").empty()) poll.start = r.Query("start");
  poll.cursor = r.Query("cursor");
  const std::string page_token = r.Query("page_token");
  if (!poll.cursor.empty() && !page_token.empty()) {
    return ErrorResponse(400, "give 'cursor' or 'page_token' (both continue the feed), not both");
  }
  if (!page_token.empty()) poll.cursor = page_token;
  if (!poll.cursor.empty() && !r.Query("start").empty()) {
    return ErrorResponse(400, "a page continues from a cursor or begins at 'start', not both");
  }
  const std::string text = r.Query("limit");
  if (!text.empty()) {
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), poll.limit);
    if (ec != std::errc() || end != text.data() + text.size()) {
      return ErrorResponse(400,
                           "'limit' must be a whole number from 1 to 1000, not '" + text + "'");
    }
  }
  poll.filter = api::ChangeFilter{r.QueryAll("kind"), r.QueryAll("type"), r.QueryAll("op")};
  return Reply(db->PollChanges(poll));
}

// The repeatable filter `name` of a JSON body ({"kind": ["node"]}); false when it is not an
// array of strings.
bool BodyFilter(const Json& body, const char* name, std::vector<std::string>& out) {
  if (!body.contains(name)) return true;
  for (const Json& v : body[name]) {
    if (!v.is_string()) return false;
    out.push_back(v.string_value());
  }
  return true;
}

// POST /changes/baseline: the branch head's NDJSON export, then {"baseline":{...}}.
HttpResponse BaselineRoute(const DbPtr& db, const Call& call) {
  const std::string branch = StringOr(call.body, "branch", "main");
  api::ChangeFilter filter;
  for (const char* name : {"kind", "type", "op"}) {
    std::vector<std::string>& into = name[0] == 'k'   ? filter.kinds
                                     : name[0] == 't' ? filter.types
                                                      : filter.ops;
    if (!BodyFilter(call.body, name, into)) {
      return ErrorResponse(400, "'" + std::string(name) + "' must be an array of strings");
    }
  }
  // Checked first so that a bad filter or a missing branch is a plain error, not a broken stream.
  for (const std::string& kind : filter.kinds) {
    if (kind != "node" && kind != "edge") {
      return ErrorResponse(
          api::InvalidArgument("unknown change kind '" + kind + "' (expected node or edge)"));
    }
  }
  for (const std::string& op : filter.ops) {
    if (op != "insert" && op != "update" && op != "delete") {
      return ErrorResponse(api::InvalidArgument("unknown change op '" + op +
                                                "' (expected insert, update or delete)"));
    }
  }
  for (const std::string& type : filter.types) {
    if (type.empty()) {
      return ErrorResponse(api::InvalidArgument("a change type filter names no type"));
    }
  }
  api::Result<std::string> commit = db->ResolveCommit(api::ReadTarget{branch, std::nullopt});
  if (!commit.ok()) return ErrorResponse(commit.status());
  HttpResponse out;
  out.content_type = "application/x-ndjson";
  out.stream = [db, branch, filter](const ChunkWriter& write) {
    api::Status done = db->ChangesBaseline(branch, filter, [&write](std::string_view chunk) {
      if (write(chunk)) return api::Status::Ok();
      return api::Status(api::Code::kCancelled, "the client went away");
    });
    return done.ok();
  };
  return out;
}

// GET /snapshot: a branch head or one commit (exclusive), SnapshotOutput.
HttpResponse SnapshotRoute(const DbPtr& db, const Call& call) {
  const std::string branch = call.request.Query("branch");
  const std::string snapshot = call.request.Query("snapshot");
  if (!branch.empty() && !snapshot.empty()) {
    return ErrorResponse(400, "a snapshot is of a branch or of a commit, not both");
  }
  api::ReadTarget target;
  if (!branch.empty()) target.branch = branch;
  if (!snapshot.empty()) target.snapshot = snapshot;
  api::Result<std::string> commit = db->ResolveCommit(target);
  if (!commit.ok()) return ErrorResponse(commit.status());
  return WithCommit(Reply(db->Snapshot(target)), *commit);
}

// GET /schema: the accepted schema of a branch head or of one commit (exclusive).
HttpResponse SchemaRoute(const DbPtr& db, const Call& call) {
  const std::string branch = call.request.Query("branch");
  const std::string snapshot = call.request.Query("snapshot");
  if (!branch.empty() && !snapshot.empty()) {
    return ErrorResponse(400, "a schema is of a branch or of a commit, not both");
  }
  api::ReadTarget target;
  if (!branch.empty()) target.branch = branch;
  if (!snapshot.empty()) target.snapshot = snapshot;
  api::Result<Json> shown = db->ShowSchema(target);
  if (!shown.ok()) return ErrorResponse(shown.status());
  // OmniGraph's SchemaOutput names the source `schema_source` (the API's JSON says `source`).
  Json out = Json::object();
  for (const auto& [name, value] : shown->members()) {
    out[name == "source" ? std::string("schema_source") : name] = value;
  }
  return Reply(out, "graph_commit_id");
}

// POST /branches/merge: BranchMergeOutput, or 409 with every conflict in merge_conflicts.
HttpResponse MergeRoute(const DbPtr& db, const Call& call) {
  const Json& b = call.body;
  api::MergeOptions options;
  options.target = StringOr(b, "target", "main");
  options.delete_branch = b["delete_branch"].is_boolean() && b["delete_branch"].get<bool>();
  Json conflicts;
  api::Result<Json> merged = As(db, call)->Merge(b["source"].string_value(), options, &conflicts);
  if (!merged.ok() && merged.status().code() == api::Code::kMergeConflicts) {
    return MergeConflictsResponse(merged.status(), conflicts);
  }
  return Reply(merged, "commit");
}

void AddCommitRoutes(RouteTable& table);

void AddReadRoutes(RouteTable& table) {
  table.Add(
      Route{.method = "GET",
            .pattern = "/snapshot",
            .action = "read",
            .summary = "A branch head or one commit: its tables and versions (SnapshotOutput)",
            .query_params = {Param{"branch", "string", false, "default main"},
                             Param{"snapshot", "string", false, "a commit id"}},
            .handler = [](const Call& call) {
              const DbPtr& db = call.db;
              return SnapshotRoute(db, call);
            }});
  table.Add(Route{.method = "GET",
                  .pattern = "/commits/{commit_id}/changes",
                  .action = "read",
                  .summary = "A commit's entity changes against its first parent, one page",
                  .query_params = {Param{"page_token", "string", false, "a next_page_token"},
                                   Param{"limit", "integer", false, "1..10000, default 1000"},
                                   Param{"kind", "string", false, "node or edge"},
                                   Param{"type", "string", false, "a type name"},
                                   Param{"op", "string", false, "insert, update or delete"}},
                  .handler = [](const Call& call) {
                    const DbPtr& db = call.db;
                    return CommitChangesRoute(db, call);
                  }});
  table.Add(Route{
      .method = "POST",
      .pattern = "/query",
      .action = "read",
      .body = BodyKind::kJson,
      .summary = "Runs a read query at a branch head or a snapshot (the query envelope)",
      .body_members = {Member("query", "string", true, ".gq source"),
                       Member("name", "string", false, "the query to run; default: the only one"),
                       Member("params", "object", false), Member("branch", "string", false),
                       Member("snapshot", "string", false, "a commit id")},
      .handler = [](const Call& call) {
        const DbPtr& db = call.db;
        return QueryRoute(db, call);
      }});
  table.Add(Route{.method = "GET",
                  .pattern = "/schema",
                  .action = "read",
                  .summary = "The accepted schema of a branch head or of one commit",
                  .query_params = {Param{"branch", "string", false, "default main"},
                                   Param{"snapshot", "string", false, "a commit id"}},
                  .handler = [](const Call& call) {
                    const DbPtr& db = call.db;
                    return SchemaRoute(db, call);
                  }});
  table.Add(Route{
      .method = "POST",
      .pattern = "/export",
      .action = "export",
      .body = BodyKind::kJson,
      .summary = "Streams a branch head or one commit as NDJSON (the load format)",
      .body_members = {Member("branch", "string", false), Member("type_names", "array", false),
                       Member("snapshot", "string", false, "a commit id")},
      .response_type = "application/x-ndjson",
      .handler = [](const Call& call) {
        const DbPtr& db = call.db;
        return ExportRoute(db, call);
      }});
  AddCommitRoutes(table);
}

// The commit history: a branch's commits, and one commit by id.
void AddCommitRoutes(RouteTable& table) {
  table.Add(Route{
      .method = "GET",
      .pattern = "/commits",
      .action = "read",
      .summary = "Commits newest first on a branch: {commits, next_page_token?}",
      .query_params = {Param{"branch", "string", false, "default main"},
                       Param{"limit", "integer", false, "default 100"},
                       Param{"page_token", "string", false,
                             "continue after a page (its next_page_token)"},
                       Param{"actor", "string", false, "only the commits this actor made (audit)"}},
      .handler = [](const Call& call) {
        const DbPtr& db = call.db;
        return CommitsRoute(db, call);
      }});
  table.Add(Route{.method = "GET",
                  .pattern = "/commits/{commit_id}",
                  .action = "read",
                  .summary = "One commit by id",
                  .handler = [](const Call& call) {
                    const DbPtr& db = call.db;
                    return Reply(db->ShowCommit(call.request.path_params.at("commit_id")),
                                 "graph_commit_id");
                  }});
}

void AddChangeRoutes(RouteTable& table) {
  table.Add(
      Route{.method = "GET",
            .pattern = "/changes",
            .action = "read",
            .summary = "One page of a branch's change feed: {stream, commits, caught_up, "
                       "next_page_token}",
            .query_params = {Param{"branch", "string", false, "default main"},
                             Param{"start", "string", false,
                                   "now (default), beginning or after:COMMIT_ID"},
                             Param{"cursor", "string", false, "a page's cursor or next_page_token"},
                             Param{"page_token", "string", false, "alias of cursor"},
                             Param{"limit", "integer", false, "1..1000, default 100"},
                             Param{"kind", "array", false, "repeatable: node | edge"},
                             Param{"type", "array", false, "repeatable: a type name"},
                             Param{"op", "array", false, "repeatable: insert | update | delete"}},
            .handler = [](const Call& call) {
              const DbPtr& db = call.db;
              return ChangesRoute(db, call);
            }});
  table.Add(Route{.method = "POST",
                  .pattern = "/changes/baseline",
                  .action = "export",
                  .body = BodyKind::kJson,
                  .summary = "A branch head as NDJSON, then {\"baseline\":{snapshot_commit_id, "
                             "resume_cursor}}",
                  .body_members = {Member("branch", "string", false, "default main"),
                                   Member("kind", "array", false, "node | edge"),
                                   Member("type", "array", false, "type names"),
                                   Member("op", "array", false, "insert | update | delete")},
                  .response_type = "application/x-ndjson",
                  .handler = [](const Call& call) {
                    const DbPtr& db = call.db;
                    return BaselineRoute(db, call);
                  }});
}

std::vector<Param> MutateMembers() {
  return {Member("query", "string", false, ".gq source"),
          Member("query_source", "string", false, "alias of query"),
          Member("name", "string", false),
          Member("query_name", "string", false, "alias of name"),
          Member("params", "object", false),
          Member("branch", "string", false)};
}

// OmniGraph's deprecated aliases, kept as it keeps them: /read (legacy member names and answer),
// /change and /ingest; each answer says its successor (Route::successor).
void AddDeprecatedRoutes(RouteTable& table) {
  table.Add(Route{
      .method = "POST",
      .pattern = "/read",
      .action = "read",
      .body = BodyKind::kJson,
      .summary = "Deprecated alias of POST /query with the legacy member names; its answer has "
                 "no graph_commit_id (OmniGraph's LegacyReadOutput)",
      .body_members = {Member("query_source", "string", true, ".gq source"),
                       Member("query_name", "string", false), Member("params", "object", false),
                       Member("branch", "string", false),
                       Member("snapshot", "string", false, "a commit id")},
      .successor = "query",
      .handler = [](const Call& call) {
        const DbPtr& db = call.db;
        return LegacyReadRoute(db, call);
      }});
  table.Add(Route{.method = "POST",
                  .pattern = "/change",
                  .action = "change",
                  .body = BodyKind::kJson,
                  .summary = "Deprecated alias of POST /mutate",
                  .body_members = MutateMembers(),
                  .successor = "mutate",
                  .handler = [](const Call& call) {
                    const DbPtr& db = call.db;
                    return MutateRoute(db, call, false);
                  }});
  table.Add(
      Route{.method = "POST",
            .pattern = "/ingest",
            .action = "change",
            .body = BodyKind::kJson,
            .summary = "Deprecated alias of POST /load",
            .body_members = {Member("data", "string", true), Member("branch", "string", false),
                             Member("from", "string", false), Member("mode", "string", false)},
            .load_body = true,
            .successor = "load",
            .handler = [](const Call& call) {
              const DbPtr& db = call.db;
              const Json& b = call.body;
              return LoadRoute(db, call, b["data"].string_value(), StringOr(b, "branch", ""),
                               StringOr(b, "from", ""), StringOr(b, "mode", ""));
            }});
}

void AddWriteRoutes(RouteTable& table) {
  const std::vector<Param> mutate_members = MutateMembers();
  table.Add(Route{.method = "POST",
                  .pattern = "/mutate",
                  .action = "change",
                  .body = BodyKind::kJson,
                  .summary = "Runs a mutation: one commit, or none when nothing changed",
                  .body_members = mutate_members,
                  .handler = [](const Call& call) {
                    const DbPtr& db = call.db;
                    return MutateRoute(db, call, false);
                  }});
  table.Add(Route{
      .method = "POST",
      .pattern = "/mutate/if-graph-commit",
      .action = "change",
      .body = BodyKind::kJson,
      .summary = "A mutation that publishes only if the branch head is the commit named by the "
                 "Omnigraph-If-Graph-Commit header (412 otherwise)",
      .body_members = mutate_members,
      .handler = [](const Call& call) {
        const DbPtr& db = call.db;
        return MutateRoute(db, call, true);
      }});
  table.Add(Route{
      .method = "POST",
      .pattern = "/load/ndjson",
      .action = "change",
      .body = BodyKind::kNdjson,
      .summary = "Loads an NDJSON body as one commit",
      .query_params = {Param{"branch", "string", false, "default main"},
                       Param{"from", "string", false, "create branch from this one"},
                       Param{"mode", "string", false, "append, merge (default) or overwrite"}},
      .load_body = true,
      .handler = [](const Call& call) {
        const DbPtr& db = call.db;
        const HttpRequest& r = call.request;
        return LoadRoute(db, call, r.body, r.Query("branch"), r.Query("from"), r.Query("mode"));
      }});
  table.Add(
      Route{.method = "POST",
            .pattern = "/load",
            .action = "change",
            .body = BodyKind::kJson,
            .summary = "Loads NDJSON given as the string 'data' as one commit",
            .body_members = {Member("data", "string", true), Member("branch", "string", false),
                             Member("from", "string", false), Member("mode", "string", false)},
            .load_body = true,
            .handler = [](const Call& call) {
              const DbPtr& db = call.db;
              const Json& b = call.body;
              return LoadRoute(db, call, b["data"].string_value(), StringOr(b, "branch", ""),
                               StringOr(b, "from", ""), StringOr(b, "mode", ""));
            }});
  table.Add(Route{
      .method = "POST",
      .pattern = "/schema/apply",
      .action = "schema_apply",
      .body = BodyKind::kJson,
      .summary = "Plans and applies a schema on main as one commit",
      .body_members = {Member("schema_source", "string", true),
                       Member("allow_data_loss", "boolean", false)},
      .handler = [](const Call& call) {
        const DbPtr& db = call.db;
        const Json& b = call.body;
        const bool loss = b["allow_data_loss"].is_boolean() && b["allow_data_loss"].get<bool>();
        return Reply(As(db, call)->ApplySchema(b["schema_source"].string_value(), loss));
      }});
}

// OmniGraph's BranchListOutput, {branches: [name]}, sorted; the branch objects the API returns
// (heads, fork points) ride along as `branch_details`, which a remote handle reads (decision 142).
Json BranchList(const Json& all) {
  std::vector<std::string> names;
  for (const Json& b : all) names.push_back(b["name"].string_value());
  std::sort(names.begin(), names.end());
  Json out = Json{{"branches", Json::array()}, {"branch_details", all}};
  for (const std::string& n : names) out["branches"].push_back(Json(n));
  return out;
}

void AddBranchRoutes(RouteTable& table) {
  table.Add(Route{.method = "POST",
                  .pattern = "/branches/merge",
                  .action = "branch_merge",
                  .body = BodyKind::kJson,
                  .summary = "Merges a branch into another (default main): BranchMergeOutput",
                  .body_members = {Member("source", "string", true),
                                   Member("target", "string", false, "default main"),
                                   Member("delete_branch", "boolean", false)},
                  .handler = [](const Call& call) {
                    const DbPtr& db = call.db;
                    return MergeRoute(db, call);
                  }});
  table.Add(Route{.method = "GET",
                  .pattern = "/branches",
                  .action = "read",
                  .summary = "Every live branch: {branches: [name], branch_details: [branch]}",
                  .handler = [](const Call& call) {
                    const DbPtr& db = call.db;
                    api::Result<Json> all = db->ListBranches();
                    if (!all.ok()) return ErrorResponse(all.status());
                    return JsonResponse(BranchList(*all));
                  }});
  table.Add(Route{.method = "POST",
                  .pattern = "/branches",
                  .action = "branch_create",
                  .body = BodyKind::kJson,
                  .summary = "Creates a branch from the head of another (default main)",
                  .body_members = {Member("name", "string", true), Member("from", "string", false)},
                  .handler = [](const Call& call) {
                    const DbPtr& db = call.db;
                    const Json& b = call.body;
                    return Reply(As(db, call)->CreateBranch(b["name"].string_value(),
                                                            StringOr(b, "from", "main")),
                                 "head_commit_id");
                  }});
  table.Add(Route{.method = "DELETE",
                  .pattern = "/branches/{branch+}",
                  .action = "branch_delete",
                  .summary = "Deletes a branch: {name, uri, actor_id?}",
                  .handler = [](const Call& call) {
                    const DbPtr& db = call.db;
                    const std::string& name = call.request.path_params.at("branch");
                    return DeleteReply(As(db, call)->DeleteBranch(name), db, call, name);
                  }});
}

}  // namespace

void AddGraphRoutes(RouteTable& table) {
  AddReadRoutes(table);
  AddChangeRoutes(table);
  AddWriteRoutes(table);
  AddBranchRoutes(table);
  AddDeprecatedRoutes(table);
}

}  // namespace omnigraph::server
