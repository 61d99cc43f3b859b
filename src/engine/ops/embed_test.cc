// Embeddings as OmniGraph's reference defines them (docs/design/query-execution.md "Embeddings"):
// writes never embed (a missing @embed vector stays null, no endpoint needed); the one client
// speaks each provider's wire format, checked here against stubs on loopback that assert the
// request (path, key header, body) and answer it; retries and the deadline; `nearest($v, "text")`
// through the client; and the offline `omnigraph embed` file pipeline (engine/ops/embed_file.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

#include "engine/ops/embed_file.h"
#include "engine/ops/load.h"
#include "engine/read/query.h"
#include "engine/write/mutate.h"
#include "query/exec/embedder.h"
#include "storage/memory_store.h"
#include "storage/s3/s3_test_util.h"

namespace omnigraph::engine {
namespace {

using storage::s3::ScriptedHttpServer;

constexpr uint32_t kDim = 8;
constexpr std::string_view kSchema = R"(
node Doc { slug: String @key  text: String?  emb: Vector(8)? @embed("text") }
)";

// A vector the stub answers for `text` (not normalized; the client normalizes).
std::vector<float> Raw(const std::string& text, uint32_t dim = kDim) {
  std::vector<float> v(dim);
  for (uint32_t i = 0; i < dim; ++i) v[i] = static_cast<float>((text.size() + i) % 7) + 1.0f;
  return v;
}

std::vector<float> Unit(std::vector<float> v) {
  double sum = 0;
  for (float f : v) sum += static_cast<double>(f) * f;
  const float norm = static_cast<float>(std::sqrt(sum));
  for (float& f : v) f /= norm;
  return v;
}

// A provider endpoint on loopback: `answer(request, n)` for the n-th request (0-based).
class Stub {
 public:
  using Answer = std::function<ScriptedHttpServer::Reply(const ScriptedHttpServer::Request&, int)>;
  explicit Stub(Answer answer)
      : answer_(std::move(answer)), server_([this](const ScriptedHttpServer::Request& r) {
          int n;
          {
            std::lock_guard lock(mu_);
            n = served_++;
          }
          return answer_(r, n);
        }) {}
  std::string endpoint() const { return server_.endpoint(); }
  std::vector<ScriptedHttpServer::Request> requests() const { return server_.requests(); }

