// k-means and list assignment for the vector index (ann_kmeans.h; decision 236).
#include "table/ann_kmeans.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <queue>

#include "base/random.h"
#include "base/status.h"

namespace omnigraph::table {

namespace {

constexpr uint32_t kLanes = kAnnPanelLanes;
// Rows a kernel scores against one pair of panels before it moves to the next pair: the rows
// stay in the first cache levels while every panel streams past them once.
constexpr uint64_t kRowBlock = 64;
// Rows a kernel scores at once against a panel pair (its register tile).
constexpr uint64_t kTileRows = 4;
// AnnAssign divides its rows into ranges of at least this many rows, a few per thread.
constexpr uint64_t kAssignRangeRowsMin = 1024;
constexpr uint64_t kAssignRangesPerThread = 4;
// A centroid that takes half of the largest list is nudged apart from it by this share.
constexpr float kSplitNudge = 1.0f / 1024;

// Per row, the best (score, centroid) of each lane so far: a lane sees its centroids in ascending
// order and keeps the first of equal scores, so the final pick (smallest score, then smallest
// centroid) is the lowest nearest centroid whatever the kernel.
struct Best {
  float score[kLanes];
  uint32_t index[kLanes];
};

void ResetBest(Best& b) {
  for (uint32_t l = 0; l < kLanes; ++l) {
    b.score[l] = std::numeric_limits<float>::infinity();
    b.index[l] = l;
  }
}

uint32_t PickBest(const Best& b) {
  uint32_t at = 0;
  for (uint32_t l = 1; l < kLanes; ++l) {
    if (b.score[l] < b.score[at] || (b.score[l] == b.score[at] && b.index[l] < b.index[at])) at = l;
  }
  return b.index[at];
}

// Scores `rows` rows (at `x`, dim floats each) against panel `p` (at `c`, norms at `norm`) and
// keeps each lane's best: the chain of fused multiply-adds each SIMD kernel runs per lane.
void TilePortable(const float* x, uint64_t rows, uint32_t dim, const float* c, const float* norm,
                  uint32_t p, Best* best) {
  for (uint64_t r = 0; r < rows; ++r) {
    float acc[kLanes] = {};
    const float* xr = x + r * dim;
    for (uint32_t j = 0; j < dim; ++j) {
      for (uint32_t l = 0; l < kLanes; ++l) acc[l] = std::fma(xr[j], c[j * kLanes + l], acc[l]);
    }
    for (uint32_t l = 0; l < kLanes; ++l) {
      const float score = std::fma(-2.0f, acc[l], norm[l]);
      if (score < best[r].score[l]) {
        best[r].score[l] = score;
        best[r].index[l] = p * kLanes + l;
      }
    }
  }
}

using BlockFn = void (*)(const float* x, uint64_t rows, uint32_t dim, const float* panels,
                         const float* norms, uint32_t panel_count, Best* best);

void BlockPortable(const float* x, uint64_t rows, uint32_t dim, const float* panels,
                   const float* norms, uint32_t panel_count, Best* best) {
  for (uint32_t p = 0; p < panel_count; ++p) {
    TilePortable(x, rows, dim, panels + uint64_t{p} * dim * kLanes, norms + p * kLanes, p, best);
  }
}

#if defined(__x86_64__)
// kTileRows rows against two panels (2 × 16 lanes): eight accumulators, each one lane's chain.
template <uint64_t kRows>
__attribute__((target("avx512f"))) void Tile512(const float* x, uint32_t dim, const float* c,
                                                const float* norm, uint32_t p, Best* best) {
  __m512 acc[kRows][2];
  for (uint64_t r = 0; r < kRows; ++r) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
  const float* c1 = c + uint64_t{dim} * kLanes;
  for (uint32_t j = 0; j < dim; ++j) {
    const __m512 v0 = _mm512_loadu_ps(c + j * kLanes);
    const __m512 v1 = _mm512_loadu_ps(c1 + j * kLanes);
    for (uint64_t r = 0; r < kRows; ++r) {
      const __m512 xv = _mm512_set1_ps(x[r * dim + j]);
      acc[r][0] = _mm512_fmadd_ps(xv, v0, acc[r][0]);
      acc[r][1] = _mm512_fmadd_ps(xv, v1, acc[r][1]);
    }
  }
  const __m512 minus2 = _mm512_set1_ps(-2.0f);
  const __m512i lane = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  for (uint64_t r = 0; r < kRows; ++r) {
    __m512 bs = _mm512_loadu_ps(best[r].score);
    __m512i bi = _mm512_loadu_si512(best[r].index);
    for (uint32_t h = 0; h < 2; ++h) {
      const __m512 s = _mm512_fmadd_ps(minus2, acc[r][h], _mm512_loadu_ps(norm + h * kLanes));
      const __mmask16 m = _mm512_cmp_ps_mask(s, bs, _CMP_LT_OQ);
      bs = _mm512_mask_mov_ps(bs, m, s);
      const __m512i idx = _mm512_add_epi32(lane, _mm512_set1_epi32((p + h) * kLanes));
      bi = _mm512_mask_mov_epi32(bi, m, idx);
    }
    _mm512_storeu_ps(best[r].score, bs);
    _mm512_storeu_si512(best[r].index, bi);
  }
}

__attribute__((target("avx512f"))) void BlockAvx512(const float* x, uint64_t rows, uint32_t dim,
                                                    const float* panels, const float* norms,
                                                    uint32_t panel_count, Best* best) {
  for (uint32_t p = 0; p < panel_count; p += 2) {
    const float* c = panels + uint64_t{p} * dim * kLanes;
    uint64_t r = 0;
    for (; r + kTileRows <= rows; r += kTileRows) {
      Tile512<kTileRows>(x + r * dim, dim, c, norms + p * kLanes, p, best + r);
    }
    for (; r < rows; ++r) Tile512<1>(x + r * dim, dim, c, norms + p * kLanes, p, best + r);
  }
}

// kTileRows rows against one panel (two 8-lane halves): eight accumulators.
template <uint64_t kRows>
__attribute__((target("avx2,fma"))) void Tile256(const float* x, uint32_t dim, const float* c,
                                                 const float* norm, uint32_t p, Best* best) {
  __m256 acc[kRows][2];
  for (uint64_t r = 0; r < kRows; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
  for (uint32_t j = 0; j < dim; ++j) {
    const __m256 v0 = _mm256_loadu_ps(c + j * kLanes);
    const __m256 v1 = _mm256_loadu_ps(c + j * kLanes + 8);
    for (uint64_t r = 0; r < kRows; ++r) {
      const __m256 xv = _mm256_set1_ps(x[r * dim + j]);
      acc[r][0] = _mm256_fmadd_ps(xv, v0, acc[r][0]);
      acc[r][1] = _mm256_fmadd_ps(xv, v1, acc[r][1]);
    }
  }
  const __m256 minus2 = _mm256_set1_ps(-2.0f);
  const __m256i lane = _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0);
  for (uint64_t r = 0; r < kRows; ++r) {
    for (uint32_t h = 0; h < 2; ++h) {
      float* bsp = best[r].score + h * 8;
      auto* bip = reinterpret_cast<__m256i*>(best[r].index + h * 8);
      const __m256 s = _mm256_fmadd_ps(minus2, acc[r][h], _mm256_loadu_ps(norm + h * 8));
      const __m256 bs = _mm256_loadu_ps(bsp);
      const __m256 m = _mm256_cmp_ps(s, bs, _CMP_LT_OQ);
      _mm256_storeu_ps(bsp, _mm256_blendv_ps(bs, s, m));
      const __m256i idx = _mm256_add_epi32(lane, _mm256_set1_epi32(p * kLanes + h * 8));
      const __m256i bi = _mm256_loadu_si256(bip);
      _mm256_storeu_si256(bip, _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(bi),
                                                                    _mm256_castsi256_ps(idx), m)));
    }
  }
}

