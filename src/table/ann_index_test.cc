// The ANN index: built from a version's vectors in id order, it answers dense indices; probing
// every list is exact; a selector restricts it to allowed rows; builds are deterministic; the
// derived object is written once, read cold, and damage is Corruption.
#include "table/ann_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <set>

#include "base/random.h"
#include "storage/counting_store.h"
#include "storage/memory_store.h"
#include "table/column_builder.h"
#include "table/derived.h"
#include "table/table_store.h"

namespace omnigraph::table {
namespace {

constexpr uint32_t kVecField = 7;
constexpr uint32_t kDim = 8;
constexpr uint64_t kRows = 6000;
constexpr uint64_t kNullEvery = 50;
constexpr uint32_t kWide = 64;  // The uniform data's dimension.

// Vectors around 40 random centres, so that the lists mean something.
std::vector<std::vector<float>> MakeVectors(uint64_t n, Random& random) {
  std::vector<std::vector<float>> centres(40, std::vector<float>(kDim));
  for (auto& c : centres) {
    for (float& x : c) x = static_cast<float>(random.NextDouble() * 2 - 1);
  }
  std::vector<std::vector<float>> out(n, std::vector<float>(kDim));
  for (auto& v : out) {
    const auto& c = centres[random.Uniform(centres.size())];
    for (uint32_t d = 0; d < kDim; ++d) {
      v[d] = c[d] + static_cast<float>((random.NextDouble() - 0.5) * 0.3);
    }
  }
  return out;
}

// The reference's `_distance`: the squared Euclidean distance, as Float32.
double SquaredL2(const std::vector<float>& a, std::span<const float> b) {
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double d = static_cast<double>(a[i]) - b[i];
    sum += d * d;
  }
  return static_cast<float>(sum);
}

class AnnIndexTest : public ::testing::Test {
 protected:
  AnnIndexTest() {
    memory_ = std::make_shared<storage::MemoryStore>("a");
    counting_ = std::make_shared<storage::CountingStore>(memory_);
    runtime_ = storage::Runtime::ForTest(counting_, 3);
    tables_ = std::make_unique<TableStore>(runtime_, TableStoreOptions{});
    Random random(17);
    vectors_ = MakeVectors(kRows, random);
    version_ = Make(TableId{0x31, 0x1}, kRows);
  }

  std::shared_ptr<const TableVersion> Make(TableId id, uint64_t rows) {
    const Schema schema = {{kIdFieldId, "id", DataType::Scalar(TypeId::kString), false},
                           {kVecField, "v", DataType::Vector(kDim), true},
                           {8, "n", DataType::Scalar(TypeId::kI64), false}};
    ColumnBuilder ids(schema[0].type, false), vecs(schema[1].type, true), ns(schema[2].type, false);
    for (uint64_t i = 0; i < rows; ++i) {
      std::string key = std::to_string(i);
      ids.AppendString("r" + std::string(6 - std::min<size_t>(6, key.size()), '0') + key);
      if (i % kNullEvery == 3) {
        vecs.AppendNull();
      } else {
        vecs.AppendVector(vectors_[i]);
      }
      ns.Append<int64_t>(static_cast<int64_t>(i));
    }
    std::vector<Column> columns;
    columns.push_back(*ids.Finish());
    columns.push_back(*vecs.Finish());
    columns.push_back(*ns.Finish());
    Result<TablePin> pin = tables_->Create(
        NewTable{id, "Chunk", schema}, ColumnBatch(schema, std::move(columns), rows), std::nullopt);
    OMNIGRAPH_CHECK(pin.ok());
    return *tables_->Open(*pin);
  }

  // The k nearest non-null rows to `q` among `allowed` (empty = all), by brute force.
  std::vector<uint32_t> Exact(std::span<const float> q, uint64_t k,
                              const std::vector<bool>& allowed) {
    std::vector<std::pair<double, uint32_t>> all;
    for (uint32_t i = 0; i < kRows; ++i) {
      if (i % kNullEvery == 3 || (!allowed.empty() && !allowed[i])) continue;
      all.emplace_back(SquaredL2(vectors_[i], q), i);
    }
    std::sort(all.begin(), all.end());
    std::vector<uint32_t> out;
    for (size_t i = 0; i < k && i < all.size(); ++i) out.push_back(all[i].second);
    return out;
  }

