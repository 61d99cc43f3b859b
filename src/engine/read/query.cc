#include "engine/read/query.h"

#include <map>
#include <mutex>
#include <utility>

#include "query/check/settings.h"
#include "query/check/typecheck.h"
#include "query/exec/embedder.h"
#include "query/parse/parser.h"
#include "query/plan/plan.h"

namespace omnigraph::engine {

namespace {

// The String queries of one run, embedded once each: a `nearest` is compiled by every stage that
// reads it (the nearest operator, a projection, the order).
struct RunEmbeddings {
  explicit RunEmbeddings(Clock& clock) : lazy(clock) {}
  std::mutex mu;  // A run's stages may compile on several threads.
  query::LazyEmbedder lazy;
  std::map<std::pair<uint64_t, std::string>, std::vector<float>> by_property_and_text;
};

void SetQueryEmbedder(query::ExecOptions& exec, Clock& clock) {
  // Configured from the environment only when a String query needs it.
  auto run = std::make_shared<RunEmbeddings>(clock);
  exec.embed_query = [run](const schema::PropertyDef& def, std::string_view owner,
                           const std::string& text) -> Result<std::vector<float>> {
    std::lock_guard lock(run->mu);
    auto key = std::make_pair(def.id, text);
    auto it = run->by_property_and_text.find(key);
    if (it != run->by_property_and_text.end()) return it->second;
    OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<float> v,
                               query::EmbedQueryText(run->lazy, def, owner, text));
    run->by_property_and_text.emplace(std::move(key), v);
    return v;
  };
}

// The fewest live edges an edge version has for a walk from a few nodes to read its adjacency
// point by point: the option when set, else on a remote store kRemotePointEdgesMin — there a
// point read's rounds cost more than reading a moderate adjacency whole (decision 213).
uint64_t PointEdgesMin(const Snapshot& snapshot, const RunOptions& options) {
  if (options.point_edges_min) return *options.point_edges_min;
  return snapshot.remote_store() ? query::kRemotePointEdgesMin : query::kPointEdgesMin;
}

// The executor's options for one run: every RunOptions field, whichever path runs the query (the
// prepared plan or a checked query). `local` holds the run's own cache when none is shared.
query::ExecOptions ExecOptionsFor(const Snapshot& snapshot, const RunOptions& options,
                                  std::optional<query::ExecCache>& local) {
  query::ExecOptions exec;
  exec.now_ms = options.now_ms ? *options.now_ms : snapshot.clock().NowMillis();
  exec.cache = options.cache;
  exec.traversal_work_limit = options.traversal_work_limit;
  if (exec.cache == nullptr) exec.cache = &local.emplace(64);
  if (options.nearest_exact_max) exec.nearest_exact_max = *options.nearest_exact_max;
  exec.point_edges_min = PointEdgesMin(snapshot, options);
  exec.point_budget_bytes = options.point_budget_bytes;
  exec.value_grouping = options.value_grouping;
  SetQueryEmbedder(exec, snapshot.clock());
  return exec;
}

}  // namespace

namespace {

// Asks the gate `read` with the types the query reads (CheckedQuery::reads, conservative).
Status AuthorizeReads(const query::CheckedQuery& checked, const RunOptions& options) {
  if (!options.authorize) return Status::Ok();
  AuthorityRequest request{"read", std::nullopt, std::nullopt, {}};
  if (!options.snapshot) request.branch = options.branch.value_or("main");
  for (const query::GraphFact& fact : checked.reads) request.types.push_back(fact.type_name);
  return options.authorize(request);
}

// Opens the tables the query reads together before it runs: the executor meets them one after
// another, which on a remote store is one request round each (docs/design/query-execution.md
// "Cold reads"). `ahead` (a cold read's read ahead, beside the probe for newer records, so even
// one read saves a round): also the stored id index of each node table, which a lookup by key
// reads next (a traversal reads an edge table's adjacency, not its id index), and on a remote
// store the stored forward adjacency of each edge table a walk would read whole (below the point
// bound, decision 213).
void PrefetchReads(const Snapshot& snapshot, const query::CheckedQuery& checked,
                   const RunOptions& run, bool ahead = false) {
  if (checked.reads.size() < 2 && !ahead) return;
  std::vector<std::string> keys;
  table::TableStore::PrefetchOptions options;
  for (const query::GraphFact& fact : checked.reads) {
    const bool edge = fact.kind == schema::TypeKind::kEdge;
    const schema::TypeDef* type = edge ? snapshot.catalog().FindEdge(fact.type_name)
                                       : snapshot.catalog().FindNode(fact.type_name);
    if (type == nullptr) continue;
    keys.push_back(type->table_key());
    if (ahead && !edge) options.ids_of.push_back(type->table_key());
    if (ahead && edge && snapshot.remote_store()) options.adjacency_of.push_back(type->table_key());
  }
  options.adjacency_edges_max = PointEdgesMin(snapshot, run);
  if (ahead) options.reads_min = 1;
  snapshot.PrefetchTables(keys, options);
}

}  // namespace

