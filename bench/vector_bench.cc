// omnigraph-bench vector: the ANN index (src/table/ann_index.h) beside exact search and two
// peers in the same process (docs/benchmarks.md "Vector search").
//
// Writes `--rows` vectors of dimension `--dim` into one table version in memory: `--data
// clustered` (1000 Gaussian centres, noise around each, like embeddings; queries are points of
// the set plus noise — an easy set for an inverted file) or `--data uniform` (uniform random unit
// vectors, queries too — the hard case: no structure to find). Then it builds our IVF index (time,
// payload bytes; on `--threads` threads, decision 236; with hard data its lists trained in full
// besides, for the lists' series), opens it, and runs `--queries` queries: exact
// top-10 by a plain dot-product loop over the normalized floats (the reference every recall is
// measured against), the executor's exact kernel (query/exec SquaredL2Distance over the stored
// vectors) as a ratio to that loop, and the index at several probe counts, unfiltered and with a
// 10% filter (an id selector, probes scaled by 1/0.1 as the executor does), and the index's
// quantized codes (decision 224: a scan on `--threads` threads for R candidates, then the exact
// re-rank of the R by the executor's kernel) at several R. The peers, on the same
// vectors and queries: hnswlib (M 16, efConstruction 200, built on `--threads` threads, ef 10
// to 2,048 and doubled on until its recall reaches 0.95) and faiss's own IndexIVFFlat (the same
// number of lists, trained faiss's default way, multi-threaded, probes 8 to 1,024 and on to every
// list until 0.95); `--no-peers` skips them. Each method reports p50/p99
// latency (one query at a time, one thread) and recall@10; the JSON adds build seconds, bytes and
// the ratios build_s_ratio_vs_hnswlib and p50_ratio_vs_hnswlib_at_recall_0_95 (the fastest of
// our series reaching recall 0.95 — named in best_method_at_recall_0_95 — over hnswlib's; null
// when either never reaches it). `--hnswlib-cache DIR` keeps hnswlib's built index there (keyed
// by data, rows, dimension, seed, M and efConstruction; beside it the build seconds and the load
// average of the run that built it) and loads it in later runs instead of building. Timing is
// reported, never asserted. The table goes to stderr; `--json` prints one JSON object for
// bench/results on stdout.
#include <faiss/IndexFlat.h>
#include <faiss/IndexIVFFlat.h>
#include <hnswlib/hnswlib.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "base/executor.h"
#include "base/hash.h"
#include "base/json.h"
#include "bench/bench.h"
#include "query/exec/executor.h"
#include "query/exec/frame.h"
#include "storage/memory_store.h"
#include "table/ann_index.h"
#include "table/column_builder.h"
#include "table/table_store.h"

