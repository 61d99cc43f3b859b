// Persisted derived indexes (table/id_index.h, table/edge_csr.h): a large version's id index and
// adjacency are stored once and read back in one GET by a cold reader, whatever the fragment
// count; damage and strangers are rebuilt from the fragments and replaced; small versions keep
// none; the adjacency matches an oracle computed from a scan.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <numeric>
#include <set>
#include <thread>
#include <utility>

#include "base/executor.h"
#include "base/hash.h"
#include "base/ids.h"
#include "base/random.h"
#include "storage/counting_store.h"
#include "storage/memory_store.h"
#include "table/derived.h"
#include "table/edge_csr.h"
#include "table/id_index.h"
#include "table/id_index_blocked.h"
#include "table/id_index_compact.h"
#include "table/le_bytes.h"
#include "table/model_table.h"
#include "table/table_store.h"

namespace omnigraph::table {
namespace {

using ::testing::HasSubstr;

// A payload as the shared bytes a store returns.
storage::SharedBytes Shared(std::string_view payload) {
  return storage::SharedBytes::FromString(std::string(payload));
}

constexpr uint64_t kRowsMin = 4;

std::vector<std::string> Ids(const std::string& prefix, int from, int count) {
  std::vector<std::string> ids;
  for (int i = from; i < from + count; ++i) ids.push_back(prefix + std::to_string(100 + i));
  return ids;
}

class IndexesTest : public ::testing::Test {
 protected:
  IndexesTest() {
    memory_ = std::make_shared<storage::MemoryStore>("ix");
    counting_ = std::make_shared<storage::CountingStore>(memory_);
    runtime_ = storage::Runtime::ForTest(counting_, 5);
    tables_ = std::make_unique<TableStore>(runtime_, Options());
  }

  static TableStoreOptions Options() {
    TableStoreOptions options;
    options.derived_rows_min = kRowsMin;
    return options;
  }

  // A version of `table` of three fragments, each the ids Ids(prefix, 0, count) of one part.
  TablePin ThreeAppends(const NewTable& table,
                        const std::array<std::pair<std::string, int>, 3>& parts, Random& random) {
    Result<TablePin> v = tables_->Create(
        table, MakeRows(table.schema, Ids(parts[0].first, 0, parts[0].second), random),
        std::nullopt);
    for (size_t i = 1; v.ok() && i < parts.size(); ++i) {
      v = tables_->Append(*v,
                          MakeRows(table.schema, Ids(parts[i].first, 0, parts[i].second), random),
                          std::nullopt);
    }
    EXPECT_TRUE(v.ok()) << v.status().ToString();
    return *v;
  }

  // A version of three fragments (ids interleaved across them) with two rows deleted.
  TablePin ThreeFragments(bool edge) {
    Random random(4);
    const NewTable table{TableId{0x31, 0x1}, edge ? "Knows" : "Person", ModelSchema(edge)};
    const TablePin v3 = ThreeAppends(table, {{{"b", 6}, {"a", 5}, {"c", 4}}}, random);
    const std::vector<std::string> gone = {"b101", "a103"};
    Result<TablePin> v4 = tables_->Delete(v3, gone, std::nullopt);
    EXPECT_TRUE(v4.ok()) << v4.status().ToString();
    return *v4;
  }

  // The version opened by a fresh TableStore: nothing cached.
  std::shared_ptr<const TableVersion> Cold(const TablePin& pin) {
    fresh_ = std::make_unique<TableStore>(runtime_, Options());
    return *fresh_->Open(pin);
  }

  std::string NameOf(const TablePin& pin, std::string_view kind) {
    return DerivedName(pin.table(), pin.staged_version, kind);
  }

