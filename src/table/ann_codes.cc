// Quantized codes and their scan (ann_codes.h; docs/format/vector-index.md "Codes").
#include "table/ann_codes.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <queue>

#include "table/le_bytes.h"

namespace omnigraph::table {

namespace {

// Rows whose dot products a scan computes at once before it compares their scores.
constexpr uint64_t kScanBlockRows = 256;

using DotsFn = void (*)(const uint8_t*, const int16_t*, uint32_t, uint64_t, int32_t*);

void DotsPortable(const uint8_t* codes, const int16_t* query, uint32_t dim, uint64_t n,
                  int32_t* out) {
  for (uint64_t r = 0; r < n; ++r) {
    const uint8_t* c = codes + r * dim;
    int32_t sum = 0;
    for (uint32_t j = 0; j < dim; ++j) sum += int32_t{c[j]} * query[j];
    out[r] = sum;
  }
}

#if defined(__x86_64__)
// 16 dimensions per step: the codes widened to 16-bit, multiplied by the query and summed in
// pairs (vpmaddwd), exact in 32 bits (ann_codes.h kAnnCodesDimMax); the tail as the portable one.
__attribute__((target("avx2"))) void DotsAvx2(const uint8_t* codes, const int16_t* query,
                                              uint32_t dim, uint64_t n, int32_t* out) {
  const uint32_t wide = dim / 16 * 16;
  for (uint64_t r = 0; r < n; ++r) {
    const uint8_t* c = codes + r * dim;
    __m256i acc = _mm256_setzero_si256();
    for (uint32_t j = 0; j < wide; j += 16) {
      const __m256i x =
          _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(c + j)));
      const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(query + j));
      acc = _mm256_add_epi32(acc, _mm256_madd_epi16(x, q));
    }
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
    int32_t sum = _mm_cvtsi128_si32(s);
    for (uint32_t j = wide; j < dim; ++j) sum += int32_t{c[j]} * query[j];
    out[r] = sum;
  }
}

// The same with 32 dimensions per step.
__attribute__((target("avx512f,avx512bw"))) void DotsAvx512(const uint8_t* codes,
                                                            const int16_t* query, uint32_t dim,
                                                            uint64_t n, int32_t* out) {
  const uint32_t wide = dim / 32 * 32;
  for (uint64_t r = 0; r < n; ++r) {
    const uint8_t* c = codes + r * dim;
    __m512i acc = _mm512_setzero_si512();
    for (uint32_t j = 0; j < wide; j += 32) {
      const __m512i x =
          _mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(c + j)));
      const __m512i q = _mm512_loadu_si512(query + j);
      acc = _mm512_add_epi32(acc, _mm512_madd_epi16(x, q));
    }
    // Summed through memory: GCC 12 warns falsely inside _mm512_reduce_add_epi32.
    int32_t lanes[16];
    _mm512_storeu_si512(lanes, acc);
    int32_t sum = 0;
    for (int32_t lane : lanes) sum += lane;
    for (uint32_t j = wide; j < dim; ++j) sum += int32_t{c[j]} * query[j];
    out[r] = sum;
  }
}

bool Has(const char* feature) {
  __builtin_cpu_init();
  if (std::strcmp(feature, "avx512") == 0) {
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
  }
  return std::strcmp(feature, "avx2") == 0 && __builtin_cpu_supports("avx2");
}
#endif

DotsFn KernelNamed(const char* kernel) {
#if defined(__x86_64__)
  if (std::strcmp(kernel, "avx512") == 0) return Has("avx512") ? &DotsAvx512 : nullptr;
  if (std::strcmp(kernel, "avx2") == 0) return Has("avx2") ? &DotsAvx2 : nullptr;
#endif
  return std::strcmp(kernel, "portable") == 0 ? &DotsPortable : nullptr;
}

DotsFn BestKernel() {
  static const DotsFn best = [] {
    for (const char* k : {"avx512", "avx2"}) {
      if (DotsFn f = KernelNamed(k)) return f;
    }
    return &DotsPortable;
  }();
  return best;
}

// [begin, end) of range `i` of `ranges` over `n` rows.
std::pair<uint64_t, uint64_t> Range(uint64_t n, uint64_t ranges, uint64_t i) {
  return {n * i / ranges, n * (i + 1) / ranges};
}

