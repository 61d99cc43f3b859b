// Vector(N) end to end (docs/design/query-execution.md "Vector search"; docs/format/fragment.md):
// vectors loaded as JSON number arrays and exported back, bad vectors refused naming the line and
// property, and `nearest` checked against a brute force written here, independent of the
// executor, over a random graph: unfiltered, filtered by a property, restricted by a traversal
// and by negation, k larger than the matches, exact ties broken by id, null vectors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>

#include "engine/ops/export.h"
#include "engine/ops/load.h"
#include "engine/read/query.h"
#include "storage/memory_store.h"

namespace omnigraph::engine {
namespace {

constexpr uint32_t kDim = 8;
constexpr std::string_view kSchema = R"(
node Doc { slug: String @key  grp: I32  emb: Vector(8)? }
edge Cites: Doc -> Doc
)";

std::unique_ptr<Graph> NewGraph() {
  storage::Runtime rt = storage::Runtime::ForTest(std::make_shared<storage::MemoryStore>(), 1);
  Result<std::unique_ptr<Graph>> g = Graph::Init(rt, kSchema);
  OMNIGRAPH_CHECK_MSG(g.ok(), g.status().ToString());
  return std::move(*g);
}

std::string Head(Graph& g) { return g.SnapshotOfBranch("main")->commit_id(); }

// One generated document.
struct Doc {
  std::string slug;
  int grp = 0;
  std::optional<std::vector<float>> emb;
  std::vector<std::string> cites;
};

// The reference's `_distance`: the squared Euclidean distance, as Float32.
double SquaredL2(const std::vector<float>& a, const std::vector<float>& b) {
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double d = static_cast<double>(a[i]) - b[i];
    sum += d * d;
  }
  return static_cast<float>(sum);
}

// The k nearest of `docs` accepted by `keep`, by distance then slug: [slug, distance].
std::vector<std::pair<std::string, double>> BruteForce(
    const std::vector<Doc>& docs, const std::vector<float>& q, size_t k,
    const std::function<bool(const Doc&)>& keep) {
  std::vector<std::pair<std::string, double>> all;
  for (const Doc& d : docs) {
    if (d.emb && keep(d)) all.emplace_back(d.slug, SquaredL2(*d.emb, q));
  }
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second < b.second : a.first < b.first;
  });
  if (all.size() > k) all.resize(k);
  return all;
}

std::string VectorJson(const std::vector<float>& v) {
  Json j = Json::array();
  for (float f : v) j.push_back(f);
  return j.dump();
}

class VectorQueryTest : public testing::Test {
 protected:
  void SetUp() override {
    graph_ = NewGraph();
    std::mt19937 rng(7);
    std::normal_distribution<float> normal;
    std::uniform_int_distribution<int> grp(0, 9);
    std::string input;
    for (int i = 0; i < kDocs; ++i) {
      Doc d;
      char slug[16];
      std::snprintf(slug, sizeof slug, "d%03d", i);
      d.slug = slug;
      d.grp = grp(rng);
      if (i % 17 != 5) {
        std::vector<float> v(kDim);
        for (float& f : v) f = normal(rng);
        d.emb = v;
      }
      // Exact ties: a few docs repeat an earlier vector, at the same distance from any query.
      if (i % 23 == 11 && docs_[i - 11].emb) d.emb = *docs_[i - 11].emb;
      docs_.push_back(d);
      input += R"({"type":"Doc","data":{"slug":")" + d.slug + R"(","grp":)" +
               std::to_string(d.grp) + (d.emb ? R"(,"emb":)" + VectorJson(*d.emb) : std::string()) +
               "}}\n";
    }
    std::uniform_int_distribution<int> pick(0, kDocs - 1);
    for (int e = 0; e < kDocs / 4; ++e) {
      Doc& from = docs_[pick(rng)];
      const std::string& to = docs_[pick(rng)].slug;
      from.cites.push_back(to);
      input += R"({"edge":"Cites","from":")" + from.slug + R"(","to":")" + to + "\"}\n";
    }
    Result<LoadResult> r = LoadJsonl(*graph_, "main", input, LoadMode::kAppend);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }

  std::vector<float> RandomQuery(uint32_t seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal;
    std::vector<float> q(kDim);
    for (float& f : q) f = normal(rng);
    return q;
  }

  // Runs `query` (named q) with $q and checks its rows against `expected`: the slug column and
  // the distance column `dist`.
  void ExpectNearest(std::string_view query, const std::vector<float>& q, const Json& extra,
                     const std::vector<std::pair<std::string, double>>& expected) {
    Snapshot s = *graph_->SnapshotOfBranch("main");
    Json params = extra;
    params["q"] = Json::parse(VectorJson(q));
    Result<OrderedJson> out = RunQuery(s, query, "q", params, RunOptions{});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    const OrderedJson& rows = (*out)["rows"];
    ASSERT_EQ(rows.size(), expected.size()) << rows.dump();
    for (size_t i = 0; i < expected.size(); ++i) {
      EXPECT_EQ(rows[i]["d.slug"], expected[i].first) << "row " << i << " of " << rows.dump();
      EXPECT_NEAR(rows[i]["dist"].get<double>(), expected[i].second, 1e-6) << "row " << i;
    }
  }

  static constexpr int kDocs = 300;
  std::unique_ptr<Graph> graph_;
  std::vector<Doc> docs_;
};

