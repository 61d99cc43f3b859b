// @embed and `nearest($v, "text")` against an OpenAI-compatible embeddings endpoint stubbed on
// loopback (docs/design/query-execution.md "Embeddings"): the stub answers each input with a
// vector hashed from its text (computed again here as the oracle) and records every request, so
// the tests check the vectors written, the requests sent (batching, retries) and that a refused
// write changes nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <random>
#include <set>
#include <sstream>

#include "base/hash.h"
#include "engine/load.h"
#include "engine/mutate.h"
#include "engine/query.h"
#include "query/embedder.h"
#include "storage/memory_store.h"
#include "storage/s3/s3_test_util.h"

namespace omnigraph::engine {
namespace {

using storage::s3::ScriptedHttpServer;

constexpr uint32_t kDim = 8;
constexpr std::string_view kSchema = R"(
node Doc { slug: String @key  text: String?  emb: Vector(8)? @embed("text", model="stub-model") }
)";
// The same without a model in the annotation: OMNIGRAPH_EMBED_MODEL names it.
constexpr std::string_view kSchemaNoModel = R"(
node Doc { slug: String @key  text: String?  emb: Vector(8)? @embed("text") }
)";

// The stub's vector of `text`: kDim numbers in [-1, 1] from a hash of the text.
std::vector<float> StubVector(const std::string& text, uint32_t dim = kDim) {
  std::vector<float> v(dim);
  for (uint32_t i = 0; i < dim; ++i) {
    v[i] = static_cast<float>(static_cast<int>(XxHash64(text, i) % 2001) - 1000) / 1000.0f;
  }
  return v;
}

// An embeddings endpoint: answers with StubVector of each input, or with the scripted failure
// of `fail(n)` for the n-th request (0-based) when it returns a status.
class StubEndpoint {
 public:
  explicit StubEndpoint(std::function<std::optional<long>(int n)> fail = nullptr,
                        uint32_t dim = kDim)
      : fail_(std::move(fail)),
        dim_(dim),
        server_([this](const ScriptedHttpServer::Request& r) { return Answer(r); }) {}

  std::string base_url() const { return server_.endpoint() + "/v1"; }
  std::vector<ScriptedHttpServer::Request> requests() const { return server_.requests(); }
  // The inputs of each request.
  std::vector<std::vector<std::string>> inputs() const {
    std::vector<std::vector<std::string>> out;
    for (const auto& r : requests()) {
      out.push_back(Json::parse(r.body)["input"].get<std::vector<std::string>>());
    }
    return out;
  }

 private:
  ScriptedHttpServer::Reply Answer(const ScriptedHttpServer::Request& r) {
    int n;
    {
      std::lock_guard lock(mu_);
      n = served_++;
    }
    ScriptedHttpServer::Reply reply;
    reply.headers.emplace_back("Content-Type", "application/json");
    if (fail_) {
      if (std::optional<long> status = fail_(n)) {
        reply.status = *status;
        reply.body = R"({"error":{"message":"scripted failure"}})";
        return reply;
      }
    }
    if (r.method != "POST" || r.target != "/v1/embeddings") {
      reply.status = 404;
      return reply;
    }
    Json body = Json::parse(r.body);
    Json data = Json::array();
    const auto inputs = body["input"].get<std::vector<std::string>>();
    // Answered in reverse order: the client must place vectors by `index`.
    for (size_t i = inputs.size(); i-- > 0;) {
      data.push_back(
          {{"object", "embedding"}, {"index", i}, {"embedding", StubVector(inputs[i], dim_)}});
    }
    reply.body = Json{{"object", "list"}, {"data", data}, {"model", body["model"]}}.dump();
    return reply;
  }

  std::function<std::optional<long>(int)> fail_;
  uint32_t dim_;
  std::mutex mu_;
  int served_ = 0;
  ScriptedHttpServer server_;
};

