// Index deltas (table/index_delta.h) on payloads alone: the delta a write's rows give, applied to
// the base's index, is exactly the index a rebuild from the fragments gives — for appends,
// deletes, updates, a delete and an upsert over an unpublished step, and chains of eight; damage
// is a typed error naming the object.
#include "table/index_delta.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <memory>

#include "base/random.h"
#include "storage/counting_store.h"
#include "storage/memory_store.h"
#include "table/derived.h"
#include "table/model_table.h"
#include "table/table_store.h"

namespace omnigraph::table {
namespace {

std::vector<std::string> Ids(const std::string& prefix, int from, int count) {
  std::vector<std::string> ids;
  for (int i = from; i < from + count; ++i) ids.push_back(prefix + std::to_string(100 + i));
  return ids;
}

void ExpectSame(const IdIndex& a, const IdIndex& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a.IdAt(i), b.IdAt(i)) << i;
  EXPECT_TRUE(std::ranges::equal(a.refs(), b.refs()));
}

void ExpectSame(const EdgeCsr& a, const EdgeCsr& b) {
  EXPECT_EQ(a.keys.blob, b.keys.blob);
  EXPECT_TRUE(std::ranges::equal(a.keys.ends, b.keys.ends));
  EXPECT_EQ(a.others.blob, b.others.blob);
  EXPECT_TRUE(std::ranges::equal(a.others.ends, b.others.ends));
  EXPECT_TRUE(std::ranges::equal(a.offsets, b.offsets));
  EXPECT_TRUE(std::ranges::equal(a.edges, b.edges));
  EXPECT_TRUE(std::ranges::equal(a.targets, b.targets));
}

// Writes versions of one table and checks each step's deltas against rebuilds. No derived
// object is ever stored (the threshold is out of reach), so every index is a rebuild.
class IndexDeltaTest : public ::testing::TestWithParam<bool> {
 protected:
  IndexDeltaTest() : random_(9) {
    TableStoreOptions options;
    options.derived_rows_min = 1ull << 62;
    options.fragment_rows_max = 4;
    tables_ = std::make_unique<TableStore>(
        storage::Runtime::ForTest(std::make_shared<storage::MemoryStore>("dx"), 3), options);
    table_ = NewTable{TableId{0x41, 0x1}, edge() ? "Knows" : "Person", ModelSchema(edge())};
    Result<TablePin> v1 =
        tables_->Create(table_, MakeRows(table_.schema, Ids("m", 0, 12), random_), std::nullopt);
    EXPECT_TRUE(v1.ok()) << v1.status().ToString();
    pin_ = *v1;
  }

  bool edge() const { return GetParam(); }
  std::shared_ptr<const TableVersion> Open(const TablePin& pin) { return *tables_->Open(pin); }
  ColumnBatch Rows(const std::vector<std::string>& ids) {
    return MakeRows(table_.schema, ids, random_);
  }

  // Stages `write` on the current version; returns the new pin.
  TablePin Write(TableWrite::Op op, const std::vector<std::string>& ids) {
    TableWrite write;
    write.op = op;
    if (op == TableWrite::Op::kDelete) {
      write.ids = ids;
    } else {
      write.rows = Rows(ids);
    }
    Result<TablePin> next = tables_->StageWrite(pin_, write, std::nullopt);
    EXPECT_TRUE(next.ok()) << next.status().ToString();
    return *next;
  }

  // The deltas of `to` over `from`, through their payloads.
  IndexDeltas Deltas(const TablePin& from, const TablePin& to) {
    auto version = Open(to);
    std::vector<std::string> deleted = *version->DeletedIds();
    Result<IndexDeltas> deltas = version->DeltasOver(Open(from)->manifest(), deleted);
    EXPECT_TRUE(deltas.ok()) << deltas.status().ToString();
    IndexDeltas out;
    out.ids = *DecodeIdsDelta(EncodeIdsDelta(deltas->ids), "ids");
    EXPECT_EQ(deltas->edges.has_value(), edge());
    if (edge()) out.edges = *DecodeEdgesDelta(EncodeEdgesDelta(*deltas->edges), "csr");
    return out;
  }