 private:
  Answer answer_;
  std::mutex mu_;
  int served_ = 0;
  ScriptedHttpServer server_;
};

ScriptedHttpServer::Reply JsonReply(long status, const Json& body) {
  ScriptedHttpServer::Reply reply;
  reply.status = status;
  reply.headers.emplace_back("Content-Type", "application/json");
  reply.body = body.dump();
  return reply;
}

// The OpenAI-compatible answer to a request: its inputs' vectors, in reverse order (the client
// must place them by `index`).
ScriptedHttpServer::Reply OpenAiAnswer(const ScriptedHttpServer::Request& r) {
  const Json body = Json::parse(r.body);
  const auto inputs = body["input"].get<std::vector<std::string>>();
  Json data = Json::array();
  for (size_t i = inputs.size(); i-- > 0;) {
    data.push_back({{"object", "embedding"},
                    {"index", i},
                    {"embedding", Raw(inputs[i], body["dimensions"].get<uint32_t>())}});
  }
  return JsonReply(200, {{"object", "list"}, {"data", data}});
}

ScriptedHttpServer::Reply GeminiAnswer(const ScriptedHttpServer::Request& r) {
  const Json body = Json::parse(r.body);
  const std::string text = body["content"]["parts"][0]["text"].get<std::string>();
  return JsonReply(
      200, {{"embedding", {{"values", Raw(text, body["outputDimensionality"].get<uint32_t>())}}}});
}

using Env = std::map<std::string, std::string>;

Result<query::EmbedConfig> ConfigOf(const Env& env) {
  return query::EmbedConfig::FromLookup([env](std::string_view n) -> std::optional<std::string> {
    auto it = env.find(std::string(n));
    if (it == env.end()) return std::nullopt;
    return it->second;
  });
}

constexpr const char* kVariables[] = {"OMNIGRAPH_EMBEDDINGS_MOCK",
                                      "OMNIGRAPH_EMBED_PROVIDER",
                                      "OMNIGRAPH_EMBED_BASE_URL",
                                      "OMNIGRAPH_EMBED_MODEL",
                                      "OPENROUTER_API_KEY",
                                      "OPENAI_API_KEY",
                                      "GEMINI_API_KEY",
                                      "OMNIGRAPH_EMBED_DEADLINE_MS",
                                      "OMNIGRAPH_EMBED_TIMEOUT_MS",
                                      "OMNIGRAPH_EMBED_RETRY_ATTEMPTS",
                                      "OMNIGRAPH_EMBED_RETRY_BACKOFF_MS"};

TEST(EmbedConfigTest, TheReferencesDefaultsAndPrecedence) {
  Result<query::EmbedConfig> router =
      ConfigOf({{"OPENROUTER_API_KEY", "r"}, {"OPENAI_API_KEY", "o"}});
  ASSERT_TRUE(router.ok()) << router.status().ToString();
  EXPECT_EQ(router->provider, query::EmbedProvider::kOpenAiCompatible);
  EXPECT_EQ(router->base_url, "https://openrouter.ai/api/v1");
  EXPECT_EQ(router->model, "openai/text-embedding-3-large");
  EXPECT_EQ(router->api_key, "r");
  EXPECT_EQ(router->deadline_ms, 60'000);
  // `openai` is OpenAI's own host, and an OpenRouter key is never sent there.
  Result<query::EmbedConfig> openai =
      ConfigOf({{"OMNIGRAPH_EMBED_PROVIDER", "openai"}, {"OPENROUTER_API_KEY", "r"}});
  ASSERT_FALSE(openai.ok());
  EXPECT_EQ(openai.status().code(), Code::kConfiguration);
  EXPECT_EQ(openai.status().message(),
            "OPENAI_API_KEY is required for the openai embedding provider");
  openai = ConfigOf({{"OMNIGRAPH_EMBED_PROVIDER", "openai"}, {"OPENAI_API_KEY", "o"}});
  ASSERT_TRUE(openai.ok());
  EXPECT_EQ(openai->base_url, "https://api.openai.com/v1");
  EXPECT_EQ(openai->model, "text-embedding-3-large");
  Result<query::EmbedConfig> gemini = ConfigOf({{"OMNIGRAPH_EMBED_PROVIDER", "gemini"},
                                                {"GEMINI_API_KEY", "g"},
                                                {"OMNIGRAPH_EMBED_BASE_URL", "http://h:1/v1beta/"},
                                                {"OMNIGRAPH_EMBED_DEADLINE_MS", "0"}});
  ASSERT_TRUE(gemini.ok());
  EXPECT_EQ(gemini->provider, query::EmbedProvider::kGemini);
  EXPECT_EQ(gemini->base_url, "http://h:1/v1beta");
  EXPECT_EQ(gemini->model, "gemini-embedding-2");
  EXPECT_EQ(gemini->deadline_ms, 0);
  Result<query::EmbedConfig> none = ConfigOf({});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(),
            "OPENROUTER_API_KEY or OPENAI_API_KEY is required for the openai-compatible embedding "
            "provider");
  Result<query::EmbedConfig> unknown = ConfigOf({{"OMNIGRAPH_EMBED_PROVIDER", "cohere"}});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("unknown embedding provider 'cohere'"),
            std::string::npos);
  Result<query::EmbedConfig> bad =
      ConfigOf({{"OPENAI_API_KEY", "o"}, {"OMNIGRAPH_EMBED_RETRY_ATTEMPTS", "0"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "OMNIGRAPH_EMBED_RETRY_ATTEMPTS is '0'; expected a whole number from 1 to 10");
}

TEST(EmbedConfigTest, TheMockFlagWinsOverAConfiguredProviderAndSaysSo) {
  Result<query::EmbedConfig> c =
      ConfigOf({{"OMNIGRAPH_EMBEDDINGS_MOCK", " TRUE "}, {"OMNIGRAPH_EMBED_PROVIDER", "gemini"}});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->provider, query::EmbedProvider::kMock);
  EXPECT_NE(c->warning.find("overrides OMNIGRAPH_EMBED_PROVIDER=gemini"), std::string::npos);
  Result<query::EmbedConfig> named =
      ConfigOf({{"OMNIGRAPH_EMBED_PROVIDER", "mock"}, {"OMNIGRAPH_EMBED_MODEL", "m"}});
  ASSERT_TRUE(named.ok());
  EXPECT_EQ(named->provider, query::EmbedProvider::kMock);
  EXPECT_EQ(named->model, "m");
  EXPECT_TRUE(named->warning.empty());
  Result<query::EmbedConfig> off =
      ConfigOf({{"OMNIGRAPH_EMBEDDINGS_MOCK", "0"}, {"OPENAI_API_KEY", "o"}});
  ASSERT_TRUE(off.ok());
  EXPECT_EQ(off->provider, query::EmbedProvider::kOpenAiCompatible);
}

TEST(MockEmbeddingTest, IsADeterministicUnitVectorOfTheText) {
  const std::vector<float> a = query::MockEmbedding("alpha", 8);
  EXPECT_EQ(a, query::MockEmbedding("alpha", 8));
  EXPECT_NE(a, query::MockEmbedding("beta", 8));
  ASSERT_EQ(a.size(), 8u);
  double sum = 0;
  for (float f : a) sum += static_cast<double>(f) * f;
  EXPECT_NEAR(sum, 1.0, 1e-5);
  // The whole vector by hand: FNV-1a 64 of the text seeds xorshift64, each step one component
  // in [-1, 1], then the L2 normalization.
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : std::string("alpha")) h = (h ^ c) * 1099511628211ull;
  std::vector<double> expected;
  double norm = 0;
  for (int i = 0; i < 8; ++i) {
    h ^= h << 13;
    h ^= h >> 7;
    h ^= h << 17;
    expected.push_back(static_cast<double>(h) / 18446744073709551615.0 * 2 - 1);
    norm += expected.back() * expected.back();
  }
  for (int i = 0; i < 8; ++i) EXPECT_NEAR(a[i], expected[i] / std::sqrt(norm), 1e-6) << i;
}

