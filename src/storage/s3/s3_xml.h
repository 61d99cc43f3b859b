// The few S3 XML documents OmniGraph reads — ListObjectsV2 results and error bodies — parsed by a
// small hand-written reader, and the two timestamp formats S3 uses.
//
// The reader finds elements by exact tag name; it does not validate the document. Character data
// is decoded (the five named entities and numeric character references). Pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace omnigraph::storage::s3 {

// Decodes &amp; &lt; &gt; &quot; &apos; and &#NN; / &#xHH; (as UTF-8). Permanent when a reference
// is malformed.
Result<std::string> XmlUnescape(std::string_view text);

// The raw inner text of the first <tag>…</tag> (or <tag/>) in `xml`, or nullopt.
std::optional<std::string_view> XmlFirst(std::string_view xml, std::string_view tag);
// The raw inner text of every <tag>…</tag>, in document order.
std::vector<std::string_view> XmlAll(std::string_view xml, std::string_view tag);

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

// "2026-11-29T15:06:38.323Z" as Unix microseconds; nullopt when malformed.
std::optional<int64_t> ParseIso8601Micros(std::string_view text);
// "Sun, 29 Nov 2026 15:06:38 GMT" (RFC 7231 IMF-fixdate) as Unix microseconds.
std::optional<int64_t> ParseHttpDateMicros(std::string_view text);

// An etag header or element without its surrounding quotes.
std::string StripQuotes(std::string_view etag);

}  // namespace omnigraph::storage::s3