namespace omnigraph::bench {
namespace {

constexpr uint32_t kField = 1;
constexpr size_t kK = 10;
constexpr uint32_t kSeed = 42;
constexpr size_t kHnswM = 16;
constexpr size_t kHnswEfConstruction = 200;

struct Data {
  uint32_t dim = 0;
  size_t rows = 0;
  std::vector<float> raw;   // Before normalization.
  std::vector<float> unit;  // Normalized, as the embedding client stores them: the table's, the
                            // reference's and HNSW's input (squared L2 orders them as cosine).
};

// Clustered: 1000 Gaussian centres, noise sigma 0.5 around each. Uniform: each vector a normal
// draw per dimension, normalized (uniform on the sphere).
Data Generate(size_t rows, uint32_t dim, uint32_t seed, bool uniform) {
  Data d{dim, rows, std::vector<float>(rows * dim), std::vector<float>(rows * dim)};
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal;
  std::vector<float> centres(uniform ? 0 : 1000 * size_t{dim});
  for (float& f : centres) f = normal(rng);
  for (size_t i = 0; i < rows; ++i) {
    const float* c = uniform ? nullptr : &centres[(rng() % 1000) * dim];
    double norm = 0;
    for (uint32_t j = 0; j < dim; ++j) {
      d.raw[i * dim + j] = uniform ? normal(rng) : c[j] + 0.5f * normal(rng);
      norm += double(d.raw[i * dim + j]) * d.raw[i * dim + j];
    }
    for (uint32_t j = 0; j < dim; ++j)
      d.unit[i * dim + j] = float(d.raw[i * dim + j] / std::sqrt(norm));
  }
  return d;
}

// Queries: clustered — points of the set displaced by sigma 0.05; uniform — fresh uniform unit
// vectors. Normalized.
std::vector<std::vector<float>> Queries(const Data& d, size_t nq, bool uniform) {
  std::mt19937 rng(7);
  std::normal_distribution<float> normal;
  std::vector<std::vector<float>> queries(nq, std::vector<float>(d.dim));
  for (auto& q : queries) {
    const size_t base = rng() % d.rows;
    double norm = 0;
    for (uint32_t j = 0; j < d.dim; ++j) {
      q[j] = uniform ? normal(rng) : d.unit[base * d.dim + j] + 0.05f * normal(rng);
      norm += double(q[j]) * q[j];
    }
    for (float& f : q) f = float(f / std::sqrt(norm));
  }
  return queries;
}

Result<std::shared_ptr<const table::TableVersion>> Write(table::TableStore& tables, const Data& d) {
  const table::Schema schema = {
      {table::kIdFieldId, "id", table::DataType::Scalar(table::TypeId::kString), false},
      {kField, "emb", table::DataType::Vector(d.dim), false}};
  table::ColumnBuilder ids(schema[0].type, false), vecs(schema[1].type, false);
  for (size_t i = 0; i < d.rows; ++i) {
    char id[32];
    std::snprintf(id, sizeof id, "v%09zu", i);
    ids.AppendString(id);
    vecs.AppendVector(std::span<const float>(&d.unit[i * d.dim], d.dim));
  }
  std::vector<table::Column> columns;
  OMNIGRAPH_ASSIGN_OR_RETURN(table::Column c0, ids.Finish());
  OMNIGRAPH_ASSIGN_OR_RETURN(table::Column c1, vecs.Finish());
  columns.push_back(std::move(c0));
  columns.push_back(std::move(c1));
  OMNIGRAPH_ASSIGN_OR_RETURN(
      TablePin pin,
      tables.Create(table::NewTable{TableId{0x51, 1}, "Vec", schema},
                    table::ColumnBatch(schema, std::move(columns), d.rows), std::nullopt));
  return tables.Open(pin);
}

// Exact top-k among `allowed` (empty = all) by a plain float dot-product loop over unit vectors.
std::vector<uint32_t> Exact(const Data& d, const float* q, const std::vector<bool>& allowed) {
  std::vector<std::pair<float, uint32_t>> top;
  top.reserve(d.rows);
  for (size_t i = 0; i < d.rows; ++i) {
    if (!allowed.empty() && !allowed[i]) continue;
    const float* v = &d.unit[i * d.dim];
    float dot = 0;
    for (uint32_t j = 0; j < d.dim; ++j) dot += v[j] * q[j];
    top.emplace_back(-dot, static_cast<uint32_t>(i));
  }
  const size_t k = std::min(kK, top.size());
  std::partial_sort(top.begin(), top.begin() + k, top.end());
  std::vector<uint32_t> out;
  for (size_t i = 0; i < k; ++i) out.push_back(top[i].second);
  return out;
}

double Recall(const std::vector<uint32_t>& got, const std::vector<uint32_t>& truth) {
  std::set<uint32_t> t(truth.begin(), truth.end());
  size_t hit = 0;
  for (uint32_t x : got) hit += t.count(x);
  return truth.empty() ? 1.0 : double(hit) / double(truth.size());
}

struct Series {
  std::vector<double> ms;
  double recall = 0;
  Json ToJson(const std::string& name, int64_t param) {
    Json j = {{"name", name},
              {"param", param},
              {"p50_ms", Percentile(ms, 50)},
              {"p99_ms", Percentile(ms, 99)},
              {"recall_at_10", recall / double(ms.size())}};
    std::fprintf(stderr, "%-28s %6lld %10.3f %10.3f %8.4f\n", name.c_str(),
                 static_cast<long long>(param), j["p50_ms"].get<double>(),
                 j["p99_ms"].get<double>(), j["recall_at_10"].get<double>());
    return j;
  }
};

double Seconds(int64_t t0) { return double(NowNanos() - t0) / 1e9; }

// Runs `one(i)` for i in [0, n) on `threads` threads taking indices in turn (hnswlib's own
// parallel add does the same).
template <typename F>
void ParallelFor(size_t n, int threads, F one) {
  std::atomic<size_t> next{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      for (size_t i = next++; i < n; i = next++) one(i);
    });
  }
  for (std::thread& t : pool) t.join();
}

