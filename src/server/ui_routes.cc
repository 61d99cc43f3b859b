// The review page (docs/design/review-page.md): GET /ui/ and its files, compiled into the binary
// (server/ui_assets.h), served without a token — they hold no data; every datum the page shows
// comes from the API routes under the viewer's own token — and GET /access, which tells the page
// which actions the caller's token may take on a branch, so that it shows a merge or delete
// button only where the server would let it act. The buttons' requests are gated as any other;
// /access only saves a viewer a refusal.
#include "server/auth.h"
#include "server/errors.h"
#include "server/registry.h"
#include "server/service.h"
#include "server/ui_assets.h"

namespace omnigraph::server {
namespace {

using api::Json;

std::string ContentTypeOf(std::string_view path) {
  if (path.ends_with(".html")) return "text/html; charset=utf-8";
  if (path.ends_with(".js")) return "text/javascript; charset=utf-8";
  if (path.ends_with(".css")) return "text/css; charset=utf-8";
  return "application/octet-stream";
}

HttpResponse AssetResponse(std::string_view path) {
  for (const ui::Asset& a : ui::Assets()) {
    if (a.path != path) continue;
    HttpResponse out;
    out.content_type = ContentTypeOf(path);
    out.body = std::string(a.bytes);
    // The page runs its own modules and talks to this server only.
    out.headers.emplace_back("Content-Security-Policy",
                             "default-src 'self'; img-src 'self' data:; object-src 'none'; "
                             "base-uri 'none'; frame-ancestors 'none'");
    out.headers.emplace_back("X-Content-Type-Options", "nosniff");
    out.headers.emplace_back("Cache-Control", "no-cache");
    return out;
  }
  return ErrorResponse(404, "the review page has no file '" + std::string(path) + "'");
}

// Whether the caller may take `action` (with `branch` / `target`) on the call's graph: the
// graph's bundle when it has one, else the server's grants (as Service::Authorize decides).
bool Allowed(const Call& call, const std::string& action, std::optional<std::string> branch,
             std::optional<std::string> target) {
  if (call.auth == nullptr || call.auth->unauthenticated()) return true;
  if (!call.actor) return false;
  if (call.graph != nullptr && call.graph->policy) {
    const api::PolicyRequest request{call.actor,        action,         std::move(branch),
                                     std::move(target), call.graph->id, std::nullopt,
                                     std::nullopt};
    return call.graph->policy->Decide(request).allowed;
  }
  return call.auth->Allowed(*call.actor, action);
}

// GET /access?branch=B&target=T: {actor, branch, target, allowed: {branch_merge, branch_delete,
// branch_create, change}} for the caller (branch_merge is of B into T).
HttpResponse AccessRoute(const Call& call) {
  const std::string branch = call.request.Query("branch");
  const std::string target =
      call.request.Query("target").empty() ? "main" : call.request.Query("target");
  Json allowed = Json::object();
  const bool named = !branch.empty();
  allowed["branch_merge"] = named && Allowed(call, "branch_merge", branch, target);
  allowed["branch_delete"] =
      named && branch != "main" && Allowed(call, "branch_delete", std::nullopt, branch);
  allowed["branch_create"] = Allowed(call, "branch_create", target, std::nullopt);
  allowed["change"] = Allowed(call, "change", named ? branch : target, std::nullopt);
  Json out = Json::object();
  out["actor"] = call.actor ? Json(*call.actor) : Json(nullptr);
  out["branch"] = branch;
  out["target"] = target;
  out["allowed"] = std::move(allowed);
  return JsonResponse(out);
}

}  // namespace

void AddUiRoutes(RouteTable& table) {
  table.Add(Route{.method = "GET",
                  .pattern = "/ui",
                  .graph_route = false,
                  .summary = "The review page (HTML; its data comes from the API routes)",
                  .response_type = "text/html",
                  .handler = [](const Call&) { return AssetResponse("index.html"); }});
  table.Add(Route{.method = "GET",
                  .pattern = "/ui/{name+}",
                  .graph_route = false,
                  .summary = "A file of the review page (JavaScript modules, CSS)",
                  .response_type = "text/javascript",
                  .handler = [](const Call& call) {
                    return AssetResponse(call.request.path_params.at("name"));
                  }});
  table.Add(
      Route{.method = "GET",
            .pattern = "/access",
            .action = "read",
            .summary = "Which branch actions the caller may take: {actor, branch, target, allowed}",
            .query_params = {Param{"branch", "string", false, "the branch a merge or delete is of"},
                             Param{"target", "string", false, "the merge's target (default main)"}},
            .handler = [](const Call& call) { return AccessRoute(call); }});
}

}  // namespace omnigraph::server
