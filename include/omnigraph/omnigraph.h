// OmniGraph C++ — the public API: one graph at a store URI (docs/design/overview.md "Layers": the
// CLI and the HTTP server use only include/omnigraph/).
//
// A Database is a handle on the graph at a URI (a path, file://, memory://, s3://, az://). Any
// number of handles in any number of processes may use one graph at once; the store's
// conditional create is the only coordination. Results are the JSON envelopes of OmniGraph's public
// contract (the same objects the CLI prints with --json and the HTTP API returns) as Json values
// (omnigraph/json.h), so front ends walk them or pass them on as text. Errors are Status values
// (omnigraph/status.h) whose Code says what happened: InvalidArgument for bad input (with what
// and where), BranchNotFound, KeyConflict, ReadSetChanged, PreconditionFailed, ResourceLimit,
// ...; a failed call has changed nothing.
//
// Self-contained: this header and the two it includes use the standard library only; the engine
// stays behind the pimpl. Link the `omnigraph_api` library. Thread-safe: a Database (and every
// handle WithActor makes from it) may be called from any number of threads at once; writes to one
// branch from many threads each get their commit or a typed conflict, as from many processes.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "omnigraph/json.h"
#include "omnigraph/status.h"

namespace omnigraph::api {

class Policy;           // omnigraph/policy.h
struct PolicyRequest;   // omnigraph/policy.h
struct PolicyDecision;  // omnigraph/policy.h

// What a long call (Load, LoadFile, LoadStream, Export, Cleanup, Merge) has done so far, for a
// front end that shows it (docs/design/api.md "Progress").
struct Progress {
  std::string operation;  // "load", "export", "cleanup", "merge".
  std::string phase;      // What it is doing now: "reading", "committing", "writing", ...
  std::string unit;       // What `done` counts: "entities" or "tables".
  uint64_t done = 0;
  std::optional<uint64_t> total;  // Of `done`, when known up front (export, cleanup, merge).
  // Input bytes read, and their total when the input's size is known (a load from a file).
  uint64_t bytes_done = 0;
  std::optional<uint64_t> bytes_total;
  int64_t elapsed_micros = 0;  // Since the call began, by the handle's clock.
  bool finished = false;       // The last report of a call that succeeded.
};

// One base of a graph's external-Blob allow rules (docs/design/blob.md "External Blob
// references"): `uri` an absolute s3:// or file:/// directory; `scope` "server_safe" (a server
// keeps it; s3 only) or "embedded_only" (dropped by a server).
struct ExternalBlobBase {
  std::string uri;
  std::string scope = "embedded_only";
};

// The least number of worker threads a handle on a remote store runs (DatabaseOptions::threads).
inline constexpr size_t kRemoteStoreThreadsMin = 32;

struct DatabaseOptions {
  // Recorded as the actor of every commit this handle publishes.
  std::optional<std::string> actor;
  // Init only: a checkpoint every this many commits.
  uint64_t checkpoint_interval = 50;
  // Init only: by default Init refuses a root that holds any object (AlreadyExists naming the
  // root and the first objects; InitializationIncomplete for an unfinished init). With this set
  // it creates the graph among objects that are not a graph, leaving them in place, or
  // completes an unfinished init; it never replaces a graph (AlreadyInitialized). What it found
  // is in InitReport().
  bool init_force = false;
  // Worker threads for staging tables and reading records in parallel. On a remote store (s3://,
  // az://) the pool has at least kRemoteStoreThreadsMin threads, since they mostly wait on
  // requests in flight.
  size_t threads = 4;
  // Local stores: fsync every object and folder before acknowledging (survives power loss).
  bool fsync = false;
  // Concurrent loads and mutations on one branch that arrive while a commit of it is being
  // published share the next commit (each still validated on its own and answered with its own
  // counts); off, every write publishes its own commit.
  bool group_commit = true;
  // Called on the calling thread during a long call: at most ten times a second, then once with
  // `finished` set when the call succeeds (none for a call that fails). Keep it quick. Local
  // handles only; handles from Connect report nothing.
  std::function<void(const Progress&)> progress;
  // A policy bundle (omnigraph/policy.h, docs/design/policy.md): with one installed, every call
  // of this handle and of the handles WithActor makes from it is first checked for the handle's
  // actor — writes (load, mutate, schema apply, branch create, delete and merge) and reads alike
  // — and a handle without an actor is refused everything (fail closed). A refusal is
  // Configuration "permission denied: <reason>" with object "policy rule <id>" (or "policy" for
  // a default deny) and changes nothing. Local handles only (a server enforces its own).
  std::shared_ptr<const Policy> policy;
  // The graph id the policy is asked about: a bundle bound to some graphs refuses others.
  std::string policy_graph;
  // Called on the calling thread with each request the policy refuses (the actor, action,
  // branches and graph asked about, and the decision naming the rule), before the refusal is
  // returned: the server's audit line of a denied request. Keep it quick; it must not throw.
  std::function<void(const PolicyRequest&, const PolicyDecision&)> on_policy_denied;
  // The graph's external-Blob allow rules: a load or mutation may store a Blob given as a
  // non-`base64:` string (an external URI) only when it lies under one of these bases; none
  // (the default) refuses every new external URI. Open/Init refuse rules that do not validate
  // (InvalidArgument). Stored references stay readable whatever the rules say later.
  std::vector<ExternalBlobBase> external_blobs;
};

// Reads up to `capacity` bytes of a load's input into `buffer` and returns how many it read; 0
// means the input has ended. A failed status stops the load (nothing is published).
using LoadReader = std::function<Result<size_t>(char* buffer, size_t capacity)>;

// How Database::Connect reaches an omnigraph-server (docs/design/api.md "Remote handles").
struct ConnectOptions {
  // Sent as "Authorization: Bearer <token>"; the server publishes writes as the token's actor.
  std::optional<std::string> bearer_token;
  // A graph the server serves under /graphs/{id}/; empty = the server's plain paths.
  std::string graph_id;
  int64_t connect_timeout_ms = 10'000;
  // One whole request, first byte to last (a 32 MiB load on a slow link, a long export).
  int64_t request_timeout_ms = 600'000;
};

// Where a write goes and what it may assume.
struct WriteTarget {
  std::string branch = "main";
  // Load only: create `branch` from this branch's head when it does not exist.
  std::optional<std::string> from;
  // The branch head must be this commit (PreconditionFailed otherwise).
  std::optional<std::string> if_commit;
  // Load and mutate: makes the write safe to retry (docs/design/idempotency.md). The first call
  // with a key commits; a later call with the same key and the same request, from any process,
  // commits nothing and returns the first call's answer; the same key with a different request
  // is IdempotencyConflict. 1 to 255 bytes of printable ASCII.
  std::optional<std::string> idempotency_key;
};

// Where a read looks: a branch head, or one commit (a snapshot id) when `snapshot` is set.
struct ReadTarget {
  std::string branch = "main";
  std::optional<std::string> snapshot;
};

// One Blob cell (docs/design/blob.md): `entity` "node" or "edge", a type and a Blob property of
// the schema, and the entity's id.
struct BlobSelector {
  std::string entity = "node";
  std::string type;
  std::string id;
  std::string property;
};

// The bytes [start, end) of a Blob.
struct BlobRange {
  uint64_t start = 0;
  uint64_t end = 0;
};

// Where and how Database::Merge merges a branch.
struct MergeOptions {
  std::string target = "main";
  // After a successful merge, delete the source branch; its failure never fails the merge.
  bool delete_branch = false;
};

struct CleanupRequest {
  // Keep the newest `keep` commits of every branch and/or every commit younger than this.
  std::optional<uint64_t> keep;
  std::optional<int64_t> older_than_micros;
  // Objects younger than this are never removed, whatever the plan says (a writer may still be
  // about to publish them); unset = the engine's default of one hour.
  std::optional<int64_t> grace_micros;
  // Report what would be removed without removing it.
  bool dry_run = false;
};

// The offline embedding pipeline (OmniGraph's `omnigraph embed`; docs/design/query-execution.md
// "Embeddings"): a seed JSONL file in, the same records out with `@embed` vectors filled.
struct EmbedFileRequest {
  std::string input;   // the seed JSONL file read
  std::string output;  // the file written (through `<output>.tmp`, renamed over it)
  // {"dimension": N, "types": {"Type": {"target": "vector_field", "fields": ["text_field"]}}}
  Json spec;
  // "fill_missing" (only records whose target is absent, null or empty), "reembed_all" or
  // "clean" (remove the target).
  std::string mode = "fill_missing";
  std::vector<std::string> types;      // only records of these types (all when empty)
  std::vector<std::string> selectors;  // "Type:field=value" or "field=value"; any matches
};

// The change feed's filters (OmniGraph's `kind`, `type` and `op`, each repeatable): a change is
// kept when every non-empty list holds its value; a type is matched by name in the commit's
// schema. Empty lists keep everything.
struct ChangeFilter {
  std::vector<std::string> kinds;  // "node", "edge"
  std::vector<std::string> types;  // node and edge type names
  std::vector<std::string> ops;    // "insert", "update", "delete"
};

// One page of the change feed (docs/design/change-feed.md): from `cursor` when it is set, else
// on `branch` from `start`: "now" (its head), "beginning" (genesis on main, the fork commit on
// another branch) or "after:COMMIT_ID".
struct ChangePoll {
  std::string branch = "main";
  std::string start = "now";
  std::string cursor;
  // Commits the page covers at most, 1..1000.
  size_t limit = 100;
  // The changes the blocks keep; the page's cursors are bound to it (a cursor polled with other
  // filters is ChangeCursorRejected).
  ChangeFilter filter;
};

// One page of Database::CommitChanges. Empty filters select every change.
struct CommitChangesRequest {
  // Changes the page holds at most, 1..10000.
  size_t limit = 1000;
  // A previous page's next_page_token (of the same commit), or empty for the first page.
  std::string page_token;
  // The changes the page keeps (each list repeatable, as OmniGraph's `kind`, `type`, `op`); a
  // type must be one of the commit's schema.
  ChangeFilter filter;
};

// One page of Database::Diff: the entity changes from one read view to another. Empty filters
// select every change.
struct DiffRequest {
  ReadTarget from;
  ReadTarget to;
  // Changes the page holds at most, 1..10000.
  size_t limit = 1000;
  // A previous page's next_page_token (of the same two commits), or empty for the first page.
  std::string page_token;
  // The changes the page keeps (each list repeatable); a type must be one of the target's schema.
  ChangeFilter filter;
};

// Object-store calls a Database handle has made since it was opened or created, by kind
// (observability: what a workload costs on a metered store; the tests assert exact counts).
// Background checkpoint and hint writes are counted when they are made.
struct StoreCallCounts {
  uint64_t gets = 0;
  uint64_t heads = 0;
  uint64_t lists = 0;
  uint64_t puts = 0;
  uint64_t put_if_absent = 0;
  uint64_t put_if_match = 0;
  uint64_t deletes = 0;
  // Bytes the reads returned (a mapped read of a local file counts the bytes mapped).
  uint64_t bytes_read = 0;
  // Dependent request rounds: a call belongs to one more than the highest round among the calls
  // finished when it started, and this is the highest round finished so far. On a store with a
  // fixed delay per request it is what the calls waited for, in delays (docs/design/storage.md
  // "Wrappers"): exact for calls made one after another, an upper bound for calls issued
  // together. The rounds of a later call are the difference of two readings.
  uint64_t rounds = 0;