// The queries and their exact answers (unfiltered and with the 10% filter).
struct Workload {
  std::vector<std::vector<float>> queries;
  std::vector<std::vector<uint32_t>> truth, truth_f;
  std::vector<bool> filter;
};

// One series of `search(query) -> ids` over every query: latency and recall against `truth`.
template <typename Search>
Result<Json> Measure(const std::string& name, int64_t param, const Workload& w,
                     const std::vector<std::vector<uint32_t>>& truth, Search search) {
  Series s;
  for (size_t i = 0; i < w.queries.size(); ++i) {
    const int64_t q0 = NowNanos();
    OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<uint32_t> got, search(w.queries[i]));
    s.ms.push_back(double(NowNanos() - q0) / 1e6);
    s.recall += Recall(got, truth[i]);
  }
  return s.ToJson(name, param);
}

// The recall at which the ratios compare latencies.
constexpr double kRecallGoal = 0.95;

// The recall of the last entry of a series (0 before the first).
double RecallOfLast(const Json& series) {
  return series.empty() ? 0.0 : series.back()["recall_at_10"].get<double>();
}

// hnswlib's ef series: 10, 16, then doubling.
size_t NextSeriesStep(size_t ef) { return ef < 16 ? 16 : ef * 2; }

// The machine's load average now (/proc/loadavg), for the record of a cached build.
std::string LoadAverage() {
  std::ifstream f("/proc/loadavg");
  std::string line;
  std::getline(f, line);
  return line;
}

