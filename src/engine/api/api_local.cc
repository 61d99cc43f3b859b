// The local backend of api::Database (engine/api/api_local.h): a Handle speaks the engine's types
// (Status, Json) over one Graph; LocalBackend converts its inputs and results at the boundary
// (engine/api/api_values.h) and adds the actor its writes publish as. This file opens a Handle
// and holds LocalBackend; Handle's calls are in api_local_{reads,writes,history,admin}.cc
// (engine/api/api_local_internal.h).
//
// The engine's headers come before the public one (they sort first): the public header's
// early-return macros then stand aside for base/status.h's (include/omnigraph/status.h).
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/api/api_local_internal.h"

namespace omnigraph::engine {

namespace local_internal {

Result<CountedRuntime> RuntimeFor(std::string_view uri, const DatabaseOptions& options) {
  storage::OpenOptions open;
  open.local.fsync = options.fsync;
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<storage::ObjectStore> store,
                             storage::OpenStore(uri, open));
  auto counting = std::make_shared<storage::CountingStore>(std::move(store));
  // A remote store's requests mostly wait on the network, and a cold read issues its
  // independent ones together (the records up to the hint, manifests, index objects): the pool
  // bounds how many are in flight, so it is never smaller than kRemoteStoreThreadsMin there
  // (decisions 209 and 213: the store says whether it is remote).
  const size_t threads =
      std::max<size_t>(counting->Remote() ? api::kRemoteStoreThreadsMin : 1, options.threads);
  storage::Runtime runtime = storage::Runtime::ForStore(counting, threads);
  // A local store's reads are copies or mappings of cached pages: a read's independent ones run
  // on the caller's thread, which would otherwise hand each to a pool thread and wait for it
  // (a dozen handoffs in a fresh process's open and first query; decision 229).
  if (!counting->Remote()) runtime.reads = std::make_shared<InlineExecutor>();
  return CountedRuntime{std::move(counting), std::move(runtime)};
}

engine::ProgressSink ProgressSinkOf(const std::function<void(const api::Progress&)>& callback) {
  if (!callback) return nullptr;
  return [callback](const engine::ProgressEvent& e) {
    api::Progress p;
    p.operation = std::string(e.operation);
    p.phase = std::string(e.phase);
    p.unit = std::string(e.unit);
    p.done = e.done;
    p.total = e.total;
    p.bytes_done = e.bytes_done;
    p.bytes_total = e.bytes_total;
    p.elapsed_micros = e.elapsed_micros;
    p.finished = e.finished;
    callback(p);
  };
}

Result<std::unique_ptr<Handle>> Handle::Init(std::string_view uri, std::string_view schema_source,
                                             const DatabaseOptions& options) {
  OMNIGRAPH_ASSIGN_OR_RETURN(CountedRuntime rt, RuntimeFor(uri, options));
  engine::InitOptions init;
  init.actor = options.actor;
  init.checkpoint_interval = options.checkpoint_interval;
  init.force = options.init_force;
  auto handle = std::make_unique<Handle>(uri);
  handle->counting_ = std::move(rt.counting);
  handle->progress_ = ProgressSinkOf(options.progress);
  OMNIGRAPH_RETURN_IF_ERROR(handle->SetExternalBlobs(options));
  engine::InitReport report;
  OMNIGRAPH_ASSIGN_OR_RETURN(handle->graph_, Graph::Init(rt.runtime, schema_source, init, &report));
  handle->init_report_ = report.ToJson();
  handle->graph_->SetGroupCommit(engine::GroupCommitOptions{options.group_commit});
  handle->feed_ = std::make_unique<engine::ChangeFeed>(*handle->graph_);
  return handle;
}

Result<std::unique_ptr<Handle>> Handle::Open(std::string_view uri, const DatabaseOptions& options) {
  OMNIGRAPH_ASSIGN_OR_RETURN(CountedRuntime rt, RuntimeFor(uri, options));
  auto handle = std::make_unique<Handle>(uri);
  handle->counting_ = std::move(rt.counting);
  handle->progress_ = ProgressSinkOf(options.progress);
  OMNIGRAPH_RETURN_IF_ERROR(handle->SetExternalBlobs(options));
  OMNIGRAPH_ASSIGN_OR_RETURN(handle->graph_, Graph::Open(rt.runtime));
  handle->graph_->SetGroupCommit(engine::GroupCommitOptions{options.group_commit});
  handle->feed_ = std::make_unique<engine::ChangeFeed>(*handle->graph_);
  return handle;
}

Status Handle::SetExternalBlobs(const DatabaseOptions& options) {
  std::vector<engine::ExternalBlobBase> bases;
  for (const api::ExternalBlobBase& b : options.external_blobs) bases.push_back({b.uri, b.scope});
  OMNIGRAPH_ASSIGN_OR_RETURN(engine::ExternalBlobRules rules,
                             engine::ExternalBlobRules::Make(bases));
  external_blobs_ = std::make_shared<const engine::ExternalBlobRules>(std::move(rules));
  return Status::Ok();
}

namespace {

// Lint against a schema source that no graph holds (checked as a new graph's would be).
Result<OrderedJson> LintOffline(std::string_view schema_source, std::string_view query_source) {
  OMNIGRAPH_ASSIGN_OR_RETURN(schema::SchemaIr ir, schema::AcceptInitial(schema_source));
  OMNIGRAPH_ASSIGN_OR_RETURN(schema::Catalog catalog, schema::Catalog::Build(std::move(ir)));
  return query::LintQuerySource(catalog, query_source).ToJson();
}

// The engine's sink for a caller's (statuses converted at the boundary).
std::function<Status(std::string_view)> EngineSink(const ApiSink& sink) {
  return [&sink](std::string_view chunk) { return FromApi(sink(chunk)); };
}

// The branch a read of `target` names: none for a read by commit id (docs/design/policy.md
// "Unnamed branches").
std::optional<std::string> ReadBranch(const ReadTarget& target) {
  if (target.snapshot) return std::nullopt;
  return target.branch;
}

// The policy a handle was opened with and the graph id it is asked about.
struct PolicyGate {
  std::shared_ptr<const api::Policy> policy;
  std::optional<std::string> graph;
  std::function<void(const api::PolicyRequest&, const api::PolicyDecision&)> on_denied;
};

// A Handle and the actor its writes publish as. Each call passes the policy gate (Gate), then
// converts at the boundary and nothing else; WithActor makes another over the same Handle.
class LocalBackend final : public Backend {
 public:
  LocalBackend(std::shared_ptr<Handle> handle, Actor actor, PolicyGate gate)
      : handle_(std::move(handle)), actor_(std::move(actor)), gate_(std::move(gate)) {}

