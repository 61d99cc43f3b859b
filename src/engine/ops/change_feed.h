// The change feed (`changes poll`, `changes baseline`; docs/design/change-feed.md): a consumer
// follows one branch life commit by commit from a resumable, opaque cursor, paying for what
// changed and nothing else. A poll reads the record after the cursor; when there is none the
// consumer is caught up (one object read). A page reads the records it covers, in first-parent
// order, and hydrates only the entities their change sets list (as `commit changes` does).
//
// The cursor (docs/format/change-feed.md) binds the graph id, the stream key of the branch life,
// a seq and the commit id at that seq; it is checked on use against the record that follows it
// (whose parent must be that commit), so a cursor of another graph, of another life of the
// branch, or a damaged one is ChangeCursorRejected rather than a wrong answer.
//
// A ChangeFeed keeps the state at the end of its last page per stream, so a consumer that keeps
// polling one handle pays no fold; a poll from any other position folds once (time travel).
// Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "base/json.h"
#include "commit/fold.h"
#include "engine/graph/graph.h"
#include "engine/ops/commit_changes.h"

namespace omnigraph::engine {

// Commits one page covers at most, and by default.
inline constexpr size_t kFeedPageCommitsMax = 1000;
inline constexpr size_t kFeedPageCommitsDefault = 100;
// Streams whose page-end state a ChangeFeed keeps; past this it forgets them all and refolds.
inline constexpr size_t kFeedStatesMax = 64;

// A position in the feed: after commit `commit_id`, seq `seq` of stream `key`, of graph
// `graph_id`, for a feed filtered by the filter whose FilterScope is `scope` (empty: unfiltered).
// `key` is the stream the feed follows (the branch life); while the feed replays the history that
// life inherited, the position is on an ancestor's stream, `on` (empty: on `key`), at or below
// the seq where the ancestor's child on the way to `key` forked (decision 157).
struct FeedCursor {
  std::string graph_id;
  std::string key;
  uint64_t seq = 0;
  std::string commit_id;
  std::string scope;
  std::string on;
  bool operator==(const FeedCursor&) const = default;
};

// The filter scope a cursor binds: empty for no filter, else 16 hex digits of the SHA-256 of the
// filter's canonical JSON {k, o, t} (sorted sets), so a cursor stays short however many types.
std::string FilterScope(const ChangeFilter& filter);

// The opaque text form: `c1.{base64url of the canonical JSON {a?,c,g,k,s,f?}}.{16 hex of its
// SHA-256}`; `f` (the scope) only for a filtered feed and `a` (the ancestor stream) only in
// inherited history, so other cursors are as before.
std::string EncodeFeedCursor(const FeedCursor& cursor);
// ChangeCursorRejected for text that is not a cursor, whose check digits do not match, or that
// belongs to another graph than `graph_id`.
Result<FeedCursor> DecodeFeedCursor(std::string_view text, std::string_view graph_id);

struct FeedRequest {
  // Where a feed without a cursor starts: on `branch`, "now" (its head), "beginning" (genesis:
  // on a branch the feed replays the history it inherited, up its ancestors' first-parent chain,
  // then follows its own life) or "after:ID" (a commit of that chain).
  std::string branch = "main";
  std::string start = "now";
  // A cursor from a previous page (its next_page_token or cursor) or a baseline's
  // resume_cursor; when set,
  // `branch` and `start` are not used.
  std::string cursor;
  size_t limit = kFeedPageCommitsDefault;
  // The changes the blocks keep (docs/design/change-feed.md "Filters"); a cursor is bound to it.
  ChangeFilter filter;
};

class ChangeFeed {
 public:
  explicit ChangeFeed(Graph& graph) : graph_(graph) {}

  // One page: {stream, blocks: [{cause, seq, summary?, members?, schema_boundary?, changes}],
  // caught_up, and next_page_token (more to read) or, on the terminal page, cursor (the
  // consumer's position; both are cursors and either continues the feed). `changes` are as
  // Graph's `commit changes` gives them; a schema-change commit has `schema_boundary: true` and
  // no changes; a group commit's block has `members` (BatchMembersJson,
  // engine/write/change_sets.h). Every commit gets a block, its changes those `request.filter`
  // keeps (none kept: an empty block, which still advances the feed). InvalidArgument for a bad
  // start, a bad filter (CheckChangeFilter) or a limit outside 1..kFeedPageCommitsMax;
  // BranchNotFound, CommitNotFound for the start; ChangeCursorRejected for a cursor that is
  // damaged, of another graph or filter scope, or whose position no longer follows (another life, a
  // retired branch life); ChangeFeedGap when cleanup reclaimed the tables a commit of the page
  // needs, naming the stream's horizon.
  Result<Json> Poll(const FeedRequest& request);

  // Writes the NDJSON export of `branch`'s head to `sink`, then the line
  // {"baseline":{"snapshot_commit_id","resume_cursor"}}: a consumer loads the export and polls
  // from the cursor. The export holds the types `filter`'s kinds and types select; the cursor is
  // bound to the whole filter (its ops too); a type the head's schema does not have selects
  // nothing (decision 155). BranchNotFound; InvalidArgument for a bad filter; errors as Export
  // reports.
  Status Baseline(std::string_view branch, const ChangeFilter& filter,
                  const std::function<Status(std::string_view chunk)>& sink);

  // The cursor `start` on `branch` names (see FeedRequest).
  Result<FeedCursor> Start(std::string_view branch, std::string_view start);

 private:
  // A cursor in inherited history moved onto the child stream when it reached that child's fork
  // commit (its seq is the child's next record's parent); ChangeCursorRejected when `on` is not
  // an ancestor of the followed stream or the position is past the fork.
  Status Route(FeedCursor& at);
  // For the followed stream `key`: each ancestor stream -> {its child on the way to key, the
  // child's fork seq}. Stream metadata is immutable, so it is read once per handle; `first` is
  // key's when the caller has read it.
  struct Fork {
    std::string child;
    uint64_t seq = 0;
  };
  Result<std::map<std::string, Fork>> Ancestry(const std::string& key,
                                               const commit::StreamMetadata* first = nullptr);
  // The state at the cursor: the kept page-end state when it is there, else a fold.
  Result<std::shared_ptr<const commit::GraphState>> StateAt(const FeedCursor& cursor);
  void Keep(std::shared_ptr<const commit::GraphState> state);
  // The block of commit `r`, which follows `state` (advanced to r's state); `at` is the cursor
  // before it.
  Result<Json> Block(const commit::Record& r, std::shared_ptr<const commit::GraphState>& state,
                     const FeedCursor& at, const ChangeFilter& filter);
  // `failure` of a page's commit at `seq` as ChangeFeedGap when the stream's horizon is above it.
  Status ExplainGap(const Status& failure, const FeedCursor& at, uint64_t seq);

  Graph& graph_;
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<const commit::GraphState>> states_;
  std::map<std::string, std::map<std::string, Fork>> ancestry_;
};

}  // namespace omnigraph::engine