// hnswlib over the unit vectors (inner product), M 16, efConstruction 200, built on `threads` —
// or loaded from `cache` (a directory; empty = none) when an earlier run stored the same build.
Result<Json> MeasureHnswlib(const Data& d, const Workload& w, int threads, bool uniform,
                            const std::string& cache) {
  hnswlib::InnerProductSpace space(d.dim);
  hnswlib::HierarchicalNSW<float> h(&space, d.rows, kHnswM, kHnswEfConstruction, 100);
  const std::string key = cache + "/hnswlib-" + (uniform ? "uniform" : "clustered") + "-" +
                          std::to_string(d.rows) + "x" + std::to_string(d.dim) + "-seed" +
                          std::to_string(kSeed) + "-M" + std::to_string(kHnswM) + "-efc" +
                          std::to_string(kHnswEfConstruction);
  Json out = {{"series", Json::array()}};
  if (!cache.empty() && std::filesystem::exists(key + ".json")) {
    std::ifstream meta(key + ".json");
    std::string text((std::istreambuf_iterator<char>(meta)), std::istreambuf_iterator<char>());
    OMNIGRAPH_ASSIGN_OR_RETURN(Json record, ParseJson(text, key + ".json"));
    h.loadIndex(key + ".bin", &space, d.rows);
    out["build_s"] = record["build_s"];
    out["build_loadavg"] = record["loadavg"];
    out["loaded_from_cache"] = key + ".bin";
  } else {
    const int64_t t0 = NowNanos();
    h.addPoint(&d.unit[0], 0);
    ParallelFor(d.rows - 1, threads,
                [&](size_t i) { h.addPoint(&d.unit[(i + 1) * d.dim], i + 1); });
    out["build_s"] = Seconds(t0);
    out["build_loadavg"] = LoadAverage();
    if (!cache.empty()) {
      std::filesystem::create_directories(cache);
      h.saveIndex(key + ".bin");
      std::ofstream(key + ".json") << Json{
          {"build_s", out["build_s"]},
          {"loadavg", out["build_loadavg"]},
          {"threads", threads}}.dump(2);
    }
  }
  uint64_t bytes = d.rows * h.size_data_per_element_;
  for (size_t i = 0; i < d.rows; ++i) bytes += h.element_levels_[i] * h.size_links_per_element_;
  out["index_bytes"] = bytes;
  std::fprintf(stderr, "hnswlib build %.1f s, %.1f MB\n", out["build_s"].get<double>(),
               double(bytes) / 1e6);
  // The fixed series, then doubling ef until the recall reaches 0.95 (on hard data at 1M it does
  // not by 2,048), so that hnswlib's fastest point at that recall is measured, not missing.
  for (size_t ef = 10; ef <= 2048 || (ef <= std::max<size_t>(d.rows, 2048) &&
                                      RecallOfLast(out["series"]) < kRecallGoal);
       ef = NextSeriesStep(ef)) {
    h.setEf(ef);
    OMNIGRAPH_ASSIGN_OR_RETURN(Json j,
                               Measure("hnswlib ef", static_cast<int64_t>(ef), w, w.truth,
                                       [&](const std::vector<float>& q) {
                                         auto pq = h.searchKnn(q.data(), kK);
                                         std::vector<uint32_t> got;
                                         for (; !pq.empty(); pq.pop())
                                           got.push_back(static_cast<uint32_t>(pq.top().second));
                                         return Result<std::vector<uint32_t>>(std::move(got));
                                       }));
    out["series"].push_back(std::move(j));
  }
  return out;
}

// faiss's own IndexIVFFlat with our list count, trained its default way on `threads` threads.
Result<Json> MeasureFaissIvf(const Data& d, const Workload& w, uint32_t lists, int threads) {
  omp_set_num_threads(threads);
  faiss::IndexFlatL2 quantizer(static_cast<int>(d.dim));
  faiss::IndexIVFFlat index(&quantizer, d.dim, lists, faiss::METRIC_L2);
  const int64_t t0 = NowNanos();
  index.train(static_cast<faiss::Index::idx_t>(d.rows), d.unit.data());
  index.add(static_cast<faiss::Index::idx_t>(d.rows), d.unit.data());
  Json out = {{"build_s", Seconds(t0)}, {"series", Json::array()}};
  out["index_bytes"] = d.rows * (d.dim * sizeof(float) + sizeof(faiss::Index::idx_t)) +
                       uint64_t{lists} * d.dim * sizeof(float);
  std::fprintf(stderr, "faiss IVFFlat build %.1f s (%d threads)\n", out["build_s"].get<double>(),
               threads);
  omp_set_num_threads(1);  // Queries one at a time on one thread, as ours.
  // Doubling the probes as far as 1,024 and on, up to every list, until the recall reaches 0.95.
  for (uint32_t probes = 8;
       probes <= lists && (probes <= 1024 || RecallOfLast(out["series"]) < kRecallGoal);
       probes = probes * 2 > lists && probes < lists ? lists : probes * 2) {
    index.nprobe = probes;
    OMNIGRAPH_ASSIGN_OR_RETURN(
        Json j, Measure("faiss ivf probes", probes, w, w.truth, [&](const std::vector<float>& q) {
          std::vector<float> dist(kK);
          std::vector<faiss::Index::idx_t> labels(kK);
          index.search(1, q.data(), kK, dist.data(), labels.data());
          std::vector<uint32_t> got;
          for (auto l : labels) {
            if (l >= 0) got.push_back(static_cast<uint32_t>(l));
          }
          return Result<std::vector<uint32_t>>(std::move(got));
        }));
    out["series"].push_back(std::move(j));
  }
  return out;
}

