// The Azure backend without a server: Shared Key signing (checked against openssl, as
// scripts/start-azurite.sh signs), configuration from the environment, and the §9 failure mapping
// against a scripted HTTP server.
#include <gtest/gtest.h>

#include <atomic>
#include <map>

#include "storage/azure/azure_test_util.h"

namespace omnigraph::storage::azure {
namespace {

using s3::ScriptedHttpServer;
using Reply = ScriptedHttpServer::Reply;
using Request = ScriptedHttpServer::Request;

constexpr char kDevKey[] =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

TEST(AzureSigningTest, StringToSignAndSignatureMatchOpenssl) {
  SignedRequest r;
  r.method = "GET";
  r.ms_headers = {{"x-ms-version", "2021-08-06"}, {"X-Ms-Date", "Sun, 29 Nov 2026 15:06:38 GMT"}};
  r.path = "/devstoreaccount1/c";
  r.query = {{"restype", "container"}, {"comp", "list"}};
  const std::string sts = StringToSign(r, "devstoreaccount1");
  EXPECT_EQ(sts,
            "GET\n\n\n\n\n\n\n\n\n\n\n\nx-ms-date:Sun, 29 Nov 2026 15:06:38 GMT\n"
            "x-ms-version:2021-08-06\n/devstoreaccount1/devstoreaccount1/c\ncomp:list\n"
            "restype:container");
  // printf '%s' "$sts" | openssl dgst -sha256 -mac HMAC -macopt hexkey:<key> -binary | base64
  EXPECT_EQ(SharedKeySignature(kDevKey, sts).value_or(""),
            "Li0CAsWm9aN0tHebM+Q7rzeXCtgtZ5MwZ9e/y0M+Wzg=");
  EXPECT_EQ(SharedKeySignature("not base64!", sts).status().kind(), Kind::kConfiguration);
}

TEST(AzureSigningTest, PutSignsLengthTypeAndConditions) {
  SignedRequest r;
  r.method = "PUT";
  r.content_length = 5;
  r.content_type = "application/octet-stream";
  r.if_none_match = "*";
  r.path = "/c/b";
  EXPECT_EQ(StringToSign(r, "acct"),
            "PUT\n\n\n5\n\napplication/octet-stream\n\n\n\n*\n\n\n/acct/c/b");
}

Result<AzureConfig> FromMap(const std::map<std::string, std::string>& env) {
  return AzureConfig::FromLookup([&](std::string_view name) -> std::optional<std::string> {
    auto it = env.find(std::string(name));
    if (it == env.end()) return std::nullopt;
    return it->second;
  });
}

TEST(AzureConfigTest, ConnectionStringAndVariables) {
  Result<AzureConfig> c = FromMap(
      {{"AZURE_STORAGE_CONNECTION_STRING",
        std::string("DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=") +
            kDevKey + ";BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1/;"}});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->account, "devstoreaccount1");
  EXPECT_EQ(c->key, kDevKey);
  EXPECT_EQ(c->endpoint, "http://127.0.0.1:10000/devstoreaccount1");

  Result<AzureConfig> d =
      FromMap({{"AZURE_STORAGE_ACCOUNT", "acct"}, {"AZURE_STORAGE_KEY", kDevKey}});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->endpoint, "https://acct.blob.core.windows.net");

  Result<AzureConfig> e = FromMap({{"AZURE_STORAGE_ACCOUNT", "acct"}});
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().kind(), Kind::kConfiguration);
  EXPECT_NE(e.status().message().find("AZURE_STORAGE_KEY"), std::string::npos);
  EXPECT_FALSE(FromMap({}).ok());
  EXPECT_FALSE(FromMap({{"AZURE_STORAGE_ACCOUNT", "a"}, {"AZURE_STORAGE_KEY", "%%%"}}).ok());
}