  std::shared_ptr<storage::MemoryStore> memory_;
  std::shared_ptr<storage::CountingStore> counting_;
  storage::Runtime runtime_;
  std::unique_ptr<TableStore> tables_, fresh_;
};

// The whole form of an index (IdIndex::Whole), for the calls that need every entry in memory.
const IdIndex& W(const IdIndex& index) { return *index.Whole().value(); }

std::vector<std::string> AllIds(const IdIndex& index) {
  std::vector<std::string> out;
  Result<const IdIndex*> whole = index.Whole();
  EXPECT_TRUE(whole.ok()) << whole.status().ToString();
  if (!whole.ok()) return out;
  for (size_t i = 0; i < index.size(); ++i) out.emplace_back((*whole)->IdAt(i));
  return out;
}

TEST_F(IndexesTest, AColdReaderReadsTheIdIndexInOneGetWhateverTheFragmentCount) {
  const TablePin pin = ThreeFragments(false);
  auto first = Cold(pin);
  ASSERT_EQ(first->manifest().fragments.size(), 3u);
  counting_->Reset();
  Result<std::shared_ptr<const IdIndex>> built = first->SortedIds();
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  // Built from the fragments (a footer and an id column each, and one deletion vector per
  // fragment that has one), then written back with one conditional create.
  storage::OpCounts build = counting_->Snapshot();
  EXPECT_EQ(build.put_if_absent, 1u) << build.ToString();
  EXPECT_EQ(build.puts, 0u) << build.ToString();
  EXPECT_GE(build.gets, 6u) << build.ToString();
  std::set<std::string> live;
  for (const char* prefix : {"a", "b", "c"}) {
    for (const std::string& id : Ids(prefix, 0, 6)) live.insert(id);
  }
  for (const char* gone : {"b101", "a103", "a105", "c104", "c105"}) live.erase(gone);
  EXPECT_EQ(AllIds(**built), std::vector<std::string>(live.begin(), live.end()));

  auto cold = Cold(pin);
  counting_->Reset();
  Result<std::shared_ptr<const IdIndex>> read = cold->SortedIds();
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  storage::OpCounts once = counting_->Snapshot();
  EXPECT_EQ(once.gets, 1u) << once.ToString();
  EXPECT_EQ(once.total(), 1u) << once.ToString();
  EXPECT_EQ(AllIds(**read), AllIds(**built));
  EXPECT_TRUE(std::ranges::equal(W(**read).refs(), W(**built).refs()));
  // 15 rows written, 2 deleted; ascending.
  ASSERT_EQ((*read)->size(), 13u);
  EXPECT_EQ(W(**read).IdAt(0), "a100");
  EXPECT_EQ(W(**read).Find("a103"), nullptr);
  EXPECT_NE(W(**read).Find("c103"), nullptr);
}

TEST_F(IndexesTest, AColdLookupReadsOneIndexAndOnlyTheFragmentHoldingTheRow) {
  const TablePin pin = ThreeFragments(false);
  ASSERT_TRUE(Cold(pin)->BuildIndexes().ok());
  auto cold = Cold(pin);
  counting_->Reset();
  const std::vector<std::string> want = {"c102"};
  Result<LookupResult> found = cold->Lookup(want);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  ASSERT_EQ(found->found, std::vector<bool>{true});
  // The index, then one read of the holding fragment (small: its columns come with its footer);
  // no other fragment.
  storage::OpCounts counts = counting_->Snapshot();
  EXPECT_EQ(counts.gets, 2u) << counts.ToString();
  EXPECT_EQ(counts.total(), 2u) << counts.ToString();
}

TEST_F(IndexesTest, ADamagedOrForeignIndexIsRebuiltAndReplaced) {
  const TablePin pin = ThreeFragments(false);
  const std::string name = NameOf(pin, kIdsKind);
  auto expected = Cold(pin)->SortedIds();
  ASSERT_TRUE(expected.ok());
  for (std::string bad : {std::string("not an envelope"), std::string()}) {
    if (bad.empty()) {
      // A well-formed envelope whose payload is damaged inside a section.
      Result<storage::GetResult> good = memory_->Get(name);
      ASSERT_TRUE(good.ok());
      bad = good->data;
      bad[bad.size() - 1] ^= 0x5a;
    }
    ASSERT_TRUE(memory_->Put(name, bad).ok());
    auto cold = Cold(pin);
    counting_->Reset();
    Result<std::shared_ptr<const IdIndex>> rebuilt = cold->SortedIds();
    ASSERT_TRUE(rebuilt.ok()) << rebuilt.status().ToString();
    EXPECT_EQ(AllIds(**rebuilt), AllIds(**expected));
    EXPECT_EQ(counting_->Snapshot().puts, 1u) << counting_->Snapshot().ToString();
    auto next = Cold(pin);
    counting_->Reset();
    ASSERT_TRUE(next->SortedIds().ok());
    EXPECT_EQ(counting_->Snapshot().gets, 1u) << "the replacement decodes";
  }
}

// A stored blocked index whose block is malformed under right checksums (crafted: two ids
// swapped, every checksum of the payload and of its envelope computed over it) opens; a lookup
// that needs the block is Corruption naming the object. A read of the whole index then treats it
// as any damaged derived object: rebuilt from the fragments, cached in its place and replaced in
// the store, so the lookup answers afterwards, here and in a fresh reader (decision 215).
TEST_F(IndexesTest, ACraftedBlockIsCorruptionOnALookupAndTheWholeReadReplacesIt) {
  const TablePin pin = ThreeFragments(false);
  const std::string name = NameOf(pin, kIdsKind);
  Result<std::shared_ptr<const IdIndex>> expected = Cold(pin)->SortedIds();
  ASSERT_TRUE(expected.ok()) << expected.status().ToString();
  Result<const IdIndex*> good = (*expected)->Whole();
  ASSERT_TRUE(good.ok());
  std::vector<std::string> ids = AllIds(**good);
  std::swap(ids[3], ids[4]);
  std::string blob;
  std::vector<uint32_t> ends;
  for (const std::string& id : ids) ends.push_back(static_cast<uint32_t>((blob += id).size()));
  const std::vector<RowRef> refs((*good)->refs().begin(), (*good)->refs().end());
  const TableManifest& manifest = Cold(pin)->manifest();
  const std::string crafted = IdIndex(blob, ends, refs).EncodeRevision(3, kIdsRevisionBlocked);
  ASSERT_TRUE(memory_->Put(name, EncodeDerived(manifest, kIdsKind, crafted)).ok());

  auto cold = Cold(pin);
  const std::string wanted[] = {ids[3]};
  const uint32_t fields[] = {kIdFieldId};
  Result<LookupResult> lookup = cold->Lookup(wanted, fields);
  ASSERT_FALSE(lookup.ok());
  EXPECT_EQ(lookup.status().code(), Code::kCorruption) << lookup.status().ToString();
  EXPECT_EQ(lookup.status().object(), name);
  EXPECT_THAT(lookup.status().message(), HasSubstr("block 0: ids out of order"));
  EXPECT_EQ(cold->Contains(std::vector<std::string_view>{ids[0]}).status().object(), name);

  counting_->Reset();
  Result<std::vector<std::string>> all = cold->Ids();
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(*all, AllIds(**good));
  EXPECT_EQ(counting_->Snapshot().puts, 1u) << counting_->Snapshot().ToString();
  lookup = cold->Lookup(wanted, fields);
  ASSERT_TRUE(lookup.ok()) << lookup.status().ToString();
  EXPECT_EQ(lookup->found, std::vector<bool>{true});

  auto next = Cold(pin);
  counting_->Reset();
  lookup = next->Lookup(wanted, fields);
  ASSERT_TRUE(lookup.ok()) << lookup.status().ToString();
  EXPECT_EQ(lookup->rows.column(0).StringAt(0), ids[3]);
  Result<std::shared_ptr<const IdIndex>> replaced = next->PointIds();
  ASSERT_TRUE(replaced.ok());
  EXPECT_TRUE((*replaced)->blocked()) << "the replacement is a stored (blocked) index again";
  EXPECT_EQ(counting_->Snapshot().puts, 0u) << counting_->Snapshot().ToString();
}

// A stored index of the prefixed revision damaged in a block a lookup does not need: a fresh
// reader's lookup reads the object once, decodes (and hashes) one block and answers from it — no
// fragment read for the index, no rebuild, no write — where a whole-payload checksum would have
// made it rebuild the index from the fragments. A lookup in the damaged block is Corruption
// naming the object and the block; the whole read finds the damage, rebuilds the index and
// replaces the object, after which both lookups answer (decisions 215, 234).
TEST_F(IndexesTest, AFreshLookupChecksOnlyItsBlockAndTheWholeReadFindsDamageElsewhere) {
  Random random(6);
  const NewTable table{TableId{0x33, 0x1}, "Person", ModelSchema(false)};
  const int rows = static_cast<int>(5 * kPrefixedBlockIds - 40);  // Five blocks.
  Result<TablePin> pin =
      tables_->Create(table, MakeRows(table.schema, Ids("p", 0, rows), random), std::nullopt);
  ASSERT_TRUE(pin.ok()) << pin.status().ToString();
  ASSERT_TRUE(Cold(*pin)->BuildIndexes().ok());
  const std::string name = NameOf(*pin, kIdsKind);
  Result<storage::GetResult> stored = memory_->Get(name);
  ASSERT_TRUE(stored.ok());
  const std::string first[] = {"p100"};
  const uint32_t fields[] = {kIdFieldId};
  auto good = Cold(*pin);
  counting_->Reset();
  ASSERT_TRUE(good->Lookup(first, fields).ok());
  const storage::OpCounts undamaged = counting_->Snapshot();
  std::string bad = stored->data;
  // The object's last byte: in the last of five blocks, which holds the largest id, p999.
  bad[bad.size() - 1] ^= 0x01;
  ASSERT_TRUE(memory_->Put(name, bad).ok());

  auto cold = Cold(*pin);
  counting_->Reset();
  Result<LookupResult> lookup = cold->Lookup(first, fields);
  ASSERT_TRUE(lookup.ok()) << lookup.status().ToString();
  EXPECT_EQ(lookup->found, std::vector<bool>{true});
  // The same calls as over the undamaged object: the index, then the row's fragment.
  const storage::OpCounts counts = counting_->Snapshot();
  EXPECT_EQ(counts.ToString(), undamaged.ToString());
  EXPECT_EQ(counts.total(), counts.gets) << counts.ToString();
  Result<std::shared_ptr<const IdIndex>> point = cold->PointIds();
  ASSERT_TRUE(point.ok());
  EXPECT_TRUE((*point)->blocked());
  EXPECT_EQ((*point)->blocks_decoded(), 1u);

  const std::string last[] = {"p999"};
  lookup = cold->Lookup(last, fields);
  ASSERT_FALSE(lookup.ok());
  EXPECT_EQ(lookup.status().code(), Code::kCorruption) << lookup.status().ToString();
  EXPECT_EQ(lookup.status().object(), name);
  EXPECT_THAT(lookup.status().message(), HasSubstr("block 4: checksum mismatch"));

  counting_->Reset();
  Result<std::shared_ptr<const IdIndex>> whole = cold->SortedIds();
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  EXPECT_EQ((*whole)->size(), static_cast<size_t>(rows));
  EXPECT_EQ(counting_->Snapshot().puts, 1u) << counting_->Snapshot().ToString();
  lookup = cold->Lookup(last, fields);
  ASSERT_TRUE(lookup.ok()) << lookup.status().ToString();
  EXPECT_EQ(lookup->rows.column(0).StringAt(0), "p999");
  Result<storage::GetResult> replaced = memory_->Get(name);
  ASSERT_TRUE(replaced.ok());
  EXPECT_EQ(replaced->data, stored->data);
}

TEST_F(IndexesTest, SmallVersionsKeepNoDerivedIndex) {
  Random random(5);
  const NewTable table{TableId{0x32, 0x1}, "Person", ModelSchema(false)};
  Result<TablePin> v1 = tables_->Create(
      table, MakeRows(table.schema, Ids("p", 0, kRowsMin - 1), random), std::nullopt);
  ASSERT_TRUE(v1.ok());
  auto cold = Cold(*v1);
  ASSERT_TRUE(cold->BuildIndexes().ok());
  ASSERT_TRUE(cold->SortedIds().ok());
  counting_->Reset();
  ASSERT_TRUE(Cold(*v1)->SortedIds().ok());
  // Built from the single fragment again (footer and id column); nothing looked up or written.
  storage::OpCounts counts = counting_->Snapshot();
  EXPECT_EQ(counts.gets, 2u) << counts.ToString();
  EXPECT_EQ(counts.total(), 2u) << counts.ToString();
  EXPECT_EQ(memory_->Head(NameOf(*v1, kIdsKind)).status().kind(), Kind::kNotFound);
}

// `bytes` decoded against `m` is Corruption naming the object "obj" and saying `why`.
void ExpectRejected(const std::string& bytes, const TableManifest& m, std::string_view why) {
  Result<IdIndex> decoded = IdIndex::Decode(Shared(bytes), m, "obj");
  ASSERT_FALSE(decoded.ok()) << why;
  EXPECT_EQ(decoded.status().code(), Code::kCorruption) << why;
  EXPECT_NE(decoded.status().ToString().find("obj"), std::string::npos) << why;
  EXPECT_NE(decoded.status().ToString().find(why), std::string::npos)
      << decoded.status().ToString();
}

TEST_F(IndexesTest, IdIndexDecodeRejectsDamageNamingTheObject) {
  const TablePin pin = ThreeFragments(false);
  auto version = Cold(pin);
  Result<std::shared_ptr<const IdIndex>> index = version->SortedIds();
  ASSERT_TRUE(index.ok());
  // Revisions 0 to 2 check every byte when decoded; revisions 3 and 4 (what the writer stores)
  // their preamble and prefix, and a block's bytes when the block is decoded (decision 234).
  for (uint32_t revision : {kIdsRevisionFlat, kIdsRevisionCompact, kIdsRevisionBlocked,
                            kIdsRevisionPrefixed, kIdsRevisionStepped}) {
    SCOPED_TRACE("revision " + std::to_string(revision));
    const std::string payload = W(**index).EncodeRevision(3, revision);
    ASSERT_TRUE(IdIndex::Decode(Shared(payload), version->manifest(), "obj").ok());
    for (size_t at : {size_t{0}, size_t{50}, size_t{60}, payload.size() - 1}) {
      std::string bad = payload;
      bad[at] ^= 0x01;
      Result<IdIndex> decoded = IdIndex::Decode(Shared(bad), version->manifest(), "obj");
      Status status = decoded.status();
      if (revision >= kIdsRevisionPrefixed && at == payload.size() - 1) {
        ASSERT_TRUE(decoded.ok()) << status.ToString();
        status = decoded->Whole().status();
        EXPECT_THAT(status.message(), HasSubstr("block 0: checksum mismatch"));
      }
      ASSERT_FALSE(status.ok()) << "byte " << at;
      EXPECT_EQ(status.code(), Code::kCorruption);
      EXPECT_NE(status.ToString().find("obj"), std::string::npos);
    }
    EXPECT_FALSE(IdIndex::Decode(Shared(payload.substr(0, 40)), version->manifest(), "obj").ok());
  }
  EXPECT_FALSE(IdIndex::Decode(Shared(W(**index).Encode(2)), version->manifest(), "obj").ok());
}

// Every revision of the stored payload decodes to the index it was made from; the writer
// stores the stepped one (4) unless the flat one is smaller (the empty index).
TEST_F(IndexesTest, EveryIdIndexRevisionRoundTripsAndTheWriterPicksStepped) {
  const TablePin pin = ThreeFragments(false);
  auto version = Cold(pin);
  Result<std::shared_ptr<const IdIndex>> index = version->SortedIds();
  ASSERT_TRUE(index.ok());
  const std::string flat = W(**index).EncodeRevision(3, kIdsRevisionFlat);
  const std::string compact = W(**index).EncodeRevision(3, kIdsRevisionCompact);
  const std::string blocked = W(**index).EncodeRevision(3, kIdsRevisionBlocked);
  const std::string prefixed = W(**index).EncodeRevision(3, kIdsRevisionPrefixed);
  const std::string stepped = W(**index).EncodeRevision(3, kIdsRevisionStepped);
  for (const std::string& payload : {flat, compact, blocked, prefixed, stepped}) {
    Result<IdIndex> back = IdIndex::Decode(Shared(payload), version->manifest(), "obj");
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(AllIds(*back), AllIds(**index));
    EXPECT_TRUE(std::ranges::equal(W(*back).refs(), W(**index).refs()));
    EXPECT_EQ(W(*back).Position("c102"), W(**index).Position("c102"));
    EXPECT_EQ(W(*back).Find("b101"), nullptr);
  }
  EXPECT_LT(compact.size(), flat.size());
  EXPECT_LT(blocked.size(), flat.size());
  EXPECT_LT(prefixed.size(), flat.size());
  EXPECT_LT(stepped.size(), flat.size());
  EXPECT_EQ(W(**index).Encode(3), stepped);
  // An empty index: the other preambles are the longer, so the flat revision is stored.
  const IdIndex empty({}, {}, {});
  EXPECT_EQ(empty.Encode(0), empty.EncodeRevision(0, kIdsRevisionFlat));
  TableManifest none;
  for (uint32_t revision :
       {kIdsRevisionCompact, kIdsRevisionBlocked, kIdsRevisionPrefixed, kIdsRevisionStepped}) {
    Result<IdIndex> back = IdIndex::Decode(Shared(empty.EncodeRevision(0, revision)), none, "o");
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(back->size(), 0u);
    EXPECT_EQ(W(*back).Position("a"), -1);
    EXPECT_EQ(W(*back).Find("a"), nullptr);
  }
}

// An index of `n` ids ("k" + a zero-padded number, every third one skipped so that lookups fall
// between ids) over three fragments of `n` rows, with runs of consecutive rows that cross block
// boundaries and runs of one; and its manifest.
struct ManyIds {
  IdIndex index;
  TableManifest manifest;
  std::vector<std::string> ids;
};
ManyIds MakeManyIds(size_t n) {
  ManyIds out;
  std::string blob;
  std::vector<uint32_t> ends;
  std::vector<RowRef> refs;
  for (size_t i = 0; i < n; ++i) {
    std::string id = std::to_string(1000000 + 3 * i + 1);
    out.ids.push_back("k" + id);
    ends.push_back(static_cast<uint32_t>((blob += out.ids.back()).size()));
    // Rows 0, 1, 2, ... of fragment 0 for the first 300 ids (runs across blocks), then every
    // id alone in fragment 1 or 2, rows descending.
    refs.push_back(i < 300
                       ? RowRef{0, static_cast<uint32_t>(i)}
                       : RowRef{static_cast<uint32_t>(1 + i % 2), static_cast<uint32_t>(n - i)});
  }
  out.index = IdIndex(blob, ends, refs);
  out.manifest.entity_count = n;
  for (int f = 0; f < 3; ++f) out.manifest.fragments.push_back(FragmentEntry{.rows = n + 1});
  return out;
}

// Ids per block of a blocked (2), prefixed (3) or stepped (4) payload as the writer makes it.
size_t BlockIds(uint32_t revision) {
  return revision >= kIdsRevisionPrefixed ? kPrefixedBlockIds : kIdBlockIds;
}

// `payload`, `many`'s index in `revision`, cut short, lengthened, cut inside its preamble, built
// for another fragment count or read for a version of another row count: Corruption naming the
// object, when it is opened.
void ExpectFramingRejected(const std::string& payload, uint32_t revision, const ManyIds& many) {
  ExpectRejected(payload.substr(0, payload.size() - 1), many.manifest, "size differs");
  ExpectRejected(payload + "x", many.manifest, "size differs");
  ExpectRejected(payload.substr(0, 60), many.manifest, "shorter than its preamble");
  ExpectRejected(many.index.EncodeRevision(2, revision), many.manifest, "fragment count");
  TableManifest more = many.manifest;
  ++more.entity_count;
  ExpectRejected(payload, more, "live rows");
}

// The blocked and prefixed revisions answer a point lookup from one block, decoding no other,
// and give what the eager decoders give for every id, every position and ids that are not there;
// the flat copy (refs()) is the same index.
void ExpectOneBlockPerLookup(uint32_t revision) {
  const size_t block = BlockIds(revision);
  const size_t n = 8 * block - 24;  // 8 blocks, the last one shorter.
  const size_t probe = n * 7 / 10;
  const ManyIds many = MakeManyIds(n);
  const std::string payload = many.index.EncodeRevision(3, revision);
  EXPECT_EQ(many.index.Encode(3) == payload, revision == kIdsRevisionStepped);
  Result<IdIndex> blocked = IdIndex::Decode(Shared(payload), many.manifest, "obj");
  ASSERT_TRUE(blocked.ok()) << blocked.status().ToString();
  Result<IdIndex> compact = IdIndex::Decode(
      Shared(many.index.EncodeRevision(3, kIdsRevisionCompact)), many.manifest, "obj");
  ASSERT_TRUE(compact.ok()) << compact.status().ToString();
  ASSERT_TRUE(blocked->blocked());
  EXPECT_EQ(blocked->size(), n);
  EXPECT_EQ(blocked->blocks_decoded(), 0u);
  EXPECT_EQ(*blocked->Locate(many.ids[probe]), static_cast<int64_t>(probe));
  EXPECT_EQ(blocked->blocks_decoded(), 1u);
  EXPECT_EQ(**blocked->LocateRef(many.ids[probe]), compact->RefAt(probe));
  EXPECT_EQ(blocked->blocks_decoded(), 1u);
  for (size_t i = 0; i < many.ids.size(); ++i) {
    ASSERT_EQ(*blocked->Locate(many.ids[i]), static_cast<int64_t>(i));
    ASSERT_EQ(*blocked->IdAtPosition(i), compact->IdAt(i));
    ASSERT_EQ(*blocked->RefAtPosition(i), compact->RefAt(i));
    // Between this id and the next, and past the last.
    const std::string between = std::to_string(1000000 + 3 * i + 2);
    ASSERT_EQ(*blocked->Locate("k" + between), -1);
    ASSERT_EQ(*blocked->LocateRef("k" + between), nullptr);
  }
  EXPECT_EQ(*blocked->Locate("a"), -1);
  EXPECT_EQ(*blocked->Locate("l"), -1);
  EXPECT_EQ(blocked->blocks_decoded(), 8u);
  // The references alone, before the flat copy (decision 255): the compact decoder's, a block
  // decoded before reused and no other kept.
  Result<IdIndex> fresh = IdIndex::Decode(Shared(payload), many.manifest, "obj");
  ASSERT_TRUE(fresh.ok()) << fresh.status().ToString();
  ASSERT_EQ(*fresh->Locate(many.ids[probe]), static_cast<int64_t>(probe));
  Result<std::optional<std::vector<RowRef>>> refs = fresh->BlockedRefs();
  ASSERT_TRUE(refs.ok()) << refs.status().ToString();
  ASSERT_TRUE(refs->has_value());
  EXPECT_TRUE(std::ranges::equal(**refs, compact->refs()));
  EXPECT_EQ(fresh->blocks_decoded(), 1u);
  EXPECT_FALSE(compact->BlockedRefs()->has_value()) << "not blocked: refs() instead";
  Result<const IdIndex*> whole = blocked->Whole();
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  EXPECT_FALSE(blocked->BlockedRefs()->has_value()) << "the flat copy is made: its refs()";
  EXPECT_FALSE((*whole)->blocked());
  EXPECT_TRUE(std::ranges::equal((*whole)->refs(), compact->refs()));
  EXPECT_EQ((*whole)->EncodeRevision(3, revision), payload);
  // The whole-index calls are a programmer error on the blocked index itself.
  EXPECT_DEATH((void)blocked->Position(many.ids[0]), "Position on a blocked id index");
}

TEST_F(IndexesTest, ABlockedIdIndexAnswersAPointLookupFromOneBlockAsTheEagerOnesDo) {
  for (uint32_t revision : {kIdsRevisionBlocked, kIdsRevisionPrefixed, kIdsRevisionStepped}) {
    SCOPED_TRACE("revision " + std::to_string(revision));
    ExpectOneBlockPerLookup(revision);
  }
}

// A blocked payload damaged in its preamble, any of its three sections, cut short or
// lengthened, or built for another version, is Corruption naming the object when it is opened,
// before any block is decoded; so is a directory that is well framed but out of order.
TEST_F(IndexesTest, ABlockedIdIndexRejectsDamageWhenOpenedNamingTheObject) {
  const ManyIds many = MakeManyIds(1000);
  const std::string payload = many.index.EncodeRevision(3, kIdsRevisionBlocked);
  const size_t runs_bytes = LoadLe<uint64_t>(payload, 24);
  const size_t ids_bytes = LoadLe<uint64_t>(payload, 32);
  const auto rejected = ExpectRejected;
  for (size_t at : {size_t{0}, size_t{30}, size_t{60}, size_t{70}}) {
    std::string bad = payload;
    bad[at] ^= 0x01;
    rejected(bad, many.manifest, "preamble checksum");
  }
  for (size_t at : {size_t{72}, 72 + runs_bytes, 72 + runs_bytes + ids_bytes, payload.size() - 1}) {
    std::string bad = payload;
    bad[at] ^= 0x01;
    rejected(bad, many.manifest, "section checksum");
  }
  ExpectFramingRejected(payload, kIdsRevisionBlocked, many);
  // Two blocks' directory entries swapped, the checksums made right again.
  std::string swapped = payload;
  const size_t dir = 72 + runs_bytes + ids_bytes;
  std::swap_ranges(swapped.begin() + dir + 12, swapped.begin() + dir + 24,
                   swapped.begin() + dir + 24);
  std::string rehashed = swapped.substr(0, 56);
  AppendLe<uint64_t>(rehashed, XxHash64(std::string_view(swapped).substr(dir)));
  AppendLe<uint64_t>(rehashed, XxHash64(rehashed));
  rejected(rehashed + swapped.substr(72), many.manifest, "block directory out of order");
}

// A blocked payload whose checksums are right but whose blocks are malformed (crafted, or a
// writer's defect: a damaged byte fails a checksum when the index is opened) opens, and each bad
// block is Corruption naming the object and the block when a call first needs it — every point
// call, each time, and the whole index — never an answer or a crash; the good blocks still answer
// (decision 215).
void ExpectCraftedBlocksAreCorruption(uint32_t revision) {
  const size_t block = BlockIds(revision);
  const size_t n = 2 * block + 44;  // Three blocks.
  ManyIds many = MakeManyIds(n);
  std::string blob;
  std::vector<uint32_t> ends;
  std::swap(many.ids[block + 2], many.ids[block + 3]);  // Inside the second block.
  for (const std::string& id : many.ids) ends.push_back(static_cast<uint32_t>((blob += id).size()));
  std::vector<RowRef> refs(many.index.refs().begin(), many.index.refs().end());
  const std::string payload = IdIndex(blob, ends, refs).EncodeRevision(3, revision);
  Result<IdIndex> blocked = IdIndex::Decode(Shared(payload), many.manifest, "obj");
  ASSERT_TRUE(blocked.ok()) << blocked.status().ToString();
  EXPECT_EQ(*blocked->Locate(many.ids[5]), 5);
  EXPECT_EQ(*blocked->IdAtPosition(2 * block + 4), many.ids[2 * block + 4]);
  const auto corrupt = [](const Status& status) {
    EXPECT_EQ(status.code(), Code::kCorruption) << status.ToString();
    EXPECT_EQ(status.object(), "obj");
    EXPECT_THAT(status.message(), HasSubstr("block 1: ids out of order"));
  };
  for (int twice = 0; twice < 2; ++twice) {
    corrupt(blocked->Locate(many.ids[block + 72]).status());
    corrupt(blocked->LocateRef(many.ids[block + 72]).status());
    corrupt(blocked->IdAtPosition(block).status());
    corrupt(blocked->RefAtPosition(2 * block - 1).status());
  }
  EXPECT_EQ(blocked->blocks_decoded(), 2u);  // Blocks 0 and 2; the bad one is never kept.
  corrupt(blocked->Whole().status());
  corrupt(blocked->Whole().status());

  // A row reference past its fragment in the third block: the runs resealed by hand.
  ManyIds past = MakeManyIds(n);
  std::vector<RowRef> far(past.index.refs().begin(), past.index.refs().end());
  far[n - 1].row = static_cast<uint32_t>(past.manifest.fragments[far[n - 1].source].rows);
  std::string ids_blob;
  std::vector<uint32_t> ids_ends;
  for (const std::string& id : past.ids) {
    ids_ends.push_back(static_cast<uint32_t>((ids_blob += id).size()));
  }
  Result<IdIndex> beyond = IdIndex::Decode(
      Shared(IdIndex(ids_blob, ids_ends, far).EncodeRevision(3, revision)), past.manifest, "obj2");
  ASSERT_TRUE(beyond.ok()) << beyond.status().ToString();
  EXPECT_EQ(*beyond->IdAtPosition(0), past.ids[0]);
  const Status last = beyond->RefAtPosition(n - 1).status();
  EXPECT_EQ(last.code(), Code::kCorruption) << last.ToString();
  EXPECT_EQ(last.object(), "obj2");
  EXPECT_THAT(last.message(), HasSubstr("block 2: row reference outside"));

  // A mutated byte inside a block's ids, resealed (ResealBlockedIds, as the fuzz harness does):
  // opened, then every point call and the whole index answer or refuse with Corruption.
  const std::string good = many.index.EncodeRevision(3, revision);
  // Revision 2's id section; revision 3's and 4's data area (each block's ids, then its runs).
  const size_t ids_at = revision == kIdsRevisionBlocked ? 72 + LoadLe<uint64_t>(good, 24)
                                                        : good.size() - LoadLe<uint64_t>(good, 32);
  for (size_t at = ids_at + 1; at < ids_at + 400; at += 7) {
    std::string bad = good;
    bad[at] = static_cast<char>(bad[at] + 0x31);
    Result<IdIndex> resealed =
        IdIndex::Decode(Shared(ResealBlockedIds(bad)), many.manifest, "obj3");
    if (!resealed.ok()) {
      EXPECT_EQ(resealed.status().object(), "obj3");
      continue;
    }
    for (size_t i = 0; i < resealed->size(); i += 37) {
      const Result<std::string_view> id = resealed->IdAtPosition(i);
      if (!id.ok()) {
        EXPECT_EQ(id.status().code(), Code::kCorruption);
        EXPECT_EQ(id.status().object(), "obj3");
      }
    }
    const Result<const IdIndex*> whole = resealed->Whole();
    if (!whole.ok()) {
      EXPECT_EQ(whole.status().object(), "obj3");
    }
  }
}

TEST_F(IndexesTest, ABlockedIdIndexWithACraftedBlockIsCorruptionNamingTheObject) {
  for (uint32_t revision : {kIdsRevisionBlocked, kIdsRevisionPrefixed, kIdsRevisionStepped}) {
    SCOPED_TRACE("revision " + std::to_string(revision));
    ExpectCraftedBlocksAreCorruption(revision);
  }
}

// The order of a block's ids is checked from the first byte past each id's shared prefix
// (decision 247): an id equal to the one before it, or a proper prefix of it, or one whose first
// differing byte is smaller, is Corruption naming the block; an id that extends the one before
// it, or differs in a larger byte, decodes. In the blocked (2) and prefixed (3) revisions.
TEST_F(IndexesTest, ABlocksIdOrderIsDecidedAtTheFirstByteAfterTheSharedPrefix) {
  for (uint32_t revision : {kIdsRevisionBlocked, kIdsRevisionPrefixed, kIdsRevisionStepped}) {
    const size_t block = BlockIds(revision);
    const size_t n = 2 * block + 44;
    const auto decode = [&](const std::vector<std::string>& ids, const ManyIds& many) {
      std::string blob;
      std::vector<uint32_t> ends;
      for (const std::string& id : ids) ends.push_back(static_cast<uint32_t>((blob += id).size()));
      const std::vector<RowRef> refs(many.index.refs().begin(), many.index.refs().end());
      Result<IdIndex> index = IdIndex::Decode(
          Shared(IdIndex(blob, ends, refs).EncodeRevision(3, revision)), many.manifest, "obj");
      EXPECT_TRUE(index.ok()) << index.status().ToString();
      return index.ok() ? index->Whole().status() : index.status();
    };
    const ManyIds many = MakeManyIds(n);
    const std::string& prev = many.ids[block + 2];
    const std::string prefix = prev.substr(0, prev.size() - 1);
    std::string smaller = prev;
    smaller.back() = static_cast<char>(smaller.back() - 1);
    for (const std::string& bad : {prev, prefix, smaller}) {
      SCOPED_TRACE("revision " + std::to_string(revision) + ", id " + bad + " after " + prev);
      std::vector<std::string> ids = many.ids;
      ids[block + 3] = bad;
      const Status status = decode(ids, many);
      EXPECT_EQ(status.code(), Code::kCorruption) << status.ToString();
      EXPECT_EQ(status.object(), "obj");
      EXPECT_THAT(status.message(), HasSubstr("block 1: ids out of order"));
    }
    // Extending the id before it (with a byte 0x01 or 0xff) decodes, and so does a last id whose
    // last byte is 0xff where the one before has a digit (the bytes compare unsigned).
    for (const std::string& good : {prev + "\x01", prev + "\xff"}) {
      std::vector<std::string> ids = many.ids;
      ids[block + 3] = good;
      EXPECT_TRUE(decode(ids, many).ok()) << revision;
    }
    std::vector<std::string> high = many.ids;
    high[n - 1] = high[n - 2].substr(0, high[n - 2].size() - 1) + "\xff";
    EXPECT_TRUE(decode(high, many).ok()) << revision;
  }
}

// `count` ULIDs from `first`, each the one greater than the one before (as a load mints them).
std::vector<std::string> SteppedUlids(std::string first, size_t count) {
  std::vector<std::string> out;
  for (size_t i = 0; i < count; ++i) {
    out.push_back(first);
    EXPECT_TRUE(Ulid::StepText(first)) << first;
  }
  return out;
}

// The index of `ids` (ascending) at rows 0, 1, ... of one fragment, and its manifest.
ManyIds IndexOf(std::vector<std::string> ids) {
  ManyIds out;
  std::string blob;
  std::vector<uint32_t> ends;
  std::vector<RowRef> refs;
  for (size_t i = 0; i < ids.size(); ++i) {
    ends.push_back(static_cast<uint32_t>((blob += ids[i]).size()));
    refs.push_back(RowRef{0, static_cast<uint32_t>(i)});
  }
  out.ids = std::move(ids);
  out.index = IdIndex(blob, ends, refs);
  out.manifest.entity_count = out.ids.size();
  out.manifest.fragments.push_back(FragmentEntry{.rows = out.ids.size()});
  return out;
}

// A load mints its generated ids in runs, each the ULID one greater than the one before
// (UlidGenerator::NextRunAt): the stepped revision stores such a run as one entry per block, so
// the index of 5,000 of them — two runs, one carrying through many characters, between ids that
// are not ULIDs — takes a small part of the prefixed revision's bytes and well under a byte an id,
// and gives every id, position and reference the prefixed one gives (decision 260).
TEST_F(IndexesTest, TheSteppedIdIndexStoresARunOfMintedUlidsAsOneEntryPerBlock) {
  std::vector<std::string> ids = {"00-given", "01HZZZZZZZZZZZZZZZZZZZZZZZ"};
  for (std::string& id : SteppedUlids("01J00000000000000000000000", 3000)) ids.push_back(id);
  for (std::string& id : SteppedUlids("01J0000000000000000ZZZZZZX", 2000)) ids.push_back(id);
  ids.push_back(ids.back() + "zz");             // A ULID's text extended: not a step.
  ids.push_back("7ZZZZZZZZZZZZZZZZZZZZZZZZZ");  // The largest ULID, last.
  ids.push_back("given-last");
  ASSERT_TRUE(std::ranges::is_sorted(ids));
  ASSERT_EQ(std::ranges::adjacent_find(ids), ids.end());
  const ManyIds many = IndexOf(ids);
  const std::string prefixed = many.index.EncodeRevision(1, kIdsRevisionPrefixed);
  const std::string stepped = many.index.EncodeRevision(1, kIdsRevisionStepped);
  EXPECT_EQ(many.index.Encode(1), stepped);
  // 20 blocks: per block a head (26 bytes), its prefix entry (16), one run entry and one run of
  // references, against front-coding's three bytes or more an id.
  EXPECT_LT(stepped.size(), ids.size() / 2) << stepped.size();
  EXPECT_LT(stepped.size() * 5, prefixed.size()) << stepped.size() << " vs " << prefixed.size();
  Result<IdIndex> back = IdIndex::Decode(Shared(stepped), many.manifest, "obj");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  Result<IdIndex> old = IdIndex::Decode(Shared(prefixed), many.manifest, "obj");
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  for (size_t i = 0; i < ids.size(); ++i) {
    ASSERT_EQ(*back->Locate(ids[i]), static_cast<int64_t>(i)) << ids[i];
    ASSERT_EQ(*back->IdAtPosition(i), ids[i]);
    ASSERT_EQ(*back->RefAtPosition(i), *old->RefAtPosition(i));
  }
  EXPECT_EQ(*back->Locate("01J0000000000000000ZZZZZZY"), static_cast<int64_t>(3003));
  EXPECT_EQ(*back->Locate("01J0000000000000000ZZZZZZW"), -1);
  EXPECT_EQ(*back->Locate("01J0000000000000000ZZZZZZXa"), -1);
  Result<IdIndex> fresh = IdIndex::Decode(Shared(stepped), many.manifest, "obj");
  ASSERT_TRUE(fresh.ok());
  Result<std::optional<std::vector<RowRef>>> refs = fresh->BlockedRefs();
  ASSERT_TRUE(refs.ok()) << refs.status().ToString();
  EXPECT_TRUE(std::ranges::equal(**refs, W(*old).refs()));
  EXPECT_EQ(AllIds(*back), ids);
  EXPECT_EQ(W(*back).EncodeRevision(1, kIdsRevisionStepped), stepped);
}

// A stepped entry that cannot stand (crafted, with every checksum right): a step after an id
// that is not a ULID, after the largest ULID, from a lower-case one (its step would sort before
// it), or a run longer than the block — Corruption naming the object and the block when the
// block is decoded, never an id out of order.
TEST_F(IndexesTest, ASteppedEntryThatCannotStandIsCorruptionNamingTheBlock) {
  const ManyIds pair = IndexOf(SteppedUlids("01J00000000000000000000000", 2));
  const std::string valid = pair.index.EncodeRevision(1, kIdsRevisionStepped);
  // One block: the data area is its one run entry (1: a run of one) and its references.
  const uint64_t data_bytes = LoadLe<uint64_t>(valid, 32);
  const std::string data = valid.substr(valid.size() - data_bytes);
  ASSERT_EQ(data[0], '\x01');
  // `head` and `second` (any id above it) stored with `entries` in place of the block's.
  const auto crafted = [&](const std::string& head, const std::string& second,
                           const std::string& entries) {
    const std::string payload =
        IndexOf({head, second}).index.EncodeRevision(1, kIdsRevisionStepped);
    const uint64_t old_bytes = LoadLe<uint64_t>(payload, 32);
    std::string out = payload.substr(0, payload.size() - old_bytes);
    const std::string area = entries + data.substr(1);
    out += area;
    const uint64_t d = area.size();
    std::memcpy(out.data() + 32, &d, 8);
    const auto end = static_cast<uint32_t>(d);
    std::memcpy(out.data() + 64 + 8, &end, 4);  // One block: its end follows its checksum.
    return ResealBlockedIds(out);
  };
  const std::string ulid_long = "80000000000000000000000000";
  struct Case {
    std::string head, second, entries, why;
  };
  for (const Case& c : {
           Case{"zz", "zz000000000000000000000000", "\x01", "not a ULID"},
           Case{"7ZZZZZZZZZZZZZZZZZZZZZZZZZ", ulid_long, "\x01", "after the largest ULID"},
           Case{"01hzzzzzzzzzzzzzzzzzzzzzzz", "01hzzzzzzzzzzzzzzzzzzzzzzzz", "\x01",
                "after the largest ULID or one that is not a ULID"},
           Case{"01J00000000000000000000000", "01J00000000000000000000001", "\x03",
                "a run of stepped ids longer than the block"},
       }) {
    SCOPED_TRACE(c.why);
    Result<IdIndex> opened = IdIndex::Decode(Shared(crafted(c.head, c.second, c.entries)),
                                             IndexOf({c.head, c.second}).manifest, "obj");
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    for (const Status& status : {opened->IdAtPosition(1).status(), opened->Whole().status()}) {
      EXPECT_EQ(status.code(), Code::kCorruption) << status.ToString();
      EXPECT_EQ(status.object(), "obj");
      EXPECT_THAT(status.message(), HasSubstr("block 0: "));
      EXPECT_THAT(status.message(), HasSubstr(c.why));
    }
  }
  // The untouched transplant decodes: the crafting itself is sound.
  Result<IdIndex> same =
      IdIndex::Decode(Shared(crafted(pair.ids[0], pair.ids[1], "\x01")), pair.manifest, "obj");
  ASSERT_TRUE(same.ok()) << same.status().ToString();
  EXPECT_EQ(*same->IdAtPosition(1), pair.ids[1]);
}

// A prefixed payload (revision 3) damaged in its preamble or prefix, cut short or lengthened, or
// built for another version, is Corruption naming the object when it is opened; a damaged byte
// in a block is found when the block is first decoded — Corruption naming the object and the
// block, for every point call that needs it and for the whole index — while the other blocks
// answer (decision 234).
TEST_F(IndexesTest, APrefixedIdIndexRejectsDamageWhenOpenedOrWhenItsBlockIsRead) {
  const size_t n = 8 * kPrefixedBlockIds - 24;  // 8 blocks.
  const ManyIds many = MakeManyIds(n);
  const std::string payload = many.index.EncodeRevision(3, kIdsRevisionPrefixed);
  const size_t data_at = payload.size() - LoadLe<uint64_t>(payload, 32);
  const auto rejected = ExpectRejected;
  for (size_t at : {size_t{0}, size_t{24}, size_t{30}, size_t{40}, size_t{60}}) {
    std::string bad = payload;
    bad[at] ^= 0x01;
    rejected(bad, many.manifest, "preamble checksum");
  }
  // A checksum, a block's end, a head's end, a head.
  for (size_t at : {size_t{64}, size_t{64 + 8 * 8}, size_t{64 + 12 * 8}, size_t{64 + 16 * 8}}) {
    std::string bad = payload;
    bad[at] ^= 0x01;
    rejected(bad, many.manifest, "prefix checksum");
  }
  ExpectFramingRejected(payload, kIdsRevisionPrefixed, many);

  // The last byte of the data area is in block 7, the last.
  std::string bad = payload;
  bad[bad.size() - 1] ^= 0x01;
  Result<IdIndex> opened = IdIndex::Decode(Shared(bad), many.manifest, "obj");
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  const size_t seventh = 7 * kPrefixedBlockIds;
  EXPECT_EQ(*opened->Locate(many.ids[5]), 5);
  EXPECT_EQ(*opened->IdAtPosition(seventh - 1), many.ids[seventh - 1]);
  for (int twice = 0; twice < 2; ++twice) {
    for (const Status& status :
         {opened->Locate(many.ids[seventh + 4]).status(), opened->RefAtPosition(n - 1).status(),
          opened->Whole().status(), opened->BlockedRefs().status()}) {
      EXPECT_EQ(status.code(), Code::kCorruption) << status.ToString();
      EXPECT_EQ(status.object(), "obj");
      EXPECT_THAT(status.message(), HasSubstr("block 7: checksum mismatch"));
    }
  }
  EXPECT_EQ(opened->blocks_decoded(), 2u);
  // The first byte of the data area, block 0's.
  bad = payload;
  bad[data_at] ^= 0x01;
  opened = IdIndex::Decode(Shared(bad), many.manifest, "obj");
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  EXPECT_THAT(opened->IdAtPosition(0).status().message(), HasSubstr("block 0: checksum mismatch"));
}

// Opening a prefixed payload hashes its preamble and prefix, and a point lookup one block more:
// on the eight blocks below under a quarter of the payload, where opening revision 2 hashes all
// of it; the whole index hashes every block (decision 234).
TEST_F(IndexesTest, APrefixedIdIndexHashesOnlyThePrefixAndTheBlocksItDecodes) {
  const ManyIds many = MakeManyIds(8 * kPrefixedBlockIds - 24);  // 8 blocks.
  const std::string payload = many.index.EncodeRevision(3, kIdsRevisionPrefixed);
  Result<std::shared_ptr<const BlockedIds>> opened =
      BlockedIds::Open(Shared(payload), many.manifest, "obj");
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  const BlockedIds& ids = **opened;
  const uint64_t data_bytes = LoadLe<uint64_t>(payload, 32);
  const uint64_t prefix_bytes = payload.size() - data_bytes - 64;
  EXPECT_EQ(ids.bytes_hashed(), 56 + prefix_bytes);
  const size_t at = 2 * kPrefixedBlockIds + 44;
  ASSERT_EQ(*ids.Position(many.ids[at]), static_cast<int64_t>(at));
  const uint64_t one = ids.bytes_hashed() - (56 + prefix_bytes);
  EXPECT_GT(one, 0u);
  EXPECT_LE(one, data_bytes / 7) << "one block of eight (the last is shorter)";
  EXPECT_LT(ids.bytes_hashed(), payload.size() / 4) << payload.size();
  ASSERT_EQ(*ids.Position(many.ids[at + 1]), static_cast<int64_t>(at + 1));
  EXPECT_EQ(ids.bytes_hashed(), 56 + prefix_bytes + one) << "a kept block is not hashed again";
  ASSERT_TRUE(ids.DecodeAll().ok());
  EXPECT_EQ(ids.bytes_hashed(), 56 + prefix_bytes + one + data_bytes);

  const std::string blocked = many.index.EncodeRevision(3, kIdsRevisionBlocked);
  opened = BlockedIds::Open(Shared(blocked), many.manifest, "obj");
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  EXPECT_EQ((*opened)->bytes_hashed(), blocked.size());
}

// A compact payload damaged in its preamble or either section, cut short or lengthened, built
// for another version, or well framed but inconsistent (a row past its fragment, ids out of
// order) is Corruption naming the object.
TEST_F(IndexesTest, ACompactIdIndexRejectsDamageInEachSectionNamingTheObject) {
  const TablePin pin = ThreeFragments(false);
  auto version = Cold(pin);
  const TableManifest& manifest = version->manifest();
  Result<std::shared_ptr<const IdIndex>> index = version->SortedIds();
  ASSERT_TRUE(index.ok());
  const std::string payload = W(**index).EncodeRevision(3, kIdsRevisionCompact);
  const size_t runs_bytes = LoadLe<uint64_t>(payload, 24);
  const auto rejected = ExpectRejected;
  // Revision 1 flipped to 0 reads as a flat payload, whose preamble checksum fails.
  for (size_t at : {size_t{0}, size_t{20}, size_t{30}, size_t{60}}) {
    std::string bad = payload;
    bad[at] ^= 0x01;
    rejected(bad, manifest, "preamble checksum");
  }
  std::string other = payload;
  other[20] = 7;
  rejected(other, manifest, "unknown revision 7");
  for (size_t at : {size_t{64}, 64 + runs_bytes, payload.size() - 1}) {
    std::string bad = payload;
    bad[at] ^= 0x01;
    rejected(bad, manifest, "section checksum");
  }
  rejected(payload.substr(0, payload.size() - 1), manifest, "size differs");
  rejected(payload + "x", manifest, "size differs");
  rejected(payload.substr(0, 40), manifest, "shorter than its preamble");
  rejected(W(**index).EncodeRevision(2, kIdsRevisionCompact), manifest, "fragment count");
  TableManifest more = manifest;
  ++more.entity_count;
  rejected(payload, more, "live rows");
  // Well framed, checksums right, contents wrong.
  std::vector<std::string> ids = AllIds(**index);
  std::vector<RowRef> refs(W(**index).refs().begin(), W(**index).refs().end());
  auto framed = [&](const std::vector<std::string>& in, const std::vector<RowRef>& at) {
    std::string blob;
    std::vector<uint32_t> ends;
    for (const std::string& id : in) ends.push_back(static_cast<uint32_t>((blob += id).size()));
    return IdIndex(blob, ends, at).EncodeRevision(3, kIdsRevisionCompact);
  };
  std::vector<RowRef> past = refs;
  past[0].row = static_cast<uint32_t>(manifest.fragments[past[0].source].rows);
  rejected(framed(ids, past), manifest, "outside the version's fragments");
  std::vector<std::string> swapped = ids;
  std::swap(swapped[0], swapped[1]);
  rejected(framed(swapped, refs), manifest, "out of order");
}

// The oracle: from a scan, key id -> [(edge position, other id)] in edge-position order.
std::map<std::string, std::vector<std::pair<uint32_t, std::string>>> Oracle(
    const TableVersion& version, EdgeDirection direction) {
  std::vector<std::string> ids = *version.Ids();
  const uint32_t fields[] = {kIdFieldId, kSrcFieldId, kDstFieldId};
  Result<ColumnBatch> rows = version.ScanAll(ScanOptions{{fields, fields + 3}, {}});
  std::map<std::string, std::pair<std::string, std::string>> ends;
  for (uint64_t r = 0; r < rows->num_rows(); ++r) {
    ends[std::string(rows->column(0).StringAt(r))] = {std::string(rows->column(1).StringAt(r)),
                                                      std::string(rows->column(2).StringAt(r))};
  }
  std::map<std::string, std::vector<std::pair<uint32_t, std::string>>> out;
  for (uint32_t p = 0; p < ids.size(); ++p) {
    auto [src, dst] = ends.at(ids[p]);
    if (direction == EdgeDirection::kOut) {
      out[src].emplace_back(p, dst);
    } else {
      out[dst].emplace_back(p, src);
    }
  }
  return out;
}

std::map<std::string, std::vector<std::pair<uint32_t, std::string>>> Lists(const EdgeCsr& csr) {
  std::map<std::string, std::vector<std::pair<uint32_t, std::string>>> out;
  for (size_t k = 0; k < csr.keys.size(); ++k) {
    auto& list = out[std::string(csr.keys.At(k))];
    for (uint32_t s = csr.offsets[k]; s < csr.offsets[k + 1]; ++s) {
      list.emplace_back(csr.edges[s], std::string(csr.others.At(csr.targets[s])));
    }
  }
  return out;
}

TEST_F(IndexesTest, AdjacencyMatchesAScanAndIsReadInOneGetPerDirection) {
  const TablePin pin = ThreeFragments(true);
  ASSERT_TRUE(Cold(pin)->BuildIndexes().ok());
  // BuildIndexes stores the id index and the forward direction; the reverse is stored by the
  // first reader that asks for it.
  EXPECT_TRUE(memory_->Head(NameOf(pin, "csr.out")).ok());
  EXPECT_EQ(memory_->Head(NameOf(pin, "csr.in")).status().kind(), Kind::kNotFound);
  ASSERT_TRUE(Cold(pin)->Csr(EdgeDirection::kIn).ok());
  for (EdgeDirection direction : {EdgeDirection::kOut, EdgeDirection::kIn}) {
    auto cold = Cold(pin);
    counting_->Reset();
    Result<std::shared_ptr<const EdgeCsr>> csr = cold->Csr(direction);
    ASSERT_TRUE(csr.ok()) << csr.status().ToString();
    storage::OpCounts counts = counting_->Snapshot();
    EXPECT_EQ(counts.gets, 1u) << counts.ToString();
    EXPECT_EQ(counts.total(), 1u) << counts.ToString();
    EXPECT_EQ(Lists(**csr), Oracle(*cold, direction));
    EXPECT_EQ((*csr)->edges.size(), 13u);
  }
}

class IndexOrderTest : public IndexesTest {
 protected:
  // A version of three fragments whose ids ascend from one to the next (a1xx, b1xx, c1xx) with
  // three rows deleted, the same before the delete (each fragment's ids appended whole, decision
  // 245), one whose second fragment ascends but starts below the first's last id, and
  // ThreeFragments(edge), whose fragments interleave.
  std::vector<std::pair<TablePin, std::vector<std::string>>> Versions(bool edge) {
    Random random(6);
    const NewTable table{TableId{0x32, 0x2}, edge ? "Knows" : "Person", ModelSchema(edge)};
    const TablePin v3 = ThreeAppends(table, {{{"a", 5}, {"b", 4}, {"c", 3}}}, random);
    const std::vector<std::string> gone = {"a100", "b102", "c102"};
    Result<TablePin> ascending = tables_->Delete(v3, gone, std::nullopt);
    EXPECT_TRUE(ascending.ok()) << ascending.status().ToString();
    const NewTable other{TableId{0x32, 0x3}, edge ? "Knows2" : "Person2", ModelSchema(edge)};
    const TablePin below = ThreeAppends(other, {{{"b", 5}, {"a", 4}, {"c", 3}}}, random);
    return {{*ascending, gone}, {v3, {}}, {below, {}}, {ThreeFragments(edge), {"b101", "a103"}}};
  }

