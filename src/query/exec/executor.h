// Read-query execution over one GraphView (OmniGraph's match, return and order semantics;
// docs/design/query-execution.md).
//
// BindParams turns the JSON parameter object of a run into typed values, following the
// reference's rules: keys without '$'; an omitted nullable parameter is null; null or a missing
// value for a non-nullable one is an error; I64/U64 as a JSON number within ±(2^53−1) or a
// decimal string; Date/DateTime as strings (or integers: epoch days / ms); lists as arrays. Unlike
// the reference, a key the query does not declare is an error naming every such key.
//
// Execute plans a checked read query (plan.h: the match clauses as inner joins over node scans,
// property filters pushed into the table scan with fragment skipping, a keyed equality as an id
// lookup, CSR traversals, `not { }` blocks as anti-joins, then projection, implicit grouping for
// aggregates, the total order and the limit) and runs the plan; ExecutePlan runs a plan made
// earlier. Rows come back as schema::Values, one per result column (a bare entity column holds a
// list: the id, then every property in type order). Search forms run too: `nearest` (exact, or
// through a table's vector index), and bm25, rrf, search, fuzzy and match_text over the full-text
// index (docs/design/fulltext.md, query-execution.md). The executor reads through `cache`, which
// keeps table images and adjacencies across runs; its operators live in query/exec/.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/status.h"
#include "query/check/typecheck.h"
#include "query/exec/exec_cache.h"
#include "query/exec/graph_view.h"
#include "query/plan/plan.h"
#include "schema/value.h"