__attribute__((target("avx2,fma"))) void BlockAvx2(const float* x, uint64_t rows, uint32_t dim,
                                                   const float* panels, const float* norms,
                                                   uint32_t panel_count, Best* best) {
  for (uint32_t p = 0; p < panel_count; ++p) {
    const float* c = panels + uint64_t{p} * dim * kLanes;
    uint64_t r = 0;
    for (; r + kTileRows <= rows; r += kTileRows) {
      Tile256<kTileRows>(x + r * dim, dim, c, norms + p * kLanes, p, best + r);
    }
    for (; r < rows; ++r) Tile256<1>(x + r * dim, dim, c, norms + p * kLanes, p, best + r);
  }
}

bool CpuHas(const char* kernel) {
  __builtin_cpu_init();
  if (std::strcmp(kernel, "avx512") == 0) return __builtin_cpu_supports("avx512f");
  return std::strcmp(kernel, "avx2") == 0 && __builtin_cpu_supports("avx2") &&
         __builtin_cpu_supports("fma");
}
#endif

BlockFn BlockNamed(const char* kernel) {
#if defined(__x86_64__)
  if (std::strcmp(kernel, "avx512") == 0) return CpuHas("avx512") ? &BlockAvx512 : nullptr;
  if (std::strcmp(kernel, "avx2") == 0) return CpuHas("avx2") ? &BlockAvx2 : nullptr;
#endif
  return std::strcmp(kernel, "portable") == 0 ? &BlockPortable : nullptr;
}