constexpr const char* kVariables[] = {"OMNIGRAPH_EMBED_BASE_URL",
                                      "OMNIGRAPH_EMBED_MODEL",
                                      "OPENROUTER_API_KEY",
                                      "OPENAI_API_KEY",
                                      "OMNIGRAPH_EMBED_RETRY_ATTEMPTS",
                                      "OMNIGRAPH_EMBED_TIMEOUT_MS",
                                      "OMNIGRAPH_EMBED_RETRY_BACKOFF_MS"};

class EmbedTest : public testing::Test {
 protected:
  void SetUp() override {
    for (const char* v : kVariables) ::unsetenv(v);
    clock_ = std::make_shared<ManualClock>();
  }
  void TearDown() override {
    for (const char* v : kVariables) ::unsetenv(v);
  }

  void Configure(const StubEndpoint& stub) {
    ::setenv("OMNIGRAPH_EMBED_BASE_URL", stub.base_url().c_str(), 1);
  }

  std::unique_ptr<Graph> NewGraph(std::string_view schema = kSchema) {
    storage::Runtime rt = storage::Runtime::ForTest(std::make_shared<storage::MemoryStore>(), 1);
    rt.clock = clock_;
    Result<std::unique_ptr<Graph>> g = Graph::Init(rt, schema);
    OMNIGRAPH_CHECK_MSG(g.ok(), g.status().ToString());
    return std::move(*g);
  }

  static std::string Head(Graph& g) { return g.SnapshotOfBranch("main")->commit_id(); }

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

  static std::string DocLine(const std::string& slug, const std::string& text) {
    return R"({"type":"Doc","data":{"slug":")" + slug + R"(","text":")" + text + "\"}}\n";
  }

  std::shared_ptr<ManualClock> clock_;
};

TEST_F(EmbedTest, LoadComputesMissingVectorsFromTheTextAndKeepsGivenOnes) {
  StubEndpoint stub;
  Configure(stub);
  ::setenv("OPENROUTER_API_KEY", "sk-test", 1);
  std::unique_ptr<Graph> g = NewGraph();
  const std::string input =
      DocLine("a", "graph databases") +
      R"({"type":"Doc","data":{"slug":"b","text":"given","emb":[1,0,0,0,0,0,0,0]}})"
      "\n" +
      R"({"type":"Doc","data":{"slug":"c"}})"
      "\n" +
      DocLine("d", "vector search");
  Result<LoadResult> r = LoadJsonl(*g, "main", input, LoadMode::kAppend);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto v = Vectors(*g);
  EXPECT_EQ(v["a"], StubVector("graph databases"));
  EXPECT_EQ(v["b"], (std::vector<float>{1, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_TRUE(v["c"].empty());
  EXPECT_EQ(v["d"], StubVector("vector search"));
  // One request with the two texts, the annotation's model and the key as a bearer token.
  auto requests = stub.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].headers["authorization"], "Bearer sk-test");
  Json body = Json::parse(requests[0].body);
  EXPECT_EQ(body["model"], "stub-model");
  EXPECT_EQ(body["input"], Json::array({"graph databases", "vector search"}));
}

TEST_F(EmbedTest, TheModelComesFromTheEnvironmentWhenTheAnnotationNamesNone) {
  StubEndpoint stub;
  Configure(stub);
  std::unique_ptr<Graph> g = NewGraph(kSchemaNoModel);
  const std::string before = Head(*g);
  Result<LoadResult> r = LoadJsonl(*g, "main", DocLine("a", "x"), LoadMode::kAppend);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kConfiguration);
  EXPECT_NE(r.status().message().find("OMNIGRAPH_EMBED_MODEL"), std::string::npos)
      << r.status().ToString();
  EXPECT_EQ(Head(*g), before);
  EXPECT_EQ(stub.requests().size(), 0u);
  ::setenv("OMNIGRAPH_EMBED_MODEL", "env-model", 1);
  ASSERT_TRUE(LoadJsonl(*g, "main", DocLine("a", "x"), LoadMode::kAppend).ok());
  ASSERT_EQ(stub.requests().size(), 1u);
  EXPECT_EQ(Json::parse(stub.requests()[0].body)["model"], "env-model");
  EXPECT_EQ(Vectors(*g)["a"], StubVector("x"));
}