// The exact answers, and the exact methods' own series (the dot loop and the executor kernel).
Workload ExactWorkload(const Data& d, size_t nq, bool uniform, Json& series, Json& out) {
  Workload w{Queries(d, nq, uniform), std::vector<std::vector<uint32_t>>(nq),
             std::vector<std::vector<uint32_t>>(nq), std::vector<bool>(d.rows)};
  for (size_t i = 3; i < d.rows; i += 10) w.filter[i] = true;
  Series plain, kernel, plain_f;
  for (size_t i = 0; i < nq; ++i) {
    int64_t q0 = NowNanos();
    w.truth[i] = Exact(d, w.queries[i].data(), {});
    plain.ms.push_back(double(NowNanos() - q0) / 1e6);
    plain.recall += 1;
    q0 = NowNanos();
    w.truth_f[i] = Exact(d, w.queries[i].data(), w.filter);
    plain_f.ms.push_back(double(NowNanos() - q0) / 1e6);
    plain_f.recall += 1;
    // The executor's exact kernel: squared L2 over every stored vector, then top-k.
    q0 = NowNanos();
    std::vector<std::pair<double, uint32_t>> all(d.rows);
    for (size_t r = 0; r < d.rows; ++r) {
      all[r] = {query::exec::SquaredL2Distance(std::span<const float>(&d.unit[r * d.dim], d.dim),
                                               w.queries[i]),
                static_cast<uint32_t>(r)};
    }
    std::partial_sort(all.begin(), all.begin() + kK, all.end());
    kernel.ms.push_back(double(NowNanos() - q0) / 1e6);
    std::vector<uint32_t> got;
    for (size_t j = 0; j < kK; ++j) got.push_back(all[j].second);
    kernel.recall += Recall(got, w.truth[i]);
  }
  series.push_back(plain.ToJson("exact dot loop", 0));
  series.push_back(kernel.ToJson("exact executor kernel", 0));
  series.push_back(plain_f.ToJson("exact dot loop, 10% filter", 0));
  out["exact_kernel_over_dot_loop"] = Percentile(kernel.ms, 50) / Percentile(plain.ms, 50);
  return w;
}

// The codes' R candidates for `q` measured by the executor's kernel over the stored vectors; the
// k nearest of them.
std::vector<uint32_t> Rerank(const Data& d, const std::vector<float>& q,
                             const std::vector<uint32_t>& candidates) {
  std::vector<std::pair<double, uint32_t>> scored;
  scored.reserve(candidates.size());
  for (uint32_t r : candidates) {
    scored.emplace_back(
        query::exec::SquaredL2Distance(std::span<const float>(&d.unit[r * d.dim], d.dim), q), r);
  }
  const size_t k = std::min(kK, scored.size());
  std::partial_sort(scored.begin(), scored.begin() + k, scored.end());
  std::vector<uint32_t> out;
  for (size_t i = 0; i < k; ++i) out.push_back(scored[i].second);
  return out;
}

// The codes of `index` at several R: scan on the runtime's threads, re-rank exactly.
Status MeasureCodes(const table::AnnIndex& index, const Data& d, const Workload& w,
                    Executor& threads, Json& series) {
  for (uint64_t r : {10, 20, 50, 100, 200, 400, 1000, 2000}) {
    OMNIGRAPH_ASSIGN_OR_RETURN(
        Json j, Measure("codes + exact rerank", static_cast<int64_t>(r), w, w.truth,
                        [&](const std::vector<float>& q) -> Result<std::vector<uint32_t>> {
                          OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<uint32_t> found,
                                                     index.SearchCodes(q, r, threads));
                          return Rerank(d, q, found);
                        }));
    series.push_back(std::move(j));
  }
  return Status::Ok();
}