  Random random_;
  std::unique_ptr<TableStore> tables_;
  NewTable table_;
  TablePin pin_;
};

// Applies `steps` writes one after another, chaining every delta from the first version's
// rebuilt index, and compares the id index and both directions of the adjacency at every step.
TEST_P(IndexDeltaTest, AChainOfEightWritesGivesTheRebuiltIndexAtEveryStep) {
  const TablePin base = pin_;
  std::shared_ptr<const IdIndex> ids = *Open(base)->SortedIds();
  std::shared_ptr<const TableManifest> manifest =
      std::make_shared<TableManifest>(Open(base)->manifest());
  std::vector<IndexDeltas> chain;
  const std::vector<std::pair<TableWrite::Op, std::vector<std::string>>> writes = {
      {TableWrite::Op::kAppend, Ids("a", 0, 5)},
      {TableWrite::Op::kDelete, {"m101", "a103", "zz-absent"}},
      {TableWrite::Op::kUpsert, {"m104", "m105", "b100", "a100"}},
      {TableWrite::Op::kAppend, Ids("0", 0, 2)},
      {TableWrite::Op::kDelete, {"m100", "m102", "m103"}},
      {TableWrite::Op::kUpsert, {"m106", "m107", "m108", "m109", "m110", "m111"}},
      {TableWrite::Op::kDelete, Ids("m", 4, 2)},
      {TableWrite::Op::kAppend, {"m101", "m102"}}};
  for (const auto& [op, write_ids] : writes) {
    SCOPED_TRACE("step " + std::to_string(chain.size() + 1));
    const TablePin next = Write(op, write_ids);
    IndexDeltas deltas = Deltas(pin_, next);
    auto version = Open(next);
    Result<IdIndex> applied =
        ApplyIdsDelta(*ids, *manifest, deltas.ids, version->manifest(), "ids");
    ASSERT_TRUE(applied.ok()) << applied.status().ToString();
    ExpectSame(*applied, **version->SortedIds());
    ids = std::make_shared<IdIndex>(std::move(*applied));
    manifest = std::make_shared<TableManifest>(version->manifest());
    chain.push_back(std::move(deltas));
    pin_ = next;
  }
  if (!edge()) return;
  for (EdgeDirection direction : {EdgeDirection::kOut, EdgeDirection::kIn}) {
    auto first = Open(base);
    Result<EdgeColumns> edges =
        EdgesOfCsr(**first->Csr(direction), direction, **first->SortedIds(), "csr");
    ASSERT_TRUE(edges.ok()) << edges.status().ToString();
    EdgeColumns now = *edges;
    for (const IndexDeltas& d : chain) now = ApplyEdgesDelta(now, *d.edges);
    auto last = Open(pin_);
    Result<EdgeCsr> csr = CsrOfEdges(now, direction, **last->SortedIds(), "csr");
    ASSERT_TRUE(csr.ok()) << csr.status().ToString();
    ExpectSame(*csr, **last->Csr(direction));
  }
}

// A merge's patch stages a delete and then an upsert on it; only the second is published, so its
// delta is taken over the version before both, with the ids both removed.
TEST_P(IndexDeltaTest, ADeltaOverAnUnpublishedStepCarriesItsDeletions) {
  const TablePin base = pin_;
  pin_ = Write(TableWrite::Op::kDelete, {"m103", "m104", "m105", "m106"});
  const std::vector<std::string> deleted = *Open(pin_)->DeletedIds();
  const TablePin last = Write(TableWrite::Op::kUpsert, {"m104", "m100", "n1"});
  Result<IndexDeltas> deltas = Open(last)->DeltasOver(Open(base)->manifest(), deleted);
  ASSERT_TRUE(deltas.ok()) << deltas.status().ToString();
  Result<IdIndex> applied = ApplyIdsDelta(**Open(base)->SortedIds(), Open(base)->manifest(),
                                          deltas->ids, Open(last)->manifest(), "ids");
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  ExpectSame(*applied, **Open(last)->SortedIds());
  if (!edge()) return;
  auto first = Open(base);
  EdgeColumns edges = *EdgesOfCsr(**first->Csr(EdgeDirection::kOut), EdgeDirection::kOut,
                                  **first->SortedIds(), "csr");
  Result<EdgeCsr> csr = CsrOfEdges(ApplyEdgesDelta(edges, *deltas->edges), EdgeDirection::kOut,
                                   **Open(last)->SortedIds(), "csr");
  ASSERT_TRUE(csr.ok()) << csr.status().ToString();
  ExpectSame(*csr, **Open(last)->Csr(EdgeDirection::kOut));
}

// A delta applied to the wrong base, or missing a deletion, does not count up to the version's
// rows: Corruption, so the reader rebuilds.
TEST_P(IndexDeltaTest, ADeltaOverTheWrongBaseIsCorruption) {
  const TablePin base = pin_;
  const TablePin next = Write(TableWrite::Op::kDelete, {"m101"});
  IndexDeltas deltas = Deltas(base, next);
  deltas.ids.removed = StringList{};
  Result<IdIndex> applied = ApplyIdsDelta(**Open(base)->SortedIds(), Open(base)->manifest(),
                                          deltas.ids, Open(next)->manifest(), "d1.ids");
  ASSERT_FALSE(applied.ok());
  EXPECT_EQ(applied.status().code(), Code::kCorruption);
  EXPECT_NE(applied.status().ToString().find("d1.ids"), std::string::npos);
  if (!edge()) return;
  deltas.edges->removed = StringList{};
  auto first = Open(base);
  EdgeColumns edges = *EdgesOfCsr(**first->Csr(EdgeDirection::kOut), EdgeDirection::kOut,
                                  **first->SortedIds(), "csr");
  Result<EdgeCsr> csr = CsrOfEdges(ApplyEdgesDelta(edges, *deltas.edges), EdgeDirection::kOut,
                                   **Open(next)->SortedIds(), "d1.csr.out");
  ASSERT_FALSE(csr.ok());
  EXPECT_EQ(csr.status().code(), Code::kCorruption);
}

INSTANTIATE_TEST_SUITE_P(NodesAndEdges, IndexDeltaTest, ::testing::Bool());

// Every byte of a payload is covered: truncation and a flipped byte are Corruption naming the
// object, never a crash or a wrong index.
TEST(IndexDeltaCodecTest, DamageIsCorruptionNamingTheObject) {
  IdsDelta ids;
  for (std::string_view id : {"a", "bb", "c"}) {
    ids.added.blob.append(id);
    ids.added.ends.push_back(static_cast<uint32_t>(ids.added.blob.size()));
    ids.refs.push_back(RowRef{1, static_cast<uint32_t>(ids.refs.size())});
  }
  ids.removed = StringList{"zz", {2}};
  EdgesDelta edges;
  edges.ids = ids.added;
  edges.src = StringList{"xyz", {1, 2, 3}};
  edges.dst = StringList{"xxy", {1, 2, 3}};
  edges.removed = ids.removed;
  const std::string id_payload = EncodeIdsDelta(ids);
  const std::string edge_payload = EncodeEdgesDelta(edges);
  Result<IdsDelta> back = DecodeIdsDelta(id_payload, "o");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->added.blob, "abbc");
  EXPECT_EQ(back->refs, ids.refs);
  EXPECT_EQ(back->removed.blob, "zz");
  Result<EdgesDelta> edge_back = DecodeEdgesDelta(edge_payload, "o");
  ASSERT_TRUE(edge_back.ok()) << edge_back.status().ToString();
  EXPECT_EQ(edge_back->dst.At(2), "y");
  for (size_t cut = 0; cut < id_payload.size(); ++cut) {
    Result<IdsDelta> bad = DecodeIdsDelta(id_payload.substr(0, cut), "d7.ids");
    ASSERT_FALSE(bad.ok()) << cut;
    EXPECT_EQ(bad.status().code(), Code::kCorruption);
    EXPECT_NE(bad.status().ToString().find("d7.ids"), std::string::npos);
  }
  for (size_t at = 0; at < edge_payload.size(); ++at) {
    std::string flipped = edge_payload;
    flipped[at] = static_cast<char>(flipped[at] ^ 0x20);
    ASSERT_FALSE(DecodeEdgesDelta(flipped, "d7.csr.out").ok()) << at;
  }
  // A payload of the other kind is refused.
  EXPECT_FALSE(DecodeIdsDelta(edge_payload, "o").ok());
}