  void ExpectIndexed(bool edge) {
    for (const auto& [pin, gone] : Versions(edge)) {
      auto cold = Cold(pin);
      ASSERT_EQ(cold->manifest().fragments.size(), 3u);
      Result<std::shared_ptr<const IdIndex>> index = cold->SortedIds();
      ASSERT_TRUE(index.ok()) << index.status().ToString();
      const std::vector<std::string> ids = AllIds(**index);
      EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end()));
      EXPECT_EQ(ids.size(), cold->entity_count());
      for (const std::string& id : gone) {
        EXPECT_EQ(std::count(ids.begin(), ids.end(), id), 0) << id;
      }
      // Each id's row holds that id.
      Result<LookupResult> rows = cold->Lookup(ids);
      ASSERT_TRUE(rows.ok()) << rows.status().ToString();
      const Column* found = rows->rows.FindColumn(kIdFieldId);
      ASSERT_NE(found, nullptr);
      ASSERT_EQ(found->length(), ids.size());
      for (size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(found->StringAt(i), ids[i]);
      if (!edge) continue;
      ASSERT_TRUE(cold->BuildIndexes().ok());
      Result<std::shared_ptr<const EdgeCsr>> csr = Cold(pin)->Csr(EdgeDirection::kOut);
      ASSERT_TRUE(csr.ok()) << csr.status().ToString();
      EXPECT_EQ(Lists(**csr), Oracle(*cold, EdgeDirection::kOut));
    }
  }
};

// The id index of a version whose ids ascend from fragment to fragment is built as the fragments
// are read (TableContext::IndexInOrder); one whose fragments interleave is sorted. Both must be
// the sorted live ids, each naming the row that holds it, and the adjacency built over either
// must match the scan.
TEST_F(IndexOrderTest, NodeIdsAscendingAcrossFragmentsOrNotIndexTheSameLiveRows) {
  ExpectIndexed(false);
}

TEST_F(IndexOrderTest, EdgeIdsAscendingAcrossFragmentsOrNotIndexAndJoinTheSameLiveRows) {
  ExpectIndexed(true);
}

TEST_F(IndexesTest, ADamagedAdjacencyIsRebuiltAndANodeTableHasNone) {
  const TablePin pin = ThreeFragments(true);
  ASSERT_TRUE(Cold(pin)->BuildIndexes().ok());
  const std::string name = NameOf(pin, "csr.out");
  std::string bytes = memory_->Get(name)->data;
  bytes[bytes.size() - 3] ^= 0x10;
  ASSERT_TRUE(memory_->Put(name, bytes).ok());
  auto cold = Cold(pin);
  Result<std::shared_ptr<const EdgeCsr>> csr = cold->Csr(EdgeDirection::kOut);
  ASSERT_TRUE(csr.ok()) << csr.status().ToString();
  EXPECT_EQ(Lists(**csr), Oracle(*cold, EdgeDirection::kOut));
  const std::string replaced = memory_->Get(name)->data;
  EXPECT_NE(replaced, bytes);
  std::string_view payload = *DecodeDerived(cold->manifest(), "csr.out", replaced, name);
  EXPECT_TRUE(EdgeCsr::Decode(Shared(payload), cold->manifest(), name).ok());

  const TablePin nodes = [&] {
    Random random(6);
    const NewTable table{TableId{0x33, 0x1}, "Person", ModelSchema(false)};
    return *tables_->Create(table, MakeRows(table.schema, Ids("p", 0, 8), random), std::nullopt);
  }();
  EXPECT_EQ(Cold(nodes)->Csr(EdgeDirection::kOut).status().code(), Code::kInvalidArgument);
}

// The adjacency of endpoint columns with few distinct ids (the ordering by id ranks) and with
// all ids distinct (a plain sort) is the same as one built by hand: keys and others ascending
// and distinct, each key's edges in position order.
// The empty id is an id: the stored id index holds it first, and an adjacency list keys and
// targets it, both through their encodings.
TEST_F(IndexesTest, TheEmptyIdRoundTripsThroughTheStoredIdIndexAndAdjacency) {
  Random random(9);
  const NewTable table{TableId{0x32, 0x1}, "Person", ModelSchema(false)};
  std::vector<std::string> ids = Ids("a", 0, 5);
  ids.push_back("");
  Result<TablePin> pin = tables_->Create(table, MakeRows(table.schema, ids, random), std::nullopt);
  ASSERT_TRUE(pin.ok()) << pin.status().ToString();
  ASSERT_TRUE(Cold(*pin)->SortedIds().ok());  // Built and written back.
  auto cold = Cold(*pin);
  counting_->Reset();
  Result<std::shared_ptr<const IdIndex>> read = cold->SortedIds();
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(counting_->Snapshot().gets, 1u);  // The stored index, decoded.
  ASSERT_EQ((*read)->size(), 6u);
  EXPECT_EQ(W(**read).IdAt(0), "");
  EXPECT_NE(W(**read).Find(""), nullptr);

  const std::vector<std::string_view> src = {"", "a", ""};
  const std::vector<std::string_view> dst = {"a", "", ""};
  Result<EdgeCsr> csr = EdgeCsr::Build(EdgeDirection::kOut, src, dst);
  ASSERT_TRUE(csr.ok()) << csr.status().ToString();
  TableManifest m;
  m.entity_count = 3;
  Result<EdgeCsr> back = EdgeCsr::Decode(Shared(csr->Encode()), m, "o");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  std::map<std::string, std::vector<std::pair<uint32_t, std::string>>> expected = {
      {"", {{0, "a"}, {2, ""}}}, {"a", {{1, ""}}}};
  EXPECT_EQ(Lists(*back), expected);
}

// 5000 edges' endpoints, each one of `distinct` ids, drawn by a generator seeded with `seed`.
std::pair<std::vector<std::string>, std::vector<std::string>> SeededEndpoints(uint64_t seed,
                                                                              uint64_t distinct) {
  std::vector<std::string> src, dst;
  uint64_t state = seed;
  for (int p = 0; p < 5000; ++p) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    src.push_back("n" + std::to_string((state >> 33) % distinct));
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    dst.push_back("n" + std::to_string((state >> 33) % distinct));
  }
  return {src, dst};
}

