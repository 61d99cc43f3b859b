// The full-text analyzer and inverted index (analyzer.h, fulltext_index.h): analysis cases,
// BM25 against hand-computed scores, fuzzy distances, top-k and the payload round trip.
#include <gtest/gtest.h>

#include <cmath>

#include "query/text/analyzer.h"
#include "query/text/fulltext_index.h"

namespace omnigraph::query::text {
namespace {

using Terms = std::vector<std::string>;

TEST(AnalyzerTest, FoldsCaseAccentsAndCompatibilityForms) {
  Analyzer a;
  // Case, accents (decomposed and precomposed), full-width letters and a ligature all fold.
  EXPECT_EQ(a.Terms("CAFÉ"), a.Terms("cafe"));
  EXPECT_EQ(a.Terms("cafe\xCC\x81"), a.Terms("cafe"));          // e + combining acute.
  EXPECT_EQ(a.Terms("\xEF\xBC\xA8\xEF\xBC\xA9"), Terms{"hi"});  // Full-width "ＨＩ".
  EXPECT_EQ(a.Terms("\xEF\xAC\x81ne"), Terms{"fine"});          // The "ﬁ" ligature.
  EXPECT_EQ(a.Terms("Ærø"), a.Terms("ærø"));
}

TEST(AnalyzerTest, SplitsOnPunctuationAndKeepsDigits) {
  Analyzer a;
  EXPECT_EQ(a.Terms("hello,world!! (2026) -- x_y"), (Terms{"hello", "world", "2026", "x", "y"}));
  EXPECT_EQ(a.Terms("  ...  "), Terms{});
  EXPECT_EQ(a.Terms(""), Terms{});
  // Invalid UTF-8 bytes separate words rather than failing.
  EXPECT_EQ(a.Terms("ab\xFF"
                    "cd"),
            (Terms{"ab", "cd"}));
  // Letters of other scripts are word characters.
  EXPECT_EQ(a.Terms("日本 Ωμέγα").size(), 2u);
}

TEST(AnalyzerTest, StemsEnglishWithSnowball) {
  Analyzer a;
  EXPECT_EQ(a.Terms("running runs run"), (Terms{"run", "run", "run"}));
  EXPECT_EQ(a.Terms("Introduction"), Terms{"introduct"});
  EXPECT_EQ(a.Terms("connections connected connecting"), (Terms{"connect", "connect", "connect"}));
}

TEST(AnalyzerTest, CutsOverlongTokensAtACodePoint) {
  Analyzer a;
  Terms t = a.Terms(std::string(kTokenBytesMax + 50, '7'));
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].size(), kTokenBytesMax);
}

TEST(EditDistanceTest, CountsInsertionsDeletionsAndSubstitutions) {
  EXPECT_EQ(EditDistance("beta", "beta", 2), 0u);
  EXPECT_EQ(EditDistance("beto", "beta", 2), 1u);
  EXPECT_EQ(EditDistance("introductio", "introduct", 2), 2u);
  EXPECT_EQ(EditDistance("kitten", "sitting", 3), 3u);
  // Beyond the budget the answer is budget + 1, whatever the real distance.
  EXPECT_EQ(EditDistance("kitten", "sitting", 2), 3u);
  EXPECT_EQ(EditDistance("a", "abcdef", 1), 2u);
  EXPECT_EQ(EditDistance("", "ab", 2), 2u);
}

// d0 "tensor" · d1 "tensor tensor" · d2 "graph tensor" · d3 null · d4 "Graphs"
// N = 4 documents (d3 is not one), 6 terms, avgdl = 1.5.
// idf(tensor) = ln(1 + (4-3+0.5)/(3+0.5)) = 0.356675; idf(graph) = ln(1 + 2.5/2.5) = ln 2.
// d0 tensor: 0.356675 · 1·2.2 / (1 + 1.2·(0.25 + 0.75·1/1.5)) = 0.412992
// d1 tensor: 0.356675 · 2·2.2 / (2 + 1.2·(0.25 + 0.75·2/1.5)) = 0.448391
// d2 tensor 0.313874 + graph 0.693147 · 2.2 / (1 + 1.5) = 0.609970 → 0.923843
// d4 graph: 0.693147 · 2.2 / 1.9 = 0.802591
FullTextIndex SmallCorpus() {
  static const std::vector<std::optional<std::string>> docs = {
      "tensor", "tensor tensor", "graph tensor", std::nullopt, "Graphs"};
  Analyzer a;
  return FullTextIndex::Build(
      static_cast<uint32_t>(docs.size()),
      [&](uint32_t row) -> std::optional<std::string_view> {
        if (!docs[row]) return std::nullopt;
        return std::string_view(*docs[row]);
      },
      a);
}