// Stored chains (TableVersion::WriteIndexDeltas, read back by SortedIds and Csr): a cold reader
// gets exactly the rebuilt index through a chain, at one GET per link and one manifest GET per
// base; depth 8 is the last delta; a missing base or a damaged delta is rebuilt and replaced.
class StoredChainTest : public ::testing::TestWithParam<bool> {
 protected:
  StoredChainTest() : random_(11) {
    memory_ = std::make_shared<storage::MemoryStore>("sc");
    counting_ = std::make_shared<storage::CountingStore>(memory_);
    runtime_ = storage::Runtime::ForTest(counting_, 5);
    tables_ = std::make_unique<TableStore>(runtime_, Options(4));
    reference_ = std::make_unique<TableStore>(runtime_, Options(1ull << 62));
    table_ = NewTable{TableId{0x51, 0x1}, GetParam() ? "Knows" : "Person", ModelSchema(GetParam())};
    Result<TablePin> v1 =
        tables_->Create(table_, MakeRows(table_.schema, Ids("m", 0, 80), random_), std::nullopt);
    EXPECT_TRUE(v1.ok()) << v1.status().ToString();
    pin_ = *v1;
    EXPECT_TRUE(Cold(pin_)->BuildIndexes().ok());
  }

  static TableStoreOptions Options(uint64_t rows_min) {
    TableStoreOptions options;
    options.derived_rows_min = rows_min;
    options.fragment_rows_max = 16;
    return options;
  }

