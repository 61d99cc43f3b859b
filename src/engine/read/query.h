// Running read queries on a snapshot (OmniGraph's match, return and order semantics;
// docs/design/query-execution.md).
//
// SnapshotView adapts a Snapshot to query::GraphView. RunQuery parses a `.gq` source, selects
// one query by name, typechecks it against the snapshot's catalog, binds the JSON parameters,
// executes it and renders the result envelope
//   {query_name, target:{branch?, snapshot?}, row_count, columns, rows, graph_commit_id}
// with rows as objects keyed by column name (`p.name`, aliases, aggregate names). Errors:
// InvalidArgument for a parse or type error (the rendered diagnostic), an unknown query name, a
// mutation query, or bad parameters; ResourceLimit past the traversal bound. Thread-safe as the
// snapshot.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/json.h"
#include "engine/graph/graph.h"
#include "engine/read/prepared.h"
#include "engine/write/authority.h"
#include "query/exec/executor.h"
#include "query/exec/graph_view.h"

namespace omnigraph::engine {

class SnapshotView final : public query::GraphView {
 public:
  explicit SnapshotView(const Snapshot& snapshot) : snapshot_(snapshot) {}
  const schema::Catalog& catalog() const override { return snapshot_.catalog(); }
  Result<std::shared_ptr<const table::TableVersion>> Table(
      const schema::TypeDef& type) const override {
    return snapshot_.Table(type.table_key());
  }
  std::string cache_scope() const override { return snapshot_.state().schema.identity_domain; }

 private:
  const Snapshot& snapshot_;
};

struct RunOptions {
  // now() for this run, ms since the epoch; unset = the graph Runtime's clock, read once.
  std::optional<int64_t> now_ms;
  // Shared across runs to reuse table images and adjacencies; unset = a cache for this run.
  query::ExecCache* cache = nullptr;
  // Shared across runs to reuse parsed, checked and planned queries (RunRead only); unset =
  // every run parses and checks its source.
  PreparedQueries* prepared = nullptr;
  // Echoed in the envelope's `target`.
  std::optional<std::string> branch;
  std::optional<std::string> snapshot;
  // The bound on the run's traversal work (a `set traversal_work_limit = N;` header overrides
  // it for its source); ResourceLimit once exceeded.
  uint64_t traversal_work_limit = query::kDefaultTraversalWorkLimit;
  // Overrides query::ExecOptions::nearest_exact_max (tests reach the index with small graphs).
  std::optional<uint64_t> nearest_exact_max;
  // Override query::ExecOptions::point_edges_min and point_budget_bytes (tests reach point reads
  // with small graphs).
  std::optional<uint64_t> point_edges_min;
  std::optional<uint64_t> point_budget_bytes;
  // Overrides query::ExecOptions::value_grouping (tests compare grouping by value with grouping
  // by entities).
  bool value_grouping = true;
  // When set (engine/write/authority.h): asked `read` on `branch` (none for a snapshot) with the
  // node and edge types the checked query reads, before any table is read.
  Authorize authorize;
};

Result<OrderedJson> RunQuery(const Snapshot& snapshot, std::string_view source,
                             std::string_view query_name, const Json& params,
                             const RunOptions& options = {});

// A read source run on the graph, typed: `branch list` (docs/design/query-language.md "Branch
// statements": one row per live branch, main first, then by name, in one String column `name`;
// the target is not consulted), or a read query on the head of `options.branch` (main when
// unset) or the commit `options.snapshot`, as RunQuery. BranchNotFound or CommitNotFound for a
// target that does not exist; InvalidArgument for a branch statement that writes.
// A source's file headers (`set x = v;`) apply to its run; `show all;` returns the settings in
// effect (query::ShowSettings); `explain query ...` returns the query's plan, one row per line of
// query::RenderPlan in a String column `plan`, and the whole text in `plan`, reading no table.
struct ReadOutcome {
  std::string query_name;  // The query's, or "branch list", or "show all".
  query::QueryResult result;
  std::string commit_id;              // The snapshot's; empty for `branch list` and `show all`.
  std::vector<std::string> warnings;  // Rendered diagnostics of ignored settings.
  std::optional<std::string> plan;    // `explain`.
};
Result<ReadOutcome> RunRead(Graph& graph, std::string_view source, std::string_view query_name,
                            const Json& params, const RunOptions& options = {});
// RunRead rendered as RunQuery's envelope.
Result<OrderedJson> RunReadJson(Graph& graph, std::string_view source, std::string_view query_name,
                                const Json& params, const RunOptions& options = {});

// The same for an already-parsed and checked query; returns the typed result.
Result<query::QueryResult> RunChecked(const Snapshot& snapshot, const query::CheckedQuery& checked,
                                      const Json& params, const RunOptions& options = {});

}  // namespace omnigraph::engine
