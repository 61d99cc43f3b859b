// Vector index deltas: a small write stores the index as a delta over its base's; read back (cold)
// through the chain it equals the index rebuilt at that version over the base's centroids, byte
// for byte and in every answer, across random appends, rewrites (some to null vectors) and
// deletes; a large write, or a chain at its depth limit, stores none; damage is Corruption naming
// the object, and the next EnsureAnnIndexes rebuilds the index in full.
#include "table/ann_delta.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "base/random.h"
#include "storage/counting_store.h"
#include "storage/memory_store.h"
#include "table/ann_index.h"
#include "table/column_builder.h"
#include "table/derived.h"
#include "table/table_store.h"

namespace omnigraph::table {
namespace {

constexpr uint32_t kVecField = 7;
constexpr uint32_t kDim = 8;
constexpr uint64_t kRows = 5000;

const Schema& TheSchema() {
  static const Schema schema = {{kIdFieldId, "id", DataType::Scalar(TypeId::kString), false},
                                {kVecField, "v", DataType::Vector(kDim), true}};
  return schema;
}

std::string IdOf(uint64_t i) {
  std::string key = std::to_string(i);
  return "r" + std::string(7 - std::min<size_t>(7, key.size()), '0') + key;
}

class AnnDeltaTest : public ::testing::Test {
 protected:
  explicit AnnDeltaTest(AnnCodesChoice codes = AnnCodesChoice::kAuto) : random_(29) {
    memory_ = std::make_shared<storage::MemoryStore>("d");
    runtime_ = storage::Runtime::ForTest(memory_, 3);
    tables_ = std::make_unique<TableStore>(runtime_, TableStoreOptions{});
    for (int c = 0; c < 30; ++c) {
      std::vector<float> centre(kDim);
      for (float& x : centre) x = static_cast<float>(random_.NextDouble() * 2 - 1);
      centres_.push_back(centre);
    }
    std::vector<uint64_t> ids(kRows);
    for (uint64_t i = 0; i < kRows; ++i) ids[i] = 2 * i;  // Odd ids are free for appends.
    live_.insert(ids.begin(), ids.end());
    Result<TablePin> pin =
        tables_->Create(NewTable{TableId{0x41, 0x1}, "Doc", TheSchema()}, Rows(ids), std::nullopt);
    OMNIGRAPH_CHECK(pin.ok());
    pin_ = *pin;
    AnnBuildOptions options;
    options.codes = codes;
    OMNIGRAPH_CHECK(EnsureAnnIndexes(*Open(pin_), options).ok());
  }

  // Rows for `ids`, each with a vector near a random centre, one in 20 null.
  ColumnBatch Rows(const std::vector<uint64_t>& ids) {
    ColumnBuilder id(TheSchema()[0].type, false), vec(TheSchema()[1].type, true);
    for (uint64_t i : ids) {
      id.AppendString(IdOf(i));
      if (random_.Uniform(20) == 0) {
        vec.AppendNull();
        continue;
      }
      std::vector<float> v = centres_[random_.Uniform(centres_.size())];
      for (float& x : v) x += static_cast<float>((random_.NextDouble() - 0.5) * 0.3);
      vec.AppendVector(v);
    }
    std::vector<Column> columns;
    columns.push_back(*id.Finish());
    columns.push_back(*vec.Finish());
    return ColumnBatch(TheSchema(), std::move(columns), ids.size());
  }

  std::shared_ptr<const TableVersion> Open(const TablePin& pin) { return *tables_->Open(pin); }
  // The version as a fresh process sees it: nothing cached.
  std::shared_ptr<const TableVersion> Cold(const TablePin& pin) {
    fresh_ = std::make_unique<TableStore>(runtime_, TableStoreOptions{});
    return *fresh_->Open(pin);
  }

  // `count` distinct ids the table holds (`existing`) or does not hold; `deleting` takes them out.
  std::vector<uint64_t> Pick(uint64_t count, bool existing, bool deleting = false) {
    std::set<uint64_t> out;
    while (out.size() < count) {
      const uint64_t id = random_.Uniform(2 * kRows);
      if ((live_.count(id) != 0) == existing) out.insert(id);
    }
    for (uint64_t id : out) {
      if (deleting) {
        live_.erase(id);
      } else {
        live_.insert(id);
      }
    }
    return {out.begin(), out.end()};
  }