  // kRows uniform random vectors of kWide dimensions, none null, in `tables`.
  std::shared_ptr<const TableVersion> MakeUniform(TableStore& tables) {
    const Schema schema = {{kIdFieldId, "id", DataType::Scalar(TypeId::kString), false},
                           {kVecField, "v", DataType::Vector(kWide), true}};
    ColumnBuilder ids(schema[0].type, false), vecs(schema[1].type, true);
    Random random(23);
    for (uint64_t i = 0; i < kRows; ++i) {
      ids.AppendString("u" + std::to_string(100000 + i));
      std::vector<float> v(kWide);
      for (float& x : v) x = static_cast<float>(random.NextDouble() * 2 - 1);
      vecs.AppendVector(v);
    }
    std::vector<Column> columns;
    columns.push_back(*ids.Finish());
    columns.push_back(*vecs.Finish());
    Result<TablePin> pin =
        tables.Create(NewTable{TableId{0x34, 0x1}, "Uniform", schema},
                      ColumnBatch(schema, std::move(columns), kRows), std::nullopt);
    OMNIGRAPH_CHECK(pin.ok());
    return *tables.Open(*pin);
  }

  std::shared_ptr<const AnnIndex> Built(const AnnBuildOptions& options = {}) {
    Result<std::string> payload = BuildAnnPayload(*version_, kVecField, options);
    OMNIGRAPH_CHECK(payload.ok());
    Result<std::shared_ptr<const AnnIndex>> index = AnnIndex::Decode(*payload, "test");
    OMNIGRAPH_CHECK(index.ok());
    return *index;
  }

