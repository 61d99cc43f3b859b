#include "storage/s3/s3_store.h"

#include <algorithm>
#include <charconv>
#include <cstdio>

#include "base/hash.h"
#include "storage/http/objects.h"
#include "storage/memory_store.h"
#include "storage/s3/s3_xml.h"

namespace omnigraph::storage::s3 {

namespace {

constexpr char kEmptySha256[] = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

using http::IsStatus;
using http::Succeeded;

// True when the current etag `current` ("md5:token" or "md5") still equals `expected`.
bool EtagMatches(std::string_view current, std::string_view expected) {
  auto [cur_md5, cur_token] = SplitEtag(current);
  auto [exp_md5, exp_token] = SplitEtag(expected);
  return cur_md5 == exp_md5 && (exp_token.empty() || cur_token == exp_token);
}

}  // namespace

std::pair<std::string, std::string> SplitEtag(std::string_view etag) {
  size_t colon = etag.rfind(':');
  if (colon == std::string_view::npos) return {std::string(etag), std::string()};
  return {std::string(etag.substr(0, colon)), std::string(etag.substr(colon + 1))};
}

S3Store::S3Store(S3Config config, std::string bucket, std::string prefix, Clock* clock)
    : config_(std::move(config)),
      bucket_(std::move(bucket)),
      keys_(std::move(prefix), kS3KeyBytesMax, "S3"),
      clock_(clock ? clock : SystemClock::Default()),
      http_(HttpClientOptions{config_.connect_timeout_ms, config_.request_timeout_ms,
                              "aws:amz:" + config_.region + ":s3",
                              config_.access_key_id + ":" + config_.secret_access_key}),
      random_(Random::FromEntropy()) {}

Result<std::unique_ptr<S3Store>> S3Store::Open(S3Config config, std::string bucket,
                                               std::string prefix, Clock* clock) {
  if (bucket.empty()) return Status(Code::kConfiguration, "the S3 bucket name is empty");
  if (!prefix.empty()) {
    Status valid = ValidateObjectName(prefix);
    if (!valid.ok()) return Status(Code::kInvalidArgument, "S3 key prefix: " + valid.message());
  }
  std::unique_ptr<S3Store> store(
      new S3Store(std::move(config), std::move(bucket), std::move(prefix), clock));
  OMNIGRAPH_RETURN_IF_ERROR(store->Probe());
  return store;
}

Status S3Store::Probe() {
  Call call{"GET", "",
            CanonicalQuery({{"list-type", "2"}, {"max-keys", "1"}, {"prefix", Key("")}})};
  HttpResponse r = Send(call, RequestKind::kRead);
  if (Succeeded(r)) return Status::Ok();
  Status failure = Failure(r, RequestKind::kRead, "");
  if (r.transport != Transport::kAnswered) {
    // The endpoint itself is wrong or down: at open this is a setup problem.
    return Status(Code::kConfiguration, "cannot open " + Describe() + ": " + failure.message());
  }
  if (failure.kind() == Kind::kConfiguration) return failure;
  if (r.status == 404) {
    return Status(Code::kConfiguration, "cannot open " + Describe() + ": the endpoint " +
                                            config_.endpoint + " (" + config_.endpoint_source +
                                            ") answered 404 to a bucket listing; is it S3?");
  }
  return failure.WithContext("cannot open " + Describe());
}

Status S3Store::CreateBucket(const S3Config& config, std::string_view bucket) {
  S3Store store(config, std::string(bucket), "", nullptr);
  Call call{"PUT", "", ""};
  HttpResponse r = store.Send(call, RequestKind::kWrite);
  if (Succeeded(r)) return Status::Ok();
  if (IsStatus(r, 409) && ParseS3Error(r.body).code == "BucketAlreadyOwnedByYou") {
    return Status::Ok();
  }
  return store.Failure(r, RequestKind::kWrite, "");
}

int64_t S3Store::UnknownOutcomeWindowMicros() const {
  return 2 * config_.request_timeout_ms * 1000;
}

std::string S3Store::Describe() const {
  return "s3://" + bucket_ + (keys_.prefix().empty() ? "" : "/" + keys_.prefix());
}

std::string S3Store::Key(std::string_view name) const { return keys_.Key(name); }

Status S3Store::CheckName(std::string_view name) const { return keys_.Check(name); }

std::string S3Store::NewToken() { return http::NewWriteToken(random_); }

ErrorContext S3Store::Context(std::string_view name) const {
  return ErrorContext{name, bucket_, config_.endpoint, config_.endpoint_source,
                      config_.credentials_source};
}

Status S3Store::Failure(const HttpResponse& response, RequestKind kind,
                        std::string_view name) const {
  return MapFailure(response, kind, Context(name));
}

HttpResponse S3Store::SendOnce(const Call& call) {
  HttpRequest request;
  request.method = call.method;
  request.url = BucketUrl(config_, bucket_, call.key, call.query);
  request.headers = call.headers;
  request.headers.push_back("x-amz-content-sha256: " +
                            (call.body.empty() ? std::string(kEmptySha256) : Sha256Hex(call.body)));
  if (!config_.session_token.empty()) {
    request.headers.push_back("x-amz-security-token: " + config_.session_token);
  }
  if (call.method == "PUT") {
    // (Never an empty "Expect:" header to suppress 100-continue: libcurl 7.88 signs it but does
    // not send it, and the signature no longer matches.)
    request.headers.push_back("Content-Type: application/octet-stream");
  }
  request.body = call.body;
  return http_.Send(request);
}

HttpResponse S3Store::Send(const Call& call, RequestKind kind) {
  return http::SendWithRetries([&] { return SendOnce(call); }, kind, config_.retry,
                               &NothingHappened, *clock_, random_);
}

Result<ObjectMeta> S3Store::MetaFrom(std::string_view name, const HttpResponse& r) const {
  OMNIGRAPH_ASSIGN_OR_RETURN(ObjectMeta meta, http::MetaFromHeaders(name, r, "S3"));
  std::string token = r.Header(kWriteTokenHeader);
  if (!token.empty()) meta.etag += ":" + token;
  return meta;
}

Result<GetResult> S3Store::Get(std::string_view name, std::optional<ByteRange> range) {
  OMNIGRAPH_RETURN_IF_ERROR(CheckName(name));
  Call call{"GET", Key(name), ""};
  if (range) {
    if (range->length == 0) return ClampRange(name, 1, *range).status();
    call.headers.push_back("Range: " + http::RangeHeaderValue(*range));
  }
  HttpResponse r = Send(call, RequestKind::kRead);
  if (IsStatus(r, 416)) {
    // S3 refuses any range of an empty object; the contract gives the bytes that exist (none).
    OMNIGRAPH_ASSIGN_OR_RETURN(ObjectMeta meta, Head(name));
    OMNIGRAPH_RETURN_IF_ERROR(ClampRange(name, meta.size_bytes, *range).status());
    return GetResult{"", std::move(meta)};
  }
  if (!Succeeded(r)) return Failure(r, RequestKind::kRead, name);
  OMNIGRAPH_ASSIGN_OR_RETURN(ObjectMeta meta, MetaFrom(name, r));
  return http::GetResultFrom(name, std::move(r), std::move(meta), range);
}

Result<ObjectMeta> S3Store::Head(std::string_view name) {
  OMNIGRAPH_RETURN_IF_ERROR(CheckName(name));
  HttpResponse r = Send(Call{"HEAD", Key(name), ""}, RequestKind::kRead);
  if (!Succeeded(r)) return Failure(r, RequestKind::kRead, name);
  return MetaFrom(name, r);
}

HttpResponse S3Store::PutWith(std::string_view name, std::string_view data,
                              const std::string& token, const std::string& condition) {
  Call call{"PUT", Key(name), ""};
  call.headers.push_back(std::string(kWriteTokenHeader) + ": " + token);
  if (!condition.empty()) call.headers.push_back(condition);
  call.body = data;
  return Send(call, condition.empty() ? RequestKind::kWrite : RequestKind::kConditionalWrite);
}

Result<std::optional<ObjectMeta>> S3Store::ReadBack(std::string_view name,
                                                    const std::string& token) {
  Result<ObjectMeta> meta = Head(name);
  if (!meta.ok()) {
    if (meta.status().kind() == Kind::kNotFound) return std::optional<ObjectMeta>();
    return meta.status();
  }
  if (SplitEtag(meta->etag).second == token) return std::optional<ObjectMeta>(std::move(*meta));
  return std::optional<ObjectMeta>();
}

Status S3Store::Put(std::string_view name, std::string_view data) {
  OMNIGRAPH_RETURN_IF_ERROR(CheckName(name));
  HttpResponse r = PutWith(name, data, NewToken(), "");
  if (Succeeded(r)) return Status::Ok();
  return Failure(r, RequestKind::kWrite, name);
}

Result<bool> S3Store::PutIfAbsent(std::string_view name, std::string_view data) {
  OMNIGRAPH_RETURN_IF_ERROR(CheckName(name));
  const std::string token = NewToken();
  HttpResponse r = PutWith(name, data, token, "If-None-Match: *");
  const bool exists = r.transport == Transport::kAnswered &&
                      (r.status == 412 || (r.status == 409 && !NothingHappened(r)));
  return http::SettleCreate(
      r, exists, OutcomeUnknown(r),
      Succeeded(r) ? Status::Ok() : Failure(r, RequestKind::kConditionalWrite, name),
      [&]() -> Result<bool> {
        OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<ObjectMeta> back, ReadBack(name, token));
        return back.has_value();
      },
      name);
}

