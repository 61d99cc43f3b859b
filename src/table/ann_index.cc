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
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "table/derived.h"
#include "table/le_bytes.h"

namespace omnigraph::table {

namespace {

using Idx = faiss::Index::idx_t;

constexpr char kMagic[4] = {'O', 'G', 'A', 'N'};
constexpr uint32_t kFormat = 1;
constexpr uint64_t kPayloadHeaderBytes = 32;
constexpr uint64_t kBuildBatchRows = 65536;
constexpr int kMaxPointsPerList = 64;

// faiss parallelizes with OpenMP. A build and a search run on the calling thread alone: the
// Runtime owns the process's threads, and a single-threaded k-means is a function of its input.
// The OpenMP thread count is a per-thread setting, so this changes nothing for other threads.
class SingleThreaded {
 public:
  SingleThreaded() : saved_(omp_get_max_threads()) { omp_set_num_threads(1); }
  ~SingleThreaded() { omp_set_num_threads(saved_); }
  SingleThreaded(const SingleThreaded&) = delete;
  SingleThreaded& operator=(const SingleThreaded&) = delete;

 private:
  int saved_;
};

// Reads faiss's serialized bytes in place from the payload.
// faiss's index header holds this constant where it once had counts (write_index_header).
constexpr uint64_t kFaissHeaderDummy = uint64_t{1} << 20;

struct ViewReader : faiss::IOReader {
  explicit ViewReader(std::string_view bytes) : data(bytes) {}
  size_t operator()(void* ptr, size_t size, size_t nitems) override {
    if (size == 0) return 0;
    const size_t n = std::min(nitems, (data.size() - at) / size);
    if (n == 0) return 0;  // faiss passes a null pointer for an empty vector.
    // faiss reads a vector as its 8-byte length and then allocates that many elements before
    // reading them: a damaged length would allocate without bound (up to 2^40 elements). Every
    // count in a well-formed index is at most the bytes that follow it, so a single 8-byte value
    // above that (but the header's constant) is refused as a short read: faiss throws, and
    // Decode answers Corruption (fuzz/regressions/ann).
    if (size == 8 && nitems == 1) {
      uint64_t value = 0;
      std::memcpy(&value, data.data() + at, 8);
      if (value > data.size() - at - 8 && value != kFaissHeaderDummy) return 0;
    }
    std::memcpy(ptr, data.data() + at, n * size);
    at += n * size;
    return n;
  }
  std::string_view data;
  size_t at = 0;
};

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

void Normalize(std::span<const float> v, float* out) {
  double norm = 0;
  for (float x : v) norm += static_cast<double>(x) * x;
  const double scale = norm > 0 ? 1.0 / std::sqrt(norm) : 0.0;
  for (size_t i = 0; i < v.size(); ++i) out[i] = static_cast<float>(v[i] * scale);
}

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
          v.data.resize(v.data.size() + v.dim);
          Normalize(c.VectorAt(i), v.data.data() + v.data.size() - v.dim);
          v.ids.push_back(static_cast<Idx>(v.rows));
        }
        return Status::Ok();
      }));
  return v;
}

uint32_t ChooseLists(uint64_t n, uint32_t requested) {
  if (requested != 0) return std::min<uint64_t>(requested, std::max<uint64_t>(1, n));
  const uint64_t by_sqrt = static_cast<uint64_t>(4 * std::sqrt(static_cast<double>(n)));
  return static_cast<uint32_t>(
      std::max<uint64_t>(1, std::min<uint64_t>({by_sqrt, n / kAnnTrainPerList, kAnnListsMax})));
}

}  // namespace

struct AnnIndex::Impl {
  std::unique_ptr<faiss::IndexIVF> index;
};

AnnIndex::~AnnIndex() = default;

std::string AnnKind(uint32_t field_id) { return "ann." + std::to_string(field_id); }