  std::shared_ptr<storage::MemoryStore> memory_;
  std::shared_ptr<storage::CountingStore> counting_;
  storage::Runtime runtime_;
  std::unique_ptr<TableStore> tables_;
  std::vector<std::vector<float>> vectors_;
  std::shared_ptr<const TableVersion> version_;
};

TEST_F(AnnIndexTest, ProbingEveryListIsExactAndFewListsHaveHighRecall) {
  std::shared_ptr<const AnnIndex> index = Built();
  EXPECT_EQ(index->dim(), kDim);
  EXPECT_EQ(index->rows(), kRows);
  EXPECT_EQ(index->indexed(), kRows - kRows / kNullEvery);
  // 4·sqrt(n) lists, but at least kAnnTrainPerList training vectors per list.
  EXPECT_EQ(index->lists(), index->indexed() / kAnnTrainPerList);
  Random random(5);
  std::vector<std::vector<float>> queries = MakeVectors(30, random);
  size_t found = 0;
  for (const auto& q : queries) {
    const std::vector<uint32_t> exact = Exact(q, 10, {});
    Result<std::vector<uint32_t>> all = index->Search(q, 10, {}, index->lists());
    ASSERT_TRUE(all.ok()) << all.status().ToString();
    EXPECT_EQ(*all, exact);
    Result<std::vector<uint32_t>> some = index->Search(q, 10, {}, 16);
    ASSERT_TRUE(some.ok());
    std::set<uint32_t> truth(exact.begin(), exact.end());
    for (uint32_t r : *some) found += truth.count(r);
  }
  EXPECT_GE(static_cast<double>(found) / (10.0 * queries.size()), 0.9);
}

TEST_F(AnnIndexTest, TheSelectorAdmitsOnlyAllowedRows) {
  std::shared_ptr<const AnnIndex> index = Built();
  std::vector<bool> allowed(kRows);
  for (uint32_t i = 0; i < kRows; i += 10) allowed[i] = true;
  Random random(6);
  for (const auto& q : MakeVectors(10, random)) {
    Result<std::vector<uint32_t>> all = index->Search(q, 10, allowed, index->lists());
    ASSERT_TRUE(all.ok());
    EXPECT_EQ(*all, Exact(q, 10, allowed));
    Result<std::vector<uint32_t>> some = index->Search(q, 10, allowed, 2);
    ASSERT_TRUE(some.ok());
    for (uint32_t r : *some) EXPECT_TRUE(allowed[r]) << r;
  }
  // More than the allowed rows: every one of them, no more.
  std::vector<bool> three(kRows);
  three[10] = three[20] = three[3] = true;  // Row 3 has no vector.
  Result<std::vector<uint32_t>> few = index->Search(vectors_[0], 10, three, index->lists());
  ASSERT_TRUE(few.ok());
  EXPECT_EQ(std::set<uint32_t>(few->begin(), few->end()), (std::set<uint32_t>{10, 20}));
  EXPECT_EQ(index->Search(std::vector<float>(3), 1, {}, 1).status().code(), Code::kInvalidArgument);
}

TEST_F(AnnIndexTest, BuildsAreDeterministic) {
  Result<std::string> a = BuildAnnPayload(*version_, kVecField);
  Result<std::string> b = BuildAnnPayload(*version_, kVecField);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, *b);
  EXPECT_EQ(BuildAnnPayload(*version_, 8).status().code(), Code::kInvalidArgument);
  AnnBuildOptions big;
  big.rows_min = kRows;  // More than the non-null vectors.
  Result<std::string> none = BuildAnnPayload(*version_, kVecField, big);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST_F(AnnIndexTest, EnsureWritesTheDerivedObjectOnceAndAColdReadFindsIt) {
  Result<std::shared_ptr<const AnnIndex>> absent = ReadAnnIndex(*version_, kVecField);
  ASSERT_TRUE(absent.ok());
  EXPECT_EQ(*absent, nullptr);
  ASSERT_TRUE(EnsureAnnIndexes(*version_).ok());
  const std::string name =
      DerivedName(version_->table(), version_->manifest().staged_version, AnnKind(kVecField));
  EXPECT_EQ(AnnKind(kVecField), "annl2.7");
  EXPECT_TRUE(memory_->Head(name).ok());
  counting_->Reset();
  ASSERT_TRUE(EnsureAnnIndexes(*version_).ok());  // Present: nothing is built or written.
  EXPECT_EQ(counting_->Snapshot().writes(), 0u);
  TableStore fresh(runtime_, TableStoreOptions{});
  std::shared_ptr<const TableVersion> cold = *fresh.Open(version_->pin());
  Result<std::shared_ptr<const AnnIndex>> read = ReadAnnIndex(*cold, kVecField);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ASSERT_NE(*read, nullptr);
  EXPECT_EQ((*read)->indexed(), kRows - kRows / kNullEvery);
  // A small version gets no index.
  std::shared_ptr<const TableVersion> small = Make(TableId{0x32, 0x1}, 100);
  ASSERT_TRUE(EnsureAnnIndexes(*small).ok());
  EXPECT_EQ(*ReadAnnIndex(*small, kVecField), nullptr);
}

// faiss resizes each inverted list to the size it reads: a damaged size is refused before faiss
// reads it (fuzz/regressions/ann), as Corruption naming the object, whether it asks for more
// than the payload holds or just disagrees with the bytes that follow.
TEST_F(AnnIndexTest, ADamagedInvertedListSizeIsCorruptionBeforeFaissAllocatesIt) {
  Result<std::string> payload = BuildAnnPayload(*version_, kVecField);
  ASSERT_TRUE(payload.ok());
  const size_t lists = payload->find("ilar");
  ASSERT_NE(lists, std::string::npos);
  // "ilar", nlist, code size, "full" (most lists are not empty), the count, then the sizes.
  ASSERT_EQ(payload->compare(lists + 20, 4, "full"), 0);
  const size_t first = lists + 32;
  uint64_t size = 0;
  std::memcpy(&size, payload->data() + first, 8);
  for (uint64_t damaged : {uint64_t{1} << 62, size + 1, size == 0 ? 1 : size - 1}) {
    std::string bad = *payload;
    std::memcpy(bad.data() + first, &damaged, 8);
    Result<std::shared_ptr<const AnnIndex>> index = AnnIndex::Decode(bad, "obj/lists");
    ASSERT_FALSE(index.ok()) << damaged;
    EXPECT_EQ(index.status().code(), Code::kCorruption) << index.status().ToString();
    EXPECT_EQ(index.status().object(), "obj/lists");
  }
  // A trailing byte, and an index one byte short, are not an index either.
  EXPECT_EQ(AnnIndex::Decode(*payload + "x", "o").status().code(), Code::kCorruption);
  EXPECT_EQ(AnnIndex::Decode(payload->substr(0, payload->size() - 1), "o").status().code(),
            Code::kCorruption);
}

// A full index damaged inside its payload, under an envelope whose checksums were computed over
// the damage (a writer's defect, or anyone who can write the store), decodes as an envelope and
// fails as an index. The reader's Corruption names it, and EnsureAnnIndexes puts a full rebuild
// over it: the ordinary write keeps an object whose envelope decodes, which would keep this one.
TEST_F(AnnIndexTest, APayloadDamagedUnderAnIntactEnvelopeIsReplacedByEnsure) {
  ASSERT_TRUE(EnsureAnnIndexes(*version_).ok());
  const std::string kind = AnnKind(kVecField);
  const std::string name =
      DerivedName(version_->table(), version_->manifest().staged_version, kind);
  std::string bad = *BuildAnnPayload(*version_, kVecField);
  const size_t lists = bad.find("ilar");
  ASSERT_NE(lists, std::string::npos);
  bad[lists + 32] ^= 0x01;  // The first list's size: no longer what its bytes hold.
  ASSERT_TRUE(memory_->Put(name, EncodeDerived(version_->manifest(), kind, bad, nullptr)).ok());
  auto cold = [&] {
    TableStore fresh(runtime_, TableStoreOptions{});
    return *fresh.Open(version_->pin());
  };
  Result<std::shared_ptr<const AnnIndex>> read = ReadAnnIndex(*cold(), kVecField);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), Code::kCorruption);
  EXPECT_EQ(read.status().object(), name);
  ASSERT_TRUE(EnsureAnnIndexes(*cold()).ok());
  read = ReadAnnIndex(*cold(), kVecField);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ASSERT_NE(*read, nullptr);
  EXPECT_EQ((*read)->indexed(), kRows - kRows / kNullEvery);
  EXPECT_EQ(
      memory_->Get(name)->data,
      EncodeDerived(version_->manifest(), kind, *BuildAnnPayload(*version_, kVecField), nullptr));
}

