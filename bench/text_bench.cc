// omnigraph-bench text: the full-text index (docs/design/fulltext.md) beside SQLite FTS5.
//
// Generates `--docs` documents of 8–40 words drawn from a Zipf(1.0) vocabulary of `--vocab`
// pseudo-words (fixed seed), then, in the same process: builds our inverted index (analysis,
// postings, the encoded payload) and an in-memory FTS5 table over the same documents
// (tokenize = 'porter unicode61 remove_diacritics 2': the same work — Unicode folding, accent
// removal, an English stemmer); reports build times and sizes; then runs `--queries` single-term
// and three-term (all terms) BM25 top-10 queries on each and reports p50/p99 latencies and the
// ratios ours/FTS5. Query terms are drawn from the 2000 most frequent words, so every query has
// long postings. Timing is reported, never asserted; the top-1 documents are compared.
#include <sqlite3.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "bench/bench.h"
#include "query/text/analyzer.h"
#include "query/text/fulltext_index.h"

namespace omnigraph::bench {
namespace {

using query::text::Analyzer;
using query::text::FullTextIndex;

std::string Word(uint64_t i) {
  // Distinct pseudo-words: consonant-vowel syllables from the index.
  static const char* kSyl[] = {"ka", "lo", "mi", "ne", "ru", "sa", "te", "vo",
                               "zi", "pa", "do", "fe", "gu", "hi", "jo", "bu"};
  std::string w;
  do {
    w += kSyl[i % 16];
    i /= 16;
  } while (i > 0);
  return w;
}

std::vector<std::string> Corpus(int64_t docs, int64_t vocab, std::vector<std::string>& words) {
  words.clear();
  for (int64_t i = 0; i < vocab; ++i) words.push_back(Word(static_cast<uint64_t>(i)));
  std::vector<double> cdf(static_cast<size_t>(vocab));
  double sum = 0;
  for (int64_t i = 0; i < vocab; ++i) cdf[static_cast<size_t>(i)] = sum += 1.0 / double(i + 1);
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> u(0, sum);
  std::uniform_int_distribution<int> len(8, 40);
  std::vector<std::string> out;
  out.reserve(static_cast<size_t>(docs));
  for (int64_t d = 0; d < docs; ++d) {
    std::string text;
    const int n = len(rng);
    for (int k = 0; k < n; ++k) {
      const size_t w =
          static_cast<size_t>(std::lower_bound(cdf.begin(), cdf.end(), u(rng)) - cdf.begin());
      if (k > 0) text += ' ';
      text += words[std::min(w, words.size() - 1)];
    }
    out.push_back(std::move(text));
  }
  return out;
}

bool Exec(sqlite3* db, const char* sql) {
  char* error = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &error) != SQLITE_OK) {
    std::fprintf(stderr, "sqlite: %s: %s\n", sql, error ? error : "?");
    sqlite3_free(error);
    return false;
  }
  return true;
}

struct Side {
  double build_ms = 0;
  // Ours: decoding the stored payload, what a reader of the derived object pays instead of
  // build_ms (and the least a delta over a base index would cost a reader).
  double decode_ms = 0;
  uint64_t bytes = 0;
  std::vector<double> one_us, three_us;
  std::vector<int64_t> top1;  // Per query, the best document (row number), -1 for none.
};

Side RunOurs(const std::vector<std::string>& docs, const std::vector<std::string>& queries) {
  Side s;
  Analyzer analyzer;
  const int64_t t0 = NowNanos();
  FullTextIndex index = FullTextIndex::Build(
      static_cast<uint32_t>(docs.size()),
      [&](uint32_t row) -> std::optional<std::string_view> { return std::string_view(docs[row]); },
      analyzer);
  const std::string payload = index.Encode();
  s.build_ms = double(NowNanos() - t0) / 1e6;
  s.bytes = payload.size();
  const int64_t t1 = NowNanos();
  if (!FullTextIndex::Decode(payload, "bench").ok()) std::fprintf(stderr, "decode failed\n");
  s.decode_ms = double(NowNanos() - t1) / 1e6;
  for (size_t q = 0; q < queries.size(); ++q) {
    const int64_t t = NowNanos();
    std::vector<int64_t> ids;
    for (const std::string& term : query::text::QueryTerms(analyzer, queries[q])) {
      ids.push_back(index.Find(term));
    }
    auto top = index.TopK(ids, 10, true);
    const double us = double(NowNanos() - t) / 1e3;
    (q % 2 == 0 ? s.one_us : s.three_us).push_back(us);
    s.top1.push_back(top.empty() ? -1 : int64_t(top[0].first));
  }
  return s;
}