TEST(FullTextIndexTest, Bm25MatchesHandComputedScores) {
  FullTextIndex index = SmallCorpus();
  EXPECT_EQ(index.rows(), 5u);
  EXPECT_EQ(index.docs(), 4u);
  EXPECT_EQ(index.total_terms(), 6u);
  EXPECT_DOUBLE_EQ(index.avg_length(), 1.5);
  const int64_t tensor = index.Find("tensor"), graph = index.Find("graph");
  ASSERT_GE(tensor, 0);
  ASSERT_GE(graph, 0);
  EXPECT_EQ(index.Find("graphs"), -1);  // Stored stemmed.
  EXPECT_NEAR(index.Idf(static_cast<size_t>(tensor)), 0.356675, 1e-6);
  std::vector<int64_t> q1 = {tensor};
  std::vector<int64_t> q2 = {tensor, graph};
  EXPECT_NEAR(index.Bm25(q1, 0), 0.412992, 1e-6);
  EXPECT_NEAR(index.Bm25(q1, 1), 0.448391, 1e-6);
  EXPECT_NEAR(index.Bm25(q2, 2), 0.923843, 1e-6);
  EXPECT_NEAR(index.Bm25(q2, 4), 0.802591, 1e-6);
  EXPECT_EQ(index.Bm25(q1, 4), 0);
  EXPECT_EQ(index.Bm25(q1, 3), 0);  // Null text: no document.
  EXPECT_EQ(index.Tf(static_cast<size_t>(tensor), 1), 2u);
}

TEST(FullTextIndexTest, TopKRanksBestFirstForAnyAndAll) {
  FullTextIndex index = SmallCorpus();
  std::vector<int64_t> q = {index.Find("tensor"), index.Find("graph")};
  auto any = index.TopK(q, 3, false);
  ASSERT_EQ(any.size(), 3u);
  EXPECT_EQ(any[0].first, 2u);
  EXPECT_EQ(any[1].first, 4u);
  EXPECT_EQ(any[2].first, 1u);
  auto all = index.TopK(q, 10, true);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].first, 2u);
  EXPECT_NEAR(all[0].second, 0.923843, 1e-6);
  std::vector<int64_t> missing = {index.Find("tensor"), -1};
  EXPECT_TRUE(index.TopK(missing, 10, true).empty());
  EXPECT_EQ(index.TopK(missing, 10, false).size(), 3u);
}

TEST(FullTextIndexTest, FuzzyTermsWithinTheBudget) {
  FullTextIndex index = SmallCorpus();
  EXPECT_EQ(index.FuzzyTerms("tensr", 1), std::vector<int64_t>{index.Find("tensor")});
  EXPECT_TRUE(index.FuzzyTerms("tens", 1).empty());
  EXPECT_EQ(index.FuzzyTerms("tens", 2), std::vector<int64_t>{index.Find("tensor")});
  EXPECT_EQ(index.FuzzyTerms("graph", 0), std::vector<int64_t>{index.Find("graph")});
}

TEST(FullTextIndexTest, PayloadRoundTripsAndRejectsDamage) {
  FullTextIndex index = SmallCorpus();
  const std::string payload = index.Encode();
  Result<FullTextIndex> back = FullTextIndex::Decode(payload, "fts.2");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->Encode(), payload);
  EXPECT_EQ(back->docs(), 4u);
  std::vector<int64_t> q = {back->Find("tensor"), back->Find("graph")};
  EXPECT_NEAR(back->Bm25(q, 2), 0.923843, 1e-6);
  // Every truncation and every flipped byte is caught as Corruption (never a crash).
  for (size_t n = 0; n < payload.size(); ++n) {
    Result<FullTextIndex> cut = FullTextIndex::Decode(payload.substr(0, n), "fts.2");
    EXPECT_EQ(cut.status().code(), Code::kCorruption) << "truncated at " << n;
  }
  int rejected = 0;
  for (size_t i = 0; i < payload.size(); ++i) {
    std::string bad = payload;
    bad[i] = static_cast<char>(bad[i] ^ 0x41);
    Result<FullTextIndex> r = FullTextIndex::Decode(bad, "fts.2");
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), Code::kCorruption);
      EXPECT_NE(r.status().message().find("fts.2"), std::string::npos);
      ++rejected;
    }
  }
  // Term bytes can change into other valid terms; the structure around them cannot.
  EXPECT_GT(rejected, static_cast<int>(payload.size() / 2));
}

}  // namespace
}  // namespace omnigraph::query::text