TEST_F(EmbedTest, LoadSendsBoundedBatches) {
  StubEndpoint stub;
  Configure(stub);
  std::unique_ptr<Graph> g = NewGraph();
  std::string input;
  for (int i = 0; i < 300; ++i)
    input += DocLine("s" + std::to_string(i), "text " + std::to_string(i));
  Result<LoadResult> r = LoadJsonl(*g, "main", input, LoadMode::kAppend);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // 256 rows wait for one round (4 full requests), the last 44 for the end of the load.
  std::vector<size_t> sizes;
  std::vector<std::string> all;
  for (const auto& in : stub.inputs()) {
    sizes.push_back(in.size());
    all.insert(all.end(), in.begin(), in.end());
  }
  EXPECT_EQ(sizes, (std::vector<size_t>{64, 64, 64, 64, 44}));
  ASSERT_EQ(all.size(), 300u);
  for (int i = 0; i < 300; ++i) EXPECT_EQ(all[i], "text " + std::to_string(i));
  auto v = Vectors(*g);
  ASSERT_EQ(v.size(), 300u);
  for (int i = 0; i < 300; ++i) {
    EXPECT_EQ(v["s" + std::to_string(i)], StubVector("text " + std::to_string(i))) << i;
  }
}

TEST_F(EmbedTest, InsertEmbedsAndUpdateOfTheTextReembeds) {
  StubEndpoint stub;
  Configure(stub);
  std::unique_ptr<Graph> g = NewGraph();
  ASSERT_TRUE(
      LoadJsonl(*g, "main", DocLine("a", "first") + DocLine("b", "other"), LoadMode::kAppend).ok());
  constexpr std::string_view kMutations = R"(
query add($s: String, $t: String) { insert Doc { slug: $s, text: $t } }
query retext($s: String, $t: String) { update Doc set { text: $t } where slug = $s }
query reslug($s: String) { update Doc set { emb: [0,0,0,0,0,0,0,1] } where slug = $s }
)";
  Result<MutationResult> added = Mutate(*g, kMutations, "add", Json{{"s", "c"}, {"t", "third"}});
  ASSERT_TRUE(added.ok()) << added.status().ToString();
  Result<MutationResult> updated =
      Mutate(*g, kMutations, "retext", Json{{"s", "a"}, {"t", "second"}});
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  auto v = Vectors(*g);
  EXPECT_EQ(v["a"], StubVector("second"));
  EXPECT_EQ(v["b"], StubVector("other"));
  EXPECT_EQ(v["c"], StubVector("third"));
  EXPECT_EQ(stub.inputs(),
            (std::vector<std::vector<std::string>>{{"first", "other"}, {"third"}, {"second"}}));
  // Assigning the vector itself sends nothing and keeps what was assigned.
  ASSERT_TRUE(Mutate(*g, kMutations, "reslug", Json{{"s", "b"}}).ok());
  EXPECT_EQ(Vectors(*g)["b"], (std::vector<float>{0, 0, 0, 0, 0, 0, 0, 1}));
  EXPECT_EQ(stub.requests().size(), 3u);
}