class ClientTest : public testing::Test {
 protected:
  query::EmbedConfig Config(const Env& env) {
    Result<query::EmbedConfig> c = ConfigOf(env);
    OMNIGRAPH_CHECK_MSG(c.ok(), c.status().ToString());
    return *c;
  }
  ManualClock clock_;
};

TEST_F(ClientTest, OpenAiCompatibleSendsBearerModelInputsAndDimensionsAndPlacesByIndex) {
  Stub stub([](const ScriptedHttpServer::Request& r, int) { return OpenAiAnswer(r); });
  query::Embedder e(Config({{"OPENROUTER_API_KEY", "sk-router"},
                            {"OMNIGRAPH_EMBED_BASE_URL", stub.endpoint() + "/api/v1"}}),
                    clock_);
  const std::vector<std::string> texts = {"a", "bb", "ccc"};
  Result<std::vector<std::vector<float>>> v =
      e.Embed(texts, kDim, query::EmbedRole::kDocument, "Doc.emb");
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  ASSERT_EQ(v->size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ((*v)[i], Unit(Raw(texts[i])));
  auto requests = stub.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "POST");
  EXPECT_EQ(requests[0].target, "/api/v1/embeddings");
  EXPECT_EQ(requests[0].headers["authorization"], "Bearer sk-router");
  EXPECT_EQ(Json::parse(requests[0].body), (Json{{"model", "openai/text-embedding-3-large"},
                                                 {"input", Json::array({"a", "bb", "ccc"})},
                                                 {"dimensions", kDim}}));
}

TEST_F(ClientTest, OpenAiSendsBatchesOfSixtyFour) {
  Stub stub([](const ScriptedHttpServer::Request& r, int) { return OpenAiAnswer(r); });
  query::Embedder e(Config({{"OMNIGRAPH_EMBED_PROVIDER", "openai"},
                            {"OPENAI_API_KEY", "sk-openai"},
                            {"OMNIGRAPH_EMBED_BASE_URL", stub.endpoint() + "/v1"}}),
                    clock_);
  std::vector<std::string> texts;
  for (int i = 0; i < 130; ++i) texts.push_back("t" + std::to_string(i));
  Result<std::vector<std::vector<float>>> v =
      e.Embed(texts, kDim, query::EmbedRole::kDocument, "Doc.emb");
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ((*v)[129], Unit(Raw("t129")));
  std::vector<size_t> sizes;
  for (const auto& r : stub.requests()) {
    sizes.push_back(Json::parse(r.body)["input"].size());
    EXPECT_EQ(Json::parse(r.body)["model"], "text-embedding-3-large");
    EXPECT_EQ(r.headers.at("authorization"), "Bearer sk-openai");
  }
  EXPECT_EQ(sizes, (std::vector<size_t>{64, 64, 2}));
}

TEST_F(ClientTest, GeminiSendsItsOwnShapeWithTheGoogleKeyAndTaskType) {
  Stub stub([](const ScriptedHttpServer::Request& r, int) { return GeminiAnswer(r); });
  query::Embedder e(Config({{"OMNIGRAPH_EMBED_PROVIDER", "gemini"},
                            {"GEMINI_API_KEY", "g-key"},
                            {"OMNIGRAPH_EMBED_BASE_URL", stub.endpoint() + "/v1beta"}}),
                    clock_);
  const std::vector<std::string> docs = {"one", "three"};
  Result<std::vector<std::vector<float>>> v =
      e.Embed(docs, kDim, query::EmbedRole::kDocument, "Doc.emb");
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ((*v)[1], Unit(Raw("three")));
  const std::vector<std::string> q = {"why"};
  ASSERT_TRUE(e.Embed(q, kDim, query::EmbedRole::kQuery, "Doc.emb").ok());
  auto requests = stub.requests();
  ASSERT_EQ(requests.size(), 3u);  // One text per request.
  EXPECT_EQ(requests[0].target, "/v1beta/models/gemini-embedding-2:embedContent");
  EXPECT_EQ(requests[0].headers["x-goog-api-key"], "g-key");
  EXPECT_EQ(requests[0].headers.count("authorization"), 0u);
  EXPECT_EQ(Json::parse(requests[1].body),
            (Json{{"model", "models/gemini-embedding-2"},
                  {"content", {{"parts", Json::array({Json{{"text", "three"}}})}}},
                  {"taskType", "RETRIEVAL_DOCUMENT"},
                  {"outputDimensionality", kDim}}));
  EXPECT_EQ(Json::parse(requests[2].body)["taskType"], "RETRIEVAL_QUERY");
}

