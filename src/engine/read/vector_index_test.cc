// The ANN index end to end: a load builds `annl2.{field}` for the tables it wrote; an indexed
// `nearest` (many candidates) searches it with the candidates as an id selector and returns the
// exact distances of what it found, with high recall against brute force, with and without a
// filter that leaves half the rows, and never fewer than k rows when k match; a selective filter
// (the index would scan most rows), a version without an index, and a small candidate set are
// answered by exact search, equal to brute force; an index with codes whose lists would not pay
// answers an unfiltered `nearest` through its codes, equal to brute force.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include "engine/ops/load.h"
#include "engine/read/query.h"
#include "engine/write/mutate.h"
#include "storage/memory_store.h"
#include "table/ann_index.h"

namespace omnigraph::engine {
namespace {

constexpr uint32_t kDim = 8;
constexpr int kDocs = 6000;
constexpr int kGroups = 10;
constexpr std::string_view kSchema = R"(
node Doc { slug: String @key  grp: I32  emb: Vector(8)? }
)";

struct Doc {
  std::string slug;
  int grp = 0;
  std::optional<std::vector<float>> emb;
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

std::string VectorJson(const std::vector<float>& v) {
  Json j = Json::array();
  for (float f : v) j.push_back(f);
  return j.dump();
}

constexpr std::string_view kQueries = R"(
query all($q: Vector(8), $k: I64) {
  match { $d: Doc }
  return { $d.slug, nearest($d.emb, $q) as dist }
  order { nearest($d.emb, $q) }
  limit 10
}
query grp($q: Vector(8), $g: I32) {
  match { $d: Doc { grp: $g } }
  return { $d.slug, nearest($d.emb, $q) as dist }
  order { nearest($d.emb, $q) }
  limit 10
}
query half($q: Vector(8), $g: I32) {
  match { $d: Doc  $d.grp < $g }
  return { $d.slug, nearest($d.emb, $q) as dist }
  order { nearest($d.emb, $q) }
  limit 10
}
query add($s: String, $g: I32, $v: Vector(8)) { insert Doc { slug: $s, grp: $g, emb: $v } }
query move($s: String, $v: Vector(8)) { update Doc set { emb: $v } where slug = $s }
query remove($s: String) { delete Doc where slug = $s }
query many($q: Vector(8), $g: I32) {
  match { $d: Doc { grp: $g } }
  return { $d.slug, nearest($d.emb, $q) as dist }
  order { nearest($d.emb, $q) }
  limit 400
})";

class VectorIndexTest : public testing::Test {
 protected:
  void Load(const table::AnnBuildOptions& ann) {
    memory_ = std::make_shared<storage::MemoryStore>();
    storage::Runtime rt = storage::Runtime::ForTest(memory_, 1);
    Result<std::unique_ptr<Graph>> g = Graph::Init(rt, kSchema);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    graph_ = std::move(*g);
    std::mt19937 rng(11);
    std::normal_distribution<float> normal;
    // Clustered vectors, as embeddings are: 50 centres, small noise around each.
    std::vector<std::vector<float>> centres(50, std::vector<float>(kDim));
    for (auto& c : centres) {
      for (float& f : c) f = normal(rng);
    }
    std::string input;
    for (int i = 0; i < kDocs; ++i) {
      Doc d;
      d.slug = "d" + std::to_string(100000 + i);
      d.grp = i % kGroups;
      if (i % 31 != 7) {
        std::vector<float> v = centres[rng() % centres.size()];
        for (float& f : v) f += 0.3f * normal(rng);
        d.emb = v;
      }
      input += R"({"type":"Doc","data":{"slug":")" + d.slug + R"(","grp":)" +
               std::to_string(d.grp) + (d.emb ? R"(,"emb":)" + VectorJson(*d.emb) : std::string()) +
               "}}\n";
      docs_.push_back(std::move(d));
    }
    LoadOptions options;
    options.ann = ann;
    Result<LoadResult> r = engine::Load(*graph_, "main", input, LoadMode::kAppend, options);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }

  std::vector<float> Query(uint32_t seed) {
    std::vector<float> q = *docs_[seed * 97 % kDocs + (seed * 97 % kDocs % 31 == 7)].emb;
    for (float& f : q) f += 0.01f * static_cast<float>(seed % 7);
    return q;
  }

  // The k nearest docs with a vector whose group is `grp` (every doc when negative; groups
  // below `below` when that is positive).
  std::vector<std::string> BruteForce(const std::vector<float>& q, size_t k, int grp,
                                      int below = 0) {
    std::vector<std::pair<double, std::string>> all;
    for (const Doc& d : docs_) {
      const bool matches = below > 0 ? d.grp < below : (grp < 0 || d.grp == grp);
      if (d.emb && matches) all.emplace_back(SquaredL2(*d.emb, q), d.slug);
    }
    std::sort(all.begin(), all.end());
    std::vector<std::string> out;
    for (size_t i = 0; i < k && i < all.size(); ++i) out.push_back(all[i].second);
    return out;
  }