TEST_F(EmbedTest, NearestEmbedsAStringQuery) {
  StubEndpoint stub;
  Configure(stub);
  std::unique_ptr<Graph> g = NewGraph();
  std::string input;
  for (int i = 0; i < 30; ++i)
    input += DocLine("s" + std::to_string(i), "doc " + std::to_string(i));
  ASSERT_TRUE(LoadJsonl(*g, "main", input, LoadMode::kAppend).ok());
  const size_t load_requests = stub.requests().size();
  // The oracle: cosine distance to the stub's vector of the query text, ties by slug.
  const std::vector<float> q = StubVector("what is nearest");
  std::vector<std::pair<double, std::string>> expected;
  for (int i = 0; i < 30; ++i) {
    const std::vector<float> d = StubVector("doc " + std::to_string(i));
    double dot = 0, nq = 0, nd = 0;
    for (uint32_t k = 0; k < kDim; ++k) {
      dot += static_cast<double>(q[k]) * d[k];
      nq += static_cast<double>(q[k]) * q[k];
      nd += static_cast<double>(d[k]) * d[k];
    }
    expected.emplace_back(1 - dot / std::sqrt(nq * nd), "s" + std::to_string(i));
  }
  std::sort(expected.begin(), expected.end());
  Result<OrderedJson> out = RunQuery(
      *g->SnapshotOfBranch("main"),
      "query near($q: String) { match { $d: Doc } return { $d.slug, nearest($d.emb, $q) as dist } "
      "order { nearest($d.emb, $q) } limit 5 }",
      "near", Json{{"q", "what is nearest"}}, RunOptions{});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ((*out)["rows"].size(), 5u);
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ((*out)["rows"][i]["d.slug"], expected[i].second) << i;
    EXPECT_NEAR((*out)["rows"][i]["dist"].get<double>(), expected[i].first, 1e-5) << i;
  }
  // The query text went out once, with the property's model.
  auto requests = stub.requests();
  ASSERT_EQ(requests.size(), load_requests + 1);
  Json body = Json::parse(requests.back().body);
  EXPECT_EQ(body["input"], Json::array({"what is nearest"}));
  EXPECT_EQ(body["model"], "stub-model");
}

TEST_F(EmbedTest, NotConfiguredNamesTheVariableAndChangesNothing) {
  std::unique_ptr<Graph> g = NewGraph();
  const std::string before = Head(*g);
  Result<LoadResult> r = LoadJsonl(*g, "main", DocLine("a", "text"), LoadMode::kAppend);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kConfiguration);
  EXPECT_NE(r.status().message().find("OMNIGRAPH_EMBED_BASE_URL is not set"), std::string::npos)
      << r.status().ToString();
  EXPECT_EQ(Head(*g), before);
  // Rows that need no embedding load without an endpoint.
  ASSERT_TRUE(LoadJsonl(*g, "main",
                        R"({"type":"Doc","data":{"slug":"b","text":"t","emb":[1,1,1,1,1,1,1,1]}})",
                        LoadMode::kAppend)
                  .ok());
  Result<OrderedJson> out =
      RunQuery(*g->SnapshotOfBranch("main"),
               "query near($q: String) { match { $d: Doc } return { $d.slug } "
               "order { nearest($d.emb, $q) } limit 5 }",
               "near", Json{{"q", "x"}}, RunOptions{});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), Code::kConfiguration);
  EXPECT_NE(out.status().message().find("OMNIGRAPH_EMBED_BASE_URL"), std::string::npos)
      << out.status().ToString();
}

TEST_F(EmbedTest, ATransientFailureIsRetriedAfterABackoff) {
  StubEndpoint stub([](int n) -> std::optional<long> {
    if (n == 0) return 500;
    if (n == 1) return 429;
    return std::nullopt;
  });
  Configure(stub);
  std::unique_ptr<Graph> g = NewGraph();
  const int64_t start = clock_->MonotonicMicros();
  Result<LoadResult> r = LoadJsonl(*g, "main", DocLine("a", "retry me"), LoadMode::kAppend);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(stub.requests().size(), 3u);
  EXPECT_EQ(Vectors(*g)["a"], StubVector("retry me"));
  // Two backoffs on the Runtime's clock: 200 ms, then 400 ms.
  EXPECT_GE(clock_->MonotonicMicros() - start, 600'000);
}

TEST_F(EmbedTest, RetriesAreBoundedAndNothingIsCommitted) {
  StubEndpoint stub([](int) -> std::optional<long> { return 503; });
  Configure(stub);
  ::setenv("OMNIGRAPH_EMBED_RETRY_ATTEMPTS", "3", 1);
  std::unique_ptr<Graph> g = NewGraph();
  const std::string before = Head(*g);
  Result<LoadResult> r = LoadJsonl(*g, "main", DocLine("a", "x"), LoadMode::kAppend);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kTransient) << r.status().ToString();
  EXPECT_NE(r.status().message().find("failed 3 times"), std::string::npos)
      << r.status().ToString();
  EXPECT_EQ(stub.requests().size(), 3u);
  EXPECT_EQ(Head(*g), before);
}

