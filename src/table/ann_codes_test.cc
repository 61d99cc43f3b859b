// The vector index's quantized codes (decision 224): stored where the lists would not pay
// (uniform data) and not on clustered data; their scan, re-ranked exactly, is exact when it keeps
// every row and finds the exact ten among a few hundred candidates; builds and scans give the same
// bytes and rows on one thread and on two; the SIMD kernels equal the portable one; damaged codes
// are Corruption naming the object, and a format-4 payload is never read as format 3.
#include "table/ann_codes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <set>

#include "base/random.h"
#include "storage/memory_store.h"
#include "table/ann_index.h"
#include "table/column_builder.h"
#include "table/derived.h"
#include "table/table_store.h"

namespace omnigraph::table {
namespace {

constexpr uint32_t kVecField = 7;
constexpr uint32_t kDim = 72;  // Four AVX2 steps or two AVX-512 steps, and a tail of 8.
// Enough rows for a scan to divide them into two ranges (kAnnCodesRangeRowsMin).
constexpr uint64_t kRows = 9000;
constexpr uint64_t kNullEvery = 40;

std::vector<float> UniformVector(Random& random) {
  std::vector<float> v(kDim);
  for (float& x : v) x = static_cast<float>(random.NextDouble() * 2 - 1);
  return v;
}

double SquaredL2(const std::vector<float>& a, std::span<const float> b) {
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double d = static_cast<double>(a[i]) - b[i];
    sum += d * d;
  }
  return sum;
}

class AnnCodesTest : public ::testing::Test {
 protected:
  AnnCodesTest() {
    memory_ = std::make_shared<storage::MemoryStore>("c");
    inline_ =
        std::make_unique<TableStore>(storage::Runtime::ForTest(memory_, 5), TableStoreOptions{});
    storage::Runtime pooled = storage::Runtime::ForTest(memory_, 5);
    pooled.executor = std::make_shared<ThreadPool>(2);
    pooled_ = std::make_unique<TableStore>(pooled, TableStoreOptions{});
    Random random(31);
    for (uint64_t i = 0; i < kRows; ++i) vectors_.push_back(UniformVector(random));
    const Schema schema = {{kIdFieldId, "id", DataType::Scalar(TypeId::kString), false},
                           {kVecField, "v", DataType::Vector(kDim), true}};
    ColumnBuilder ids(schema[0].type, false), vecs(schema[1].type, true);
    for (uint64_t i = 0; i < kRows; ++i) {
      ids.AppendString("u" + std::to_string(100000 + i));
      if (i % kNullEvery == 5) {
        vecs.AppendNull();
      } else {
        vecs.AppendVector(vectors_[i]);
      }
    }
    std::vector<Column> columns;
    columns.push_back(*ids.Finish());
    columns.push_back(*vecs.Finish());
    Result<TablePin> pin =
        inline_->Create(NewTable{TableId{0x61, 0x1}, "Uniform", schema},
                        ColumnBatch(schema, std::move(columns), kRows), std::nullopt);
    OMNIGRAPH_CHECK(pin.ok());
    pin_ = *pin;
  }

  std::string Payload(TableStore& tables, AnnCodesChoice codes = AnnCodesChoice::kAuto) {
    AnnBuildOptions options;
    options.codes = codes;
    Result<std::string> payload = BuildAnnPayload(**tables.Open(pin_), kVecField, options);
    OMNIGRAPH_CHECK(payload.ok());
    return *payload;
  }

  // The k nearest non-null rows to `q` by brute force, each with its distance.
  std::vector<std::pair<double, uint32_t>> Exact(std::span<const float> q, uint64_t k) {
    std::vector<std::pair<double, uint32_t>> all;
    for (uint32_t i = 0; i < kRows; ++i) {
      if (i % kNullEvery != 5) all.emplace_back(SquaredL2(vectors_[i], q), i);
    }
    std::sort(all.begin(), all.end());
    all.resize(std::min<uint64_t>(k, all.size()));
    return all;
  }

  // `candidates` measured exactly, the k nearest.
  std::vector<std::pair<double, uint32_t>> Rerank(std::span<const float> q,
                                                  const std::vector<uint32_t>& candidates,
                                                  uint64_t k) {
    std::vector<std::pair<double, uint32_t>> all;
    for (uint32_t r : candidates) all.emplace_back(SquaredL2(vectors_[r], q), r);
    std::sort(all.begin(), all.end());
    all.resize(std::min<uint64_t>(k, all.size()));
    return all;
  }