  // The one gate every call passes (docs/design/policy.md "Enforcement"): without a policy it
  // allows everything; with one, the handle's actor must be allowed `action` on `branch` /
  // into `target`, and a handle without an actor is refused (fail closed). A refusal is
  // Configuration "permission denied: ..." naming the deciding rule, and nothing is done.
  //
  // `types` are the node and edge types the call touches (docs/design/policy.md "Per-type
  // authority"): kNoTypes for a call that shows no entity of any type, or whose engine asks
  // again with the types it touches (Authorizer); kAllTypes for one that may show every type.
  api::Status Gate(std::string_view action, std::optional<std::string> branch,
                   std::optional<std::string> target,
                   std::optional<std::vector<std::string>> types) const {
    if (!gate_.policy) return api::Status::Ok();
    const api::PolicyRequest request{
        actor_,      std::string(action), std::move(branch), std::move(target),
        gate_.graph, std::nullopt,        std::move(types)};
    const api::PolicyDecision d = gate_.policy->Decide(request);
    if (d.allowed) return api::Status::Ok();
    if (gate_.on_denied) gate_.on_denied(request, d);
    return api::Status(api::Code::kConfiguration, "permission denied: " + d.reason,
                       d.rule.empty() ? "policy" : "policy rule " + d.rule);
  }

