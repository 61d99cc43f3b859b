#include "engine/graph/graph.h"

#include "base/executor.h"
#include "base/ids.h"
#include "commit/branches.h"
#include "commit/names.h"
#include "commit/stream.h"
#include "engine/graph/schema_archive.h"
#include "engine/write/validate.h"
#include "query/exec/table_schema.h"
#include "schema/archive.h"
#include "schema/identity.h"
#include "schema/ir_json.h"
#include "table/column_builder.h"

namespace omnigraph::engine {

namespace {

Result<table::ColumnBatch> EmptyRows(const table::Schema& schema) {
  std::vector<table::Column> columns;
  for (const table::Field& f : schema) {
    table::ColumnBuilder builder(f.type, f.nullable);
    OMNIGRAPH_ASSIGN_OR_RETURN(table::Column c, builder.Finish());
    columns.push_back(std::move(c));
  }
  return table::ColumnBatch(schema, std::move(columns), 0);
}

Result<std::optional<commit::StorageStamp>> ReadStamp(storage::ObjectStore& store) {
  const std::string name(commit::kStampName);
  OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<commit::BoundedRead> read,
                             commit::ReadBounded(store, name, commit::kDocumentBytesMax));
  if (!read) return std::optional<commit::StorageStamp>();
  Result<commit::StorageStamp> stamp = commit::DecodeStorageStamp(read->data, name);
  if (!stamp.ok() && stamp.status().code() == Code::kFormatTooNew) {
    return Status(Code::kUnknownStamp,
                  "the graph's storage stamp document has a newer format; this binary reads "
                  "storage stamp " +
                      std::to_string(commit::kStorageStamp),
                  name);
  }
  OMNIGRAPH_RETURN_IF_ERROR(stamp.status());
  if (stamp->kind != "omnigraph" || stamp->storage_stamp != commit::kStorageStamp) {
    return Status(Code::kUnknownStamp,
                  "the graph has storage stamp " + std::to_string(stamp->storage_stamp) +
                      " (kind '" + stamp->kind + "'); this binary reads storage stamp " +
                      std::to_string(commit::kStorageStamp) + " (kind 'omnigraph')",
                  name);
  }
  return std::optional<commit::StorageStamp>(std::move(*stamp));
}

Result<bool> GenesisExists(storage::ObjectStore& store) {
  Result<storage::ObjectMeta> head = store.Head(commit::RecordName(commit::kMainKey, 0));
  if (head.ok()) return true;
  if (head.status().kind() == Kind::kNotFound) return false;
  return head.status();
}

}  // namespace

Graph::Graph(storage::Runtime runtime, commit::StorageStamp stamp)
    : runtime_(std::move(runtime)),
      stamp_(std::move(stamp)),
      tables_(std::make_shared<table::TableStore>(runtime_)) {}

std::string InitReport::FoundText() const {
  std::string names;
  for (const std::string& name : found) names += (names.empty() ? "'" : ", '") + name + "'";
  if (found_more) {
    return "more than " + std::to_string(found.size()) + " objects, among them " + names;
  }
  return std::to_string(found.size()) + (found.size() == 1 ? " object: " : " objects: ") + names;
}

Json InitReport::ToJson() const {
  Json out = {{"found", found}, {"found_more", found_more}};
  if (completed_graph_id) out["completed_graph_id"] = *completed_graph_id;
  return out;
}

namespace {

Status AlreadyInitialized(storage::ObjectStore& store, const std::string& graph_id) {
  return Status(Code::kAlreadyInitialized,
                "a graph already exists at " + store.Describe() + " (graph id " + graph_id + ")",
                std::string(commit::kStampName));
}

// Init's check of the root before it writes anything (docs/design/engine.md "Init"): an empty
// root passes; a graph is refused always; an unfinished init or other objects only without
// force. One LIST of a page of kInitFoundShownMax + 1 names, and for a non-empty root the stamp
// and genesis reads.
Status CheckInitRoot(storage::ObjectStore& store, const InitOptions& options, InitReport& report) {
  storage::ListOptions list;
  list.page_size = kInitFoundShownMax + 1;
  OMNIGRAPH_ASSIGN_OR_RETURN(storage::ListPage page, store.List(list));
  if (page.objects.empty()) return Status::Ok();
  for (size_t i = 0; i < page.objects.size() && i < kInitFoundShownMax; ++i) {
    report.found.push_back(page.objects[i].name);
  }
  report.found_more = page.objects.size() > kInitFoundShownMax || !page.continuation.empty();
  OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<commit::StorageStamp> stamp, ReadStamp(store));
  if (stamp) {
    OMNIGRAPH_ASSIGN_OR_RETURN(bool genesis, GenesisExists(store));
    if (genesis) return AlreadyInitialized(store, stamp->graph_id);
    if (options.force) return Status::Ok();  // Init completes it under its graph id.
    return Status(Code::kInitializationIncomplete,
                  "init refused: " + store.Describe() + " holds an unfinished init of graph " +
                      stamp->graph_id +
                      " (its storage stamp, no genesis record; perhaps an init still running) "
                      "among " +
                      report.FoundText() + "; run init --force with the same schema to complete it",
                  std::string(commit::kStampName));
  }
  if (options.force) return Status::Ok();
  return Status(Code::kAlreadyExists,
                "init refused: " + store.Describe() + " is not empty: it holds " +
                    report.FoundText() +
                    "; init needs an empty folder or prefix (--force creates the graph among "
                    "them and leaves them in place)",
                page.objects[0].name);
}

}  // namespace

