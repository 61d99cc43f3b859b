// The small XML and HTTP-date reading that the S3 and Azure backends share: a hand-written reader
// that finds elements by exact tag name (it does not validate the document), entity decoding,
// and the timestamp formats both services use. Pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace omnigraph::storage::http {

// Decodes &amp; &lt; &gt; &quot; &apos; and &#NN; / &#xHH; (as UTF-8). Permanent when a reference
// is malformed.
Result<std::string> XmlUnescape(std::string_view text);

// The raw inner text of the first <tag>…</tag> (or <tag/>) in `xml`, or nullopt.
std::optional<std::string_view> XmlFirst(std::string_view xml, std::string_view tag);
// The raw inner text of every <tag>…</tag>, in document order.
std::vector<std::string_view> XmlAll(std::string_view xml, std::string_view tag);

// A whole decimal number (no sign, no spaces); false when `s` is anything else.
bool ParseU64(std::string_view s, uint64_t* out);

// "2026-11-29T15:06:38.323Z" as Unix microseconds; nullopt when malformed.
std::optional<int64_t> ParseIso8601Micros(std::string_view text);
// "Sun, 29 Nov 2026 15:06:38 GMT" (RFC 7231 IMF-fixdate) as Unix microseconds.
std::optional<int64_t> ParseHttpDateMicros(std::string_view text);

// An etag header or element without its surrounding quotes.
std::string StripQuotes(std::string_view etag);

}  // namespace omnigraph::storage::http