  // A Blob read is a read of its type (docs/design/blob.md "Authorization").
  api::Status GateBlob(const api::BlobSelector& cell, const ReadTarget& target) const {
    return Gate("read", ReadBranch(target), std::nullopt, std::vector<std::string>{cell.type});
  }

  const std::string& uri() const override { return handle_->uri(); }
  api::StoreCallCounts StoreCalls() const override {
    const storage::OpCounts c = handle_->StoreCalls();
    return api::StoreCallCounts{c.gets,         c.heads,   c.lists,      c.puts,  c.put_if_absent,
                                c.put_if_match, c.deletes, c.bytes_read, c.rounds};
  }
  std::shared_ptr<Backend> WithActor(Actor actor) const override {
    return std::make_shared<LocalBackend>(handle_, std::move(actor), gate_);
  }
  std::shared_ptr<Backend> WithPolicy(const api::DatabaseOptions& options) const override;
  api::Json InitReport() const override { return ToApi(handle_->init_report()); }

  api::Result<api::Json> CreateBranch(std::string_view name, std::string_view from) override {
    if (api::Status denied = Gate("branch_create", std::string(from), std::string(name), kNoTypes);
        !denied.ok())
      return denied;
    return ToApi(handle_->CreateBranch(name, from, actor_));
  }
  api::Result<api::Json> DeleteBranch(std::string_view name) override {
    if (api::Status denied = Gate("branch_delete", std::nullopt, std::string(name), kNoTypes);
        !denied.ok())
      return denied;
    return ToApi(handle_->DeleteBranch(name, actor_));
  }
  api::Result<api::Json> ListBranches() override {
    if (api::Status denied = Gate("read", std::nullopt, std::nullopt, kNoTypes); !denied.ok())
      return denied;
    return ToApi(handle_->ListBranches());
  }
  api::Result<api::Json> Merge(std::string_view source, const MergeOptions& options,
                               api::Json* conflicts) override {
    if (api::Status denied = Gate("branch_merge", std::string(source), options.target, kNoTypes);
        !denied.ok())
      return denied;
    // --delete-branch is its own branch_delete check; its refusal does not fail the merge.
    const api::Status may_delete =
        options.delete_branch ? Gate("branch_delete", std::nullopt, std::string(source), kNoTypes)
                              : api::Status::Ok();
    MergeOptions run = options;
    run.delete_branch = options.delete_branch && may_delete.ok();
    Json engine_conflicts;
    api::Result<api::Json> out = ToApi(handle_->Merge(source, run, actor_, engine_conflicts));
    if (conflicts != nullptr && !engine_conflicts.is_null()) *conflicts = ToApi(engine_conflicts);
    if (out.ok() && !may_delete.ok()) {
      (*out)["branch_deleted"] = false;
      (*out)["branch_delete_error"] = may_delete.message();
    }
    return out;
  }
  // A preview reads both branches and publishes nothing: `read` of each (docs/design/policy.md).
  api::Result<api::Json> PreviewMerge(std::string_view source, std::string_view target) override {
    for (std::string_view branch : {source, target}) {
      if (api::Status denied = Gate("read", std::string(branch), std::nullopt, kAllTypes);
          !denied.ok())
        return denied;
    }
    return ToApi(handle_->PreviewMerge(source, target));
  }
  api::Result<api::Json> Diff(const api::DiffRequest& request) override {
    std::optional<std::vector<std::string>> types;  // Every type, unless the page names some.
    if (!request.filter.types.empty()) types = request.filter.types;
    for (const ReadTarget* target : {&request.from, &request.to}) {
      if (api::Status denied = Gate("read", ReadBranch(*target), std::nullopt, types); !denied.ok())
        return denied;
    }
    return ToApi(handle_->Diff(request));
  }
  api::Result<api::Json> CommitHistory(std::string_view branch, size_t limit,
                                       std::string_view page_token,
                                       std::string_view actor) override {
    if (api::Status denied =
            Gate("read", page_token.empty() ? std::optional<std::string>(branch) : std::nullopt, {},
                 kNoTypes);
        !denied.ok())
      return denied;
    return ToApi(handle_->ListCommits(branch, limit, page_token, actor));
  }
  api::Result<api::Json> ShowCommit(std::string_view commit_id) override {
    if (api::Status denied = Gate("read", std::nullopt, std::nullopt, kNoTypes); !denied.ok())
      return denied;
    return ToApi(handle_->ShowCommit(commit_id));
  }
  api::Result<api::Json> CommitChanges(std::string_view commit_id,
                                       const api::CommitChangesRequest& request) override {
    std::optional<std::vector<std::string>> types;  // Every type, unless the page names some.
    if (!request.filter.types.empty()) types = request.filter.types;
    if (api::Status denied = Gate("read", std::nullopt, std::nullopt, types); !denied.ok())
      return denied;
    return ToApi(handle_->CommitChanges(commit_id, request));
  }
  api::Result<api::Json> Snapshot(const ReadTarget& target) override {
    if (api::Status denied = Gate("read", ReadBranch(target), std::nullopt, kNoTypes); !denied.ok())
      return denied;
    return ToApi(handle_->SnapshotOf(target));
  }
  api::Result<api::Json> PollChanges(const api::ChangePoll& poll) override {
    if (api::Status denied = Gate(
            "read", poll.cursor.empty() ? std::optional<std::string>(poll.branch) : std::nullopt,
            {}, kAllTypes);
        !denied.ok())
      return denied;
    return ToApi(handle_->PollChanges(poll));
  }
  api::Status ChangesBaseline(std::string_view branch, const api::ChangeFilter& filter,
                              const ApiSink& sink) override {
    if (api::Status denied = Gate("export", std::string(branch), std::nullopt, kAllTypes);
        !denied.ok())
      return denied;
    return ToApi(handle_->ChangesBaseline(branch, filter, EngineSink(sink)));
  }
  api::Result<api::Json> Load(std::string_view ndjson, std::string_view mode,
                              const WriteTarget& target) override {
    if (api::Status denied = GateWrite(target); !denied.ok()) return denied;
    return ToApi(handle_->Load(ndjson, mode, target, actor_, Authorizer()));
  }
  api::Result<api::Json> LoadFile(const std::string& path, std::string_view mode,
                                  const WriteTarget& target) override {
    if (api::Status denied = GateWrite(target); !denied.ok()) return denied;
    return ToApi(handle_->LoadFile(path, mode, target, actor_, Authorizer()));
  }
  api::Result<api::Json> LoadStream(const api::LoadReader& read, std::string_view mode,
                                    const WriteTarget& target) override {
    if (api::Status denied = GateWrite(target); !denied.ok()) return denied;
    // The engine's reader over the caller's (their statuses converted at the boundary).
    engine::ChunkReader engine_read = [&read](char* buffer, size_t capacity) -> Result<size_t> {
      api::Result<size_t> got = read(buffer, capacity);
      if (!got.ok()) return FromApi(got.status());
      return *got;
    };
    return ToApi(handle_->LoadStream(engine_read, mode, target, actor_, Authorizer()));
  }
  api::Status Export(const ReadTarget& target, const std::vector<std::string>& types,
                     const ApiSink& sink) override {
    if (api::Status denied = Gate("export", ReadBranch(target), std::nullopt, TypesOrAll(types));
        !denied.ok())
      return denied;
    return ToApi(handle_->Export(target, types, EngineSink(sink)));
  }
  api::Result<api::Json> StatBlob(const api::BlobSelector& cell,
                                  const ReadTarget& target) override {
    if (api::Status denied = GateBlob(cell, target); !denied.ok()) return denied;
    return ToApi(handle_->StatBlob(cell, target));
  }
  api::Result<api::Json> ReadBlob(const api::BlobSelector& cell, const ReadTarget& target,
                                  std::optional<api::BlobRange> range,
                                  const ApiSink& sink) override {
    if (api::Status denied = GateBlob(cell, target); !denied.ok()) return denied;
    return ToApi(handle_->ReadBlob(cell, target, range, EngineSink(sink)));
  }
  api::Result<std::string> ResolveCommit(const ReadTarget& target) override {
    if (api::Status denied = Gate("read", ReadBranch(target), std::nullopt, kNoTypes); !denied.ok())
      return denied;
    Result<std::string> commit = handle_->ResolveCommit(target);
    if (!commit.ok()) return ToApi(commit.status());
    return std::move(*commit);
  }
  api::Result<api::Json> Mutate(std::string_view source, std::string_view name,
                                const api::Json& params, const WriteTarget& target) override {
    // The engine asks the gate itself (Authorizer): `change` before it reads, then with the
    // types its effects write; a branch statement, the branch action it performs.
    return ToApi(handle_->Mutate(source, name, FromApi(params), target, actor_, Authorizer()));
  }
  api::Result<api::Json> Query(std::string_view source, std::string_view name,
                               const api::Json& params, const ReadTarget& target) override {
    if (api::Status denied = Gate("read", ReadBranch(target), std::nullopt, kNoTypes); !denied.ok())
      return denied;
    return ToApi(handle_->Query(source, name, FromApi(params), target, Authorizer()));
  }
  api::Result<api::Json> PlanSchema(std::string_view schema_source, bool allow_data_loss) override {
    if (api::Status denied = Gate("read", "main", std::nullopt, kNoTypes); !denied.ok())
      return denied;
    return ToApi(handle_->PlanSchema(schema_source, allow_data_loss));
  }
  api::Result<api::Json> ApplySchema(std::string_view schema_source,
                                     bool allow_data_loss) override {
    if (api::Status denied = Gate("schema_apply", std::nullopt, "main", kNoTypes); !denied.ok())
      return denied;
    return ToApi(handle_->ApplySchema(schema_source, allow_data_loss, actor_));
  }
  api::Result<api::Json> ShowSchema(const ReadTarget& target) override {
    if (api::Status denied = Gate("read", ReadBranch(target), std::nullopt, kNoTypes); !denied.ok())
      return denied;
    return ToApi(handle_->ShowSchema(target));
  }
  api::Result<api::Json> Cleanup(const CleanupRequest& request) override {
    if (api::Status denied = Gate("admin", std::nullopt, std::nullopt, kNoTypes); !denied.ok())
      return denied;
    return ToApi(handle_->Cleanup(request));
  }
  api::Result<api::Json> Optimize(std::string_view branch) override {
    if (api::Status denied = Gate("admin", std::nullopt, std::nullopt, kNoTypes); !denied.ok())
      return denied;
    return ToApi(handle_->Optimize(branch, actor_));
  }
  api::Result<api::Json> Repair(bool confirm) override {
    if (api::Status denied = Gate("admin", std::nullopt, std::nullopt, kNoTypes); !denied.ok())
      return denied;
    return ToApi(handle_->Repair(confirm));
  }
  api::Result<api::Json> Lint(std::string_view query_source, std::string_view branch) override {
    if (api::Status denied = Gate("read", std::string(branch), std::nullopt, kNoTypes);
        !denied.ok())
      return denied;
    return ToApi(handle_->Lint(query_source, branch));
  }

