// Derived objects: the envelope binds a payload to one table version and kind; damage and
// strangers are Corruption naming the object; DerivedOrBuild rebuilds and writes back; ranged
// reads fetch the header once; exact object-operation counts.
#include "table/derived.h"

#include <gtest/gtest.h>

#include <memory>

#include "base/random.h"
#include "storage/counting_store.h"
#include "storage/memory_store.h"
#include "table/model_table.h"
#include "table/table_store.h"

namespace omnigraph::table {
namespace {

class DerivedTest : public ::testing::Test {
 protected:
  DerivedTest() {
    memory_ = std::make_shared<storage::MemoryStore>("d");
    counting_ = std::make_shared<storage::CountingStore>(memory_);
    runtime_ = storage::Runtime::ForTest(counting_, 3);
    tables_ = std::make_unique<TableStore>(runtime_, TableStoreOptions{});
    Random random(9);
    const NewTable table{TableId{0x21, 0x1}, "Person", ModelSchema(false)};
    Result<TablePin> v1 =
        tables_->Create(table, MakeRows(table.schema, {"a", "b"}, random), std::nullopt);
    Result<TablePin> v2 = tables_->Append(*v1, MakeRows(table.schema, {"c"}, random), std::nullopt);
    one_ = *tables_->Open(*v1);
    two_ = *tables_->Open(*v2);
  }

  // A version opened by a fresh TableStore: nothing cached.
  std::shared_ptr<const TableVersion> Cold(const TableVersion& v) {
    fresh_ = std::make_unique<TableStore>(runtime_, TableStoreOptions{});
    return *fresh_->Open(v.pin());
  }

  std::string NameOf(const TableVersion& v, std::string_view kind) {
    return DerivedName(v.table(), v.manifest().staged_version, kind);
  }