  std::shared_ptr<const TableVersion> Cold(const TablePin& pin) {
    fresh_ = std::make_unique<TableStore>(runtime_, Options(4));
    return *fresh_->Open(pin);
  }

  // Writes step `i` (appends, deletes and updates in turn, two or three rows each) on the head and
  // stores its deltas; returns the kinds stored.
  std::vector<std::string> Step(int i) {
    TableWrite write;
    write.op = i % 3 == 0 ? TableWrite::Op::kAppend
                          : (i % 3 == 1 ? TableWrite::Op::kDelete : TableWrite::Op::kUpsert);
    std::vector<std::string> ids = Ids("s" + std::to_string(i) + "-", 0, 2);
    if (write.op == TableWrite::Op::kUpsert) ids.push_back(Ids("m", 10 * i + 5, 1)[0]);
    if (write.op == TableWrite::Op::kDelete) {
      write.ids = Ids("m", 10 * i, 2);
    } else {
      write.rows = MakeRows(table_.schema, ids, random_);
    }
    Result<TablePin> next = tables_->StageWrite(pin_, write, std::nullopt);
    EXPECT_TRUE(next.ok()) << next.status().ToString();
    pin_ = *next;
    Result<std::vector<std::string>> stored = (*tables_->Open(pin_))->WriteIndexDeltas();
    EXPECT_TRUE(stored.ok()) << stored.status().ToString();
    return *stored;
  }

  std::vector<std::string> Kinds() const {
    if (GetParam()) return {"ids", "csr.out"};
    return {"ids"};
  }