TEST_F(EmbedTest, APermanentRefusalIsNotRetriedAndNothingIsCommitted) {
  StubEndpoint stub([](int) -> std::optional<long> { return 400; });
  Configure(stub);
  std::unique_ptr<Graph> g = NewGraph();
  const std::string before = Head(*g);
  Result<LoadResult> r =
      LoadJsonl(*g, "main", DocLine("a", "x") + DocLine("b", "y"), LoadMode::kAppend);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kPermanent) << r.status().ToString();
  EXPECT_EQ(r.status().message(),
            "line 1 to line 2: @embed of property 'emb' of node:Doc: the embedding endpoint " +
                stub.base_url() +
                "/embeddings (Doc.emb, model stub-model) refused the request: HTTP 400: "
                "{\"error\":{\"message\":\"scripted failure\"}}");
  EXPECT_EQ(stub.requests().size(), 1u);
  EXPECT_EQ(Head(*g), before);
  // A mutation refused the same way commits nothing either.
  Result<MutationResult> m =
      Mutate(*g, "query add($s: String, $t: String) { insert Doc { slug: $s, text: $t } }", "add",
             Json{{"s", "c"}, {"t", "z"}});
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), Code::kPermanent);
  EXPECT_NE(m.status().message().find("Doc 'c'"), std::string::npos) << m.status().ToString();
  EXPECT_EQ(Head(*g), before);
}

TEST_F(EmbedTest, AWrongDimensionNamesTheProperty) {
  StubEndpoint stub(nullptr, 5);
  Configure(stub);
  std::unique_ptr<Graph> g = NewGraph();
  const std::string before = Head(*g);
  Result<LoadResult> r = LoadJsonl(*g, "main", DocLine("a", "x"), LoadMode::kAppend);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(r.status().message(),
            "line 1: @embed of property 'emb' of node:Doc: the embedding endpoint returned 5 "
            "numbers for Doc.emb, which is Vector(8)");
  EXPECT_EQ(Head(*g), before);
}

