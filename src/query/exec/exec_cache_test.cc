// The query layer's adjacency (query/exec/exec_cache.h) against an oracle computed the way it was
// built before the gather: every edge's endpoints looked up in the node images, then a counting
// sort per direction in edge order. Endpoints repeat (a node has many edges, parallel edges and
// self-loops occur), some are no live node of their type (dangling, so left out), and the two
// endpoint types differ, so both sides are numbered by their own image.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "base/random.h"
#include "query/exec/exec_cache.h"
#include "storage/memory_store.h"
#include "table/column_builder.h"
#include "table/model_table.h"
#include "table/table_manifest.h"
#include "table/table_store.h"

namespace omnigraph::query {
namespace {

// "n<i>" for i in [from, to) except `skip` (the endpoints the edges name that are not rows).
std::vector<std::string> NodeIds(int from, int to, int skip) {
  std::vector<std::string> ids;
  for (int i = from; i < to; ++i) {
    if (i != skip) ids.push_back("n" + std::to_string(i));
  }
  return ids;
}

// One side as lists: per node, its (target, edge) pairs in order.
using Lists = std::vector<std::vector<std::pair<uint32_t, uint32_t>>>;

Lists ListsOf(const Csr& csr) {
  Lists lists(csr.offsets.size() - 1);
  for (size_t v = 0; v + 1 < csr.offsets.size(); ++v) {
    for (uint64_t at = csr.offsets[v]; at < csr.offsets[v + 1]; ++at) {
      lists[v].emplace_back(csr.targets[at], csr.edges[at]);
    }
  }
  return lists;
}

class AdjacencyTest : public ::testing::Test {
 protected:
  AdjacencyTest() {
    runtime_ = storage::Runtime::ForTest(std::make_shared<storage::MemoryStore>("adj"), 9);
    table::TableStoreOptions options;
    // Large enough that the edge version keeps a stored adjacency (read, not rebuilt).
    options.derived_rows_min = 4;
    tables_ = std::make_unique<table::TableStore>(runtime_, options);
  }

  std::shared_ptr<const table::TableVersion> Create(uint64_t id, const std::string& name, bool edge,
                                                    const std::vector<std::string>& ids) {
    const table::NewTable table{TableId{id, 0x1}, name, table::ModelSchema(edge)};
    Result<TablePin> pin =
        tables_->Create(table, table::MakeRows(table.schema, ids, random_), std::nullopt);
    EXPECT_TRUE(pin.ok()) << pin.status().ToString();
    if (edge) {
      EXPECT_TRUE((*tables_->Open(*pin))->BuildIndexes().ok());
    }
    return *tables_->Open(*pin);
  }

  std::shared_ptr<const TableImage> Image(std::shared_ptr<const table::TableVersion> version) {
    Result<std::shared_ptr<const TableImage>> image = TableImage::Build(std::move(version));
    EXPECT_TRUE(image.ok()) << image.status().ToString();
    return *image;
  }

  // The oracle's sides: `out` over `from`, `in` over `to`, each list in edge order.
  void Oracle(const table::TableVersion& edges, const TableImage& from, const TableImage& to,
              Lists& out, Lists& in) {
    out.assign(from.size(), {});
    in.assign(to.size(), {});
    const uint32_t fields[] = {table::kSrcFieldId, table::kDstFieldId};
    uint32_t e = 0;
    Status scanned = edges.ScanInIdOrder(fields, 64, [&](table::ColumnBatch batch) -> Status {
      for (uint64_t row = 0; row < batch.num_rows(); ++row, ++e) {
        OMNIGRAPH_ASSIGN_OR_RETURN(const int64_t s, from.Find(batch.column(0).StringAt(row)));
        OMNIGRAPH_ASSIGN_OR_RETURN(const int64_t d, to.Find(batch.column(1).StringAt(row)));
        if (s < 0 || d < 0) {
          ++dangling_;
          continue;
        }
        out[s].emplace_back(static_cast<uint32_t>(d), e);
        in[d].emplace_back(static_cast<uint32_t>(s), e);
      }
      return Status::Ok();
    });
    ASSERT_TRUE(scanned.ok()) << scanned.ToString();
  }