  // The cold reads of the head's indexes equal a rebuild from the fragments.
  void ExpectRebuilt() {
    auto reference = *reference_->Open(pin_);
    auto cold = Cold(pin_);
    ExpectSame(**cold->SortedIds(), **reference->SortedIds());
    if (!GetParam()) return;
    ExpectSame(**cold->Csr(EdgeDirection::kOut), **reference->Csr(EdgeDirection::kOut));
  }

  std::string NameOf(std::string_view kind) const {
    return DerivedName(pin_.table(), pin_.staged_version, kind);
  }

  Random random_;
  std::shared_ptr<storage::MemoryStore> memory_;
  std::shared_ptr<storage::CountingStore> counting_;
  storage::Runtime runtime_;
  std::unique_ptr<TableStore> tables_, reference_, fresh_;
  NewTable table_;
  TablePin pin_;
};

TEST_P(StoredChainTest, EightDeltasThenAFullObjectEachReadLikeARebuild) {
  for (int i = 1; i <= 8; ++i) {
    SCOPED_TRACE("delta " + std::to_string(i));
    EXPECT_EQ(Step(i), Kinds());
    Result<DerivedHeader> header = (*tables_->Open(pin_))->ReadDerivedHeader("ids");
    ASSERT_TRUE(header.ok()) << header.status().ToString();
    ASSERT_TRUE(header->delta.has_value());
    EXPECT_EQ(header->delta->depth, static_cast<uint32_t>(i));
    ExpectRebuilt();
  }
  // A cold id index through the chain: nine objects and the eight base manifests.
  auto cold = Cold(pin_);
  counting_->Reset();
  ASSERT_TRUE(cold->SortedIds().ok());
  EXPECT_EQ(counting_->Snapshot().gets, 9u + 8u) << counting_->Snapshot().ToString();
  EXPECT_EQ(counting_->Snapshot().total(), 17u) << counting_->Snapshot().ToString();
  // The adjacency's chain adds its nine objects (the manifests and both id indexes it needs are
  // cached by then).
  if (GetParam()) {
    counting_->Reset();
    ASSERT_TRUE(cold->Csr(EdgeDirection::kOut).ok());
    EXPECT_EQ(counting_->Snapshot().total(), 9u) << counting_->Snapshot().ToString();
  }
  // The ninth write's base is at depth 8: no delta; the caller stores a full object.
  EXPECT_TRUE(Step(9).empty());
  ASSERT_TRUE((*tables_->Open(pin_))->BuildIndexes().ok());
  EXPECT_FALSE((*tables_->Open(pin_))->ReadDerivedHeader("ids")->delta.has_value());
  EXPECT_EQ(Step(10), Kinds());
  EXPECT_EQ((*tables_->Open(pin_))->ReadDerivedHeader("ids")->delta->depth, 1u);
  ExpectRebuilt();
}

// A warm reader that holds the previous version's indexes starts the chain from them: one GET
// for the id index's newest delta, one for the adjacency's, and the result equals a rebuild at
// every depth.
TEST_P(StoredChainTest, AReaderHoldingThePreviousVersionReadsTheNewestDeltaAlone) {
  std::unique_ptr<TableStore> warm = std::make_unique<TableStore>(runtime_, Options(4));
  ASSERT_TRUE((*warm->Open(pin_))->SortedIds().ok());
  if (GetParam()) {
    ASSERT_TRUE((*warm->Open(pin_))->Csr(EdgeDirection::kOut).ok());
  }
  for (int i = 1; i <= 8; ++i) {
    SCOPED_TRACE("delta " + std::to_string(i));
    EXPECT_EQ(Step(i), Kinds());
    std::shared_ptr<const TableVersion> head = *warm->Open(pin_);  // Its manifest: one GET.
    counting_->Reset();
    Result<std::shared_ptr<const IdIndex>> ids = head->SortedIds();
    ASSERT_TRUE(ids.ok()) << ids.status().ToString();
    EXPECT_EQ(counting_->Snapshot().gets, 1u) << counting_->Snapshot().ToString();
    EXPECT_EQ(counting_->Snapshot().total(), 1u) << counting_->Snapshot().ToString();
    ExpectSame(**ids, **(*reference_->Open(pin_))->SortedIds());
    if (!GetParam()) continue;
    counting_->Reset();
    Result<std::shared_ptr<const EdgeCsr>> csr = head->Csr(EdgeDirection::kOut);
    ASSERT_TRUE(csr.ok()) << csr.status().ToString();
    EXPECT_EQ(counting_->Snapshot().total(), 1u) << counting_->Snapshot().ToString();
    ExpectSame(**csr, **(*reference_->Open(pin_))->Csr(EdgeDirection::kOut));
  }
}

