// Point reads of a stored adjacency (table/csr_points.h, docs/format/indexes.md "Reading a few
// keys"): the lists of any keys equal the whole adjacency's, a cold read of one key costs an exact
// number of ranged reads and a small part of the object, damage anywhere in the payload is
// Corruption naming the object, and the objects that cannot be read in parts (revision 1, deltas)
// say so (Unsupported) while still reading whole.
#include "table/csr_points.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/hash.h"
#include "base/random.h"
#include "storage/counting_store.h"
#include "storage/forwarding_store.h"
#include "storage/local_store.h"
#include "storage/memory_store.h"
#include "storage/test_util.h"
#include "table/column_builder.h"
#include "table/derived.h"
#include "table/edge_csr.h"
#include "table/le_bytes.h"
#include "table/model_table.h"
#include "table/table_store.h"
#include "table/table_version.h"

namespace omnigraph::table {
namespace {

using Lists = std::map<std::string, std::vector<std::pair<uint32_t, std::string>>>;

// The lists of `csr` by key id: (edge position, other id) in slot order.
Lists WholeLists(const EdgeCsr& csr) {
  Lists out;
  for (size_t k = 0; k < csr.keys.size(); ++k) {
    auto& list = out[std::string(csr.keys.At(k))];
    for (uint32_t s = csr.offsets[k]; s < csr.offsets[k + 1]; ++s) {
      list.emplace_back(csr.edges[s], std::string(csr.others.At(csr.targets[s])));
    }
  }
  return out;
}

// The lists `points` gives for `keys`, by key id (an absent key has an empty list).
Lists PointLists(const CsrPoints& points, const std::vector<std::string>& keys,
                 uint64_t* reads = nullptr) {
  std::vector<std::string_view> views(keys.begin(), keys.end());
  Result<CsrPointLists> got = points.Lists(views);
  EXPECT_TRUE(got.ok()) << got.status().ToString();
  Lists out;
  if (!got.ok()) return out;
  for (size_t i = 0; i < keys.size(); ++i) {
    std::vector<std::pair<uint32_t, std::string>> list;
    for (uint32_t s = got->begin[i]; s < got->begin[i + 1]; ++s) {
      list.emplace_back(got->edges[s], std::string(got->others[s]));
    }
    if (!list.empty()) out[keys[i]] = list;
  }
  if (reads != nullptr) *reads = got->reads;
  return out;
}

// A fixed-width node id, so that ids sort as their numbers.
std::string Node(uint64_t i) {
  std::string digits = std::to_string(i);
  return "v" + std::string(6 - digits.size(), '0') + digits;
}

class CsrPointsTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    std::shared_ptr<storage::ObjectStore> inner;
    if (GetParam()) {
      Result<std::unique_ptr<storage::LocalStore>> local =
          storage::LocalStore::Open(dir_.path() + "/root");
      ASSERT_TRUE(local.ok());
      inner = std::shared_ptr<storage::ObjectStore>(std::move(*local));
    } else {
      inner = std::make_shared<storage::MemoryStore>("points");
    }
    inner_ = inner;
    counting_ = std::make_shared<storage::CountingStore>(inner);
    runtime_ = storage::Runtime::ForTest(counting_, 3);
    tables_ = std::make_unique<TableStore>(runtime_, Options());
  }

  static TableStoreOptions Options() {
    TableStoreOptions options;
    options.derived_rows_min = 4;
    return options;
  }

  // Rows of an edge table with these ids and endpoints (other columns random).
  ColumnBatch EdgeRows(const Schema& schema, const std::vector<std::string>& ids,
                       const std::vector<std::string>& src, const std::vector<std::string>& dst) {
    ColumnBatch rows = MakeRows(schema, ids, random_);
    std::vector<Column> columns = rows.ReleaseColumns();
    for (size_t c = 0; c < schema.size(); ++c) {
      if (schema[c].id != kSrcFieldId && schema[c].id != kDstFieldId) continue;
      const std::vector<std::string>& values = schema[c].id == kSrcFieldId ? src : dst;
      ColumnBuilder builder(schema[c].type, false);
      for (const std::string& v : values) builder.AppendString(v);
      columns[c] = *builder.Finish();
    }
    return ColumnBatch(schema, std::move(columns), ids.size());
  }