  // Calls of every kind.
  uint64_t total() const {
    return gets + heads + lists + puts + put_if_absent + put_if_match + deletes;
  }
};

class Database {
 public:
  // Creates a graph with `schema_source` (.pg). AlreadyInitialized when one exists there.
  static Result<std::unique_ptr<Database>> Init(std::string_view uri,
                                                std::string_view schema_source,
                                                const DatabaseOptions& options = {});
  // Opens an existing graph. NotFound when there is none.
  static Result<std::unique_ptr<Database>> Open(std::string_view uri,
                                                const DatabaseOptions& options = {});
  // A handle on the graph an omnigraph-server serves at `url` (http:// or https://): the same
  // calls and the same JSON, each one request to the server's routes (docs/design/api.md "Remote
  // handles"). No request is made until the first call. Server errors come back as the Status
  // the server's handle returned (code, kind, message, object); the server's own refusals as
  // Configuration (401, 403), InvalidArgument (400, 415), NotFound, ResourceLimit; an
  // unreachable server as Transient, a write without an answer as Unknown. Calls with no route
  // (PlanSchema, Cleanup, Optimize, Repair, Lint) are Unsupported, naming the call. InvalidArgument
  // for a URL that is not http(s).
  static Result<std::unique_ptr<Database>> Connect(std::string_view url,
                                                   const ConnectOptions& options = {});
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  const std::string& uri() const;
  // Another handle on this graph whose writes (branch create and delete, load, mutate, schema
  // apply) publish as `actor` instead of DatabaseOptions::actor. It shares this handle's runtime,
  // warm branch handles and execution cache, and keeps them alive: a front end serving many
  // actors opens the graph once and makes one of these per request (cheap: no store call).
  std::unique_ptr<Database> WithActor(std::optional<std::string> actor) const;
  // Another handle on this open graph (same runtime and caches, no store call) whose policy gate
  // is `options`' policy, policy_graph and on_policy_denied instead of this handle's (the other
  // members of `options` are ignored): a server checks its stored queries on an unrestricted
  // handle and serves requests through a gated one without opening the graph twice. The actor
  // stays this handle's. Unsupported for a handle from Connect (a server enforces its own).
  Result<std::unique_ptr<Database>> WithPolicy(const DatabaseOptions& options) const;
  // Store calls this handle has made so far (see StoreCallCounts).
  StoreCallCounts StoreCalls() const;
  // For a handle from Init: what the root held before it, {found: [first names], found_more,
  // completed_graph_id?} (found is empty for an empty root). An empty object otherwise.
  Json InitReport() const;

