// The remote backend of api::Database (Database::Connect; docs/design/api.md "Remote handles"):
// each call is one request to an omnigraph-server's routes (docs/design/server.md), and its
// answer is the JSON the server's own Database returned, so a front end prints the same output
// for a served graph as for one it opens itself. Errors come back as the Status the server's
// handle returned (the ErrorOutput's omnigraph_code, kind, error and object), the server's own
// refusals and transport failures as the nearest public code.
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

#include "omnigraph/omnigraph.h"

namespace omnigraph::storage::http {
class HttpClient;
struct HttpResponse;
}  // namespace omnigraph::storage::http

namespace omnigraph::engine {

class RemoteHandle {
 public:
  // InvalidArgument unless `url` is http:// or https:// with a host. Makes no request.
  static api::Result<std::unique_ptr<RemoteHandle>> Connect(std::string_view url,
                                                            const api::ConnectOptions& options);
  ~RemoteHandle();
  RemoteHandle(const RemoteHandle&) = delete;
  RemoteHandle& operator=(const RemoteHandle&) = delete;

  // The URL the handle was connected to, as given.
  const std::string& url() const { return url_; }

  api::Result<api::Json> CreateBranch(std::string_view name, std::string_view from);
  api::Result<api::Json> DeleteBranch(std::string_view name);
  api::Result<api::Json> ListBranches();
  api::Result<api::Json> Merge(std::string_view source, const api::MergeOptions& options,
                               api::Json* conflicts);
  api::Result<api::Json> CommitHistory(std::string_view branch, size_t limit,
                                       std::string_view page_token);
  api::Result<api::Json> ShowCommit(std::string_view commit_id);
  api::Result<api::Json> CommitChanges(std::string_view commit_id,
                                       const api::CommitChangesRequest& request);
  api::Result<api::Json> Snapshot(const api::ReadTarget& target);
  api::Result<api::Json> Load(std::string_view ndjson, std::string_view mode,
                              const api::WriteTarget& target);
  api::Status Export(const api::ReadTarget& target, const std::vector<std::string>& types,
                     const std::function<api::Status(std::string_view chunk)>& sink);
  api::Result<std::string> ResolveCommit(const api::ReadTarget& target);
  api::Result<api::Json> Mutate(std::string_view source, std::string_view name,
                                const api::Json& params, const api::WriteTarget& target);
  api::Result<api::Json> Query(std::string_view source, std::string_view name,
                               const api::Json& params, const api::ReadTarget& target);
  api::Result<api::Json> ApplySchema(std::string_view schema_source, bool allow_data_loss);
  api::Result<api::Json> ShowSchema(const api::ReadTarget& target);
  // Unsupported naming `verb` ("schema plan", "cleanup", ...): the server has no route for it.
  api::Status NotServed(std::string_view verb) const;

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

 private:
  RemoteHandle(std::string url, std::string base, const api::ConnectOptions& options);

  // The 2xx answer's body, parsed; else the failure it maps to. `merge_conflicts` gets the
  // ErrorOutput's array when the answer has one.
  api::Result<api::Json> Call(const Request& request, api::Json* merge_conflicts = nullptr);
  // Sends `request`; a 2xx body goes to `sink` when one is given.
  storage::http::HttpResponse Send(const Request& request,
                                   std::function<bool(std::string_view)> sink);
  // The failure a non-2xx answer or a transport failure maps to.
  api::Status Failure(const Request& request, const storage::http::HttpResponse& response,
                      api::Json* merge_conflicts) const;

  std::string url_;
  // url_ without a trailing '/', plus /graphs/{id} for a graph id.
  std::string base_;
  std::string authorization_;
  std::unique_ptr<storage::http::HttpClient> client_;
};

}  // namespace omnigraph::engine