constexpr std::string_view kUnfiltered = R"(
query q($q: Vector(8)) {
  match { $d: Doc }
  return { $d.slug, nearest($d.emb, $q) as dist }
  order { nearest($d.emb, $q) }
  limit 10
})";

TEST_F(VectorQueryTest, UnfilteredNearestIsTheBruteForceTopK) {
  for (uint32_t seed = 1; seed <= 5; ++seed) {
    const std::vector<float> q = RandomQuery(seed);
    ExpectNearest(kUnfiltered, q, Json::object(),
                  BruteForce(docs_, q, 10, [](const Doc&) { return true; }));
  }
}

TEST_F(VectorQueryTest, APropertyFilterRestrictsTheCandidatesBeforeTopK) {
  constexpr std::string_view query = R"(
query q($q: Vector(8), $g: I32) {
  match { $d: Doc { grp: $g } }
  return { $d.slug, nearest($d.emb, $q) as dist }
  order { nearest($d.emb, $q) }
  limit 7
})";
  for (int g = 0; g < 10; g += 3) {
    const std::vector<float> q = RandomQuery(100 + g);
    ExpectNearest(query, q, Json{{"g", g}},
                  BruteForce(docs_, q, 7, [&](const Doc& d) { return d.grp == g; }));
  }
}

TEST_F(VectorQueryTest, TraversalAndNegationRestrictTheCandidates) {
  std::set<std::string> citing, cited_by_someone;
  for (const Doc& d : docs_) {
    if (!d.cites.empty()) citing.insert(d.slug);
    for (const std::string& t : d.cites) cited_by_someone.insert(t);
  }
  // `$d cites $t` gives one row per distinct (d, t): count the rows per doc.
  constexpr std::string_view uncited = R"(
query q($q: Vector(8)) {
  match { $d: Doc  not { $x cites $d } }
  return { $d.slug, nearest($d.emb, $q) as dist }
  order { nearest($d.emb, $q) }
  limit 12
})";
  const std::vector<float> q = RandomQuery(9);
  ExpectNearest(uncited, q, Json::object(), BruteForce(docs_, q, 12, [&](const Doc& d) {
                  return cited_by_someone.count(d.slug) == 0;
                }));
  constexpr std::string_view citing_query = R"(
query q($q: Vector(8)) {
  match { $d: Doc  $d cites $_  $d.grp < 5 }
  return { $d.slug, nearest($d.emb, $q) as dist }
  order { nearest($d.emb, $q) }
  limit 5
})";
  // A doc citing twice is two rows of the match; the reference lists rows, so expand the
  // expected list by the number of distinct targets.
  std::vector<std::pair<std::string, double>> expected;
  for (const auto& [slug, dist] : BruteForce(
           docs_, q, 1000, [&](const Doc& d) { return citing.count(d.slug) > 0 && d.grp < 5; })) {
    const Doc& d =
        *std::find_if(docs_.begin(), docs_.end(), [&](const Doc& x) { return x.slug == slug; });
    const size_t n = std::set<std::string>(d.cites.begin(), d.cites.end()).size();
    for (size_t i = 0; i < n && expected.size() < 5; ++i) expected.emplace_back(slug, dist);
  }
  ExpectNearest(citing_query, q, Json::object(), expected);
}