  // --- Branches. Create and delete return OmniGraph's envelopes, {name, from, uri, actor_id?} and
  // {name, uri, actor_id?}. The list is of branch objects: {name, head_commit_id, head_seq,
  // fork_commit_id?}, main first, then by name.
  Result<Json> CreateBranch(std::string_view name, std::string_view from = "main");
  Result<Json> DeleteBranch(std::string_view name);
  Result<Json> ListBranches();

  // Merges branch `source` into options.target (docs/design/merge.md): {source, target, outcome
  // ("already_up_to_date" | "fast_forward" | "merged"), commit?, actor_id?, branch_deleted?,
  // branch_delete_error?}; one commit for fast_forward and merged, none otherwise. Conflicts:
  // MergeConflicts, nothing published, and `conflicts` (when given) set to the array
  // [{entity_kind, type_name, entity_id?, kind, message}]. BranchNotFound, InvalidArgument (a
  // branch into itself), Unsupported (across a schema change), RetriesExhausted (the target
  // moved during every attempt).
  Result<Json> Merge(std::string_view source, const MergeOptions& options = {},
                     Json* conflicts = nullptr);
  // What Merge(source, {target}) would do now, publishing nothing (`branch merge --dry-run`,
  // docs/design/merge.md "Preview"): {source, target, dry_run: true, outcome (as Merge's, or
  // "conflicts"), source_commit_id, target_commit_id, base_commit_id, source_ahead,
  // target_ahead (the commits each head has that the other lacks, newer than their base),
  // conflicts: [as Merge reports them]}. Conflicts are the answer here, not an error. A read of
  // both branches (the policy's `read`). BranchNotFound, InvalidArgument (a branch into
  // itself), Unsupported (across a schema change).
  Result<Json> PreviewMerge(std::string_view source, std::string_view target = "main");
  // The entity changes from read view `request.from` to `request.to` (two branch heads, a
  // branch and a commit, ...; docs/design/diff.md), one page: {from: {graph_commit_id,
  // branch?}, to: {...}, types: [{kind, type: {id, name}, inserted, updated, deleted}] (the
  // whole diff's counts per changed type), changes: [as CommitChanges gives them],
  // next_page_token?}. Its cost is what changed, not what the graph holds. SchemaBoundary when
  // the two views hold different schemas; BranchNotFound, CommitNotFound; InvalidArgument as
  // for CommitChanges (limit, kind, type, op, a token of another diff).
  Result<Json> Diff(const DiffRequest& request);