// Our index: built from the table version (k-means, assignment and codes on the runtime's
// threads with a fixed division of work, decision 236), decoded, searched at several probe counts
// unfiltered and with the filter (probes x10). When the build's own rule stores no codes
// (clustered data), an index with codes is built besides for the codes' series; when it stores
// one list (hard data, decision 236), an index with its lists trained in full is built besides
// for the lists' series and faiss's list count (out["series_lists"]).
Result<std::shared_ptr<const table::AnnIndex>> MeasureOurs(const table::TableVersion& version,
                                                           const Data& d, const Workload& w,
                                                           Executor& threads, Json& out,
                                                           Json& series) {
  int64_t t0 = NowNanos();
  OMNIGRAPH_ASSIGN_OR_RETURN(std::string payload, table::BuildAnnPayload(version, kField));
  out["build_s"] = Seconds(t0);
  out["build_threads"] = threads.Parallelism();
  out["index_bytes"] = payload.size();
  out["index_xxhash64"] = XxHash64(payload);
  t0 = NowNanos();
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::AnnIndex> index,
                             table::AnnIndex::Decode(payload, "bench"));
  out["open_s"] = Seconds(t0);
  out["lists"] = index->lists();
  out["probes_for_recall"] = index->probes_for_recall();
  out["codes_stored"] = index->has_codes();
  std::fprintf(stderr, "ivf build %.1f s, %.1f MB, %u lists, open %.2f s, calibrated probes %u\n",
               out["build_s"].get<double>(), double(payload.size()) / 1e6, index->lists(),
               out["open_s"].get<double>(), index->probes_for_recall());
  std::shared_ptr<const table::AnnIndex> coded = index, listed = index;
  if (index->lists() == 1) {
    table::AnnBuildOptions full;
    full.hard_data_check = false;
    t0 = NowNanos();
    OMNIGRAPH_ASSIGN_OR_RETURN(std::string with, table::BuildAnnPayload(version, kField, full));
    out["build_s_full_lists"] = Seconds(t0);
    OMNIGRAPH_ASSIGN_OR_RETURN(listed, table::AnnIndex::Decode(with, "bench full lists"));
    out["lists_full"] = listed->lists();
    out["probes_for_recall_full"] = listed->probes_for_recall();
    std::fprintf(stderr, "full lists build %.1f s, %u lists, calibrated probes %u\n",
                 out["build_s_full_lists"].get<double>(), listed->lists(),
                 listed->probes_for_recall());
  }
  out["series_lists"] = listed->lists();
  if (!index->has_codes()) {
    table::AnnBuildOptions always;
    always.codes = table::AnnCodesChoice::kAlways;
    t0 = NowNanos();
    OMNIGRAPH_ASSIGN_OR_RETURN(std::string with, table::BuildAnnPayload(version, kField, always));
    out["build_s_with_codes"] = Seconds(t0);
    out["index_bytes_with_codes"] = with.size();
    OMNIGRAPH_ASSIGN_OR_RETURN(coded, table::AnnIndex::Decode(with, "bench codes"));
  }
  OMNIGRAPH_RETURN_IF_ERROR(MeasureCodes(*coded, d, w, threads, series));
  for (uint32_t probes : {8u, 16u, 24u, 32u, 48u, 64u, 128u, 256u, 512u, 1024u}) {
    auto unfiltered = [&](const std::vector<float>& q) {
      return listed->Search(q, kK, {}, probes);
    };
    auto filtered = [&](const std::vector<float>& q) {
      return listed->Search(q, kK, w.filter, probes * 10);
    };
    OMNIGRAPH_ASSIGN_OR_RETURN(Json s, Measure("ivf probes", probes, w, w.truth, unfiltered));
    OMNIGRAPH_ASSIGN_OR_RETURN(
        Json f, Measure("ivf 10% filter, probes x10", probes, w, w.truth_f, filtered));
    series.push_back(std::move(s));
    series.push_back(std::move(f));
  }
  return index;
}

