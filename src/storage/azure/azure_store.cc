#include "storage/azure/azure_store.h"

#include <algorithm>
#include <ctime>

#include "storage/http/objects.h"
#include "storage/http/requests.h"
#include "storage/http/xml.h"
#include "storage/memory_store.h"

namespace omnigraph::storage::azure {

namespace {

using http::IsStatus;
using http::Succeeded;

// "Sun, 29 Nov 2026 15:06:38 GMT".
std::string HttpDate(int64_t micros) {
  std::time_t seconds = static_cast<std::time_t>(micros / 1'000'000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char out[64];
  std::strftime(out, sizeof(out), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return out;
}

constexpr char kService[] = "Azure Blob";

std::string Quoted(std::string_view etag) { return "\"" + std::string(etag) + "\""; }

}  // namespace

AzureStore::AzureStore(AzureConfig config, std::string container, std::string prefix, Clock* clock)
    : config_(std::move(config)),
      container_(std::move(container)),
      keys_(std::move(prefix), kAzureNameBytesMax, kService),
      clock_(clock ? clock : SystemClock::Default()),
      http_(
          http::HttpClientOptions{config_.connect_timeout_ms, config_.request_timeout_ms, "", ""}),
      random_(Random::FromEntropy()) {
  size_t host = config_.endpoint.find("://");
  size_t slash = config_.endpoint.find('/', host == std::string::npos ? 0 : host + 3);
  if (slash != std::string::npos) endpoint_path_ = config_.endpoint.substr(slash);
}

Result<std::unique_ptr<AzureStore>> AzureStore::Open(AzureConfig config, std::string container,
                                                     std::string prefix, Clock* clock) {
  if (container.empty()) return Status(Code::kConfiguration, "the Azure container name is empty");
  if (!prefix.empty()) {
    Status valid = ValidateObjectName(prefix);
    if (!valid.ok()) return Status(Code::kInvalidArgument, "Azure name prefix: " + valid.message());
  }
  std::unique_ptr<AzureStore> store(
      new AzureStore(std::move(config), std::move(container), std::move(prefix), clock));
  OMNIGRAPH_RETURN_IF_ERROR(store->Probe());
  return store;
}

Status AzureStore::Probe() {
  Call call{"GET", "", {{"restype", "container"}, {"comp", "list"}, {"maxresults", "1"}}};
  if (!keys_.prefix().empty()) call.query.push_back({"prefix", Key("")});
  HttpResponse r = Send(call, RequestKind::kRead);
  if (Succeeded(r)) return Status::Ok();
  Status failure = Failure(r, RequestKind::kRead, "");
  if (r.transport != Transport::kAnswered) {
    return Status(Code::kConfiguration, "cannot open " + Describe() + ": " + failure.message());
  }
  if (failure.kind() == Kind::kConfiguration) return failure;
  return failure.WithContext("cannot open " + Describe());
}

Status AzureStore::CreateContainer(const AzureConfig& config, std::string_view container) {
  AzureStore store(config, std::string(container), "", nullptr);
  HttpResponse r = store.Send(Call{"PUT", "", {{"restype", "container"}}}, RequestKind::kWrite);
  if (Succeeded(r)) return Status::Ok();
  if (IsStatus(r, 409) && ErrorCode(r) == "ContainerAlreadyExists") return Status::Ok();
  return store.Failure(r, RequestKind::kWrite, "");
}

int64_t AzureStore::UnknownOutcomeWindowMicros() const {
  return 2 * config_.request_timeout_ms * 1000;
}

std::string AzureStore::Describe() const {
  return "az://" + container_ + (keys_.prefix().empty() ? "" : "/" + keys_.prefix());
}

std::string AzureStore::Key(std::string_view name) const { return keys_.Key(name); }

Status AzureStore::CheckName(std::string_view name) const { return keys_.Check(name); }

Status AzureStore::Failure(const HttpResponse& response, RequestKind kind,
                           std::string_view name) const {
  return MapFailure(response, kind,
                    ErrorContext{name, container_, config_.endpoint, config_.endpoint_source});
}

HttpResponse AzureStore::SendOnce(const Call& call) {
  std::string path = "/" + container_;
  if (!call.blob.empty()) path += "/" + http::UriEncode(call.blob, false);
  SignedRequest sign;
  sign.method = call.method;
  sign.content_length = call.body.size();
  sign.if_match = call.if_match;
  sign.if_none_match = call.if_none_match;
  sign.range = call.range;
  sign.path = endpoint_path_ + path;
  sign.query = call.query;
  sign.ms_headers = call.ms_headers;
  sign.ms_headers.push_back({"x-ms-date", HttpDate(clock_->NowMicros())});
  sign.ms_headers.push_back({"x-ms-version", kApiVersion});
  if (call.method == "PUT") sign.content_type = "application/octet-stream";

  http::HttpRequest request;
  request.method = call.method;
  request.url = config_.endpoint + path;
  if (!call.query.empty()) request.url += "?" + http::CanonicalQuery(call.query);
  for (const auto& [name, value] : sign.ms_headers) request.headers.push_back(name + ": " + value);
  if (!sign.content_type.empty()) request.headers.push_back("Content-Type: " + sign.content_type);
  if (!call.if_match.empty()) request.headers.push_back("If-Match: " + call.if_match);
  if (!call.if_none_match.empty())
    request.headers.push_back("If-None-Match: " + call.if_none_match);
  if (!call.range.empty()) request.headers.push_back("Range: " + call.range);
  Result<std::string> signature =
      SharedKeySignature(config_.key, StringToSign(sign, config_.account));
  if (!signature.ok()) {
    HttpResponse r;
    r.transport = Transport::kNotSent;
    r.error = signature.status().message();
    return r;
  }
  request.headers.push_back("Authorization: SharedKey " + config_.account + ":" + *signature);
  request.body = call.body;
  return http_.Send(request);
}

HttpResponse AzureStore::Send(const Call& call, RequestKind kind) {
  return http::SendWithRetries([&] { return SendOnce(call); }, kind, config_.retry,
                               &NothingHappened, *clock_, random_);
}

Result<GetResult> AzureStore::Get(std::string_view name, std::optional<ByteRange> range) {
  OMNIGRAPH_RETURN_IF_ERROR(CheckName(name));
  Call call{"GET", Key(name), {}};
  if (range) {
    if (range->length == 0) return ClampRange(name, 1, *range).status();
    call.ms_headers.push_back({"x-ms-range", http::RangeHeaderValue(*range)});
  }
  HttpResponse r = Send(call, RequestKind::kRead);
  if (IsStatus(r, 416)) {
    // Azure refuses a range that starts at or past the end (every range of an empty blob); the
    // contract gives the bytes that exist (none) or InvalidArgument.
    OMNIGRAPH_ASSIGN_OR_RETURN(ObjectMeta meta, Head(name));
    OMNIGRAPH_RETURN_IF_ERROR(ClampRange(name, meta.size_bytes, *range).status());
    return GetResult{"", std::move(meta)};
  }
  if (!Succeeded(r)) return Failure(r, RequestKind::kRead, name);
  OMNIGRAPH_ASSIGN_OR_RETURN(ObjectMeta meta, http::MetaFromHeaders(name, r, kService));
  return http::GetResultFrom(name, std::move(r), std::move(meta), range);
}

Result<ObjectMeta> AzureStore::Head(std::string_view name) {
  OMNIGRAPH_RETURN_IF_ERROR(CheckName(name));
  HttpResponse r = Send(Call{"HEAD", Key(name), {}}, RequestKind::kRead);
  if (!Succeeded(r)) return Failure(r, RequestKind::kRead, name);
  return http::MetaFromHeaders(name, r, kService);
}

HttpResponse AzureStore::PutWith(std::string_view name, std::string_view data,
                                 const std::string& token, std::string if_match,
                                 std::string if_none_match) {
  const bool conditional = !if_match.empty() || !if_none_match.empty();
  Call call{"PUT", Key(name), {}, std::move(if_match), std::move(if_none_match)};
  call.ms_headers.push_back({"x-ms-blob-type", "BlockBlob"});
  call.ms_headers.push_back({kWriteTokenHeader, token});
  call.body = data;
  return Send(call, conditional ? RequestKind::kConditionalWrite : RequestKind::kWrite);
}

Result<std::optional<ObjectMeta>> AzureStore::ReadBack(std::string_view name,
                                                       const std::string& token) {
  HttpResponse r = Send(Call{"HEAD", Key(name), {}}, RequestKind::kRead);
  if (!Succeeded(r)) {
    Status failure = Failure(r, RequestKind::kRead, name);
    if (failure.kind() == Kind::kNotFound) return std::optional<ObjectMeta>();
    return failure;
  }
  if (r.Header(kWriteTokenHeader) != token) return std::optional<ObjectMeta>();
  OMNIGRAPH_ASSIGN_OR_RETURN(ObjectMeta meta, http::MetaFromHeaders(name, r, kService));
  return std::optional<ObjectMeta>(std::move(meta));
}

Status AzureStore::Put(std::string_view name, std::string_view data) {
  OMNIGRAPH_RETURN_IF_ERROR(CheckName(name));
  HttpResponse r = PutWith(name, data, http::NewWriteToken(random_), "", "");
  if (Succeeded(r)) return Status::Ok();
  return Failure(r, RequestKind::kWrite, name);
}

Result<bool> AzureStore::PutIfAbsent(std::string_view name, std::string_view data) {
  OMNIGRAPH_RETURN_IF_ERROR(CheckName(name));
  const std::string token = http::NewWriteToken(random_);
  HttpResponse r = PutWith(name, data, token, "", "*");
  return http::SettleCreate(
      r, CreateFoundExisting(r), OutcomeUnknown(r),
      Succeeded(r) ? Status::Ok() : Failure(r, RequestKind::kConditionalWrite, name),
      [&]() -> Result<bool> {
        OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<ObjectMeta> back, ReadBack(name, token));
        return back.has_value();
      },
      name);
}

Result<std::string> AzureStore::PutIfMatch(std::string_view name, std::string_view data,
                                           std::string_view etag) {
  OMNIGRAPH_RETURN_IF_ERROR(CheckName(name));
  const std::string token = http::NewWriteToken(random_);
  HttpResponse r = PutWith(name, data, token, Quoted(etag), "");
  if (Succeeded(r)) return http::StripQuotes(r.Header("etag"));
  const bool refused = IsStatus(r, 412) || IsStatus(r, 404);
  if (!refused && !OutcomeUnknown(r)) return Failure(r, RequestKind::kConditionalWrite, name);
  // Refused: NotFound when the blob is gone, success when libcurl re-sent the write and our first
  // copy landed, Precondition otherwise. Unknown outcome: our token there means we won.
  Status failure = Failure(r, RequestKind::kConditionalWrite, name);
  HttpResponse now = Send(Call{"HEAD", Key(name), {}}, RequestKind::kRead);
  if (!Succeeded(now)) {
    Status read = Failure(now, RequestKind::kRead, name);
    if (read.kind() == Kind::kNotFound) return read;
    return refused ? failure : failure.WithContext("reading back failed: " + read.message());
  }
  if (now.Header(kWriteTokenHeader) == token && (!refused || r.sends > 1)) {
    return http::StripQuotes(now.Header("etag"));
  }
  if (refused) {
    return Status(Code::kPrecondition,
                  "etag is '" + http::StripQuotes(now.Header("etag")) + "', expected '" +
                      std::string(etag) + "'",
                  std::string(name));
  }
  return failure;
}

Result<ListPage> AzureStore::List(const ListOptions& options) {
  OMNIGRAPH_RETURN_IF_ERROR(ValidateListOptions(options));
  // List Blobs has no start-after: without a marker, skip names up to start_after page by page
  // (the engine does not use start_after; tools and tests do).
  std::string marker = options.continuation;
  const bool skip = options.continuation.empty() && !options.start_after.empty();
  for (;;) {
    Call call{"GET",
              "",
              {{"restype", "container"},
               {"comp", "list"},
               {"maxresults", std::to_string(options.page_size)}}};
    if (!Key(options.prefix).empty()) call.query.push_back({"prefix", Key(options.prefix)});
    if (!marker.empty()) call.query.push_back({"marker", marker});
    HttpResponse r = Send(call, RequestKind::kRead);
    if (!Succeeded(r)) return Failure(r, RequestKind::kRead, options.prefix);
    if (r.body.find("<EnumerationResults") == std::string::npos) {
      return Status(Code::kPermanent, "Azure list response is not an EnumerationResults: '" +
                                          r.body.substr(0, 200) + "'");
    }
    ListPage page;
    for (std::string_view blob : http::XmlAll(r.body, "Blob")) {
      ObjectMeta meta;
      OMNIGRAPH_ASSIGN_OR_RETURN(std::string key,
                                 http::XmlUnescape(http::XmlFirst(blob, "Name").value_or("")));
      OMNIGRAPH_ASSIGN_OR_RETURN(meta.name, keys_.NameOf(key, options.prefix));
      if (skip && meta.name <= options.start_after) continue;
      if (!http::ParseU64(http::XmlFirst(blob, "Content-Length").value_or(""), &meta.size_bytes)) {
        return Status(Code::kPermanent, "Azure list entry without a valid Content-Length", key);
      }
      OMNIGRAPH_ASSIGN_OR_RETURN(std::string etag,
                                 http::XmlUnescape(http::XmlFirst(blob, "Etag").value_or("")));
      meta.etag = http::StripQuotes(etag);
      std::optional<int64_t> modified =
          http::ParseHttpDateMicros(http::XmlFirst(blob, "Last-Modified").value_or(""));
      if (!modified || meta.etag.empty()) {
        return Status(Code::kPermanent, "Azure list entry without an Etag or Last-Modified", key);
      }
      meta.last_modified_micros = *modified;
      page.objects.push_back(std::move(meta));
    }
    OMNIGRAPH_ASSIGN_OR_RETURN(
        marker, http::XmlUnescape(http::XmlFirst(r.body, "NextMarker").value_or("")));
    page.continuation = marker;
    if (!page.objects.empty() || marker.empty()) return page;
  }
}

Status AzureStore::Delete(std::string_view name) {
  OMNIGRAPH_RETURN_IF_ERROR(CheckName(name));
  HttpResponse r = Send(Call{"DELETE", Key(name), {}}, RequestKind::kWrite);
  if (Succeeded(r)) return Status::Ok();
  Status failure = Failure(r, RequestKind::kWrite, name);
  if (failure.kind() == Kind::kNotFound) return Status::Ok();
  return failure;
}

}  // namespace omnigraph::storage::azure