 private:
  static constexpr std::nullopt_t kAllTypes = std::nullopt;
  static inline const std::vector<std::string> kNoTypes{};

  // Export's types: those named, or every type.
  static std::optional<std::vector<std::string>> TypesOrAll(const std::vector<std::string>& types) {
    if (types.empty()) return kAllTypes;
    return types;
  }

  // The engine's gate for what a call turns out to touch (engine/write/authority.h); none without a
  // policy. A question with types reaches the policy only when a rule names types: otherwise
  // the answer is the one the entry gate (or the engine's pre-check) already had.
  engine::Authorize Authorizer() const {
    if (!gate_.policy) return nullptr;
    return [this](const engine::AuthorityRequest& r) -> Status {
      if (!r.types.empty() && !gate_.policy->HasTypedRules()) return Status::Ok();
      return FromApi(Gate(r.action, r.branch, r.target_branch, r.types));
    };
  }

  // A load or mutation of target.branch: `change` there, and `branch_create` too when the
  // write may create the branch (WriteTarget::from).
  api::Status GateWrite(const WriteTarget& target) const {
    if (api::Status denied = Gate("change", target.branch, std::nullopt, kNoTypes); !denied.ok())
      return denied;
    if (target.from) return Gate("branch_create", *target.from, target.branch, kNoTypes);
    return api::Status::Ok();
  }

