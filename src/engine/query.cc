#include "engine/query.h"

#include "query/parser.h"
#include "query/typecheck.h"

namespace omnigraph::engine {

Result<query::QueryResult> RunChecked(const Snapshot& snapshot, const query::CheckedQuery& checked,
                                      const Json& params, const RunOptions& options) {
  OMNIGRAPH_ASSIGN_OR_RETURN(std::vector<schema::Value> values, query::BindParams(checked, params));
  std::optional<query::ExecCache> local;
  query::ExecOptions exec;
  exec.now_ms = options.now_ms ? *options.now_ms : snapshot.clock().NowMillis();
  exec.cache = options.cache;
  if (exec.cache == nullptr) exec.cache = &local.emplace(64);
  SnapshotView view(snapshot);
  Result<query::QueryResult> result = query::Execute(view, checked, values, exec);
  if (!result.ok()) return snapshot.ExplainReadFailure(result.status());
  return result;
}

Result<OrderedJson> RunQuery(const Snapshot& snapshot, std::string_view source,
                             std::string_view query_name, const Json& params,
                             const RunOptions& options) {
  OMNIGRAPH_ASSIGN_OR_RETURN(query::QueryFile file, query::ParseQueryFile(source));
  OMNIGRAPH_ASSIGN_OR_RETURN(const query::QueryDecl* decl, query::SelectQuery(file, query_name));
  OMNIGRAPH_ASSIGN_OR_RETURN(query::CheckedQuery checked,
                             query::TypecheckQuery(snapshot.catalog(), *decl));
  OMNIGRAPH_ASSIGN_OR_RETURN(query::QueryResult result,
                             RunChecked(snapshot, checked, params, options));
  OrderedJson out = OrderedJson::object();
  out["query_name"] = decl->name.text;
  OrderedJson target = OrderedJson::object();
  if (options.branch) target["branch"] = *options.branch;
  if (options.snapshot) target["snapshot"] = *options.snapshot;
  out["target"] = std::move(target);
  out["row_count"] = result.rows.size();
  OrderedJson columns = OrderedJson::array();
  for (const query::ResultColumn& c : result.columns) columns.push_back(c.name);
  out["columns"] = std::move(columns);
  out["rows"] = query::RowsJson(result);
  if (!snapshot.commit_id().empty()) out["graph_commit_id"] = snapshot.commit_id();
  return out;
}

}  // namespace omnigraph::engine