TEST(EdgeCsrTest, BuildOrdersByIdWithFewOrAllDistinctEndpoints) {
  for (const uint64_t distinct : {uint64_t{7}, uint64_t{100'000}}) {
    const auto [src_text, dst_text] = SeededEndpoints(12345, distinct);
    const std::vector<std::string_view> src(src_text.begin(), src_text.end());
    const std::vector<std::string_view> dst(dst_text.begin(), dst_text.end());
    for (EdgeDirection direction : {EdgeDirection::kOut, EdgeDirection::kIn}) {
      Result<EdgeCsr> csr = EdgeCsr::Build(direction, src, dst);
      ASSERT_TRUE(csr.ok()) << csr.status().ToString();
      const auto& key = direction == EdgeDirection::kOut ? src_text : dst_text;
      const auto& other = direction == EdgeDirection::kOut ? dst_text : src_text;
      std::map<std::string, std::vector<std::pair<uint32_t, std::string>>> expected;
      for (uint32_t p = 0; p < key.size(); ++p) expected[key[p]].emplace_back(p, other[p]);
      EXPECT_EQ(Lists(*csr), expected) << distinct;
      const std::set<std::string> others(other.begin(), other.end());
      ASSERT_EQ(csr->others.size(), others.size());
      size_t i = 0;
      for (const std::string& o : others) EXPECT_EQ(csr->others.At(i++), o);
    }
  }
}

// The builder that takes edges one at a time, in any order, gives what Build gives from the
// endpoint columns (decision 210), with few or all distinct endpoints.
TEST(EdgeCsrTest, TheBuilderGivesWhatBuildGivesWhateverTheOrderEdgesComeIn) {
  for (const uint64_t distinct : {uint64_t{7}, uint64_t{100'000}}) {
    const auto [src_text, dst_text] = SeededEndpoints(777, distinct);
    const std::vector<std::string_view> src(src_text.begin(), src_text.end());
    const std::vector<std::string_view> dst(dst_text.begin(), dst_text.end());
    std::vector<uint32_t> shuffled(src.size());
    std::iota(shuffled.begin(), shuffled.end(), 0u);
    Random random(9);
    for (size_t i = shuffled.size(); i > 1; --i) {
      std::swap(shuffled[i - 1], shuffled[random.Uniform(i)]);
    }
    for (EdgeDirection direction : {EdgeDirection::kOut, EdgeDirection::kIn}) {
      Result<EdgeCsr> want = EdgeCsr::Build(direction, src, dst);
      ASSERT_TRUE(want.ok()) << want.status().ToString();
      EdgeCsrBuilder builder(direction, src.size());
      for (uint32_t p : shuffled) builder.Set(p, src[p], dst[p]);
      Result<EdgeCsr> got = std::move(builder).Finish("o");
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      // Byte for byte: the same stored object.
      EXPECT_EQ(got->Encode(), want->Encode()) << distinct;
      // The sources set on one thread while another sets the targets, the two ends ranked on a
      // pool: the same bytes (BuildCsr sets them so).
      EdgeCsrBuilder ends(direction, src.size());
      std::thread sources([&] {
        for (uint32_t p : shuffled) ends.SetSource(p, src[p]);
      });
      for (uint32_t p : shuffled) ends.SetTarget(p, dst[p]);
      sources.join();
      ThreadPool pool(2);
      Result<EdgeCsr> apart = std::move(ends).Finish("o", &pool);
      ASSERT_TRUE(apart.ok()) << apart.status().ToString();
      EXPECT_EQ(apart->Encode(), want->Encode()) << distinct;
      // Given in runs, as BuildCsr gives a fragment's rows (decision 245): the same bytes.
      EdgeCsrBuilder runs(direction, src.size());
      for (size_t at = 0; at < shuffled.size(); at += 1000) {
        const size_t n = std::min<size_t>(1000, shuffled.size() - at);
        std::vector<std::string_view> run_src, run_dst;
        for (size_t i = at; i < at + n; ++i) {
          run_src.push_back(src[shuffled[i]]);
          run_dst.push_back(dst[shuffled[i]]);
        }
        const std::span<const uint32_t> positions(shuffled.data() + at, n);
        runs.SetSources(positions, run_src);
        runs.SetTargets(positions, run_dst);
      }
      Result<EdgeCsr> in_runs = std::move(runs).Finish("o");
      ASSERT_TRUE(in_runs.ok()) << in_runs.status().ToString();
      EXPECT_EQ(in_runs->Encode(), want->Encode()) << distinct;
    }
  }
  EdgeCsrBuilder none(EdgeDirection::kOut, 0);
  Result<EdgeCsr> empty = std::move(none).Finish("o");
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->Encode(), EdgeCsr::Build(EdgeDirection::kOut, {}, {})->Encode());
}

TEST(EdgeCsrTest, TheBuilderRefusesAnEdgeMissingOrGivenTwice) {
  EdgeCsrBuilder missing(EdgeDirection::kOut, 3);
  missing.Set(0, "a", "b");
  missing.Set(2, "b", "a");
  Result<EdgeCsr> one_short = std::move(missing).Finish("csr");
  EXPECT_EQ(one_short.status().code(), Code::kCorruption);
  EXPECT_EQ(one_short.status().message(), "the adjacency build was given 2 of 3 edges");
  EdgeCsrBuilder twice(EdgeDirection::kIn, 2);
  twice.Set(0, "a", "b");
  twice.Set(0, "a", "b");
  twice.Set(5, "a", "b");
  EXPECT_EQ(std::move(twice).Finish("csr").status().code(), Code::kCorruption);
  EdgeCsrBuilder twice_in_runs(EdgeDirection::kOut, 2);
  const uint32_t positions[] = {0, 1, 1};
  const std::string_view ids[] = {"a", "b", "b"};
  twice_in_runs.SetSources(positions, ids);
  twice_in_runs.SetTargets(std::span(positions).first(2), std::span(ids).first(2));
  EXPECT_EQ(std::move(twice_in_runs).Finish("csr").status().code(), Code::kCorruption);
  // An edge whose source was set but not its target is missing too.
  EdgeCsrBuilder half(EdgeDirection::kOut, 2);
  half.Set(0, "a", "b");
  half.SetSource(1, "b");
  Result<EdgeCsr> halved = std::move(half).Finish("csr");
  EXPECT_EQ(halved.status().code(), Code::kCorruption);
  EXPECT_EQ(halved.status().message(), "the adjacency build was given 1 of 2 edges");
}

TEST(EdgeCsrTest, DecodeRejectsDamageAndBuildHandlesNoEdges) {
  const std::vector<std::string_view> src = {"b", "a", "b"};
  const std::vector<std::string_view> dst = {"x", "y", "x"};
  Result<EdgeCsr> csr = EdgeCsr::Build(EdgeDirection::kOut, src, dst);
  ASSERT_TRUE(csr.ok());
  EXPECT_EQ(csr->keys.size(), 2u);
  EXPECT_TRUE(std::ranges::equal(csr->offsets, std::vector<uint32_t>{0, 1, 3}));
  EXPECT_TRUE(std::ranges::equal(csr->edges, std::vector<uint32_t>{1, 0, 2}));
  EXPECT_TRUE(std::ranges::equal(csr->targets, std::vector<uint32_t>{1, 0, 0}));
  TableManifest m;
  m.entity_count = 3;
  const std::string payload = csr->Encode();
  ASSERT_TRUE(EdgeCsr::Decode(Shared(payload), m, "o").ok());
  for (size_t at = 0; at < payload.size(); at += 7) {
    std::string bad = payload;
    bad[at] ^= 0x04;
    Result<EdgeCsr> decoded = EdgeCsr::Decode(Shared(bad), m, "o");
    // A flipped padding byte is the only change a checksum does not see.
    if (decoded.ok()) continue;
    EXPECT_EQ(decoded.status().code(), Code::kCorruption) << "byte " << at;
  }
  m.entity_count = 4;
  EXPECT_EQ(EdgeCsr::Decode(Shared(payload), m, "o").status().code(), Code::kCorruption);
  Result<EdgeCsr> none = EdgeCsr::Build(EdgeDirection::kIn, {}, {});
  ASSERT_TRUE(none.ok());
  m.entity_count = 0;
  Result<EdgeCsr> back = EdgeCsr::Decode(Shared(none->Encode()), m, "o");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(std::ranges::equal(back->offsets, std::vector<uint32_t>{0}));
}

// A revision-3 adjacency's edge positions are unpacked when first asked for (decision 233), and
// equal what was encoded; revision 2's are viewed at once. A position out of range under intact
// checksums is still Corruption at decode, before anything asks for it.
TEST(EdgeCsrTest, RevisionThreeUnpacksItsEdgePositionsOnFirstUseAndChecksThemAtDecode) {
  const auto [src_text, dst_text] = SeededEndpoints(500, 300);
  const std::vector<std::string_view> src(src_text.begin(), src_text.end());
  const std::vector<std::string_view> dst(dst_text.begin(), dst_text.end());
  Result<EdgeCsr> csr = EdgeCsr::Build(EdgeDirection::kOut, src, dst);
  ASSERT_TRUE(csr.ok()) << csr.status().ToString();
  TableManifest m;
  m.entity_count = src.size();
  Result<EdgeCsr> v3 = EdgeCsr::Decode(Shared(csr->Encode()), m, "o");
  ASSERT_TRUE(v3.ok()) << v3.status().ToString();
  EXPECT_FALSE(v3->edges.filled());
  EXPECT_EQ(v3->edges.size(), src.size());
  const EdgeCsr copy = *v3;  // A copy shares the one fill.
  EXPECT_TRUE(std::ranges::equal(copy.edges.span(), csr->edges.span()));
  EXPECT_TRUE(v3->edges.filled());
  EXPECT_EQ(v3->edges.data(), copy.edges.data());
  Result<EdgeCsr> v2 = EdgeCsr::Decode(Shared(csr->EncodeRevision2()), m, "o");
  ASSERT_TRUE(v2.ok()) << v2.status().ToString();
  EXPECT_TRUE(v2->edges.filled());
  // The last slot names position `e` (one past the last edge); the encoder packs it at the same
  // width and checksums it.
  std::vector<uint32_t> edges(csr->edges.begin(), csr->edges.end());
  ASSERT_LT(src.size(), uint64_t{1} << CsrBitsFor(src.size()));
  edges.back() = static_cast<uint32_t>(src.size());
  EdgeCsr crafted = *csr;
  crafted.edges = edges;
  Result<EdgeCsr> bad = EdgeCsr::Decode(Shared(crafted.Encode()), m, "o");
  EXPECT_EQ(bad.status().code(), Code::kCorruption) << bad.status().ToString();
  EXPECT_NE(bad.status().ToString().find("slot outside the lists"), std::string::npos);
}

// A revision-3 adjacency's targets are unpacked on first use too, and a walk over all of them
// (SlotView::ForEachRun, what a whole-graph count does) unpacks them a run at a time without
// filling them (decision 241). A target outside the other ids under intact checksums is
// Corruption at decode.
TEST(EdgeCsrTest, RevisionThreeWalksItsTargetsUnfilledAndChecksThemAtDecode) {
  const auto [src_text, dst_text] = SeededEndpoints(10'000, 3'000);
  const std::vector<std::string_view> src(src_text.begin(), src_text.end());
  const std::vector<std::string_view> dst(dst_text.begin(), dst_text.end());
  Result<EdgeCsr> csr = EdgeCsr::Build(EdgeDirection::kOut, src, dst);
  ASSERT_TRUE(csr.ok()) << csr.status().ToString();
  ASSERT_GT(src.size(), SlotView::kRun);  // At least two runs.
  TableManifest m;
  m.entity_count = src.size();
  Result<EdgeCsr> v3 = EdgeCsr::Decode(Shared(csr->Encode()), m, "o");
  ASSERT_TRUE(v3.ok()) << v3.status().ToString();
  EXPECT_FALSE(v3->targets.filled());
  const auto walk = [](const SlotView& view, size_t* runs) {
    std::vector<uint32_t> out;
    *runs = 0;
    view.ForEachRun([&](uint64_t first, std::span<const uint32_t> run) {
      EXPECT_EQ(first, out.size());
      out.insert(out.end(), run.begin(), run.end());
      ++*runs;
    });
    return out;
  };
  size_t runs = 0;
  EXPECT_TRUE(std::ranges::equal(walk(v3->targets, &runs), csr->targets.span()));
  EXPECT_EQ(runs, (src.size() + SlotView::kRun - 1) / SlotView::kRun);
  EXPECT_FALSE(v3->targets.filled());
  EXPECT_TRUE(std::ranges::equal(v3->targets.span(), csr->targets.span()));
  EXPECT_TRUE(std::ranges::equal(walk(v3->targets, &runs), csr->targets.span()));
  EXPECT_EQ(runs, 1u);  // Filled: the array itself.
  // The last slot names ordinal `o` (one past the last other id), packed at the same width.
  const uint64_t others = csr->others.size();
  ASSERT_LT(others, uint64_t{1} << CsrBitsFor(others));
  std::vector<uint32_t> targets(csr->targets.begin(), csr->targets.end());
  targets.back() = static_cast<uint32_t>(others);
  EdgeCsr crafted = *csr;
  crafted.targets = targets;
  Result<EdgeCsr> bad = EdgeCsr::Decode(Shared(crafted.Encode()), m, "o");
  EXPECT_EQ(bad.status().code(), Code::kCorruption) << bad.status().ToString();
  EXPECT_NE(bad.status().ToString().find("slot outside the lists"), std::string::npos);
}

// Revision 3 (what Encode writes) packs each slot's position and target in the fewest bits their
// counts need; revision 2 (4 bytes each) is still read. Both decode to the same adjacency, for
// adjacencies whose widths are 0 bits (one edge, one other endpoint) up to 17, and the packed one
// is the smaller with thousands of edges.
TEST(EdgeCsrTest, RevisionsTwoToFourDecodeToTheSameAdjacencyAtEveryWidth) {
  std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> graphs = {
      {{}, {}}, {{"a"}, {"b"}}, {{"a", "b"}, {"c", "c"}}, {{"a", "a", "b"}, {"x", "y", "x"}}};
  for (const uint64_t distinct : {uint64_t{2}, uint64_t{7}, uint64_t{100'000}}) {
    graphs.push_back(SeededEndpoints(distinct, distinct));
  }
  const auto distinct_text = [](size_t others) { return std::to_string(others) + " others"; };
  for (const auto& [src_text, dst_text] : graphs) {
    const std::vector<std::string_view> src(src_text.begin(), src_text.end());
    const std::vector<std::string_view> dst(dst_text.begin(), dst_text.end());
    Result<EdgeCsr> csr = EdgeCsr::Build(EdgeDirection::kOut, src, dst);
    ASSERT_TRUE(csr.ok()) << csr.status().ToString();
    TableManifest m;
    m.entity_count = src.size();
    const std::string v4 = csr->Encode(), v3 = csr->EncodeRevision3(), v2 = csr->EncodeRevision2();
    for (const std::string& payload : {v4, v3, v2}) {
      Result<EdgeCsr> back = EdgeCsr::Decode(Shared(payload), m, "o");
      ASSERT_TRUE(back.ok()) << back.status().ToString();
      EXPECT_EQ(Lists(*back), Lists(*csr)) << src.size() << " edges";
    }
    Result<CsrLayout> layout = DecodeCsrLayout(v4, v4.size(), "o");
    ASSERT_TRUE(layout.ok()) << layout.status().ToString();
    EXPECT_EQ(layout->revision, 4u);
    EXPECT_EQ(layout->block_bytes, kCsr4BlockBytes);
    EXPECT_EQ(layout->edge_bits, CsrBitsFor(src.size()));
    EXPECT_EQ(layout->target_bits, CsrBitsFor(csr->others.size()));
    Result<CsrLayout> layout3 = DecodeCsrLayout(v3, v3.size(), "o");
    ASSERT_TRUE(layout3.ok()) << layout3.status().ToString();
    EXPECT_EQ(layout3->revision, 3u);
    EXPECT_EQ(layout3->block_bytes, kCsrBlockBytes);
    if (src.size() >= 5000) {
      EXPECT_LT(v4.size(), v2.size()) << distinct_text(csr->others.size());
      EXPECT_LT(v3.size(), v2.size()) << distinct_text(csr->others.size());
    }
  }
  EXPECT_EQ(CsrBitsFor(0), 0u);
  EXPECT_EQ(CsrBitsFor(1), 0u);
  EXPECT_EQ(CsrBitsFor(2), 1u);
  EXPECT_EQ(CsrBitsFor(2'400'000), 22u);
  EXPECT_EQ(CsrBitsFor(uint64_t{1} << 32), 32u);
}

}  // namespace
}  // namespace omnigraph::table