// As many lists as vectors: most lists hold one vector, whose id is larger than the bytes after
// it (the last one's, than none). Such an index decodes, and probing every list finds each
// vector nearest itself.
TEST_F(AnnIndexTest, ListsOfOneVectorDecode) {
  std::shared_ptr<const TableVersion> small = Make(TableId{0x33, 0x1}, 40);
  AnnBuildOptions options;
  options.rows_min = 1;
  options.lists = 39;  // Row 3 has no vector.
  Result<std::string> payload = BuildAnnPayload(*small, kVecField, options);
  ASSERT_TRUE(payload.ok());
  Result<std::shared_ptr<const AnnIndex>> index = AnnIndex::Decode(*payload, "obj/small");
  ASSERT_TRUE(index.ok()) << index.status().ToString();
  EXPECT_EQ((*index)->indexed(), 39u);
  for (uint32_t row = 0; row < 40; ++row) {
    if (row == 3) continue;
    Result<std::vector<uint32_t>> near = (*index)->Search(vectors_[row], 1, {}, 39);
    ASSERT_TRUE(near.ok());
    EXPECT_EQ(*near, std::vector<uint32_t>{row});
  }
}

TEST(AnnIndexDecodeTest, DamageIsCorruptionNamingTheObject) {
  Result<std::shared_ptr<const AnnIndex>> bad = AnnIndex::Decode("not an index", "obj/x");
  EXPECT_EQ(bad.status().kind(), Kind::kPermanent);
  EXPECT_NE(bad.status().message().find("obj/x"), std::string::npos);
  std::string header("OGAN\1\0\0\0", 8);
  header.append(24, '\0');
  header += "garbage faiss bytes";
  bad = AnnIndex::Decode(header, "obj/y");
  EXPECT_EQ(bad.status().kind(), Kind::kPermanent);
  EXPECT_NE(bad.status().message().find("obj/y"), std::string::npos);
}