TEST_F(ClientTest, A429IsRetriedAfterTheBackoffThenSucceeds) {
  Stub stub([](const ScriptedHttpServer::Request& r, int n) {
    if (n == 0) return JsonReply(429, {{"error", {{"message", "slow down"}}}});
    return GeminiAnswer(r);
  });
  query::Embedder e(Config({{"OMNIGRAPH_EMBED_PROVIDER", "gemini"},
                            {"GEMINI_API_KEY", "g"},
                            {"OMNIGRAPH_EMBED_BASE_URL", stub.endpoint()}}),
                    clock_);
  const int64_t before = clock_.NowMicros();
  const std::vector<std::string> t = {"x"};
  Result<std::vector<std::vector<float>>> v = e.Embed(t, kDim, query::EmbedRole::kQuery, "Doc.emb");
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(stub.requests().size(), 2u);
  EXPECT_EQ(clock_.NowMicros() - before, 200'000);  // One backoff of 200 ms.
}

TEST_F(ClientTest, RefusalsAreTypedAndOnlyTransientOnesRetried) {
  Stub stub([](const ScriptedHttpServer::Request&, int n) {
    if (n == 0) return JsonReply(401, {{"error", {{"message", "bad key"}}}});
    if (n == 1) return JsonReply(400, {{"error", {{"message", "bad input"}}}});
    return JsonReply(503, {{"error", {{"message", "down"}}}});
  });
  query::Embedder e(Config({{"OPENAI_API_KEY", "o"},
                            {"OMNIGRAPH_EMBED_RETRY_ATTEMPTS", "3"},
                            {"OMNIGRAPH_EMBED_BASE_URL", stub.endpoint()}}),
                    clock_);
  const std::vector<std::string> t = {"x"};
  auto r = e.Embed(t, kDim, query::EmbedRole::kDocument, "Doc.emb");
  EXPECT_EQ(r.status().code(), Code::kConfiguration);
  EXPECT_NE(r.status().message().find("HTTP 401: bad key"), std::string::npos);
  r = e.Embed(t, kDim, query::EmbedRole::kDocument, "Doc.emb");
  EXPECT_EQ(r.status().code(), Code::kPermanent);
  r = e.Embed(t, kDim, query::EmbedRole::kDocument, "Doc.emb");
  EXPECT_EQ(r.status().code(), Code::kTransient);
  EXPECT_NE(r.status().message().find("failed 3 times"), std::string::npos);
  EXPECT_EQ(stub.requests().size(), 5u);  // 1 + 1 + 3 attempts.
}

TEST_F(ClientTest, ABadAnswerIsRefusedNamingTheProperty) {
  Stub stub([](const ScriptedHttpServer::Request&, int n) {
    if (n == 0)
      return JsonReply(200, {{"data", Json::array({{{"index", 0}, {"embedding", {1, 2}}}})}});
    return JsonReply(
        200, {{"data", Json::array({{{"index", 0}, {"embedding", std::vector<float>(kDim, 0)}}})}});
  });
  query::Embedder e(
      Config({{"OPENAI_API_KEY", "o"}, {"OMNIGRAPH_EMBED_BASE_URL", stub.endpoint()}}), clock_);
  const std::vector<std::string> t = {"x"};
  auto r = e.Embed(t, kDim, query::EmbedRole::kDocument, "Doc.emb");
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  EXPECT_NE(r.status().message().find("2 numbers for Doc.emb, which is Vector(8)"),
            std::string::npos)
      << r.status().ToString();
  r = e.Embed(t, kDim, query::EmbedRole::kDocument, "Doc.emb");
  EXPECT_NE(r.status().message().find("all-zero"), std::string::npos) << r.status().ToString();
}

TEST_F(ClientTest, TheDeadlineBoundsTheRetriesAndNamesTheProvider) {
  Stub stub([](const ScriptedHttpServer::Request&, int) {
    return JsonReply(500, {{"error", {{"message", "boom"}}}});
  });
  // 500, backoff 200 ms; 500 again at 200 ms, and the next backoff (400 ms) would pass 300 ms.
  query::Embedder e(Config({{"OMNIGRAPH_EMBED_PROVIDER", "gemini"},
                            {"GEMINI_API_KEY", "g"},
                            {"OMNIGRAPH_EMBED_DEADLINE_MS", "300"},
                            {"OMNIGRAPH_EMBED_BASE_URL", stub.endpoint()}}),
                    clock_);
  const std::vector<std::string> t = {"x"};
  auto r = e.Embed(t, kDim, query::EmbedRole::kQuery, "Doc.emb");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kTransient);
  EXPECT_NE(r.status().message().find("embedding deadline exceeded after 300 ms (provider gemini, "
                                      "model gemini-embedding-2"),
            std::string::npos)
      << r.status().ToString();
  EXPECT_EQ(stub.requests().size(), 2u);
}