TEST_P(StoredChainTest, AWriteOfMoreThanAnEighthOfTheBaseStoresNoDelta) {
  TableWrite write;
  write.op = TableWrite::Op::kAppend;
  write.rows = MakeRows(table_.schema, Ids("x", 0, 11), random_);
  pin_ = *tables_->StageWrite(pin_, write, std::nullopt);
  EXPECT_TRUE((*tables_->Open(pin_))->WriteIndexDeltas()->empty());
  write.rows = MakeRows(table_.schema, Ids("y", 0, 10), random_);
  pin_ = *tables_->StageWrite(pin_, write, std::nullopt);
  // The write's own key check read its base's id index and, finding none, stored it in full: the
  // next small write chains on it. The base has no adjacency, so that is left to a full build.
  EXPECT_EQ(*(*tables_->Open(pin_))->WriteIndexDeltas(), std::vector<std::string>{"ids"});
  ExpectRebuilt();
}

TEST_P(StoredChainTest, AMissingBaseOrADamagedDeltaIsRebuiltAndReplacedByAFullObject) {
  const std::string first_full = DerivedName(pin_.table(), pin_.staged_version, "ids");
  EXPECT_EQ(Step(1), Kinds());
  EXPECT_EQ(Step(2), Kinds());
  // The base's full objects are gone (as cleanup leaves a delta whose base it removed).
  ASSERT_TRUE(memory_->Delete(first_full).ok());
  if (GetParam()) {
    ASSERT_TRUE(memory_->Delete(first_full.substr(0, first_full.size() - 3) + "csr.out").ok());
  }
  ExpectRebuilt();
  // The rebuilt head replaced its delta with a full object.
  for (const std::string& kind : Kinds()) {
    Result<DerivedHeader> header = Cold(pin_)->ReadDerivedHeader(kind);
    ASSERT_TRUE(header.ok()) << header.status().ToString();
    EXPECT_FALSE(header->delta.has_value()) << kind;
  }
  // A damaged delta: its last byte flipped.
  EXPECT_EQ(Step(3), Kinds());
  for (const std::string& kind : Kinds()) {
    std::string bytes = memory_->Get(NameOf(kind))->data;
    bytes[bytes.size() - 1] ^= 0x11;
    ASSERT_TRUE(memory_->Put(NameOf(kind), bytes).ok());
  }
  ExpectRebuilt();
  for (const std::string& kind : Kinds()) {
    EXPECT_FALSE(Cold(pin_)->ReadDerivedHeader(kind)->delta.has_value()) << kind;
  }
  auto cold = Cold(pin_);
  counting_->Reset();
  ASSERT_TRUE(cold->SortedIds().ok());
  EXPECT_EQ(counting_->Snapshot().total(), 1u) << counting_->Snapshot().ToString();
}

INSTANTIATE_TEST_SUITE_P(NodesAndEdges, StoredChainTest, ::testing::Bool());

}  // namespace
}  // namespace omnigraph::table