// What the executor does for an unfiltered top-10 over this index (exec::IndexedNearestProbes):
// a search at the probes it chooses, or — when the index would scan most rows — the exact scan,
// whose cost is the executor kernel's. The entry is named "executor's choice".
Result<Json> MeasureExecutorChoice(const table::AnnIndex& index, const Data& d, const Workload& w,
                                   Executor& threads, const Json& series, Json& out) {
  const std::optional<uint32_t> probes =
      query::IndexedNearestProbes(index.lists(), index.probes_for_recall(), 1.0);
  out["executor_method"] = probes ? "index" : index.has_codes() ? "codes" : "exact";
  out["executor_probes"] = probes ? Json(*probes) : Json();
  if (!probes && index.has_codes()) {
    const uint64_t r = query::NearestCodeCandidates(kK);
    out["executor_code_candidates"] = r;
    return Measure("executor's choice", static_cast<int64_t>(r), w, w.truth,
                   [&](const std::vector<float>& q) -> Result<std::vector<uint32_t>> {
                     OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<uint32_t> found,
                                                index.SearchCodes(q, r, threads));
                     return Rerank(d, q, found);
                   });
  }
  if (probes) {
    auto search = [&](const std::vector<float>& q) { return index.Search(q, kK, {}, *probes); };
    return Measure("executor's choice", *probes, w, w.truth, search);
  }
  for (const Json& s : series) {
    if (s["name"] != "exact executor kernel") continue;
    Json choice = s;
    choice["name"] = "executor's choice";
    return choice;
  }
  return Internal("no exact executor kernel series");
}

// The entry with the lowest p50 among `series` entries named one of `names` whose recall
// reaches 0.95; null if none.
Json FastestEntryAtRecall(const Json& series, std::initializer_list<std::string> names) {
  Json best;
  for (const Json& s : series) {
    if (std::find(names.begin(), names.end(), s["name"].get<std::string>()) == names.end() ||
        s["recall_at_10"].get<double>() < kRecallGoal) {
      continue;
    }
    if (best.is_null() || s["p50_ms"].get<double>() < best["p50_ms"].get<double>()) best = s;
  }
  return best;
}

// The lowest p50 among `series` entries named `name` whose recall reaches 0.95; null if none.
Json FastestAtRecall(const Json& series, const std::string& name) {
  Json best = FastestEntryAtRecall(series, {name});
  return best.is_null() ? best : best["p50_ms"];
}

Json Ratio(const Json& ours, const Json& peer) {
  if (ours.is_null() || peer.is_null() || peer.get<double>() <= 0) return Json();
  return ours.get<double>() / peer.get<double>();
}

struct Options {
  size_t rows = 1000000;
  uint32_t dim = 128;
  size_t queries = 200;
  bool uniform = false;
  bool peers = true;
  int threads = 2;
  std::string hnswlib_cache;
};