  // Runs `name`, checks every returned distance is the exact one, and returns the slugs.
  std::vector<std::string> Run(std::string_view name, const std::vector<float>& q, int grp,
                               uint64_t exact_max, query::ExecStats* stats) {
    Json params = {{"q", Json::parse(VectorJson(q))}};
    if (grp >= 0) params["g"] = grp;
    if (name == "all") params["k"] = 10;
    RunOptions options;
    options.nearest_exact_max = exact_max;
    Result<ReadOutcome> out = RunRead(*graph_, kQueries, name, params, options);
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    if (!out.ok()) return {};
    *stats = out->result.stats;
    std::vector<std::string> slugs;
    for (const auto& row : out->result.rows) {
      slugs.push_back(row[0].string_value());
      const Doc& d = docs_[std::stoi(slugs.back().substr(1)) - 100000];
      EXPECT_NEAR(row[1].float_value(), SquaredL2(*d.emb, q), 1e-9) << slugs.back();
      if (grp >= 0) {
        EXPECT_TRUE(name == "half" ? d.grp < grp : d.grp == grp) << slugs.back();
      }
    }
    return slugs;
  }

  static double Recall(const std::vector<std::string>& got, const std::vector<std::string>& truth) {
    std::set<std::string> t(truth.begin(), truth.end());
    size_t hit = 0;
    for (const std::string& s : got) hit += t.count(s);
    return truth.empty() ? 1 : static_cast<double>(hit) / truth.size();
  }

