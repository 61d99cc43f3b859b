#include "engine/read/prepared.h"

#include "query/parse/parser.h"

namespace omnigraph::engine {

namespace {

// The cache key: the name, then the source (a name cannot hold a NUL, so the split is unique).
std::string KeyOf(std::string_view source, std::string_view name) {
  std::string key(name);
  key.push_back('\0');
  key.append(source);
  return key;
}

Result<std::shared_ptr<const PreparedQuery>> Prepare(
    std::string_view source, std::string_view name,
    const std::shared_ptr<const schema::Catalog>& catalog, query::QueryFile* parsed) {
  auto prepared = std::make_shared<PreparedQuery>();
  prepared->catalog = catalog;
  if (parsed != nullptr) {
    prepared->file = std::move(*parsed);
  } else {
    OMNIGRAPH_ASSIGN_OR_RETURN(prepared->file, query::ParseQueryFile(source));
  }
  if (prepared->file.statement) {
    return InvalidArgument("a branch statement runs on the graph, not on one snapshot");
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(prepared->decl, query::SelectQuery(prepared->file, name));
  OMNIGRAPH_ASSIGN_OR_RETURN(prepared->checked, query::TypecheckQuery(*catalog, *prepared->decl));
  Result<query::Plan> plan = query::PlanQuery(prepared->checked);
  if (plan.ok()) prepared->plan.emplace(std::move(*plan));
  return std::shared_ptr<const PreparedQuery>(std::move(prepared));
}

}  // namespace

Result<std::shared_ptr<const PreparedQuery>> PreparedQueries::Get(
    std::string_view source, std::string_view name,
    const std::shared_ptr<const schema::Catalog>& catalog, query::QueryFile* parsed) {
  const std::string key = KeyOf(source, name);
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::shared_ptr<const PreparedQuery>* held = cache_.Find(key);
    if (held != nullptr && (*held)->catalog == catalog) {
      ++stats_.hits;
      return *held;
    }
  }
  // Prepared outside the lock; a concurrent preparer of the same key wastes work, not safety.
  const bool parses = parsed == nullptr;
  OMNIGRAPH_ASSIGN_OR_RETURN(std::shared_ptr<const PreparedQuery> prepared,
                             Prepare(source, name, catalog, parsed));
  std::lock_guard<std::mutex> lock(mu_);
  ++stats_.prepares;
  if (parses) ++stats_.parses;
  cache_.Put(key, prepared);
  return prepared;
}

bool PreparedQueries::Known(std::string_view source, std::string_view name) const {
  std::lock_guard<std::mutex> lock(mu_);
  return cache_.Contains(KeyOf(source, name));
}

PreparedQueries::Stats PreparedQueries::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  Stats s = stats_;
  s.entries = cache_.size();
  return s;
}

}  // namespace omnigraph::engine