// Format 1 was the inner-product index over unit vectors (cosine ranking, decision 38); its
// order is not the squared-L2 order (decision 199), so a reader refuses it rather than rank by it.
TEST_F(AnnIndexTest, AFormatOnePayloadIsRefused) {
  Result<std::string> payload = BuildAnnPayload(*version_, kVecField);
  ASSERT_TRUE(payload.ok());
  ASSERT_EQ(payload->compare(0, 8, std::string("OGAN\3\0\0\0", 8)), 0);
  std::string old = *payload;
  old[4] = 1;
  Result<std::shared_ptr<const AnnIndex>> index = AnnIndex::Decode(old, "obj/v1");
  ASSERT_FALSE(index.ok());
  EXPECT_EQ(index.status().code(), Code::kCorruption);
  EXPECT_EQ(index.status().object(), "obj/v1");
}

// The calibration claims that probing probes_for_recall() lists finds 95% of the 10 nearest
// neighbours of its sample rows (the indexed vectors at i·n/32, themselves not counted): a
// search at that many probes does, and one at a list fewer does not.
TEST_F(AnnIndexTest, TheCalibratedProbesReachTheirRecallAndNoFewerDo) {
  std::shared_ptr<const AnnIndex> index = Built();
  const uint32_t probes = index->probes_for_recall();
  ASSERT_GE(probes, 1u);
  ASSERT_LE(probes, index->lists());
  std::vector<uint32_t> rows;  // Dense indices of the indexed vectors.
  for (uint32_t i = 0; i < kRows; ++i) {
    if (i % kNullEvery != 3) rows.push_back(i);
  }
  auto found_at = [&](uint32_t p) {
    uint64_t found = 0, asked = 0;
    for (uint64_t s = 0; s < kAnnCalibrationQueries; ++s) {
      const uint32_t row = rows[s * rows.size() / kAnnCalibrationQueries];
      std::vector<uint32_t> truth = Exact(vectors_[row], kAnnCalibrationNeighbours + 1, {});
      truth.erase(std::remove(truth.begin(), truth.end(), row), truth.end());
      truth.resize(kAnnCalibrationNeighbours);
      Result<std::vector<uint32_t>> got =
          index->Search(vectors_[row], kAnnCalibrationNeighbours + 1, {}, p);
      OMNIGRAPH_CHECK(got.ok());
      const std::set<uint32_t> set(got->begin(), got->end());
      for (uint32_t t : truth) found += set.count(t);
      asked += truth.size();
    }
    return static_cast<double>(found) / static_cast<double>(asked);
  };
  EXPECT_GE(found_at(probes), 0.95);
  if (probes > 1) {
    EXPECT_LT(found_at(probes - 1), 0.95);
  }
}

// Uniform vectors in 64 dimensions have no clusters: the ten nearest neighbours of a row lie in
// lists all over the index, and the calibration says a search must probe most of them (the
// executor then answers exactly, decision 212). Clustered vectors need a few. (The lists trained
// in full: by default the build stops early on such data, below.)
TEST_F(AnnIndexTest, UniformDataNeedsMostListsAndClusteredDataFew) {
  std::shared_ptr<const TableVersion> uniform = MakeUniform(*tables_);
  AnnBuildOptions full;
  full.hard_data_check = false;
  Result<std::string> payload = BuildAnnPayload(*uniform, kVecField, full);
  ASSERT_TRUE(payload.ok()) << payload.status().ToString();
  std::shared_ptr<const AnnIndex> wide = *AnnIndex::Decode(*payload, "uniform");
  EXPECT_EQ(wide->lists(), wide->indexed() / kAnnTrainPerList);
  EXPECT_GE(2 * wide->probes_for_recall(), wide->lists()) << wide->probes_for_recall();
  std::shared_ptr<const AnnIndex> clustered = Built();
  EXPECT_LT(4 * clustered->probes_for_recall(), clustered->lists())
      << clustered->probes_for_recall();
}

// The build calibrates after kAnnHardDataIterations iterations of its k-means: on uniform data
// the lists would not pay, so it stops there and stores one list (with codes, which answer an
// unfiltered search; a filtered one is exact either way); clustered data trains its lists in full
// and stores no codes (decision 236).
TEST_F(AnnIndexTest, UniformDataStoresOneListAndClusteredDataItsFullLists) {
  std::shared_ptr<const TableVersion> uniform = MakeUniform(*tables_);
  Result<std::string> payload = BuildAnnPayload(*uniform, kVecField);
  ASSERT_TRUE(payload.ok()) << payload.status().ToString();
  std::shared_ptr<const AnnIndex> wide = *AnnIndex::Decode(*payload, "uniform");
  EXPECT_EQ(wide->lists(), 1u);
  EXPECT_EQ(wide->probes_for_recall(), 1u);
  EXPECT_TRUE(wide->has_codes());
  EXPECT_EQ(wide->indexed(), kRows);
  // One list probed is every row: the search is exact.
  Random random(41);
  std::vector<float> q(kWide);
  for (float& x : q) x = static_cast<float>(random.NextDouble() * 2 - 1);
  EXPECT_EQ(wide->Search(q, 10, {}, 1)->size(), 10u);
  std::shared_ptr<const AnnIndex> clustered = Built();
  EXPECT_EQ(clustered->lists(), clustered->indexed() / kAnnTrainPerList);
  EXPECT_FALSE(clustered->has_codes());
}

