// GET and HEAD /blob: one logical node or edge Blob cell, as OmniGraph's server.md "Blob
// delivery" and openapi.json (cluster_getBlob, cluster_headBlob) define them; docs/design/blob.md.
//
// A request is answered in two steps. The cell is located first (Database::StatBlob, gated as a
// read of its type on the branch asked), which gives its length, ETag and the commit read; the
// preconditions (If-Match, If-None-Match), the Range and If-Range are decided on that, so every
// refusal — 404, 412, 304, 416 — goes out before any payload byte is read. A GET then streams
// the bytes (Database::ReadBlob at that commit, a piece of at most 4 MiB at a time) with their
// exact Content-Length; a read that fails after the head was sent closes the connection short
// of it. HEAD reads no payload.
#include <charconv>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/errors.h"
#include "server/registry.h"
#include "server/service.h"

namespace omnigraph::server {
namespace {

using api::Json;

constexpr const char* kSnapshotHeader = "Omnigraph-Snapshot-Id";

// The entity tags of an If-Match / If-None-Match list, trimmed ("*" is one of them).
std::vector<std::string> TagList(std::string_view header) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at <= header.size()) {
    size_t comma = header.find(',', at);
    if (comma == std::string_view::npos) comma = header.size();
    std::string_view tag = header.substr(at, comma - at);
    while (!tag.empty() && (tag.front() == ' ' || tag.front() == '\t')) tag.remove_prefix(1);
    while (!tag.empty() && (tag.back() == ' ' || tag.back() == '\t')) tag.remove_suffix(1);
    if (!tag.empty()) out.emplace_back(tag);
    at = comma + 1;
  }
  return out;
}

// RFC 9110 13.1.1 (strong) and 13.1.2 (weak) comparison of `header`'s list with `etag`.
bool TagListMatches(std::string_view header, const std::string& etag, bool weak) {
  for (std::string tag : TagList(header)) {
    if (tag == "*") return true;
    if (tag.starts_with("W/")) {
      if (!weak) continue;
      tag.erase(0, 2);
    }
    if (tag == etag) return true;
  }
  return false;
}

// One `bytes` range of a Range header, as written: "a-b", "a-" or "-n".
struct RangeSpec {
  std::optional<uint64_t> first;
  std::optional<uint64_t> last;  // For "a-b"; for "-n", the suffix length n.
};

