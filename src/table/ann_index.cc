// The ANN index (ann_index.h; docs/format/vector-index.md). The only translation unit that
// includes faiss: its headers are system includes here and nowhere else, and every faiss call is
// wrapped so that its exceptions become a Status at this boundary.
#include "table/ann_index.h"

#include <faiss/IndexFlat.h>
#include <faiss/IndexIVFFlat.h>
#include <faiss/impl/FaissException.h>
#include <faiss/impl/IDSelector.h>
#include <faiss/impl/io.h>
#include <faiss/index_io.h>
#include <faiss/utils/distances.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "table/ann_codes.h"
#include "table/ann_delta.h"
#include "table/ann_kmeans.h"
#include "table/derived.h"
#include "table/le_bytes.h"
#include "table/table_context.h"

namespace omnigraph::table {

namespace {

using Idx = faiss::Index::idx_t;

constexpr char kMagic[4] = {'O', 'G', 'A', 'N'};
// 1 was the inner-product index over unit vectors; 2 had no calibrated probes (still read); 4 is
// 3 with quantized codes (decision 224), written only when the index has codes.
constexpr uint32_t kFormat = 3;
constexpr uint32_t kFormatUncalibrated = 2;
constexpr uint32_t kFormatCodes = 4;
constexpr uint64_t kPayloadHeaderBytes = 40;
constexpr uint64_t kUncalibratedHeaderBytes = 32;
// Format 4's header: format 3's, then the faiss part's length (8 bytes).
constexpr uint64_t kCodesHeaderBytes = 48;
constexpr uint64_t kBuildBatchRows = 65536;
constexpr int kMaxPointsPerList = 64;

// faiss parallelizes with OpenMP. Every faiss call (a search, the build's calibration search and
// its adding of the assigned vectors) runs on the calling thread alone: the Runtime owns the
// process's threads, and the build's parallel part is our own (table/ann_kmeans.h). The OpenMP
// thread count is a per-thread setting, so this changes nothing for other threads.
class SingleThreaded {
 public:
  SingleThreaded() : saved_(omp_get_max_threads()) { omp_set_num_threads(1); }
  ~SingleThreaded() { omp_set_num_threads(saved_); }
  SingleThreaded(const SingleThreaded&) = delete;
  SingleThreaded& operator=(const SingleThreaded&) = delete;

