// Full-text index deltas (fulltext_delta.h): a chain applied to its full index gives exactly the
// index a rebuild gives — payload bytes, hence postings, lengths, N, avgdl, df and BM25 — over
// inserts anywhere in id order, deletes, updates (to and from null text), a chain of eight; and
// the delta payload's round trip and damage.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "query/text/fulltext_delta.h"

namespace omnigraph::query::text {
namespace {

// A table's text column by id (nullopt: null text), in id order.
using Rows = std::map<std::string, std::optional<std::string>>;

// One write: the ids it removes (deletes) and the rows it writes (an existing id is an update).
struct Write {
  std::vector<std::string> deleted;
  Rows written;
};

FullTextIndex Rebuild(const Rows& rows) {
  std::vector<const std::optional<std::string>*> texts;
  for (const auto& [id, text] : rows) texts.push_back(&text);
  Analyzer a;
  return FullTextIndex::Build(
      static_cast<uint32_t>(texts.size()),
      [&](uint32_t row) -> std::optional<std::string_view> {
        if (!*texts[row]) return std::nullopt;
        return std::string_view(**texts[row]);
      },
      a);
}

// Applies `w` to `rows` and returns its delta (removed: deletes and the old side of updates).
FullTextDelta Apply(Rows& rows, const Write& w) {
  const uint32_t base_rows = static_cast<uint32_t>(rows.size());
  std::vector<std::string> removed;
  for (const std::string& id : w.deleted) {
    if (rows.erase(id) > 0) removed.push_back(id);
  }
  std::vector<std::pair<std::string, std::optional<std::string>>> added;
  for (const auto& [id, text] : w.written) {
    if (rows.count(id)) removed.push_back(id);
    rows[id] = text;
    added.emplace_back(id, text);
  }
  // Handed over in reverse: Build must not depend on the order it is given.
  std::reverse(added.begin(), added.end());
  Analyzer a;
  Result<FullTextDelta> d = FullTextDelta::Build(
      base_rows, removed, static_cast<uint32_t>(added.size()),
      [&](uint32_t i) -> std::pair<std::string_view, std::optional<std::string_view>> {
        if (!added[i].second) return {added[i].first, std::nullopt};
        return {added[i].first, std::string_view(*added[i].second)};
      },
      a);
  EXPECT_TRUE(d.ok()) << d.status().ToString();
  return *d;
}

std::vector<std::string> IdsOf(const Rows& rows) {
  std::vector<std::string> ids;
  for (const auto& [id, text] : rows) ids.push_back(id);
  return ids;
}

Result<FullTextIndex> Chain(const FullTextIndex& full, std::span<const FullTextDelta> deltas,
                            const std::vector<std::string>& ids) {
  VersionIds v{static_cast<uint32_t>(ids.size()),
               [&](uint32_t i) -> std::string_view { return ids[i]; }};
  return ApplyFullTextChain(full, deltas, v, "fts.3");
}

Rows Base() {
  return {{"b", "tensor graph"},        {"d", "graph databases scale"}, {"f", std::nullopt},
          {"h", "tensor tensor cores"}, {"j", "the quick brown fox"},   {"l", "graphs of graphs"}};
}

TEST(FullTextDeltaTest, InsertsDeletesAndUpdatesMatchARebuild) {
  Rows rows = Base();
  const FullTextIndex full = Rebuild(rows);
  Write w;
  w.deleted = {"d", "zz-absent"};         // A delete (and one of an id the table lacks).
  w.written["a"] = "brand new tensor";    // Before every base id.
  w.written["e"] = "fox graph";           // Between base ids.
  w.written["f"] = "no longer null";      // Update from null text.
  w.written["h"] = std::nullopt;          // Update to null text.
  w.written["j"] = "the slow brown fox";  // Update of text.
  w.written["m"] = "quick quick";         // After every base id.
  w.written["n"] = std::nullopt;          // A new row without text.
  const FullTextDelta delta = Apply(rows, w);
  EXPECT_EQ(delta.base_rows(), 6u);
  EXPECT_EQ(delta.rows(), 9u);
  EXPECT_EQ(delta.removed(), (std::vector<std::string>{"d", "f", "h", "j"}));
  Result<FullTextIndex> merged = Chain(full, std::span(&delta, 1), IdsOf(rows));
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  const FullTextIndex rebuilt = Rebuild(rows);
  EXPECT_EQ(merged->Encode(), rebuilt.Encode());
  EXPECT_EQ(merged->docs(), rebuilt.docs());
  EXPECT_EQ(merged->total_terms(), rebuilt.total_terms());
  EXPECT_DOUBLE_EQ(merged->avg_length(), rebuilt.avg_length());
  // Corpus statistics cover the whole version: scores equal the rebuild's to the bit.
  std::vector<int64_t> q = {merged->Find("tensor"), merged->Find("fox")};
  std::vector<int64_t> qr = {rebuilt.Find("tensor"), rebuilt.Find("fox")};
  for (uint32_t row = 0; row < rebuilt.rows(); ++row) {
    EXPECT_EQ(merged->Bm25(q, row), rebuilt.Bm25(qr, row)) << row;
  }
  // "databas" and "core" had their only documents removed; "slow" and "brand" arrive.
  EXPECT_EQ(merged->Find("databas"), -1);
  EXPECT_EQ(merged->Find("core"), -1);
  EXPECT_GE(merged->Find("slow"), 0);
  EXPECT_EQ(merged->FuzzyTerms("brend", 1), std::vector<int64_t>{merged->Find("brand")});
  EXPECT_TRUE(merged->FuzzyTerms("cores", 1).empty());
}

// Writes drawn from a seed: inserts, deletes and updates over ids that earlier writes added,
// removed or re-added.
Write RandomWrite(std::mt19937& rng, const Rows& rows, int changes) {
  static const char* kWords[] = {"alpha", "beta", "gamma", "delta", "graph", "tensor",
                                 "fox",   "run",  "runs",  "x",     "ünï",   "Alpha"};
  auto text = [&]() -> std::optional<std::string> {
    if (rng() % 7 == 0) return std::nullopt;
    std::string t;
    for (int w = 1 + static_cast<int>(rng() % 5); w > 0; --w) {
      t += std::string(kWords[rng() % std::size(kWords)]) + " ";
    }
    return t;
  };
  Write w;
  for (int c = 0; c < changes; ++c) {
    const std::string id = "id" + std::to_string(rng() % 60);
    if (rows.count(id) && rng() % 3 == 0) {
      w.deleted.push_back(id);
      w.written.erase(id);
    } else if (std::find(w.deleted.begin(), w.deleted.end(), id) == w.deleted.end()) {
      w.written[id] = text();
    }
  }
  return w;
}

TEST(FullTextDeltaTest, EveryPrefixOfAChainOfEightMatchesARebuild) {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    std::mt19937 rng(seed);
    Rows rows;
    for (int i = 0; i < 40; ++i)
      rows["id" + std::to_string(rng() % 60)] = "alpha beta " + std::to_string(i);
    const FullTextIndex full = Rebuild(rows);
    std::vector<FullTextDelta> deltas;
    for (int k = 0; k < 8; ++k) {
      const Write w = RandomWrite(rng, rows, 1 + static_cast<int>(rng() % 9));
      const FullTextDelta d = Apply(rows, w);
      Result<FullTextDelta> back = FullTextDelta::Decode(d.Encode(), "fts.3");
      ASSERT_TRUE(back.ok()) << back.status().ToString();
      EXPECT_EQ(back->Encode(), d.Encode());
      deltas.push_back(*back);
      Result<FullTextIndex> merged = Chain(full, deltas, IdsOf(rows));
      ASSERT_TRUE(merged.ok()) << "seed " << seed << " depth " << k + 1 << ": "
                               << merged.status().ToString();
      EXPECT_EQ(merged->Encode(), Rebuild(rows).Encode()) << "seed " << seed << " depth " << k + 1;
    }
  }
}

TEST(FullTextDeltaTest, AChainThatDoesNotFitIsCorruptionNamingTheIndex) {
  Rows rows = Base();
  const FullTextIndex full = Rebuild(rows);
  Write w;
  w.written["c"] = "graph";
  const FullTextDelta delta = Apply(rows, w);
  std::vector<std::string> ids = IdsOf(rows);
  // The version's ids lack the added row.
  std::vector<std::string> other = ids;
  other[1] = "c2";
  Result<FullTextIndex> r = Chain(full, std::span(&delta, 1), other);
  EXPECT_EQ(r.status().code(), Code::kCorruption);
  EXPECT_NE(r.status().message().find("fts.3"), std::string::npos);
  // The version has another row count.
  ids.push_back("zz");
  EXPECT_EQ(Chain(full, std::span(&delta, 1), ids).status().code(), Code::kCorruption);
  // A delta over a base of another size (applied twice: the second is over 7 rows, not 6).
  const std::vector<FullTextDelta> twice = {delta, delta};
  r = Chain(full, twice, IdsOf(rows));
  EXPECT_EQ(r.status().code(), Code::kCorruption);
  EXPECT_NE(r.status().message().find("delta 2"), std::string::npos);
}

TEST(FullTextDeltaTest, BuildRejectsRepeatedIds) {
  Analyzer a;
  auto one = [](uint32_t) -> std::pair<std::string_view, std::optional<std::string_view>> {
    return {"same", std::string_view("text")};
  };
  EXPECT_EQ(FullTextDelta::Build(3, {}, 2, one, a).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(FullTextDelta::Build(3, {"x", "x"}, 0, one, a).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(FullTextDelta::Build(1, {"x", "y"}, 0, one, a).status().code(), Code::kInvalidArgument);
}

TEST(FullTextDeltaTest, PayloadRejectsEveryTruncationAndMostFlips) {
  Rows rows = Base();
  Write w;
  w.deleted = {"b"};
  w.written["a"] = "alpha beta alpha";
  w.written["h"] = std::nullopt;
  w.written["k"] = "gamma";
  const std::string payload = Apply(rows, w).Encode();
  for (size_t n = 0; n < payload.size(); ++n) {
    Result<FullTextDelta> cut = FullTextDelta::Decode(payload.substr(0, n), "fts.3");
    EXPECT_EQ(cut.status().code(), Code::kCorruption) << "truncated at " << n;
  }
  EXPECT_EQ(FullTextDelta::Decode(payload + "x", "fts.3").status().code(), Code::kCorruption);
  int rejected = 0;
  for (size_t i = 0; i < payload.size(); ++i) {
    std::string bad = payload;
    bad[i] = static_cast<char>(bad[i] ^ 0x41);
    Result<FullTextDelta> r = FullTextDelta::Decode(bad, "fts.3");
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), Code::kCorruption);
      EXPECT_NE(r.status().message().find("fts.3"), std::string::npos);
      ++rejected;
    }
  }
  // Id and term bytes can change into other valid ones; the structure around them cannot.
  EXPECT_GT(rejected, static_cast<int>(payload.size() / 3));
}

}  // namespace
}  // namespace omnigraph::query::text
