// Quantized codes of a version's vectors (docs/format/vector-index.md "Codes"; decision 224): each
// vector as one byte per dimension on a grid with a per-dimension offset and one scale for every
// dimension, and a scan over the codes that keeps the candidates whose distance on the grid is
// smallest. The ANN index stores them beside its inverted lists when the lists would not pay
// (uniform data): a `nearest` then scans the codes on the runtime's threads and measures the
// candidates exactly, which is what decides the answer.
//
// Everything the scan computes is an integer, so the result is a function of the codes and the
// query alone: the same for every division of the rows over threads and for the AVX-512, AVX2 and
// portable kernels. AnnCodes is a value; its const functions are thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/executor.h"
#include "base/status.h"

namespace omnigraph::table {

// Codes are stored for vectors of at most this many dimensions: the scan's integer sums
// (kAnnCodeMax² per dimension for a code's norm, 2·kAnnCodeQueryMax·kAnnCodeMax per dimension
// for its dot product with the query) then stay below 2^31.
inline constexpr uint32_t kAnnCodesDimMax = 4096;
// The largest code; a vector's value maps to round((x − offset) / scale), clamped to [0, max].
inline constexpr int32_t kAnnCodeMax = 255;
// A query's value on the grid is clamped to [kAnnCodeQueryMin, kAnnCodeQueryMax]: a query far
// outside the data's range is still ordered by the distance to the grid's edge.
inline constexpr int32_t kAnnCodeQueryMin = -256;
inline constexpr int32_t kAnnCodeQueryMax = 511;
// A scan divides the rows into ranges of at least this many rows, one per thread at most.
inline constexpr uint64_t kAnnCodesRangeRowsMin = 4096;

struct AnnCodes {
  uint32_t dim = 0;
  float scale = 1;             // The grid's step, the same for every dimension; > 0.
  std::vector<float> offsets;  // dim: each dimension's value at code 0.
  std::vector<uint32_t> rows;  // The row number of each code, strictly ascending.
  std::vector<uint8_t> codes;  // rows.size() · dim.
  std::vector<int32_t> norms;  // Σ code² of each row: derived, not stored.

  // The grid of `n` vectors (`data`, dim floats each): each dimension's minimum the offset, the
  // largest range over the dimensions divided by kAnnCodeMax the scale. Computed over fixed
  // ranges of rows on `executor` and merged; minima and maxima are exact, so the grid does not
  // depend on the division. No rows are encoded.
  static AnnCodes Train(std::span<const float> data, uint32_t dim, Executor& executor);
  // A grid with no rows (for a copy that rows are added to).
  AnnCodes GridOnly() const;
  // The codes of `vectors` (dim floats each) on this grid, clamped to [0, kAnnCodeMax].
  std::vector<uint8_t> Quantize(std::span<const float> vectors) const;
  // Sets rows and codes (Quantize of `data`, on `executor`) and the norms.
  void Encode(std::span<const float> data, std::vector<uint32_t> row_numbers, Executor& executor);
  // Recomputes norms from codes.
  void ComputeNorms();

  // The up to `candidates` row numbers whose codes are nearest the query on the grid (smallest
  // Σ (code − query)², the query rounded onto the grid), ties by row number, nearest first.
  // Each thread of `executor` scans fixed ranges and keeps its best; the merge takes the best of
  // theirs, which is the same set whatever the ranges.
  std::vector<uint32_t> Search(std::span<const float> query, uint64_t candidates,
                               Executor& executor) const;

  // The grid's bytes (scale, zero, offsets) and the rows' (row numbers, then codes): the two
  // parts of the codes in the index's payload.
  void AppendGrid(std::string& out) const;
  void AppendRows(std::string& out) const;
  // Bytes of AppendGrid for `dim` dimensions.
  static uint64_t GridBytes(uint32_t dim) { return 8 + uint64_t{4} * dim; }
  // Reads AppendGrid's bytes; empty when sound, else what is wrong.
  std::string DecodeGrid(std::string_view bytes, uint32_t dimension);
  // Reads AppendRows's bytes for `count` rows below `rows_max`; empty when sound, else what is
  // wrong (a length that is not count rows, numbers out of order or range).
  std::string DecodeRows(std::string_view bytes, uint64_t count, uint64_t rows_max);
};

// The dot products of `n` codes of `dim` bytes (contiguous) with `query` (dim values), by the
// kernel `kernel` names: "avx512", "avx2" or "portable" (each only when the CPU has it: the
// portable one always). For the test that they agree; the scan uses the best the CPU has.
// False when the CPU lacks the kernel.
bool AnnCodeDots(const char* kernel, const uint8_t* codes, const int16_t* query, uint32_t dim,
                 uint64_t n, int32_t* out);

}  // namespace omnigraph::table
