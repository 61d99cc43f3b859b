#include "query/prepare.h"

#include <utility>

#include "query/parse/parser.h"

namespace omnigraph::query {

Result<std::unique_ptr<PreparedQuery>> PrepareQuery(
    QueryFile file, std::string_view name, std::shared_ptr<const schema::Catalog> catalog) {
  if (file.statement) {
    return InvalidArgument("a branch statement runs on the graph, not on one snapshot");
  }
  if (file.show_all) return InvalidArgument("`show all;` shows the settings; it is not a query");
  auto prepared = std::make_unique<PreparedQuery>();
  prepared->catalog = std::move(catalog);
  prepared->file = std::move(file);
  OMNIGRAPH_ASSIGN_OR_RETURN(prepared->decl, SelectQuery(prepared->file, name));
  OMNIGRAPH_ASSIGN_OR_RETURN(prepared->checked,
                             TypecheckQuery(*prepared->catalog, *prepared->decl));
  if (!prepared->decl->is_mutation()) {
    Result<Plan> plan = PlanQuery(prepared->checked);
    if (plan.ok()) prepared->plan.emplace(std::move(*plan));
  }
  return prepared;
}

}  // namespace omnigraph::query