Result<std::string> S3Store::PutIfMatch(std::string_view name, std::string_view data,
                                        std::string_view etag) {
  OMNIGRAPH_RETURN_IF_ERROR(CheckName(name));
  const std::string expected_md5 = SplitEtag(etag).first;
  // The S3 condition compares MD5s only; checking the write token first refuses an etag whose
  // write was replaced by the same bytes. It also tells an absent name (RGW answers 412 there).
  OMNIGRAPH_ASSIGN_OR_RETURN(ObjectMeta current, Head(name));
  if (!EtagMatches(current.etag, etag)) {
    return Status(Code::kPrecondition,
                  "etag is '" + current.etag + "', expected '" + std::string(etag) + "'",
                  std::string(name));
  }
  const std::string token = NewToken();
  for (int attempt = 1;; ++attempt) {
    // RGW compares If-Match only against the etag without quotes.
    HttpResponse r = PutWith(name, data, token, "If-Match: " + expected_md5);
    if (Succeeded(r)) return StripQuotes(r.Header("etag")) + ":" + token;
    if (IsStatus(r, 412) || (IsStatus(r, 409) && !NothingHappened(r))) {
      // NotFound when it was deleted meanwhile; success when libcurl re-sent the write and the
      // first copy landed.
      OMNIGRAPH_ASSIGN_OR_RETURN(ObjectMeta now, Head(name));
      if (r.sends > 1 && SplitEtag(now.etag).second == token) return now.etag;
      return Failure(r, RequestKind::kConditionalWrite, name);
    }
    Status failure = Failure(r, RequestKind::kConditionalWrite, name);
    if (!OutcomeUnknown(r)) return failure;
    // Ceph RGW answers 500 to the losers of a race of If-Match writers. Read back: our token
    // means we won; the old etag still there after an answered error means nothing happened (try
    // again); another write there means a rival won.
    Result<ObjectMeta> now = Head(name);
    if (!now.ok()) return now.status().kind() == Kind::kNotFound ? now.status() : failure;
    if (SplitEtag(now->etag).second == token) return now->etag;
    if (!EtagMatches(now->etag, etag)) {
      if (r.transport != Transport::kAnswered) return failure;
      return Status(
          Code::kPrecondition,
          "a concurrent write replaced the etag (the server answered " + failure.message() + ")",
          std::string(name));
    }
    if (r.transport != Transport::kAnswered || attempt >= config_.retry.attempts_max)
      return failure;
  }
}

