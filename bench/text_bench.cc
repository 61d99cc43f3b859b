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
//
// With `--append K` it measures instead what a small write costs an indexed table (docs/design/
// fulltext.md "Deltas"): a graph on a memory store is loaded with the `--docs` documents (whose
// derived step stores the full index), then K more are appended; it reports the new version's
// derived step storing a delta against a full rebuild, each in a fresh process (cold caches),
// the delta's bytes against the full index's, and the first query's index read in a fresh
// process — the chain (full object, delta, one base manifest) merged through the version's ids —
// against reading the full index of the same version.
#include <sqlite3.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "bench/bench.h"
#include "engine/graph/graph.h"
#include "engine/ops/load.h"
#include "engine/read/query.h"
#include "engine/write/derived_indexes.h"
#include "query/text/analyzer.h"
#include "query/text/fulltext_index.h"
#include "query/text/fulltext_version.h"
#include "storage/memory_store.h"
#include "table/derived.h"

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

constexpr std::string_view kAppendSchema = "node Doc { slug: String @key  body: String @index }";
constexpr std::string_view kAppendQuery = R"(
query q($q: String) {
  match { $d: Doc  search($d.body, $q) }
  return { $d.slug } order { bm25($d.body, $q) desc, $d.slug } limit 10
})";

std::string DocLines(const std::vector<std::string>& docs, size_t from, size_t to) {
  std::string out;
  for (size_t i = from; i < to; ++i) {
    // Slugs spread the appended documents through the id order (the reader renumbers).
    out += R"({"type":"Doc","data":{"slug":"d)" + std::to_string((i * 7919) % 10000019) +
           R"(","body":")" + docs[i] + "\"}}\n";
  }
  return out;
}

struct AppendSide {
  double step_ms = 0, read_ms = 0, query_ms = 0;
  uint64_t bytes = 0;
};

int AppendFail(const Status& s) {
  std::fprintf(stderr, "omnigraph-bench text --append: %s\n", s.ToString().c_str());
  return 1;
}

// One measurement in a fresh process on `store`: the derived step (delta or full rebuild) of the
// head version after removing what is stored, then, in another fresh process, the index read and
// the first query.
Result<AppendSide> MeasureAppend(const std::shared_ptr<storage::MemoryStore>& store, bool delta,
                                 const std::string& query) {
  AppendSide side;
  const storage::Runtime rt = storage::Runtime::ForStore(store, 2);
  OMNIGRAPH_ASSIGN_OR_RETURN(std::unique_ptr<engine::Graph> g, engine::Graph::Open(rt));
  OMNIGRAPH_ASSIGN_OR_RETURN(engine::Snapshot head, g->SnapshotOfBranch("main"));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::TableVersion> v, head.Table("node:Doc"));
  const schema::TypeDef* type = head.catalog().FindByTableKey("node:Doc");
  const uint32_t field = query::text::FullTextFields(*type).at(0);
  const std::string kind = query::text::FullTextKind(field);
  const std::string name = table::DerivedName(v->table(), v->manifest().staged_version, kind);
  OMNIGRAPH_RETURN_IF_ERROR(store->Delete(name));
  int64_t t = NowNanos();
  if (delta) {
    engine::DerivedBuildOptions options;
    options.fresh = true;
    if (engine::BuildMissingDerived(type, *v, options).built.empty()) {
      return Internal("the derived step stored nothing");
    }
  } else {
    OMNIGRAPH_ASSIGN_OR_RETURN(std::string payload, query::text::BuildFullTextPayload(*v, field));
    OMNIGRAPH_RETURN_IF_ERROR(v->WriteDerived(kind, payload));
  }
  side.step_ms = double(NowNanos() - t) / 1e6;
  OMNIGRAPH_ASSIGN_OR_RETURN(table::DerivedHeader header, v->ReadDerivedHeader(kind));
  if (header.delta.has_value() != delta) return Internal("the step stored the other form");
  side.bytes = header.payload_bytes;
  // The index alone in a fresh process (its id index read or built first, outside the timing),
  // then the whole first query in another.
  OMNIGRAPH_ASSIGN_OR_RETURN(std::unique_ptr<engine::Graph> cold, engine::Graph::Open(rt));
  OMNIGRAPH_ASSIGN_OR_RETURN(engine::Snapshot cold_head, cold->SnapshotOfBranch("main"));
  OMNIGRAPH_ASSIGN_OR_RETURN(v, cold_head.Table("node:Doc"));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::IdIndex> ids, v->SortedIds());
  t = NowNanos();
  OMNIGRAPH_ASSIGN_OR_RETURN(
      query::text::FullTextIndex index,
      query::text::ReadFullTextChain(
          *v, kind, query::text::VersionIds{static_cast<uint32_t>(ids->size()), [&](uint32_t i) {
                                              return ids->IdAt(i);
                                            }}));
  side.read_ms = double(NowNanos() - t) / 1e6;
  if (index.rows() != ids->size()) return Internal("the index has the wrong row count");
  OMNIGRAPH_ASSIGN_OR_RETURN(cold, engine::Graph::Open(rt));
  t = NowNanos();
  OMNIGRAPH_ASSIGN_OR_RETURN(OrderedJson rows,
                             engine::RunReadJson(*cold, kAppendQuery, "q", Json{{"q", query}}));
  side.query_ms = double(NowNanos() - t) / 1e6;
  return side;
}

