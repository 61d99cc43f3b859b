// api::Database (include/omnigraph/omnigraph.h): a handle on one Backend
// (engine/api/api_backend.h), chosen when the handle is made — the local engine for Init and Open,
// an omnigraph-server for Connect. Every call forwards to the backend; nothing here asks which
// backend it has (docs/design/api.md "Backends").
#include <algorithm>

#include "base/huge_pages.h"
#include "engine/api/api_backend.h"
#include "engine/api/api_local.h"
#include "engine/api/api_remote.h"

namespace omnigraph::api {

struct Database::Impl {
  std::shared_ptr<engine::Backend> backend;
};

namespace {

Result<std::unique_ptr<Database>> Wrap(
    Result<std::shared_ptr<engine::Backend>> backend,
    const std::function<std::unique_ptr<Database>(std::shared_ptr<engine::Backend>)>& make) {
  if (!backend.ok()) return backend.status();
  return make(std::move(*backend));
}

}  // namespace

Database::Database(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Database::~Database() = default;

const std::string& Database::uri() const { return impl_->backend->uri(); }

StoreCallCounts Database::StoreCalls() const { return impl_->backend->StoreCalls(); }

Json Database::InitReport() const { return impl_->backend->InitReport(); }

Result<std::unique_ptr<Database>> Database::Init(std::string_view uri,
                                                 std::string_view schema_source,
                                                 const DatabaseOptions& options) {
  return Wrap(engine::InitLocalBackend(uri, schema_source, options), [](auto backend) {
    return std::unique_ptr<Database>(new Database(std::make_unique<Impl>(Impl{backend})));
  });
}

Result<std::unique_ptr<Database>> Database::Open(std::string_view uri,
                                                 const DatabaseOptions& options) {
  return Wrap(engine::OpenLocalBackend(uri, options), [](auto backend) {
    return std::unique_ptr<Database>(new Database(std::make_unique<Impl>(Impl{backend})));
  });
}

Result<std::unique_ptr<Database>> Database::Connect(std::string_view url,
                                                    const ConnectOptions& options) {
  return Wrap(engine::ConnectRemoteBackend(url, options), [](auto backend) {
    return std::unique_ptr<Database>(new Database(std::make_unique<Impl>(Impl{backend})));
  });
}

std::unique_ptr<Database> Database::WithActor(std::optional<std::string> actor) const {
  return std::unique_ptr<Database>(
      new Database(std::make_unique<Impl>(Impl{impl_->backend->WithActor(std::move(actor))})));
}

Result<std::unique_ptr<Database>> Database::WithPolicy(const DatabaseOptions& options) const {
  std::shared_ptr<engine::Backend> backend = impl_->backend->WithPolicy(options);
  if (!backend) {
    return Status(Code::kUnsupported, "a policy is installed on a local handle, not a remote one",
                  uri());
  }
  return std::unique_ptr<Database>(new Database(std::make_unique<Impl>(Impl{std::move(backend)})));
}

Result<Json> Database::CreateBranch(std::string_view name, std::string_view from) {
  return impl_->backend->CreateBranch(name, from);
}

Result<Json> Database::DeleteBranch(std::string_view name) {
  return impl_->backend->DeleteBranch(name);
}

Result<Json> Database::ListBranches() { return impl_->backend->ListBranches(); }

Result<Json> Database::ListCommits(std::string_view branch, size_t limit) {
  Result<Json> page = impl_->backend->CommitHistory(branch, limit, "", "");
  if (!page.ok()) return page.status();
  return (*page)["commits"];
}

Result<Json> Database::CommitHistory(std::string_view branch, size_t limit,
                                     std::string_view page_token, std::string_view actor) {
  return impl_->backend->CommitHistory(branch, limit, page_token, actor);
}

Result<Json> Database::CommitChanges(std::string_view commit_id,
                                     const CommitChangesRequest& request) {
  return impl_->backend->CommitChanges(commit_id, request);
}

Result<Json> Database::PollChanges(const ChangePoll& poll) {
  return impl_->backend->PollChanges(poll);
}

Status Database::ChangesBaseline(std::string_view branch,
                                 const std::function<Status(std::string_view chunk)>& sink) {
  return impl_->backend->ChangesBaseline(branch, ChangeFilter{}, sink);
}

Status Database::ChangesBaseline(std::string_view branch, const ChangeFilter& filter,
                                 const std::function<Status(std::string_view chunk)>& sink) {
  return impl_->backend->ChangesBaseline(branch, filter, sink);
}

Result<Json> Database::Snapshot(const ReadTarget& target) {
  return impl_->backend->Snapshot(target);
}

Result<Json> Database::PreviewMerge(std::string_view source, std::string_view target) {
  return impl_->backend->PreviewMerge(source, target);
}

Result<Json> Database::Diff(const DiffRequest& request) { return impl_->backend->Diff(request); }

Result<Json> Database::Merge(std::string_view source, const MergeOptions& options,
                             Json* conflicts) {
  return impl_->backend->Merge(source, options, conflicts);
}

Result<Json> Database::ShowCommit(std::string_view commit_id) {
  return impl_->backend->ShowCommit(commit_id);
}

Result<Json> Database::Load(std::string_view ndjson, std::string_view mode,
                            const WriteTarget& target) {
  return impl_->backend->Load(ndjson, mode, target);
}

Result<Json> Database::LoadFile(const std::string& path, std::string_view mode,
                                const WriteTarget& target) {
  return impl_->backend->LoadFile(path, mode, target);
}

Result<Json> Database::LoadStream(const LoadReader& read, std::string_view mode,
                                  const WriteTarget& target) {
  return impl_->backend->LoadStream(read, mode, target);
}

Status Database::Export(std::string_view branch, const std::vector<std::string>& types,
                        const std::function<Status(std::string_view chunk)>& sink) {
  ReadTarget target;
  target.branch = std::string(branch);
  return Export(target, types, sink);
}

Status Database::Export(const ReadTarget& target, const std::vector<std::string>& types,
                        const std::function<Status(std::string_view chunk)>& sink) {
  return impl_->backend->Export(target, types, sink);
}

Result<Json> Database::StatBlob(const BlobSelector& cell, const ReadTarget& target) {
  return impl_->backend->StatBlob(cell, target);
}

Result<Json> Database::ReadBlob(const BlobSelector& cell, const ReadTarget& target,
                                std::optional<BlobRange> range,
                                const std::function<Status(std::string_view chunk)>& sink) {
  return impl_->backend->ReadBlob(cell, target, range, sink);
}

Result<std::string> Database::ResolveCommit(const ReadTarget& target) {
  return impl_->backend->ResolveCommit(target);
}

Result<Json> Database::Mutate(std::string_view source, std::string_view name, const Json& params,
                              const WriteTarget& target) {
  return impl_->backend->Mutate(source, name, params, target);
}

Result<Json> Database::StoredQueries() { return impl_->backend->StoredQueries(); }

Result<Json> Database::InvokeStoredQuery(std::string_view name, const Json& params,
                                         const ReadTarget& target) {
  return impl_->backend->InvokeStoredQuery(name, params, target);
}

Result<Json> Database::Query(std::string_view source, std::string_view name, const Json& params,
                             const ReadTarget& target) {
  return impl_->backend->Query(source, name, params, target);
}

Result<Json> Database::PlanSchema(std::string_view schema_source, bool allow_data_loss) {
  return impl_->backend->PlanSchema(schema_source, allow_data_loss);
}

Result<Json> Database::ApplySchema(std::string_view schema_source, bool allow_data_loss) {
  return impl_->backend->ApplySchema(schema_source, allow_data_loss);
}

Result<Json> Database::ShowSchema(std::string_view branch) {
  return ShowSchema(ReadTarget{std::string(branch), std::nullopt});
}

Result<Json> Database::ShowSchema(const ReadTarget& target) {
  return impl_->backend->ShowSchema(target);
}

Result<Json> Database::Cleanup(const CleanupRequest& request) {
  return impl_->backend->Cleanup(request);
}

Result<Json> Database::Optimize(std::string_view branch) {
  return impl_->backend->Optimize(branch);
}

Result<Json> Database::Repair(bool confirm) { return impl_->backend->Repair(confirm); }

Result<Json> Database::Lint(std::string_view query_source, std::string_view branch) {
  return impl_->backend->Lint(query_source, branch);
}

Result<Json> Database::LintWithSchema(std::string_view schema_source,
                                      std::string_view query_source) {
  return engine::LintWithSchemaSource(schema_source, query_source);
}

Result<Json> Database::EmbedFile(const EmbedFileRequest& request) {
  return engine::EmbedFileOffline(request);
}

Json Database::Version() { return engine::LibraryVersion(); }

int64_t Database::MonotonicMicros() { return engine::SystemMonotonicMicros(); }

bool Database::LoadWantsHugePageHeap(uint64_t input_bytes) {
  if (input_bytes < kHugeHeapLoadBytesMin) return false;
  // With `always` the heap is on huge pages already; with `never` the tunable does nothing.
  if (!HugePagesAdvisedOnly()) return false;
  // A load's heap peaks at about twice and a half its input at 1x, and is bounded by its budgets
  // beyond (decision 230): ask for three times the input, at most 2 GiB.
  const uint64_t peak = std::min<uint64_t>(3 * input_bytes, uint64_t{2} << 30);
  return HugePagesCheapNow(static_cast<size_t>(peak));
}

}  // namespace omnigraph::api
