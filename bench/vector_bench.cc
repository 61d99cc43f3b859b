// omnigraph-bench vector: the ANN index (src/table/ann_index.h) against exact search in the same
// process (docs/benchmarks.md "Vector search").
//
// Writes `--rows` clustered vectors of dimension `--dim` (1000 Gaussian centres, noise around
// each, like embeddings) into one table version in memory, builds the IVF index (time, payload
// bytes), opens it, and runs `--queries` queries (points of the set plus noise): exact top-10
// by a plain dot-product loop over the normalized floats (the reference and the baseline), the
// executor's exact kernel (query/exec SquaredL2Distance over the stored vectors) as a ratio to that
// loop, and the index at several probe counts, each with p50/p99 latency and recall@10 against
// exact — unfiltered, and with a 10% filter (an id selector, probes scaled by 1/0.1 as the
// executor does). `--hnsw` also builds faiss's HNSW (M 32) on the same vectors for the
// comparison behind the choice of IVF (docs/design/decisions.md). Timing is reported, never
// asserted. The table goes to stderr; `--json` prints one JSON object for bench/results on stdout.
#include <faiss/IndexHNSW.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "base/json.h"
#include "bench/bench.h"
#include "query/exec/frame.h"
#include "storage/memory_store.h"
#include "table/ann_index.h"
#include "table/column_builder.h"
#include "table/table_store.h"