  std::shared_ptr<Handle> handle_;
  Actor actor_;
  PolicyGate gate_;
};

PolicyGate GateOf(const DatabaseOptions& options) {
  PolicyGate gate{options.policy, std::nullopt, options.on_policy_denied};
  if (!options.policy_graph.empty()) gate.graph = options.policy_graph;
  return gate;
}

std::shared_ptr<Backend> LocalBackend::WithPolicy(const DatabaseOptions& options) const {
  return std::make_shared<LocalBackend>(handle_, actor_, GateOf(options));
}

}  // namespace
}  // namespace local_internal

using local_internal::DatabaseOptions;
using local_internal::GateOf;
using local_internal::Handle;
using local_internal::LintOffline;
using local_internal::LocalBackend;

api::Result<std::shared_ptr<Backend>> InitLocalBackend(std::string_view uri,
                                                       std::string_view schema_source,
                                                       const DatabaseOptions& options) {
  Result<std::unique_ptr<Handle>> handle = Handle::Init(uri, schema_source, options);
  if (!handle.ok()) return ToApi(handle.status());
  return std::shared_ptr<Backend>(
      std::make_shared<LocalBackend>(std::move(*handle), options.actor, GateOf(options)));
}

api::Result<std::shared_ptr<Backend>> OpenLocalBackend(std::string_view uri,
                                                       const DatabaseOptions& options) {
  Result<std::unique_ptr<Handle>> handle = Handle::Open(uri, options);
  if (!handle.ok()) return ToApi(handle.status());
  return std::shared_ptr<Backend>(
      std::make_shared<LocalBackend>(std::move(*handle), options.actor, GateOf(options)));
}