 private:
  int saved_;
};

// Reads faiss's serialized bytes in place from the payload. Decode hands it only bytes that
// CheckIvfLayout has walked, so every length faiss reads is already known to fit.
struct ViewReader : faiss::IOReader {
  explicit ViewReader(std::string_view bytes) : data(bytes) {}
  size_t operator()(void* ptr, size_t size, size_t nitems) override {
    if (size == 0) return 0;
    const size_t n = std::min(nitems, (data.size() - at) / size);
    if (n == 0) return 0;  // faiss passes a null pointer for an empty vector.
    std::memcpy(ptr, data.data() + at, n * size);
    at += n * size;
    return n;
  }
  std::string_view data;
  size_t at = 0;
};

// A forward reader over faiss's bytes for CheckIvfLayout: each read fails, rather than reads
// past the end, when the bytes are short.
struct LayoutCursor {
  std::string_view bytes;
  size_t at = 0;
  uint64_t left() const { return bytes.size() - at; }
  template <typename T>
  bool Read(T& out) {
    if (left() < sizeof(T)) return false;
    out = LoadLe<T>(bytes, at);
    at += sizeof(T);
    return true;
  }
  bool Tag(const char (&tag)[5]) {
    if (left() < 4 || bytes.compare(at, 4, tag, 4) != 0) return false;
    at += 4;
    return true;
  }
  bool Skip(uint64_t n) {
    if (n > left()) return false;
    at += n;
    return true;
  }
};

// faiss's index header (read_index_header) as BuildAnnPayload writes it: `d`, `ntotal`, two
// unused 8-byte values, is_trained = 1, the L2 metric (which has no metric argument).
bool ReadIndexHeader(LayoutCursor& c, int32_t& d, int64_t& ntotal) {
  int64_t unused = 0;
  uint8_t trained = 0;
  int32_t metric = -1;
  return c.Read(d) && c.Read(ntotal) && c.Read(unused) && c.Read(unused) && c.Read(trained) &&
         trained == 1 && c.Read(metric) && metric == faiss::METRIC_L2;
}

// The inverted lists' sizes ("full": one per list; "sprs": (list, size) pairs, the last pair for a
// list winning, as faiss reads them), each checked against the bytes left before the next is
// read, so that no size faiss will allocate can exceed the payload.
bool ReadListSizes(LayoutCursor& c, uint64_t nlist, uint64_t entry_bytes,
                   std::vector<uint64_t>& sizes) {
  const bool full = c.Tag("full");
  if (!full && !c.Tag("sprs")) return false;
  uint64_t count = 0;
  if (!c.Read(count) || count > c.left() / 8) return false;
  if (full ? count != nlist : count % 2 != 0) return false;
  sizes.assign(nlist, 0);
  for (uint64_t i = 0; i < (full ? count : count / 2); ++i) {
    uint64_t list = i;
    if (!full && (!c.Read(list) || list >= nlist)) return false;
    if (!c.Read(sizes[list])) return false;
  }
  uint64_t bytes = 0;
  for (uint64_t n : sizes) {
    if (n > c.left() / entry_bytes || bytes > c.left() - n * entry_bytes) return false;
    bytes += n * entry_bytes;
  }
  return bytes == c.left();
}

// Walks faiss's serialization of the one index BuildAnnPayload writes — an IndexIVFFlat
// ("IwFl") over an IndexFlatL2 quantizer ("IxF2"), no direct map, array inverted lists
// ("ilar") — checking every length against the payload before faiss reads it: faiss resizes each
// vector and list to the length it reads, so a damaged one would allocate without bound
// (fuzz/regressions/ann). Anything else (another index type, trailing bytes, an id outside the
// rows, a count that disagrees with OGAN's header) is not an index we wrote. Empty when sound.
std::string CheckIvfLayout(std::string_view bytes, uint32_t dim, uint32_t lists, uint64_t rows,
                           uint64_t indexed) {
  LayoutCursor c{bytes};
  int32_t d = 0, qd = 0;
  int64_t ntotal = 0, qtotal = 0;
  uint64_t nlist = 0, nprobe = 0, floats = 0, map_entries = 0, list_count = 0, code_size = 0;
  uint8_t direct_map = 0;
  if (!c.Tag("IwFl") || !ReadIndexHeader(c, d, ntotal) || !c.Read(nlist) || !c.Read(nprobe)) {
    return "its IVF header is not an IndexIVFFlat's";
  }
  if (d <= 0 || static_cast<uint64_t>(d) != dim || nlist != lists || nlist == 0 ||
      static_cast<uint64_t>(ntotal) != indexed || indexed > rows) {
    return "its IVF header disagrees with the OGAN header";
  }
  const uint64_t vector_bytes = uint64_t{4} * dim;
  if (!c.Tag("IxF2") || !ReadIndexHeader(c, qd, qtotal) || qd != d ||
      static_cast<uint64_t>(qtotal) != nlist || !c.Read(floats) ||
      nlist > c.left() / vector_bytes || floats != nlist * dim || !c.Skip(floats * 4)) {
    return "its quantizer is not " + std::to_string(nlist) + " centroids of dimension " +
           std::to_string(dim);
  }
  if (!c.Read(direct_map) || direct_map != 0 || !c.Read(map_entries) || map_entries != 0) {
    return "it has a direct map";
  }
  if (!c.Tag("ilar") || !c.Read(list_count) || list_count != nlist || !c.Read(code_size) ||
      code_size != vector_bytes) {
    return "its inverted lists' header disagrees with the index";
  }
  std::vector<uint64_t> sizes;
  if (!ReadListSizes(c, nlist, vector_bytes + 8, sizes)) {
    return "its inverted lists' sizes disagree with the payload's length";
  }
  uint64_t total = 0;
  for (uint64_t n : sizes) {
    if (!c.Skip(n * vector_bytes)) return "its inverted lists are short";
    for (uint64_t i = 0; i < n; ++i, ++total) {
      int64_t id = -1;
      if (!c.Read(id) || id < 0 || static_cast<uint64_t>(id) >= rows) {
        return "an inverted list holds a row outside the index's " + std::to_string(rows);
      }
    }
  }
  if (total != indexed) return "its inverted lists hold " + std::to_string(total) + " vectors";
  return {};
}

struct StringWriter : faiss::IOWriter {
  size_t operator()(const void* ptr, size_t size, size_t nitems) override {
    if (size * nitems > 0) out.append(static_cast<const char*>(ptr), size * nitems);
    return nitems;
  }
  std::string out;
};

// Admits the dense indices a frame's candidates allow.
struct AllowedSelector : faiss::IDSelector {
  explicit AllowedSelector(const std::vector<bool>& a) : allowed(a) {}
  bool is_member(idx_t id) const override {
    return id >= 0 && static_cast<size_t>(id) < allowed.size() && allowed[id];
  }
  const std::vector<bool>& allowed;
};

struct Vectors {
  uint32_t dim = 0;
  uint64_t rows = 0;  // Every live row, with or without a vector.
  std::vector<float> data;
  std::vector<Idx> ids;
};

Result<Vectors> ReadVectors(const TableVersion& version, uint32_t field_id) {
  const Field* field = nullptr;
  for (const Field& f : version.schema()) {
    if (f.id == field_id) field = &f;
  }
  if (field == nullptr || field->type.id != TypeId::kVector) {
    return InvalidArgument("field " + std::to_string(field_id) + " of table version " +
                           version.manifest_name() + " is not a Vector property");
  }
  Vectors v;
  v.dim = field->type.vector_dim;
  const uint32_t ids[] = {field_id};
  OMNIGRAPH_RETURN_IF_ERROR(
      version.ScanInIdOrder(ids, kBuildBatchRows, [&](ColumnBatch batch) -> Status {
        const Column& c = batch.column(0);
        for (uint64_t i = 0; i < batch.num_rows(); ++i, ++v.rows) {
          if (c.IsNull(i)) continue;
          const std::span<const float> x = c.VectorAt(i);
          v.data.insert(v.data.end(), x.begin(), x.end());
          v.ids.push_back(static_cast<Idx>(v.rows));
        }
        return Status::Ok();
      }));
  return v;
}

// The calibration's queries: kAnnCalibrationQueries indexed vectors spread evenly over them, and
// each one's kAnnCalibrationNeighbours nearest other indexed vectors, found exactly once per build
// (faiss's BLAS search, on this thread alone) for every calibration of it.
struct Calibration {
  std::vector<float> queries;            // dim floats per query.
  std::vector<std::vector<float>> near;  // Per query, its neighbours' vectors (dim floats each).
};

Calibration CalibrationOf(const Vectors& v) {
  Calibration cal;
  const uint64_t n = v.ids.size();
  const uint64_t samples = std::min<uint64_t>(kAnnCalibrationQueries, n);
  const uint64_t k = std::min<uint64_t>(kAnnCalibrationNeighbours + 1, n);
  if (k < 2) return cal;
  cal.queries.resize(samples * v.dim);
  std::vector<Idx> at(samples);
  for (uint64_t s = 0; s < samples; ++s) {
    at[s] = static_cast<Idx>(s * n / samples);
    std::memcpy(&cal.queries[s * v.dim], &v.data[at[s] * v.dim], sizeof(float) * v.dim);
  }
  std::vector<float> distances(samples * k);
  std::vector<Idx> nearest(samples * k);
  faiss::knn_L2sqr(cal.queries.data(), v.data.data(), v.dim, samples, n, k, distances.data(),
                   nearest.data());
  cal.near.resize(samples);
  for (uint64_t s = 0; s < samples; ++s) {
    uint64_t taken = 0;
    for (uint64_t j = 0; j < k && taken + 1 < k; ++j) {
      const Idx id = nearest[s * k + j];
      if (id < 0 || id == at[s]) continue;
      cal.near[s].insert(cal.near[s].end(), &v.data[id * v.dim], &v.data[(id + 1) * v.dim]);
      ++taken;
    }
  }
  return cal;
}

// The lists a search over `centroids` must probe to find kAnnCalibrationRecallPermille
// thousandths of the calibration's neighbours: the smallest p such that that share of them lie
// in the p lists whose centroids are nearest their query (by exact distance, ties by list), each
// neighbour in the list AnnCentroidPanels gives it. On clustered data this is a few lists; on
// uniform data most of them (docs/benchmarks.md "Vector search").
uint32_t CalibrateProbes(const Calibration& cal, uint32_t dim, const std::vector<float>& centroids,
                         const AnnCentroidPanels& panels) {
  const uint32_t lists = panels.count();
  if (lists <= 1 || cal.near.empty()) return 1;
  std::vector<uint32_t> ranks;  // Of each neighbour's list among its query's nearest lists.
  std::vector<double> distance(lists);
  for (size_t s = 0; s < cal.near.size(); ++s) {
    const float* q = &cal.queries[s * dim];
    for (uint32_t c = 0; c < lists; ++c) {
      double d = 0;
      for (uint32_t j = 0; j < dim; ++j) {
        const double x = static_cast<double>(q[j]) - centroids[uint64_t{c} * dim + j];
        d += x * x;
      }
      distance[c] = d;
    }
    std::vector<uint32_t> of(cal.near[s].size() / dim);
    panels.Assign(cal.near[s].data(), of);
    for (uint32_t list : of) {
      uint32_t rank = 0;
      for (uint32_t c = 0; c < lists; ++c) {
        rank += distance[c] < distance[list] || (distance[c] == distance[list] && c < list);
      }
      ranks.push_back(rank);
    }
  }
  if (ranks.empty()) return 1;
  std::sort(ranks.begin(), ranks.end());
  const uint64_t need = (ranks.size() * kAnnCalibrationRecallPermille + 999) / 1000;
  return ranks[std::max<uint64_t>(need, 1) - 1] + 1;
}

// Whether lists over which a search needs `probes` of `lists` would not pay: the executor would
// answer every query without them (decision 212's half).
bool ListsWouldNotPay(uint32_t probes, uint32_t lists) {
  return uint64_t{probes} * kAnnCodesListShareInverse >= lists;
}

// The mean of the vectors, summed in double in row order: the one centroid of an index whose
// lists would not pay.
std::vector<float> MeanOf(const Vectors& v) {
  std::vector<double> sum(v.dim);
  const uint64_t n = v.ids.size();
  for (uint64_t i = 0; i < n; ++i) {
    for (uint32_t j = 0; j < v.dim; ++j) sum[j] += v.data[i * v.dim + j];
  }
  std::vector<float> mean(v.dim);
  for (uint32_t j = 0; j < v.dim; ++j)
    mean[j] = static_cast<float>(sum[j] / static_cast<double>(n));
  return mean;
}

// The payload of `index` over a version of `rows` live rows: format 3, or format 4 with `codes`
// (the grid before the faiss part, the rows after it).
std::string PayloadOf(const faiss::IndexIVF& index, uint64_t rows, uint32_t probes,
                      const AnnCodes* codes) {
  StringWriter writer;
  faiss::write_index(&index, &writer);
  std::string payload;
  payload.reserve(kCodesHeaderBytes + writer.out.size() +
                  (codes ? codes->codes.size() + 4 * codes->rows.size() : 0));
  payload.append(kMagic, 4);
  AppendLe<uint32_t>(payload, codes ? kFormatCodes : kFormat);
  AppendLe<uint32_t>(payload, static_cast<uint32_t>(index.d));
  AppendLe<uint32_t>(payload, static_cast<uint32_t>(index.nlist));
  AppendLe<uint64_t>(payload, rows);
  AppendLe<uint64_t>(payload, static_cast<uint64_t>(index.ntotal));
  AppendLe<uint32_t>(payload, probes);
  AppendLe<uint32_t>(payload, 0);
  if (codes == nullptr) {
    payload += writer.out;
    return payload;
  }
  AppendLe<uint64_t>(payload, writer.out.size());
  codes->AppendGrid(payload);
  payload += writer.out;
  codes->AppendRows(payload);
  return payload;
}

// Whether a build over vectors of `dim` dimensions, `rows` live rows, `lists` lists and
// calibrated probes `probes` stores codes (AnnBuildOptions::codes).
bool WantsCodes(AnnCodesChoice choice, uint32_t dim, uint64_t rows, uint32_t lists,
                uint32_t probes) {
  if (choice == AnnCodesChoice::kNever || dim > kAnnCodesDimMax ||
      rows > std::numeric_limits<uint32_t>::max()) {
    return false;
  }
  return choice == AnnCodesChoice::kAlways || ListsWouldNotPay(probes, lists);
}

// The codes of the vectors `v` on a grid trained over them, on the version's executor.
std::unique_ptr<AnnCodes> CodesOf(const Vectors& v, Executor& executor) {
  auto codes = std::make_unique<AnnCodes>(AnnCodes::Train(v.data, v.dim, executor));
  std::vector<uint32_t> rows(v.ids.begin(), v.ids.end());
  codes->Encode(v.data, std::move(rows), executor);
  return codes;
}

// Where the parts of a payload lie, from its header: the faiss part, and for format 4 the codes'
// grid and rows.
struct PayloadParts {
  uint32_t format = 0;
  std::string_view faiss;
  std::string_view grid, rows;
};

// Splits `payload` by its header (format 2, 3 or 4); empty `faiss` when the header or the lengths
// it gives are not sound.
PayloadParts SplitPayload(std::string_view payload) {
  PayloadParts p;
  p.format = payload.size() < 8 ? 0 : LoadLe<uint32_t>(payload, 4);
  const uint64_t header_bytes = p.format == kFormatUncalibrated ? kUncalibratedHeaderBytes
                                : p.format == kFormatCodes      ? kCodesHeaderBytes
                                                                : kPayloadHeaderBytes;
  if (payload.size() < header_bytes || std::memcmp(payload.data(), kMagic, 4) != 0 ||
      (p.format != kFormat && p.format != kFormatUncalibrated && p.format != kFormatCodes) ||
      (p.format != kFormatUncalibrated && LoadLe<uint32_t>(payload, 36) != 0)) {
    return p;
  }
  if (p.format != kFormatCodes) {
    p.faiss = payload.substr(header_bytes);
    return p;
  }
  const uint64_t grid = AnnCodes::GridBytes(LoadLe<uint32_t>(payload, 8));
  const uint64_t faiss = LoadLe<uint64_t>(payload, 40);
  if (grid > payload.size() - header_bytes || faiss > payload.size() - header_bytes - grid) {
    return p;
  }
  p.grid = payload.substr(header_bytes, grid);
  p.faiss = payload.substr(header_bytes + grid, faiss);
  p.rows = payload.substr(header_bytes + grid + faiss);
  return p;
}

// An empty IVF-Flat index over a copy of `from`'s centroids (its own quantizer).
std::unique_ptr<faiss::IndexIVFFlat> EmptyOver(uint32_t dim, uint32_t lists,
                                               const float* centroids) {
  auto quantizer = std::make_unique<faiss::IndexFlatL2>(dim);
  quantizer->add(static_cast<Idx>(lists), centroids);
  auto index =
      std::make_unique<faiss::IndexIVFFlat>(quantizer.release(), dim, lists, faiss::METRIC_L2);
  index->own_fields = true;
  index->is_trained = true;
  return index;
}

std::unique_ptr<faiss::IndexIVFFlat> EmptyLike(const faiss::IndexIVF& from) {
  std::vector<float> centroids(from.nlist * from.d);
  from.quantizer->reconstruct_n(0, static_cast<Idx>(from.nlist), centroids.data());
  return EmptyOver(static_cast<uint32_t>(from.d), static_cast<uint32_t>(from.nlist),
                   centroids.data());
}

// Where the quantizer's centroids lie in a payload after its OGAN header: "IwFl", the index
// header (d 4, ntotal 8, two unused 8, is_trained 1, metric 4), nlist 8, nprobe 8, then "IxF2",
// the quantizer's header (33 bytes as above) and its float count (8).
constexpr uint64_t kQuantizerTagOffset = 4 + 33 + 8 + 8;
constexpr uint64_t kCentroidsOffset = kQuantizerTagOffset + 4 + 33 + 8;

uint32_t ChooseLists(uint64_t n, uint32_t requested) {
  if (requested != 0) return std::min<uint64_t>(requested, std::max<uint64_t>(1, n));
  const uint64_t by_sqrt = static_cast<uint64_t>(4 * std::sqrt(static_cast<double>(n)));
  return static_cast<uint32_t>(
      std::max<uint64_t>(1, std::min<uint64_t>({by_sqrt, n / kAnnTrainPerList, kAnnListsMax})));
}

}  // namespace

struct AnnIndex::Impl {
  std::unique_ptr<faiss::IndexIVF> index;
  std::unique_ptr<AnnCodes> codes;  // Format 4 only.
};

AnnIndex::~AnnIndex() = default;

std::string AnnKind(uint32_t field_id) { return "annl2." + std::to_string(field_id); }

namespace {

// The centroids of the index of `v`: `lists` trained by k-means on `executor`, or one (the mean)
// when `check` finds after kAnnHardDataIterations iterations that the lists would not pay.
std::vector<float> TrainLists(const Vectors& v, uint32_t& lists, bool check, const Calibration& cal,
                              Executor& executor) {
  const AnnKMeansOptions options{lists, kAnnTrainIterations, kAnnTrainSeed, kMaxPointsPerList};
  bool hard = false;
  std::vector<float> centroids = AnnTrainKMeans(
      v.data, v.dim, options, executor, [&](int iteration, const std::vector<float>& now) {
        if (!check || lists < 2 || iteration != kAnnHardDataIterations) return true;
        const uint32_t probes =
            CalibrateProbes(cal, v.dim, now, AnnCentroidPanels(now, v.dim, lists));
        hard = ListsWouldNotPay(probes, lists);
        return !hard;
      });
  if (!hard) return centroids;
  lists = 1;
  return MeanOf(v);
}

}  // namespace

Result<std::string> BuildAnnPayload(const TableVersion& version, uint32_t field_id,
                                    const AnnBuildOptions& options) {
  OMNIGRAPH_ASSIGN_OR_RETURN(Vectors v, ReadVectors(version, field_id));
  const uint64_t n = v.ids.size();
  if (n == 0 || n < options.rows_min) return std::string();
  Executor& executor = *version.context().runtime().executor;
  uint32_t lists = ChooseLists(n, options.lists);
  std::string payload;
  try {
    SingleThreaded single;
    const Calibration cal = CalibrationOf(v);
    const std::vector<float> centroids =
        TrainLists(v, lists, options.hard_data_check, cal, executor);
    const AnnCentroidPanels panels(centroids, v.dim, lists);
    // The lists of the vectors are assigned once, by the kernel AssignLists uses.
    const std::vector<uint32_t> assigned = AnnAssign(v.data, panels, executor);
    const std::vector<Idx> assign(assigned.begin(), assigned.end());
    std::unique_ptr<faiss::IndexIVFFlat> index = EmptyOver(v.dim, lists, centroids.data());
    index->add_core(static_cast<Idx>(n), v.data.data(), v.ids.data(), assign.data());
    const uint32_t probes = CalibrateProbes(cal, v.dim, centroids, panels);
    std::unique_ptr<AnnCodes> codes;
    if (WantsCodes(options.codes, v.dim, v.rows, lists, probes)) codes = CodesOf(v, executor);
    payload = PayloadOf(*index, v.rows, probes, codes.get());
  } catch (const std::exception& e) {
    return Internal("building the vector index of field " + std::to_string(field_id) + " of " +
                    version.manifest_name() + ": " + e.what());
  }
  return payload;
}

Result<std::shared_ptr<const AnnIndex>> AnnIndex::Decode(std::string_view payload,
                                                         const std::string& name) {
  const PayloadParts parts = SplitPayload(payload);
  if (parts.faiss.empty()) {
    return Corruption("vector index " + name + " has no OGAN format-2, 3 or 4 header", name);
  }
  const uint32_t format = parts.format;
  std::shared_ptr<AnnIndex> out(new AnnIndex());
  out->dim_ = LoadLe<uint32_t>(payload, 8);
  out->rows_ = LoadLe<uint64_t>(payload, 16);
  const uint64_t indexed = LoadLe<uint64_t>(payload, 24);
  if (format != kFormatUncalibrated) out->probes_for_recall_ = LoadLe<uint32_t>(payload, 32);
  if (out->probes_for_recall_ > LoadLe<uint32_t>(payload, 12)) {
    return Corruption("vector index " + name + ": its calibrated probes exceed its lists", name);
  }
  out->impl_ = std::make_unique<Impl>();
  if (format == kFormatCodes) {
    auto codes = std::make_unique<AnnCodes>();
    std::string damage = out->dim_ > kAnnCodesDimMax ? "its codes exceed their dimensions"
                                                     : codes->DecodeGrid(parts.grid, out->dim_);
    if (damage.empty()) damage = codes->DecodeRows(parts.rows, indexed, out->rows_);
    if (!damage.empty()) return Corruption("vector index " + name + ": " + damage, name);
    out->impl_->codes = std::move(codes);
  }
  const std::string_view body = parts.faiss;
  if (std::string damage =
          CheckIvfLayout(body, out->dim_, LoadLe<uint32_t>(payload, 12), out->rows_, indexed);
      !damage.empty()) {
    return Corruption("vector index " + name + ": " + damage, name);
  }
  try {
    ViewReader reader(body);
    std::unique_ptr<faiss::Index> raw(faiss::read_index(&reader));
    auto* ivf = dynamic_cast<faiss::IndexIVF*>(raw.get());
    if (ivf == nullptr) return Corruption("vector index " + name + " is not an IVF index", name);
    raw.release();
    out->impl_->index.reset(ivf);
  } catch (const std::exception& e) {
    return Corruption("vector index " + name + " cannot be read: " + e.what(), name);
  }
  const faiss::IndexIVF& ivf = *out->impl_->index;
  if (ivf.d != static_cast<int>(out->dim_) || static_cast<uint64_t>(ivf.ntotal) != indexed ||
      indexed > out->rows_ || ivf.nlist != LoadLe<uint32_t>(payload, 12)) {
    return Corruption("vector index " + name + ": its header disagrees with its index", name);
  }
  return std::shared_ptr<const AnnIndex>(std::move(out));
}

uint64_t AnnIndex::indexed() const { return static_cast<uint64_t>(impl_->index->ntotal); }
bool AnnIndex::has_codes() const { return impl_->codes != nullptr; }

Result<std::vector<uint32_t>> AnnIndex::SearchCodes(std::span<const float> query,
                                                    uint64_t candidates, Executor& executor) const {
  if (impl_->codes == nullptr) return Internal("vector index search: the index has no codes");
  if (query.size() != dim_) {
    return InvalidArgument("vector index query has " + std::to_string(query.size()) +
                           " elements, the index " + std::to_string(dim_));
  }
  return impl_->codes->Search(query, candidates, executor);
}
uint32_t AnnIndex::lists() const { return static_cast<uint32_t>(impl_->index->nlist); }

Result<std::vector<uint32_t>> AnnIndex::Search(std::span<const float> query, uint64_t k,
                                               const std::vector<bool>& allowed,
                                               uint32_t probes) const {
  if (query.size() != dim_) {
    return InvalidArgument("vector index query has " + std::to_string(query.size()) +
                           " elements, the index " + std::to_string(dim_));
  }
  if (!allowed.empty() && allowed.size() != rows_) {
    return Internal("vector index search: the allowed rows do not match the index");
  }
  std::vector<uint32_t> out;
  k = std::min<uint64_t>(k, indexed());
  if (k == 0) return out;
  const std::vector<float> q(query.begin(), query.end());
  std::vector<float> scores(k);
  std::vector<Idx> labels(k, -1);
  AllowedSelector selector(allowed);
  faiss::SearchParametersIVF params;
  params.nprobe = std::clamp<size_t>(probes, 1, lists());
  if (!allowed.empty()) params.sel = &selector;
  try {
    SingleThreaded single;
    impl_->index->search(1, q.data(), static_cast<Idx>(k), scores.data(), labels.data(), &params);
  } catch (const std::exception& e) {
    return Internal(std::string("vector index search: ") + e.what());
  }
  for (Idx label : labels) {
    if (label >= 0) out.push_back(static_cast<uint32_t>(label));
  }
  return out;
}

Result<std::string> AnnIndex::Encode() const {
  try {
    return PayloadOf(*impl_->index, rows_, probes_for_recall_, impl_->codes.get());
  } catch (const std::exception& e) {
    return Internal(std::string("encoding a vector index: ") + e.what());
  }
}

Result<std::vector<uint32_t>> AnnIndex::AssignLists(std::span<const float> vectors,
                                                    Executor* executor) const {
  if (vectors.size() % dim_ != 0) {
    return InvalidArgument("vector index: " + std::to_string(vectors.size()) +
                           " floats are not vectors of " + std::to_string(dim_));
  }
  std::vector<float> centroids(uint64_t{lists()} * dim_);
  try {
    impl_->index->quantizer->reconstruct_n(0, static_cast<Idx>(lists()), centroids.data());
  } catch (const std::exception& e) {
    return Internal(std::string("vector index list assignment: ") + e.what());
  }
  InlineExecutor here;
  return AnnAssign(vectors, AnnCentroidPanels(centroids, dim_, lists()),
                   executor != nullptr ? *executor : here);
}

namespace {

// Each base row's number after `delta`: -1 for a removed row; the kept rows, in order, take the
// numbers the delta's added rows leave free. False when the delta's numbers do not fit.
bool Renumber(const AnnDelta& delta, std::vector<int64_t>& remap) {
  remap.assign(delta.base_rows, -1);
  size_t r = 0, a = 0;
  uint64_t next = 0;
  for (uint64_t old = 0; old < delta.base_rows; ++old) {
    if (r < delta.removed.size() && delta.removed[r] == old) {
      ++r;
      continue;
    }
    for (; a < delta.added.size() && delta.added[a] == next; ++a) ++next;
    remap[old] = static_cast<int64_t>(next++);
  }
  for (; a < delta.added.size() && delta.added[a] == next; ++a) ++next;
  return r == delta.removed.size() && a == delta.added.size() && next == delta.rows;
}

// `base`'s codes after `delta`: the kept rows renumbered by `remap` (which keeps their order),
// the added rows' vectors quantized on the base's grid (clamped to it), merged by row number.
std::unique_ptr<AnnCodes> ApplyCodes(const AnnCodes& base, const AnnDelta& delta,
                                     const std::vector<int64_t>& remap) {
  auto out = std::make_unique<AnnCodes>(base.GridOnly());
  const uint32_t dim = base.dim;
  const std::vector<uint8_t> added = base.Quantize(delta.vectors);
  size_t a = 0, v = 0;  // The next added row, and its vector's position among the added codes.
  auto take_added = [&] {
    for (; a < delta.added.size() && delta.added_lists[a] == kAnnNoList; ++a) {
    }
  };
  auto push = [&](uint32_t row, const uint8_t* code) {
    out->rows.push_back(row);
    out->codes.insert(out->codes.end(), code, code + dim);
  };
  take_added();
  for (size_t i = 0; i < base.rows.size(); ++i) {
    const int64_t row = remap[base.rows[i]];
    if (row < 0) continue;
    for (; a < delta.added.size() && delta.added[a] < static_cast<uint64_t>(row); take_added()) {
      push(static_cast<uint32_t>(delta.added[a++]), &added[v++ * dim]);
    }
    push(static_cast<uint32_t>(row), &base.codes[i * dim]);
  }
  for (; a < delta.added.size(); take_added()) {
    push(static_cast<uint32_t>(delta.added[a++]), &added[v++ * dim]);
  }
  out->ComputeNorms();
  return out;
}

}  // namespace

Result<std::shared_ptr<const AnnIndex>> AnnIndex::Apply(const AnnDelta& delta,
                                                        const std::string& name) const {
  std::vector<int64_t> remap;
  if (delta.dim != dim_ || delta.lists != lists() || delta.base_rows != rows_ ||
      !Renumber(delta, remap)) {
    return Corruption("vector index delta " + name + " does not apply to its base's index", name);
  }
  const faiss::IndexIVF& base = *impl_->index;
  const size_t code_size = base.code_size;
  // Each list's entries: (new row number, code).
  std::vector<std::vector<std::pair<int64_t, const uint8_t*>>> entries(base.nlist);
  const uint8_t* added_codes = reinterpret_cast<const uint8_t*>(delta.vectors.data());
  for (size_t i = 0, v = 0; i < delta.added.size(); ++i) {
    if (delta.added_lists[i] == kAnnNoList) continue;
    entries[delta.added_lists[i]].emplace_back(delta.added[i], added_codes + v++ * code_size);
  }
  std::shared_ptr<AnnIndex> out(new AnnIndex());
  out->dim_ = dim_;
  out->rows_ = delta.rows;
  out->probes_for_recall_ = probes_for_recall_;
  out->impl_ = std::make_unique<Impl>();
  if (impl_->codes != nullptr) out->impl_->codes = ApplyCodes(*impl_->codes, delta, remap);
  try {
    std::unique_ptr<faiss::IndexIVFFlat> index = EmptyLike(base);
    for (size_t list = 0; list < base.nlist; ++list) {
      const size_t size = base.invlists->list_size(list);
      faiss::InvertedLists::ScopedIds ids(base.invlists, list);
      faiss::InvertedLists::ScopedCodes codes(base.invlists, list);
      auto& mine = entries[list];
      for (size_t j = 0; j < size; ++j) {
        const int64_t row = remap[ids[j]];
        if (row >= 0) mine.emplace_back(row, codes.get() + j * code_size);
      }
      std::sort(mine.begin(), mine.end());
      for (const auto& [row, code] : mine) index->invlists->add_entry(list, row, code);
      index->ntotal += static_cast<Idx>(mine.size());
    }
    out->impl_->index = std::move(index);
  } catch (const std::exception& e) {
    return Internal("applying vector index delta " + name + ": " + e.what());
  }
  return std::shared_ptr<const AnnIndex>(std::move(out));
}

Result<std::shared_ptr<const AnnIndex>> BuildAnnOver(const TableVersion& version, uint32_t field_id,
                                                     const AnnIndex& centroids) {
  OMNIGRAPH_ASSIGN_OR_RETURN(Vectors v, ReadVectors(version, field_id));
  if (v.dim != centroids.dim()) {
    return InvalidArgument("field " + std::to_string(field_id) + " of " + version.manifest_name() +
                           " is not of the index's dimension");
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(
      std::vector<uint32_t> lists,
      centroids.AssignLists(v.data, version.context().runtime().executor.get()));
  AnnDelta all;  // Every row added over an empty base: the same path as a delta's rows.
  all.dim = v.dim;
  all.lists = centroids.lists();
  all.rows = v.rows;
  all.vectors = std::move(v.data);
  std::vector<uint32_t> list_of_row(v.rows, kAnnNoList);
  for (size_t i = 0; i < v.ids.size(); ++i) list_of_row[v.ids[i]] = lists[i];
  for (uint64_t row = 0; row < v.rows; ++row) all.added.push_back(row);
  all.added_lists = std::move(list_of_row);
  AnnIndex empty;  // The centroids' lists, holding nothing.
  empty.dim_ = centroids.dim_;
  empty.probes_for_recall_ = centroids.probes_for_recall_;
  empty.impl_ = std::make_unique<AnnIndex::Impl>();
  if (centroids.impl_->codes != nullptr) {
    empty.impl_->codes = std::make_unique<AnnCodes>(centroids.impl_->codes->GridOnly());
  }
  try {
    empty.impl_->index = EmptyLike(*centroids.impl_->index);
  } catch (const std::exception& e) {
    return Internal(std::string("vector index rebuild: ") + e.what());
  }
  return empty.Apply(all, version.manifest_name());
}

Result<std::shared_ptr<const AnnIndex>> ReadAnnCentroids(const TableVersion& version,
                                                         uint32_t field_id) {
  const std::string kind = AnnKind(field_id);
  OMNIGRAPH_ASSIGN_OR_RETURN(DerivedHeader header, version.ReadDerivedHeader(kind));
  // The chain's full object: this version's, its base's (depth 1), or the lowest one listed.
  std::shared_ptr<const TableVersion> full;
  if (header.delta) {
    const DerivedDelta& d = *header.delta;
    if (d.depth > 1 && d.below.size() + 1 != d.depth) {
      return Unsupported("the chain of " + kind + " of " + version.manifest_name() +
                         " does not list its full object");
    }
    const uint64_t staged = d.depth == 1 ? d.base_staged_version : d.below.back();
    const std::string name = ManifestName(version.table(), staged);
    OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const TableManifest> m,
                               version.context().Manifest(name));
    full = std::make_shared<TableVersion>(version.context().shared_from_this(), m, name);
  }
  const TableVersion& at = full ? *full : version;
  const std::string name = DerivedName(at.table(), at.manifest().staged_version, kind);
  OMNIGRAPH_ASSIGN_OR_RETURN(std::string head, at.ReadDerivedRange(kind, 0, kPayloadHeaderBytes));
  const uint32_t format = LoadLe<uint32_t>(head, 4);
  if (std::memcmp(head.data(), kMagic, 4) != 0 ||
      (format != kFormat && format != kFormatUncalibrated && format != kFormatCodes)) {
    return Corruption("vector index " + name + " has no OGAN format-2, 3 or 4 header", name);
  }
  const uint32_t dim = LoadLe<uint32_t>(head, 8), lists = LoadLe<uint32_t>(head, 12);
  const uint64_t floats = uint64_t{lists} * dim;
  // Format 4: the faiss part's length and the codes' grid lie between the header and the faiss
  // part; one read takes them with the quantizer.
  const uint64_t grid =
      format == kFormatCodes && dim <= kAnnCodesDimMax ? 8 + AnnCodes::GridBytes(dim) : 0;
  const uint64_t at_quantizer =
      (format == kFormatUncalibrated ? kUncalibratedHeaderBytes : kPayloadHeaderBytes) + grid +
      kQuantizerTagOffset;
  OMNIGRAPH_ASSIGN_OR_RETURN(std::string read,
                             at.ReadDerivedRange(kind, at_quantizer - kQuantizerTagOffset - grid,
                                                 grid + kCentroidsOffset + 4 * floats));
  auto codes = std::make_unique<AnnCodes>();
  std::string damage;
  if (format == kFormatCodes) {
    damage = grid == 0 ? "its codes exceed their dimensions"
                       : codes->DecodeGrid(std::string_view(read).substr(8, grid - 8), dim);
  }
  const std::string_view quantizer = std::string_view(read).substr(grid + kQuantizerTagOffset);
  if (!damage.empty()) return Corruption("vector index " + name + ": " + damage, name);
  if (dim == 0 || lists == 0 || quantizer.compare(0, 4, "IxF2") != 0 ||
      LoadLe<uint64_t>(quantizer, kCentroidsOffset - kQuantizerTagOffset - 8) != floats) {
    return Corruption("vector index " + name + ": its quantizer is not " + std::to_string(lists) +
                          " centroids of dimension " + std::to_string(dim),
                      name);
  }
  std::vector<float> centroids(floats);
  std::memcpy(centroids.data(), quantizer.data() + (kCentroidsOffset - kQuantizerTagOffset),
              4 * floats);
  std::shared_ptr<AnnIndex> out(new AnnIndex());
  out->dim_ = dim;
  out->probes_for_recall_ = format != kFormatUncalibrated ? LoadLe<uint32_t>(head, 32) : 0;
  out->impl_ = std::make_unique<AnnIndex::Impl>();
  if (format == kFormatCodes) out->impl_->codes = std::move(codes);
  try {
    out->impl_->index = EmptyOver(dim, lists, centroids.data());
  } catch (const std::exception& e) {
    return Internal(std::string("vector index centroids: ") + e.what());
  }
  return std::shared_ptr<const AnnIndex>(std::move(out));
}

Result<std::shared_ptr<const AnnIndex>> ReadAnnIndex(const TableVersion& version,
                                                     uint32_t field_id) {
  const std::string kind = AnnKind(field_id);
  Result<std::vector<DerivedLink>> chain = version.ReadDerivedChain(kind);
  if (!chain.ok()) {
    if (chain.status().code() == Code::kNotFound) return std::shared_ptr<const AnnIndex>();
    return chain.status();
  }
  auto name = [&](size_t link) {
    return DerivedName((*chain)[link].manifest->table(), (*chain)[link].manifest->staged_version,
                       kind);
  };
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const AnnIndex> index,
                             AnnIndex::Decode((*chain)[0].payload.view(), name(0)));
  for (size_t link = 1; link < chain->size(); ++link) {
    OMNIGRAPH_ASSIGN_OR_RETURN(AnnDelta delta,
                               DecodeAnnDelta((*chain)[link].payload.view(), name(link)));
    OMNIGRAPH_ASSIGN_OR_RETURN(index, index->Apply(delta, name(link)));
  }
  if (index->rows() != version.entity_count()) {
    return Corruption("vector index " + name(chain->size() - 1) + " numbers " +
                          std::to_string(index->rows()) + " rows; the version has " +
                          std::to_string(version.entity_count()),
                      name(chain->size() - 1));
  }
  return index;
}

Status EnsureAnnIndexes(const TableVersion& version, const AnnBuildOptions& options) {
  if (version.entity_count() < options.rows_min) return Status::Ok();
  for (const Field& f : version.schema()) {
    if (f.type.id != TypeId::kVector) continue;
    const std::string kind = AnnKind(f.id);
    // A full index or a chain of deltas that reads is kept; a damaged one is replaced, also when
    // its damage is inside a payload whose envelope decodes (which WriteDerived would keep).
    Result<std::shared_ptr<const AnnIndex>> existing = ReadAnnIndex(version, f.id);
    if (existing.ok() && *existing != nullptr) continue;
    OMNIGRAPH_ASSIGN_OR_RETURN(std::string payload, BuildAnnPayload(version, f.id, options));
    if (payload.empty()) continue;
    if (!existing.ok() && existing.status().code() == Code::kCorruption) {
      OMNIGRAPH_RETURN_IF_ERROR(
          version.context().ReplaceDerived(version.manifest(), kind, std::move(payload)));
      continue;
    }
    OMNIGRAPH_RETURN_IF_ERROR(version.WriteDerived(kind, payload));
  }
  return Status::Ok();
}

}  // namespace omnigraph::table
