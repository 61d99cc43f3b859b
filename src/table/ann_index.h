// The ANN index of one Vector property of one table version (docs/format/vector-index.md): an
// inverted-file index (faiss IndexIVFFlat, squared L2 over the stored vectors as they are) whose
// ids are the rows' positions in id order among the version's live rows — the same numbering as
// the query layer's table images, so a search answers dense indices directly.
//
// The index is a derived object of kind `annl2.{field_id}` (table/derived.h): never authority,
// built from the version's fragments, stored with the version and removed with it. A version with
// fewer than kAnnRowsMin non-null vectors gets no index (exact search is as fast). faiss is used
// only inside ann_index.cc; this header does not expose it.
//
// AnnIndex is immutable after Decode; Search is const and safe to call concurrently.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/executor.h"
#include "base/status.h"
#include "table/table_version.h"

namespace omnigraph::table {

struct AnnDelta;  // table/ann_delta.h

// Below this many non-null vectors no index is built: a brute-force pass is as fast.
inline constexpr uint64_t kAnnRowsMin = 4096;
// Training samples per inverted list (faiss warns below 39) and the bound on lists.
inline constexpr uint64_t kAnnTrainPerList = 40;
inline constexpr uint32_t kAnnListsMax = 65536;
// k-means iterations of the training, and its fixed seed (a build is a function of the version).
inline constexpr int kAnnTrainIterations = 10;
inline constexpr int kAnnTrainSeed = 1234;
// The build measures how many lists a search must probe to find kAnnCalibrationRecallPermille
// thousandths of the kAnnCalibrationNeighbours nearest neighbours of kAnnCalibrationQueries rows
// spread over the version (each row's vector the query, the row itself not counted), and stores
// it with the index: the executor scales its probes by it and answers exactly when the index
// would have to scan most of the rows (docs/format/vector-index.md "Build").
inline constexpr uint64_t kAnnCalibrationQueries = 32;
inline constexpr uint64_t kAnnCalibrationNeighbours = 10;
inline constexpr uint64_t kAnnCalibrationRecallPermille = 950;
// The build calibrates after this many k-means iterations too: when the lists would not pay then
// (the calibrated probes at least 1/kAnnCodesListShareInverse of the lists: the executor would
// answer every query without them), it stops training and stores one list (decision 236).
inline constexpr int kAnnHardDataIterations = 2;

// The derived-object kind of the index of property `field_id`: "annl2.{field_id}".
std::string AnnKind(uint32_t field_id);

// The build stores quantized codes of the vectors (table/ann_codes.h) beside the lists when the
// calibrated probes are at least 1/kAnnCodesListShareInverse of the lists: the share at which the
// executor stops searching the lists (decision 212), so that the codes are there exactly when an
// unfiltered `nearest` would otherwise measure every row (decision 224).
inline constexpr uint32_t kAnnCodesListShareInverse = 2;

enum class AnnCodesChoice {
  kAuto,    // Codes when the calibrated probes reach the share above.
  kAlways,  // Codes whenever the dimension allows (kAnnCodesDimMax): tests, the benchmark.
  kNever,
};

struct AnnBuildOptions {
  // Fewer non-null vectors than this: no index (BuildAnnPayload returns an empty payload).
  uint64_t rows_min = kAnnRowsMin;
  // Inverted lists; 0 chooses 4·sqrt(rows), at most kAnnListsMax and at most rows / 40.
  uint32_t lists = 0;
  AnnCodesChoice codes = AnnCodesChoice::kAuto;
  // Whether the build stops training after kAnnHardDataIterations iterations and stores one list
  // when the lists would not pay. Off: the lists are trained in full whatever the data (tests and
  // the benchmark's series over the lists).
  bool hard_data_check = true;
};

// The payload of the index of Vector property `field_id` of `version`: the vectors in id order,
// as stored, clustered into lists, with the calibrated probes, and their codes when
// options.codes asks (format 4; else format 3). The k-means, the lists' assignment and the codes
// run on the version's runtime executor with a fixed division of the work (table/ann_kmeans.h):
// the payload is the same, byte for byte, for every number of threads. Empty
// when the version has fewer than `rows_min` non-null vectors. InvalidArgument when `field_id` is
// not a Vector property of the version; storage and corruption errors from reading the fragments.
Result<std::string> BuildAnnPayload(const TableVersion& version, uint32_t field_id,
                                    const AnnBuildOptions& options = {});

class AnnIndex {
 public:
  ~AnnIndex();
  AnnIndex(const AnnIndex&) = delete;
  AnnIndex& operator=(const AnnIndex&) = delete;

  // Opens a payload of BuildAnnPayload. Corruption naming `name` when it is not one (bad magic,
  // format, sizes, or bytes faiss cannot read).
  static Result<std::shared_ptr<const AnnIndex>> Decode(std::string_view payload,
                                                        const std::string& name);

