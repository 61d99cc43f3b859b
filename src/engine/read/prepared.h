// PreparedQueries: a bounded cache of queries (reads and mutations) parsed and prepared
// (query/prepare.h: checked, and planned when a read), keyed by the source text and the query
// name, for one catalog (docs/design/query-execution.md "Prepared
// queries"). A handle keeps one so that a warm read pays only parameter binding and execution,
// and a warm mutation only binding, its effects and the write.
//
// An entry is bound to the catalog it was checked against (it holds that catalog alive, so the
// pointer it is keyed by cannot be reused): a read whose snapshot has another catalog (a schema
// apply happened) checks again and replaces the entry. Sources that are branch statements are
// never cached (they run on the graph, not on a snapshot). Thread-safe; entries are immutable.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "base/lru_cache.h"
#include "base/status.h"
#include "query/parse/ast.h"
#include "query/prepare.h"
#include "schema/catalog.h"

namespace omnigraph::engine {

// Entries kept by default (least recently used evicted first).
inline constexpr size_t kPreparedQueriesMax = 256;

// The cache's entries are query::PreparedQuery (query/prepare.h), the one prepare step of reads
// and mutations.
using query::PreparedQuery;

class PreparedQueries {
 public:
  explicit PreparedQueries(size_t entries_max = kPreparedQueriesMax) : cache_(entries_max) {}

  // The entry for (`source`, `name`) checked against `catalog`: cached, or parsed, checked and
  // planned now (and cached). The errors of ParseQueryFile, SelectQuery (an unknown name) and
  // TypecheckQuery, none of them cached; InvalidArgument for a branch statement (which the
  // caller runs before asking). A caller that has parsed `source` already passes the parse in
  // `parsed` (taken on a miss, left alone on a hit), so that a cold run parses its source once.
  Result<std::shared_ptr<const PreparedQuery>> Get(
      std::string_view source, std::string_view name,
      const std::shared_ptr<const schema::Catalog>& catalog, query::QueryFile* parsed = nullptr);

  // The entry of (`source`, `name`) for any catalog, or null: when there is one, the source is
  // known to be a read or mutation query, not a branch statement, and its parse is at hand
  // (`file`) without parsing it again. Not counted as a hit.
  std::shared_ptr<const PreparedQuery> Find(std::string_view source, std::string_view name);

  struct Stats {
    uint64_t hits = 0;
    uint64_t prepares = 0;
    uint64_t parses = 0;  // Prepares that parsed the source themselves (no `parsed` given).
    size_t entries = 0;
  };
  Stats stats() const;

 private:
  mutable std::mutex mu_;
  LruCache<std::shared_ptr<const PreparedQuery>> cache_;  // Charged one per entry.
  Stats stats_;
};

}  // namespace omnigraph::engine