Result<std::unique_ptr<Graph>> Graph::Init(const storage::Runtime& runtime,
                                           std::string_view schema_source,
                                           const InitOptions& options, InitReport* report) {
  // Check everything before writing anything (a failed init leaves nothing behind): the schema,
  // the actor, the options and every table's columns.
  OMNIGRAPH_ASSIGN_OR_RETURN(schema::SchemaIr ir, schema::AcceptInitial(schema_source));
  OMNIGRAPH_RETURN_IF_ERROR(commit::ValidateActor(options.actor));
  if (options.checkpoint_interval == 0) return InvalidArgument("checkpoint interval must be >= 1");
  std::vector<const schema::TypeDef*> types;
  for (const schema::TypeDef& t : ir.nodes) types.push_back(&t);
  for (const schema::TypeDef& t : ir.edges) types.push_back(&t);
  std::vector<table::NewTable> new_tables;
  std::vector<table::ColumnBatch> empties;
  for (const schema::TypeDef* type : types) {
    OMNIGRAPH_ASSIGN_OR_RETURN(table::Schema columns, query::TableSchemaFor(*type));
    OMNIGRAPH_ASSIGN_OR_RETURN(table::ColumnBatch empty, EmptyRows(columns));
    new_tables.push_back(
        table::NewTable{TableId{type->id, type->incarnation}, type->table_key(), columns});
    empties.push_back(std::move(empty));
  }
  storage::ObjectStore& store = *runtime.store;
  InitReport found;
  OMNIGRAPH_RETURN_IF_ERROR(CheckInitRoot(store, options, found));

  // 1. The stamp: the init fence.
  UlidGenerator ulids(*runtime.clock, *runtime.random);
  commit::StorageStamp stamp;
  stamp.graph_id = ulids.NextString();
  stamp.checkpoint_interval = options.checkpoint_interval;
  stamp.created_at = runtime.clock->NowMicros();
  OMNIGRAPH_ASSIGN_OR_RETURN(bool created, store.PutIfAbsent(std::string(commit::kStampName),
                                                             commit::EncodeStorageStamp(stamp)));
  if (!created) {
    OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<commit::StorageStamp> existing, ReadStamp(store));
    if (!existing) return Status(Code::kUnknown, "the storage stamp vanished");
    OMNIGRAPH_ASSIGN_OR_RETURN(bool genesis, GenesisExists(store));
    if (genesis) return AlreadyInitialized(store, existing->graph_id);
    // An unfinished init (with force, or one that took the fence after the check above):
    // complete it under its graph id.
    found.completed_graph_id = existing->graph_id;
    stamp = std::move(*existing);
  }

  // 2. The schema archive, content-addressed.
  OMNIGRAPH_ASSIGN_OR_RETURN(
      const std::string content_hash,
      StoreSchemaArchive(store, schema::ArchiveBytes(stamp.graph_id, 1, schema_source, ir)));

  // 3. An empty version of every table, in parallel.
  commit::RecordContent genesis;
  genesis.schema =
      commit::SchemaRef{stamp.graph_id, schema::IrHash(ir), 1, content_hash, Json::object()};
  table::TableStore tables(runtime);
  std::vector<TablePin> pins(types.size());
  TaskGroup group(*runtime.executor);
  for (size_t i = 0; i < types.size(); ++i) {
    group.Add([&, i]() -> Status {
      OMNIGRAPH_ASSIGN_OR_RETURN(pins[i], tables.Create(new_tables[i], empties[i], std::nullopt));
      return Status::Ok();
    });
  }
  OMNIGRAPH_RETURN_IF_ERROR(group.Wait());
  for (size_t i = 0; i < types.size(); ++i) {
    const schema::TypeDef& type = *types[i];
    genesis.registrations.push_back(commit::Registration{
        type.id, type.incarnation, type.table_key(),
        type.kind == schema::TypeKind::kEdge ? "edge" : "node", Json::object()});
    genesis.pins.push_back(pins[i]);
  }

  // 4. The main stream: metadata, genesis, checkpoint 0, hint.
  OMNIGRAPH_RETURN_IF_ERROR(
      commit::CreateMainStream(runtime, std::move(genesis), options.actor).status());
  if (report != nullptr) *report = std::move(found);
  return std::unique_ptr<Graph>(new Graph(runtime, std::move(stamp)));
}

