// What every HTTP object-store backend (S3, Azure Blob) does the same with names and answers:
// object names under a key prefix with the service's length limit, the Range header, and the
// ObjectMeta and GetResult of a GET or HEAD answer (etag without quotes, Last-Modified, the whole
// object's size from Content-Range, the contract's range check). Values; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "storage/http/http_client.h"
#include "storage/object_store.h"

namespace omnigraph::storage::http {

class KeyPrefix {
 public:
  // `prefix` without leading or trailing '/', may be empty; keys are at most `key_bytes_max`.
  KeyPrefix(std::string prefix, size_t key_bytes_max, std::string service);

  const std::string& prefix() const { return prefix_; }
  // "{prefix}/{name}", or `name` without a prefix.
  std::string Key(std::string_view name) const;
  // A valid object name whose key fits the service's limit; InvalidArgument otherwise.
  Status Check(std::string_view name) const;
  // The object name of a listed key; Permanent when the server listed a key outside the prefix.
  Result<std::string> NameOf(std::string_view key, std::string_view listed_prefix) const;

 private:
  std::string prefix_;
  size_t key_bytes_max_;
  std::string service_;
};

// "bytes={first}-{last}" for a range of non-zero length.
std::string RangeHeaderValue(const ByteRange& range);

// The ObjectMeta in the headers of a successful GET or HEAD: the etag without quotes, the
// Last-Modified date and the whole object's size (Content-Length of a HEAD, the total of the
// Content-Range of a 206, the body of a 200). Permanent naming the missing header otherwise.
Result<ObjectMeta> MetaFromHeaders(std::string_view name, const HttpResponse& response,
                                   std::string_view service);

// The GetResult of a successful GET with `meta`: checks the range against the object's size as the
// contract does (servers differ at the edges) and cuts it out when the server sent everything.
Result<GetResult> GetResultFrom(std::string_view name, HttpResponse response, ObjectMeta meta,
                                std::optional<ByteRange> range);

}  // namespace omnigraph::storage::http