std::string ReadCookbook(const std::string& relative) {
  const char* root = std::getenv("OMNIGRAPH_SOURCE_DIR");
  const std::string path = std::string(root ? root : OMNIGRAPH_SOURCE_DIR_FALLBACK) +
                           "/../shared/fixtures/cookbooks/" + relative;
  std::ifstream in(path);
  OMNIGRAPH_CHECK_MSG(in.good(), "cookbook fixture not found at " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The cookbooks' hybrid retrieval (industry-intel queries/hybrid.gq) with the stub embedder: the
// chunks' Vector(3072) embeddings are computed at load from their text, the query text at query
// time, and both queries are checked against a ranking computed here — cosine distance over the
// stub's vectors, BM25 (docs/design/fulltext.md: k1 = 1.2, b = 0.75, whole-table statistics) over
// words chosen so that no two share a stem, and reciprocal rank fusion with k = 60.
class HybridCookbookTest : public EmbedTest {
 protected:
  static constexpr uint32_t kCookbookDim = 3072;
  static constexpr int kChunks = 40;

  void Load(Graph& g) {
    const std::vector<std::string> vocabulary = {"graph", "vector", "search", "agent", "memory",
                                                 "index", "query",  "token",  "model", "cloud"};
    std::mt19937 rng(5);
    std::uniform_int_distribution<size_t> word(0, vocabulary.size() - 1);
    std::uniform_int_distribution<int> length(3, 8);
    std::string input;
    for (int i = 0; i < kChunks; ++i) {
      std::vector<std::string> words;
      for (int n = length(rng); n > 0; --n) words.push_back(vocabulary[word(rng)]);
      std::string text;
      for (const std::string& w : words) text += (text.empty() ? "" : " ") + w;
      texts_.push_back(text);
      words_.push_back(words);
      char id[8];
      std::snprintf(id, sizeof id, "c%02d", i);
      input += R"({"type":"Chunk","data":{"id":")" + std::string(id) + R"(","text":")" + text +
               R"(","chunk_index":)" + std::to_string(i) +
               R"(,"createdAt":"2026-01-01T00:00:00Z"}})" + "\n";
    }
    Result<LoadResult> r = LoadJsonl(g, "main", input, LoadMode::kAppend);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }

  // Chunk indexes by cosine distance to the stub's vector of `q`, then id.
  std::vector<int> NearestRanking(const std::string& q) const {
    const std::vector<float> qv = StubVector(q, kCookbookDim);
    std::vector<std::pair<double, int>> d;
    for (int i = 0; i < kChunks; ++i) {
      const std::vector<float> v = StubVector(texts_[i], kCookbookDim);
      double dot = 0, nq = 0, nv = 0;
      for (uint32_t k = 0; k < kCookbookDim; ++k) {
        dot += static_cast<double>(qv[k]) * v[k];
        nq += static_cast<double>(qv[k]) * qv[k];
        nv += static_cast<double>(v[k]) * v[k];
      }
      d.emplace_back(1 - dot / std::sqrt(nq * nv), i);
    }
    std::sort(d.begin(), d.end());
    std::vector<int> out;
    for (const auto& [dist, i] : d) out.push_back(i);
    return out;
  }

  // Chunk indexes with a query term by BM25 score (highest first), then id.
  std::vector<int> Bm25Ranking(const std::vector<std::string>& query) const {
    const std::set<std::string> terms(query.begin(), query.end());
    double total = 0;
    for (const auto& w : words_) total += static_cast<double>(w.size());
    const double n = kChunks, avgdl = total / n;
    std::vector<std::pair<double, int>> scored;
    for (int i = 0; i < kChunks; ++i) {
      double score = 0;
      for (const std::string& t : terms) {
        double df = 0;
        for (const auto& w : words_) df += std::count(w.begin(), w.end(), t) > 0 ? 1 : 0;
        const double tf = static_cast<double>(std::count(words_[i].begin(), words_[i].end(), t));
        if (tf == 0) continue;
        const double idf = std::log(1 + (n - df + 0.5) / (df + 0.5));
        const double len = static_cast<double>(words_[i].size());
        score += idf * tf * 2.2 / (tf + 1.2 * (1 - 0.75 + 0.75 * len / avgdl));
      }
      if (score > 0) scored.emplace_back(-score, i);
    }
    std::sort(scored.begin(), scored.end());
    std::vector<int> out;
    for (const auto& [s, i] : scored) out.push_back(i);
    return out;
  }

  static std::vector<int> ChunkIndexes(const OrderedJson& out) {
    std::vector<int> got;
    for (const auto& row : out["rows"]) got.push_back(row["c.chunk_index"].get<int>());
    return got;
  }

  std::vector<std::string> texts_;
  std::vector<std::vector<std::string>> words_;
};

TEST_F(HybridCookbookTest, RelatedChunksEmbedsTheQuestionAndIsTheCosineTopTen) {
  StubEndpoint stub(nullptr, kCookbookDim);
  Configure(stub);
  ::setenv("OMNIGRAPH_EMBED_MODEL", "stub-model", 1);
  std::unique_ptr<Graph> g = NewGraph(ReadCookbook("industry-intel/schema.pg"));
  ASSERT_NO_FATAL_FAILURE(Load(*g));
  const std::string queries = ReadCookbook("industry-intel/queries/hybrid.gq");
  const std::string q = "agent memory graph";
  Result<OrderedJson> out = RunQuery(*g->SnapshotOfBranch("main"), queries, "related_chunks",
                                     Json{{"q", q}}, RunOptions{});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  std::vector<int> expected = NearestRanking(q);
  expected.resize(10);
  EXPECT_EQ(ChunkIndexes(*out), expected);
  // The cookbook's Chunk.text declares no @index: its hybrid query names the declaration to add.
  Result<OrderedJson> hybrid = RunQuery(*g->SnapshotOfBranch("main"), queries, "hybrid_chunks",
                                        Json{{"q", q}}, RunOptions{});
  ASSERT_FALSE(hybrid.ok());
  EXPECT_NE(hybrid.status().message().find("declare `text: String @index` on Chunk"),
            std::string::npos)
      << hybrid.status().ToString();
}