Result<query::QueryResult> RunChecked(const Snapshot& snapshot, const query::CheckedQuery& checked,
                                      const Json& params, const RunOptions& options) {
  OMNIGRAPH_RETURN_IF_ERROR(AuthorizeReads(checked, options));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<schema::Value> values, query::BindParams(checked, params));
  PrefetchReads(snapshot, checked, options);
  std::optional<query::ExecCache> local;
  const query::ExecOptions exec = ExecOptionsFor(snapshot, options, local);
  SnapshotView view(snapshot);
  Result<query::QueryResult> result = query::Execute(view, checked, values, exec);
  if (!result.ok()) return snapshot.ExplainReadFailure(result.status());
  return result;
}

namespace {

OrderedJson Envelope(std::string_view query_name, const query::QueryResult& result,
                     std::string_view commit_id, const RunOptions& options,
                     const std::vector<std::string>& warnings = {},
                     const std::optional<std::string>& plan = std::nullopt) {
  OrderedJson out = OrderedJson::object();
  out["query_name"] = query_name;
  OrderedJson target = OrderedJson::object();
  if (options.branch) target["branch"] = *options.branch;
  if (options.snapshot) target["snapshot"] = *options.snapshot;
  out["target"] = std::move(target);
  out["row_count"] = result.rows.size();
  OrderedJson columns = OrderedJson::array();
  for (const query::ResultColumn& c : result.columns) columns.push_back(c.name);
  out["columns"] = std::move(columns);
  out["rows"] = query::RowsJson(result);
  if (!commit_id.empty()) out["graph_commit_id"] = commit_id;
  if (plan) out["plan"] = *plan;
  if (!warnings.empty()) out["warnings"] = warnings;
  return out;
}

// The plan of an `explain`ed query as a result: one String row per line.
query::QueryResult ExplainResult(const std::string& text) {
  query::QueryResult result;
  query::ResultColumn column;
  column.name = "plan";
  column.type = query::ExprType::Scalar(schema::ScalarKind::kString);
  column.nullable = false;
  result.columns.push_back(std::move(column));
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    result.rows.push_back({schema::Value::String(text.substr(begin, end - begin))});
    begin = end + 1;
  }
  return result;
}

// The rows of one prepared read query: through its plan, or planned after binding the
// parameters when the planner refused it unbound.
Result<query::QueryResult> RunPlanned(const Snapshot& snapshot,
                                      const query::PreparedQuery& prepared, const Json& params,
                                      const RunOptions& options) {
  if (!prepared.plan) return RunChecked(snapshot, prepared.checked, params, options);
  OMNIGRAPH_RETURN_IF_ERROR(AuthorizeReads(prepared.checked, options));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<schema::Value> values,
                             query::BindParams(prepared.checked, params));
  PrefetchReads(snapshot, prepared.checked, options);
  std::optional<query::ExecCache> local;
  const query::ExecOptions exec = ExecOptionsFor(snapshot, options, local);
  SnapshotView view(snapshot);
  Result<query::QueryResult> result = query::ExecutePlan(view, *prepared.plan, values, exec);
  if (!result.ok()) return snapshot.ExplainReadFailure(result.status());
  return result;
}

// The run of one prepared read query under the file's settings: its plan when explained, else
// its rows.
Status RunDecl(const Snapshot& snapshot, const query::PreparedQuery& prepared, const Json& params,
               RunOptions options, const query::QuerySettings& settings, ReadOutcome& out) {
  out.query_name = prepared.decl->name.text;
  for (const query::Diagnostic& w : settings.warnings) out.warnings.push_back(w.Render());
  out.commit_id = snapshot.commit_id();
  if (prepared.decl->explain) {
    if (prepared.plan) {
      out.plan = query::RenderPlan(*prepared.plan);
    } else {
      // The planner's refusal, as an unprepared explain reports it.
      OMNIGRAPH_ASSIGN_OR_RETURN(query::Plan plan, query::PlanQuery(prepared.checked));
      out.plan = query::RenderPlan(plan);
    }
    out.result = ExplainResult(*out.plan);
    return Status::Ok();
  }
  // A header's limit governs its own source; without one the caller's bound stands.
  if (settings.traversal_work_limit) options.traversal_work_limit = *settings.traversal_work_limit;
  OMNIGRAPH_ASSIGN_OR_RETURN(out.result, RunPlanned(snapshot, prepared, params, options));
  return Status::Ok();
}

