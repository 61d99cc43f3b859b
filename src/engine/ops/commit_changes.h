// The per-commit diff (`commit changes ID`): the entity changes of one commit against its first
// parent, served from the record's change set (engine/write/change_sets.h) and hydrating only the
// ids it lists (docs/design/engine.md "History and per-commit diffs").
//
// Output: {cause: {graph_commit_id, parent_commit_id, merged_parent_commit_id?, authored_branch,
// actor_id?, authored_at}, changes: [{kind, type: {id, name}, id, op, before?, after?}]}; an image
// is {properties: {name: value}, endpoints?: {from, to}} with values as export writes them.
// Changes are ordered nodes before edges, then by type id, entity id and op; an update whose
// row images are equal (a rewrite of the same row) is left out. A page holds at most `limit`
// changes; `next_page_token` (format docs/format/commit-changes.md) continues after its last
// one. Filters (kind, type, op) select changes before anything is hydrated, so a page reads the
// table fragments of the entities it returns (and of unchanged rewrites it skips) and no
// others. Thread-safe.
#pragma once

#include <limits>
#include <set>
#include <string>
#include <string_view>

#include "base/json.h"
#include "engine/graph/graph.h"

namespace omnigraph::engine {

// Changes a page holds by default and at most.
constexpr size_t kCommitChangesPageDefault = 1000;
constexpr size_t kCommitChangesPageMax = 10000;

// The change feed's filters (OmniGraph's `kind`, `type`, `op`, each repeatable;
// docs/design/change-feed.md "Filters"): a change is kept when every non-empty set holds its
// value. A type is matched by its name in the commit's schema (the parent's for a type the commit
// dropped), so a feed that crosses a rename follows the name, not the identity (decision 155).
struct ChangeFilter {
  std::set<std::string> kinds;  // "node", "edge"
  std::set<std::string> types;  // node and edge type names
  std::set<std::string> ops;    // "insert", "update", "delete"
  bool empty() const { return kinds.empty() && types.empty() && ops.empty(); }
};

// One page of a commit's changes. An empty filter selects everything; a type it names must be
// one of the commit's schema.
struct CommitChangesRequest {
  size_t limit = kCommitChangesPageDefault;  // 1..kCommitChangesPageMax
  std::string page_token;                    // a previous page's next_page_token, or empty
  ChangeFilter filter;
};

// InvalidArgument naming a kind that is not node or edge, an op that is not insert, update or
// delete, or an empty type name.
Status CheckChangeFilter(const ChangeFilter& filter);

// CommitNotFound for an unknown id or a retire record; ParentlessCommit for genesis;
// SchemaBoundary for a commit that changed the schema; InvalidArgument for a limit out of range,
// an unknown kind, op or type (naming it), or a page token that is malformed or belongs to
// another commit (naming that commit); Corruption for a damaged record or delta; storage
// failures as reported.
Result<Json> CommitChanges(Graph& graph, std::string_view commit_id,
                           const CommitChangesRequest& request = {});

// The `cause` object of record `r` (a commit with a parent).
Json CauseOf(const commit::Record& r);

// The `changes` array of commit `r` between `before` (its first parent's state) and `after`
// (its own) that `filter` keeps (checked by CheckChangeFilter; applied before anything is
// hydrated): from its change set (reading the delta when the ids spilled), or without one from
// the exact diff. The caller has ruled out genesis and a schema boundary the set names;
// SchemaBoundary when the diff finds the schemas differ. Corruption for a damaged record or
// delta; a missing table object as Snapshot::ExplainReadFailure says.
Result<Json> ChangesOf(Graph& graph, const commit::Record& r, const Snapshot& before,
                       const Snapshot& after, const ChangeFilter& filter = {});

// A page token of commit changes, after the change (edge?, type id, entity id, op) of commit
// `commit_id`; and its decoding, InvalidArgument naming the token when it is malformed or damaged
// and naming both commits when it belongs to another one than `commit_id`.
struct ChangePosition {
  bool edge = false;
  uint64_t type_id = 0;
  std::string id;
  int op = 0;  // 0 insert, 1 update, 2 delete
};
std::string EncodeChangesPageToken(std::string_view commit_id, const ChangePosition& after);
Result<ChangePosition> DecodeChangesPageToken(std::string_view token, std::string_view commit_id);

// What a page of changes lists, for its page tokens and messages: a commit ("commit", its id,
// "commit changes") or a diff ("diff", "FROM..TO", "a diff"). A token is bound to `id`.
struct ChangesScope {
  std::string_view noun;
  std::string_view id;
  std::string_view listing;
};
Result<ChangePosition> DecodeChangesPageToken(std::string_view token, const ChangesScope& scope);

// One page of the changes `set` lists from `before` to `after` (which hold the same schema), as
// CommitChanges pages a commit's: `request`'s filters and limit, its page token decoded against
// `scope`; `*next_page_token` set when more may follow. The errors of CommitChanges for the
// request; Corruption when `set` lists an id the tables do not hold.
Result<Json> ChangesPage(const commit::ChangeSet& set, const Snapshot& before,
                         const Snapshot& after, const CommitChangesRequest& request,
                         const ChangesScope& scope, std::string* next_page_token);

}  // namespace omnigraph::engine
