// The few S3 XML documents OmniGraph reads — ListObjectsV2 results and error bodies — parsed with
// the reader shared with the Azure backend (storage/http/xml.h). Pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "storage/http/xml.h"

namespace omnigraph::storage::s3 {

using http::ParseHttpDateMicros;
using http::ParseIso8601Micros;
using http::ParseU64;
using http::StripQuotes;
using http::XmlAll;
using http::XmlFirst;
using http::XmlUnescape;

struct ListedObject {
  std::string key;
  uint64_t size_bytes = 0;
  // Without quotes.
  std::string etag;
  int64_t last_modified_micros = 0;
};

struct ListObjectsResult {
  std::vector<ListedObject> objects;
  bool truncated = false;
  std::string next_continuation_token;
};

// Permanent (naming what is wrong) when the document is not a ListBucketResult.
Result<ListObjectsResult> ParseListObjectsV2(std::string_view xml);

struct S3Error {
  // Empty when the body is not an S3 error document.
  std::string code;
  std::string message;
};
S3Error ParseS3Error(std::string_view xml);

}  // namespace omnigraph::storage::s3
