#include "storage/s3/s3_xml.h"

namespace omnigraph::storage::s3 {

Result<ListObjectsResult> ParseListObjectsV2(std::string_view xml) {
  if (xml.find("<ListBucketResult") == std::string_view::npos) {
    return Status(Code::kPermanent, "S3 list response is not a ListBucketResult: '" +
                                        std::string(xml.substr(0, 200)) + "'");
  }
  ListObjectsResult result;
  result.truncated = XmlFirst(xml, "IsTruncated").value_or("false") == "true";
  OMNIGRAPH_ASSIGN_OR_RETURN(result.next_continuation_token,
                             XmlUnescape(XmlFirst(xml, "NextContinuationToken").value_or("")));
  for (std::string_view contents : XmlAll(xml, "Contents")) {
    ListedObject object;
    std::optional<std::string_view> key = XmlFirst(contents, "Key");
    if (!key) return Status(Code::kPermanent, "S3 list entry without a Key");
    OMNIGRAPH_ASSIGN_OR_RETURN(object.key, XmlUnescape(*key));
    if (!ParseU64(XmlFirst(contents, "Size").value_or(""), &object.size_bytes)) {
      return Status(Code::kPermanent, "S3 list entry without a valid Size", object.key);
    }
    OMNIGRAPH_ASSIGN_OR_RETURN(std::string etag,
                               XmlUnescape(XmlFirst(contents, "ETag").value_or("")));
    object.etag = StripQuotes(etag);
    std::optional<int64_t> modified =
        ParseIso8601Micros(XmlFirst(contents, "LastModified").value_or(""));
    if (!modified) return Status(Code::kPermanent, "S3 list entry without a valid LastModified");
    object.last_modified_micros = *modified;
    result.objects.push_back(std::move(object));
  }
  if (result.truncated && result.next_continuation_token.empty()) {
    return Status(Code::kPermanent, "S3 list result is truncated but has no continuation token");
  }
  return result;
}

S3Error ParseS3Error(std::string_view xml) {
  S3Error error;
  if (xml.find("<Error>") == std::string_view::npos) return error;
  error.code = XmlUnescape(XmlFirst(xml, "Code").value_or("")).value_or("");
  error.message = XmlUnescape(XmlFirst(xml, "Message").value_or("")).value_or("");
  return error;
}

}  // namespace omnigraph::storage::s3
