#include "storage/http/objects.h"

#include <algorithm>

#include "storage/http/xml.h"
#include "storage/memory_store.h"

namespace omnigraph::storage::http {

KeyPrefix::KeyPrefix(std::string prefix, size_t key_bytes_max, std::string service)
    : prefix_(std::move(prefix)), key_bytes_max_(key_bytes_max), service_(std::move(service)) {}

std::string KeyPrefix::Key(std::string_view name) const {
  if (prefix_.empty()) return std::string(name);
  return prefix_ + "/" + std::string(name);
}

Status KeyPrefix::Check(std::string_view name) const {
  OMNIGRAPH_RETURN_IF_ERROR(ValidateObjectName(name));
  const size_t size = Key(name).size();
  if (size > key_bytes_max_) {
    return Status(Code::kInvalidArgument,
                  "name is too long for " + service_ + " under the prefix '" + prefix_ +
                      "': the key would be " + std::to_string(size) + " bytes, the limit is " +
                      std::to_string(key_bytes_max_),
                  std::string(name));
  }
  return Status::Ok();
}

Result<std::string> KeyPrefix::NameOf(std::string_view key, std::string_view listed_prefix) const {
  const std::string strip = prefix_.empty() ? "" : prefix_ + "/";
  if (!key.starts_with(strip)) {
    return Status(Code::kPermanent,
                  service_ + " listed key '" + std::string(key) + "' outside the prefix",
                  std::string(listed_prefix));
  }
  return std::string(key.substr(strip.size()));
}

std::string RangeHeaderValue(const ByteRange& range) {
  uint64_t last = range.offset + std::min(range.length, UINT64_MAX - range.offset) - 1;
  return "bytes=" + std::to_string(range.offset) + "-" + std::to_string(last);
}

Result<ObjectMeta> MetaFromHeaders(std::string_view name, const HttpResponse& r,
                                   std::string_view service) {
  const std::string object(name);
  ObjectMeta meta;
  meta.name = object;
  if (r.status == 206) {
    // "bytes 2-4/10": the whole object's size follows the '/'.
    std::string content_range = r.Header("content-range");
    size_t slash = content_range.rfind('/');
    if (slash == std::string::npos ||
        !ParseU64(std::string_view(content_range).substr(slash + 1), &meta.size_bytes)) {
      return Status(Code::kPermanent,
                    std::string(service) + " answered a range read without a valid Content-Range",
                    object);
    }
  } else if (!ParseU64(r.Header("content-length"), &meta.size_bytes)) {
    // GET bodies are counted; HEAD has only the header.
    if (r.body.empty() && !r.Header("content-length").empty()) {
      return Status(Code::kPermanent,
                    std::string(service) + " answered without a valid Content-Length", object);
    }
    meta.size_bytes = r.body.size();
  }
  meta.etag = StripQuotes(r.Header("etag"));
  if (meta.etag.empty()) {
    return Status(Code::kPermanent, std::string(service) + " answered without an ETag", object);
  }
  std::optional<int64_t> modified = ParseHttpDateMicros(r.Header("last-modified"));
  if (!modified) {
    return Status(Code::kPermanent,
                  std::string(service) + " answered without a valid Last-Modified ('" +
                      r.Header("last-modified") + "')",
                  object);
  }
  meta.last_modified_micros = *modified;
  return meta;
}

Result<GetResult> GetResultFrom(std::string_view name, HttpResponse r, ObjectMeta meta,
                                std::optional<ByteRange> range) {
  if (range) {
    // Azurite answers a range that starts exactly at the end with success rather than 416.
    OMNIGRAPH_ASSIGN_OR_RETURN(auto span, ClampRange(name, meta.size_bytes, *range));
    if (r.status == 200) {
      // A server that ignores Range sends everything: cut the range out here.
      r.body = r.body.substr(std::min<size_t>(span.first, r.body.size()), span.second - span.first);
    }
  }
  return GetResult{std::move(r.body), std::move(meta)};
}

}  // namespace omnigraph::storage::http
