// S3Store: the ObjectStore on an S3 bucket under a key prefix (docs/design/s3.md).
//
// Object `a/b` is the key `{prefix}/a/b`. Requests are signed with SigV4 by libcurl and sent over
// pooled keep-alive connections (HttpClient). PutIfAbsent is a PUT with `If-None-Match: *`;
// PutIfMatch a PUT with `If-Match` (the S3 etag without quotes, which Ceph RGW needs). Neither is
// ever a multipart upload, and deletes are never conditional (RGW ignores both conditions there).
//
// Etags. S3's etag is the MD5 of the bytes, so writing the same bytes twice keeps it; the
// contract wants an etag that changes on every write. Every write therefore carries a fresh
// random write token in `x-amz-meta-og-write`, and Get and Head report `{md5}:{token}`. List
// cannot see user metadata and reports the bare MD5; PutIfMatch accepts both forms. The token
// also tells a write of ours from a rival's when an answer is lost or ambiguous.
//
// Retries: a request is sent again (bounded, with jittered exponential backoff) only when it is
// safe: whenever the answer proves it had no effect (not sent, 429, 503 SlowDown, 409
// ConditionalRequestConflict), and for reads also after a 5xx or a lost answer. A mutating request
// whose outcome is unknown is never blindly repeated: the store reads the key back and reports
// success only when it finds its own write token, otherwise Unknown (docs/design/overview.md
// "Failures"). Thread-safe. Do not use one store on both sides of a fork.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "base/clock.h"
#include "base/random.h"
#include "storage/http/objects.h"
#include "storage/object_store.h"
#include "storage/s3/s3_config.h"
#include "storage/s3/s3_errors.h"

namespace omnigraph::storage::s3 {

// Keys are at most this long (S3's limit): the prefix narrows the names a store accepts.
inline constexpr size_t kS3KeyBytesMax = 1024;
// The user-metadata header that carries a write's token.
inline constexpr char kWriteTokenHeader[] = "x-amz-meta-og-write";

class S3Store final : public ObjectStore {
 public:
  // Opens `bucket`/`prefix` (prefix without leading or trailing '/', may be empty) and checks with
  // one list request that the endpoint answers, the credentials are accepted and the bucket
  // exists. Configuration naming the variable or resource otherwise. `clock` (for backoff) must
  // outlive the store; null means the system clock.
  static Result<std::unique_ptr<S3Store>> Open(S3Config config, std::string bucket,
                                               std::string prefix, Clock* clock = nullptr);
  // Creates `bucket` (tests and tools). OK when it already exists and is owned by these
  // credentials.
  static Status CreateBucket(const S3Config& config, std::string_view bucket);

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
    std::string key;
    std::string query;
    std::vector<std::string> headers;
    std::string_view body;
  };

  S3Store(S3Config config, std::string bucket, std::string prefix, Clock* clock);

  Status CheckName(std::string_view name) const;
  std::string Key(std::string_view name) const;
  std::string NewToken();
  ErrorContext Context(std::string_view name) const;
  Status Failure(const HttpResponse& response, RequestKind kind, std::string_view name) const;
  HttpResponse SendOnce(const Call& call);
  // Sends `call`, again while NothingHappened, and for reads also while OutcomeUnknown, up to
  // attempts_max times in all.
  HttpResponse Send(const Call& call, RequestKind kind);
  // A PUT of `data` carrying `token` and the extra condition header (may be empty).
  HttpResponse PutWith(std::string_view name, std::string_view data, const std::string& token,
                       const std::string& condition);
  // Reads back `name` after an ambiguous write: its etag when it carries `token`; nullopt when it
  // holds another write or is absent; the read's failure otherwise.
  Result<std::optional<ObjectMeta>> ReadBack(std::string_view name, const std::string& token);
  // The meta of a GET or HEAD answer; the etag is "{s3 etag}:{token}" when it carries a token.
  Result<ObjectMeta> MetaFrom(std::string_view name, const HttpResponse& response) const;
  Status Probe();

  const S3Config config_;
  const std::string bucket_;
  const http::KeyPrefix keys_;
  Clock* const clock_;
  HttpClient http_;
  Random random_;
};

// Splits an etag of this store into the S3 etag and the write token (empty when absent).
std::pair<std::string, std::string> SplitEtag(std::string_view etag);

}  // namespace omnigraph::storage::s3