TEST(ClientDeadlineTest, ASlowProviderIsCutOffAtTheDeadline) {
  // The stub answers after the client has hung up; its write must not end the test process.
  ::signal(SIGPIPE, SIG_IGN);
  Stub stub([](const ScriptedHttpServer::Request& r, int) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    return OpenAiAnswer(r);
  });
  Result<query::EmbedConfig> c = ConfigOf({{"OPENAI_API_KEY", "o"},
                                           {"OMNIGRAPH_EMBED_DEADLINE_MS", "200"},
                                           {"OMNIGRAPH_EMBED_BASE_URL", stub.endpoint()}});
  ASSERT_TRUE(c.ok());
  query::Embedder e(*c, *SystemClock::Default());
  const std::vector<std::string> t = {"x"};
  auto r = e.Embed(t, kDim, query::EmbedRole::kQuery, "Doc.emb");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kTransient);
  EXPECT_NE(r.status().message().find("deadline exceeded after 200 ms (provider openai-compatible"),
            std::string::npos)
      << r.status().ToString();
  EXPECT_EQ(stub.requests().size(), 1u);
}

class EmbedGraphTest : public testing::Test {
 protected:
  void SetUp() override {
    for (const char* v : kVariables) ::unsetenv(v);
    dir_ = std::filesystem::temp_directory_path() /
           ("embed_test_" + std::to_string(::getpid()) + "_" +
            testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    for (const char* v : kVariables) ::unsetenv(v);
    std::filesystem::remove_all(dir_);
  }

  std::unique_ptr<Graph> NewGraph(std::string_view schema = kSchema) {
    storage::Runtime rt = storage::Runtime::ForTest(std::make_shared<storage::MemoryStore>(), 1);
    rt.clock = std::make_shared<ManualClock>();
    Result<std::unique_ptr<Graph>> g = Graph::Init(rt, schema);
    OMNIGRAPH_CHECK_MSG(g.ok(), g.status().ToString());
    return std::move(*g);
  }

  // slug → stored vector (empty when null).
  static std::map<std::string, std::vector<float>> Vectors(Graph& g) {
    Result<OrderedJson> out =
        RunQuery(*g.SnapshotOfBranch("main"),
                 "query all() { match { $d: Doc } return { $d.slug, $d.emb } order { $d.slug } }",
                 "all", Json::object(), RunOptions{});
    OMNIGRAPH_CHECK_MSG(out.ok(), out.status().ToString());
    std::map<std::string, std::vector<float>> m;
    for (const auto& row : (*out)["rows"]) {
      std::vector<float>& v = m[row["d.slug"].get<std::string>()];
      if (!row["d.emb"].is_null()) v = row["d.emb"].get<std::vector<float>>();
    }
    return m;
  }

  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }
  static std::string Read(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  std::filesystem::path dir_;
};

TEST_F(EmbedGraphTest, WritesNeverEmbedAndLeaveAMissingVectorNull) {
  // An endpoint that would answer is configured, and must see nothing.
  Stub stub([](const ScriptedHttpServer::Request& r, int) { return OpenAiAnswer(r); });
  ::setenv("OMNIGRAPH_EMBED_BASE_URL", stub.endpoint().c_str(), 1);
  ::setenv("OPENAI_API_KEY", "o", 1);
  std::unique_ptr<Graph> g = NewGraph();
  const std::string input =
      R"({"type":"Doc","data":{"slug":"a","text":"graph databases"}})"
      "\n"
      R"({"type":"Doc","data":{"slug":"b","text":"given","emb":[1,0,0,0,0,0,0,0]}})"
      "\n";
  Result<LoadResult> r = LoadJsonl(*g, "main", input, LoadMode::kAppend);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const std::string mutations = R"(
query add($slug: String, $text: String) { insert Doc { slug: $slug, text: $text } }
query retext($slug: String, $text: String) { update Doc set { text: $text } where slug = $slug }
)";
  ASSERT_TRUE(Mutate(*g, mutations, "add", Json{{"slug", "c"}, {"text", "new"}}, {}).ok());
  ASSERT_TRUE(Mutate(*g, mutations, "retext", Json{{"slug", "b"}, {"text", "changed"}}, {}).ok());
  auto v = Vectors(*g);
  EXPECT_TRUE(v["a"].empty());
  // An update of the text keeps the stored vector (stale until `omnigraph embed` refreshes it).
  EXPECT_EQ(v["b"], (std::vector<float>{1, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_TRUE(v["c"].empty());
  EXPECT_TRUE(stub.requests().empty());
}

TEST_F(EmbedGraphTest, ARequiredEmbedVectorIsRequiredLikeAnyProperty) {
  std::unique_ptr<Graph> g =
      NewGraph("node Doc { slug: String @key  text: String  emb: Vector(8) @embed(\"text\") }");
  Result<LoadResult> r =
      LoadJsonl(*g, "main", R"({"type":"Doc","data":{"slug":"a","text":"t"}})", LoadMode::kAppend);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("emb"), std::string::npos) << r.status().ToString();
}

TEST_F(EmbedGraphTest, CookbookSeedsLoadWithNoEmbeddingVariables) {
  for (const std::string cookbook : {"industry-intel", "second-brain"}) {
    const char* root = std::getenv("OMNIGRAPH_SOURCE_DIR");
    const std::string base = std::string(root ? root : OMNIGRAPH_SOURCE_DIR_FALLBACK) +
                             "/../shared/fixtures/cookbooks/" + cookbook;
    std::unique_ptr<Graph> g = NewGraph(Read(base + "/schema.pg"));
    // No embedding variable is set: a write never asks for an embedding.
    const std::string seed = Read(base + "/seed.jsonl");
    Result<LoadResult> r = LoadJsonl(*g, "main", seed, LoadMode::kOverwrite);
    ASSERT_TRUE(r.ok()) << cookbook << ": " << r.status().ToString();
    EXPECT_GT(r->total_entities, 0u) << cookbook;
  }
}

TEST_F(EmbedGraphTest, NearestWithAStringEmbedsThroughTheMockAndSkipsNullVectors) {
  ::setenv("OMNIGRAPH_EMBEDDINGS_MOCK", "1", 1);
  std::unique_ptr<Graph> g = NewGraph();
  std::string input;
  for (const std::string s : {"alpha", "beta", "gamma"}) {
    input += R"({"type":"Doc","data":{"slug":")" + s + R"(","emb":)" +
             Json(query::MockEmbedding("doc " + s, kDim)).dump() + "}}\n";
  }
  input += R"({"type":"Doc","data":{"slug":"unembedded","text":"alpha"}})";
  ASSERT_TRUE(LoadJsonl(*g, "main", input, LoadMode::kAppend).ok());
  const std::string queries = R"(
query by_text($q: String) { match { $d: Doc } return { $d.slug } order { nearest($d.emb, $q) } limit 10 }
query by_vector($q: Vector(8)) { match { $d: Doc } return { $d.slug } order { nearest($d.emb, $q) } limit 10 }
)";
  Result<OrderedJson> text = RunQuery(*g->SnapshotOfBranch("main"), queries, "by_text",
                                      Json{{"q", "doc beta"}}, RunOptions{});
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  Result<OrderedJson> vec =
      RunQuery(*g->SnapshotOfBranch("main"), queries, "by_vector",
               Json{{"q", query::MockEmbedding("doc beta", kDim)}}, RunOptions{});
  ASSERT_TRUE(vec.ok()) << vec.status().ToString();
  EXPECT_EQ((*text)["rows"], (*vec)["rows"]);
  ASSERT_EQ((*text)["rows"].size(), 3u);  // The null vector is not ranked.
  EXPECT_EQ((*text)["rows"][0]["d.slug"], "beta");
}

TEST_F(EmbedGraphTest, NearestRefusesAQueryModelOtherThanTheRecordedOne) {
  ::setenv("OMNIGRAPH_EMBEDDINGS_MOCK", "1", 1);
  ::setenv("OMNIGRAPH_EMBED_MODEL", "model-b", 1);
  std::unique_ptr<Graph> g = NewGraph(
      "node Doc { slug: String @key  text: String?  emb: Vector(8)? @embed(\"text\", "
      "model=\"model-a\") }");
  const std::string q =
      "query f($q: String) { match { $d: Doc } return { $d.slug } order { nearest($d.emb, $q) } "
      "limit 3 }";
  Result<OrderedJson> out =
      RunQuery(*g->SnapshotOfBranch("main"), q, "f", Json{{"q", "x"}}, RunOptions{});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), Code::kConfiguration);
  EXPECT_NE(out.status().message().find("embedded with model 'model-a'"), std::string::npos)
      << out.status().ToString();
  ::setenv("OMNIGRAPH_EMBED_MODEL", "model-a", 1);
  EXPECT_TRUE(RunQuery(*g->SnapshotOfBranch("main"), q, "f", Json{{"q", "x"}}, RunOptions{}).ok());
}