Side RunFts5(const std::vector<std::string>& docs, const std::vector<std::string>& queries) {
  Side s;
  sqlite3* db = nullptr;
  if (sqlite3_open(":memory:", &db) != SQLITE_OK) return s;
  const int64_t t0 = NowNanos();
  Exec(db,
       "CREATE VIRTUAL TABLE t USING fts5(body, tokenize = 'porter unicode61 "
       "remove_diacritics 2')");
  Exec(db, "BEGIN");
  sqlite3_stmt* ins = nullptr;
  sqlite3_prepare_v2(db, "INSERT INTO t(rowid, body) VALUES (?, ?)", -1, &ins, nullptr);
  for (size_t i = 0; i < docs.size(); ++i) {
    sqlite3_bind_int64(ins, 1, static_cast<sqlite3_int64>(i));
    sqlite3_bind_text(ins, 2, docs[i].data(), static_cast<int>(docs[i].size()), SQLITE_STATIC);
    sqlite3_step(ins);
    sqlite3_reset(ins);
  }
  sqlite3_finalize(ins);
  Exec(db, "COMMIT");
  Exec(db, "INSERT INTO t(t) VALUES ('optimize')");
  s.build_ms = double(NowNanos() - t0) / 1e6;
  sqlite3_stmt* pages = nullptr;
  // The database holds only the FTS5 table: its pages are the index.
  sqlite3_prepare_v2(db, "SELECT page_count * page_size FROM pragma_page_count, pragma_page_size",
                     -1, &pages, nullptr);
  if (pages != nullptr && sqlite3_step(pages) == SQLITE_ROW) {
    s.bytes = static_cast<uint64_t>(sqlite3_column_int64(pages, 0));
  }
  sqlite3_finalize(pages);
  sqlite3_stmt* q = nullptr;
  sqlite3_prepare_v2(db, "SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT 10", -1, &q,
                     nullptr);
  for (size_t i = 0; i < queries.size(); ++i) {
    const int64_t t = NowNanos();
    sqlite3_bind_text(q, 1, queries[i].data(), static_cast<int>(queries[i].size()), SQLITE_STATIC);
    int64_t first = -1;
    while (sqlite3_step(q) == SQLITE_ROW) {
      if (first < 0) first = sqlite3_column_int64(q, 0);
    }
    sqlite3_reset(q);
    const double us = double(NowNanos() - t) / 1e3;
    (i % 2 == 0 ? s.one_us : s.three_us).push_back(us);
    s.top1.push_back(first);
  }
  sqlite3_finalize(q);
  sqlite3_close(db);
  return s;
}