  // Checks the chain read cold equals the rebuild over the full index's centroids.
  void ExpectEqualsRebuild(const TablePin& pin, const AnnIndex& full) {
    std::shared_ptr<const TableVersion> cold = Cold(pin);
    Result<std::shared_ptr<const AnnIndex>> chained = ReadAnnIndex(*cold, kVecField);
    ASSERT_TRUE(chained.ok()) << chained.status().ToString();
    ASSERT_NE(*chained, nullptr);
    Result<std::shared_ptr<const AnnIndex>> rebuilt = BuildAnnOver(*cold, kVecField, full);
    ASSERT_TRUE(rebuilt.ok()) << rebuilt.status().ToString();
    EXPECT_EQ((*chained)->rows(), cold->entity_count());
    EXPECT_EQ((*chained)->indexed(), (*rebuilt)->indexed());
    EXPECT_EQ(*(*chained)->Encode(), *(*rebuilt)->Encode());
    EXPECT_EQ((*chained)->has_codes(), full.has_codes());
    InlineExecutor one;
    for (int q = 0; q < 10; ++q) {
      const std::vector<float>& query = centres_[static_cast<size_t>(q)];
      for (uint32_t probes : {1u, 4u, full.lists()}) {
        EXPECT_EQ(*(*chained)->Search(query, 10, {}, probes),
                  *(*rebuilt)->Search(query, 10, {}, probes));
      }
      if (full.has_codes()) {
        EXPECT_EQ(*(*chained)->SearchCodes(query, 50, one),
                  *(*rebuilt)->SearchCodes(query, 50, one));
      }
    }
  }

  // Six small writes (appends, rewrites, deletes), each stored as a delta and read back cold equal
  // to the rebuild over the full index's centroids (and codes' grid, when it has codes).
  void SmallWritesEqualTheRebuild() {
    std::shared_ptr<const AnnIndex> full = *ReadAnnIndex(*Open(pin_), kVecField);
    ASSERT_NE(full, nullptr);
    TablePin at = pin_;
    for (int write = 0; write < 6; ++write) {
      Result<TablePin> next = write % 3 == 0 ? tables_->Append(at, Rows(Pick(40, false)), {})
                              : write % 3 == 1
                                  ? tables_->Upsert(at, Rows(Pick(30, true)), {})
                                  : tables_->Delete(at,
                                                    [&] {
                                                      std::vector<std::string> gone;
                                                      for (uint64_t i : Pick(25, true, true)) {
                                                        gone.push_back(IdOf(i));
                                                      }
                                                      return gone;
                                                    }(),
                                                    {});
      ASSERT_TRUE(next.ok()) << next.status().ToString();
      at = *next;
      ASSERT_TRUE(StoreAnnDelta(*Open(at), kVecField)) << write;
      Result<DerivedHeader> header = Open(at)->ReadDerivedHeader(AnnKind(kVecField));
      ASSERT_TRUE(header.ok());
      ASSERT_TRUE(header->delta.has_value());
      EXPECT_EQ(header->delta->depth, static_cast<uint32_t>(write + 1));
      ExpectEqualsRebuild(at, *full);
      // A writer reads only the centroids, from the chain's full object: the same lists.
      Result<std::shared_ptr<const AnnIndex>> centroids = ReadAnnCentroids(*Cold(at), kVecField);
      ASSERT_TRUE(centroids.ok()) << centroids.status().ToString();
      EXPECT_EQ((*centroids)->lists(), full->lists());
      EXPECT_EQ((*centroids)->probes_for_recall(), full->probes_for_recall());
      EXPECT_EQ((*centroids)->has_codes(), full->has_codes());
      std::vector<float> probes;
      for (const auto& c : centres_) probes.insert(probes.end(), c.begin(), c.end());
      EXPECT_EQ(*(*centroids)->AssignLists(probes), *full->AssignLists(probes));
      // The rebuild over what the writer reads (centroids and grid) is the same index.
      EXPECT_EQ(*(*BuildAnnOver(*Cold(at), kVecField, **centroids))->Encode(),
                *(*ReadAnnIndex(*Cold(at), kVecField))->Encode());
    }
  }