Result<std::string> BuildAnnPayload(const TableVersion& version, uint32_t field_id,
                                    const AnnBuildOptions& options) {
  OMNIGRAPH_ASSIGN_OR_RETURN(Vectors v, ReadVectors(version, field_id));
  const uint64_t n = v.ids.size();
  if (n == 0 || n < options.rows_min) return std::string();
  const uint32_t lists = ChooseLists(n, options.lists);
  std::string payload;
  try {
    SingleThreaded single;
    faiss::IndexFlatIP quantizer(v.dim);
    faiss::IndexIVFFlat index(&quantizer, v.dim, lists, faiss::METRIC_INNER_PRODUCT);
    index.cp.niter = kAnnTrainIterations;
    index.cp.seed = kAnnTrainSeed;
    index.cp.spherical = true;
    index.cp.max_points_per_centroid = kMaxPointsPerList;
    index.verbose = false;
    index.train(static_cast<Idx>(n), v.data.data());
    index.add_with_ids(static_cast<Idx>(n), v.data.data(), v.ids.data());
    StringWriter writer;
    faiss::write_index(&index, &writer);
    payload.reserve(kPayloadHeaderBytes + writer.out.size());
    payload.append(kMagic, 4);
    AppendLe<uint32_t>(payload, kFormat);
    AppendLe<uint32_t>(payload, v.dim);
    AppendLe<uint32_t>(payload, lists);
    AppendLe<uint64_t>(payload, v.rows);
    AppendLe<uint64_t>(payload, n);
    payload += writer.out;
  } catch (const std::exception& e) {
    return Internal("building the vector index of field " + std::to_string(field_id) + " of " +
                    version.manifest_name() + ": " + e.what());
  }
  return payload;
}

Result<std::shared_ptr<const AnnIndex>> AnnIndex::Decode(std::string_view payload,
                                                         const std::string& name) {
  if (payload.size() < kPayloadHeaderBytes || std::memcmp(payload.data(), kMagic, 4) != 0 ||
      LoadLe<uint32_t>(payload, 4) != kFormat) {
    return Corruption("vector index " + name + " has no OGAN format-1 header", name);
  }
  std::shared_ptr<AnnIndex> out(new AnnIndex());
  out->dim_ = LoadLe<uint32_t>(payload, 8);
  out->rows_ = LoadLe<uint64_t>(payload, 16);
  const uint64_t indexed = LoadLe<uint64_t>(payload, 24);
  out->impl_ = std::make_unique<Impl>();
  try {
    ViewReader reader(payload.substr(kPayloadHeaderBytes));
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
  std::vector<float> q(dim_);
  Normalize(query, q.data());
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

Result<std::shared_ptr<const AnnIndex>> ReadAnnIndex(const TableVersion& version,
                                                     uint32_t field_id) {
  const std::string kind = AnnKind(field_id);
  Result<std::shared_ptr<const std::string>> payload = version.ReadDerived(kind);
  if (!payload.ok()) {
    if (payload.status().code() == Code::kNotFound) return std::shared_ptr<const AnnIndex>();
    return payload.status();
  }
  return AnnIndex::Decode(**payload,
                          DerivedName(version.table(), version.manifest().staged_version, kind));
}

Status EnsureAnnIndexes(const TableVersion& version, const AnnBuildOptions& options) {
  if (version.entity_count() < options.rows_min) return Status::Ok();
  for (const Field& f : version.schema()) {
    if (f.type.id != TypeId::kVector) continue;
    const std::string kind = AnnKind(f.id);
    Result<std::shared_ptr<const std::string>> existing = version.ReadDerived(kind);
    if (existing.ok()) continue;
    OMNIGRAPH_ASSIGN_OR_RETURN(std::string payload, BuildAnnPayload(version, f.id, options));
    if (payload.empty()) continue;
    OMNIGRAPH_RETURN_IF_ERROR(version.WriteDerived(kind, payload));
  }
  return Status::Ok();
}

}  // namespace omnigraph::table