  // --- Commits (OmniGraph's commit objects): {graph_commit_id, graph_branch?,
  // graph_manifest_version, parent_commit_id?, merged_parent_commit_id?, actor_id?, created_at}.
  // Commits also carry `summary` (what the commit did, in a line) when the writer recorded one.
  // Newest first on `branch`, following first parents across forks; at most `limit`.
  Result<Json> ListCommits(std::string_view branch = "main", size_t limit = 100);
  // One page of the same history: {commits, next_page_token?}. An empty `page_token` starts at
  // the head of `branch`; a token from a previous page continues there (`branch` is then
  // ignored). InvalidArgument for a malformed token or a limit outside 1..1000. A non-empty
  // `actor` keeps only the commits that actor made (its actor_id, or a group commit with a
  // member of that actor): up to `limit` of them, scanning as much history as it takes, and
  // next_page_token resumes right after the last commit scanned (the audit filter,
  // docs/design/policy.md "Audit"; GET /commits?actor=).
  Result<Json> CommitHistory(std::string_view branch, size_t limit, std::string_view page_token,
                             std::string_view actor = {});
  // The commit object plus `tables`: [{table_key, inserted, updated, deleted}] for every table
  // the commit touched (from the record's change set: one record read), and
  // `schema_boundary: true` for a schema change; for a group commit `members`: [{actor_id?,
  // idempotency_key?, counts}] in the order they were validated, and for a keyed single write
  // its `idempotency_key`. CommitNotFound for an unknown id.
  Result<Json> ShowCommit(std::string_view commit_id);
  // The entity changes of one commit against its first parent: {cause: {graph_commit_id,
  // parent_commit_id, merged_parent_commit_id?, authored_branch, actor_id?, authored_at},
  // changes: [{kind, type: {id, name}, id, op, before?, after?}]}, images {properties,
  // endpoints?}, ordered nodes before edges, then type id, entity id and op; an unchanged rewrite
  // never appears. One page of at most `request.limit` changes that match its filters, with
  // next_page_token when more may follow. ParentlessCommit for genesis, SchemaBoundary for a
  // schema change, CommitNotFound for an unknown id; InvalidArgument for a limit out of range,
  // an unknown kind, type or op, and a page token that is malformed or of another commit.
  Result<Json> CommitChanges(std::string_view commit_id, const CommitChangesRequest& request = {});
  // OmniGraph's snapshot object of a branch head or of one commit: {graph_commit_id,
  // graph_branch, graph_manifest_version, internal_schema_version, datasets: [{entity_kind,
  // type_name, dataset_path, published_dataset_version, entity_count}]}.
  Result<Json> Snapshot(const ReadTarget& target);

