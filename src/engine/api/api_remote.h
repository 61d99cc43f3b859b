// The remote backend of api::Database (engine/api/api_backend.h; Database::Connect;
// docs/design/api.md "Remote handles"): each call is one request to an omnigraph-server's routes
// (docs/design/server.md), and its answer is the JSON the server's own Database returned, so a
// front end prints the same output for a served graph as for one it opens itself. Errors come back
// as the Status the server's handle returned (the ErrorOutput's omnigraph_code, kind, error and
// object), the server's own refusals and transport failures as the nearest public code.
//
// Speaks only the public types (omnigraph/omnigraph.h) and the storage layer's HTTP client.
// Thread-safe: the client pools its connections; the handle holds nothing else that changes.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/api/api_backend.h"

namespace omnigraph::storage::http {
class HttpClient;
struct HttpResponse;
}  // namespace omnigraph::storage::http

namespace omnigraph::engine {

// Connects to the omnigraph-server at `url`: InvalidArgument unless it is http:// or https://
// with a host. Makes no request.
api::Result<std::shared_ptr<Backend>> ConnectRemoteBackend(std::string_view url,
                                                           const api::ConnectOptions& options);

class RemoteBackend final : public Backend {
 public:
  // The URL the backend was connected to, as given.
  const std::string& uri() const override { return url_; }
  // The server makes the store calls: none here.
  api::StoreCallCounts StoreCalls() const override { return {}; }
  // The same connection: the server publishes as the bearer token's actor, whatever the caller
  // names (docs/design/api.md "Remote handles").
  std::shared_ptr<Backend> WithActor(std::optional<std::string> actor) const override;
  // A remote handle never inits a graph.
  api::Json InitReport() const override { return api::Json::object(); }

  api::Result<api::Json> CreateBranch(std::string_view name, std::string_view from) override;
  api::Result<api::Json> DeleteBranch(std::string_view name) override;
  api::Result<api::Json> ListBranches() override;
  api::Result<api::Json> Merge(std::string_view source, const api::MergeOptions& options,
                               api::Json* conflicts) override;
  api::Result<api::Json> PreviewMerge(std::string_view source, std::string_view target) override;
  api::Result<api::Json> Diff(const api::DiffRequest& request) override;
  api::Result<api::Json> CommitHistory(std::string_view branch, size_t limit,
                                       std::string_view page_token,
                                       std::string_view actor) override;
  api::Result<api::Json> ShowCommit(std::string_view commit_id) override;
  api::Result<api::Json> CommitChanges(std::string_view commit_id,
                                       const api::CommitChangesRequest& request) override;
  api::Result<api::Json> Snapshot(const api::ReadTarget& target) override;
  api::Result<api::Json> PollChanges(const api::ChangePoll& poll) override;
  api::Status ChangesBaseline(std::string_view branch, const api::ChangeFilter& filter,
                              const ApiSink& sink) override;
  api::Result<api::Json> Load(std::string_view ndjson, std::string_view mode,
                              const api::WriteTarget& target) override;
  api::Result<api::Json> LoadFile(const std::string& path, std::string_view mode,
                                  const api::WriteTarget& target) override;
  api::Result<api::Json> LoadStream(const api::LoadReader& read, std::string_view mode,
                                    const api::WriteTarget& target) override;
  api::Status Export(const api::ReadTarget& target, const std::vector<std::string>& types,
                     const ApiSink& sink) override;
  api::Result<std::string> ResolveCommit(const api::ReadTarget& target) override;
  // HEAD and GET /blob (docs/design/blob.md): the answer's headers are the stat.
  api::Result<api::Json> StatBlob(const api::BlobSelector& cell,
                                  const api::ReadTarget& target) override;
  api::Result<api::Json> ReadBlob(const api::BlobSelector& cell, const api::ReadTarget& target,
                                  std::optional<api::BlobRange> range,
                                  const ApiSink& sink) override;
  api::Result<api::Json> Mutate(std::string_view source, std::string_view name,
                                const api::Json& params, const api::WriteTarget& target) override;
  api::Result<api::Json> Query(std::string_view source, std::string_view name,
                               const api::Json& params, const api::ReadTarget& target) override;
  api::Result<api::Json> ApplySchema(std::string_view schema_source, bool allow_data_loss) override;
  api::Result<api::Json> ShowSchema(const api::ReadTarget& target) override;
  // The calls omnigraph-server has no route for: Unsupported, naming the call.
  api::Result<api::Json> PlanSchema(std::string_view schema_source, bool allow_data_loss) override;
  api::Result<api::Json> Cleanup(const api::CleanupRequest& request) override;
  api::Result<api::Json> Optimize(std::string_view branch) override;
  api::Result<api::Json> Repair(bool confirm) override;
  api::Result<api::Json> Lint(std::string_view query_source, std::string_view branch) override;
  api::Result<api::Json> StoredQueries() override;
  api::Result<api::Json> InvokeStoredQuery(std::string_view name, const api::Json& params,
                                           const api::ReadTarget& target) override;

  // One request to the server (public for the .cc's helpers, not for callers).
  struct Request {
    std::string method;
    // Path segments after the graph's base, each percent-encoded on the way out; a segment
    // given as {text, true} keeps its '/' (a branch name in the last segment).
    std::vector<std::pair<std::string, bool>> path;
    std::vector<std::pair<std::string, std::string>> query;
    std::vector<std::string> headers;
    std::string content_type;
    std::string body;
    // A write: an answer lost on the way is Unknown (it may have happened), not Transient.
    bool write = false;
  };

  RemoteBackend(std::string url, std::string base, std::string authorization,
                std::shared_ptr<storage::http::HttpClient> client);

 private:
  // Unsupported naming `verb` ("schema plan", "cleanup", ...): the server has no route for it.
  api::Status NotServed(std::string_view verb) const;
  // The 2xx answer's body, parsed; else the failure it maps to. `merge_conflicts` gets the
  // ErrorOutput's array when the answer has one.
  api::Result<api::Json> Call(const Request& request, api::Json* merge_conflicts = nullptr);
  // Sends `request`; a 2xx body goes to `sink` when one is given.
  storage::http::HttpResponse Send(const Request& request,
                                   std::function<bool(std::string_view)> sink);
  // Sends `request` and passes its 2xx NDJSON body to `sink` in whole lines.
  api::Status Stream(const Request& request, const ApiSink& sink);
  // The failure a non-2xx answer or a transport failure maps to.
  api::Status Failure(const Request& request, const storage::http::HttpResponse& response,
                      api::Json* merge_conflicts) const;

  std::string url_;
  // url_ without a trailing '/', plus /graphs/{id} for a graph id.
  std::string base_;
  std::string authorization_;
  // Shared by WithActor's backends: one connection pool.
  std::shared_ptr<storage::http::HttpClient> client_;
};

}  // namespace omnigraph::engine