// The k-means, the assignment and the codes run on the runtime's threads with a fixed division
// of the work: the payload is the same bytes on the caller's thread and on pools of one, two and
// four threads, build after build, for clustered data (full lists) and uniform (one list, codes)
// and for uniform data whose lists are trained in full.
TEST_F(AnnIndexTest, BuildsGiveTheSameBytesOnAnyNumberOfThreads) {
  AnnBuildOptions full;
  full.hard_data_check = false;
  std::shared_ptr<const TableVersion> uniform = MakeUniform(*tables_);
  const std::string clustered = *BuildAnnPayload(*version_, kVecField);
  const std::string hard = *BuildAnnPayload(*uniform, kVecField);
  const std::string hard_full = *BuildAnnPayload(*uniform, kVecField, full);
  for (size_t threads : {1, 2, 4}) {
    for (int run = 0; run < 2; ++run) {
      storage::Runtime pooled = storage::Runtime::ForTest(counting_, 3);
      pooled.executor = std::make_shared<ThreadPool>(threads);
      TableStore tables(pooled, TableStoreOptions{});
      const std::shared_ptr<const TableVersion> c = *tables.Open(version_->pin());
      const std::shared_ptr<const TableVersion> u = *tables.Open(uniform->pin());
      // EXPECT_TRUE: a failure names the case without printing megabytes of payload.
      EXPECT_TRUE(*BuildAnnPayload(*c, kVecField) == clustered) << threads << " threads";
      EXPECT_TRUE(*BuildAnnPayload(*u, kVecField) == hard) << threads << " threads";
      EXPECT_TRUE(*BuildAnnPayload(*u, kVecField, full) == hard_full) << threads << " threads";
    }
  }
}

// A full build assigns each vector by the kernel AssignLists uses, whatever the other vectors:
// the index rebuilt over its own centroids is the same bytes.
TEST_F(AnnIndexTest, ABuildEqualsTheRebuildOverItsOwnCentroids) {
  const std::string payload = *BuildAnnPayload(*version_, kVecField);
  std::shared_ptr<const AnnIndex> index = *AnnIndex::Decode(payload, "full");
  Result<std::shared_ptr<const AnnIndex>> over = BuildAnnOver(*version_, kVecField, *index);
  ASSERT_TRUE(over.ok()) << over.status().ToString();
  EXPECT_TRUE(*(*over)->Encode() == payload);
}

// A format-2 payload (before calibration: a 32-byte header) is still read, with no calibrated
// probes; a format-3 header whose probes exceed its lists is damage.
TEST_F(AnnIndexTest, AFormatTwoPayloadIsReadUncalibrated) {
  Result<std::string> payload = BuildAnnPayload(*version_, kVecField);
  ASSERT_TRUE(payload.ok());
  std::string old = payload->substr(0, 32) + payload->substr(40);
  old[4] = 2;
  Result<std::shared_ptr<const AnnIndex>> index = AnnIndex::Decode(old, "obj/v2");
  ASSERT_TRUE(index.ok()) << index.status().ToString();
  EXPECT_EQ((*index)->probes_for_recall(), 0u);
  EXPECT_EQ((*index)->indexed(), kRows - kRows / kNullEvery);
  std::string bad = *payload;
  const uint32_t too_many = (*index)->lists() + 1;
  std::memcpy(bad.data() + 32, &too_many, 4);
  EXPECT_EQ(AnnIndex::Decode(bad, "obj/p").status().code(), Code::kCorruption);
}

}  // namespace
}  // namespace omnigraph::table