namespace omnigraph::bench {
namespace {

constexpr uint32_t kField = 1;
constexpr size_t kK = 10;

struct Data {
  uint32_t dim = 0;
  size_t rows = 0;
  std::vector<float> raw;   // Before normalization.
  std::vector<float> unit;  // Normalized, as the embedding client stores them: the table's, the
                            // reference's and HNSW's input (squared L2 orders them as cosine).
};

Data Generate(size_t rows, uint32_t dim, uint32_t seed) {
  Data d{dim, rows, std::vector<float>(rows * dim), std::vector<float>(rows * dim)};
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal;
  std::vector<float> centres(1000 * size_t{dim});
  for (float& f : centres) f = normal(rng);
  for (size_t i = 0; i < rows; ++i) {
    const float* c = &centres[(rng() % 1000) * dim];
    double norm = 0;
    for (uint32_t j = 0; j < dim; ++j) {
      d.raw[i * dim + j] = c[j] + 0.5f * normal(rng);
      norm += double(d.raw[i * dim + j]) * d.raw[i * dim + j];
    }
    for (uint32_t j = 0; j < dim; ++j)
      d.unit[i * dim + j] = float(d.raw[i * dim + j] / std::sqrt(norm));
  }
  return d;
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

// faiss's HNSW on the same vectors, for the comparison with IVF.
Json MeasureHnsw(const Data& d, const std::vector<std::vector<float>>& queries,
                 const std::vector<std::vector<uint32_t>>& truth) {
  omp_set_num_threads(1);
  faiss::IndexHNSWFlat hnsw(static_cast<int>(d.dim), 32, faiss::METRIC_INNER_PRODUCT);
  hnsw.hnsw.efConstruction = 40;
  const int64_t t0 = NowNanos();
  hnsw.add(static_cast<faiss::Index::idx_t>(d.rows), d.unit.data());
  Json out = {{"build_s", Seconds(t0)}, {"series", Json::array()}};
  std::fprintf(stderr, "hnsw build %.1f s\n", out["build_s"].get<double>());
  for (int ef : {16, 32, 64, 128}) {
    hnsw.hnsw.efSearch = ef;
    Series s;
    for (size_t i = 0; i < queries.size(); ++i) {
      std::vector<float> dist(kK);
      std::vector<faiss::Index::idx_t> labels(kK);
      const int64_t q0 = NowNanos();
      hnsw.search(1, queries[i].data(), kK, dist.data(), labels.data());
      s.ms.push_back(double(NowNanos() - q0) / 1e6);
      std::vector<uint32_t> got;
      for (auto l : labels) {
        if (l >= 0) got.push_back(static_cast<uint32_t>(l));
      }
      s.recall += Recall(got, truth[i]);
    }
    out["series"].push_back(s.ToJson("hnsw ef", ef));
  }
  return out;
}

Result<Json> Run(size_t rows, uint32_t dim, size_t nq, bool hnsw) {
  Json out = {{"rows", rows}, {"dim", dim}, {"queries", nq}};
  int64_t t0 = NowNanos();
  Data d = Generate(rows, dim, 42);
  storage::Runtime rt = storage::Runtime::ForTest(std::make_shared<storage::MemoryStore>(), 1);
  table::TableStore tables(rt, table::TableStoreOptions{});
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::TableVersion> version, Write(tables, d));
  std::fprintf(stderr, "generated and written in %.1f s\n", Seconds(t0));
  t0 = NowNanos();
  OMNIGRAPH_ASSIGN_OR_RETURN(std::string payload, table::BuildAnnPayload(*version, kField));
  out["build_s"] = Seconds(t0);
  out["index_bytes"] = payload.size();
  t0 = NowNanos();
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const table::AnnIndex> index,
                             table::AnnIndex::Decode(payload, "bench"));
  out["open_s"] = Seconds(t0);
  out["lists"] = index->lists();
  std::fprintf(stderr, "ivf build %.1f s, %.1f MB, %u lists, open %.2f s\n",
               out["build_s"].get<double>(), double(payload.size()) / 1e6, index->lists(),
               out["open_s"].get<double>());
  payload.clear();
  payload.shrink_to_fit();
  // Queries: points of the set, displaced.
  std::mt19937 rng(7);
  std::normal_distribution<float> normal;
  std::vector<std::vector<float>> queries(nq, std::vector<float>(dim));
  for (auto& q : queries) {
    const size_t base = rng() % rows;
    double norm = 0;
    for (uint32_t j = 0; j < dim; ++j) {
      q[j] = d.unit[base * dim + j] + 0.05f * normal(rng);
      norm += double(q[j]) * q[j];
    }
    for (float& f : q) f = float(f / std::sqrt(norm));
  }
  std::vector<bool> filter(rows);
  for (size_t i = 3; i < rows; i += 10) filter[i] = true;
  std::vector<std::vector<uint32_t>> truth(nq), truth_f(nq);
  Series plain, kernel, plain_f;
  std::fprintf(stderr, "%-28s %6s %10s %10s %8s\n", "method", "param", "p50_ms", "p99_ms",
               "recall");
  for (size_t i = 0; i < nq; ++i) {
    int64_t q0 = NowNanos();
    truth[i] = Exact(d, queries[i].data(), {});
    plain.ms.push_back(double(NowNanos() - q0) / 1e6);
    plain.recall += 1;
    q0 = NowNanos();
    truth_f[i] = Exact(d, queries[i].data(), filter);
    plain_f.ms.push_back(double(NowNanos() - q0) / 1e6);
    plain_f.recall += 1;
    // The executor's exact kernel: squared L2 over every stored vector, then top-k.
    q0 = NowNanos();
    std::vector<std::pair<double, uint32_t>> all(rows);
    for (size_t r = 0; r < rows; ++r) {
      all[r] = {
          query::exec::SquaredL2Distance(std::span<const float>(&d.unit[r * dim], dim), queries[i]),
          static_cast<uint32_t>(r)};
    }
    std::partial_sort(all.begin(), all.begin() + kK, all.end());
    kernel.ms.push_back(double(NowNanos() - q0) / 1e6);
    std::vector<uint32_t> got;
    for (size_t j = 0; j < kK; ++j) got.push_back(all[j].second);
    kernel.recall += Recall(got, truth[i]);
  }
  Json series = Json::array();
  series.push_back(plain.ToJson("exact dot loop", 0));
  series.push_back(kernel.ToJson("exact executor kernel", 0));
  series.push_back(plain_f.ToJson("exact dot loop, 10% filter", 0));
  out["exact_kernel_over_dot_loop"] = Percentile(kernel.ms, 50) / Percentile(plain.ms, 50);
  for (uint32_t probes : {8u, 16u, 24u, 32u, 48u, 64u}) {
    Series s, f;
    for (size_t i = 0; i < nq; ++i) {
      int64_t q0 = NowNanos();
      OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<uint32_t> got,
                                 index->Search(queries[i], kK, {}, probes));
      s.ms.push_back(double(NowNanos() - q0) / 1e6);
      s.recall += Recall(got, truth[i]);
      q0 = NowNanos();
      OMNIGRAPH_ASSIGN_OR_RETURN(got, index->Search(queries[i], kK, filter, probes * 10));
      f.ms.push_back(double(NowNanos() - q0) / 1e6);
      f.recall += Recall(got, truth_f[i]);
    }
    series.push_back(s.ToJson("ivf probes", probes));
    series.push_back(f.ToJson("ivf 10% filter, probes x10", probes));
  }
  out["series"] = std::move(series);
  if (hnsw) out["hnsw"] = MeasureHnsw(d, queries, truth);
  return out;
}

int Main(const std::vector<std::string>& args) {
  Flags flags(args, {"rows", "dim", "queries", "hnsw", "json"});
  if (!flags.error().empty()) {
    std::fprintf(stderr, "omnigraph-bench vector: %s\n", flags.error().c_str());
    return 2;
  }
  Result<Json> out = Run(static_cast<size_t>(flags.GetInt("rows", 1000000)),
                         static_cast<uint32_t>(flags.GetInt("dim", 128)),
                         static_cast<size_t>(flags.GetInt("queries", 200)), flags.Has("hnsw"));
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