  Random random_{17};
  storage::Runtime runtime_;
  std::unique_ptr<table::TableStore> tables_;
  uint64_t dangling_ = 0;
};

TEST_F(AdjacencyTest, TheGatheredAdjacencyEqualsTheCountingSortOfEveryEdge) {
  // MakeRows draws each endpoint from n0..n49: 600 edges over 50 ids repeat every source many
  // times. `from` lacks n3 and n35..n49, `to` lacks n0..n9 and n20: their edges dangle.
  std::vector<std::string> edge_ids;
  for (int i = 0; i < 600; ++i) edge_ids.push_back("e" + std::to_string((i * 7919) % 1000));
  auto people = Create(0x41, "Person", false, NodeIds(0, 35, 3));
  auto places = Create(0x42, "Place", false, NodeIds(10, 50, 20));
  auto knows = Create(0x43, "Visits", true, edge_ids);
  auto from = Image(people);
  auto to = Image(places);
  Result<std::shared_ptr<const Adjacency>> adj = BuildAdjacency(*knows, *from, *to);
  ASSERT_TRUE(adj.ok()) << adj.status().ToString();
  Lists out, in;
  Oracle(*knows, *from, *to, out, in);
  EXPECT_GT(dangling_, 100u);
  EXPECT_LT(dangling_, 500u);
  EXPECT_EQ((*adj)->from_nodes(), from->size());
  EXPECT_EQ((*adj)->to_nodes(), to->size());
  EXPECT_EQ(ListsOf((*adj)->out()), out);
  // Dangling edges left out: the lists are the adjacency's own, not the stored slots.
  EXPECT_NE((*adj)->out().targets.data(),
            (*knows->Csr(table::EdgeDirection::kOut))->targets.data());
  // `in` is not built until asked for.
  const uint64_t out_bytes = (*adj)->bytes();
  EXPECT_EQ(out_bytes, (from->size() + 1) * 8 + 2 * 4 * (600 - dangling_));
  EXPECT_EQ(ListsOf((*adj)->in()), in);
  EXPECT_EQ(&(*adj)->in(), &(*adj)->in());
  EXPECT_EQ((*adj)->bytes(), out_bytes + (to->size() + 1) * 8 + 2 * 4 * (600 - dangling_));
}

// When every key of the stored adjacency is a live `from` node and its other ids are exactly the
// `to` nodes, the adjacency's lists are the stored slots themselves: shared with the decoded
// adjacency, not copied. `from` also holds nodes without edges (n50..n59, which sort between
// the others), whose lists are empty.
TEST_F(AdjacencyTest, EndpointsThatAreTheNodesShareTheStoredSlots) {
  std::vector<std::string> edge_ids;
  for (int i = 0; i < 600; ++i) edge_ids.push_back("e" + std::to_string((i * 7919) % 1000));
  auto people = Create(0x61, "Person", false, NodeIds(0, 60, -1));
  auto places = Create(0x62, "Place", false, NodeIds(0, 50, -1));
  auto visits = Create(0x63, "Visits", true, edge_ids);
  auto from = Image(people);
  auto to = Image(places);
  Result<std::shared_ptr<const Adjacency>> adj = BuildAdjacency(*visits, *from, *to);
  ASSERT_TRUE(adj.ok()) << adj.status().ToString();
  Lists out, in;
  Oracle(*visits, *from, *to, out, in);
  EXPECT_EQ(dangling_, 0u);
  EXPECT_EQ(ListsOf((*adj)->out()), out);
  EXPECT_EQ(ListsOf((*adj)->in()), in);
  Result<std::shared_ptr<const table::EdgeCsr>> stored = visits->Csr(table::EdgeDirection::kOut);
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  EXPECT_EQ((*adj)->out().targets.data(), (*stored)->targets.data());
  EXPECT_EQ((*adj)->out().edges.data(), (*stored)->edges.data());
  size_t empty = 0;
  for (const auto& list : out) empty += list.empty() ? 1 : 0;
  EXPECT_EQ(empty, 10u);
}

TEST_F(AdjacencyTest, OneTypeAtBothEndsWithSelfLoopsAndParallelEdges) {
  std::vector<std::string> edge_ids;
  for (int i = 0; i < 400; ++i) edge_ids.push_back("k" + std::to_string(1000 + (i * 31) % 400));
  auto people = Create(0x51, "Person", false, NodeIds(0, 45, 7));
  auto knows = Create(0x52, "Knows", true, edge_ids);
  auto image = Image(people);
  Result<std::shared_ptr<const Adjacency>> adj = BuildAdjacency(*knows, *image, *image);
  ASSERT_TRUE(adj.ok()) << adj.status().ToString();
  Lists out, in;
  Oracle(*knows, *image, *image, out, in);
  EXPECT_GT(dangling_, 0u);
  size_t loops = 0, parallel = 0;
  for (uint32_t v = 0; v < out.size(); ++v) {
    for (size_t i = 0; i < out[v].size(); ++i) {
      loops += out[v][i].first == v;
      parallel += i > 0 && std::any_of(out[v].begin(), out[v].begin() + i,
                                       [&](const auto& p) { return p.first == out[v][i].first; });
    }
  }
  EXPECT_GT(loops, 0u);
  EXPECT_GT(parallel, 0u);
  EXPECT_EQ(ListsOf((*adj)->out()), out);
  EXPECT_EQ(ListsOf((*adj)->in()), in);
}

// DistinctReach counts, per far node, the distinct near nodes one hop reaches it from (what a
// fused count emits): parallel edges count once, a self-loop counts its own node. It is made
// once per direction and kept: a second call returns the same counts without a walk, and the
// adjacency's bytes grow by them.
TEST_F(AdjacencyTest, DistinctReachCountsEachNearNodeOnceAndIsKept) {
  std::vector<std::string> edge_ids;
  for (int i = 0; i < 400; ++i) edge_ids.push_back("k" + std::to_string(1000 + (i * 31) % 400));
  auto people = Create(0x53, "Person", false, NodeIds(0, 45, 7));
  auto knows = Create(0x54, "Knows", true, edge_ids);
  auto image = Image(people);
  Result<std::shared_ptr<const Adjacency>> adj = BuildAdjacency(*knows, *image, *image);
  ASSERT_TRUE(adj.ok()) << adj.status().ToString();
  Lists out, in;
  Oracle(*knows, *image, *image, out, in);
  // Per node with any list entry, the distinct targets of its list.
  const auto distinct = [](const Lists& lists) {
    Adjacency::Reach reach;
    for (uint32_t v = 0; v < lists.size(); ++v) {
      std::set<uint32_t> ends;
      for (const auto& [target, edge] : lists[v]) ends.insert(target);
      if (ends.empty()) continue;
      reach.nodes.push_back(v);
      reach.counts.push_back(static_cast<int64_t>(ends.size()));
      reach.total += ends.size();
    }
    return reach;
  };
  const auto expect_equal = [](const Adjacency::Reach& got, const Adjacency::Reach& want) {
    EXPECT_EQ(got.nodes, want.nodes);
    EXPECT_EQ(got.counts, want.counts);
    EXPECT_EQ(got.total, want.total);
  };
  const uint64_t bytes = (*adj)->bytes();
  const Adjacency::Reach& forward = (*adj)->DistinctReach(true);
  expect_equal(forward, distinct(in));  // Per `to` node, the distinct `from` nodes.
  EXPECT_EQ((*adj)->bytes(), bytes + 12 * forward.nodes.size());
  EXPECT_EQ(&(*adj)->DistinctReach(true), &forward);
  const Adjacency::Reach& backward = (*adj)->DistinctReach(false);
  expect_equal(backward, distinct(out));  // Per `from` node, the distinct `to` nodes.
  EXPECT_NE(forward.counts, backward.counts);
  EXPECT_EQ(&(*adj)->DistinctReach(false), &backward);
}

// Point reads (PointAdjacency over the stored adjacency) give each node exactly the list the
// gathered adjacency's `out` holds: the same edges in the same order, dangling targets left out,
// self-loops and parallel edges kept, nodes without edges empty. 700 keys span several fence
// windows and 12,000 edges several checksum blocks.
TEST_F(AdjacencyTest, PointListsEqualTheGatheredAdjacency) {
  const auto node = [](uint64_t i) { return "n" + std::to_string(i); };
  std::vector<std::string> ids, src, dst;
  for (uint64_t e = 0; e < 12'000; ++e) {
    ids.push_back("e" + std::to_string(e * 7919 % 100'003));
    const uint64_t s = random_.Uniform(3) == 0 ? random_.Uniform(10) : random_.Uniform(700);
    src.push_back(node(s));
    dst.push_back(random_.Uniform(25) == 0 ? node(s) : node(random_.Uniform(760)));
  }
  const table::NewTable table{TableId{0x61, 0x1}, "Knows", table::ModelSchema(true)};
  table::ColumnBatch rows = table::MakeRows(table.schema, ids, random_);
  std::vector<table::Column> columns = rows.ReleaseColumns();
  for (size_t c = 1; c <= 2; ++c) {
    table::ColumnBuilder builder(table.schema[c].type, false);
    for (const std::string& v : c == 1 ? src : dst) builder.AppendString(v);
    columns[c] = *builder.Finish();
  }
  Result<TablePin> pin = tables_->Create(
      table, table::ColumnBatch(table.schema, std::move(columns), ids.size()), std::nullopt);
  ASSERT_TRUE(pin.ok()) << pin.status().ToString();
  auto knows = *tables_->Open(*pin);
  ASSERT_TRUE(knows->BuildIndexes().ok());
  // Persons n0..n749 but n5 and n300..n309: edges to those and past n749 dangle.
  std::vector<std::string> people_ids;
  for (uint64_t i = 0; i < 750; ++i) {
    if (i != 5 && (i < 300 || i > 309)) people_ids.push_back(node(i));
  }
  auto image = Image(Create(0x62, "Person", false, people_ids));
  Result<std::shared_ptr<const Adjacency>> adj = BuildAdjacency(*knows, *image, *image);
  ASSERT_TRUE(adj.ok()) << adj.status().ToString();
  Result<std::shared_ptr<const table::CsrPoints>> points =
      table::CsrPoints::Open(*knows, table::EdgeDirection::kOut);
  ASSERT_TRUE(points.ok()) << points.status().ToString();
  PointAdjacency point(*points, *image, *image);
  // Batches of growing size, with repeats; then every node.
  std::vector<uint32_t> all;
  for (uint32_t v = 0; v < image->size(); ++v) all.push_back(v);
  for (int batch = 1; batch <= 12; ++batch) {
    std::vector<uint32_t> nodes;
    for (int i = 0; i < batch * batch; ++i) {
      nodes.push_back(static_cast<uint32_t>(random_.Uniform(image->size())));
    }
    nodes.push_back(nodes.front());
    // Odd batches without their edges (a reach's walk), the others with them.
    const bool with_edges = batch % 2 == 0;
    ASSERT_TRUE(point.Load(nodes, with_edges).ok());
    for (uint32_t v : nodes) {
      ASSERT_TRUE(point.Has(v, false));
      EXPECT_TRUE(std::ranges::equal(point.Targets(v), (*adj)->out().Targets(v)));
    }
  }
  EXPECT_GT(point.reads(), 0u);
  // Every node with its edges: a node read without them is read again.
  ASSERT_TRUE(point.Load(all).ok());
  const Csr& out = (*adj)->out();
  for (uint32_t v : all) {
    ASSERT_TRUE(point.Has(v));
    EXPECT_TRUE(std::ranges::equal(point.Targets(v), out.Targets(v))) << *image->IdAt(v);
    EXPECT_TRUE(std::ranges::equal(point.Edges(v), out.Edges(v))) << *image->IdAt(v);
  }
  // The reader kept every block it checked (decision 225): another run's lists of every node
  // read nothing and are the same.
  PointAdjacency again(*points, *image, *image);
  ASSERT_TRUE(again.Load(all).ok());
  EXPECT_EQ(again.reads(), 0u);
  for (uint32_t v : all) {
    EXPECT_TRUE(std::ranges::equal(again.Edges(v), out.Edges(v))) << *image->IdAt(v);
  }
}

}  // namespace
}  // namespace omnigraph::query