int Main(const std::vector<std::string>& args) {
  Flags flags(args, {"docs", "vocab", "queries", "json"});
  if (!flags.error().empty()) {
    std::fprintf(stderr, "omnigraph-bench text: %s\n", flags.error().c_str());
    return 2;
  }
  const int64_t n_docs = flags.GetInt("docs", 1000000);
  const int64_t vocab = flags.GetInt("vocab", 100000);
  const int64_t n_queries = flags.GetInt("queries", 200);
  if (sqlite3_compileoption_used("ENABLE_FTS5") == 0) {
    std::fprintf(stderr, "omnigraph-bench text: this SQLite has no FTS5\n");
    return 1;
  }
  std::vector<std::string> words;
  const std::vector<std::string> docs = Corpus(n_docs, vocab, words);
  // Alternating one-term and three-term queries over the 2000 most frequent words.
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<size_t> pick(0, std::min<size_t>(2000, words.size()) - 1);
  std::vector<std::string> queries;
  for (int64_t i = 0; i < n_queries; ++i) {
    queries.push_back(words[pick(rng)]);
    queries.push_back(words[pick(rng)] + " " + words[pick(rng)] + " " + words[pick(rng)]);
  }
  Side ours = RunOurs(docs, queries);
  Side fts = RunFts5(docs, queries);
  size_t agree = 0;
  for (size_t i = 0; i < queries.size(); ++i) agree += ours.top1[i] == fts.top1[i];
  const double o1p50 = Percentile(ours.one_us, 50), o1p99 = Percentile(ours.one_us, 99);
  const double o3p50 = Percentile(ours.three_us, 50), o3p99 = Percentile(ours.three_us, 99);
  const double f1p50 = Percentile(fts.one_us, 50), f1p99 = Percentile(fts.one_us, 99);
  const double f3p50 = Percentile(fts.three_us, 50), f3p99 = Percentile(fts.three_us, 99);
  if (flags.Has("json")) {
    std::printf(
        "{\"docs\":%lld,\"vocab\":%lld,\"queries\":%lld,\"build_ms\":%.1f,\"index_bytes\":%llu,"
        "\"fts5_build_ms\":%.1f,\"fts5_bytes\":%llu,\"build_ratio\":%.3f,\"size_ratio\":%.3f,"
        "\"one_term_p50_us\":%.1f,\"one_term_p99_us\":%.1f,\"fts5_one_term_p50_us\":%.1f,"
        "\"fts5_one_term_p99_us\":%.1f,\"three_term_p50_us\":%.1f,\"three_term_p99_us\":%.1f,"
        "\"fts5_three_term_p50_us\":%.1f,\"fts5_three_term_p99_us\":%.1f,"
        "\"one_term_p50_ratio\":%.3f,\"three_term_p50_ratio\":%.3f,\"top1_agree\":%zu,"
        "\"top1_total\":%zu}\n",
        static_cast<long long>(n_docs), static_cast<long long>(vocab),
        static_cast<long long>(n_queries), ours.build_ms,
        static_cast<unsigned long long>(ours.bytes), fts.build_ms,
        static_cast<unsigned long long>(fts.bytes), ours.build_ms / fts.build_ms,
        double(ours.bytes) / double(fts.bytes), o1p50, o1p99, f1p50, f1p99, o3p50, o3p99, f3p50,
        f3p99, o1p50 / f1p50, o3p50 / f3p50, agree, queries.size());
    return 0;
  }
  std::printf("%-8s %10s %12s %10s %10s %10s %10s\n", "engine", "build_ms", "bytes", "1t_p50_us",
              "1t_p99_us", "3t_p50_us", "3t_p99_us");
  std::printf("%-8s %10.1f %12llu %10.1f %10.1f %10.1f %10.1f\n", "ours", ours.build_ms,
              static_cast<unsigned long long>(ours.bytes), o1p50, o1p99, o3p50, o3p99);
  std::printf("%-8s %10.1f %12llu %10.1f %10.1f %10.1f %10.1f\n", "fts5", fts.build_ms,
              static_cast<unsigned long long>(fts.bytes), f1p50, f1p99, f3p50, f3p99);
  std::printf(
      "ratio ours/fts5: build %.2fx, size %.2fx, 1-term p50 %.2fx, 3-term p50 %.2fx; "
      "top-1 agrees on %zu of %zu queries\n",
      ours.build_ms / fts.build_ms, double(ours.bytes) / double(fts.bytes), o1p50 / f1p50,
      o3p50 / f3p50, agree, queries.size());
  std::printf("ours: decoding the stored index %.1f ms; a rebuild is %.1fx that\n", ours.decode_ms,
              ours.build_ms / ours.decode_ms);
  return 0;
}

Registrar registrar("text", "full-text index build and BM25 top-10 beside SQLite FTS5", &Main);

}  // namespace
}  // namespace omnigraph::bench
