// Mutation queries as single commits (OmniGraph's mutation rules; docs/design/engine.md
// "Mutations").
//
// Mutate parses and checks one named mutation query against the branch head's schema, plans its
// effects over that head (query/plan/mutation.h: read-your-writes between statements, cascading
// node deletes), checks the per-type limits, and hands the effects to engine::Write as one write:
// validated, staged in parallel, one record. Insert-only queries re-prepare when another writer
// publishes first; a query with an update or a delete is strict: if the head moved after it read,
// it returns ReadSetChanged and changes nothing. Zero affected entities publish nothing.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/json.h"
#include "base/status.h"
#include "engine/graph/graph.h"
#include "engine/read/external_blob.h"
#include "engine/write/authority.h"
#include "schema/value.h"

namespace omnigraph::engine {

// Per touched type, per mutation (OmniGraph's mutation rules).
inline constexpr uint64_t kMutationEntitiesMax = 8192;
inline constexpr uint64_t kMutationBytesMax = 32ull << 20;

class PreparedQueries;  // engine/read/prepared.h

struct MutationOptions {
  std::string branch = "main";
  // The head must be this commit (PreconditionFailed otherwise; no retry).
  std::optional<std::string> expected_head;
  std::optional<std::string> actor;
  // now() for the invocation; unset = the runtime clock.
  std::optional<int64_t> now_ms;
  // Retry-safety (engine/write/idempotency.h): `outcome` is filled in here. A mutation whose key a
  // record already names runs nothing and answers with that record's commit and counts.
  std::optional<Idempotency> idempotency;
  // When set (engine/write/authority.h): a mutation query asks `change` on the branch with no types
  // before it reads anything, then with the types its effects write (cascaded edges included)
  // before it stages; a branch statement asks the branch action it performs
  // (branch_create/branch_delete/branch_merge) before it runs.
  Authorize authorize;
  // The graph's external-Blob allow rules (engine/read/external_blob.h); none: deny.
  std::shared_ptr<const ExternalBlobRules> external_blobs;
  // Shared with the handle's reads (engine/read/prepared.h): a mutation is parsed and checked
  // once per source, name and catalog, through the same prepare step as a read; unset = every
  // run parses and checks its source.
  PreparedQueries* prepared = nullptr;
};

struct MutationResult {
  // The query's name, or a branch statement's ("branch create", ...).
  std::string query_name;
  std::string branch;
  uint64_t affected_nodes = 0;
  uint64_t affected_edges = 0;
  std::optional<std::string> actor;
  // Unset when nothing was affected (no commit).
  std::optional<std::string> commit;
  std::optional<commit::Record> commit_record;  // The published record, with `commit`.
  // `branch merge` only: "fast_forward", "merged" or "already_up_to_date".
  std::optional<std::string> merge_outcome;
  // Rendered diagnostics of the source's file headers that were accepted and ignored (as a
  // read's envelope carries them), in header order.
  std::vector<std::string> warnings;
};

// Runs mutation query `query_name` of `source` (a .gq file) with `params` (by name, without
// '$', already typed). InvalidArgument for a parse or type error (the rendered diagnostic), an
// unknown query name, a read query, a missing parameter or a failed validation; ResourceLimit
// past the per-type limits; ReadSetChanged, PreconditionFailed, KeyConflict as the write path
// says.
// An empty `query_name` picks the source's only query. A source that is a branch statement
// (docs/design/query-language.md "Branch statements") runs it instead: `branch create x [from
// y]` forks x from y's head, `branch delete x` deletes x, both defaulting y to
// `options.branch`, and affect no entities; `branch merge x [into y]` merges x into y
// (engine::Merge; the outcome in `merge_outcome`, conflicts as MergeConflicts); `branch list` is
// InvalidArgument (a read). BranchExists, BranchNotFound and InvalidArgument as
// Graph::CreateBranch and DeleteBranch say. A Blob parameter in JSON is "base64:<data>" or an
// external URI, refused when a statement writes it to a row (docs/design/engine.md).
Result<MutationResult> Mutate(Graph& graph, std::string_view source, std::string_view query_name,
                              const std::map<std::string, schema::Value>& params,
                              const MutationOptions& options = {});
// The same with parameters as a JSON object, bound by the read path's rules (query/exec/executor.h
// BindParams: keys without '$', omitted nullable = null, 64-bit integers as numbers within
// ±(2^53−1) or decimal strings, Date/DateTime as strings).
Result<MutationResult> Mutate(Graph& graph, std::string_view source, std::string_view query_name,
                              const Json& params, const MutationOptions& options = {});

}  // namespace omnigraph::engine