TEST_F(HybridCookbookTest, HybridChunksIsTheReciprocalRankFusionOfCosineAndBm25) {
  StubEndpoint stub(nullptr, kCookbookDim);
  Configure(stub);
  ::setenv("OMNIGRAPH_EMBED_MODEL", "stub-model", 1);
  std::string schema = ReadCookbook("industry-intel/schema.pg");
  const std::string chunk_text = "node Chunk {\n    text: String\n";
  const size_t at = schema.find(chunk_text);
  ASSERT_NE(at, std::string::npos);
  schema.replace(at, chunk_text.size(), "node Chunk {\n    text: String @index\n");
  std::unique_ptr<Graph> g = NewGraph(schema);
  ASSERT_NO_FATAL_FAILURE(Load(*g));
  const std::string queries = ReadCookbook("industry-intel/queries/hybrid.gq");
  for (const std::string q : {"agent memory graph", "vector index", "cloud"}) {
    Result<OrderedJson> out = RunQuery(*g->SnapshotOfBranch("main"), queries, "hybrid_chunks",
                                       Json{{"q", q}}, RunOptions{});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    std::vector<std::string> terms;
    std::istringstream words(q);
    for (std::string w; words >> w;) terms.push_back(w);
    std::vector<double> fused(kChunks, 0);
    const std::vector<int> nearest = NearestRanking(q), bm25 = Bm25Ranking(terms);
    for (size_t r = 0; r < nearest.size(); ++r) fused[nearest[r]] += 1.0 / (60.0 + r + 1);
    for (size_t r = 0; r < bm25.size(); ++r) fused[bm25[r]] += 1.0 / (60.0 + r + 1);
    std::vector<std::pair<double, int>> order;
    for (int i = 0; i < kChunks; ++i) order.emplace_back(-fused[i], i);
    std::sort(order.begin(), order.end());
    std::vector<int> expected;
    for (int i = 0; i < 10; ++i) expected.push_back(order[i].second);
    EXPECT_EQ(ChunkIndexes(*out), expected) << q;
  }
}

TEST(EmbedConfigTest, ReadsTheVariablesAndRefusesBadValues) {
  auto from = [](std::map<std::string, std::string> env) {
    return query::EmbedConfig::FromLookup([env](std::string_view n) -> std::optional<std::string> {
      auto it = env.find(std::string(n));
      if (it == env.end()) return std::nullopt;
      return it->second;
    });
  };
  Result<query::EmbedConfig> none = from({});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), Code::kConfiguration);
  Result<query::EmbedConfig> c = from({{"OMNIGRAPH_EMBED_BASE_URL", "http://h:1/v1/"},
                                       {"OMNIGRAPH_EMBED_MODEL", "m"},
                                       {"OPENAI_API_KEY", "k2"},
                                       {"OMNIGRAPH_EMBED_RETRY_ATTEMPTS", "2"}});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->base_url, "http://h:1/v1");
  EXPECT_EQ(c->model, "m");
  EXPECT_EQ(c->api_key, "k2");
  EXPECT_EQ(c->attempts_max, 2);
  EXPECT_EQ(c->backoff_base_ms, query::kEmbedBackoffDefaultMs);
  Result<query::EmbedConfig> bad =
      from({{"OMNIGRAPH_EMBED_BASE_URL", "h:1"}, {"OMNIGRAPH_EMBED_RETRY_ATTEMPTS", "2"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("must start with http://"), std::string::npos);
  Result<query::EmbedConfig> attempts =
      from({{"OMNIGRAPH_EMBED_BASE_URL", "http://h"}, {"OMNIGRAPH_EMBED_RETRY_ATTEMPTS", "0"}});
  ASSERT_FALSE(attempts.ok());
  EXPECT_EQ(attempts.status().message(),
            "OMNIGRAPH_EMBED_RETRY_ATTEMPTS is '0'; expected a whole number from 1 to 10");
}

}  // namespace
}  // namespace omnigraph::engine
