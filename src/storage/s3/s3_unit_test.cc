// The S3 backend without a real server: encoding, XML, configuration, the HTTP → failure mapping
// of docs/design/overview.md "Failures", and the retry rules, driven by a scripted HTTP server on
// loopback.
#include <gtest/gtest.h>

#include <atomic>

#include "base/hash.h"
#include "storage/s3/s3_errors.h"
#include "storage/s3/s3_store.h"
#include "storage/s3/s3_test_util.h"
#include "storage/s3/s3_xml.h"

namespace omnigraph::storage::s3 {
namespace {

using Reply = ScriptedHttpServer::Reply;
using Request = ScriptedHttpServer::Request;

TEST(S3EncodingTest, UriEncodeKeepsUnreservedAndOptionallySlash) {
  EXPECT_EQ(UriEncode("a/b c+d~e_f.g-h", false), "a/b%20c%2Bd~e_f.g-h");
  EXPECT_EQ(UriEncode("a/b", true), "a%2Fb");
  EXPECT_EQ(UriEncode("\xc3\xbc&=?#%", false), "%C3%BC%26%3D%3F%23%25");
}

TEST(S3EncodingTest, CanonicalQueryIsSortedAndEncoded) {
  EXPECT_EQ(CanonicalQuery({{"prefix", "a/b c"}, {"list-type", "2"}, {"max-keys", "3"}}),
            "list-type=2&max-keys=3&prefix=a%2Fb%20c");
  EXPECT_EQ(CanonicalQuery({{"start-after", "x"}, {"continuation-token", "t+/="}}),
            "continuation-token=t%2B%2F%3D&start-after=x");
}

TEST(S3ConfigTest, AddressingStyles) {
  S3Config c;
  c.endpoint = "http://127.0.0.1:7480";
  c.path_style = true;
  EXPECT_EQ(BucketUrl(c, "b", "a b/c", "list-type=2"),
            "http://127.0.0.1:7480/b/a%20b/c?list-type=2");
  EXPECT_EQ(BucketUrl(c, "b", ""), "http://127.0.0.1:7480/b");
  c.endpoint = "https://s3.eu-west-1.amazonaws.com";
  c.path_style = false;
  EXPECT_EQ(BucketUrl(c, "b", "k"), "https://b.s3.eu-west-1.amazonaws.com/k");
  EXPECT_EQ(BucketUrl(c, "b", "", "list-type=2"),
            "https://b.s3.eu-west-1.amazonaws.com/?list-type=2");
}

Result<S3Config> FromMap(std::map<std::string, std::string> env) {
  return S3Config::FromLookup([&](std::string_view name) -> std::optional<std::string> {
    auto it = env.find(std::string(name));
    if (it == env.end()) return std::nullopt;
    return it->second;
  });
}

TEST(S3ConfigTest, ReadsTheUsualVariablesAndNamesTheMissingOne) {
  Result<S3Config> no_key = FromMap({{"AWS_SECRET_ACCESS_KEY", "s"}});
  ASSERT_FALSE(no_key.ok());
  EXPECT_EQ(no_key.status().kind(), Kind::kConfiguration);
  EXPECT_NE(no_key.status().message().find("AWS_ACCESS_KEY_ID"), std::string::npos);
  Result<S3Config> no_secret = FromMap({{"AWS_ACCESS_KEY_ID", "k"}});
  ASSERT_FALSE(no_secret.ok());
  EXPECT_NE(no_secret.status().message().find("AWS_SECRET_ACCESS_KEY"), std::string::npos);

  Result<S3Config> aws = FromMap({{"AWS_ACCESS_KEY_ID", "k"},
                                  {"AWS_SECRET_ACCESS_KEY", "s"},
                                  {"AWS_DEFAULT_REGION", "eu-west-1"}});
  ASSERT_TRUE(aws.ok());
  EXPECT_EQ(aws->region, "eu-west-1");
  EXPECT_EQ(aws->endpoint, "https://s3.eu-west-1.amazonaws.com");
  EXPECT_FALSE(aws->path_style);

  Result<S3Config> custom = FromMap({{"AWS_ACCESS_KEY_ID", "k"},
                                     {"AWS_SECRET_ACCESS_KEY", "s"},
                                     {"AWS_ENDPOINT_URL", "http://127.0.0.1:7480/"},
                                     {"AWS_ALLOW_HTTP", "true"},
                                     {"AWS_REGION", "us-east-2"},
                                     {"AWS_DEFAULT_REGION", "eu-west-1"},
                                     {"S3_FORCE_PATH_STYLE", "false"}});
  ASSERT_TRUE(custom.ok());
  EXPECT_EQ(custom->endpoint, "http://127.0.0.1:7480");
  EXPECT_EQ(custom->endpoint_source, "AWS_ENDPOINT_URL");
  EXPECT_EQ(custom->region, "us-east-2");
  EXPECT_FALSE(custom->path_style);

  Result<S3Config> bad = FromMap(
      {{"AWS_ACCESS_KEY_ID", "k"}, {"AWS_SECRET_ACCESS_KEY", "s"}, {"AWS_ENDPOINT_URL", "rgw:80"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().kind(), Kind::kConfiguration);
  EXPECT_NE(bad.status().message().find("AWS_ENDPOINT_URL"), std::string::npos);
}

TEST(S3XmlTest, ParsesListObjectsV2WithEntities) {
  const std::string xml =
      "<?xml version=\"1.0\"?><ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
      "<Name>b</Name><Prefix>p/</Prefix><IsTruncated>true</IsTruncated><Contents><Key>p/a&amp;b "
      "&lt;&#233;&#x41;&gt;</Key><LastModified>2026-11-29T15:06:38.323Z</LastModified>"
      "<ETag>&quot;5d41&quot;</ETag><Size>12</Size></Contents><Contents><Key>p/z</Key>"
      "<LastModified>2026-11-29T15:06:39Z</LastModified><ETag>\"e2\"</ETag><Size>0</Size>"
      "</Contents><NextContinuationToken>tok&amp;1</NextContinuationToken></ListBucketResult>";
  Result<ListObjectsResult> r = ParseListObjectsV2(xml);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->objects.size(), 2u);
  EXPECT_EQ(r->objects[0].key,
            "p/a&b <\xc3\xa9"
            "A>");
  EXPECT_EQ(r->objects[0].etag, "5d41");
  EXPECT_EQ(r->objects[0].size_bytes, 12u);
  EXPECT_EQ(r->objects[0].last_modified_micros, 1'795'964'798'323'000);
  EXPECT_EQ(r->objects[1].last_modified_micros, 1'795'964'799'000'000);
  EXPECT_TRUE(r->truncated);
  EXPECT_EQ(r->next_continuation_token, "tok&1");
  EXPECT_EQ(ParseS3Error(S3ErrorBody("NoSuchBucket")).code, "NoSuchBucket");
  EXPECT_EQ(ParseS3Error("<html>").code, "");
  EXPECT_FALSE(ParseListObjectsV2("<Error/>").ok());
  EXPECT_FALSE(XmlUnescape("a &bogus; b").ok());
  EXPECT_EQ(ParseHttpDateMicros("Sun, 29 Nov 2026 15:06:38 GMT").value_or(0),
            1'795'964'798'000'000);
}

HttpResponse Answer(long status, std::string_view code = {}) {
  HttpResponse r;
  r.status = status;
  if (!code.empty()) r.body = S3ErrorBody(code);
  return r;
}

TEST(S3MappingTest, FollowsArchitectureSection9) {
  const ErrorContext c{"obj", "bkt", "http://h:1", "AWS_ENDPOINT_URL", ""};
  auto kind = [&](const HttpResponse& r, RequestKind k) { return MapFailure(r, k, c).kind(); };
  using RK = RequestKind;
  EXPECT_EQ(kind(Answer(404, "NoSuchKey"), RK::kRead), Kind::kNotFound);
  EXPECT_EQ(kind(Answer(404, "NoSuchBucket"), RK::kRead), Kind::kConfiguration);
  EXPECT_EQ(kind(Answer(412, "PreconditionFailed"), RK::kConditionalWrite), Kind::kPrecondition);
  EXPECT_EQ(kind(Answer(409, "OperationAborted"), RK::kConditionalWrite), Kind::kPrecondition);
  EXPECT_EQ(kind(Answer(409, "ConditionalRequestConflict"), RK::kConditionalWrite), Kind::kUnknown);
  EXPECT_EQ(kind(Answer(403, "AccessDenied"), RK::kRead), Kind::kConfiguration);
  EXPECT_EQ(kind(Answer(401), RK::kWrite), Kind::kConfiguration);
  EXPECT_EQ(kind(Answer(429), RK::kWrite), Kind::kTransient);
  EXPECT_EQ(kind(Answer(503, "SlowDown"), RK::kWrite), Kind::kTransient);
  EXPECT_EQ(kind(Answer(500, "InternalError"), RK::kWrite), Kind::kUnknown);
  EXPECT_EQ(kind(Answer(500, "UnknownError"), RK::kConditionalWrite), Kind::kUnknown);
  EXPECT_EQ(kind(Answer(503), RK::kWrite), Kind::kUnknown);
  EXPECT_EQ(kind(Answer(500, "InternalError"), RK::kRead), Kind::kTransient);
  EXPECT_EQ(kind(Answer(400, "KeyTooLongError"), RK::kWrite), Kind::kInvalidArgument);
  EXPECT_EQ(kind(Answer(400, "AuthorizationHeaderMalformed"), RK::kRead), Kind::kConfiguration);
  EXPECT_EQ(kind(Answer(301, "PermanentRedirect"), RK::kRead), Kind::kConfiguration);
  EXPECT_EQ(kind(Answer(400, "MalformedXML"), RK::kWrite), Kind::kPermanent);
  HttpResponse not_sent;
  not_sent.transport = Transport::kNotSent;
  EXPECT_EQ(kind(not_sent, RK::kConditionalWrite), Kind::kTransient);
  HttpResponse no_answer;
  no_answer.transport = Transport::kNoAnswer;
  EXPECT_EQ(kind(no_answer, RK::kConditionalWrite), Kind::kUnknown);
  EXPECT_EQ(kind(no_answer, RK::kRead), Kind::kTransient);
  Status denied = MapFailure(Answer(403, "InvalidAccessKeyId"), RK::kRead, c);
  EXPECT_NE(denied.message().find("AWS_ACCESS_KEY_ID"), std::string::npos) << denied.ToString();
  Status signature = MapFailure(Answer(403, "SignatureDoesNotMatch"), RK::kRead, c);
  EXPECT_NE(signature.message().find("AWS_SECRET_ACCESS_KEY"), std::string::npos);
  EXPECT_TRUE(NothingHappened(Answer(409, "ConditionalRequestConflict")));
  EXPECT_TRUE(NothingHappened(Answer(503, "SlowDown")));
  EXPECT_FALSE(NothingHappened(Answer(500, "InternalError")));
  EXPECT_TRUE(OutcomeUnknown(Answer(500, "InternalError")));
}

// A scripted server plus a store on it. `script` answers every request after the open probe.
class S3ScriptedTest : public testing::Test {
 protected:
  void Start(ScriptedHttpServer::Handler script) {
    script_ = std::move(script);
    server_ = std::make_unique<ScriptedHttpServer>([this](const Request& r) -> Reply {
      if (r.method == "GET" && r.target.find("list-type=2") != std::string::npos &&
          r.target.find("max-keys=1&") != std::string::npos) {
        return Reply{
            200, {}, "<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>"};
      }
      return script_(r);
    });
    S3Config config;
    config.endpoint = server_->endpoint();
    config.endpoint_source = "AWS_ENDPOINT_URL";
    config.access_key_id = "AKTEST";
    config.secret_access_key = "secret";
    config.retry.backoff_base_micros = 1'000;
    config.request_timeout_ms = 5'000;
    Result<std::unique_ptr<S3Store>> store = S3Store::Open(config, "bkt", "pre/fix");
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(*store);
  }
  // Requests after the open probe.
  std::vector<Request> Requests() const {
    std::vector<Request> all = server_->requests();
    return std::vector<Request>(all.begin() + 1, all.end());
  }
  static Reply Ok(std::string etag = "\"md5\"", std::string token = "") {
    Reply r{200, {{"ETag", etag}, {"Last-Modified", "Sun, 29 Nov 2026 15:06:38 GMT"}}, ""};
    if (!token.empty()) r.headers.push_back({kWriteTokenHeader, token});
    return r;
  }
  static Reply Error(long status, std::string_view code) {
    return Reply{status, {{"Content-Type", "application/xml"}}, S3ErrorBody(code)};
  }

  ScriptedHttpServer::Handler script_;
  std::unique_ptr<ScriptedHttpServer> server_;
  std::unique_ptr<S3Store> store_;
};

TEST_F(S3ScriptedTest, RequestsAreSignedWithTheContentHashAndCanonicalPaths) {
  Start([](const Request&) { return Ok(); });
  ASSERT_TRUE(store_->Put("a b/c+d", "payload").ok());
  std::vector<Request> requests = Requests();
  ASSERT_EQ(requests.size(), 1u);
  const Request& put = requests[0];
  EXPECT_EQ(put.method, "PUT");
  EXPECT_EQ(put.target, "/bkt/pre/fix/a%20b/c%2Bd");
  EXPECT_EQ(put.body, "payload");
  EXPECT_EQ(put.headers.at("x-amz-content-sha256"), Sha256Hex("payload"));
  EXPECT_EQ(put.headers.count("x-amz-date"), 1u);
  EXPECT_EQ(put.headers.count(kWriteTokenHeader), 1u);
  const std::string& auth = put.headers.at("authorization");
  EXPECT_EQ(auth.rfind("AWS4-HMAC-SHA256 Credential=AKTEST/", 0), 0u) << auth;
  EXPECT_NE(auth.find("/us-east-1/s3/aws4_request"), std::string::npos) << auth;
  EXPECT_NE(auth.find("x-amz-content-sha256"), std::string::npos) << auth;
}

TEST_F(S3ScriptedTest, ConditionalCreateOf412IsAlreadyExists) {
  Start([](const Request& r) {
    EXPECT_EQ(r.headers.at("if-none-match"), "*");
    return Error(412, "PreconditionFailed");
  });
  Result<bool> created = store_->PutIfAbsent("n", "x");
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_FALSE(*created);
  EXPECT_EQ(Requests().size(), 1u);
}

TEST_F(S3ScriptedTest, ConditionalRequestConflictIsRetriedThenUnknown) {
  std::atomic<int> puts{0};
  Start([&](const Request&) {
    return ++puts <= 2 ? Error(409, "ConditionalRequestConflict") : Ok();
  });
  Result<bool> created = store_->PutIfAbsent("n", "x");
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_TRUE(*created);
  EXPECT_EQ(puts.load(), 3);

  puts = -100;  // Conflicts for longer than the retries last.
  Result<bool> stuck = store_->PutIfAbsent("m", "x");
  ASSERT_FALSE(stuck.ok());
  EXPECT_EQ(stuck.status().kind(), Kind::kUnknown) << stuck.status().ToString();
  EXPECT_EQ(puts.load(), -100 + S3Config().retry.attempts_max);
}

TEST_F(S3ScriptedTest, OtherConflictOnAConditionalCreateIsAlreadyExists) {
  Start([](const Request&) { return Error(409, "OperationAborted"); });
  Result<bool> created = store_->PutIfAbsent("n", "x");
  ASSERT_TRUE(created.ok());
  EXPECT_FALSE(*created);
}

// RGW answers 500 to the losers of an If-Match race. The read-back decides.
TEST_F(S3ScriptedTest, ServerErrorToALosingIfMatchRacerIsPrecondition) {
  std::atomic<int> heads{0};
  Start([&](const Request& r) {
    if (r.method == "HEAD") {
      // First the pre-check sees the expected etag; after the 500, a rival's write.
      return ++heads == 1 ? Ok("\"old\"", "t1") : Ok("\"rival\"", "t9");
    }
    EXPECT_EQ(r.headers.at("if-match"), "old");  // Without quotes: RGW needs that.
    return Error(500, "UnknownError");
  });
  Result<std::string> r = store_->PutIfMatch("meta", "v2", "old:t1");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().kind(), Kind::kPrecondition) << r.status().ToString();
  EXPECT_EQ(Requests().size(), 3u);  // HEAD, PUT, HEAD: the PUT is not repeated.
}

TEST_F(S3ScriptedTest, ServerErrorToAnIfMatchWriteThatLandedIsSuccess) {
  std::string token;
  std::atomic<int> heads{0};
  Start([&](const Request& r) {
    if (r.method == "PUT") {
      token = r.headers.at(kWriteTokenHeader);
      return Error(500, "InternalError");
    }
    return ++heads == 1 ? Ok("\"old\"", "t1") : Ok("\"new\"", token);
  });
  Result<std::string> r = store_->PutIfMatch("meta", "v2", "old:t1");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, "new:" + token);
}

TEST_F(S3ScriptedTest, ServerErrorWithTheEtagUnchangedRetriesTheIfMatchWrite) {
  std::atomic<int> puts{0};
  Start([&](const Request& r) {
    if (r.method == "HEAD") return Ok("\"old\"", "t1");
    return ++puts == 1 ? Error(500, "UnknownError") : Ok("\"new\"");
  });
  Result<std::string> r = store_->PutIfMatch("meta", "v2", "old:t1");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(puts.load(), 2);
}

TEST_F(S3ScriptedTest, IfMatch412OnAnAbsentNameIsNotFound) {
  std::atomic<int> heads{0};
  Start([&](const Request& r) {
    if (r.method == "HEAD") return ++heads == 1 ? Ok("\"old\"") : Reply{404, {}, ""};
    return Error(412, "PreconditionFailed");  // RGW's answer for an absent name.
  });
  Result<std::string> r = store_->PutIfMatch("meta", "v2", "old");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().kind(), Kind::kNotFound) << r.status().ToString();
}

// The acknowledgement of a create that landed is lost: the read-back finds our write token.
TEST_F(S3ScriptedTest, LostAcknowledgementOfACreateIsResolvedByItsWriteToken) {
  std::string token;
  Start([&](const Request& r) {
    if (r.method == "PUT") {
      token = r.headers.at(kWriteTokenHeader);
      return Reply{.drop = true};
    }
    return Ok("\"md5\"", token);
  });
  Result<bool> created = store_->PutIfAbsent("n", "x");
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_TRUE(*created);
  std::vector<Request> requests = Requests();
  // libcurl re-sends once on its own when the reused connection dies; we never repeat it.
  ASSERT_LE(requests.size(), 3u);
  EXPECT_EQ(requests.back().method, "HEAD");
}

// The first copy of a create landed, its connection died, and libcurl's silent re-send heard
// "exists": the write token shows the object is ours.
TEST_F(S3ScriptedTest, CreateWhoseFirstCopyLandedBeforeLibcurlResentItIsCreated) {
  std::string token;
  std::atomic<int> puts{0};
  Start([&](const Request& r) {
    if (r.method == "PUT") {
      token = r.headers.at(kWriteTokenHeader);
      return ++puts == 1 ? Reply{.drop = true} : Error(412, "PreconditionFailed");
    }
    return Ok("\"md5\"", token);
  });
  Result<bool> created = store_->PutIfAbsent("n", "x");
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_TRUE(*created);
  EXPECT_EQ(puts.load(), 2);
}

// The create landed, its answer and the read-back were lost: Unknown. The caller's re-drive then
// meets its own object and hears "exists" — which is why the commit layer reads records back.
TEST_F(S3ScriptedTest, RetriedCreateThatLandedTheFirstTimeReportsExists) {
  std::atomic<int> puts{0};
  Start([&](const Request& r) {
    if (r.method == "PUT") {
      return ++puts <= 2 ? Reply{.drop = true} : Error(412, "PreconditionFailed");
    }
    return Reply{.drop = true};
  });
  Result<bool> first = store_->PutIfAbsent("n", "x");
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(first.status().kind(), Kind::kUnknown) << first.status().ToString();
  const int sent = puts.load();
  EXPECT_LE(sent, 2);
  Result<bool> again = store_->PutIfAbsent("n", "x");
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_FALSE(*again);
}

TEST_F(S3ScriptedTest, WritesAreNotRepeatedAfterAServerErrorButReadsAre) {
  std::atomic<int> calls{0};
  Start([&](const Request& r) {
    ++calls;
    if (r.method == "GET") return calls == 1 ? Error(500, "InternalError") : Ok();
    return Error(500, "InternalError");
  });
  Result<GetResult> got = store_->Get("n");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(calls.load(), 2);
  calls = 0;
  Status put = store_->Put("n", "x");
  EXPECT_EQ(put.kind(), Kind::kUnknown) << put.ToString();
  EXPECT_EQ(calls.load(), 1);
  calls = 0;
  EXPECT_EQ(store_->Delete("n").kind(), Kind::kUnknown);
  EXPECT_EQ(calls.load(), 1);
}

TEST_F(S3ScriptedTest, SlowDownIsRetriedForWritesToo) {
  std::atomic<int> calls{0};
  Start([&](const Request&) { return ++calls < 3 ? Error(503, "SlowDown") : Ok(); });
  EXPECT_TRUE(store_->Put("n", "x").ok());
  EXPECT_EQ(calls.load(), 3);
}

TEST_F(S3ScriptedTest, RefusedCredentialsNameTheVariable) {
  Start([](const Request&) { return Error(403, "InvalidAccessKeyId"); });
  Status s = store_->Put("n", "x");
  EXPECT_EQ(s.kind(), Kind::kConfiguration);
  EXPECT_NE(s.message().find("AWS_ACCESS_KEY_ID"), std::string::npos) << s.ToString();
}

TEST(S3OpenTest, UnreachableEndpointIsAConfigurationErrorNamingTheVariable) {
  int port;
  {
    // A port that was just free: nothing listens there.
    ScriptedHttpServer probe([](const ScriptedHttpServer::Request&) { return Reply{}; });
    port = probe.port();
  }
  S3Config config;
  config.endpoint = "http://127.0.0.1:" + std::to_string(port);
  config.endpoint_source = "AWS_ENDPOINT_URL";
  config.access_key_id = "k";
  config.secret_access_key = "s";
  config.retry.backoff_base_micros = 1'000;
  Result<std::unique_ptr<S3Store>> store = S3Store::Open(config, "bkt", "");
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().kind(), Kind::kConfiguration);
  EXPECT_NE(store.status().message().find("AWS_ENDPOINT_URL"), std::string::npos)
      << store.status().ToString();
  EXPECT_NE(store.status().message().find(config.endpoint), std::string::npos);
}

TEST(S3OpenTest, MissingBucketIsAConfigurationErrorNamingTheBucket) {
  ScriptedHttpServer server([](const Request&) {
    return Reply{404, {}, S3ErrorBody("NoSuchBucket")};
  });
  S3Config config;
  config.endpoint = server.endpoint();
  config.endpoint_source = "AWS_ENDPOINT_URL";
  config.access_key_id = "k";
  config.secret_access_key = "s";
  Result<std::unique_ptr<S3Store>> store = S3Store::Open(config, "no-such-bucket", "p");
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().kind(), Kind::kConfiguration);
  EXPECT_NE(store.status().message().find("'no-such-bucket'"), std::string::npos)
      << store.status().ToString();
}

// The shared client's POST (the remote API's requests) and its streaming sink (a remote export):
// a 2xx body goes to the sink as it arrives, any other answer's body stays in the response for
// its error, and a sink that refuses a chunk stops the transfer.
TEST(HttpClientTest, PostSendsItsBodyAndASinkTakesOnlyASuccessfulAnswer) {
  ScriptedHttpServer server([](const Request& r) {
    Reply reply;
    reply.status = r.target == "/fail" ? 409 : 200;
    reply.body = r.target == "/fail" ? "{\"error\":\"no\"}" : "echo:" + r.body;
    return reply;
  });
  HttpClient client(HttpClientOptions{});
  HttpRequest post;
  post.method = "POST";
  post.url = server.endpoint() + "/ok";
  post.headers = {"Content-Type: application/json"};
  post.body = "{\"a\":1}";
  std::string streamed;
  post.body_sink = [&streamed](std::string_view chunk) {
    streamed.append(chunk);
    return true;
  };
  HttpResponse ok = client.Send(post);
  EXPECT_EQ(ok.status, 200);
  EXPECT_EQ(streamed, "echo:{\"a\":1}");
  EXPECT_EQ(ok.body, "");
  ASSERT_EQ(server.requests().size(), 1u);
  EXPECT_EQ(server.requests()[0].method, "POST");
  EXPECT_EQ(server.requests()[0].body, "{\"a\":1}");
  EXPECT_EQ(server.requests()[0].headers.at("content-type"), "application/json");

  streamed.clear();
  post.url = server.endpoint() + "/fail";
  HttpResponse refused = client.Send(post);
  EXPECT_EQ(refused.status, 409);
  EXPECT_EQ(refused.body, "{\"error\":\"no\"}");
  EXPECT_EQ(streamed, "");

  post.url = server.endpoint() + "/ok";
  post.body_sink = [](std::string_view) { return false; };
  HttpResponse stopped = client.Send(post);
  EXPECT_EQ(stopped.transport, Transport::kNoAnswer);
}

}  // namespace
}  // namespace omnigraph::storage::s3