namespace omnigraph::table {
namespace {

// The work of the first read of a new version, counted (issue [36]): a warm reader holding a
// 10,000-row version's id index reads a one-row insert's delta (one GET, as before) and writes
// one index entry — a layer over the held index — instead of copying all 10,001; the next
// one-row insert writes its entry and merges the two one-entry layers (1 + 2); a 100-row insert
// writes 100 entries and merges them with the 2-entry layer below (100 + 102); the next one-row
// insert stays a layer of its own (1). Every index answers as a rebuild does.
TEST(LayeredChainTest, AOneRowInsertIntoTenThousandRowsWritesOneIndexEntry) {
  Random random(13);
  auto counting =
      std::make_shared<storage::CountingStore>(std::make_shared<storage::MemoryStore>("lc"));
  const storage::Runtime runtime = storage::Runtime::ForTest(counting, 5);
  TableStoreOptions options;
  options.fragment_rows_max = 1u << 16;
  TableStore tables(runtime, options);
  TableStore warm(runtime, options);
  TableStoreOptions rebuild = options;
  rebuild.derived_rows_min = 1ull << 62;
  TableStore reference(runtime, rebuild);
  const NewTable table{TableId{0x61, 0x1}, "Person", ModelSchema(false)};
  Result<TablePin> pin =
      tables.Create(table, MakeRows(table.schema, Ids("m", 0, 10000), random), std::nullopt);
  ASSERT_TRUE(pin.ok()) << pin.status().ToString();
  ASSERT_TRUE((*tables.Open(*pin))->BuildIndexes().ok());
  Result<std::shared_ptr<const IdIndex>> held = (*warm.Open(*pin))->SortedIds();
  ASSERT_TRUE(held.ok()) << held.status().ToString();
  EXPECT_FALSE((*held)->layered());
  EXPECT_EQ((*held)->entries_merged(), 0u);  // Decoded, not merged.

  const struct {
    int rows;
    uint64_t merged;
    size_t layers;
  } steps[] = {{1, 1, 1}, {1, 3, 1}, {100, 202, 1}, {1, 1, 2}};
  int serial = 0;
  for (const auto& step : steps) {
    SCOPED_TRACE("insert of " + std::to_string(step.rows) + " rows");
    TableWrite write;
    write.op = TableWrite::Op::kAppend;
    write.rows = MakeRows(table.schema, Ids("x", serial, step.rows), random);
    serial += step.rows;
    pin = tables.StageWrite(*pin, write, std::nullopt);
    ASSERT_TRUE(pin.ok()) << pin.status().ToString();
    Result<std::vector<std::string>> stored = (*tables.Open(*pin))->WriteIndexDeltas();
    ASSERT_TRUE(stored.ok()) << stored.status().ToString();
    ASSERT_EQ(*stored, std::vector<std::string>{"ids"});
    std::shared_ptr<const TableVersion> head = *warm.Open(*pin);
    counting->Reset();
    Result<std::shared_ptr<const IdIndex>> ids = head->SortedIds();
    ASSERT_TRUE(ids.ok()) << ids.status().ToString();
    EXPECT_EQ(counting->Snapshot().total(), 1u) << counting->Snapshot().ToString();
    EXPECT_TRUE((*ids)->layered());
    EXPECT_EQ((*ids)->entries_merged(), step.merged);
    EXPECT_EQ((*ids)->layers(), step.layers);
    // A point lookup of every id answers through the layers: no flat copy is made.
    for (int i = 0; i < 10000; i += 97) {
      const std::string id = Ids("m", i, 1)[0];
      ASSERT_NE((*ids)->Find(id), nullptr) << id;
    }
    // Every id of a rebuild at its position with its row, through the layers too.
    const IdIndex& want = **(*reference.Open(*pin))->SortedIds();
    ASSERT_EQ((*ids)->size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      ASSERT_EQ((*ids)->Position(want.IdAt(i)), static_cast<int64_t>(i));
      ASSERT_EQ(*(*ids)->Find(want.IdAt(i)), want.RefAt(i));
    }
    EXPECT_EQ((*ids)->entries_flattened(), 0u);
    if (&step == &steps[std::size(steps) - 1]) {
      ExpectSame(**ids, want);  // The walk in position order (the flat copy, made now).
      EXPECT_EQ((*ids)->entries_flattened(), 10103u);
    }
  }
}

}  // namespace
}  // namespace omnigraph::table