Result<std::unique_ptr<Graph>> Graph::Open(const storage::Runtime& runtime) {
  // The stamp, the genesis record and main's metadata with its hint are independent reads:
  // issued together, an open waits for one request round, not two, and the first read of main
  // (most reads are of main) starts from the hint with no round of its own (docs/design/
  // engine.md "Opening a graph"; decision 205). Main's reads are a guess: when they fail, the
  // first use of main resolves it as any branch, and reports what it finds.
  Result<std::optional<commit::StorageStamp>> read_stamp = std::optional<commit::StorageStamp>();
  Result<bool> read_genesis = false;
  Result<commit::ResolvedBranch> main = Status(Code::kUnknown, "not read");
  TaskGroup group(runtime.ReadExecutor());
  group.Add([&]() -> Status {
    read_genesis = GenesisExists(*runtime.store);
    return Status::Ok();
  });
  group.Add([&]() -> Status {
    main = commit::ResolveBranch(runtime, commit::kMainKey, /*with_hint=*/true);
    return Status::Ok();
  });
  read_stamp = ReadStamp(*runtime.store);
  OMNIGRAPH_RETURN_IF_ERROR(group.Wait());
  OMNIGRAPH_ASSIGN_OR_RETURN(std::optional<commit::StorageStamp> stamp, std::move(read_stamp));
  if (!stamp) {
    return Status(Code::kNotFound, "no graph at " + runtime.store->Describe() + " (no " +
                                       std::string(commit::kStampName) + "); run init first");
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(bool genesis, std::move(read_genesis));
  if (!genesis) {
    return Status(Code::kInitializationIncomplete,
                  "initialization of the graph at " + runtime.store->Describe() +
                      " did not finish; run init --force with the same schema to complete it",
                  commit::RecordName(commit::kMainKey, 0));
  }
  std::unique_ptr<Graph> graph(new Graph(runtime, std::move(*stamp)));
  if (main.ok()) graph->AdoptStream(commit::kMainKey, *std::move(main));
  return graph;
}

Result<std::shared_ptr<const schema::Catalog>> Graph::CatalogFor(const commit::SchemaRef& ref) {
  {
    std::lock_guard lock(mu_);
    auto it = catalogs_.find(ref.content_hash);
    if (it != catalogs_.end()) return it->second;
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(schema::SchemaArchive archive, ReadSchemaArchive(ref));
  OMNIGRAPH_ASSIGN_OR_RETURN(schema::Catalog catalog, schema::Catalog::Build(archive.ir));
  auto shared = std::make_shared<const schema::Catalog>(std::move(catalog));
  std::lock_guard lock(mu_);
  catalogs_[ref.content_hash] = shared;
  return shared;
}

Result<schema::SchemaArchive> Graph::ReadSchemaArchive(const commit::SchemaRef& ref) const {
  return LoadSchemaArchive(*runtime_.store, ref);
}

Result<Snapshot> Graph::SnapshotOfState(std::shared_ptr<const commit::GraphState> state,
                                        std::shared_ptr<commit::Stream> stream) {
  Snapshot snapshot;
  OMNIGRAPH_ASSIGN_OR_RETURN(snapshot.catalog_, CatalogFor(state->schema));
  snapshot.state_ = std::move(state);
  snapshot.stream_ = std::move(stream);
  snapshot.tables_ = tables_;
  snapshot.clock_ = runtime_.clock;
  return snapshot;
}

Result<commit::StreamMetadata> Graph::CreateBranch(std::string_view name, std::string_view from,
                                                   std::optional<std::string> from_commit,
                                                   std::optional<std::string> actor) {
  commit::StreamOptions options{stamp_.checkpoint_interval, true};
  commit::ForkPoint fork;
  if (from_commit) {
    OMNIGRAPH_ASSIGN_OR_RETURN(commit::Record record,
                               commit::LookupCommit(*runtime_.store, *from_commit));
    OMNIGRAPH_ASSIGN_OR_RETURN(std::unique_ptr<commit::Stream> stream,
                               commit::Stream::Open(runtime_, record.stream, options));
    OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const commit::GraphState> head, stream->ReadHead());
    OMNIGRAPH_ASSIGN_OR_RETURN(fork.state, stream->ReadAt(record.seq));
    fork.parent_branch = stream->metadata().branch;
    fork.from_head = record.seq == head->seq;
  } else {
    OMNIGRAPH_ASSIGN_OR_RETURN(commit::ResolvedBranch parent,
                               commit::ResolveBranch(runtime_, from));
    std::unique_ptr<commit::Stream> stream =
        commit::Stream::FromMetadata(runtime_, parent.metadata, options);
    OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const commit::GraphState> head, stream->ReadHead());
    fork.state = *head;
    fork.parent_branch = std::string(from);
  }
  return commit::CreateBranch(runtime_, name, fork, std::move(actor), options);
}

