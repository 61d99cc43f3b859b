// The vector index's k-means and list assignment (decision 236): every kernel gives every vector
// the same list, which is the nearest centroid (the lowest of equal ones); a vector's list does
// not depend on the vectors assigned with it; training gives the same centroids, to the bit, on
// any number of threads; a training set with fewer distinct points than lists still trains.
#include "table/ann_kmeans.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "base/random.h"

namespace omnigraph::table {
namespace {

std::vector<float> RandomVectors(uint64_t n, uint32_t dim, Random& random) {
  std::vector<float> out(n * dim);
  for (float& x : out) x = static_cast<float>(random.NextDouble() * 2 - 1);
  return out;
}

double Distance(const float* a, const float* b, uint32_t dim) {
  double sum = 0;
  for (uint32_t j = 0; j < dim; ++j) {
    const double d = static_cast<double>(a[j]) - b[j];
    sum += d * d;
  }
  return sum;
}

// 37 centroids (not whole panels) and 203 vectors (not whole tiles or row blocks) in several
// dimensions: the SIMD kernels give exactly the portable kernel's lists, each one a nearest
// centroid up to float rounding, and a centroid repeated later never wins over its first copy.
TEST(AnnKMeansTest, EveryKernelGivesThePortableListsAndTheNearestCentroid) {
  Random random(3);
  for (uint32_t dim : {1u, 5u, 16u, 72u, 128u}) {
    constexpr uint32_t kCount = 37;
    std::vector<float> centroids = RandomVectors(kCount, dim, random);
    // Centroid 30 repeats centroid 4: a vector nearest it must get 4.
    std::memcpy(&centroids[30 * dim], &centroids[4 * dim], sizeof(float) * dim);
    const AnnCentroidPanels panels(centroids, dim, kCount);
    std::vector<float> vectors = RandomVectors(203, dim, random);
    std::memcpy(&vectors[7 * dim], &centroids[4 * dim], sizeof(float) * dim);
    std::vector<uint32_t> portable(203), other(203);
    ASSERT_TRUE(panels.AssignWith("portable", vectors.data(), portable));
    EXPECT_EQ(portable[7], 4u);
    for (uint64_t i = 0; i < 203; ++i) {
      ASSERT_LT(portable[i], kCount);
      double best = std::numeric_limits<double>::infinity();
      for (uint32_t c = 0; c < kCount; ++c) {
        best = std::min(best, Distance(&vectors[i * dim], &centroids[c * dim], dim));
      }
      EXPECT_LE(Distance(&vectors[i * dim], &centroids[portable[i] * dim], dim), best + 1e-5)
          << dim << " " << i;
      EXPECT_NE(portable[i], 30u);
    }
    for (const char* kernel : {"avx2", "avx512"}) {
      if (!panels.AssignWith(kernel, vectors.data(), other)) continue;
      EXPECT_EQ(other, portable) << kernel << " " << dim;
    }
  }
  const AnnCentroidPanels one(std::vector<float>(4), 4, 1);
  std::vector<uint32_t> out(1);
  EXPECT_FALSE(one.AssignWith("sse9", nullptr, out));
}

// A vector's list is the same assigned alone, in a block, or over any division of the rows.
TEST(AnnKMeansTest, AVectorsListDoesNotDependOnTheOthers) {
  Random random(4);
  constexpr uint32_t kDim = 24;
  const std::vector<float> centroids = RandomVectors(100, kDim, random);
  const AnnCentroidPanels panels(centroids, kDim, 100);
  const std::vector<float> vectors = RandomVectors(5000, kDim, random);
  InlineExecutor inline_executor;
  const std::vector<uint32_t> all = AnnAssign(vectors, panels, inline_executor);
  ThreadPool pool(3);
  EXPECT_EQ(AnnAssign(vectors, panels, pool), all);
  for (uint64_t i = 0; i < 5000; i += 97) {
    std::vector<uint32_t> alone(1);
    panels.Assign(&vectors[i * kDim], alone);
    EXPECT_EQ(alone[0], all[i]) << i;
  }
}

// The training's centroids are the same bytes on the caller's thread and on pools of one, two
// and four threads, run after run: each vector's list is a function of it and the centroids, and
// each centroid's mean is summed by one task in row order.
TEST(AnnKMeansTest, TrainingGivesTheSameCentroidsOnAnyNumberOfThreads) {
  Random random(5);
  constexpr uint32_t kDim = 40;
  const std::vector<float> data = RandomVectors(20000, kDim, random);
  const AnnKMeansOptions options{150, 6, 77, 64};
  InlineExecutor inline_executor;
  const std::vector<float> first = AnnTrainKMeans(data, kDim, options, inline_executor);
  ASSERT_EQ(first.size(), 150u * kDim);
  for (size_t threads : {1, 2, 4}) {
    for (int run = 0; run < 2; ++run) {
      ThreadPool pool(threads);
      const std::vector<float> again = AnnTrainKMeans(data, kDim, options, pool);
      EXPECT_EQ(std::memcmp(again.data(), first.data(), first.size() * sizeof(float)), 0)
          << threads << " threads, run " << run;
    }
  }
  // Another seed samples and starts elsewhere.
  AnnKMeansOptions other = options;
  other.seed = 78;
  EXPECT_NE(AnnTrainKMeans(data, kDim, other, inline_executor), first);
  // The callback sees each iteration and can stop the training.
  int seen = 0;
  AnnTrainKMeans(data, kDim, options, inline_executor, [&](int iteration, const auto&) {
    seen = iteration;
    return iteration < 2;
  });
  EXPECT_EQ(seen, 2);
}

// Twelve distinct points and forty lists: most lists empty after the first assignment, each
// takes half of the largest; every centroid stays a number, and the result is deterministic.
TEST(AnnKMeansTest, EmptyListsTakeHalfOfTheLargest) {
  Random random(6);
  constexpr uint32_t kDim = 8;
  const std::vector<float> points = RandomVectors(12, kDim, random);
  std::vector<float> data;
  for (int i = 0; i < 400; ++i) {
    data.insert(data.end(), points.begin() + (i % 12) * kDim, points.begin() + (i % 12 + 1) * kDim);
  }
  const AnnKMeansOptions options{40, 5, 1, 64};
  InlineExecutor inline_executor;
  ThreadPool pool(2);
  const std::vector<float> a = AnnTrainKMeans(data, kDim, options, inline_executor);
  EXPECT_EQ(AnnTrainKMeans(data, kDim, options, pool), a);
  for (float x : a) EXPECT_TRUE(std::isfinite(x));
}

}  // namespace
}  // namespace omnigraph::table