int RunAppend(const std::vector<std::string>& docs, size_t k, const std::string& query, bool json) {
  auto store = std::make_shared<storage::MemoryStore>();
  const storage::Runtime rt = storage::Runtime::ForStore(store, 2);
  Result<std::unique_ptr<engine::Graph>> g = engine::Graph::Init(rt, kAppendSchema);
  if (!g.ok()) return AppendFail(g.status());
  const size_t n = docs.size() - k;
  int64_t t = NowNanos();
  Result<engine::LoadResult> base =
      engine::Load(**g, "main", DocLines(docs, 0, n), engine::LoadMode::kAppend);
  if (!base.ok()) return AppendFail(base.status());
  const double load_ms = double(NowNanos() - t) / 1e6;
  Result<engine::LoadResult> appended =
      engine::Load(**g, "main", DocLines(docs, n, docs.size()), engine::LoadMode::kAppend);
  if (!appended.ok()) return AppendFail(appended.status());
  Result<AppendSide> full = MeasureAppend(store, false, query);
  if (!full.ok()) return AppendFail(full.status());
  Result<AppendSide> delta = MeasureAppend(store, true, query);
  if (!delta.ok()) return AppendFail(delta.status());
  if (json) {
    std::printf(
        "{\"bench\":\"text-append\",\"docs\":%zu,\"append\":%zu,\"base_load_ms\":%.1f,"
        "\"delta_step_ms\":%.2f,\"rebuild_step_ms\":%.2f,\"step_ratio\":%.4f,"
        "\"delta_bytes\":%llu,\"full_bytes\":%llu,\"bytes_ratio\":%.6f,"
        "\"chain_read_ms\":%.2f,\"full_read_ms\":%.2f,\"read_ratio\":%.3f,"
        "\"first_query_chain_ms\":%.2f,\"first_query_full_ms\":%.2f,\"query_ratio\":%.3f}\n",
        n, k, load_ms, delta->step_ms, full->step_ms, delta->step_ms / full->step_ms,
        static_cast<unsigned long long>(delta->bytes), static_cast<unsigned long long>(full->bytes),
        double(delta->bytes) / double(full->bytes), delta->read_ms, full->read_ms,
        delta->read_ms / full->read_ms, delta->query_ms, full->query_ms,
        delta->query_ms / full->query_ms);
    return 0;
  }
  std::printf("append %zu docs to %zu (base load %.0f ms)\n", k, n, load_ms);
  std::printf("%-8s %12s %12s %12s %14s\n", "stored", "step_ms", "bytes", "read_ms", "query_ms");
  for (const auto& [label, side] : {std::pair{"delta", *delta}, std::pair{"full", *full}}) {
    std::printf("%-8s %12.2f %12llu %12.2f %14.2f\n", label, side.step_ms,
                static_cast<unsigned long long>(side.bytes), side.read_ms, side.query_ms);
  }
  std::printf("ratio delta/full: step %.4fx, bytes %.5fx, index read %.2fx, first query %.2fx\n",
              delta->step_ms / full->step_ms, double(delta->bytes) / double(full->bytes),
              delta->read_ms / full->read_ms, delta->query_ms / full->query_ms);
  return 0;
}

int Main(const std::vector<std::string>& args) {
  Flags flags(args, {"docs", "vocab", "queries", "append", "json"});
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
  const int64_t append = flags.GetInt("append", 0);
  if (append < 0 || append >= n_docs) {
    std::fprintf(stderr, "omnigraph-bench text: --append must be 1 to --docs - 1\n");
    return 2;
  }
  const std::vector<std::string> docs = Corpus(n_docs + append, vocab, words);
  if (append > 0) {
    return RunAppend(docs, static_cast<size_t>(append), words[1], flags.Has("json"));
  }
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