TEST_F(VectorQueryTest, KLargerThanTheMatchesReturnsEveryMatchWithAVector) {
  constexpr std::string_view query = R"(
query q($q: Vector(8), $s: String) {
  match { $d: Doc  $d.slug < $s }
  return { $d.slug, nearest($d.emb, $q) as dist }
  order { nearest($d.emb, $q) }
  limit 50
})";
  const std::vector<float> q = RandomQuery(3);
  // d000..d019: 20 docs, one of which (d005) has no vector.
  auto expected =
      BruteForce(docs_, q, 50, [](const Doc& d) { return d.slug < std::string("d020"); });
  EXPECT_EQ(expected.size(), 19u);
  ExpectNearest(query, q, Json{{"s", "d020"}}, expected);
}

TEST_F(VectorQueryTest, EqualDistancesAreBrokenById) {
  // d011 has d000's vector: the same distance to any query.
  ASSERT_TRUE(docs_[0].emb && docs_[11].emb);
  const std::vector<float> q = *docs_[0].emb;
  auto expected = BruteForce(docs_, q, 3, [](const Doc&) { return true; });
  ASSERT_EQ(expected[0].first, "d000");
  ASSERT_EQ(expected[1].first, "d011");
  ExpectNearest(kUnfiltered, q, Json::object(),
                BruteForce(docs_, q, 10, [](const Doc&) { return true; }));
}

TEST_F(VectorQueryTest, TheWrongDimensionIsAnErrorNamingTheParameter) {
  Snapshot s = *graph_->SnapshotOfBranch("main");
  Result<OrderedJson> out = RunQuery(s, kUnfiltered, "q", Json{{"q", {1.0, 2.0}}}, RunOptions{});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), Code::kInvalidArgument);
  EXPECT_NE(out.status().message().find("param 'q'"), std::string::npos) << out.status().ToString();
  EXPECT_NE(out.status().message().find("expected 8 values for Vector(8)"), std::string::npos)
      << out.status().ToString();
}

TEST_F(VectorQueryTest, ExportWritesVectorsAsTheNumbersLoaded) {
  Result<std::string> out = ExportToString(*graph_->SnapshotOfBranch("main"));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  size_t lines = 0;
  for (size_t pos = 0; pos < out->size();) {
    size_t end = out->find('\n', pos);
    Json line = Json::parse(out->substr(pos, end - pos));
    pos = end + 1;
    if (!line.contains("type")) continue;
    const Doc& d = docs_[std::stoi(line["data"]["slug"].get<std::string>().substr(1))];
    ++lines;
    if (!d.emb) {
      EXPECT_FALSE(line["data"].contains("emb") && !line["data"]["emb"].is_null()) << line;
      continue;
    }
    ASSERT_EQ(line["data"]["emb"].size(), kDim) << line;
    for (uint32_t i = 0; i < kDim; ++i) {
      EXPECT_EQ(line["data"]["emb"][i].get<float>(), (*d.emb)[i]) << line;
    }
  }
  EXPECT_EQ(lines, static_cast<size_t>(kDocs));
}

// The cookbooks' retrieval query (industry-intel queries/hybrid.gq `related_chunks`) over their
// Chunk type, with the query given as a Vector(3072) instead of text to embed.
TEST(VectorCookbookTest, RelatedChunksOverVector3072IsTheBruteForceTopTen) {
  constexpr std::string_view schema = R"(
node Chunk {
    text: String
    chunk_index: I32
    embedding: Vector(3072) @embed("text") @index
    createdAt: DateTime
}
)";
  constexpr std::string_view query = R"(