Result<Json> Run(const Options& o) {
  Json out = {{"rows", o.rows},
              {"dim", o.dim},
              {"queries", o.queries},
              {"data", o.uniform ? "uniform" : "clustered"},
              {"threads", o.threads}};
  int64_t t0 = NowNanos();
  Data d = Generate(o.rows, o.dim, kSeed, o.uniform);
  storage::Runtime rt = storage::Runtime::ForTest(std::make_shared<storage::MemoryStore>(), 1);
  rt.executor = std::make_shared<ThreadPool>(static_cast<size_t>(o.threads));
  table::TableStore tables(rt, table::TableStoreOptions{});
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::TableVersion> version, Write(tables, d));
  std::fprintf(stderr, "generated and written in %.1f s\n", Seconds(t0));
  std::fprintf(stderr, "%-28s %6s %10s %10s %8s\n", "method", "param", "p50_ms", "p99_ms",
               "recall");
  Json series = Json::array();
  const Workload w = ExactWorkload(d, o.queries, o.uniform, series, out);
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::AnnIndex> index,
                             MeasureOurs(*version, d, w, *rt.executor, out, series));
  OMNIGRAPH_ASSIGN_OR_RETURN(Json choice,
                             MeasureExecutorChoice(*index, d, w, *rt.executor, series, out));
  series.push_back(std::move(choice));
  out["series"] = std::move(series);
  if (!o.peers) return out;
  OMNIGRAPH_ASSIGN_OR_RETURN(out["hnswlib"],
                             MeasureHnswlib(d, w, o.threads, o.uniform, o.hnswlib_cache));
  OMNIGRAPH_ASSIGN_OR_RETURN(out["faiss_ivf_flat"],
                             MeasureFaissIvf(d, w, out["series_lists"].get<uint32_t>(), o.threads));
  out["build_s_ratio_vs_hnswlib"] = Ratio(out["build_s"], out["hnswlib"]["build_s"]);
  out["build_s_ratio_vs_faiss_ivf_flat"] = Ratio(out["build_s"], out["faiss_ivf_flat"]["build_s"]);
  // Our best method at recall 0.95: the lists or the codes, whichever is faster there.
  const Json best = FastestEntryAtRecall(out["series"], {"ivf probes", "codes + exact rerank"});
  out["best_method_at_recall_0_95"] = best;
  out["p50_ratio_vs_hnswlib_at_recall_0_95"] =
      Ratio(best.is_null() ? best : best["p50_ms"],
            FastestAtRecall(out["hnswlib"]["series"], "hnswlib ef"));
  out["ivf_p50_ratio_vs_hnswlib_at_recall_0_95"] =
      Ratio(FastestAtRecall(out["series"], "ivf probes"),
            FastestAtRecall(out["hnswlib"]["series"], "hnswlib ef"));
  out["executor_p50_ratio_vs_hnswlib_at_recall_0_95"] =
      Ratio(FastestAtRecall(out["series"], "executor's choice"),
            FastestAtRecall(out["hnswlib"]["series"], "hnswlib ef"));
  out["p50_ratio_vs_faiss_ivf_flat_at_recall_0_95"] =
      Ratio(FastestAtRecall(out["series"], "ivf probes"),
            FastestAtRecall(out["faiss_ivf_flat"]["series"], "faiss ivf probes"));
  return out;
}

int Main(const std::vector<std::string>& args) {
  Flags flags(args,
              {"rows", "dim", "queries", "data", "threads", "no-peers", "json", "hnswlib-cache"});
  const std::string data = flags.Get("data", "clustered");
  if (flags.error().empty() && data != "clustered" && data != "uniform") {
    std::fprintf(stderr, "omnigraph-bench vector: --data is clustered or uniform, not %s\n",
                 data.c_str());
    return 2;
  }
  if (!flags.error().empty()) {
    std::fprintf(stderr, "omnigraph-bench vector: %s\n", flags.error().c_str());
    return 2;
  }
  Options o;
  o.rows = static_cast<size_t>(flags.GetInt("rows", 1000000));
  o.dim = static_cast<uint32_t>(flags.GetInt("dim", 128));
  o.queries = static_cast<size_t>(flags.GetInt("queries", 200));
  o.uniform = data == "uniform";
  o.peers = !flags.Has("no-peers");
  o.threads = static_cast<int>(flags.GetInt("threads", 2));
  o.hnswlib_cache = flags.Get("hnswlib-cache", "");
  Result<Json> out = Run(o);
  if (!out.ok()) {
    std::fprintf(stderr, "omnigraph-bench vector: %s\n", out.status().ToString().c_str());
    return 1;
  }
  if (flags.Has("json")) std::printf("%s\n", out->dump(2).c_str());
  return 0;
}

Registrar registrar("vector", "the IVF vector index beside exact search (recall, latency, build)",
                    &Main);

}  // namespace
}  // namespace omnigraph::bench