uint64_t RangesFor(uint64_t n, Executor& executor) {
  return std::clamp<uint64_t>(n / kAnnCodesRangeRowsMin, 1,
                              std::max<uint64_t>(1, executor.Parallelism()));
}

// Runs `one(i)` for each of `ranges` ranges on `executor` and waits.
template <typename F>
void ForRanges(uint64_t ranges, Executor& executor, F one) {
  TaskGroup group(executor);
  for (uint64_t i = 0; i < ranges; ++i) {
    group.Add([&one, i] {
      one(i);
      return Status::Ok();
    });
  }
  OMNIGRAPH_CHECK(group.Wait().ok());
}

uint8_t CodeOf(float x, float offset, float scale) {
  const double v = std::nearbyint((static_cast<double>(x) - offset) / scale);
  return static_cast<uint8_t>(std::clamp<double>(std::isnan(v) ? 0 : v, 0, kAnnCodeMax));
}

// (score, row): smaller is nearer.
using Scored = std::pair<int64_t, uint32_t>;

}  // namespace

AnnCodes AnnCodes::Train(std::span<const float> data, uint32_t dim, Executor& executor) {
  AnnCodes g;
  g.dim = dim;
  const uint64_t n = dim == 0 ? 0 : data.size() / dim;
  const uint64_t ranges = RangesFor(n, executor);
  std::vector<std::vector<float>> lo(ranges, std::vector<float>(dim, 0)),
      hi(ranges, std::vector<float>(dim, 0));
  ForRanges(ranges, executor, [&](uint64_t i) {
    const auto [begin, end] = Range(n, ranges, i);
    if (begin == end) return;
    std::memcpy(lo[i].data(), &data[begin * dim], 4 * dim);
    std::memcpy(hi[i].data(), &data[begin * dim], 4 * dim);
    for (uint64_t r = begin + 1; r < end; ++r) {
      for (uint32_t j = 0; j < dim; ++j) {
        lo[i][j] = std::min(lo[i][j], data[r * dim + j]);
        hi[i][j] = std::max(hi[i][j], data[r * dim + j]);
      }
    }
  });
  g.offsets.assign(dim, 0);
  double widest = 0;
  for (uint32_t j = 0; j < dim; ++j) {
    float a = std::numeric_limits<float>::infinity(), b = -a;
    for (uint64_t i = 0; i < ranges; ++i) {
      if (Range(n, ranges, i).first == Range(n, ranges, i).second) continue;
      a = std::min(a, lo[i][j]);
      b = std::max(b, hi[i][j]);
    }
    if (n == 0 || !std::isfinite(a) || !std::isfinite(b)) continue;
    g.offsets[j] = a;
    widest = std::max(widest, static_cast<double>(b) - a);
  }
  const double scale = widest / kAnnCodeMax;
  g.scale = scale > 0 && std::isfinite(scale) ? static_cast<float>(scale) : 1.0f;
  return g;
}

AnnCodes AnnCodes::GridOnly() const {
  AnnCodes g;
  g.dim = dim;
  g.scale = scale;
  g.offsets = offsets;
  return g;
}

std::vector<uint8_t> AnnCodes::Quantize(std::span<const float> vectors) const {
  std::vector<uint8_t> out(vectors.size());
  for (size_t i = 0; i < vectors.size(); ++i) out[i] = CodeOf(vectors[i], offsets[i % dim], scale);
  return out;
}

void AnnCodes::Encode(std::span<const float> data, std::vector<uint32_t> row_numbers,
                      Executor& executor) {
  rows = std::move(row_numbers);
  const uint64_t n = rows.size();
  codes.assign(n * dim, 0);
  const uint64_t ranges = RangesFor(n, executor);
  ForRanges(ranges, executor, [&](uint64_t i) {
    const auto [begin, end] = Range(n, ranges, i);
    for (uint64_t at = begin * dim; at < end * dim; ++at) {
      codes[at] = CodeOf(data[at], offsets[at % dim], scale);
    }
  });
  ComputeNorms();
}

void AnnCodes::ComputeNorms() {
  norms.assign(rows.size(), 0);
  for (uint64_t r = 0; r < rows.size(); ++r) {
    int32_t sum = 0;
    for (uint32_t j = 0; j < dim; ++j) sum += int32_t{codes[r * dim + j]} * codes[r * dim + j];
    norms[r] = sum;
  }
}