BlockFn BestBlock() {
  static const BlockFn best = [] {
    for (const char* k : {"avx512", "avx2"}) {
      if (BlockFn f = BlockNamed(k)) return f;
    }
    return &BlockPortable;
  }();
  return best;
}

// Runs `one(i)` for i in [0, count) on `executor` and waits.
template <typename F>
void ForEachTask(uint64_t count, Executor& executor, F one) {
  if (count == 1) {
    one(0);
    return;
  }
  TaskGroup group(executor);
  for (uint64_t i = 0; i < count; ++i) {
    group.Add([&one, i] {
      one(i);
      return Status::Ok();
    });
  }
  OMNIGRAPH_CHECK(group.Wait().ok());
}

// [begin, end) of part `i` of `parts` over `n`.
std::pair<uint64_t, uint64_t> Part(uint64_t n, uint64_t parts, uint64_t i) {
  return {n * i / parts, n * (i + 1) / parts};
}

uint64_t PartsFor(uint64_t n, uint64_t min_each, Executor& executor) {
  const uint64_t threads = std::max<uint64_t>(1, executor.Parallelism());
  if (threads == 1) return 1;
  return std::clamp<uint64_t>(n / min_each, 1, threads * kAssignRangesPerThread);
}

// The first `take` of a permutation of [0, n) drawn with `random` (a partial Fisher–Yates shuffle:
// the same numbers for the same seed on every machine).
std::vector<uint64_t> Draw(uint64_t n, uint64_t take, Random& random) {
  std::vector<uint64_t> perm(n);
  for (uint64_t i = 0; i < n; ++i) perm[i] = i;
  for (uint64_t i = 0; i < take; ++i) std::swap(perm[i], perm[i + random.Uniform(n - i)]);
  perm.resize(take);
  return perm;
}

}  // namespace

AnnCentroidPanels::AnnCentroidPanels(std::span<const float> centroids, uint32_t dim, uint32_t count)
    : dim_(dim), count_(count), panels_((count + 2 * kLanes - 1) / (2 * kLanes) * 2) {
  data_.assign(uint64_t{panels_} * dim * kLanes, 0.0f);
  norms_.assign(uint64_t{panels_} * kLanes, std::numeric_limits<float>::infinity());
  for (uint32_t c = 0; c < count; ++c) {
    const float* v = centroids.data() + uint64_t{c} * dim;
    float* panel = data_.data() + uint64_t{c / kLanes} * dim * kLanes + c % kLanes;
    float norm = 0;
    for (uint32_t j = 0; j < dim; ++j) {
      panel[j * kLanes] = v[j];
      norm = std::fma(v[j], v[j], norm);
    }
    norms_[c] = norm;
  }
}

bool AnnCentroidPanels::AssignWith(const char* kernel, const float* vectors,
                                   std::span<uint32_t> out) const {
  const BlockFn block = BlockNamed(kernel);
  if (block == nullptr) return false;
  Best best[kRowBlock];
  for (uint64_t at = 0; at < out.size(); at += kRowBlock) {
    const uint64_t rows = std::min<uint64_t>(kRowBlock, out.size() - at);
    for (uint64_t r = 0; r < rows; ++r) ResetBest(best[r]);
    block(vectors + at * dim_, rows, dim_, data_.data(), norms_.data(), panels_, best);
    for (uint64_t r = 0; r < rows; ++r) out[at + r] = std::min(PickBest(best[r]), count_ - 1);
  }
  return true;
}

void AnnCentroidPanels::Assign(const float* vectors, std::span<uint32_t> out) const {
  static const char* const best = [] {
    for (const char* k : {"avx512", "avx2"}) {
      if (BlockNamed(k) == BestBlock()) return k;
    }
    return "portable";
  }();
  OMNIGRAPH_CHECK(AssignWith(best, vectors, out));
}

std::vector<uint32_t> AnnAssign(std::span<const float> vectors, const AnnCentroidPanels& centroids,
                                Executor& executor) {
  const uint32_t dim = centroids.dim();
  const uint64_t n = dim == 0 ? 0 : vectors.size() / dim;
  std::vector<uint32_t> out(n);
  const uint64_t parts = PartsFor(n, kAssignRangeRowsMin, executor);
  ForEachTask(parts, executor, [&](uint64_t i) {
    const auto [begin, end] = Part(n, parts, i);
    centroids.Assign(vectors.data() + begin * dim, std::span(out).subspan(begin, end - begin));
  });
  return out;
}

