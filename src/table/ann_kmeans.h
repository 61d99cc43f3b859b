// The vector index's list training and assignment (docs/format/vector-index.md "Build"; decision
// 236): k-means over a sample of the vectors and each vector's nearest centroid, on the runtime's
// threads, with results that do not depend on how many threads there are or how they are
// scheduled.
//
// Why it is deterministic. A vector's nearest centroid is computed by one kernel whose every
// float operation is fixed: for each (vector, centroid) the dot product is a chain of fused
// multiply-adds over the dimensions in order, the same in the AVX-512, AVX2 and portable kernels
// (each lane of a SIMD register holds one centroid and runs that chain), the score is
// ‖c‖² − 2·x·c, and ties go to the lower centroid. So a vector's list is a function of the vector
// and the centroids alone, whatever rows it is computed with — the writer of a delta and a full
// build give it the same list. A centroid's new position is the mean of its members summed in
// double in ascending row order by one task: the rows' division over threads never enters it.
// The BLAS is not called: Debian's serial OpenBLAS is not safe from two threads (decision 212).
//
// Functions are thread-safe; they run their work on the executor they are given and wait.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "base/executor.h"

namespace omnigraph::table {

// Centroids in the layout the kernel reads: panels of kAnnPanelLanes centroids, each panel the
// dimensions in order with the panel's centroids side by side, padded to whole panel pairs with
// centroids that are never nearest. Built once per set of centroids.
inline constexpr uint32_t kAnnPanelLanes = 16;

class AnnCentroidPanels {
 public:
  // `centroids`: `count` vectors of `dim` floats, contiguous.
  AnnCentroidPanels(std::span<const float> centroids, uint32_t dim, uint32_t count);

  uint32_t dim() const { return dim_; }
  uint32_t count() const { return count_; }
  // The nearest centroid of each of the `out.size()` vectors in `vectors` (dim floats each),
  // by the kernel the CPU has best. Serial: the caller divides the rows.
  void Assign(const float* vectors, std::span<uint32_t> out) const;
  // The same by the kernel `kernel` names ("avx512", "avx2", "portable"), for the test that they
  // agree; false when the CPU lacks it.
  bool AssignWith(const char* kernel, const float* vectors, std::span<uint32_t> out) const;

 private:
  uint32_t dim_, count_, panels_;  // panels_ is even.
  std::vector<float> data_;        // panels_ · dim_ · kAnnPanelLanes.
  std::vector<float> norms_;       // panels_ · kAnnPanelLanes; +inf for padding.
};

// The nearest centroid of each vector of `vectors` (dim floats each), over fixed ranges of rows
// on `executor`.
std::vector<uint32_t> AnnAssign(std::span<const float> vectors, const AnnCentroidPanels& centroids,
                                Executor& executor);

struct AnnKMeansOptions {
  uint32_t lists = 1;
  int iterations = 10;
  uint64_t seed = 0;
  // At most this many training vectors per list are sampled from the data (faiss's default 256;
  // the index uses 64).
  uint64_t points_per_list_max = 64;
};

// k-means training: `options.lists` centroids (dim floats each, contiguous) of `data` (dim floats
// per vector). The training set is a sample of at most lists · points_per_list_max vectors chosen
// with the seed; the first centroids are `lists` of them chosen with the seed; each iteration
// assigns the training set (AnnAssign) and moves each centroid to its members' mean; a centroid
// left empty takes half of the largest list (a copy nudged apart from it). `after_iteration`, when
// given, is called after each iteration with the iteration's number (1-based) and the centroids,
// and stops the training by returning false. The same centroids for every executor.
template <typename F>
std::vector<float> AnnTrainKMeans(std::span<const float> data, uint32_t dim,
                                  const AnnKMeansOptions& options, Executor& executor,
                                  F after_iteration);
std::vector<float> AnnTrainKMeans(std::span<const float> data, uint32_t dim,
                                  const AnnKMeansOptions& options, Executor& executor);

namespace ann_kmeans_internal {
// One k-means state: the training set and the centroids; each Step is one iteration.
class Trainer {
 public:
  Trainer(std::span<const float> data, uint32_t dim, const AnnKMeansOptions& options);
  void Step(Executor& executor);
  const std::vector<float>& centroids() const { return centroids_; }
  std::vector<float> Take() { return std::move(centroids_); }

 private:
  uint32_t dim_, lists_;
  std::vector<float> train_;  // The training set's vectors, in ascending row order.
  std::vector<float> centroids_;
};
}  // namespace ann_kmeans_internal

template <typename F>
std::vector<float> AnnTrainKMeans(std::span<const float> data, uint32_t dim,
                                  const AnnKMeansOptions& options, Executor& executor,
                                  F after_iteration) {
  ann_kmeans_internal::Trainer trainer(data, dim, options);
  for (int i = 1; i <= options.iterations; ++i) {
    trainer.Step(executor);
    if (!after_iteration(i, trainer.centroids())) break;
  }
  return trainer.Take();
}

}  // namespace omnigraph::table