api::Status CheckIdempotencyKey(std::string_view key) { return ToApi(ValidateIdempotencyKey(key)); }

int64_t SystemMonotonicMicros() { return storage::Runtime::SystemRuntimeClock().MonotonicMicros(); }

api::Json LibraryVersion() {
  return api::Json{{"version", OMNIGRAPH_VERSION_TEXT},
                   {"storage_stamp", commit::kStorageStamp},
                   {"build", OMNIGRAPH_BUILD_TEXT}};
}

api::Result<api::Json> LintWithSchemaSource(std::string_view schema_source,
                                            std::string_view query_source) {
  return ToApi(LintOffline(schema_source, query_source));
}

api::Result<api::Json> EmbedFileOffline(const api::EmbedFileRequest& request) {
  EmbedFileJob job;
  job.input = request.input;
  job.output = request.output;
  job.spec = FromApi(request.spec);
  if (request.mode == "fill_missing") {
    job.mode = EmbedFileMode::kFillMissing;
  } else if (request.mode == "reembed_all") {
    job.mode = EmbedFileMode::kReembedAll;
  } else if (request.mode == "clean") {
    job.mode = EmbedFileMode::kClean;
  } else {
    return ToApi(InvalidArgument("embed mode '" + request.mode +
                                 "' is not fill_missing, reembed_all or clean"));
  }
  job.types = request.types;
  job.selectors = request.selectors;
  return ToApi(RunEmbedFile(job, storage::Runtime::SystemRuntimeClock()));
}

}  // namespace omnigraph::engine