Result<ListPage> S3Store::List(const ListOptions& options) {
  OMNIGRAPH_RETURN_IF_ERROR(ValidateListOptions(options));
  std::vector<std::pair<std::string, std::string>> params = {
      {"list-type", "2"},
      {"max-keys", std::to_string(options.page_size)},
      {"prefix", Key(options.prefix)},
  };
  if (keys_.prefix().empty() && options.prefix.empty()) params.pop_back();
  if (!options.continuation.empty()) {
    params.push_back({"continuation-token", options.continuation});
  } else if (!options.start_after.empty()) {
    params.push_back({"start-after", Key(options.start_after)});
  }
  HttpResponse r = Send(Call{"GET", "", CanonicalQuery(std::move(params))}, RequestKind::kRead);
  if (!Succeeded(r)) return Failure(r, RequestKind::kRead, options.prefix);
  OMNIGRAPH_ASSIGN_OR_RETURN(ListObjectsResult listed, ParseListObjectsV2(r.body));
  ListPage page;
  for (ListedObject& object : listed.objects) {
    ObjectMeta meta;
    OMNIGRAPH_ASSIGN_OR_RETURN(meta.name, keys_.NameOf(object.key, options.prefix));
    meta.size_bytes = object.size_bytes;
    meta.etag = std::move(object.etag);
    meta.last_modified_micros = object.last_modified_micros;
    page.objects.push_back(std::move(meta));
  }
  if (listed.truncated) page.continuation = std::move(listed.next_continuation_token);
  return page;
}

Status S3Store::Delete(std::string_view name) {
  OMNIGRAPH_RETURN_IF_ERROR(CheckName(name));
  HttpResponse r = Send(Call{"DELETE", Key(name), ""}, RequestKind::kWrite);
  if (Succeeded(r)) return Status::Ok();
  Status failure = Failure(r, RequestKind::kWrite, name);
  // Deleting an absent name succeeds (S3 says 204 anyway; some servers say 404 NoSuchKey).
  if (failure.kind() == Kind::kNotFound) return Status::Ok();
  return failure;
}

}  // namespace omnigraph::storage::s3