Status Graph::DeleteBranch(std::string_view name, std::optional<std::string> actor) {
  return commit::DeleteBranch(runtime_, name, std::move(actor),
                              commit::StreamOptions{stamp_.checkpoint_interval, true});
}

Result<std::vector<commit::BranchInfo>> Graph::ListBranches() {
  return commit::ListBranches(runtime_, commit::StreamOptions{stamp_.checkpoint_interval, true});
}

Result<std::shared_ptr<commit::Stream>> Graph::StreamOf(std::string_view branch, bool& warm) {
  {
    std::lock_guard lock(mu_);
    auto it = streams_.find(std::string(branch));
    warm = it != streams_.end();
    if (warm) return it->second;
  }
  // Resolve without the lock; when two threads race, the first handle registered is kept.
  // The stream's hint is read with its metadata: the handle's first read starts from it.
  OMNIGRAPH_ASSIGN_OR_RETURN(commit::ResolvedBranch resolved,
                             commit::ResolveBranch(runtime_, branch, /*with_hint=*/true));
  return AdoptStream(branch, std::move(resolved));
}

std::shared_ptr<commit::Stream> Graph::AdoptStream(std::string_view branch,
                                                   commit::ResolvedBranch resolved) {
  std::shared_ptr<commit::Stream> stream = commit::Stream::FromMetadata(
      runtime_, std::move(resolved.metadata),
      commit::StreamOptions{stamp_.checkpoint_interval, true}, std::move(resolved.hint));
  std::lock_guard lock(mu_);
  return streams_.try_emplace(std::string(branch), std::move(stream)).first->second;
}

void Graph::DropStream(std::string_view branch) {
  std::lock_guard lock(mu_);
  streams_.erase(std::string(branch));
}

void Graph::SetGroupCommit(GroupCommitOptions options) {
  std::lock_guard lock(mu_);
  group_commit_ = options;
}

size_t Graph::GroupCommitWaiting(std::string_view stream_key) {
  std::shared_ptr<CommitQueue> queue;
  {
    std::lock_guard lock(mu_);
    auto it = queues_.find(std::string(stream_key));
    if (it == queues_.end()) return 0;
    queue = it->second;
  }
  return queue->Waiting();
}

std::shared_ptr<CommitQueue> Graph::CommitQueueOf(std::string_view stream_key) {
  std::lock_guard lock(mu_);
  if (!group_commit_.enabled) return nullptr;
  std::shared_ptr<CommitQueue>& q = queues_[std::string(stream_key)];
  if (!q) q = std::make_shared<CommitQueue>();
  return q;
}

Result<Snapshot> Graph::SnapshotOfBranch(std::string_view branch, const SnapshotAhead& ahead) {
  bool warm = false;
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<commit::Stream> stream, StreamOf(branch, warm));
  // A cold read hands over what the head most likely is while it reads on (commit::ReadAhead):
  // the schema the hint names, read beside the records, and the state at the hint, beside the
  // probe for newer records, for the caller's own reads (decisions 203 and 205).
  commit::ReadAhead read_ahead;
  read_ahead.schema = [this](const commit::SchemaRef& ref) {
    CatalogFor(ref).status().IgnoreError();
  };
  read_ahead.state = [this, &ahead](const commit::GraphState& likely) {
    if (!ahead) {
      CatalogFor(likely.schema).status().IgnoreError();
      return;
    }
    Result<Snapshot> view = SnapshotOfState(std::make_shared<const commit::GraphState>(likely));
    if (view.ok()) ahead(*view);
  };
  Result<std::shared_ptr<const commit::GraphState>> head = stream->ReadHead(read_ahead);
  if (!head.ok() && head.status().code() == Code::kBranchNotFound) {
    // This handle's life of the branch was deleted; the name may name a new life now.
    DropStream(branch);
    if (!warm) return head.status();
    OMNIGRAPH_ASSIGN_OR_RETURN(stream, StreamOf(branch, warm));
    head = stream->ReadHead();
  }
  OMNIGRAPH_RETURN_IF_ERROR(head.status());
  return SnapshotOfState(std::move(*head), std::move(stream));
}

