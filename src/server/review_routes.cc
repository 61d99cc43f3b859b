// The review routes (docs/design/diff.md, docs/design/server.md "Routes"): the diff of two read
// views, GET /diff, and a merge's preview, GET /branches/merge/preview. Both are reads — they
// publish nothing — so both need the `read` action, of both views or both branches (a graph with
// a policy bundle asks it through the engine's gate, for the caller's actor).
#include <charconv>
#include <memory>

#include "server/errors.h"
#include "server/service.h"

namespace omnigraph::server {
namespace {

using api::Json;

// One side of a diff from the query: `side` (a branch) or `side`_snapshot (a commit id), not
// both; main when neither is given. The message of a 400 when both are.
std::optional<std::string> SideOf(const HttpRequest& r, const std::string& side,
                                  api::ReadTarget& target) {
  const std::string branch = r.Query(side);
  const std::string snapshot = r.Query(side + "_snapshot");
  if (!branch.empty() && !snapshot.empty()) {
    return "'" + side + "' names a branch and '" + side + "_snapshot' a commit: give one";
  }
  if (!branch.empty()) target.branch = branch;
  if (!snapshot.empty()) target.snapshot = snapshot;
  return std::nullopt;
}

// GET /diff: one page of the entity changes from one read view to another.
HttpResponse DiffRoute(const Call& call) {
  const HttpRequest& r = call.request;
  api::DiffRequest request;
  for (const auto& [side, target] :
       {std::pair{std::string("from"), &request.from}, {std::string("to"), &request.to}}) {
    if (std::optional<std::string> bad = SideOf(r, side, *target)) return ErrorResponse(400, *bad);
  }
  if (r.Query("to").empty() && r.Query("to_snapshot").empty()) {
    return ErrorResponse(400, "a diff needs 'to' (a branch) or 'to_snapshot' (a commit id)");
  }
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
  api::Result<Json> out = call.db->Diff(request);
  if (!out.ok()) return ErrorResponse(out.status());
  HttpResponse response = JsonResponse(*out);
  response.headers.emplace_back(kCommitHeader, (*out)["to"]["graph_commit_id"].string_value());
  return response;
}

// GET /branches/merge/preview: what merging `source` into `target` would do now.
HttpResponse PreviewRoute(const Call& call) {
  const HttpRequest& r = call.request;
  const std::string source = r.Query("source");
  if (source.empty()) return ErrorResponse(400, "a merge preview needs 'source' (a branch)");
  const std::string target = r.Query("target").empty() ? "main" : r.Query("target");
  api::Result<Json> out = call.db->PreviewMerge(source, target);
  if (!out.ok()) return ErrorResponse(out.status());
  HttpResponse response = JsonResponse(*out);
  response.headers.emplace_back(kCommitHeader, (*out)["target_commit_id"].string_value());
  return response;
}

}  // namespace

void AddReviewRoutes(RouteTable& table) {
  table.Add(Route{
      .method = "GET",
      .pattern = "/diff",
      .action = "read",
      .summary = "The entity changes from one branch head or commit to another, one page: "
                 "{from, to, types, changes, next_page_token?}",
      .query_params = {Param{"from", "string", false, "a branch (default main)"},
                       Param{"from_snapshot", "string", false, "a commit id instead of 'from'"},
                       Param{"to", "string", false, "a branch"},
                       Param{"to_snapshot", "string", false, "a commit id instead of 'to'"},
                       Param{"page_token", "string", false, "a next_page_token"},
                       Param{"limit", "integer", false, "1..10000, default 1000"},
                       Param{"kind", "string", false, "node or edge"},
                       Param{"type", "string", false, "a type name"},
                       Param{"op", "string", false, "insert, update or delete"}},
      .handler = [](const Call& call) { return DiffRoute(call); }});
  table.Add(Route{
      .method = "GET",
      .pattern = "/branches/merge/preview",
      .action = "read",
      .summary = "What merging a branch would do now, publishing nothing: the outcome, the base, "
                 "how far each side is ahead, and every conflict",
      .query_params = {Param{"source", "string", true, "the branch to merge"},
                       Param{"target", "string", false, "default main"}},
      .handler = [](const Call& call) { return PreviewRoute(call); }});
}

}  // namespace omnigraph::server