  // An edge table over `nodes` node ids of `edges` edges written in three appends, with a few
  // deleted: endpoints skewed (some nodes have many edges, most few), self-loops and parallel
  // edges, endpoints that name no node (the table layer cannot tell). Both directions stored.
  TablePin RandomGraph(uint64_t nodes, uint64_t edges) {
    const NewTable table{TableId{0x71, 0x1}, "Knows", ModelSchema(true)};
    std::optional<TablePin> pin;
    const uint64_t per = edges / 3 + 1;
    for (uint64_t first = 0; first < edges; first += per) {
      std::vector<std::string> ids, src, dst;
      for (uint64_t e = first; e < std::min(edges, first + per); ++e) {
        ids.push_back("e" + std::to_string(e * 7919 % 1'000'003));
        const uint64_t s = random_.Uniform(4) == 0 ? random_.Uniform(8) : random_.Uniform(nodes);
        src.push_back(Node(s));
        dst.push_back(random_.Uniform(20) == 0 ? Node(s) : Node(random_.Uniform(nodes)));
      }
      Result<TablePin> next =
          pin ? tables_->Append(*pin, EdgeRows(table.schema, ids, src, dst), std::nullopt)
              : tables_->Create(table, EdgeRows(table.schema, ids, src, dst), std::nullopt);
      EXPECT_TRUE(next.ok()) << next.status().ToString();
      pin = *next;
    }
    const std::vector<std::string> gone = {"e0", "e7919", "e15838"};
    Result<TablePin> deleted = tables_->Delete(*pin, gone, std::nullopt);
    EXPECT_TRUE(deleted.ok()) << deleted.status().ToString();
    auto version = Cold(*deleted);
    EXPECT_TRUE(version->BuildIndexes().ok());
    EXPECT_TRUE(version->Csr(EdgeDirection::kIn).ok());
    return *deleted;
  }

  std::shared_ptr<const TableVersion> Cold(const TablePin& pin) {
    fresh_ = std::make_unique<TableStore>(runtime_, Options());
    return *fresh_->Open(pin);
  }

  storage::TempDir dir_;
  Random random_{23};
  std::shared_ptr<storage::ObjectStore> inner_;
  std::shared_ptr<storage::CountingStore> counting_;
  storage::Runtime runtime_;
  std::unique_ptr<TableStore> tables_, fresh_;
};

// The object reads and creations made through it, in the order they finish.
class RecordingStore final : public storage::ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  Result<storage::GetResult> Get(std::string_view name,
                                 std::optional<storage::ByteRange> range) override {
    Note("get " + std::string(name));
    return ForwardingStore::Get(name, range);
  }
  // Noted once done; an id index takes 100 ms longer, so that whatever runs beside its store
  // shows in the order.
  Result<bool> PutIfAbsent(std::string_view name, std::string_view data) override {
    Result<bool> created = ForwardingStore::PutIfAbsent(name, data);
    if (name.ends_with(".ids")) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    Note("create " + std::string(name));
    return created;
  }
  std::vector<std::string> Calls() {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_;
  }

 private:
  void Note(std::string call) {
    std::lock_guard<std::mutex> lock(mu_);
    calls_.push_back(std::move(call));
  }
  std::mutex mu_;
  std::vector<std::string> calls_;
};

