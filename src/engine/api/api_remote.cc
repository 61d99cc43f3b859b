// Database::Connect's backend (engine/api/api_remote.h): the public API's calls as requests to an
// omnigraph-server, on the storage layer's libcurl client. Every call maps to one route
// (docs/design/server.md "Routes"); the answer's JSON is returned as it came.
#include "engine/api/api_remote.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>

#include "storage/http/http_client.h"

namespace omnigraph::engine {
namespace {

// OmniGraph's repeatable change filters as query parameters: one parameter per value.
void AppendFilter(std::vector<std::pair<std::string, std::string>>& query,
                  const api::ChangeFilter& filter) {
  for (const std::string& k : filter.kinds) query.emplace_back("kind", k);
  for (const std::string& t : filter.types) query.emplace_back("type", t);
  for (const std::string& o : filter.ops) query.emplace_back("op", o);
}

using api::Code;
using api::InvalidArgument;
using api::Json;
using api::Kind;
using api::Result;
using api::Status;
using storage::http::HttpClient;
using storage::http::HttpClientOptions;
using storage::http::HttpResponse;
using storage::http::Transport;
using storage::http::UriEncode;

using Request = RemoteBackend::Request;

// How much of a body that is not an ErrorOutput a message quotes.
constexpr size_t kQuotedBodyBytesMax = 200;
constexpr const char* kIfCommitHeader = "Omnigraph-If-Graph-Commit";
constexpr const char* kIdempotencyKeyHeader = "Idempotency-Key";
// How much of a load's input a remote handle reads per call of the caller's reader.
constexpr size_t kLoadReadChunkBytes = size_t{1} << 20;

// The public code and kind with these stable names (omnigraph/status_codes.h), if any. "ok" is
// not a failure's code and is not looked up.
std::optional<Code> CodeNamed(std::string_view name) {
  if (name == api::CodeName(Code::kOk)) return std::nullopt;
#define OMNIGRAPH_NAMED_(c, text, kind) \
  if (name == text) return Code::c;
  OMNIGRAPH_STATUS_CODES(OMNIGRAPH_NAMED_)
#undef OMNIGRAPH_NAMED_
  return std::nullopt;
}

std::optional<Kind> KindNamed(std::string_view name) {
  if (name == api::KindName(Kind::kOk)) return std::nullopt;
#define OMNIGRAPH_NAMED_(k, text) \
  if (name == text) return Kind::k;
  OMNIGRAPH_STATUS_KINDS(OMNIGRAPH_NAMED_)
#undef OMNIGRAPH_NAMED_
  return std::nullopt;
}

std::string StringMember(const Json& j, std::string_view name) {
  return j.is_object() && j[name].is_string() ? j[name].string_value() : std::string();
}

// A line or column of an envelope's diagnostic: an integer from 0 to 2^32-1, or nullopt.
std::optional<uint32_t> PositionOf(const Json& n) {
  if (!n.is_number_integer()) return std::nullopt;
  if (n.type() == Json::Type::kInt && n.get<int64_t>() < 0) return std::nullopt;
  const uint64_t v = n.get<uint64_t>();
  if (v > std::numeric_limits<uint32_t>::max()) return std::nullopt;
  return static_cast<uint32_t>(v);
}

// The envelope's `diagnostic {code, line, column, fix?}` (server/errors.cc), or nullopt when it
// has none or it is not that shape.
std::optional<api::DiagnosticDetail> DiagnosticOf(const Json& j) {
  if (!j.is_object() || !j["code"].is_string()) return std::nullopt;
  std::optional<uint32_t> line = PositionOf(j["line"]);
  std::optional<uint32_t> column = PositionOf(j["column"]);
  if (!line || !column) return std::nullopt;
  return api::DiagnosticDetail{j["code"].string_value(), *line, *column, StringMember(j, "fix")};
}

// The code of a refusal the server made itself (no omnigraph_code: auth, routing, limits).
Code CodeOfHttpStatus(long status, bool write) {
  switch (status) {
    case 400:
    case 415:
    case 422: return Code::kInvalidArgument;
    case 401:
    case 403: return Code::kConfiguration;
    case 404: return Code::kNotFound;
    case 405: return Code::kUnsupported;
    case 410: return Code::kVersionsReclaimed;
    case 412: return Code::kPreconditionFailed;
    case 413: return Code::kResourceLimit;
    case 429:
    case 503: return Code::kTransient;
    default:
      if (status >= 500) return write ? Code::kUnknown : Code::kTransient;
      return Code::kInvalidArgument;
  }
}

std::string Describe(const Request& request) {
  std::string path;
  for (const auto& [segment, keep_slash] : request.path) path += "/" + segment;
  return request.method + " " + path;
}

Request Get(std::vector<std::pair<std::string, bool>> path,
            std::vector<std::pair<std::string, std::string>> query = {}) {
  Request r;
  r.method = "GET";
  r.path = std::move(path);
  r.query = std::move(query);
  return r;
}

Request PostJson(std::vector<std::pair<std::string, bool>> path, const Json& body, bool write) {
  Request r;
  r.method = "POST";
  r.path = std::move(path);
  r.content_type = "application/json";
  r.body = body.dump();
  r.write = write;
  return r;
}

// A branch or a snapshot, as the read routes take them: the snapshot when set, else the branch.
void AddReadTarget(const api::ReadTarget& target, Json& body) {
  if (target.snapshot) {
    body["snapshot"] = *target.snapshot;
  } else {
    body["branch"] = target.branch;
  }
}

// A write's Idempotency-Key as the header the server reads (docs/design/idempotency.md), checked
// by the engine's rule first: a key no server would take is refused here, and a header never
// carries a line break.
Status AddIdempotencyKey(const api::WriteTarget& target, Request& r) {
  if (!target.idempotency_key) return Status::Ok();
  Status valid = CheckIdempotencyKey(*target.idempotency_key);
  if (!valid.ok()) return valid;
  r.headers.push_back(std::string(kIdempotencyKeyHeader) + ": " + *target.idempotency_key);
  return Status::Ok();
}

}  // namespace

RemoteBackend::RemoteBackend(std::string url, std::string base, std::string authorization,
                             std::shared_ptr<HttpClient> client)
    : url_(std::move(url)),
      base_(std::move(base)),
      authorization_(std::move(authorization)),
      client_(std::move(client)) {}

Result<std::shared_ptr<Backend>> ConnectRemoteBackend(std::string_view url,
                                                      const api::ConnectOptions& options) {
  const size_t scheme = url.find("://");
  const std::string_view name = scheme == std::string_view::npos ? "" : url.substr(0, scheme);
  if ((name != "http" && name != "https") || url.size() == scheme + 3 || url[scheme + 3] == '/') {
    return InvalidArgument("'" + std::string(url) +
                           "' is not an omnigraph-server URL (expected http://HOST:PORT or "
                           "https://HOST[:PORT][/PREFIX])");
  }
  if (options.bearer_token && options.bearer_token->find_first_of("\r\n") != std::string::npos) {
    return InvalidArgument("the bearer token must be one line");
  }
  std::string base(url);
  while (base.ends_with('/')) base.pop_back();
  if (!options.graph_id.empty()) base += "/graphs/" + UriEncode(options.graph_id, true);
  std::string authorization;
  if (options.bearer_token) authorization = "Authorization: Bearer " + *options.bearer_token;
  HttpClientOptions client;
  client.connect_timeout_ms = options.connect_timeout_ms;
  client.request_timeout_ms = options.request_timeout_ms;
  return std::shared_ptr<Backend>(
      std::make_shared<RemoteBackend>(std::string(url), std::move(base), std::move(authorization),
                                      std::make_shared<HttpClient>(client)));
}

std::shared_ptr<Backend> RemoteBackend::WithActor(std::optional<std::string>) const {
  return std::make_shared<RemoteBackend>(url_, base_, authorization_, client_);
}

HttpResponse RemoteBackend::Send(const Request& request,
                                 std::function<bool(std::string_view)> sink) {
  storage::http::HttpRequest out;
  out.method = request.method;
  out.url = base_;
  for (const auto& [segment, keep_slash] : request.path) {
    out.url += "/" + UriEncode(segment, !keep_slash);
  }
  if (!request.query.empty()) out.url += "?" + storage::http::CanonicalQuery(request.query);
  out.headers = request.headers;
  out.headers.push_back("Accept: application/json, application/x-ndjson");
  if (!authorization_.empty()) out.headers.push_back(authorization_);
  if (!request.content_type.empty()) out.headers.push_back("Content-Type: " + request.content_type);
  out.body = request.body;
  out.body_sink = std::move(sink);
  return client_->Send(out);
}

Status RemoteBackend::Failure(const Request& request, const HttpResponse& response,
                              Json* merge_conflicts) const {
  const std::string what = Describe(request);
  if (response.transport == Transport::kNotSent) {
    return Status(Code::kTransient,
                  "cannot reach omnigraph-server for " + what + ": " + response.error, url_);
  }
  if (response.transport == Transport::kNoAnswer) {
    if (!request.write) {
      return Status(Code::kTransient,
                    "no complete answer from omnigraph-server to " + what + ": " + response.error,
                    url_);
    }
    return Status(
        Code::kUnknown,
        "no complete answer from omnigraph-server to " + what +
            " (the write may or may not have happened; look before retrying): " + response.error,
        url_);
  }
  Result<Json> parsed = api::ParseJson(response.body, "the server's answer");
  const Json envelope = parsed.ok() ? *parsed : Json();
  if (std::optional<Code> code = CodeNamed(StringMember(envelope, "omnigraph_code"))) {
    // A failure of the server's own Database: the same status the embedded call returns.
    if (merge_conflicts != nullptr && envelope["merge_conflicts"].is_array()) {
      *merge_conflicts = envelope["merge_conflicts"];
    }
    const Kind kind = KindNamed(StringMember(envelope, "kind")).value_or(api::KindOf(*code));
    Status status(kind, *code, StringMember(envelope, "error"), StringMember(envelope, "object"));
    if (std::optional<api::DiagnosticDetail> d = DiagnosticOf(envelope["diagnostic"])) {
      return status.WithDiagnostic(std::move(*d));
    }
    return status;
  }
  std::string message = StringMember(envelope, "error");
  if (message.empty()) {
    message = "omnigraph-server answered " + what + " with HTTP " + std::to_string(response.status);
    if (!response.body.empty()) message += ": " + response.body.substr(0, kQuotedBodyBytesMax);
  }
  std::string object = url_;
  if (response.status == 413 && StringMember(envelope["resource_limit"], "resource") != "") {
    object = StringMember(envelope["resource_limit"], "resource");
  }
  return Status(CodeOfHttpStatus(response.status, request.write), std::move(message), object);
}

Result<Json> RemoteBackend::Call(const Request& request, Json* merge_conflicts) {
  HttpResponse response = Send(request, nullptr);
  if (response.transport != Transport::kAnswered || response.status < 200 ||
      response.status >= 300) {
    return Failure(request, response, merge_conflicts);
  }
  Result<Json> parsed = api::ParseJson(response.body, "omnigraph-server's answer");
  if (!parsed.ok()) {
    return Status(Code::kPermanent,
                  "omnigraph-server answered " + Describe(request) +
                      " with a body that is not JSON: " + parsed.status().message(),
                  url_);
  }
  return parsed;
}

Status RemoteBackend::NotServed(std::string_view verb) const {
  return Status(Code::kUnsupported,
                std::string(verb) +
                    " is not served over HTTP: omnigraph-server has no route for it; run it "
                    "against the graph's store URI",
                url_);
}

Result<Json> RemoteBackend::CreateBranch(std::string_view name, std::string_view from) {
  return Call(PostJson({{"branches", false}},
                       Json{{"name", std::string(name)}, {"from", std::string(from)}}, true));
}

Result<Json> RemoteBackend::DeleteBranch(std::string_view name) {
  Request r;
  r.method = "DELETE";
  // The route's last segment takes the rest of the path: a name's '/' stays as it is.
  r.path = {{"branches", false}, {std::string(name), true}};
  r.write = true;
  return Call(r);
}

Result<Json> RemoteBackend::ListBranches() {
  // OmniGraph's {branches} holds names; the branch objects the API returns are the server's
  // `branch_details` (docs/design/openapi.md).
  OMNIGRAPH_ASSIGN_OR_RETURN(Json out, Call(Get({{"branches", false}})));
  if (!out["branch_details"].is_array()) {
    return Status(Code::kPermanent,
                  "omnigraph-server answered GET /branches without 'branch_details': a server "
                  "older than this client",
                  url_);
  }
  return out["branch_details"];
}

Result<Json> RemoteBackend::Merge(std::string_view source, const api::MergeOptions& options,
                                  Json* conflicts) {
  Json body = Json{{"source", std::string(source)},
                   {"target", options.target},
                   {"delete_branch", options.delete_branch}};
  return Call(PostJson({{"branches", false}, {"merge", false}}, body, true), conflicts);
}

Result<Json> RemoteBackend::PreviewMerge(std::string_view source, std::string_view target) {
  return Call(Get({{"branches", false}, {"merge", false}, {"preview", false}},
                  {{"source", std::string(source)}, {"target", std::string(target)}}));
}

Result<Json> RemoteBackend::Diff(const api::DiffRequest& request) {
  std::vector<std::pair<std::string, std::string>> query;
  for (const auto& [side, target] :
       {std::pair{std::string("from"), &request.from}, {std::string("to"), &request.to}}) {
    if (target->snapshot) {
      query.emplace_back(side + "_snapshot", *target->snapshot);
    } else {
      query.emplace_back(side, target->branch);
    }
  }
  query.emplace_back("limit", std::to_string(request.limit));
  if (!request.page_token.empty()) query.emplace_back("page_token", request.page_token);
  AppendFilter(query, request.filter);
  return Call(Get({{"diff", false}}, std::move(query)));
}

Result<Json> RemoteBackend::CommitHistory(std::string_view branch, size_t limit,
                                          std::string_view page_token, std::string_view actor) {
  std::vector<std::pair<std::string, std::string>> query = {{"branch", std::string(branch)},
                                                            {"limit", std::to_string(limit)}};
  if (!page_token.empty()) query.emplace_back("page_token", std::string(page_token));
  if (!actor.empty()) query.emplace_back("actor", std::string(actor));
  return Call(Get({{"commits", false}}, std::move(query)));
}

Result<Json> RemoteBackend::ShowCommit(std::string_view commit_id) {
  return Call(Get({{"commits", false}, {std::string(commit_id), false}}));
}

Result<Json> RemoteBackend::CommitChanges(std::string_view commit_id,
                                          const api::CommitChangesRequest& request) {
  std::vector<std::pair<std::string, std::string>> query = {
      {"limit", std::to_string(request.limit)}};
  if (!request.page_token.empty()) query.emplace_back("page_token", request.page_token);
  AppendFilter(query, request.filter);
  return Call(Get({{"commits", false}, {std::string(commit_id), false}, {"changes", false}},
                  std::move(query)));
}

Result<Json> RemoteBackend::Snapshot(const api::ReadTarget& target) {
  if (target.snapshot) return Call(Get({{"snapshot", false}}, {{"snapshot", *target.snapshot}}));
  return Call(Get({{"snapshot", false}}, {{"branch", target.branch}}));
}

Result<Json> RemoteBackend::Load(std::string_view ndjson, std::string_view mode,
                                 const api::WriteTarget& target) {
  if (target.if_commit) {
    return InvalidArgument("load does not take an expected commit; use a branch and merge");
  }
  Request r;
  r.method = "POST";
  r.path = {{"load", false}, {"ndjson", false}};
  r.query = {{"branch", target.branch}, {"mode", std::string(mode)}};
  if (target.from) r.query.emplace_back("from", *target.from);
  r.content_type = "application/x-ndjson";
  r.body = std::string(ndjson);
  r.write = true;
  if (Status keyed = AddIdempotencyKey(target, r); !keyed.ok()) return keyed;
  return Call(r);
}

Result<Json> RemoteBackend::LoadFile(const std::string& path, std::string_view mode,
                                     const api::WriteTarget& target) {
  // A server takes the input as one request body: read it whole (the server bounds its size).
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return InvalidArgument("cannot read '" + path + "': it is a directory, not a file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return InvalidArgument("cannot read '" + path + "': " + std::strerror(errno));
  std::stringstream text;
  text << in.rdbuf();
  return Load(text.str(), mode, target);
}

Result<Json> RemoteBackend::LoadStream(const api::LoadReader& read, std::string_view mode,
                                       const api::WriteTarget& target) {
  // A server takes the input as one request body: read it whole (the server bounds its size).
  std::string text;
  std::string chunk(kLoadReadChunkBytes, '\0');
  while (true) {
    Result<size_t> got = read(chunk.data(), chunk.size());
    if (!got.ok()) return got.status();
    if (*got == 0) break;
    text.append(chunk.data(), std::min(*got, chunk.size()));
  }
  return Load(text, mode, target);
}

Status RemoteBackend::Stream(const Request& request, const ApiSink& sink) {
  // The caller gets whole lines, as from an embedded export: a line split across HTTP chunks
  // waits in `partial` for its end.
  std::string partial;
  Status refused;
  HttpResponse response = Send(request, [&](std::string_view chunk) {
    partial.append(chunk);
    const size_t end = partial.rfind('\n');
    if (end == std::string::npos) return true;
    refused = sink(std::string_view(partial).substr(0, end + 1));
    partial.erase(0, end + 1);
    return refused.ok();
  });
  if (!refused.ok()) return refused;
  if (response.transport != Transport::kAnswered || response.status < 200 ||
      response.status >= 300) {
    return Failure(request, response, nullptr);
  }
  return partial.empty() ? Status::Ok() : sink(partial);
}

Status RemoteBackend::Export(const api::ReadTarget& target, const std::vector<std::string>& types,
                             const ApiSink& sink) {
  Json body = Json::object();
  AddReadTarget(target, body);
  if (!types.empty()) {
    Json names = Json::array();
    for (const std::string& t : types) names.push_back(Json(t));
    body["type_names"] = std::move(names);
  }
  return Stream(PostJson({{"export", false}}, body, false), sink);
}

Result<Json> RemoteBackend::PollChanges(const api::ChangePoll& poll) {
  std::vector<std::pair<std::string, std::string>> query = {{"branch", poll.branch},
                                                            {"limit", std::to_string(poll.limit)}};
  // The server takes a cursor or a start, never both (the cursor says where it is).
  if (!poll.cursor.empty()) {
    query.emplace_back("cursor", poll.cursor);
  } else {
    query.emplace_back("start", poll.start);
  }
  AppendFilter(query, poll.filter);
  return Call(Get({{"changes", false}}, std::move(query)));
}

Status RemoteBackend::ChangesBaseline(std::string_view branch, const api::ChangeFilter& filter,
                                      const ApiSink& sink) {
  Json body = Json{{"branch", std::string(branch)}};
  auto list = [&body](const char* name, const std::vector<std::string>& values) {
    if (values.empty()) return;
    Json out = Json::array();
    for (const std::string& v : values) out.push_back(Json(v));
    body[name] = std::move(out);
  };
  list("kind", filter.kinds);
  list("type", filter.types);
  list("op", filter.ops);
  return Stream(PostJson({{"changes", false}, {"baseline", false}}, body, false), sink);
}

namespace {

// GET or HEAD /blob for `cell` at `target`.
RemoteBackend::Request BlobRequest(std::string method, const api::BlobSelector& cell,
                                   const api::ReadTarget& target) {
  RemoteBackend::Request r = Get(
      {{"blob", false}},
      {{"entity", cell.entity}, {"type", cell.type}, {"id", cell.id}, {"property", cell.property}});
  r.method = std::move(method);
  if (target.snapshot) {
    r.query.emplace_back("snapshot", *target.snapshot);
  } else {
    r.query.emplace_back("branch", target.branch);
  }
  return r;
}

// A decimal header value, or nullopt.
std::optional<uint64_t> DecimalHeader(const HttpResponse& response, std::string_view name) {
  const std::string text = response.Header(name);
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// The stat a blob answer's headers carry: {kind, size, etag, resolved_snapshot} for a managed
// Blob, {kind, uri, resolved_snapshot} for an external one. `size` is the full length: from
// Content-Range's "/N" for a 206, else Content-Length.
Result<Json> BlobStatOf(const HttpResponse& response, const std::string& url) {
  Json out = Json::object();
  if (response.status == 302) {
    out["kind"] = "external";
    out["uri"] = response.Header("location");
  } else {
    std::optional<uint64_t> size = DecimalHeader(response, "content-length");
    const std::string range = response.Header("content-range");
    if (response.status == 206) {
      const size_t slash = range.rfind('/');
      uint64_t n = 0;
      const char* first = range.data() + slash + 1;
      const char* last = range.data() + range.size();
      auto [end, ec] = std::from_chars(first, last, n);
      size = slash != std::string::npos && ec == std::errc() && end == last
                 ? std::optional<uint64_t>(n)
                 : std::nullopt;
    }
    if (!size || response.Header("etag").empty()) {
      return Status(Code::kPermanent,
                    "omnigraph-server's blob answer lacks its Content-Length, Content-Range or "
                    "ETag",
                    url);
    }
    out["kind"] = "managed";
    out["size"] = *size;
    out["etag"] = response.Header("etag");
  }
  out["resolved_snapshot"] = response.Header("omnigraph-snapshot-id");
  return out;
}

}  // namespace

Result<Json> RemoteBackend::StatBlob(const api::BlobSelector& cell, const api::ReadTarget& target) {
  const Request request = BlobRequest("HEAD", cell, target);
  HttpResponse response = Send(request, nullptr);
  if (response.transport != Transport::kAnswered ||
      (response.status != 200 && response.status != 302)) {
    return Failure(request, response, nullptr);
  }
  return BlobStatOf(response, url_);
}

Result<Json> RemoteBackend::ReadBlob(const api::BlobSelector& cell, const api::ReadTarget& target,
                                     std::optional<api::BlobRange> range, const ApiSink& sink) {
  if (range && range->end <= range->start) {
    return Status(Code::kInvalidArgument, "a Blob byte range must hold at least one byte");
  }
  Request request = BlobRequest("GET", cell, target);
  if (range) {
    // An end of UINT64_MAX is "to the end" (bytes=N-).
    request.headers.push_back(
        "Range: bytes=" + std::to_string(range->start) + "-" +
        (range->end == UINT64_MAX ? std::string() : std::to_string(range->end - 1)));
  }
  Status refused;
  uint64_t delivered = 0;
  HttpResponse response = Send(request, [&](std::string_view chunk) {
    delivered += chunk.size();
    refused = sink(chunk);
    return refused.ok();
  });
  if (!refused.ok()) return refused;
  if (response.transport == Transport::kAnswered && response.status == 302) {
    return Status(Code::kUnsupported,
                  "external Blob is not downloaded; URI: " + response.Header("location") +
                      "; use `blob stat --json` to inspect the descriptor");
  }
  if (response.transport != Transport::kAnswered ||
      (response.status != 200 && response.status != 206)) {
    return Failure(request, response, nullptr);
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(Json out, BlobStatOf(response, url_));
  uint64_t start = 0;
  if (response.status == 206) {
    const std::string text = response.Header("content-range");  // "bytes S-E/N"
    const size_t space = text.find(' ');
    std::from_chars(text.data() + space + 1, text.data() + text.size(), start);
  }
  out["start"] = start;
  out["end"] = start + delivered;
  return out;
}

Result<std::string> RemoteBackend::ResolveCommit(const api::ReadTarget& target) {
  if (target.snapshot) {
    OMNIGRAPH_ASSIGN_OR_RETURN(Json commit, ShowCommit(*target.snapshot));
    return commit["graph_commit_id"].string_value();
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(Json page, CommitHistory(target.branch, 1, "", ""));
  if (page["commits"].empty()) {
    return Status(Code::kPermanent, "omnigraph-server listed no commit on '" + target.branch + "'",
                  url_);
  }
  return page["commits"][0]["graph_commit_id"].string_value();
}

Result<Json> RemoteBackend::Mutate(std::string_view source, std::string_view name,
                                   const Json& params, const api::WriteTarget& target) {
  if (target.from) return InvalidArgument("mutate does not create branches; create it first");
  if (!params.is_object()) return InvalidArgument("parameters must be a JSON object");
  Json body = Json{{"query", std::string(source)}, {"params", params}, {"branch", target.branch}};
  if (!name.empty()) body["name"] = std::string(name);
  Request r = PostJson({{"mutate", false}}, body, true);
  if (Status keyed = AddIdempotencyKey(target, r); !keyed.ok()) return keyed;
  if (target.if_commit) {
    r.path.emplace_back("if-graph-commit", false);
    r.headers.push_back(std::string(kIfCommitHeader) + ": " + *target.if_commit);
  }
  return Call(r);
}

Result<Json> RemoteBackend::Query(std::string_view source, std::string_view name,
                                  const Json& params, const api::ReadTarget& target) {
  if (!params.is_object()) return InvalidArgument("parameters must be a JSON object");
  Json body = Json{{"query", std::string(source)}, {"params", params}};
  if (!name.empty()) body["name"] = std::string(name);
  AddReadTarget(target, body);
  return Call(PostJson({{"query", false}}, body, false));
}

Result<Json> RemoteBackend::StoredQueries() { return Call(Get({{"queries", false}}, {})); }

Result<Json> RemoteBackend::InvokeStoredQuery(std::string_view name, const Json& params,
                                              const api::ReadTarget& target) {
  if (!params.is_object()) return InvalidArgument("parameters must be a JSON object");
  Json body = Json{{"params", params}};
  AddReadTarget(target, body);
  // A stored mutation writes: an unanswered call is Unknown, not Transient.
  return Call(PostJson({{"queries", false}, {std::string(name), false}}, body, true));
}

Result<Json> RemoteBackend::ApplySchema(std::string_view schema_source, bool allow_data_loss) {
  Json body =
      Json{{"schema_source", std::string(schema_source)}, {"allow_data_loss", allow_data_loss}};
  return Call(PostJson({{"schema", false}, {"apply", false}}, body, true));
}

Result<Json> RemoteBackend::ShowSchema(const api::ReadTarget& target) {
  Request r = target.snapshot ? Get({{"schema", false}}, {{"snapshot", *target.snapshot}})
                              : Get({{"schema", false}}, {{"branch", target.branch}});
  // The route says `schema_source` (OmniGraph's SchemaOutput); the API's JSON says `source`.
  OMNIGRAPH_ASSIGN_OR_RETURN(Json shown, Call(r));
  Json out = Json::object();
  for (const auto& [name, value] : shown.members()) {
    out[name == "schema_source" ? std::string("source") : name] = value;
  }
  return out;
}

Result<Json> RemoteBackend::PlanSchema(std::string_view, bool) { return NotServed("schema plan"); }

Result<Json> RemoteBackend::Cleanup(const api::CleanupRequest&) { return NotServed("cleanup"); }

Result<Json> RemoteBackend::Optimize(std::string_view) { return NotServed("optimize"); }

Result<Json> RemoteBackend::Repair(bool) { return NotServed("repair"); }

Result<Json> RemoteBackend::Lint(std::string_view, std::string_view) { return NotServed("lint"); }

}  // namespace omnigraph::engine