  std::shared_ptr<storage::MemoryStore> memory_;
  std::unique_ptr<TableStore> inline_, pooled_;
  std::vector<std::vector<float>> vectors_;
  TablePin pin_;
};

TEST_F(AnnCodesTest, UniformDataStoresCodesAndTheirScanFindsTheExactNearest) {
  std::shared_ptr<const AnnIndex> index = *AnnIndex::Decode(Payload(*inline_), "u");
  ASSERT_TRUE(index->has_codes());
  EXPECT_GE(uint64_t{index->probes_for_recall()} * kAnnCodesListShareInverse, index->lists());
  InlineExecutor one;
  Random random(5);
  for (int q = 0; q < 20; ++q) {
    const std::vector<float> query = UniformVector(random);
    // Every row kept: the re-rank is the exact answer.
    Result<std::vector<uint32_t>> all = index->SearchCodes(query, kRows, one);
    ASSERT_TRUE(all.ok()) << all.status().ToString();
    EXPECT_EQ(all->size(), index->indexed());
    EXPECT_EQ(Rerank(query, *all, 10), Exact(query, 10));
    // A few hundred candidates hold the exact ten on this data.
    Result<std::vector<uint32_t>> few = index->SearchCodes(query, 200, one);
    ASSERT_TRUE(few.ok());
    EXPECT_EQ(few->size(), 200u);
    EXPECT_EQ(Rerank(query, *few, 10), Exact(query, 10)) << q;
  }
  EXPECT_EQ(index->SearchCodes(std::vector<float>(3), 10, one).status().code(),
            Code::kInvalidArgument);
}

TEST_F(AnnCodesTest, ClusteredDataStoresNoCodesUnlessAsked) {
  // Vectors on 20 points: the lists pay, and the build stores no codes.
  const Schema schema = {{kIdFieldId, "id", DataType::Scalar(TypeId::kString), false},
                         {kVecField, "v", DataType::Vector(kDim), true}};
  ColumnBuilder ids(schema[0].type, false), vecs(schema[1].type, true);
  Random random(8);
  std::vector<std::vector<float>> centres;
  for (int c = 0; c < 20; ++c) centres.push_back(UniformVector(random));
  for (uint64_t i = 0; i < 5000; ++i) {
    ids.AppendString("c" + std::to_string(100000 + i));
    std::vector<float> v = centres[random.Uniform(centres.size())];
    for (float& x : v) x += static_cast<float>((random.NextDouble() - 0.5) * 0.05);
    vecs.AppendVector(v);
  }
  std::vector<Column> columns;
  columns.push_back(*ids.Finish());
  columns.push_back(*vecs.Finish());
  Result<TablePin> pin =
      inline_->Create(NewTable{TableId{0x62, 0x1}, "Clustered", schema},
                      ColumnBatch(schema, std::move(columns), 5000), std::nullopt);
  ASSERT_TRUE(pin.ok());
  std::shared_ptr<const TableVersion> clustered = *inline_->Open(*pin);
  Result<std::string> payload = BuildAnnPayload(*clustered, kVecField);
  ASSERT_TRUE(payload.ok());
  EXPECT_EQ(payload->compare(0, 8, std::string("OGAN\3\0\0\0", 8)), 0);
  EXPECT_FALSE((*AnnIndex::Decode(*payload, "c"))->has_codes());
  AnnBuildOptions always;
  always.codes = AnnCodesChoice::kAlways;
  payload = BuildAnnPayload(*clustered, kVecField, always);
  ASSERT_TRUE(payload.ok());
  EXPECT_EQ(payload->compare(0, 8, std::string("OGAN\4\0\0\0", 8)), 0);
  std::shared_ptr<const AnnIndex> coded = *AnnIndex::Decode(*payload, "c");
  EXPECT_TRUE(coded->has_codes());
  EXPECT_EQ(*coded->Encode(), *payload);
  EXPECT_FALSE((*AnnIndex::Decode(Payload(*inline_, AnnCodesChoice::kNever), "u"))->has_codes());
}

// The codes are computed over fixed ranges of rows and scanned over ranges per thread; neither
// the payload nor a scan's rows depend on how many threads there are.
TEST_F(AnnCodesTest, OneAndTwoThreadsGiveTheSameBytesAndRows) {
  const std::string one = Payload(*inline_), two = Payload(*pooled_);
  EXPECT_EQ(one, two);
  std::shared_ptr<const AnnIndex> index = *AnnIndex::Decode(one, "u");
  InlineExecutor inline_executor;
  ThreadPool pool(2);
  Random random(6);
  for (int q = 0; q < 10; ++q) {
    const std::vector<float> query = UniformVector(random);
    for (uint64_t r : {1, 10, 77, 1000}) {
      EXPECT_EQ(*index->SearchCodes(query, r, inline_executor),
                *index->SearchCodes(query, r, pool));
    }
  }
}

TEST(AnnCodeKernelsTest, EveryKernelTheCpuHasEqualsThePortableOne) {
  Random random(9);
  for (uint32_t dim : {1u, 7u, 16u, 31u, 32u, 48u, 100u, 768u, kAnnCodesDimMax}) {
    const uint64_t n = 5;
    std::vector<uint8_t> codes(n * dim);
    std::vector<int16_t> query(dim);
    for (uint8_t& c : codes) c = static_cast<uint8_t>(random.Uniform(kAnnCodeMax + 1));
    for (int16_t& x : query) {
      x = static_cast<int16_t>(kAnnCodeQueryMin + static_cast<int32_t>(random.Uniform(
                                                      kAnnCodeQueryMax - kAnnCodeQueryMin + 1)));
    }
    // The extremes: the largest sums the scan can meet.
    std::fill(codes.begin(), codes.begin() + dim, static_cast<uint8_t>(kAnnCodeMax));
    std::fill(query.begin(), query.begin() + dim / 2, static_cast<int16_t>(kAnnCodeQueryMax));
    std::vector<int32_t> portable(n), other(n);
    ASSERT_TRUE(AnnCodeDots("portable", codes.data(), query.data(), dim, n, portable.data()));
    int64_t first = 0;
    for (uint32_t j = 0; j < dim; ++j) first += int64_t{codes[j]} * query[j];
    EXPECT_EQ(portable[0], first) << dim;
    for (const char* kernel : {"avx2", "avx512"}) {
      if (!AnnCodeDots(kernel, codes.data(), query.data(), dim, n, other.data())) continue;
      EXPECT_EQ(other, portable) << kernel << " " << dim;
    }
  }
  int32_t out = 0;
  EXPECT_FALSE(AnnCodeDots("sse9", nullptr, nullptr, 0, 0, &out));
}

TEST_F(AnnCodesTest, DamagedCodesAreCorruptionNamingTheObject) {
  const std::string payload = Payload(*inline_);
  ASSERT_EQ(payload.compare(0, 8, std::string("OGAN\4\0\0\0", 8)), 0);
  const uint64_t indexed = kRows - kRows / kNullEvery;
  const size_t rows_at = payload.size() - indexed * (4 + kDim);
  auto expect_corrupt = [](const std::string& bad, const char* what) {
    Result<std::shared_ptr<const AnnIndex>> index = AnnIndex::Decode(bad, "obj/codes");
    ASSERT_FALSE(index.ok()) << what;
    EXPECT_EQ(index.status().code(), Code::kCorruption) << what;
    EXPECT_EQ(index.status().object(), "obj/codes") << what;
  };
  std::string bad = payload;
  std::memcpy(bad.data() + rows_at + 4, bad.data() + rows_at, 4);  // Two rows numbered alike.
  expect_corrupt(bad, "rows out of order");
  bad = payload;
  const uint32_t beyond = kRows;
  std::memcpy(bad.data() + payload.size() - indexed * kDim - 4, &beyond, 4);
  expect_corrupt(bad, "a row beyond the version");
  expect_corrupt(payload.substr(0, payload.size() - 1), "a code short");
  expect_corrupt(payload + "x", "a trailing byte");
  bad = payload;
  const float zero = 0;
  std::memcpy(bad.data() + 48, &zero, 4);
  expect_corrupt(bad, "a zero scale");
  bad = payload;
  const uint64_t faiss_bytes = uint64_t{1} << 60;
  std::memcpy(bad.data() + 40, &faiss_bytes, 8);
  expect_corrupt(bad, "a faiss part longer than the payload");
  // A reader of format 3 would see the grid where faiss's bytes start: read as 3, it is refused.
  bad = payload;
  bad[4] = 3;
  expect_corrupt(bad, "format 4 read as 3");
  // Stored as the version's object (its envelope sound), it reads as Corruption naming it.
  std::shared_ptr<const TableVersion> version = *inline_->Open(pin_);
  bad = payload;
  std::memcpy(bad.data() + rows_at + 4, bad.data() + rows_at, 4);
  ASSERT_TRUE(version->WriteDerived(AnnKind(kVecField), bad).ok());
  const std::string name =
      DerivedName(version->table(), version->manifest().staged_version, AnnKind(kVecField));
  Result<std::shared_ptr<const AnnIndex>> read = ReadAnnIndex(*version, kVecField);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), Code::kCorruption);
  EXPECT_EQ(read.status().object(), name);
}

}  // namespace
}  // namespace omnigraph::table
