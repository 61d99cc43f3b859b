// AzureStore: the ObjectStore on an Azure Blob Storage container under a name prefix
// (docs/design/azure.md).
//
// Object `a/b` is the block blob `{prefix}/a/b`. Requests are signed with Shared Key (HMAC-SHA256
// of the canonical request, OpenSSL) and sent over the pooled keep-alive connections of the
// HttpClient shared with S3. Put is Put Blob; PutIfAbsent adds `If-None-Match: *` (409
// BlobAlreadyExists means "exists"); PutIfMatch adds `If-Match` with the blob's etag; Get and Head
// are Get Blob (with x-ms-range) and Get Blob Properties; List is List Blobs with prefix and
// marker; Delete is Delete Blob (absent is success).
//
// Etags. Azure gives every write a new etag, same bytes or not, so the store reports the service
// etag without its quotes (the contract's "changes on every write" holds, checked on Azurite).
// Every write still carries a random write token in `x-ms-meta-ogwrite` so that, when an answer is
// lost or ambiguous, a read-back tells our write from a rival's (the same discipline as S3, shared
// in storage/http/requests.h).
//
// Retries: only when the answer proves nothing happened (not sent, 429, 503 ServerBusy), and for
// reads also after a 5xx or a lost answer. Thread-safe. Do not use one store on both sides of a
// fork.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/random.h"
#include "storage/azure/azure_config.h"
#include "storage/azure/azure_errors.h"
#include "storage/http/http_client.h"
#include "storage/http/objects.h"
#include "storage/object_store.h"

namespace omnigraph::storage::azure {

// Blob names are at most this many characters: the prefix narrows the names a store accepts.
inline constexpr size_t kAzureNameBytesMax = 1024;
// The metadata header that carries a write's token (metadata names must be C# identifiers).
inline constexpr char kWriteTokenHeader[] = "x-ms-meta-ogwrite";

class AzureStore final : public ObjectStore {
 public:
  // Opens `container`/`prefix` (prefix without leading or trailing '/', may be empty) and checks
  // with one list request that the endpoint answers, the key is accepted and the container exists.
  // Configuration naming the variable or resource otherwise. `clock` (x-ms-date, backoff) must
  // outlive the store; null means the system clock.
  static Result<std::unique_ptr<AzureStore>> Open(AzureConfig config, std::string container,
                                                  std::string prefix, Clock* clock = nullptr);
  // Creates `container` (tests and tools). OK when it already exists.
  static Status CreateContainer(const AzureConfig& config, std::string_view container);

  Result<GetResult> Get(std::string_view name,
                        std::optional<ByteRange> range = std::nullopt) override;
  Result<ObjectMeta> Head(std::string_view name) override;
  Status Put(std::string_view name, std::string_view data) override;
  Result<bool> PutIfAbsent(std::string_view name, std::string_view data) override;
  Result<std::string> PutIfMatch(std::string_view name, std::string_view data,
                                 std::string_view etag) override;
  Result<ListPage> List(const ListOptions& options) override;
  Status Delete(std::string_view name) override;
  std::string Describe() const override;
  // Twice the client's request timeout: a request our client gave up on may still be processed
  // by the service for a while; decision 124 states the assumption.
  int64_t UnknownOutcomeWindowMicros() const override;
  bool Remote() const override { return true; }

 private:
  struct Call {
    std::string method;
    // The blob name (empty: the container itself).
    std::string blob;
    // Query parameters, decoded.
    std::vector<std::pair<std::string, std::string>> query;
    std::string if_match;
    std::string if_none_match;
    std::string range;
    std::vector<std::pair<std::string, std::string>> ms_headers;
    std::string_view body;
  };

  AzureStore(AzureConfig config, std::string container, std::string prefix, Clock* clock);

  Status CheckName(std::string_view name) const;
  std::string Key(std::string_view name) const;
  Status Failure(const HttpResponse& response, RequestKind kind, std::string_view name) const;
  HttpResponse SendOnce(const Call& call);
  HttpResponse Send(const Call& call, RequestKind kind);
  HttpResponse PutWith(std::string_view name, std::string_view data, const std::string& token,
                       std::string if_match, std::string if_none_match);
  // True when `name` now holds the write carrying `token` (with its meta); nullopt when it holds
  // another write or is absent.
  Result<std::optional<ObjectMeta>> ReadBack(std::string_view name, const std::string& token);
  Status Probe();

  const AzureConfig config_;
  const std::string container_;
  const http::KeyPrefix keys_;
  // The path part of the endpoint ("/devstoreaccount1" on Azurite, empty on Azure).
  std::string endpoint_path_;
  Clock* const clock_;
  http::HttpClient http_;
  Random random_;
};

}  // namespace omnigraph::storage::azure