// An edge table whose id index is larger than the cache stores the index before the adjacency
// build reads any endpoint column, and the build lets it go once it has the positions (decision
// 218): the fragment reads before the index is created are the id index build's alone (as many
// as that build makes by itself), and the objects are the ones the overlapped build (an index
// the cache holds) stores, byte for byte.
TEST_P(CsrPointsTest, AnIndexLargerThanTheCacheIsStoredFirstWithTheSameObjects) {
  const TablePin pin = RandomGraph(300, 2'000);
  const std::string ids = DerivedName(pin.table(), pin.staged_version, "ids");
  const std::string csr = DerivedName(pin.table(), pin.staged_version, "csr.out");
  std::map<std::string, std::string> stored;
  for (const std::string& name : {ids, csr}) stored[name] = inner_->Get(name)->data;
  // Runs `build` on a fresh handle over a recording store with the derived objects removed;
  // returns the calls.
  const auto recorded = [&](uint64_t cache_bytes, const auto& build) {
    for (const std::string& name : {ids, csr}) (void)inner_->Delete(name);
    auto recording = std::make_shared<RecordingStore>(counting_);
    TableStoreOptions options = Options();
    options.cache_bytes = cache_bytes;
    // A pool of threads, not the tests' inline executor: the overlapped build runs the index's
    // store beside the adjacency build.
    TableStore tables(storage::Runtime::ForStore(recording, 3), options);
    build(**tables.Open(pin));
    return recording->Calls();
  };
  const auto fragment_gets = [](const std::vector<std::string>& calls, size_t end) {
    return std::count_if(calls.begin(), calls.begin() + end, [](const std::string& c) {
      return c.starts_with("get ") && c.find("/data/") != std::string::npos;
    });
  };
  const std::vector<std::string> alone =
      recorded(1, [](const TableVersion& v) { ASSERT_TRUE(v.SortedIds().ok()); });
  for (uint64_t cache_bytes : {uint64_t{1}, kDefaultCacheBytes}) {
    SCOPED_TRACE("cache bytes " + std::to_string(cache_bytes));
    const std::vector<std::string> calls =
        recorded(cache_bytes, [](const TableVersion& v) { ASSERT_TRUE(v.BuildIndexes().ok()); });
    const auto at = [&](const std::string& name) {
      return static_cast<size_t>(std::find(calls.begin(), calls.end(), "create " + name) -
                                 calls.begin());
    };
    ASSERT_LT(at(ids), calls.size());
    ASSERT_LT(at(csr), calls.size());
    if (cache_bytes == 1) {
      EXPECT_EQ(fragment_gets(calls, at(ids)), fragment_gets(alone, alone.size()));
      EXPECT_LT(at(ids), at(csr));
    }
    for (const std::string& name : {ids, csr}) {
      Result<storage::GetResult> got = inner_->Get(name);
      ASSERT_TRUE(got.ok()) << name;
      EXPECT_EQ(got->data, stored[name]) << name;
    }
  }
}

TEST_P(CsrPointsTest, ListsEqualTheWholeAdjacencyForAnyKeys) {
  const TablePin pin = RandomGraph(3000, 20'000);
  for (EdgeDirection direction : {EdgeDirection::kOut, EdgeDirection::kIn}) {
    SCOPED_TRACE(std::string(CsrKind(direction)));
    auto cold = Cold(pin);
    Result<std::shared_ptr<const EdgeCsr>> whole = cold->Csr(direction);
    ASSERT_TRUE(whole.ok()) << whole.status().ToString();
    const Lists expected = WholeLists(**whole);
    Result<std::shared_ptr<const CsrPoints>> points = CsrPoints::Open(*Cold(pin), direction);
    ASSERT_TRUE(points.ok()) << points.status().ToString();
    // Every key at once, then random batches with repeats and ids that are no key: below the
    // first, past the last, between two, the empty id.
    std::vector<std::string> all;
    for (const auto& [key, list] : expected) all.push_back(key);
    EXPECT_EQ(PointLists(**points, all), expected);
    for (int batch = 0; batch < 20; ++batch) {
      std::vector<std::string> keys = {"", "a", "zzz", Node(1500) + "x"};
      for (int i = 0; i < 1 + batch * 3; ++i) keys.push_back(Node(random_.Uniform(3100)));
      keys.push_back(keys.back());
      Lists want;
      for (const std::string& key : keys) {
        if (expected.count(key) != 0) want[key] = expected.at(key);
      }
      EXPECT_EQ(PointLists(**points, keys), want) << "batch " << batch;
    }
  }
}

// One key of an adjacency of 50,000 keys with one edge each: every section is larger than the
// coalescing gap, so each range is its own read. Revisions 4 and 3 open with one read of the
// object's first CsrOpenReadBytes, which hold the table and the whole prefix (fence, other-id
// starts, block checksums), and lists in two rounds: the key's window of key ends, of key ids and
// of offsets with the window's packed edges and targets (5), then the target's group of other ids
// with their end offsets (2). Revision 2 opens with two reads (the table, then the fence with the
// block checksums at the end) and lists in four rounds: the window (3; the offsets were a round of
// their own before decision 213), the slot's edge and target (2), the target's end offsets (1)
// and id (1).
TEST_P(CsrPointsTest, AColdReadOfOneKeyCostsFewRangedReadsAndASmallPartOfTheObject) {
  constexpr uint64_t kKeys = 50'000;
  const NewTable table{TableId{0x72, 0x1}, "Knows", ModelSchema(true)};
  std::vector<std::string> ids, src, dst;
  for (uint64_t e = 0; e < kKeys; ++e) {
    ids.push_back("e" + std::to_string(e));
    src.push_back(Node(e));
    dst.push_back(Node((e * 7 + 3) % kKeys));
  }
  Result<TablePin> pin =
      tables_->Create(table, EdgeRows(table.schema, ids, src, dst), std::nullopt);
  ASSERT_TRUE(pin.ok()) << pin.status().ToString();
  ASSERT_TRUE(Cold(*pin)->BuildIndexes().ok());
  const std::string name = DerivedName(pin->table(), pin->staged_version, "csr.out");
  const EdgeCsr whole = **Cold(*pin)->Csr(EdgeDirection::kOut);
  // The edge's position is its id's rank among the ids.
  std::vector<std::string> sorted = ids;
  std::sort(sorted.begin(), sorted.end());
  const auto position = static_cast<uint32_t>(
      std::lower_bound(sorted.begin(), sorted.end(), "e31337") - sorted.begin());
  struct Cost {
    uint32_t revision;
    uint64_t open_gets, list_reads;
  };
  for (const Cost& cost : {Cost{4, 1, 7}, Cost{3, 1, 7}, Cost{2, 2, 7}}) {
    SCOPED_TRACE("revision " + std::to_string(cost.revision));
    if (cost.revision != 4) {
      const std::string older =
          cost.revision == 3 ? whole.EncodeRevision3() : whole.EncodeRevision2();
      ASSERT_TRUE(inner_->Put(name, EncodeDerived(Cold(*pin)->manifest(), "csr.out", older)).ok());
    }
    const uint64_t object_bytes = inner_->Head(name)->size_bytes;
    auto cold = Cold(*pin);
    counting_->Reset();
    Result<std::shared_ptr<const CsrPoints>> points = CsrPoints::Open(*cold, EdgeDirection::kOut);
    ASSERT_TRUE(points.ok()) << points.status().ToString();
    EXPECT_EQ((*points)->layout().revision, cost.revision);
    EXPECT_EQ(counting_->Snapshot().gets, cost.open_gets);
    uint64_t reads = 0;
    const Lists got = PointLists(**points, {Node(31'337)}, &reads);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got.at(Node(31'337)), (std::vector<std::pair<uint32_t, std::string>>{
                                        {position, Node((31'337 * 7 + 3) % kKeys)}}));
    EXPECT_EQ(reads, cost.list_reads);
    const storage::OpCounts counts = counting_->Snapshot();
    EXPECT_EQ(counts.gets, cost.open_gets + cost.list_reads) << counts.ToString();
    EXPECT_EQ(counts.shared_gets, counts.gets) << counts.ToString();
    EXPECT_EQ(counts.total(), counts.gets) << counts.ToString();
    EXPECT_LT(counts.bytes_read * 8, object_bytes) << counts.ToString();
    // The same key again reads nothing: its blocks were checked once and are kept (decision 225).
    counting_->Reset();
    EXPECT_EQ(PointLists(**points, {Node(31'337)}), got);
    EXPECT_EQ(counting_->Snapshot().gets, 0u);
  }
}

// Every byte of the payload is covered by a block checksum, the table's, or the block checksums'
// own: a flip anywhere makes the point reads of every key, and the whole read, Corruption naming
// the object; so does a truncated object.
TEST_P(CsrPointsTest, DamageAnywhereInThePayloadIsCorruption) {
  const TablePin pin = RandomGraph(600, 8000);
  const std::string name = DerivedName(pin.table(), pin.staged_version, "csr.out");
  const std::string good = inner_->Get(name)->data;
  auto version = Cold(pin);
  const DerivedHeader header = *version->ReadDerivedHeader("csr.out");
  Result<std::shared_ptr<const EdgeCsr>> whole = version->Csr(EdgeDirection::kOut);
  ASSERT_TRUE(whole.ok());
  std::vector<std::string> keys;
  for (size_t k = 0; k < (*whole)->keys.size(); ++k) keys.emplace_back((*whole)->keys.At(k));
  ASSERT_GT(keys.size(), 2 * kCsrFenceStride) << "several fence windows";
  ASSERT_GT(header.payload_bytes, 2 * kCsrBlockBytes) << "several blocks";
  const auto expect_corruption = [&](const std::string& bytes, const std::string& what) {
    ASSERT_TRUE(inner_->Put(name, bytes).ok());
    Result<std::shared_ptr<const CsrPoints>> points =
        CsrPoints::Open(*Cold(pin), EdgeDirection::kOut);
    Status status = points.status();
    if (points.ok()) {
      std::vector<std::string_view> views(keys.begin(), keys.end());
      status = (*points)->Lists(views).status();
    }
    EXPECT_EQ(status.code(), Code::kCorruption) << what << ": " << status.ToString();
    EXPECT_NE(status.ToString().find(name), std::string::npos) << what;
    const std::string_view payload =
        std::string_view(bytes).substr(std::min<uint64_t>(header.payload_offset, bytes.size()));
    Result<EdgeCsr> decoded = EdgeCsr::Decode(
        storage::SharedBytes::FromString(std::string(payload)), version->manifest(), name);
    EXPECT_EQ(decoded.status().code(), Code::kCorruption) << what;
  };
  for (uint64_t at = header.payload_offset; at < good.size(); at += 131) {
    std::string bad = good;
    bad[at] ^= 0x20;
    expect_corruption(bad, "byte " + std::to_string(at));
  }
  for (uint64_t keep : {header.payload_offset + 100, good.size() / 2, good.size() - 8}) {
    expect_corruption(good.substr(0, keep), "truncated to " + std::to_string(keep));
  }
}

// Revision 4's prefix checksum leaves out the block checksums (decision 253): a damaged one
// fails the block it covers, for every reader, and nothing else. The reader still opens, the
// first key (whose fence window starts in block 0) is Corruption naming the object, the last key
// (whose reads never touch block 0) is listed as the whole read lists it, and the whole read is
// Corruption too.
TEST_P(CsrPointsTest, ADamagedBlockChecksumFailsTheBlockItCoversAndNothingElse) {
  const TablePin pin = RandomGraph(3000, 20'000);
  const std::string name = DerivedName(pin.table(), pin.staged_version, "csr.out");
  auto version = Cold(pin);
  const Lists expected = WholeLists(**version->Csr(EdgeDirection::kOut));
  const DerivedHeader header = *version->ReadDerivedHeader("csr.out");
  Result<std::shared_ptr<const CsrPoints>> fine = CsrPoints::Open(*version, EdgeDirection::kOut);
  ASSERT_TRUE(fine.ok()) << fine.status().ToString();
  const CsrLayout layout = (*fine)->layout();
  ASSERT_EQ(layout.revision, 4u);
  ASSERT_EQ(layout.block_bytes, kCsr4BlockBytes);
  ASSERT_GT(layout.blocks(), 8u);
  std::string bad = inner_->Get(name)->data;
  bad[header.payload_offset + layout.sums_offset() + 3] ^= 0x04;  // Block 0's checksum.
  ASSERT_TRUE(inner_->Put(name, bad).ok());
  auto cold = Cold(pin);
  Result<std::shared_ptr<const CsrPoints>> points = CsrPoints::Open(*cold, EdgeDirection::kOut);
  ASSERT_TRUE(points.ok()) << points.status().ToString();
  const std::string last = expected.rbegin()->first;
  EXPECT_EQ(PointLists(**points, {last}), (Lists{{last, expected.at(last)}}));
  const std::string first = expected.begin()->first;
  const std::vector<std::string_view> views = {first};
  Result<CsrPointLists> broken = (*points)->Lists(views);
  EXPECT_EQ(broken.status().code(), Code::kCorruption) << broken.status().ToString();
  EXPECT_NE(broken.status().ToString().find(name), std::string::npos);
  EXPECT_NE(broken.status().ToString().find("block checksum mismatch"), std::string::npos);
  Result<EdgeCsr> decoded = EdgeCsr::Decode(
      storage::SharedBytes::FromString(bad.substr(header.payload_offset)), cold->manifest(), name);
  EXPECT_EQ(decoded.status().code(), Code::kCorruption) << decoded.status().ToString();
}

// A reader keeps the blocks it checked (decision 225): listing keys again reads nothing, listing
// them without their edges gives the same other ends, and every list equals the whole read's.
TEST_P(CsrPointsTest, AReaderChecksEachBlockOnceAndListsWithoutEdges) {
  const TablePin pin = RandomGraph(3000, 20'000);
  const Lists expected = WholeLists(**Cold(pin)->Csr(EdgeDirection::kOut));
  std::vector<std::string> some, all;
  for (const auto& [key, list] : expected) {
    all.push_back(key);
    if (all.size() % 97 == 0) some.push_back(key);
  }
  auto cold = Cold(pin);
  Result<std::shared_ptr<const CsrPoints>> points = CsrPoints::Open(*cold, EdgeDirection::kOut);
  ASSERT_TRUE(points.ok()) << points.status().ToString();
  // Without edges: the same other ends, no edge positions.
  std::vector<std::string_view> views(some.begin(), some.end());
  Result<CsrPointLists> bare = (*points)->Lists(views, /*with_edges=*/false);
  ASSERT_TRUE(bare.ok()) << bare.status().ToString();
  EXPECT_TRUE(bare->edges.empty());
  EXPECT_GT(bare->reads, 0u);
  for (size_t i = 0; i < some.size(); ++i) {
    const auto& list = expected.at(some[i]);
    ASSERT_EQ(bare->begin[i + 1] - bare->begin[i], list.size()) << some[i];
    for (size_t j = 0; j < list.size(); ++j) {
      EXPECT_EQ(bare->others[bare->begin[i] + j], list[j].second) << some[i];
    }
  }
  EXPECT_EQ(PointLists(**points, all), expected);
  counting_->Reset();
  uint64_t reads = 1;
  EXPECT_EQ(PointLists(**points, all, &reads), expected);
  EXPECT_EQ(reads, 0u);
  EXPECT_EQ(counting_->Snapshot().gets, 0u);
}

// The store answering as a remote one (storage::ObjectStore::Remote).
class RemoteLike final : public storage::ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  bool Remote() const override { return true; }
};

// A round's reads coalesce blocks across gaps. On a remote store a read is kept whole (its bytes
// are one buffer); on a local one only the blocks asked for are checked and kept (decision 229):
// the cache is charged less than was read, and the lists are the same.
TEST_P(CsrPointsTest, OnALocalStoreOnlyTheBlocksAskedForAreKept) {
  const TablePin pin = RandomGraph(3000, 20'000);
  const Lists expected = WholeLists(**Cold(pin)->Csr(EdgeDirection::kOut));
  std::vector<std::string> some;
  size_t k = 0;
  for (const auto& [key, list] : expected) {
    if (k++ % 251 == 7) some.push_back(key);
  }
  ASSERT_GE(some.size(), 8u);
  for (bool remote : {false, true}) {
    SCOPED_TRACE(remote ? "remote" : "local");
    storage::Runtime runtime = runtime_;
    if (remote) runtime.store = std::make_shared<RemoteLike>(counting_);
    TableStore tables(runtime, Options());
    Result<std::shared_ptr<const TableVersion>> version = tables.Open(pin);
    ASSERT_TRUE(version.ok()) << version.status().ToString();
    Result<std::shared_ptr<const CsrPoints>> points =
        CsrPoints::Open(**version, EdgeDirection::kOut);
    ASSERT_TRUE(points.ok()) << points.status().ToString();
    const uint64_t charged = tables.cache().charged_bytes();
    std::vector<std::string_view> views(some.begin(), some.end());
    Result<CsrPointLists> got = (*points)->Lists(views);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    for (size_t i = 0; i < some.size(); ++i) {
      const auto& list = expected.at(some[i]);
      ASSERT_EQ(got->begin[i + 1] - got->begin[i], list.size()) << some[i];
      for (size_t j = 0; j < list.size(); ++j) {
        EXPECT_EQ(got->edges[got->begin[i] + j], list[j].first) << some[i];
        EXPECT_EQ(got->others[got->begin[i] + j], list[j].second) << some[i];
      }
    }
    const uint64_t kept = tables.cache().charged_bytes() - charged;
    ASSERT_GT(got->bytes, 0u);
    if (remote) {
      EXPECT_EQ(kept, got->bytes);
    } else {
      EXPECT_GT(kept, 0u);
      EXPECT_LT(kept, got->bytes);
    }
    // Either way the keys again read nothing.
    counting_->Reset();
    EXPECT_EQ(PointLists(**points, some), [&] {
      Lists want;
      for (const std::string& key : some) want[key] = expected.at(key);
      return want;
    }());
    EXPECT_EQ(counting_->Snapshot().gets, 0u);
  }
}

// A kept block was checked before it was kept, and a block that fails its check is never kept:
// after the stored object is damaged, keys whose blocks the reader holds still answer from them
// with no read, and a batch that needs a damaged block is Corruption naming the object, as often
// as it is asked.
TEST_P(CsrPointsTest, ADamagedBlockIsNeverKeptAndKeptBlocksStillAnswer) {
  const TablePin pin = RandomGraph(3000, 20'000);
  const std::string name = DerivedName(pin.table(), pin.staged_version, "csr.out");
  const Lists expected = WholeLists(**Cold(pin)->Csr(EdgeDirection::kOut));
  const std::vector<std::string> one = {expected.begin()->first};
  std::vector<std::string> all;
  for (const auto& [key, list] : expected) all.push_back(key);
  // The header (where the payload starts), read through a table store of its own.
  const DerivedHeader header = *Cold(pin)->ReadDerivedHeader("csr.out");
  auto cold = Cold(pin);
  Result<std::shared_ptr<const CsrPoints>> points = CsrPoints::Open(*cold, EdgeDirection::kOut);
  ASSERT_TRUE(points.ok()) << points.status().ToString();
  const Lists before = PointLists(**points, one);
  ASSERT_EQ(before.size(), 1u);
  // A flipped byte in every block of the data area.
  const CsrLayout& layout = (*points)->layout();
  std::string bad = inner_->Get(name)->data;
  for (uint64_t at = layout.data_begin; at < layout.data_end; at += layout.block_bytes) {
    bad[header.payload_offset + at + 1] ^= 0x10;
  }
  ASSERT_TRUE(inner_->Put(name, bad).ok());
  std::vector<std::string_view> views(all.begin(), all.end());
  for (int attempt = 0; attempt < 2; ++attempt) {
    Result<CsrPointLists> got = (*points)->Lists(views);
    EXPECT_EQ(got.status().code(), Code::kCorruption) << got.status().ToString();
    EXPECT_NE(got.status().ToString().find(name), std::string::npos);
  }
  counting_->Reset();
  EXPECT_EQ(PointLists(**points, one), before);
  EXPECT_EQ(counting_->Snapshot().gets, 0u);
}

// Revision 2 (slots of 4 bytes, the fence and block checksums at the end) is what writers wrote
// before revision 3: it is still read in parts (two reads to open, four rounds per batch; the
// cost test below counts them) and gives what the whole read gives.
TEST_P(CsrPointsTest, RevisionTwoIsStillReadInParts) {
  const TablePin pin = RandomGraph(3000, 20'000);
  auto version = Cold(pin);
  const EdgeCsr whole = **version->Csr(EdgeDirection::kOut);
  const Lists expected = WholeLists(whole);
  const std::string name = DerivedName(pin.table(), pin.staged_version, "csr.out");
  ASSERT_TRUE(
      inner_->Put(name, EncodeDerived(version->manifest(), "csr.out", whole.EncodeRevision2()))
          .ok());
  auto cold = Cold(pin);
  counting_->Reset();
  Result<std::shared_ptr<const CsrPoints>> points = CsrPoints::Open(*cold, EdgeDirection::kOut);
  ASSERT_TRUE(points.ok()) << points.status().ToString();
  EXPECT_EQ((*points)->layout().revision, 2u);
  EXPECT_EQ(counting_->Snapshot().gets, 2u);
  std::vector<std::string> all;
  for (const auto& [key, list] : expected) all.push_back(key);
  EXPECT_EQ(PointLists(**points, all), expected);
  Result<std::shared_ptr<const EdgeCsr>> read = Cold(pin)->Csr(EdgeDirection::kOut);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(WholeLists(**read), expected);
}

// A process that held a point reader on a revision-2 object, then rebuilt the damaged object (a
// whole read replaces it with revision 4), opens a new reader on what is stored now: the held one
// had the replaced object's layout and block checksums, and would have called the repaired
// object Corruption for as long as the process held it.
TEST_P(CsrPointsTest, ARebuiltAdjacencyIsReadThroughANewPointReader) {
  const TablePin pin = RandomGraph(3000, 20'000);
  auto version = Cold(pin);
  const EdgeCsr whole = **version->Csr(EdgeDirection::kOut);
  const Lists expected = WholeLists(whole);
  const std::string name = DerivedName(pin.table(), pin.staged_version, "csr.out");
  ASSERT_TRUE(
      inner_->Put(name, EncodeDerived(version->manifest(), "csr.out", whole.EncodeRevision2()))
          .ok());
  auto cold = Cold(pin);
  Result<std::shared_ptr<const CsrPoints>> points = CsrPoints::Open(*cold, EdgeDirection::kOut);
  ASSERT_TRUE(points.ok()) << points.status().ToString();
  ASSERT_EQ((*points)->layout().revision, 2u);
  const std::vector<std::string> one = {expected.begin()->first};
  ASSERT_EQ(PointLists(**points, one).size(), 1u);
  // Damage in every block of the data area; the whole read then rebuilds and replaces it.
  const DerivedHeader header = *cold->ReadDerivedHeader("csr.out");
  const CsrLayout& layout = (*points)->layout();
  std::string bad = inner_->Get(name)->data;
  for (uint64_t at = layout.data_begin; at < layout.data_end; at += layout.block_bytes) {
    bad[header.payload_offset + at + 1] ^= 0x10;
  }
  ASSERT_TRUE(inner_->Put(name, bad).ok());
  Result<std::shared_ptr<const EdgeCsr>> rebuilt = cold->Csr(EdgeDirection::kOut);
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status().ToString();
  EXPECT_EQ(WholeLists(**rebuilt), expected);
  Result<std::shared_ptr<const CsrPoints>> again = CsrPoints::Open(*cold, EdgeDirection::kOut);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ((*again)->layout().revision, 4u);
  std::vector<std::string> all;
  for (const auto& [key, list] : expected) all.push_back(key);
  EXPECT_EQ(PointLists(**again, all), expected);
}

// A point reader's first bytes read ahead (TableStore::Prefetch above the point bound) and the
// decoded header of the same object are held under different keys: a header read while the head
// is still held gets the object's own header, and the point reader still opens from the head.
TEST_P(CsrPointsTest, AHeadReadAheadAndTheObjectsHeaderAreHeldApart) {
  const TablePin pin = RandomGraph(300, 2000);
  auto version = Cold(pin);
  TableStore::PrefetchOptions ahead;
  ahead.adjacency_of = {pin.table_key};
  ahead.adjacency_edges_max = 0;  // Every adjacency is read point by point: its head ahead.
  ahead.reads_min = 1;
  fresh_->Prefetch(std::span<const TablePin>(&pin, 1), ahead);
  const std::string name = DerivedName(pin.table(), pin.staged_version, "csr.out");
  Result<DerivedHeader> header = version->ReadDerivedHeader("csr.out");
  ASSERT_TRUE(header.ok()) << header.status().ToString();
  EXPECT_FALSE(header->delta.has_value());
  EXPECT_EQ(header->payload_offset + header->payload_bytes, inner_->Get(name)->data.size());
  const storage::OpCounts before = counting_->Snapshot();
  Result<std::shared_ptr<const CsrPoints>> points = CsrPoints::Open(*version, EdgeDirection::kOut);
  ASSERT_TRUE(points.ok()) << points.status().ToString();
  EXPECT_EQ((counting_->Snapshot() - before).gets, 0u) << "the head read ahead was not used";
}

// Revision 1 (each section checksummed whole) was written before point reads: it is still read
// whole, and a point reader is told so. A delta is read as a chain, whole.
TEST_P(CsrPointsTest, RevisionOneAndDeltasAreReadWhole) {
  const TablePin pin = RandomGraph(300, 2000);
  auto version = Cold(pin);
  const EdgeCsr whole = **version->Csr(EdgeDirection::kOut);
  // Revision 1's payload, as the writer before it made it (docs/format/indexes.md).
  std::vector<uint64_t> counts = {whole.edges.size(), whole.keys.size(), whole.others.size()};
  const auto bytes = [](const void* data, size_t n) {
    return std::string(static_cast<const char*>(data), n);
  };
  const std::string sections[] = {bytes(counts.data(), 24),
                                  bytes(whole.keys.ends.data(), 4 * whole.keys.size()),
                                  std::string(whole.keys.blob),
                                  bytes(whole.others.ends.data(), 4 * whole.others.size()),
                                  std::string(whole.others.blob),
                                  bytes(whole.offsets.data(), 4 * whole.offsets.size()),
                                  bytes(whole.edges.data(), 4 * whole.edges.size()),
                                  bytes(whole.targets.data(), 4 * whole.targets.size())};
  std::string v1;
  AppendLe<uint32_t>(v1, 8);
  AppendLe<uint32_t>(v1, 0);
  uint64_t at = 208;
  for (const std::string& s : sections) {
    AppendLe<uint64_t>(v1, at);
    AppendLe<uint64_t>(v1, s.size());
    AppendLe<uint64_t>(v1, XxHash64(s));
    at += Padded8(s.size());
  }
  AppendLe<uint64_t>(v1, XxHash64(v1));
  for (const std::string& s : sections) v1 += s + std::string(Padded8(s.size()) - s.size(), '\0');
  const std::string name = DerivedName(pin.table(), pin.staged_version, "csr.out");
  ASSERT_TRUE(inner_->Put(name, EncodeDerived(version->manifest(), "csr.out", v1)).ok());
  auto cold = Cold(pin);
  EXPECT_EQ(CsrPoints::Open(*cold, EdgeDirection::kOut).status().code(), Code::kUnsupported);
  Result<std::shared_ptr<const EdgeCsr>> read = cold->Csr(EdgeDirection::kOut);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(WholeLists(**read), WholeLists(whole));
  EXPECT_EQ(inner_->Get(name)->data, EncodeDerived(version->manifest(), "csr.out", v1))
      << "a revision-1 object that decodes is kept";

  // One more edge: a small write stores a delta over the version.
  std::vector<std::string> ids = {"new-edge"}, src = {Node(1)}, dst = {Node(2)};
  const NewTable table{pin.table(), "Knows", ModelSchema(true)};
  Result<TablePin> next =
      tables_->Append(pin, EdgeRows(cold->schema(), ids, src, dst), std::nullopt);
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  ASSERT_EQ(Cold(*next)->WriteIndexDeltas()->size(), 2u);
  EXPECT_EQ(CsrPoints::Open(*Cold(*next), EdgeDirection::kOut).status().code(), Code::kUnsupported);
  Result<std::shared_ptr<const EdgeCsr>> chained = Cold(*next)->Csr(EdgeDirection::kOut);
  ASSERT_TRUE(chained.ok()) << chained.status().ToString();
  EXPECT_EQ(chained.value()->edges.size(), whole.edges.size() + 1);
}

INSTANTIATE_TEST_SUITE_P(Stores, CsrPointsTest, ::testing::Values(false, true),
                         [](const auto& p) { return p.param ? "Local" : "Memory"; });

}  // namespace
}  // namespace omnigraph::table