Result<Snapshot> Graph::SnapshotAtCommit(std::string_view commit_id) {
  OMNIGRAPH_ASSIGN_OR_RETURN(commit::Record record,
                             commit::LookupCommit(*runtime_.store, commit_id));
  if (record.kind != commit::RecordKind::kCommit) {
    return Status(Code::kCommitNotFound, "'" + std::string(commit_id) + "' is not a commit");
  }
  commit::StreamOptions options{stamp_.checkpoint_interval, true};
  OMNIGRAPH_ASSIGN_OR_RETURN(std::unique_ptr<commit::Stream> stream,
                             commit::Stream::Open(runtime_, record.stream, options));
  OMNIGRAPH_ASSIGN_OR_RETURN(commit::GraphState state, stream->ReadAt(record.seq));
  return SnapshotOfState(std::make_shared<const commit::GraphState>(std::move(state)));
}

Result<Snapshot> Graph::WithTodaysNames(const Snapshot& past) {
  OMNIGRAPH_ASSIGN_OR_RETURN(Snapshot today, SnapshotOfBranch("main"));
  if (today.state().schema.ir_hash == past.state().schema.ir_hash) return past;
  OMNIGRAPH_ASSIGN_OR_RETURN(schema::Catalog both,
                             schema::Catalog::WithNamesOf(past.catalog(), today.catalog()));
  Snapshot out = past;
  out.catalog_ = std::make_shared<const schema::Catalog>(std::move(both));
  return out;
}

Result<std::shared_ptr<const table::TableVersion>> Snapshot::Table(
    std::string_view table_key) const {
  const commit::TableState* t = state_->FindByKey(table_key);
  if (t == nullptr) {
    return Status(Code::kNotFound,
                  "no table '" + std::string(table_key) + "' at commit " + state_->head_commit_id);
  }
  Result<std::shared_ptr<const table::TableVersion>> opened = tables_->Open(t->pin);
  if (!opened.ok()) return ExplainReadFailure(opened.status());
  return opened;
}

void Snapshot::PrefetchTables(std::span<const std::string> table_keys,
                              const table::TableStore::PrefetchOptions& options) const {
  std::vector<TablePin> pins;
  for (const std::string& key : table_keys) {
    if (const commit::TableState* t = state_->FindByKey(key)) pins.push_back(t->pin);
  }
  tables_->Prefetch(pins, options);
}

bool Snapshot::remote_store() const { return tables_->runtime().store->Remote(); }

Status Snapshot::ExplainReadFailure(const Status& failure) const {
  constexpr std::string_view kTablesPrefix = "tables/";
  if (failure.code() != Code::kNotFound || !failure.object().starts_with(kTablesPrefix)) {
    return failure;
  }
  const std::string commit = "commit " + state_->head_commit_id + " (seq " +
                             std::to_string(state_->seq) + " of its branch)";
  Result<uint64_t> reclaimed_below = commit::ReclaimedBelowSeq(tables_->runtime(), state_->stream);
  if (!reclaimed_below.ok()) {
    return reclaimed_below.status().WithContext("explaining the missing " + failure.object());
  }
  if (state_->seq < *reclaimed_below) {
    const std::string kept =
        *reclaimed_below == UINT64_MAX
            ? "cleanup retains no commit of its branch"
            : "cleanup retains its branch's commits from seq " + std::to_string(*reclaimed_below);
    return Status(
        Code::kVersionsReclaimed,
        "the data of " + commit + " was reclaimed by cleanup (" + kept + "); read a newer commit",
        failure.object());
  }
  return Status(Code::kCorruption,
                "table object " + failure.object() + " of " + commit +
                    " is missing, but cleanup retains that commit: the object was lost or "
                    "deleted outside OmniGraph (restore it from a backup)",
                failure.object());
}

}  // namespace omnigraph::engine