  // --- The change feed (docs/design/change-feed.md). A page of commit blocks in first-parent
  // order: {stream, blocks: [{cause, seq, summary?, schema_boundary?, changes}], caught_up, and
  // next_page_token (more to read) or on the terminal page `cursor` (the consumer's position)},
  // `cause` and `changes` as CommitChanges gives them. Poll again with either to continue; with
  // nothing new that costs one object read.
  // ChangeCursorRejected for a damaged cursor or one of another graph or branch life;
  // ChangeFeedGap when cleanup reclaimed what the cursor needs (take a baseline);
  // InvalidArgument for a bad start, limit or filter; BranchNotFound, CommitNotFound for the
  // start.
  Result<Json> PollChanges(const ChangePoll& poll);
  // Writes the NDJSON export of `branch`'s head to `sink`, then the line
  // {"baseline":{"snapshot_commit_id","resume_cursor"}}: load the export, then poll from the
  // cursor. BranchNotFound; a failing sink's status.
  Status ChangesBaseline(std::string_view branch,
                         const std::function<Status(std::string_view chunk)>& sink);
  // The same, the export holding the types `filter`'s kinds and types select and the cursor bound
  // to the whole filter (its ops only constrain the polls that follow). InvalidArgument for a
  // kind or op that is not one.
  Status ChangesBaseline(std::string_view branch, const ChangeFilter& filter,
                         const std::function<Status(std::string_view chunk)>& sink);