Reply AzureError(long status, const std::string& code) {
  Reply reply;
  reply.status = status;
  reply.headers = {{"x-ms-error-code", code}};
  reply.body = "<?xml version=\"1.0\" encoding=\"utf-8\"?><Error><Code>" + code +
               "</Code><Message>scripted</Message></Error>";
  return reply;
}

AzureConfig ConfigFor(const ScriptedHttpServer& server) {
  AzureConfig config;
  config.account = "acct";
  config.key = kDevKey;
  config.endpoint = server.endpoint() + "/acct";
  config.endpoint_source = "test";
  config.retry.backoff_base_micros = 1'000;
  config.request_timeout_ms = 2'000;
  return config;
}

Reply ListReply() {
  Reply reply;
  reply.body =
      "<?xml version=\"1.0\"?><EnumerationResults><Blobs></Blobs><NextMarker/>"
      "</EnumerationResults>";
  return reply;
}

TEST(AzureMappingTest, ConditionalAnswersAndServerErrors) {
  std::atomic<int> busy{0};
  ScriptedHttpServer server([&](const Request& req) -> Reply {
    EXPECT_NE(req.headers.count("authorization"), 0u);
    if (req.method == "GET" && req.target.find("comp=list") != std::string::npos) {
      return ListReply();
    }
    if (req.method == "HEAD" || (req.method == "GET" && !req.target.ends_with("/broken"))) {
      return AzureError(404, "BlobNotFound");
    }
    if (req.target.ends_with("/exists")) return AzureError(409, "BlobAlreadyExists");
    if (req.target.ends_with("/stale")) return AzureError(412, "ConditionNotMet");
    if (req.target.ends_with("/denied")) return AzureError(403, "AuthenticationFailed");
    if (req.target.ends_with("/busy") && busy++ < 2) return AzureError(503, "ServerBusy");
    if (req.target.ends_with("/broken")) return AzureError(500, "InternalError");
    Reply ok;
    ok.status = 201;
    ok.headers = {{"ETag", "\"0x1\""}};
    return ok;
  });
  Result<std::unique_ptr<AzureStore>> opened = AzureStore::Open(ConfigFor(server), "c", "");
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  AzureStore& store = **opened;
  Result<bool> exists = store.PutIfAbsent("exists", "x");
  ASSERT_TRUE(exists.ok()) << exists.status().ToString();
  EXPECT_FALSE(*exists);
  EXPECT_EQ(store.PutIfMatch("stale", "x", "0x9").status().kind(), Kind::kNotFound);
  EXPECT_EQ(store.Put("denied", "x").kind(), Kind::kConfiguration);
  EXPECT_TRUE(store.Put("busy", "x").ok());  // 503 ServerBusy twice, then retried.
  EXPECT_EQ(store.Put("broken", "x").kind(), Kind::kUnknown);
  EXPECT_EQ(store.Get("broken").status().kind(), Kind::kTransient);
  EXPECT_EQ(store.Get("missing").status().kind(), Kind::kNotFound);
}

TEST(AzureMappingTest, ALostCreateAnswerIsSettledByTheWriteToken) {
  std::string token;
  ScriptedHttpServer server([&](const Request& req) -> Reply {
    if (req.method == "GET") return ListReply();
    if (req.method == "PUT") {
      token = req.headers.at(kWriteTokenHeader);
      Reply drop;
      drop.drop = true;
      return drop;
    }
    Reply head;
    head.headers = {{"ETag", "\"0x2\""},
                    {"Last-Modified", "Sun, 29 Nov 2026 15:06:38 GMT"},
                    {kWriteTokenHeader, token}};
    return head;
  });
  Result<std::unique_ptr<AzureStore>> opened = AzureStore::Open(ConfigFor(server), "c", "");
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  Result<bool> created = (*opened)->PutIfAbsent("r/1", "x");
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_TRUE(*created);
  EXPECT_EQ((*opened)->Put("r/2", "x").kind(), Kind::kUnknown);
}

}  // namespace
}  // namespace omnigraph::storage::azure