  std::shared_ptr<storage::MemoryStore> memory_;
  std::unique_ptr<Graph> graph_;
  std::vector<Doc> docs_;
};

TEST_F(VectorIndexTest, LoadBuildsTheIndexAndIndexedNearestHasHighRecall) {
  Load({});
  size_t ann_objects = 0;
  const std::vector<storage::ObjectMeta> objects = *storage::ListAll(*memory_, "");
  for (const storage::ObjectMeta& o : objects) {
    if (o.name.find("/derived/") != std::string::npos &&
        o.name.find(".annl2.") != std::string::npos) {
      ++ann_objects;
    }
  }
  EXPECT_EQ(ann_objects, 1u);
  double recall = 0, filtered = 0;
  constexpr int kQueryCount = 20;
  for (uint32_t seed = 1; seed <= kQueryCount; ++seed) {
    const std::vector<float> q = Query(seed);
    query::ExecStats stats;
    std::vector<std::string> got = Run("all", q, -1, 100, &stats);
    EXPECT_EQ(got.size(), 10u);
    EXPECT_GE(stats.index_searches, 1u);
    EXPECT_LT(stats.vectors_compared, 100u);  // Only what the index found is measured.
    recall += Recall(got, BruteForce(q, 10, -1));
    // Half the groups: the index searches 2x the probes (48 of 145 lists) with the selector.
    got = Run("half", q, kGroups / 2, 100, &stats);
    EXPECT_EQ(got.size(), 10u);
    EXPECT_GE(stats.index_searches, 1u);
    filtered += Recall(got, BruteForce(q, 10, -1, kGroups / 2));
  }
  EXPECT_GE(recall / kQueryCount, 0.9);
  EXPECT_GE(filtered / kQueryCount, 0.9);
}

// An index whose lists would not pay (40 lists: the 24 probes of an unfiltered search are more
// than half of them) and which stores codes (decision 224): an unfiltered `nearest` scans the
// codes for NearestCodeCandidates(10) rows and measures them exactly, and its answer is the brute
// force's; a filter keeps the exact scan (decision 212). Once the stored index is damaged, a fresh
// handle answers exactly, as for a damaged index without codes.
TEST_F(VectorIndexTest, HardDataIsAnsweredThroughTheCodesAndFiltersStayExact) {
  table::AnnBuildOptions ann;
  ann.lists = 40;
  ann.codes = table::AnnCodesChoice::kAlways;
  Load(ann);
  for (uint32_t seed = 1; seed <= 10; ++seed) {
    const std::vector<float> q = Query(seed);
    query::ExecStats stats;
    EXPECT_EQ(Run("all", q, -1, 100, &stats), BruteForce(q, 10, -1)) << seed;
    EXPECT_EQ(stats.index_searches, 1u);
    EXPECT_EQ(stats.vectors_compared, query::NearestCodeCandidates(10));
    EXPECT_EQ(Run("half", q, kGroups / 2, 100, &stats), BruteForce(q, 10, -1, kGroups / 2));
    EXPECT_EQ(stats.index_searches, 0u);
  }
  const std::vector<storage::ObjectMeta> objects = *storage::ListAll(*memory_, "");
  for (const storage::ObjectMeta& o : objects) {
    if (o.name.find("/derived/") == std::string::npos ||
        o.name.find(".annl2.") == std::string::npos) {
      continue;
    }
    std::string bytes = memory_->Get(o.name)->data;
    bytes[bytes.size() - 5] ^= 0x21;  // A code: the envelope's checksum fails.
    ASSERT_TRUE(memory_->Put(o.name, bytes).ok());
  }
  Result<std::unique_ptr<Graph>> fresh = Graph::Open(storage::Runtime::ForTest(memory_, 1));
  ASSERT_TRUE(fresh.ok()) << fresh.status().ToString();
  graph_ = std::move(*fresh);
  const std::vector<float> q = Query(3);
  query::ExecStats stats;
  EXPECT_EQ(Run("all", q, -1, 100, &stats), BruteForce(q, 10, -1));
  EXPECT_EQ(stats.index_searches, 0u);
  EXPECT_EQ(stats.vectors_compared,
            static_cast<uint64_t>(std::count_if(docs_.begin(), docs_.end(),
                                                [](const Doc& d) { return d.emb.has_value(); })));
}

// A filter admitting a tenth of the rows would probe 10x the lists, more than half of them: the
// index would scan most of the table, so the executor measures the candidates exactly instead
// (decision 212), and the answer is the brute force's, never fewer than k.
TEST_F(VectorIndexTest, ASelectiveFilterIsAnsweredExactly) {
  Load({});
  for (uint32_t seed = 1; seed <= 5; ++seed) {
    const std::vector<float> q = Query(seed);
    const int g = static_cast<int>(seed % kGroups);
    query::ExecStats stats;
    EXPECT_EQ(Run("grp", q, g, 100, &stats), BruteForce(q, 10, g));
    EXPECT_EQ(stats.index_searches, 0u);
    EXPECT_GT(stats.vectors_compared, 500u);  // Every candidate with a vector.
  }
}

TEST_F(VectorIndexTest, NeverFewerThanKWhenKMatch) {
  Load({});
  const std::vector<float> q = Query(3);
  query::ExecStats stats;
  // 600 docs of the group, about 580 with a vector: 400 asked, 400 given, exactly.
  std::vector<std::string> got = Run("many", q, 4, 100, &stats);
  EXPECT_EQ(got, BruteForce(q, 400, 4));
  EXPECT_EQ(stats.index_searches, 0u);
}

// A mutation on an indexed table stores a vector index delta (decision 212): the next query
// searches the index of the new version — the inserted doc, the moved one and the removed one
// are where the write put them — instead of answering the version exactly for want of an index.
TEST_F(VectorIndexTest, AMutationStoresADeltaThatTheIndexedNearestSearches) {
  Load({});
  const std::vector<float> q = Query(4);
  std::vector<float> moved = q;
  moved[0] += 1e-3f;
  const std::string gone = BruteForce(q, 1, -1)[0];
  auto mutate = [&](std::string_view name, const Json& params) {
    Result<MutationResult> r = engine::Mutate(*graph_, kQueries, name, params, {});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  };
  mutate("add", Json{{"s", "new"}, {"g", 3}, {"v", Json::parse(VectorJson(q))}});
  mutate("move", Json{{"s", "d100010"}, {"v", Json::parse(VectorJson(moved))}});
  mutate("remove", Json{{"s", gone}});
  size_t deltas = 0;
  const std::vector<storage::ObjectMeta> objects = *storage::ListAll(*memory_, "");
  for (const storage::ObjectMeta& o : objects) {
    deltas += o.name.find(".annl2.") != std::string::npos;
  }
  EXPECT_EQ(deltas, 4u);  // The load's full index and one delta per write.
  Json params = {{"q", Json::parse(VectorJson(q))}, {"k", 10}};
  RunOptions options;
  options.nearest_exact_max = 100;
  Result<ReadOutcome> out = RunRead(*graph_, kQueries, "all", params, options);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_GE(out->result.stats.index_searches, 1u);
  ASSERT_GE(out->result.rows.size(), 2u);
  EXPECT_EQ(out->result.rows[0][0].string_value(), "new");
  EXPECT_EQ(out->result.rows[1][0].string_value(), "d100010");
  for (const auto& row : out->result.rows) EXPECT_NE(row[0].string_value(), gone);
}

TEST_F(VectorIndexTest, FewCandidatesAndNoIndexAreExact) {
  table::AnnBuildOptions none;
  none.rows_min = kDocs + 1;  // The load builds no index.
  Load(none);
  const std::vector<storage::ObjectMeta> objects = *storage::ListAll(*memory_, "");
  for (const storage::ObjectMeta& o : objects) {
    EXPECT_EQ(o.name.find(".annl2."), std::string::npos) << o.name;
  }
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    const std::vector<float> q = Query(seed);
    query::ExecStats stats;
    EXPECT_EQ(Run("all", q, -1, 100, &stats), BruteForce(q, 10, -1));
    EXPECT_EQ(stats.index_searches, 0u);
    EXPECT_EQ(stats.vectors_compared, static_cast<uint64_t>(kDocs - (kDocs + 23) / 31));
  }
}

TEST_F(VectorIndexTest, BelowTheExactBoundTheIndexIsNotUsed) {
  Load({});
  const std::vector<float> q = Query(5);
  query::ExecStats stats;
  // 600 candidates, at most 1000 measured exactly.
  EXPECT_EQ(Run("grp", q, 2, 1000, &stats), BruteForce(q, 10, 2));
  EXPECT_EQ(stats.index_searches, 0u);
}

}  // namespace
}  // namespace omnigraph::engine
