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

// Parses `source` unless the caller has (`parsed`, taken), then the one prepare step.
Result<std::shared_ptr<const PreparedQuery>> Prepare(
    std::string_view source, std::string_view name,
    const std::shared_ptr<const schema::Catalog>& catalog, query::QueryFile* parsed) {
  query::QueryFile file;
  if (parsed != nullptr) {
    file = std::move(*parsed);
  } else {
    OMNIGRAPH_ASSIGN_OR_RETURN(file, query::ParseQueryFile(source));
  }
  OMNIGRAPH_ASSIGN_OR_RETURN(std::unique_ptr<PreparedQuery> prepared,
                             query::PrepareQuery(std::move(file), name, catalog));
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

std::shared_ptr<const PreparedQuery> PreparedQueries::Find(std::string_view source,
                                                           std::string_view name) {
  std::lock_guard<std::mutex> lock(mu_);
  std::shared_ptr<const PreparedQuery>* held = cache_.Find(KeyOf(source, name));
  return held != nullptr ? *held : nullptr;
}

PreparedQueries::Stats PreparedQueries::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  Stats s = stats_;
  s.entries = cache_.size();
  return s;
}

}  // namespace omnigraph::engine