  // --- Data.
  // Loads NDJSON (OmniGraph's load format) with mode "append", "merge" or "overwrite"; one commit,
  // none when the input holds no entity. {uri, branch, base_branch?, branch_created, mode, nodes,
  // edges, total_entities, commit, actor_id?}: `commit` is the commit object (as ListCommits
  // gives it) or null.
  Result<Json> Load(std::string_view ndjson, std::string_view mode, const WriteTarget& target);
  // As Load, reading the NDJSON file at `path` a chunk at a time: memory stays bounded however
  // large the file (docs/design/load.md "Streaming"). InvalidArgument naming the file when it is
  // missing, a directory or unreadable.
  Result<Json> LoadFile(const std::string& path, std::string_view mode, const WriteTarget& target);
  // As Load, pulling the NDJSON from `read` a chunk at a time. With an idempotency key the input
  // is first copied to a temporary file (the key's request names a hash of the whole input).
  Result<Json> LoadStream(const LoadReader& read, std::string_view mode, const WriteTarget& target);
  // Writes the NDJSON of a branch head (some types, or all) to `sink`, in chunks of whole lines.
  Status Export(std::string_view branch, const std::vector<std::string>& types,
                const std::function<Status(std::string_view chunk)>& sink);
  // The same at a branch head or at one commit (`target.snapshot`). At a commit from before a
  // type was renamed, `types` may name it by its name of that time or by today's.
  Status Export(const ReadTarget& target, const std::vector<std::string>& types,
                const std::function<Status(std::string_view chunk)>& sink);
  // What a Blob cell is, without reading its bytes: {kind: "managed", size, etag (a strong HTTP
  // entity tag of its bytes), resolved_snapshot (the commit read)}. InvalidArgument for a bad
  // selector or a property that is not Blob; NotFound for a missing entity or a null cell.
  Result<Json> StatBlob(const BlobSelector& cell, const ReadTarget& target);
  // Streams the Blob's bytes (all, or `range` with its end clamped to the size, as HTTP ranges
  // are) to `sink` in pieces of at most 4 MiB, never holding the whole value; returns StatBlob's
  // answer plus {start, end} delivered. A range that starts at or past the end (any range of an
  // empty Blob) is InvalidArgument before any byte is read. A failure after bytes went to the
  // sink is returned as it is: the caller must discard what it got.
  Result<Json> ReadBlob(const BlobSelector& cell, const ReadTarget& target,
                        std::optional<BlobRange> range,
                        const std::function<Status(std::string_view chunk)>& sink);
  // The commit a read of `target` sees now: the branch head through its warm handle (one store
  // call when the head has not moved), or the snapshot's id once checked to name a commit.
  // BranchNotFound, CommitNotFound.
  Result<std::string> ResolveCommit(const ReadTarget& target);
  // Runs mutation query `name` of `source` (.gq; an empty name picks the only query) with
  // `params` ({"$name": value} or {"name": value}, typed by the query's declarations as in the
  // load format); one commit, or none when nothing was affected (OmniGraph's mutation output:
  // {query_name, branch, affected_nodes, affected_edges, actor_id?, commit, warnings?}, `commit`
  // the commit object or null, `warnings` the rendered diagnostics of file headers it accepted
  // and ignored, present only when there are some).
  Result<Json> Mutate(std::string_view source, std::string_view name, const Json& params,
                      const WriteTarget& target);
  // Runs read query `name` of `source` (an empty name picks the only query) with JSON `params`
  // (keys without '$'); the envelope of OmniGraph's query output, its columns and each row's cells
  // in projection order.
  Result<Json> Query(std::string_view source, std::string_view name, const Json& params,
                     const ReadTarget& target = {});

  // --- Stored queries (docs/design/stored-queries.md): the named queries an omnigraph-server
  // serves for this graph. Handles from Connect only; a local handle answers Unsupported (a store
  // holds no registry). The catalog: {queries: [{name, tool_name, description, instruction,
  // mutation, params: [{name, kind, item_kind?, vector_dim?, nullable}]}]}.
  Result<Json> StoredQueries();
  // Runs stored query `name` with `params` (keys without '$') at `target`: the Query envelope for
  // a stored read, the Mutate envelope for a stored mutation (on target.branch; a snapshot is
  // refused). NotFound for a name the server does not serve (or will not let this caller run).
  Result<Json> InvokeStoredQuery(std::string_view name, const Json& params,
                                 const ReadTarget& target = {});