  Random random_;
  std::vector<std::vector<float>> centres_;
  std::set<uint64_t> live_;
  std::shared_ptr<storage::MemoryStore> memory_;
  storage::Runtime runtime_;
  std::unique_ptr<TableStore> tables_, fresh_;
  TablePin pin_;
};

TEST_F(AnnDeltaTest, SmallWritesStoreDeltasThatEqualTheRebuildOverTheBasesCentroids) {
  SmallWritesEqualTheRebuild();
}

// An index with codes (decision 224): a delta's added rows get codes on the base's grid (clamped
// to it), its removed rows lose theirs, and the chain equals the rebuild over the base's centroids
// and grid, codes and all.
class AnnDeltaCodesTest : public AnnDeltaTest {
 protected:
  AnnDeltaCodesTest() : AnnDeltaTest(AnnCodesChoice::kAlways) {}
};

TEST_F(AnnDeltaCodesTest, SmallWritesStoreDeltasThatEqualTheRebuildOverTheBasesCentroidsAndGrid) {
  ASSERT_TRUE((*ReadAnnIndex(*Open(pin_), kVecField))->has_codes());
  SmallWritesEqualTheRebuild();
}

// What a small write's vector step costs a writer that has nothing cached: this version's manifest
// and its base's; the base index's header, table and centroids (three ranged reads, not the
// index's lists); the added rows' fragment; the base's stored id index, this version's (absent,
// so built from the base fragment's id column, streamed fragment by fragment (decision 210): its
// footer and the column, two ranged reads; the added fragment's ids are out of order after the
// base's, and the build sorts on from what the stream read, reading neither fragment again,
// decision 215) — the rows the write added and removed; then this version's id index and the
// delta, each a conditional create. In a mutation the id index delta was stored just before, so
// the last four reads and the first create are cache hits there.
TEST_F(AnnDeltaTest, ASmallWriteStoresItsDeltaInExactStoreCalls) {
  Result<TablePin> next = tables_->Append(pin_, Rows(Pick(5, false)), {});
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  auto counting = std::make_shared<storage::CountingStore>(memory_);
  TableStore fresh(storage::Runtime::ForTest(counting, 3), TableStoreOptions{});
  Result<std::shared_ptr<const TableVersion>> version = fresh.Open(*next);
  ASSERT_TRUE(version.ok()) << version.status().ToString();
  counting->Reset();
  ASSERT_TRUE(StoreAnnDelta(**version, kVecField));
  const storage::OpCounts c = counting->Snapshot();
  EXPECT_EQ(c.gets, 9u) << c.ToString();
  EXPECT_EQ(c.put_if_absent, 2u) << c.ToString();
  EXPECT_EQ(c.total(), 11u) << c.ToString();
}

TEST_F(AnnDeltaTest, ALargeWriteOrAFullChainStoresNoDelta) {
  // More than an eighth of the rows.
  Result<TablePin> big = tables_->Append(pin_, Rows(Pick(kRows / 8 + 1, false)), {});
  ASSERT_TRUE(big.ok());
  EXPECT_FALSE(StoreAnnDelta(*Open(*big), kVecField));
  TablePin at = pin_;
  for (uint32_t depth = 1; depth <= kDerivedDeltaDepthMax + 1; ++depth) {
    Result<TablePin> next = tables_->Append(at, Rows(Pick(3, false)), {});
    ASSERT_TRUE(next.ok());
    at = *next;
    EXPECT_EQ(StoreAnnDelta(*Open(at), kVecField), depth <= kDerivedDeltaDepthMax) << depth;
  }
}

TEST_F(AnnDeltaTest, ADamagedDeltaIsCorruptionNamingItAndEnsureRebuildsIt) {
  Result<TablePin> next = tables_->Upsert(pin_, Rows(Pick(10, true)), {});
  ASSERT_TRUE(next.ok());
  ASSERT_TRUE(StoreAnnDelta(*Open(*next), kVecField));
  const std::string name = DerivedName(next->table(), next->staged_version, AnnKind(kVecField));
  storage::GetResult stored = *memory_->Get(name);
  std::string bytes = stored.data;
  bytes[bytes.size() - 3] ^= 0x40;  // A vector's byte: the envelope's checksum fails.
  ASSERT_TRUE(memory_->Put(name, bytes).ok());
  Result<std::shared_ptr<const AnnIndex>> read = ReadAnnIndex(*Cold(*next), kVecField);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), Code::kCorruption);
  EXPECT_EQ(read.status().object(), name);
  ASSERT_TRUE(EnsureAnnIndexes(*Cold(*next)).ok());
  Result<DerivedHeader> header = Cold(*next)->ReadDerivedHeader(AnnKind(kVecField));
  ASSERT_TRUE(header.ok());
  EXPECT_FALSE(header->delta.has_value());  // Replaced by a full index.
  read = ReadAnnIndex(*Cold(*next), kVecField);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ((*read)->rows(), Open(*next)->entity_count());
}

TEST(AnnDeltaDecodeTest, DamageIsCorruptionNamingTheObject) {
  AnnDelta d;
  d.dim = 2;
  d.lists = 3;
  d.base_rows = 4;
  d.rows = 4;
  d.removed = {1};
  d.added = {2};
  d.added_lists = {2};
  d.vectors = {0.5f, -1.0f};
  const std::string good = EncodeAnnDelta(d);
  Result<AnnDelta> back = DecodeAnnDelta(good, "o");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->vectors, d.vectors);
  EXPECT_EQ(back->added_lists, d.added_lists);
  std::vector<std::string> bad = {good.substr(0, good.size() - 1), good + "x", "OGAD"};
  std::string list = good;
  list[48 + 16] = 3;  // The added row's list: 3 of 3 lists.
  bad.push_back(list);
  std::string order = good;
  order[48] = 7;  // A removed number past the base's rows.
  bad.push_back(order);
  for (const std::string& b : bad) {
    Result<AnnDelta> r = DecodeAnnDelta(b, "obj/delta");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), Code::kCorruption);
    EXPECT_EQ(r.status().object(), "obj/delta");
  }
}

}  // namespace
}  // namespace omnigraph::table
