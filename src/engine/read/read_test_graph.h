// A fixture for read tests: a graph of a given schema in a memory store, rows written through
// the write path (so each call is a commit, and deletes leave deltas), and queries run with a
// shared ExecCache. Shared by the aggregate tests (aggregate_test.cc, value_groups_test.cc)
// instead of each repeating the setup. Test-only; single-threaded.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/graph/graph.h"
#include "engine/read/query.h"
#include "engine/write/write.h"
#include "query/exec/column_codec.h"
#include "storage/memory_store.h"

namespace omnigraph::engine {

class ReadGraphTest : public testing::Test {
 public:
  // A node to append: its id and its property values in the type's property order (nullopt:
  // null).
  struct NodeRow {
    std::string id;
    std::vector<std::optional<schema::Value>> values;
  };

 protected:
  // A new graph of `schema`, replacing any earlier one (a randomized test starts each round
  // afresh); its runtime runs tasks inline, or on `threads` when given.
  void Reset(std::string_view schema, std::shared_ptr<Executor> threads = nullptr) {
    storage::Runtime rt = storage::Runtime::ForTest(std::make_shared<storage::MemoryStore>(), 1);
    if (threads != nullptr) rt.executor = std::move(threads);
    Result<std::unique_ptr<Graph>> g = Graph::Init(rt, schema);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    graph_ = std::move(*g);
    cache_ = std::make_unique<query::ExecCache>();
    next_edge_ = 0;
  }

  // Appends nodes of `type` in one write on `branch`.
  void AddNodes(const std::string& type, const std::vector<NodeRow>& rows,
                const std::string& branch = "main") {
    Snapshot s = *graph_->SnapshotOfBranch(branch);
    const schema::TypeDef* def = s.catalog().FindNode(type);
    ASSERT_NE(def, nullptr) << type;
    query::RowsBuilder b = *query::RowsBuilder::Make(*def);
    for (const NodeRow& row : rows) {
      std::vector<std::optional<schema::Value>> v = row.values;
      v.resize(def->properties.size());
      const Status appended = b.Append(row.id, "", "", v);
      ASSERT_TRUE(appended.ok()) << appended.ToString();
    }
    Commit(branch, "node:" + type, TableChange{TableChange::Op::kAppend, *b.Finish(), {}});
  }

  // Deletes the nodes `ids` of `type` in one write on `branch` (their edges stay; a traversal
  // leaves out edges to a node that is gone).
  void DeleteNodes(const std::string& type, const std::vector<std::string>& ids,
                   const std::string& branch = "main") {
    Commit(branch, "node:" + type, TableChange{TableChange::Op::kDelete, {}, ids});
  }

  // Appends edges of `type` with ids of their own, so a pair may repeat (parallel edges).
  void AddEdges(const std::string& type,
                const std::vector<std::pair<std::string, std::string>>& pairs,
                const std::string& branch = "main") {
    Snapshot s = *graph_->SnapshotOfBranch(branch);
    const schema::TypeDef* def = s.catalog().FindEdge(type);
    ASSERT_NE(def, nullptr) << type;
    query::RowsBuilder b = *query::RowsBuilder::Make(*def);
    for (const auto& [from, to] : pairs) {
      ASSERT_TRUE(b.Append("k" + std::to_string(next_edge_++), from, to, {}).ok());
    }
    Commit(branch, "edge:" + type, TableChange{TableChange::Op::kAppend, *b.Finish(), {}});
  }

  // Runs query `q` of `source` with the shared cache and `options`' other fields.
  Result<query::QueryResult> Run(const std::string& source, RunOptions options = {}) {
    options.cache = cache_.get();
    OMNIGRAPH_ASSIGN_OR_RETURN(ReadOutcome out,
                               RunRead(*graph_, source, "q", Json::object(), options));
    return std::move(out.result);
  }

  std::unique_ptr<Graph> graph_;
  std::unique_ptr<query::ExecCache> cache_;

 private:
  void Commit(const std::string& branch, const std::string& table, TableChange change) {
    WriteRequest w;
    w.branch = branch;
    w.changes[table] = std::move(change);
    const auto written = Write(*graph_, w);
    ASSERT_TRUE(written.ok()) << written.status().ToString();
  }

  int next_edge_ = 0;
};

}  // namespace omnigraph::engine