  std::shared_ptr<storage::MemoryStore> memory_;
  std::shared_ptr<storage::CountingStore> counting_;
  storage::Runtime runtime_;
  std::unique_ptr<TableStore> tables_, fresh_;
  std::shared_ptr<const TableVersion> one_, two_;
};

TEST(DerivedNameTest, NamesParseBackAndKindsAreChecked) {
  const std::string name = DerivedName(TableId{0xab, 0x2}, 9223372036854775809ull, "csr.src");
  EXPECT_EQ(name, "tables/00000000000000ab-0000000000000002/derived/d9223372036854775809.csr.src");
  std::optional<DerivedNameParts> parts = ParseDerivedName(name);
  ASSERT_TRUE(parts);
  EXPECT_EQ(parts->staged_version, 9223372036854775809ull);
  EXPECT_EQ(parts->kind, "csr.src");
  EXPECT_FALSE(ParseDerivedName("tables/x/derived/dabc.ids"));
  EXPECT_FALSE(ParseDerivedName("tables/x/derived/d12"));
  EXPECT_FALSE(ParseDerivedName("tables/x/data/d12.ids"));
  EXPECT_TRUE(ValidDerivedKind("fts.7"));
  EXPECT_FALSE(ValidDerivedKind(""));
  EXPECT_FALSE(ValidDerivedKind(".x"));
  EXPECT_FALSE(ValidDerivedKind("Ids"));
  EXPECT_FALSE(ValidDerivedKind("a/b"));
  EXPECT_FALSE(ValidDerivedKind(std::string(65, 'a')));
}

TEST_F(DerivedTest, PayloadRoundTripsAndIsCached) {
  ASSERT_TRUE(one_->WriteDerived("ids", "payload bytes").ok());
  auto cold = Cold(*one_);
  counting_->Reset();
  Result<std::shared_ptr<const std::string>> read = cold->ReadDerived("ids");
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(**read, "payload bytes");
  ASSERT_TRUE(cold->ReadDerived("ids").ok());
  EXPECT_EQ(counting_->Snapshot().gets, 1u);  // The second read is a cache hit.
  EXPECT_EQ(cold->ReadDerived("fts.1").status().kind(), Kind::kNotFound);
  EXPECT_EQ(cold->ReadDerived("Bad").status().code(), Code::kInvalidArgument);
}

TEST_F(DerivedTest, DamageAndStrangersAreCorruptionNamingTheObject) {
  ASSERT_TRUE(one_->WriteDerived("ids", std::string(100, 'x')).ok());
  const std::string name = NameOf(*one_, "ids");
  std::string bytes = memory_->Get(name)->data;
  // A flipped payload byte fails the checksum.
  std::string flipped = bytes;
  flipped.back() ^= 1;
  ASSERT_TRUE(memory_->Put(name, flipped).ok());
  Status damaged = Cold(*one_)->ReadDerived("ids").status();
  EXPECT_EQ(damaged.code(), Code::kCorruption);
  EXPECT_NE(damaged.ToString().find(name), std::string::npos) << damaged.ToString();
  // Truncated.
  ASSERT_TRUE(memory_->Put(name, bytes.substr(0, bytes.size() - 1)).ok());
  EXPECT_EQ(Cold(*one_)->ReadDerived("ids").status().code(), Code::kCorruption);
  ASSERT_TRUE(memory_->Put(name, "junk").ok());
  EXPECT_EQ(Cold(*one_)->ReadDerived("ids").status().code(), Code::kCorruption);
  // Another version's object copied under this version's name.
  ASSERT_TRUE(two_->WriteDerived("ids", "two").ok());
  ASSERT_TRUE(memory_->Put(name, memory_->Get(NameOf(*two_, "ids"))->data).ok());
  Status stranger = Cold(*one_)->ReadDerived("ids").status();
  EXPECT_EQ(stranger.code(), Code::kCorruption);
  EXPECT_NE(stranger.ToString().find("another table version"), std::string::npos);
  // Another kind's object under this kind's name.
  ASSERT_TRUE(one_->WriteDerived("csr.src", "k").ok());
  ASSERT_TRUE(memory_->Put(name, memory_->Get(NameOf(*one_, "csr.src"))->data).ok());
  EXPECT_EQ(Cold(*one_)->ReadDerived("ids").status().code(), Code::kCorruption);
}

TEST_F(DerivedTest, DerivedOrBuildBuildsOnceWritesBackAndReplacesDamage) {
  int builds = 0;
  auto build = [&]() -> Result<std::string> {
    ++builds;
    return std::string("built");
  };
  // Absent: built, written back; a fresh reader then reads without building.
  Result<std::shared_ptr<const std::string>> got = one_->DerivedOrBuild("ids", build, true);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(**got, "built");
  EXPECT_EQ(builds, 1);
  auto cold = Cold(*one_);
  counting_->Reset();
  ASSERT_TRUE(cold->DerivedOrBuild("ids", build, true).ok());
  EXPECT_EQ(builds, 1);
  EXPECT_EQ(counting_->Snapshot().gets, 1u);
  EXPECT_EQ(counting_->Snapshot().total(), 1u);
  // Damaged: rebuilt and replaced in place.
  const std::string name = NameOf(*one_, "ids");
  ASSERT_TRUE(memory_->Put(name, "junk").ok());
  ASSERT_TRUE(Cold(*one_)->DerivedOrBuild("ids", build, true).ok());
  EXPECT_EQ(builds, 2);
  EXPECT_TRUE(Cold(*one_)->ReadDerived("ids").ok());
  // Without write-back nothing is stored.
  ASSERT_TRUE(two_->DerivedOrBuild("ids", build, false).ok());
  EXPECT_EQ(memory_->Head(NameOf(*two_, "ids")).status().kind(), Kind::kNotFound);
  // A build failure is returned as it is.
  auto failing = []() -> Result<std::string> { return Internal("no"); };
  EXPECT_EQ(Cold(*two_)->DerivedOrBuild("ids", failing, true).status().code(), Code::kInternal);
}

TEST_F(DerivedTest, RangedReadsFetchTheHeaderOnceThenOnlyTheRange) {
  std::string payload;
  for (int i = 0; i < 1000; ++i) payload += static_cast<char>('a' + i % 26);
  ASSERT_TRUE(one_->WriteDerived("csr.src", payload).ok());
  auto cold = Cold(*one_);
  counting_->Reset();
  Result<std::string> part = cold->ReadDerivedRange("csr.src", 500, 10);
  ASSERT_TRUE(part.ok()) << part.status().ToString();
  EXPECT_EQ(*part, payload.substr(500, 10));
  EXPECT_EQ(counting_->Snapshot().gets, 2u);  // Header, then the range.
  ASSERT_TRUE(cold->ReadDerivedRange("csr.src", 0, 1000).ok());
  EXPECT_EQ(counting_->Snapshot().gets, 3u);
  EXPECT_EQ(cold->ReadDerivedRange("csr.src", 995, 10).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(cold->ReadDerivedRange("csr.src", 1000, 0)->size(), 0u);
  EXPECT_EQ(cold->ReadDerivedRange("ids", 0, 1).status().kind(), Kind::kNotFound);
}

// A third version over `two_`, and a chain `one_` (full) <- `two_` <- three (deltas).
class DerivedChainTest : public DerivedTest {
 protected:
  DerivedChainTest() {
    Random random(10);
    Result<TablePin> v3 =
        tables_->Append(two_->pin(), MakeRows(two_->schema(), {"d"}, random), std::nullopt);
    three_ = *tables_->Open(*v3);
  }

  void WriteChain() {
    ASSERT_TRUE(one_->WriteDerived("fts.1", "full").ok());
    ASSERT_TRUE(two_->WriteDerivedDelta("fts.1", "delta two", one_->manifest(), 1).ok());
    ASSERT_TRUE(three_->WriteDerivedDelta("fts.1", "delta three", two_->manifest(), 2).ok());
  }

  // `chain` is the full object, then deltas two and three, each at its version (what WriteChain
  // and a listed chain over the same payloads read back as).
  void ExpectTheChain(const Result<std::vector<DerivedLink>>& chain) const {
    ASSERT_TRUE(chain.ok()) << chain.status().ToString();
    ASSERT_EQ(chain->size(), 3u);
    const std::vector<std::pair<std::string_view, const TableVersion*>> want = {
        {"full", one_.get()}, {"delta two", two_.get()}, {"delta three", three_.get()}};
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ((*chain)[i].payload.view(), want[i].first) << i;
      EXPECT_EQ((*chain)[i].manifest->staged_version, want[i].second->manifest().staged_version)
          << i;
    }
  }

  std::shared_ptr<const TableVersion> three_;
};

TEST_F(DerivedChainTest, AChainReadsTheFullObjectFirstThenEachDeltaInOrder) {
  WriteChain();
  auto cold = Cold(*three_);
  counting_->Reset();
  ExpectTheChain(cold->ReadDerivedChain("fts.1"));
  // Three objects and the two base manifests; a second read is all cache hits.
  EXPECT_EQ(counting_->Snapshot().gets, 5u);
  EXPECT_EQ(counting_->Snapshot().total(), 5u);
  ASSERT_TRUE(cold->ReadDerivedChain("fts.1").ok());
  EXPECT_EQ(counting_->Snapshot().total(), 5u);
  // A full object alone is a chain of one.
  Result<std::vector<DerivedLink>> alone = Cold(*one_)->ReadDerivedChain("fts.1");
  ASSERT_TRUE(alone.ok());
  EXPECT_EQ(alone->size(), 1u);
  // The header says what the object is over; a whole-object read of a delta is refused.
  Result<DerivedHeader> header = Cold(*three_)->ReadDerivedHeader("fts.1");
  ASSERT_TRUE(header.ok()) << header.status().ToString();
  ASSERT_TRUE(header->delta);
  EXPECT_EQ(header->delta->base_staged_version, two_->manifest().staged_version);
  EXPECT_EQ(header->delta->base_transaction_uuid, two_->manifest().transaction_uuid);
  EXPECT_EQ(header->delta->depth, 2u);
  EXPECT_EQ(header->payload_bytes, 11u);
  EXPECT_EQ(header->payload_offset % 8, 0u);
  EXPECT_LE(header->payload_offset, kDerivedHeaderBytesMax);
  EXPECT_FALSE(Cold(*one_)->ReadDerivedHeader("fts.1")->delta);
  Status whole = Cold(*three_)->ReadDerived("fts.1").status();
  EXPECT_EQ(whole.code(), Code::kCorruption);
  EXPECT_NE(whole.ToString().find("is a delta"), std::string::npos) << whole.ToString();
}

// A delta that lists the versions below its base (envelope format 3): the reader fetches every
// lower link's manifest and object together after the top object, then walks and checks them as
// before; the answers and the objects read are the same.
TEST_F(DerivedChainTest, AListedChainIsReadAheadAndWalkedTheSameWay) {
  ASSERT_TRUE(one_->WriteDerived("fts.1", "full").ok());
  ASSERT_TRUE(two_->WriteDerivedDelta("fts.1", "delta two", one_->manifest(), 1).ok());
  Result<DerivedHeader> two_header = Cold(*two_)->ReadDerivedHeader("fts.1");
  ASSERT_TRUE(two_header.ok());
  EXPECT_TRUE(two_header->delta->below.empty());  // Over a full object: nothing below.
  const std::vector<uint64_t> below = ChainBelow(*two_header);
  ASSERT_EQ(below, std::vector<uint64_t>{one_->manifest().staged_version});
  ASSERT_TRUE(three_->WriteDerivedDelta("fts.1", "delta three", two_->manifest(), 2, below).ok());
  auto cold = Cold(*three_);
  counting_->Reset();
  Result<DerivedHeader> header = cold->ReadDerivedHeader("fts.1");
  ASSERT_TRUE(header.ok()) << header.status().ToString();
  EXPECT_EQ(header->delta->below, below);
  EXPECT_EQ(header->delta->depth, 2u);
  // A delta over this one knows the whole chain under it.
  EXPECT_EQ(ChainBelow(*header), (std::vector<uint64_t>{two_->manifest().staged_version,
                                                        one_->manifest().staged_version}));
  cold = Cold(*three_);
  counting_->Reset();
  ExpectTheChain(cold->ReadDerivedChain("fts.1"));
  EXPECT_EQ(counting_->Snapshot().gets, 5u);
  EXPECT_EQ(counting_->Snapshot().total(), 5u);
  // A wrong list is only a wasted read ahead: the walk follows each object's own base.
  const std::string three_name = NameOf(*three_, "fts.1");
  DerivedDelta wrong{two_->manifest().staged_version,
                     two_->manifest().transaction_uuid,
                     2,
                     {three_->manifest().staged_version}};
  ASSERT_TRUE(
      memory_->Put(three_name, EncodeDerived(three_->manifest(), "fts.1", "delta three", &wrong))
          .ok());
  ExpectTheChain(Cold(*three_)->ReadDerivedChain("fts.1"));
  // A list whose length is not depth - 1 is a damaged header.
  std::string bytes = EncodeDerived(three_->manifest(), "fts.1", "delta three", &wrong);
  const size_t count_at = 36 + 5 + three_->manifest().transaction_uuid.size() + 16 +
                          two_->manifest().transaction_uuid.size();
  bytes[count_at] = 2;
  ASSERT_TRUE(memory_->Put(three_name, bytes).ok());
  Status damaged = Cold(*three_)->ReadDerivedChain("fts.1").status();
  EXPECT_EQ(damaged.code(), Code::kCorruption);
  EXPECT_NE(damaged.ToString().find("versions below its base"), std::string::npos)
      << damaged.ToString();
  EXPECT_NE(damaged.ToString().find(three_name), std::string::npos) << damaged.ToString();
  // A list that would not fit the header bound is left out (format 2), never truncated.
  // (A base uuid long enough that the fixed fields fit with 24 bytes to spare, the list not.)
  const size_t spare =
      kDerivedHeaderBytesMax - 24 - (36 + 5 + three_->manifest().transaction_uuid.size() + 16);
  DerivedDelta deep{
      two_->manifest().staged_version, std::string(spare, 'u'), 8, {1, 2, 3, 4, 5, 6, 7}};
  Result<DerivedHeader> dropped = DecodeDerivedHeader(
      three_->manifest(), "fts.1", EncodeDerived(three_->manifest(), "fts.1", "p", &deep), "x");
  ASSERT_TRUE(dropped.ok()) << dropped.status().ToString();
  EXPECT_TRUE(dropped->delta->below.empty());
  EXPECT_LE(dropped->payload_offset, kDerivedHeaderBytesMax);
}

TEST_F(DerivedChainTest, ABrokenChainIsNotFoundOrCorruptionNamingTheObject) {
  WriteChain();
  // The full base gone (its version cleaned up, say): NotFound.
  const std::string base = NameOf(*one_, "fts.1");
  const std::string base_bytes = memory_->Get(base)->data;
  ASSERT_TRUE(memory_->Delete(base).ok());
  EXPECT_EQ(Cold(*three_)->ReadDerivedChain("fts.1").status().kind(), Kind::kNotFound);
  ASSERT_TRUE(memory_->Put(base, base_bytes).ok());
  // The middle delta damaged: Corruption naming it.
  const std::string middle = NameOf(*two_, "fts.1");
  const std::string middle_bytes = memory_->Get(middle)->data;
  std::string flipped = middle_bytes;
  flipped.back() ^= 1;
  ASSERT_TRUE(memory_->Put(middle, flipped).ok());
  Status damaged = Cold(*three_)->ReadDerivedChain("fts.1").status();
  EXPECT_EQ(damaged.code(), Code::kCorruption);
  EXPECT_NE(damaged.ToString().find(middle), std::string::npos) << damaged.ToString();
  // Depths that do not count down: the middle link claims to be full.
  ASSERT_TRUE(memory_->Put(middle, EncodeDerived(two_->manifest(), "fts.1", "x")).ok());
  Status depth = Cold(*three_)->ReadDerivedChain("fts.1").status();
  EXPECT_EQ(depth.code(), Code::kCorruption);
  EXPECT_NE(depth.ToString().find("depth"), std::string::npos) << depth.ToString();
  ASSERT_TRUE(memory_->Put(middle, middle_bytes).ok());
  // The base version's manifest gone: NotFound.
  ASSERT_TRUE(memory_->Delete(one_->manifest_name()).ok());
  EXPECT_EQ(Cold(*three_)->ReadDerivedChain("fts.1").status().kind(), Kind::kNotFound);
}

TEST_F(DerivedChainTest, AFullObjectReplacesADeltaAndADeltaNeverReplacesAnObject) {
  WriteChain();
  const std::string name = NameOf(*two_, "fts.1");
  // A reader that found the chain broken rebuilt the full payload: it replaces the delta, and
  // what the reader had cached of the delta is forgotten.
  auto reader = Cold(*two_);
  ASSERT_EQ(reader->ReadDerivedChain("fts.1")->size(), 2u);
  ASSERT_TRUE(reader->ReadDerivedHeader("fts.1")->delta);
  ASSERT_TRUE(reader->WriteDerived("fts.1", "rebuilt").ok());
  Result<std::vector<DerivedLink>> now = reader->ReadDerivedChain("fts.1");
  ASSERT_TRUE(now.ok()) << now.status().ToString();
  ASSERT_EQ(now->size(), 1u);
  EXPECT_EQ((*now)[0].payload.view(), "rebuilt");
  EXPECT_FALSE(reader->ReadDerivedHeader("fts.1")->delta);
  Result<std::shared_ptr<const std::string>> full = Cold(*two_)->ReadDerived("fts.1");
  ASSERT_TRUE(full.ok()) << full.status().ToString();
  EXPECT_EQ(**full, "rebuilt");
  // A delta written later keeps the full object there.
  ASSERT_TRUE(Cold(*two_)->WriteDerivedDelta("fts.1", "late", one_->manifest(), 1).ok());
  EXPECT_EQ(**Cold(*two_)->ReadDerived("fts.1"), "rebuilt");
  // So three's chain now stops at two's full object, one depth short: Corruption, rebuilt by the
  // reader like any broken chain.
  EXPECT_EQ(Cold(*three_)->ReadDerivedChain("fts.1").status().code(), Code::kCorruption);
  // Bad arguments change nothing.
  const std::string three = NameOf(*three_, "fts.1");
  const std::string three_bytes = memory_->Get(three)->data;
  EXPECT_EQ(three_->WriteDerivedDelta("fts.1", "x", two_->manifest(), 0).code(),
            Code::kInvalidArgument);
  EXPECT_EQ(
      three_->WriteDerivedDelta("fts.1", "x", two_->manifest(), kDerivedDeltaDepthMax + 1).code(),
      Code::kInvalidArgument);
  EXPECT_EQ(three_->WriteDerivedDelta("fts.1", "x", three_->manifest(), 1).code(),
            Code::kInvalidArgument);
  EXPECT_EQ(memory_->Get(three)->data, three_bytes);
}

}  // namespace
}  // namespace omnigraph::table