TEST_F(EmbedGraphTest, NearestWithAStringAsksTheConfiguredProvider) {
  Stub stub([](const ScriptedHttpServer::Request& r, int) { return OpenAiAnswer(r); });
  ::setenv("OMNIGRAPH_EMBED_BASE_URL", stub.endpoint().c_str(), 1);
  ::setenv("OPENROUTER_API_KEY", "sk", 1);
  std::unique_ptr<Graph> g = NewGraph();
  const std::string q =
      "query f($q: String) { match { $d: Doc } return { $d.slug } order { nearest($d.emb, $q) } "
      "limit 3 }";
  ASSERT_TRUE(
      RunQuery(*g->SnapshotOfBranch("main"), q, "f", Json{{"q", "hello"}}, RunOptions{}).ok());
  auto requests = stub.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(Json::parse(requests[0].body)["input"], Json::array({"hello"}));
  EXPECT_EQ(requests[0].headers["authorization"], "Bearer sk");
}

TEST_F(EmbedGraphTest, TheFilePipelineFillsCleansAndSelects) {
  ::setenv("OMNIGRAPH_EMBEDDINGS_MOCK", "1", 1);
  const std::string input = Write(
      "raw.jsonl", R"({"type":"Doc","data":{"slug":"a","text":"graph","tags":["x","y"]}})"
                   "\n\n"
                   R"({"type":"Doc","data":{"slug":"b","text":"kept","emb":[1,0,0,0,0,0,0,0]}})"
                   "\n"
                   R"({"type":"Other","data":{"slug":"o"}})"
                   "\n"
                   R"({"edge":"Link","from":"a","to":"b"})"
                   "\n");
  EmbedFileJob job;
  job.input = input;
  job.output = (dir_ / "out" / "embedded.jsonl").string();
  job.spec =
      Json::parse(R"({"dimension":8,"types":{"Doc":{"target":"emb","fields":["text","tags"]}}})");
  Result<Json> s = RunEmbedFile(job, *SystemClock::Default());
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ((*s)["records"], 4);
  EXPECT_EQ((*s)["selected_records"], 3);
  EXPECT_EQ((*s)["embedded_records"], 1);
  EXPECT_EQ((*s)["mode"], "fill_missing");
  std::vector<Json> lines;
  std::istringstream out(Read(job.output));
  for (std::string l; std::getline(out, l);) lines.push_back(Json::parse(l));
  ASSERT_EQ(lines.size(), 4u);
  const auto a = lines[0]["data"]["emb"].get<std::vector<float>>();
  EXPECT_EQ(a, query::MockEmbedding("type: Doc\ntext: graph\ntags: x, y", kDim));
  EXPECT_EQ(lines[1]["data"]["emb"], Json::array({1, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(lines[3], Json::parse(R"({"edge":"Link","from":"a","to":"b"})"));
  EXPECT_FALSE(std::filesystem::exists(job.output + ".tmp"));

  // The output loads, and the vectors rank as the mock ranks them.
  std::unique_ptr<Graph> g = NewGraph(
      "node Doc { slug: String @key  text: String?  tags: [String]?  "
      "emb: Vector(8)? @embed(\"text\") }");
  std::string docs;
  for (size_t i = 0; i < 2; ++i) docs += lines[i].dump() + "\n";
  ASSERT_TRUE(LoadJsonl(*g, "main", docs, LoadMode::kAppend).ok());

  // A selector re-embeds the selected record even though it has a vector.
  job.input = job.output;
  job.output = (dir_ / "re.jsonl").string();
  job.selectors = {"Doc:slug=b"};
  s = RunEmbedFile(job, *SystemClock::Default());
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ((*s)["mode"], "reembed_selected");
  EXPECT_EQ((*s)["selected_records"], 1);
  EXPECT_EQ((*s)["embedded_records"], 1);
  std::istringstream re(Read(job.output));
  std::string l0, l1;
  std::getline(re, l0);
  std::getline(re, l1);
  EXPECT_EQ(Json::parse(l1)["data"]["emb"].get<std::vector<float>>(),
            query::MockEmbedding("type: Doc\ntext: kept", kDim));
  EXPECT_EQ(Json::parse(l0)["data"]["emb"].get<std::vector<float>>(), a);

  // Clean removes the target of every selected record.
  job.selectors.clear();
  job.mode = EmbedFileMode::kClean;
  job.output = (dir_ / "clean.jsonl").string();
  s = RunEmbedFile(job, *SystemClock::Default());
  ASSERT_TRUE(s.ok());
  EXPECT_EQ((*s)["cleaned_records"], 2);
  EXPECT_EQ((*s)["model"], "");
  EXPECT_EQ(Read(job.output).find("\"emb\""), std::string::npos);
}

TEST_F(EmbedGraphTest, TheFilePipelineBatchesRequestsAndReplacesNothingOnFailure) {
  Stub stub([](const ScriptedHttpServer::Request& r, int n) {
    if (n == 1) return JsonReply(429, {{"error", {{"message", "slow down"}}}});
    return OpenAiAnswer(r);
  });
  ::setenv("OMNIGRAPH_EMBED_BASE_URL", stub.endpoint().c_str(), 1);
  ::setenv("OPENROUTER_API_KEY", "sk", 1);
  ::setenv("OMNIGRAPH_EMBED_RETRY_BACKOFF_MS", "1", 1);
  std::string raw;
  for (int i = 0; i < 130; ++i) {
    raw += R"({"type":"Doc","data":{"slug":"d)" + std::to_string(i) +
           R"(","text":"t"}})"
           "\n";
  }
  EmbedFileJob job;
  job.input = Write("raw.jsonl", raw);
  job.output = (dir_ / "out.jsonl").string();
  job.spec = Json::parse(R"({"dimension":8,"types":{"Doc":{"target":"emb","fields":["text"]}}})");
  Result<Json> s = RunEmbedFile(job, *SystemClock::Default());
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ((*s)["embedded_records"], 130);
  EXPECT_EQ((*s)["model"], "openai/text-embedding-3-large");
  std::vector<size_t> sizes;
  for (const auto& r : stub.requests()) sizes.push_back(Json::parse(r.body)["input"].size());
  EXPECT_EQ(sizes, (std::vector<size_t>{64, 64, 64, 2}));  // The second was a 429, retried.

  // A refused provider leaves the previous output in place.
  ::setenv("OMNIGRAPH_EMBED_PROVIDER", "gemini", 1);
  const std::string before = Read(job.output);
  s = RunEmbedFile(job, *SystemClock::Default());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Code::kConfiguration);
  EXPECT_EQ(Read(job.output), before);
  EXPECT_FALSE(std::filesystem::exists(job.output + ".tmp"));
}