  uint32_t dim() const { return dim_; }
  // Live rows of the version (the dense numbering's size) and how many have a vector indexed.
  uint64_t rows() const { return rows_; }
  uint64_t indexed() const;
  uint32_t lists() const;
  // The lists a search probes to reach the calibrated recall (kAnnCalibrationRecallPermille),
  // measured by the build; 0 when the payload does not say (format 2, built before calibration).
  uint32_t probes_for_recall() const { return probes_for_recall_; }

  // The up to `k` dense indices nearest (smallest squared L2 distance to `query`)
  // among the rows `allowed` admits (empty = every row; otherwise allowed.size() == rows()),
  // probing `probes` lists (clamped to [1, lists()]; lists() makes the search exact over the
  // indexed rows). Nearest first. InvalidArgument for a query of another dimension.
  Result<std::vector<uint32_t>> Search(std::span<const float> query, uint64_t k,
                                       const std::vector<bool>& allowed, uint32_t probes) const;

  // Whether the index holds quantized codes of its vectors (format 4).
  bool has_codes() const;
  // The up to `candidates` rows whose codes are nearest `query` (AnnCodes::Search: on
  // `executor`'s threads, ties by row number, the same rows for any number of threads), nearest
  // on the grid first; the caller measures them exactly. Internal when the index has no
  // codes; InvalidArgument for a query of another dimension.
  Result<std::vector<uint32_t>> SearchCodes(std::span<const float> query, uint64_t candidates,
                                            Executor& executor) const;

  // The payload of this index (BuildAnnPayload's format): what Decode reads back.
  Result<std::string> Encode() const;

  // The list of each of `vectors` (dim() floats each): the one whose centroid is nearest, by the
  // build's own kernel (table/ann_kmeans.h), which gives each vector its list whatever the other
  // vectors, so a delta's rows get the lists a rebuild gives them. On `executor`'s threads when
  // given, else on the caller's. InvalidArgument when the size is not a multiple of dim().
  Result<std::vector<uint32_t>> AssignLists(std::span<const float> vectors,
                                            Executor* executor = nullptr) const;

  // This index with `delta` (table/ann_delta.h) applied: the base's rows the delta removes
  // dropped, the others renumbered, the delta's rows added to their lists; each list in
  // ascending row number, the centroids and calibrated probes kept. Equal to BuildAnnOver of the
  // version the delta belongs to. Corruption naming `name` when the delta's dimension, lists or
  // base rows are not this index's.
  Result<std::shared_ptr<const AnnIndex>> Apply(const AnnDelta& delta,
                                                const std::string& name) const;

  struct Impl;

 private:
  friend Result<std::shared_ptr<const AnnIndex>> ReadAnnCentroids(const TableVersion& version,
                                                                  uint32_t field_id);
  friend Result<std::shared_ptr<const AnnIndex>> BuildAnnOver(const TableVersion& version,
                                                              uint32_t field_id,
                                                              const AnnIndex& centroids);
  AnnIndex() = default;
  uint32_t dim_ = 0;
  uint64_t rows_ = 0;
  uint32_t probes_for_recall_ = 0;
  std::unique_ptr<Impl> impl_;
};

// The index of `version`'s vectors over the centroids of `centroids` (its lists and calibrated
// probes kept; nothing retrained), each vector assigned by AssignLists and added in row order:
// what a chain of deltas over that index equals (docs/format/vector-index.md "Deltas").
// InvalidArgument when `field_id` is not a Vector property of `centroids`' dimension.
Result<std::shared_ptr<const AnnIndex>> BuildAnnOver(const TableVersion& version, uint32_t field_id,
                                                     const AnnIndex& centroids);

// The index of `field_id` of `version`, read from its derived object — a full one, or a chain of
// deltas over one (ann_delta.h), applied in order; nullptr when the version has none (never
// built, or too few vectors). Corruption naming the object when a link is damaged or does not
// apply; NotFound-free: a chain whose lower link is gone reads as no index.
Result<std::shared_ptr<const AnnIndex>> ReadAnnIndex(const TableVersion& version,
                                                     uint32_t field_id);

// The centroids of the index of `field_id` that `version` stores (full, or a chain of deltas
// over a full one), as an index of no rows: enough to AssignLists and Apply a delta to, with two
// ranged reads of the chain's full object (its header, its quantizer) instead of the whole index.
// NotFound when the version stores none; Unsupported when its chain does not list its full object
// (envelope format 2 at depth 2 or more: read the whole chain instead); Corruption naming the
// object when the header or quantizer is not an index's.
Result<std::shared_ptr<const AnnIndex>> ReadAnnCentroids(const TableVersion& version,
                                                         uint32_t field_id);

// Builds and stores the index of every Vector property of `version` that lacks one (a load, an
// optimize). Properties with fewer than options.rows_min vectors are skipped.
Status EnsureAnnIndexes(const TableVersion& version, const AnnBuildOptions& options = {});

}  // namespace omnigraph::table