// `show all;` as an outcome.
ReadOutcome ShowAll(const query::QuerySettings& settings) {
  ReadOutcome out;
  out.query_name = "show all";
  out.result = query::ShowSettings(settings);
  for (const query::Diagnostic& w : settings.warnings) out.warnings.push_back(w.Render());
  return out;
}

Result<query::QueryResult> ListBranches(Graph& graph) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<commit::BranchInfo> all, graph.ListBranches());
  query::QueryResult result;
  query::ResultColumn name;
  name.name = "name";
  name.type = query::ExprType::Scalar(schema::ScalarKind::kString);
  name.nullable = false;
  result.columns.push_back(std::move(name));
  for (const commit::BranchInfo& b : all) result.rows.push_back({schema::Value::String(b.branch)});
  return result;
}

}  // namespace

Result<OrderedJson> RunQuery(const Snapshot& snapshot, std::string_view source,
                             std::string_view query_name, const Json& params,
                             const RunOptions& options) {
  OMNIGRAPH_ASSIGN_OR_RETURN(query::QueryFile file, query::ParseQueryFile(source));
  if (file.statement) {
    return InvalidArgument("a branch statement runs on the graph, not on one snapshot");
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(query::QuerySettings settings, query::ResolveSettings(file.settings));
  if (file.show_all) {
    ReadOutcome out = ShowAll(settings);
    return Envelope(out.query_name, out.result, "", options, out.warnings);
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(
      std::unique_ptr<query::PreparedQuery> prepared,
      query::PrepareQuery(std::move(file), query_name, snapshot.shared_catalog()));
  ReadOutcome out;
  OMNIGRAPH_RETURN_IF_ERROR(RunDecl(snapshot, *prepared, params, options, settings, out));
  return Envelope(out.query_name, out.result, out.commit_id, options, out.warnings, out.plan);
}

namespace {

// The one prepared query of a read (query/prepare.h), made once: during a cold read against the
// state the head most likely is, beside the probe for newer records, so that the tables it reads
// are fetched in that request round (Graph::SnapshotAhead, decision 205); else against the head.
// Through the handle's cache when it keeps one and the source is plain (no headers, no explain).
class ReadPreparer {
 public:
  ReadPreparer(std::string_view source, std::string_view name, PreparedQueries* cache,
               std::optional<query::QueryFile> parsed)
      : source_(source), name_(name), cache_(cache), parsed_(std::move(parsed)) {}

  // The query prepared against `catalog`; the parse given is used once, then the source is
  // parsed again if needed (the guess was wrong).
  Result<std::shared_ptr<const PreparedQuery>> For(
      const std::shared_ptr<const schema::Catalog>& catalog) {
    if (early_ != nullptr && early_->catalog == catalog) return early_;
    std::optional<query::QueryFile> parsed = std::exchange(parsed_, std::nullopt);
    if (cache_ != nullptr) return cache_->Get(source_, name_, catalog, parsed ? &*parsed : nullptr);
    if (!parsed) {
      OMNIGRAPH_ASSIGN_OR_RETURN(parsed, query::ParseQueryFile(source_));
    }
    OMNIGRAPH_ASSIGN_OR_RETURN(std::unique_ptr<PreparedQuery> prepared,
                               query::PrepareQuery(*std::move(parsed), name_, catalog));
    return std::shared_ptr<const PreparedQuery>(std::move(prepared));
  }

  // A cold read's read ahead: the query prepared against `likely` and, when the gate allows the
  // read, the manifests and stored id indexes of the tables it reads. The gate's answer is kept
  // for the run (Options), so that it is asked once.
  Graph::SnapshotAhead Ahead(const RunOptions& options) {
    return [this, &options](const Snapshot& likely) {
      Result<std::shared_ptr<const PreparedQuery>> prepared = For(likely.shared_catalog());
      if (!prepared.ok()) return;
      early_ = *prepared;
      if (early_->decl->explain) return;  // An explained query reads no table.
      gate_ = AuthorizeReads(early_->checked, options);
      if (gate_->ok()) PrefetchReads(likely, early_->checked, options, /*ahead=*/true);
    };
  }

  // `options` for running `prepared`: the gate's answer given during the read ahead stands for
  // the same query.
  RunOptions Options(const RunOptions& options,
                     const std::shared_ptr<const PreparedQuery>& prepared) const {
    RunOptions out = options;
    if (gate_ && prepared == early_ && options.authorize) {
      out.authorize = [answer = *gate_](const AuthorityRequest&) { return answer; };
    }
    return out;
  }

 private:
  std::string_view source_;
  std::string_view name_;
  PreparedQueries* cache_;
  std::optional<query::QueryFile> parsed_;
  std::shared_ptr<const PreparedQuery> early_;
  std::optional<Status> gate_;
};

// The state a read sees, with `ahead` called during a cold read of a branch head. At a past
// commit its schema answers to today's names as well, and a name today gives to another type
// means that type, which the commit does not hold (Graph::WithTodaysNames: one read of main's
// head).
Result<Snapshot> ReadSnapshot(Graph& graph, const RunOptions& options,
                              const Graph::SnapshotAhead& ahead = {}) {
  if (!options.snapshot) return graph.SnapshotOfBranch(options.branch.value_or("main"), ahead);
  OMNIGRAPH_ASSIGN_OR_RETURN(Snapshot at, graph.SnapshotAtCommit(*options.snapshot));
  return graph.WithTodaysNames(at);
}

// Reads the snapshot and runs the query `preparer` prepares on it under `settings`.
Result<ReadOutcome> RunPrepared(Graph& graph, ReadPreparer& preparer, const Json& params,
                                const RunOptions& options, const query::QuerySettings& settings) {
  OMNIGRAPH_ASSIGN_OR_RETURN(Snapshot snapshot,
                             ReadSnapshot(graph, options, preparer.Ahead(options)));
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const PreparedQuery> prepared,
                             preparer.For(snapshot.shared_catalog()));
  ReadOutcome out;
  OMNIGRAPH_RETURN_IF_ERROR(
      RunDecl(snapshot, *prepared, params, preparer.Options(options, prepared), settings, out));
  return out;
}

}  // namespace

Result<ReadOutcome> RunRead(Graph& graph, std::string_view source, std::string_view query_name,
                            const Json& params, const RunOptions& options) {
  std::shared_ptr<const PreparedQuery> known;
  if (options.prepared != nullptr) known = options.prepared->Find(source, query_name);
  if (known != nullptr) {
    // A source the cache knows is a query (not explained, not a statement): its entry holds the
    // parse, whose headers give the settings as a parse of the source would (decision 219).
    OMNIGRAPH_ASSIGN_OR_RETURN(query::QuerySettings settings,
                               query::ResolveSettings(known->file.settings));
    ReadPreparer preparer(source, query_name, options.prepared, std::nullopt);
    return RunPrepared(graph, preparer, params, options, settings);
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(query::QueryFile file, query::ParseQueryFile(source));
  OMNIGRAPH_ASSIGN_OR_RETURN(query::QuerySettings settings, query::ResolveSettings(file.settings));
  if (file.show_all) {
    if (!query_name.empty()) {
      return InvalidArgument("the source is a `show all;` statement; it has no query named '" +
                             std::string(query_name) + "'");
    }
    return ShowAll(settings);
  }
  if (file.statement) {
    OMNIGRAPH_RETURN_IF_ERROR(query::CheckBranchStatement(*file.statement, false));
    if (!query_name.empty()) {
      return InvalidArgument("the source is a `branch list` statement; it has no query named '" +
                             std::string(query_name) + "'");
    }
    ReadOutcome out;
    out.query_name = query::BranchOpName(file.statement->op);
    OMNIGRAPH_ASSIGN_OR_RETURN(out.result, ListBranches(graph));
    return out;
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(const query::QueryDecl* decl, query::SelectQuery(file, query_name));
  // A query goes through the cache, headers and all (the entry's parse holds them, and a run
  // from the cache resolves its settings from there, as a mutation's does); an `explain` is
  // prepared for its run alone, so the cache never answers for one. The parse is handed over
  // either way: a cold run parses its source once.
  const bool cached = options.prepared != nullptr && !decl->explain;
  ReadPreparer preparer(source, query_name, cached ? options.prepared : nullptr, std::move(file));
  return RunPrepared(graph, preparer, params, options, settings);
}

Result<OrderedJson> RunReadJson(Graph& graph, std::string_view source, std::string_view query_name,
                                const Json& params, const RunOptions& options) {
  OMNIGRAPH_ASSIGN_OR_RETURN(ReadOutcome out, RunRead(graph, source, query_name, params, options));
  return Envelope(out.query_name, out.result, out.commit_id, options, out.warnings, out.plan);
}

}  // namespace omnigraph::engine