namespace ann_kmeans_internal {

Trainer::Trainer(std::span<const float> data, uint32_t dim, const AnnKMeansOptions& options)
    : dim_(dim), lists_(options.lists) {
  const uint64_t n = dim == 0 ? 0 : data.size() / dim;
  OMNIGRAPH_CHECK(lists_ >= 1 && lists_ <= n);
  Random random(options.seed);
  const uint64_t take = std::min<uint64_t>(n, uint64_t{lists_} * options.points_per_list_max);
  std::vector<uint64_t> rows;
  if (take < n) {
    rows = Draw(n, take, random);
    std::sort(rows.begin(), rows.end());
  } else {
    rows.resize(n);
    for (uint64_t i = 0; i < n; ++i) rows[i] = i;
  }
  train_.resize(rows.size() * dim);
  for (uint64_t i = 0; i < rows.size(); ++i) {
    std::memcpy(&train_[i * dim], &data[rows[i] * dim], sizeof(float) * dim);
  }
  centroids_.resize(uint64_t{lists_} * dim);
  const std::vector<uint64_t> first = Draw(rows.size(), lists_, random);
  for (uint32_t c = 0; c < lists_; ++c) {
    std::memcpy(&centroids_[uint64_t{c} * dim], &train_[first[c] * dim], sizeof(float) * dim);
  }
}

void Trainer::Step(Executor& executor) {
  const AnnCentroidPanels panels(centroids_, dim_, lists_);
  const std::vector<uint32_t> assign = AnnAssign(train_, panels, executor);
  // Each list's members in ascending row order (a counting sort).
  std::vector<uint64_t> start(uint64_t{lists_} + 1, 0);
  for (uint32_t a : assign) ++start[a + 1];
  for (uint32_t c = 0; c < lists_; ++c) start[c + 1] += start[c];
  std::vector<uint64_t> members(assign.size());
  std::vector<uint64_t> fill(start.begin(), start.end() - 1);
  for (uint64_t r = 0; r < assign.size(); ++r) members[fill[assign[r]]++] = r;
  // Each centroid's mean is summed by one task in that order.
  const uint64_t parts = PartsFor(lists_, 16, executor);
  ForEachTask(parts, executor, [&](uint64_t i) {
    const auto [begin, end] = Part(lists_, parts, i);
    std::vector<double> sum(dim_);
    for (uint64_t c = begin; c < end; ++c) {
      if (start[c] == start[c + 1]) continue;
      std::fill(sum.begin(), sum.end(), 0.0);
      for (uint64_t m = start[c]; m < start[c + 1]; ++m) {
        const float* x = &train_[members[m] * dim_];
        for (uint32_t j = 0; j < dim_; ++j) sum[j] += x[j];
      }
      const double count = static_cast<double>(start[c + 1] - start[c]);
      for (uint32_t j = 0; j < dim_; ++j) {
        centroids_[c * dim_ + j] = static_cast<float>(sum[j] / count);
      }
    }
  });
  // An empty list takes half of the largest (the lowest of equal ones), as faiss does.
  std::priority_queue<std::pair<uint64_t, int64_t>> sizes;  // (size, -list)
  std::vector<uint32_t> empty;
  for (uint32_t c = 0; c < lists_; ++c) {
    const uint64_t size = start[c + 1] - start[c];
    if (size == 0) empty.push_back(c);
    sizes.emplace(size, -int64_t{c});
  }
  for (uint32_t e : empty) {
    auto [size, neg] = sizes.top();
    sizes.pop();
    const uint64_t from = static_cast<uint64_t>(-neg);
    float* to = &centroids_[uint64_t{e} * dim_];
    float* of = &centroids_[from * dim_];
    for (uint32_t j = 0; j < dim_; ++j) {
      const float up = 1 + kSplitNudge, down = 1 - kSplitNudge;
      to[j] = of[j] * (j % 2 == 0 ? up : down);
      of[j] = of[j] * (j % 2 == 0 ? down : up);
    }
    sizes.emplace(size - size / 2, neg);
    sizes.emplace(size / 2, -int64_t{e});
  }
}

}  // namespace ann_kmeans_internal

std::vector<float> AnnTrainKMeans(std::span<const float> data, uint32_t dim,
                                  const AnnKMeansOptions& options, Executor& executor) {
  return AnnTrainKMeans(data, dim, options, executor,
                        [](int, const std::vector<float>&) { return true; });
}

}  // namespace omnigraph::table
