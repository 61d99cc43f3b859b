// Lint: checks every query of a `.gq` file against a catalog and describes each one
// (OmniGraph's diagnostics and lint): its kind, result columns with types, the graph types it reads
// and writes, and its errors and warnings, as a report and as the `lint --json` document.
//
// A parse error fails the whole file (one Q000 finding, no queries). Otherwise each query is
// typechecked on its own, so one bad query does not hide the others. Warnings: a mutation with
// no parameters ("hardcoded"), and L201 for each nullable, non-key, non-@embed property of a
// node type that some update query updates but no update query assigns. The report is an
// error when any query or finding is. Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/json.h"
#include "query/check/typecheck.h"
#include "query/parse/diagnostic.h"
#include "schema/catalog.h"

namespace omnigraph::query {

// A file-level finding (Q000 parse error, L201).
struct LintFinding {
  Diagnostic diagnostic;
  std::string type_name;                 // L201.
  std::string property;                  // L201.
  std::vector<std::string> query_names;  // L201: the update queries of the type.
  bool has_position = false;             // Q000 points into the source; L201 does not.
};

struct LintQuery {
  std::string name;
  uint32_t line = 0;  // Where its `query` keyword is (1-based).
  QueryKind kind = QueryKind::kRead;
  // Its declared parameters, as the stored-query catalog describes them: {name, kind,
  // item_kind?, vector_dim?, nullable}, in declaration order (also when it fails to check).
  std::vector<OrderedJson> params;
  std::optional<std::string> description;  // @description("...")
  std::optional<std::string> instruction;  // @instruction("...")
  std::optional<Diagnostic> error;
  std::vector<std::string> warnings;
  std::vector<ResultColumn> columns;  // When ok; read queries only.
  std::vector<GraphFact> reads;       // When ok.
  std::vector<GraphFact> writes;      // When ok.
};

struct LintReport {
  std::vector<LintQuery> queries;
  std::vector<LintFinding> findings;  // Errors first, then by type, property, message.

  size_t error_count() const;
  size_t warning_count() const;
  bool ok() const { return error_count() == 0; }
  // {status, queries_processed, errors, warnings, infos, queries:[{name, line, kind, params,
  //  description?, instruction?, status, error?, diagnostic?, warnings, operation?:{result:[{name,
  //  kind, item_kind?, vector_dim?, nullable}], reads, writes}}], findings:[{severity, code,
  //  message, position?, type_name?, property?, query_names?}]}. See docs/design/query-language.md.
  OrderedJson ToJson() const;
};

LintReport LintQuerySource(const schema::Catalog& catalog, std::string_view source);

// The lint JSON of one result column: {name, kind, item_kind?, vector_dim?, nullable}; kinds are
// string, bool, int (I32/U32), bigint (I64/U64), float, date, datetime, blob, vector, list and
// object (a whole entity).
OrderedJson ColumnJson(const ResultColumn& column);

}  // namespace omnigraph::query