// The cookbooks' hybrid retrieval (industry-intel queries/hybrid.gq) end to end with the mock
// provider: chunks without vectors go through the file pipeline, the output loads, and
// `related_chunks` embeds its question the same way — checked against a cosine ranking computed
// here over the mock's vectors: the embeddings are unit vectors, so the squared L2 order that
// `nearest` follows (decision 199) is the cosine order.
TEST_F(EmbedGraphTest, CookbookRelatedChunksRanksPipelineVectorsByCosine) {
  ::setenv("OMNIGRAPH_EMBEDDINGS_MOCK", "1", 1);
  constexpr uint32_t kCookbookDim = 3072;
  constexpr int kChunks = 30;
  const char* root = std::getenv("OMNIGRAPH_SOURCE_DIR");
  const std::string base = std::string(root ? root : OMNIGRAPH_SOURCE_DIR_FALLBACK) +
                           "/../shared/fixtures/cookbooks/industry-intel";
  const std::vector<std::string> words = {"graph", "vector", "agent", "memory", "cloud"};
  std::mt19937 rng(5);
  std::string raw;
  std::vector<std::string> texts;
  for (int i = 0; i < kChunks; ++i) {
    std::string text;
    for (int n = 0; n < 4; ++n) text += words[rng() % words.size()] + " ";
    text += std::to_string(i);  // No two texts alike, so no two distances tie.
    texts.push_back(text);
    raw += R"({"type":"Chunk","data":{"id":"c)" + std::to_string(i) + R"(","text":")" + text +
           R"(","chunk_index":)" + std::to_string(i) + R"(,"createdAt":"2026-01-01T00:00:00Z"}})" +
           "\n";
  }
  EmbedFileJob job;
  job.input = Write("chunks.jsonl", raw);
  job.output = (dir_ / "chunks.embedded.jsonl").string();
  job.spec = Json{{"dimension", kCookbookDim},
                  {"types", {{"Chunk", {{"target", "embedding"}, {"fields", {"text"}}}}}}};
  ASSERT_TRUE(RunEmbedFile(job, *SystemClock::Default()).ok());
  std::unique_ptr<Graph> g = NewGraph(Read(base + "/schema.pg"));
  Result<LoadResult> r = LoadJsonl(*g, "main", Read(job.output), LoadMode::kAppend);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const std::string q = "agent memory graph";
  Result<OrderedJson> out =
      RunQuery(*g->SnapshotOfBranch("main"), Read(base + "/queries/hybrid.gq"), "related_chunks",
               Json{{"q", q}}, RunOptions{});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const std::vector<float> qv = query::MockEmbedding(q, kCookbookDim);
  std::vector<std::pair<double, int>> d;
  for (int i = 0; i < kChunks; ++i) {
    const std::vector<float> v =
        query::MockEmbedding("type: Chunk\ntext: " + texts[i], kCookbookDim);
    double dot = 0;
    for (uint32_t k = 0; k < kCookbookDim; ++k) dot += static_cast<double>(qv[k]) * v[k];
    d.emplace_back(1 - dot, i);
  }
  std::sort(d.begin(), d.end());
  std::vector<int> expected, got;
  for (int i = 0; i < 10; ++i) expected.push_back(d[i].second);
  for (const auto& row : (*out)["rows"]) got.push_back(row["c.chunk_index"].get<int>());
  EXPECT_EQ(got, expected);
}

}  // namespace
}  // namespace omnigraph::engine