query related_chunks($q: Vector(3072)) {
    match { $c: Chunk }
    return { $c.text, $c.chunk_index }
    order { nearest($c.embedding, $q) }
    limit 10
})";
  storage::Runtime rt = storage::Runtime::ForTest(std::make_shared<storage::MemoryStore>(), 1);
  std::unique_ptr<Graph> g = std::move(*Graph::Init(rt, schema));
  std::mt19937 rng(11);
  std::normal_distribution<float> normal;
  std::vector<Doc> chunks;
  std::string input;
  for (int i = 0; i < 40; ++i) {
    Doc d;
    d.slug = "chunk " + std::to_string(i);
    d.grp = i;
    d.emb = std::vector<float>(3072);
    for (float& f : *d.emb) f = normal(rng);
    input += R"({"type":"Chunk","data":{"id":"c)" + std::to_string(i) + R"(","text":")" + d.slug +
             R"(","chunk_index":)" + std::to_string(i) + R"(,"embedding":)" + VectorJson(*d.emb) +
             R"(,"createdAt":"2026-01-01T00:00:00Z"}})" + "\n";
    chunks.push_back(std::move(d));
  }
  Result<LoadResult> r = LoadJsonl(*g, "main", input, LoadMode::kAppend);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::vector<float> q(3072);
  for (float& f : q) f = normal(rng);
  // Unkeyed ids are c0..c39, which do not sort like the chunk numbers: sort the brute force by
  // id for ties (there are none among random vectors, but the rule is the executor's).
  for (Doc& d : chunks) d.slug = "c" + std::to_string(d.grp);
  auto expected = BruteForce(chunks, q, 10, [](const Doc&) { return true; });
  Result<OrderedJson> out = RunQuery(*g->SnapshotOfBranch("main"), query, "related_chunks",
                                     Json{{"q", Json::parse(VectorJson(q))}}, RunOptions{});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ((*out)["rows"].size(), 10u);
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ((*out)["rows"][i]["c.text"], "chunk " + expected[i].first.substr(1)) << i;
  }
}

void ExpectLoadRejected(std::string_view input, std::string_view message) {
  std::unique_ptr<Graph> g = NewGraph();
  const std::string before = Head(*g);
  Result<LoadResult> r = LoadJsonl(*g, "main", input, LoadMode::kAppend);
  ASSERT_FALSE(r.ok()) << input;
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument) << r.status().ToString();
  EXPECT_EQ(r.status().message(), message);
  EXPECT_EQ(Head(*g), before) << "a rejected load published";
}

TEST(VectorLoadTest, BadVectorsAreRefusedNamingTheLineAndProperty) {
  const std::string ok = R"({"type":"Doc","data":{"slug":"a","grp":1,"emb":[1,2,3,4,5,6,7,8]}})"
                         "\n";
  ExpectLoadRejected(
      ok + R"({"type":"Doc","data":{"slug":"b","grp":1,"emb":[1,2,3]}})",
      "line 2: property 'emb' of node:Doc: expected 8 numbers for Vector(8)?, got 3");
  // 1e39 is a finite JSON number but no finite f32; NaN and infinities have no JSON spelling.
  ExpectLoadRejected(
      ok + R"({"type":"Doc","data":{"slug":"b","grp":1,"emb":[1,2,3,4,5,6,7,1e39]}})",
      "line 2: property 'emb' of node:Doc: value 1e+39 exceeds F32 range");
  ExpectLoadRejected(
      ok + R"({"type":"Doc","data":{"slug":"b","grp":1,"emb":[1,2,3,4,5,6,7,-1e39]}})",
      "line 2: property 'emb' of node:Doc: value -1e+39 exceeds F32 range");
  EXPECT_NE(LoadJsonl(*NewGraph(), "main",
                      R"({"type":"Doc","data":{"slug":"b","grp":1,"emb":[1,2,3,4,5,6,7,NaN]}})",
                      LoadMode::kAppend)
                .status()
                .message()
                .find("line 1: invalid JSON"),
            std::string::npos);
  ExpectLoadRejected(R"({"type":"Doc","data":{"slug":"b","grp":1,"emb":[1,2,3,4,5,6,7,"x"]}})",
                     "line 1: property 'emb' of node:Doc: expected Vector(8)?, got string \"x\"");
  ExpectLoadRejected(R"({"type":"Doc","data":{"slug":"b","grp":1,"emb":"1,2"}})",
                     "line 1: property 'emb' of node:Doc: expected Vector(8)?, got string \"1,2\"");
}

TEST(VectorLoadTest, AnInfiniteParameterElementIsRefused) {
  std::unique_ptr<Graph> g = NewGraph();
  Snapshot s = *g->SnapshotOfBranch("main");
  Result<OrderedJson> out =
      RunQuery(s, kUnfiltered, "q", Json{{"q", {1, 2, 3, 4, 5, 6, 7, 1e39}}}, RunOptions{});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), Code::kInvalidArgument);
  EXPECT_NE(out.status().message().find("param 'q'"), std::string::npos) << out.status().ToString();
  EXPECT_NE(out.status().message().find("exceeds F32 range"), std::string::npos)
      << out.status().ToString();
}

}  // namespace
}  // namespace omnigraph::engine