std::optional<uint64_t> Decimal(std::string_view text) {
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// The header's one range; nullopt for a malformed header, another unit or several ranges, which
// are ignored (the whole Blob is served), as the reference's V1 does.
std::optional<RangeSpec> ParseRange(std::string_view header) {
  constexpr std::string_view kUnit = "bytes=";
  if (!header.starts_with(kUnit)) return std::nullopt;
  std::string_view spec = header.substr(kUnit.size());
  if (spec.find(',') != std::string_view::npos) return std::nullopt;
  const size_t dash = spec.find('-');
  if (dash == std::string_view::npos) return std::nullopt;
  RangeSpec out;
  std::string_view a = spec.substr(0, dash), b = spec.substr(dash + 1);
  if (a.empty()) {
    out.last = Decimal(b);  // A suffix.
    return out.last ? std::optional(out) : std::nullopt;
  }
  out.first = Decimal(a);
  if (!out.first) return std::nullopt;
  if (!b.empty()) {
    out.last = Decimal(b);
    if (!out.last || *out.last < *out.first) return std::nullopt;
  }
  return out;
}

// The half-open range `spec` selects of `size` bytes, and whether it is satisfiable.
struct Selected {
  uint64_t start = 0;
  uint64_t end = 0;
  bool satisfiable = false;
};

Selected Select(const RangeSpec& spec, uint64_t size) {
  Selected out;
  if (!spec.first) {  // "-n": the last n bytes.
    const uint64_t n = std::min(*spec.last, size);
    out = Selected{size - n, size, n > 0};
    return out;
  }
  out.start = *spec.first;
  out.end = spec.last ? *spec.last + 1 : std::max(out.start, size);
  out.satisfiable = out.start < size;
  if (out.satisfiable) out.end = std::min(out.end, size);
  return out;
}

// The representation headers every managed answer carries.
void AddManagedHeaders(HttpResponse& out, const Json& stat) {
  out.headers.emplace_back("Accept-Ranges", "bytes");
  out.headers.emplace_back("ETag", stat["etag"].string_value());
  out.headers.emplace_back(kSnapshotHeader, stat["resolved_snapshot"].string_value());
}

// An external reference (GET and HEAD alike): 302 to the exact stored URI, never opened,
// proxied or probed; no ETag or length, since the graph does not own the target's bytes
// (docs/design/blob.md "External Blob references").
HttpResponse Redirect(const Json& stat) {
  HttpResponse out;
  out.status = 302;
  out.content_type.clear();
  out.headers.emplace_back("Location", stat["uri"].string_value());
  out.headers.emplace_back("Cache-Control", "no-store");
  out.headers.emplace_back(kSnapshotHeader, stat["resolved_snapshot"].string_value());
  out.content_length = 0;
  return out;
}

// 416 with Content-Range "bytes */N" and ErrorOutput.blob_range.
HttpResponse Unsatisfiable(const Json& stat, const Selected& range) {
  const uint64_t size = stat["size"].get<uint64_t>();
  HttpResponse out = ErrorResponse(api::Status(
      api::Code::kInvalidArgument, "the byte range starting at " + std::to_string(range.start) +
                                       " is not satisfiable: the Blob is " + std::to_string(size) +
                                       " bytes"));
  api::Result<Json> body = api::ParseJson(out.body, "the error envelope");
  if (body.ok()) {
    (*body)["blob_range"] = Json{{"start", range.start}, {"end", range.end}, {"length", size}};
    out.body = body->dump();
  }
  out.status = 416;
  AddManagedHeaders(out, stat);
  out.headers.emplace_back("Content-Range", "bytes */" + std::to_string(size));
  return out;
}

// The selector and target of the request; a 400 for a missing member or both targets.
std::optional<HttpResponse> ParseCell(const HttpRequest& request, api::BlobSelector& cell,
                                      api::ReadTarget& target) {
  for (const char* name : {"entity", "type", "id", "property"}) {
    if (request.query.count(name) == 0) {
      return ErrorResponse(400, std::string("query parameter '") + name + "' is required");
    }
  }
  cell = api::BlobSelector{request.Query("entity"), request.Query("type"), request.Query("id"),
                           request.Query("property")};
  if (request.query.count("branch") && request.query.count("snapshot")) {
    return ErrorResponse(400, "a Blob read names a branch or a snapshot, not both");
  }
  if (request.query.count("branch")) target.branch = request.Query("branch");
  if (request.query.count("snapshot")) target.snapshot = request.Query("snapshot");
  return std::nullopt;
}

// The handle the payload is read through, at the commit the stat resolved: with a policy, the
// read was decided on the branch asked (StatBlob), and the pinned read names no branch, so it
// runs ungated as the caller (as an export's pinned read does, docs/design/policy.md "Server").
std::shared_ptr<api::Database> PayloadReader(const Call& call) {
  if (call.graph != nullptr && call.graph->policy) {
    return call.graph->ungated->WithActor(call.actor);
  }
  return call.db;
}

HttpResponse BlobRoute(const Call& call) {
  const HttpRequest& request = call.request;
  api::BlobSelector cell;
  api::ReadTarget target;
  if (std::optional<HttpResponse> bad = ParseCell(request, cell, target)) return std::move(*bad);
  api::Result<Json> stat = call.db->StatBlob(cell, target);
  if (!stat.ok()) return ErrorResponse(stat.status());
  if ((*stat)["kind"].string_value() == "external") return Redirect(*stat);
  const std::string etag = (*stat)["etag"].string_value();
  const uint64_t size = (*stat)["size"].get<uint64_t>();
  HttpResponse out;
  out.content_type = "application/octet-stream";
  AddManagedHeaders(out, *stat);
  const std::string if_match = request.Header("if-match");
  if (!if_match.empty() && !TagListMatches(if_match, etag, false)) {
    HttpResponse refused =
        JsonResponse(Json{{"error", "If-Match does not match the Blob's current ETag " + etag},
                          {"code", "conflict"}},
                     412);
    AddManagedHeaders(refused, *stat);
    return refused;
  }
  const std::string if_none_match = request.Header("if-none-match");
  if (!if_none_match.empty() && TagListMatches(if_none_match, etag, true)) {
    out.status = 304;
    out.content_length = size;
    return out;
  }
  if (request.head) {
    out.content_length = size;
    return out;
  }
  Selected range{0, size, true};
  std::optional<RangeSpec> spec = ParseRange(request.Header("range"));
  const std::string if_range = request.Header("if-range");
  if (spec && !if_range.empty() && if_range != etag) spec.reset();  // Strong, one tag.
  if (spec) {
    range = Select(*spec, size);
    if (!range.satisfiable) return Unsatisfiable(*stat, range);
    out.status = 206;
    out.headers.emplace_back("Content-Range", "bytes " + std::to_string(range.start) + "-" +
                                                  std::to_string(range.end - 1) + "/" +
                                                  std::to_string(size));
  }
  out.content_length = range.end - range.start;
  if (range.start == range.end) return out;  // An empty Blob: no bytes to stream.
  api::ReadTarget pinned;
  pinned.snapshot = (*stat)["resolved_snapshot"].string_value();
  std::optional<api::BlobRange> bytes;
  if (spec) bytes = api::BlobRange{range.start, range.end};
  out.stream = [reader = PayloadReader(call), cell, pinned, bytes](const ChunkWriter& write) {
    api::Result<Json> done = reader->ReadBlob(cell, pinned, bytes, [&write](std::string_view c) {
      if (write(c)) return api::Status::Ok();
      return api::Status(api::Code::kCancelled, "the client went away");
    });
    return done.ok();
  };
  return out;
}

}  // namespace

void AddBlobRoutes(RouteTable& table) {
  const std::vector<Param> params = {
      Param{"entity", "string", true, "node or edge"},
      Param{"type", "string", true, "a node or edge type"},
      Param{"id", "string", true, "the entity's id"},
      Param{"property", "string", true, "a Blob property of the type"},
      Param{"branch", "string", false, "default main; not with snapshot"},
      Param{"snapshot", "string", false, "a commit id; not with branch"}};
  // HEAD first: the router gives a HEAD request the path's HEAD route (server/routes.h).
  for (const char* method : {"HEAD", "GET"}) {
    const bool head = std::string_view(method) == "HEAD";
    table.Add(Route{.method = method,
                    .pattern = "/blob",
                    .action = "read",
                    .summary = head ? "The headers of one node or edge Blob cell, no payload read"
                                    : "One node or edge Blob cell's bytes (Range, ETag, "
                                      "If-None-Match, If-Range, If-Match)",
                    .query_params = params,
                    .response_type = "application/octet-stream",
                    .handler = [](const Call& call) { return BlobRoute(call); }});
  }
}

}  // namespace omnigraph::server