std::vector<uint32_t> AnnCodes::Search(std::span<const float> query, uint64_t candidates,
                                       Executor& executor) const {
  std::vector<int16_t> q(dim);
  for (uint32_t j = 0; j < dim; ++j) {
    const double v = std::nearbyint((static_cast<double>(query[j]) - offsets[j]) / scale);
    q[j] = static_cast<int16_t>(
        std::clamp<double>(std::isnan(v) ? 0 : v, kAnnCodeQueryMin, kAnnCodeQueryMax));
  }
  const uint64_t n = rows.size();
  const uint64_t keep = std::min(candidates, n);
  if (keep == 0) return {};
  const uint64_t ranges = RangesFor(n, executor);
  const DotsFn dots = BestKernel();
  std::vector<std::vector<Scored>> best(ranges);
  ForRanges(ranges, executor, [&](uint64_t i) {
    const auto [begin, end] = Range(n, ranges, i);
    // A max-heap of the best `keep` so far; rows come in ascending order, so a later row tied
    // with the worst kept one never displaces it.
    std::priority_queue<Scored> heap;
    int32_t block[kScanBlockRows];
    for (uint64_t at = begin; at < end; at += kScanBlockRows) {
      const uint64_t count = std::min<uint64_t>(kScanBlockRows, end - at);
      dots(&codes[at * dim], q.data(), dim, count, block);
      for (uint64_t r = 0; r < count; ++r) {
        const int64_t score = int64_t{norms[at + r]} - 2 * int64_t{block[r]};
        if (heap.size() < keep) {
          heap.emplace(score, rows[at + r]);
        } else if (score < heap.top().first) {
          heap.pop();
          heap.emplace(score, rows[at + r]);
        }
      }
    }
    for (; !heap.empty(); heap.pop()) best[i].push_back(heap.top());
  });
  std::vector<Scored> all;
  for (const auto& b : best) all.insert(all.end(), b.begin(), b.end());
  std::sort(all.begin(), all.end());
  all.resize(std::min<uint64_t>(all.size(), keep));
  std::vector<uint32_t> out;
  out.reserve(all.size());
  for (const Scored& s : all) out.push_back(s.second);
  return out;
}

void AnnCodes::AppendGrid(std::string& out) const {
  AppendLe<float>(out, scale);
  AppendLe<uint32_t>(out, 0);
  for (float f : offsets) AppendLe<float>(out, f);
}

void AnnCodes::AppendRows(std::string& out) const {
  for (uint32_t r : rows) AppendLe<uint32_t>(out, r);
  out.append(reinterpret_cast<const char*>(codes.data()), codes.size());
}

std::string AnnCodes::DecodeGrid(std::string_view bytes, uint32_t dimension) {
  if (bytes.size() != GridBytes(dimension)) return "its codes' grid is short";
  dim = dimension;
  scale = LoadLe<float>(bytes, 0);
  if (!(scale > 0) || !std::isfinite(scale) || LoadLe<uint32_t>(bytes, 4) != 0) {
    return "its codes' scale is not a positive number";
  }
  offsets.resize(dim);
  for (uint32_t j = 0; j < dim; ++j) {
    offsets[j] = LoadLe<float>(bytes, 8 + 4 * uint64_t{j});
    if (!std::isfinite(offsets[j])) return "its codes' offsets are not numbers";
  }
  return {};
}

std::string AnnCodes::DecodeRows(std::string_view bytes, uint64_t count, uint64_t rows_max) {
  if (count > bytes.size() / (4 + uint64_t{dim}) || bytes.size() != count * (4 + uint64_t{dim})) {
    return "its codes are not " + std::to_string(count) + " rows of " + std::to_string(dim) +
           " bytes";
  }
  rows.resize(count);
  for (uint64_t i = 0; i < count; ++i) {
    rows[i] = LoadLe<uint32_t>(bytes, 4 * i);
    if (rows[i] >= rows_max || (i > 0 && rows[i] <= rows[i - 1])) {
      return "its codes' row numbers are out of order or beyond its " + std::to_string(rows_max) +
             " rows";
    }
  }
  codes.assign(bytes.begin() + 4 * count, bytes.end());
  ComputeNorms();
  return {};
}

bool AnnCodeDots(const char* kernel, const uint8_t* codes, const int16_t* query, uint32_t dim,
                 uint64_t n, int32_t* out) {
  const DotsFn f = KernelNamed(kernel);
  if (f == nullptr) return false;
  f(codes, query, dim, n, out);
  return true;
}

}  // namespace omnigraph::table