  // --- Schema (OmniGraph's schema plan and apply). The plan {uri, supported, step_count, steps};
  // apply on main
  // only, one commit: {uri, supported, applied, step_count, steps, graph_manifest_version}.
  Result<Json> PlanSchema(std::string_view schema_source, bool allow_data_loss = false);
  Result<Json> ApplySchema(std::string_view schema_source, bool allow_data_loss = false);
  // The accepted schema of a branch head: {source, ir_hash, identity_version, graph_commit_id}.
  Result<Json> ShowSchema(std::string_view branch = "main");
  // The same at a branch head or at one commit (`target.snapshot`): the schema that commit
  // accepted, with the names of that time. CommitNotFound for an unknown commit.
  Result<Json> ShowSchema(const ReadTarget& target);

  // --- Maintenance: removes what no retained commit needs (OmniGraph's maintenance commands).
  Result<Json> Cleanup(const CleanupRequest& request);
  // Compacts the tables of `branch` whose fragments are more than their rows need and builds
  // the derived indexes its table versions lack (docs/design/engine.md "Optimize"): one commit
  // with no entity change, none when no table needed compaction. {uri, branch, commit (the
  // commit object or null), tables: [{type_key, fragments_removed, fragments_added, committed,
  // skipped, published_dataset_version, indexes_built, pending_indexes}]}. BranchNotFound;
  // RetriesExhausted when the branch moved during every attempt.
  Result<Json> Optimize(std::string_view branch = "main");
  // Finds every defect of the commit layer's derived state (docs/design/retention.md "Repair"):
  // {confirmed, defects:[{kind, stream, object, seq, detail, advice, fixable, fixed}]}. With
  // `confirm`, rewrites hints and checkpoints (never a record); without it, writes nothing.
  Result<Json> Repair(bool confirm);

  // --- Lint (OmniGraph's `lint`): checks every query of a .gq source and describes each one
  // (docs/design/query-language.md "Lint"). Against the accepted schema of `branch`'s head:
  Result<Json> Lint(std::string_view query_source, std::string_view branch = "main");
  // Offline, against a .pg schema source; InvalidArgument when the schema does not parse or check.
  // A query that fails is in the report (status "error"), not an error of the call.
  static Result<Json> LintWithSchema(std::string_view schema_source, std::string_view query_source);

  // Runs the offline embedding pipeline (EmbedFileRequest) with the embedding provider the
  // environment configures (OMNIGRAPH_EMBED_PROVIDER and the rest). Touches no graph. Returns
  // {input, output, records, selected_records, embedded_records, cleaned_records, mode, dimension,
  // model} and `warning` when OMNIGRAPH_EMBEDDINGS_MOCK overrode a configured provider.
  // InvalidArgument for a bad spec, mode, selector or input line, or a missing input; the
  // provider's failures (Configuration, Transient, Permanent).
  static Result<Json> EmbedFile(const EmbedFileRequest& request);

  // What this library is: {version, storage_stamp (the format it reads and writes), build}.
  static Json Version();

  // The library's monotonic clock in microseconds (for front ends that pace or measure requests,
  // such as the server's per-actor rate limit; front ends read no clock of their own).
  static int64_t MonotonicMicros();

  // Whether a process about to load a file of `input_bytes` should keep its heap on transparent
  // huge pages (glibc's tunable glibc.malloc.hugetlb=1, read only at process start, so a front
  // end re-executes itself with it): true when the input is at least kHugeHeapLoadBytesMin, the
  // kernel gives huge pages only where advised (`enabled` = madvise) and holds enough free
  // 2 MiB blocks that faulting them in needs no reclaim or compaction (decision 250).
  static bool LoadWantsHugePageHeap(uint64_t input_bytes);
  static constexpr uint64_t kHugeHeapLoadBytesMin = uint64_t{32} << 20;

 private:
  struct Impl;
  explicit Database(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace omnigraph::api