namespace omnigraph::query {

// Values aligned with checked.decl->params. InvalidArgument naming the parameter otherwise, or
// naming every key of `params` the query does not declare.
Result<std::vector<schema::Value>> BindParams(const CheckedQuery& checked, const Json& params);

// The default bound on a run's traversal work (edges examined plus rows the traversals emit;
// docs/design/query-execution.md "Traversal work limit"), measured (decision 65): a three-hop
// edge-binding expansion over a dense graph that hits it peaks near 230 MB and fails in about a
// second of CPU in a debug build; far above what any test or cookbook query needs.
inline constexpr uint64_t kDefaultTraversalWorkLimit = 10'000'000;
// The default ExecOptions::nearest_exact_max.
inline constexpr uint64_t kNearestExactMax = 16384;

// The lists an indexed `nearest` first probes in an index of `lists` lists whose build measured
// `probes_for_recall` (table::AnnIndex; 0 = not measured) when its candidates are `fraction`
// (0 < fraction <= 1) of the version's rows: the larger of 24 and the calibrated probes, over
// `fraction`. nullopt when that is at least half the lists: the index would scan about as many
// rows as the exact scan, which the executor runs instead (decision 212; nearest.cc).
std::optional<uint32_t> IndexedNearestProbes(uint32_t lists, uint32_t probes_for_recall,
                                             double fraction);
// An unfiltered indexed `nearest` over an index with codes whose lists would not pay scans the
// codes for NearestCodeCandidates(k) rows and measures them exactly (decision 224): at least
// kNearestCodeCandidatesMin, else kNearestCodeCandidatesPerK per row asked for. Measured by
// omnigraph-bench vector on uniform and clustered data (docs/benchmarks.md "Vector search").
inline constexpr uint64_t kNearestCodeCandidatesMin = 200;
inline constexpr uint64_t kNearestCodeCandidatesPerK = 20;
uint64_t NearestCodeCandidates(uint64_t k);
// Whether an indexed `nearest` that found too few rows at `probes` answers exactly instead of
// searching again with more (the same half-the-lists rule).
bool IndexedNearestGoesExact(uint64_t probes, uint32_t lists);
// An edge version with fewer live edges than this has its adjacency read whole even for a walk
// from one node: below it the whole stored adjacency is a few hundred KiB, which one read
// fetches faster than the six or so ranged reads of a point read (ExecContext::PointOut).
inline constexpr uint64_t kPointEdgesMin = 1 << 16;
// The same bound on a remote store (storage::ObjectStore::Remote; decision 213): a point read
// waits for about six dependent requests of tens of milliseconds each, in which a store streams
// several MiB; 2^20 edges are about 9 MiB of stored adjacency (8–9 bytes per edge).
inline constexpr uint64_t kRemotePointEdgesMin = 1 << 20;

struct ExecOptions {
  // The value of now() for this run (ms since the epoch, UTC): fixed per invocation.
  int64_t now_ms = 0;
  ExecCache* cache = nullptr;  // Required.
  // The `traversal_work_limit` setting: ResourceLimit once a run's traversals exceed it.
  uint64_t traversal_work_limit = kDefaultTraversalWorkLimit;
  // An indexed `nearest` measures every candidate exactly when there are at most this many
  // (plan.h NearestMethod): below it a brute-force pass is as fast as the index.
  uint64_t nearest_exact_max = kNearestExactMax;
  // A walk from few nodes reads their edges point by point only on edge versions of at least
  // this many live edges (and that keep a stored adjacency).
  uint64_t point_edges_min = kPointEdgesMin;
  // Whether an aggregate with one group key, a property of its one `by` variable, groups the
  // rows by that property's values column at a time (aggregate_parts.h GroupByValue) instead of
  // by entities then by key value. The results are the same; tests compare the two paths.
  bool value_grouping = true;
  // The bytes a cache's runs may read of one adjacency point by point before a walk reads it
  // whole; unset, the stored object's size (ExecCache::PointReadsAllowed).
  std::optional<uint64_t> point_budget_bytes;
  // Embeds the String query of `nearest($v, "text")` for property `def` of type `owner`
  // (query/exec/embedder.h EmbedQueryText); unset, such a query is refused as not configured.
  std::function<Result<std::vector<float>>(const schema::PropertyDef& def, std::string_view owner,
                                           const std::string& text)>
      embed_query;
};

struct ExecStats {
  uint64_t fragments_total = 0;
  uint64_t fragments_skipped = 0;
  uint64_t key_lookups = 0;
  uint64_t rows_matched = 0;      // Rows after the match, before grouping and limit.
  uint64_t vectors_compared = 0;  // Rows `nearest` measured (exact search: every candidate).
  uint64_t index_searches = 0;    // ANN index searches of an indexed `nearest`.
  // Entity groups whose group keys an aggregate evaluated: every group, or only the candidates
  // of an `order … limit k` over aggregates (plan.h AggregateStep::top).
  uint64_t group_keys_evaluated = 0;
  // Frame rows an aggregate grouped by a property's values column at a time (GroupByValue); for
  // a count from the adjacency, the counted nodes.
  uint64_t value_grouped_rows = 0;
  // Ids a min or max of a String node key read, a group's first or last row's each, instead of
  // loading the key's column from every id (decision 254).
  uint64_t key_ids_read = 0;
  // Scans of a table in id order that read whole columns into its image (a compile of a property
  // whose column is not loaded, or an aggregate's columns read together: decision 256).
  uint64_t column_scans = 0;
  // Membership bitmaps of a node variable's candidates (a bit per row of its type) that a
  // traversal restricted to them made; a point lookup makes none (decision 238).
  uint64_t candidate_bitmaps = 0;
};

struct QueryResult {
  std::vector<ResultColumn> columns;
  std::vector<std::vector<schema::Value>> rows;
  ExecStats stats;
};

Result<QueryResult> Execute(const GraphView& view, const CheckedQuery& checked,
                            std::span<const schema::Value> params, const ExecOptions& options);
// Runs `plan` (PlanQuery of a query checked against view.catalog()). Internal when `options`
// has no cache or `params` does not match the query's parameters.
Result<QueryResult> ExecutePlan(const GraphView& view, const Plan& plan,
                                std::span<const schema::Value> params, const ExecOptions& options);

// Whether a bare entity (`return { $p }`) carries property `p`: every property but Vector and
// Blob ones, which the reference leaves out of a bare entity (decision 178). The entity value
// keeps one item per property (null for those left out), so positions match `properties`.
bool InBareEntity(const schema::PropertyDef& p);

// The JSON of one result cell (OmniGraph's value output forms): 64-bit integers beyond ±(2^53−1)
// as decimal strings, Date as "YYYY-MM-DD", DateTime as "YYYY-MM-DDTHH:MM:SS.sssZ", lists as
// arrays, a bare entity as an object {"id": ..., property: value, ...} of the properties
// InBareEntity keeps.
OrderedJson CellJson(const ResultColumn& column, const schema::Value& value);
// {"p.name": ..., ...} per row, in column order.
OrderedJson RowsJson(const QueryResult& result);

}  // namespace omnigraph::query
